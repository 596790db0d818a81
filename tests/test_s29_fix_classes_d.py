"""Classes behind five of session 29's cold fix misses (the twentieth split), each generated over
its wordings and the ways a log shows it, with a near miss:

- a platform plugin's command-line hook (`pre_register_and_update`, called while vLLM builds its
  argument parser) meeting argparse objects of another vLLM release (an action without a
  `choices` list): platform-plugin-parser-hook-rejects-vllm-parser, whose fix names the matched
  pair and the `choices`; the same Python words raised anywhere else do not get it, nor a
  package missing in the hook;
- vllm-spyre's chunked-prefill scheduler still holding a request that ended mid-prefill:
  spyre-chunked-prefill-cancelled-request-kept (`finish_requests`, vllm-spyre 1.3.0); its
  neighbouring assertion does not get it;
- a vLLM build for another accelerator than the host's, for every pairing the compiled ops'
  missing runtime names (CUDA, ROCm, XPU): the fact `vllm_ops_build` and
  vllm-build-for-another-platform on the errors of a failed platform probe; the NVIDIA driver's
  own library missing (a container without the GPU) keeps no-gpu-visible;
- RCCL without code for the GPU's target, surfacing at the first call after the communicator's
  set-up: rccl-kernels-missing-for-gpu-arch; the same HIP error while the model is built keeps
  the whole build's advice;
- M-RoPE's three position rows copied into a buffer of one row per prompt (torch's expand error
  of those shapes): mrope-positions-batched-prefill-shape, naming VLLM_PROMPT_BS_BUCKET_MAX; an
  image's three channels do not get it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a plugin's parser hook against another release's parser ------------------------------------

_PLUGINS = st.sampled_from(["vllm_ascend", "vllm_gaudi", "vllm_spyre", "vllm_rbln", "my_platform"])
_HOOK_ERRORS = st.sampled_from([
    ("if 'ascend' not in action.choices:", "TypeError: argument of type 'NoneType' is not iterable"),
    ("method = action.choices[0]", "TypeError: 'NoneType' object is not subscriptable"),
    ("action = parser._option_string_actions['--quantization']", "KeyError: '--quantization'"),
])


def _hook_frames(site: str, plugin: str, code: str) -> list[tuple[str, str, str]]:
    return [
        (f"{site}vllm/entrypoints/cli/main.py", "main", "cmd.subparser_init(subparsers)"),
        (f"{site}vllm/entrypoints/cli/serve.py", "subparser_init",
         "serve_parser = make_arg_parser(serve_parser)"),
        (f"{site}vllm/entrypoints/openai/cli_args.py", "make_arg_parser",
         "parser = AsyncEngineArgs.add_cli_args(parser)"),
        (f"{site}vllm/engine/arg_utils.py", "add_cli_args",
         "current_platform.pre_register_and_update(parser)"),
        (f"{site}{plugin}/platform.py", "pre_register_and_update", code),
    ]


@settings(max_examples=30, deadline=None)
@given(plugin=_PLUGINS, error=_HOOK_ERRORS, py=PYTHONS, site=SITE_PACKAGES,
       prefix=st.sampled_from(["", "[rank0]: "]),
       tail=st.sampled_from(["", "[ERROR] 2025-06-03-02:53:42 (PID:6005, Device:-1, RankID:-1) "
                                 "ERR99999 UNKNOWN application exception\n"]))
def test_a_plugin_parser_hook_on_another_parser_gets_the_matched_pair(
        plugin: str, error: tuple[str, str], py: str, site: str, prefix: str, tail: str) -> None:
    code, message = error
    log = python_traceback(_hook_frames(site.format(py=py), plugin, code), message, prefix) + tail
    signature, fix = signature_advice(log)
    assert signature == "platform-plugin-parser-hook-rejects-vllm-parser", log
    for knob in ("pre_register_and_update", "choices", "matched pair"):
        assert knob in fix, knob


@settings(max_examples=20, deadline=None)
@given(error=_HOOK_ERRORS, prefix=TRACEBACK_PREFIXES)
def test_the_same_python_words_elsewhere_are_not_the_parser_hook(
        error: tuple[str, str], prefix: str) -> None:
    code, message = error
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py",
          "execute_model", code)], message, prefix)
    report = explain_text(log)
    assert report.signature is None \
        or report.signature.id != "platform-plugin-parser-hook-rejects-vllm-parser", log


def test_a_package_missing_in_the_hook_is_not_the_parser_shape() -> None:
    site = "/usr/local/lib/python3.10/site-packages/"
    frames = _hook_frames(site, "vllm_ascend", "from vllm_ascend.quantization import quant_config")
    log = python_traceback(frames, "ModuleNotFoundError: No module named 'torch_npu'")
    signature, _ = signature_advice(log)
    assert signature != "platform-plugin-parser-hook-rejects-vllm-parser"


# ---- vllm-spyre's scheduler keeping an aborted prefill --------------------------------------------

_SPYRE_ROOTS = st.sampled_from(["/opt/vllm/lib64/python3.12/site-packages/",
                                "/home/senuser/vllm-spyre/", "/workspace/vllm-spyre/"])


@settings(max_examples=20, deadline=None)
@given(root=_SPYRE_ROOTS, prefix=TRACEBACK_PREFIXES, v1=st.booleans())
def test_spyre_ongoing_prefill_not_running_gets_finish_requests(
        root: str, prefix: str, v1: bool) -> None:
    where = f"{root}vllm_spyre/{'v1/' if v1 else ''}core/scheduler.py"
    log = python_traceback(
        [(where, "schedule", "assert all(r in self.running for r in self.ongoing_prefills), \\")],
        "AssertionError: Ongoing prefill requests must be in the running queue.", prefix)
    signature, fix = signature_advice(log)
    assert signature == "spyre-chunked-prefill-cancelled-request-kept"
    for knob in ("vllm-spyre", "finish_requests", "VLLM_SPYRE_USE_CHUNKED_PREFILL"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(count=st.integers(2, 9), prefix=TRACEBACK_PREFIXES)
def test_spyre_one_prefill_at_a_time_is_another_check(count: int, prefix: str) -> None:
    log = python_traceback(
        [("/opt/vllm/lib64/python3.12/site-packages/vllm_spyre/v1/core/scheduler.py", "schedule",
          "assert len(self.ongoing_prefills) <= 1, (")],
        f"AssertionError: Only one request can be prefilled at a time, but got {count}", prefix)
    report = explain_text(log)
    assert report.signature is None \
        or report.signature.id != "spyre-chunked-prefill-cancelled-request-kept"


# ---- a vLLM build for another accelerator ---------------------------------------------------------

_BUILD_LIBRARIES = st.sampled_from([
    ("libcudart.so.12", "CUDA"), ("libcublas.so.12", "CUDA"), ("libtorch_cuda.so", "CUDA"),
    ("libc10_cuda.so", "CUDA"), ("libamdhip64.so.6", "ROCm"), ("libhiprtc.so.6", "ROCm"),
    ("libc10_hip.so", "ROCm"), ("libsycl.so.8", "XPU"), ("libtorch_xpu.so", "XPU"),
])
_PROBE_ERRORS = st.sampled_from([
    ("vllm/config/device.py", "__post_init__",
     "RuntimeError: Failed to infer device type, please set the environment variable "
     "`VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue."),
    ("vllm/config.py", "__init__", "RuntimeError: Failed to infer device type"),
    ("vllm/config.py", "__init__", "RuntimeError: Device string must not be empty"),
    ("vllm/engine/arg_utils.py", "create_engine_config",
     "AttributeError: 'UnspecifiedPlatform' object has no attribute 'get_device_capability'"),
])
_OPS_WARNINGS = st.sampled_from([
    "WARNING 11-20 18:08:11 [_custom_ops.py:20] Failed to import from vllm._C with "
    "ImportError('{lib}: cannot open shared object file: No such file or directory')",
    "WARNING 03-02 09:00:01 [interface.py:171] Failed to import from vllm._C: "
    "ImportError(\"{lib}: cannot open shared object file: No such file or directory\")",
])


def _probe_log(warning: str, lib: str, site: str, error: tuple[str, str, str]) -> str:
    path, function, message = error
    head = ("INFO 11-20 18:08:10 [__init__.py:220] No platform detected, vLLM is running on "
            "UnspecifiedPlatform\n" + warning.format(lib=lib) + "\n")
    return head + python_traceback(
        [(f"{site}vllm/engine/arg_utils.py", "create_engine_config",
          "device_config = DeviceConfig(device=current_platform.device_type)"),
         (f"{site}{path}", function, "raise RuntimeError(")], message)


@settings(max_examples=40, deadline=None)
@given(library=_BUILD_LIBRARIES, warning=_OPS_WARNINGS, error=_PROBE_ERRORS, py=PYTHONS,
       site=SITE_PACKAGES)
def test_a_build_for_another_accelerator_gets_the_build_for_this_one(
        library: tuple[str, str], warning: str, error: tuple[str, str, str], py: str,
        site: str) -> None:
    lib, _ = library
    log = _probe_log(warning, lib, site.format(py=py), error)
    signature, fix = signature_advice(log)
    assert signature == "vllm-build-for-another-platform", log
    for knob in ("ROCm build", "rocm/vllm", "VLLM_TARGET_DEVICE", "libcudart", "libamdhip64",
                 "vllm-ascend"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(lib=st.sampled_from(["libcuda.so.1", "libze_loader.so.1"]), warning=_OPS_WARNINGS,
       error=_PROBE_ERRORS)
def test_a_missing_driver_library_is_not_the_build(lib: str, warning: str,
                                                   error: tuple[str, str, str]) -> None:
    log = _probe_log(warning, lib, "/usr/local/lib/python3.12/dist-packages/", error)
    signature, _ = signature_advice(log)
    assert signature != "vllm-build-for-another-platform", log


def test_the_probe_error_without_the_warning_is_not_the_build() -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/vllm/config/device.py", "__post_init__",
          "raise RuntimeError(")], "RuntimeError: Failed to infer device type")
    signature, _ = signature_advice(log)
    assert signature != "vllm-build-for-another-platform"


# ---- RCCL without code for the GPU's target -------------------------------------------------------

_HIP_ERRORS = st.sampled_from([
    "torch.AcceleratorError: HIP error: invalid kernel file\n"
    "Search for `hipErrorInvalidKernelFile' in https://rocm.docs.amd.com/projects/HIP/en/latest/"
    "index.html for more information.",
    "RuntimeError: HIP error: invalid kernel file",
    "RuntimeError: HIP error: invalid device function\n"
    "HIP kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.",
])
_COMMUNICATOR_FRAMES = st.sampled_from([
    [("vllm/distributed/device_communicators/cuda_communicator.py", "__init__",
      "self.pynccl_comm = PyNcclCommunicator("),
     ("vllm/distributed/device_communicators/pynccl.py", "__init__",
      "data = torch.zeros(1, device=device)")],
    [("vllm/distributed/device_communicators/pynccl.py", "__init__",
      "self.comm: ncclComm_t = self.nccl.ncclCommInitRank("),
     ("vllm/distributed/device_communicators/pynccl_wrapper.py", "NCCL_CHECK",
      "raise RuntimeError(error_str)")],
    [("vllm/distributed/parallel_state.py", "init_distributed_environment",
      "torch.distributed.all_reduce(data, group=self.cpu_group)"),
     ("torch/distributed/distributed_c10d.py", "all_reduce", "work = group.allreduce([tensor], opts)")],
])


@settings(max_examples=30, deadline=None)
@given(error=_HIP_ERRORS, frames=_COMMUNICATOR_FRAMES, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_hip_code_object_gap_at_the_communicator_names_rccl(
        error: str, frames: list[tuple[str, str, str]], py: str, site: str, prefix: str) -> None:
    where = site.format(py=py)
    head = "INFO 11-02 09:12:40 [__init__.py:216] Automatically detected platform rocm.\n"
    log = head + python_traceback([(where + path, function, code) for path, function, code
                                   in frames], error, prefix)
    signature, fix = signature_advice(log)
    assert signature == "rccl-kernels-missing-for-gpu-arch", log
    for knob in ("RCCL", "VLLM_NCCL_SO_PATH", "--tensor-parallel-size 1", "PYTORCH_ROCM_ARCH"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(error=_HIP_ERRORS, prefix=TRACEBACK_PREFIXES)
def test_the_same_hip_error_while_the_model_is_built_keeps_the_build_advice(
        error: str, prefix: str) -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/rotary_embedding.py",
          "_compute_inv_freq", "inv_freq = 1.0 / (base**(torch.arange(")], error, prefix)
    signature, _ = signature_advice(log)
    assert signature == "rocm-hip-invalid-device-function", log


# ---- M-RoPE's three rows in a per-prompt buffer ---------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(batch=st.integers(1, 64).filter(lambda b: b != 3), length=st.integers(16, 32768),
       wrap=st.sampled_from([" ", "\n"]), prefix=TRACEBACK_PREFIXES, framed=st.booleans())
def test_mrope_rows_in_a_per_prompt_buffer_get_the_prefill_batch_knob(
        batch: int, length: int, wrap: str, prefix: str, framed: bool) -> None:
    error = (f"RuntimeError: The expanded size of the tensor ({batch}) must match the existing "
             f"size (3){wrap}at non-singleton dimension 0.  Target sizes: [{batch}, {length}].  "
             f"Tensor sizes: [3, {length}]")
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm_gaudi/v1/worker/hpu_model_runner.py",
               "_align_and_pad_mrope_positions",
               "mrope_position_tensor[:, dst_start:dst_end] = input_mrope_position")]
    log = python_traceback(frames, error, prefix) if framed else error + "\n"
    signature, fix = signature_advice(log)
    assert signature == "mrope-positions-batched-prefill-shape", log
    for knob in ("VLLM_PROMPT_BS_BUCKET_MAX", "M-RoPE", "vllm-gaudi"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(batch=st.integers(1, 64).filter(lambda b: b != 3), other=st.integers(16, 4096),
       length=st.integers(16, 4096))
def test_other_shapes_of_the_expand_error_are_not_mrope(batch: int, other: int,
                                                        length: int) -> None:
    if other == length:
        other += 1
    for error in (
            # an image's three channels: a third dimension
            f"RuntimeError: The expanded size of the tensor ({batch}) must match the existing size "
            f"(3) at non-singleton dimension 0.  Target sizes: [{batch}, {length}, {length}].  "
            f"Tensor sizes: [3, {length}, {length}]",
            # three rows of another length than the buffer's
            f"RuntimeError: The expanded size of the tensor ({batch}) must match the existing size "
            f"(3) at non-singleton dimension 0.  Target sizes: [{batch}, {other}].  "
            f"Tensor sizes: [3, {length}]"):
        report = explain_text(error + "\n")
        assert report.signature is None \
            or report.signature.id != "mrope-positions-batched-prefill-shape", error
