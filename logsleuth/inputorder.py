"""Line numbers of a log that was read in another order or shape than its own, mapped back to
its own.

A log console's download may list the newest line first; the reader turns it over so that
causes come before their effects (read.py), and every stage numbers the lines as it read them.
A log pasted through a hard wrap comes as rows; the reader joins each cut line's rows into one
line (hardwrap.py). The report's contract is the input's line numbers (`sed -n Np` on the file
the user has), so the finished report's line fields are mapped back: line k of N read turned
over is line N + 1 - k of the input, and each span's two ends trade places; a joined line is at
the first row it began on, and a span ends at the last row of its last line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

from logsleuth.model import Frame

if TYPE_CHECKING:
    from logsleuth.hardwrap import Rows

T = TypeVar("T")

_LINE_FIELDS = frozenset({"line", "requested_line", "effective_line", "event_line"})
_SPANS = (("first_line", "last_line"), ("start_line", "end_line"))
_SPAN_FIELDS = frozenset(name for span in _SPANS for name in span)
# the report's sentences that name log lines (causal.py's reasons and where to look, phase.py's
# evidence: its `detail` beside its `line`), and how
_SENTENCES = frozenset({"reasons", "look_for"})
_SAID_LINE = re.compile(r"\b([Ll]ine) (\d+)\b(?=[.;:),]| \()")


def in_input_order(value: T, lines: int) -> T:
    """`value` (a report, or any record in it) with its log line numbers counted as in an input of
    `lines` lines read from the last line up. A frame's line is its source file's: kept. The
    line numbers the report's own sentences give (its reasons, where to look, a phase's
    evidence) are the input's too."""
    return cast(T, _mapped(value, lambda k: lines + 1 - k,
                           lambda first, last: (lines + 1 - last, lines + 1 - first),
                           _said(lambda k: lines + 1 - k)))


def in_file_rows(value: T, rows: Rows) -> T:
    """`value` (a report, or any record in it) with its log line numbers counted as the file's
    rows, for a log whose hard-wrapped rows were read joined (`rows`, hardwrap.py): a line at
    its first row, a span from the first row of its first line to the last row of its last. The
    line numbers the report's own sentences give (its reasons, where to look, a phase's
    evidence: `... printed it at line 21.`) are the file's rows too."""
    return cast(T, _mapped(value, rows.first,
                           lambda first, last: (rows.first(first), rows.last(last)),
                           _said(rows.first)))


def _said(line: Callable[[int], int]) -> Callable[[str], str]:
    """A sentence with each line number it gives (`at line 21.`) mapped by `line`."""
    return lambda text: _SAID_LINE.sub(lambda m: f"{m.group(1)} {line(int(m.group(2)))}", text)


def _mapped(value: object, line: Callable[[int], int],
            span: Callable[[int, int], tuple[int, int]],
            said: Callable[[str], str] | None = None) -> object:
    if isinstance(value, tuple):
        return tuple(_mapped(item, line, span, said) for item in value)
    if isinstance(value, dict):
        return {key: _mapped(item, line, span, said) for key, item in value.items()}
    if not dataclasses.is_dataclass(value) or isinstance(value, (type, Frame)):
        return value
    changes: dict[str, object] = {}
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if field.name in _SPAN_FIELDS:
            continue
        if field.name in _LINE_FIELDS and isinstance(item, int):
            changes[field.name] = line(item)
        elif said is not None and (field.name in _SENTENCES or field.name == "detail"
                                   and hasattr(value, "line")):
            changes[field.name] = said(item) if isinstance(item, str) \
                else tuple(said(text) for text in item)
        else:
            mapped = _mapped(item, line, span, said)
            if mapped is not item:
                changes[field.name] = mapped
    for first, last in _SPANS:
        ends = getattr(value, first, None), getattr(value, last, None)
        if isinstance(ends[0], int) and isinstance(ends[1], int):
            changes[first], changes[last] = span(ends[0], ends[1])
    return dataclasses.replace(value, **changes) if changes else value


@dataclasses.dataclass(frozen=True, slots=True)
class FileLines:
    """How the lines a log was read as lie in its file: read from the last line up
    (`last_line_first`), or with the rows a hard wrap cut joined (`rows`, filled as the log is
    read). Every command maps what it shows through this one object (`of`), so `explain`, its
    pictures, `graph`, `timeline` and `--follow` give the same lines of the same file."""

    last_line_first: bool = False
    rows: Rows | None = None

    def __bool__(self) -> bool:
        """Whether the lines read are numbered otherwise than the file's (so far)."""
        return self.last_line_first or bool(self.rows)

    def of(self, value: T, lines: int) -> T:
        """`value` (a report, an event, an inference) with the line numbers of the `lines`
        lines read counted as the file's."""
        if self.last_line_first:
            value = in_input_order(value, lines)
        if self.rows:
            value = in_file_rows(value, self.rows)
        return value

    def count(self, lines: int) -> int:
        """The file's lines, for `lines` lines read."""
        return self.rows.count(lines) if self.rows else lines
