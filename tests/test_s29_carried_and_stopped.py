"""Two rules of issue 10 (root cause and survival from evidence), over generated logs of each class.

- **A carried copy printed first.** Ray's `RayTaskError(X): ray::RayWorkerWrapper.execute_method()
  (pid=N, ...)` prints the remote worker's traceback and its `X: ...` under its own line, in the
  caller's output (the engine core's prefix; causality.yaml `carriers`). Ray forwards the workers'
  own records later, so the caller's copy is often the first print of the failure: it is the
  worker's error (the process the carrier names), and the report that points at a worker points at
  it too. The root is that copy, at its line (tests/fixtures/tuning: t-strix-halo-two-node-ray-
  roce-tp2-rccl-gfx1151-hip-invalid-kernel-file). Where a worker's own record comes first it stays
  the root.
- **Errors after the HTTP server's stop.** vLLM's launcher logs `Shutting down FastAPI HTTP server.`
  only when its SIGINT/SIGTERM handler cancelled the server (vllm/entrypoints/launcher.py): what
  breaks after it (a disaggregated instance's KV pipe to a peer already stopped) is the stop's
  teardown, no failure (tests/fixtures/tuning/healthy: mm-v061post2-lmcache-disagg-decode-serving-
  then-gloo-pipe-teardown-errors). The same errors before the stop, or a failure before it, stay
  the failure.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=20, deadline=None)

E = "(EngineCore_DP0 pid=17822)"
FAILURES = [
    ("torch.AcceleratorError", "HIP error: invalid kernel file"),
    ("RuntimeError", "CUDA error: out of memory"),
    ("RuntimeError", "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled "
     "system error, NCCL version 2.21.5"),
    ("ValueError", "Free memory on device (10.5/79.1 GiB) on startup is less than desired GPU "
     "memory utilization (0.9, 71.2 GiB)."),
]
INNER = [
    '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 221, in '
    "init_device",
    "    init_worker_distributed_environment(",
    '  File "/opt/venv/lib/python3.12/site-packages/vllm/distributed/device_communicators/'
    'pynccl.py", line 145, in __init__',
    "    data = torch.zeros(1, device=device)",
]


# the wrappers a collector puts around every line: none, docker's time, journald, compose
WRAPS = ["", "2026-01-31T14:21:03.123456789Z ", "Jan 31 14:21:03 gpu-node-1 vllm[4242]: ",
         "vllm-1  | "]


def explain(lines: list[str], wrap: str = "") -> Report:
    return explain_text("".join(f"{wrap}{line}\n" for line in lines),
                        signatures=default_signatures())


def _worker(pid: int, ip: str | None) -> str:
    return f"(RayWorkerWrapper pid={pid}, ip={ip})" if ip else f"(RayWorkerWrapper pid={pid})"


def _start(workers: list[int]) -> list[str]:
    return [
        "(APIServer pid=17743) INFO 01-31 14:20:53 [api_server.py:1272] vLLM API server version "
        "0.16.0",
        f"{E} INFO 01-31 14:20:58 [core.py:96] Initializing a V1 LLM engine (v0.16.0) with "
        "config: model='facebook/opt-125m'",
        *(f"{E} {_worker(pid, None)} INFO 01-31 14:21:03 [parallel_state.py:1234] world_size="
          f"{len(workers)} rank={rank} local_rank=0 backend=nccl"
          for rank, pid in enumerate(workers)),
    ]


def _caller(named: int, ip: str | None, failure: tuple[str, str], class_named: bool) -> list[str]:
    exc, msg = failure
    r = f"{E} ERROR 01-31 14:21:03 [core.py:946]"
    carrier = f"ray.exceptions.RayTaskError({exc.rsplit('.', 1)[-1]})" if class_named \
        else "ray.exceptions.RayTaskError"
    where = f"pid={named}, ip={ip}" if ip else f"pid={named}"
    return [
        f"{r} EngineCore failed to start.",
        f"{r} Traceback (most recent call last):",
        f'{r}   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/executor/ray_executor.py", '
        "line 489, in collective_rpc",
        f"{r}     return ray.get(ray_worker_outputs, timeout=timeout)",
        f'{r}   File "/opt/venv/lib/python3.12/site-packages/ray/_private/worker.py", line 1015, '
        "in get_objects",
        f"{r}     raise value.as_instanceof_cause()",
        f"{r} {carrier}: ray::RayWorkerWrapper.execute_method() ({where}, actor_id=e2ed7f9c6fbd)",
        *(f"{r} {line}" for line in INNER),
        f"{r} {exc}: {msg}",
    ]


def _own(pid: int, ip: str | None, failure: tuple[str, str]) -> list[str]:
    exc, msg = failure
    r = f"{E} {_worker(pid, ip)} ERROR 01-31 14:21:03 [worker_base.py:344]"
    return [
        f"{r} Error executing method 'init_device'. This might cause deadlock in distributed "
        "execution.",
        f"{r} Traceback (most recent call last):",
        *(f"{r} {line}" for line in INNER),
        f"{r} {exc}: {msg}",
    ]


@SOME
@given(st.integers(1, 4), st.data(), st.sampled_from(FAILURES), st.booleans(),
       st.sampled_from([None, "192.168.100.2"]), st.sampled_from(WRAPS))
def test_the_callers_carried_copy_printed_first_is_the_root(workers: int, data: st.DataObject,
                                                            failure: tuple[str, str],
                                                            class_named: bool,
                                                            ip: str | None, wrap: str) -> None:
    pids = [17931 + 7 * i for i in range(workers)]
    named = data.draw(st.sampled_from(pids))
    order = data.draw(st.permutations(pids))
    lines = [*_start(pids), *_caller(named, ip, failure, class_named)]
    root_line = len(lines)
    for pid in order:
        lines += _own(pid, ip, failure)
    report = explain(lines, wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert (report.root_cause.line, report.root_cause.message) == (root_line, failure[1])


@SOME
@given(st.integers(1, 4), st.sampled_from(FAILURES), st.booleans())
def test_a_workers_own_record_printed_first_stays_the_root(workers: int,
                                                           failure: tuple[str, str],
                                                           class_named: bool) -> None:
    pids = [17931 + 7 * i for i in range(workers)]
    lines = [*_start(pids), *_own(pids[0], None, failure)]
    root_line = len(lines)
    lines += _caller(pids[0], None, failure, class_named)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == root_line


V = "INFO 09-20 00:57:33"
SERVING = [
    "INFO 09-20 00:57:09 api_server.py:520] vLLM API server version 0.6.1.post2",
    "INFO 09-20 00:57:13 llm_engine.py:223] Initializing an LLM engine (v0.6.1.post2) with "
    "config: model='mistralai/Mistral-7B-Instruct-v0.2'",
    f"{V} model_runner.py:1458] Graph capturing finished in 8 secs.",
    "INFO:     Application startup complete.",
    'INFO:     ::1:51664 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "INFO 09-20 00:57:39 metrics.py:351] Avg prompt throughput: 81.2 tokens/s, Avg generation "
    "throughput: 0.2 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs",
]
STOP = [
    "DEBUG 09-20 00:58:04 launcher.py:54] port 8100 is used by process psutil.Process(pid=689012, "
    "name='pt_main_thread', status='running') launched with command:",
    "INFO 09-20 00:58:04 launcher.py:57] Shutting down FastAPI HTTP server.",
    "DEBUG 09-20 00:58:04 engine.py:134] MQLLMEngine is shut down.",
]
PIPE = "/root/vllm/vllm/distributed/kv_transfer/kv_pipe/torch_distributed_pipe.py"
GLOO = "[../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer " \
    "[10.42.20.58]:5553"
TEARDOWN = [
    [f"ERROR 09-20 00:58:05 torch_distributed_pipe.py:226] [rank0]: Exception when trying to send "
     f"tensor([-150886311]), msg: {GLOO}",
     "Traceback (most recent call last):",
     f'  File "{PIPE}", line 221, in send_tensor_wrapper',
     "    self._send_impl(tensor)",
     f"RuntimeError: {GLOO}"],
    ["ERROR 09-20 00:58:05 torch_distributed_pipe.py:280] Encountering exception in KV receiving "
     "thread",
     f"ERROR 09-20 00:58:05 torch_distributed_pipe.py:281] {GLOO}"],
    ["Exception in thread Thread-4 (drop_select_handler):",
     "Traceback (most recent call last):",
     f'  File "{PIPE}", line 274, in recv_tensor',
     "    future = self.transport_thread.submit(self._recv_impl)",
     '  File "/usr/lib/python3.12/concurrent/futures/thread.py", line 170, in submit',
     "    raise RuntimeError('cannot schedule new futures after shutdown')",
     "RuntimeError: cannot schedule new futures after shutdown"],
]
END = ["INFO:     Shutting down", "INFO:     Waiting for application shutdown.",
       "INFO:     Application shutdown complete."]


@SOME
@given(st.lists(st.integers(0, len(TEARDOWN) - 1), min_size=1, max_size=6), st.booleans(),
       st.sampled_from(WRAPS))
def test_errors_after_the_http_servers_stop_are_its_teardown(which: list[int], end: bool,
                                                             wrap: str) -> None:
    lines = [*SERVING, *STOP, *(line for i in which for line in TEARDOWN[i]),
             *(END if end else [])]
    assert explain(lines, wrap).verdict is Verdict.NO_FAILURE


@SOME
@given(st.lists(st.integers(0, len(TEARDOWN) - 1), min_size=1, max_size=6), st.booleans())
def test_the_same_errors_before_the_stop_are_no_healthy_run(which: list[int], stop: bool) -> None:
    errors = [line for i in which for line in TEARDOWN[i]]
    report = explain([*SERVING, *errors, *(STOP if stop else [])])
    # (a peer that closed the pipe is a symptom whose cause may not be in the log: not healthy)
    assert report.verdict is not Verdict.NO_FAILURE


@SOME
@given(st.lists(st.integers(0, len(TEARDOWN) - 1), max_size=4))
def test_a_failure_before_the_stop_stays_the_root(which: list[int]) -> None:
    failure = ["ERROR 09-20 00:58:00 engine.py:158] Error in model execution",
               "Traceback (most recent call last):",
               '  File "/root/vllm/vllm/worker/model_runner.py", line 1600, in execute_model',
               "    hidden = model_executable(**inputs)",
               "RuntimeError: CUDA error: an illegal memory access was encountered"]
    lines = [*SERVING, *failure, *STOP, *(line for i in which for line in TEARDOWN[i])]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == len(SERVING) + len(failure)


@SOME
@given(st.integers(1, 4), st.sampled_from(FAILURES), st.integers(0, 6))
def test_a_carried_copy_whose_traceback_head_was_cut_stays_the_root(workers: int,
                                                                    failure: tuple[str, str],
                                                                    cut: int) -> None:
    # a paste that begins inside the caller's traceback, at most at the carrier's line
    pids = [17931 + 7 * i for i in range(workers)]
    caller = _caller(pids[0], None, failure, True)[cut:]
    lines = caller + [line for pid in pids for line in _own(pid, None, failure)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert (report.root_cause.line, report.root_cause.message) == (len(caller), failure[1])
