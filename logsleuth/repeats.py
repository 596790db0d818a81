"""A start-up that ends on one message printed again and again: a process waiting, on a timer, for
something that never comes (a peer that never joins, a lock nobody releases, a node that never
appears), in words nobody taught logsleuth (causality.yaml `hang` names the known ones).

Read from the log's last lines only, and only where the log shows the run's start and start-up had
not completed (causal.py decides): a working server's idle DEBUG lines repeat too, but after it
was ready. The repeated record must be one process's, the same text once numbers are masked, and
printed over time (its own clock spans SPAN_SECONDS or more): eight ranks' identical records of
one step are printed within a second by eight processes, a start-up cut there is not a stall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from logsleuth.model import LineKind, LogLine

REPEATS = 3  # the same record this many times in a row at the end of the log
SPAN_SECONDS = 20  # between the first and the last of them, by their own time stamps

_NUMBERS = re.compile(r"\d+(?:\.\d+)?")
_CLOCK = re.compile(r"(\d\d):(\d\d):(\d\d)(?!.*\d\d:\d\d:\d\d)")
# lines whose repetition is no wait: a bar redrawn (read as a bar by `_stalled`), a traceback's
# or a message's continuation, blank lines
_NOT_WAITS = frozenset({LineKind.PROGRESS, LineKind.INDENTED, LineKind.BLANK, LineKind.FRAME,
                        LineKind.CARET, LineKind.REPEAT, LineKind.ELIDED})


@dataclass(frozen=True, slots=True)
class RepeatedWait:
    """The first of the repeated records at the end of the log, its line number, and how many."""

    line: LogLine
    number: int
    count: int


def repeated_wait(tail: str, line_count: int) -> RepeatedWait | None:
    """The record the log ends on, printed REPEATS times or more in a row over SPAN_SECONDS."""
    from logsleuth.tokenize import parse_line  # only needed for logs without errors
    from logsleuth.tokenize.grammar import clean

    key: tuple[object, str] | None = None
    first: tuple[LogLine, int] | None = None
    last_time = ""
    count = 0
    for offset, text in enumerate(reversed(tail.split("\n"))):
        if not text.strip():
            continue
        line = parse_line(clean(text))
        if line.kind in _NOT_WAITS or line.time is None:
            break
        this = (line.process, _NUMBERS.sub("#", line.text.strip()))
        if key is None:
            key, last_time = this, line.time
        elif this != key:
            break
        first, count = (line, line_count - offset), count + 1
    if first is None or count < REPEATS or _seconds(last_time, first[0].time) < SPAN_SECONDS:
        return None
    return RepeatedWait(first[0], first[1], count)


def _seconds(later: str | None, earlier: str | None) -> int:
    """Seconds from one record's time of day to another's (a day's wrap counted once)."""
    a, b = (_CLOCK.search(t or "") for t in (later, earlier))
    if a is None or b is None:
        return 0
    return (_of_day(a) - _of_day(b)) % 86400


def _of_day(clock: re.Match[str]) -> int:
    hours, minutes, seconds = (int(part) for part in clock.groups())
    return (hours * 60 + minutes) * 60 + seconds
