"""Small logs of every benchmark mix (benchmarks/mixes.py), generated once per test session."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"
MIXES = ("healthy", "restart", "errors", "crashloop", "debug", "procs64", "longlines")


@cache
def mix_log(mix: str, lines: int, directory: str) -> tuple[Path, dict[str, object]]:
    """(path, truth) of a `lines`-line log of `mix` under `directory`."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    from mixes import generate_mix  # noqa: PLC0415 (benchmarks/ is not a package)

    path = Path(directory) / f"{mix}-{lines}.log"
    truth = generate_mix(mix, lines, str(path))
    path.with_suffix(".truth.json").write_text(json.dumps(truth))
    return path, truth
