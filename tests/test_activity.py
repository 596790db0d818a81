"""Folding activity milestones (logsleuth/activity.py) changes nothing in any report: the same
JSON with and without it, on every corpus log and every benchmark mix, with the per-process
event cap small enough that most of a mix's activity is folded."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus_judge import iter_logs
from logsleuth.activity import ActivityFold
from logsleuth.assemble import MAX_EVENTS_PER_PROCESS, Assembler
from logsleuth.facts import FactCollector
from logsleuth.knowledge import default_causality
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


# Whether an activity line is the engine's stats line with output (causality.yaml
# `engine_stats`) is screened by the texts every such line holds before the pattern is searched:
# the same answer as the search on stats lines of every era and wording, an offline bar at 100%,
# access lines and near misses (a bar short of 100%, another throughput, the texts elsewhere).
_ACTIVITY_TEXTS = st.one_of(
    st.builds(lambda e, p, g, tail: f"Engine {e:03d}: Avg prompt throughput: {p:.1f} tokens/s, "
              f"Avg generation throughput: {g:.1f} tokens/s{tail}", st.integers(0, 7),
              st.floats(0, 9999), st.floats(0, 999), st.sampled_from(
                  ["", ", Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.2%"])),
    st.builds(lambda g: f"Avg generation throughput: {g:.1f} tokens/s", st.floats(0, 99)),
    st.builds(lambda n, p: f"Processed prompts: {p}%|████| {n}/{n} [00:0{n % 10}<00:00]",
              st.integers(1, 999), st.sampled_from(["100", " 100", "  99", "10", "100.0"])),
    st.builds(lambda port, code: f'127.0.0.1:{port} - "POST /v1/chat/completions HTTP/1.1" '
              f"{code} OK", st.integers(1024, 65535), st.sampled_from(["200", "400", "503"])),
    st.sampled_from(["Avg throughput: 3.0 tokens/s", "prompt throughput: 1.0", "Processed prompts",
                     "x Processed prompts: 100%", "avg prompt throughput: 5.0 tokens/s",
                     "Avg prompt throughput:  2.0", ""]),
)


@given(_ACTIVITY_TEXTS)
def test_stats_screen_answers_as_the_search(text: str) -> None:
    stats = default_causality().engine_stats
    assert stats is not None
    assert ActivityFold()._is_stats(text) is (stats.search(text) is not None), text
