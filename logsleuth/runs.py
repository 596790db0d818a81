"""A log that holds several starts of vLLM (a restart, a crash loop under systemd or Kubernetes,
`docker logs` of a restarted container, journald over days) holds several runs.

The causal stage infers each run on its own and explains the last one that failed; this module
says where runs begin (start markers are data: `milestones.start` in causality.yaml), gives each
run a key under which identical runs share one inference (a crash loop of a thousand identical
runs costs about one), and summarises every run for the report's `runs` list.

A run begins where a start marker repeats from a process of the same name: a DP rank's engine
core prints the engine banner once for itself, the API server once for the whole run, so a
second banner from the same name is a second start.

Start lines printed again whole (the same process, time and text, two or more in a row: a
reporter who pasted the output twice, a collector that shipped the file twice) are the same start,
not another: they begin no run, so the copy reads as one run with the output it repeats and the
root is the first copy's. A restart prints its own time; a line without a time cannot be told
from one and begins a run, unless the start lines right after it are such copies (the copy spliced
onto the line before it).

A record that earlier runs of the log printed and went on past is benign evidence in the last
run (`Recurring`): a crash loop's start-up prints a library's harmless ERROR record every time,
and a log cut right after the next start's copy of it ends on a run with nothing else in it,
which that record must not explain. Went on past: a step of the run's work (a start, a start-up
step, a phase, output; any process's, as the engine's steps follow the API server's records)
after the record, and the record not the run's root. A record that was the root of an earlier
run, or that an earlier run printed and went no further after, or that no earlier run printed,
stays what the last run's own evidence makes it.

A test runner's report is not in time order: pytest prints a failed test's error, then the
output it captured while the test ran. A start inside captured output (causality.yaml
`milestones.captured`, up to the next `report` section) is that test's start, printed after
its failure: it begins no run, and the report reads as one run whose first failure is its first
failed test's (a restart outside captured output, a crash loop, still begins one).
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from logsleuth.fingerprint import masked_first_line
from logsleuth.knowledge import Causality
from logsleuth.model import (ErrorEvent, Event, EventKind, Inference, Milestone, MilestoneKind,
                             Run, Verdict)
from logsleuth.signatures.template import mask

RunKey = bytes  # run_key's digest


@dataclass(frozen=True, slots=True)
class RunSlice:
    """The events of one run, and the lines it spans."""

    start_line: int
    end_line: int
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class RunSpan:
    """What the report's `runs` list needs of a run besides its outcome: the lines it spans and
    its start time (a run folded as it ended keeps this, not its events: runfold.py)."""

    start_line: int
    end_line: int
    start_time: str | None

    @staticmethod
    def of(run: RunSlice) -> RunSpan:
        return RunSpan(run.start_line, run.end_line, start_time(run))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the inference of one run concluded, in the few fields the `runs` list shows."""

    verdict: Verdict
    exception: str | None
    message: str | None
    line: int | None
    fingerprint: str | None
    time: str | None  # of the root cause, or of the run's first timed event

    def shifted(self, lines: int, time: str | None) -> Outcome:
        """The same outcome for an identical run `lines` lines further on."""
        line = None if self.line is None else self.line + lines
        return replace(self, line=line, time=time)


def _line_of(event: Event) -> int:
    return event.line


def split_runs(events: Sequence[Event], know: Causality) -> list[RunSlice]:
    """The runs of a log, in order; one run when the log holds one start (or none).

    A start marker printed again under the same process name begins a new run when every
    process of the run so far is silent from there on (they are gone: a restart), when the
    process that printed it before has the same pid (a restarted container reuses pid 1), or
    has no pid to tell (the unprefixed eras). So does a
    new pid under a name that exists once a run (`singletons`) after the old pid ended (its
    last words an error or a shutdown: an engine core that serves prints nothing, so silence
    alone does not end it) and every other process of the run so far is silent from where the
    new run would begin (the old deployment is gone: its API server still printing the engine's
    failure is the same run). Two servers writing into one log at once stay one run.

    A start after an error that ended the program that was to run vLLM (`exits`: a traceback
    that reached the top of a vLLM program, argparse refusing vLLM's or a script's arguments)
    is another invocation, and begins a run, though the program that exited printed no start of
    its own (argparse refuses before vLLM prints anything), unless a process of the run so far
    goes on talking after it (a second deployment beside the one that exited). So is a start
    after a stop an operator asked for (`milestones.shutdown_requested`: SIGTERM, uvicorn's
    shutdown), whatever process names the new invocation prints under (a V1 server stopped,
    then a V0 or offline run appended to the same file).
    """
    ordered = sorted(events, key=_line_of)
    if not ordered:
        return [RunSlice(1, 1, ())]
    captured = captured_spans(ordered)
    last_seen: dict[tuple[str, int | None], int] = {}
    first_seen: dict[tuple[str, int | None], int] = {}  # over the whole log
    ended: dict[tuple[str, int | None], bool] = {}  # its last event is an error or a shutdown
    # an error's copies folded into it (recur.py) were printed up to its last occurrence
    for line, event in sorted([(_line_of(e), e) for e in ordered]
                              + [(_last_copy_of(e), e) for e in ordered if _last_copy_of(e)],
                              key=lambda seen: seen[0]):
        who = (event.process.name, event.process.pid)
        first_seen.setdefault(who, _first_line_of(event))
        last_seen[who] = max(line, _last_line_of(event))
        ended[who] = isinstance(event, ErrorEvent) and not event.latent \
            or isinstance(event, Milestone) and event.kind is MilestoneKind.SHUTDOWN_REQUESTED
    # where each name first shows each of its pids: the next new pid of a name bounds where an
    # old run's process may still be talking (a pid comes back in a later run of a crash loop)
    arrivals: dict[str, list[int]] = {}
    for who, line in sorted(first_seen.items(), key=lambda item: item[1]):
        arrivals.setdefault(who[0], []).append(line)
    # and each name's starts (a pid reused by a later run starts again)
    name_starts: dict[str, list[tuple[int, int | None]]] = {}
    for event in ordered:
        if isinstance(event, Milestone) and event.kind is MilestoneKind.START:
            name_starts.setdefault(event.process.name, []).append((event.line, event.process.pid))
    copies = _copied_starts(ordered)
    starts: list[int] = []
    markers: dict[tuple[int | None, str], int | None] = {}  # (marker, name) -> its printer's pid
    pids: dict[str, int] = {}  # singleton process name -> its pid in this run
    pending: list[int] = []  # start lines of this run so far: where the next run may begin
    appeared: set[tuple[str, int | None]] = set()
    current: set[tuple[str, int]] = set()  # the processes with pids seen in this run
    singleton: dict[str, bool] = {}  # a crash loop repeats a few names a thousand times
    exited = False  # an error of the run so far ended the program that was to run vLLM
    for event in ordered:
        name, pid = event.process.name, event.process.pid
        gone = None
        if pid is not None and (name, pid) not in appeared \
                and singleton.setdefault(name, know.is_singleton(name)):
            old = pids.setdefault(name, pid)
            if old != pid and ended[(name, old)] \
                    and last_seen[(name, old)] < _first_line_of(event):
                gone = _first_line_of(event)
        by_name = gone is not None  # the singleton rule's, not yet checked for the others
        appeared.add((name, pid))
        if pid is not None:
            current.add((name, pid))
        # (a start inside captured output is a test's, printed after its failure: no marker)
        is_start = isinstance(event, Milestone) and event.kind is MilestoneKind.START \
            and not inside(captured, event.line) and event.line not in copies
        key = (know.start_marker(event.text), name) if is_start else (None, name)
        if is_start and gone is None:
            # a run that printed nothing but its banners is not a run yet (a banner printed
            # twice, a launcher's line before vLLM's own)
            said = not pending or _previous_other(ordered, event.line) > pending[0]
            if key in markers and said:
                printer = markers[key]
                # a process prints its banner once: the same pid again is a restart that
                # reused it (pid 1 of a restarted container); another pid is a restart when
                # every process of this run is silent from here on (a second server running
                # beside the first keeps the first one's processes talking)
                if printer is None or printer == pid or all(
                        last_seen[who] < event.line for who in current if who != (name, pid)):
                    gone = event.line
        if is_start and gone is None and exited:
            # the program that was to run vLLM exited: this start is another invocation's
            begins = min([*(line for line in pending if line > _previous_other(ordered,
                                                                              event.line)),
                          event.line])
            if not _old_talk(ordered, begins, None, current, first_seen):
                gone = event.line
        if gone is not None:
            later = [line for line in pending if line > _previous_other(ordered, gone)]
            begins = min([*later, gone])
            if inside(captured, begins):
                gone = None  # a test's own start, printed after its failure in the report
            elif not by_name or not _old_talk(ordered, begins, _bound(
                    arrivals[name], name_starts.get(name, []), gone, pid), current, first_seen):
                starts.append(begins)
            else:  # another process of the old run still talks: a second deployment
                gone = None
        if gone is not None:
            markers, pids, pending = {}, ({name: pid} if pid is not None else {}), []
            current = {(name, pid)} if pid is not None else set()
            exited = False
        if not inside(captured, event.line) and (exits_program(event, know) or stop_asked(event)):
            exited = True
        if is_start:
            markers.setdefault(key, pid)
            pending.append(event.line)
    # a start printed without a time of its own (spliced onto the line before it) whose run's
    # first timed start is a copy begins the same copy
    starts = [line for line in starts if _first_timed_start(ordered, line) not in copies]
    bounds = [ordered[0].line, *starts]
    last_line = max(max(_last_line_of(e), _last_copy_of(e)) for e in ordered)
    slices: list[RunSlice] = []
    for index, start in enumerate(bounds):
        end = bounds[index + 1] - 1 if index + 1 < len(bounds) else last_line
        low = bisect_left(ordered, start, key=_line_of)
        high = bisect_left(ordered, end + 1, key=_line_of)
        slices.append(RunSlice(start if index else 1, end, tuple(ordered[low:high])))
    return slices


def _copied_starts(ordered: Sequence[Event]) -> set[int]:
    """The lines of start markers that repeat earlier ones whole: the same process, time and
    text (the log's output printed again, not a restart, which prints its own time), two or more
    in the order the earlier ones came (a paste repeats a start-up's lines, two or more in every
    era: the banner or the arguments, then the engine's `Initializing`; one line alike is too
    little to tell)."""
    first: dict[tuple[str, int | None, str, str], int] = {}  # a timed marker's first index
    original: list[int | None] = []  # per start marker: the index it copies (None: no copy)
    lines: list[int] = []
    for event in ordered:
        if isinstance(event, Milestone) and event.kind is MilestoneKind.START:
            key = (event.process.name, event.process.pid, event.time or "", event.text)
            index = len(lines)
            original.append(first.get(key) if event.time else None)
            if event.time:
                first.setdefault(key, index)
            lines.append(event.line)

    def follows(index: int) -> bool:  # this copy and the next copy the same two markers
        this, after = original[index], original[index + 1] if index + 1 < len(lines) else None
        return this is not None and after is not None and after == this + 1

    return {lines[index] for index in range(len(lines))
            if original[index] is not None and (follows(index) or index and follows(index - 1))}


def _first_timed_start(ordered: Sequence[Event], line: int) -> int | None:
    """The line of the first start marker with a time at or after `line`, among the start
    markers that follow it with no other event between."""
    for event in ordered[bisect_left(ordered, line, key=_line_of):]:
        if not (isinstance(event, Milestone) and event.kind is MilestoneKind.START):
            return None
        if event.time:
            return event.line
    return None


def stop_asked(event: Event) -> bool:
    """The event is an operator's request to stop (SIGTERM, Ctrl-C, uvicorn's shutdown)."""
    return isinstance(event, Milestone) and event.kind is MilestoneKind.SHUTDOWN_REQUESTED


def exits_program(event: Event, know: Causality) -> bool:
    """The error ended the program it was printed by, which was (or was to start) vLLM
    (causality.yaml `exits`): a traceback that reached the top of a vLLM program uncaught, or a
    tool's own error line of vLLM's CLI or a Python script (argparse's `parser.error`)."""
    if not isinstance(event, ErrorEvent) or event.latent:
        return False
    places = [f"{frame.file}:{frame.function}" for frame in event.frames]
    return know.exits(places) or (event.kind is EventKind.DIAGNOSTIC
                                  and know.program_exits(event.message))


Span = tuple[int, int]  # lines from, to (both exclusive: the section headers)


def captured_spans(events: Sequence[Event]) -> list[Span]:
    """The stretches of lines a test runner's report holds as captured output: from each
    `captured` section header to the next `report` section (or the end), in order."""
    ordered = sorted(events, key=_line_of)
    spans: list[Span] = []
    begun: int | None = None
    for event in ordered:
        if not isinstance(event, Milestone):
            continue
        if event.kind is MilestoneKind.CAPTURED and begun is None:
            begun = event.line
        elif event.kind is MilestoneKind.REPORT and begun is not None:
            spans.append((begun, event.line))
            begun = None
    if begun is not None:
        spans.append((begun, ordered[-1].line + 1))
    return spans


def inside(spans: Sequence[Span], line: int) -> bool:
    """`line` lies in one of the captured stretches `spans`."""
    index = bisect_right(spans, line, key=_span_start) - 1
    return index >= 0 and spans[index][0] < line < spans[index][1]


def _span_start(span: Span) -> int:
    return span[0]


def _old_talk(ordered: Sequence[Event], begins: int, until: int | None,
              current: set[tuple[str, int]], first_seen: dict[tuple[str, int | None], int]) -> bool:
    """A process of the run so far (seen before `begins`) still logs from `begins` on, before
    `until`: the old deployment is not gone (an API server still printing its engine's failure
    while a second server starts)."""
    index = bisect_left(ordered, begins, key=_line_of)
    while index < len(ordered) and (until is None or ordered[index].line < until):
        event = ordered[index]
        who = (event.process.name, event.process.pid)
        if who in current and first_seen[who] < begins:
            return True
        index += 1
    return False


def _bound(arrivals: list[int], starts: list[tuple[int, int | None]], after: int,
           pid: int | None) -> int | None:
    """Where the run that a name's new `pid` begins at `after` ends at the latest: the name's
    next new pid, or its next start by another pid (a reused one)."""
    index = bisect_right(arrivals, after)
    bound = arrivals[index] if index < len(arrivals) else None
    for line, printer in starts[bisect_right(starts, after, key=_first):]:
        if bound is not None and line >= bound:
            break
        if printer != pid:
            return line
    return bound


def _first(start: tuple[int, int | None]) -> int:
    return start[0]


def _previous_other(ordered: Sequence[Event], line: int) -> int:
    """The line of the last event before `line` that is not a start marker (nor a warning
    kept in case a later error follows from it, which start-up banners print too)."""
    index = bisect_left(ordered, line, key=_line_of) - 1
    while index >= 0:
        event = ordered[index]
        if not (isinstance(event, Milestone) and event.kind is MilestoneKind.START
                or isinstance(event, ErrorEvent) and event.latent):
            return event.line
        index -= 1
    return 0


RecordKey = tuple[str, str]  # an error's exception and masked first line (record_key)

# the milestones that show a run's work going on (not a stop asked for, a wait, a report's
# sections)
_WORK = frozenset({MilestoneKind.SERVING, MilestoneKind.ALIVE, MilestoneKind.REJECTED,
                   MilestoneKind.READY, MilestoneKind.PROGRESS, MilestoneKind.START,
                   MilestoneKind.PHASE, MilestoneKind.BATCH})


def record_key(event: ErrorEvent) -> RecordKey:
    """What makes two runs' errors the same record: the exception and the message's first line,
    numbers, paths and quoted names masked (the process that printed it aside)."""
    return event.exception, masked_first_line(event.message)[:300]


def went_past(run: RunSlice, outcome: Outcome) -> dict[RecordKey, bool]:
    """Each record of a run, and whether the run went on past it: a step of the run's work after
    a copy of it, no copy of it the run's root (`outcome`)."""
    last_work = max((e.line for e in run.events
                     if isinstance(e, Milestone) and e.kind in _WORK), default=0)
    past: dict[RecordKey, bool] = {}
    killed: set[RecordKey] = set()
    for event in run.events:
        if not isinstance(event, ErrorEvent):
            continue
        key = record_key(event)
        if outcome.line is not None and event.first_line <= outcome.line <= event.last_line:
            killed.add(key)
        past[key] = past.get(key, False) or last_work > event.last_line
    return {key: went and key not in killed for key, went in past.items()}


@dataclass
class Recurring:
    """The records the runs so far printed, each with whether every run that printed it went on
    past it: those are benign evidence in a later run (the module's note)."""

    gone_past: dict[RecordKey, bool] = field(default_factory=dict)
    by_key: dict[RunKey, dict[RecordKey, bool]] = field(default_factory=dict)

    def add(self, run: RunSlice, outcome: Outcome, key: RunKey | None = None) -> None:
        """Count one run that is not the log's last (`key`: its run_key, under which identical
        runs are read once)."""
        seen = self.by_key.get(key) if key is not None else None
        if seen is None:
            seen = went_past(run, outcome)
            if key is not None:
                self.by_key[key] = seen
        for record, went in seen.items():
            self.gone_past[record] = self.gone_past.get(record, True) and went

    def benign(self) -> frozenset[RecordKey]:
        """The records every earlier run that printed them went on past."""
        return frozenset(record for record, went in self.gone_past.items() if went)


def run_key(run: RunSlice) -> RunKey:
    """Equal for runs that print the same errors and milestones at the same relative lines
    (times, pids and numbers in messages aside): their inference is the same, shifted.

    A digest of what it compares, not the list of it: a run of a day of request errors holds
    thousands of events, and the keys of every distinct run are kept while the log's runs are
    inferred (at the report's peak of memory). Each event's part is a tuple's repr, which reads
    back one way only, so two runs share a digest when their parts are equal (or by a 160-bit
    collision)."""
    base = run.start_line
    digest = hashlib.blake2b(digest_size=20)
    for event in run.events:
        if isinstance(event, ErrorEvent):
            part: tuple[object, ...] = (
                event.kind, event.exception, masked_first_line(event.message)[:300],
                event.process.name, event.line - base, event.first_line - base,
                event.last_line - base, event.cause_id is not None, event.group_id is not None)
        else:
            part = (event.kind, event.process.name, event.line - base)
        digest.update(repr(part).encode("utf-8", "surrogatepass"))
    return digest.digest()


def outcome_of(inference: Inference, run: RunSlice) -> Outcome:
    """The `runs` fields of one run's inference."""
    event = inference.root_cause or (inference.symptoms[0] if inference.symptoms else None)
    if inference.verdict is Verdict.NO_FAILURE or event is None:
        return Outcome(inference.verdict, None, None, None, None, start_time(run))
    first = _first_line(event.message)
    fingerprint = f"{event.exception.rsplit('.', 1)[-1]}: {mask(first)}"
    if inference.root_cause is None:
        fingerprint = f"root cause missing; {fingerprint}"
    return Outcome(inference.verdict, event.exception, first, event.line, fingerprint,
                   event.time or start_time(run))


def start_time(run: RunSlice) -> str | None:
    """The time of the run's first event that has one."""
    return next((t for t in (getattr(e, "time", None) for e in run.events) if t), None)


def summarize(runs: Sequence[RunSpan], outcomes: Sequence[Outcome],
              explained: int) -> tuple[Run, ...]:
    """One Run per run, each with how many runs failed the same way and when first and last."""
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        if outcome.fingerprint is not None:
            groups.setdefault(outcome.fingerprint, []).append(outcome)
    out: list[Run] = []
    for index, (run, outcome) in enumerate(zip(runs, outcomes)):
        same = groups.get(outcome.fingerprint or "", [])
        out.append(Run(run.start_line, run.end_line, outcome.verdict, outcome.exception,
                       outcome.message, outcome.line, outcome.fingerprint, len(same),
                       same[0].time if same else None, same[-1].time if same else None,
                       run.start_time, index == explained))
    return tuple(out)


def explained_index(outcomes: Sequence[Outcome]) -> int:
    """The run the report explains: the last one that failed, else the last one."""
    failed = [i for i, o in enumerate(outcomes) if o.verdict is not Verdict.NO_FAILURE]
    return failed[-1] if failed else len(outcomes) - 1


def _first_line_of(event: Event) -> int:
    return event.first_line if isinstance(event, ErrorEvent) else event.line


def _last_copy_of(event: Event) -> int:
    """The last line of the last copy folded into an error (0: none)."""
    return (event.last_occurrence or 0) if isinstance(event, ErrorEvent) else 0


def _last_line_of(event: Event) -> int:
    return event.last_line if isinstance(event, ErrorEvent) else event.line


def _first_line(text: str) -> str:
    return " ".join(text.split("\n", 1)[0].split())
