"""Advice when the cause is not in the log: the same failure cut at different points.

A log excerpt (a `tail`, a pasted screen) often keeps only the symptoms: `Engine core
initialization failed. See root cause above`, `EngineDeadError`. Each failure of the family tests
is drawn as a whole log and then cut: its last lines only, or its worker traceback removed. Advice
is still given, matched on the symptoms, with low confidence, and fitted to the phase the
remaining lifecycle lines show; a log that still holds its root cause never gets symptom advice.
"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Confidence, Phase, Report, SignatureKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.render.text import render_text
from logsleuth.signatures import default_signatures
from test_families import FAILURES
from v1log import ERAS, worker_failure

CASES = [(name, error, phase) for name, error, phases, _ in FAILURES for phase in phases]
STARTUP = [case for case in CASES if case[2] in (Phase.INIT, Phase.LOAD)]


def _log(error: str, phase: Phase, era_index: int, rank: int) -> list[str]:
    text = worker_failure(error.format(rank=rank), phase=phase, era=ERAS[era_index], rank=rank)
    return text.splitlines()


def _text(report: Report) -> str:
    buffer = io.StringIO()
    render_text(report, Console(file=buffer, width=200, no_color=True))
    return buffer.getvalue()


def _explain(lines: list[str]):  # type: ignore[no-untyped-def]
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@pytest.mark.parametrize("name,error,phase", CASES, ids=[f"{c[0]}-{c[2].value}" for c in CASES])
@settings(max_examples=6, deadline=None)
@given(era=st.sampled_from(range(len(ERAS))), rank=st.integers(0, 7), data=st.data())
def test_a_log_cut_anywhere_after_its_cause_still_gets_advice(
        name: str, error: str, phase: Phase, era: int, rank: int, data: st.DataObject) -> None:
    lines = _log(error, phase, era, rank)
    whole = _explain(lines)
    assert whole.signature is not None and whole.signature.confidence is Confidence.HIGH
    # the symptoms are the last few lines: keep the last k of them
    keep = data.draw(st.integers(1, 6), label="last lines kept")
    report = _explain(lines[-keep:])
    assert report.verdict in (Verdict.FAILURE, Verdict.ROOT_CAUSE_MISSING)
    assert report.signature is not None, f"{name}: no advice for its last {keep} lines"
    if report.verdict is Verdict.ROOT_CAUSE_MISSING:
        assert report.signature.confidence is Confidence.LOW
        assert report.signature.kind is SignatureKind.FAMILY
    else:  # a wrapper quoting the cause is the earliest place it shows: advice for the cause
        assert report.signature.confidence is Confidence.HIGH


@pytest.mark.parametrize("name,error,phase", STARTUP,
                         ids=[f"{c[0]}-{c[2].value}" for c in STARTUP])
@settings(max_examples=4, deadline=None)
@given(era=st.sampled_from([0, 1]), rank=st.integers(0, 7))
def test_symptom_advice_fits_the_phase_the_lifecycle_lines_show(
        name: str, error: str, phase: Phase, era: int, rank: int) -> None:
    lines = _log(error, phase, era, rank)
    # the worker's own records (lifecycle and traceback) gone; the engine's lines kept
    worker = lines[0].split(")", 1)[0]
    cut = [line for line in lines if not line.startswith(worker) or " INFO " in line]
    report = _explain(cut)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, name
    assert report.phase is not None and report.phase.phase is phase
    assert report.signature is not None and report.signature.confidence is Confidence.LOW
    phases = [e for e in report.signature.evidence if e.part == "phase"]
    assert phases and phases[0].score == 1.0, f"{report.signature.id} ignores the phase"


@pytest.mark.parametrize("name,error,phase", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_a_log_holding_its_root_cause_never_gets_symptom_advice(
        name: str, error: str, phase: Phase) -> None:
    report = _explain(_log(error, phase, 0, 1))
    assert report.verdict is Verdict.FAILURE
    assert report.signature is not None and report.signature.target != "symptom"
    assert "Low confidence" not in _text(report)


def test_the_reports_say_when_advice_comes_from_symptoms_only() -> None:
    lines = _log(FAILURES[0][1], Phase.SERVING, 0, 1)
    report = _explain(lines[-2:])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING and report.signature is not None
    data = json.loads(json.dumps(report_to_dict(report)))
    assert data["signature"]["confidence"] == "low"
    assert data["signature"]["matched_on"] == "symptom"
    assert "Low confidence: matched on the symptoms only" in _text(report)


@pytest.mark.parametrize("name,error,phase", CASES[1::3], ids=[c[0] for c in CASES[1::3]])
@pytest.mark.parametrize("pointer", ["WorkerProc failed to start.",
                                     "EngineCore encountered a fatal error."])
def test_a_pointer_interleaved_into_the_cause_does_not_change_its_advice(
        name: str, error: str, phase: Phase, pointer: str) -> None:
    # two processes writing at once: another process's pointer lands inside the cause's message
    # (shared corpus: nccl-dev-shm-exhausted-dp16); the advice is still the cause's
    plain = _explain(_log(error, phase, 0, 1))
    mixed = _explain(_log(f"{error}\n{pointer}", phase, 0, 1))
    assert plain.signature is not None and mixed.signature is not None
    assert mixed.signature.id == plain.signature.id, name


@settings(max_examples=10, deadline=None)
@given(method=st.sampled_from([("GPTQMarlinLinearMethod", "gptq_marlin"),
                               ("AWQMarlinLinearMethod", "awq_marlin"),
                               ("Fp8LinearMethod", "fp8"),
                               ("CompressedTensorsW4A8Fp8", "compressed-tensors")]),
       kernel=st.sampled_from(["MarlinLinearKernel", "MacheteLinearKernel",
                               "CutlassFP8ScaledMMLinearKernel"]),
       era=st.sampled_from([0, 1]), rank=st.integers(0, 7))
def test_symptom_advice_uses_the_quantization_the_log_shows(
        method: tuple[str, str], kernel: str, era: int, rank: int) -> None:
    lines = _log("KeyError: 'model.layers.3.mlp.gate.g_idx'", Phase.LOAD, era, rank)
    worker = lines[0].split(")", 1)[0]
    cut = [line for line in lines if not line.startswith(worker) or " INFO " in line]
    engine = ERAS[era].engine
    cut.insert(1, f"{engine}INFO 02-05 10:11:01 [quantization.py:269] Using {kernel} for "
                  f"{method[0]}")
    report = _explain(cut)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert report.facts.get("quantization") == method[1]
    assert report.signature is not None and report.signature.confidence is Confidence.LOW
    facts = [e for e in report.signature.evidence if e.part == "facts"]
    assert facts and facts[0].score == 1.0, f"{report.signature.id} ignores the quantization"
