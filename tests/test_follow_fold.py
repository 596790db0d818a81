"""`--follow` reads as `explain` does (repeated record lines replayed, activity folded): after
every chunk of a growing log, the report it would give is the one of the plain line-by-line
reading with every event kept."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from corpus_judge import iter_logs
from logsleuth.assemble import Assembler
from logsleuth.facts import FactCollector
from logsleuth.follow import _Follower
from logsleuth.model import Event
from logsleuth.pipeline import build_report
from logsleuth.render.json import to_json
from logsleuth.tokenize import Tokenizer, TokenizeStats
from match_memo import matched_once  # noqa: F401 (the fixture)
from mix_logs import MIXES, mix_log


# matching done once for a log's two readings when they hand it the same inputs (match_memo.py)
pytestmark = pytest.mark.usefixtures("matched_once")


class _Plain:
    """The follower as it was: every line fed, every event kept."""

    def __init__(self) -> None:
        self.stats = TokenizeStats()
        self.tokenizer = Tokenizer(self.stats)
        self.assembler = Assembler()
        self.facts = FactCollector()
        self.events: list[Event] = []
        self.pending = b""

    def feed(self, chunk: bytes) -> None:
        data = self.pending + chunk
        cut = data.rfind(b"\n") + 1
        self.pending = data[cut:]
        if cut:
            for line in self.facts.watch(self.tokenizer.feed(data[:cut])):
                self.events += self.assembler.feed(line)

    def current(self) -> list[Event]:
        return self.events + list(self.assembler.snapshot())


def _same_after_every_chunk(data: bytes, seed: int, checks: int = 6, cap: int | None = None
                            ) -> int:
    """Compare after each of `checks` chunks; the milestones the fold dropped."""
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(data)), min(checks - 1, len(data) - 1))) + [len(data)]
    folded, plain = _Follower(), _Plain()
    if cap is not None:  # few errors kept per process: most of a mix's activity folds
        folded.assembler = Assembler(max_events_per_process=cap)
        plain.assembler = Assembler(max_events_per_process=cap)
    start = 0
    for cut in cuts:
        folded.feed(data[start:cut])
        plain.feed(data[start:cut])
        start = cut
        reports = [to_json(build_report("log", f.current(), f.stats, f.facts, None))
                   for f in (folded, plain)]
        assert reports[0] == reports[1], cut
    return folded.fold.dropped


@pytest.mark.parametrize("mix", MIXES)
def test_follow_reads_a_mix_as_the_plain_reading(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    _same_after_every_chunk(path.read_bytes(), seed=len(mix))
    dropped = _same_after_every_chunk(path.read_bytes(), seed=len(mix), cap=20)
    if mix == "errors":
        assert dropped > 100


@pytest.mark.parametrize("log", list(iter_logs())[::4],
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_follow_reads_corpus_logs_as_the_plain_reading(log: Path) -> None:
    _same_after_every_chunk(log.read_bytes(), seed=7, checks=3)
