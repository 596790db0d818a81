"""One log, in a worker: explain it into the JSON contract; and that JSON, back into a Case.

A worker hands back the serialised report (`render.json.report_to_dict`), the same text the
cache stores, and `case_from` builds every Case from that text: a case read now, one taken from
the cache and one explained on another Ray node are therefore built the same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from logsleuth.errors import InputError
from logsleuth.model import Verdict
from logsleuth.triage.model import (Case, Cause, CauseSource, Explained, FileId, GroupKind,
                                    SignatureRef, Status)

if TYPE_CHECKING:
    from logsleuth.signatures import SignatureSet

MAX_FINGERPRINT_CHARS = 300  # a masked message longer than this is one fingerprint anyway


@cache
def _signatures(directories: tuple[str, ...]) -> SignatureSet:
    """The signature database of this worker process, loaded on its first log."""
    from logsleuth.signatures import default_signatures, load_signatures

    return load_signatures(*directories) if directories else default_signatures()


def explain_path(path: str, signature_dirs: tuple[str, ...] = ()) -> Explained:
    """Explain one file. Never raises: an unusable input and a crash are outcomes too."""
    from logsleuth.pipeline import explain
    from logsleuth.render.json import report_to_dict

    try:
        report = explain(path, signatures=_signatures(signature_dirs))
        return Explained(path, Status.REPORTED, json.dumps(report_to_dict(report),
                                                           ensure_ascii=False))
    except InputError as exc:
        return Explained(path, Status.UNREADABLE, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - one broken log must not stop the run
        return Explained(path, Status.CRASHED, error=f"{type(exc).__name__}: {exc}")


def explain_paths(paths: Sequence[str], signature_dirs: tuple[str, ...] = ()) -> list[Explained]:
    """Explain several files one after the other (a Ray task's share)."""
    return [explain_path(path, signature_dirs) for path in paths]


NOT_A_LOG = "no line looks like log output (empty, prose, binary): is it the right file?"


def case_from(explained: Explained, file: FileId | None, *, from_cache: bool = False) -> Case:
    """The Case of one explained path."""
    from logsleuth.signatures.template import mask

    if explained.status is not Status.REPORTED or explained.report_json is None:
        error = explained.error or "no report"
        kind = GroupKind.CRASHED if explained.status is Status.CRASHED else GroupKind.UNREADABLE
        masked = mask(error.replace(explained.path, "<file>"))[:MAX_FINGERPRINT_CHARS]
        return Case(explained.path, explained.status, f"{kind.value}:{masked}", kind, file,
                    error=error, from_cache=from_cache)
    report: dict[str, Any] = json.loads(explained.report_json)
    verdict = Verdict(report["verdict"])
    signature = report.get("signature")
    ref = SignatureRef(signature["id"], signature["title"], float(signature["score"])) \
        if signature else None
    cause = _cause(report)
    # a class's last resort or a message's own remedy names no failure: such cases group by
    # their message, as those no signature knows, or one fallback would hold every failure
    by_signature = (signature or {}).get("kind") not in ("fallback", "message")
    if ref is not None and by_signature:
        kind, fingerprint = GroupKind.SIGNATURE, f"signature:{ref.id}"
    elif verdict is Verdict.NO_FAILURE:
        # an empty file or one with no line of log output (explain's exit 3) is no healthy log
        kind, fingerprint = GroupKind.NO_FAILURE, "no_failure" if report.get(
            "recognised", True) else f"no_failure:{NOT_A_LOG}"
    else:
        kind, fingerprint = GroupKind.UNMATCHED, f"unmatched:{_template_text(report, cause)}"
    return Case(explained.path, Status.REPORTED, fingerprint, kind, file, verdict, ref, cause,
                notices=len(report.get("notices", ())),
                lines_read=int(report.get("lines_read", 0)),
                recognised=bool(report.get("recognised", True)), from_cache=from_cache)


def masked_text(cause: Cause | None) -> str:
    """`Exception: masked message`, what a new signature's `exception` and template start from."""
    from logsleuth.signatures.template import mask

    if cause is None:
        return "(no error printed)"
    text = f"{cause.exception}: {mask(cause.message)}" if cause.message else cause.exception
    return text[:MAX_FINGERPRINT_CHARS]


def _template_text(report: dict[str, Any], cause: Cause | None) -> str:
    """`Exception: template` when vLLM's source says which parts vary (the index's template),
    else the masked message: the same failure with other values is one group either way."""
    event = report.get("root_cause") or next(iter(report.get("symptoms") or ()), None)
    origin = event.get("origin") if event else None
    if cause is None or not origin:
        return masked_text(cause)
    return f"{cause.exception}: {origin['template']}"[:MAX_FINGERPRINT_CHARS]


def _cause(report: dict[str, Any]) -> Cause | None:
    event = report.get("root_cause")
    source = CauseSource.ROOT_CAUSE
    if event is None and report.get("symptoms"):
        event, source = report["symptoms"][0], CauseSource.SYMPTOM
    if event is None:
        return None
    return Cause(event["exception"], event.get("message") or "", event["process"]["name"],
                 int(event["line"]), source, event.get("time"))


def signature_dirs_of(directories: Sequence[str | Path]) -> tuple[str, ...]:
    """Absolute signature directories, so that a worker elsewhere finds the same ones."""
    return tuple(str(Path(d).absolute()) for d in directories)
