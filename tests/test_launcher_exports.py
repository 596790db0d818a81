"""Launchers and log consoles that wrap, report on or reorder a vLLM log (issue 10).

- Slurm reports a task's end (`srun: error: <node>: task N: Exited with exit code 1`, `... Killed`,
  a cancelled job or step): the end of a process whose own output says why, a symptom. A job
  cancelled for its time limit, a launch refused and a cgroup's OOM kill are causes.
- RunPod's console tags each line with the container's id and the stream (`<id>[info]`,
  `[error]`), glued or spaced, after the export's time when it has one.
- A log console's download may list the newest line first: a CSV export (CloudWatch, Datadog,
  Loki) by its time column, a text download by the record times the grammar reads. Either is read
  oldest first, and gives the answer the log in time order gives, at the lines of the file as given.

Every shape is generated (node names, task ranges, exit codes, container ids, streams, how many
rows share a time), never one fixture.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import anchor_patterns, clean, parse_line
from scenario_logs import ILLEGAL_ACCESS, Server

SOME = settings(max_examples=12, deadline=None)

V1_START = ["(APIServer pid=2800) INFO 08-01 20:59:09 [utils.py:254] non-default args: "
            "{'model_tag': 'Qwen/Qwen3-8B'}",
            "(EngineCore_DP0 pid=2900) INFO 08-01 20:59:16 [core.py:77] Initializing a V1 LLM "
            "engine (v0.11.0) with config: model='Qwen/Qwen3-8B'"]
WORKER_ERROR = [
    "(EngineCore_DP0 pid=2900) ERROR 08-01 20:59:40 [core.py:708] EngineCore failed to start.",
    "(EngineCore_DP0 pid=2900) ERROR 08-01 20:59:40 [core.py:708] Traceback (most recent call "
    "last):",
    '(EngineCore_DP0 pid=2900) ERROR 08-01 20:59:40 [core.py:708]   File "/usr/local/lib/'
    'python3.12/dist-packages/vllm/v1/engine/core.py", line 699, in run_engine_core',
    "(EngineCore_DP0 pid=2900) ERROR 08-01 20:59:40 [core.py:708] ValueError: The model's max seq "
    "len (32768) is larger than the maximum number of tokens that can be stored in KV cache "
    "(10720)."]


def explain(lines: list[str]):  # type: ignore[no-untyped-def]
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


# ---- Slurm ------------------------------------------------------------------------------------

hosts = st.from_regex(r"[a-z]{2,8}(?:-[a-z]{1,4})?\d{1,4}", fullmatch=True)
nodes = st.one_of(hosts, st.from_regex(r"[a-z]{2,6}\[\d{2}-\d{2}\]", fullmatch=True))  # a range
tasks = st.one_of(st.integers(0, 511).map(lambda n: f"task {n}"),
                  st.tuples(st.integers(0, 63), st.integers(1, 64)).map(
                      lambda t: f"tasks {t[0]}-{t[0] + t[1]}"),
                  st.lists(st.integers(0, 63), min_size=2, max_size=4, unique=True).map(
                      lambda ns: "tasks " + ",".join(map(str, ns))))
endings = st.one_of(st.integers(1, 255).map(lambda c: f"Exited with exit code {c}"),
                    st.sampled_from(["Killed", "Terminated", "Aborted (core dumped)",
                                     "Segmentation fault (core dumped)"]))
job_ids = st.one_of(st.integers(1, 99_999_999).map(str),
                    st.tuples(st.integers(1, 9_999_999), st.integers(0, 9)).map(
                        lambda t: f"{t[0]}.{t[1]}"))
stamps = st.from_regex(r"20[12]\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d", fullmatch=True)
stepds = st.one_of(st.just("slurmstepd"), hosts.map(lambda n: f"slurmstepd-{n}"))
task_reports = st.builds(lambda node, task, end: f"srun: error: {node}: {task}: {end}",
                         nodes, tasks, endings)
cancellations = st.builds(
    lambda stepd, what, job, node, stamp: f"{stepd}: error: *** {what} {job} ON {node} "
                                          f"CANCELLED AT {stamp} ***",
    stepds, st.sampled_from(["JOB", "STEP"]), job_ids, nodes, stamps)
slurm_reports = st.one_of(task_reports, cancellations)
task_labels = st.sampled_from(["", "0: ", " 3: ", "12: "])


@SOME
@given(slurm_reports, task_labels)
def test_a_slurm_report_of_a_task_end_is_read_as_one(report: str, label: str) -> None:
    line = parse_line(clean(label + report))
    assert (line.kind, line.exception) == (LineKind.DIAGNOSTIC, "exited"), line
    assert anchor_patterns()[0].search((label + report).encode("utf-8"))


@SOME
@given(slurm_reports, task_labels)
def test_a_slurm_report_after_the_error_is_its_symptom(report: str, label: str) -> None:
    result = explain([*V1_START, *WORKER_ERROR, label + report])
    assert result.verdict is Verdict.FAILURE
    assert result.root_cause is not None and result.root_cause.exception == "ValueError"
    assert any(s.line == len(V1_START) + len(WORKER_ERROR) + 1 for s in result.symptoms)


@SOME
@given(slurm_reports)
def test_a_slurm_report_alone_says_the_cause_is_missing(report: str) -> None:
    result = explain([*V1_START, report])
    assert result.verdict is Verdict.ROOT_CAUSE_MISSING, (result.verdict, result.reasons)


@SOME
@given(st.one_of(
    st.builds(lambda stepd, job, node, stamp: f"{stepd}: error: *** JOB {job} ON {node} "
                                              f"CANCELLED AT {stamp} DUE TO TIME LIMIT ***",
              stepds, job_ids, nodes, stamps),
    st.builds(lambda stepd, n, job: f"{stepd}: error: Detected {n} oom_kill "
                                    f"event{'s' if n > 1 else ''} in StepId={job}. Some of your "
                                    "processes may have been killed by the cgroup out-of-memory "
                                    "handler.",
              stepds, st.integers(1, 9), job_ids),
    st.sampled_from(["srun: error: Unable to allocate resources: Invalid account or "
                     "account/partition combination specified",
                     "srun: error: Node failure on gpu-node-17"])))
def test_what_slurm_itself_did_to_a_job_is_a_cause(line: str) -> None:
    result = explain([*V1_START, line])
    assert result.verdict is Verdict.FAILURE, (result.verdict, result.reasons)
    assert result.root_cause is not None and result.root_cause.line == len(V1_START) + 1


def test_argparse_usage_errors_stay_usage_errors() -> None:
    line = parse_line("vllm serve: error: argument --dtype: invalid choice: 'fp9'")
    assert line.exception == "usage error"


# ---- RunPod's console -------------------------------------------------------------------------

container_ids = st.from_regex(r"[a-z0-9]{8,20}", fullmatch=True)
streams = st.sampled_from(["info", "error", "warning"])
runpod_tags = st.builds(
    lambda stamp, cid, stream, spaced: (f"{stamp}[{cid}] [{stream}] " if spaced
                                        else f"{stamp}{cid}[{stream}]"),
    st.sampled_from(["", "2024-05-01 10:00:00.123 ", "2025-11-03T08:15:02.5Z "]),
    container_ids, streams, st.booleans())


@SOME
@given(runpod_tags)
def test_a_runpod_tag_leaves_the_line_it_wraps(tag: str) -> None:
    for raw in [*V1_START, *WORKER_ERROR]:
        plain, tagged = parse_line(clean(raw)), parse_line(clean(tag + raw))
        assert (tagged.kind, tagged.process, tagged.exception, tagged.text) \
            == (plain.kind, plain.process, plain.exception, plain.text), tag + raw


@SOME
@given(st.lists(runpod_tags, min_size=len(V1_START) + len(WORKER_ERROR),
                max_size=len(V1_START) + len(WORKER_ERROR)))
def test_a_runpod_console_log_gives_the_root_cause(tags: list[str]) -> None:
    lines = [*V1_START, *WORKER_ERROR]
    result = explain([tag + line for tag, line in zip(tags, lines)])
    assert result.root_cause is not None and result.root_cause.exception == "ValueError"
    assert result.root_cause.line == len(lines)


def test_an_indented_line_behind_a_runpod_tag_is_anchored() -> None:
    assert anchor_patterns()[0].search(b"zx8k2m4q9w1e3r[error]    raise ValueError(")


# ---- newest first -----------------------------------------------------------------------------

SERVING = [f"(APIServer pid=2800) INFO 08-01 21:0{minute}:{second:02d} [loggers.py:116] Engine "
           f"000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 40.0 tokens/s"
           for minute in range(3) for second in (0, 20, 40)]
CRASH = [
    "(EngineCore_DP0 pid=2900) ERROR 08-01 21:03:05 [core.py:934] EngineCore encountered a fatal "
    "error.",
    "(EngineCore_DP0 pid=2900) ERROR 08-01 21:03:05 [core.py:934] Traceback (most recent call "
    "last):",
    '(EngineCore_DP0 pid=2900) ERROR 08-01 21:03:05 [core.py:934]   File "/usr/local/lib/'
    'python3.12/dist-packages/vllm/v1/engine/core.py", line 925, in run_engine_core',
    "(EngineCore_DP0 pid=2900) ERROR 08-01 21:03:05 [core.py:934] torch.OutOfMemoryError: CUDA "
    "out of memory. Tried to allocate 2.00 GiB.",
    "(APIServer pid=2800) ERROR 08-01 21:03:06 [async_llm.py:480] AsyncLLM output_handler failed.",
    "(APIServer pid=2800) ERROR 08-01 21:03:06 [async_llm.py:480] vllm.v1.engine.exceptions."
    "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."]


def _csv(rows: list[str], times: list[int], header: str) -> str:
    quoted = ['"' + row.replace('"', '""') + '"' for row in rows]
    body = [f"{time},{row}" for time, row in zip(times, quoted)]
    return "\n".join(([header] if header else []) + body) + "\n"


@SOME
@given(st.lists(st.integers(1, 3), min_size=len(SERVING + CRASH),
                max_size=len(SERVING + CRASH)),
       st.sampled_from(["timestamp,message", "@timestamp,@message", ""]))
def test_a_csv_export_newest_first_gives_the_answer_of_the_export_in_order(
        gaps: list[int], header: str) -> None:
    rows = [*V1_START[1:], *SERVING, *CRASH]
    times = [1_756_144_012_000]
    for gap in gaps[:len(rows) - 1]:
        times.append(times[-1] + gap)
    in_order = explain_text(_csv(rows, times, header), signatures=default_signatures())
    newest = explain_text(_csv(rows[::-1], times[::-1], header), signatures=default_signatures())
    assert in_order.root_cause is not None
    assert newest.root_cause is not None
    assert (newest.verdict, newest.root_cause.exception, newest.root_cause.line) \
        == (in_order.verdict, in_order.root_cause.exception, in_order.root_cause.line)
    assert any("newest rows first" in notice for notice in newest.notices)
    assert not any("newest rows first" in notice for notice in in_order.notices)


def test_csv_rows_of_one_time_are_not_taken_for_newest_first() -> None:
    rows = [*V1_START[1:], *CRASH]
    report = explain_text(_csv(rows, [1_756_144_012_376] * len(rows), "timestamp,message"),
                          signatures=default_signatures())
    assert not any("newest rows first" in notice for notice in report.notices)
    assert report.root_cause is not None and report.root_cause.exception == "torch.OutOfMemoryError"


def _coloured(line: str) -> str:
    """The level word of a record coloured as a terminal shows it (the console keeps the codes)."""
    return re.sub(r"\b(INFO|ERROR)(?= \d)", lambda m: f"\x1b[{31 + (m[1] == 'INFO')}m{m[1]}\x1b[0m",
                  line, count=1)


@SOME
@given(st.one_of(st.just(""), runpod_tags), st.booleans())
def test_a_text_download_newest_first_gives_the_answer_of_the_log_in_order(
        tag: str, colour: bool) -> None:
    lines = [tag + (_coloured(line) if colour else line) for line in [*V1_START, *SERVING, *CRASH]]
    in_order, newest = explain(lines), explain(lines[::-1])
    assert in_order.root_cause is not None and newest.root_cause is not None
    # the same answer, at the same line of the file as given (counted from its top, as sed does)
    turned = len(lines) + 1
    assert (newest.verdict, newest.root_cause.exception, newest.root_cause.line,
            newest.root_cause.first_line, newest.root_cause.last_line) \
        == (in_order.verdict, in_order.root_cause.exception, turned - in_order.root_cause.line,
            turned - in_order.root_cause.last_line, turned - in_order.root_cause.first_line)
    assert all(turned - run.end_line == back.start_line for run, back
               in zip(in_order.runs, reversed(newest.runs), strict=False))
    assert any("newest lines first" in notice for notice in newest.notices)
    assert not any("newest lines first" in notice for notice in in_order.notices)


@pytest.mark.parametrize("lines", [
    [*V1_START, *WORKER_ERROR],  # a few times, all forward
    [SERVING[3], SERVING[0], *SERVING[4:]],  # one step back between two processes' clocks
])
def test_a_log_in_time_order_is_read_as_it_is(lines: list[str]) -> None:
    assert not any("newest lines first" in notice for notice in explain(lines).notices)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["01-05 09:00:0" + d for d in "0123"]), max_size=12),
       st.integers(min_value=0, max_value=4))
def test_times_are_read_up_to_the_first_step_forward(times: list[str], at_least: int) -> None:
    """only_back_in_time stops at the first step forward and says what the whole list says."""
    from logsleuth.tokenize.sniff import only_back_in_time

    steps = [later < earlier for earlier, later in zip(times, times[1:]) if later != earlier]
    read: list[str] = []

    def reading() -> Iterator[str]:
        for time in times:
            read.append(time)
            yield time

    assert only_back_in_time(reading(), at_least) == (len(steps) >= at_least and all(steps))
    forward = next((i + 1 for i, (a, b) in enumerate(zip(times, times[1:])) if b > a), None)
    assert len(read) == (forward + 1 if forward is not None else len(times))


# ---- a time limit is the job's planned end once the server was up -----------------------------
# (b-v0120-slurm-job-time-limit-cancelled-after-startup in the tuning set: a server that started
# completely, then slurmstepd's cancellation at the job's wall-time limit)

time_limits = st.builds(
    lambda label, stepd, job, node, stamp: f"{label}{stepd}: error: *** JOB {job} ON {node} "
                                           f"CANCELLED AT {stamp} DUE TO TIME LIMIT ***",
    task_labels, stepds, job_ids, nodes, stamps)


def _server_start() -> tuple[Server, list[str], int]:
    """A V1 server's start-up, and how many of its lines come before it is ready."""
    server = Server()
    lines = server.startup()
    return server, lines, next(i for i, line in enumerate(lines) if "Starting vLLM" in line)


@SOME
@given(time_limits, st.data())
def test_a_time_limit_before_the_server_is_up_is_the_cause(limit: str, data: st.DataObject) -> None:
    _, lines, ready = _server_start()
    started = lines[:data.draw(st.integers(1, ready), label="start-up lines")]
    result = explain([*started, limit])
    assert result.verdict is Verdict.FAILURE, (result.verdict, result.reasons)
    assert result.root_cause is not None and result.root_cause.line == len(started) + 1


# what a scheduler or the job's owner decided: the time limit, a preemption, scancel (no reason)
planned_stops = st.one_of(time_limits, cancellations, st.builds(
    lambda stepd, job, node, stamp: f"{stepd}: error: *** JOB {job} ON {node} CANCELLED AT "
                                    f"{stamp} DUE TO PREEMPTION ***", stepds, job_ids, nodes, stamps))


@SOME
@given(planned_stops, st.integers(0, 30), st.integers(0, 5), st.lists(task_reports, max_size=3))
def test_a_planned_stop_after_the_server_is_up_is_no_failure(stop: str, served: int, polls: int,
                                                            ends: list[str]) -> None:
    # srun's reports of the tasks it ended follow the stop
    server, lines, _ = _server_start()
    result = explain([*lines, *server.requests(served), *server.polls(polls), stop, *ends])
    assert result.verdict is Verdict.NO_FAILURE, (result.verdict, result.reasons)


@SOME
@given(stepds, job_ids, nodes, stamps, st.integers(0, 30))
def test_a_node_failure_after_the_server_is_up_is_no_planned_stop(stepd: str, job: str, node: str,
                                                                  stamp: str, served: int) -> None:
    server, lines, _ = _server_start()
    failure = f"{stepd}: error: *** JOB {job} ON {node} CANCELLED AT {stamp} DUE TO NODE FAILURE ***"
    result = explain([*lines, *server.requests(served), failure])
    assert result.verdict is not Verdict.NO_FAILURE


@SOME
@given(time_limits, st.integers(0, 30), st.integers(0, 20))
def test_a_time_limit_after_an_engine_death_keeps_the_death(limit: str, served: int,
                                                           failed: int) -> None:
    server, lines, _ = _server_start()
    lines += server.requests(served)
    crash_at = len(lines)
    lines += [*server.engine_error(ILLEGAL_ACCESS), *server.engine_dead(),
              *server.failed_requests(failed), limit]
    result = explain(lines)
    assert result.verdict is Verdict.FAILURE
    assert result.root_cause is not None and result.root_cause.exception == "torch.AcceleratorError"
    assert crash_at < result.root_cause.line < len(lines)


@SOME
@given(time_limits, st.integers(1, 30), st.integers(2, 6))
def test_a_time_limit_after_a_hang_is_no_healthy_end(limit: str, served: int, waits: int) -> None:
    # the server served, then its engine waited on a stuck worker until the job's time ran out
    server, lines, _ = _server_start()
    hang = server.engine_line("WARNING", "shm_broadcast.py:466", "No available shared memory "
                              "broadcast block found in 60 seconds. This typically happens when "
                              "some processes are hanging or doing some time-consuming work")
    result = explain([*lines, *server.requests(served), *[hang] * waits, limit])
    assert result.verdict is not Verdict.NO_FAILURE


# ---- a log viewer's time, docker build's steps, markdown bold ---------------------------------

view_times = st.from_regex(r"20[12]\d-[01]\d-[0-3]\d [0-2]\d:[0-5]\d:[0-5]\d ", fullmatch=True)
build_steps = st.builds(lambda step, seconds: f"#{step} {seconds:.1f} ", st.integers(1, 60),
                        st.floats(0, 99999, allow_nan=False))
RAW_TRACEBACK = ["Traceback (most recent call last):",
                 '  File "/usr/lib/python3.10/ssl.py", line 1342, in do_handshake',
                 "    self._sslobj.do_handshake()",
                 "ssl.SSLEOFError: [SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation "
                 "of protocol (_ssl.c:1007)"]


# `journalctl -o short-iso` / `short-iso-precise`: ISO time with its zone, host, unit[pid]
journald_iso = st.builds(
    lambda stamp, fraction, zone, host, unit, pid: f"{stamp}{fraction}{zone} {host} {unit}[{pid}]: ",
    st.from_regex(r"20[12]\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d", fullmatch=True),
    st.sampled_from(["", ".123456"]), st.sampled_from(["+0000", "+00:00", "-0700", "Z"]),
    hosts, st.sampled_from(["vllm", "python3", "bash", "vllm-serve.sh"]), st.integers(1, 4194304))


@SOME
@given(st.one_of(view_times, build_steps, journald_iso))
def test_a_viewer_time_or_build_step_leaves_the_line_it_wraps(tag: str) -> None:
    for raw in [*V1_START, *WORKER_ERROR, *RAW_TRACEBACK]:
        plain, tagged = parse_line(clean(raw)), parse_line(clean(tag + raw))
        assert (tagged.kind, tagged.process, tagged.exception, tagged.text) \
            == (plain.kind, plain.process, plain.exception, plain.text), tag + raw
        assert tagged.outer == tag.strip()


@SOME
@given(st.lists(st.one_of(view_times, build_steps, journald_iso), min_size=len(V1_START) + len(RAW_TRACEBACK),
                max_size=len(V1_START) + len(RAW_TRACEBACK)))
def test_a_raw_traceback_behind_viewer_times_is_the_root(tags: list[str]) -> None:
    lines = [tag + line for tag, line in zip(tags, [*V1_START, *RAW_TRACEBACK])]
    result = explain(lines)
    assert result.root_cause is not None and result.root_cause.exception == "ssl.SSLEOFError"
    assert result.root_cause.line == len(lines)


@pytest.mark.parametrize("line", [
    "2024-01-02 03:04:05 | ERROR | stderr | x",  # FastChat's relay: the date is its own
    "2024-01-02 03:04:05 | INFO | model_worker | x",  # FastChat's logger
    "2024-05-01 10:00:00 [zx8k2m4q9w1e3r] [error] x",  # RunPod's export
    "2024-05-01 10:00:00 zx8k2m4q9w1e3r[info] x",
])
def test_a_logger_header_that_starts_with_a_date_is_no_viewer_time(line: str) -> None:
    assert not (parse_line(clean(line)).outer or "").endswith(":05")


@SOME
@given(st.sampled_from([WORKER_ERROR[-1], RAW_TRACEBACK[-1],
                        "error: triton_flash_attention.py:211:0: stack frame size (556488) "
                        "exceeds limit (262112) in function 'attn_fwd'",
                        "csrc/x.cu(65): error: identifier \"__hfma2\" is undefined"]))
def test_markdown_bold_around_an_error_line_leaves_its_kind(raw: str) -> None:
    # an exception's or a compiler's line, whose message may end in the closing `**` (a line
    # that must end where it does, a traceback's header, is no longer that line in bold)
    plain, bold = parse_line(clean(raw)), parse_line(clean(f"**{raw}**"))
    assert (bold.kind, bold.process, bold.exception) == (plain.kind, plain.process,
                                                         plain.exception), raw


# ---- JSON lines: Docker's json-file driver, journalctl -o json, a log service's export --------

def _json_lines(lines: list[str], key: str, streams: list[str]) -> str:
    import json

    out = []
    for index, (line, stream) in enumerate(zip(lines, streams)):
        event: dict[str, object] = {key: line + "\n" if key == "log" else line}
        if key == "log":
            event |= {"stream": stream, "time": f"2024-01-02T03:04:{index % 60:02d}.1234Z"}
        elif key == "MESSAGE":
            event |= {"__REALTIME_TIMESTAMP": str(1704164645000000 + index), "_PID": "8052"}
        else:
            event |= {"timestamp": f"2024-01-02T03:04:{index % 60:02d}Z", "severity": stream}
        out.append(json.dumps(event))
    return "\n".join(out) + "\n"


FAILING = [*V1_START, *WORKER_ERROR]


@SOME
@given(st.sampled_from(["log", "MESSAGE", "textPayload", "message"]),
       st.lists(st.sampled_from(["stdout", "stderr"]), min_size=len(FAILING),
                max_size=len(FAILING)))
def test_a_json_lines_log_gives_the_answer_of_its_text(key: str, streams: list[str]) -> None:
    plain = explain(FAILING)
    result = explain_text(_json_lines(FAILING, key, streams), signatures=default_signatures())
    assert result.root_cause is not None and plain.root_cause is not None
    assert (result.root_cause.exception, result.root_cause.line) \
        == (plain.root_cause.exception, plain.root_cause.line)
    assert any("JSON lines" in notice for notice in result.notices)


@SOME
@given(st.integers(0, 20), st.sampled_from(["log", "MESSAGE"]))
def test_a_healthy_json_lines_log_is_no_failure(served: int, key: str) -> None:
    server, lines, _ = _server_start()
    lines += server.requests(served)
    result = explain_text(_json_lines(lines, key, ["stdout"] * len(lines)),
                          signatures=default_signatures())
    assert result.verdict is Verdict.NO_FAILURE, result.reasons


# a launcher's wrapper before each object: a container whose program logs JSON, read through
# `docker logs --timestamps`, compose, `kubectl logs --prefix`, `srun -l`, journald
json_wrappers = st.sampled_from(["2024-01-02T03:04:05.123456789Z ", "vllm-1  | ",
                                 "[pod/vllm-0/vllm] ", "  0: ",
                                 "Jan 02 03:04:05 gpu-node-3 dockerd[812]: "])


@SOME
@given(json_wrappers, st.sampled_from(["log", "MESSAGE", "textPayload", "message"]),
       st.lists(st.sampled_from(["stdout", "stderr"]), min_size=len(FAILING),
                max_size=len(FAILING)))
def test_a_json_lines_log_behind_a_launchers_wrapper_gives_the_answer_of_its_text(
        wrapper: str, key: str, streams: list[str]) -> None:
    plain = explain([wrapper + line for line in FAILING])
    wrapped = "".join(wrapper + line + "\n"
                      for line in _json_lines(FAILING, key, streams).splitlines())
    result = explain_text(wrapped, signatures=default_signatures())
    assert result.root_cause is not None and plain.root_cause is not None
    assert (result.root_cause.exception, result.root_cause.line) \
        == (plain.root_cause.exception, plain.root_cause.line)
    assert any("JSON lines" in notice for notice in result.notices)


@SOME
@given(st.sampled_from(["log", "MESSAGE", "textPayload", "message"]),
       st.lists(st.integers(40, 400), min_size=len(FAILING), max_size=len(FAILING)),
       st.sampled_from(["\n", "\r\n"]))
def test_a_json_lines_log_whose_lines_containerd_cut_gives_the_answer_of_its_text(
        key: str, cuts: list[int], end: str) -> None:
    """A pod's CRI file of a program that logs JSON, each object longer than a cut written in
    `P` pieces: the objects are told on the joined lines (a head of cut objects is no JSON)."""
    plain = explain(FAILING)
    out = []
    for line, cut in zip(_json_lines(FAILING, key, ["stdout"] * len(FAILING)).splitlines(), cuts):
        pieces = [line[i:i + cut] for i in range(0, len(line), cut)]
        out += [f"2024-01-02T03:04:05.123456789Z stdout {'P' if i < len(pieces) - 1 else 'F'} {x}"
                for i, x in enumerate(pieces)]
    result = explain_text(end.join(out) + end, signatures=default_signatures())
    assert result.root_cause is not None and plain.root_cause is not None
    assert result.root_cause.exception == plain.root_cause.exception
    assert any("JSON lines" in notice for notice in result.notices)


@SOME
@given(json_wrappers, st.integers(0, 20))
def test_a_healthy_json_lines_log_behind_a_wrapper_is_no_failure(wrapper: str,
                                                                  served: int) -> None:
    server, lines, _ = _server_start()
    lines += server.requests(served)
    wrapped = "".join(wrapper + line + "\n" for line in
                      _json_lines(lines, "message", ["stdout"] * len(lines)).splitlines())
    result = explain_text(wrapped, signatures=default_signatures())
    assert result.verdict is Verdict.NO_FAILURE, result.reasons


def test_error_bodies_a_client_printed_are_no_json_lines_log() -> None:
    # OpenAI-style error bodies have a `message`, but no time or stream: they are the log's text
    body = ('{"object":"error","message":"CUDA error: an illegal memory access was encountered",'
            '"type":"InternalServerError","param":null,"code":500}')
    result = explain_text(body + "\n" + body + "\n", signatures=default_signatures())
    assert not any("JSON lines" in notice for notice in result.notices)
    assert result.verdict is not Verdict.NO_FAILURE
    # nor behind the words a client put before them
    lead = 'Request failed: "Error code: 500 - '
    result = explain_text(f"{lead}{body}\n{lead}{body}\n", signatures=default_signatures())
    assert not any("JSON lines" in notice for notice in result.notices)


# ---- pytest's report of a failed test (a CI job's log; vllm issues 19736, 6408) ----------------

exception_names = st.sampled_from(["RuntimeError", "AssertionError", "ValueError",
                                   "torch.OutOfMemoryError", "KeyError", "IndexError"])
messages = st.from_regex(r"[a-z][a-z ().,:'\[\]\d]{4,60}[a-z)]", fullmatch=True)
node_ids = st.from_regex(r"(?:tests/)?[a-z_]{3,12}/test_[a-z_]{3,12}\.py::test_[a-z_]{3,12}"
                         r"(?:\[[\w.\-]{1,20}\])?", fullmatch=True)


def _pytest_report(name: str, message: str, node: str, margin: int, vllm_between: bool,
                   summary: bool) -> tuple[list[str], int]:
    """A failed test's report as pytest prints it; the line of its `E   Type: message`."""
    lines = [f"{node.split('::')[0]} F", "", "=" * 30 + " FAILURES " + "=" * 30,
             "_" * 20 + f" {node.split('::')[1]} " + "_" * 20, "",
             "    def helper(embeddings):",
             ">       return torch.cat(tuple(embeddings))"]
    root = len(lines) + 1
    lines += [f"E{' ' * margin}{name}: {message}", "",
              f"../vllm/model_executor/models/utils.py:363: {name}"]
    if vllm_between:
        lines += ["-" * 20 + " Captured stderr call " + "-" * 20,
                  "INFO 06-17 09:20:18 [cuda.py:336] Using Flash Attention backend.",
                  "WARNING 06-17 09:20:16 [config.py:3273] Casting torch.bfloat16 to torch.float16."]
    if summary:
        lines += ["=" * 20 + " short test summary info " + "=" * 20,
                  f"FAILED {node} - {name}: {message}", "=" * 20 + " 1 failed in 29.93s " + "=" * 20]
    return lines, root


@SOME
@given(exception_names, messages, node_ids, st.integers(2, 20), st.booleans(), st.booleans())
def test_a_failed_test_is_a_failure_rooted_at_its_exception(
        name: str, message: str, node: str, margin: int, vllm_between: bool,
        summary: bool) -> None:
    lines, root = _pytest_report(name, message, node, margin, vllm_between, summary)
    result = explain(lines)
    assert result.verdict is Verdict.FAILURE, result.reasons
    assert result.root_cause is not None
    assert (result.root_cause.exception, result.root_cause.line) == (name, root)


@SOME
@given(node_ids, st.integers(2, 20))
def test_a_failed_plain_assert_is_rooted_at_its_explanation(node: str, margin: int) -> None:
    # `assert a == b` prints no exception line: pytest's `E   assert 1 == 2` explains it and is
    # the AssertionError's message; `file:line: AssertionError` below only restates the class
    # (tests/test_pytest_asserts.py)
    lines = [f"{node.split('::')[0]} F", ">       assert len(outputs) == 2",
             f"E{' ' * margin}assert 1 == 2", f"E{' ' * margin} +  where 1 = len([...])", "",
             "tests/samplers/test_logprobs.py:99: AssertionError"]
    result = explain(lines)
    assert result.verdict is Verdict.FAILURE, result.reasons
    assert result.root_cause is not None
    assert (result.root_cause.exception, result.root_cause.line) == ("AssertionError", 3)
    assert "assert 1 == 2" in result.root_cause.message


@SOME
@given(exception_names, messages, node_ids)
def test_the_summary_alone_still_says_a_test_failed(name: str, message: str, node: str) -> None:
    # `pytest -q --tb=no`: the short summary is all that names the exception
    result = explain([f"FAILED {node} - {name}: {message}", "1 failed, 3 passed in 2.01s"])
    assert result.verdict is not Verdict.NO_FAILURE


# ---- an error behind a wrapper no launcher in particular adds (the general shapes) -------------
# A failing log must not read as healthy because its one error had an unfamiliar prefix: a time
# of day in any common format, a bracketed tag, a level in brackets, a relay's stream name,
# logfmt, `grep -n` over a log file. Generated, with the error shapes that are no Python traceback.

clock = st.from_regex(r"[0-2]\d:[0-5]\d:[0-5]\d", fullmatch=True)
any_times = st.builds(
    lambda date, time, fraction, zone, bracket: (f"[{date}{time}{fraction}{zone}] " if bracket
                                                 else f"{date}{time}{fraction}{zone} "),
    st.sampled_from(["", "2024/01/02 ", "2024-01-02T", "2024.01.02 ", "Jan 02 ", "Feb  3 "]),
    clock, st.sampled_from(["", ".123", ",456789"]), st.sampled_from(["", "Z", "+0800", "-07:00"]),
    st.booleans())
tags = st.from_regex(r"\[[a-qs-z][a-z0-9_.\-/]{0,20}\] ", fullmatch=True)
level_tags = st.sampled_from(["[INFO] ", "[ERROR] ", "[WARNING] ", "[DEBUG] "])
streams = st.sampled_from(["stderr: ", "stdout: ", "<stderr> ", "<stdout> "])
logfmt = st.builds(lambda time, level: f'time="2024-01-02T{time}Z" level={level} msg="', clock,
                   st.sampled_from(["info", "error", "warning"]))
grep_files = st.from_regex(r"(?:/var/log/)?[a-z_\-]{1,12}\.(?:log|txt|out|err)(?::\d{1,5})?: ?",
                           fullmatch=True)
general_wrappers = st.one_of(any_times, tags, level_tags, streams, logfmt, grep_files)
FAILURE_LINES = [
    ["RuntimeError: CUDA error: out of memory"],
    ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."],
    ["Fatal Python error: Segmentation fault"],
    ["terminate called after throwing an instance of 'c10::Error'",
     "what():  CUDA error: an illegal memory access was encountered"],
    ["Killed"],
    ["Segmentation fault (core dumped)"],
    ["[rank0]:[E801 21:00:00.123 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective "
     "operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600000 milliseconds "
     "before timing out."],
    ["ERROR 08-01 21:00:00 [core.py:718] EngineCore failed to start."],
    ["ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task."],
]


@SOME
@given(general_wrappers, st.sampled_from(range(len(FAILURE_LINES))))
def test_a_failure_behind_a_general_wrapper_is_never_healthy(wrapper: str, which: int) -> None:
    lines = [*V1_START, *(wrapper + line for line in FAILURE_LINES[which])]
    assert explain(lines).verdict is not Verdict.NO_FAILURE, wrapper


@SOME
@given(general_wrappers, st.integers(0, 12))
def test_a_healthy_server_behind_a_general_wrapper_is_healthy(wrapper: str, served: int) -> None:
    server, lines, _ = _server_start()
    lines += server.requests(served)
    result = explain([wrapper + line for line in lines])
    assert result.verdict is Verdict.NO_FAILURE, (wrapper, result.reasons)


# ---- a log copied from a web view: Unicode spaces where the page laid out a margin -------------
# Buildkite's log page copied into an issue (vllm#5848, #15944): `\u00a0 | [2024-06-25T12:58:33Z]
# E   AssertionError: assert 1 == 0`. Any Unicode space separator reads as a space, wherever it
# stands: the same failure, the same healthy server.

UNICODE_SPACES = "\u00a0\u2007\u2009\u202f\u3000\u2002"


def _respace(data: st.DataObject, line: str) -> str:
    """The line with some of its spaces, drawn by hypothesis, turned into Unicode spaces."""
    return "".join(data.draw(st.sampled_from(UNICODE_SPACES + " ")) if char == " " else char
                   for char in line)


@SOME
@given(st.data(), exception_names, messages, node_ids, st.integers(2, 20), st.booleans())
def test_a_failed_test_copied_from_a_web_view_is_the_same_failure(
        data: st.DataObject, name: str, message: str, node: str, margin: int,
        summary: bool) -> None:
    lines, root = _pytest_report(name, message, node, margin, False, summary)
    gutter = data.draw(st.sampled_from(["", "  | ", "\u00a0 | "]))
    stamp = data.draw(st.sampled_from(["", "[2024-06-25T12:58:33Z] "]))
    copied = [_respace(data, gutter + stamp + line) for line in lines]
    result = explain(copied)
    assert result.verdict is Verdict.FAILURE, result.reasons
    assert result.root_cause is not None
    assert (result.root_cause.exception, result.root_cause.line) == (name, root)


@SOME
@given(st.data(), st.integers(0, 12))
def test_a_healthy_server_copied_from_a_web_view_is_healthy(data: st.DataObject,
                                                            served: int) -> None:
    server, lines, _ = _server_start()
    lines += server.requests(served)
    result = explain([_respace(data, "\u00a0 | " + line) for line in lines])
    assert result.verdict is Verdict.NO_FAILURE, result.reasons


@SOME
@given(st.data(), st.sampled_from(range(len(FAILURE_LINES))))
def test_a_failure_with_unicode_spaces_is_read_as_with_spaces(data: st.DataObject,
                                                              which: int) -> None:
    lines = [*V1_START, *FAILURE_LINES[which]]
    plain, spaced = explain(lines), explain([_respace(data, line) for line in lines])
    assert spaced.verdict is plain.verdict
    assert (spaced.root_cause and spaced.root_cause.line) == (plain.root_cause
                                                              and plain.root_cause.line)


# ---- a failed `docker build`: BuildKit's summary of the failed step, a linker relayed by rustc --
# When a step fails, BuildKit repeats its last lines behind the seconds alone (`136.0 `), pip
# indents a build's output, rustc puts `= note: ` before the linker's (vllm#11616). The linker's
# complaint is the cause; collect2's `ld returned 1 exit status`, setuptools-rust's failed cargo
# command, pip's and BuildKit's summaries report it.

seconds = st.builds(lambda whole, fraction: f"{whole}.{fraction} ", st.integers(0, 9999),
                    st.integers(0, 99))
libraries = st.sampled_from(["ssl", "crypto", "cuda", "numa", "stdc++"])


def _failed_rust_build(stamp: str, indent: int, library: str) -> tuple[list[str], int]:
    pad = " " * indent
    lines = [f"{stamp}{pad}Compiling outlines-core v0.1.26",
             f"{stamp}{pad}error: linking with `cc` failed: exit status: 1",
             f'{stamp}{pad}  = note: LC_ALL="C" PATH="/usr/bin" "cc" "-m64" "-shared"',
             f"{stamp}{pad}  = note: /usr/bin/ld: cannot find -l{library}: No such file or directory",
             f"{stamp}{pad}          collect2: error: ld returned 1 exit status",
             f"{stamp}{pad}error: `cargo rustc --lib --release --crate-type cdylib` failed with "
             "code 101",
             f"{stamp}{pad}error: subprocess-exited-with-error",
             f"{stamp}ERROR: Could not build wheels for outlines_core, which is required to "
             "install pyproject.toml-based projects"]
    return lines, 4


@SOME
@given(st.one_of(st.just(""), seconds, st.builds(lambda n, s: f"#{n} {s}", st.integers(1, 40),
                                                  seconds)),
       st.integers(0, 8), libraries)
def test_the_linker_is_the_root_of_a_failed_rust_build(stamp: str, indent: int,
                                                        library: str) -> None:
    lines, root = _failed_rust_build(stamp, indent, library)
    result = explain(lines)
    assert result.verdict is Verdict.FAILURE, result.reasons
    assert result.root_cause is not None and result.root_cause.line == root
    assert f"cannot find -l{library}" in result.root_cause.message


@SOME
@given(st.one_of(st.just(""), seconds), st.integers(0, 8))
def test_a_failed_cargo_command_only_reports_a_failure(stamp: str, indent: int) -> None:
    # without the linker's or the compiler's own line, the cause is not in the log
    lines, _ = _failed_rust_build(stamp, indent, "ssl")
    reports = [line for line in lines if "cargo rustc" in line or "subprocess-exited" in line
               or "Could not build wheels" in line]
    assert explain(reports).verdict is Verdict.ROOT_CAUSE_MISSING
