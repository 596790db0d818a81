"""Classes whose advice must name the remedy that holds for the whole class, widened in session 22
(issue 11: on unseen logs the family matched, but its fix did not name the remedy that resolved
that kind of failure). Each is generated over its members, phases and eras
(signatures/family-knobs.yaml declares the class; tests/test_family_knobs.py checks every fix):

- an OOM in any phase while another process holds part of the GPU (the OOM line's `Process N has
  X GiB memory in use`): that process is found with `nvidia-smi`, and instances that need not
  share a GPU get their own with `CUDA_VISIBLE_DEVICES`;
- a KV cache too small or no memory for it: on 0.10.2+ the cache's size can be given in bytes
  (`--kv-cache-memory-bytes`, vLLM's engine arguments) instead of the fraction;
- a gated or private repository without a token: `HF_TOKEN`, or on vLLM 0.8.5+ the engine
  argument `--hf-token`;
- no platform detected (`Failed to infer device type`): `VLLM_LOGGING_LEVEL=DEBUG` shows why each
  platform was rejected (vLLM's troubleshooting page, vllm#14200), NVML's Python binding
  `nvidia-ml-py` rather than a stray `pynvml`;
- an engine step or RPC past its limit: V1's `VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS`, V0's
  `VLLM_ENGINE_ITERATION_TIMEOUT_S`, and `py-spy dump` to see where a worker waits;
- an attention kernel refused on ROCm: CK's flash-attention has CDNA kernels only, so on RDNA
  (`gfx1100`) Triton's or the naive path (`VLLM_USE_TRITON_FLASH_ATTN=0` through 0.11, vllm#3040;
  images built with `BUILD_FA=0`, vLLM's ROCm installation page), `TRITON_ATTN` on 0.13+;
- a CPU kernel refusing a dtype: x86 CPU builds that run Intel Extension for PyTorch need the
  IPEX release of torch's minor version (`intel_extension_for_pytorch`, vLLM's CPU install page)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase
from v1log import ERAS, signature_advice, worker_failure

_ERA = st.integers(0, len(ERAS) - 1)


def _answer(error: str, phase: Phase, era: int) -> tuple[str, str]:
    return signature_advice(worker_failure(error, phase=phase, era=ERAS[era]))


# ---- an OOM while another process holds part of the GPU -----------------------------------------

_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {ask} MiB. GPU {gpu} has a "
        "total capacity of {total}.55 GiB of which {free}.06 MiB is free. Process {pid} has "
        "{other}.20 GiB memory in use. Including non-PyTorch memory, this process has {mine}.03 "
        "GiB memory in use. Of the allocated memory {mine}.6 GiB is allocated by PyTorch, and "
        "120.3 MiB is reserved by PyTorch but unallocated.")


@settings(max_examples=40, deadline=None)
@given(ask=st.integers(2, 8192), gpu=st.integers(0, 7), total=st.sampled_from([15, 23, 47, 79]),
       free=st.integers(1, 900), pid=st.integers(100, 99999), other=st.integers(1, 12),
       mine=st.integers(1, 12), era=_ERA,
       phase=st.sampled_from([Phase.LOAD, Phase.PROFILE, Phase.KV_CACHE, Phase.GRAPH_CAPTURE,
                              Phase.SERVING]))
def test_an_oom_beside_another_process_names_nvidia_smi_and_visible_devices(
        ask: int, gpu: int, total: int, free: int, pid: int, other: int, mine: int, era: int,
        phase: Phase) -> None:
    error = _OOM.format(ask=ask, gpu=gpu, total=total, free=free, pid=pid, other=other, mine=mine)
    signature, fix = _answer(error, phase, era)
    assert "oom" in signature, signature
    assert "nvidia-smi" in fix and "CUDA_VISIBLE_DEVICES" in fix, signature


# ---- the KV cache's size ----------------------------------------------------------------------

_KV = [
    "ValueError: To serve at least one request with the models's max seq len ({need}), ({gib}.00 "
    "GiB KV cache is needed, which is larger than the available KV cache memory ({have}.45 GiB). "
    "Based on the available memory, the estimated maximum model length is {est}. Try increasing "
    "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    "ValueError: The model's max seq len ({need}) is larger than the maximum number of tokens that "
    "can be stored in KV cache ({est}). Try increasing `gpu_memory_utilization` or decreasing "
    "`max_model_len` when initializing the engine.",
    "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
    "when initializing the engine.",
    "ValueError: Free memory on device ({have}.1/{gib}.19 GiB) on startup is less than desired GPU "
    "memory utilization (0.9, {need_gib}.27 GiB). Decrease GPU memory utilization or reduce GPU "
    "memory used by other processes."]


@settings(max_examples=40, deadline=None)
@given(template=st.sampled_from(_KV), need=st.sampled_from([32768, 131072, 262144]),
       gib=st.integers(20, 80), have=st.integers(1, 19), est=st.integers(1000, 30000),
       era=_ERA)
def test_a_kv_cache_too_small_names_its_size_in_bytes(template: str, need: int, gib: int,
                                                      have: int, est: int, era: int) -> None:
    error = template.format(need=need, gib=gib, have=have, est=est, need_gib=gib - 5)
    _, fix = _answer(error, Phase.KV_CACHE, era)
    assert "--kv-cache-memory-bytes" in fix and "0.10.2" in fix
    assert "--gpu-memory-utilization" in fix


# ---- a gated repository without a token ---------------------------------------------------------

_GATED = [
    "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-6{rid})\n\n"
    "Cannot access gated repo for url https://huggingface.co/{repo}/resolve/main/config.json.\n"
    "Access to model {repo} is restricted. You must have access to it and be authenticated to "
    "access it. Please log in.",
    "OSError: You are trying to access a gated repo.\nMake sure to have access to it at "
    "https://huggingface.co/{repo}.\n401 Client Error. (Request ID: Root=1-6{rid})",
    "huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. "
    "(Request ID: Root=1{rid})\n\n"
    "Repository Not Found for url: https://huggingface.co/api/models/{repo}/revision/main.\n"
    "Please make sure you specified the correct `repo_id` and `repo_type`.\n"
    "If you are trying to access a private or gated repo, make sure you are authenticated."]


@settings(max_examples=30, deadline=None)
@given(template=st.sampled_from(_GATED), rid=st.from_regex(r"[0-9a-f]{6}", fullmatch=True),
       repo=st.sampled_from(["meta-llama/Llama-3.1-8B-Instruct", "google/gemma-2-9b-it",
                             "acme/private-model"]),
       era=_ERA)
def test_a_gated_repository_names_the_token_variable_and_flag(template: str, rid: str, repo: str,
                                                              era: int) -> None:
    _, fix = _answer(template.format(rid=rid, repo=repo), Phase.LOAD, era)
    assert "HF_TOKEN" in fix and "--hf-token" in fix and "0.8.5" in fix


# ---- no platform detected -----------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(error=st.sampled_from(["RuntimeError: Failed to infer device type",
                              "RuntimeError: Failed to infer device type, please set the "
                              "environment variable `VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose "
                              "logging to help debug the issue."]),
       era=_ERA, phase=st.sampled_from([Phase.INIT, Phase.LOAD]))
def test_no_platform_detected_names_the_debug_log_and_nvml(error: str, era: int,
                                                          phase: Phase) -> None:
    _, fix = _answer(error, phase, era)
    assert "VLLM_LOGGING_LEVEL=DEBUG" in fix and "nvidia-ml-py" in fix and "--gpus" in fix


# ---- an engine step past its limit --------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(method=st.sampled_from(["execute_model", "sample_tokens", "determine_available_memory"]),
       era=_ERA)
def test_a_step_past_its_limit_names_both_engines_limits_and_py_spy(method: str, era: int) -> None:
    _, fix = _answer(f"TimeoutError: RPC call to {method} timed out.", Phase.SERVING, era)
    for knob in ("VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS", "VLLM_ENGINE_ITERATION_TIMEOUT_S", "py-spy"):
        assert knob in fix, knob


# ---- an attention kernel refused on ROCm --------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(backend=st.sampled_from(["FLASH_ATTN", "ROCM_AITER_FA", "FlashAttention", "TRITON_ATTN"]),
       arch=st.sampled_from(["gfx1100", "gfx1101", "gfx1201", "gfx90a"]),
       shape=st.sampled_from(["ValueError: {b} is not supported on this GPU ({a}).",
                              "NotImplementedError: {b} does not support sliding window on {a}",
                              "AssertionError: {b} does not support head size 80 on {a}"]),
       module=st.sampled_from(["rocm_attn", "rocm_aiter_fa", "triton_attn"]),
       era=st.integers(0, 1), phase=st.sampled_from([Phase.PROFILE, Phase.GRAPH_CAPTURE]))
def test_an_attention_kernel_refused_on_rocm_names_rdna_remedies(
        backend: str, arch: str, shape: str, module: str, era: int, phase: Phase) -> None:
    inner = ((f"v1/attention/backends/{module}.py", "forward"),)
    log = worker_failure(shape.format(b=backend, a=arch), phase=phase, era=ERAS[era], inner=inner)
    signature, fix = signature_advice(log)
    assert signature.startswith("attention-"), signature
    for knob in ("VLLM_USE_TRITON_FLASH_ATTN", "BUILD_FA", "gfx1100", "TRITON_ATTN",
                 "--attention-backend"):
        assert knob in fix, knob


# ---- the CPU backend's kernels and their IPEX ---------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(op=st.sampled_from(["reshape_and_cache_cpu_impl", "baddbmm_with_gemm", "paged_attention_v1",
                           "rms_norm_impl"]),
       dtype=st.sampled_from(["Half", "BFloat16"]), era=st.integers(0, len(ERAS) - 1),
       phase=st.sampled_from([Phase.PROFILE, Phase.SERVING]))
def test_a_cpu_kernel_refusing_a_dtype_names_the_ipex_torch_pair(op: str, dtype: str, era: int,
                                                                 phase: Phase) -> None:
    inner = (("attention/backends/torch_sdpa.py", "forward"), ("_ipex_ops.py", "reshape_and_cache"))
    log = worker_failure(f'RuntimeError: "{op}" not implemented for \'{dtype}\'', phase=phase,
                         era=ERAS[era], inner=inner)
    signature, fix = signature_advice(log)
    assert signature.startswith("cpu-"), signature
    assert "intel_extension_for_pytorch" in fix and "--dtype" in fix
