"""A log copied from a terminal that wrapped it (issue 10: consoles we did not see).

A terminal shows a line longer than its width on several rows; a copy of its screen or scrollback
(screen's and some consoles' copy mode, `fold -w`, a screenshot's text) turns each row into a line
of its own, exactly that many characters wide. Read one row a line, an exception's message is cut
where the terminal cut it, and a frame's path is two lines neither of which is a frame.

The width is read from the head of the log: its longest lines, all of one length, several of
them (with different texts) followed by a line that does not begin as they do. A record's head
(`INFO 03-24 ...`, `(APIServer pid=1) ...`, a timestamp) begins the same way every time, the rest
of a cut line mid-text does not: a row exactly as wide as the terminal whose next line begins as
the row's own line began is a line that happened to fill the width, not a cut one. Each cut row
is joined into the line it began, and every row joined leaves a blank line, so every other line
keeps its number (as crilines.py does with containerd's pieces).
"""

from __future__ import annotations

import io

from logsleuth.wholelines import BLOCK_SIZE

_MIN_WIDTH = 80  # narrower terminals are rare, and short lines of one length are common
_MIN_CUT_LINES = 3  # distinct rows that show the cut
_SHAPE_CHARS = 12  # enough to tell a record's head from a row cut mid-text
_JOINED_BYTES = 1 << 20  # a runaway chain of rows (never a real line) keeps only its start


def _width_of(line: bytes) -> int:
    """A line's width in characters (its `\\r` end not counted)."""
    line = line.rstrip(b"\r")
    return len(line) if line.isascii() else len(line.decode("utf-8", "replace"))


def _shape(line: bytes) -> str:
    """How a line begins: its first characters with digits, capitals and small letters each
    standing for their kind, a run of one kind as one (a record head's shape repeats whatever its
    time, level and pid: `INFO 03-24` and `WARNING 03-24` are both `A 9-9`)."""
    head = line[:_SHAPE_CHARS * 4].decode("utf-8", "replace")[:_SHAPE_CHARS]
    out: list[str] = []
    for char in head:
        kind = ("9" if char.isdigit() else "A" if char.isupper() else "a" if char.islower()
                else " " if char.isspace() else char)
        if not out or out[-1] != kind or kind not in "9Aa ":
            out.append(kind)
    return "".join(out)


def _border(line: bytes) -> str:
    """The frame a line begins with, if any: a box drawn around a traceback (rich's `│`), a
    quote's or a table's `>`/`|`, which every row of it repeats."""
    char = line[:4].decode("utf-8", "replace")[:1]
    return char if char and (not char.isascii() or char in "|>") else ""


def _continues(first: bytes, row: bytes) -> bool:
    """Whether `row` goes on a line that began with `first` (it does not begin as `first` did)."""
    border = _border(first)
    return (bool(row.strip()) and _shape(row) != _shape(first)
            and not (border and _border(row) == border))


def wrap_width(head: bytes) -> int | None:
    """The width a terminal cut the log's lines at, or None when the head shows no cut."""
    lines = head.split(b"\n")
    if not head.endswith(b"\n"):
        lines = lines[:-1]  # a line cut by the head's end is no width
    else:
        lines.pop()
    widths = [_width_of(line) for line in lines]
    if not widths:
        return None
    width = max(widths)
    if width < _MIN_WIDTH:
        return None
    cut = {lines[i] for i in range(len(lines) - 1)
           if widths[i] == width and _continues(lines[i], lines[i + 1])}
    return width if len(cut) >= _MIN_CUT_LINES else None


class HardWrapped(io.RawIOBase):
    """The lines of a log wrapped at `width` characters with each cut line's rows joined into its
    first row (see above). A row as wide as the terminal waits for the next line, so what is
    handed on is final."""

    def __init__(self, stream: io.RawIOBase, width: int):
        self._stream = stream
        self._width = width
        self._rest = b""  # after the last newline read
        self._open: bytes | None = None  # the line being joined (its rows so far)
        self._first = b""  # that line's first row, whose beginning a next row must not repeat
        self._blanks = 0  # rows joined into it
        self._end = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while not self._end:
            chunk = self._stream.read(size if size > 0 else BLOCK_SIZE) or b""
            data = self._rest + chunk
            if chunk:
                end = data.rfind(b"\n") + 1
                self._rest = data[end:]
                lines = data[:end].split(b"\n")[:-1]
            else:
                self._end, self._rest = True, b""
                lines = data.split(b"\n") if data else []
            out = self._take(lines)
            if self._end and self._open is not None:
                out.append(self._close())
            if out:
                return b"".join(line + b"\n" for line in out)
        return b""

    def _take(self, lines: list[bytes]) -> list[bytes]:
        out: list[bytes] = []
        width = self._width
        for line in lines:
            if self._open is not None:
                if _continues(self._first, line):
                    if len(self._open) < _JOINED_BYTES:
                        self._open = self._open.rstrip(b"\r") + line
                    self._blanks += 1
                    if _width_of(line) == width:
                        continue  # this row filled the width too: the line may go on
                    out.append(self._close())
                    continue
                out.append(self._close())
            if _width_of(line) == width:
                self._open, self._first, self._blanks = line, line, 0
            else:
                out.append(line)
        return out

    def _close(self) -> bytes:
        assert self._open is not None
        joined = self._open + b"\n" * self._blanks
        self._open, self._blanks = None, 0
        return joined

    def close(self) -> None:
        self._stream.close()
        super().close()
