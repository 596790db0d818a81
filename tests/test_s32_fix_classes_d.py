"""Classes behind five of session 32's twenty-third split's cold fix misses (sigs-d's), each
generated over its wordings and the ways a log shows it, with a near miss:

- a structured-output backend or backend option that the engine refuses: V1's oracle (0.8-0.10)
  on a `name:option` value or a V0-only backend ("VLLM_USE_V1=1 is not supported with
  --guided-decoding-backend=..."), the decoding config on an option the backend lacks:
  guided-decoding-backend-refused-by-engine, whose fix splits the option into its own setting;
  the oracle refusing any other feature stays v1-engine-unsupported-feature;
- a KV connector asking for the model or the KV caches that the vLLM worker never registered
  with it (LMCache's VLLMModelTracker for CacheBlend, `register_kv_caches`):
  kv-connector-model-hook-not-registered, whose fix registers the model from a general plugin or
  turns blending off; another error of the same library is not it;
- NVIDIA's container runtime refusing an image whose CUDA requirement the host's driver does not
  meet, however a launcher wraps the hook's error: container-cuda-requirement-unsatisfied; the
  runtime's other failures are not it;
- an execute_model RPC timeout whose engine config shows data parallelism and a full CUDA-graph
  mode, however the release printed the mode (the cudagraph_mode fact, a field of the
  compilation config): data-parallel-full-cudagraph-step-hang, whose fix names PIECEWISE; a
  piecewise mode, no graphs or one DP rank leave it to rpc-execute-model-timeout; a log that ends
  in the message queue's notices before the deadline: data-parallel-full-cudagraph-stall;
- a device kernel's index assertion: the kernel-index family's fix names chunked prefill and
  context parallelism among the paths to take away."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

from logsleuth.facts import RecordFormat, parse_record, setting_at

# --- structured-output backends and options the engine refuses ---------------------------------

_BACKENDS = st.sampled_from(["guidance", "xgrammar", "outlines", "lm-format-enforcer"])
_OPTIONS = st.sampled_from(["disable-any-whitespace", "no-fallback", "no-additional-properties",
                            "no-fallback,disable-any-whitespace"])


def _oracle_error(value: str) -> str:
    return f"NotImplementedError: VLLM_USE_V1=1 is not supported with --guided-decoding-backend={value}."


@settings(max_examples=50, deadline=None)
@given(backend=_BACKENDS, option=st.one_of(st.none(), _OPTIONS),
       shape=st.sampled_from(["traceback", "pytest", "bare"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_backend_value_the_v1_oracle_refuses_gets_the_split_option_advice(
        backend: str, option: str | None, shape: str, py: str, site: str, prefix: str) -> None:
    if option is None and backend in ("guidance", "xgrammar"):
        backend = "outlines"  # a bare V1 backend is no refusal; the V0-only ones are
    value = backend if option is None else f"{backend}:{option}"
    error = _oracle_error(value)
    packages = site.format(py=py)
    if shape == "traceback":
        frames = [(f"{packages}vllm/engine/arg_utils.py", "create_engine_config",
                   "if try_v1 and self._is_v1_supported_oracle(model_config):"),
                  (f"{packages}vllm/engine/arg_utils.py", "_is_v1_supported_oracle",
                   "_raise_or_fallback("),
                  (f"{packages}vllm/engine/arg_utils.py", "_raise_or_fallback",
                   "raise NotImplementedError(")]
        log = python_traceback(frames, error, prefix)
    elif shape == "pytest":
        log = (f"FAILED tests/test_guided.py::test_guided_json[{value}] - {error}\n"
               f"FAILED tests/test_guided.py::test_guided_regex[{value}] - {error}\n")
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "guided-decoding-backend-refused-by-engine", log
    assert "--guided-decoding-disable-any-whitespace" in fix and "--structured-outputs-config" in fix


@pytest.mark.parametrize("message", [
    "ValueError: disable_any_whitespace is only supported for xgrammar and guidance backends.",
    "ValueError: disable_additional_properties is only supported for the guidance backend.",
])
def test_an_option_the_backend_lacks_gets_the_pairing_advice(message: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py",
               "create_engine_config", "decoding_config = DecodingConfig("),
              ("/usr/local/lib/python3.12/dist-packages/vllm/config.py", "__post_init__",
               "raise ValueError(")]
    sid, fix = signature_advice(python_traceback(frames, message))
    assert sid == "guided-decoding-backend-refused-by-engine"
    assert "disable_additional_properties" in fix


@pytest.mark.parametrize("feature", ["--num-scheduler-steps", "--task transcription",
                                     "--scheduler-delay-factor"])
def test_the_oracle_refusing_another_feature_is_not_a_backend_option(feature: str) -> None:
    sid, _ = signature_advice(f"NotImplementedError: VLLM_USE_V1=1 is not supported with {feature}.\n")
    assert sid == "v1-engine-unsupported-feature"


# --- a KV connector's hook that the worker never called ----------------------------------------

_HOOK_MESSAGES = st.sampled_from([
    "ValueError: vllm model for {instance} not found.",
    "ValueError: Blender for {instance} not found.",
    "RuntimeError: KV caches are not registered. Call register_kv_caches() before creating "
    "transfer events.",
    "RuntimeError: Transfer context is not initialized. Call register_kv_caches() before "
    "submitting retrieve requests.",
    "RuntimeError: ATOM KV caches are not registered; call register_kv_caches() first",
])
_INSTANCES = st.sampled_from(["vllm-instance", "lmcache-0", "engine_1", "vllm-instance-dp1"])


@settings(max_examples=40, deadline=None)
@given(message=_HOOK_MESSAGES, instance=_INSTANCES, shape=st.sampled_from(["traceback", "bare"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_connector_hook_never_registered_gets_the_registration_advice(
        message: str, instance: str, shape: str, py: str, site: str, prefix: str) -> None:
    error = message.format(instance=instance)
    packages = site.format(py=py)
    if shape == "traceback":
        frames = [(f"{packages}vllm/v1/worker/gpu_worker.py", "initialize_from_config",
                   "ensure_kv_transfer_initialized(self.vllm_config, kv_cache_config)"),
                  (f"{packages}vllm/distributed/kv_transfer/kv_connector/v1/lmcache_connector.py",
                   "__init__", "self._lmcache_engine = cls(vllm_config, role, self)"),
                  (f"{packages}lmcache/v1/compute/blend/utils.py", "get_or_create",
                   "vllm_model = VLLMModelTracker.get_model(ENGINE_NAME)"),
                  (f"{packages}lmcache/v1/compute/models/utils.py", "get_model",
                   "raise ValueError(")]
        log = python_traceback(frames, error, prefix)
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "kv-connector-model-hook-not-registered", log
    assert "VLLMModelTracker.register_model" in fix and "enable_blending" in fix
    assert "vllm.general_plugins" in fix and "register_kv_caches" in fix


def test_another_error_of_the_connector_library_is_not_a_missing_registration() -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/lmcache/v1/config.py", "from_file",
               "with open(file_path, \"r\") as fin:")]
    log = python_traceback(frames, "FileNotFoundError: [Errno 2] No such file or directory: "
                                   "'/config/lmcache.yaml'")
    sid, _ = signature_advice(log)
    assert sid != "kv-connector-model-hook-not-registered"


# --- a container runtime's CUDA requirement the host's driver does not meet ---------------------

_CUDAS = st.sampled_from(["11.8", "12.1", "12.4", "12.8", "12.9", "13.0"])
_HOOK_WRAPPERS = st.sampled_from([
    # docker run: the hook's stderr on its own line
    "docker: Error response from daemon: failed to create task for container: failed to create "
    "shim task: OCI runtime create failed: runc create failed: unable to start container "
    "process: error during container init: error running hook #0: error running hook: exit "
    "status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n{error}: unknown.",
    # an older Docker, one line
    "docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: "
    "starting container process caused: process_linux.go:459: container init caused: Running "
    "hook #0:: error running hook: exit status 1, stdout: , stderr: {error}: unknown.",
])
# (The hook's line alone, or a kubelet event quoting it, is not read as an error yet: which
# lines of a launcher's own output are failures is detection's, not the signature's.)


@settings(max_examples=40, deadline=None)
@given(cuda=_CUDAS, wrapper=_HOOK_WRAPPERS)
def test_a_cuda_requirement_the_driver_does_not_meet_gets_the_driver_advice(
        cuda: str, wrapper: str) -> None:
    error = (f"nvidia-container-cli: requirement error: unsatisfied condition: cuda>={cuda}, "
             "please update your driver to a newer version, or use an earlier cuda container")
    log = wrapper.format(error=error) + "\n"
    sid, fix = signature_advice(log)
    assert sid == "container-cuda-requirement-unsatisfied", log
    assert "NVIDIA_REQUIRE_CUDA" in fix and "NVIDIA_DISABLE_REQUIRE" in fix and "driver" in fix


def test_the_runtime_without_a_driver_is_not_a_cuda_requirement() -> None:
    log = ("docker: Error response from daemon: failed to create shim task: OCI runtime create "
           "failed: runc create failed: unable to start container process: error during container "
           "init: error running hook #0: error running hook: exit status 1, stdout: , stderr: "
           "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
           "cannot open shared object file: no such file or directory: unknown.\n")
    sid, _ = signature_advice(log)
    assert sid != "container-cuda-requirement-unsatisfied"


# --- an execute_model timeout under data parallelism and a full CUDA-graph mode ----------------

_MODES = {
    # mode: (0.10-0.11's JSON, later releases' repr)
    "FULL": ("2", "<CUDAGraphMode.FULL: 2>"),
    "FULL_DECODE_ONLY": ("[2,0]", "<CUDAGraphMode.FULL_DECODE_ONLY: (2, 0)>"),
    "FULL_AND_PIECEWISE": ("[2,1]", "<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>"),
    "PIECEWISE": ("1", "<CUDAGraphMode.PIECEWISE: 1>"),
    "NONE": ("0", "<CUDAGraphMode.NONE: 0>"),
}


def _config_line(mode: str, dp: int, form: str, engine: str) -> str:
    json_value, repr_value = _MODES[mode]
    if form == "json":
        return (f"({engine} pid=418) ERROR 12-04 03:17:44 [dump_input.py:69] Dumping input data "
                f"for V1 LLM engine (v0.11.0) with config: model='org/moe', tensor_parallel_size=4, "
                f"pipeline_parallel_size=1, data_parallel_size={dp}, compilation_config="
                f'{{"level":3,"use_inductor":false,"cudagraph_mode":{json_value},'
                f'"cudagraph_capture_sizes":[8,4,2,1],"local_cache_dir":null}}, ')
    if form == "repr":
        return (f"({engine} pid=418) INFO 12-04 03:10:02 [core.py:93] Initializing a V1 LLM engine "
                f"(v0.14.0) with config: model='org/moe', tensor_parallel_size=4, "
                f"pipeline_parallel_size=1, data_parallel_size={dp}, compilation_config="
                f"{{'level': None, 'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': "
                f"{repr_value}, 'cudagraph_capture_sizes': [1, 2, 4, 8]}}")
    # the command line's record names the mode; the engine's config line, cut short by the paste
    # before its compilation config, says the data-parallel size the engine used
    return (f"(APIServer pid=1) INFO 12-04 03:10:00 [utils.py:233] non-default args: {{'model': "
            f"'org/moe', 'data_parallel_size': {dp}, 'enable_expert_parallel': True, "
            f"'compilation_config': {{'cudagraph_mode': '{mode}', 'cudagraph_capture_sizes': [1, 2]}}}}\n"
            f"({engine} pid=418) INFO 12-04 03:10:02 [core.py:93] Initializing a V1 LLM engine "
            f"(v0.11.0) with config: model='org/moe', tensor_parallel_size=4, "
            f"pipeline_parallel_size=1, data_parallel_size={dp}, disable_custom_all_reduce=False, quan")


def _timeout_log(mode: str, dp: int, form: str, engine: str) -> str:
    prefix = f"({engine} pid=418) ERROR 12-04 03:17:44 [core.py:710] "
    site = "/usr/local/lib/python3.12/dist-packages/vllm/"
    frames = [(f"{site}v1/engine/core.py", "step",
               "model_output = self.execute_model_with_error_logging("),
              (f"{site}v1/executor/multiproc_executor.py", "execute_model",
               "(output, ) = self.collective_rpc("),
              (f"{site}v1/executor/multiproc_executor.py", "collective_rpc",
               'raise TimeoutError(f"RPC call to {method} timed out.") from e')]
    return (_config_line(mode, dp, form, engine) + "\n"
            + f"({engine} pid=418) INFO 12-04 03:16:44 [shm_broadcast.py:466] No available shared "
              "memory broadcast block found in 60 seconds. This typically happens when some "
              "processes are hanging or doing some time-consuming work (e.g. compilation).\n"
            + f"({engine} pid=418) ERROR 12-04 03:17:44 [core.py:710] EngineCore encountered a "
              "fatal error.\n"
            + python_traceback(frames, "TimeoutError: RPC call to execute_model timed out.", prefix)
            + "(APIServer pid=1) ERROR 12-04 03:17:44 [async_llm.py:480] vllm.v1.engine.exceptions."
              "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the "
              "root cause.\n")


@settings(max_examples=40, deadline=None)
@given(mode=st.sampled_from(["FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]),
       dp=st.integers(2, 8), form=st.sampled_from(["json", "repr", "args"]),
       engine=st.sampled_from(["EngineCore_DP0", "EngineCore_DP1", "EngineCore"]))
def test_a_step_timeout_under_data_parallel_full_graphs_gets_the_graph_mode_advice(
        mode: str, dp: int, form: str, engine: str) -> None:
    log = _timeout_log(mode, dp, form, engine)
    sid, fix = signature_advice(log)
    assert sid == "data-parallel-full-cudagraph-step-hang", log
    assert '"cudagraph_mode": "PIECEWISE"' in fix and "FULL_DECODE_ONLY" in fix


@settings(max_examples=30, deadline=None)
@given(mode_dp=st.one_of(st.tuples(st.sampled_from(["PIECEWISE", "NONE"]), st.integers(1, 8)),
                         st.tuples(st.sampled_from(["FULL", "FULL_DECODE_ONLY"]), st.just(1))),
       form=st.sampled_from(["json", "repr", "args"]))
def test_a_step_timeout_without_both_halves_is_the_general_timeout(
        mode_dp: tuple[str, int], form: str) -> None:
    mode, dp = mode_dp
    sid, _ = signature_advice(_timeout_log(mode, dp, form, "EngineCore_DP0"))
    assert sid == "rpc-execute-model-timeout"


def _stall_log(mode: str, dp: int, form: str, notices: int) -> str:
    config = _config_line(mode, dp, form, "EngineCore_DP0").replace(" ERROR ", " INFO ")
    lines = [config, "(APIServer pid=1) INFO:     Application startup complete."]
    for minute in range(notices):
        for rank in range(min(dp, 2)):
            lines.append(f"(EngineCore_DP{rank} pid={900 + rank}) INFO 12-04 03:{12 + minute}:44 "
                         "[shm_broadcast.py:466] No available shared memory broadcast block found "
                         "in 60 seconds. This typically happens when some processes are hanging "
                         "or doing some time-consuming work (e.g. compilation).")
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None)
@given(mode=st.sampled_from(["FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]),
       dp=st.integers(2, 8), form=st.sampled_from(["json", "repr", "args"]),
       notices=st.integers(2, 6))
def test_a_stall_under_data_parallel_full_graphs_gets_the_graph_mode_advice(
        mode: str, dp: int, form: str, notices: int) -> None:
    sid, fix = signature_advice(_stall_log(mode, dp, form, notices))
    assert sid == "data-parallel-full-cudagraph-stall"
    assert '"cudagraph_mode": "PIECEWISE"' in fix


@settings(max_examples=20, deadline=None)
@given(mode_dp=st.one_of(st.tuples(st.sampled_from(["PIECEWISE", "NONE"]), st.integers(1, 8)),
                         st.tuples(st.sampled_from(["FULL", "FULL_DECODE_ONLY"]), st.just(1))),
       form=st.sampled_from(["json", "repr", "args"]))
def test_a_stall_without_both_halves_is_not_the_graph_mode_deadlock(
        mode_dp: tuple[str, int], form: str) -> None:
    mode, dp = mode_dp
    sid, _ = signature_advice(_stall_log(mode, dp, form, 3))
    assert sid != "data-parallel-full-cudagraph-stall"


@pytest.mark.parametrize(("text", "want"), [
    ('{"level":3,"use_inductor":false,"cudagraph_mode":[2,0],"local_cache_dir":null}', [2, 0]),
    ("{'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': "
     "<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'x': 1}",
     "<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>"),
    ({"cudagraph_mode": "FULL"}, "FULL"),
    ('{"cudagraph_mode":1}', 1),
])
def test_a_dotted_key_reads_a_field_of_a_dict_setting(text: object, want: object) -> None:
    assert setting_at({"compilation_config": text}, "compilation_config.cudagraph_mode") \
        == (True, want)


def test_a_dotted_key_of_a_setting_that_is_no_dict_is_absent() -> None:
    settings_ = parse_record("model='m', compilation_config=3, dtype=bf16", RecordFormat.KEYVALUE)
    assert setting_at(settings_, "compilation_config.cudagraph_mode") == (False, None)
    assert setting_at(settings_, "compilation_config") == (True, 3)
    assert setting_at(settings_, "nothing.here") == (False, None)


# --- a device kernel's index assertion: chunked prefill and context parallelism ----------------

@settings(max_examples=20, deadline=None)
@given(index=st.integers(64, 4096), cann=st.sampled_from(["8.2.RC1", "8.3.RC1", "8.5.0"]),
       core=st.integers(0, 47))
def test_an_npu_gather_assertion_names_chunked_prefill_and_context_parallelism(
        index: int, cann: str, core: int) -> None:
    size = index - index % 8
    line = (f"[ASSERT] [CANN_VERSION : {cann}][TimeStamp : 0] /usr/local/Ascend/{cann}/opp/"
            "built-in/op_impl/ai_core/tbe/impl/dynamic/../ascendc/gather_v3/gather_v3_base.h:137: "
            f"Assertion `(0 <= val && val < this->gxSize_)' Index {index} out of range[0 {size})!")
    head = (f"DumpHead: AIV-{core}, CoreType=AIV, block dim=48, total_block_num=48, "
            "block_remain_len=640, block_initial_space=1024, rsv=0, magic=5aa5bccd")
    sid, fix = signature_advice(f"{head}\n{line}\n{head}\n{line}\n")
    assert sid == "gpu-kernel-index-assertion"
    assert "--no-enable-chunked-prefill" in fix and "--decode-context-parallel-size" in fix
