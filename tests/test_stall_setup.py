"""A log that stops inside distributed set-up (issue 10): its last line is a set-up step that
waits on other processes (NCCL's output while it builds a communicator, a rendezvous), before
start-up completed. It is a stall, reported as an unfinished progress bar is: the cause is not in
the log, the symptom is the last line, the phase is init (causality.yaml `waits`).

NCCL lines are in the shapes NCCL 2.18-2.23 prints with NCCL_DEBUG=INFO (`host:pid:tid [dev] NCCL
INFO ...`, 2.23's `[%F %T] ` stamp), as vLLM issues quote them.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

V0_START = ["INFO 08-31 09:50:40 llm_engine.py:184] Initializing an LLM engine (v0.5.5) with "
            "config: model='m', tokenizer='m', dtype=torch.bfloat16, tensor_parallel_size=2, "
            "seed=0)",
            "DEBUG 08-31 09:50:46 parallel_state.py:845] world_size=2 rank=0 local_rank=0 "
            "distributed_init_method=tcp://127.0.0.1:39423 backend=nccl",
            "INFO 08-31 09:50:46 pynccl.py:63] vLLM is using nccl==2.20.5"]
V1_START = ["(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version "
            "0.15.1",
            "(EngineCore_DP0 pid=3) INFO 02-05 10:11:20 [core.py:74] Initializing a V1 LLM "
            "engine (v0.15.1) with config: model='m'",
            "(Worker_TP0 pid=5) INFO 02-05 10:11:25 [pynccl.py:103] vLLM is using nccl==2.27.3"]
STARTS = [V0_START, V1_START, []]

NCCL_BODIES = [
    "NCCL INFO Bootstrap : Using eno1:10.0.0.27<0>",
    "NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
    "NCCL INFO cudaDriverVersion 12040",
    "NCCL INFO comm 0x5581b0e0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2000 commId 0x3c1b - "
    "Init START",
    "NCCL INFO Channel 00/02 : 0 1",
    "NCCL INFO Channel 01 : 1[1] -> 0[0] via SHM/direct/direct",
    "NCCL INFO Connected all rings",
    "NCCL INFO comm 0x5581b0e0 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0x3c1b - Init COMPLETE",
]
NCCL_LEADS = ["node1:1927386:1927386 [0] ", "gpu-3:24153:24290 [2] ",
              "[2025-06-05 10:45:19] paula09:2528103:2528103 [0] "]
OTHER_WAITS = ["NCCL version 2.20.5+cuda12.4",
               "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2",
               "(EngineCore_DP0 pid=3) INFO 02-05 10:11:21 [multiproc_executor.py:134] "
               "Initializing distributed environment"]
PREFIXES = ["", "(VllmWorkerProcess pid=1927518) ", "(Worker_TP1 pid=6) ",
            "2025-02-05T10:12:00.123456789Z ", "vllm-1  | "]
waits = st.one_of(st.builds(lambda lead, body: lead + body, st.sampled_from(NCCL_LEADS),
                            st.sampled_from(NCCL_BODIES)),
                  st.sampled_from(OTHER_WAITS))


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(STARTS[:2]), st.lists(waits, min_size=0, max_size=4), waits,
       st.sampled_from(PREFIXES))
def test_a_log_ending_in_distributed_set_up_is_a_stall_in_init(start: list[str],
                                                                 before: list[str], last: str,
                                                                 prefix: str) -> None:
    lines = [*start, *(prefix + w for w in before), prefix + last]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert report.root_cause is None
    assert [s.line for s in report.symptoms] == [len(lines)]
    assert "set-up step that waits on other processes" in report.symptoms[0].message
    assert report.phase is not None and report.phase.phase is Phase.INIT
    assert report.signature is not None
    assert report.signature.id == "startup-hang-distributed-setup"


# An excerpt that does not show its run's start: NCCL's output is where the paste was cut, not
# where a run stopped (a working run prints it at every start, and again for later communicators)
@settings(max_examples=60, deadline=None)
@given(st.lists(waits, min_size=0, max_size=6), waits, st.sampled_from(PREFIXES))
def test_an_excerpt_of_set_up_without_its_runs_start_is_no_stall(before: list[str], last: str,
                                                                 prefix: str) -> None:
    report = _explain([prefix + w for w in [*before, last]])
    assert report.verdict is Verdict.NO_FAILURE, report.symptoms


LOADED = [  # the run got past distributed set-up: the model loaded
    "INFO 08-31 09:51:10 model_runner.py:890] Loading model weights took 14.9888 GB",
    "(Worker_TP0 pid=5) INFO 02-05 10:11:30 [gpu_model_runner.py:2338] Model loading took "
    "15.26 GiB and 5.1 seconds",
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(STARTS[:2]), st.lists(waits, max_size=3), st.sampled_from(LOADED),
       st.lists(waits, min_size=1, max_size=4), st.sampled_from(PREFIXES))
def test_set_up_output_after_the_model_loaded_is_no_start_up_stall(
        start: list[str], during: list[str], loaded: str, late: list[str], prefix: str) -> None:
    # another communicator's output, or a rank's late output: start-up went past set-up
    lines = [*start, *(prefix + w for w in during), loaded, *(prefix + w for w in late)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


# a start-up that got past set-up prints vLLM's next steps (not the load's first line: a log
# ending there stopped inside the load, tests/test_stall_hang.py)
AFTER_SET_UP = [
    "INFO 08-31 09:50:50 custom_all_reduce_utils.py:234] reading GPU P2P access cache from "
    "/root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json",
    "INFO 08-31 09:50:50 shm_broadcast.py:235] vLLM message queue communication handle: "
    "Handle(connect_ip='127.0.0.1', local_reader_ranks=[1])",
    "(Worker_TP0 pid=5) INFO 02-05 10:11:30 [gpu_model_runner.py:2338] Model loading took "
    "15.26 GiB and 5.1 seconds",
]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(STARTS), st.lists(waits, min_size=1, max_size=4),
       st.sampled_from(AFTER_SET_UP), st.sampled_from(PREFIXES))
def test_set_up_followed_by_the_next_step_is_no_stall(start: list[str], during: list[str],
                                                      after: str, prefix: str) -> None:
    assert _explain([*start, *(prefix + w for w in during), after]).verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("ready", [
    "INFO:     Application startup complete.",
    "INFO 11-01 23:16:33 distributed_gpu_executor.py:56] # GPU blocks: 185231, # CPU blocks: "
    "18724",
])
@pytest.mark.parametrize("last", [NCCL_LEADS[0] + body for body in NCCL_BODIES])
def test_nccl_set_up_after_start_up_completed_is_no_stall(ready: str, last: str) -> None:
    # a communicator built later (graph capture, a new group) is no start-up hang
    assert _explain([*V0_START, ready, last]).verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("start", STARTS[:2])
def test_an_excerpt_ending_on_a_finished_step_is_no_stall(start: list[str]) -> None:
    # v054-ray-terminal-wrapped-config-working-run: a working run's excerpt ending on vLLM's
    # `vLLM is using nccl==2.20.5` (a step done, not one waiting)
    assert _explain(start).verdict is Verdict.NO_FAILURE


# ---- Ray cannot place the engine's workers ---------------------------------------------------------
# vLLM waits for the placement group, printing the wait every 10-70 s, and raises only after 30
# minutes (ray_utils._wait_until_pg_ready): a log that ends on the waits hangs there for want of
# resources (causality.yaml milestones `hang`).

PG_START = ["INFO 02-26 11:14:53 llm_engine.py:234] Initializing a V0 LLM engine (v0.7.3) with "
            "config: model='google/gemma-2-27b-it', tensor_parallel_size=4",
            "2025-02-26 11:14:54,614\tINFO worker.py:1636 -- Connecting to existing Ray cluster at "
            "address: 10.225.68.29:6379..."]


def _pg_wait(seconds: int) -> str:
    return (f"INFO 02-26 11:15:04 ray_utils.py:319] Waiting for creating a placement group of "
            f"specs for {seconds} seconds. specs=[{{'GPU': 1.0, 'node:10.225.68.29': 0.001}}, "
            "{'GPU': 1.0}]. Check `ray status` and `ray list nodes` to see if you have enough "
            "resources.")


@pytest.mark.parametrize("waits", [1, 3, 9])
@pytest.mark.parametrize("prefix", ["", "(EngineCore_DP0 pid=3) "])
def test_a_log_ending_on_placement_group_waits_is_a_hang(waits: int, prefix: str) -> None:
    lines = [*PG_START, *(prefix + _pg_wait(10 + 20 * n) for n in range(waits))]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert [s.line for s in report.symptoms] == [len(PG_START) + 1]
    assert f"printed {waits} time(s)" in report.symptoms[0].message
    assert report.signature is not None and report.signature.id == "ray-cluster-resources"


def test_placement_group_waits_then_the_workers_start_are_no_hang() -> None:
    lines = [*PG_START, _pg_wait(10), _pg_wait(30),
             "INFO 02-26 11:17:30 model_runner.py:1110] Loading model weights took 12.9 GB"]
    assert _explain(lines).verdict is Verdict.NO_FAILURE
