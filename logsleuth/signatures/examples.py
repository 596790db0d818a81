"""Run every signature's example logs: positives must match their signature best, negatives not.

This is the one test a contributed signature needs (semgrep-rules' and Sigma's way): the meta-test
in tests/ and `logsleuth signatures test` both call `run_examples`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from logsleuth.errors import LogsleuthError
from logsleuth.signatures import SignatureSet, load_signatures, shipped_directory
from logsleuth.signatures.load import (NOT_SIGNATURES, Signature, load_signature_file,
                                       signature_files)


@dataclass(frozen=True, slots=True)
class ExampleResult:
    """What one example log gave."""

    signature: str
    example: Path
    positive: bool
    passed: bool
    best: str | None  # the best match's id
    score: float
    where: str  # where the matched error is: `ValueError at line 12 (Worker_TP0)`
    own_score: float  # this signature's own score on the example (0 when it did not match)

    def format(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        kind = "positive" if self.positive else "negative"
        if self.best is None:
            got = "no signature matched"
        else:
            got = f"best match {self.best} ({self.score:.2f})"
        own = f"; {self.signature} scored {self.own_score:.2f}" if self.best != self.signature \
            else ""
        return f"{verdict} {self.example}: {kind} example of {self.signature}: {got}{own}; " \
               f"{self.where}"


def selected_signatures(paths: list[Path], database: SignatureSet) -> list[Signature]:
    """The signatures named by paths (files or directories); all of them when none is given."""
    if not paths:
        return list(database)
    chosen: list[Signature] = []
    for path in paths:
        files = [path] if path.is_file() else (signature_files(path)
                                                or sorted(path.glob("*.yaml")))
        for file in files:
            if file.suffix == ".yaml" and file.name not in NOT_SIGNATURES:
                chosen.append(load_signature_file(file))
    return chosen


def database_for(paths: list[Path]) -> SignatureSet:
    """The shipped signatures plus any directory given that is not inside the shipped set."""
    shipped = shipped_directory().resolve()
    extra = {p.resolve() if p.is_dir() else p.resolve().parent.parent for p in paths}
    extra = {d for d in extra if not str(d).startswith(str(shipped))}
    return load_signatures(*sorted(extra))


def run_examples(paths: list[Path], database: SignatureSet | None = None) -> list[ExampleResult]:
    """Explain every example log of the selected signatures against the whole database."""
    from logsleuth.pipeline import explain  # the pipeline is only needed when examples run

    database = database if database is not None else database_for(paths)
    results: list[ExampleResult] = []
    for signature in selected_signatures(paths, database):
        examples = signature.examples()
        for example, positive in examples:
            try:
                report = explain(example, signatures=database)
            except LogsleuthError as exc:
                results.append(ExampleResult(signature.id, example, positive, False, None, 0.0,
                                             f"could not be read: {exc}", 0.0))
                continue
            best = report.signature
            ranked = ([report.signature] if report.signature else []) + list(report.alternatives)
            own = next((m.score for m in ranked if m.id == signature.id), 0.0)
            event = report.root_cause or (report.symptoms[0] if report.symptoms else None)
            where = (f"{event.exception} at line {event.line} ({event.process.name})"
                     if event else f"verdict {report.verdict.value}, no error found")
            passed = (best is not None and best.id == signature.id) if positive else \
                (best is None or best.id != signature.id)
            results.append(ExampleResult(signature.id, example, positive, passed,
                                         best.id if best else None,
                                         best.score if best else 0.0, where, own))
    return results
