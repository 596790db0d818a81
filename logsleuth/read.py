"""Read a log from a path, stdin, text or a file object as blocks of whole lines.

The reader never decodes or splits lines itself: it hands on raw bytes in blocks that end on a
`\\n`, so the tokenizer can scan a block at C speed and decode only the lines that matter.
Everything that limited the reading (a truncated gzip, an over-long line, UTF-16) becomes a
notice instead of an exception.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TextIO

from logsleuth.errors import InputError

BLOCK_SIZE = 1 << 20
# A line longer than this is cut: its start is kept (the part a reader needs), the rest skipped.
MAX_LINE_BYTES = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"

Source = str | os.PathLike[str] | BinaryIO | TextIO


@dataclass
class LogInput:
    """An opened log: its display name, its blocks, and what limited the reading."""

    name: str
    _stream: BinaryIO
    notices: list[str] = field(default_factory=list)
    bytes_read: int = 0
    max_line_bytes: int = MAX_LINE_BYTES

    def blocks(self) -> Iterator[bytes]:
        """Yield byte blocks that each end just after a `\\n` (the last one may not)."""
        stream = self._stream
        pending = b""
        cut_lines = 0
        skipping = False  # inside the rest of an over-long line
        while True:
            try:
                chunk = stream.read(BLOCK_SIZE)
            except (EOFError, OSError, zlib.error) as exc:
                self.notices.append(
                    f"the input ends early ({_describe(exc)}) after {self.bytes_read:,} bytes; "
                    "the report covers what was read")
                chunk = b""
            if not chunk:
                break
            self.bytes_read += len(chunk)
            if skipping:
                newline = chunk.find(b"\n")
                if newline < 0:
                    continue
                chunk = chunk[newline:]  # keep the \n so the cut line still counts as a line
                skipping = False
            data = pending + chunk
            end = data.rfind(b"\n")
            if end < 0:
                if len(data) > self.max_line_bytes:
                    cut_lines += 1
                    pending = b""
                    skipping = True
                    yield data[: self.max_line_bytes]
                else:
                    pending = data
                continue
            pending = data[end + 1:]
            if len(pending) > self.max_line_bytes:
                cut_lines += 1
                yield data[: end + 1] + pending[: self.max_line_bytes]
                pending = b""
                skipping = True
                continue
            yield data[: end + 1]
        if pending:
            yield pending
        if cut_lines:
            self.notices.append(
                f"{cut_lines:,} line(s) longer than {self.max_line_bytes:,} bytes were cut to "
                "that length")
        self.close()

    def close(self) -> None:
        try:
            self._stream.close()
        except OSError:
            pass


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text[:120]


def open_input(source: Source, *, name: str | None = None) -> LogInput:
    """Open a log. `source` is a path, `-` (stdin), or a binary or text file object.

    Raises InputError when the input cannot be used at all (missing, a directory, no
    permission). gzip is recognised by its magic bytes, whatever the file is called.
    """
    if isinstance(source, (str, os.PathLike)):
        if str(source) == "-":
            stream: BinaryIO = sys.stdin.buffer
            display = name or "<stdin>"
        else:
            path = Path(source)
            display = name or str(source)
            if path.is_dir():
                raise InputError("is a directory, not a log file", location=display)
            try:
                stream = open(path, "rb")  # noqa: SIM115 - closed by LogInput.blocks
            except FileNotFoundError:
                raise InputError("no such file", location=display) from None
            except PermissionError:
                raise InputError("permission denied", location=display) from None
            except OSError as exc:
                raise InputError(f"cannot open: {exc.strerror or exc}", location=display) from None
    elif isinstance(source, io.TextIOBase) or hasattr(source, "encoding"):
        stream = _TextAsBytes(source)  # type: ignore[arg-type]
        display = name or getattr(source, "name", "<text>")
    else:
        stream = source  # type: ignore[assignment]
        display = name or str(getattr(source, "name", "<stream>"))
    return _unwrap(LogInput(str(display), stream))


def input_from_text(text: str, *, name: str = "<text>") -> LogInput:
    """A log given as a string (library use, tests)."""
    return LogInput(name, io.BytesIO(text.encode("utf-8", "surrogateescape")))


def _unwrap(log: LogInput) -> LogInput:
    """Look at the first bytes: gzip is decompressed, UTF-16 is re-encoded to UTF-8."""
    head = _Peekable(log._stream)
    start = head.peek(4)
    if start.startswith(GZIP_MAGIC):
        log._stream = gzip.GzipFile(fileobj=head, mode="rb")  # type: ignore[assignment]
        return log
    if start.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        log._stream = _Recode(head, "utf-16")  # type: ignore[assignment]
        log.notices.append("the log is UTF-16 encoded; it was read as such")
        return log
    log._stream = head  # type: ignore[assignment]
    return log


class _Peekable(io.RawIOBase):
    """A binary stream whose first bytes can be looked at without losing them."""

    def __init__(self, stream: BinaryIO):
        self._stream = stream
        self._buffer = b""

    def peek(self, size: int) -> bytes:
        while len(self._buffer) < size:
            try:
                more = self._stream.read(size - len(self._buffer))
            except OSError:
                break
            if not more:
                break
            self._buffer += more
        return self._buffer[:size]

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._buffer:
            if size < 0:
                out, self._buffer = self._buffer + self._stream.read(), b""
                return out
            out, self._buffer = self._buffer[:size], self._buffer[size:]
            if len(out) < size:
                out += self._stream.read(size - len(out)) or b""
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
