"""Runs folded as they end (logsleuth/runfold.py): the report is the one a reading that keeps
every event gives, and the fold does happen (a fold that never folds passes the first kind of
test alone)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import logsleuth.runfold as runfold
from logsleuth.pipeline import build_report, read_events
from logsleuth.read import open_input
from logsleuth.render.json import to_json
from mix_logs import BENCHMARKS, mix_log

if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))
from mixes import generate_mix  # noqa: E402 (benchmarks/ is not a package)

FIXTURES = Path(__file__).parent / "fixtures"


def _report(path: Path, *, fold: bool, every: int = 8) -> tuple[str, int]:
    """The JSON report of `path` and how many runs were folded, folding as often as it can."""
    saved = runfold.FOLD_EVERY
    runfold.FOLD_EVERY = every
    try:
        read = read_events(open_input(str(path)), fold_runs=fold)
    finally:
        runfold.FOLD_EVERY = saved
    report = build_report(str(path), read.events, read.stats, read.facts, None, read.notices,
                          head=read.head, folded=read.folded)
    return to_json(report), len(read.folded.runs) if read.folded is not None else 0


@pytest.mark.parametrize("mix,lines", [("restart", 40_000), ("crashloop", 6_000),
                                       ("errors", 20_000), ("healthy", 20_000)])
def test_report_of_a_mix_is_the_same_with_runs_folded(mix: str, lines: int, mix_dir: str) -> None:
    path, truth = mix_log(mix, lines, mix_dir)
    kept, _ = _report(path, fold=False)
    folded, count = _report(path, fold=True)
    assert folded == kept
    if mix in ("restart", "crashloop"):  # many runs: most of them are folded
        assert count >= int(str(truth.get("runs", 10))) // 2


def test_a_folded_run_that_failed_is_still_explained(mix_dir: str, tmp_path: Path) -> None:
    # a crash loop, then a supervisor's healthy restarts: the last failed run is folded long
    # before the end, and the report explains it from the events the fold kept of it
    crash, _ = mix_log("crashloop", 3_000, mix_dir)
    # another seed: the same one gives the restarts the crash loop's pids, and a process heard
    # again runs after it was folded is what the fold cannot see (runfold.py)
    restart = tmp_path / "restart.log"
    truth = generate_mix("restart", 40_000, str(restart), seed=1)
    healthy = restart.read_bytes().split(b"\n")[:int(str(truth["line"])) - 400]
    path = tmp_path / "crash-then-restarts.log"
    path.write_bytes(crash.read_bytes() + b"\n".join(healthy) + b"\n")
    kept, _ = _report(path, fold=False)
    folded, count = _report(path, fold=True)
    assert count > 10
    assert folded == kept
    assert '"verdict": "failure"' in folded


@pytest.mark.parametrize("path", sorted((FIXTURES / "corpus").rglob("*.txt"))[::3],
                         ids=lambda p: p.name)
def test_report_of_a_corpus_log_is_the_same_with_runs_folded(path: Path) -> None:
    assert _report(path, fold=True, every=1)[0] == _report(path, fold=False)[0]
