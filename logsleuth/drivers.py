"""Errors of the program that drives vLLM: an evaluation harness's, a benchmark client's, an RL
trainer's own ERROR records about the work it got back, its usage errors and its own tracebacks,
which say nothing of vLLM.

`signatures/drivers.yaml` says which errors are another program's (a logger that names no source
file's line and is not vLLM's, a driver's command line, a traceback in a driver's code and none in
vLLM's engine) and which words report vLLM's failure as that program saw it. The causal stage
asks it once about the errors of a run whose engine produced output (causal.py
`_drivers_verdicts`): each error printed after that output that `judges_output` is that
program's verdict on its task, no cause; and when every other error of the run is a record
`alone` (a level-only record of such a logger that names nothing of vLLM's, printed before the
output too), they are that program's own as a whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import regex

from logsleuth.errors import SignatureError
from logsleuth.model import ErrorEvent, EventKind, Level
from logsleuth.resources import data_dir
from logsleuth.yamlload import load_yaml

FILE = "drivers.yaml"

# the kinds of error a driver's logger writes without a traceback: a record, a tool's line
_RECORDS = frozenset({EventKind.ERROR_RECORD, EventKind.DIAGNOSTIC})
_BUDGET = 0.05  # seconds a pattern may search one text; running out keeps the error
_LEVEL_LABELS = frozenset(level.value for level in Level)  # an error record labelled by its level


@dataclass(frozen=True, slots=True)
class Drivers:
    """drivers.yaml, compiled."""

    own_sites: regex.Pattern[str]
    own_loggers: regex.Pattern[str]
    reports_failure: tuple[regex.Pattern[str], ...]
    names_exception: tuple[regex.Pattern[str], ...] = ()
    usage_errors: tuple[regex.Pattern[str], ...] = ()
    own_programs: regex.Pattern[str] | None = None
    frames: tuple[regex.Pattern[str], ...] = ()
    engine_frames: regex.Pattern[str] | None = None
    passed_sessions: regex.Pattern[str] | None = None
    session_starts: regex.Pattern[str] | None = None
    alone_sites: regex.Pattern[str] | None = None
    names_failure: regex.Pattern[str] | None = None

    def foreign(self, event: ErrorEvent) -> bool:
        """A record of a logger that is neither vLLM's nor one that names a source line: a
        header was read (not a raw line), and its call site is a logger's name, a function, or
        none."""
        if event.kind not in _RECORDS or event.raw or event.frames:
            return False
        site = event.site
        return site is None or not (self.own_sites.search(site)
                                    or self.own_loggers.search(site))

    def usage_error(self, event: ErrorEvent) -> bool:
        """A driver's error on its own command line (argparse's, click's), not vLLM's server's."""
        if event.kind is not EventKind.DIAGNOSTIC or event.frames:
            return False
        text = event.text
        return any(pattern.search(text) for pattern in self.usage_errors) \
            and not (self.own_programs is not None and self.own_programs.search(text))

    def own_traceback(self, event: ErrorEvent) -> bool:
        """A traceback raised through a driver's code, none of whose frames is vLLM's engine."""
        if event.kind is not EventKind.EXCEPTION or not event.frames:
            return False
        files = [frame.file for frame in event.frames]
        if self.engine_frames is not None and any(self.engine_frames.search(f) for f in files):
            return False
        return any(pattern.search(f) for f in files for pattern in self.frames)

    def reports_vllm_failure(self, event: ErrorEvent, patterns: tuple[regex.Pattern[str], ...]
                             ) -> bool:
        """The error's words report a failure of the server, engine or device it drove."""
        text = event.text
        try:
            return any(pattern.search(text, timeout=_BUDGET) for pattern in patterns)
        except TimeoutError:  # a line too long to read in time: it stays an error
            return True

    def judges_output(self, event: ErrorEvent) -> bool:
        """The error is a driver's own, about its task (given that it follows the engine's
        output): another program's record, usage error or traceback whose words report no
        failure of vLLM. Not a line whose own words the grammar reads as an error without any
        header (`Status: FAILED`, `Exit status: 1`, `[FAILED] server start`: a launcher's or a
        harness's last word that the run failed, tests/test_final_error_shapes.py); a judgement
        of scores reads as plain text on its own."""
        if event.kind is EventKind.ERROR_RECORD and (
                event.exception not in _LEVEL_NAMES or _says_failed(event.message)):
            return False  # it names an exception class (any form), or says the run failed
        if self.foreign(event) or self.usage_error(event):
            return not self.reports_vllm_failure(
                event, (*self.reports_failure, *self.names_exception))
        if self.own_traceback(event):
            return not self.reports_vllm_failure(event, self.reports_failure)
        return False

    def alone(self, event: ErrorEvent) -> bool:
        """A record that is no cause wherever it was printed, if every error of its run is one
        (`alone_sites`, `names_failure`): a level-only record (no exception named, no
        traceback) of another program's logger, which names a call site that is no source
        file's line nor vLLM's, and whose words name nothing of vLLM's."""
        record = event.kind is EventKind.ERROR_RECORD and event.exception in _LEVEL_LABELS \
            or event.kind is EventKind.DIAGNOSTIC
        if not record or event.latent or event.failing_warning or event.site is None \
                or self.alone_sites is None or self.names_failure is None:
            return False
        try:  # a text too long to read in time: it stays an error
            if self.alone_sites.search(event.site, timeout=_BUDGET) \
                    or self.names_failure.search(event.message, timeout=_BUDGET):
                return False
        except TimeoutError:
            return False
        return self.foreign(event) and not self.reports_vllm_failure(event, self.reports_failure)


# the labels an error record without an exception carries (its level's name)
_LEVEL_NAMES = frozenset({*(level.value for level in Level), "FATAL", "ERR"})


@lru_cache(maxsize=1024)  # bounded: a handled-error log asks it of many texts
def _says_failed(text: str) -> bool:
    """The grammar reads the text, alone, as an error or critical line."""
    from logsleuth.tokenize import parse_line  # the grammar, loaded only when a driver's line is asked
    line = parse_line(text.split("\n", 1)[0])
    return line.level is not None and line.level.value in ("ERROR", "CRITICAL")


def passed_sessions(reports: list[tuple[int, str]], drivers: Drivers) -> list[tuple[int, int]]:
    """The spans (after line, before line) of the test sessions whose summary reports success,
    from the test report's section lines (line, text) in line order: each from its session's
    start header (or the run's start, 0) to its summary."""
    if drivers.passed_sessions is None:
        return []
    spans: list[tuple[int, int]] = []
    start = 0
    for line, text in reports:
        if drivers.session_starts is not None and drivers.session_starts.search(text):
            start = line
        elif drivers.passed_sessions.search(text):
            spans.append((start, line))
            start = line
    return spans


def load_drivers(path: Path | None = None) -> Drivers:
    """Compile a drivers file (the shipped signatures/drivers.yaml by default)."""
    path = path or data_dir("signatures") / FILE
    data, _ = load_yaml(path)
    if not isinstance(data, dict):
        raise SignatureError("expected a mapping", location=str(path))

    def compile_(text: object, where: str) -> regex.Pattern[str]:
        if not isinstance(text, str):
            raise SignatureError(f"{where}: expected a regex", location=str(path))
        try:
            return regex.compile(text)
        except regex.error as exc:
            raise SignatureError(f"{where}: {exc}", location=str(path)) from None

    def patterns(key: str) -> tuple[regex.Pattern[str], ...]:
        items = data.get(key, [])
        if not isinstance(items, list):
            raise SignatureError(f"{key}: expected a list", location=str(path))
        return tuple(compile_(item, key) for item in items)

    return Drivers(compile_(data.get("own_sites"), "own_sites"),
                   compile_(data.get("own_loggers"), "own_loggers"),
                   patterns("reports_failure"), patterns("names_exception"),
                   patterns("usage_errors"), compile_(data.get("own_programs"), "own_programs"),
                   patterns("frames"), compile_(data.get("engine_frames"), "engine_frames"),
                   compile_(data.get("passed_sessions"), "passed_sessions"),
                   compile_(data.get("session_starts"), "session_starts"),
                   compile_(data.get("alone_sites"), "alone_sites"),
                   compile_(data.get("names_failure"), "names_failure"))


@cache
def default_drivers() -> Drivers:
    """The shipped drivers knowledge, loaded once (only when a run holds such an error)."""
    return load_drivers()
