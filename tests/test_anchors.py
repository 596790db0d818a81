"""Anchor precision: a healthy log sends almost none of its lines to the grammar, and nothing that
matters is lost on the way (every error shape and every fact is still read from anchored lines).

tests/test_tokenize.py checks error shapes on the corpus; this file adds the benchmark mixes
(generated, benchmarks/mixes.py) and the facts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_judge import iter_logs
from logsleuth.facts import FactCollector
from logsleuth.read import open_input
from logsleuth.tokenize import anchor_patterns, clean, parse_line, tokenize
from mix_logs import MIXES, mix_log
from test_tokenize import _matters

MIX_LINES = 20_000
SHARE_LINES = 50_000  # long enough that one start-up (~90 anchored lines) weighs little
# The share of a serving log's lines (before its failure) that reach the grammar. Serving logs
# anchor their few handled errors, the last serving line of each block and their start-up facts
# milestones and phases; a restart every 3,000 lines repeats the start-up's ~90 such lines; logged
# prompts are user text, whose words (`dead`, ` version `) anchor a line as a message would.
HEALTHY_SHARE = {"healthy": 0.01, "debug": 0.01, "procs64": 0.01, "longlines": 0.02,
                 "restart": 0.04}


def _anchored_share(lines: list[bytes]) -> float:
    anchor = anchor_patterns()[0]
    return sum(1 for raw in lines if anchor.search(raw)) / max(len(lines), 1)


@pytest.mark.parametrize("mix", sorted(HEALTHY_SHARE))
def test_healthy_stretch_of_a_serving_log_is_barely_anchored(mix: str, mix_dir: str) -> None:
    path, truth = mix_log(mix, SHARE_LINES, mix_dir)
    failure_starts = int(str(truth["line"])) - 40  # the OOM record and what precedes it
    healthy = path.read_bytes().split(b"\n")[:failure_starts]
    assert _anchored_share(healthy) < HEALTHY_SHARE[mix]


@pytest.mark.parametrize("mix", MIXES)
def test_every_generated_line_that_matters_is_anchored(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, MIX_LINES, mix_dir)
    anchor = anchor_patterns()[0]
    missed = [raw[:120] for raw in path.read_bytes().split(b"\n")
              if _matters(raw) and not anchor.search(raw)]
    assert not missed


def _facts_of_every_line(log: Path) -> tuple[dict[str, object], dict[str, object]]:
    collector = FactCollector()
    for number, raw in enumerate(log.read_bytes().split(b"\n"), 1):
        line = parse_line(clean(raw.decode("utf-8", "replace")), number)
        if line.kind in collector._kinds:
            collector.look(line)
    return collector.result(), {k: (o.line, o.process) for k, o in collector.origins().items()}


def _facts_of_anchored_lines(log: Path) -> tuple[dict[str, object], dict[str, object]]:
    collector = FactCollector()
    for _ in collector.watch(tokenize(open_input(log).blocks())):
        pass
    return collector.result(), {k: (o.line, o.process) for k, o in collector.origins().items()}


@pytest.mark.parametrize("log", list(iter_logs()),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_anchored_lines_hold_every_fact_of_a_corpus_log(log: Path) -> None:
    assert _facts_of_anchored_lines(log) == _facts_of_every_line(log)


@pytest.mark.parametrize("mix", MIXES)
def test_anchored_lines_hold_every_fact_of_a_generated_log(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, MIX_LINES, mix_dir)
    assert _facts_of_anchored_lines(path) == _facts_of_every_line(path)
