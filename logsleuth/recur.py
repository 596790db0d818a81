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

Anything else reaches inference as before. An exception raised from a folded copy takes that
copy back out of the count and both reach inference: whether the copy is survived depends on
what follows from it (`causal._survivors` settles an error only after its effects), which its
example does not share (tests/test_recur.py: a chained exception, then the log cut).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from logsleuth.causal import recurring
from logsleuth.fingerprint import fingerprint
from logsleuth.knowledge import Causality
from logsleuth.model import ErrorEvent, Event, Milestone, MilestoneKind, Process
from logsleuth.signatures.template import mask_key
from logsleuth.tokenize.shape import shape_key

_SHAPES = 16  # shapes of text known to classify like a group's example (a bound per group)
_WAITING = 64  # groups per process waiting for it to show it went on working (a bound)

_Key = tuple[object, ...]


@dataclass
class _Group:
    """The copies of one failure within one run, folded into its first."""

    serial: int
    key: _Key
    example: ErrorEvent
    evidence: frozenset[MilestoneKind]  # own milestones that show work went on (empty: none needed)
    decisions: tuple[bool, ...]  # the example's answers from the digit-reading text patterns
    shapes: set[bytes] = field(default_factory=set)
    worked: int | None = None  # the first line after the example that shows its process working
    count: int = 1
    last: int | None = None  # the last line of the last copy folded
    latest: ErrorEvent | None = None  # the last copy folded
    before: int | None = None  # `last` before it was folded


class Recurrences:
    """Take the events the assembler completes, in that order; fold the copies of a request's
    error into their example. `counted` gives the examples their counts."""

    def __init__(self, know: Causality):
        self._know = know
        self._current: dict[_Key, _Group] = {}  # the group each failure folds into now
        # the same, by process, call site and the key a text's mask is kept under (its shape,
        # digits aside: `template.mask_key`): a copy with that key is the same failure without
        # masking its message (fingerprint.py)
        self._by_shape: dict[tuple[Process, str | None, bytes], _Group] = {}
        self._examples: dict[int, _Group] = {}  # every group, by its example's id
        self._latest: dict[int, _Group] = {}  # the last copy folded of each group, by its id
        self._starts: list[int] = []  # sorted: lines where a run may begin
        self._seen: set[tuple[str, int | None]] = set()
        self._last_seen: Process | None = None  # (processes repeat: most events ask of one)
        # the groups still waiting for their process to show it went on working
        self._unproven: dict[Process, list[_Group]] = {}
        self._serial = 0
        self.folded = 0
        # what `would_fold` found of the event it said folds: its process, group, text, shape
        self._asked: tuple[Process, _Group, str, bytes] | None = None

    def see(self, milestone: Milestone) -> None:
        """A milestone, in the order they come: a start, or a process's work."""
        process = milestone.process
        if process is not self._last_seen:
            self._appears(process, milestone.line)
        if milestone.kind is MilestoneKind.START:
            insort(self._starts, milestone.line)
        if self._unproven:
            waiting = self._unproven.get(process)
            if waiting:
                for group in waiting:
                    if milestone.kind in group.evidence \
                            and milestone.line > group.example.last_line:
                        group.worked = milestone.line
                self._unproven[process] = [g for g in waiting if g.worked is None]

    def take(self, event: ErrorEvent, waiting: Callable[[], Iterable[tuple[Process, int]]]
             ) -> list[ErrorEvent]:
        """The events to pass on: the event itself, none (a copy, folded), or the last copy
        folded and the event (raised from that copy, which inference must see then).
        `waiting` gives the process and first line of each error still being assembled."""
        if event.process is not self._last_seen:
            self._appears(event.process, event.first_line)
        chained: int | None = None  # the serial of the group of the error it was raised from
        if event.cause_id is not None:
            cause = self._examples.get(event.cause_id)
            if cause is None:
                copy = self._latest.get(event.cause_id)
                if copy is None:
                    return [event]  # raised from an error inference sees: a chain of its own
                # raised from a copy: whether that copy is survived depends on what follows
                # from it (causal._survivors, `settled`), so it is not its example's copy
                return [self._unfold(copy), event]
            chained = cause.serial
        text = event.text
        shape = shape_key(text)
        group = self._group_of(event, chained, text, shape)
        if group is not None and self._folds(group, event, text, shape, waiting):
            self._fold(group, event)
            return []
        if group is None or self._split(group, event):
            self._start(event, chained, text, shape)
        return [event]

    def would_fold(self, event: ErrorEvent,
                   waiting: Callable[[], Iterable[tuple[Process, int]]]) -> bool:
        """Whether `take` would fold the event now (into an existing group), asked without
        changing anything (Assembler.copy_folds: the hold-back of activity around copies)."""
        self._asked = None
        process = event.process
        if process is not self._last_seen and process.pid is not None \
                and (process.name, process.pid) not in self._seen:
            return False  # its first word may begin a run: `take` would mark a start before it
        chained: int | None = None
        if event.cause_id is not None:
            cause = self._examples.get(event.cause_id)
            if cause is None:
                return False  # its own chain, or raised from a copy (taken back out)
            chained = cause.serial
        text = event.text
        shape = shape_key(text)
        group = self._group_of(event, chained, text, shape)
        if group is None or not self._folds(group, event, text, shape, waiting, learn=False):
            return False
        self._asked = (process, group, text, shape)
        return True

    def fold_copy(self, event: ErrorEvent) -> None:
        """Fold the event `would_fold` just said folds, as `take` would (nothing taken since)."""
        asked, self._asked = self._asked, None
        if asked is None or asked[0] is not event.process:
            raise ValueError("fold_copy: not the event would_fold said folds")
        _, group, text, shape = asked
        self._last_seen = event.process
        if shape not in group.shapes:
            self._alike(group, event, text, shape)  # (learns the shape: `take`)
        self._fold(group, event)

    def waits_on(self, process: Process, kind: MilestoneKind) -> bool:
        """Whether a milestone of this process and kind may still show that a group's example
        was survived (`see` would change a group)."""
        return any(kind in group.evidence for group in self._unproven.get(process, ()))

    def appeared(self, process: Process) -> bool:
        """Whether the process's first word was seen (`see` or `take` would mark no start)."""
        return process is self._last_seen or process.pid is None \
            or (process.name, process.pid) in self._seen

    def forget(self, gone: set[tuple[str, int]], before: int) -> None:
        """Forget processes (name, pid) that print no more and the run starts before line
        `before` (runfold.py: runs that are over, whose examples are counted already)."""
        def kept(process: Process) -> bool:
            return (process.name, process.pid) not in gone

        self._current = {k: g for k, g in self._current.items() if kept(g.example.process)}
        self._by_shape = {k: g for k, g in self._by_shape.items() if kept(k[0])}
        self._examples = {k: g for k, g in self._examples.items() if kept(g.example.process)}
        self._latest = {k: g for k, g in self._latest.items() if kept(g.example.process)}
        self._unproven = {p: g for p, g in self._unproven.items() if kept(p)}
        self._seen -= gone
        del self._starts[:bisect_left(self._starts, before)]

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

    def _group_of(self, event: ErrorEvent, chained: int | None, text: str, shape: bytes
                  ) -> _Group | None:
        """The group the event is a copy of, if any (whether it folds is `_folds`)."""
        group = self._by_shape.get((event.process, event.site, mask_key(text, shape)))
        if group is None or self._current.get(group.key) is not group \
                or not _same_but_message(group, event, chained):
            key = (event.process, event.kind, event.exception, fingerprint(event), event.title,
                   event.site, tuple((f.file, f.function) for f in event.frames), event.raw,
                   event.cause_reason, chained)
            group = self._current.get(key)
        return group

    def _appears(self, process: Process, line: int) -> None:
        """A process's first word may begin a run (runs.py): copies do not fold across it."""
        self._last_seen = process
        if process.pid is not None:
            who = (process.name, process.pid)
            if who not in self._seen:
                self._seen.add(who)
                insort(self._starts, line)

    def _start(self, example: ErrorEvent, chained: int | None, text: str, shape: bytes) -> None:
        key = (example.process, example.kind, example.exception, fingerprint(example),
               example.title, example.site, tuple((f.file, f.function) for f in example.frames),
               example.raw, example.cause_reason, chained)
        evidence = recurring(example, self._know)
        if evidence is None:
            self._current.pop(key, None)
            return
        self._serial += 1
        group = _Group(self._serial, key, example, evidence, self._know.digit_decisions(text),
                       {shape})
        self._current[key] = group
        self._by_shape[(example.process, example.site, mask_key(text, shape))] = group
        self._examples[example.id] = group
        if evidence:  # the latest few: a group left waiting for good only never folds
            waiting = self._unproven.setdefault(example.process, [])
            waiting.append(group)
            del waiting[:-_WAITING]

    def _split(self, group: _Group, event: ErrorEvent) -> bool:
        """A run may begin between the group's example and the event."""
        index = bisect_right(self._starts, group.example.line)
        return index < len(self._starts) and self._starts[index] <= event.line

    def _folds(self, group: _Group, event: ErrorEvent, text: str, shape: bytes,
               waiting: Callable[[], Iterable[tuple[Process, int]]], learn: bool = True) -> bool:
        if self._split(group, event):
            return False
        if group.evidence and (group.worked is None or group.worked >= event.first_line):
            return False  # not shown survived before the copy came
        for process, first in waiting():
            if first <= event.line and process.pid is not None \
                    and (process.name, process.pid) not in self._seen:
                return False  # an error still being assembled is a new process's first word
        return self._alike(group, event, text, shape, learn)

    def _alike(self, group: _Group, event: ErrorEvent, text: str, shape: bytes,
               learn: bool = True) -> bool:
        """Knowledge classifies the event as it did the group's example (`learn`: the event's
        shape is kept as one of the group's)."""
        if shape in group.shapes:
            return self._know.digit_decisions(text) == group.decisions
        if recurring(event, self._know) != group.evidence:
            return False
        if learn and len(group.shapes) < _SHAPES:
            group.shapes.add(shape)
            self._by_shape[(event.process, event.site, mask_key(text, shape))] = group
        return True

    def _fold(self, group: _Group, event: ErrorEvent) -> None:
        # only the last copy can still have an exception raised from it: the next one comes
        # later in the same channel (the same process and call site)
        if group.latest is not None:
            del self._latest[group.latest.id]
        group.latest = event
        self._latest[event.id] = group
        group.count += 1
        group.before, group.last = group.last, event.last_line
        self.folded += 1

    def _unfold(self, group: _Group) -> ErrorEvent:
        """The last copy folded, taken back out of its group's count."""
        copy = group.latest
        assert copy is not None
        del self._latest[copy.id]
        group.latest = None
        group.count -= 1
        group.last = group.before
        self.folded -= 1
        return copy


def _same_but_message(group: _Group, event: ErrorEvent, chained: int | None) -> bool:
    """The event is the group's failure, given that its text has the mask key of one of the
    group's (texts with one key have one fingerprint)."""
    example = group.example
    return (event.exception == example.exception and event.kind is example.kind
            and event.title == example.title
            and event.raw == example.raw and event.cause_reason is example.cause_reason
            and chained == group.key[-1] and event.frames == example.frames)
