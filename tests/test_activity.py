"""Folding activity milestones (logsleuth/activity.py) changes nothing in any report: the same
JSON with and without it, on every corpus log and every benchmark mix, with the per-process
event cap small enough that most of a mix's activity is folded."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_judge import iter_logs
from logsleuth.activity import ActivityFold
from logsleuth.assemble import MAX_EVENTS_PER_PROCESS, Assembler
from logsleuth.facts import FactCollector
from logsleuth.model import Event, Milestone, MilestoneKind, Process
from logsleuth.pipeline import build_report
from logsleuth.read import open_input
from logsleuth.render.json import to_json
from logsleuth.tokenize import TokenizeStats, tokenize
from match_memo import matched_once  # noqa: F401 (the fixture)
from mix_logs import MIXES, mix_log


# matching done once for a log's two readings when they hand it the same inputs (match_memo.py)
pytestmark = pytest.mark.usefixtures("matched_once")


def _reports(path: Path, cap: int) -> tuple[str, str, int]:
    """(JSON folded, JSON unfolded, milestones dropped) of one log."""
    outputs: list[str] = []
    dropped = 0
    # the log tokenized once: both readings assemble the same lines (folding is the
    # assembler's side; the LogLines are frozen and build_report only reads the stats and
    # facts), so tokenizing it again for the second reading compared nothing
    stats, facts = TokenizeStats(), FactCollector()
    lines = list(facts.watch(tokenize(open_input(path).blocks(), stats)))
    for folding in (True, False):
        assembler = Assembler(max_events_per_process=cap)
        fold = ActivityFold()
        events: list[Event] = []
        for line in lines:
            if folding:
                fold.add(assembler.feed(line), assembler.pending_from)
            else:
                events += assembler.feed(line)
        if folding:
            fold.add(assembler.finish(), assembler.pending_from)
            events, dropped = fold.events(), fold.dropped
        else:
            events += assembler.finish()
        outputs.append(to_json(build_report(str(path), events, stats, facts, None)))
    return outputs[0], outputs[1], dropped


@pytest.mark.parametrize("log", list(iter_logs()),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_folding_changes_no_corpus_report(log: Path) -> None:
    folded, plain, _ = _reports(log, MAX_EVENTS_PER_PROCESS)
    assert folded == plain


@pytest.mark.parametrize("mix", MIXES)
def test_folding_changes_no_mix_report(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    folded, plain, dropped = _reports(path, cap=20)
    assert folded == plain
    if mix == "errors":
        assert dropped > 100  # the rejected requests past the cap leave their answers foldable


def test_a_stretch_keeps_its_first_and_last() -> None:
    server = Process("APIServer", 7)
    fold = ActivityFold()
    fold.add([Milestone(MilestoneKind.SERVING, line, server, "200 OK") for line in range(1, 9)],
             lambda: None)
    # a process's first word is a mark of its own (a run may start there)
    assert [m.line for m in fold.events()] == [1, 2, 8]
    assert fold.dropped == 5


def test_nothing_is_folded_past_an_event_still_assembled() -> None:
    server = Process("APIServer", 7)
    fold = ActivityFold()
    fold.add([Milestone(MilestoneKind.SERVING, line, server, "200 OK") for line in range(1, 9)],
             lambda: 6)  # a traceback began at line 6 and is not complete
    assert [m.line for m in fold.events()] == [1, 2, 5, 6, 7, 8]


@pytest.mark.parametrize("mix", ["errors", "restart", "procs64"])
def test_closing_the_holes_changes_no_mix_report(mix: str, mix_dir: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The dropped milestones' places closed as soon as they are half the list, not only past
    thousands: the same report."""
    import logsleuth.activity

    monkeypatch.setattr(logsleuth.activity, "_MIN_HOLES", 1)
    path, _ = mix_log(mix, 5_000, mix_dir)
    folded, plain, _ = _reports(path, cap=20)
    assert folded == plain


def test_closing_the_holes_keeps_the_order() -> None:
    server, other = Process("APIServer", 7), Process("EngineCore", 8)
    fold = ActivityFold()
    for line in range(1, 40_000, 2):
        fold.add([Milestone(MilestoneKind.SERVING, line, server, "200 OK"),
                  Milestone(MilestoneKind.ALIVE, line + 1, other, "GET /health")], lambda: None)
    kept = [m.line for m in fold.events()]
    assert kept == [1, 2, 3, 4, 39_999, 40_000]
    assert len(fold._events) < 10_000  # the holes were closed on the way
