"""Which vLLM releases the index covers, and how they sort."""

from __future__ import annotations

import re

_PART = re.compile(r"(\d+)|([a-z]+)")


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """Sort key for vLLM's PEP 440 versions: 0.9.0 < 0.9.0.1 < 0.9.1; rc sorts before final."""
    key: list[tuple[int, str]] = []
    for number, word in _PART.findall(version):
        if number:
            key.append((int(number), ""))
        elif word == "post":
            key.append((0, "post"))
        else:   # rc / a / b / dev: before the final release of the same number
            key.append((-1, word))
    return tuple(key)


def minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def select_releases(versions: list[str]) -> list[str]:
    """The first and last release of every minor version, plus any newer release candidates.

    The first release of a minor says when a template appeared, the last when it was last
    printed in that line; rc releases newer than the newest final show what is coming.
    """
    finals = [v for v in versions if not any(t in v for t in ("rc", "a", "b", "dev"))]
    by_minor: dict[str, list[str]] = {}
    for v in finals:
        by_minor.setdefault(minor(v), []).append(v)
    chosen: set[str] = set()
    for group in by_minor.values():
        group.sort(key=version_key)
        chosen.update((group[0], group[-1]))
    newest = max(finals, key=version_key)
    chosen.update(v for v in versions if v not in finals and version_key(v) > version_key(newest))
    return sorted(chosen, key=version_key)
