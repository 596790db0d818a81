"""Does an input look like log output at all? Decided by the line grammar on the input's head.

A CI job that captured the wrong file (a README, a binary, an empty file) must not be told
"no failure": the command line gives such an input an exit code of its own. Only logs in which
nothing at all was found (no error, no milestone, no fact) are sniffed, so a real log never
pays for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from logsleuth.model import MAIN, LineKind
from logsleuth.tokenize.grammar import clean, parse_line

HEAD_BYTES = 64 << 10  # what is sniffed: the start of the input
HEAD_LINES = 400
# Log output is text: a head in which more than this share of the characters are undecodable
# bytes or control characters is binary data, whatever a line of it happens to parse as (4 KiB
# of random bytes hold a `7%|` that reads as a progress bar, or a line `ab.Cd` that reads as an
# exception name, about once in two hundred draws).
_BINARY_SHARE = 0.05
_TEXT_CONTROLS = frozenset("\t\n\r\x1b\x0c")
# Kinds that only log output has (a plain or indented line can be anything, a README's text too).
_LOG_KINDS = frozenset({LineKind.TRACEBACK_HEADER, LineKind.FRAME, LineKind.EXCEPTION,
                        LineKind.NCCL, LineKind.UVICORN, LineKind.ACCESS, LineKind.FATAL,
                        LineKind.DIAGNOSTIC, LineKind.PROCESS_HEADER, LineKind.PROGRESS})


def looks_like_log(head: bytes) -> bool:
    """True when a line of `head` parses as a log record, a process-prefixed line or a
    traceback line; False for an empty input, prose, markup or binary data."""
    text = head[:HEAD_BYTES].decode("utf-8", "replace")
    return not _binary(text) and any(_is_log_line(line) for line in _lines(text))


def _binary(text: str) -> bool:
    noise = sum(1 for char in text
                if char == "\ufffd" or (char < " " and char not in _TEXT_CONTROLS))
    return noise > _BINARY_SHARE * len(text)


def _lines(text: str) -> Iterable[str]:
    for count, line in enumerate(text.splitlines()):
        if count >= HEAD_LINES:
            return
        if line.strip() and "\x00" not in line:
            yield clean(line)  # as the tokenizer reads it: a coloured header has its time


def _is_log_line(text: str) -> bool:
    line = parse_line(text)
    return line.level is not None or line.process != MAIN or line.kind in _LOG_KINDS


# A log console's download (RunPod's, a cloud console's "download as text") may list the newest
# line first. Told by the record times the grammar reads (vLLM's, glog's, Ray's) on the head:
# this many changes of time, every one of them back in time. A log in time order never steps
# back this often without stepping forward (processes' clocks differ by less than their records).
NEWEST_FIRST_STEPS = 3


def newest_first(head: bytes) -> bool:
    """True when the record times of `head`'s lines go back in time at every change."""
    text = head[:HEAD_BYTES].decode("utf-8", "replace")
    # lazily: a log in time order is told by its first step forward, a few lines in, instead
    # of parsing the whole head (a fifth of a tiny log's run)
    times = (time for time in (parse_line(line).time for line in _lines(text)) if time)
    return only_back_in_time(times, NEWEST_FIRST_STEPS)


def only_back_in_time(times: Iterable[Any], at_least: int) -> bool:
    """The times change at least `at_least` times, and go back at every change (lines of one
    instant keep their order either way, so only a change of time counts). Reads `times` up to
    the first change that does not go back."""
    steps = 0
    earlier: Any = None
    for count, later in enumerate(times):
        if count and later != earlier:
            if not later < earlier:
                return False
            steps += 1
        earlier = later
    return steps >= at_least
