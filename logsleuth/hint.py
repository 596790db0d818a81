"""A remedy a warning states right before the root cause, in the same process.

A library or vLLM often warns before it fails ("Cannot use FlashAttention-2 backend ... please
set VLLM_ATTENTION_BACKEND=XFORMERS", "... consider installing flash-attn"): the warning holds
the remedy the error's own message lacks. The assembler keeps, per process, the last warnings
that state a remedy (signatures/remedy.yaml; `not_hint`: deprecations and performance notes
advise about something else) as the lines stream by (`WarningHints`), and gives an error the
nearest one in the HINT_LINES lines before its first line (`ErrorEvent.hint`). Such warnings
reach the assembler because anchors.lark's lines are joined by the remedy phrasing of warning
lines (locate.py). When nothing but a fallback knows the root cause and its message states no
remedy, the hint is added to the fallback's fix and becomes the report's `advice`
(`with_warning_hint`). The log is never read again: a file, stdin, a gzip or a followed log
give the same report.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from logsleuth.index.advice import settings_named
from logsleuth.index.data import default_index
from logsleuth.model import (ErrorEvent, Hint, Level, LineKind, LogLine, MessageAdvice, Process,
                             Report, SignatureKind)
from logsleuth.remedy import default_phrasing

HINT_LINES = 8  # how many lines before the root cause's first line a warning may stand
# warnings kept per process: an error is made only once the lines after its start are read, and
# a warning printed meanwhile must not push out the one before it (more than this many remedy
# warnings of one process inside one error's lines is not seen in logs)
_KEPT = 16
_MEMO = 4096  # distinct warning texts whose remedy is remembered (repeated warnings recur)


class WarningHints:
    """Per process, the last warning lines that state a remedy (as the assembler reads them)."""

    def __init__(self) -> None:
        # a tuple, not a deque: most processes state one or two remedies, and a deque's block
        # (~600 bytes) for each process of every run of a restart-heavy log grew with the log
        self._recent: dict[Process, tuple[Hint, ...]] = {}
        self._remedies: dict[str, str | None] = {}

    def see(self, line: LogLine) -> None:
        remedy = self.remedy(line)
        if remedy is None:
            return
        recent = self._recent.get(line.process, ())
        self._recent[line.process] = (*recent[1 - _KEPT:], Hint(line.number, remedy))

    def forget(self, gone: set[tuple[str, int]]) -> None:
        """Forget processes (name, pid) that print no more (Assembler.forget)."""
        self._recent = {p: hints for p, hints in self._recent.items()
                        if (p.name, p.pid) not in gone}

    def remedy(self, line: LogLine) -> str | None:
        """The remedy a warning line states (None: not a warning, or none stated)."""
        if line.level is not Level.WARNING and line.kind is not LineKind.PY_WARNING:
            return None
        text = line.text
        if text in self._remedies:
            return self._remedies[text]
        if len(self._remedies) >= _MEMO:
            self._remedies.clear()
        found = self._remedies[text] = default_phrasing().hint_of(text)
        return found

    def any_in(self, lines: Iterable[LogLine]) -> bool:
        """Whether any of these lines is a warning that states a remedy (a run of them is not
        replayed: assemble.py)."""
        return any(self.remedy(line) is not None for line in lines)

    def hinted(self, event: ErrorEvent) -> ErrorEvent:
        """The event with the nearest remedy warning of its process in the HINT_LINES lines
        before its first line, if there is one."""
        recent = self._recent.get(event.process)
        if not recent or event.hint is not None:
            return event
        for hint in reversed(recent):
            if hint.line < event.first_line:
                if hint.line < event.first_line - HINT_LINES:
                    return event
                return replace(event, hint=hint)
        return event


def with_warning_hint(report: Report) -> Report:
    """The report with the remedy of a warning right before its root cause, when only a
    fallback matched and the root's own message states none."""
    root, match = report.root_cause, report.signature
    if root is None or root.hint is None or match is None \
            or match.kind is not SignatureKind.FALLBACK:
        return report
    if report.advice is not None and report.advice.event_line == root.line:
        return report  # the error's own message states its remedy
    hint = root.hint
    fix = f"{match.fix.rstrip()}\n\nA warning the same process printed right before the error " \
          f"(line {hint.line}) advises: {hint.remedy}\n"
    advice = report.advice or MessageAdvice(hint.remedy, hint.line, None,
                                            settings_named(hint.remedy, default_index()))
    return replace(report, signature=replace(match, fix=fix), advice=advice)
