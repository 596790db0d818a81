"""What vLLM's own source says about a message: origin, releases, and the message's own advice.

The data is mined from every vLLM release by `tools/vllm_index/` and shipped as
`vllm_index.json.gz`; it is read on first use, never at import.
"""

from __future__ import annotations

from dataclasses import replace

from logsleuth.fingerprint import fingerprint
from logsleuth.index.advice import advice_for, settings_named
from logsleuth.index.data import VllmIndex, default_index
from logsleuth.index.origin import default_matcher, frame_sites, origin_of
from logsleuth.model import ErrorEvent, Match, MessageAdvice, Origin, Report, SignatureKind

__all__ = ["VllmIndex", "default_index", "annotate", "origins_of", "release_after"]


def release_after(release: str) -> str | None:
    """The indexed release that follows `release`, or None for the newest."""
    releases = default_index().releases
    position = releases.index(release) if release in releases else len(releases)
    return releases[position + 1] if position + 1 < len(releases) else None


def origins_of(events: list[ErrorEvent], version: str | None,
               copies: list[ErrorEvent] | None = None) -> dict[int, Origin]:
    """Event id -> origin, for every event whose message a vLLM release prints.

    Each distinct (exception, message, vLLM frames) is looked up once: the lookup tries every
    template filed under a word of the message (milliseconds), and a crash loop or a day of
    rejected requests repeats one error thousands of times. `copies` (the errors the server
    survived, which no renderer shows with an origin) are looked up once per failure: a copy
    with the fingerprint and frames of one already looked up shares its origin.
    """
    matcher = default_matcher()
    out: dict[int, Origin] = {}
    exact: dict[object, Origin | None] = {}
    for event in events:
        key = (event.exception, event.message, frame_sites(event))
        if key not in exact:
            exact[key] = origin_of(event, matcher, version)
        origin = exact[key]
        if origin is not None:
            out[event.id] = origin
    by_failure: dict[object, Origin | None] = {}
    for event in copies or ():
        if event.id in out:
            continue
        failure = (fingerprint(event), frame_sites(event))
        if failure not in by_failure:
            by_failure[failure] = origin_of(event, matcher, version)
        origin = by_failure[failure]
        if origin is not None:
            out[event.id] = origin
    return out


def annotate(report: Report) -> Report:
    """The report with origins for its errors and, when no exact signature matched, the
    message's own advice."""
    version = report.facts.get("vllm_version")
    version = version if isinstance(version, str) else None
    events = [e for e in (report.root_cause, *report.symptoms) if e is not None]
    origins = origins_of(events, version, list(report.survived))
    advice: MessageAdvice | None = None
    if not _exact(report):
        for event in (report.root_cause, *report.symptoms):
            if event is not None and event.id in origins:
                advice = advice_for(event, origins[event.id], default_index(), version)
                if advice is not None:
                    break
    return replace(report, origins=origins, advice=advice, signature=_with_named_settings(report))


def _with_named_settings(report: Report) -> Match | None:
    """A family's fix, completed with the settings the error's own message names.

    A family knows the class, not the one setting at fault; vLLM's messages often name it
    ("Async scheduling is not supported with pipeline-parallel-size > 1", "... set
    VLLM_USE_V1=0"). The engine arguments and environment variables the matched error names,
    known to the index, are listed after the family's fix (those it does not name already)."""
    match = report.signature
    if match is None or match.kind is not SignatureKind.FAMILY:
        return match
    event = report.root_cause if match.target != "symptom" else None
    event = event or (report.symptoms[0] if report.symptoms else None)
    if event is None:
        return match
    shown = []
    for name in settings_named(event.message, default_index()):
        parts = [f"`{n}`" for n in (name.flag, name.env) if n and n not in match.fix]
        if name.flag and name.name not in match.fix:
            parts.append(f"`{name.name}`")
        if parts:
            shown.append(" / ".join(parts))
    if not shown:
        return match
    return replace(match, fix=f"{match.fix.rstrip()}\n\nThe error's own message names these "
                              f"settings: {', '.join(shown)}.\n")


def _exact(report: Report) -> bool:
    """Whether an exact signature matched (a family signature leaves room for the message's
    own advice, a weaker kind still)."""
    return report.signature is not None and report.signature.kind is SignatureKind.EXACT
