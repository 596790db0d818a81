"""A remedy a warning states right before the root cause, in the same process.

A library or vLLM often warns before it fails ("Cannot use FlashAttention-2 backend ... please
set VLLM_ATTENTION_BACKEND=XFORMERS", "... consider installing flash-attn"): the warning holds
the remedy the error's own message lacks. The assembler keeps no warnings but the `latent` ones of
causality.yaml, so the few lines before the root cause are read again from the file, only when
nothing but a fallback knows the failure, and the nearest warning of the same process that
states a remedy (signatures/remedy.yaml; `not_hint`: deprecations and performance notes advise
about something else) is added to the fallback's fix and, when the root's message stated none,
becomes the report's `advice`.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import islice
from pathlib import Path

from logsleuth.index.advice import settings_named
from logsleuth.index.data import default_index
from logsleuth.model import Level, LineKind, LogLine, MessageAdvice, Report, SignatureKind
from logsleuth.remedy import default_phrasing
from logsleuth.tokenize.scan import Tokenizer

HINT_LINES = 8  # how many lines before the root cause's first line a warning may stand


def with_warning_hint(report: Report, path: Path | None) -> Report:
    """The report with the remedy of a warning right before its root cause, when only a
    fallback matched and the root's own message states none. `path` is the log as a plain file
    (LogInput.path), the only input that can be read again."""
    root, match = report.root_cause, report.signature
    if root is None or path is None or match is None or match.kind is not SignatureKind.FALLBACK:
        return report
    if report.advice is not None and report.advice.event_line == root.line:
        return report  # the error's own message states its remedy
    found = _nearest_hint(_lines_before(path, root.first_line), root.process)
    if found is None:
        return report
    line, remedy = found
    fix = f"{match.fix.rstrip()}\n\nA warning the same process printed right before the error " \
          f"(line {line.number}) advises: {remedy}\n"
    advice = report.advice or MessageAdvice(remedy, line.number, None,
                                            settings_named(remedy, default_index()))
    return replace(report, signature=replace(match, fix=fix), advice=advice)


def _lines_before(path: Path, first_line: int) -> list[LogLine]:
    """The HINT_LINES lines before `first_line`, parsed (numbered as the tokenizer numbers)."""
    start = max(1, first_line - HINT_LINES)
    tokenizer = Tokenizer()
    try:
        with open(path, "rb") as file:
            raws = list(islice(file, start - 1, first_line - 1))
    except OSError:
        return []
    return [tokenizer.parse(start + i, raw.rstrip(b"\r\n"), learn=False)
            for i, raw in enumerate(raws) if raw.strip()]


def _nearest_hint(lines: list[LogLine], process: object) -> tuple[LogLine, str] | None:
    phrasing = default_phrasing()
    for line in reversed(lines):
        if line.process != process or not (line.level is Level.WARNING
                                           or line.kind is LineKind.PY_WARNING):
            continue
        remedy = phrasing.hint_of(line.text)
        if remedy is not None:
            return line, remedy
    return None
