"""Folding survived repeats (logsleuth/fold.py): the answer is the same as without folding, and
what is held grows with the distinct failures, not with their copies."""

from __future__ import annotations

import pytest

from logsleuth.assemble import Assembler
from logsleuth.fold import KEEP, Folder
from logsleuth.model import ErrorEvent, Event
from logsleuth.pipeline import build_report, explain, read_events
from logsleuth.read import open_input
from logsleuth.tokenize import TokenizeStats, tokenize
from mix_logs import MIXES, mix_log


def _unfolded(path: str) -> tuple[list[Event], TokenizeStats]:
    stats = TokenizeStats()
    assembler = Assembler()
    events = [e for line in tokenize(open_input(path).blocks(), stats)
              for e in assembler.feed(line)]
    return events + list(assembler.finish()), stats


@pytest.mark.parametrize("mix", MIXES)
def test_folding_leaves_the_answer_unchanged(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    folded = explain(str(path))
    events, stats = _unfolded(str(path))
    read = read_events(open_input(str(path)))
    plain = build_report(folded.source, events, stats, read.facts, None)
    assert (folded.verdict, folded.root_cause, folded.symptoms[:5]) == \
        (plain.verdict, plain.root_cause, plain.symptoms[:5])


def test_events_held_grow_with_distinct_failures_not_copies(mix_dir: str) -> None:
    small, _ = mix_log("errors", 5_000, mix_dir)
    big, _ = mix_log("errors", 20_000, mix_dir)
    held = [len(read_events(open_input(str(p))).events) for p in (small, big)]
    copies = [sum(isinstance(e, ErrorEvent) for e in _unfolded(str(p))[0]) for p in (small, big)]
    assert copies[1] > 3 * copies[0]  # the bigger log has four times the copies
    assert held[1] <= held[0] + 10  # but holds about the same events
    group = read_events(open_input(str(big))).folded[0]
    assert group.count > copies[1] / 2 and group.first_line < group.last_line


def test_a_chain_folds_with_its_first_exception() -> None:
    from logsleuth.model import EventKind, Milestone, MilestoneKind, Process

    server = Process("APIServer", 7)

    def error(event_id: int, line: int, cause: int | None = None) -> ErrorEvent:
        return ErrorEvent(event_id, EventKind.EXCEPTION, "ValueError" if cause is None
                          else "RuntimeError", f"bad {line}", server, line, line, line,
                          cause_id=cause)

    events: list[Event] = []
    for copy in range(KEEP + 3):
        base = 10 * copy
        events += [error(base + 1, base + 1), error(base + 2, base + 2, cause=base + 1),
                   Milestone(MilestoneKind.SERVING, base + 5, server, "200 OK")]
    folder = Folder()
    kept = [e for e in folder.fold(events) if isinstance(e, ErrorEvent)]
    assert len(kept) == 2 * KEEP
    assert all(e.cause_id is None or any(k.id == e.cause_id for k in kept) for e in kept)
    assert sorted(g.count for g in folder.folded()) == [3, 3]
