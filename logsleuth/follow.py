"""`logsleuth explain --follow`: watch a growing log and report as soon as a failure is known.

The same stages as `explain`, fed as the file grows (like `tail -f`). After each burst of new
lines the events so far are inferred; a failure is reported at once when something already
reports it (a symptom such as `Engine core initialization failed` or `EngineDeadError`), or when
the log has been quiet for `settle` seconds after it (a crash that prints nothing after its
traceback). A truncated or replaced file is read again from its start.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from logsleuth.assemble import Assembler
from logsleuth.errors import InputError
from logsleuth.facts import FactCollector
from logsleuth.model import ErrorEvent, Event, Report, Verdict
from logsleuth.pipeline import build_report
from logsleuth.read import BLOCK_SIZE
from logsleuth.signatures import SignatureSet
from logsleuth.tokenize import Tokenizer, TokenizeStats

DEFAULT_SETTLE = 10.0
DEFAULT_POLL = 0.25


class _Follower:
    """The pipeline's state over one growing file."""

    def __init__(self) -> None:
        self.stats = TokenizeStats()
        self.tokenizer = Tokenizer(self.stats)
        self.assembler = Assembler()
        self.facts = FactCollector()
        self.events: list[Event] = []
        self.pending = b""

    def feed(self, chunk: bytes) -> None:
        data = self.pending + chunk
        cut = data.rfind(b"\n") + 1
        self.pending = data[cut:]
        if cut:
            for line in self.facts.watch(self.tokenizer.feed(data[:cut])):
                self.events += self.assembler.feed(line)

    def current(self) -> list[Event]:
        return self.events + list(self.assembler.snapshot())


def follow(path: str | os.PathLike[str], *, timeout: float | None = None,
           settle: float = DEFAULT_SETTLE, poll: float = DEFAULT_POLL,
           signatures: SignatureSet | None = None,
           clock: Callable[[], float] = time.monotonic,
           sleep: Callable[[float], None] = time.sleep) -> Report:
    """Follow `path` until a failure is known or `timeout` seconds pass; return the report."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory, not a log file", location=str(path))
    started = clock()
    state = _Follower()
    notices: list[str] = []
    handle: BinaryIO | None = None
    last_data = clock()
    try:
        while True:
            if handle is None:
                try:
                    handle = open(path, "rb")  # noqa: SIM115 - closed in finally
                except FileNotFoundError:
                    handle = None
                except OSError as exc:
                    raise InputError(f"cannot open: {exc.strerror or exc}",
                                     location=str(path)) from None
            chunk = handle.read(BLOCK_SIZE) if handle is not None else b""
            now = clock()
            if chunk:
                state.feed(chunk)
                last_data = now
                continue
            if handle is not None and _replaced(path, handle):
                notices.append(f"the file was truncated or replaced at line "
                               f"{state.stats.lines:,}; it was read again from its start")
                handle.close()
                handle, state = None, _Follower()
                continue
            report = _report_if_known(path, state, signatures, notices, now - last_data, settle)
            if report is not None:
                return report
            if timeout is not None and now - started >= timeout:
                notices.append(f"stopped following after {timeout:g} s without a known failure")
                return _final(path, state, signatures, notices)
            sleep(poll)
    finally:
        if handle is not None:
            handle.close()


def _replaced(path: Path, handle: BinaryIO) -> bool:
    """Log rotation (a new file at the path) or truncation (`> log`) since we opened it."""
    try:
        stat = path.stat()
    except OSError:
        return False
    return stat.st_ino != os.fstat(handle.fileno()).st_ino or stat.st_size < handle.tell()


def _report_if_known(path: Path, state: _Follower, signatures: SignatureSet | None,
                     notices: list[str], quiet_for: float, settle: float) -> Report | None:
    events = state.current()
    if not any(isinstance(e, ErrorEvent) for e in events):
        return None
    report = build_report(str(path), events, state.stats, state.facts, signatures,
                          tuple(notices))
    if report.verdict is Verdict.NO_FAILURE:
        return None
    if report.symptoms or quiet_for >= settle:
        return report
    return None


def _final(path: Path, state: _Follower, signatures: SignatureSet | None,
           notices: list[str]) -> Report:
    if state.pending:
        state.feed(b"\n")  # the last line, still without its newline
    return build_report(str(path), state.current(), state.stats, state.facts, signatures,
                        tuple(notices))
