"""Two deployments writing into one log (issue 10: runs follow deployments, not the file's order).

A deployment is an API server with its engine cores and workers (logsleuth/deployments.py).
When a second one writes into the same file, the evidence that an error was survived must come
from the failing deployment's own processes, and a restart is a new start after the old
processes ended. Properties, with hypothesis (derandomized in the main suite, tests/conftest.py):

- a healthy server (distinct pids) interleaved into a failing corpus log from any line on keeps
  its verdict and root, at the root's new line;
- a failing deployment interleaved into a healthy one's start-up or serving is a failure, with
  its own root, whichever of the two has the higher pids;
- a failing deployment followed by a healthy start after its processes ended is two runs (a
  restart), the first failed, the second healthy; a crash loop is one run per start;
- a log that ends on a stalled bar stays a stall when a healthy server that began before the
  bar goes on writing after it.
"""

from __future__ import annotations

import random
import zlib
from functools import cache
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from logsleuth.assemble import assemble
from logsleuth.causal import STALLED
from logsleuth.deployments import UNOWNED, deployments_of
from logsleuth.knowledge import default_causality
from logsleuth.model import Process, Verdict
from logsleuth.read import input_from_text
from logsleuth.tokenize import tokenize
from scenario_logs import ILLEGAL_ACCESS, Server
from test_run_properties import (CORPUS, REPORTED, SOME, Answer, answer, explain_lines,
                                 lines_of, subjects)

HEALTHY = (990_001, 990_101)  # the healthy server's API server and engine core pids


def merge(first: list[str], second: list[str], at: int, seed: int) -> tuple[list[str], list[int]]:
    """`second` interleaved into `first` from line `at` of `first` on, each keeping its order;
    the merged lines and where each line of `first` went (1-based)."""
    rng = random.Random(seed)
    out = first[:at]
    where = list(range(1, at + 1))
    i, j = at, 0
    while i < len(first) or j < len(second):
        if j < len(second) and (i == len(first) or rng.random() < 0.5):
            out.append(second[j])
            j += 1
        else:
            out.append(first[i])
            where.append(len(out))
            i += 1
    return out, where


def healthy_server(requests: int) -> list[str]:
    server = Server(api=HEALTHY[0], engine=HEALTHY[1], workers=2)
    return server.startup() + server.requests(requests)


def failing_server(api: int, runtime: bool, excerpt: bool = False) -> list[str]:
    """A V1 deployment that fails at start-up (its engine core) or at run time (a worker's
    illegal memory access, reported by its engine core and API server); an excerpt keeps its
    engine core's and workers' lines only (its API server is not in the log)."""
    server = Server(api=api, engine=api + 37, workers=2, day="08-02")
    if not runtime:
        lines = server.startup()[:4] + server.free_memory_startup_failure()
    else:
        lines = (server.startup() + server.requests(30)
                 + server.worker_runtime_error(1, ILLEGAL_ACCESS)
                 + server.engine_wrapper(ILLEGAL_ACCESS[:1]) + server.engine_dead()
                 + server.failed_requests(3))
    return [line for line in lines if not (excerpt and line.startswith("(APIServer"))]


# pids of the failing deployment: below the healthy one's or above them, never among them
FAILING_API = st.one_of(st.integers(100, HEALTHY[0] - 400),
                        st.integers(HEALTHY[1] + 400, 4_000_000))


@SOME
@given(REPORTED, st.floats(0, 1), st.integers(0, 2**32))
def test_a_healthy_server_interleaved_into_a_failing_log_keeps_its_answer(
        subject: tuple[object, Answer, bool], where_from: float, seed: int) -> None:
    log, reference, _ = subject
    lines = lines_of(log)  # type: ignore[arg-type]
    at = int(where_from * len(lines))
    merged, where = merge(lines, healthy_server(max(60, len(lines))), at, seed)
    assert answer(explain_lines(merged)) == Answer(reference.exception, reference.message,
                                                   where[reference.line - 1])


@SOME
@given(FAILING_API, st.booleans(), st.booleans(), st.integers(0, 200), st.integers(0, 2**32))
def test_a_failing_deployment_interleaved_into_a_healthy_one_is_a_failure(
        api: int, runtime: bool, excerpt: bool, at: int, seed: int) -> None:
    failing = failing_server(api, runtime, excerpt)
    reference = answer(explain_lines(failing))
    assert reference is not None
    host = healthy_server(300)
    merged, where = merge(failing, host, 0, seed) if at == 0 else \
        _inserted(failing, host, at, seed)
    report = explain_lines(merged)
    assert report.verdict is Verdict.FAILURE
    assert answer(report) == Answer(reference.exception, reference.message,
                                    where[reference.line - 1])


def test_every_failing_corpus_log_keeps_its_answer_beside_a_healthy_server() -> None:
    """The first property over every subject once, from a line drawn from its own name (the
    derandomized sample above meets a few subjects only)."""
    kept, broken = 0, []
    for log, reference, reported in subjects():
        lines = lines_of(log)
        rng = random.Random(zlib.crc32(log.parent.name.encode()))
        merged, where = merge(lines, healthy_server(max(60, len(lines))),
                              rng.randrange(len(lines) + 1), rng.randrange(2**32))
        if not reported:
            continue  # a lone traceback among a server's lines is an error it lived through
        if answer(explain_lines(merged)) == Answer(reference.exception, reference.message,
                                                   where[reference.line - 1]):
            kept += 1
        else:
            broken.append(log.parent.name)
    assert not broken and kept


def _inserted(failing: list[str], host: list[str], at: int, seed: int) -> tuple[list[str],
                                                                                list[int]]:
    """`failing` interleaved into `host` from host line `at` on; where each failing line went."""
    merged, host_where = merge(host, failing, at, seed)
    taken = set(host_where)
    return merged, [n for n in range(1, len(merged) + 1) if n not in taken]


@SOME
@given(st.lists(st.tuples(FAILING_API, st.booleans()), min_size=1, max_size=3,
                unique_by=lambda x: x[0] // 1000))
def test_a_restart_after_the_old_processes_ended_is_a_new_run(
        failures: list[tuple[int, bool]]) -> None:
    lines: list[str] = []
    expected: list[tuple[Verdict, int]] = []
    for api, runtime in failures:
        expected.append((Verdict.FAILURE, len(lines) + 1))
        lines += failing_server(api, runtime)
    expected.append((Verdict.NO_FAILURE, len(lines) + 1))
    lines += healthy_server(50)
    report = explain_lines(lines)
    assert [(r.verdict, r.start_line) for r in report.runs] == expected
    assert report.verdict is Verdict.FAILURE  # the last run that failed is the one explained
    assert report.runs[-2].explained


TUNING = Path(__file__).parent / "fixtures" / "tuning"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_stall_is_not_ended_by_the_other_servers_serving(seed: int) -> None:
    """A V0 server (unprefixed) waits for its Ray placement group until SIGTERM; a healthy V1
    server's serving interleaved with it does not end its wait (causal.py `_late_hangs`)."""
    lines = lines_of(TUNING / "launchers" / "b-ray-v0-placement-group-gpus-short-sigterm"
                     / "log.txt")
    reference = explain_lines(lines)
    merged, where = merge(lines, healthy_server(len(lines)), 0, seed)
    report = explain_lines(merged)
    assert report.verdict is reference.verdict is Verdict.FAILURE
    assert report.root_cause is not None and reference.root_cause is not None
    assert report.root_cause.line == where[reference.root_cause.line - 1]


def _deployments(lines: list[str]) -> dict[Process, int | None]:
    events = list(assemble(tokenize(input_from_text("\n".join(lines) + "\n").blocks())))
    found = deployments_of(events, default_causality())
    return {e.process: found.of(e.process) for e in events}


def test_one_deployment_is_not_split() -> None:
    server = Server(api=2800, engine=2900, workers=2)
    lines = server.startup() + server.requests(20) + server.worker_kv_fetch_error()
    assert set(_deployments(lines).values()) == {None}


def test_two_deployments_own_their_engine_cores_and_workers() -> None:
    low, high = Server(api=2800, engine=2900), Server(api=7000, engine=7100)
    merged, _ = merge(low.startup(), high.startup(), 1, 3)
    groups = _deployments(merged)
    assert groups[Process("APIServer", 2800)] == groups[Process("EngineCore_DP0", 2900)] == 2800
    assert groups[Process("Worker_TP1", 3001)] == 2800
    assert groups[Process("EngineCore_DP0", 7100)] == groups[Process("Worker_TP0", 7200)] == 7000


def test_an_engine_core_without_its_server_in_the_log_is_another_deployment() -> None:
    """An excerpt of one engine core's failure (pid above the healthy server's) beside a
    healthy server that starts its own engine core: the server owns the nearest one only."""
    failing = Server(api=1_700_000, engine=1_789_245)
    lines = healthy_server(0)[:2] + failing.free_memory_startup_failure()[:6] \
        + healthy_server(40)[2:]
    groups = _deployments(lines)
    assert groups[Process("EngineCore_DP0", 1_789_245)] == UNOWNED
    assert groups[Process("EngineCore_DP0", HEALTHY[1])] == HEALTHY[0]
    assert explain_lines(lines).verdict is Verdict.FAILURE


# A V0 server's start-up failure printed without prefixes, the traceback that ends its program
# (runpy at the top, causality.yaml `exits`), among another unprefixed server's start-up steps.
V0_EXIT = [
    "ERROR 04-18 14:47:42 engine.py:389] Cannot provide a placement group within 1800 seconds.",
    "Traceback (most recent call last):",
    '  File "<frozen runpy>", line 198, in _run_module_as_main',
    '  File "/venv/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py", line 911, '
    "in <module>",
    "    uvloop.run(run_server(args))",
    '  File "/venv/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py", line 230, '
    "in build_async_engine_client_from_engine_args",
    "    raise RuntimeError(",
    "RuntimeError: Engine process failed to start. See stack trace for the root cause.",
]
OTHER_V0 = [
    "INFO 04-18 14:10:42 model_runner.py:1562] Graph capturing finished in 29 secs, took 0.60 GiB",
    "INFO 04-18 14:10:43 llm_engine.py:431] init engine (profile, create kv cache, warmup model) "
    "took 59.07 seconds",
    "INFO:     Application startup complete.",
    "INFO 04-18 14:11:00 metrics.py:455] Avg prompt throughput: 9.7 tokens/s, Avg generation "
    "throughput: 0.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache "
    "usage: 0.1%, CPU KV cache usage: 0.0%.",
]


def test_a_program_that_exited_is_not_saved_by_the_other_servers_steps() -> None:
    report = explain_lines(["INFO 04-18 14:08:52 api_server.py:840] vLLM API server version 0.7.2"]
                           + V0_EXIT + OTHER_V0)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and "placement group" in report.root_cause.message


def test_the_same_traceback_caught_and_printed_is_still_survived() -> None:
    """Without runpy at the top (a handler printed it and went on), the steps save it."""
    caught = [line for line in V0_EXIT if "frozen runpy" not in line]
    report = explain_lines(["INFO 04-18 14:08:52 api_server.py:840] vLLM API server version 0.7.2"]
                           + caught + OTHER_V0)
    assert report.verdict is Verdict.NO_FAILURE


@cache
def stalled_logs() -> tuple[tuple[Path, int], ...]:
    """(log, its stall's line) for every corpus and tuning log labelled with its cause missing
    and answered by a stall at its end: the log ends on a bar or a wait and no error follows
    (causal.py `_stalled`). Only those labels are read (a tenth of the logs): a log answered by a
    stall against its label is a miss test_tuning reports, not a subject for this property."""
    found = []
    for log in sorted([*CORPUS.glob("*/*/log.txt"), *TUNING.glob("*/*/log.txt")]):
        label = yaml.safe_load(log.with_name("case.yaml").read_text(encoding="utf-8")) or {}
        if label.get("healthy") or label.get("root_cause_in_log", True):
            continue
        lines = lines_of(log)
        if len(lines) > 400:
            continue
        report = explain_lines(lines)
        stall = [s for s in report.symptoms if s.exception == STALLED and "log ends" in s.message]
        if report.verdict is Verdict.ROOT_CAUSE_MISSING and stall and len(report.runs) == 1:
            found.append((log, stall[0].line))
    return tuple(found)


STALLED_LOG = st.sampled_from(range(64)).map(lambda i: stalled_logs()[i % len(stalled_logs())])


@SOME
@given(STALLED_LOG, st.floats(0, 1), st.integers(0, 2**32))
def test_a_stall_beside_a_healthy_server_is_still_a_stall(
        subject: tuple[Path, int], where_from: float, seed: int) -> None:
    """A log that ends on a stalled bar or wait, with a healthy server interleaved from any line:
    when the server had begun before the stall's line (both went on at once, the stalled
    deployment printed nothing more), the verdict stays a stall with its cause missing (causal.py
    `_stall_of`); when it began after (a hang, then another server started), the answer is the
    one of the two logs one after the other, as before."""
    log, stall_line = subject
    lines = lines_of(log)
    host = healthy_server(max(60, len(lines)))
    merged, where = merge(lines, host, int(where_from * len(lines)), seed)
    report = explain_lines(merged)
    if merged.index(host[0]) + 1 < where[stall_line - 1]:
        assert report.verdict is Verdict.ROOT_CAUSE_MISSING
        assert [s.line for s in report.symptoms if s.exception == STALLED] \
            == [where[stall_line - 1]]
    else:
        assert report.verdict is explain_lines(lines + host).verdict


def test_stalled_logs_are_found() -> None:
    """The property above has subjects (a stalled bar, a finished one before start-up ended)."""
    assert len(stalled_logs()) >= 2


def test_a_stall_then_a_server_started_after_it_is_not_a_stall() -> None:
    """A hang, then another server that starts after it and serves: one log after the other, a
    run that may have been given up and restarted; the answer is as before (healthy)."""
    for log, _ in stalled_logs():
        assert explain_lines(lines_of(log) + healthy_server(60)).verdict is Verdict.NO_FAILURE


def test_the_stall_line_counts_blank_lines_at_the_end() -> None:
    """The stall beside a server that goes on is named at its own line, blank lines at the
    log's end counted as lines (stats.tail_text keeps the count's numbering)."""
    log, stall_line = stalled_logs()[0]
    lines = lines_of(log)
    merged, where = merge(lines, healthy_server(60), 0, 7)
    assert merged.index(healthy_server(60)[0]) + 1 < where[stall_line - 1]
    report = explain_lines(merged + ["", ""])
    assert [s.line for s in report.symptoms if s.exception == STALLED] == [where[stall_line - 1]]


# ---- Ray's actors beside a server's own workers (causality.yaml `ray_actors`) ---------------
# One engine runs its workers one way: processes it starts (`Worker_TP0`) or Ray's actors
# (`RayWorkerWrapper`). A Ray deployment's worker failure interleaved with a healthy server whose
# workers are its own is the other deployment's, whatever pids Ray's pool gave its actors and
# wherever the healthy server's start falls: that server's work does not save it.

def ray_worker_failure(pid: int, ip: str) -> list[str]:
    head = f"(RayWorkerWrapper pid={pid}, ip={ip}) ERROR 03-11 15:24:45 [worker_base.py:620] "
    site = "/opt/venv/lib/python3.10/site-packages/vllm"
    return [head + "Error executing method 'load_model'. This might cause deadlock in "
            "distributed execution.",
            head + "Traceback (most recent call last):",
            head + f'  File "{site}/worker/worker_base.py", line 612, in execute_method',
            head + "    return run_method(self, method, args, kwargs)",
            head + f'  File "{site}/_custom_ops.py", line 519, in cutlass_scaled_mm',
            head + "    torch.ops._C.cutlass_scaled_mm(out, a, b, scale_a, scale_b, bias)",
            head + "RuntimeError: Error Internal",
            "INFO 03-11 15:25:20 [loader.py:429] Loading weights took 86.75 seconds"]


@SOME
@given(st.integers(100, 4_000_000), st.sampled_from(["10.189.110.50", "172.17.0.2"]),
       st.floats(0, 1), st.integers(0, 2**32))
def test_a_ray_deployments_failure_beside_a_server_with_its_own_workers_is_not_saved(
        pid: int, ip: str, where_from: float, seed: int) -> None:
    failure = ray_worker_failure(pid, ip)
    root = 7  # its `RuntimeError` line
    merged, where = merge(failure, healthy_server(60), int(where_from * root), seed)
    report = explain_lines(merged)
    assert report.verdict is Verdict.FAILURE
    assert answer(report) == Answer("RuntimeError", "Error Internal", where[root - 1])
    groups = _deployments(merged)
    assert groups[Process("RayWorkerWrapper", pid, ip)] == UNOWNED


def test_a_server_whose_workers_are_rays_actors_is_one_deployment() -> None:
    server = Server(api=2800, engine=2900, workers=2)
    own = server.startup() + server.requests(20)
    lines = [line.replace("(Worker_TP0 pid=3000)", "(RayWorkerWrapper pid=1500, ip=10.0.0.2)")
             .replace("(Worker_TP1 pid=3001)", "(RayWorkerWrapper pid=1501, ip=10.0.0.2)")
             for line in own]
    assert any(line.startswith("(RayWorkerWrapper") for line in lines)
    assert set(_deployments(lines).values()) == {None}
