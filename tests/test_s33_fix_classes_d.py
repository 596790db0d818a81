"""Classes behind four of session 33's twenty-fourth split's cold fix misses (sigs-d's), each
generated over its wordings and the ways a log shows it, with a near miss:

- vllm-spyre's continuous batching asked of a pooling model: the worker's continuous-batching
  warm-up calling a method only that runner has on the pooling runner (`'SpyrePoolingModelRunner'
  object has no attribute ...`): spyre-continuous-batching-pooling-model, whose fix turns
  VLLM_SPYRE_USE_CB off; another runner missing an attribute is not it;
- a model's code touching a part vLLM left out of the run (StageMissingLayer: towers in
  text-only mode, the language model of an encoder-only instance, a pooling model's head), called,
  edited or indexed: stage-placeholder-module-used; pipeline parallelism's PPMissingLayer is not it;
- a message wrapped before a quantity with its unit (`...(131072),` / `20.0 GiB KV cache is
  needed, ...`): the continuation's number is the message's own, not BuildKit's seconds
  (grammars/vllm.lark BUILDKIT_STEP), so the KV-cache family reads the whole message; BuildKit's
  seconds before other text are still its prefix;
- a config-less directory given as the model in the releases that said "No supported config
  format found in ...": model-path-or-repo-not-found's fix names the LoRA adapter's way (the base
  model with --lora-modules, or a merge); LoRA's own "No supported LoRA modules" is not it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import ERAS, PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, \
    signature_advice, worker_failure

from logsleuth.model import Phase
from logsleuth.tokenize import parse_line

# --- vllm-spyre: continuous batching asked of a pooling model ---------------------------------

_CB_ATTRIBUTES = st.sampled_from(["pre_warmup", "tkv", "complete_warmup_cb", "block_pool",
                                  "_set_free_blocks"])


@settings(max_examples=40, deadline=None)
@given(attribute=_CB_ATTRIBUTES, shape=st.sampled_from(["traceback", "bare", "spaced"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_the_pooling_runner_on_the_continuous_batching_path_gets_static_batching(
        attribute: str, shape: str, py: str, site: str, prefix: str) -> None:
    error = f"AttributeError: 'SpyrePoolingModelRunner' object has no attribute '{attribute}'"
    packages = site.format(py=py)
    if shape == "traceback":
        frames = [(f"{packages}vllm/v1/executor/abstract.py", "initialize_from_config",
                   'self.collective_rpc("compile_or_warm_up_model")'),
                  (f"{packages}vllm_spyre/v1/worker/spyre_worker.py", "compile_or_warm_up_model",
                   "self._warmup_spyre_dynamic_size(self.restricted_tokens)"),
                  (f"{packages}vllm_spyre/v1/worker/spyre_worker.py",
                   "_warmup_spyre_dynamic_size", f"model_runner.{attribute}()")]
        log = python_traceback(frames, error, prefix)
    else:
        # a paste of the one line, with the space a copy from a rendered page keeps
        log = (" " if shape == "spaced" else "") + error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "spyre-continuous-batching-pooling-model", log
    assert "VLLM_SPYRE_USE_CB=0" in fix and "static batching" in fix


@pytest.mark.parametrize("runner", ["ContinuousBatchingSpyreModelRunner",
                                    "StaticBatchingSpyreModelRunner", "PoolingModelRunner"])
def test_another_runner_missing_an_attribute_is_not_a_pooling_model_in_cb(runner: str) -> None:
    sid, _ = signature_advice(f"AttributeError: '{runner}' object has no attribute 'pre_warmup'\n")
    assert sid != "spyre-continuous-batching-pooling-model"


# --- a StageMissingLayer placeholder used by a model's code -------------------------------------

_STAGES = st.sampled_from(["vision_tower", "audio_tower", "image_tower", "language_model",
                           "output", "video_tower"])
_MODULE_ATTRIBUTES = st.sampled_from(["rot_proj", "merger", "lm_head", "patch_embed", "bias"])


def _placeholder_error(form: str, stage: str, attribute: str) -> str:
    if form == "called":
        return f"RuntimeError: StageMissingLayer(stage_name='{stage}') should not be called"
    if form == "deleted":
        return f"AttributeError: 'StageMissingLayer' object has no attribute '{attribute}'"
    return "TypeError: 'StageMissingLayer' object is not subscriptable"


@settings(max_examples=60, deadline=None)
@given(form=st.sampled_from(["called", "deleted", "indexed"]), stage=_STAGES,
       attribute=_MODULE_ATTRIBUTES, owner=st.sampled_from(["vllm_ascend/models", "vllm_gaudi/models",
                                                            "acme_models", "vllm/model_executor/models"]),
       shape=st.sampled_from(["traceback", "reordered", "bare"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_part_left_out_of_the_run_gets_the_placeholder_advice(
        form: str, stage: str, attribute: str, owner: str, shape: str, py: str, site: str,
        prefix: str) -> None:
    error = _placeholder_error(form, stage, attribute)
    packages = site.format(py=py)
    model_file = f"{packages}{owner}/some_vl.py"
    if shape == "traceback":
        frames = [(f"{packages}vllm/model_executor/model_loader/base_loader.py", "load_model",
                   "self.load_weights(model, model_config)"),
                  (model_file, "load_weights", f"del self.mm_projector.{attribute}")]
        if form == "called":
            frames += [(f"{packages}vllm/model_executor/models/utils.py", "__call__",
                        'raise RuntimeError(f"{self} should not be called")')]
        log = python_traceback(frames, error, prefix)
    elif shape == "reordered":
        # an abridged paste: the exception first, then the frame that raised it
        log = (f"{error}\n  File \".../{owner}/some_vl.py\", line 619, in load_weights\n"
               f"    del self.mm_projector.{attribute}\n")
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "stage-placeholder-module-used", log
    assert "--language-model-only" in fix and "--mm-encoder-only" in fix
    assert "StageMissingLayer" in fix


@pytest.mark.parametrize("error", [
    "AttributeError: 'PPMissingLayer' object has no attribute 'mlp'",
    "RuntimeError: PPMissingLayer() should not be called",
    "AttributeError: 'NoneType' object has no attribute 'rot_proj'",
])
def test_another_placeholder_or_a_none_is_not_the_stage_placeholder(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_moe.py",
               "__init__", "self.moe_layers.append(layer.mlp.experts)")]
    sid, _ = signature_advice(python_traceback(frames, error))
    assert sid != "stage-placeholder-module-used"


# --- a message wrapped before a quantity with its unit ------------------------------------------

_SIZES = st.builds(lambda whole, tenth, unit: (f"{whole}.{tenth}", unit), st.integers(1, 80),
                   st.integers(0, 99), st.sampled_from(["GiB", "MiB"]))


@settings(max_examples=40, deadline=None)
@given(needed=_SIZES, available=_SIZES, length=st.sampled_from([32768, 131072, 262144]),
       spelling=st.sampled_from(["model's", "models's"]), paren=st.booleans(),
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=412) ", "[rank0]: "]))
def test_a_kv_cache_message_wrapped_before_its_size_gets_the_kv_cache_advice(
        needed: tuple[str, str], available: tuple[str, str], length: int, spelling: str,
        paren: bool, prefix: str) -> None:
    size = f"{'(' if paren else ''}{needed[0]} {needed[1]}"
    log = (f"{prefix}ValueError: To serve at least one request with the {spelling} max seq len "
           f"({length}),\n{prefix}{size} KV cache is needed, which is larger than the available "
           f"KV cache memory ({available[0]} {available[1]}).\n")
    sid, fix = signature_advice(log)
    assert sid == "kv-cache-too-small-for-max-model-len", log
    assert "--max-model-len" in fix and "--gpu-memory-utilization" in fix


@pytest.mark.parametrize(("line", "outer", "text"), [
    # a quantity with its unit opens the line: the number is the text's own
    ("20.0 GiB KV cache is needed, which is larger", None, "20.0 GiB KV cache is needed"),
    ("1.5 seconds left before the deadline", None, "1.5 seconds left"),
    ("3.2 tokens/s on average", None, "3.2 tokens/s"),
    ("12.5 % of the blocks are free", None, "12.5 %"),
    ("512.0 MiB", None, "512.0 MiB"),
    # BuildKit's seconds before the step's own output, with or without the step
    ("136.0     collect2: error: ld returned 1 exit status", "136.0", "collect2: error"),
    ("136.0 setup.py: error: x", "136.0", "setup.py"),
    ("#4 3570.9 GiB left on the build host", "#4 3570.9", "GiB left"),
    ("0.512 Get:1 http://archive.ubuntu.com/ubuntu jammy InRelease", "0.512", "Get:1"),
])
def test_seconds_alone_are_not_a_quantity_with_its_unit(line: str, outer: str | None,
                                                        text: str) -> None:
    read = parse_line(line)
    assert read.outer == outer
    assert read.text.startswith(text)


# --- a directory with no config given as the model (the releases of early 2025) ----------------

_ADAPTER_DIRS = st.sampled_from(["outputs/checkpoint-500", "llama3_lora_adapter",
                                 "/workspace/ft/adapter_epoch8", "./qwen2-7b-sft-lora"])


@settings(max_examples=20, deadline=None)
@given(directory=_ADAPTER_DIRS, dot=st.booleans(), prefix=TRACEBACK_PREFIXES)
def test_a_config_less_directory_gets_the_adapter_advice_too(directory: str, dot: bool,
                                                             prefix: str) -> None:
    error = f"ValueError: No supported config format found in {directory}{'.' if dot else ''}"
    frames = [("/usr/local/lib/python3.11/dist-packages/vllm/engine/arg_utils.py",
               "create_model_config", "return ModelConfig("),
              ("/usr/local/lib/python3.11/dist-packages/vllm/transformers_utils/config.py",
               "get_config", 'raise ValueError(f"No supported config format found in {model}")')]
    for log in (python_traceback(frames, error, prefix), error + "\n"):
        sid, fix = signature_advice(log)
        assert sid == "model-path-or-repo-not-found", log
        assert "--lora-modules" in fix and "LoRARequest" in fix and "merge" in fix


def test_the_lora_loaders_own_refusal_is_not_a_model_path() -> None:
    sid, _ = signature_advice("ValueError: No supported LoRA modules found in "
                              "/workspace/ft/adapter_epoch8.\n")
    assert sid != "model-path-or-repo-not-found"


# --- session 33's raise-site classes (task 2): user-facing refusals only a broad family answered -

_CONFIG_PATHS = st.sampled_from(["/etc/vllm/serve.yaml", "configs/llama-70b.yml", "./serve.yaml",
                                 "/mnt/config/vllm-config.yaml"])
_PARSER = "/usr/local/lib/python3.12/dist-packages/vllm/utils/argparse_utils.py"


@settings(max_examples=30, deadline=None)
@given(path=_CONFIG_PATHS, error=st.sampled_from([
    "FileNotFoundError: [Errno 2] No such file or directory: '{path}'",
    "IsADirectoryError: [Errno 21] Is a directory: '{path}'",
    "yaml.scanner.ScannerError: mapping values are not allowed here",
]), record=st.booleans(), prefix=TRACEBACK_PREFIXES)
def test_a_config_file_the_parser_cannot_read_gets_the_config_file_advice(
        path: str, error: str, record: bool, prefix: str) -> None:
    # (a PermissionError's words are cache-dir-not-writable's, an exact signature that outranks
    # a module family: not this class's to claim)
    frames = [(_PARSER, "parse_args", "args = self._pull_args_from_config(args)"),
              (_PARSER, "_pull_args_from_config", "config_args = self.load_config_file(file_path)"),
              (_PARSER, "load_config_file", "with open(file_path) as config_file:")]
    head = (f"ERROR 03-11 09:20:14 [argparse_utils.py:498] Unable to read the config file at "
            f"{path}. Check path correctness\n") if record else ""
    sid, fix = signature_advice(head + python_traceback(frames, error.format(path=path), prefix))
    assert sid == "serve-config-file-unusable"
    assert "--config" in fix and "yaml.safe_load" in fix


@pytest.mark.parametrize("message", [
    "ValueError: No config file specified! Please check your command-line arguments.",
    "AssertionError: More than one config file specified!",
])
def test_the_parsers_own_config_refusals_get_the_config_file_advice(message: str) -> None:
    frames = [(_PARSER, "_pull_args_from_config", "raise ValueError(")]
    for log in (python_traceback(frames, message), message + "\n"):
        assert signature_advice(log)[0] == "serve-config-file-unusable", log


def test_a_yaml_file_missing_elsewhere_is_not_the_serve_config() -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/lmcache/v1/config.py", "from_file",
               'with open(file_path, "r") as fin:')]
    log = python_traceback(frames, "FileNotFoundError: [Errno 2] No such file or directory: "
                                   "'/config/lmcache.yaml'")
    assert signature_advice(log)[0] != "serve-config-file-unusable"


@pytest.mark.parametrize("message", [
    "ValueError: No model specified! Please specify model either as a positional argument or in "
    "a config file.",
    "ValueError: No model_tag specified! Please check your command-line arguments.",
])
def test_a_config_file_without_a_model_gets_the_positional_model_advice(message: str) -> None:
    sid, fix = signature_advice(message + "\n")
    assert sid == "serve-model-positional-required"
    assert "model: <model>" in fix


_VIT_BACKENDS = st.sampled_from(["ROCM_AITER_FA", "FLASHINFER", "XFORMERS", "FLEX_ATTENTION",
                                 "TREE_ATTN"])


@settings(max_examples=20, deadline=None)
@given(backend=_VIT_BACKENDS, enum=st.sampled_from(["AttentionBackendEnum.", "_Backend.", ""]),
       joined=st.booleans(), prefix=TRACEBACK_PREFIXES)
def test_an_encoder_backend_the_platform_lacks_gets_the_encoder_backend_advice(
        backend: str, enum: str, joined: bool, prefix: str) -> None:
    # interface.py's copy of the message has no space between its sentences
    gap = "" if joined else ". "
    error = (f"AssertionError: Backend {enum}{backend} is not supported for vit attention{gap}"
             "Supported backends are: [<AttentionBackendEnum.FLASH_ATTN: 'x'>, "
             "<AttentionBackendEnum.TORCH_SDPA: None>]")
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/platforms/cuda.py",
               "get_vit_attn_backend", "assert backend in cls.get_supported_vit_attn_backends(), (")]
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "vision-encoder-attention-backend-unsupported"
    assert "--mm-encoder-attn-backend" in fix and "Supported backends are" in fix


@pytest.mark.parametrize("message", [
    "RuntimeError: please set tensor_parallel_size (8) to less than max local gpu count (4)",
    "RuntimeError: please ensure that world_size (8) is less than than max local gpu count (4)",
    "AssertionError: please set tensor_parallel_size to less than max local gpu count",
])
def test_v0s_local_gpu_count_check_gets_the_device_count_advice(message: str) -> None:
    sid, fix = signature_advice(message + "\n")
    assert sid == "parallelism-exceeds-devices"
    assert "--tensor-parallel-size" in fix and "CUDA_VISIBLE_DEVICES" in fix


@pytest.mark.parametrize("message", [
    "ValueError: OpenTelemetry is not available. Unable to configure 'otlp_traces_endpoint'. "
    "Ensure OpenTelemetry packages are installed. Original error: No module named 'opentelemetry'",
    "ValueError: collect_detailed_traces requires `--otlp-traces-endpoint` to be set.",
    "ValueError: collect_model_forward_time or collect_model_execute_time requires "
    "--otlp-traces-endpoint to be set.",
])
def test_tracing_flags_the_config_refuses_get_the_tracing_advice(message: str) -> None:
    sid, fix = signature_advice(message + "\n")
    assert sid == "tracing-config-rejected"
    assert "opentelemetry-exporter-otlp" in fix and "--otlp-traces-endpoint" in fix


def test_an_observability_metrics_check_is_not_tracing() -> None:
    sid, _ = signature_advice("ValueError: custom_histogram_buckets[ttft]: bucket list must not "
                              "be empty\n")
    assert sid != "tracing-config-rejected"


# sigs-b's generated cases of the same two classes (Spyre's continuous batching on a pooling
# model, a loader reaching into the StageMissingLayer placeholder): worker failures of every era,
# other runners' methods and loaders, an abridged paste; written in parallel with the tests above

_ERAS = st.sampled_from(ERAS)

# --- Spyre: continuous batching on a pooling model ------------------------------------------

_CB_METHODS = st.sampled_from(["pre_warmup", "complete_warmup", "finish_warmup",
                               "_update_states", "tkv"])
_POOLING_RUNNERS = st.sampled_from(["SpyrePoolingModelRunner"])


def _spyre_frames(packages: str, method: str) -> tuple[tuple[str, str], ...]:
    return ((f"{packages}vllm_spyre/v1/worker/spyre_worker.py", "compile_or_warm_up_model"),
            (f"{packages}vllm_spyre/v1/worker/spyre_worker.py", f"_warmup_for_{method}"))


@settings(max_examples=40, deadline=None)
@given(method=_CB_METHODS, runner=_POOLING_RUNNERS, era=_ERAS, py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["worker", "traceback", "oneline"]), prefix=TRACEBACK_PREFIXES)
def test_continuous_batching_on_a_spyre_pooling_model_gets_static_batching_advice(
        method: str, runner: str, era: object, py: str, site: str, shape: str,
        prefix: str) -> None:
    error = f"AttributeError: '{runner}' object has no attribute '{method}'"
    packages = site.format(py=py)
    if shape == "worker":
        log = worker_failure(error, phase=Phase.GRAPH_CAPTURE, era=era,  # type: ignore[arg-type]
                             inner=_spyre_frames(packages, method), root=f"{packages}vllm/")
    elif shape == "traceback":
        frames = [(path, function, f"self.model_runner.{method}()")
                  for path, function in _spyre_frames(packages, method)]
        log = python_traceback(frames, error, prefix)
    else:
        log = f" {error}\n"  # a paste of the one line, its indent kept
    sid, fix = signature_advice(log)
    assert sid == "spyre-continuous-batching-pooling-model", log
    assert "VLLM_SPYRE_USE_CB=0" in fix and "static batching" in fix


@pytest.mark.parametrize("error", [
    "AttributeError: 'ContinuousBatchingSpyreModelRunner' object has no attribute 'pre_warmup'",
    "AttributeError: 'StaticBatchingSpyreModelRunner' object has no attribute 'model_config'",
    "AttributeError: 'PoolingModelRunner' object has no attribute 'pre_warmup'",
    "TypeError: SpyrePoolingModelRunner.__init__() got an unexpected keyword argument 'rank'",
])
def test_other_spyre_runner_errors_are_not_the_pooling_class(error: str) -> None:
    log = worker_failure(error, phase=Phase.GRAPH_CAPTURE,
                         inner=_spyre_frames("/usr/local/lib/python3.12/site-packages/",
                                             "pre_warmup"))
    sid, _ = signature_advice(log)
    assert sid != "spyre-continuous-batching-pooling-model", log


# --- text-only serving: a loader reaching into vLLM's StageMissingLayer ----------------------

_ATTRIBUTES = st.sampled_from(["rot_proj", "merger", "proj", "weight", "blocks", "norm_scale"])
_LOADERS = st.sampled_from([
    "vllm_ascend/models/kimi_k3.py", "vllm_ascend/models/qwen3_vl.py",
    "vllm/model_executor/models/qwen2_5_vl.py", "vllm_gaudi/models/gemma3_mm.py",
])


@settings(max_examples=40, deadline=None)
@given(attribute=_ATTRIBUTES, loader=_LOADERS, era=_ERAS, py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["worker", "traceback", "reordered"]), prefix=TRACEBACK_PREFIXES)
def test_a_loader_touching_the_text_only_placeholder_gets_its_advice(
        attribute: str, loader: str, era: object, py: str, site: str, shape: str,
        prefix: str) -> None:
    error = f"AttributeError: 'StageMissingLayer' object has no attribute '{attribute}'"
    path = f"{site.format(py=py)}{loader}"
    if shape == "worker":
        log = worker_failure(error, phase=Phase.LOAD, era=era,  # type: ignore[arg-type]
                             inner=((path, "load_weights"),))
    elif shape == "traceback":
        log = python_traceback([(path, "load_weights", f"del self.mm_projector.{attribute}")],
                               error, prefix)
    else:  # an author's abridged paste: the error first, then the frame, its path elided
        log = (f"{error}\n  File \".../{loader}\", line 619, in load_weights\n"
               f"    del self.mm_projector.{attribute}\n")
    sid, fix = signature_advice(log)
    assert sid == "stage-placeholder-module-used", log
    assert "--language-model-only" in fix and "Upgrade" in fix


@pytest.mark.parametrize("error", [
    "AttributeError: 'RowParallelLinear' object has no attribute 'weight_scale'",
    "AttributeError: 'NoneType' object has no attribute 'rot_proj'",
    "RuntimeError: Missing layer 'visual.merger' in checkpoint",
])
def test_a_loader_failing_on_a_real_module_is_not_the_placeholder_class(error: str) -> None:
    log = worker_failure(error, phase=Phase.LOAD,
                         inner=(("/usr/local/lib/python3.11/site-packages/vllm_ascend/models/"
                                 "kimi_k3.py", "load_weights"),))
    sid, _ = signature_advice(log)
    assert sid != "stage-placeholder-module-used", log
