"""`logsleuth explain --follow`: watch a growing log and report as soon as a failure is known.

The same stages as `explain`, fed as the file grows (like `tail -f`). After each burst of new
lines the events so far are inferred; a failure is reported at once when something already
reports it (a symptom such as `Engine core initialization failed` or `EngineDeadError`), or when
the log has been quiet for `settle` seconds after it (a crash that prints nothing after its
traceback). A truncated or replaced file is read again from its start.

The log's lines are those `explain` reads, numbered as the file's (pipeline.in_file). How the
input is laid out is decided from its head as it arrives, the evidence there is so far: rows a
hard wrap cut (hardwrap.py) are joined once the head read says a width, the log then read again
from its start joined (the head is all that was read), and the report's lines are the file's
rows. A head whose times only go back in time is a console's download of a finished log (a
writer appends, so a log being written is never newest first): it is read to its end and
explained whole, as `explain` would.
"""

from __future__ import annotations

import io
import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, cast

from logsleuth.activity import ActivityFold
from logsleuth.assemble import Assembler
from logsleuth.errors import InputError
from logsleuth.facts import FactCollector
from logsleuth.hardwrap import HEAD_BYTES as WRAP_HEAD_BYTES
from logsleuth.hardwrap import HardWrapped, wrap_width
from logsleuth.hardwrap import notice as wrap_notice
from logsleuth.inputorder import FileLines
from logsleuth.model import ErrorEvent, Event, Report, Verdict
from logsleuth.knowledge import default_causality
from logsleuth.pipeline import build_report, explain_events, feed_folded, folded_events, in_file
from logsleuth.read import DIRECTORY_GIVEN
from logsleuth.recur import Recurrences
from logsleuth.wholelines import BLOCK_SIZE
from logsleuth.signatures import SignatureSet
from logsleuth.tokenize import Tokenizer, TokenizeStats
from logsleuth.tokenize.sniff import newest_first

DEFAULT_SETTLE = 10.0
DEFAULT_POLL = 0.25


_NEWEST_FIRST_HEAD_BYTES = 16 << 10  # as read.py looks for a console's download


class _Follower:
    """The pipeline's state over one growing file; `width`: its rows were hard-wrapped at it."""

    def __init__(self, width: int | None = None) -> None:
        self.width = width
        self.joined = None if width is None \
            else HardWrapped(cast(io.RawIOBase, io.BytesIO()), width)
        self.lines = FileLines(rows=None if self.joined is None else self.joined.rows)
        self.stats = TokenizeStats()
        self.tokenizer = Tokenizer(self.stats)
        self.assembler = Assembler(recurrences=Recurrences(default_causality()))
        self.facts = FactCollector()
        # as `explain` reads: repeated record lines replayed, activity folded (every catch-up
        # with the writer infers over the events so far; unfolded, a day of answers)
        self.fold = ActivityFold()
        self.pending = b""

    def feed(self, chunk: bytes) -> None:
        self._read(chunk if self.joined is None else self.joined.feed(chunk))

    def finish(self) -> None:
        """The input ended: its last line, still open or without its newline, is read."""
        if self.joined is not None:
            self._read(self.joined.finish())  # a line whose rows might have gone on
        if self.pending:
            self._read(b"\n")

    def _read(self, chunk: bytes) -> None:
        data = self.pending + chunk
        cut = data.rfind(b"\n") + 1
        self.pending = data[cut:]
        if cut:
            feed_folded(self.facts.watch(self.tokenizer.feed_runs(data[:cut])), self.assembler,
                        self.fold)

    def current(self) -> list[Event]:
        return folded_events(self.assembler, self.fold) + list(self.assembler.snapshot())


def follow(path: str | os.PathLike[str], *, timeout: float | None = None,
           settle: float = DEFAULT_SETTLE, poll: float = DEFAULT_POLL,
           signatures: SignatureSet | None = None,
           clock: Callable[[], float] = time.monotonic,
           sleep: Callable[[float], None] = time.sleep,
           status: Callable[[int, float], None] | None = None) -> Report:
    """Follow `path` (or `-`, standard input) until a failure is known, the input ends (a pipe),
    `timeout` seconds pass, or the user presses Ctrl-C; return the report of what was read.
    `status`, if given, is called while waiting with the lines read and the seconds waited."""
    if str(path) == "-":
        source: _Source = _StreamSource(sys.stdin.buffer, poll)
        name = "<stdin>"
    else:
        path = Path(path)
        if path.is_dir():
            raise InputError(DIRECTORY_GIVEN, location=str(path))
        source, name = _FileSource(path), str(path)
    started = clock()
    state = _Follower()
    notices: list[str] = []
    last_data = clock()
    head: bytes | None = b""  # what was read, while it may still say how the log is laid out
    try:
        while True:
            chunk = source.read()
            now = clock()
            if chunk and head is not None:
                head += chunk
                if newest_first(head[:_NEWEST_FIRST_HEAD_BYTES]):
                    return _whole(name, head, source, sleep, signatures)
                width = wrap_width(head[:WRAP_HEAD_BYTES]) if state.width is None else None
                if width is not None:  # read again from its start, the cut rows joined
                    state = _Follower(width)
                    chunk = head
                if len(head) >= WRAP_HEAD_BYTES:
                    head = None
            if chunk:
                state.feed(chunk)
                last_data = now
                continue
            if chunk is None:  # a pipe that closed: everything has been read
                return _final(name, state, signatures, notices)
            if source.replaced():
                notices.append(f"the file was truncated or replaced at line "
                               f"{state.stats.lines:,}; it was read again from its start")
                state, head = _Follower(), b""
                continue
            report = _report_if_known(name, state, signatures, notices, now - last_data, settle)
            if report is not None:
                return report
            if timeout is not None and now - started >= timeout:
                notices.append(f"stopped following after {timeout:g} s without a known failure")
                return _final(name, state, signatures, notices)
            if status is not None:
                status(state.stats.lines, now - started)
            source.wait(sleep)
    except KeyboardInterrupt:
        notices.append(f"interrupted (Ctrl-C) after {state.stats.lines:,} lines: the report "
                       "covers what was read so far")
        raise FollowInterrupted(_final(name, state, signatures, notices)) from None
    finally:
        source.close()


class FollowInterrupted(KeyboardInterrupt):
    """Ctrl-C while following; carries the report of what had been read."""

    def __init__(self, report: Report):
        super().__init__("interrupted")
        self.report = report


class _Source:
    """Where followed bytes come from: b"" means nothing yet, None means the end."""

    def read(self) -> bytes | None:
        raise NotImplementedError

    def replaced(self) -> bool:
        return False

    def wait(self, sleep: Callable[[float], None]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


class _FileSource(_Source):
    """A file that grows, may not exist yet, and may be truncated or rotated."""

    def __init__(self, path: Path, poll: float = DEFAULT_POLL):
        self.path, self.poll = path, poll
        self.handle: BinaryIO | None = None

    def read(self) -> bytes:
        if self.handle is None:
            try:
                self.handle = open(self.path, "rb")  # noqa: SIM115 - closed in close()
            except FileNotFoundError:
                return b""
            except OSError as exc:
                raise InputError(f"cannot open: {exc.strerror or exc}",
                                 location=str(self.path)) from None
        return self.handle.read(BLOCK_SIZE)

    def replaced(self) -> bool:
        if self.handle is None or not _replaced(self.path, self.handle):
            return False
        self.close()
        return True

    def wait(self, sleep: Callable[[float], None]) -> None:
        sleep(self.poll)

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


class _StreamSource(_Source):
    """A pipe (`journalctl -f`, `docker logs -f`, `kubectl logs -f`): read what has arrived
    without blocking past `poll`, so a quiet pipe still lets the settle and timeout clocks run."""

    def __init__(self, stream: BinaryIO, poll: float):
        self.stream, self.poll = stream, poll
        try:
            self.fd: int | None = stream.fileno()
        except (OSError, ValueError):  # an in-memory stream (tests, embedding): never waits
            self.fd = None

    def read(self) -> bytes | None:
        if self.fd is None:
            data = self.stream.read(BLOCK_SIZE)
        else:
            readable, _, _ = select.select([self.fd], [], [], 0)
            if not readable:
                return b""
            data = os.read(self.fd, BLOCK_SIZE)
        return data if data else None

    def wait(self, sleep: Callable[[float], None]) -> None:
        if self.fd is not None:
            select.select([self.fd], [], [], self.poll)


def _replaced(path: Path, handle: BinaryIO) -> bool:
    """Log rotation (a new file at the path) or truncation (`> log`) since we opened it."""
    try:
        stat = path.stat()
    except OSError:
        return False
    return stat.st_ino != os.fstat(handle.fileno()).st_ino or stat.st_size < handle.tell()


def _whole(name: str, head: bytes, source: _Source, sleep: Callable[[float], None],
           signatures: SignatureSet | None) -> Report:
    """A newest-first download: every byte to its end (a file's end as it is now, a pipe's
    close), explained whole as `explain` reads it."""
    data = bytearray(head)
    while True:
        chunk = source.read()
        if chunk:
            data += chunk
        elif chunk is None or isinstance(source, _FileSource):
            break
        else:
            source.wait(sleep)
    return explain_events(cast(BinaryIO, io.BytesIO(bytes(data))), name=name,
                          signatures=signatures)[0]


def _report_if_known(name: str, state: _Follower, signatures: SignatureSet | None,
                     notices: list[str], quiet_for: float, settle: float) -> Report | None:
    events = state.current()
    if not any(isinstance(e, ErrorEvent) for e in events):
        return None
    report = _report(name, events, state, signatures, notices)
    if report.verdict is Verdict.NO_FAILURE:
        return None
    if report.symptoms or quiet_for >= settle:
        return report
    return None


def _final(name: str, state: _Follower, signatures: SignatureSet | None,
           notices: list[str]) -> Report:
    state.finish()
    return _report(name, state.current(), state, signatures, notices)


def _report(name: str, events: list[Event], state: _Follower, signatures: SignatureSet | None,
            notices: list[str]) -> Report:
    """The report of the events so far, its lines the file's (as `explain` maps them)."""
    notes = tuple(notices)
    if state.width is not None:
        notes += (wrap_notice(state.width),)
    return in_file(build_report(name, events, state.stats, state.facts, signatures, notes,
                                warning_hint=not state.lines), state.lines)
