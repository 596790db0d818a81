"""What a hang looks like in a log with no error line, and what does not (issue 10).

A run that stops progressing prints no error: what shows it is a waiting loop's lines after the
run's last work (causality.yaml milestones `hang`), printed again, or standing for several
intervals (`periodic_waits`: kubectl folds a probe's repeated failures into one line, `(x20 over
10m)`; a start-up that never completed in the log). Shapes: the API server's wait for its
engine core, `to start` and (0.11+) `to connect` (vllm/v1/engine/utils.py
wait_for_engine_startup); a kubelet's readiness or start-up probe that fails (`kubectl describe
pod` Events, indented under their header); the server's own `/health` answering 503 once its
engine is gone; torch's watchdog told that a peer rank's collective timed out; a launcher's time
limit (`timeout --verbose`) in start-up. Counter-evidence, which must stay `no_failure`: a
healthy start-up cut anywhere, an idle server's stats, one probe failure while start-up still
runs, any wait followed by progress, a probe's events or a launcher's time limit after start-up
completed (causality.yaml `startup_waits`).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

SOME = settings(max_examples=25, deadline=None)

START_UP = [
    "(APIServer pid=1) INFO 05-01 10:00:00 [api_server.py:1896] vLLM API server version 0.11.0",
    "(EngineCore_DP0 pid=7) INFO 05-01 10:00:10 [core.py:74] Initializing a V1 LLM engine "
    "(v0.11.0) with config: model='Qwen/Qwen3-8B', tensor_parallel_size=2",
    "(EngineCore_DP0 pid=7) INFO 05-01 10:00:20 [gpu_model_runner.py:2602] Starting to load "
    "model Qwen/Qwen3-8B...",
    "(EngineCore_DP0 pid=7) INFO 05-01 10:01:00 [default_loader.py:267] Loading weights took "
    "38.10 seconds",
    "(EngineCore_DP0 pid=7) INFO 05-01 10:01:01 [gpu_model_runner.py:2653] Model loading took "
    "15.3 GiB and 39.2 seconds",
]
READY = [
    "(EngineCore_DP0 pid=7) INFO 05-01 10:02:00 [gpu_worker.py:298] Available KV cache memory: "
    "50.1 GiB",
    "(EngineCore_DP0 pid=7) INFO 05-01 10:02:20 [core.py:210] init engine (profile, create kv "
    "cache, warmup model) took 80.0 seconds",
    "(APIServer pid=1) INFO:     Application startup complete.",
]
WORK = [
    '(APIServer pid=1) INFO:     10.0.0.5:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "(APIServer pid=1) INFO 05-01 10:03:00 [loggers.py:123] Engine 000: Avg prompt throughput: "
    "120.5 tokens/s, Avg generation throughput: 40.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs",
]
IDLE = ("(APIServer pid=1) INFO 05-01 10:{m:02d}:00 [loggers.py:123] Engine 000: Avg prompt "
        "throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, "
        "Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%")
POLL = '(APIServer pid=1) INFO:     10.0.0.9:{port} - "GET /health HTTP/1.1" 200 OK'

CORE = ("(APIServer pid=1) DEBUG 05-01 10:{m:02d}:00 [utils.py:777] Waiting for {k} local, 0 "
        "remote core engine proc(s) to {what}.")
PROBE = ("  Warning  Unhealthy  {m}m{count}  kubelet  {kind} probe failed: Get "
         '"http://10.1.2.3:8000/health": {why}')
WHY = ["dial tcp 10.1.2.3:8000: connect: connection refused",
       "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
       "HTTP probe failed with statuscode: 503"]
DEAD_HEALTH = ('(APIServer pid=1) INFO:     10.0.0.9:{port} - "GET /health HTTP/1.1" 503 '
               "Service Unavailable")


def _verdict(lines: list[str]) -> Verdict:
    return explain_text("\n".join(lines) + "\n").verdict


def _probe(kind: str, times: int, why: int, m: int = 3) -> str:
    count = f" (x{times} over {times * 10}s)" if times > 1 else ""
    return PROBE.format(m=m, count=count, kind=kind, why=WHY[why % len(WHY)])


# -- hangs: a failure with no error line ---------------------------------------------------------

@SOME
@given(st.sampled_from(["start", "connect"]), st.integers(1, 4), st.integers(1, 6),
       st.integers(1, len(START_UP)))
def test_the_api_server_waiting_for_its_engine_core_is_a_stall(
        what: str, k: int, times: int, before: int) -> None:
    waits = [CORE.format(m=10 + i, k=k, what=what) for i in range(times)]
    assert _verdict(START_UP[:before] + waits) is Verdict.ROOT_CAUSE_MISSING, waits[0]


@SOME
@given(st.sampled_from(["Readiness", "Startup"]), st.integers(2, 60), st.integers(0, 2),
       st.integers(1, len(START_UP)))
def test_a_probe_that_kept_failing_in_start_up_is_a_stall(
        kind: str, times: int, why: int, before: int) -> None:
    probe = _probe(kind, times, why)
    assert _verdict(START_UP[:before] + [probe]) is Verdict.ROOT_CAUSE_MISSING, probe




@SOME
@given(st.integers(1, 5), st.integers(0, 2))
def test_health_answering_503_after_the_last_work_is_a_stall(times: int, idle: int) -> None:
    lines = START_UP + READY + WORK + [IDLE.format(m=4 + i) for i in range(idle)]
    dead = [DEAD_HEALTH.format(port=40000 + i) for i in range(times)]
    assert _verdict(lines + dead) is Verdict.ROOT_CAUSE_MISSING


DUMP = ("[rank{r}]:[W501 10:{m:02d}:13.000000000 ProcessGroupNCCL.cpp:1700] [PG ID 0 PG GUID "
        "0(default_pg) Rank {r}] Received a dump signal due to a collective timeout from  rank "
        "{o} and we will try our best to dump the debug info. Last enqueued NCCL work: 9, last "
        "completed NCCL work: 8.")
TIMEOUT = ["timeout: sending signal {sig} to command ‘vllm’",
           "timeout: sending signal {sig} to command 'python3'"]


@SOME
@given(st.integers(0, 7), st.integers(1, 3), st.booleans(), st.booleans())
def test_a_peer_rank_s_collective_timeout_after_the_last_work_is_a_stall(
        rank: int, times: int, started: bool, served: bool) -> None:
    lines = START_UP + (READY + (WORK if served else []) if started else [])
    dumps = [DUMP.format(r=(rank + i) % 8, o=(rank + 1) % 8, m=20 + i) for i in range(times)]
    assert _verdict(lines + dumps) is Verdict.ROOT_CAUSE_MISSING


@SOME
@given(st.sampled_from(TIMEOUT), st.sampled_from(["TERM", "KILL", "INT"]),
       st.integers(1, len(START_UP)))
def test_a_launcher_s_time_limit_in_start_up_is_a_stall(line: str, sig: str,
                                                        before: int) -> None:
    assert _verdict(START_UP[:before] + [line.format(sig=sig)]) is Verdict.ROOT_CAUSE_MISSING


# -- counter-evidence: no failure ----------------------------------------------------------------

@SOME
@given(st.integers(1, len(START_UP)))
def test_a_healthy_start_up_cut_anywhere_is_no_failure(before: int) -> None:
    # (not on the load's first line: a start-up that ends there stopped inside the load,
    # causality.yaml `waits`, vllm#6636)
    if "Starting to load model" in START_UP[before - 1]:
        before += 1
    assert _verdict(START_UP[:before]) is Verdict.NO_FAILURE


@SOME
@given(st.integers(0, 20), st.integers(0, 5), st.booleans())
def test_an_idle_server_between_requests_is_no_failure(idle: int, polls: int,
                                                       served: bool) -> None:
    lines = START_UP + READY + (WORK if served else [])
    lines += [IDLE.format(m=4 + i % 50) for i in range(idle)]
    lines += [POLL.format(port=41000 + i) for i in range(polls)]
    assert _verdict(lines) is Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(["Readiness", "Startup"]), st.integers(0, 2),
       st.integers(1, len(START_UP)))
def test_one_probe_failure_while_start_up_runs_is_no_failure(kind: str, why: int,
                                                             before: int) -> None:
    probe = _probe(kind, 1, why)
    assert _verdict(START_UP[:before] + [probe]) is Verdict.NO_FAILURE, probe


@SOME
@given(st.sampled_from(["start", "connect"]), st.sampled_from(["Readiness", "Startup"]),
       st.integers(1, 30), st.integers(1, 4), st.booleans())
def test_progress_after_the_waits_saves_them(what: str, kind: str, times: int, k: int,
                                             serve: bool) -> None:
    waits = [CORE.format(m=10 + i, k=k, what=what) for i in range(k)] + [_probe(kind, times, 0)]
    after = READY + (WORK if serve else [])
    assert _verdict(START_UP + waits + after) is Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(["Readiness", "Startup"]), st.integers(1, 60), st.integers(0, 2),
       st.integers(0, 3), st.booleans())
def test_probe_events_after_a_completed_start_up_are_its_past(
        kind: str, times: int, why: int, idle: int, served: bool) -> None:
    # kubectl prints the pod's events after the log, folded over time: the failures every load
    # makes before the server answers (causality.yaml `startup_waits`)
    lines = START_UP + READY + (WORK if served else []) + [IDLE.format(m=4 + i)
                                                          for i in range(idle)]
    probe = _probe(kind, times, why, m=1)
    assert _verdict(lines + [probe]) is Verdict.NO_FAILURE, probe


@SOME
@given(st.sampled_from(TIMEOUT), st.sampled_from(["TERM", "KILL", "INT"]), st.integers(0, 5),
       st.booleans())
def test_a_launcher_s_time_limit_after_start_up_is_the_planned_end(
        line: str, sig: str, idle: int, served: bool) -> None:
    lines = START_UP + READY + (WORK if served else []) + [IDLE.format(m=4 + i)
                                                          for i in range(idle)]
    assert _verdict(lines + [line.format(sig=sig)]) is Verdict.NO_FAILURE


@SOME
@given(st.integers(0, 7), st.integers(1, 3))
def test_work_after_a_peer_s_collective_timeout_saves_it(rank: int, times: int) -> None:
    dumps = [DUMP.format(r=rank, o=(rank + 1) % 8, m=20 + i) for i in range(times)]
    assert _verdict(START_UP + READY + dumps + WORK) is Verdict.NO_FAILURE


@SOME
@given(st.integers(1, 5))
def test_work_after_health_answered_503_saves_it(times: int) -> None:
    dead = [DEAD_HEALTH.format(port=40000 + i) for i in range(times)]
    assert _verdict(START_UP + READY + dead + WORK) is Verdict.NO_FAILURE


def test_the_kubectl_count_is_the_probe_periods() -> None:
    from logsleuth.knowledge import default_causality
    know = default_causality()
    assert know.wait_times(_probe("Readiness", 20, 0)) == 20
    assert know.wait_times(_probe("Startup", 1, 1)) == 1
    assert know.wait_times("No available shared memory broadcast block found in 60 seconds.") == 1
