"""Where the shipped data lives: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

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
