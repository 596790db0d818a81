"""Where the shipped data lives: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The directory `grammars` or `signatures`.

    A wheel carries them as `logsleuth/_data/<name>` (pyproject's force-include); a source
    checkout or an editable install has them at the top of the repository.
    """
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"logsleuth's {name}/ directory is missing from the installation")


def cache_dir() -> Path | None:
    """Where logsleuth keeps what it derives from its data (loaded signatures, the vLLM index,
    the anchors' patterns), each file named by a digest of what it was made from:
    `$LOGSLEUTH_CACHE_DIR`, else `$XDG_CACHE_HOME/logsleuth`, else `~/.cache/logsleuth`; None
    (no caching) when `LOGSLEUTH_NO_CACHE` is set."""
    if os.environ.get("LOGSLEUTH_NO_CACHE"):
        return None
    explicit = os.environ.get("LOGSLEUTH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "logsleuth"
