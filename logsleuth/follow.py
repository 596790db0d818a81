"""`logsleuth explain --follow`: watch a growing log and report as soon as a failure is known.

The same stages as `explain`, fed as the file grows (like `tail -f`). After each burst of new
lines the events so far are inferred; a failure is reported at once when something already
reports it (a symptom such as `Engine core initialization failed` or `EngineDeadError`), or when
the log has been quiet for `settle` seconds after it (a crash that prints nothing after its
traceback). A truncated or replaced file is read again from its start.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from logsleuth.activity import ActivityFold
from logsleuth.assemble import Assembler
from logsleuth.errors import InputError
from logsleuth.facts import FactCollector
from logsleuth.model import ErrorEvent, Event, Report, Verdict
from logsleuth.knowledge import default_causality
from logsleuth.pipeline import build_report, feed_folded, folded_events
from logsleuth.recur import Recurrences
from logsleuth.wholelines import BLOCK_SIZE
from logsleuth.signatures import SignatureSet
from logsleuth.tokenize import Tokenizer, TokenizeStats

DEFAULT_SETTLE = 10.0
DEFAULT_POLL = 0.25


class _Follower:
    """The pipeline's state over one growing file."""

    def __init__(self) -> None:
        self.stats = TokenizeStats()
        self.tokenizer = Tokenizer(self.stats)
        self.assembler = Assembler(recurrences=Recurrences(default_causality()))
        self.facts = FactCollector()
        # as `explain` reads: repeated record lines replayed, activity folded (every catch-up
        # with the writer infers over the events so far; unfolded, a day of answers)
        self.fold = ActivityFold()
        self.pending = b""

    def feed(self, chunk: bytes) -> None:
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
            raise InputError("is a directory, not a log file", location=str(path))
        source, name = _FileSource(path), str(path)
    started = clock()
    state = _Follower()
    notices: list[str] = []
    last_data = clock()
    try:
        while True:
            chunk = source.read()
            now = clock()
            if chunk:
                state.feed(chunk)
                last_data = now
                continue
            if chunk is None:  # a pipe that closed: everything has been read
                return _final(name, state, signatures, notices)
            if source.replaced():
                notices.append(f"the file was truncated or replaced at line "
                               f"{state.stats.lines:,}; it was read again from its start")
                state = _Follower()
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


def _report_if_known(name: str, state: _Follower, signatures: SignatureSet | None,
                     notices: list[str], quiet_for: float, settle: float) -> Report | None:
    events = state.current()
    if not any(isinstance(e, ErrorEvent) for e in events):
        return None
    report = build_report(name, events, state.stats, state.facts, signatures, tuple(notices))
    if report.verdict is Verdict.NO_FAILURE:
        return None
    if report.symptoms or quiet_for >= settle:
        return report
    return None


def _final(name: str, state: _Follower, signatures: SignatureSet | None,
           notices: list[str]) -> Report:
    if state.pending:
        state.feed(b"\n")  # the last line, still without its newline
    return build_report(name, state.current(), state.stats, state.facts, signatures,
                        tuple(notices))
