"""Classes from session 22's cold sweep of even-numbered vLLM threads (s22a-* tuning cases), each
generated over its eras, wordings and the prefixes a log gives it, with a near miss that keeps
its own answer:

- `vllm serve` with no positional model, in each era's words: 0.5-0.8's argparse ("vllm serve:
  error: the following arguments are required: model_tag", vllm PR 8618), 0.8.5-0.9's ValueError
  ("you should provide the model as a positional argument ... instead of via the `--model`
  option", vllm PR 17944) and 0.10+'s (serve-model-positional-required);
- transformers 5.10's processors calling `fetch_audio` / `fetch_images` on a processor part that
  lacks them (vLLM's Mistral-common wrappers for Voxtral and Pixtral, vllm issue 44554):
  processor-part-lacks-transformers-fetch-method;
- the deprecated `--task embed(ding)` on an architecture that needs converting ("The model should
  be a generative or pooling model when task is set to ...", bare or under pydantic, vllm PR
  29312): cli-task-flag-removed, whose fix names `--runner pooling`;
- Mistral-native flags on a Hugging Face checkpoint before 0.8.5: the bare assert in
  `load_params_config` (vllm PR 17132), which mistral-format-config-missing now reads from its
  failing source line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# How a pasted command line and its output reach the report: bare, behind a shell prompt of the
# same paste, under a container runtime's or a compose service's prefix.
_LINE_PREFIXES = st.sampled_from(["", "vllm-1  | ", "[llm]        | "])
_START_LINES = st.sampled_from([
    [],
    ["INFO 09-18 10:02:11 importing.py:10] Triton not installed; certain GPU-related functions "
     "will not be available."],
    ["INFO 02-12 18:37:33 __init__.py:190] Automatically detected platform cuda."],
])
_MODELS = st.sampled_from(["./tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf", "Qwen/Qwen2.5-7B-Instruct",
                           "/models/llama-3-8b", "mistralai/Mistral-7B-Instruct-v0.3"])


# ---- `vllm serve` with no positional model --------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(model=_MODELS, start=_START_LINES, prefix=_LINE_PREFIXES,
       prompt=st.booleans(), usage=st.sampled_from(["vllm serve <model_tag> [options]",
                                                    "vllm serve [model_tag] [options]"]))
def test_argparse_missing_model_tag_says_the_model_is_positional(
        model: str, start: list[str], prefix: str, prompt: bool, usage: str) -> None:
    lines = ([f"$ vllm serve --model {model} --port 8000"] if prompt else []) + start + [
        f"usage: {usage}",
        "vllm serve: error: the following arguments are required: model_tag"]
    signature, fix = signature_advice("".join(prefix + line + "\n" for line in lines))
    assert signature == "serve-model-positional-required"
    assert "positional" in fix and "vllm serve <model>" in fix


@settings(max_examples=20, deadline=None)
@given(prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES,
       module=st.sampled_from(["vllm/utils.py", "vllm/utils/__init__.py"]))
def test_the_085_valueerror_for_model_flag_has_the_same_answer(
        prefix: str, py: str, site: str, module: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/entrypoints/cli/main.py", "main", "args = parser.parse_args()"),
              (root + module, "parse_args", "raise ValueError(")]
    log = python_traceback(frames, "ValueError: With `vllm serve`, you should provide the model "
                           "as a positional argument or in a config file instead of via the "
                           "`--model` option.", prefix)
    signature, fix = signature_advice(log)
    assert signature == "serve-model-positional-required"
    assert "--config" in fix


@settings(max_examples=20, deadline=None)
@given(start=_START_LINES, prefix=_LINE_PREFIXES, error=st.sampled_from([
    "vllm serve: error: argument --max-model-len: invalid int value: '32k'",
    "vllm serve: error: unrecognized arguments: --task embed",
    "benchmark_serving.py: error: the following arguments are required: --model",
    "vllm: error: the following arguments are required: subparser",
]))
def test_other_usage_errors_keep_their_own_answers(
        start: list[str], prefix: str, error: str) -> None:
    log = "".join(prefix + line + "\n" for line in start + ["usage: vllm serve [options]", error])
    signature, _ = signature_advice(log)
    assert signature != "serve-model-positional-required"


# ---- transformers 5.10's fetch_* on a processor part that lacks it --------------------------------

_FETCH = st.sampled_from([
    ("MistralCommonFeatureExtractor", "fetch_audio",
     "audio = self.feature_extractor.fetch_audio(audio, sampling_rate=sampling_rate)",
     "MistralCommonVoxtralProcessor"),
    ("MistralCommonImageProcessor", "fetch_images", "images = self.image_processor.fetch_images(images)",
     "MistralCommonPixtralProcessor"),
])


@settings(max_examples=30, deadline=None)
@given(fetch=_FETCH, prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES,
       wrapped=st.booleans())
def test_a_processor_part_without_transformers_fetch_method_names_the_transformers_pin(
        fetch: tuple[str, str, str, str], prefix: str, py: str, site: str,
        wrapped: bool) -> None:
    part, method, code, processor = fetch
    root = site.format(py=py)
    frames = [(root + "vllm/multimodal/processing/context.py", "call_hf_processor",
               "output = hf_processor(**data, **allowed_kwargs)"),
              (root + "transformers/processing_utils.py", "__call__",
               "images, text, videos, audio = self.prepare_inputs_layout("),
              (root + "transformers/processing_utils.py", "prepare_inputs_layout", code)]
    error = f"AttributeError: '{part}' object has no attribute '{method}'"
    if wrapped:
        error += ("\n\nThe above exception was the direct cause of the following exception:\n\n"
                  f"ValueError: Failed to apply {processor} on data={{'text': ''}} with kwargs={{}}")
    signature, fix = signature_advice(python_traceback(frames, error, prefix))
    assert signature == "processor-part-lacks-transformers-fetch-method"
    assert "transformers<5.10" in fix and "44554" in fix


@settings(max_examples=15, deadline=None)
@given(attribute=st.sampled_from(["patch_size", "image_seq_length", "merge_size"]),
       prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES)
def test_another_missing_processor_attribute_stays_with_the_attribute_family(
        attribute: str, prefix: str, py: str, site: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/multimodal/processing/context.py", "call_hf_processor",
               "output = hf_processor(**data, **allowed_kwargs)"),
              ("/root/.cache/huggingface/modules/transformers_modules/m/processing_m.py",
               "__call__", f"size = self.image_processor.{attribute}")]
    signature, _ = signature_advice(python_traceback(
        frames, f"AttributeError: 'SiglipImageProcessor' object has no attribute '{attribute}'",
        prefix))
    assert signature != "processor-part-lacks-transformers-fetch-method"


# ---- the deprecated --task on a model that needs converting ---------------------------------------

_TASKS = st.sampled_from(["embedding", "embed", "classify", "score"])
_ARCHS = st.sampled_from(["ModernBertModel", "BertModel", "XLMRobertaModel"])


@settings(max_examples=30, deadline=None)
@given(task=_TASKS, arch=_ARCHS, wrap=st.booleans(), prefix=st.sampled_from(
    ["", "(APIServer pid=2201) ", "(EngineCore_DP0 pid=77) "]))
def test_the_task_assertion_names_the_pooling_runner(
        task: str, arch: str, wrap: bool, prefix: str) -> None:
    found = (f"Found: {{'architectures': ['{arch}'], 'is_generative_model': False, "
             "'is_pooling_model': False}")
    if wrap:  # the message as a reporter's terminal wrapped it
        lines = ["AssertionError: The model should be a generative or pooling model when task is",
                 f"set to '{task}'. {found}"]
    else:
        lines = ["AssertionError: The model should be a generative or pooling model when task "
                 f"is set to '{task}'. {found}"]
    signature, fix = signature_advice("".join(prefix + line + "\n" for line in lines))
    assert signature == "cli-task-flag-removed"
    assert "--runner pooling" in fix and "29312" in fix


@settings(max_examples=20, deadline=None)
@given(task=_TASKS, py=PYTHONS, site=SITE_PACKAGES, prefix=st.sampled_from(
    ["", "(APIServer pid=2201) "]))
def test_the_task_assertion_under_pydantic_has_the_same_answer(
        task: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/engine/arg_utils.py", "create_model_config", "return ModelConfig("),
              (root + "pydantic/_internal/_dataclasses.py", "__init__",
               "s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), "
               "self_instance=s)")]
    error = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
             "  Assertion failed, The model should be a generative or pooling model when task is "
             f"set to '{task}'. [type=assertion_error, input_value=ArgsKwargs((), {{'model': "
             "...}), input_type=ArgsKwargs]")
    signature, fix = signature_advice(python_traceback(frames, error, prefix))
    assert signature == "cli-task-flag-removed"
    assert "--runner pooling" in fix


@settings(max_examples=15, deadline=None)
@given(condition=st.sampled_from(["pooler_config should only be set for pooling models.",
                                  "Runner 'generate' is not supported for this model."]),
       py=PYTHONS, site=SITE_PACKAGES)
def test_another_model_config_assertion_stays_with_the_config_family(
        condition: str, py: str, site: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/engine/arg_utils.py", "create_model_config", "return ModelConfig(")]
    error = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
             f"  Assertion failed, {condition} [type=assertion_error, input_value=ArgsKwargs"
             "((), {'model': ...}), input_type=ArgsKwargs]")
    signature, _ = signature_advice(python_traceback(frames, error))
    assert signature != "cli-task-flag-removed"


# ---- Mistral-native flags on a Hugging Face checkpoint, before 0.8.5 ------------------------------

@settings(max_examples=25, deadline=None)
@given(prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES, caret=st.booleans(),
       line=st.integers(min_value=600, max_value=700))
def test_the_bare_params_json_assert_is_the_mistral_format_class(
        prefix: str, py: str, site: str, caret: bool, line: int) -> None:
    root = site.format(py=py)
    lines = ["Traceback (most recent call last):",
             f'  File "{root}vllm/transformers_utils/config.py", line 324, in get_config',
             "    config = load_params_config(model, revision, token=HF_TOKEN, **kwargs)",
             f'  File "{root}vllm/transformers_utils/config.py", line {line}, in '
             "load_params_config",
             "    assert isinstance(config_dict, dict)"]
    if caret:
        lines.append("           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")
    lines.append("AssertionError")
    signature, fix = signature_advice("".join(prefix + text + "\n" for text in lines))
    assert signature == "mistral-format-config-missing"
    assert "--config-format mistral" in fix


@settings(max_examples=15, deadline=None)
@given(prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES, assertion=st.sampled_from(
    ["assert isinstance(hf_overrides_kw, dict)", "assert config.architectures is not None"]))
def test_other_bare_asserts_in_the_config_reader_are_not_the_mistral_class(
        prefix: str, py: str, site: str, assertion: str) -> None:
    root = site.format(py=py)
    lines = ["Traceback (most recent call last):",
             f'  File "{root}vllm/transformers_utils/config.py", line 352, in get_config',
             f"    {assertion}",
             "AssertionError"]
    signature, _ = signature_advice("".join(prefix + text + "\n" for text in lines))
    assert signature != "mistral-format-config-missing"
