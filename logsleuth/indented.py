"""A paste indented as a whole (a markdown list item's or a code block's indentation in an
issue comment, an editor's block indent): every line of its head starts with the same blanks.
The reader hands the log on without them, so that a line the grammar reads at its start (a
record's level, argparse's `usage:`, a traceback's exception line) is where it was written.

A head whose lines all are a traceback's frames (`File "..."` and their source lines, indented
deeper) keeps its indentation: that is the traceback's own, not the paste's."""

from __future__ import annotations

import io
import re

from logsleuth.wholelines import WholeLines

_LEAD = re.compile(rb"^[ \t]*")
_FRAME = re.compile(rb'^File "')
# two indented lines are as likely one message its writer wrapped, its second line the first's
# continuation (`    AssertionError: ... too large for` / `    buffer: 3 > 2`): a paste's own
# indentation is told on three lines or more
_MIN_LINES = 3


def common_indent(head: bytes) -> bytes | None:
    """The blanks every non-blank whole line of `head` starts with (one kind: spaces or a
    tab), or None when there are none, or only a traceback's frames start at them."""
    lines = [line.rstrip(b"\r") for line in head.split(b"\n")[:-1]]
    lines = [line for line in lines if line.strip()]
    if len(lines) < _MIN_LINES:
        return None
    leads = [_LEAD.match(line)[0] for line in lines]  # type: ignore[index]
    shortest = min(leads, key=len)
    if not shortest or len(set(shortest)) != 1 or not all(lead.startswith(shortest)
                                                         for lead in leads):
        return None
    outer = [line[len(shortest):] for line, lead in zip(lines, leads) if lead == shortest]
    if all(_FRAME.match(line) for line in outer):
        return None
    return shortest


class Dedented(WholeLines):
    """A stream handed on with `indent` taken off each line that starts with it (read as whole
    lines, so a line that two reads would cut loses its indentation too)."""

    def __init__(self, stream: io.RawIOBase, indent: bytes):
        super().__init__(stream)
        self._line_start = re.compile(b"^" + re.escape(indent), re.MULTILINE)

    def convert(self, data: bytes) -> bytes:
        return self._line_start.sub(b"", data)
