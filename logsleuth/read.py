"""Read a log from a path, stdin, text or a file object as blocks of whole lines.

The reader never decodes or splits lines itself: it hands on raw bytes in blocks that end on a
`\\n`, so the tokenizer can scan a block at C speed and decode only the lines that matter.
Everything that limited the reading (a truncated gzip, an over-long line, UTF-16) becomes a
notice instead of an exception.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TextIO, cast

from logsleuth.crilines import CriPieces, is_cri
from logsleuth.errors import InputError
from logsleuth.hardwrap import HEAD_BYTES as WRAP_HEAD_BYTES
from logsleuth.hardwrap import HardWrapped, Rows, wrap_width
from logsleuth.hardwrap import notice as wrap_notice
from logsleuth.indented import Dedented, common_indent
from logsleuth.jsonlines import JsonMessages, message_key
# re-exported: the reader of a file's far end reads its chunks in this module's block size
from logsleuth.wholelines import BLOCK_SIZE as BLOCK_SIZE
from logsleuth.wholelines import WholeLines

# A line longer than this is cut: its start is kept (the part a reader needs), the rest skipped
# and counted in a notice. The longest line in the shared corpus is 4 KB (an engine config dump);
# 64 KiB keeps every real line whole while a 50 MB single-line paste costs no more than 64 KiB.
MAX_LINE_BYTES = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
_GZIP_CHUNK = 16 * 1024  # compressed bytes read at a time
_INFLATE_SLICE = 4 * 1024  # and inflated at a time: corrupt data loses only the text of one slice

Source = str | os.PathLike[str] | BinaryIO | TextIO


@dataclass
class LogInput:
    """An opened log: its display name, its blocks, and what limited the reading."""

    name: str
    _stream: BinaryIO
    notices: list[str] = field(default_factory=list)
    bytes_read: int = 0
    max_line_bytes: int = MAX_LINE_BYTES
    cut_lines: int = 0
    nul_bytes: int = 0
    path: Path | None = None  # a regular file read as it is (no gzip, no re-encoding)
    last_line_first: bool = False  # read from its last line up (a console's newest-first download)
    # a range of a file read in chunks leaves its counts to the reader of the whole file, which
    # sums them over the chunks into one notice each (reading_notices)
    notice_counts: bool = True
    # where the lines read lie in the file, when rows a hard wrap cut were joined (hardwrap.py)
    rows: Rows | None = None

    def blocks(self) -> Iterator[bytes]:
        """Yield byte blocks that each end just after a `\\n` (the last one may not).

        Lines longer than `max_line_bytes` are cut to that length (their `\\n` kept, so line
        numbers stay right); reading errors end the input with a notice. Never raises.
        """
        if self.max_line_bytes < 1:
            raise ValueError("max_line_bytes must be at least 1")
        stream = self._stream
        limit = self.max_line_bytes
        pending = b""  # the unfinished last line, never more than `limit` bytes
        skipping = False  # inside the rest of an over-long line whose head is in `pending`
        window = b""  # while skipping, the last `limit` + 1 bytes of that line (last_drawing)
        while True:
            try:
                chunk = stream.read(BLOCK_SIZE)
            except (EOFError, OSError, ValueError, zlib.error) as exc:
                # ValueError: a file object closed under us (stdin closed by the caller)
                self.notices.append(
                    f"the input ends early ({_describe(exc)}) after {self.bytes_read:,} bytes; "
                    "the report covers what was read")
                chunk = b""
            if not chunk:
                break
            self.bytes_read += len(chunk)
            if b"\0" in chunk:  # memchr; counting every block would cost a pass of its own
                self.nul_bytes += chunk.count(b"\0")
            if skipping:
                newline = chunk.find(b"\n")
                window = (window + chunk[:newline if newline >= 0 else len(chunk)]
                          [-(limit + 1):])[-(limit + 1):]
                if newline < 0:
                    continue
                pending = last_drawing(pending, window, limit)
                chunk = chunk[newline:]  # the cut line ends here: keep its \n
                skipping = False
            # one copy per block: the unfinished line before it, and this block up to its last \n
            end = chunk.rfind(b"\n") + 1
            if end:
                view = memoryview(chunk)
                body, pending = pending + view[:end], bytes(view[end:])
            else:
                body, pending = b"", pending + chunk
            if len(pending) > limit:
                self.cut_lines += 1
                window = pending[-(limit + 1):]
                pending = pending[:limit]
                skipping = True
            if body:
                yield self._cut_long_lines(body)
        if skipping:
            pending = last_drawing(pending, window, limit)
        if pending:
            yield pending
        if self.notice_counts:
            self.notices += reading_notices(self.cut_lines, self.nul_bytes, limit)
        self.close()

    def _cut_long_lines(self, data: bytes) -> bytes:
        """Cut every line of `data` longer than the limit, at C speed.

        Tiles of half the limit are searched for a newline; a line longer than the limit
        covers at least one whole tile, so only tiles without a newline need a closer look.
        """
        limit = self.max_line_bytes
        if len(data) <= limit:
            return data
        step = max(1, limit // 2)
        pieces: list[bytes] = []
        kept = 0
        position = 0
        size = len(data)
        find, rfind = data.find, data.rfind
        while position < size:
            if find(b"\n", position, position + step) >= 0:
                position += step
                continue
            start = rfind(b"\n", 0, position) + 1
            end = find(b"\n", position)
            if end < 0:
                end = size
            if end - start > limit:
                pieces += [data[kept:start], last_drawing(data[start:start + limit],
                                                          data[max(start, end - limit - 1):end],
                                                          limit)]
                kept = end
                self.cut_lines += 1
            position = end + 1
        if not pieces:
            return data
        pieces.append(data[kept:])
        return b"".join(pieces)

    def close(self) -> None:
        try:
            self._stream.close()
        except (OSError, ValueError):
            pass


def last_drawing(head: bytes, tail: bytes, limit: int) -> bytes:
    """What is kept of a line longer than `limit`: its first `limit` bytes (`head`), or, for a
    terminal's line drawn over again after each `\r` (a progress bar redrawn for hours: an
    evaluation harness's bar over a thousand requests is ~100 KiB), its last drawing from that
    `\r` on, when it fits: what the terminal showed, and what tokenize/grammar.py `clean` reads
    of a line. `tail` is the line's last `limit` + 1 bytes (a `\r` that ends the line is a
    record's line end, not a drawing)."""
    stop = len(tail) - 1 if tail.endswith(b"\r") else len(tail)
    last = tail.rfind(b"\r", 0, stop)
    if last >= 0 and len(tail) - last <= limit:
        return tail[last:]
    return head


def reading_notices(cut_lines: int, nul_bytes: int, limit: int) -> list[str]:
    """The notices of what reading a whole input met: lines cut, NUL bytes."""
    notices: list[str] = []
    if cut_lines:
        notices.append(f"{cut_lines:,} line(s) longer than {limit:,} bytes were cut to that "
                       "length; the rest of each was not read")
    if nul_bytes:
        notices.append(f"the input holds {nul_bytes:,} NUL byte(s): binary data or a corrupted "
                       "stretch; it was read as text")
    return notices


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text[:120]


_MAX_PATH_CHARS = 4096  # PATH_MAX on Linux: a longer string is not a path


DIRECTORY_GIVEN = ("is a directory, not a log file (`logsleuth triage DIR` explains every log "
                   "in a directory)")


def open_input(source: Source, *, name: str | None = None,
               max_line_bytes: int = MAX_LINE_BYTES) -> LogInput:
    """Open a log. `source` is a path, `-` (stdin), or a binary or text file object.

    Raises InputError when the input cannot be used at all (missing, a directory, no
    permission, stdin closed), TypeError when `source` is none of these (bytes, a number). gzip is recognised by its magic bytes, whatever the file is
    called. Lines longer than `max_line_bytes` are cut, with a notice.
    """
    if isinstance(source, str) and ("\n" in source or len(source) > _MAX_PATH_CHARS):
        raise InputError("this is log text, not a path: pass it to logsleuth.explain_text() "
                         "(or a file object such as io.StringIO)",
                         location=repr(source[:40] + "…"))
    if isinstance(source, (str, os.PathLike)):
        if str(source) == "-":
            stdin = sys.stdin
            if stdin is None:  # started with file descriptor 0 closed
                raise InputError("stdin is closed", location=name or "<stdin>")
            buffer = getattr(stdin, "buffer", None)
            stream: BinaryIO = cast(BinaryIO, buffer if buffer is not None
                                    else _TextAsBytes(stdin))
            display = name or "<stdin>"
        else:
            path = Path(source)
            display = name or str(source)
            if path.is_dir():
                raise InputError(DIRECTORY_GIVEN, location=display)
            try:
                stream = open(path, "rb")  # noqa: SIM115 - closed by LogInput.blocks
            except FileNotFoundError:
                raise InputError("no such file", location=display) from None
            except PermissionError:
                raise InputError("permission denied", location=display) from None
            except OSError as exc:
                raise InputError(f"cannot open: {exc.strerror or exc}", location=display) from None
            except ValueError as exc:  # a NUL character in the path
                raise InputError(f"cannot open: {exc}", location=repr(display)) from None
    elif isinstance(source, io.TextIOBase) or hasattr(source, "encoding"):
        stream = cast(BinaryIO, _TextAsBytes(cast(TextIO, source)))
        display = name or str(getattr(source, "name", "<text>"))
    elif callable(getattr(source, "read", None)):
        stream = source
        display = name or str(getattr(source, "name", "<stream>"))
    elif isinstance(source, (bytes, bytearray, memoryview)):
        raise TypeError("this is the log's bytes, not a path or a file: pass io.BytesIO(data) "
                        "(or the decoded text to logsleuth.explain_text())")
    else:
        raise TypeError(f"a log is a path, '-' (stdin) or a file object, not "
                        f"{type(source).__name__}")
    log = _unwrap(LogInput(str(display), stream, max_line_bytes=max_line_bytes))
    if isinstance(source, (str, os.PathLike)) and str(source) != "-" \
            and isinstance(log._stream, _Peekable):
        log.path = Path(source)  # plain bytes on disk: a reader may split it into ranges
    return log


def open_range(path: Path, start: int, end: int, *, name: str,
               max_line_bytes: int = MAX_LINE_BYTES, notice_counts: bool = True) -> LogInput:
    """Bytes `start`..`end` of a plain file as a LogInput of their own. Its reads end where a
    whole-file read's do (at multiples of the block size), so a range that starts where a block
    of the whole file ends is read in the very blocks the whole file is."""
    handle = open(path, "rb")  # noqa: SIM115 - closed by LogInput.blocks
    handle.seek(start)
    return LogInput(name, cast(BinaryIO, _Bounded(handle, end - start, start)),
                    max_line_bytes=max_line_bytes, notice_counts=notice_counts)


def input_from_text(text: str, *, name: str = "<text>") -> LogInput:
    """A log given as a string (library use, tests); a CSV export is read as one."""
    return _unwrap(LogInput(name, io.BytesIO(text.encode("utf-8", "surrogateescape"))))


def _json_notice(key: str) -> str:
    return (f"the log is JSON lines (Docker's json-file, journalctl -o json, a log service's "
            f"export); the `{key}` field of each line was read")


def _unwrap(log: LogInput) -> LogInput:
    """Look at the first bytes: gzip is decompressed, UTF-16 is re-encoded to UTF-8."""
    head = _Peekable(log._stream)
    start = head.peek(4)
    if start.startswith(GZIP_MAGIC):
        log._stream = _Gunzip(head, log.notices)  # type: ignore[assignment]
        return log
    if start.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        log._stream = _Recode(head, "utf-16")  # type: ignore[assignment]
        log.notices.append("the log is UTF-16 encoded; it was read as such")
        return log
    layout = _csv_layout(head.peek(_CSV_HEAD_BYTES))
    if layout is not None:
        log._stream = _CsvMessages(head, layout)  # type: ignore[assignment]
        log.notices.append("the log is a CSV export (a time and a message column); its "
                           "message column was read")
        if layout.newest_first:
            log.notices.append("the CSV export lists its newest rows first; they were read "
                               "oldest first, so line numbers count rows in time order")
        return log
    json_head = head.peek(_NEWEST_FIRST_HEAD_BYTES)
    key = message_key(json_head, cut=len(json_head) >= _NEWEST_FIRST_HEAD_BYTES)
    if key is not None:
        log._stream = JsonMessages(head, key)  # type: ignore[assignment]
        log.notices.append(_json_notice(key))
        return log
    from logsleuth.tokenize.sniff import newest_first  # the grammar reads the head's times

    if newest_first(head.peek(_NEWEST_FIRST_HEAD_BYTES)):
        log._stream = _ReversedLines(head)  # type: ignore[assignment]
        log.last_line_first = True
        log.notices.append("the log lists its newest lines first (a log console's download); "
                           "it was read oldest first, and line numbers are the file's own")
        return log
    if is_cri(head.peek(_NEWEST_FIRST_HEAD_BYTES)):
        pieces = CriPieces(head)
        log.rows = pieces.rows
        # JSON lines are told on the joined head: a head of cut objects is no JSON
        joined = _Peekable(cast(BinaryIO, pieces))
        json_head = joined.peek(_NEWEST_FIRST_HEAD_BYTES)
        key = message_key(json_head, cut=len(json_head) >= _NEWEST_FIRST_HEAD_BYTES)
        if key is None:
            log._stream = joined  # type: ignore[assignment]
            return log
        log._stream = JsonMessages(joined, key)  # type: ignore[assignment]
        log.notices.append(_json_notice(key))
        return log
    if _cr_line_ends(head.peek(_NEWEST_FIRST_HEAD_BYTES)):
        log._stream = _CrLines(head)  # type: ignore[assignment]
        log.notices.append("the log ends its lines with a carriage return alone (`\\r`, an old "
                           "Mac editor's or a copy's line ends); each was read as a line break")
        return log
    width = wrap_width(head.peek(WRAP_HEAD_BYTES))
    if width is not None:
        wrapped = HardWrapped(head, width)
        log._stream, log.rows = wrapped, wrapped.rows  # type: ignore[assignment]
        log.notices.append(wrap_notice(width))
        return log
    indent = common_indent(head.peek(_NEWEST_FIRST_HEAD_BYTES))
    if indent is not None:
        log._stream = Dedented(head, indent)  # type: ignore[assignment]
        return log
    log._stream = head  # type: ignore[assignment]
    return log


# A paste saved with `\r` alone between lines (classic Mac line ends, some clipboards): no `\n` in
# the head and a few `\r`. A terminal's `\r` (tqdm's refreshes) comes within lines that `\n` ends,
# so a log that has any `\n` keeps it as an overwrite (grammar.py `clean`).
_CR_LINES_MIN = 2


def _cr_line_ends(head: bytes) -> bool:
    return b"\n" not in head and head.count(b"\r") >= _CR_LINES_MIN


class _CrLines(io.RawIOBase):
    """A stream whose lines end in `\\r` alone, handed on with `\\n` line ends."""

    def __init__(self, stream: io.RawIOBase):
        self._stream = stream

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        return (self._stream.read(size) or b"").replace(b"\r", b"\n")

    def close(self) -> None:
        self._stream.close()
        super().close()


_NEWEST_FIRST_HEAD_BYTES = 16 << 10  # enough lines to see the time change a few times


def _whole_lines(stream: io.RawIOBase) -> list[bytes]:
    """Every line of what is left of a stream, without their newlines."""
    chunks = []
    while chunk := stream.read(BLOCK_SIZE):
        chunks.append(chunk)
    lines = b"".join(chunks).split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


class _ReversedLines(io.RawIOBase):
    """A whole input with its lines in the reverse order (read at once: a console's download,
    never a growing file)."""

    def __init__(self, stream: io.RawIOBase):
        self._stream = stream
        self._out: io.BytesIO | None = None

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._out is None:
            lines = _whole_lines(self._stream)
            self._out = io.BytesIO(b"\n".join(reversed(lines)) + b"\n" if lines else b"")
        return self._out.read(size)

    def close(self) -> None:
        self._stream.close()
        super().close()


# A log exported from a log service as CSV (CloudWatch Logs of SageMaker endpoints and ECS tasks,
# Logs Insights' `@timestamp,@message`, a Loki or Datadog table): one event a row, its time then
# its message, quoted with `""` for each quote inside it when it needs quoting, with or without a
# header row naming the columns (`1756144012376,"(EngineCore_0 pid=75) ERROR ..."`). A file format
# like gzip, not a line shape: each row becomes the message it holds, on the row's own line.
_CSV_HEAD_BYTES = 4096
_CSV_MESSAGE_COLUMNS = ("message", "msg", "log", "line", "textpayload", "content")
_CSV_TIME_COLUMNS = ("timestamp", "time", "ingestiontime", "date", "datetime", "ts")
_CSV_SAMPLE_ROWS = 5  # header-less: this many first lines (fewer in a short log) must be rows


@dataclass(frozen=True, slots=True)
class _CsvLayout:
    time: int  # the column of the event's time
    message: int  # the column of its text
    header: bool  # the first line names the columns
    newest_first: bool = False  # rows listed newest first (a console's download): reversed


def _csv_cells(line: str) -> list[str]:
    try:
        return next(csv.reader([line.rstrip("\r")]), [])
    except csv.Error:  # a `\r` inside the line, a NUL, a field over the reader's limit
        return []


def _is_time_cell(cell: str, *, named: bool = False) -> bool:
    """An event time as log services export it: epoch seconds or milliseconds; in a column a
    header row names as the time, any number or an ISO date. (Without a header, a date is not
    enough: Python's `2025-01-01 10:00:00,000 - INFO - ...` has a comma after its time.)"""
    cell = cell.strip()
    if cell.isdigit():
        return named or 10 <= len(cell) <= 13
    return named and len(cell) >= 10 and cell[:4].isdigit() and cell[4:5] == "-" \
        and cell[5:7].isdigit()


def _csv_layout(head: bytes) -> _CsvLayout | None:
    """How a CSV export is laid out, when `head` (the first bytes of the input) starts one."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.split("\n")
    if len(head) >= _CSV_HEAD_BYTES:
        lines = lines[:-1]  # the last line may be cut by the peek
    lines = [line for line in lines if line.strip()]
    if not lines or "," not in lines[0]:
        return None
    names = [name.strip().lstrip("@").lower() for name in _csv_cells(lines[0])]
    time = next((i for i, name in enumerate(names) if name in _CSV_TIME_COLUMNS), None)
    message = next((i for i, name in enumerate(names) if name in _CSV_MESSAGE_COLUMNS), None)
    if time is not None and message is not None and len(lines[0]) <= 200:
        rows = [_csv_cells(line) for line in lines[1:]]
        return _CsvLayout(time, message, header=True,
                          newest_first=_newest_first(rows, time, named=True))
    sample = [_csv_cells(line) for line in lines[:_CSV_SAMPLE_ROWS]]
    if all(len(cells) >= 2 and _is_time_cell(cells[0]) for cells in sample):
        rows = [_csv_cells(line) for line in lines]
        return _CsvLayout(0, 1, header=False, newest_first=_newest_first(rows, 0, named=False))
    return None


def _time_key(cell: str) -> tuple[int, str]:
    """A row's time as something to order by: epoch numbers by value, ISO dates by their text
    (the same export writes every date the same way, so their text orders them)."""
    cell = cell.strip()
    return (int(cell), "") if cell.isdigit() else (0, cell.replace("T", " "))


def _newest_first(rows: list[list[str]], column: int, *, named: bool) -> bool:
    """The rows of the head go back in time (never forward, and at least once back): a log
    console's download that lists the newest event first (CloudWatch, Datadog, Loki, RunPod).
    Rows of one millisecond keep their order either way, so only a change of time counts."""
    from logsleuth.tokenize.sniff import only_back_in_time

    times = [_time_key(cells[column]) for cells in rows
             if len(cells) > column and _is_time_cell(cells[column], named=named)]
    return only_back_in_time(times, 1)


class _CsvMessages(WholeLines):
    """The message column of a CSV export, one row a line, as UTF-8 bytes.

    Each physical line is read as one row, so line numbers stay those of the file (the header
    row becomes an empty line) and a quote left open (an export cut mid-row) cannot swallow the
    rows after it. A line that is not a row (no time in its time column: the rest of a message
    that spanned lines, a line pasted around the export) is handed on as it is.
    """

    def __init__(self, stream: io.RawIOBase, layout: _CsvLayout):
        super().__init__(stream)
        self._layout = layout
        self._header = layout.header
        self._reversed: io.BytesIO | None = None

    def read(self, size: int = -1) -> bytes:
        if self._layout.newest_first:
            if self._reversed is None:
                self._reversed = io.BytesIO(self.convert(self._oldest_first()))
            return self._reversed.read(size)
        return super().read(size)

    def _oldest_first(self) -> bytes:
        """The whole export with its rows in time order: each row with the lines that continue
        it (a message that spanned lines) moves as one, the header row stays first. The export
        is read whole: a console's download, not a growing file."""
        lines = _whole_lines(self._stream)
        head = lines[:1] if self._layout.header else []
        groups: list[list[bytes]] = []
        layout = self._layout
        for line in lines[len(head):]:
            cells = _csv_cells(line.decode("utf-8", "surrogateescape"))
            is_row = len(cells) > max(layout.time, layout.message) \
                and _is_time_cell(cells[layout.time], named=layout.header)
            if is_row or not groups:
                groups.append([line])
            else:
                groups[-1].append(line)
        ordered = head + [line for group in reversed(groups) for line in group]
        return b"\n".join(ordered) + b"\n" if ordered else b""

    def convert(self, data: bytes) -> bytes:
        out: list[str] = []
        text = data.decode("utf-8", "surrogateescape")
        ended = text.endswith("\n")
        layout = self._layout
        for line in text.split("\n")[:-1] if ended else text.split("\n"):
            if self._header:
                self._header = False
                out.append("")
                continue
            cells = _csv_cells(line)
            if len(cells) > max(layout.time, layout.message) \
                    and _is_time_cell(cells[layout.time], named=layout.header):
                out.append(cells[layout.message].replace("\n", " "))
            else:
                out.append(line)
        return ("\n".join(out) + ("\n" if ended else "")).encode("utf-8", "surrogateescape")


class _Bounded(io.RawIOBase):
    """At most `size` bytes of a stream, now at `offset`; a read of n bytes ends at the next
    multiple of n (the file offsets a read of the whole file stops at)."""

    def __init__(self, stream: BinaryIO, size: int, offset: int = 0):
        self._stream = stream
        self._left = size
        self._offset = offset

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        want = self._left if size <= 0 else min(size - self._offset % size, self._left)
        data = self._stream.read(want) or b""
        self._left -= len(data)
        self._offset += len(data)
        return data

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            super().close()


class _Peekable(io.RawIOBase):
    """A binary stream whose first bytes can be looked at without losing them."""

    def __init__(self, stream: BinaryIO):
        self._stream = stream
        self._buffer = b""

    def peek(self, size: int) -> bytes:
        while len(self._buffer) < size:
            try:
                more = self._stream.read(size - len(self._buffer))
            except (OSError, ValueError):  # unreadable from the start: blocks() says so
                break
            if not more:
                break
            self._buffer += more
        return self._buffer[:size]

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._buffer:
            # a short read: the peeked bytes alone, so that an error of the next read comes
            # after them instead of taking them with it
            if size < 0:
                size = len(self._buffer)
            out, self._buffer = self._buffer[:size], self._buffer[size:]
            if len(out) < size and not self._buffer:
                # the rest of the block from the stream, so that blocks end where they would
                # without the peek (only the last of each kind of activity line in a block is
                # read: a tiny first block would keep other lines)
                try:
                    out += self._stream.read(size - len(out)) or b""
                except (OSError, ValueError):
                    pass  # raised again by the next read, after these bytes were handed on
            return out
        return self._stream.read(size) or b""

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            super().close()


class _Gunzip(io.RawIOBase):
    """Decompress gzip (one or more members) and keep everything before a truncation or a
    corrupt stretch. `gzip.GzipFile` raises on a cut stream and loses the text it had already
    decompressed in that read; a log cut by a full disk or a killed `gzip` must still be read.
    """

    def __init__(self, stream: io.RawIOBase, notices: list[str]):
        self._stream = stream
        self._notices = notices
        self._inflate = zlib.decompressobj(wbits=31)
        self._member_started = False
        self._raw = b""  # compressed bytes read but not yet inflated
        self._out = b""
        self._done = False
        self._error: BaseException | None = None
        self._compressed = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = size if size > 0 else BLOCK_SIZE
        while len(self._out) < want and not self._done:
            self._fill()
        if not self._out and self._error is not None:
            error, self._error = self._error, None
            raise error  # after all text before it was handed on
        out, self._out = self._out[:want], self._out[want:]
        return out

    def _fill(self) -> None:
        raw, self._raw = self._raw, b""
        if not raw:
            raw = self._stream.read(_GZIP_CHUNK) or b""
            self._compressed += len(raw)
        if not raw:
            self._done = True
            if self._member_started and not self._inflate.eof:
                self._error = EOFError("gzip stream ends before its end marker")
            return
        if not self._member_started:
            if not raw.startswith(GZIP_MAGIC[: len(raw)]):
                if raw.strip(b"\0"):  # zero padding after the stream is harmless
                    self._notices.append("bytes after the end of the gzip stream were ignored")
                self._done = True
                return
            self._inflate = zlib.decompressobj(wbits=31)
            self._member_started = True
        piece, rest = raw[:_INFLATE_SLICE], raw[_INFLATE_SLICE:]
        try:
            # bounded output: a small, highly compressed stretch must not become gigabytes here
            self._out += self._inflate.decompress(piece, BLOCK_SIZE)
        except zlib.error as exc:
            self._done = True
            where = self._compressed - len(raw)
            self._error = EOFError(f"gzip data corrupt near compressed byte {where:,}: {exc}")
            return
        if self._inflate.eof:
            self._raw = self._inflate.unused_data + rest  # a member ended: another may follow
            self._member_started = False
        else:
            self._raw = self._inflate.unconsumed_tail + rest

    def close(self) -> None:
        self._stream.close()
        super().close()


class _Recode(io.RawIOBase):
    """Decode a stream in one encoding and hand it on as UTF-8 bytes."""

    def __init__(self, stream: io.RawIOBase, encoding: str):
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while True:
            raw = self._stream.read(size if size > 0 else BLOCK_SIZE) or b""
            text = self._decoder.decode(raw, final=not raw)
            if text or not raw:  # an empty result only at the end of the stream
                return text.encode("utf-8", "surrogateescape")

    def close(self) -> None:
        self._stream.close()
        super().close()


class _TextAsBytes(io.RawIOBase):
    """A text file object read as UTF-8 bytes."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        text = self._stream.read(size if size > 0 else BLOCK_SIZE)
        return text.encode("utf-8", "surrogateescape")
