"""Survived copies of one error become a count as the events stream by.

An API server that rejects fifty thousand over-long prompts in a day logs fifty thousand
tracebacks of one failure, each followed by more serving. Holding and inferring over every copy
costs memory and time in proportion to the occurrences; what the report needs is the distinct
failures. So an error is held back until its own process shows it survived (serving activity of
the same process, pid included), and a survived copy of a failure already kept KEEP times is
folded into that failure's count: first and last line, count, one example. Errors never followed
by their process's serving (the ones inference must see) always pass through, whatever their
number. The folding is conservative on purpose: inference (causal.py) still decides what
survived; this only spares it copies that cannot change its answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from logsleuth.fingerprint import fingerprint
from logsleuth.model import ErrorEvent, Event, Milestone, MilestoneKind, Process

_ACTIVITY = (MilestoneKind.SERVING, MilestoneKind.ALIVE)
KEEP = 16  # copies of one failure passed on whole (the report lists them as survived); the
# rest are counted. A few copies say "it recurs"; thousands say nothing more and cost time.


@dataclass(frozen=True, slots=True)
class FoldedErrors:
    """Survived copies of one failure that were counted instead of kept."""

    example: ErrorEvent  # the first copy (kept and passed on)
    count: int  # copies folded away
    first_line: int  # of the first folded copy
    last_line: int  # of the last folded copy


class Folder:
    """Pass events on, folding survived repeats; `folded()` says what was counted."""

    def __init__(self) -> None:
        self._pending: dict[Process, list[ErrorEvent]] = {}
        self._active: set[tuple[Process, MilestoneKind]] = set()
        self._last_activity: dict[tuple[Process, MilestoneKind], Milestone] = {}  # held back
        self._kept: dict[tuple[object, ...], int] = {}
        self._examples: dict[tuple[object, ...], ErrorEvent] = {}
        self._folded: dict[tuple[object, ...], tuple[int, int, int]] = {}

    def fold(self, events: Iterable[Event]) -> Iterator[Event]:
        """The events, less folded copies; errors come out once their fate is known (or at the
        end), so the order is by line within each kind, not overall."""
        for event in events:
            if isinstance(event, ErrorEvent):
                self._pending.setdefault(event.process, []).append(event)
            elif event.kind in _ACTIVITY:
                yield from self._activity(event)
            else:
                yield event
        yield from self._last_activity.values()
        for waiting in self._pending.values():
            for error in waiting:
                self._keep(_key(error), error)
                yield error
        self._pending.clear()

    def _activity(self, milestone: Milestone) -> Iterator[Event]:
        """Activity milestones are about as many as the errors they follow: pass on the first of
        each process and kind, those that show a kept error survived, and (at the end) the last.
        Only an engine's output (SERVING) shows an error survived; an HTTP answer (ALIVE) may
        come from a server whose engine is dead."""
        key = (milestone.process, milestone.kind)
        kept: list[ErrorEvent] = []
        if milestone.kind is MilestoneKind.SERVING:
            kept = list(self._survived(self._pending.pop(milestone.process, [])))
            yield from kept
        if kept or key not in self._active:
            self._active.add(key)
            self._last_activity.pop(key, None)
            yield milestone
        else:
            self._last_activity[key] = milestone

    def _survived(self, errors: list[ErrorEvent]) -> Iterator[ErrorEvent]:
        dropped: set[int] = set()
        for error in errors:
            key = _key(error)
            chained_to_dropped = error.cause_id is not None and error.cause_id in dropped
            if chained_to_dropped or self._kept.get(key, 0) >= KEEP:
                dropped.add(error.id)  # a chain goes with its first exception
                count, first, _ = self._folded.get(key, (0, error.line, 0))
                self._folded[key] = (count + 1, first, error.line)
                continue
            self._keep(key, error)
            yield error

    def _keep(self, key: tuple[object, ...], error: ErrorEvent) -> None:
        self._kept[key] = self._kept.get(key, 0) + 1
        self._examples.setdefault(key, error)

    def folded(self) -> tuple[FoldedErrors, ...]:
        """Every failure with folded copies, most copies first."""
        groups = [FoldedErrors(self._examples[key], count, first, last)
                  for key, (count, first, last) in self._folded.items()]
        return tuple(sorted(groups, key=lambda g: (-g.count, g.first_line)))


def _key(error: ErrorEvent) -> tuple[object, ...]:
    return (error.process.name, error.kind, *fingerprint(error), error.title)


def folded_notice(group: FoldedErrors) -> str:
    """One line for the report's notices."""
    example = group.example
    text = " ".join(example.text.split())[:100]
    return (f"{group.count:,} more survived cop{'y' if group.count == 1 else 'ies'} of "
            f"\"{text}\" ({example.process.name}, lines {group.first_line:,}-{group.last_line:,}) "
            "were counted, not kept")
