"""Lines that restate an error the log reports in full elsewhere (causality.yaml `restatements`).

pytest's short test summary repeats, after every test report, the first line of each failed
test's exception (`FAILED tests/x.py::test - Type: message`, cut to the terminal's width with
`...`). It is printed last, but a reporter may paste it first; either way it is a copy of the
report's `E   Type: message` lines, not an earlier failure. The assembler titles such a line by
its wrapper; here it leaves the run's errors when another error of the run is the same exception
(its type and the start of its message). Alone, it stays: it is then the only word of the failure.

pytest's long report also ends each failed test's traceback with the exception's place and type
alone (`vllm/x.py:363: RuntimeError`, a blank line below the `E   Type: message` lines). That bare
type restates the exception just above it; left in, it would stand as an error without a message,
and the root cause where the exception above is only a symptom ("See root cause above").

A reporter also types (or pastes) the error as a headline above the log they paste: the same
`Type: message` alone on the first lines, then the run's own records, its start-up and work, and
the run's own copy of the error with its traceback or its logger's header (tests/fixtures/tuning,
runtime/w-ascend-v071rc1-v0-mqllmengine-embedding-request-ascend-metadata-builder-build-typeerror:
`TypeError: AscendMetadataBuilder.build() takes 3 positional arguments but 5 were given`, then
the server's whole log ending in that traceback). The headline precedes every record of the
run and the run worked after it: it did not happen first, it restates the run's own copy, which
is the error. A paste whose only line is the error has no such copy: the line stays.

So does a headline that nothing below restates, above a few of the run's records and no sign
the run came up (tests/fixtures/tuning, launchers/u-xinference-vllm-qwen15-14b-gptq-cuda-graph-
oom-error-first-three-lines: Xinference's `torch.cuda.OutOfMemoryError: [address=..., pid=...]
CUDA out of memory` on the first line, then the two records of the CUDA-graph capture it broke).
The reporter put the error first and the lines that led to it after: those records are its
lead-up, not work the run did after it (`lone_headline`; causal.py `_Work.worked_after`).
"""

from __future__ import annotations

from logsleuth.knowledge import Causality
from logsleuth.model import ErrorEvent, EventKind, Milestone, MilestoneKind

_CUT = "..."  # pytest's mark of a summary cut to the terminal's width
_NEAR = 3  # lines from an exception's end to pytest's place-and-type line below it (a blank between)


def fold_restatements(errors: list[ErrorEvent], know: Causality) -> list[ErrorEvent]:
    """The errors without the restatements of another error of the same list."""
    errors = _fold_bare_types(errors)
    restating = [e for e in errors if know.restates(e.title)]
    if not restating:
        return errors
    reported = [e for e in errors if not know.restates(e.title)]
    copies = {e.id for e in restating if any(_restates(e, other) for other in reported)}
    return [e for e in errors if e.id not in copies]


def _restates(summary: ErrorEvent, report: ErrorEvent) -> bool:
    if _short(summary.exception) != _short(report.exception):
        return False
    said = " ".join(summary.message.split("\n", 1)[0].split())
    if said.endswith(_CUT):
        said = said[: -len(_CUT)].rstrip()
    return " ".join(report.message.split()).startswith(said)


def fold_headlines(errors: list[ErrorEvent], records: list[int]) -> list[ErrorEvent]:
    """The errors without a reporter's headline: an exception line without frames or time, above
    the first of the run's records (`records`: the lines of its milestones, sorted), when a later
    error of the run is the same exception (its type and the start of its message) printed with
    its traceback or its logger's header, and the run's records stand between the two."""
    if not records or len(errors) < 2:
        return errors
    first = records[0]
    heads = {e.id for e in errors if e.last_line < first and _headline(e)}
    if not heads:
        return errors
    copies = [e for e in errors if e.first_line > first and (e.frames or e.time is not None)]
    said = {e.id for e in errors if e.id in heads
            and any(_restates(e, copy) for copy in copies)}
    return [e for e in errors if e.id not in said]


# the records that show a run came up or served: a headline above them is no lead-up's
_UP = frozenset({MilestoneKind.READY, MilestoneKind.SERVING})


def lone_headline(errors: list[ErrorEvent], records: list[Milestone]) -> int | None:
    """The id of a reporter's headline that no copy below restates (`fold_headlines` folded
    those): an unprefixed exception line without frames or time on the input's first line, the
    only error of the input, with the run's records below it and none that shows the run up
    or serving. None: no such line. `errors` and `records` are in line order."""
    if not errors or not records:
        return None
    head = errors[0]
    if head.first_line != 1 or not _headline(head) or head.process.pid is not None \
            or head.last_line >= records[0].line or any(r.kind in _UP for r in records):
        return None
    if len(errors) > 1:
        # noise a library printed before the run (more lines of it above the first record), or
        # printed once and followed by the run's own failure below: the run outlived it
        return None
    return head.id


def _headline(event: ErrorEvent) -> bool:
    return not event.frames and event.time is None and bool(event.message) \
        and event.kind is EventKind.EXCEPTION


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _fold_bare_types(errors: list[ErrorEvent]) -> list[ErrorEvent]:
    """The errors without a one-line type with no message (no frames) printed right below the
    same process's exception of that type: pytest's place-and-type line restating it."""
    kept: list[ErrorEvent] = []
    for event in errors:
        if not event.message and not event.frames and event.first_line == event.last_line \
                and any(_bare_restates(event, other) for other in kept[-4:]):
            continue
        kept.append(event)
    return kept


def _bare_restates(bare: ErrorEvent, report: ErrorEvent) -> bool:
    return (report.process == bare.process and bool(report.message)
            and _short(report.exception) == _short(bare.exception)
            and 0 < bare.first_line - report.last_line <= _NEAR)
