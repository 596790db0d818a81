"""vLLM run inside another framework: the framework's names for the engine settings a fix names.

RL trainers (verl, TRL, OpenRLHF, SkyRL) build vLLM's engine from their own configuration, so
a fix that says `--gpu-memory-utilization` is right about vLLM and still leaves the user to find
the trainer's option. `signatures/framework-knobs.yaml` says how each framework shows in a log
(a traceback frame in its package, the name of one of its Ray actors) and what it calls each
engine argument; `with_framework_knobs` adds those names after whatever fix answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import regex

from logsleuth.compiledcopy import kept
from logsleuth.errors import SignatureError
from logsleuth.model import ErrorEvent, Match
from logsleuth.resources import data_dir
from logsleuth.yamlload import knob_tables

FILE = "framework-knobs.yaml"


@dataclass(frozen=True, slots=True)
class Framework:
    """One framework of framework-knobs.yaml."""

    name: str
    title: str
    frames: tuple[regex.Pattern[str], ...]
    processes: tuple[regex.Pattern[str], ...]
    knobs: Mapping[str, str]  # vLLM engine argument -> the framework's option (and a note)

    def seen_in(self, event: ErrorEvent) -> bool:
        """Whether the event ran through the framework: one of its frames, or its actor."""
        return any(p.search(f.file) for f in event.frames for p in self.frames) \
            or any(p.search(event.process.name) for p in self.processes)


def _patterns(items: object, where: str) -> tuple[regex.Pattern[str], ...]:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise SignatureError(f"{where}: a list of regexes")
    try:
        return tuple(regex.compile(i) for i in items)
    except regex.error as exc:
        raise SignatureError(f"{where}: {exc}") from None


def load_frameworks(path: Path | None = None) -> tuple[Framework, ...]:
    """Read a framework file (the shipped signatures/framework-knobs.yaml by default)."""
    path = path or data_dir("signatures") / FILE
    out = []
    for name, entry, where, knobs in knob_tables(path, "frameworks",
                                                 "engine argument -> option text"):
        out.append(Framework(name, str(entry.get("title", name)),
                             _patterns(entry.get("frames", []), f"{where}.frames"),
                             _patterns(entry.get("processes", []), f"{where}.processes"),
                             knobs))
    return tuple(out)


@cache
def default_frameworks() -> tuple[Framework, ...]:
    """The shipped file, loaded once: from its compiled copy when one was kept for these bytes
    and this code (compiledcopy.py: no YAML read, no pattern compiled), else read and kept."""
    return kept("frameworks", data_dir("signatures") / FILE, (Path(__file__),), load_frameworks,
                tuple, restore=_frameworks_only)


def _frameworks_only(value: object) -> object:
    """A kept copy that is a tuple of Frameworks (anything else is built again)."""
    return value if isinstance(value, tuple) and all(isinstance(f, Framework) for f in value) \
        else None


def framework_of(events: Iterable[ErrorEvent],
                 frameworks: tuple[Framework, ...] | None = None) -> Framework | None:
    """The first framework the failing events ran through, or None."""
    frameworks = default_frameworks() if frameworks is None else frameworks
    events = tuple(events)
    return next((f for f in frameworks if any(f.seen_in(e) for e in events)), None)


def _named(fix: str, argument: str) -> bool:
    """Whether a fix names a vLLM engine argument, as flag or keyword."""
    flag = "--" + argument.replace("_", "-")
    if regex.search(rf"(?<![\w-]){regex.escape(flag)}(?![\w-])", fix) is not None:
        return True
    if "_" not in argument:  # a plain word (`port`) counts only quoted as a setting
        return f"`{argument}`" in fix or f"{argument}=" in fix
    return regex.search(rf"(?<![\w.]){regex.escape(argument)}\b", fix) is not None


def _option(text: str) -> str:
    """The option itself: the first word of a knobs entry (the rest is a note)."""
    return text.split(" ", 1)[0]


def framework_lines(fix: str, framework: Framework) -> tuple[str, ...]:
    """`argument` -> the framework's option, for each engine argument the fix names and whose
    framework option it does not name already."""
    return tuple(f"`{argument}` -> `{_option(option)}`"
                 + (f" {option.split(' ', 1)[1]}" if " " in option else "")
                 for argument, option in framework.knobs.items()
                 if _named(fix, argument) and _option(option) not in fix)


def with_framework_knobs(match: Match | None, events: Iterable[ErrorEvent],
                         frameworks: tuple[Framework, ...] | None = None) -> Match | None:
    """The match with the framework's names for the engine settings its fix names, when the
    failure ran inside a framework that builds vLLM's engine itself."""
    if match is None:
        return None
    framework = framework_of(events, frameworks)
    if framework is None:
        return match
    lines = framework_lines(match.fix, framework)
    if not lines:
        return match
    return match.with_paragraph(f"vLLM runs inside {framework.title} here: set these through "
                                f"{framework.title}'s own options, not vLLM's flags: "
                                + "; ".join(lines) + ".")
