"""Start-up classes on platforms and installs from the s21b cold sweep (tests/fixtures/tuning/README.md),
each generated over its eras, launchers and the Python phrasings of its message, with a near miss
that keeps other advice:

1. vLLM 0.6's memory profiler on a platform it does not know (Jetson without NVML, vllm#9728):
   `mem` is never set, in either phrasing of an unbound local (Python 3.11+ and older);
2. the ROCm CK flash-attention's "only supports AMD MI200 GPUs or newer" on a Radeon (vllm#3040);
3. a stand-alone `triton_kernels` that needs a newer Triton (`tl.constexpr_function`, vllm#29062),
   the error line before or after its traceback, or the later releases' skipped-import line;
4. the V2 model runner's UVA check under WSL2 (vllm#47292);
5. the SM100 CUTLASS MLA decode's unset `returned_lse` (vllm#25106);
6. a torch kernel dispatch's `"op" not implemented for 'Half'` quoted alone, without its class
   (vllm#18542: vLLM's CPU cache kernel under an IPEX that does not match torch): read as the error
   it is, and answered by the CPU float16 signature, which names IPEX's version.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, python_traceback, signature_advice, worker_failure

_PY = st.sampled_from([8, 9, 10, 11, 12])
_PREFIX = st.sampled_from(["", "ERROR 10-27 09:14:03 engine.py:160] ",
                           "(VllmWorkerProcess pid=4121) ERROR 10-27 09:14:03 "
                           "multiproc_worker_utils.py:233] "])


def _unbound(name: str, minor: int) -> str:
    """Python's words for a local read before assignment, as the interpreter of 3.`minor` says them."""
    if minor >= 11:
        return (f"UnboundLocalError: cannot access local variable '{name}' where it is not "
                "associated with a value")
    return f"UnboundLocalError: local variable '{name}' referenced before assignment"


@settings(max_examples=25, deadline=None)
@given(minor=_PY, prefix=_PREFIX, site=st.sampled_from(["/usr/lib/python3.{m}/site-packages/",
                                                        "/opt/venv/lib/python3.{m}/dist-packages/"]),
       outer=st.booleans())
def test_the_memory_profiler_on_an_undetected_platform_is_known(
        minor: int, prefix: str, site: str, outer: bool) -> None:
    root = site.format(m=minor) + "vllm/"
    frames = [(f"{root}utils.py", "current_memory_usage", "return mem")]
    if outer:
        frames = [(f"{root}worker/model_runner.py", "load_model",
                   "with DeviceMemoryProfiler() as m:"),
                  (f"{root}utils.py", "__enter__",
                   "self.initial_memory = self.current_memory_usage()"), *frames]
    sig, fix = signature_advice(python_traceback(frames, _unbound("mem", minor), prefix))
    assert sig == "device-memory-profiler-platform-undetected"
    assert "Jetson" in fix and "NVML" in fix


def test_another_unbound_local_is_not_the_profiler() -> None:
    log = python_traceback([("/srv/app/prepare.py", "encode_batch", "return ids")],
                           _unbound("ids", 12))
    sig, _ = signature_advice(log)
    assert sig != "device-memory-profiler-platform-undetected"


@settings(max_examples=20, deadline=None)
@given(minor=_PY, prefix=_PREFIX, traceback=st.booleans())
def test_the_rocm_ck_flash_attention_on_rdna_is_known(minor: int, prefix: str,
                                                      traceback: bool) -> None:
    error = "RuntimeError: FlashAttention only supports AMD MI200 GPUs or newer."
    log = prefix + error + "\n"
    if traceback:
        site = f"/opt/conda/lib/python3.{minor}/site-packages/flash_attn/flash_attn_interface.py"
        log = python_traceback([(site, "_flash_attn_forward", "flash_attn_cuda.fwd(")], error,
                               prefix)
    sig, fix = signature_advice(log)
    assert sig == "rocm-flash-attention-needs-cdna"
    assert "BUILD_FA" in fix and "VLLM_USE_TRITON_FLASH_ATTN" in fix


def test_the_cuda_flash_attention_check_is_not_the_rocm_class() -> None:
    sig, _ = signature_advice("RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n")
    assert sig != "rocm-flash-attention-needs-cdna"


_FLEX = ("/usr/local/lib/python3.{m}/site-packages/triton_kernels/numerics_details/flexpoint.py",
         "<module>", "@tl.constexpr_function")
_CONSTEXPR = "AttributeError: module 'triton.language' has no attribute 'constexpr_function'"


@settings(max_examples=25, deadline=None)
@given(minor=_PY, prefix=_PREFIX, layout=st.sampled_from(["traceback", "error-first", "record"]))
def test_triton_kernels_under_an_older_triton_is_known(minor: int, prefix: str,
                                                       layout: str) -> None:
    flex = (_FLEX[0].format(m=minor), _FLEX[1], _FLEX[2])
    if layout == "traceback":
        log = python_traceback([flex], _CONSTEXPR, prefix)
    elif layout == "error-first":  # a paste with the error line before the frames
        log = f"{prefix}{_CONSTEXPR}\n" + "".join(
            f"{prefix}{line}\n" for line in python_traceback([flex], "").splitlines()[1:] if line)
    else:  # later releases log the failed import instead of raising it
        log = (f"{prefix}ERROR 06-07 18:46:36 [config.py:32] Failed to import Triton kernels. "
               "Please make sure your triton version is compatible. Error: module "
               "'triton.language' has no attribute 'constexpr_function'\n")
    sig, fix = signature_advice(log)
    assert sig == "triton-kernels-needs-newer-triton"
    assert "triton_kernels" in fix and "29062" in fix


def test_another_missing_attribute_keeps_the_version_family() -> None:
    log = python_traceback([("/opt/venv/lib/python3.12/site-packages/vllm/model_executor/layers/"
                             "quantization/utils/mxfp4_utils.py", "<module>",
                             "FP8_E8M0 = torch.float8_e8m0fnu")],
                           "AttributeError: module 'torch' has no attribute 'float8_e8m0fnu'")
    sig, _ = signature_advice(log)
    assert sig != "triton-kernels-needs-newer-triton"


_UVA = (("v1/worker/gpu_worker.py", "init_device"), ("v1/worker/gpu/model_runner.py", "__init__"),
        ("v1/worker/gpu/states.py", "__init__"), ("v1/worker/gpu/buffer_utils.py", "__init__"))


@settings(max_examples=20, deadline=None)
@given(era=st.sampled_from([e for e in ERAS if e.name.startswith("v1")]),
       rank=st.sampled_from([0, 1, 3]))
def test_the_v2_runner_without_uva_is_known(era, rank: int) -> None:  # type: ignore[no-untyped-def]
    log = worker_failure("RuntimeError: UVA is not available", phase=Phase.INIT, era=era,
                         inner=_UVA, rank=rank)
    report = explain_text(log, signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.signature is not None
    assert report.signature.id == "wsl2-uva-unavailable-model-runner-v2", report.signature.id
    assert "VLLM_USE_V2_MODEL_RUNNER=0" in report.signature.fix


_MLA = (("v1/attention/backends/mla/common.py", "forward"),
        ("v1/attention/backends/mla/cutlass_mla.py", "_forward_decode"),
        ("v1/attention/backends/mla/cutlass_mla.py", "_sm100_forward_decode"))


@settings(max_examples=20, deadline=None)
@given(era=st.sampled_from(ERAS), minor=_PY,
       phase=st.sampled_from([Phase.SERVING, Phase.GRAPH_CAPTURE, Phase.PROFILE]))
def test_the_sm100_cutlass_mla_unset_lse_is_known(era, minor: int,  # type: ignore[no-untyped-def]
                                                  phase: Phase) -> None:
    log = worker_failure(_unbound("returned_lse", minor), phase=phase, era=era, inner=_MLA)
    sig, fix = signature_advice(log)
    assert sig == "cutlass-mla-returned-lse-unbound"
    assert "25106" in fix and "FLASHINFER_MLA" in fix


_OPS = st.sampled_from(["reshape_and_cache_cpu_impl", "addmm_impl_cpu_", "LayerNormKernelImpl",
                        "paged_attention_v1_impl"])
_DTYPES = st.sampled_from(["Half", "BFloat16"])


@settings(max_examples=25, deadline=None)
@given(op=_OPS, dtype=_DTYPES, before=st.sampled_from(["", "INFO 05-22 10:01:02 [api_server.py:1044] "
                                                       "vLLM API server version 0.8.5\n"]))
def test_a_dispatch_message_quoted_alone_is_an_error(op: str, dtype: str, before: str) -> None:
    line = f'"{op}" not implemented for \'{dtype}\''
    report = explain_text(before + line + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.message == line
    if dtype == "Half" and op != "paged_attention_v1_impl":
        assert report.signature is not None
        assert report.signature.id == "cpu-float16-op-not-implemented", report.signature.id
        assert "intel_extension_for_pytorch" in report.signature.fix


@settings(max_examples=15, deadline=None)
@given(op=_OPS, level=st.sampled_from(["INFO", "WARNING", "DEBUG"]))
def test_a_dispatch_message_inside_other_words_or_a_quiet_record_is_not(op: str, level: str) -> None:
    log = (f"{level} 05-22 10:01:02 [cpu_worker.py:88] probing kernels, \"{op}\" not implemented "
           "for 'Half' is expected on this CPU, using bfloat16\n"
           f"  the op \"{op}\" not implemented for 'Half' (quoted in a docstring)\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE
