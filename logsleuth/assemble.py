"""LogLine stream -> error events and lifecycle milestones.

Lines are demultiplexed into channels, one per process and output stream: a logged traceback
(vLLM's `logger.exception`, the record header on every line) is one channel per logger call
site, raw stderr output is another. Eight workers' interleaved tracebacks thus become eight
coherent events. Each channel runs a small state machine over line kinds:

    idle --Traceback / frame--> reading frames --Type: message--> closing --next line--> emitted
                                                          ^ message continuation lines

Chained exceptions get `cause_id` pointing at the event printed above them. State is bounded:
one open traceback per channel, at most MAX_FRAMES frames and MAX_MESSAGE_LINES message lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from logsleuth.hint import WarningHints
from logsleuth.knowledge import Causality, default_causality
from logsleuth.model import (ChainReason, ErrorEvent, Event, EventKind, Frame,
                             Level, LineKind, LineRun, LogLine, Milestone, MilestoneKind, Phase,
                             Process, RecordRun)
from logsleuth.quickinit import quick_init
from logsleuth.tokenize.grammar import terminal_regex

if TYPE_CHECKING:  # recur.py classifies through causal.py, which imports this module
    from logsleuth.recur import Recurrences

MAX_FRAMES = 64  # the innermost frames are the ones that say where it failed
MAX_MESSAGE_LINES = 12
_RULE_CHARS = "=-*#~_"  # a banner's rule: one of these repeated
_RULE_MIN = 8
# Python's warnings print `file:line: Category: message`, the message's further lines raw, then
# the warned line's source indented (warnings.formatwarning): the lines between are the warning's
# text, whatever they quote (an exception's text it went on from), up to this many
WARNING_LINES = 8
_WARNING_TEXT = (LineKind.PLAIN, LineKind.EXCEPTION_REPR, LineKind.EXCEPTION)
_HEADER_TAIL = 2  # lines after a `Traceback` header the log ends in that may be a cut frame
_TRACEBACK_HEADER = "Traceback (most recent call last):"  # Python's, ending a record that heads one
MAX_MESSAGE_CHARS = 4000
# Error events kept per process and run: the earliest are the ones that can be a root cause; a
# process that logs endless distinct errors would otherwise fill memory and the causal graph
# (200,000 ERROR records took over two minutes). Events beyond it are counted in a notice. (The
# copies of a request's error the server answers are folded before they count: recur.py.)
MAX_EVENTS_PER_PROCESS = 5000

_ERROR_LEVELS = (Level.ERROR, Level.CRITICAL)
_QUIET_LEVELS = (Level.DEBUG, Level.INFO, Level.WARNING)
_BODY_OF_TRACE = (LineKind.INDENTED, LineKind.CARET, LineKind.ELIDED, LineKind.REPEAT,
                  LineKind.BLANK, LineKind.FAULT_THREAD)

ChannelKey = tuple[str, int | None, str | None]
_EVENT_KINDS = {LineKind.FATAL: EventKind.FATAL, LineKind.DIAGNOSTIC: EventKind.DIAGNOSTIC}
# lines whose activity milestone may be held back from the assembler (holdback.py), and the kinds
_HELD_KINDS = (LineKind.ACCESS, LineKind.PLAIN, LineKind.UVICORN)
_ACTIVITY = (MilestoneKind.SERVING, MilestoneKind.ALIVE, MilestoneKind.REJECTED)

_K = TypeVar("_K")
_V = TypeVar("_V")

CUT_TRACEBACK = "Traceback"  # the label of an event whose traceback ends before its exception
NATIVE_FILE = "<native>"  # the file of a native crash handler's frame that names only its symbol


@dataclass(slots=True)  # slots: a restart-heavy log keeps thousands of channels
class _Trace:
    """A traceback (or fatal dump) being read in one channel."""

    first_line: int
    last_line: int
    process: Process
    raw: bool
    time: str | None
    kind: EventKind = EventKind.EXCEPTION
    title: str | None = None
    cause: tuple[int, ChainReason] | None = None
    frames: list[Frame] = field(default_factory=list)
    fault_dump: bool = False  # faulthandler: frames are listed innermost first
    # a native crash handler's stack (under its banner: causality.yaml `native_stacks`):
    # innermost first too, and a bare indented line is a frame (the symbol), not source code
    native_stack: bool = False
    # the (type, message) of the exception the record heading it printed as a repr (V0's
    # `logger.exception(repr(e))`): what a traceback cut before its exception line ended in
    printed: tuple[str, str] | None = None
    exception: str | None = None  # set once the `Type: message` line is read
    message_lines: list[str] = field(default_factory=list)
    line: int = 0
    quiet: bool = False  # logged at INFO/WARNING (`logger.warning(..., exc_info=True)`): no error
    # Python's `Exception ignored in: ...` line above it: an unraisable exception, a latent error
    # (causality.yaml `unraisable`)
    unraisable: str | None = None
    site: str | None = None  # the logger call site of the channel (None: raw output)
    indent: int = 0  # the column of an indented `Traceback` header (pip's output box)
    headless: bool = False  # opened at a frame: the log was cut above its `Traceback` header
    # the error whose text headed this traceback (_introduces_traceback): it stands as an error
    # of its own again if the traceback is cut or ends in a report of a failure elsewhere
    carrier: _Trace | None = None
    depth: int = 0  # inside an exception group's borders: the depth of its margin
    group: int | None = None  # the event id of the exception group it was printed inside
    # its exception line is `Name:` with nothing after the colon (a message on the next lines)
    heading: bool = False
    # its exception line was printed bare: no relaying logger's wrapper before it (a launcher's
    # or a quote's that wraps every line of the log aside: docker's time, `vllm-1  | `, `> `)
    bare: bool = False
    unwrapped: bool = False  # ... and no wrapper at all (`LogLine.outer`)

    @property
    def closing(self) -> bool:
        return self.exception is not None


class _Title(NamedTuple):
    """An ERROR record waiting for the traceback it may introduce."""

    text: str
    line: int
    level: Level | None
    time: str | None
    # the (type, message) of an exception it prints as a repr (`logger.exception(repr(e))` in V0)
    printed: tuple[str, str] | None
    # multiprocessing's `Process X:` header rather than a record
    bootstrap: bool


@dataclass(slots=True)  # one per process, pid and call site: thousands in a restart-heavy log
class _Channel:
    process: Process
    site: str | None = None
    trace: _Trace | None = None
    title: _Title | None = None  # an ERROR record waiting
    chain_next: tuple[int, ChainReason] | None = None
    last_event: int | None = None
    # Python said it ignores the exception whose traceback comes next: its `Exception ignored
    # in: ...` line
    ignoring: str | None = None
    # the exception groups whose sub-exceptions are being printed, outermost first: (depth of
    # the group's own lines, its event id); a sub-traceback belongs to the deepest one above it
    groups: list[tuple[int, int]] = field(default_factory=list)
    # lines left that may go on the message of the Python warning printed last (`x.py:8:
    # RuntimeWarning: Failed to read commit hash:` then `No module named 'vllm._version'`):
    # WARNING_LINES after its header, 0 once its source line or any other line came; and the
    # number of the line that may go on it (Python writes the warning in one piece: the very next
    # line of the log, or none)
    warning: int = 0
    warning_next: int = 0
    # the number of the channel's last line when it was an indented source line left open (its
    # statement goes on over the next line: `_opens_statement`), else 0
    statement_open: int = 0


class Assembler:
    """Feed LogLines in order; collect the events each line completes."""

    def __init__(self, causality: Causality | None = None, *,
                 max_events_per_process: int = MAX_EVENTS_PER_PROCESS,
                 recurrences: Recurrences | None = None):
        self._causality = causality or default_causality()
        # folds the copies of a request's error as they are completed (None: every event is
        # handed on, as `parse` gives them)
        self.recurrences = recurrences
        self._channels: dict[ChannelKey, _Channel] = {}
        # the channels that may hold a trace, in the order the channels were made: what a start
        # of vLLM has to look at (every run of a crash loop or a restart-heavy log makes new
        # channels, with new pids; looking at all of them at each start was quadratic)
        self._traced: dict[ChannelKey, int] = {}
        self._order: dict[ChannelKey, int] = {}  # when each channel was made
        self._made = 0  # channels made so far (`forget` takes keys out of `_order`)
        self._sites: dict[str, str] = {}  # the call sites of `_order`'s keys, one string each
        # the channels that may hold a trace or a title: every channel is reached through
        # `_channel` before it takes one, and pending_from drops those it finds idle (a
        # restart-heavy log makes thousands of channels; looking at all of them about every
        # activity milestone cost 2 ms each)
        self._busy: dict[ChannelKey, _Channel] = {}
        self._next_id = 0
        self._last_line = 0  # the number of the last line fed (or replayed)
        self._max_events = max_events_per_process
        self._kept: dict[Process, int] = {}
        self._dropped: dict[Process, int] = {}
        self._phases: dict[Process, Phase] = {}  # the last phase mark of each process
        self._last_channel: dict[Process, ChannelKey] = {}  # where each process printed last
        self._failing: dict[Process, bool] = {}  # its last answer was a 5xx (`failed_answers`)
        # LineRuns: whether a run's lines are inert (no event, no milestone, one channel), and
        # the change of channel state each inert run made from each state it was read in
        self._inert: dict[object, bool] = {}
        self._changes: dict[tuple[object, _State | None], _State] = {}
        # RecordRuns: the change of channel state each record made from each state it was
        # read in, its exception's message left out (feed_record)
        self._records: dict[tuple[object, _State | None], _State] = {}
        # the warnings that state a remedy, per process: an error's hint (hint.py)
        self._hints = WarningHints()
        self._times: dict[str, str] = {}  # milestones' times, one string each (_shared_time)
        # the record `copy_folds` said folds, its event (id aside) and its change of state
        self._copy: tuple[RecordRun, ErrorEvent, _State] | None = None
        # the line `activity_only` was last asked of, its 5xx answer and its marks (marks_of)
        self._asked_line: tuple[LogLine, str | None,
                                tuple[MilestoneKind | None, Phase | None]] | None = None

    def notices(self) -> list[str]:
        """What the event cap left out, one sentence per process it was hit for."""
        return [f"{count:,} error(s) of {process.label} after its first {self._max_events:,} "
                "were not analysed (the per-process cap)"
                for process, count in self._dropped.items()]

    def _capped(self, events: list[Event]) -> list[Event]:
        out: list[Event] = []
        recurrences = self.recurrences
        for event in events:
            if isinstance(event, ErrorEvent):
                event = self._hints.hinted(event)
            if recurrences is not None:
                if isinstance(event, Milestone):
                    recurrences.see(event)
                else:  # none: a copy, counted into the first of its kind
                    out += self._under_cap(recurrences.take(event, self.waiting))
                    continue
            out += self._under_cap([event])
        return out

    def _under_cap(self, events: list[Event] | list[ErrorEvent]) -> list[Event]:
        out: list[Event] = []
        for event in events:
            if isinstance(event, ErrorEvent):
                key = Process(event.process.name, event.process.pid)
                kept = self._kept.get(key, 0)
                if kept >= self._max_events:
                    self._dropped[key] = self._dropped.get(key, 0) + 1
                    continue
                self._kept[key] = kept + 1
            out.append(event)
        return out

    def feed(self, line: LogLine) -> list[Event]:
        out = self._feed(line)
        if len(out) == 1 and type(out[0]) is Milestone:
            # the common case, an activity line's milestone: what `_capped` does with it (a
            # milestone is never hinted, folded or capped), without its lists and loops
            if self.recurrences is not None:
                self.recurrences.see(out[0])
            return out
        return self._capped(out) if out else out

    def feed_run(self, run: LineRun) -> Iterator[list[Event]]:
        """Feed a LineRun: the events completed, in batches to take one after the other (as
        `feed` gives them line by line). A run of lines that make no event and no milestone
        changes only its own channel, and the same lines from the same state of the channel
        (line numbers and time relative to the run) change it the same way: that change is
        learned from the first such run and replayed on the others without reading them.
        tests/test_replay.py checks every report equal with and without replaying."""
        self._last_line = max(self._last_line, run.first + run.count - 1)
        if run.site is None and self._continued_key(run.lines()[0]) is not None:
            # its lines go on another channel's record (_continued_key): read them
            for line in run.lines():
                yield self.feed(line)
            return
        inert = self._inert.get(run.key)
        if inert is None:
            inert = self._inert_lines(run.lines())
            self._inert = _bounded(self._inert)
            self._inert[run.key] = inert
        if not inert:
            for line in run.lines():
                yield self.feed(line)
            return
        key: ChannelKey = (run.process.name, run.process.pid, run.site)
        out: list[Event] = []
        self._end_interrupted(run.process, key, out)  # what the run's first line does first
        yield self._capped(out)
        channel = self._channel(key, run.process)
        before = _relative_state(channel, run.first, run.time, run.process)
        change = self._changes.get((run.key, before)) if before is not None else None
        if change is not None:
            _restore(change, channel, run.first, run.time, run.process)
            if channel.trace is not None and key not in self._traced:
                self._traced[key] = self._order[key]
            return
        made = self._next_id
        for line in run.lines():
            yield self.feed(line)
        if before is not None and self._next_id == made:
            channel = self._channel(key, run.process)  # the lines may have dropped it (_drop)
            after = _relative_state(channel, run.first, run.time, run.process)
            if after is not None:
                self._changes = _bounded(self._changes)
                self._changes[(run.key, before)] = after

    def feed_record(self, record: RecordRun) -> Iterator[list[Event]]:
        """Feed a RecordRun: the events completed, in batches (as `feed` gives them line by
        line). A record whose lines make no event and no milestone changes only its own channel,
        and a record with the same first line, repeated lines and exception type changes it the
        same way from the same state (numbers and time relative to the record), but for the
        exception's message, its last line's own: that change is learned from the first such
        record and replayed on the others without reading their lines, when the message it
        left is the last line's (then no state before it could have made it).
        tests/test_replay.py checks every report equal with and without replaying."""
        first, run, last = record.first, record.run, record.last
        process, time = first.process, first.time
        self._last_line = max(self._last_line, last.number)
        if not self._replayable(record):
            for line in record.lines():
                yield self.feed(line)
            return
        key: ChannelKey = (process.name, process.pid, first.site)
        out: list[Event] = []
        self._end_interrupted(process, key, out)  # what the record's first line does first
        yield self._capped(out)
        channel = self._channel(key, process)
        before = _relative_state(channel, first.number, time, process)
        shape = (first.text, first.level, run.key, last.level, last.exception)
        change = self._records.get((shape, before)) if before is not None else None
        if change is not None:
            _restore(change, channel, first.number, time, process, last.message or "")
            if channel.trace is not None and key not in self._traced:
                self._traced[key] = self._order[key]
            return
        made = self._next_id
        yield self.feed(first)
        yield from self.feed_run(run)
        yield self.feed(last)
        if before is None or self._next_id != made:
            return
        channel = self._channel(key, process)  # the lines may have dropped it (_drop)
        after = _relative_state(channel, first.number, time, process)
        if after is not None and after.trace is not None \
                and after.trace.line == last.number - first.number \
                and after.trace.message_lines == (last.message or "",):
            self._records = _bounded(self._records)
            self._records[(shape, before)] = after

    def copy_folds(self, record: RecordRun) -> bool:
        """Whether the record, fed now and then ended by its process's next line elsewhere (a
        line of another channel: `_end_interrupted`), makes an error that folds into a copy
        group already there (recur.py): asked before feeding it, changing nothing that feeding
        reads. Answered where the assembler is steady and the record's effect is known without
        reading it: no error being assembled, and a record feeding would replay (its change of
        channel state learned, `feed_record`); False elsewhere. The event is the one the replay
        and that next line would complete (tests/test_holdback.py checks the answer against
        feeding, on generated mixes of copies, near-copies, new processes, pending records,
        starts and 5xx streaks)."""
        self._copy = None
        recurrences = self.recurrences
        if recurrences is None or self.pending_from() is not None:
            return False
        change = self._known(record)
        if change is None or change.title is not None:
            return False
        first, last = record.first, record.last
        process = first.process
        probe = _Channel(process, first.site)
        _restore(change, probe, first.number, first.time, process, last.message or "")
        trace = probe.trace
        if trace is None or not _ends_elsewhere(trace) or trace.quiet \
                or trace.exception is None or trace.unraisable is not None \
                or (trace.heading and not any(trace.message_lines) and not trace.frames
                    and trace.title is None):
            return False  # (what `_flush` makes of it otherwise: no event, or no copy)
        # (the id `_flush` gives it: nothing is fed between this and `fold_copy`)
        event = self._hints.hinted(_event_of(trace, self._next_id + 1))
        if not recurrences.would_fold(event, self.waiting):
            return False
        self._copy = (record, event, change)
        return True

    def fold_copy(self, record: RecordRun) -> None:
        """Feed the record `copy_folds` was just asked of, and end it as `end_record` does, when
        the answer was yes and nothing was fed since: the same state and counts as feeding it
        (the replay of its change of channel state, `feed_record`, and its event folded into
        its group, recur.py), without building them again."""
        asked, self._copy = self._copy, None
        if asked is None or asked[0] is not record:
            raise ValueError("fold_copy: not the record copy_folds said folds")
        _, event, change = asked
        first, last = record.first, record.last
        process = first.process
        key: ChannelKey = (process.name, process.pid, first.site)
        self._last_line = max(self._last_line, last.number)
        self._last_channel[process] = key  # (_end_interrupted: no trace waits anywhere)
        channel = self._channel(key, process)
        if key not in self._traced:  # the replay's trace, flushed right after (_flush)
            self._traced[key] = self._order[key]
        channel.ignoring = change.ignoring
        channel.warning, channel.warning_next = change.warning[0], first.number + change.warning[1]
        if self._new_id() != event.id:
            raise ValueError("fold_copy: an event was made since copy_folds")
        channel.last_event = event.id
        assert self.recurrences is not None
        self.recurrences.fold_copy(event)

    def knows(self, record: RecordRun) -> bool:
        """Whether feeding the record now would replay a change of its channel's state learned
        before (`feed_record`)."""
        return self._known(record) is not None

    def _known(self, record: RecordRun) -> _State | None:
        if not self._replayable(record):
            return None
        first, last = record.first, record.last
        process = first.process
        channel = self._channels.get((process.name, process.pid, first.site))
        if channel is None:
            return None
        before = _relative_state(channel, first.number, first.time, process)
        if before is None:
            return None
        return self._records.get(
            ((first.text, first.level, record.run.key, last.level, last.exception), before))

    def ended_by(self, record: RecordRun, line: LogLine) -> bool:
        """Whether `line`, fed right after `record`, ends the record's exception before anything
        else (`_end_interrupted`), whatever state the record left: a line of its process that
        goes on no other channel's record, in another channel, that adopts no exception (an
        `At:` frame list) and states no remedy (which an error's hint reads)."""
        first = record.first
        return line.process == first.process and line.site != first.site \
            and line.kind is not LineKind.FRAME_LIST and _own_channel(line) \
            and self._hints.remedy(line) is None

    def activity_only(self, line: LogLine) -> MilestoneKind | None:
        """The activity milestone's kind (an answer, a stats line) that feeding `line` now would
        make and nothing else: no event, no phase, no remedy, no other channel's record, no
        error being assembled to end, its process's answers not failing, its process seen by the
        copy groups and none of them waiting for such a milestone (holdback.py). None: not so."""
        if line.kind not in _HELD_KINDS or line.exception is not None:
            return None
        level = line.level
        if level is None:  # (no record: a bare name may go on another channel's record)
            if line.site is None and not line.depth and _field_name(line):
                return None
        elif level is not Level.INFO and level is not Level.DEBUG:
            return None  # (an error is no milestone; a warning may state a remedy: hint.py)
        process = line.process
        if self._failing.get(process, False):
            return None  # (its answer ends a streak of failed ones)
        failed = self._causality.failed_answer(line.text) if line.kind is LineKind.ACCESS \
            else None
        marks = self._causality.marks_of(line.text)
        self._asked_line = (line, failed, marks)  # (the same answers when it is fed next)
        if failed is not None:
            return None
        found, phase = marks
        if found not in _ACTIVITY or phase is not None or self.pending_from() is not None:
            return None
        recurrences = self.recurrences
        if recurrences is not None and (not recurrences.appeared(process)
                                        or recurrences.waits_on(process, found)):
            return None
        return found

    def end_record(self, record: RecordRun) -> list[Event]:
        """End the record just fed as the line `ended_by` accepts would before its own effects
        (the event is the same whichever line ends it: `_flush` reads none)."""
        process = record.first.process
        key: ChannelKey = (process.name, process.pid, record.first.site)
        out: list[Event] = []
        waiting = self._channels.get(key)
        if waiting is not None and waiting.trace is not None and _ends_elsewhere(waiting.trace):
            self._flush(waiting, out)
        return self._capped(out)

    def _replayable(self, record: RecordRun) -> bool:
        """One head on every line (one channel, one time) and lines that can change nothing
        but that channel (`_inert`)."""
        first, run, last = record.first, record.run, record.last
        if first.site is None and self._continued_key(first) is not None:
            return False  # its lines go on another channel's record (_continued_key)
        if not (first.process is run.process is last.process and first.site == run.site
                == last.site and first.time == run.time == last.time
                and last.number == run.first + run.count and run.first == first.number + 1):
            return False
        inert = self._inert.get(run.key)
        if inert is None:
            inert = self._inert_lines(run.lines())
            self._inert = _bounded(self._inert)
            self._inert[run.key] = inert
        return inert and self._inert_lines((first, last))

    def _goes_on_printed(self, title: _Title | None, line: LogLine) -> bool:
        """An indented line right under an exception printed as a record's text whose message
        goes on that way (causality.yaml `indented_messages`: pydantic's ValidationError prints
        each failed check on a line of its own, two columns in; a field's name unindented before a
        field's check: a line the prefilter may skip, one line between)."""
        return title is not None and title.printed is not None \
            and (line.kind is LineKind.INDENTED or _field_name(line)) and not line.depth \
            and 0 < line.number - title.line - title.printed[1].count("\n") <= 2 \
            and self._causality.message_goes_on_indented(title.printed[0])

    def _goes_on_validation(self, trace: _Trace, line: LogLine) -> bool:
        """A bare indented line right under an exception a record named whose message goes on
        that way (causality.yaml `indented_messages`: `ERROR ... [x.py:1] pydantic_core.
        _pydantic_core.ValidationError: 1 validation error for ModelConfig`, then pydantic's
        `  Value error, <the check> [type=value_error, ...]`) from a logger that writes its header
        once. The message goes on (as it does in a traceback printed raw, one channel), so the
        check reaches the signatures."""
        return (line.kind is LineKind.INDENTED or _field_name(line)) \
            and trace.closing and not trace.fault_dump and not trace.indent \
            and trace.last_line < line.number <= trace.last_line + 2 \
            and len(trace.message_lines) < MAX_MESSAGE_LINES \
            and self._causality.message_goes_on_indented(trace.exception or "")

    def _inert_lines(self, lines: tuple[LogLine, ...]) -> bool:
        """`_inert`, and no warning that states a remedy among them: a replay would not see it
        (an error's hint)."""
        return _inert(lines) and not self._hints.any_in(lines)

    def _feed(self, line: LogLine) -> list[Event]:
        out: list[Event] = []
        self._hints.see(line)
        self._last_line = max(self._last_line, line.number)
        key: ChannelKey = (line.process.name, line.process.pid, line.site)
        continued = self._continued_key(line)
        if continued is not None:
            key = continued  # the next line of a record its logger printed once at its head
        if line.kind is LineKind.FRAME_LIST:
            self._adopt_frame_list(line.process, key, out)  # before its record is ended
        self._end_interrupted(line.process, key, out)
        if line.kind is LineKind.ACCESS:
            asked = self._asked_line
            failed = asked[1] if asked is not None and asked[0] is line \
                else self._causality.failed_answer(line.text)
            was_failing, self._failing[line.process] = \
                self._failing.get(line.process, False), failed is not None
            if failed is not None:
                if not was_failing:  # the first of a streak: a dead engine fails every request
                    out.append(self._single(line, EventKind.ERROR_RECORD, failed,
                                            _uvicorn_text(line)))
                return out
            if line.exception is not None:
                # a client's copy of a refusal body: the request's error, then its answer
                out.append(self._single(line, EventKind.ERROR_RECORD, line.exception,
                                        line.message or ""))
        milestone = self._milestone(line)
        if milestone is not None:
            if milestone.kind is MilestoneKind.START:
                # vLLM starts again: an exception that was only waiting for more message lines
                # is complete (a restarted container reuses pids, so its channel would otherwise
                # take the next run's records as its message)
                for traced in sorted(self._traced, key=self._traced.__getitem__):
                    waiting = self._channels[traced]
                    if waiting.trace is not None and waiting.trace.closing:
                        self._flush(waiting, out)
                self._traced = {k: order for k, order in self._traced.items()
                                if self._channels[k].trace is not None}
                self._kept.clear()  # the per-process cap counts each run afresh
            own = self._channels.get(key)
            if own is not None and own.trace is not None and own.trace.closing \
                    and not _carries_output(own.trace, line):
                # the process's next lifecycle line (an RL trainer's `step:N - ...`, a stats
                # line): Python prints an exception's message in one piece, so the message
                # that waited for more lines is over, and what follows is not part of it
                self._flush(own, out)
                if own.trace is None:
                    self._traced.pop(key, None)
            if milestone.kind is MilestoneKind.HANG and line.level in _QUIET_LEVELS \
                    and line.kind is LineKind.PLAIN and self._causality.latent_warning(line.text):
                # a wait that says on its own line why it cannot end (Ray Serve's controller:
                # what each replica asks for, what the cluster has): the warning too, the cause
                # of the stall if nothing comes after it (causal.py _warned_of)
                out.append(replace(self._single(line, EventKind.ERROR_RECORD, line.level.value,
                                                line.text), title=line.text, latent=True))
            out.append(milestone)
            return out
        if line.kind is LineKind.NCCL:
            if line.exception in ("NCCL WARN", "NCCL ERROR"):
                out.append(self._single(line, EventKind.ERROR_RECORD, line.exception,
                                        line.message or ""))
            return out
        channel = self._channel(key, line.process)
        self._step(channel, line, out)
        if channel.trace is not None:
            if key not in self._traced:
                self._traced[key] = self._order[key]
        elif _fresh(channel):
            self._drop(key)
        return out

    def _continued_key(self, line: LogLine) -> ChannelKey | None:
        """The channel of the error record this raw indented line goes on, when the line's
        process printed that record last (None: it goes on none). A logger that writes its
        header once, at a record's head (torch_npu's `[Error]: <description>`, then `        Rectify
        the fault based on the error information in the ascend log.`; Python's logging of a
        message with line breaks; any `[ERROR] `, `ERROR: ` or CANN-coded record), leaves the
        record's further lines bare and indented: they are its message, as vLLM's own records'
        are (whose header repeats on each line, one channel)."""
        if _cann_record(line) or _bare_error_record(line):
            return self._cann_detail_key(line, coded=_cann_record(line))
        if line.site is not None or line.level is not None or line.depth \
                or not (line.kind is LineKind.INDENTED or _field_name(line)):
            return None
        previous = self._last_channel.get(line.process)
        if previous is None or previous == (line.process.name, line.process.pid, line.site):
            return None
        waiting = self._channels.get(previous)
        if waiting is None:
            return None
        if waiting.trace is not None:
            return previous if self._goes_on_validation(waiting.trace, line) else None
        if self._goes_on_printed(waiting.title, line):
            return previous  # the same, named after a lead (`Error in startup: ...Error: ...`)
        if line.kind is not LineKind.INDENTED or not _continues_record(line) \
                or not _joinable(waiting.title, line):
            return None
        return previous

    def _cann_detail_key(self, line: LogLine, coded: bool) -> ChannelKey | None:
        """The channel of the exception a CANN-coded record goes on: torch_npu puts CANN's error
        records in the text of the exception it raises (`RuntimeError: ... error code is 107001`,
        `[ERROR] ... PTA call acl api failed`, then `EE1001: ... Reason: ...` or `[PID: N] ...
        Invalid_Argument(EE1001): ...`), so a record that comes on the line right after the
        exception's message, from the same process, is that message going on, not a new error.
        So is torch_npu's `[ERROR] <time> ... PTA call acl api failed` and `[Error]: <description>`
        behind a process prefix (`(RayWorkerWrapper pid=N) [Error]: ...`), which bare is a relay's
        level (LEVEL_TAG) and goes on the exception's channel already: the same line reads the
        same with or without the prefix."""
        previous = self._last_channel.get(line.process)
        if previous is None:
            return None
        waiting = self._channels.get(previous)
        if waiting is None or waiting.trace is None or not waiting.trace.closing \
                or waiting.trace.kind is not EventKind.EXCEPTION or waiting.trace.fault_dump \
                or waiting.trace.indent or not waiting.trace.frames \
                or line.number != waiting.trace.last_line + 1:
            # (a traceback's exception only: a CI annotation's `Error: : Model execution failed.`
            # before CANN's `EE9999` records is no exception torch_npu raised, and the records
            # are the error)
            return None
        if not coded and not any(self._causality.message_goes_on_in_records(text)
                                 for text in waiting.trace.message_lines):
            return None  # a record of its own (causality.yaml `recorded_messages`)
        return previous

    def _channel(self, key: ChannelKey, process: Process) -> _Channel:
        """The channel of `key`, made on first use (and its place in the order of making)."""
        channel = self._channels.get(key)
        if channel is None:
            if key in self._order:  # made before, dropped while fresh (_drop): made again so
                channel = _Channel(Process(key[0], key[1]), key[2])
            else:
                channel = _Channel(process, key[2])
                # kept for good (_drop): with one string per call site, not each line's own
                site = key[2] if key[2] is None else self._sites.setdefault(key[2], key[2])
                key = (key[0], key[1], site)
                self._order[key] = self._made
                self._made += 1
            self._channels[key] = channel
        self._busy[key] = channel
        return channel

    def _drop(self, key: ChannelKey) -> None:
        """Forget a channel left as it was made (a start-up's INFO lines, at a call site of a
        process that a restart replaces): a restart-heavy log made thousands and kept them all.
        Made again on its next line as it was, in its old place of the order of making (the
        order in which waiting channels are flushed), with an equal process (`_fresh`)."""
        del self._channels[key]
        self._busy.pop(key, None)
        self._traced.pop(key, None)

    def _by_order(self) -> list[_Channel]:
        """The channels in the order they were first made (a dropped one made again keeps its
        place)."""
        order = self._order
        return [self._channels[key] for key in sorted(self._channels, key=order.__getitem__)]

    def _end_interrupted(self, process: Process, key: ChannelKey, out: list[Event]) -> None:
        """A process prints one record's lines together: once it prints elsewhere (another
        logger call, its raw output), an exception still waiting for more message lines in its
        previous channel is complete (other processes' lines may interleave; its own may not)."""
        previous = self._last_channel.get(process)
        self._last_channel[process] = key
        if previous is None or previous == key:
            return
        waiting = self._channels.get(previous)
        if waiting is not None and waiting.trace is not None and _ends_elsewhere(waiting.trace):
            self._flush(waiting, out)

    def finish(self, line_count: int = 0) -> list[Event]:
        """Complete what waits for the log's end; `line_count`: how many lines the log has (the
        lines the assembler was not given count too: a header followed by them is not the end)."""
        self._last_line = max(self._last_line, line_count)
        return self._capped(self._finish())

    def finish_processes(self, gone: Callable[[Process], bool]) -> list[Event]:
        """Complete what the channels of processes that print no more still wait for, as the
        log's end would (runfold.py: an ERROR record no traceback followed, from a process of
        a run that is over, waits for the end of the log otherwise)."""
        out: list[Event] = []
        for channel in self._by_order():
            if (channel.trace is not None or channel.title is not None) and gone(channel.process):
                self._flush(channel, out)
                self._flush_title(channel, out)
        return self._capped(out)

    def forget(self, gone: set[tuple[str, int]], before: int) -> None:
        """Forget the channels and per-process marks of processes (name, pid) of runs that are
        over (runfold.py): they print no more, so nothing looks them up again; every run of a
        restart-heavy log brings new pids, and these tables grew with the runs. What the cap
        left out stays counted (the notices). `before`: the first line of the runs kept."""
        for key in [key for key in self._order if (key[0], key[1]) in gone]:
            del self._order[key]
            self._channels.pop(key, None)
            self._busy.pop(key, None)
            self._traced.pop(key, None)
        tables: tuple[dict[Process, Any], ...] = (self._kept, self._phases, self._last_channel,
                                                  self._failing)
        for table in tables:
            for process in [p for p in table if (p.name, p.pid) in gone]:
                del table[process]
        self._hints.forget(gone)
        if self.recurrences is not None:
            self.recurrences.forget(gone, before)

    def _finish(self) -> list[Event]:
        out: list[Event] = []
        for channel in self._by_order():
            self._flush(channel, out, at_end=True)
            self._flush_title(channel, out)
        return out

    # ---- the state machine ------------------------------------------------------------------
    def _step(self, channel: _Channel, line: LogLine, out: list[Event]) -> None:
        kind = line.kind
        inside_statement = channel.statement_open and line.number == channel.statement_open + 1
        channel.statement_open = line.number if _opens_statement(line) else 0
        if inside_statement and kind is LineKind.INDENTED and line.exception is not None \
                and not line.message and channel.trace is None:
            # a bare class name on the line after an open bracket is part of the statement
            # printed over several lines (pytest's listing of a function's source: a type in
            # `x: List[` / `Name` / `] = ...`), not an exception pasted indented
            return
        if channel.groups and not line.depth:
            channel.groups.clear()  # the group's borders ended
        if kind is LineKind.GROUP_BOX or (channel.trace is not None and channel.trace.depth
                                          and channel.trace.closing
                                          and line.depth != channel.trace.depth):
            # a box ends the exception printed before it (the next sub-exception, or the group's
            # end, follows), and so does a line at another depth (a border cut off)
            made = self._next_id
            self._flush(channel, out)
            if kind is LineKind.GROUP_BOX:
                if "+-+" in line.text and channel.last_event is not None \
                        and channel.last_event > made:
                    # the first box of a group: the exception just read is the group
                    channel.groups = [g for g in channel.groups if g[0] < line.depth]
                    channel.groups.append((line.depth, channel.last_event))
                return
        trace = channel.trace
        if channel.warning and _warning_goes_on(channel, line):
            return
        if kind is LineKind.PY_WARNING and line.site is None and line.level is None \
                and (trace is None or trace.closing):
            # (not between a traceback's frames and its end)
            channel.warning, channel.warning_next = WARNING_LINES, line.number + 1
        if kind is LineKind.NO_EXCEPTION:
            return  # the record above had no traceback to print: it stays one event
        if kind is LineKind.IGNORED:
            self._flush(channel, out)
            self._flush_title(channel, out)
            channel.ignoring = line.text.strip()
            return
        if trace is None and self._goes_on_printed(channel.title, line):
            assert channel.title is not None and channel.title.printed is not None
            # pydantic's indented line for the check that failed (`  Value error, ...`) under its
            # ValidationError printed outside a traceback (a journald paste whose `pydantic_core.
            # ValidationError: 1 validation error for ModelConfig` lost its frames): the message
            # goes on, it is no error of its own
            name, message = channel.title.printed
            channel.title = channel.title._replace(
                printed=(name, f"{message}\n{line.text.strip()}"))
            return
        if trace is None and _continues_record(line) and _joinable(channel.title, line):
            assert channel.title is not None
            # the record's message goes on (_continued_key)
            channel.title = channel.title._replace(
                text=f"{channel.title.text.rstrip()}\n{line.text.strip()}")
            return
        heads = kind is LineKind.FRAME and trace is None and (
            _heads_traceback(channel.title) or _message_above(channel.title, line))
        if channel.title is not None and kind not in (LineKind.TRACEBACK_HEADER,
                                                      LineKind.GROUP_HEADER) and not heads:
            if not (trace is not None and trace.closing):
                self._flush_title(channel, out)

        if kind in (LineKind.TRACEBACK_HEADER, LineKind.GROUP_HEADER):
            carrier = None
            if trace is not None and trace.closing and _carries_output(trace, line):
                # the text above is the traceback's own headline, not an error of its own
                channel.trace, carrier, trace = None, trace, None
                channel.title = _Title(_headline(carrier), carrier.first_line, None, carrier.time,
                                       None, False)
            if trace is not None and trace.closing:
                self._flush(channel, out)
            elif trace is not None and not trace.fault_dump:
                return self._extend(trace, line)  # a traceback printed inside another's note
            self._open(channel, line)
            if channel.trace is not None:
                channel.trace.carrier = carrier
        elif kind is LineKind.FRAME:
            if trace is not None and trace.closing and _announces_traceback(trace):
                # the message ends in the header of the traceback it carries (TorchScript's
                # `Traceback of TorchScript, serialized code (most recent call last):`): its
                # frames and the exception they end in are the error, the text above its headline
                channel.trace, carrier = None, trace
                channel.title = _Title(_headline(carrier), carrier.first_line, None, carrier.time,
                                       None, False)
                self._open(channel, line)
                assert channel.trace is not None
                channel.trace.carrier, channel.trace.headless = carrier, False
            elif trace is None:
                # a log cut in the middle of a traceback (its exception's message printed above
                # its frames, if `heads` says so: _message_above)
                above = heads and _message_above(channel.title, line)
                self._open(channel, line)
                if above:  # the message is the exception's, not a record's text heading it
                    assert channel.trace is not None
                    channel.trace.title = None
                if heads and not above:  # the record above ends in its header (_heads_traceback)
                    assert channel.trace is not None
                    channel.trace.headless = False
            elif trace.closing and not trace.fault_dump:
                self._flush(channel, out)  # a remote traceback quoted after its wrapper
                self._open(channel, line)
            trace = channel.trace
            assert trace is not None and line.frame is not None
            trace.frames.append(line.frame)
            if len(trace.frames) > MAX_FRAMES:
                del trace.frames[: len(trace.frames) - MAX_FRAMES]
            trace.last_line = line.number
        elif kind is LineKind.EXCEPTION:
            self._exception_line(channel, line, out)
        elif kind is LineKind.CHAIN:
            if trace is not None and trace.unraisable is not None:
                channel.ignoring = trace.unraisable  # the chain Python ignored goes on
            self._flush(channel, out)
            channel.trace = None
            if channel.last_event is not None and line.chain is not None:
                channel.chain_next = (channel.last_event, line.chain)
        elif kind is LineKind.PROCESS_HEADER:
            if trace is not None and trace.closing and _carries_output(trace, line):
                # a child's bootstrap header inside the output an exception carries (a
                # subprocess's stderr as its message): the child's traceback follows
                trace.last_line = line.number
                return
            self._flush(channel, out)
            channel.title = _Title(line.text, line.number, line.level, line.time, None, True)
        elif kind in (LineKind.FATAL, LineKind.DIAGNOSTIC):
            if line.level in _QUIET_LEVELS:
                return self._other_line(channel, line, out)  # `Killed` as an INFO record's text
            self._flush(channel, out)
            native = self._causality.native_stack_follows(f"{line.exception}: {line.message}")
            channel.trace = _Trace(line.number, line.number, line.process, line.site is None,
                                   line.time, kind=_EVENT_KINDS[kind], exception=line.exception,
                                   message_lines=[line.message or ""], line=line.number,
                                   fault_dump=line.exception == "Fatal Python error" or native,
                                   native_stack=native,
                                   site=channel.site, depth=line.depth,
                                   group=_group_of(channel, line.depth))
            if self._causality.whole_line(f"{line.exception}: {line.message}"):
                self._flush(channel, out)  # a report whole on its line (causality `whole_lines`)
        elif kind is LineKind.FRAME_LIST:
            if trace is not None and trace.fault_dump:
                trace.last_line = line.number
        elif kind is LineKind.EXTENSION_MODULES:
            if trace is not None and trace.fault_dump:
                trace.last_line = line.number
                self._flush(channel, out)
        elif kind in _BODY_OF_TRACE:
            self._body_line(channel, line, out)
        else:
            self._other_line(channel, line, out)

    def _adopt_frame_list(self, process: Process, key: ChannelKey, out: list[Event]) -> None:
        """`At:` after an exception: its frames follow, innermost first (Triton's Python
        backend). The exception was logged as a record and the list is printed raw after it, so
        the exception the process printed last moves to the list's channel, to take its frames."""
        previous = self._last_channel.get(process)
        owner = self._channels.get(previous) if previous is not None else None
        if owner is None or owner.trace is None or not owner.trace.closing or previous == key:
            return
        channel = self._channel(key, process)
        self._flush(channel, out)  # what waited where the exception goes is complete
        channel.trace, owner.trace = owner.trace, None
        channel.trace.fault_dump = True  # innermost first, and the frames do not end it

    def _exception_line(self, channel: _Channel, line: LogLine, out: list[Event]) -> None:
        name = line.exception or ""
        trace = channel.trace
        if name.endswith("Warning"):
            return  # a warning category printed like an exception is not an error
        if self._causality.restates(line.outer):
            # a test runner's summary line (causality.yaml `restatements`): whole on its line,
            # what follows is not its message; titled by its wrapper, which restatements.py reads
            self._flush(channel, out)
            event = replace(self._single(line, EventKind.EXCEPTION, name, line.message or ""),
                            title=line.outer)
            channel.last_event = event.id
            out.append(event)
            return
        if trace is not None and not trace.closing and trace.frames \
                and trace.frames[-1].code is None and _asserted(line):
            # pytest's `E   assert x` margin read as the AssertionError it explains
            # (grammars/vllm.lark PYTEST_ASSERT), standing where the last frame's source line
            # goes: a traceback printed behind pytest's margin (Ray's RayTaskError quoting the
            # remote one), whose frame failed on that `assert`; its exception line follows
            trace.frames[-1] = replace(trace.frames[-1], code=(line.message or "")[:200])
            trace.last_line = line.number
            return
        if trace is not None and not trace.closing:
            trace.exception = name
            trace.message_lines = [line.message or ""]
            trace.line = trace.last_line = line.number
            trace.heading = _heading(line)
            trace.bare, trace.unwrapped = not line.relayed, line.outer is None
            return
        if trace is not None and _introduces_inner(trace) \
                and len(trace.message_lines) < MAX_MESSAGE_LINES:
            # torch's wrappers end their first line with "raised:" and print the inner
            # exception on the next (`BackendCompilerFailed: backend='inductor' raised:` then
            # `RuntimeError: ...`): that line is the wrapper's message, not a new error
            trace.message_lines.append(line.text.strip())
            trace.last_line = line.number
            return
        if trace is not None and _heading(line) and _message_below(trace) \
                and len(trace.message_lines) < MAX_MESSAGE_LINES:
            # a `Name:` heading inside a message that began on the line below its exception's
            # (torch elastic's ChildFailedError prints a report whose `Failures:` and `Root
            # Cause (first observed failure):` are headings of it): the message goes on
            trace.message_lines.append(line.text.strip())
            trace.last_line = line.number
            return
        if trace is not None:
            self._flush(channel, out)
        if line.level in _QUIET_LEVELS:
            # `ValueError: ...` as the text of an INFO record is not an error
            channel.ignoring = None
            return
        # (one Python printed without a traceback after `Exception ignored in:` is unraisable)
        channel.trace = _Trace(line.number, line.number, line.process, line.site is None,
                               line.time, exception=name, message_lines=[line.message or ""],
                               line=line.number, cause=channel.chain_next, site=channel.site,
                               depth=line.depth, group=_group_of(channel, line.depth),
                               unraisable=channel.ignoring)
        channel.trace.heading = _heading(line)
        channel.trace.bare = not line.relayed
        channel.trace.unwrapped = line.outer is None
        channel.chain_next = None
        channel.ignoring = None
        if channel.title is not None:
            channel.trace.title = channel.title.text
            channel.title = None

    def _body_line(self, channel: _Channel, line: LogLine, out: list[Event]) -> None:
        trace = channel.trace
        if trace is None:
            if line.exception is not None:
                # `    RuntimeError: ...` pasted indented after other text (issue 10)
                return self._exception_line(channel, _dedented(line), out)
            if line.kind in (LineKind.INDENTED, LineKind.CARET) and line.level in _ERROR_LEVELS:
                self._open(channel, line)  # a logged traceback cut before its header
            return
        if line.exception is not None and not trace.closing and not trace.fault_dump \
                and not trace.indent and not _source_slot(trace, line):
            # a traceback whose exception line alone was pasted indented
            return self._exception_line(channel, _dedented(line), out)
        if trace.native_stack and line.kind is LineKind.INDENTED:
            # `  ccl_comm::post_coll(...)`: the crash handler's frame is the symbol alone
            trace.frames.append(Frame(NATIVE_FILE, 0, _unbordered(line)[:200]))
            del trace.frames[:-MAX_FRAMES]
            trace.last_line = line.number
            return
        if trace.fault_dump or not trace.closing:
            if line.kind is LineKind.INDENTED and trace.headless and not trace.indent \
                    and trace.frames and trace.frames[-1].code is None \
                    and not line.text.lstrip()[:1].isdigit():
                # a traceback cut above its header: its first source line tells how far a
                # build tool (pip's box) shifted it; Python prints source lines 4 columns in
                # (IPython's numbered context lines sit elsewhere: not read as a shift)
                trace.indent = max(0, _indent(line.text) - _SOURCE_INDENT)
            if line.kind is LineKind.INDENTED and not trace.fault_dump and trace.indent:
                exception = _exception_at(line, trace.indent)
                if exception is not None:
                    return self._exception_line(channel, exception, out)
            trace.last_line = line.number
            if line.kind is LineKind.INDENTED and trace.frames and trace.frames[-1].code is None:
                trace.frames[-1] = replace(trace.frames[-1], code=_unbordered(line)[:200])
            return
        # closing: the exception's message may go on over more lines (in a shifted traceback,
        # lines at its column or deeper: pip's own lines after the box are less indented)
        if trace.indent and not _inside_shifted(line, trace.indent):
            return self._flush(channel, out)
        if line.exception is not None and trace.kind is EventKind.DIAGNOSTIC \
                and _in_open_box(trace):
            # the child's exception line relayed in pip's box with its traceback cut (a paste
            # that kept the last lines): the child's error, read as with its frames
            exception = _exception_at(line, _indent(line.text))
            if exception is not None:
                self._flush(channel, out)
                self._exception_line(channel, exception, out)
                if channel.trace is not None:
                    channel.trace.indent = _indent(line.text)
                return
        if line.kind is LineKind.INDENTED and len(trace.message_lines) < MAX_MESSAGE_LINES:
            trace.message_lines.append(_unbordered(line))
            trace.last_line = line.number
        elif line.kind is LineKind.BLANK:
            self._flush(channel, out)
        else:
            trace.last_line = line.number

    def _other_line(self, channel: _Channel, line: LogLine, out: list[Event]) -> None:
        trace = channel.trace
        if trace is not None and _dedented_symbol(trace, line):
            # a crash handler's stack pasted without its indentation: the line right under the
            # banner or a symbol is the next symbol, as it is indented (_body_line)
            trace.frames.append(Frame(NATIVE_FILE, 0, line.text.strip()[:200]))
            del trace.frames[:-MAX_FRAMES]
            trace.last_line = line.number
            return
        if trace is not None and trace.closing:
            continues = line.level in _ERROR_LEVELS or (line.level is None and line.site is None)
            if line.kind in (LineKind.PY_WARNING, LineKind.PROGRESS):
                # `x.py:63: UserWarning: ...`: Python's warning; a progress bar (tqdm's, vLLM's
                # shard bars) is a loop's output: neither is the message
                continues = False
            if trace.indent and not _inside_shifted(line, trace.indent):
                continues = False  # pip's `ERROR: Failed building wheel` after its box
            if line.kind is LineKind.UVICORN and not _carries_output(trace, line) \
                    and not _under_rule(trace):
                # a logger's record that prints its level once at its head (`ERROR: Engine core
                # proc EngineCore_0 died unexpectedly, ...`, uvicorn's `ERROR:    Exception in
                # ASGI application`): the next record, not the exception's message going on
                # (Python prints a message's further lines raw); unless the message announces
                # output it carries (a subprocess's stderr, pip's `ERROR: ...` among it)
                continues = False
            if continues and line.level is not None \
                    and (trace.bare and line.relayed
                         or trace.unwrapped and line.outer is not None) \
                    and not any(self._causality.message_goes_on_in_records(text)
                                for text in trace.message_lines):
                # Python prints a message's further lines as bare as its first: a line under a
                # relay's level (`[ERROR] <time> (PID:N, ...) ERR99999 UNKNOWN applicaiton
                # exception`, torch_npu's exit report after a script's own TypeError) where the
                # exception line had none is another writer's record, unless the message is one
                # that goes on in such records (causality.yaml `recorded_messages`). Asked of
                # the relay as well as of the outermost wrapper: once a launcher or a quote
                # wraps every line (docker's time, `vllm-1  | `, `> `), the exception line has
                # a wrapper too, and the record's relay still tells it apart (issue 10)
                continues = False
            if continues and line.level is None and line.kind is LineKind.PLAIN \
                    and self._causality.reports_from_loop(line.text.strip()):
                # asyncio's report of the next task that failed unawaited (`Task exception was
                # never retrieved`, printed bare where no logging is configured, as V0's front end
                # does): the next record, whose traceback follows, not this message going on
                continues = False
            if continues and len(trace.message_lines) < MAX_MESSAGE_LINES and line.text.strip():
                # (a CANN record's code is in its header: kept, as torch_npu's text has it)
                code = f"{line.site}: " if _cann_record(line) else ""
                trace.message_lines.append(code + line.text.strip())
                trace.last_line = line.number
                return
            if continues and _carries_output(trace, line):
                trace.last_line = line.number  # more of the output it carries: not kept
                return
            self._flush(channel, out)
            trace = None
        if trace is not None:
            if _dedented_source(trace, line):
                # a traceback pasted without its indentation (a chat, an editor, a copy that
                # stripped leading spaces): the line right under a frame is that frame's source
                # line, as it is indented (_body_line); its code says what the frame did
                trace.frames[-1] = replace(trace.frames[-1], code=line.text.strip()[:200])
            trace.last_line = line.number
            return
        if line.level in _QUIET_LEVELS and line.kind in (LineKind.EXCEPTION_REPR, LineKind.PLAIN) \
                and self._causality.latent_warning(line.text):
            # a warning that reports an exception the process went on from: the cause of a later
            # error that follows from it, if one does (causal.py, causality.yaml `latent`)
            kind = EventKind.EXCEPTION if line.exception else EventKind.ERROR_RECORD
            out.append(replace(self._single(line, kind, line.exception or line.level.value,
                                            (line.message or "") if line.exception else line.text),
                               site=channel.site, title=line.text, latent=True))
            return
        if line.kind is LineKind.PLAIN and (line.level in _QUIET_LEVELS or line.level is None) \
                and self._causality.refusal_warning(line.text):
            # the engine warned that it dropped a request it could not run (V0's scheduler; V1
            # raises instead): that request's error, survived as any request's error is
            # (causality.yaml `refusals`, `requests`)
            out.append(replace(self._single(line, EventKind.ERROR_RECORD,
                                            (line.level or Level.WARNING).value, line.text),
                               site=channel.site, title=line.text))
            return
        is_error_record = line.level in _ERROR_LEVELS and line.kind in (LineKind.PLAIN,
                                                                         LineKind.UVICORN)
        # a warning vLLM logs only while it handles a model step's exception, quoting an error
        # (causality.yaml `failing_warnings`): the step failed; read as an error record
        # (a container runtime's `WARNING: ...` reads as uvicorn's level-and-colon shape)
        failing = line.level in _QUIET_LEVELS \
            and line.kind in (LineKind.PLAIN, LineKind.EXCEPTION_REPR, LineKind.UVICORN) \
            and (self._causality.failing_warning(line.text) or _failed_request(line))
        if failing:
            is_error_record = True
        if line.kind is LineKind.PLAIN and line.level is None \
                and self._causality.reports_from_loop(line.text.strip()):
            # asyncio's report printed bare where no logging is configured (V0's front end, a
            # script): the record it is when the `asyncio` logger prints it at ERROR
            is_error_record = True
        if line.kind is LineKind.UVICORN and line.text.startswith(("ERROR", "CRITICAL")):
            is_error_record = True
        printed = None
        if line.kind is LineKind.EXCEPTION_REPR and (line.level not in _QUIET_LEVELS or failing):
            is_error_record, printed = True, (line.exception or "", line.message or "")
        if is_error_record and line.text.strip():
            self._flush_title(channel, out)
            channel.title = _Title(_uvicorn_text(line), line.number, line.level, line.time,
                                   printed, False)
            return
        if line.kind is LineKind.PLAIN and line.level is None and line.site is None:
            name = self._causality.interpreter_class(line.text)
            if name is not None:
                # an exception's str(e) alone, in the interpreter's words (causality.yaml
                # `interpreter_messages`): the message of the traceback whose frames follow
                # it, if they do (_message_above); no error of its own, as a bootstrap header
                # whose traceback never came is none
                self._flush_title(channel, out)
                text = line.text.strip()
                channel.title = _Title(text, line.number, None, line.time, (name, text), True)

    # ---- helpers ------------------------------------------------------------------------------
    def _open(self, channel: _Channel, line: LogLine) -> None:
        title = None
        first = line.number
        printed = None
        loose = channel.title
        if loose is not None and loose.bootstrap and loose.printed is not None \
                and not _message_above(loose, line):
            channel.title = None  # an interpreter's message too far above to be this one's
        if channel.title is not None:
            title, first, printed = channel.title.text, channel.title.line, channel.title.printed
            channel.title = None
        elif line.kind is LineKind.TRACEBACK_HEADER and line.exception:
            title = line.text.strip()  # a header that names what it wraps (Ray's, a wrapper's)
        channel.trace = _Trace(first, line.number, line.process, line.site is None, line.time,
                               title=title, cause=channel.chain_next,
                               quiet=line.level in _QUIET_LEVELS, unraisable=channel.ignoring,
                               site=channel.site,
                               indent=_indent(line.text) if line.kind is LineKind.TRACEBACK_HEADER
                               and not line.depth else 0, headless=line.kind is LineKind.FRAME,
                               depth=line.depth, group=_group_of(channel, line.depth),
                               printed=printed)
        channel.chain_next = None
        channel.ignoring = None

    def _extend(self, trace: _Trace, line: LogLine) -> None:
        trace.last_line = line.number

    def _flush(self, channel: _Channel, out: list[Event], at_end: bool = False) -> None:
        trace = channel.trace
        channel.trace = None
        if trace is None or trace.quiet:
            return  # a traceback logged as a warning is printed on purpose, the process goes on
        if trace.carrier is not None and not self._carries(trace):
            carried = _event_of(trace.carrier, self._new_id())
            channel.last_event = carried.id
            out.append(carried)
        if trace.exception is None:
            # A traceback cut before its exception line (a log pasted in part, a process killed
            # mid-print): the failure shows, its cause does not (not one Python ignored).
            # A `Traceback` header the log ends in (with at most a frame too cut to read) is one
            # too: Python prints it only for an exception it is about to report.
            ended = at_end and trace.last_line - trace.first_line <= _HEADER_TAIL \
                and trace.last_line >= self._last_line - _HEADER_TAIL
            if (trace.frames or trace.title or ended) and trace.unraisable is None:
                out.append(self._cut_trace(trace))
            return
        if trace.heading and not any(trace.message_lines) and not trace.frames \
                and trace.title is None and trace.cause is None:
            return  # `Error:` alone, no message after it, no traceback: a heading in prose
        event = _event_of(trace, self._new_id())
        if trace.unraisable is not None:  # no error unless a native death follows it (causal.py)
            event = replace(event, title=trace.unraisable, latent=True, unraisable=True)
        channel.last_event = event.id
        out.append(event)

    def _carries(self, trace: _Trace) -> bool:
        """Whether the traceback its carrier headed stands for it: complete, and not a report
        that the failure happened elsewhere (a parent's `Engine core initialization failed`
        after a child's error printed in the same stream)."""
        if trace.exception is None:
            return False
        message = trace.message_lines[0] if trace.message_lines else ""
        return self._causality.symptom_of(f"{trace.exception}: {message}".rstrip(": ")) is None

    def pending_from(self) -> int | None:
        """The first line of the earliest error still being assembled (None: none is)."""
        first: int | None = None
        idle: list[ChannelKey] = []
        for key, channel in self._busy.items():  # asked about every activity milestone
            trace, title = channel.trace, channel.title
            if trace is None and title is None:
                idle.append(key)
                continue
            if trace is not None and (first is None or trace.first_line < first):
                first = trace.first_line
            if title is not None and (first is None or title.line < first):
                first = title.line
        for key in idle:
            del self._busy[key]
        return first

    def waiting(self) -> Iterator[tuple[Process, int]]:
        """The process and first line of each error still being assembled."""
        for channel in self._busy.values():
            trace, title = channel.trace, channel.title
            if trace is not None:
                yield channel.process, trace.first_line
            if title is not None:
                yield channel.process, title.line

    def snapshot(self) -> list[ErrorEvent]:
        """The exceptions still waiting for their next line, as they stand (ids are negative).

        For `--follow`: the last exception of a log that stopped growing is complete even
        though no line has closed it yet. The state is not changed.
        """
        waiting = [c.trace for c in self._by_order()
                   if c.trace is not None and c.trace.exception is not None]
        return [self._hints.hinted(_event_of(trace, -index))
                for index, trace in enumerate(waiting, start=1)]

    def _cut_trace(self, trace: _Trace) -> ErrorEvent:
        if trace.printed is not None:
            return self._printed_trace(trace, *trace.printed)
        quoted = self._causality.quoted_message(trace.title) if trace.title else None
        if quoted is not None:
            return self._quoted_trace(trace, quoted)
        where = ""
        if trace.frames:
            frame = trace.frames[-1]
            where = f"; last frame {frame.file}:{frame.line} in {frame.function}"
        message = f"{trace.title or 'a traceback'} (cut before its exception line{where})"
        return ErrorEvent(self._new_id(), EventKind.ERROR_RECORD, CUT_TRACEBACK, message,
                          trace.process, trace.last_line, trace.first_line, trace.last_line,
                          tuple(trace.frames), trace.time, trace.title,
                          trace.cause[0] if trace.cause else None,
                          trace.cause[1] if trace.cause else None, raw=trace.raw,
                          site=trace.site, group_id=trace.group, headless=trace.headless)

    def _printed_trace(self, trace: _Trace, name: str, message: str) -> ErrorEvent:
        """A traceback cut before its exception line under the record that printed the exception
        as a repr (V0's engine loop: `ERROR ... [engine.py:160] ValueError('...')`, then the
        traceback, vllm#18414): that exception, raised where its record is."""
        return ErrorEvent(self._new_id(), EventKind.EXCEPTION, name, message[:MAX_MESSAGE_CHARS],
                          trace.process, trace.first_line, trace.first_line, trace.last_line,
                          tuple(trace.frames), trace.time, trace.title,
                          trace.cause[0] if trace.cause else None,
                          trace.cause[1] if trace.cause else None, raw=trace.raw,
                          site=trace.site, group_id=trace.group, tailless=True)

    def _quoted_trace(self, trace: _Trace, message: str) -> ErrorEvent:
        """A traceback cut before its exception line whose heading record quotes the exception's
        message (causality.yaml `quoting_titles`): that exception, of the class vLLM raises the
        message with where its message index knows it, else the record it is."""
        from logsleuth.index.bare import raised_class  # the index loads only when one is met

        cls = raised_class(message)
        kind = EventKind.EXCEPTION if cls is not None else EventKind.ERROR_RECORD
        return ErrorEvent(self._new_id(), kind, cls or Level.ERROR.value,
                          message[:MAX_MESSAGE_CHARS], trace.process, trace.first_line,
                          trace.first_line, trace.last_line, tuple(trace.frames), trace.time,
                          trace.title, trace.cause[0] if trace.cause else None,
                          trace.cause[1] if trace.cause else None, raw=trace.raw,
                          site=trace.site, group_id=trace.group, tailless=True)

    def _flush_title(self, channel: _Channel, out: list[Event]) -> None:
        """An ERROR record that no traceback followed is an event of its own."""
        if channel.title is None:
            return
        text, number, level, time, printed, bootstrap = channel.title
        channel.title = None
        if bootstrap:
            return  # a bootstrap header whose traceback never came
        label = level.value if level is not None else "ERROR"
        kind = EventKind.ERROR_RECORD
        if printed is not None:  # the exception's repr: its type, weighed as a record still
            label, text = printed
            raised = _answered(label, text)
            if raised is not None:
                label, kind = raised, EventKind.EXCEPTION
        text = text[:MAX_MESSAGE_CHARS]  # a 64 KiB record line is matched by its start
        # a condition a monitor logs at ERROR (causality.yaml `latent`, `any_level`): the cause
        # of a later error that follows from it, if one does, as a warning of it is
        latent = printed is None and level not in _QUIET_LEVELS \
            and self._causality.latent_record(text)
        event = ErrorEvent(self._new_id(), kind, label, text,
                           channel.process, number, number, number, time=time, site=channel.site,
                           # a record below ERROR is a title only as a failing warning (`_step`)
                           failing_warning=level in _QUIET_LEVELS,
                           title=text if latent else None, latent=latent)
        channel.last_event = event.id
        out.append(event)

    def _single(self, line: LogLine, kind: EventKind, label: str, message: str) -> ErrorEvent:
        return ErrorEvent(self._new_id(), kind, label, message, line.process, line.number,
                          line.number, line.number, time=line.time, raw=line.site is None)

    def _milestone(self, line: LogLine) -> Milestone | None:
        if line.kind is LineKind.INDENTED and _continues_record(line):
            # a table's row printed indented under its header (`kubectl describe pod`'s Events:
            # `  Warning  Unhealthy  3m (x20 over 10m)  kubelet  Readiness probe failed: ...`):
            # a wait line only, never a step or an answer a message's text quotes
            found, _ = self._causality.marks_of(line.text)
            if found is not MilestoneKind.HANG:
                return None
            return Milestone(found, line.number, line.process, line.text, None,
                             time=self._shared_time(line.time))
        if line.kind not in (LineKind.ACCESS, LineKind.PLAIN, LineKind.UVICORN, LineKind.PROGRESS):
            return None
        if line.level in _ERROR_LEVELS:
            return None
        if line.kind is LineKind.PROGRESS and self._causality.is_unstarted_bar(line.text):
            return None  # begun or redrawn as it raised: its phase is claimed by a bar that moved
        asked = self._asked_line
        found, phase = asked[2] if asked is not None and asked[0] is line \
            else self._causality.marks_of(line.text)
        if found is not None:  # a lifecycle line may begin a phase too (`Model loading took`)
            if phase is not None:
                self._phases[line.process] = phase
            return Milestone(found, line.number, line.process, line.text, phase,
                             time=self._shared_time(line.time))
        if phase is None or self._phases.get(line.process) is phase:
            return None  # a progress bar repeats its phase on every refresh: one mark is enough
        self._phases[line.process] = phase
        return Milestone(MilestoneKind.PHASE, line.number, line.process, line.text, phase,
                         time=self._shared_time(line.time))

    def _shared_time(self, time: str | None) -> str | None:
        """One string per time of the milestones kept: a start-up's milestones fall in a few
        seconds, and each line's own copy of its time was about an eighth of what a restart-heavy
        log's milestones held (bounded: the times of a log go by and do not come back)."""
        if time is None:
            return None
        shared = self._times.get(time)
        if shared is None:
            if len(self._times) >= _TIMES:
                self._times.clear()
            shared = self._times[time] = time
        return shared

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id


def _ends_elsewhere(trace: _Trace) -> bool:
    """A line of the trace's process in another channel completes it: its exception is read,
    and it is no fault dump, nor an exception that announces the output it carries (`... failed:`,
    not ended by the records in that output: its child's log lines come from other call sites)."""
    return trace.closing and not trace.fault_dump and not _introduces_traceback(trace)


def _own_channel(line: LogLine) -> bool:
    """The line goes on no other channel's record, whatever the channels hold (`_continued_key`
    is None for it in every state)."""
    return not _cann_record(line) and not _bare_error_record(line) \
        and (line.site is not None or line.level is not None or bool(line.depth)
             or not (line.kind is LineKind.INDENTED or _field_name(line)))


def _cann_record(line: LogLine) -> bool:
    """An Ascend CANN error record: its header names the error's code (`EE1001: `, `[PID: N]
    <time> Invalid_Argument(EE1001): `), which the tokenizer keeps as the record's site."""
    site = line.site
    return line.level is Level.ERROR and site is not None and len(site) == 6 \
        and site[0] == "E" and (site[1].isupper() or site[1].isdigit()) and site[2:].isdigit()


def _bare_error_record(line: LogLine) -> bool:
    """An ERROR line whose header is its level alone (`[ERROR] `, `[Error]: `: a logger that names
    no call site, `-`)."""
    return line.level in _ERROR_LEVELS and line.site == "-" and line.kind is LineKind.PLAIN


def _opens_statement(line: LogLine) -> bool:
    """An indented source line whose statement goes on over the next line: it ends in an
    opening bracket or a comma inside one (a call's arguments, a subscript, a literal)."""
    return line.kind is LineKind.INDENTED and line.exception is None \
        and line.text.rstrip().endswith(("(", "[", "{", ","))


def _continues_record(line: LogLine) -> bool:
    """A bare indented line (no header, no level of its own, no exception, no group margin):
    what a logger that writes its header once prints for a record's further lines."""
    return line.kind is LineKind.INDENTED and line.site is None and line.level is None \
        and line.exception is None and not line.depth and bool(line.text.strip())


def _joinable(title: _Title | None, line: LogLine) -> bool:
    """An error record waiting whose message `line` may go on: the line right after the
    record's last (a record is printed whole: any line between, even one the tokenizer's
    prefilter skipped, ends it), not multiprocessing's bootstrap header, not a record that
    printed an exception's repr (its message is the repr's), not already MAX_MESSAGE_LINES long.
    A record's lines are its first and the ones joined to it, one a line of its text."""
    if title is None or title.bootstrap or title.printed is not None:
        return False
    joined = title.text.count("\n")
    return joined < MAX_MESSAGE_LINES - 1 and line.number == title.line + joined + 1


def _heading(line: LogLine) -> bool:
    """`Name:` with nothing after the colon (grammars/vllm.lark EXC_TYPE keeps it in the text):
    Python prints it only when the message begins on the next line, and a person writes it as a
    heading in prose. A dotted name (`torch.distributed...ChildFailedError:`) is Python's own
    printing, never prose, so it stays an exception."""
    text = line.text.strip()
    return not line.message and text.endswith(":") and "." not in text


def _message_below(trace: _Trace) -> bool:
    """The closing exception printed `Name:` alone and its message began on the next line,
    which it has already taken (Python prints an exception so only when str(e) starts with a
    newline: a formatted report as the message)."""
    return trace.closing and trace.kind is EventKind.EXCEPTION and not trace.heading \
        and len(trace.message_lines) > 1 and not trace.message_lines[0].strip()


def _unbordered(line: LogLine) -> str:
    """A line's text without an exception group's margin (`    |     code` is `code`)."""
    text = line.text.strip()
    return text[1:].strip() if line.depth and text[:1] == "|" else text


def _warning_goes_on(channel: _Channel, line: LogLine) -> bool:
    """A raw line right under a Python warning's header, before its source line: the warning's
    text going on (a message of several lines, the text of an exception it went on from), not an
    error; its indented source line ends it, and so does any other line."""
    left, channel.warning = channel.warning, 0
    if line.site is not None or line.level is not None or line.depth \
            or line.number != channel.warning_next:
        return False  # a record, or a line printed after other lines: not the warning's
    if line.kind is LineKind.INDENTED:
        return True  # the warned line's source
    if line.kind in _WARNING_TEXT:
        channel.warning, channel.warning_next = left - 1, line.number + 1
        return True
    return False


def warning_text(lines: Iterable[LogLine]) -> frozenset[int]:
    """The numbers of the lines (in log order) that go on a Python warning's text, as the
    assembler reads them (`_warning_goes_on`): index/bare.py looks none of them up as a pasted
    error of its own."""
    channels: dict[ChannelKey, _Channel] = {}
    found: set[int] = set()
    for line in lines:
        key: ChannelKey = (line.process.name, line.process.pid, line.site)
        channel = channels.setdefault(key, _Channel(line.process, line.site))
        if channel.warning and _warning_goes_on(channel, line):
            found.add(line.number)
        elif line.kind is LineKind.PY_WARNING and line.site is None and line.level is None:
            channel.warning, channel.warning_next = WARNING_LINES, line.number + 1
    return frozenset(found)


def _fresh(channel: _Channel) -> bool:
    """The channel is as `_Channel(process, site)` made it, for a process without an ip (so
    that one made again from its key alone is equal to it)."""
    return channel.title is None and channel.chain_next is None and channel.last_event is None \
        and not channel.ignoring and not channel.groups and channel.process.ip is None \
        and not channel.warning and not channel.statement_open


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


_SOURCE_INDENT = 4  # the column of a frame's source line in a traceback printed unshifted


@cache
def _box_open() -> re.Pattern[str]:
    return terminal_regex("PIP_BOX_OPEN")


@cache
def _box_end() -> re.Pattern[str]:
    return terminal_regex("PIP_BOX_END")


def _in_open_box(trace: _Trace) -> bool:
    """Whether a build step's report (pip's `error: subprocess-exited-with-error`) has opened
    the box of its child's output (`╰─> [17 lines of output]`, grammars/vllm.lark PIP_BOX_OPEN)
    and not closed it (PIP_BOX_END): the lines that follow are the child's own, its exception
    line among them."""
    for text in reversed(trace.message_lines):
        if _box_end().match(text):
            return False
        if _box_open().match(text):
            return True
    return False


def _inside_shifted(line: LogLine, indent: int) -> bool:
    """Whether a line after the exception of a traceback shifted `indent` columns right (pip's
    box) is still the tool's relayed output, so may continue the exception's message: pip
    closes the box (PIP_BOX_END) at the column of the output it relays."""
    return _indent(line.text) >= indent and not _box_end().match(line.text)


def _introduces_inner(trace: _Trace) -> bool:
    """The trace's message so far ends with "raised:": the next line names the inner error."""
    return bool(trace.message_lines) and trace.message_lines[-1].rstrip().endswith(" raised:")


def _heads_traceback(title: _Title | None) -> bool:
    """A waiting ERROR record ends in Python's traceback header, the frames that follow its: V0's
    worker wrapper logs `Exception in worker X while processing method M: <str(e)>, <traceback>`
    as one record whose first line ends in `Traceback (most recent call last):` (vllm issue 8660).
    The traceback is the record's, not one cut above its header."""
    return title is not None and not title.bootstrap \
        and title.text.rstrip().endswith(_TRACEBACK_HEADER)


def _message_above(title: _Title | None, line: LogLine) -> bool:
    """The frame or `Traceback` header `line` opens a traceback whose exception's message, in
    the interpreter's own words, was printed alone right above it (a blank line between at
    most): `print(e)` before `traceback.print_tb` or `print_exc`, a handler or a paste that puts
    the message first."""
    return title is not None and title.bootstrap and title.printed is not None \
        and 0 < line.number - title.line <= 2


def _announces_traceback(trace: _Trace) -> bool:
    """The closing exception's message ends in a traceback's header line, its frames to follow."""
    return trace.kind is EventKind.EXCEPTION and bool(trace.message_lines) \
        and trace.message_lines[-1].rstrip().endswith("(most recent call last):")


def _introduces_traceback(trace: _Trace) -> bool:
    """A traceback header that follows this closing trace in its channel is the traceback the
    trace's text introduces, not a new error:
    - a native error's text as a logged record's message (`logger.exception(e)` in V0's engine
      prints str(e) first: `ERROR [engine.py:366] HIP error: invalid argument`, then the
      traceback that ends in `RuntimeError: HIP error: invalid argument`);
    - an exception whose message announces a traceback it carries with a colon at the end of its
      first line (`RuntimeError: Error raised in subprocess:`, then the child's stderr: maybe a
      warning, then its traceback). The carried traceback's exception is the error."""
    if trace.fault_dump or not trace.message_lines:
        return False
    if trace.kind is EventKind.FATAL:
        return trace.site is not None and not trace.raw
    return trace.kind is EventKind.EXCEPTION and trace.message_lines[0].rstrip().endswith(":")


# Lines of another program's output an exception's message may carry before the traceback it
# holds (a subprocess's log records and warnings, then its traceback): vLLM's P2P check raises
# `RuntimeError: Error happened when batch testing peer-to-peer access ...:` with the test
# subprocess's whole stderr (vllm#8735: TensorFlow's start-up records, then `Process
# SpawnProcess-1:` and the child's traceback). A bound, so that an exception whose first line
# merely ends in a colon does not take a later unrelated traceback as its own.
MAX_CARRIED_LINES = 200


def _carries_output(trace: _Trace, line: LogLine) -> bool:
    """The closing trace's message announces output it carries (`_introduces_traceback`), and
    `line` is near enough to still be part of it."""
    return _introduces_traceback(trace) and line.number - trace.line <= MAX_CARRIED_LINES


def _under_rule(trace: _Trace) -> bool:
    """The closing trace's message so far ends in a rule (`=====`, `-----`): a message that
    opens with a banner (vllm-ascend's `ValueError:` then a rule, `ERROR: ModelSlim Quantization
    Config Not Found`, a rule), whose `ERROR: ...` headline is the banner's text, not a logger's
    next record (a record is not printed between a rule and what it frames)."""
    last = trace.message_lines[-1].strip() if trace.message_lines else ""
    return len(last) >= _RULE_MIN and len(set(last)) == 1 and last[0] in _RULE_CHARS


def _headline(trace: _Trace) -> str:
    first = trace.message_lines[0].strip() if trace.message_lines else ""
    return f"{trace.exception}: {first}" if first else str(trace.exception)


def _field_name(line: LogLine) -> bool:
    """A bare line that is one name (`max_model_len`, `speculative_config.method`): pydantic's
    location of the check that failed, on its own line above the check."""
    text = line.text
    return line.kind is LineKind.PLAIN and 0 < len(text) <= 120 and not text[0].isspace() \
        and len(text.split()) == 1 and line.exception is None


def _dedented(line: LogLine) -> LogLine:
    """An indented line that names an exception (grammars/vllm.lark INDENT_LEAD) as the
    exception line it is."""
    name = line.exception or ""
    text = f"{name}: {line.message}" if line.message else name
    return replace(line, kind=LineKind.EXCEPTION, text=text)


def _asserted(line: LogLine) -> bool:
    """An AssertionError whose message is the `assert` statement itself: how the grammar reads
    pytest's explanation of a failed assertion behind its `E` margin."""
    return (line.exception or "").rsplit(".", 1)[-1] == "AssertionError" \
        and (line.message or "").startswith("assert ")


def _failed_request(line: LogLine) -> bool:
    """A warning that quotes a server's OpenAI-style error body, as the grammar reads one
    (vllm.lark REQUEST_FAILED: lm-eval's API models log `API request failed with error message:
    {"object":"error",...}` at WARNING before they retry): the request failed, as when the body
    is printed bare (tests/test_client_error_pastes.py)."""
    return line.kind is LineKind.EXCEPTION_REPR and _request_failed().search(line.text) is not None


@cache
def _request_failed() -> re.Pattern[str]:
    return terminal_regex("REQUEST_FAILED")


def _dedented_source(trace: _Trace, line: LogLine) -> bool:
    """`line`, printed at the margin right under the frame a traceback read last (no other line
    between them), stands where Python prints that frame's source line: a plain line with no
    record's level or call site of its own."""
    return not trace.closing and not trace.fault_dump and not trace.native_stack \
        and bool(trace.frames) and trace.frames[-1].code is None \
        and trace.last_line == line.number - 1 and line.kind is LineKind.PLAIN \
        and line.level is None and line.site is None and bool(line.text.strip())


def _dedented_symbol(trace: _Trace, line: LogLine) -> bool:
    """`line`, printed at the margin right under a native crash handler's banner or the symbol
    read last (no other line between them), stands where the handler prints the next symbol:
    a plain line with no record's level or call site, a name (`ccl_comm::post_coll(...)`), not
    words (nothing but its arguments holds a space)."""
    text = line.text.strip()
    return trace.native_stack and trace.last_line == line.number - 1 \
        and line.kind is LineKind.PLAIN and line.level is None and line.site is None \
        and bool(text) and " " not in text.split("(", 1)[0]


def _source_slot(trace: _Trace, line: LogLine) -> bool:
    """`line` stands where the last frame's source line goes, and could be Python code there:
    `    KeyError` or `    ValueError: int` could be a statement; a message of several words
    (`ValueError: bad value`) is no code."""
    message = (line.message or "").strip()
    return bool(trace.frames) and trace.frames[-1].code is None \
        and (not any(c.isspace() for c in message) or _annotation(message))


def _annotation(message: str) -> bool:
    """The rest of an annotated assignment after its target's colon (`ValueError: int = 3`:
    grammars/vllm.lark SOURCE_ANNOTATION)."""
    from logsleuth.tokenize.grammar import terminal_regex  # assemble is imported without Lark

    return terminal_regex("SOURCE_ANNOTATION").match(message) is not None


def _exception_at(line: LogLine, indent: int) -> LogLine | None:
    """The exception line of a traceback printed indented as a whole: Python puts it at the
    column of the traceback's header, which pip's box (`╰─> [17 lines of output]`: a setup.py
    that raised under `pip install`) shifts right with every other line, so the grammar reads it
    as an indented continuation. Frames and source lines sit deeper and stay what they are."""
    from logsleuth.tokenize import parse_line  # only for indented tracebacks

    if _indent(line.text) != indent:
        return None
    parsed = parse_line(line.text[indent:])
    if parsed.kind is not LineKind.EXCEPTION:
        return None
    return replace(line, kind=LineKind.EXCEPTION, exception=parsed.exception,
                   message=parsed.message)


def _event_of(trace: _Trace, event_id: int) -> ErrorEvent:
    assert trace.exception is not None
    message = "\n".join(trace.message_lines).strip()[:MAX_MESSAGE_CHARS]
    frames = tuple(reversed(trace.frames)) if trace.fault_dump else tuple(trace.frames)
    return ErrorEvent(event_id, trace.kind, trace.exception, message, trace.process, trace.line,
                      trace.first_line, trace.last_line, frames, trace.time, trace.title,
                      trace.cause[0] if trace.cause else None,
                      trace.cause[1] if trace.cause else None, trace.raw, trace.site,
                      trace.group)


def _group_of(channel: _Channel, depth: int) -> int | None:
    """The event id of the exception group whose sub-exception a traceback at `depth` is: the
    deepest group printed above it whose own lines are less deep."""
    inside = [group for group_depth, group in channel.groups if group_depth < depth]
    return inside[-1] if inside else None


_RUN_TIME = "\0the run's time"  # a time that is the LineRun's own
_MILESTONE_KINDS = (LineKind.ACCESS, LineKind.PLAIN, LineKind.UVICORN, LineKind.PROGRESS)
_TIMES = 256  # distinct times shared at once (_shared_time)
_RUN_MEMO = 4096  # distinct runs and states remembered (a bound: the ones that recur return)


@quick_init
@dataclass(frozen=True, slots=True)
class _TraceAt:
    """A _Trace relative to a LineRun: line numbers counted from its first line."""

    first_line: int
    last_line: int
    raw: bool
    time: str | None
    kind: EventKind
    title: str | None
    frames: tuple[Frame, ...]
    fault_dump: bool
    exception: str | None
    message_lines: tuple[str, ...]
    line: int | None  # None: no exception line read yet
    quiet: bool
    site: str | None
    indent: int = 0
    headless: bool = False
    unraisable: str | None = None
    heading: bool = False


@quick_init
@dataclass(frozen=True, slots=True)
class _State:
    """A channel's state relative to a LineRun (its process and time left out where they are
    the run's own)."""

    trace: _TraceAt | None
    title: _Title | None
    ignoring: str | None
    # whether an event was made in the channel before: a chain line (`The above exception was
    # the direct cause`) links the traceback after it to that event, and then its change is
    # not kept (`cause`); without one it is, and holds only where there is none either
    chained: bool
    # the lines that may still go on a Python warning's text and the next one's number, relative
    # (_Channel.warning, warning_next)
    warning: tuple[int, int]


def _inert(lines: tuple[LogLine, ...]) -> bool:
    """Lines that can change nothing but their own channel: no milestone can come of them
    (`_milestone` looks at no error-level line, and keeps phase state otherwise), no NCCL line,
    no `At:` frame list (which takes another channel's exception)."""
    return all(line.kind not in (LineKind.FRAME_LIST, LineKind.NCCL)
               and (line.kind not in _MILESTONE_KINDS or line.level in _ERROR_LEVELS)
               for line in lines)


def _bounded(memo: dict[_K, _V]) -> dict[_K, _V]:
    return {} if len(memo) >= _RUN_MEMO else memo


def _relative_state(channel: _Channel, first: int, time: str | None, process: Process
                    ) -> _State | None:
    """The channel's state relative to lines from `first` on, at `time`, of `process` (None:
    not one a change is kept for: a chain waiting for the next exception, or another process's
    traceback)."""
    if channel.chain_next is not None or channel.groups:
        return None
    trace = channel.trace
    traced = None
    if trace is not None:
        if trace.process != process or trace.cause is not None or trace.carrier is not None \
                or trace.depth or trace.group is not None:
            return None
        traced = _TraceAt(trace.first_line - first, trace.last_line - first, trace.raw,
                          _when(trace.time, time), trace.kind, trace.title, tuple(trace.frames),
                          trace.fault_dump, trace.exception, tuple(trace.message_lines),
                          trace.line - first if trace.line else None, trace.quiet, trace.site,
                          trace.indent, trace.headless, trace.unraisable, trace.heading)
    title = None
    if channel.title is not None:
        text, number, level, when, printed, bootstrap = channel.title
        title = _Title(text, number - first, level, _when(when, time), printed, bootstrap)
    warning = (channel.warning, channel.warning_next - first) if channel.warning else (0, 0)
    return _State(traced, title, channel.ignoring, channel.last_event is not None, warning)


def _when(time: str | None, own: str | None) -> str | None:
    return _RUN_TIME if time == own else time


def _restore(state: _State, channel: _Channel, first: int, time: str | None,
             process: Process, message: str | None = None) -> None:
    """Put the channel in the state a run changed it to, at these lines, time and process (and
    with this exception message, for a record's state kept without its own)."""
    channel.trace = None
    traced = state.trace
    if traced is not None:
        channel.trace = _Trace(
            first + traced.first_line, first + traced.last_line, process, traced.raw,
            time if traced.time == _RUN_TIME else traced.time, kind=traced.kind,
            title=traced.title, frames=list(traced.frames), fault_dump=traced.fault_dump,
            exception=traced.exception,
            message_lines=[message] if message is not None else list(traced.message_lines),
            line=0 if traced.line is None else first + traced.line, quiet=traced.quiet,
            site=traced.site, indent=traced.indent, headless=traced.headless,
            unraisable=traced.unraisable, heading=traced.heading)
    channel.title = None
    if state.title is not None:
        text, number, level, when, printed, bootstrap = state.title
        channel.title = _Title(text, first + number, level, time if when == _RUN_TIME else when,
                               printed, bootstrap)
    channel.ignoring = state.ignoring
    channel.warning, channel.warning_next = state.warning[0], first + state.warning[1]


def _answered(label: str, text: str) -> str | None:
    """The class vLLM raised the message of a client's status line with (`HTTP 400: <message>`,
    labelled `HTTP <code>` by grammar.py's client_status), when the rest of the line is the
    whole of a message vLLM raises: the answer's body said why, so the line is that error, not
    a report of one (causality.yaml `symptoms`: a status with no reason)."""
    code = label.removeprefix("HTTP ")
    if code == label or not code.isdigit():
        return None
    from logsleuth.index.bare import answered_class  # the index loads only when one is met

    return answered_class(text)


def _uvicorn_text(line: LogLine) -> str:
    text = line.text.strip()
    if line.kind is LineKind.UVICORN:
        head, _, rest = text.partition(":")
        return rest.strip() or head
    return text


def assemble(lines: Iterable[LogLine], causality: Causality | None = None) -> Iterator[Event]:
    """Turn a LogLine stream into events, yielded as each completes (not in line order)."""
    assembler = Assembler(causality)
    for line in lines:
        yield from assembler.feed(line)
    yield from assembler.finish()
