"""Orchestration only: read -> tokenize -> assemble -> infer -> match -> report."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from logsleuth.activity import ActivityFold
from logsleuth.assemble import Assembler, assemble
from logsleuth.causal import CausalGraph
from logsleuth.facts import FactCollector
from logsleuth.fingerprint import fingerprint
from logsleuth.halfread import FarReader
from logsleuth.hint import with_warning_hint
from logsleuth.index import annotate
from logsleuth.index.bare import bare_errors, stated_errors
from logsleuth.inputorder import FileLines
from logsleuth.knowledge import default_causality
from logsleuth.model import (ErrorEvent, Event, FactOrigin, Inference, LineRun, LinkReason,
                             LogLine, RecordRun, Report, Verdict)
from logsleuth.phase import failure_phase
from logsleuth.holdback import HoldBack, feed_item
from logsleuth.recur import Recurrences
from logsleuth.runfold import FoldedRuns, RunFold
from logsleuth.read import LogInput, Source, input_from_text, open_input
from logsleuth.signatures import SignatureSet, Target, default_signatures
from logsleuth.signatures.match import (CHAIN_WEIGHT, ROOT_WEIGHT, SYMPTOM_WEIGHT,
                                        SYMPTOM_WEIGHT_BESIDE_ROOT)
from logsleuth.tokenize import TokenizeStats, parse_every_line, tokenize, tokenize_runs
from logsleuth.tokenize.grammar import forget_lines
from logsleuth.tokenize.halves import can_split, tokenize_halves
from logsleuth.tokenize.sniff import HEAD_BYTES, looks_like_log

EMPTY_NOTICE = "the input is empty: there was nothing to analyse"
PASTE_LINES = 200  # inputs up to this long may be a paste of vLLM's message alone (index/bare.py)
UNRECOGNISED_NOTICE = ("no line of this input looks like log output (no log record, process "
                       "prefix or traceback): is it the right file?")


def explain(source: Source | LogInput, *, signatures: SignatureSet | None = None,
            name: str | None = None, progress: Callable[[int], None] | None = None) -> Report:
    """Explain one log: a path, `-` for stdin, a file object, or an opened LogInput.

    `signatures`: the set to match (`load_signatures(...)`; the shipped ones when None).
    `name`: what the report calls the log (`Report.source`; the path or the file's name when
    None). `progress`, if given, is called with the number of (uncompressed) bytes of each
    block as it is read.

    Raises InputError (a LogsleuthError) only when the input cannot be used at all (a missing
    file, a directory, no permission); everything else that limits the analysis is reported in
    `Report.notices`. Raises TypeError for a source that is none of the above (bytes: wrap
    them in io.BytesIO; log text: `explain_text`).
    """
    return explain_events(source, signatures=signatures, name=name, progress=progress)[0]


def explain_events(source: Source | LogInput, *, signatures: SignatureSet | None = None,
                   name: str | None = None, progress: Callable[[int], None] | None = None,
                   reader: FarReader | None = None, fold_runs: bool = True
                   ) -> tuple[Report, EventsRead]:
    """`explain`, also handing back the events it read (for pictures of the same reading:
    stdin cannot be read twice; they need `fold_runs=False`, read_events). `reader`: the far
    end of this file, already being read (halfread.FarReader, which the command line starts
    before it loads the pipeline)."""
    log = source if isinstance(source, LogInput) else open_input(source, name=name)
    read = read_events(log, progress, reader, fold_runs=fold_runs)
    report = build_report(log.name, read.events, read.stats, read.facts, signatures,
                          read.notices, head=read.head, warning_hint=not read.lines,
                          folded=read.folded)
    return in_file(report, read.lines), read


def in_file(report: Report, lines: FileLines) -> Report:
    """A report built over the lines as read (build_report with `warning_hint` off when
    `lines` renumbers) with its line numbers the file's own (inputorder.py)."""
    if not lines:
        return report
    report = replace(lines.of(report, report.lines_read),
                     lines_read=lines.count(report.lines_read))
    return with_warning_hint(report)  # the hint's line in the fix is the input's too


def pictured(read: EventsRead) -> tuple[list[Event], Inference, dict[str, FactOrigin]]:
    """The events read, what the causal stage concludes from them and where each fact was read,
    with the file's line numbers: what `graph`, `timeline` and explain's HTML pictures draw
    (inferred as `explain` infers, over the lines as read, then mapped as its report is)."""
    inference = CausalGraph.build(read.events, last_line=read.stats.last_line_text,
                                  line_count=read.stats.lines, tail=read.stats.tail_text).infer()
    lines = read.stats.lines
    return ([read.lines.of(event, lines) for event in read.events],
            read.lines.of(inference, lines), read.lines.of(read.facts.origins(), lines))


@dataclass(frozen=True, slots=True)
class EventsRead:
    """read -> tokenize -> assemble over a whole log: its events and what was seen on the way."""

    events: list[Event]  # errors and milestones only: a few per thousand lines
    stats: TokenizeStats
    facts: FactCollector
    notices: tuple[str, ...]
    head: bytes = b""  # the input's first bytes, to tell a log from anything else
    folded: FoldedRuns | None = None  # the runs before `events`, folded as they ended
    # how the lines read lie in the file (newest first, rows joined): every event's line
    # numbers are the lines as read; `lines.of` gives the file's
    lines: FileLines = FileLines()


def read_events(log: LogInput, progress: Callable[[int], None] | None = None,
                reader: FarReader | None = None, *, fold_runs: bool = True) -> EventsRead:
    """Read, tokenize and assemble a log (`explain` and the pictures both start here).
    `fold_runs`: runs that are over are folded into summaries as they end (runfold.py; the
    pictures, which draw every event, read without)."""
    stats = TokenizeStats()
    facts = FactCollector()
    head = bytearray()
    if can_split(log):  # a big plain file: its far end is read by a second process
        lines = facts.watch(tokenize_halves(log, stats, progress, reader))
    else:
        if reader is not None:  # started for a plain log; this one is gzip, an export...
            reader.close()
        blocks = log.blocks() if progress is None else _reporting(log.blocks(), progress)
        lines = facts.watch(tokenize_runs(_keeping_head(blocks, head), stats))
    recurrences = Recurrences(default_causality())
    assembler = Assembler(recurrences=recurrences)
    runs = RunFold(default_causality(), recurrences.counted) if fold_runs else None
    events = assemble_folded(lines, assembler, runs, stats)
    forget_lines()  # the reading is over: its caches would be held through the report's peak
    if not head and log.path is not None:  # the split reader read the file itself
        with open(log.path, "rb") as start:
            head += start.read(HEAD_BYTES)
    folded = runs.finish() if runs is not None else None
    return EventsRead(events, stats, facts, (*log.notices, *assembler.notices()), bytes(head),
                      folded, FileLines(log.last_line_first, log.rows))


def assemble_folded(lines: Iterable[LogLine | LineRun | RecordRun],
                    assembler: Assembler, runs: RunFold | None = None,
                    stats: TokenizeStats | None = None, *, hold: bool = True) -> list[Event]:
    """The events of a line stream, activity folded as it streams (activity.py) and repeated
    record lines replayed (Assembler.feed_run); with `runs`, the runs that are over folded
    (runfold.py: the events are then those of the runs not folded). `hold`: activity lines
    around copies of a request's error held back (holdback.py; the same events)."""
    fold = ActivityFold()  # activity between the same events is kept by its first and last
    if hold:
        held = HoldBack(assembler, fold, runs)
        held.feed(lines)
        held.finish()
    else:
        feed_folded(lines, assembler, fold, runs)
    fold.add(assembler.finish(stats.lines if stats is not None else 0), assembler.pending_from)
    return folded_events(assembler, fold)


def folded_events(assembler: Assembler, fold: ActivityFold) -> list[Event]:
    """The events kept so far, each request error counted with its copies (recur.py)."""
    events = fold.events()
    recurrences = assembler.recurrences
    return recurrences.counted(events) if recurrences is not None else events


def feed_folded(lines: Iterable[LogLine | LineRun | RecordRun], assembler: Assembler,
                fold: ActivityFold, runs: RunFold | None = None) -> None:
    """Feed lines to the assembler and the events it completes to the fold (`--follow` feeds
    each new stretch of a growing log this way); with `runs`, fold the runs that are over."""
    for line in lines:
        feed_item(line, assembler, fold)
        if runs is not None and runs.due(fold):
            runs.fold(fold, assembler)


def _keeping_head(blocks: Iterator[bytes], head: bytearray) -> Iterator[bytes]:
    for block in blocks:
        if len(head) < HEAD_BYTES:
            head += block[:HEAD_BYTES - len(head)]
        yield block


def _reporting(blocks: Iterator[bytes], progress: Callable[[int], None]) -> Iterator[bytes]:
    for block in blocks:
        progress(len(block))
        yield block


def build_report(name: str, events: list[Event], stats: TokenizeStats, facts: FactCollector,
                 signatures: SignatureSet | None, notices: tuple[str, ...] = (), *,
                 head: bytes | None = None, warning_hint: bool = True,
                 folded: FoldedRuns | None = None) -> Report:
    """Infer, match and report over the events of a log read so far. `head`, the input's first
    bytes, is sniffed when nothing was found, to tell a healthy log from something else.
    `warning_hint`: offer the root's hint when only a fallback knows it (hint.py; False: the
    caller does, after mapping the lines back to the input's order). `folded`: the runs
    before `events`, folded as they ended (EventsRead.folded)."""
    inference = _infer(events, stats, folded)
    if inference.verdict is Verdict.NO_FAILURE and head and _no_errors(events):
        lines = _pasted_lines(head, stats.lines)
        first = 1 + max((e.id for e in events if isinstance(e, ErrorEvent)), default=0)
        pasted = bare_errors(lines, first) or stated_errors(lines, first, default_causality())
        if pasted:  # a short paste of vLLM's message, or an error sentence, alone (index/bare.py)
            events = sorted([*events, *pasted], key=lambda event: event.line)
            inference = _infer(events, stats, folded)
    database = signatures if signatures is not None else default_signatures()
    found = facts.result()
    phase = failure_phase(inference, _phase_events(inference, events, folded))
    signature, alternatives = database.best(_targets(inference), found, phase)
    notices = notices + _stats_notices(stats) + database.notices
    recognised = bool(events) or bool(found) or head is None or looks_like_log(head)
    if not recognised:
        notices += (UNRECOGNISED_NOTICE if stats.lines else EMPTY_NOTICE,)
    report = Report(name, inference.verdict, inference.root_cause, inference.symptoms,
                    signature, alternatives, found, notices, inference.reasons,
                    inference.look_for, inference.failed_processes, inference.survived, stats.lines,
                    config_differences=facts.differences(), fact_origins=facts.origins(),
                    phase=phase, recognised=recognised,
                    runs=inference.runs if stats.lines else ())  # an empty input ran nothing
    report = annotate(report)  # where vLLM's source prints each error, and its own advice
    return with_warning_hint(report) if warning_hint else report


def _infer(events: list[Event], stats: TokenizeStats, folded: FoldedRuns | None) -> Inference:
    graph = CausalGraph.build(events, last_line=stats.last_line_text, line_count=stats.lines,
                              tail=stats.tail_text, folded=folded)
    return graph.infer()


def _phase_events(inference: Inference, events: list[Event],
                  folded: FoldedRuns | None) -> list[Event]:
    """The events whose lifecycle lines give the failure's phase as every event would."""
    first = inference.root_cause or (inference.symptoms[0] if inference.symptoms else None)
    if folded is None or first is None:
        return events
    return folded.phase_events(first.line, events)


def _pasted_lines(head: bytes, line_count: int) -> list[LogLine]:
    """Every line of a short input, parsed, or none when the input is longer than a paste or
    the head does not hold all of it."""
    if line_count > PASTE_LINES or head.count(b"\n") + 1 < line_count:
        return []
    return parse_every_line(head)


def _no_errors(events: list[Event]) -> bool:
    # a warning kept in case a later error follows from it (causality.yaml `latent`) is none
    return not any(isinstance(event, ErrorEvent) and not event.latent for event in events)


def explain_text(text: str, *, signatures: SignatureSet | None = None,
                 name: str = "<text>") -> Report:
    """Explain a log given as a string."""
    return explain(input_from_text(text, name=name), signatures=signatures)


def parse(source: Source | str | Path) -> Iterator[Event]:
    """The error events and lifecycle milestones of a log, in log order (by the line each
    starts at). Events are few (a handful per thousand lines), so they are gathered first:
    the assembler completes a traceback only when the line after it arrives. `source` and
    the errors raised are `explain`'s."""
    log = source if isinstance(source, LogInput) else open_input(source)
    stats = TokenizeStats()
    events = list(assemble(tokenize(log.blocks(), stats)))
    lines = FileLines(log.last_line_first, log.rows)  # the file's line numbers
    events = [lines.of(event, stats.lines) for event in events]
    return iter(sorted(events, key=_starting_line))


def _starting_line(event: Event) -> tuple[int, int]:
    return (event.first_line if isinstance(event, ErrorEvent) else event.line, event.line)


def _targets(inference: Inference) -> list[Target]:
    targets = [Target(inference.root_cause, ROOT_WEIGHT, "root_cause")] \
        if inference.root_cause is not None else []
    # a copy of the root printed elsewhere may show what this one does not (frames, the title
    # `while processing method load_model`): it is the same error, matched at full weight
    targets += [Target(event, ROOT_WEIGHT, "root_cause") for event in inference.copies]
    targets += [Target(event, CHAIN_WEIGHT, "chain") for event in inference.chain]
    chained = {event.id for event in inference.chain}
    weight = SYMPTOM_WEIGHT if inference.root_cause is None else SYMPTOM_WEIGHT_BESIDE_ROOT
    # a process's report that it exited (a level-only record, the shell's `Killed` of vLLM's own
    # kill) says nothing of why: it is no fix's evidence
    exits = {link.effect for link in inference.links if link.reason is LinkReason.EXIT_REPORT}
    targets += [Target(event, weight, "symptom") for event in inference.symptoms
                if event.id not in chained and event.id not in exits]
    return _distinct(targets)


def _distinct(targets: list[Target]) -> list[Target]:
    """One target per distinct failure: a thousand copies of one error (a crash loop, a request
    error repeated all day) are scored once, not a thousand times. The first copy stands for the
    others, as it would win a tie among them."""
    seen: set[object] = set()
    out: list[Target] = []
    for target in targets:
        event = target.event
        key = (target.kind, target.weight, fingerprint(event), event.title, event.process.name,
               tuple((f.file, f.function, f.code) for f in event.frames))
        if key not in seen:
            seen.add(key)
            out.append(target)
    return out


def _stats_notices(stats: TokenizeStats) -> tuple[str, ...]:
    if stats.undecodable:
        return (f"{stats.undecodable:,} line(s) held bytes that are not UTF-8; they were read "
                "with replacement characters",)
    return ()
