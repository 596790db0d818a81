"""containerd/CRI log files with their partial lines joined (issue 10: launchers we did not see).

The container runtime writes each line as `<time> <stream> F <text>`; a line longer than its
buffer (16 KiB in containerd), or one flushed before its newline (a progress bar, a child killed
mid-line), comes as `P` pieces followed by the `F` piece that ends it. Read one piece a line, an
exception's message is cut where the runtime cut it. The pieces are joined into the line their
first piece is on. A piece that comes right after its chain's line so far is taken into it, and
`rows` says where each line lies in the file (as for a hard wrap's rows, inputorder.py); a piece
after another stream's line leaves a blank line where it was, so that every line keeps one place
(a blank between a record and its next line read as the end of that record: a warning's message
line, left alone, read as an error). Pieces are joined per stream (stdout and stderr interleave
in one file). A file saved with CRLF
line ends (copied through Windows) has a `\r` at each piece's end: only the last piece's is kept,
since a `\r` inside a line is a terminal's redraw, which would keep the last piece alone.
"""

from __future__ import annotations

import io
import re
from functools import cache

from logsleuth.hardwrap import Rows
from logsleuth.wholelines import JoinedRows

_JOINED_BYTES = 1 << 20  # a runaway chain of pieces (never a real line) keeps only its start


@cache
def _cri_line(multiline: bool = False) -> re.Pattern[bytes]:
    """containerd's line prefix, `<time> <stream> <F|P> ` (grammars/vllm.lark CRI_TIME), for
    bytes, inside a markdown quote or not (`> `, nested or bare: a pod's file pasted as a quote,
    its pieces joined behind the quote's marks, which stay on the first piece's line);
    `multiline`: at the start of any line of a block. Compiled from the grammar when first
    asked: the reader sniffs the head's times with the grammar before it asks."""
    from logsleuth.tokenize.grammar import terminal_regex

    prefix = b"(?:> ?)*" + terminal_regex("CRI_TIME").pattern.encode()
    return re.compile(b"^" + prefix, re.M) if multiline else re.compile(prefix)


def is_cri(head: bytes) -> bool:
    """Whether the head of a log holds containerd's lines."""
    return _cri_line(multiline=True).search(head) is not None


class CriPieces(JoinedRows):
    """The lines of a CRI log with each `P` chain joined into its first line (see above). Lines
    after an unfinished chain wait until it ends, so what is handed on is final."""

    def __init__(self, stream: io.RawIOBase):
        super().__init__(stream)
        self.rows = Rows()
        self._held: list[bytes] = []  # lines not handed on yet (from the first open chain on)
        self._extra: list[int] = []  # for each held line, the later rows taken into it
        self._open: dict[bytes, int] = {}  # stream -> index in _held of its chain's line
        self._released = 0  # lines handed on

    def feed(self, chunk: bytes) -> bytes:
        data = self._rest + chunk
        end = data.rfind(b"\n") + 1
        self._rest = data[end:]
        if not self._held and b" P " not in data[:end]:
            self._released += data.count(b"\n", 0, end)
            return data[:end]  # the usual block: no piece in it, none open
        self._take(data[:end].split(b"\n")[:-1])
        return self._release()

    def finish(self) -> bytes:
        data, self._end, self._rest = self._rest, True, b""
        self._take(data.split(b"\n") if data else [])
        return self._release()

    def _take(self, lines: list[bytes]) -> None:
        held, extra, chains = self._held, self._extra, self._open
        for line in lines:
            match = _cri_line().match(line) if (chains or b" P " in line) else None
            if match is None:
                held.append(line)
                extra.append(0)
                continue
            # the prefix ends `<stream> <F|P> `: its last two words
            stream, kind = match.group().rsplit(b" ", 3)[1:3]
            piece = line[match.end():]
            at = chains.get(stream)
            if at is None:
                if kind == b"P":
                    chains[stream] = len(held)
                held.append(line)
                extra.append(0)
                continue
            if len(held[at]) < _JOINED_BYTES:
                held[at] = held[at].removesuffix(b"\r") + piece
            if at == len(held) - 1:
                extra[at] += 1  # right after its line: a row of it
            else:
                held.append(b"")  # after another stream's line: its place kept blank
                extra.append(0)
            if kind == b"F":
                del chains[stream]

    def _release(self) -> bytes:
        """The held lines before the first open chain (all of them at the end of the input)."""
        upto = len(self._held) if self._end or not self._open else min(self._open.values())
        if not upto:
            return b""
        out = b"\n".join(self._held[:upto]) + b"\n"
        for n, rows in enumerate(self._extra[:upto], start=self._released + 1):
            if rows:
                self.rows.add(n, rows)
        self._released += upto
        del self._held[:upto], self._extra[:upto]
        self._open = {stream: at - upto for stream, at in self._open.items()}
        return out
