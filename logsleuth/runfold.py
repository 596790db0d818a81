"""Runs folded as they end: a log of many starts holds in memory the runs it may still explain,
not every event of every run.

A supervisor that restarts vLLM every few thousand lines, or a crash loop, writes thousands of
runs; each keeps its milestones (a start-up's ~60) and errors until the log ends, and memory
grew with the runs (benchmarks/README.md, sessions 12-13). What the report asks of a run that
is over is little: its lines, its start time, its key and its inference's outcome (runs.py),
the events of the last one that failed (it is the one explained if no later run fails) and the
phase mark a later failure's phase scan carries over it (phase.py).

Every `FOLD_EVERY` events kept, the events kept so far are split into runs (runs.split_runs,
copies counted as recur.py would count them) and the oldest are folded while all of these hold:

- at least `KEEP` later runs are kept unfolded (the last run may still grow, and where the one
  before it ends may still move);
- no process of the run with a pid has an event in a later run, and no copy of its errors was
  printed after the run's last line (split_runs decides a boundary by who is silent from there
  on, and asks it of processes with a pid only: journald's `systemd[1]` talks in every run);
- no error begun before the run's end is still being assembled.

An ERROR record of such a run that no traceback followed is completed first, as the log's end
would complete it. A folded run's events then leave the activity fold (activity.py) and its
processes the assembler's, recurrences' and hints' per-process tables; its outcome is the one
CausalGraph.build would give it (inferred once per run key, shifted for identical runs).

What the fold cannot see: a process of a folded run heard again later (a pid reused by a later
run, which split_runs's own rules expect, or an old deployment still talking after two later
runs began) may move, in a reading that keeps every event, a boundary the fold already drew.
tests/test_runfold.py checks the report equal with and without the fold, folding as often as it
can, on mixes of many runs and of one, on a folded run that is the one explained and on part of
the corpus (benchmarks/README.md, session 14: on every corpus, tuning and mix log).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from logsleuth.activity import ActivityFold
from logsleuth.assemble import Assembler
from logsleuth.knowledge import Causality
from logsleuth.model import ErrorEvent, Event, Milestone, Verdict
from logsleuth.phase import phase_mark
from logsleuth.runs import (Outcome, Recurring, RunKey, RunSlice, RunSpan, outcome_of, run_key,
                           split_runs, start_time)

FOLD_EVERY = 4_096  # events kept between two attempts (a split of the kept events each)
KEEP = 2  # the latest runs never folded

_Who = tuple[str, int | None]


@dataclass(frozen=True, slots=True)
class FoldedRun:
    """A run that is over, as the report's `runs` list and the causal stage need it: its lines,
    start time and outcome, no event of it (a log of thousands of restarts keeps thousands)."""

    span: RunSpan
    outcome: Outcome


@dataclass
class FoldedRuns:
    """The runs folded so far, in order, and what later stages need of them (it grows as
    RunFold folds, hence not frozen)."""

    runs: list[FoldedRun] = field(default_factory=list)
    known: dict[RunKey, tuple[Outcome, int]] = field(default_factory=dict)  # as in build
    start: int = 1  # the first line of the runs not folded
    explained: int | None = None  # the last folded run that failed (index in `runs`)
    explained_events: tuple[Event, ...] = ()  # its events, counted
    mark_before_explained: Milestone | None = None  # phase mark before it (phase.phase_mark)
    mark: Milestone | None = None  # the phase mark of every folded run
    # the records the folded runs printed and went on past (runs.Recurring)
    recurring: Recurring = field(default_factory=Recurring)

    def spans(self) -> list[RunSpan]:
        return [run.span for run in self.runs]

    def phase_events(self, line: int, kept: list[Event]) -> list[Event]:
        """Events whose phase scan before `line` (phase.lines_phase) is that of the whole log."""
        if line < self.start:  # the failure is in the folded run explained
            before = [self.mark_before_explained] if self.mark_before_explained else []
            return [*before, *self.explained_events]
        return [self.mark, *kept] if self.mark is not None else kept


class RunFold:
    """Fold the oldest runs of an ActivityFold's events once they are over."""

    def __init__(self, know: Causality, counted: Callable[[list[Event]], list[Event]],
                 every: int | None = None):
        self._know = know
        self._counted = counted
        self._every = every or FOLD_EVERY
        self._next = self._every
        self.folded = FoldedRuns()

    def due(self, fold: ActivityFold, held: int = 0) -> bool:
        """Whether the runs are to be folded now (`held`: events the fold would keep of lines
        held back from it, holdback.py)."""
        return fold.kept + held >= self._next

    def fold(self, fold: ActivityFold, assembler: Assembler) -> None:
        """Fold the runs of `fold`'s events that are over (see the module's conditions)."""
        events = self._counted(fold.events())
        slices = split_runs(events, self._know)
        upto = self._foldable(slices, None)
        if upto:
            # an ERROR record of such a run that no traceback followed waits for the log's end
            # (a crash loop's API server reporting its engine's death, every run): it is
            # complete now, as the end would complete it
            gone = {(e.process.name, e.process.pid) for run in slices[:upto] for e in run.events
                    if e.process.pid is not None}
            done = assembler.finish_processes(lambda p: (p.name, p.pid) in gone)
            if done:
                fold.add(done, assembler.pending_from)
                slices = split_runs(self._counted(fold.events()), self._know)
            upto = self._foldable(slices, assembler.pending_from())
        if upto:
            for index in range(upto):
                run = slices[index]
                if index == 0:  # split_runs starts the first run at line 1
                    run = RunSlice(self.folded.start, run.end_line, run.events)
                self._summarise(run)
            self.folded.start = slices[upto].start_line
            gone = {(e.process.name, e.process.pid) for run in slices[:upto] for e in run.events
                    if e.process.pid is not None}
            fold.drop_before(self.folded.start, gone)
            assembler.forget(gone, self.folded.start)
        # an attempt that folds nothing (one long run, a deployment that never goes) waits
        # for as many events again as are kept: the splits stay linear in the events read
        self._next = fold.kept + max(self._every, fold.kept)

    def _foldable(self, slices: list[RunSlice], pending: int | None) -> int:
        """How many of the first runs may be folded."""
        last_run: dict[_Who, int] = {}  # the last run each process has an event in
        for index, run in enumerate(slices):
            for event in run.events:
                last_run[(event.process.name, event.process.pid)] = index
        upto = 0
        for index, run in enumerate(slices[:len(slices) - KEEP]):
            if pending is not None and pending <= run.end_line:
                break
            # a process without a pid (journald's `systemd[1]`, an unprefixed era's lines)
            # may talk in every run: split_runs asks only processes with a pid to be silent
            if any(e.process.pid is not None and last_run[(e.process.name, e.process.pid)] != index
                   or isinstance(e, ErrorEvent) and (e.last_occurrence or 0) > run.end_line
                   for e in run.events):
                break
            upto = index + 1
        return upto

    def _summarise(self, run: RunSlice) -> None:
        from logsleuth.causal import CausalGraph  # causal imports activity, which this needs

        folded = self.folded
        key = run_key(run)
        if key in folded.known:  # an identical run: CausalGraph.build's shortcut
            outcome, start = folded.known[key]
            outcome = outcome.shifted(run.start_line - start, start_time(run))
        else:
            outcome = outcome_of(CausalGraph.infer_run(run.events, self._know), run)
            folded.known[key] = (outcome, run.start_line)
        folded.recurring.add(run, outcome, key)
        folded.runs.append(FoldedRun(RunSpan.of(run), outcome))
        mark = folded.mark
        if outcome.verdict is not Verdict.NO_FAILURE:
            folded.explained = len(folded.runs) - 1
            folded.explained_events = run.events
            folded.mark_before_explained = mark
        folded.mark = phase_mark([*([mark] if mark is not None else []), *run.events])

    def finish(self) -> FoldedRuns | None:
        """The runs folded (None: none was)."""
        return self.folded if self.folded.runs else None
