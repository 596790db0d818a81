"""Raise-site classes that got only a class's last resort (session 35, sigs-d), each generated over
its wordings across releases and the ways a log shows it, with a near miss:

- the workers' `update_config` collective call refusing an override (a configuration other than
  load_config/model_config, a field the dataclass lacks in 0.10-0.26's assertion or 0.27's
  ValueError, a nested configuration not given as a mapping): worker-config-override-rejected;
  a pydantic refusal of a JSON-valued flag's key and a transformers config's missing attribute
  are not it;
- 0.34's split CUDA graph sizes: an explicit prefill or decode size list holding a size above
  the cap given with it: cudagraph-capture-sizes-above-cap; another --compilation-config
  refusal is not it;
- the Mistral tokenizer given a path missing on this machine that is no two-part Hub repo id
  (0.6-0.11's assertion, the placeholder printed literally by some releases):
  mistral-tokenizer-path-not-found; no tokenizer file in an existing directory is not it;
- a constant only float32 holds written into a float16 tensor (torch's overflow check, in a
  model's, a plugin's or a logits processor's code): half-precision-value-overflow; a dtype
  mismatch of a float16 forward is not it;
- a model file's own bare `assert <heads> % tp_size == 0` (Python prints no message: the source
  line is read): tp-size-not-dividing-layer-dim; another bare assert of a model file is not it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, \
    signature_advice

# --- the workers' update_config refusing an override ------------------------------------------

_CONFIG_CLASSES = st.sampled_from(["<class 'vllm.config.load.LoadConfig'>",
                                   "<class 'vllm.config.model.ModelConfig'>",
                                   "<class 'vllm.config.LoadConfig'>"])
_FIELDS = st.sampled_from(["load-format", "load_formats", "model_loader_extra_config_path",
                           "hf_overrides_path", "use_tqdm", "quantization_param_path"])


def _override_refusal(era: str, cls: str, field: str) -> str:
    if era == "assertion":
        return f"AssertionError: {cls} has no field `{field}`"
    if era == "path":
        return f"ValueError: LoadConfig.{field} is not a valid config field"
    if era == "mapping":  # 0.27 on, a nested configuration given as a string
        return (f"ValueError: Override for ModelConfig.{field} must be a mapping or "
                "MultiModalConfig, got str")
    if era == "config":
        return (f"AssertionError: Config `{field}` not supported. Allowed configs: "
                "{'load_config', 'model_config'}")
    return (f"AssertionError: Overrides to {cls}.{field} must be a dict  or <class 'dict'>, "
            "but got <class 'str'>")


@settings(max_examples=50, deadline=None)
@given(era=st.sampled_from(["assertion", "path", "mapping", "config", "nested"]), cls=_CONFIG_CLASSES,
       field=_FIELDS, shape=st.sampled_from(["traceback", "bare"]), py=PYTHONS,
       site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_an_override_the_workers_config_lacks_gets_the_update_config_advice(
        era: str, cls: str, field: str, shape: str, py: str, site: str, prefix: str) -> None:
    error = _override_refusal(era, cls, field)
    packages = site.format(py=py)
    if shape == "traceback":
        frames = [(f"{packages}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
                   "output = func(*args, **kwargs)"),
                  (f"{packages}vllm/v1/worker/gpu_worker.py", "update_config",
                   "self.model_runner.update_config(overrides)"),
                  (f"{packages}vllm/v1/worker/gpu_model_runner.py", "update_config",
                   "new_config = update_config(config, config_overrides)"),
                  (f"{packages}vllm/config/utils.py", "update_config", "assert hasattr(")]
        log = python_traceback(frames, error, prefix)
    else:
        log = prefix + error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "worker-config-override-rejected", log
    assert "collective_rpc" in fix and "load_config" in fix and "model_config" in fix


@pytest.mark.parametrize("error", [
    "AssertionError: <class 'transformers.models.llama.configuration_llama.LlamaConfig'> has no "
    "attribute `rope_theta`",
    "ValueError: Unknown vLLM environment variable detected: VLLM_LOAD_FORMAT",
    "AssertionError: Config file not found: /models/llama/config.json",
])
def test_another_config_refusal_is_not_the_update_config_call(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "worker-config-override-rejected"


# --- 0.34's split CUDA graph sizes: a size list above its cap ---------------------------------

_KINDS = st.sampled_from([("decode_cudagraph_capture_request_sizes",
                           "max_decode_cudagraph_capture_requests"),
                          ("prefill_cudagraph_capture_token_sizes",
                           "max_prefill_cudagraph_capture_tokens")])


@settings(max_examples=40, deadline=None)
@given(kind=_KINDS, cap=st.sampled_from([16, 64, 128, 512, 2048]),
       over=st.integers(1, 4096), dot=st.booleans(),
       prefix=st.sampled_from(["", "(APIServer pid=2210) ", "[rank0]: "]),
       shape=st.sampled_from(["traceback", "bare"]))
def test_a_size_list_above_its_cap_gets_the_cudagraph_sizes_advice(
        kind: tuple[str, str], cap: int, over: int, dot: bool, prefix: str, shape: str) -> None:
    sizes, cap_name = kind
    error = f"ValueError: {sizes} holds {cap + over}, above {cap_name}={cap}{'.' if dot else ''}"
    if shape == "traceback":
        frames = [("/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py",
                   "create_engine_config", "config = VllmConfig("),
                  ("/usr/local/lib/python3.12/dist-packages/vllm/config/vllm.py", "explicit",
                   'raise ValueError(f"{name} holds {kept[-1]}, above {cap_name}={cap}.")')]
        log = python_traceback(frames, error, prefix)
    else:
        log = prefix + error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "cudagraph-capture-sizes-above-cap", log
    assert cap_name in fix and sizes in fix and "--compilation-config" in fix


def test_another_compilation_config_refusal_is_not_a_size_list_above_its_cap() -> None:
    sid, _ = signature_advice("ValueError: Invalid cudagraph_mode: FULL_DECODE_ONLY_X\n")
    assert sid != "cudagraph-capture-sizes-above-cap"


# --- the Mistral tokenizer given a path missing here -------------------------------------------

_MISSING_PATHS = st.sampled_from(["/models/Devstral-Small-2505", "./mistral-7b-instruct",
                                  "/mnt/data/hf/Mistral-Small-3.1-24B", "{path_or_repo_id}",
                                  "models/mistralai/Ministral-8B-Instruct-2410"])


@settings(max_examples=30, deadline=None)
@given(path=_MISSING_PATHS, shape=st.sampled_from(["traceback", "bare"]),
       prefix=TRACEBACK_PREFIXES)
def test_a_missing_path_for_the_mistral_tokenizer_gets_the_mount_advice(
        path: str, shape: str, prefix: str) -> None:
    error = (f"AssertionError: You have either provided a non-existent path: {path} or an "
             "invalid HF Hub repo id.")
    if shape == "traceback":
        mistral = "/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/tokenizers/"
        frames = [(mistral.replace("tokenizers/", "tokenizer.py"), "get_tokenizer",
                   "tokenizer = MistralTokenizer.from_pretrained(str(tokenizer_name),"),
                  (mistral + "mistral.py", "from_pretrained",
                   'assert len(path_or_repo_id.split("/")) == 2, (')]
        log = python_traceback(frames, error, prefix)
    else:
        log = prefix + error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "mistral-tokenizer-path-not-found", log
    assert "--tokenizer" in fix and "docker run -v" in fix and "tekken.json" in fix


def test_no_tokenizer_file_in_an_existing_directory_is_not_a_missing_path() -> None:
    error = ("OSError: Found 0 files matching the pattern: `^tekken\\.json$`. Make sure that a "
             "Mistral tokenizer is present in ['config.json'].")
    assert signature_advice(error + "\n")[0] != "mistral-tokenizer-path-not-found"


# --- a float32-only constant written into a float16 tensor --------------------------------------

_OWNERS = st.sampled_from([
    ("{site}vllm_ascend/attention/attention_mask.py", "_update_attn_cache",
     "self.attn_mask_cache = self.attn_mask_cache.masked_fill(mask, mask_value)"),
    ("/root/.cache/huggingface/modules/transformers_modules/custom_lm/modeling_custom.py",
     "forward", "mask = mask.masked_fill(~keep, torch.finfo(torch.float32).min)"),
    ("{site}vllm/model_executor/models/chatglm.py", "forward",
     "scores[i, self.eos_token_id] = float(2**30)"),
])


@settings(max_examples=40, deadline=None)
@given(owner=_OWNERS, kind=st.sampled_from(["Half", "BFloat16"]),
       shape=st.sampled_from(["traceback", "bare", "pytest"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_constant_overflowing_half_precision_gets_the_dtype_advice(
        owner: tuple[str, str, str], kind: str, shape: str, py: str, site: str,
        prefix: str) -> None:
    error = f"RuntimeError: value cannot be converted to type at::{kind} without overflow"
    path, function, code = owner
    if shape == "traceback":
        log = python_traceback([(path.format(site=site.format(py=py)), function, code)], error,
                               prefix)
    elif shape == "pytest":
        # pytest's report of a failing test: the error behind its `E` column
        log = f"    {code}\nE       {error}\n"
    else:
        log = prefix + error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "half-precision-value-overflow", log
    assert "--dtype bfloat16" in fix and "--dtype float32" in fix and "finfo" in fix


@pytest.mark.parametrize("error", [
    "RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::Half != float",
    "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
    "OverflowError: cannot convert float infinity to integer",
])
def test_another_half_precision_error_is_not_a_constant_overflow(error: str) -> None:
    assert signature_advice(error + "\n")[0] != "half-precision-value-overflow"


# --- a model file's own bare TP-divisibility assert ---------------------------------------------

_TP_ASSERTS = st.sampled_from([
    "assert self.total_num_heads % tp_size == 0",
    "assert self.total_num_kv_heads % tp_size == 0",
    "assert tp_size % self.total_num_kv_heads == 0",
    "assert self.num_heads % self.tp_size == 0",
    "assert self.total_num_heads % tp_world_size == 0",
    "assert config.intermediate_size % self.world_size == 0",
])
_MODEL_FILES = st.sampled_from(["llama", "qwen2", "mllama4", "qwen2_5_vl", "glm4v", "minicpmv"])


@settings(max_examples=50, deadline=None)
@given(source=_TP_ASSERTS, model=_MODEL_FILES, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_model_files_bare_tp_divisibility_assert_gets_the_tp_size_advice(
        source: str, model: str, py: str, site: str, prefix: str) -> None:
    packages = site.format(py=py)
    frames = [(f"{packages}vllm/model_executor/model_loader/utils.py", "initialize_model",
               "return model_class(vllm_config=vllm_config, prefix=prefix)"),
              (f"{packages}vllm/model_executor/models/{model}.py", "__init__", source)]
    log = python_traceback(frames, "AssertionError", prefix)
    sid, fix = signature_advice(log)
    assert sid == "tp-size-not-dividing-layer-dim", log
    assert "--tensor-parallel-size" in fix and "--pipeline-parallel-size" in fix
    assert "num_key_value_heads" in fix


@pytest.mark.parametrize("source", ["assert self.total_num_kv_heads > 0",
                                    "assert self.head_dim % 2 == 0",
                                    "assert self.rotary_dim % 2 == 0",
                                    "assert len(self.layers) % self.pp_size == 0"])
def test_another_bare_assert_of_a_model_file_is_not_tp_divisibility(source: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2.py",
               "__init__", source)]
    sid, _ = signature_advice(python_traceback(frames, "AssertionError"))
    assert sid != "tp-size-not-dividing-layer-dim"
