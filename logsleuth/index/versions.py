"""vLLM version strings: sorting, and reading the release out of a printed version."""

from __future__ import annotations

import re

_PART = re.compile(r"(\d+)|([a-z]+)")
_RELEASE = re.compile(r"\d+(?:\.\d+)+(?:\.?post\d+|rc\d+)?")


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """Sort key for vLLM's PEP 440 versions: 0.9.0 < 0.9.0.1 < 0.9.1; rc sorts before final."""
    key: list[tuple[int, str]] = []
    for number, word in _PART.findall(version):
        if number:
            key.append((int(number), ""))
        elif word == "post":
            key.append((0, "post"))
        else:  # rc / a / b / dev: before the final release of the same number
            key.append((-1, word))
    # the end: after a pre-release's marker, before a post release's and a longer number's (a
    # final without it would sort before its own `rc1`, a prefix being the smaller tuple)
    key.append((0, ""))
    return tuple(key)


def release_of(printed: str) -> str | None:
    """`0.10.1.dev3+g1234.cu128` -> `0.10.1`; None when no version can be read."""
    found = _RELEASE.search(printed)
    if found is None:
        return None
    # a dev build of X is read as X, though its source lies between X and the release before
    return found.group(0)
