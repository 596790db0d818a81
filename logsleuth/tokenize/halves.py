"""A big plain file read by two processes: this one takes the first half, a second one the rest.

Reading, scanning and counting lines hold the GIL (a second thread was measured no faster), and
they are most of the cost of a big log; a second process on the other core does the second half
at the same time. That process only locates its anchored lines (raw bytes and numbers relative
to its start; logsleuth/halfread.py); parsing stays here, in order, so the result is the same as
one pass. It is a new small interpreter, not a fork: a fork held a copy of every module and
cache of this one. Any failure of the second process is caught and its half is read here.

The located lines go through a temporary file, one block's worth at a time, and are read back
the same way: in an error-heavy log they are most of the file, and neither process may hold them
all (a pipe would instead stall the second process until this one reached its half).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from logsleuth.halfread import Half, locate_half
from logsleuth.model import LineRun, LogLine
from logsleuth.read import LogInput, open_range
from logsleuth.tokenize.scan import Tokenizer, TokenizeStats, anchor_texts

SPLIT_MIN_BYTES = 64 << 20  # below this a second process costs more than it saves
_CHILD = "from logsleuth.halfread import main; main()"


def can_split(log: LogInput) -> bool:
    """A plain regular file big enough to be worth two processes, read by a process that may
    start one: one thread (some embedders, a Ray worker say, do not expect children) and not a
    pool's daemon worker (`triage --jobs` already keeps every core busy)."""
    if log.path is None or not sys.executable or threading.active_count() > 1:
        return False
    if multiprocessing.current_process().daemon:
        return False
    try:
        return log.path.stat().st_size >= SPLIT_MIN_BYTES
    except OSError:
        return False


def tokenize_halves(log: LogInput, stats: TokenizeStats,
                    progress: Callable[[int], None] | None = None
                    ) -> Iterator[LogLine | LineRun]:
    """tokenize_runs() over `log`, reading its second half in a second process."""
    assert log.path is not None
    path = log.path
    log.close()  # the halves open the file themselves
    size = path.stat().st_size
    middle = _line_start_after(path, size // 2)
    if middle <= 0 or middle >= size:
        yield from _tokenize_range(log, path, 0, size, stats)
        return
    handle, spool = tempfile.mkstemp(prefix="logsleuth-half-")
    os.close(handle)
    request = {"path": str(path), "start": middle, "end": size, "name": log.name,
               "max_line_bytes": log.max_line_bytes, "spool": spool,
               "patterns": list(anchor_texts())}
    second = None
    try:
        second = _start(request)
        tokenizer = Tokenizer(stats)
        first = open_range(path, 0, middle, name=log.name, max_line_bytes=log.max_line_bytes)
        for block in first.blocks():
            if progress is not None:
                progress(2 * len(block))  # the other half is read alongside
            yield from tokenizer.feed_runs(block)
        log.notices.extend(first.notices)
        half = _result(second) or locate_half(
            str(path), middle, size, log.name, log.max_line_bytes, spool, anchor_texts())
        base = stats.lines
        for chunk in _spooled(spool):
            yield from tokenizer.parse_runs(chunk, base)
    finally:
        if second is not None and second.poll() is None:  # abandoned before its half was read
            second.kill()
            second.wait()
        os.unlink(spool)
    tokenizer.skip(half.count, half.tail)
    tokenizer.finish()
    log.notices.extend(half.notices)


def _start(request: dict[str, object]) -> subprocess.Popen[bytes] | None:
    # the child imports this very package, wherever it was imported from
    root = str(Path(__file__).resolve().parent.parent.parent)
    paths = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=root + (os.pathsep + paths if paths else ""))
    try:
        return subprocess.Popen([sys.executable, "-c", _CHILD, json.dumps(request)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return None


def _result(child: subprocess.Popen[bytes] | None) -> Half | None:
    """The second process's answer; None if it failed (its half is then read here)."""
    if child is None:
        return None
    out, _ = child.communicate()
    if child.returncode != 0:
        return None
    try:
        answer = json.loads(out)
        return Half(int(answer["count"]), bytes.fromhex(answer["tail"]),
                    [str(notice) for notice in answer["notices"]])
    except (ValueError, KeyError, TypeError):
        return None


def _tokenize_range(log: LogInput, path: Path, start: int, end: int,
                    stats: TokenizeStats) -> Iterator[LogLine | LineRun]:
    tokenizer = Tokenizer(stats)
    part = open_range(path, start, end, name=log.name, max_line_bytes=log.max_line_bytes)
    for block in part.blocks():
        yield from tokenizer.feed_runs(block)
    tokenizer.finish()
    log.notices.extend(part.notices)


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
