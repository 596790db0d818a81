"""A big plain file read by two processes: this one takes the first half, a forked one the second.

Reading, scanning and counting lines hold the GIL (a second thread was measured no faster), and
they are most of the cost of a big log; a second process on the other core does the second half
at the same time. The forked process only locates its anchored lines (raw bytes and numbers
relative to its start); parsing stays here, in order, so the result is the same as one pass.
Any failure of the second process is caught and its half is read here instead.

The located lines go through a temporary file, one block's worth at a time, and are read back
the same way: in an error-heavy log they are most of the file, and neither process may hold them
all (a pipe would instead stall the second process until this one reached its half).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from logsleuth.model import LineRun, LogLine
from logsleuth.read import LogInput, open_range
from logsleuth.tokenize.scan import Tokenizer, TokenizeStats, anchor_patterns

SPLIT_MIN_BYTES = 64 << 20  # below this a second process costs more than it saves
TAIL_BYTES = 4096


@dataclass(frozen=True, slots=True)
class _Half:
    """What the second process found in its half (its lines are in the spool file)."""

    count: int  # lines in the half
    tail: bytes  # its last bytes, for the log's last line
    notices: list[str]


def can_split(log: LogInput) -> bool:
    """A plain regular file big enough to be worth two processes, on a system that can fork,
    from a process that may safely fork: one thread (forking a threaded process, a Ray worker
    say, can deadlock the child) and not a daemon (which may not have children)."""
    if log.path is None or "fork" not in multiprocessing.get_all_start_methods():
        return False
    if threading.active_count() > 1 or multiprocessing.current_process().daemon:
        return False
    try:
        return log.path.stat().st_size >= SPLIT_MIN_BYTES
    except OSError:
        return False


def tokenize_halves(log: LogInput, stats: TokenizeStats,
                    progress: Callable[[int], None] | None = None
                    ) -> Iterator[LogLine | LineRun]:
    """tokenize_runs() over `log`, reading its second half in a forked process."""
    assert log.path is not None
    path = log.path
    log.close()  # the halves open the file themselves
    size = path.stat().st_size
    middle = _line_start_after(path, size // 2)
    if middle <= 0 or middle >= size:
        yield from _tokenize_range(log, path, 0, size, stats)
        return
    anchor_patterns()  # compiled before the fork, inherited by the child
    handle, spool = tempfile.mkstemp(prefix="logsleuth-half-")
    os.close(handle)
    try:
        with ProcessPoolExecutor(max_workers=1,
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            args = (str(path), middle, size, log.name, log.max_line_bytes, spool)
            second = pool.submit(_locate_half, *args)
            tokenizer = Tokenizer(stats)
            first = open_range(path, 0, middle, name=log.name, max_line_bytes=log.max_line_bytes)
            for block in first.blocks():
                if progress is not None:
                    progress(2 * len(block))  # the other half is read alongside
                yield from tokenizer.feed_runs(block)
            log.notices.extend(first.notices)
            try:
                half = second.result()
            except Exception:  # a crashed or killed child: read its half here
                half = _locate_half(*args)
        base = stats.lines
        for chunk in _spooled(spool):
            yield from tokenizer.parse_runs(chunk, base)
    finally:
        os.unlink(spool)
    tokenizer.skip(half.count, half.tail)
    tokenizer.finish()
    log.notices.extend(half.notices)


def _tokenize_range(log: LogInput, path: Path, start: int, end: int,
                    stats: TokenizeStats) -> Iterator[LogLine | LineRun]:
    tokenizer = Tokenizer(stats)
    part = open_range(path, start, end, name=log.name, max_line_bytes=log.max_line_bytes)
    for block in part.blocks():
        yield from tokenizer.feed_runs(block)
    tokenizer.finish()
    log.notices.extend(part.notices)


def _locate_half(path: str, start: int, end: int, name: str, max_line_bytes: int,
                 spool: str) -> _Half:
    """Locate the anchored lines of [start, end) into `spool`, one pickled list per block."""
    tokenizer = Tokenizer()
    part = open_range(Path(path), start, end, name=name, max_line_bytes=max_line_bytes)
    tail = b""
    with open(spool, "wb") as out:
        for block in part.blocks():
            found = tokenizer.locate(block)
            if found:
                pickle.dump(found, out, protocol=pickle.HIGHEST_PROTOCOL)
            tail = (tail + block[-TAIL_BYTES:])[-TAIL_BYTES:]
    return _Half(tokenizer.stats.lines, tail, part.notices)


def _spooled(spool: str) -> Iterator[list[tuple[int, bytes]]]:
    """The second half's located lines back, one block's worth at a time."""
    with open(spool, "rb") as spooled:
        while True:
            try:
                yield pickle.load(spooled)  # our own file, written just now by our own child
            except EOFError:
                return


def _line_start_after(path: Path, offset: int) -> int:
    """The offset just after the first newline at or after `offset` (0 if there is none)."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        while True:
            chunk = handle.read(1 << 16)
            if not chunk:
                return 0
            newline = chunk.find(b"\n")
            if newline >= 0:
                return offset + newline + 1
            offset += len(chunk)
