"""Record lines that head a frame list inside an exception's message (tests/fixtures/tuning:
b-ascend-v1-lora-tp4-dynamo-data-dependent-guard-excerpt).

vLLM's logger prints every line of one record behind the same header (process, level, time,
call site). A logged traceback whose frames begin with no `Traceback` header above them, while
lines of the same record stand right above the frames, is no traceback cut at its top: it is a
frame list inside an exception's message (torch.compile's `Potential framework code culprit
(scroll up for full backtrace):`, `User Stack (most recent call last):`, `from user code:`), and
the exception line that message belongs to was printed above the excerpt. Those record lines, and
the guidance lines around them (`For more information, run with TORCH_LOGS="dynamic"`), are that
message, not errors of their own: they join the cut traceback, a symptom whose cause the excerpt
lacks.
"""

from __future__ import annotations

from dataclasses import replace

from logsleuth.assemble import CUT_TRACEBACK
from logsleuth.model import ErrorEvent, EventKind, Level

_LEVELS = frozenset(level.value for level in Level)  # a record labelled by its level alone
# how far above the frames a line of the same record may stand (blank lines and frames between
# the message's sections are not events)
_REACH = 200


def fold_record_heads(errors: list[ErrorEvent]) -> list[ErrorEvent]:
    """The errors (in line order) with the record lines above each headless cut traceback of the
    same record folded into it."""
    if not any(e.headless and e.exception == CUT_TRACEBACK for e in errors):
        return errors
    folded: set[int] = set()
    grown: dict[int, int] = {}  # cut traceback id -> its new first line
    for index, cut in enumerate(errors):
        if not (cut.headless and cut.exception == CUT_TRACEBACK and cut.site is not None):
            continue
        first = cut.first_line
        for earlier in reversed(errors[:index]):
            if earlier.process != cut.process:
                continue  # another process's error printed in between (interleaved)
            if not _same_record(earlier, cut) or first - earlier.last_line > _REACH:
                break
            folded.add(earlier.id)
            first = earlier.first_line
        if first != cut.first_line:
            grown[cut.id] = first
    if not folded:
        return errors
    return [replace(e, first_line=grown[e.id]) if e.id in grown else e
            for e in errors if e.id not in folded]


def _same_record(line: ErrorEvent, cut: ErrorEvent) -> bool:
    return line.kind is EventKind.ERROR_RECORD and line.exception in _LEVELS \
        and not line.frames and not line.latent and line.site == cut.site \
        and line.time is not None and line.time == cut.time
