"""Two classes of failure whose advice was missing (issue 11), each in the shapes users paste.

- The model's HuggingFace config is not of the class vLLM's model code checks for
  (`TypeError: Invalid type of HuggingFace config. Expected type: <A>, but found type: <B>`,
  vllm/multimodal/processing/context.py; vllm/inputs/registry.py before 0.11): a framework that
  built the config with transformers' class, a config.json saved by a newer transformers, or
  `architectures` and `model_type` of two models. Signature `hf-config-class-mismatch`; the
  processor's type check beside it and a missing config field are other failures.
- An empty prompt (`please provide at least one prompt` from the batch parsing of
  vllm/inputs/parse.py, `The decoder prompt cannot be empty` from V1's validation): signature
  `prompt-empty`, whose fix names the generation budget of an evaluation harness that cuts the
  prompt to the context minus that budget; the same function's TypeError for a prompt of the
  wrong form is another failure.

Each is generated in several wordings, eras (a bare paste, a V0 or V1 record, an API server's
traceback), wrappers, and with a client's `ERROR: ` record after it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from test_run_properties import WRAPPERS

MODELS = [("qwen3_5", "Qwen3_5Config"), ("qwen3_5_moe", "Qwen3_5MoeConfig"),
          ("qwen2_5_vl", "Qwen2_5_VLConfig"), ("ovis", "OvisConfig"),
          ("kimi_vl", "KimiVLConfig"), ("step3_vl", "Step3VLConfig")]


def _classes(expected: tuple[str, str], found: tuple[str, str], text_variant: bool,
             own: bool) -> tuple[str, str]:
    module, cls = expected
    want = (f"<class 'vllm.transformers_utils.configs.{module}.{cls}'>" if own
            else f"<class 'transformers.models.{module}.configuration_{module}.{cls}'>")
    fmodule, fcls = found
    if text_variant:
        fcls = fcls.replace("Config", "TextConfig")
    got = f"<class 'transformers.models.{fmodule}.configuration_{fmodule}.{fcls}'>"
    return want, got


def _config_error(want: str, got: str, shape: int) -> list[str]:
    if shape == 0:  # the message on one line, as vLLM prints it
        return [f"TypeError: Invalid type of HuggingFace config. Expected type: {want}, but found "
                f"type: {got}"]
    if shape == 1:  # a paste that broke it at its sentences
        return ["TypeError: Invalid type of HuggingFace config.", f"Expected type: {want}",
                f"but found type: {got}"]
    frames = [  # an API server's traceback (V1), or V0's InputContext
        "(APIServer pid=7101) Traceback (most recent call last):",
        '(APIServer pid=7101)   File "/usr/local/lib/python3.12/dist-packages/vllm/multimodal/'
        'processing/context.py", line 139, in get_hf_config',
        "(APIServer pid=7101)     raise TypeError(",
        "(APIServer pid=7101) TypeError: Invalid type of HuggingFace config. Expected type: "
        f"{want}, but found type: {got}"] if shape == 2 else [
        "Traceback (most recent call last):",
        '  File "/opt/conda/lib/python3.10/site-packages/vllm/inputs/registry.py", line 95, in '
        "get_hf_config", "    raise TypeError(",
        f"TypeError: Invalid type of HuggingFace config. Expected type: {want}, but found type: "
        f"{got}"]
    return frames


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(MODELS), st.booleans(), st.booleans(),
       st.integers(0, 3), st.sampled_from(sorted(WRAPPERS)), st.booleans())
def test_a_config_of_another_class_gets_the_config_class_advice(
        expected: tuple[str, str], found: tuple[str, str], text_variant: bool, own: bool,
        shape: int, wrapper: str, client_after: bool) -> None:
    want, got = _classes(expected, found, text_variant, own)
    lines = [*_config_error(want, got, shape),
             *(["ERROR: Engine core proc EngineCore_0 died unexpectedly, shutting down client."]
               if client_after else [])]
    report = _explain([WRAPPERS[wrapper](line) for line in lines])
    assert report.verdict is Verdict.FAILURE, lines
    root = report.root_cause
    assert root is not None and root.exception == "TypeError", (lines, root)
    assert report.signature is not None and report.signature.id == "hf-config-class-mismatch", \
        (lines, report.signature)
    assert "main branch" in report.signature.fix and "--hf-overrides" in report.signature.fix


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(sorted(WRAPPERS)))
def test_the_look_alikes_of_the_config_check_are_other_failures(
        model: tuple[str, str], wrapper: str) -> None:
    _, cls = model
    for line in [
            # the processor's check beside it
            "TypeError: Invalid type of HuggingFace processor. Expected type: <class 'transformers."
            "processing_utils.ProcessorMixin'>, but found type: <class 'transformers.models.llama."
            "tokenization_llama_fast.LlamaTokenizerFast'>",
            # a field the config class lacks
            f"AttributeError: '{cls}' object has no attribute 'vision_config'"]:
        report = _explain([WRAPPERS[wrapper](line)])
        got = report.signature.id if report.signature else None
        assert got != "hf-config-class-mismatch", (line, got)


EMPTY = ["please provide at least one prompt", "The decoder prompt cannot be empty"]


def _empty_prompt(message: str, era: int) -> list[str]:
    if era == 0:
        return [f"ValueError: {message}"]
    if era == 1:  # an offline LLM.generate() traceback
        return ["Traceback (most recent call last):",
                '  File "/home/user/eval.py", line 40, in <module>',
                "    outputs = llm.generate(prompt_token_ids=batch, sampling_params=params)",
                '  File "/usr/local/lib/python3.12/dist-packages/vllm/inputs/parse.py", line 49, '
                "in parse_and_batch_prompt", f'    raise ValueError("{message}")',
                f"ValueError: {message}"]
    # the API server's record of a request it refused (V1)
    return [f"(APIServer pid=2800) ERROR 08-01 20:01:00 [serving_completion.py:180] {message}"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(EMPTY), st.integers(0, 2), st.sampled_from(sorted(WRAPPERS)),
       st.sampled_from(["", "ERROR: Engine core proc EngineCore_0 died unexpectedly, shutting "
                        "down client.", "ERROR:    Exception in ASGI application"]))
def test_an_empty_prompt_gets_the_empty_prompt_advice(message: str, era: int, wrapper: str,
                                                      after: str) -> None:
    lines = [*_empty_prompt(message, era), *([after] if after and era < 2 else [])]
    report = _explain([WRAPPERS[wrapper](line) for line in lines])
    matched = report.root_cause or (report.symptoms[0] if report.symptoms else None)
    assert matched is not None and message in matched.message, (lines, matched)
    assert report.signature is not None and report.signature.id == "prompt-empty", \
        (lines, report.signature)
    assert "max_gen_toks" in report.signature.fix


def test_the_same_parsers_type_error_is_another_failure() -> None:
    report = _explain(["TypeError: prompt must be a string, array of strings, array of tokens, "
                       "or array of token arrays"])
    got = report.signature.id if report.signature else None
    assert got != "prompt-empty"
