"""A waiting loop's periodic notice alone is a slow step, not a hang (issue 10).

vLLM's shared-memory message queue logs `No available shared memory broadcast block found in 60
seconds` (INFO) once each interval a process waits (causality.yaml `periodic_waits`). One such
notice in a start-up is one interval of a long load or compilation (the notice itself says so):
the run went on, and a paste of that one line is no failure. Printed again after the last work
(two intervals and more), or after start-up completed, it is a wait that did not end: a stall,
`root_cause_missing`, as any other hang line (causal.py `_standing_hangs`). A wait line that is
no periodic notice (Ray's placement group, which counts the seconds waited; the API server's
wait for its engine core, vllm#18260's hang) is a stall at the end of a log even once.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

SOME = settings(max_examples=30, deadline=None)

SHM = ("No available shared memory broadcast block found in {n} second{s}. This typically happens "
       "when some processes are hanging or doing some time-consuming work (e.g. compilation{more}).")
CORE = "Waiting for {k} local, 0 remote core engine proc(s) to start."
RECORDS = ["{}", "INFO 10-20 11:12:13 [shm_broadcast.py:466] {}",
           "(EngineCore_DP0 pid=7) INFO 10-20 11:12:13 [shm_broadcast.py:466] {}",
           "(Worker_TP1 pid=9) WARNING 10-20 11:12:13 [shm_broadcast.py:466] {}",
           "2025-10-20T11:12:13.000Z (EngineCore_DP0 pid=7) INFO 10-20 11:12:13 "
           "[shm_broadcast.py:466] {}"]
START_UP = [
    "(APIServer pid=1) INFO 10-20 11:10:00 [api_server.py:1896] vLLM API server version 0.11.0",
    "(EngineCore_DP0 pid=7) INFO 10-20 11:10:10 [core.py:74] Initializing a V1 LLM engine "
    "(v0.11.0) with config: model='deepseek-ai/DeepSeek-V3.2-Exp', tensor_parallel_size=8",
    "(EngineCore_DP0 pid=7) INFO 10-20 11:10:20 [gpu_model_runner.py:2602] Starting to load "
    "model deepseek-ai/DeepSeek-V3.2-Exp...",
    "(EngineCore_DP0 pid=7) INFO 10-20 11:11:00 [backends.py:548] Dynamo bytecode transform "
    "time: 20.1 s",
]
READY = [
    "(EngineCore_DP0 pid=7) INFO 10-20 11:11:30 [gpu_worker.py:298] Available KV cache memory: "
    "50.1 GiB",
    "(EngineCore_DP0 pid=7) INFO 10-20 11:11:50 [core.py:210] init engine (profile, create kv "
    "cache, warmup model) took 90.0 seconds",
    "(APIServer pid=1) INFO:     Application startup complete.",
    '(APIServer pid=1) INFO:     10.0.0.5:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
]
PLACEMENT = ("INFO 10-20 11:12:13 ray_utils.py:183] Waiting for creating a placement group of "
             "specs for 1270 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status`.")


def _notice(kind: int, n: int, plural: bool, more: bool) -> str:
    if kind:
        return CORE.format(k=n % 4 + 1)
    return SHM.format(n=n, s="s" if plural else "(s)", more=", weight/kv cache quantization"
                      if more else "")


def _verdict(lines: list[str]) -> Verdict:
    return explain_text("\n".join(lines) + "\n").verdict


@SOME
@given(st.just(0), st.sampled_from([10, 60, 120]), st.booleans(), st.booleans(),
       st.sampled_from(RECORDS), st.integers(0, len(START_UP)))
def test_one_notice_in_a_start_up_is_no_failure(kind: int, n: int, plural: bool, more: bool,
                                                record: str, before: int) -> None:
    notice = record.format(_notice(kind, n, plural, more))
    assert _verdict(START_UP[:before] + [notice]) is Verdict.NO_FAILURE, notice


@SOME
@given(st.integers(0, 1), st.sampled_from([10, 60]), st.sampled_from(RECORDS[1:]),
       st.integers(2, 5), st.integers(0, len(START_UP)))
def test_the_notice_printed_again_after_the_last_work_is_a_stall(
        kind: int, n: int, record: str, times: int, before: int) -> None:
    notice = record.format(_notice(kind, n, True, False))
    assert _verdict(START_UP[:before] + [notice] * times) is Verdict.ROOT_CAUSE_MISSING, notice


@SOME
@given(st.sampled_from([60, 120]), st.sampled_from(RECORDS[1:]))
def test_one_notice_after_start_up_completed_is_a_stall(n: int, record: str) -> None:
    notice = record.format(_notice(0, n, True, True))
    assert _verdict(START_UP + READY + [notice]) is Verdict.ROOT_CAUSE_MISSING, notice


@SOME
@given(st.integers(0, 1), st.sampled_from(RECORDS[1:]), st.integers(1, 3))
def test_progress_after_the_notices_saves_them(kind: int, record: str, times: int) -> None:
    notice = record.format(_notice(kind, 60, True, False))
    assert _verdict(START_UP + [notice] * times + READY) is Verdict.NO_FAILURE, notice


def test_a_wait_that_is_no_periodic_notice_is_a_stall_once() -> None:
    assert _verdict(START_UP + [PLACEMENT]) is Verdict.ROOT_CAUSE_MISSING
    core = "(APIServer pid=1) DEBUG 10-20 11:12:13 [utils.py:777] " + CORE.format(k=1)
    assert _verdict(START_UP + [core]) is Verdict.ROOT_CAUSE_MISSING
