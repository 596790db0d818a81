"""Non-CUDA platform failures and plugin bugs, each class generated over its wordings, prefixes
and layouts, with a near miss:

- ROCR's queue reset after a kernel stopped (`HW Exception by GPU node-N (Agent handle: 0x...)
  reason :GPU Hang`), bare, behind a container's prefix or among a server's lines:
  rocm-gpu-hang, whose fix names AMD_SERIALIZE_KERNEL, the AITER switches, HSA_NO_SCRATCH_RECLAIM
  and dmesg; ROCR's page fault (`Memory access fault by GPU node-N`) is not a hang;
- amdsmi's bindings failing a device query vLLM's ROCm platform makes (`AmdSmiLibraryException`
  with an `AMDSMI_STATUS_*` code, in either wording the bindings have used): the device files and
  the bindings' ROCm release; the bindings not installed stay rocm-amdsmi-missing;
- libtpu held by another process (`The TPU is already in use by process with pid N`): the TPU
  family, naming `lsof` on the TPU devices, not JAX's own "set JAX_PLATFORMS=''";
- torch_npu or a CANN library missing a symbol of another CANN or torch release:
  ascend-torch-npu-cann-mismatch, naming set_env.sh, torch_npu and the release notes' pairing;
  vLLM's own CUDA extension missing a torch symbol is not it;
- a root cause raised in a plugin's own code (the innermost frame outside Python's modules in a
  package a shipped plugin index covers, whatever the error): the fix names the plugin's pip
  name, its release when the log prints it, the pin/upgrade and where to report; a device error
  the plugin only called into (a torch frame further in) does not name the plugin's code.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.plugin import PREFIX, SUFFIX, default_plugins, plugin_code, plugin_files
from logsleuth.model import Match, Phase, SignatureKind
from logsleuth.platform_knobs import with_platform_knobs
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, Era, python_traceback, signature_advice, worker_failure

_CONTAINER = st.sampled_from(["", "vllm-server  | ", "2026-03-11T09:18:01.120Z ",
                              "[pod/vllm-0/vllm] "])

# ---- ROCm: a GPU hang -----------------------------------------------------------------------------


def _hang_log(prefix: str, node: int, handle: int, copies: int, platform_line: bool) -> str:
    lines = ["INFO 03-11 09:14:02 [__init__.py:239] Automatically detected platform rocm."] \
        if platform_line else []
    lines += ["(EngineCore_DP0 pid=2101) INFO 03-11 09:16:20 [core.py:250] init engine (profile, "
              "create kv cache, warmup model) took 81.37 seconds"]
    lines += [f"HW Exception by GPU node-{node} (Agent handle: {hex(handle + i)}) reason :GPU Hang"
              for i in range(copies)]
    lines += ["(EngineCore_DP0 pid=2101) ERROR 03-11 09:18:01 [multiproc_executor.py:154] Worker "
              "proc VllmWorker-0 died unexpectedly, shutting down executor."]
    return "".join(prefix + line + "\n" for line in lines)


@settings(max_examples=30, deadline=None)
@given(prefix=_CONTAINER, node=st.integers(1, 16), handle=st.integers(0x1000000, 0x7fffffffffff),
       copies=st.integers(1, 4), platform_line=st.booleans())
def test_a_rocm_gpu_hang_names_the_serialising_and_kernel_knobs(
        prefix: str, node: int, handle: int, copies: int, platform_line: bool) -> None:
    signature, fix = signature_advice(_hang_log(prefix, node, handle, copies, platform_line))
    assert signature == "rocm-gpu-hang"
    for knob in ("AMD_SERIALIZE_KERNEL=3", "HIP_LAUNCH_BLOCKING=1", "--enforce-eager",
                 "VLLM_ROCM_USE_AITER=0", "HSA_NO_SCRATCH_RECLAIM=1", "dmesg",
                 "--disable-custom-all-reduce", "amdgpu.cwsr_enable=0"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(prefix=_CONTAINER, node=st.integers(1, 16), handle=st.integers(0x1000000, 0x7fffffffffff))
def test_a_rocm_page_fault_is_not_a_hang(prefix: str, node: int, handle: int) -> None:
    log = _hang_log(prefix, node, handle, 1, True).replace(
        f"HW Exception by GPU node-{node} (Agent handle: {hex(handle)}) reason :GPU Hang",
        f"Memory access fault by GPU node-{node} (Agent handle: {hex(handle)}) on address "
        "0x7f1a2c000000. Reason: Page not present or supervisor privilege.")
    signature, _ = signature_advice(log)
    assert signature != "rocm-gpu-hang"


# ---- ROCm: amdsmi's library errors -----------------------------------------------------------------

_AMDSMI_STATUSES = st.sampled_from([
    (34, "AMDSMI_STATUS_DRM_ERROR - Error when called libdrm"),
    (14, "AMDSMI_STATUS_FILE_ERROR - Error opening file"),
    (10, "AMDSMI_STATUS_NO_PERM - Permission Denied"),
    (32, "AMDSMI_STATUS_NOT_INIT - Device not initialized"),
    (31, "AMDSMI_STATUS_NOT_FOUND - Device Not found"),
])
_AMDSMI_CALLERS = st.sampled_from([
    ("vllm/platforms/rocm.py", "get_device_name"),
    ("vllm/platforms/rocm.py", "_query_gcn_arch_from_amdsmi"),
    ("vllm/platforms/rocm.py", "_query_total_memory_from_amdsmi"),
])


@settings(max_examples=30, deadline=None)
@given(status=_AMDSMI_STATUSES, caller=_AMDSMI_CALLERS, newer=st.booleans(),
       era=st.sampled_from(ERAS), phase=st.sampled_from([Phase.INIT, Phase.LOAD]))
def test_an_amdsmi_status_names_the_device_files_and_the_bindings_release(
        status: tuple[int, str], caller: tuple[str, str], newer: bool, era: Era,
        phase: Phase) -> None:
    code, text = status
    wording = f"Error code: {code} | {text}" if newer else \
        f"An error occured with code: {code}({text})"
    root = "/usr/local/lib/python3.12/dist-packages/"
    inner = ((caller[0], caller[1]), ("vllm/platforms/rocm.py", "wrapper"),
             (f"{root}amdsmi/amdsmi_interface.py", "amdsmi_init"),
             (f"{root}amdsmi/amdsmi_interface.py", "_check_res"))
    log = worker_failure(f"amdsmi.amdsmi_exception.AmdSmiLibraryException: {wording}",
                         phase=phase, era=era, inner=inner)
    signature, fix = signature_advice(log)
    assert signature == "rocm-amdsmi-library-error"
    for knob in ("--device /dev/kfd", "/dev/dri", "render", "amd-smi list",
                 "/opt/rocm/share/amd_smi", "HIP_VISIBLE_DEVICES"):
        assert knob in fix, knob


def test_amdsmi_not_installed_stays_the_missing_bindings() -> None:
    log = python_traceback([("/usr/local/lib/python3.12/dist-packages/vllm/platforms/rocm.py",
                             "<module>", "from amdsmi import (")],
                           "ModuleNotFoundError: No module named 'amdsmi'")
    assert signature_advice(log)[0] == "rocm-amdsmi-missing"


# ---- TPU: libtpu held by another process -----------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(pid=st.integers(2, 4_000_000), prefix=_CONTAINER, hint=st.booleans())
def test_a_tpu_held_by_another_process_names_the_holder_not_jax_platforms(
        pid: int, prefix: str, hint: bool) -> None:
    tail = " (set JAX_PLATFORMS='' to automatically choose an available backend)" if hint else ""
    site = "/usr/local/lib/python3.12/site-packages/"
    log = python_traceback(
        [(f"{site}tpu_inference/worker/tpu_worker.py", "init_device", "self.devices = jax.devices()"),
         (f"{site}jax/_src/xla_bridge.py", "backends", "raise RuntimeError(err_msg)")],
        f"RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by "
        f"process with pid {pid}. Not attempting to load libtpu.so in this process.{tail}", prefix)
    signature, fix = signature_advice(log)
    assert signature == "tpu-xla-runtime-error"
    assert "lsof -w /dev/accel*" in fix and "libtpu_lockfile" in fix


# ---- Ascend: torch_npu against another CANN --------------------------------------------------------

_NPU_LIBRARIES = st.sampled_from(["torch_npu/lib/libtorch_npu.so", "torch_npu/_C.cpython-311-"
                                  "aarch64-linux-gnu.so", "vllm_ascend/vllm_ascend_C.cpython-311-"
                                  "aarch64-linux-gnu.so"])
_NPU_SYMBOLS = st.sampled_from(["aclrtGetStreamAvailableNum", "aclnnMoeDistributeDispatchV2",
                                "aclrtSetStreamFailureMode", "HcclCommInitClusterInfoConfig",
                                "aclopCompileAndExecuteV2"])


@settings(max_examples=25, deadline=None)
@given(library=_NPU_LIBRARIES, symbol=_NPU_SYMBOLS, era=st.sampled_from(ERAS))
def test_a_torch_npu_symbol_of_another_cann_names_the_pairing(
        library: str, symbol: str, era: Era) -> None:
    site = "/usr/local/python3.11.13/lib/python3.11/site-packages/"
    log = worker_failure(f"ImportError: {site}{library}: undefined symbol: {symbol}",
                         phase=Phase.INIT, era=era)
    signature, fix = signature_advice(log)
    assert signature == "ascend-torch-npu-cann-mismatch"
    for knob in ("set_env.sh", "torch_npu", "pip show torch torch_npu vllm-ascend",
                 "ascend_toolkit_install.info"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(era=st.sampled_from(ERAS))
def test_vllms_cuda_extension_missing_a_torch_symbol_is_not_cann(era: Era) -> None:
    log = worker_failure("ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: "
                         "undefined symbol: _ZN3c1013MessageLoggerC1EPKciib", phase=Phase.INIT,
                         era=era)
    assert signature_advice(log)[0] != "ascend-torch-npu-cann-mismatch"


# ---- a plugin's own code raised the root cause ------------------------------------------------------

_PLUGIN_MODULES = sorted(name[len(PREFIX):-len(SUFFIX)] for name in plugin_files())
_PYTHON_ERRORS = st.sampled_from([
    "AttributeError: 'NoneType' object has no attribute 'block_table'",
    "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'",
    "KeyError: 'layers.0.self_attn.qkv_proj'",
    "IndexError: list index out of range",
    "ValueError: not enough values to unpack (expected 3, got 2)",
])
_PLUGIN_ROOTS = st.sampled_from(["/usr/local/lib/python3.12/dist-packages/",
                                 "/opt/venv/lib/python3.11/site-packages/", "checkout"])


def _pip_name(module: str) -> str:
    return next(p.package for p, _ in default_plugins() if p.module == module)


@settings(max_examples=40, deadline=None)
@given(module=st.sampled_from(_PLUGIN_MODULES), error=_PYTHON_ERRORS, root=_PLUGIN_ROOTS,
       era=st.sampled_from(ERAS), phase=st.sampled_from([Phase.LOAD, Phase.SERVING]),
       version=st.sampled_from([None, "0.9.1rc1", "0.11.0", "1.2.3"]))
def test_a_plugins_own_code_is_named_with_its_release_and_tracker(
        module: str, error: str, root: str, era: Era, phase: Phase,
        version: str | None) -> None:
    package = _pip_name(module)
    if root == "checkout":  # `pip install -e .` of the plugin's repository
        root = f"/workspace/{package}/"
    inner = ((f"{root}{module}/worker/model_runner.py", "execute_model"),
             (f"{root}{module}/layers/attention.py", "forward"))
    log = worker_failure(error, phase=phase, era=era, inner=inner)
    if version is not None:
        log = f"{package}=={version}\n" + log
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None
    fix = report.signature.fix
    if report.signature.kind.value == "exact":
        return  # an exact signature knows its failure's fix; the plugin's code is not added
    assert "**Plugin code**" in fix and f"`{module}.layers.attention`" in fix
    assert f"pip install -U '{package}'" in fix and f"https://pypi.org/project/{package}/" in fix
    if version is not None:
        assert f"The log shows {package} {version}" in fix
    else:
        assert f"pip show {package}" in fix


@settings(max_examples=20, deadline=None)
@given(module=st.sampled_from(_PLUGIN_MODULES), root=_PLUGIN_ROOTS, era=st.sampled_from(ERAS))
def test_a_device_error_the_plugin_called_into_is_not_its_code(
        module: str, root: str, era: Era) -> None:
    plugin_root = f"/workspace/{_pip_name(module)}/" if root == "checkout" else root
    torch_root = "/usr/local/lib/python3.12/dist-packages/" if root == "checkout" else root
    inner = ((f"{plugin_root}{module}/worker/model_runner.py", "execute_model"),
             (f"{torch_root}torch/cuda/__init__.py", "synchronize"))
    log = worker_failure("RuntimeError: CUDA error: an illegal memory access was encountered",
                         phase=Phase.SERVING, era=era, inner=inner)
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None and plugin_code(report.root_cause) is None
    without = replace(report.root_cause, frames=report.root_cause.frames[:-1])
    assert plugin_code(without) is not None  # the same traceback, torch's frame cut: the plugin's


def test_vllms_own_code_below_a_plugin_is_not_the_plugins() -> None:
    root = "/usr/local/lib/python3.12/dist-packages/"
    inner = ((f"{root}vllm_ascend/worker/model_runner_v1.py", "execute_model"),
             ("model_executor/layers/linear.py", "forward"))
    log = worker_failure("AttributeError: 'NoneType' object has no attribute 'weight'",
                         phase=Phase.SERVING, inner=inner)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or "**Plugin code**" not in report.signature.fix


# ---- CUDA's knobs in a fix, on another platform -----------------------------------------------------

_FAULTS = st.sampled_from(["unspecified launch failure", "an illegal memory access was encountered",
                           "device-side assert triggered", "misaligned address",
                           "an illegal instruction was encountered",
                           "invalid configuration argument"])


@settings(max_examples=30, deadline=None)
@given(fault=_FAULTS, era=st.sampled_from(ERAS),
       phase=st.sampled_from([Phase.PROFILE, Phase.GRAPH_CAPTURE, Phase.SERVING]))
def test_a_hip_fault_answered_in_cudas_words_gets_rocms_names(
        fault: str, era: Era, phase: Phase) -> None:
    log = worker_failure(f"RuntimeError: HIP error: {fault}\nHIP kernel errors might be "
                         "asynchronously reported at some other API call, so the stacktrace below "
                         "might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3",
                         phase=phase, era=era)
    _, fix = signature_advice(log)
    assert "AMD_SERIALIZE_KERNEL=3" in fix
    if "CUDA_LAUNCH_BLOCKING" in fix.split("This is ROCm", 1)[0]:
        assert "`CUDA_LAUNCH_BLOCKING` -> `AMD_SERIALIZE_KERNEL=3`" in fix


@settings(max_examples=15, deadline=None)
@given(fault=_FAULTS, era=st.sampled_from(ERAS))
def test_the_same_fault_on_cuda_gets_no_other_platforms_names(fault: str, era: Era) -> None:
    log = worker_failure(f"RuntimeError: CUDA error: {fault}\nCUDA kernel errors might be "
                         "asynchronously reported at some other API call, so the stacktrace below "
                         "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                         phase=Phase.SERVING, era=era)
    _, fix = signature_advice(log)
    assert "its names for the CUDA knobs" not in fix and "AMD_SERIALIZE_KERNEL" not in fix


@pytest.mark.parametrize(("platform", "expected"), [
    ("rocm", "`CUDA_VISIBLE_DEVICES` -> `HIP_VISIBLE_DEVICES`"),
    ("ascend", "`CUDA_VISIBLE_DEVICES` -> `ASCEND_RT_VISIBLE_DEVICES`"),
    ("xpu", "`CUDA_VISIBLE_DEVICES` -> `ZE_AFFINITY_MASK`"),
    ("hpu", "`CUDA_VISIBLE_DEVICES` -> `HABANA_VISIBLE_DEVICES`"),
])
def test_the_platform_fact_alone_says_whose_names(platform: str, expected: str) -> None:
    match = Match("x", "x", 1.0, "Set `CUDA_VISIBLE_DEVICES` and check `nvidia-smi`.\n", (), (),
                  "root_cause", None, SignatureKind.FAMILY)
    fix = with_platform_knobs(match, None, {"platform": platform}).fix  # type: ignore[union-attr]
    assert expected in fix
    assert with_platform_knobs(match, None, {"platform": "cuda"}) == match
    named = replace(match, fix=match.fix + f"\n{expected.rsplit('`', 2)[-2]}\n")
    assert expected not in with_platform_knobs(  # type: ignore[union-attr]
        named, None, {"platform": platform}).fix


_JAX_CLASSES = st.sampled_from(["jax.errors.JaxRuntimeError", "jaxlib._jax.JaxRuntimeError",
                                "jaxlib.xla_extension.XlaRuntimeError"])


@settings(max_examples=20, deadline=None)
@given(klass=_JAX_CLASSES, node=st.integers(0, 7), era=st.sampled_from(ERAS))
def test_a_tpu_core_halt_in_either_jax_class_is_the_tpu_familys(
        klass: str, node: int, era: Era) -> None:
    log = worker_failure(f"{klass}: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator "
                         "device halted prematurely, perhaps due to an on-device check-failure. "
                         f"Node {node} halted unexpectedly at tag:pc TensorCoreSequencer:1:0x1a3",
                         phase=Phase.SERVING, era=era)
    signature, fix = signature_advice(log)
    assert signature == "tpu-xla-runtime-error"
    assert "--max-num-batched-tokens" in fix and "libtpu" in fix


@settings(max_examples=10, deadline=None)
@given(root=_PLUGIN_ROOTS, era=st.sampled_from(ERAS))
def test_a_check_the_plugin_makes_on_purpose_is_no_bug_paragraph(root: str, era: Era) -> None:
    """A message vllm-ascend's own source raises (its index knows it) is a deliberate check,
    answered by its words and releases, not "a bug in the plugin"."""
    root = "/workspace/vllm-ascend/" if root == "checkout" else root
    inner = ((f"{root}vllm_ascend/ops/triton/fold_indexer_cache.py", "fold_indexer_cache_rows"),)
    log = worker_failure("ValueError: A5 index cache must contain 64 key and 4 scale bytes per "
                         "token", phase=Phase.LOAD, era=era, inner=inner)
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None and plugin_code(report.root_cause) is not None
    assert report.origins[report.root_cause.id].package == "vllm-ascend"
    assert report.signature is not None and "**Plugin code**" not in report.signature.fix


# ---- ROCm: rocBLAS without kernels for the GPU's target ---------------------------------------------

_GFX = st.sampled_from(["gfx1103", "gfx1101", "gfx1150", "gfx1151", "gfx906", "gfx1031", "gfx1036"])
_ROCBLAS_DIRS = st.sampled_from(["/opt/rocm/lib/rocblas/library",
                                 "/opt/rocm-6.4.0/lib/rocblas/library",
                                 "/usr/local/lib/python3.12/dist-packages/torch/lib/rocblas/library"])


@settings(max_examples=30, deadline=None)
@given(gfx=_GFX, where=_ROCBLAS_DIRS, reason=st.sampled_from(["No such file or directory",
                                                               "Illegal seek"]),
       prefix=_CONTAINER, aborted=st.booleans())
def test_rocblas_without_the_gpus_target_names_the_target_knobs(
        gfx: str, where: str, reason: str, prefix: str, aborted: bool) -> None:
    lines = ["INFO 05-02 10:00:00 [__init__.py:239] Automatically detected platform rocm.",
             "(EngineCore_DP0 pid=2101) INFO 05-02 10:00:42 [gpu_model_runner.py:2739] Model "
             "loading took 7.6141 GiB and 21.02 seconds", "",
             f"rocBLAS error: Cannot read {where}/TensileLibrary.dat: {reason} for GPU arch : {gfx}",
             " List of available TensileLibrary Files : ",
             f'"{where}/TensileLibrary_lazy_gfx1100.dat"']
    lines += ["Aborted (core dumped)"] if aborted else []
    signature, fix = signature_advice("".join(prefix + line + "\n" for line in lines))
    assert signature == "rocm-blas-kernels-missing-for-gpu-arch"
    for knob in ("HSA_OVERRIDE_GFX_VERSION", "HIP_VISIBLE_DEVICES", "ROCBLAS_TENSILE_LIBPATH",
                 "PYTORCH_ROCM_ARCH"):
        assert knob in fix, knob
