"""What vLLM's own source says about a message: origin, releases, and the message's own advice.

The data is mined from every vLLM release by `tools/vllm_index/` and shipped as
`vllm_index.json.gz`; it is read on first use, never at import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from logsleuth.alignment import alignment_text, boundary_of, with_alignment
from logsleuth.confirmed import with_release_remedies
from logsleuth.frameworks import with_framework_knobs
from logsleuth.platform_knobs import with_platform_knobs
from logsleuth.fingerprint import fingerprint
from logsleuth.index.advice import advice_for, settings_named
from logsleuth.index.data import VllmIndex, default_index
from logsleuth.index.drift import drift_for, with_drift
from logsleuth.index.keys import keys_named
from logsleuth.index.lookup import TemplateMatcher
from logsleuth.index.plugin import (plugin_modules, plugin_named, plugin_origin,
                                    release_plugins, with_plugin_code)
from logsleuth.index.origin import (default_matcher, frame_sites, library_modules, origin_of,
                                    package_boundary, release_position)
from logsleuth.index.release import upgrade_for, with_upgrade
from logsleuth.index.spellings import with_spellings
from logsleuth.model import (ConfigName, ErrorEvent, EventKind, Evidence, Match, MessageAdvice, Origin,
                             ReleaseEvidence, Report, SignatureKind)
from logsleuth.remedy import advice_of, default_phrasing, knobs, remedy_of
from logsleuth.signatures.match import MAX_ALTERNATIVES

__all__ = ["VllmIndex", "default_index", "annotate", "origins_of", "release_after"]


def release_after(release: str) -> str | None:
    """The indexed release that follows `release`, or None for the newest."""
    releases = default_index().releases
    position = releases.index(release) if release in releases else len(releases)
    return releases[position + 1] if position + 1 < len(releases) else None


def origins_of(events: list[ErrorEvent], version: str | None,
               copies: list[ErrorEvent] | None = None,
               facts: Mapping[str, object] | None = None) -> dict[int, Origin]:
    """Event id -> origin, for every event whose message a vLLM release, or a release of a
    plugin (index/plugin.py), prints. A plugin's site is the origin when vLLM's index does not
    know the message, or when the traceback runs through the plugin's site and not vLLM's
    (vllm-ascend patches vLLM's code and copies its messages); `facts` name the log's plugin
    versions.

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
            exact[key] = _either_origin(event, matcher, version, facts)
        origin = exact[key]
        if origin is not None:
            out[event.id] = origin
    by_failure: dict[object, Origin | None] = {}
    for event in copies or ():
        if event.id in out:
            continue
        failure = (fingerprint(event), frame_sites(event))
        if failure not in by_failure:
            by_failure[failure] = _either_origin(event, matcher, version, facts)
        origin = by_failure[failure]
        if origin is not None:
            out[event.id] = origin
    return out


def _either_origin(event: ErrorEvent, matcher: TemplateMatcher, version: str | None,
                   facts: Mapping[str, object] | None) -> Origin | None:
    """vLLM's origin of the event, or a plugin's (see origins_of)."""
    origin = origin_of(event, matcher, version)
    if origin is not None and not any(True for _ in plugin_modules(event)):
        return origin
    found = plugin_origin(event, facts)
    if found is None:
        return origin
    plugin, through = found
    if origin is None:
        return plugin
    frames = frame_sites(event)
    vllm_through = any((s.module, s.function.rsplit(".", 1)[-1]) in frames for s in origin.sites)
    return plugin if through and not vllm_through else origin


def _upgrade(root: ErrorEvent, origin: Origin | None, version: str | None,
             facts: Mapping[str, object]) -> ReleaseEvidence | None:
    """Release evidence for the root cause: by vLLM's releases, or by its plugin's for a
    plugin's message (dated by the log's plugin version)."""
    if origin is None or origin.package == "vllm":
        return upgrade_for(root, origin, default_index(), version)
    plugin = plugin_named(origin.package)
    plugin_version = facts.get(plugin.version_fact) if plugin is not None else None
    if plugin is None or not isinstance(plugin_version, str):
        return None
    return upgrade_for(root, origin, plugin.index, plugin_version)


def annotate(report: Report) -> Report:
    """The report with origins for its errors and, when no exact signature matched, the
    message's own advice: added to a family's fix when it is the matched error's and the fix
    lacks the setting it names, and the fix itself (`message_match`, kind `message`) when no
    signature (or only a fallback) matched the root cause. The root cause's own remedy comes
    first, in any package's words (logsleuth/remedy.py); then a symptom's, when vLLM prints it.
    Last, release evidence (index/release.py): when a release after the log's no longer raises
    the root cause's message, whatever fix answers the root cause says so, and when nothing does,
    that evidence is the fix (kind `release`). And API drift (index/drift.py): when the root
    cause names a vLLM name, module or engine argument that another release has, whatever fix
    answers says which release changed it, where it lives now, and who made the call. A family's
    fix gains the remedies vLLM's tracker confirmed for the log's release only (confirmed.py).
    Last of all, the engine arguments the fix names in one spelling gain the other (a flag its
    Python keyword, a keyword its flag: index/spellings.py)."""
    version = report.facts.get("vllm_version")
    version = version if isinstance(version, str) else None
    events = [e for e in (report.root_cause, *report.symptoms) if e is not None]
    origins = origins_of(events, version, list(report.survived), report.facts)
    advice: MessageAdvice | None = None
    if not _exact(report):
        root = report.root_cause
        if root is not None and root.id not in origins:
            advice = own_advice(root)
        for event in (report.root_cause, *report.symptoms):
            if advice is not None:
                break
            if event is not None and event.id in origins:
                origin = origins[event.id]
                # a plugin's message: its own remedy, with the settings any vLLM release knows
                advice = advice_for(event, origin, default_index(), version) \
                    if origin.package == "vllm" else own_advice(event)
    signature = _with_named_settings(report, advice)
    alternatives = report.alternatives
    fallback = signature is not None and signature.kind is SignatureKind.FALLBACK
    if (signature is None or fallback) and advice is not None and report.root_cause is not None \
            and advice.event_line == report.root_cause.line:
        if signature is not None:  # the class's advice stays in sight, below the message's own
            alternatives = (signature, *alternatives)[:MAX_ALTERNATIVES]
        signature = message_match(report.root_cause, origins.get(report.root_cause.id), advice)
    signature = with_framework_knobs(signature, events)
    signature = with_release_remedies(signature, version)
    root = report.root_cause
    signature = with_platform_knobs(signature, root, report.facts)  # ROCm's names for CUDA's
    signature = with_plugin_code(signature, root, report.facts,  # a plugin's own code raised it
                                 origins.get(root.id) if root is not None else None)
    drift = drift_for(root, version) if root is not None else None
    signature = with_alignment(signature, _answered(report, signature), report.facts,
                               drifted=drift is not None)
    upgrade = _upgrade(root, origins.get(root.id), version, report.facts) \
        if root is not None else None
    signature = with_upgrade(signature, upgrade, root)
    if root is not None:  # code made for another release: what moved, since when, who calls
        signature = with_drift(signature, drift, root)
    signature = with_spellings(signature)  # each engine argument as a flag and as a keyword
    release_plugins()  # the plugin index a message asked for is read again by the next report
    return replace(report, origins=origins, advice=advice, signature=signature,
                   alternatives=alternatives, upgrade=upgrade)


def own_advice(event: ErrorEvent) -> MessageAdvice | None:
    """The remedy an error's message states when vLLM does not print it (a library's, a
    plugin's, the interpreter's), with the settings it names known to any indexed release."""
    remedy = advice_of(event.message)
    if remedy is None:
        return None
    index = default_index()
    # a remedy that names no setting refers back to one the message named before it ("...
    # --num-gpu-blocks-override exceeds the profiled capacity ... Lower or remove the override.")
    names = settings_named(remedy, index) or settings_named(event.message, index)
    return MessageAdvice(remedy, event.line, None, names)


MESSAGE_SCORE = 1.0  # the message's own words for its own failure: nothing is more specific
_PROBLEM_CHARS = 100


def message_match(event: ErrorEvent, origin: Origin | None, advice: MessageAdvice) -> Match:
    """The remedy a root cause's message states, as the report's fix (kind `message`) when
    no signature matched: a consumer that reads the fix from `signature` gets the message's own
    advice, and `kind` says it is neither an exact signature nor a family. The id names the site
    that prints the message (`message:vllm.worker.worker.Worker.determine_num_available_blocks`),
    or for a message vLLM does not print, the library module that raised it or its class
    (`message:optimum.intel.openvino.modeling`, `message:ValueError`)."""
    problem = event.message.split(advice.text, 1)[0].strip() or event.message
    if len(problem) > _PROBLEM_CHARS:
        problem = problem[:_PROBLEM_CHARS - 3].rstrip() + "..."
    names = [f"- `{n.flag or n.env or n.name}`" + (f" (default {n.default})" if n.default
                                                     not in (None, "") else "")
             for n in advice.names]
    release = f" (vLLM {advice.release})" if advice.release else ""
    whose = f"{origin.product}'s message" if origin is not None else "The error's message"
    fix = f"{whose} states its own remedy{release}:\n\n{advice.text}\n"
    if names:
        fix += "\nThe settings it names:\n\n" + "\n".join(names) + "\n"
    if origin is not None:
        site = origin.site
        where, title = f"{site.module}.{site.function}", \
            f"{origin.product}'s own advice: {problem}"
        detail = f"printed by {where}; the message states its remedy"
    else:
        libraries = library_modules(event)
        # an ERROR record's class is its level: the logger call site says more
        where = libraries[0] if libraries else event.site \
            if event.kind is EventKind.ERROR_RECORD and event.site \
            else event.exception.rsplit(".", 1)[-1]
        title = f"The error's own advice: {problem}"
        detail = f"raised in {where}; the message states its remedy" if libraries else \
            "the message states its remedy"
    evidence = (Evidence("message", MESSAGE_SCORE, detail),)
    return Match(f"message:{where}", title, MESSAGE_SCORE, fix, (), evidence, "root_cause", None,
                 SignatureKind.MESSAGE)


def _with_named_settings(report: Report, advice: MessageAdvice | None = None) -> Match | None:
    """A family's fix, completed with the remedy the error's own message states and the settings
    it names.

    A family knows the class, not the one setting at fault; vLLM's messages often name it
    ("Async scheduling is not supported with pipeline-parallel-size > 1", "... set
    VLLM_USE_V1=0"). The engine arguments and environment variables the matched error names,
    known to the index, are listed after the family's fix (those it does not name already)."""
    match = report.signature
    if match is None or match.kind not in (SignatureKind.FAMILY, SignatureKind.FALLBACK):
        return match
    event = report.root_cause if match.target != "symptom" else None
    event = event or (report.symptoms[0] if report.symptoms else None)
    if event is None:
        return match
    fix = match.fix
    # the remedy the message states, apart from what its wording implies: a fix naming the
    # implied package (`pip install flashinfer-python`) still lacks a stated step that names none
    stated = remedy_of(event.message)
    if advice is not None and advice.event_line == event.line and (
            _lacks(fix, advice.text) or (stated is not None and _lacks(fix, stated))):
        # the class's fix holds for the class; the message's own words hold for this error
        fix = f"{fix.rstrip()}\n\nThe error's own message advises: {advice.text}\n"
    shown = []
    named = settings_named(event.message, default_index())
    for name in named:
        parts = [f"`{n}`" for n in (name.flag, name.env) if n and n not in match.fix]
        if name.flag and name.name not in match.fix:
            parts.append(f"`{name.name}`")
        if parts:
            shown.append(" / ".join(parts))
    if shown:
        fix = f"{fix.rstrip()}\n\nThe error's own message names these settings: " \
              f"{', '.join(shown)}.\n"
    keys = [k for k in keys_named(event.message) if k.key not in match.fix]
    if keys:
        # a configuration field that is no flag of its own: set inside its JSON-valued flag
        fix = f"{fix.rstrip()}\n\nThe error's own message names keys of JSON-valued settings: " \
              + ", ".join(f"`{k.key}` in `{k.flag}` (`{k.example}`)" for k in keys) + ".\n"
    version = report.facts.get("vllm_version")
    notes = [note for note in (_release_note(name, default_index(),
                                             version if isinstance(version, str) else None)
                               for name in named) if note]
    if notes:
        fix = f"{fix.rstrip()}\n\n{' '.join(notes)}\n"
    crossing = _with_package_boundary(fix, event)
    if crossing != fix:
        fix = crossing
    elif match.kind is SignatureKind.FALLBACK:
        fix = _with_raising_package(fix, event)
    return match if fix == match.fix else replace(match, fix=fix)


def _release_note(name: ConfigName, index: VllmIndex, version: str | None) -> str | None:
    """When a setting the message names is not in the log's vLLM release: the release it
    arrived in (upgrade) or the last one that had it (drop it, or pin that release); without
    the log's release, only that it was removed. A class's fix knows flags get renamed; the
    index knows when this one was."""
    key = name.flag or name.env
    if key is None:
        return None
    present = sorted({r for a in index.arguments if a.flag == key for r in a.releases}
                     | {r for e in index.environment if e.name == key for r in e.releases})
    if not present:
        return None
    first, last = index.releases[present[0]], index.releases[present[-1]]
    newest = len(index.releases) - 1
    position = release_position(index, version)
    if position is not None and position not in present and present[0] > position:
        return f"`{key}` arrived in vLLM {first}; the log's {version} does not have it: upgrade " \
               f"vLLM to {first} or later (`pip install -U vllm`), or leave it out."
    if present[-1] < newest and (position is None or present[-1] < position):
        return f"`{key}` was removed after vLLM {last}: leave it out (the release notes name " \
               f"what replaced it), or pin `vllm=={last}`."
    return None


def _with_package_boundary(fix: str, event: ErrorEvent) -> str:
    """A family's or fallback's fix, completed with the two installed packages a call failed
    between, when the error's class says a call did not fit its callee (remedy.yaml `crossing`:
    an unexpected keyword, a missing argument): a framework built for another vLLM, or vLLM
    against another transformers. The class's fix says "two packages"; the traceback says
    which two."""
    aligned = boundary_of(event)
    if aligned is not None and alignment_text(aligned, {}) is not None:
        return fix  # alignment.yaml knows the pair: with_alignment names the package to move
    phrasing = default_phrasing()
    crossing = phrasing.crossing
    if crossing is None or not crossing.search(f"{event.exception}: {event.message}",
                                               timeout=0.05):
        return fix
    boundary = package_boundary(event, phrasing.forwarding)
    if boundary is None:
        return fix
    caller, callee = boundary
    if f"`{caller}`" in fix and f"`{callee}`" in fix:
        return fix
    return f"{fix.rstrip()}\n\nThe failing call runs from the installed package `{caller}` into " \
           f"`{callee}`: their releases do not fit. Compare `pip show {caller} {callee}` with " \
           f"each other's requirements, then upgrade {caller} (`pip install -U {caller}`) or " \
           f"install the {callee} release that {caller} release was made for.\n"


def _with_raising_package(fix: str, event: ErrorEvent) -> str:
    """A fallback's fix, completed with the installed package that raised the error (the
    innermost traceback frame in site-packages, index/origin.py library_modules): a class's
    last resort does not know the package, the traceback does, and its version is the first
    knob to turn."""
    libraries = library_modules(event)
    package = libraries[0].split(".", 1)[0] if libraries else None
    if package is None or f"`{package}`" in fix:
        return fix
    return f"{fix.rstrip()}\n\nThe error was raised inside the installed package `{package}`: " \
           f"compare `pip show {package}` with the version your vLLM release requires, and " \
           f"upgrade it (`pip install -U {package}`; its pip name can differ) or pin the one " \
           "that worked.\n"


def _lacks(fix: str, remedy: str) -> bool:
    """Whether a fix lacks what a remedy says: its text, or one of the settings it names (a
    remedy that names none is added unless the fix holds it word for word)."""
    if remedy in fix:
        return False
    named = knobs(remedy)
    return not named or any(not _names(fix, knob) for knob in named)


def _names(fix: str, knob: str) -> bool:
    """Whether `fix` names `knob` as a whole name: a package `ba` is not named by `batch`."""
    return re.search(rf"(?<![\w-]){re.escape(knob)}(?![\w-])", fix) is not None


def _answered(report: Report, match: Match | None) -> ErrorEvent | None:
    """The error a match answers: the root cause, or for a match on the symptoms the first
    symptom (as `_with_named_settings` reads it)."""
    event = report.root_cause if match is None or match.target != "symptom" else None
    return event or (report.symptoms[0] if report.symptoms else None)


def _exact(report: Report) -> bool:
    """Whether an exact signature matched (a family signature leaves room for the message's
    own advice, a weaker kind still)."""
    return report.signature is not None and report.signature.kind is SignatureKind.EXACT
