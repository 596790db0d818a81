"""Orchestration only: read -> tokenize -> assemble -> infer -> match -> report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from logsleuth.assemble import Assembler, assemble
from logsleuth.causal import CausalGraph
from logsleuth.facts import FactCollector
from logsleuth.index import annotate
from logsleuth.model import Event, Inference, Report
from logsleuth.read import LogInput, Source, input_from_text, open_input
from logsleuth.signatures import SignatureSet, Target, default_signatures
from logsleuth.signatures.match import (CHAIN_WEIGHT, ROOT_WEIGHT, SYMPTOM_WEIGHT,
                                        SYMPTOM_WEIGHT_BESIDE_ROOT)
from logsleuth.tokenize import TokenizeStats, tokenize
from logsleuth.tokenize.halves import can_split, tokenize_halves


def explain(source: Source | LogInput, *, signatures: SignatureSet | None = None,
            name: str | None = None, progress: Callable[[int], None] | None = None) -> Report:
    """Explain one log: a path, `-` for stdin, a file object, or an opened LogInput.

    Raises InputError only when the input cannot be used at all; everything else that limits
    the analysis is reported in `Report.notices`. `progress`, if given, is called with the
    number of (uncompressed) bytes of each block as it is read.
    """
    log = source if isinstance(source, LogInput) else open_input(source, name=name)
    read = read_events(log, progress)
    return build_report(log.name, read.events, read.stats, read.facts, signatures, read.notices)


@dataclass(frozen=True, slots=True)
class EventsRead:
    """read -> tokenize -> assemble over a whole log: its events and what was seen on the way."""

    events: list[Event]  # errors and milestones only: a few per thousand lines
    stats: TokenizeStats
    facts: FactCollector
    notices: tuple[str, ...]


def read_events(log: LogInput, progress: Callable[[int], None] | None = None) -> EventsRead:
    """Read, tokenize and assemble a log (`explain` and the pictures both start here)."""
    stats = TokenizeStats()
    facts = FactCollector()
    if can_split(log):  # a big plain file: its second half is read by a second process
        lines = facts.watch(tokenize_halves(log, stats, progress))
    else:
        blocks = log.blocks() if progress is None else _reporting(log.blocks(), progress)
        lines = facts.watch(tokenize(blocks, stats))
    assembler = Assembler()
    events: list[Event] = [e for line in lines for e in assembler.feed(line)]
    events += assembler.finish()
    return EventsRead(events, stats, facts, (*log.notices, *assembler.notices()))


def _reporting(blocks: Iterator[bytes], progress: Callable[[int], None]) -> Iterator[bytes]:
    for block in blocks:
        progress(len(block))
        yield block


def build_report(name: str, events: list[Event], stats: TokenizeStats, facts: FactCollector,
                 signatures: SignatureSet | None, notices: tuple[str, ...] = ()) -> Report:
    """Infer, match and report over the events of a log read so far."""
    graph = CausalGraph.build(events, last_line=stats.last_line_text, line_count=stats.lines)
    inference = graph.infer()
    database = signatures if signatures is not None else default_signatures()
    found = facts.result()
    signature, alternatives = database.best(_targets(inference), found)
    notices = notices + _stats_notices(stats) + database.notices
    report = Report(name, inference.verdict, inference.root_cause, inference.symptoms,
                    signature, alternatives, found, notices, inference.reasons,
                    inference.look_for, inference.failed_processes, inference.survived,
                    stats.lines, config_differences=facts.differences(),
                    fact_origins=facts.origins())
    return annotate(report)  # where vLLM's source prints each error, and its own advice


def explain_text(text: str, *, signatures: SignatureSet | None = None,
                 name: str = "<text>") -> Report:
    """Explain a log given as a string."""
    return explain(input_from_text(text, name=name), signatures=signatures)


def parse(source: Source | str | Path) -> Iterator[Event]:
    """The error events and lifecycle milestones of a log, as the assembler completes them."""
    log = source if isinstance(source, LogInput) else open_input(source)
    return assemble(tokenize(log.blocks()))


def _targets(inference: Inference) -> list[Target]:
    targets = [Target(inference.root_cause, ROOT_WEIGHT, "root_cause")] \
        if inference.root_cause is not None else []
    # a copy of the root printed elsewhere may show what this one does not (frames, the title
    # `while processing method load_model`): it is the same error, matched at full weight
    targets += [Target(event, ROOT_WEIGHT, "root_cause") for event in inference.copies]
    targets += [Target(event, CHAIN_WEIGHT, "chain") for event in inference.chain]
    chained = {event.id for event in inference.chain}
    weight = SYMPTOM_WEIGHT if inference.root_cause is None else SYMPTOM_WEIGHT_BESIDE_ROOT
    targets += [Target(event, weight, "symptom") for event in inference.symptoms
                if event.id not in chained]
    return targets


def _stats_notices(stats: TokenizeStats) -> tuple[str, ...]:
    if stats.undecodable:
        return (f"{stats.undecodable:,} line(s) held bytes that are not UTF-8; they were read "
                "with replacement characters",)
    return ()
