"""The reader of a big file's far end, run as a process of its own (tokenize/halves.py).

The file is cut into chunks of whole lines. The process that parses takes chunks from the
front, this one from the back, each claiming the next one under a lock (`Claims`), until they
meet: whichever is faster (this one only locates) reads more, so neither waits for the other.
This one only locates lines (logsleuth/locate.py: RE2, no parsing) and writes them to a spool
file, one pickled list per block of stretches of consecutive lines (locate_stretches), so it starts as a small interpreter instead of a copy of the
process that parses: a forked copy held every module and cache of its parent (50-60 MB).

    python -c 'from logsleuth.halfread import main; main()' REQUEST_JSON

REQUEST_JSON: path, size, chunk, block, name, max_line_bytes, spool, claims and patterns (ANCHOR,
SERVING, ALIVE, STATS; null: read from anchors.lark here). It prints one JSON line: the chunks it read
(index, spool offsets, lines counted), the file's last bytes (hex) when it read the last chunk,
and what limited the reading.

The module imports no Lark and no parser, so that the command line can start this reader
before it loads the rest of logsleuth (`FarReader.start`).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from logsleuth.locate import Anchors, anchor_texts, locate_stretches
from logsleuth import read
from logsleuth.read import GZIP_MAGIC, open_range

try:
    import fcntl
except ImportError:  # not a POSIX system: one process reads the whole file
    fcntl = None  # type: ignore[assignment]

TAIL_BYTES = 4096
CHUNK_BLOCKS = 4  # the unit the two processes claim, in read blocks (read.BLOCK_SIZE)
SPLIT_MIN_BYTES = 64 << 20  # below this a second process costs more than it saves
_CHILD = "from logsleuth.halfread import main; main()"
_CLAIMS = struct.Struct("<qq")  # the next chunk from the front, the next from the back


def may_start_far_reader() -> bool:
    """Whether this process may start a second one: one thread (some embedders, a Ray worker
    say, do not expect children) and not a pool's daemon worker (`triage --jobs` already keeps
    every core busy)."""
    return threading.active_count() <= 1 and not multiprocessing.current_process().daemon


def worth_a_far_reader(path: Path) -> bool:
    """A regular file big enough to be worth a second process, on a system that can share its
    chunks between two. (Whether its bytes are the log itself, not gzip or an export, is for
    read.open_input to say; this only looks at the magic numbers.)"""
    if fcntl is None or not sys.executable:
        return False
    try:
        if not path.is_file() or path.stat().st_size < SPLIT_MIN_BYTES:
            return False
        with open(path, "rb") as handle:
            start = handle.read(4)
    except OSError:
        return False
    return not start.startswith((GZIP_MAGIC, b"\xff\xfe", b"\xfe\xff"))


def chunk_count(size: int, chunk: int) -> int:
    return max(1, -(-size // chunk))


def chunk_bounds(handle: BinaryIO, size: int, index: int, chunk: int) -> tuple[int, int]:
    """Bytes [start, end) of chunk `index`: from just after the last newline before
    index * chunk to the next chunk's start (both processes compute the same, from the bytes
    alone). `chunk` is a multiple of the block size, so a chunk starts where a block of a
    whole-file read ends, and is read in the very blocks that read makes (read.open_range):
    the lines located, and so the report, are a single pass's. A chunk inside one very long
    line is empty."""
    last = chunk_count(size, chunk) - 1
    start = 0 if index == 0 else _line_start_before(handle, index * chunk)
    end = size if index >= last else _line_start_before(handle, (index + 1) * chunk)
    return start, max(start, end)


def _line_start_before(handle: BinaryIO, offset: int) -> int:
    """The offset just after the last newline before `offset` (0 if there is none)."""
    end = offset
    while end > 0:
        start = max(0, end - (1 << 16))
        handle.seek(start)
        newline = handle.read(end - start).rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        end = start
    return 0


class Claims:
    """Which chunks are taken: a 16-byte file both processes update under an exclusive lock."""

    def __init__(self, path: str):
        self._fd = os.open(path, os.O_RDWR)

    @staticmethod
    def create(path: str, chunks: int) -> None:
        with open(path, "wb") as out:
            out.write(_CLAIMS.pack(0, chunks - 1))

    def take(self, *, front: bool) -> int | None:
        """The next chunk from the front (or the back), or None when the two have met."""
        assert fcntl is not None
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            low, high = _CLAIMS.unpack(os.pread(self._fd, _CLAIMS.size, 0))
            if low > high:
                return None
            taken: int = low if front else high
            os.pwrite(self._fd, _CLAIMS.pack(low + front, high - (not front)), 0)
            return taken
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._fd)


@dataclass(frozen=True, slots=True)
class FarChunk:
    """One chunk the far reader located: its lines are spool[start:end], `lines` counted."""

    index: int
    start: int
    end: int
    lines: int


@dataclass(frozen=True, slots=True)
class FarResult:
    """What the far reader read (its located lines are in the spool file)."""

    chunks: dict[int, FarChunk]
    tail: bytes  # the file's last bytes, when it read the last chunk
    notices: list[str]  # reading errors
    cut_lines: int = 0
    nul_bytes: int = 0


@dataclass
class FarReader:
    """A far-end reader process and its two files; `close()` stops it and removes them."""

    path: Path
    size: int
    max_line_bytes: int
    spool: str
    claims_path: str
    process: subprocess.Popen[bytes] | None
    chunk: int
    _claims: Claims | None = field(default=None, repr=False)

    @classmethod
    def start(cls, path: Path, name: str, max_line_bytes: int,
              patterns: tuple[str, ...] | None = None) -> FarReader:
        """Start reading `path` from its back; `patterns` None: the reader loads anchors.lark
        itself (the command line starts it before this process has loaded the grammar)."""
        size, chunk = path.stat().st_size, CHUNK_BLOCKS * read.BLOCK_SIZE
        handle, spool = tempfile.mkstemp(prefix="logsleuth-half-")
        os.close(handle)
        handle, claims = tempfile.mkstemp(prefix="logsleuth-claims-")
        os.close(handle)
        Claims.create(claims, chunk_count(size, chunk))
        request = {"path": str(path), "size": size, "chunk": chunk, "block": read.BLOCK_SIZE,
                   "name": name,
                   "max_line_bytes": max_line_bytes, "spool": spool, "claims": claims,
                   "patterns": list(patterns) if patterns is not None else None}
        return cls(path, size, max_line_bytes, spool, claims, _spawn(request), chunk)

    def fits(self, path: Path, max_line_bytes: int) -> bool:
        """Whether this reader reads `path` as it is now, with these limits."""
        try:
            return (path.resolve() == self.path.resolve() and max_line_bytes == self.max_line_bytes
                    and path.stat().st_size == self.size)
        except OSError:
            return False

    @property
    def chunks(self) -> int:
        return chunk_count(self.size, self.chunk)

    def take_front(self) -> int | None:
        """The next chunk for the parsing process, or None when the two have met."""
        if self._claims is None:
            self._claims = Claims(self.claims_path)
        return self._claims.take(front=True)

    def result(self) -> FarResult | None:
        """Wait for the reader's answer; None if it failed (its chunks are then read here)."""
        child = self.process
        if child is None:
            return None
        out, _ = child.communicate()
        if child.returncode != 0:
            return None
        try:
            answer = json.loads(out)
            chunks = {int(k): FarChunk(int(k), int(a), int(b), int(n))
                      for k, a, b, n in answer["chunks"]}
            return FarResult(chunks, bytes.fromhex(answer["tail"]),
                             [str(notice) for notice in answer["notices"]],
                             int(answer["cut_lines"]), int(answer["nul_bytes"]))
        except (ValueError, KeyError, TypeError):
            return None

    def spooled(self, chunk: FarChunk) -> Iterator[list[tuple[int, bytes]]]:
        """One chunk's located lines back, one block's worth at a time (stretches of
        consecutive lines: locate.locate_stretches)."""
        with open(self.spool, "rb") as spooled:
            spooled.seek(chunk.start)
            while spooled.tell() < chunk.end:
                yield pickle.load(spooled)  # our own file, written by our own child

    def close(self) -> None:
        """Stop the reader if it still runs; remove its files."""
        child = self.process
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        if child is not None and child.stdout is not None:
            child.stdout.close()
        if self._claims is not None:
            self._claims.close()
            self._claims = None
        for name in (self.spool, self.claims_path):
            try:
                os.unlink(name)
            except OSError:
                pass


def _spawn(request: dict[str, object]) -> subprocess.Popen[bytes] | None:
    # the child imports this very package, wherever it was imported from
    root = str(Path(__file__).resolve().parent.parent)
    paths = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=root + (os.pathsep + paths if paths else ""))
    try:
        return subprocess.Popen([sys.executable, "-c", _CHILD, json.dumps(request)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return None


def read_from_back(request: dict[str, object]) -> dict[str, object]:
    """Locate the lines of chunks claimed from the back until the other process's meet them."""
    patterns = request["patterns"]
    anchors = Anchors.compile(*(patterns if isinstance(patterns, list) else anchor_texts()))
    path, size, chunk = Path(str(request["path"])), int(str(request["size"])), \
        int(str(request["chunk"]))
    claims = Claims(str(request["claims"]))
    done: list[list[int]] = []
    notices: list[str] = []
    tail = b""
    cut = nul = 0
    with open(path, "rb") as handle, open(str(request["spool"]), "wb") as out:
        while (index := claims.take(front=False)) is not None:
            start, end = chunk_bounds(handle, size, index, chunk)
            part = open_range(path, start, end, name=str(request["name"]),
                              max_line_bytes=int(str(request["max_line_bytes"])),
                              notice_counts=False)
            at, count, last = out.tell(), 0, b""
            for block in part.blocks():
                found, count = locate_stretches(block, count, anchors)
                if found:
                    pickle.dump(found, out, protocol=pickle.HIGHEST_PROTOCOL)
                last = (last + block[-TAIL_BYTES:])[-TAIL_BYTES:]
            done.append([index, at, out.tell(), count])
            if index == chunk_count(size, chunk) - 1:
                tail = last
            notices += part.notices
            cut, nul = cut + part.cut_lines, nul + part.nul_bytes
    return {"chunks": done, "tail": tail.hex(), "notices": notices, "cut_lines": cut,
            "nul_bytes": nul}


def main() -> None:
    """Run one request from argv; the answer goes to stdout."""
    request = json.loads(sys.argv[1])
    read.BLOCK_SIZE = int(request["block"])  # the other process's: chunks read in its blocks
    sys.stdout.write(json.dumps(read_from_back(request)) + "\n")
