"""A byte stream rewritten one whole line at a time: the base of the readers that turn an export
(a CSV console download, a JSON-lines log) back into the log's own lines, and of the readers
that join a line's rows (CRI pieces, hard-wrapped rows) across blocks."""

from __future__ import annotations

import io

BLOCK_SIZE = 2 << 20  # big enough that per-block work is noise, small enough for flat memory


class WholeLines(io.RawIOBase):
    """The lines of `stream` as `convert` rewrites them. A line is never handed to `convert` in
    two pieces: what follows a block's last newline waits for the next block (or the end)."""

    def __init__(self, stream: io.RawIOBase):
        self._stream = stream
        self._pending = b""

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while True:
            chunk = self._stream.read(size if size > 0 else BLOCK_SIZE) or b""
            data = self._pending + chunk
            if not chunk:
                self._pending = b""
                return self.convert(data) if data else b""
            end = data.rfind(b"\n") + 1
            self._pending = data[end:]
            if end:
                return self.convert(data[:end])

    def convert(self, data: bytes) -> bytes:
        """`data`'s whole lines (the last one may lack its newline at the end of the input)."""
        raise NotImplementedError

    def close(self) -> None:
        self._stream.close()
        super().close()


class JoinedRows(io.RawIOBase):
    """The lines of `stream` with some rows joined into one line. `feed` takes the next block's
    bytes and hands on the lines they complete (a line still open may wait for later rows);
    `finish` hands on what is left at the end of the input."""

    def __init__(self, stream: io.RawIOBase):
        self._stream = stream
        self._rest = b""  # after the last newline read
        self._end = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while not self._end:
            chunk = self._stream.read(size if size > 0 else BLOCK_SIZE) or b""
            out = self.feed(chunk) if chunk else self.finish()
            if out:
                return out
        return b""

    def feed(self, chunk: bytes) -> bytes:
        """The lines `chunk` (the next bytes of the rows) completes."""
        raise NotImplementedError

    def finish(self) -> bytes:
        """The lines left at the end of the input."""
        raise NotImplementedError

    def close(self) -> None:
        self._stream.close()
        super().close()
