"""An error record whose logger writes its header once, at the record's head, and its further
lines bare and indented (torch_npu's `[Error]: <description>` then `        Rectify the fault
based on the error information in the ascend log.`; Python's logging of a message with line
breaks; a `[ERROR] `, `ERROR:root:`, `- ERROR - ` or CANN-coded record): those lines are the
record's message, as a vLLM record's are (assemble.py `_continued_key`). Generated: each header
shape, one to three continuation lines (spaces or tabs), under a process prefix or none, the
record at the end of a start-up or before or after another error. The
property is metamorphic: adding the continuation lines changes nothing but the record's message
(verdict, root and symptoms by line, shifted past the added lines, stay as they were without
them). And what is not a continuation: an indented line after a record of a quiet level, after
any other line (a record is printed whole), or one with a level or an exception of its own.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import ErrorEvent, Report, Verdict
from logsleuth.pipeline import explain_text, parse
from logsleuth.read import input_from_text


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


def events(lines: list[str]) -> list[ErrorEvent]:
    log = input_from_text("\n".join(lines) + "\n")
    return [e for e in parse(log) if isinstance(e, ErrorEvent)]


heads = st.sampled_from(["[ERROR] ", "[Error]: ", "ERROR:root:", "EE9999: ",
                         "2025-01-01 10:00:00,000 - runner - ERROR - ",
                         "[2025-01-01 10:00:00] [ERROR] ", "(Worker_TP0 pid=7) [Error]: "])
# (not CANN's `Inner Error!` heading, a symptom by its whole text)
messages = st.sampled_from(["Model execution failed.", "Device task failed.",
                            "The program ran into a problem it cannot recover from:"])
# (not torch_npu's `Rectify the fault ...`: with it the record says it only reports a failure
# elsewhere, which is what joining it is for: tests/test_relayed_failures.py)
_MORE = ["see the device log for details", "stream_id=3, task_id=12, retCode=0x31",
         "Please check your configuration."]
continuations = st.lists(st.tuples(st.sampled_from(["        ", "    ", "\t", "  "]),
                                   st.sampled_from(_MORE)), min_size=1, max_size=3)
# where the record is printed
STARTING = ["INFO 07-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.1",
            "INFO 07-01 10:00:01 [core.py:1] Initializing a V1 LLM engine (v0.9.1) with config: "
            "model='Qwen/Qwen3-8B'"]
OTHER_ERROR = ["Traceback (most recent call last):",
               '  File "/opt/vllm/vllm/worker/model_runner.py", line 12, in execute_model',
               "    out = self.model(x)",
               "RuntimeError: ACL stream synchronize failed, error code:507035"]
bases = st.sampled_from(["start", "before", "after"])


def _prefix_of(head: str) -> str:
    return head[:head.index(")") + 2] if head.startswith("(") else ""


def _log(base: str, record: list[str]) -> tuple[list[str], int]:
    """The log and the line number of the record's first line."""
    if base == "start":
        return [*STARTING, *record], len(STARTING) + 1
    if base == "before":
        return [*STARTING, *record, *OTHER_ERROR], len(STARTING) + 1
    # (another process's: its own ERROR line right after an exception goes on its message)
    other = [f"(EngineCore_DP0 pid=3) {line}" for line in OTHER_ERROR]
    return [*STARTING, *other, *record], len(STARTING) + len(other) + 1


@settings(max_examples=150, deadline=None)
@given(heads, messages, continuations, bases)
def test_indented_lines_after_a_record_are_its_message_and_nothing_else_changes(
        head: str, message: str, more: list[tuple[str, str]], base: str) -> None:
    prefix = _prefix_of(head)
    added = [prefix + indent + text for indent, text in more]
    alone, at = _log(base, [head + message])
    joined, _ = _log(base, [head + message, *added])
    # the record's event (or the traceback right after it, which it heads: its title)
    record = next(e for e in events(joined) if e.first_line == at)
    text = record.message if record.line == at else record.title
    assert (text or "").split("\n") == [message.strip(), *(text for _, text in more)]
    shift = len(added)
    # the same errors, one message longer
    assert [(e.first_line, e.exception) for e in events(joined) if e.first_line <= at] == \
        [(e.first_line, e.exception) for e in events(alone) if e.first_line <= at]
    assert len(events(joined)) == len(events(alone))

    def placed(line: int) -> int:
        return line if line <= at else line - shift

    before, after = explain(alone), explain(joined)
    assert after.verdict is before.verdict
    assert (after.root_cause is None) == (before.root_cause is None)
    if before.root_cause is not None and after.root_cause is not None:
        assert placed(after.root_cause.line) == before.root_cause.line
    assert [placed(s.line) for s in after.symptoms] == [s.line for s in before.symptoms]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["[INFO] ", "[WARNING] ", "INFO:root:", "2025-01-01 10:00:00,000 - runner "
                        "- WARNING - "]), messages, continuations)
def test_indented_lines_after_a_quiet_record_stay_no_error(head: str, message: str,
                                                           more: list[tuple[str, str]]) -> None:
    lines = [*STARTING, head + message, *(indent + text for indent, text in more)]
    assert events(lines) == []
    assert explain(lines).verdict is Verdict.NO_FAILURE


@settings(max_examples=60, deadline=None)
@given(heads, messages, continuations,
       st.sampled_from(["Loading the model...", "ERROR 07-01 10:00:02 [core.py:9] next record",
                        "RuntimeError: something else",
                        "(EngineCore_DP0 pid=3) INFO 07-01 10:00:02 [core.py:2] waiting"]))
def test_any_line_between_ends_the_record(
        head: str, message: str, more: list[tuple[str, str]], interrupt: str) -> None:
    # (a line the tokenizer's prefilter skips too: a record is printed whole)
    prefix = "" if interrupt.startswith("(") else _prefix_of(head)
    lines = [*STARTING, head + message, prefix + interrupt,
             *(prefix + indent + text for indent, text in more)]
    record = next(e for e in events(lines) if e.line == len(STARTING) + 1)
    assert record.message == message.strip()


@settings(max_examples=40, deadline=None)
@given(heads, messages, st.sampled_from(["    ValueError: bad shape", "  | exception group margin"]))
def test_an_indented_line_with_its_own_level_or_exception_is_no_continuation(
        head: str, message: str, own: str) -> None:
    prefix = _prefix_of(head)
    lines = [*STARTING, head + message, prefix + own]
    record = next(e for e in events(lines) if e.line == len(STARTING) + 1)
    assert record.message == message.strip()
