"""A paste's elision told from a redaction by what surrounds it (issue 10, session 35).

A reporter who shortens a log marks what was left out: a line of its own (`[...]`, `[... 300
lines omitted ...]`, `<snip>`, `...`, `(truncated)`), or a bracket before the part of a line kept
(`[...] ERROR 06-01 ... EngineCore failed to start.`, `[…] Segmentation fault (core dumped)`).
A reporter who hides a value puts the same bracket inside a record (`... model=[...]`), or in the
place of Ray's core record's date and pids (`[...] (raylet) node_manager.cc:3007: ...`:
tests/test_edited_wraps.py). What tells them apart is where the bracket stands and what follows
it (grammars/vllm.lark ELLIPSIS):

- a line of its own: the reading goes on past it (between frames, before the exception line, between
  records) and the root cause is the one the whole log gives;
- before the part of a line kept (a record head, a process prefix, glog's header, a frame, a fatal
  line, a source line): an outer wrapper, the line read as it reads alone;
- before a C++ call site: Ray's core record with its head redacted (RAY_CORE_HEADER);
- inside a record: the message's own text.

Each reading is the fast path's as much as Lark's (test_fastpath._check), and replaying repeated
records changes nothing of a log holding them (test_replay._assert_same).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import clean, parse_line
from test_fastpath import _check
from test_replay import _assert_same
from tool_import import import_tool

# the marks reporters put where they left lines out (GitHub issues' pastes, chat pastes)
MARKS = ["[...]", "[…]", "[ ... ]", "[....]", "[... 300 lines omitted ...]", "[...truncated...]",
         "[truncated]", "[snip]", "[... 2,048 more lines ...]", "[120 lines omitted]", "<...>",
         "<snip>", "<snipped 40 lines>", "(...)", "(truncated)", "(... omitted ...)", "[ SNIP ]"]
# and the line-of-its-own forms only (a bare ellipsis and a scissors line are no bracket)
OWN_LINE_MARKS = [*MARKS, "...", "…", "-- snip --", ". . ."]

PREFIXES = ["", "(EngineCore_DP0 pid=812) ", "(VllmWorker rank=0 pid=4201) "]
HEADERS = ["ERROR 06-01 10:11:13 [core.py:708] ", "ERROR 06-01 10:11:13 core.py:708] "]
FRAMES = ['  File "/usr/lib/python3/site-packages/vllm/v1/engine/core.py", line 699, in '
          "run_engine_core",
          "    engine_core = EngineCoreProc(*args, **kwargs)",
          '  File "/usr/lib/python3/site-packages/vllm/v1/worker/gpu_worker.py", line 240, in '
          "determine_available_memory",
          "    raise ValueError(msg)"]
EXCEPTION = ("ValueError: Free memory on device (10.2/79.1 GiB) on startup is less than desired "
             "GPU memory utilization (0.9, 71.2 GiB).")


def _traceback(prefix: str, header: str) -> list[str]:
    lead = prefix + header
    return [f"{lead}EngineCore failed to start.", f"{lead}Traceback (most recent call last):",
            *(lead + frame for frame in FRAMES), lead + EXCEPTION]


def _root(lines: list[str]) -> tuple[Verdict, str | None, str | None, tuple[str, ...]]:
    report = explain_text("\n".join(lines) + "\n")
    root = report.root_cause
    if root is None:
        return report.verdict, None, None, ()
    return report.verdict, root.exception, root.message, tuple(f.function for f in root.frames)


# ---- a line of its own: the reading goes on past it -----------------------------------------------

@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.sampled_from(OWN_LINE_MARKS), st.sampled_from(PREFIXES), st.sampled_from(HEADERS),
       st.sampled_from(["between frames", "before the exception", "after the first record",
                        "before the traceback"]), st.booleans())
def test_an_elision_line_is_read_past(mark: str, prefix: str, header: str, where: str,
                                      in_record: bool) -> None:
    lines = _traceback(prefix, header)
    at = {"between frames": 4, "before the exception": len(lines) - 1,
          "after the first record": 1, "before the traceback": 0}[where]
    # the mark on a line of its own, bare or behind the record's own head (the reporter cut the
    # record's lines and kept their heads)
    elided = [*lines[:at], (prefix + header + mark) if in_record else mark, *lines[at:]]
    for text in elided:
        _check(text.encode())
    assert _root(elided) == _root(lines)
    if mark in MARKS:  # nothing kept after the bracket: no wrapper
        assert parse_line(clean(mark)).outer is None


# ---- before the part of a line kept: the line reads as it reads alone ------------------------------

KEPT = st.sampled_from([
    "ERROR 06-01 10:11:13 [core.py:708] EngineCore failed to start.",
    "(EngineCore_DP0 pid=812) ERROR 06-01 10:11:13 [core.py:708] EngineCore failed to start.",
    "ERROR 06-01 10:11:13 engine.py:157] Engine background task failed",
    "Segmentation fault (core dumped)",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "[rank0]:[E601 10:12:40.123456 ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Watchdog caught "
    "collective operation timeout",
    "terminate called after throwing an instance of 'c10::Error'",
    '  File "/usr/lib/python3/site-packages/vllm/v1/engine/core.py", line 699, in run_engine_core',
    "    engine_core = EngineCoreProc(*args, **kwargs)",
    "INFO 06-01 10:11:13 [loggers.py:123] Engine 000: Avg prompt throughput: 12.1 tokens/s"])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(KEPT, st.sampled_from(MARKS), st.sampled_from(["", "2025-06-01T10:11:13.123Z ", "> "]))
def test_a_bracketed_elision_before_a_line_reads_as_the_line_after_it(line: str, mark: str,
                                                                      wrap: str) -> None:
    marked_text = f"{wrap}{mark} {line}"
    _check(marked_text.encode())
    alone, marked = parse_line(clean(wrap + line)), parse_line(clean(marked_text))
    assert (marked.kind, marked.process, marked.exception, marked.level, marked.site,
            marked.text) == (alone.kind, alone.process, alone.exception, alone.level, alone.site,
                             alone.text)
    assert explain_text(marked_text + "\n").verdict is explain_text(wrap + line + "\n").verdict


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(MARKS), st.sampled_from(PREFIXES), st.sampled_from(HEADERS),
       st.integers(1, 5))
def test_a_traceback_whose_lines_each_lost_their_start_is_read_whole(
        mark: str, prefix: str, header: str, cut: int) -> None:
    # the reporter cut the first `cut` lines' heads and marked each cut
    lines = _traceback(prefix, header)
    marked = [f"{mark} {text}" if n < cut else text for n, text in enumerate(lines)]
    assert _root(marked) == _root(lines)


# ---- the same bracket as a redaction ----------------------------------------------------------------

RAY_SITES = ["(raylet) node_manager.cc:3007: ", "node_manager.cc:2993: ",
             "(gcs_server) gcs_actor_manager.cc:1320: "]
KILLED = "2 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed"


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from([m for m in MARKS if m.startswith("[")]
                       + ["[2023-09-22 10:31:07,492 E ... ...]", "[... E 1284 1284]"]),
       st.sampled_from(RAY_SITES))
def test_a_bracket_before_a_cpp_call_site_is_ray_s_redacted_head(bracket: str, site: str) -> None:
    text = f"{bracket} {site}{KILLED}"
    _check(text.encode())
    line = parse_line(clean(text))
    assert line.outer is None
    assert line.site == site.strip().rstrip(":")
    assert line.text.startswith("2 Workers")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(MARKS), st.sampled_from(PREFIXES), st.sampled_from(HEADERS))
def test_a_bracket_inside_a_record_is_its_message(mark: str, prefix: str, header: str) -> None:
    text = f"{prefix}{header}Received request cmpl-1: prompt: '{mark} continue', params: x"
    _check(text.encode())
    line = parse_line(clean(text))
    assert line.text.endswith(f"'{mark} continue', params: x")
    # the record's redacted value is no elision of the record: it stays one
    redacted = f"{prefix}{header}ValueError: model {mark} is not supported"
    _check(redacted.encode())
    assert parse_line(clean(redacted)).text.endswith(f"model {mark} is not supported")


def test_brackets_that_mark_no_elision_are_no_wrapper() -> None:
    for text in ["[REDACTED ...] ERROR 06-01 10:11:13 [core.py:708] x",  # no mark opens it
                 "[see truncated] ERROR 06-01 10:11:13 [core.py:708] x",
                 "[2023-09-22 10:31:07,492 E 1284 1284] node_manager.cc:3007: " + KILLED,
                 "[300 items] ERROR 06-01 10:11:13 [core.py:708] x",  # a count of no lines left out
                 "[...]", "[...]   ", "<snip>"]:  # nothing kept after it
        assert not (parse_line(clean(text)).outer or "").startswith(("[", "<", "(")), text


def test_a_healthy_log_with_elisions_stays_healthy() -> None:
    serving = ['INFO:     127.0.0.1:40312 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
               "INFO 06-01 10:11:20 [loggers.py:123] Engine 000: Avg prompt throughput: 12.1 "
               "tokens/s, Avg generation throughput: 40.2 tokens/s, Running: 1 reqs, Waiting: 0 "
               "reqs, GPU KV cache usage: 1.2%, Prefix cache hit rate: 0.0%"]
    for mark in OWN_LINE_MARKS:
        lines = ["INFO 06-01 10:11:13 [api_server.py:1024] Starting vLLM API server on "
                 "http://0.0.0.0:8000", mark, *serving * 3, f"{mark} {serving[0]}", *serving]
        assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE, mark


def test_replaying_an_elided_traceback_changes_nothing() -> None:
    lines = []
    for mark in ("[...]", "<snip>", "[... 300 lines omitted ...]"):
        record = _traceback("(EngineCore_DP0 pid=812) ", HEADERS[0])
        lines += [*record[:3], mark, *(f"{mark} {text}" for text in record[3:])] * 3
    _assert_same(("\n".join(lines) + "\n").encode())


def test_the_frame_kept_behind_a_mark_is_a_frame() -> None:
    line = parse_line(clean(f"[...] {FRAMES[0]}"))
    assert line.kind is LineKind.FRAME


# ---- the probes' elided pastes ----------------------------------------------------------------------

@pytest.mark.long
def test_probe_records_in_an_elided_paste_answer_the_right_way() -> None:
    """The verdict probe's records of vLLM's and the plugins' indexes (tools/verdict_probe
    `--index all`) in the failure probe's `elided` wrapper: a mark line before the record and the
    record kept from a mark on. Healthy contexts stay healthy; a record that ends the log, or
    that its process's death follows, is a failure (none of these is a parser's `handled` one)."""
    probe = import_tool("verdict_probe", "probe")
    items = [item for item in probe.events(["ERROR"], 4, 35, "all", ["elided"])
             if item[0].context != "fatal_teardown"]
    assert len(items) >= 20
    assert {item[0].source for item in items} - {"vllm"}  # a plugin's records among them
    wrong = [(r.event.context, r.event.text) for r in map(probe.measure_one, items) if r.wrong]
    assert not wrong
