"""A process that exits over an uncaught exception may print one more record that names no
exception, only its level: torch_npu's `[ERROR] <time> (PID:432, ...) ERR99999 UNKNOWN applicaiton
exception`, a library's `ERROR ... exiting`. Printed right after that process's own traceback, with
only teardown between, it is that process's exit report: a symptom of the same failure, never a new
cause (causality.yaml `exit_reports`, causal.py `_exit_reports`). The same record with no exception
of its own process before it stays an error, the root where nothing else is.

Generated over the record's shapes, the process prefix (V1's, the mid-2025 worker's, Ray's, a bare
pid, a coloured one), an outer wrapper on every line (docker's timestamps, compose), the traceback's
role (a report of a failure elsewhere, or the process's own cause) and the teardown printed between.
The controls: no exception before it, another process's or an unprefixed record, a record past the
window, a step of its own between, a traceback its process caught and logged.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.causal import CausalGraph
from logsleuth.knowledge import default_causality
from logsleuth.model import Link, LinkReason, Verdict
from logsleuth.pipeline import explain_text, read_events
from logsleuth.read import input_from_text

SOME = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

START = [
    "INFO 10-20 11:34:01 [api_server.py:1034] vLLM API server version 0.11.0",
    "INFO 10-20 11:34:02 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B'}",
    "INFO 10-20 11:34:15 [parallel_state.py:1208] rank 0 in world size 4 is assigned as DP rank 0",
]
# the record, `{pid}` filled in (torch_npu prints its own process's pid in it)
RECORDS = (
    "[ERROR] 2025-10-20-11:48:57 (PID:{pid}, Device:-1, RankID:-1) ERR99999 UNKNOWN applicaiton "
    "exception",
    "[ERROR] 2026-01-02-03:04:05 (PID:{pid}, Device:0, RankID:3) ERR99999 UNKNOWN application "
    "exception",
    "ERROR 10-20 11:48:58 [launcher.py:88] Server process failed, exiting",
    "2025-10-20 11:48:58 - ERROR - model server exiting",
    "[ERROR] serving loop stopped; exiting",
)
RAY_UNHANDLED = ("2024-01-29 09:41:54,676 ERROR worker.py:405 -- Unhandled error (suppress with "
                 "'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::RayWorkerWrapper.execute_method() "
                 "(pid=3160378, ip=10.20.4.57, actor_id=ca7bf2aa56e3f1a0c1a7678201000000)")
PREFIXES = ("(APIServer pid={pid}) ", "(EngineCore_DP0 pid={pid}) ",
            "(VllmWorker rank=0 pid={pid}) ", "(RayWorkerWrapper pid={pid}, ip=10.0.0.2) ",
            "(pid={pid}) ", "\x1b[1;36m(APIServer pid={pid})\x1b[0;0m ")
OUTER = ("", "vllm-1  | ", "2025-10-20T11:48:57.123456789Z ")
# what a process's teardown prints between: other processes' output, Python's warnings at exit
TEARDOWN = (
    "/usr/local/lib/python3.11/multiprocessing/resource_tracker.py:254: UserWarning: "
    "resource_tracker: There appear to be 120 leaked semaphore objects to clean up at shutdown",
    "  warnings.warn('resource_tracker: There appear to be %d '",
    "INFO 10-20 11:48:01 [multiproc_executor.py:558] Parent process exited, terminating worker",
    "(Worker_TP1 pid=999991) INFO 10-20 11:48:02 [multiproc_executor.py:700] Shutting down",
    "",
)
FRAMES = [
    "Traceback (most recent call last):",
    '  File "/usr/local/bin/vllm", line 8, in <module>',
    "    sys.exit(main())",
    '  File "/usr/local/lib/python3.11/site-packages/vllm/entrypoints/cli/main.py", line 54, in '
    "main",
    "    args.dispatch_function(args)",
]
# a report of a failure elsewhere, printed as its process exits (a symptom)
POINTER = [*FRAMES,
           '  File "/usr/local/lib/python3.11/site-packages/vllm/v1/engine/utils.py", line 785, in '
           "wait_for_engine_startup",
           '    raise RuntimeError("Engine core initialization failed. "',
           "RuntimeError: Engine core initialization failed. See root cause above. Failed core "
           "proc(s): {'EngineCore_DP0': 1}"]
# the process's own failure (a cause)
OWN = [*FRAMES,
       '  File "/usr/local/lib/python3.11/site-packages/vllm/config/model.py", line 512, in '
       "__post_init__",
       "    raise ValueError(msg)",
       "ValueError: max_model_len 65536 is larger than the model's max_position_embeddings 32768"]
STEP = "INFO 10-20 11:48:40 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-8B..."
LOGGED = "ERROR 10-20 11:48:05 [core.py:708] EngineCore failed to start."
WINDOW = default_causality().exit_report_within


def _log(outer: str, lines: list[str]) -> str:
    return "".join(f"{outer}{line}\n" for line in [*START, *lines])


def _links(text: str) -> tuple[Link, ...]:
    read = read_events(input_from_text(text))
    return CausalGraph.build(read.events).infer().links


def _at(lines: list[str], record: str) -> int:
    """The log line number of `record` (after START)."""
    return len(START) + lines.index(record) + 1


Drawn = tuple[str, str, list[str], str]


@st.composite
def _exit(draw: st.DrawFn, traceback: list[str]) -> Drawn:
    """(outer wrapper, process prefix, body lines, the record's line) of one process exiting
    over `traceback`."""
    pid = draw(st.integers(2, 99999))
    prefix = draw(st.sampled_from(PREFIXES)).format(pid=pid)
    record = prefix + draw(st.sampled_from(RECORDS)).format(pid=pid)
    between = draw(st.lists(st.sampled_from(TEARDOWN), max_size=min(6, WINDOW - 1)))
    return draw(st.sampled_from(OUTER)), prefix, \
        [*(prefix + line for line in traceback), *between, record], record


@SOME
@given(_exit(POINTER))
def test_the_exit_report_after_a_report_of_a_failure_elsewhere_is_no_root(
        drawn: Drawn) -> None:
    outer, _, lines, record = drawn
    report = explain_text(_log(outer, lines))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause
    assert _at(lines, record) in {s.line for s in report.symptoms}


@SOME
@given(_exit(OWN))
def test_the_exit_report_after_its_process_own_error_is_that_error_symptom(
        drawn: Drawn) -> None:
    outer, _, lines, record = drawn
    text = _log(outer, lines)
    report = explain_text(text)
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    assert _at(lines, record) in {s.line for s in report.symptoms}
    assert LinkReason.EXIT_REPORT in {link.reason for link in _links(text)}


@SOME
@given(_exit(POINTER))
def test_exit_reports_follow_a_symptom_by_its_text(drawn: Drawn) -> None:
    """Ray's `Unhandled error` (a symptom by its text) among the exit lines stays that symptom,
    and the process's record after it is still its exit report."""
    outer, prefix, lines, record = drawn
    lines = [*lines[:-1], prefix + RAY_UNHANDLED, record]
    report = explain_text(_log(outer, lines))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause


# The controls: the record stays an error, the root, wherever its process's exit is not shown.

@SOME
@given(_exit(POINTER))
def test_the_same_record_with_no_exception_before_it_stays_the_root(
        drawn: Drawn) -> None:
    outer, _, lines, record = drawn
    report = explain_text(_log(outer, [record]))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(START) + 1


@SOME
@given(_exit(POINTER), st.sampled_from(["other pid", "other name", "unprefixed"]))
def test_another_process_record_is_not_its_exit_report(
        drawn: Drawn, other: str) -> None:
    outer, prefix, lines, record = drawn
    words = record[len(prefix):]
    if other == "other pid":
        stranger = prefix.replace("pid=", "pid=1") + words
    elif other == "other name":
        stranger = "(Worker_TP3 pid=1) " + words
    else:
        stranger = words
    lines = [*lines[:-1], stranger]
    report = explain_text(_log(outer, lines))
    assert report.verdict is Verdict.FAILURE, other
    assert report.root_cause is not None and report.root_cause.line == _at(lines, stranger)


@SOME
@given(_exit(POINTER), st.sampled_from(["far", "step", "logged"]))
def test_a_record_after_its_process_went_on_or_caught_it_stays_the_root(
        drawn: Drawn, how: str) -> None:
    outer, prefix, lines, record = drawn
    if how == "far":  # printed past the window: not the exit's teardown
        lines = [*lines[:-1], *["(Worker_TP1 pid=999991) INFO 10-20 11:48:02 [core.py:1] idle"]
                 * (WINDOW + 1), record]
    elif how == "step":  # its own next step between: it went on
        lines = [*lines[:-1], prefix + STEP, record]
    else:  # a traceback its process caught and logged: it may go on
        lines = [prefix + LOGGED, *(prefix + LOGGED[:-len("EngineCore failed to start.")] + line
                                    for line in POINTER), record]
    report = explain_text(_log(outer, lines))
    assert report.verdict is Verdict.FAILURE, how
    assert report.root_cause is not None and report.root_cause.line == _at(lines, record), how
