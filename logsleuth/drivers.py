"""Records of the program that drives vLLM: an evaluation harness's, a benchmark client's, an RL
trainer's own ERROR records about the work it got back, and its usage errors, which say nothing
of vLLM.

`signatures/drivers.yaml` says which records are another program's (a logger that names no source
file's line and is not vLLM's) and which words report vLLM's failure as that program saw it; the
causal stage asks `judges_output` of each error record printed after the run's engine produced
output (causal.py `_build_run`): such a record is that program's verdict on its task, no cause.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import regex

from logsleuth.errors import SignatureError
from logsleuth.model import ErrorEvent, EventKind
from logsleuth.resources import data_dir
from logsleuth.yamlload import load_yaml

FILE = "drivers.yaml"

# the kinds of error a driver's logger writes without a traceback: a record, a tool's line
_RECORDS = frozenset({EventKind.ERROR_RECORD, EventKind.DIAGNOSTIC})


@dataclass(frozen=True, slots=True)
class Drivers:
    """drivers.yaml, compiled."""

    own_sites: regex.Pattern[str]
    own_loggers: regex.Pattern[str]
    reports_failure: tuple[regex.Pattern[str], ...]
    usage_errors: tuple[regex.Pattern[str], ...] = ()
    own_programs: regex.Pattern[str] | None = None

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

    def reports_vllm_failure(self, event: ErrorEvent) -> bool:
        """The record's words report a failure of the server, engine or device it drove."""
        text = event.text
        try:
            return any(pattern.search(text, timeout=0.05) for pattern in self.reports_failure)
        except TimeoutError:  # a line too long to read in time: it stays an error
            return True

    def judges_output(self, event: ErrorEvent) -> bool:
        """The record is a driver's judgement of its task (given that it follows the engine's
        output): another program's record whose words report no failure of vLLM."""
        return (self.foreign(event) or self.usage_error(event)) \
            and not self.reports_vllm_failure(event)


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

    reports = data.get("reports_failure", [])
    if not isinstance(reports, list):
        raise SignatureError("reports_failure: expected a list", location=str(path))
    usage = data.get("usage_errors", [])
    if not isinstance(usage, list):
        raise SignatureError("usage_errors: expected a list", location=str(path))
    return Drivers(compile_(data.get("own_sites"), "own_sites"),
                   compile_(data.get("own_loggers"), "own_loggers"),
                   tuple(compile_(p, "reports_failure") for p in reports),
                   tuple(compile_(p, "usage_errors") for p in usage),
                   compile_(data.get("own_programs"), "own_programs"))


@cache
def default_drivers() -> Drivers:
    """The shipped drivers knowledge, loaded once (only when a run holds such a record)."""
    return load_drivers()
