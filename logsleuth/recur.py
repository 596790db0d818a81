"""Copies of a request's error folded into counts as they stream by.

A server that rejects requests all day logs the same failure for each one: 40,000 copies of
one `ValueError` in a million lines, differing in their digits. Inference decides every copy
the same way (the server answers such an error and goes on), so the copies do not need to
reach it: each is counted into the first of its kind (`ErrorEvent.occurrences`, and the last
line of the last copy), and memory and the causal graph hold distinct failures, not
occurrences. The report of a log with N copies is that of the log with the first one, apart
from the counts (tests/test_recur.py).

A copy folds into the first of its kind (its example) when:

- it is the same failure: the same process, kind, type, masked message (`fingerprint`), call
  site, title and frames, and, for an exception chained from another, chained from a copy of
  the same failure;
- knowledge classifies it as a request's error vLLM answers (`causal.recurring`), and the same
  way as its example: the same shape of text (digits aside) with the same answers from the few
  text patterns that read digits, or classified anew;
- the example was survived before the copy came: it is handled (survived whatever follows), or
  its process showed it went on working (`causal.recurring` says by which milestones) after the
  example and before the copy, which is what saves every later copy of a request's error in
  inference (`causal._survivors`, recurrences);
- both belong to the same run: no start of vLLM, and no first word of a new process (where
  runs.py may begin a run), lies between them, nor can one still come (no error of a process
  not seen yet is still being assembled from before the copy's line).

Anything else reaches inference as before. An exception chained from a folded copy that does
not fold itself is linked to the example instead (the copy it was raised from stands for it).
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from logsleuth.causal import recurring
from logsleuth.fingerprint import fingerprint
from logsleuth.knowledge import Causality
from logsleuth.model import ErrorEvent, Event, Milestone, MilestoneKind, Process
from logsleuth.tokenize.shape import shape_key

_SHAPES = 16  # shapes of text known to classify like a group's example (a bound per group)

_Key = tuple[object, ...]


@dataclass
class _Group:
    """The copies of one failure within one run, folded into its first."""

    serial: int
    example: ErrorEvent
    evidence: frozenset[MilestoneKind]  # own milestones that show work went on (empty: none needed)
    decisions: tuple[bool, ...]  # the example's answers from the digit-reading text patterns
    shapes: set[bytes] = field(default_factory=set)
    proven: bool = False  # the example was survived before a copy came
    count: int = 1
    last: int | None = None  # the last line of the last copy folded
    latest: int | None = None  # the id of the last copy folded


class Recurrences:
    """Take the events the assembler completes, in that order; fold the copies of a request's
    error into their example. `counted` gives the examples their counts."""

    def __init__(self, know: Causality):
        self._know = know
        self._current: dict[_Key, _Group] = {}  # the group each failure folds into now
        self._examples: dict[int, _Group] = {}  # every group, by its example's id
        self._latest: dict[int, _Group] = {}  # the last copy folded of each group, by its id
        self._starts: list[int] = []  # sorted: lines where a run may begin
        self._seen: set[tuple[str, int | None]] = set()
        self._work: dict[tuple[Process, MilestoneKind], int] = {}  # the last line of each
        self._serial = 0
        self.folded = 0

    def see(self, milestone: Milestone) -> None:
        """A milestone, in the order they come: a start, or a process's work."""
        self._appears(milestone.process, milestone.line)
        if milestone.kind is MilestoneKind.START:
            insort(self._starts, milestone.line)
        self._work[(milestone.process, milestone.kind)] = milestone.line

    def take(self, event: ErrorEvent, waiting: Callable[[], Iterable[tuple[Process, int]]]
             ) -> ErrorEvent | None:
        """The event to pass on (itself, or relinked to an example), or None: folded.
        `waiting` gives the process and first line of each error still being assembled."""
        self._appears(event.process, event.first_line)
        chained: int | None = None  # the serial of the group of the error it was raised from
        relinked = event
        if event.cause_id is not None:
            cause = self._latest.get(event.cause_id) or self._examples.get(event.cause_id)
            if cause is None:
                return event  # raised from an error inference sees: a chain of its own
            chained = cause.serial
            if event.cause_id != cause.example.id:  # raised from a folded copy
                relinked = replace(event, cause_id=cause.example.id)
        key = (event.process, event.kind, event.exception, fingerprint(event), event.title,
               event.site, tuple((f.file, f.function) for f in event.frames), event.raw,
               event.cause_reason, chained)
        group = self._current.get(key)
        if group is not None and self._folds(group, event, waiting):
            self._fold(group, event)
            return None
        if group is None or self._split(group, event):
            self._start(key, relinked)
        return relinked

    def counted(self, events: list[Event]) -> list[Event]:
        """The events with each example given its count of copies."""
        if not self.folded:
            return events
        out: list[Event] = []
        for event in events:
            group = self._examples.get(event.id) if isinstance(event, ErrorEvent) else None
            if group is not None and group.count > 1 and group.example is event:
                event = replace(event, occurrences=group.count, last_occurrence=group.last)
            out.append(event)
        return out

    def _appears(self, process: Process, line: int) -> None:
        """A process's first word may begin a run (runs.py): copies do not fold across it."""
        if process.pid is not None:
            who = (process.name, process.pid)
            if who not in self._seen:
                self._seen.add(who)
                insort(self._starts, line)

    def _start(self, key: _Key, example: ErrorEvent) -> None:
        evidence = recurring(example, self._know)
        if evidence is None:
            self._current.pop(key, None)
            return
        self._serial += 1
        group = _Group(self._serial, example, evidence,
                       self._know.digit_decisions(example.text), {shape_key(example.text)})
        self._current[key] = group
        self._examples[example.id] = group

    def _split(self, group: _Group, event: ErrorEvent) -> bool:
        """A run may begin between the group's example and the event."""
        index = bisect_right(self._starts, group.example.line)
        return index < len(self._starts) and self._starts[index] <= event.line

    def _folds(self, group: _Group, event: ErrorEvent,
               waiting: Callable[[], Iterable[tuple[Process, int]]]) -> bool:
        if self._split(group, event):
            return False
        for process, first in waiting():
            if first <= event.line and process.pid is not None \
                    and (process.name, process.pid) not in self._seen:
                return False  # an error still being assembled is a new process's first word
        if not group.proven:
            example = group.example
            group.proven = not group.evidence or any(
                example.last_line < self._work.get((example.process, kind), 0) < event.first_line
                for kind in group.evidence)
            if not group.proven:
                return False
        return self._alike(group, event)

    def _alike(self, group: _Group, event: ErrorEvent) -> bool:
        """Knowledge classifies the event as it did the group's example."""
        text = event.text
        shape = shape_key(text)
        if shape in group.shapes:
            return self._know.digit_decisions(text) == group.decisions
        if recurring(event, self._know) != group.evidence:
            return False
        if len(group.shapes) < _SHAPES:
            group.shapes.add(shape)
        return True

    def _fold(self, group: _Group, event: ErrorEvent) -> None:
        # only the last copy can still have an exception raised from it: the next one comes
        # later in the same channel (the same process and call site)
        if group.latest is not None:
            del self._latest[group.latest]
        group.latest = event.id
        self._latest[event.id] = group
        group.count += 1
        group.last = event.last_line
        self.folded += 1
