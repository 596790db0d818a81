"""A non-CUDA platform's names for the CUDA knobs a fix names.

Many signatures were written from NVIDIA logs and name CUDA's knobs (`CUDA_LAUNCH_BLOCKING=1`,
`CUDA_VISIBLE_DEVICES`, `nvidia-smi`); torch words a HIP fault like a CUDA one, so the same
signature answers it on ROCm. `signatures/platform-knobs.yaml` says how each platform shows in a
log (the `platform` fact, or words of the root cause) and its spelling of each knob;
`with_platform_knobs` adds those spellings after whatever fix answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import regex

from logsleuth.compiledcopy import kept
from logsleuth.errors import SignatureError
from logsleuth.model import ErrorEvent, Match
from logsleuth.resources import data_dir
from logsleuth.yamlload import knob_tables

FILE = "platform-knobs.yaml"


@dataclass(frozen=True, slots=True)
class Platform:
    """One platform of platform-knobs.yaml."""

    name: str
    title: str
    facts: tuple[str, ...]  # values of the `platform` fact that mean it
    words: tuple[regex.Pattern[str], ...]  # searched in the root cause's `Type: message`
    knobs: Mapping[str, str]  # CUDA's knob -> the platform's (and a note)

    def seen(self, root: ErrorEvent | None, facts: Mapping[str, object]) -> bool:
        """Whether the log is this platform's: its `platform` fact (else the platform plugin the
        install lists, when no platform came up), or the root cause's words."""
        fact = facts.get("platform", facts.get("platform_plugin"))
        if isinstance(fact, str) and fact.lower() in self.facts:
            return True
        text = f"{root.exception}: {root.message}" if root is not None else ""
        return bool(text) and any(p.search(text) for p in self.words)


def _strings(items: object, where: str) -> tuple[str, ...]:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise SignatureError(f"{where}: a list of strings")
    return tuple(items)


def load_platforms(path: Path | None = None) -> tuple[Platform, ...]:
    """Read a platform-knobs file (the shipped signatures/platform-knobs.yaml by default)."""
    path = path or data_dir("signatures") / FILE
    out = []
    for name, entry, where, knobs in knob_tables(path, "platforms",
                                                 "CUDA's knob -> the platform's"):
        try:
            words = tuple(regex.compile(w) for w in _strings(entry.get("words", []),
                                                             f"{where}.words"))
        except regex.error as exc:
            raise SignatureError(f"{where}.words: {exc}") from None
        out.append(Platform(name, str(entry.get("title", name)),
                            tuple(f.lower() for f in _strings(entry.get("facts", []),
                                                              f"{where}.facts")),
                            words, knobs))
    return tuple(out)


@cache
def default_platforms() -> tuple[Platform, ...]:
    """The shipped file, loaded once (from its compiled copy when one was kept for these bytes
    and this code)."""
    return kept("platform-knobs", data_dir("signatures") / FILE, (Path(__file__),),
                load_platforms, tuple, restore=_platforms_only)


def _platforms_only(value: object) -> object:
    return value if isinstance(value, tuple) and all(isinstance(p, Platform) for p in value) \
        else None


def _named(fix: str, knob: str) -> bool:
    """Whether a fix names a knob as a whole word (`CUDA_VISIBLE_DEVICES`, `nvidia-smi`)."""
    return regex.search(rf"(?<![\w-]){regex.escape(knob)}(?![\w-])", fix) is not None


def _option(text: str) -> str:
    """The knob itself: the first word of an entry (the rest is a note)."""
    return text.split(" ", 1)[0]


def platform_lines(fix: str, platform: Platform) -> tuple[str, ...]:
    """`CUDA's knob` -> `the platform's`, for each CUDA knob the fix names whose counterpart it
    does not name already."""
    return tuple(f"`{knob}` -> `{_option(option)}`"
                 + (f" {option.split(' ', 1)[1]}" if " " in option else "")
                 for knob, option in platform.knobs.items()
                 if _named(fix, knob) and _option(option).split("=", 1)[0] not in fix)


def with_platform_knobs(match: Match | None, root: ErrorEvent | None, facts: Mapping[str, object],
                        platforms: tuple[Platform, ...] | None = None) -> Match | None:
    """The match with the platform's names for the CUDA knobs its fix names, when the log is
    another platform's."""
    if match is None:
        return None
    platforms = default_platforms() if platforms is None else platforms
    platform = next((p for p in platforms if p.seen(root, facts)), None)
    if platform is None:
        return match
    lines = platform_lines(match.fix, platform)
    if not lines:
        return match
    return match.with_paragraph(f"This is {platform.title}: its names for the CUDA knobs above "
                                f"are " + "; ".join(lines) + ".")
