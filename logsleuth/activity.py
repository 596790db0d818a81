"""Activity milestones folded as they stream by.

A server that keeps answering while it logs errors yields an activity milestone (engine output,
an HTTP answer, a refused request) for about every error, and a day of rejected requests holds
hundreds of thousands. Inference asks of them only whether a process worked somewhere between
two lines that belong to other events (an error's first, own and last line, its last line plus
the answers in flight, any other milestone, a process's first appearance; causal.py, runs.py,
phase.py), which one came last before such a line, and which came last of all. Between two such
lines, the milestones of one process and kind answer all of that through the first and the last
of them: the others are dropped as soon as a later one shows they lie in the middle. The engine's
own stats lines with output (causality.yaml `engine_stats`) are a stretch of their own among the
`serving` lines: two of them after an error show an interval of output wholly after it (causal.py
`_Work.evidence`), and answers between them must not fold them away.

An event still being assembled (a traceback waiting for its next line) may yet bring such a
line: nothing after the first line it could have is dropped until it is complete.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterable

from logsleuth.causal import IN_FLIGHT
from logsleuth.knowledge import default_causality
from logsleuth.literal import required_literals
from logsleuth.model import ErrorEvent, Event, LogLine, Milestone, MilestoneKind, Process

_SERVING, _ALIVE, _REJECTED = MilestoneKind.SERVING, MilestoneKind.ALIVE, MilestoneKind.REJECTED
_ACTIVITY = frozenset({_SERVING, _ALIVE, _REJECTED})
_MIN_HOLES = 4096  # the places closed at once, at least

# The last milestone of a process and kind: (its index in the events kept, its line, whether it
# is the first of its stretch between two marks). A plain tuple: one is made per activity line
# (a day of rejected requests makes hundreds of thousands), and a tuple costs a tenth of an
# object with fields.
_Last = tuple[int, int, bool]


class ActivityFold:
    """Collect events in the order they come; drop activity milestones that lie in the middle
    of a stretch of their process and kind with no other event's line in it."""

    def __init__(self) -> None:
        self._events: list[Event | None] = []
        self._marks: list[int] = []  # sorted: the lines inference compares activity with
        self._last: dict[tuple[Process, MilestoneKind, bool], _Last] = {}
        self._seen: set[Process] = set()
        self.dropped = 0
        self._holes = 0  # dropped places not yet closed
        stats = default_causality().engine_stats
        # the texts one of which every stats line holds: an access line, most of a serving
        # log's activity, holds none, and `in` says so for a tenth of the search's cost
        needles = required_literals(stats.pattern) if stats is not None else ()
        self._stats_search = stats.search if stats is not None else None
        self._stats_needles = needles if needles else None

    def add(self, events: Iterable[Event], pending_from: Callable[[], int | None]) -> None:
        """Take events as the assembler completes them; `pending_from` says the first line of
        the earliest event not complete yet (None: none)."""
        if isinstance(events, list) and len(events) == 1:
            event = events[0]
            if type(event) is Milestone and event.process in self._seen:
                kind = event.kind
                if kind is _SERVING or kind is _REJECTED or kind is _ALIVE:
                    # the common case, one activity line's milestone from a process seen
                    # before: it marks no line, and only its stretch's fold is asked
                    self._events.append(event)
                    self._fold(event, kind, pending_from)
                    return
        for event in events:
            if event.process not in self._seen:  # a process's first word may start a run
                self._seen.add(event.process)
                insort(self._marks, event.first_line if isinstance(event, ErrorEvent)
                       else event.line)
            if isinstance(event, ErrorEvent):
                for line in (event.first_line, event.line, event.last_line,
                             event.last_line + IN_FLIGHT):
                    insort(self._marks, line)
            elif event.kind not in _ACTIVITY:
                insort(self._marks, event.line)
            self._events.append(event)
            if isinstance(event, Milestone) and event.kind in _ACTIVITY:
                self._fold(event, event.kind, pending_from)

    def events(self) -> list[Event]:
        """The events kept, in the order they came."""
        return [event for event in self._events if event is not None]

    @property
    def kept(self) -> int:
        """How many events are kept."""
        return len(self._events) - self._holes

    def may_hold(self, line: LogLine) -> bool:
        """Whether `quiet_key` may give the line a key at all, asked before its kind is known
        (a stretch's last milestone lies before the line, and the marks before that)."""
        marks = self._marks
        return (not marks or marks[-1] < line.number - 1) and line.process in self._seen

    def quiet_key(self, line: LogLine, kind: MilestoneKind) -> object | None:
        """The key of the stretch the activity milestone `line` makes would join, when the fold
        would keep it only as that stretch's last so far (holdback.py): its process was seen,
        the stretch is open, and no mark lies at or after the stretch's last milestone (none
        between, and none ahead that a later one of the stretch could pass). None otherwise."""
        process = line.process
        if process not in self._seen:
            return None
        key = (process, kind, kind is _SERVING and self._is_stats(line.text))
        previous = self._last.get(key)
        if previous is None:
            return None
        marks = self._marks
        if marks and marks[-1] >= previous[1]:
            return None
        return key

    def _is_stats(self, text: str) -> bool:
        """Whether an activity line's text is the engine's account of its output
        (`engine_stats`)."""
        search = self._stats_search
        if search is None:
            return False
        needles = self._stats_needles
        if needles is not None:
            for needle in needles:  # (a loop: a generator would cost what the screen saves)
                if needle in text:
                    break
            else:
                return False
        return search(text) is not None

    def opened(self, key: object) -> int:
        """1 when the stretch's last milestone opened it (the fold keeps it whatever follows)."""
        previous = self._last.get(key)  # type: ignore[call-overload]
        return 1 if previous is not None and previous[2] else 0

    def drop_before(self, line: int, gone: set[tuple[str, int]]) -> None:
        """Forget the events before `line`: runs folded as they ended (runfold.py), whose
        processes (`gone`: name and pid) print nothing after them, so no later milestone is
        compared with them."""
        kept: list[Event | None] = []
        moved: dict[int, int] = {}
        for index, event in enumerate(self._events):
            if event is not None and event.line >= line:
                moved[index] = len(kept)
                kept.append(event)
        self._events = kept
        # a process without a pid may talk in every run (journald's `systemd[1]`): its last
        # milestone stays a stretch's first, never dropped, so it is kept as one without an
        # index, and the marks after it stay
        self._last = {key: (moved[index], at, opens) if index in moved else (-1, at, True)
                      for key, (index, at, opens) in self._last.items()
                      if index in moved or key[0].pid is None}
        self._seen = {p for p in self._seen if (p.name, p.pid) not in gone}
        lowest = min([line, *(at for _, at, _ in self._last.values())])
        del self._marks[:bisect_left(self._marks, lowest)]
        self._holes = 0

    def _fold(self, milestone: Milestone, kind: MilestoneKind,
              pending_from: Callable[[], int | None]) -> None:
        key = (milestone.process, kind, kind is _SERVING and self._is_stats(milestone.text))
        previous = self._last.get(key)
        line = milestone.line
        if previous is None:
            opens = True
        else:
            index, at, opened = previous
            # a mark in [at, line], or one an event still assembled (begun by `line`) may bring
            marks = self._marks
            found = bisect_left(marks, at)
            if found < len(marks) and marks[found] <= line:
                opens = True
            else:
                pending = pending_from()
                opens = pending is not None and pending <= line
            if not opens and not opened:
                self._events[index] = None  # neither first nor last of its stretch
                self.dropped += 1
                self._holes += 1
        self._last[key] = (len(self._events) - 1, line, opens)
        if self._holes > _MIN_HOLES and 2 * self._holes > len(self._events):
            self._compact()

    def _compact(self) -> None:
        """Close the holes dropped milestones left: a day of rejected requests drops millions,
        and their empty places alone grew with the log (8 bytes each)."""
        moved: dict[int, int] = {}
        kept: list[Event | None] = []
        for index, event in enumerate(self._events):
            if event is not None:
                moved[index] = len(kept)
                kept.append(event)
        self._events = kept
        # a last milestone is never dropped (only one a later one follows), so it has moved
        # (or was forgotten with its run: drop_before)
        self._last = {key: (moved[index], at, opens) if index >= 0 else (index, at, opens)
                      for key, (index, at, opens) in self._last.items()}
        self._holes = 0
