"""A big plain file read by two processes: this one takes chunks from the front, a second one
from the back, until they meet.

Reading, scanning and counting lines hold the GIL (a second thread was measured no faster), and
they are most of the cost of a big log; a second process on the other core reads at the same
time. That process only locates its anchored lines (raw bytes and numbers relative to each
chunk's start; logsleuth/halfread.py); parsing stays here, in order, so the result is the same
as one pass. It is a new small interpreter, not a fork: a fork held a copy of every module and
cache of this one. Any failure of the second process is caught and the chunks it did not
answer for are read here.

The split is not fixed at the middle: this process parses as it locates, and also starts up
(imports, the signature database) while the other may already read (the command line starts it
first), so a fixed half left one of the two waiting for the other. Chunks claimed from both ends
put the meeting point wherever the two arrive together.

The located lines go through a temporary file, one block's worth at a time, and are read back
the same way: in an error-heavy log they are most of the file, and neither process may hold them
all (a pipe would instead stall the second process until this one reached its chunks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import BinaryIO

from logsleuth.halfread import (SPLIT_MIN_BYTES, FarReader, chunk_bounds, may_start_far_reader,
                                worth_a_far_reader)
from logsleuth.locate import anchor_texts
from logsleuth.model import LineRun, LogLine, RecordRun
from logsleuth.read import LogInput, open_range, reading_notices
from logsleuth.tokenize.scan import Tokenizer, TokenizeStats

__all__ = ["SPLIT_MIN_BYTES", "can_split", "may_start_far_reader", "tokenize_halves"]


def can_split(log: LogInput) -> bool:
    """A plain regular file big enough to be worth two processes, read by a process that may
    start one."""
    if log.path is None or not may_start_far_reader():
        return False
    return worth_a_far_reader(log.path)


def tokenize_halves(log: LogInput, stats: TokenizeStats,
                    progress: Callable[[int], None] | None = None,
                    reader: FarReader | None = None) -> Iterator[LogLine | LineRun | RecordRun]:
    """tokenize_runs() over `log`, its far end read by a second process: `reader` when it was
    started for this very file (the command line starts it early), else one started here."""
    assert log.path is not None
    path = log.path
    log.close()  # the chunks open the file themselves
    if reader is None or not reader.fits(path, log.max_line_bytes):
        if reader is not None:
            reader.close()
        reader = FarReader.start(path, log.name, log.max_line_bytes, anchor_texts())
    try:
        yield from _read_chunks(log, reader, stats, progress)
    finally:
        reader.close()


def _read_chunks(log: LogInput, reader: FarReader, stats: TokenizeStats,
                 progress: Callable[[int], None] | None) -> Iterator[LogLine | LineRun | RecordRun]:
    tokenizer = Tokenizer(stats)
    cut = nul = 0
    mine = 0  # this process's chunks are 0 .. mine - 1
    with open(reader.path, "rb") as handle:
        while (index := reader.take_front()) is not None:
            part = _chunk(log, reader, handle, index)
            for block in part.blocks():
                if progress is not None:
                    progress(len(block))
                yield from tokenizer.feed_runs(block)
            log.notices.extend(part.notices)
            cut, nul, mine = cut + part.cut_lines, nul + part.nul_bytes, index + 1
        far = reader.result()
        answered = far.chunks if far is not None else {}
        for index in range(mine, reader.chunks):
            done = answered.get(index)
            if done is None:  # the far reader failed before it read this chunk: read it here
                part = _chunk(log, reader, handle, index)
                for block in part.blocks():
                    yield from tokenizer.feed_runs(block)
                log.notices.extend(part.notices)
                cut, nul = cut + part.cut_lines, nul + part.nul_bytes
                continue
            if progress is not None:
                start, end = chunk_bounds(handle, reader.size, index, reader.chunk)
                progress(end - start)
            base = stats.lines
            for located in reader.spooled(done):
                yield from tokenizer.parse_runs(located, base)
            last = index == reader.chunks - 1
            tokenizer.skip(done.lines, far.tail if far is not None and last else b"")
    if far is not None:
        log.notices.extend(far.notices)
        cut, nul = cut + far.cut_lines, nul + far.nul_bytes
    tokenizer.finish()
    log.notices.extend(reading_notices(cut, nul, log.max_line_bytes))


def _chunk(log: LogInput, reader: FarReader, handle: BinaryIO, index: int) -> LogInput:
    start, end = chunk_bounds(handle, reader.size, index, reader.chunk)
    return open_range(reader.path, start, end, name=log.name, max_line_bytes=log.max_line_bytes,
                      notice_counts=False)
