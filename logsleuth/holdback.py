"""Activity lines around copies of a request's error held back from the assembler.

A server that rejects requests all day prints, between two copies of one error, its answers
(`200`), its engine's stats lines and the copy's own `400`. The copies fold into their first
(recur.py) and make no mark, so the activity fold (activity.py) keeps, of all those lines, the
first and the last of each process and kind between two marks, and drops the others as soon as
a later one comes: reading each of them into a milestone was most of what the assembler did
(benchmarks/README.md, session 31).

Here an activity line is held back, unread, while the assembler is steady: nothing is being
assembled, its process was seen, its stretch (the fold's key: process, milestone kind, stats
with output) is open and no mark lies at or after its last milestone, no copy group of its
process waits for such a milestone to show it was survived, its process's answers are not
failing, and the line makes a milestone only (no event, no phase, no remedy, no other channel's
record). Only the latest line of each stretch is kept: the fold would drop the others, being
neither the first of their stretch (it was seen before the hold-back) nor its last. A record
that comes meanwhile is fed without giving the held lines back only when the assembler says,
before feeding it, that it folds into a copy group (`Assembler.copy_folds`) and the next line
ends it (`Assembler.ended_by`): the copy then makes no event and no mark, and the held lines
change nothing it reads. Anything else gives the held lines back first, in line order, as does
the end of the input and a run fold that falls due (which counts them as the fold would).

The events are those of feeding every line (tests/test_holdback.py: generated mixes, every
corpus and tuning log, the benchmark mixes).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from logsleuth.activity import ActivityFold
from logsleuth.assemble import Assembler
from logsleuth.model import LineRun, LogLine, RecordRun

if TYPE_CHECKING:
    from logsleuth.runfold import RunFold

MAX_HELD = 256  # stretches held back at once (a bound: more give the held lines back)


class HoldBack:
    """Feed lines to an assembler and its events to a fold, holding back activity lines as the
    module says."""

    def __init__(self, assembler: Assembler, fold: ActivityFold, runs: RunFold | None = None):
        self._assembler = assembler
        self._fold = fold
        self._runs = runs
        self._held: dict[object, LogLine] = {}  # the latest line held of each stretch
        self._opened = 0  # held stretches whose last milestone fed opened them (kept by the fold)
        self._copy: RecordRun | None = None  # a record that folds, waiting for its next line
        self.held = 0  # lines held back
        self.copies = 0  # copies fed with lines held

    def feed(self, lines: Iterable[LogLine | LineRun | RecordRun]) -> None:
        for item in lines:
            self.add(item)

    def add(self, item: LogLine | LineRun | RecordRun) -> None:
        assembler = self._assembler
        copy = self._copy
        if copy is not None:
            self._copy = None
            if isinstance(item, LogLine) and assembler.ended_by(copy, item):
                assembler.fold_copy(copy)  # fed, ended by `item`, folded: no event
                self.copies += 1
            else:
                self.flush()
                self._give(copy)
                self._due()
        if isinstance(item, LogLine):
            key = self._key(item)
            if key is not None:
                if key not in self._held:
                    if len(self._held) >= MAX_HELD:
                        self.flush()
                    self._opened += self._fold.opened(key)
                self._held[key] = item
                self.held += 1
                self._due()
                return
        elif isinstance(item, RecordRun) and self._held and assembler.copy_folds(item):
            self._copy = item
            return
        self.flush()
        self._give(item)
        self._due()

    def finish(self) -> None:
        """Give back what is held (the input ended)."""
        if self._copy is not None:
            copy, self._copy = self._copy, None
            self.flush()
            self._give(copy)
            self._due()
        self.flush()

    def flush(self) -> None:
        """Feed the held lines, in line order."""
        if not self._held:
            return
        held = sorted(self._held.values(), key=_number)
        self._held.clear()
        self._opened = 0
        fold, assembler = self._fold, self._assembler
        for line in held:
            fold.add(assembler.feed(line), assembler.pending_from)

    def _give(self, item: LogLine | LineRun | RecordRun) -> None:
        feed_item(item, self._assembler, self._fold)

    def _due(self) -> None:
        """Fold the runs that are over where feeding every line would (the held lines counted as
        the fold would keep them: the latest of each stretch, and the one before it where that
        opened the stretch)."""
        runs = self._runs
        if runs is not None and runs.due(self._fold, self._opened):
            self.flush()
            runs.fold(self._fold, self._assembler)

    def _key(self, line: LogLine) -> object | None:
        """The fold's key of the line's milestone, when it may be held back (None: not)."""
        if not self._fold.may_hold(line):
            return None
        found = self._assembler.activity_only(line)
        if found is None:
            return None
        return self._fold.quiet_key(line, found)


def _number(line: LogLine) -> int:
    return line.number


def feed_item(item: LogLine | LineRun | RecordRun, assembler: Assembler,
              fold: ActivityFold) -> None:
    """Feed one located item (a line, a run of lines, a record's run) to the assembler and the
    events it completes to the fold."""
    if isinstance(item, LineRun):
        for events in assembler.feed_run(item):
            fold.add(events, assembler.pending_from)
    elif isinstance(item, RecordRun):
        for events in assembler.feed_record(item):
            fold.add(events, assembler.pending_from)
    else:
        fold.add(assembler.feed(item), assembler.pending_from)
