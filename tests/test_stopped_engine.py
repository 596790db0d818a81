"""A worker's failed model step that leaves the engine stopped while its API server goes on
(issue 10): the failed rank's peers wait in the next collective, the server opens streams (a
streamed request's `200` is logged as it starts) and answers polls, its stats say requests are
held and nothing is processed, the engine core reports it waits on its workers, and minutes
later the engine core's wait times out. The worker's error is the root cause; the answers after
it are no work of the engine's (causality.yaml `engine_stats`, causal.py `_stopped`). When the
engine's stats show output after the error, it was survived and is no root cause.

Line shapes as vLLM prints them in V1 eras (0.8-0.10 `VllmWorker rank=N`, 0.11+ `Worker_TPn`),
the stats with and without `Engine 000: `, V1's `Waiting` and V0's `Pending`.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

API = "(APIServer pid=100) "
CORE = "(EngineCore_DP0 pid=200) "
WORKERS = ["(VllmWorker rank=3 pid=303) ", "(Worker_TP4 pid=304) ", "(Worker pid=305) "]
START = [
    API + "INFO 06-02 22:00:00 [api_server.py:1896] vLLM API server version 0.22.0",
    CORE + "INFO 06-02 22:00:05 [core.py:74] Initializing a V1 LLM engine (v0.22.0) with "
    "config: model='m', tensor_parallel_size=8",
    API + "INFO 06-02 22:05:00 [api_server.py:1900] Starting vLLM API server 0 on "
    "http://0.0.0.0:8000",
    API + "INFO:     Application startup complete.",
]
ERRORS = [
    "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, "
    "opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, "
    "CUDA_R_16BF, ldc, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
    "RuntimeError: CUDA error: CUBLAS_STATUS_INTERNAL_ERROR when calling `cublasLtMatmul( ltHandle, "
    "computeDesc.descriptor(), &alpha_val, mat1_ptr, Adesc.descriptor())`",
    "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
    "RuntimeError: CUDA error: unspecified launch failure",
]
OUTPUT = ["Engine 000: Avg prompt throughput: 3449.5 tokens/s, Avg generation throughput: 247.3 "
          "tokens/s, Running: 9 reqs, Waiting: 0 reqs, GPU KV cache usage: 37.9%",
          "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 81.0 tokens/s, "
          "Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 2.1%"]
STUCK = ["Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 "
         "tokens/s, Running: 9 reqs, Waiting: 0 reqs, GPU KV cache usage: 37.9%",
         "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, "
         "Running: 0 reqs, Waiting: 3 reqs, GPU KV cache usage: 0.4%"]
HANG = CORE + ("INFO 06-02 22:26:31 [shm_broadcast.py:698] No available shared memory broadcast "
               "block found in 60 seconds. This typically happens when some processes are "
               "hanging or doing some time-consuming work (e.g. compilation, weight/kv cache "
               "quantization).")
POLL = API + 'INFO:     127.0.0.1:60822 - "GET /metrics HTTP/1.1" 200 OK'
STREAM = API + 'INFO:     127.0.0.1:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'


def _stats(text: str) -> str:
    return API + f"INFO 06-02 22:25:44 [loggers.py:271] {text}"


def _worker_error(worker: str, error: str) -> list[str]:
    head = worker + "ERROR 06-02 22:25:31 [multiproc_executor.py:962] "
    return [head + "WorkerProc hit an exception.",
            head + "Traceback (most recent call last):",
            head + '  File "/usr/lib/python3.12/site-packages/vllm/v1/executor/'
            'multiproc_executor.py", line 957, in worker_busy_loop',
            head + "    output = func(*args, **kwargs)",
            head + '  File "/usr/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", '
            "line 841, in execute_model",
            head + "    output = self.model_runner.execute_model(",
            head + '  File "/usr/lib/python3.12/site-packages/torch/nn/modules/linear.py", '
            "line 125, in forward",
            head + "    return F.linear(input, self.weight, self.bias)",
            head + error]


END = [
    CORE + "ERROR 06-02 22:30:30 [core.py:1167] EngineCore encountered a fatal error.",
    CORE + "ERROR 06-02 22:30:30 [core.py:1167] Traceback (most recent call last):",
    CORE + 'ERROR 06-02 22:30:30 [core.py:1167]   File "/usr/lib/python3.12/site-packages/vllm/'
    'v1/executor/multiproc_executor.py", line 386, in get_response',
    CORE + "ERROR 06-02 22:30:30 [core.py:1167]     raise TimeoutError(f\"RPC call to {method} "
    "timed out.\") from e",
    CORE + "ERROR 06-02 22:30:30 [core.py:1167] TimeoutError: RPC call to sample_tokens timed out.",
    API + "ERROR 06-02 22:30:30 [async_llm.py:708] AsyncLLM output_handler failed.",
    API + "ERROR 06-02 22:30:30 [async_llm.py:708] vllm.v1.engine.exceptions.EngineDeadError: "
    "EngineCore encountered an issue. See stack trace (above) for the root cause.",
]


def _traffic(draw: st.DrawFn, lines: int) -> list[str]:
    """Polls and opened streams, `lines` of them."""
    return [draw(st.sampled_from([POLL, STREAM.format(port=55000 + i)])) for i in range(lines)]


@st.composite
def _stopped_runs(draw: st.DrawFn, recovered: bool) -> tuple[list[str], int]:
    """(a run whose worker failed a step, the error's line); `recovered`: the engine's stats
    show output after the error, past the requests in flight."""
    error = _worker_error(draw(st.sampled_from(WORKERS)), draw(st.sampled_from(ERRORS)))
    lines = [*START, *_traffic(draw, draw(st.integers(0, 8))), _stats(draw(st.sampled_from(OUTPUT))),
             *_traffic(draw, draw(st.integers(0, 8))), *error]
    error_line = len(lines)
    # the interval the error fell in: output before it, printed just after it (the engine's
    # last output the log shows; the first activity line after an error is always read)
    lines.append(_stats(draw(st.sampled_from(OUTPUT))))
    lines += _traffic(draw, draw(st.integers(35, 60)))
    if recovered:  # output after the error, then polls (the last served line before the
        # stuck stats, which is always read: locate.py)
        lines += [_stats(draw(st.sampled_from(OUTPUT))), *[POLL] * draw(st.integers(0, 5))]
    lines += [_stats(draw(st.sampled_from(STUCK))), *_traffic(draw, draw(st.integers(0, 20)))]
    for _ in range(draw(st.integers(1, 5))):
        lines += [HANG, *_traffic(draw, draw(st.integers(0, 10)))]
    return [*lines, *END], error_line


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@settings(max_examples=40, deadline=None)
@given(_stopped_runs(recovered=False))
def test_a_worker_error_before_the_engine_stopped_is_the_root_cause(
        run: tuple[list[str], int]) -> None:
    lines, error_line = run
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == error_line
    assert report.root_cause.process.name.startswith(("VllmWorker", "Worker"))


@settings(max_examples=40, deadline=None)
@given(_stopped_runs(recovered=True))
def test_a_worker_error_the_engine_produced_output_after_is_survived(
        run: tuple[list[str], int]) -> None:
    lines, error_line = run
    report = _explain(lines)
    assert report.root_cause is None or report.root_cause.line != error_line
    assert any(e.line == error_line for e in report.survived)
