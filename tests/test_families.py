"""No common failure goes without advice: the fifteen failures of issue 11, each written as a worker
traceback in a realistic vLLM log, get a signature (a family, or an exact one) whose fix names the
knobs. Each is drawn in several eras of prefixes, from several processes, and where the failure can
happen in more than one phase, from each phase's call path."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, SignatureKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, worker_failure

TAIL = ("\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1")
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU {rank} has a "
       "total capacity of 23.52 GiB of which 1.12 GiB is free. Process 1893 has 22.39 GiB memory "
       "in use. Of the allocated memory 21.80 GiB is allocated by PyTorch, and 151.20 MiB is "
       "reserved by PyTorch but unallocated.")
RUNNING = [Phase.PROFILE, Phase.GRAPH_CAPTURE, Phase.SERVING]  # where a kernel can fail
LOADING = [Phase.LOAD]

# (name, error text, phases it can happen in, knobs the advice must name)
FAILURES = [
    ("cuda-oom-execute-model", OOM, [Phase.SERVING], ["--gpu-memory-utilization", "--max-num-seqs"]),
    ("cuda-oom-profile-run", OOM, [Phase.PROFILE],
     ["--max-num-batched-tokens", "--max-num-seqs", "--tensor-parallel-size"]),
    ("nccl-unhandled-cuda-error",
     "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for details), "
     "NCCL version 2.26.2", [Phase.INIT, Phase.PROFILE, Phase.SERVING],
     ["NCCL_DEBUG=INFO", "NCCL_P2P_DISABLE=1", "--disable-custom-all-reduce"]),
    ("device-side-assert", "RuntimeError: CUDA error: device-side assert triggered" + TAIL,
     RUNNING, ["CUDA_LAUNCH_BLOCKING=1", "--enforce-eager"]),
    ("weight-scale-keyerror", "KeyError: 'model.layers.3.mlp.down_proj.weight_scale'", LOADING,
     ["--quantization"]),
    ("safetensors-header-too-large",
     "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge", LOADING,
     ["--force-download", "git lfs pull"]),
    ("nccl-remote-process-exited",
     "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
     "NCCLUtils.hpp:317, remote process exited or there was a network error, NCCL version 2.21.5",
     [Phase.INIT, Phase.SERVING], ["NCCL_SOCKET_IFNAME", "NCCL_DEBUG=INFO"]),
    ("no-space-left", "OSError: [Errno 28] No space left on device", LOADING,
     ["HF_HOME", "--download-dir"]),
    ("hf-hub-couldnt-connect",
     "OSError: We couldn't connect to 'https://huggingface.co' to load the files, and couldn't "
     "find them in the cached files.", [Phase.INIT, Phase.LOAD], ["HF_HUB_OFFLINE=1", "HF_ENDPOINT"]),
    ("cuda-error-out-of-memory", "RuntimeError: CUDA error: out of memory" + TAIL, RUNNING,
     ["--gpu-memory-utilization", "--enforce-eager"]),
    ("cublas-execution-failed",
     "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, "
     "opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, "
     "ldc, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`", RUNNING,
     ["CUDA_LAUNCH_BLOCKING=1", "--dtype"]),
    ("state-dict-size-mismatch",
     "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n\tsize mismatch for "
     "model.embed_tokens.weight: copying a param with shape torch.Size([128256, 4096]) from "
     "checkpoint, the shape in current model is torch.Size([128264, 4096]).", LOADING,
     ["--revision", "--tensor-parallel-size"]),
    ("unspecified-launch-failure", "RuntimeError: CUDA error: unspecified launch failure" + TAIL,
     RUNNING, ["CUDA_LAUNCH_BLOCKING=1", "--enforce-eager"]),
    ("marlin-min-thread-k",
     "ValueError: Weight input_size_per_partition = 7392 is not divisible by min_thread_k = 128. "
     "Consider reducing tensor_parallel_size or running with --quantization gptq.", LOADING,
     ["--tensor-parallel-size", "--quantization gptq"]),
    ("illegal-instruction", "RuntimeError: CUDA error: an illegal instruction was encountered" + TAIL,
     RUNNING, ["TORCH_CUDA_ARCH_LIST", "CUDA_LAUNCH_BLOCKING=1"]),
]


@pytest.mark.parametrize("name,error,phases,knobs", FAILURES, ids=[f[0] for f in FAILURES])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_each_common_failure_gets_advice_naming_its_knobs(name: str, error: str,
                                                         phases: list[Phase], knobs: list[str],
                                                         data: st.DataObject) -> None:
    era = data.draw(st.sampled_from(ERAS), label="era")
    phase = data.draw(st.sampled_from(phases), label="phase")
    rank = data.draw(st.integers(min_value=0, max_value=7), label="rank")
    report = explain_text(worker_failure(error.format(rank=rank), phase=phase, era=era, rank=rank),
                          signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and error.split(":")[0] in report.root_cause.exception
    assert report.signature is not None, f"{name}: no advice ({era.name}, {phase.value})"
    missing = [knob for knob in knobs if knob not in report.signature.fix]
    assert not missing, f"{name}: {report.signature.id} does not name {missing}"


def test_the_shipped_database_holds_forty_families() -> None:
    kinds = [s.kind for s in default_signatures()]
    assert kinds.count(SignatureKind.FAMILY) >= 40
