"""Platform plugins' failure classes (session 33, sigs-b), each generated over its wordings and the
ways a log shows it, with near misses. (Its generated cases of Spyre's continuous batching on a
pooling model and of the StageMissingLayer placeholder hold sigs-d's signatures of those classes and
live beside sigs-d's own, in tests/test_s33_fix_classes_d.py.)

- tpu-inference's attention kernels finding no block size or tile that fits the TPU core's VMEM
  limit before compiling: the VMEM class (tpu-vmem-out-of-memory), whose fix compiles smaller
  shapes; HBM running out is not it;
- a hybrid model's Mamba and attention KV pools on TPU not fitting the HBM under
  gpu_memory_utilization: tpu-hybrid-kv-pools-exceed-hbm, whose fix names max_num_seqs; vLLM's
  own no-memory-for-cache-blocks is not it;
- an ACL graph mode (cudagraph_mode) that vllm-ascend's attention backend or feature cannot
  capture: ascend-aclgraph-mode-unsupported, whose fix names the mode to pick (PIECEWISE,
  FULL_DECODE_ONLY, --enforce-eager); a capture-size refusal is not it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import ERAS, TRACEBACK_PREFIXES, python_traceback, \
    signature_advice, worker_failure

from logsleuth.model import Phase

_ERAS = st.sampled_from(ERAS)

# --- TPU: attention kernels' block sizes against the VMEM limit ------------------------------

_VMEM_REFUSALS = st.sampled_from([
    ("Cannot find block sizes that fit within VMEM limit.",
     "kernels/experimental/batched_rpa/wrapper.py"),
    ("Cannot find batch size that fits within VMEM limit.",
     "kernels/experimental/batched_rpa/tuned_params.py"),
    ("Cannot fit the minimum double-buffered decode tile within the VMEM limit.",
     "kernels/experimental/stacked_rpa/decode/block_sizes.py"),
    ("Cannot fit the minimum double-buffered prefill tile within the VMEM limit.",
     "kernels/experimental/stacked_rpa/prefill/block_sizes.py"),
    ("The one-block sliding-window prefill tile does not fit in VMEM: model.sliding_window=4096 "
     "vmem_limit_bytes=100663296 seed=512.",
     "kernels/experimental/stacked_rpa/prefill/sliding_window/block_sizes.py"),
    ("The page-aligned sliding-window decode block does not fit in VMEM: candidate=256 "
     "vmem_limit_bytes=67108864.", "kernels/experimental/stacked_rpa/decode/block_sizes.py"),
])
_TPU_ROOTS = st.sampled_from(["/workspace/tpu_inference/", "/usr/local/lib/python3.12/site-packages/",
                              "/home/u/.venv/lib/python3.11/site-packages/"])


@settings(max_examples=40, deadline=None)
@given(refusal=_VMEM_REFUSALS, root=_TPU_ROOTS, era=_ERAS,
       shape=st.sampled_from(["worker", "traceback", "oneline"]), prefix=TRACEBACK_PREFIXES)
def test_a_tpu_kernel_with_no_block_size_under_vmem_gets_the_vmem_advice(
        refusal: tuple[str, str], root: str, era: object, shape: str, prefix: str) -> None:
    message, kernel = refusal
    error = f"ValueError: {message}"
    path = f"{root}tpu_inference/{kernel}"
    if shape == "worker":
        log = worker_failure(error, phase=Phase.PROFILE, era=era,  # type: ignore[arg-type]
                             inner=((path, "choose_block_sizes"),))
    elif shape == "traceback":
        log = python_traceback([(path, "choose_block_sizes", "raise ValueError(")], error, prefix)
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "tpu-vmem-out-of-memory", log
    assert "--max-num-batched-tokens" in fix and "--max-num-seqs" in fix


@pytest.mark.parametrize("error", [
    "ValueError: Ran out of memory in memory space hbm. Used 17.2G of 15.75G hbm.",
    "ValueError: Cannot find block sizes for head_dim=80 on this TPU generation.",
    "ValueError: Combined KV heads must be divisible by 2, but got 3",
])
def test_other_tpu_kernel_refusals_are_not_the_vmem_class(error: str) -> None:
    log = worker_failure(error, phase=Phase.PROFILE,
                         inner=(("/workspace/tpu_inference/tpu_inference/kernels/ragged_paged_"
                                 "attention/v3/kernel.py", "ragged_paged_attention"),))
    sid, _ = signature_advice(log)
    assert sid != "tpu-vmem-out-of-memory", log


# --- TPU: a hybrid model's two KV pools against the HBM budget --------------------------------

def _pool_refusal(kind: str, utilization: str, seqs: int) -> str:
    if kind == "minimum":
        return (f"ValueError: Cannot fit both KV pools under gpu_memory_utilization={utilization}: "
                f"the mamba pool needs {seqs} blocks (1 per request x {seqs} requests) across 36 "
                "layers at 1048576 B/block, which leaves nothing of the 8.50 GiB available for "
                "attention. That is already the minimum mamba needs resident, so lower "
                "`max_num_seqs`, raise `gpu_memory_utilization`, or free HBM by shrinking the "
                "model's footprint.")
    return (f"ValueError: User-specified KV cache configuration exceeds available HBM under "
            f"gpu_memory_utilization={utilization}: attention (4096 blocks) requires 6.00 GiB and "
            f"the minimum mamba pool ({seqs} blocks, 1 per request) requires 3.25 GiB, together "
            "more than the 8.50 GiB available. Decrease `num_gpu_blocks_override` or "
            "`max_num_seqs`, or raise `gpu_memory_utilization` if there is HBM to spare.")


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["minimum", "override"]),
       utilization=st.sampled_from(["0.9", "0.95", "0.8"]), seqs=st.sampled_from([64, 256, 1024]),
       root=_TPU_ROOTS, era=_ERAS, shape=st.sampled_from(["worker", "traceback"]),
       prefix=TRACEBACK_PREFIXES)
def test_hybrid_kv_pools_over_tpu_hbm_get_the_max_num_seqs_advice(
        kind: str, utilization: str, seqs: int, root: str, era: object, shape: str,
        prefix: str) -> None:
    error = _pool_refusal(kind, utilization, seqs)
    path = f"{root}tpu_inference/runner/kv_cache_manager.py"
    function = "_maybe_set_compact_mamba_num_blocks_override"
    if shape == "worker":
        log = worker_failure(error, phase=Phase.KV_CACHE, era=era,  # type: ignore[arg-type]
                             inner=((path, function),))
    else:
        log = python_traceback([(path, function, "raise ValueError(")], error, prefix)
    sid, fix = signature_advice(log)
    assert sid == "tpu-hybrid-kv-pools-exceed-hbm", log
    assert "--max-num-seqs" in fix and "--gpu-memory-utilization" in fix


@pytest.mark.parametrize("error", [
    "ValueError: No available memory for the cache blocks. Try increasing "
    "`gpu_memory_utilization` when initializing the engine.",
    "ValueError: Cannot fit both prefill and decode batches under max_num_batched_tokens=2048",
])
def test_other_kv_memory_refusals_are_not_the_tpu_pool_class(error: str) -> None:
    log = worker_failure(error, phase=Phase.KV_CACHE)
    sid, _ = signature_advice(log)
    assert sid != "tpu-hybrid-kv-pools-exceed-hbm", log


# --- Ascend: an ACL graph mode the backend or feature cannot capture --------------------------

_GRAPH_REFUSALS = st.sampled_from([
    ("ValueError", "ACLGraphMode.{mode} is not supported with {backend} backend (support: "
     "AttentionCGSupport.UNIFORM_BATCH); please try cudagraph_mode=PIECEWISE, and make sure "
     "compilation level is piecewise", "worker/model_runner_v1.py"),
    ("ValueError", "AscendFAImpl does not support ACL graph capture with {mode} mode. Please set "
     "enforce_eager=True or not set FULL_DECODE_ONLY or use the default FIA backend.",
     "attention/fa3_v1.py"),
    ("RuntimeError", "Capturing attention in aclgraph is unexpected, because full graph is not "
     "supported now", "worker/model_runner_v1.py"),
    ("NotImplementedError", "MRV2 PCP+DP supports eager mode or FULL_DECODE_ONLY CUDA graphs only.",
     "worker/v2/pcp_manager.py"),
    ("NotImplementedError", "dflash2 does not currently support graph mode; please enable "
     "enforce_eager.", "worker/v2/spec_decode/dflash2/speculator.py"),
])
_ASCEND_ROOTS = st.sampled_from(["/vllm-workspace/vllm-ascend/",
                                 "/usr/local/python3.11.13/lib/python3.11/site-packages/"])


@settings(max_examples=40, deadline=None)
@given(refusal=_GRAPH_REFUSALS, mode=st.sampled_from(["FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]),
       backend=st.sampled_from(["AscendMLABackend", "AscendAttentionBackend", "AscendSFABackend"]),
       root=_ASCEND_ROOTS, era=_ERAS, shape=st.sampled_from(["worker", "traceback"]),
       prefix=TRACEBACK_PREFIXES)
def test_an_acl_graph_mode_the_backend_cannot_capture_gets_the_mode_advice(
        refusal: tuple[str, str, str], mode: str, backend: str, root: str, era: object,
        shape: str, prefix: str) -> None:
    kind, template, module = refusal
    error = f"{kind}: {template.format(mode=mode, backend=backend)}"
    path = f"{root}vllm_ascend/{module}"
    if shape == "worker":
        log = worker_failure(error, phase=Phase.GRAPH_CAPTURE, era=era,  # type: ignore[arg-type]
                             inner=((path, "initialize_aclgraph_capture"),))
    else:
        log = python_traceback([(path, "initialize_aclgraph_capture", f"raise {kind}(")], error,
                               prefix)
    sid, fix = signature_advice(log)
    assert sid == "ascend-aclgraph-mode-unsupported", log
    assert "PIECEWISE" in fix and "--enforce-eager" in fix and "FULL_DECODE_ONLY" in fix


@pytest.mark.parametrize("error", [
    "ValueError: Bad graph batch size:72! max_graph_batch_sizes:64",
    "AssertionError: cudagraph_capture_sizes [1, 2, 4] does not contain values that are "
    "multiples of tp_size 16",
    "ValueError: CUDAGraphMode.FULL is not supported with FlashInferBackend backend (support: "
    "AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); please try cudagraph_mode=PIECEWISE",
])
def test_other_graph_refusals_are_not_the_acl_graph_mode_class(error: str) -> None:
    log = worker_failure(error, phase=Phase.GRAPH_CAPTURE,
                         inner=(("/vllm-workspace/vllm-ascend/vllm_ascend/worker/"
                                 "model_runner_v1.py", "capture_model"),))
    sid, _ = signature_advice(log)
    assert sid != "ascend-aclgraph-mode-unsupported", log
