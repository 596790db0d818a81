"""Which vLLM releases the index covers, and how they sort."""

from __future__ import annotations

from logsleuth.index.versions import version_key  # one ordering for the miner and the matcher


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
