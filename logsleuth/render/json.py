"""The JSON report contract, `logsleuth.report/1` (shared/REPORT_SCHEMA.md).

Fields may be added, never renamed or dropped.
"""

from __future__ import annotations

import json
from typing import Any

from logsleuth.model import (ConfigDifference, ErrorEvent, Match, MessageAdvice, Origin,
                             PhaseEvidence, Process, ReleaseEvidence, Report, Run,
                             SignatureKind)

SCHEMA = "logsleuth.report/1"
MAX_FRAMES = 12  # innermost frames kept in the JSON; enough to say where it failed


def _process(process: Process) -> dict[str, Any]:
    out: dict[str, Any] = {"name": process.name, "pid": process.pid}
    if process.ip:
        out["ip"] = process.ip
    return out


def event_to_dict(event: ErrorEvent, origin: Origin | None = None) -> dict[str, Any]:
    """One error in the contract's shape; `origin` when vLLM's source is known to print it."""
    out: dict[str, Any] = {
        "exception": event.exception,
        "message": event.message,
        "process": _process(event.process),
        "line": event.line,
        "first_line": event.first_line,
        "last_line": event.last_line,
        "frames": [{"file": f.file, "line": f.line, "function": f.function}
                   for f in event.frames[-MAX_FRAMES:]],
        "kind": event.kind.value,
        "time": event.time,
        "title": event.title,
    }
    if origin is not None:
        out["origin"] = origin_to_dict(origin)
    return out


def origin_to_dict(origin: Origin) -> dict[str, Any]:
    """Where vLLM prints a message: the best site flat, every site listed."""
    sites = [{"module": s.module, "function": s.function, "exception": s.exception,
              "kind": s.kind, "releases": list(s.releases), "span": s.span}
             for s in origin.sites]
    return {"template": origin.template, **sites[0], "change": origin.change, "sites": sites,
            "package": origin.package}


def advice_to_dict(advice: MessageAdvice) -> dict[str, Any]:
    """Advice of kind `message`: the remedy the message states, its settings as flags/vars."""
    return {"kind": SignatureKind.MESSAGE.value, "text": advice.text, "line": advice.event_line,
            "release": advice.release,
            "names": [{"name": n.name, "flag": n.flag, "env": n.env, "default": n.default}
                      for n in advice.names]}


def _match(match: Match, full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": match.id, "title": match.title, "score": match.score,
                           "kind": match.kind.value, "confidence": match.confidence.value}
    if full:
        out.update({
            "fix": match.fix,
            "references": list(match.references),
            "matched_on": match.target,
            "evidence": [{"part": e.part, "score": e.score, "detail": e.detail}
                         for e in match.evidence],
        })
    return out


def report_to_dict(report: Report) -> dict[str, Any]:
    """The report as plain data, ready for json.dumps."""
    return {
        "schema": SCHEMA,
        "source": report.source,
        "verdict": report.verdict.value,
        "root_cause": event_to_dict(report.root_cause, report.origins.get(report.root_cause.id))
        if report.root_cause else None,
        "symptoms": [event_to_dict(e, report.origins.get(e.id)) for e in report.symptoms],
        "signature": _match(report.signature, True) if report.signature else None,
        "alternatives": [_match(m, False) for m in report.alternatives],
        "facts": dict(report.facts),
        "notices": list(report.notices),
        "reasons": list(report.reasons),
        "look_for": list(report.look_for),
        "failed_processes": [_process(p) for p in report.failed_processes],
        "lines_read": report.lines_read,
        "recognised": report.recognised,
        "config_differences": [_difference(d) for d in report.config_differences],
        "fact_origins": {name: {"line": origin.line, "process": _process(origin.process)}
                         for name, origin in report.fact_origins.items()},
        "runs": [_run(run) for run in report.runs],
        "phase": _phase(report.phase) if report.phase else None,
        "advice": advice_to_dict(report.advice) if report.advice else None,
        "upgrade": upgrade_to_dict(report.upgrade) if report.upgrade else None,
    }


def upgrade_to_dict(evidence: ReleaseEvidence) -> dict[str, Any]:
    """Release evidence: the release whose source no longer raises the root cause's message."""
    return {"release": evidence.release, "last_release": evidence.last_release,
            "log_version": evidence.log_version, "site": evidence.site,
            "line": evidence.event_line, "evidence": evidence.evidence,
            "command": evidence.command, "package": evidence.package}


def _phase(phase: PhaseEvidence) -> dict[str, Any]:
    return {"name": phase.phase.value, "source": phase.source, "detail": phase.detail,
            "line": phase.line}


def _run(run: Run) -> dict[str, Any]:
    return {"start_line": run.start_line, "end_line": run.end_line, "start_time": run.start_time,
            "verdict": run.verdict.value, "exception": run.exception, "message": run.message,
            "line": run.line, "fingerprint": run.fingerprint, "same_failure": run.same_failure,
            "first_time": run.first_time, "last_time": run.last_time,
            "explained": run.explained}


def _difference(difference: ConfigDifference) -> dict[str, Any]:
    return {"name": difference.name, "requested": difference.requested,
            "effective": difference.effective, "requested_line": difference.requested_line,
            "effective_line": difference.effective_line}


JOINED_CHUNKS = 4_096  # the encoder's pieces joined this many at a time (to_json)


def to_json(report: Report, *, indent: int | None = 2) -> str:
    """The report as JSON text, the `logsleuth.report/1` contract (REPORT_SCHEMA.md).

    Indented JSON is encoded by `json`'s Python encoder, which `json.dumps` lets yield every
    key, comma and value as a string of its own and keeps them all in one list before joining:
    ~40 small strings a run, several MB for a log of thousands of restarts (each one row of
    `runs`), more than the text. They are joined a few thousand at a time instead (the same
    text as `json.dumps`: tests/test_json_render.py)."""
    if indent is None:  # json's C encoder, which joins as it goes
        return json.dumps(report_to_dict(report), ensure_ascii=False)
    encoder = json.JSONEncoder(indent=indent, ensure_ascii=False)
    pieces: list[str] = []
    batch: list[str] = []
    for chunk in encoder.iterencode(report_to_dict(report)):
        batch.append(chunk)
        if len(batch) >= JOINED_CHUNKS:
            pieces.append("".join(batch))
            batch.clear()
    pieces.append("".join(batch))
    return "".join(pieces)
