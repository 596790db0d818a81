"""Classes behind session 24's fifteenth split's cold fix misses and the fallback-only failures of
the tuning set, each generated over its wordings and the ways a log shows it, with a near miss:

- torch.compile's guards refusing the inputs: Dynamo's self-check of the guards it just built
  (`AssertionError: Guard check failed: <frame>/<compile>: <reason>`, torch/_dynamo/guards.py),
  a stance that forbids recompiling after warm-up (Gaudi's `VLLM_FULL_WARMUP`,
  `fail_on_recompile`): torch-compile-guard-check-failed, whose fix runs eager (`--enforce-eager`,
  `-O0`), names Gaudi's lazy mode (`PT_HPU_LAZY_MODE=1`) and the sampler penalties that build
  NumPy tensors (`repetition_penalty`, vLLM's `make_tensor_with_pad`); vLLM's own assertion in
  the same sampling path keeps the assertion fallback."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase
from v1log import ERAS, signature_advice, worker_failure

# ---- torch.compile's guards refusing the inputs -------------------------------------------------

_TENSORS = st.sampled_from(["__from_numpy(__stack0)", "__from_numpy(padded_x)", "L['x']",
                            "L['input_ids']", "L['self'].weight", "G['_cos_sin_cache']"])
_REASONS = st.sampled_from([
    "tensor '{t}' dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect, "
    "ADInplaceOrView), actual DispatchKeySet(CPU, BackendSelect)",
    "tensor '{t}' dispatch key set mismatch. expected DispatchKeySet(HPU, BackendSelect, "
    "ADInplaceOrView, AutogradHPU), actual DispatchKeySet(HPU, BackendSelect)",
    "tensor '{t}' stride mismatch at index 0. expected 4096, actual 1",
    "tensor '{t}' size mismatch at index 1. expected 128, actual 256",
    "tensor '{t}' requires_grad mismatch. expected requires_grad=1",
])
_STANCES = st.sampled_from([
    "RuntimeError: Recompilation triggered with skip_guard_eval_unsafe stance. This usually means "
    "that you have not warmed up your model with enough inputs such that you can guarantee no more "
    "recompilations.",
    "RuntimeError: Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: "
    "'/usr/local/lib/python3.10/dist-packages/vllm_gaudi/v1/worker/hpu_model_runner.py', function "
    "name: 'forward', line number: 410",
])
_TORCH_FRAMES = (("/usr/local/lib/python3.12/dist-packages/torch/_dynamo/convert_frame.py",
                  "__call__"),
                 ("/usr/local/lib/python3.12/dist-packages/torch/_dynamo/guards.py", "__init__"))
_SAMPLING = (("v1/sample/sampler.py", "forward"), ("v1/sample/ops/penalties.py",
                                                   "_convert_to_tensors"))
_ONE_LINERS = st.sampled_from(["[multiproc_executor.py:822] {e}", "{e}",
                               "(EngineCore_DP0 pid=4100) ERROR 01-21 08:02:11 [core.py:710] {e}",
                               "ERROR 01-21 08:02:11 [hpu_model_runner.py:2931] {e}"])


def _guard_fix_ok(fix: str) -> None:
    for knob in ("--enforce-eager", "PT_HPU_LAZY_MODE=1", "repetition_penalty",
                 "make_tensor_with_pad", "VLLM_FULL_WARMUP", "TORCH_LOGS"):
        assert knob in fix, knob


@settings(max_examples=40, deadline=None)
@given(reason=_REASONS, tensor=_TENSORS, frame=st.integers(0, 40), compile_id=st.integers(0, 8),
       phase=st.sampled_from([Phase.PROFILE, Phase.GRAPH_CAPTURE, Phase.SERVING]),
       era=st.sampled_from(ERAS), torch_frames=st.booleans())
def test_a_guard_self_check_failure_names_eager_lazy_mode_and_penalties(
        reason: str, tensor: str, frame: int, compile_id: int, phase: Phase, era: object,
        torch_frames: bool) -> None:
    error = (f"AssertionError: Guard check failed: {frame}/{compile_id}: "
             + reason.format(t=tensor))
    inner = _SAMPLING + (_TORCH_FRAMES if torch_frames else ())
    log = worker_failure(error, phase=phase, era=era, inner=inner)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "torch-compile-guard-check-failed"
    _guard_fix_ok(fix)


@settings(max_examples=20, deadline=None)
@given(reason=_REASONS, tensor=_TENSORS, shape=_ONE_LINERS)
def test_a_guard_failure_printed_on_one_line_gets_the_family(reason: str, tensor: str,
                                                              shape: str) -> None:
    error = "AssertionError: Guard check failed: 14/0: " + reason.format(t=tensor)
    signature, fix = signature_advice(shape.format(e=error) + "\n")
    assert signature == "torch-compile-guard-check-failed"
    _guard_fix_ok(fix)


@settings(max_examples=10, deadline=None)
@given(error=_STANCES, era=st.sampled_from(ERAS))
def test_a_recompile_forbidden_after_warm_up_gets_the_family(error: str, era: object) -> None:
    log = worker_failure(error, phase=Phase.SERVING, era=era)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "torch-compile-guard-check-failed"
    _guard_fix_ok(fix)


@settings(max_examples=10, deadline=None)
@given(era=st.sampled_from(ERAS),
       message=st.sampled_from(["output token lists must be 2D", "expected a 2D logits tensor",
                                "penalties tensor is on the wrong device"]))
def test_vllms_own_assertion_in_the_sampler_is_not_a_guard(era: object, message: str) -> None:
    log = worker_failure(f"AssertionError: {message}", phase=Phase.SERVING, era=era,  # type: ignore[arg-type]
                         inner=_SAMPLING)
    signature, _ = signature_advice(log)
    assert signature != "torch-compile-guard-check-failed"


# ---- a GPU kernel's bounds check ----------------------------------------------------------------

_KERNEL_CHECKS = st.sampled_from([
    "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:{n}: operator(): block: [{b},0,0], thread: "
    "[{t},0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.",
    "../aten/src/ATen/native/cuda/IndexKernel.cu:{n}: operator(): block: [{b},0,0], thread: "
    "[{t},0,0] Assertion `index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed.",
    "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:{n}: indexSelectLargeIndex: block: [{b},0,0], "
    "thread: [{t},0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
    "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:{n}: operator(): block: [{b},0,0], "
    "thread: [{t},0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` "
    "failed.",
    "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:{n}: masked_scatter_size_check: block: "
    "[{b},0,0], thread: [{t},0,0] Assertion `totalElements <= srcSize` failed.",
    "/pytorch/aten/src/ATen/native/hip/IndexKernel.hip:{n}: operator(): Device-side assertion "
    "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"' failed.",
    "/var/lib/jenkins/pytorch/aten/src/ATen/native/hip/Indexing.hip:{n}: indexSelectLargeIndex: "
    "Device-side assertion `srcIndex < srcSelectDimSize' failed.",
])
_KERNEL_PREFIXES = st.sampled_from(["", "(RayWorkerWrapper pid=88121) ", "(RayWorkerVllm pid=12470) ",
                                    "(VllmWorker rank=2 pid=271990) ", "[rank1]: "])
_KERNEL_AFTER = st.sampled_from([
    "",
    "(raylet) A worker died or was killed while executing a task by an unexpected system error. "
    "Worker PID: 88121 Worker exit type: SYSTEM_ERROR",
    "Fatal Python error: Aborted",
])


def _kernel_fix_ok(fix: str) -> None:
    for knob in ("CUDA_LAUNCH_BLOCKING=1", "AMD_SERIALIZE_KERNEL", "--tokenizer",
                 "--mm-processor-kwargs", "--limit-mm-per-prompt", "--max-model-len",
                 "--enforce-eager", "--attention-backend"):
        assert knob in fix, knob


@settings(max_examples=40, deadline=None)
@given(check=_KERNEL_CHECKS, prefix=_KERNEL_PREFIXES, after=_KERNEL_AFTER, n=st.integers(40, 1400),
       block=st.integers(0, 9), threads=st.integers(1, 4))
def test_a_kernel_bounds_check_gets_the_index_family(check: str, prefix: str, after: str, n: int,
                                                     block: int, threads: int) -> None:
    lines = ["INFO 06-12 09:30:02 metrics.py:351] Avg prompt throughput: 512.3 tokens/s, Running: "
             "6 reqs, Pending: 0 reqs, GPU KV cache usage: 4.1%."]
    lines += [prefix + check.format(n=n, b=block, t=t) for t in range(threads)]
    lines += [after] if after else []
    signature, fix = signature_advice("\n".join(lines) + "\n")
    assert signature == "gpu-kernel-index-assertion"
    _kernel_fix_ok(fix)


@settings(max_examples=10, deadline=None)
@given(prefix=_KERNEL_PREFIXES, suffix=st.sampled_from(["cu", "hip"]))
def test_the_multinomial_kernels_check_keeps_the_nan_advice(prefix: str, suffix: str) -> None:
    line = (f"/pytorch/aten/src/ATen/native/{'cuda' if suffix == 'cu' else 'hip'}/"
            f"MultinomialKernel.{suffix}:112: binarySearchForMultinomial: block: [0,0,0], thread: "
            "[0,0,0] Assertion `cumdist[size - 1] > static_cast<scalar_t>(0)` failed.")
    signature, _ = signature_advice(prefix + line + "\n")
    assert signature == "sampling-probabilities-nan-inf"


# ---- a library run from its source checkout -----------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(root=st.sampled_from(["/root", "/home/u/src", "/workspace/deps", "/opt"]),
       library=st.sampled_from([("lmcache", "lmcache", "v1/cache_engine.py", "retrieve",
                                 "library-kv-connector-error"),
                                ("LMCache", "lmcache", "v1/gpu_connector.py", "to_gpu",
                                 "library-kv-connector-error"),
                                ("vllm-ascend", "vllm_ascend", "attention/attention_mask.py",
                                 "get_splitfuse_attn_mask", "library-platform-plugin-error")]),
       era=st.sampled_from(ERAS))
def test_a_library_run_from_its_checkout_is_that_librarys_error(
        root: str, library: tuple[str, str, str, str, str], era: object) -> None:
    repository, package, file, function, family = library
    inner = ((f"{root}/{repository}/{package}/{file}", function),)
    log = worker_failure("AttributeError: 'NoneType' object has no attribute 'tensor'",
                         phase=Phase.SERVING, era=era, inner=inner)  # type: ignore[arg-type]
    signature, _ = signature_advice(log)
    assert signature == family


def test_a_checkout_is_a_package_directory_inside_its_namesake() -> None:
    from logsleuth.index.origin import _checkout_module
    assert _checkout_module("/home/u/myproj/myproj/train.py") == "myproj.train"
    assert _checkout_module("/home/u/proj/run.py") is None
    assert _checkout_module("train.py") is None
    assert _checkout_module("/root/lmcache/lmcache/v1/cache_engine.py") == "lmcache.v1.cache_engine"


# ---- a worker's count of its node's ranks against the devices it sees ---------------------------

@settings(max_examples=25, deadline=None)
@given(worker=st.sampled_from([("v1/worker/gpu_worker.py", "init_device"),
                               ("v1/worker/xpu_worker.py", "init_device"),
                               ("/usr/local/lib/python3.11/site-packages/vllm_ascend/worker/"
                                "worker_v1.py", "_init_device"),
                               ("/vllm-workspace/vllm-ascend/vllm_ascend/worker/worker_v1.py",
                                "_init_device")]),
       wording=st.sampled_from(["local_world_size ({n}) must be less than or equal to the number "
                                "of visible devices ({m}).",
                                "local_world_size ({n}) exceeds assigned_physical_gpu_ids count "
                                "({m})"]),
       m=st.sampled_from([1, 2, 4, 8, 16]), factor=st.sampled_from([2, 4]),
       era=st.sampled_from(ERAS))
def test_a_nodes_ranks_beyond_its_devices_name_the_ray_check_and_the_layout(
        worker: tuple[str, str], wording: str, m: int, factor: int, era: object) -> None:
    error = "AssertionError: " + wording.format(n=m * factor, m=m)
    log = worker_failure(error, phase=Phase.INIT, era=era, inner=(worker,))  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "parallelism-exceeds-devices"
    for knob in ("local_world_size", "28873", "--data-parallel-size-local",
                 "--distributed-executor-backend ray", "--tensor-parallel-size"):
        assert knob in fix, knob


# ---- a header or library the source build needs is missing --------------------------------------

_MISSING = st.sampled_from([
    ("compiler", "{site}torch/include/ATen/cuda/CUDAContextLight.h:7:10: fatal error: cusparse.h: "
                 "No such file or directory"),
    ("compiler", "/tmp/pip-install-x/vllm/csrc/cpu/utils.cpp:3:10: fatal error: numa.h: No such "
                 "file or directory"),
    ("compiler", "{site}torch/include/c10/cuda/CUDAMathCompat.h:9:10: fatal error: cublas_v2.h: No "
                 "such file or directory"),
    ("linker", "/opt/conda/bin/../lib/gcc/x86_64-conda-linux-gnu/11.2.0/../../../../"
               "x86_64-conda-linux-gnu/bin/ld: cannot find -lssl: No such file or directory"),
    ("linker", "/usr/bin/ld: cannot find -lnuma: No such file or directory"),
    ("linker", "/usr/bin/ld.gold: cannot find -lcrypto"),
])


@settings(max_examples=25, deadline=None)
@given(missing=_MISSING, site=st.sampled_from(["/usr/local/lib/python3.12/dist-packages/",
                                               "/home/u/envs/x/lib/python3.10/site-packages/"]),
       before=st.sampled_from(["", "  Building wheel for vllm (pyproject.toml) ... error\n",
                               "[1/212] Building CXX object CMakeFiles/_C.dir/csrc/cache_kernels.cu.o\n"]),
       after=st.booleans())
def test_a_missing_header_or_library_of_a_source_build_names_its_package(
        missing: tuple[str, str], site: str, before: str, after: bool) -> None:
    _, line = missing
    log = before + line.format(site=site) + "\n"
    if after:
        log += "collect2: error: ld returned 1 exit status\nninja: build stopped: subcommand failed.\n"
    signature, fix = signature_advice(log)
    assert signature == "source-build-failed"
    for knob in ("libssl-dev", "cuda-libraries-dev", "CPATH", "LIBRARY_PATH", "CUDA_HOME",
                 "VLLM_USE_PRECOMPILED"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(line=st.sampled_from([
    "/usr/bin/ld: cannot find -lcuda: No such file or directory",
    "/tmp/tmpk7xin9qk/main.c:5:10: fatal error: Python.h: No such file or directory",
]))
def test_triton_jit_toolchain_lines_keep_their_own_signatures(line: str) -> None:
    signature, _ = signature_advice(line + "\n")
    assert signature != "source-build-failed"


# ---- NCCL's own WARN line for a failed CUDA call -------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(host=st.sampled_from(["gpu-node-1", "a100-7", "worker-0"]), pid=st.integers(100, 99999),
       failure=st.sampled_from(["'operation not supported'", "700 'an illegal memory access was "
                                "encountered'", "'invalid argument'", "1 'invalid argument'"]),
       where=st.sampled_from(["transport/nvls.cc:158", "enqueue.cc:1402", "proxy.cc:1468"]))
def test_nccls_warn_for_a_failed_cuda_call_is_an_unhandled_cuda_error(
        host: str, pid: int, failure: str, where: str) -> None:
    line = f"{host}:{pid}:{pid + 7} [0] NCCL INFO cudaDriverVersion 12040\n"
    line += f"{host}:{pid}:{pid + 7} [0] {where} NCCL WARN Cuda failure {failure}\n"
    signature, fix = signature_advice(line)
    assert signature == "nccl-unhandled-cuda-error"
    assert "NCCL_DEBUG" in fix
