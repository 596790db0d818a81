"""Release evidence (logsleuth/index/release.py): when a vLLM release after the log's no longer
raises the root cause's message while the function that raised it lives on, the fix says
"upgrade vLLM to >= X" with that evidence; a message that moved, was reworded, a version the
index does not cover, or no version at all, gives nothing. Generated over a small index built for
each case and over entries of the shipped index (messages removed in a release, moved, reworded).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from logsleuth.index.data import (MessageKind, MessageTemplate, VllmIndex, default_index,
                                  sites_of)
from logsleuth.index.lookup import TemplateMatcher, literal_of
from logsleuth.index.origin import origin_of, span
from logsleuth.index.release import MIN_WORDS, covered, upgrade_for, with_upgrade
from logsleuth.model import (ErrorEvent, EventKind, Frame, Match, Origin, OriginSite, Process,
                             ReleaseEvidence, SignatureKind)
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.render.markdown import render_markdown
from logsleuth.signatures import default_signatures
from logsleuth.signatures.match import SignatureSet

SCHEMA = json.loads((Path(__file__).parent / "report.schema.json").read_text(encoding="utf-8"))
FILL = {"int": "16", "float": "0.9", "num": "8", "hex": "0x1f"}
RELEASES = ["0.1.0", "0.2.0", "0.3.0", "0.4.0"]
LIVING = "The scheduler budget of {int} tokens is below the block size of this engine"


def _render(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: FILL.get(m.group(1), "qwen"), template)


def _index(*sites: tuple[str, str, str, str, str, list[list[int]]]) -> VllmIndex:
    """An index of four releases holding `sites` (text, kind, class, module, function, runs)
    and a message the function `vllm.engine.check` prints in every release (it lives on)."""
    all_sites = [(LIVING, "raise", "ValueError", "vllm.engine", "check", [[0, 3]]), *sites]
    texts = sorted({s[0] for s in all_sites})
    return VllmIndex.from_dict({
        "schema": "logsleuth.vllm-index/1", "stamp": "0.4.0+test", "releases": RELEASES,
        "texts": [[t, max(re.findall(r"[A-Za-z]+", t), key=len)] for t in texts],
        "sites": [[texts.index(t), kind, cls, module, function, runs]
                  for t, kind, cls, module, function, runs in all_sites],
        "arguments": [], "env": []})


def _event(message: str, exception: str = "ValueError",
           frames: tuple[Frame, ...] = ()) -> ErrorEvent:
    return ErrorEvent(1, EventKind.EXCEPTION, exception, message, Process("main"), 7, 5, 7,
                      frames)


def _evidence(index: VllmIndex, message: str, version: str | None,
              exception: str = "ValueError", frames: tuple[Frame, ...] = ()) \
        -> ReleaseEvidence | None:
    event = _event(message, exception, frames)
    origin = origin_of(event, TemplateMatcher(index), version)
    assert origin is not None  # no origin would make every "nothing" below vacuous
    return upgrade_for(event, origin, index, version)


REMOVED = "Chunked prefill cannot be combined with the sliding window of model {any}"
REMOVED_MESSAGE = "Chunked prefill cannot be combined with the sliding window of model qwen"


@pytest.mark.parametrize("version, release", [
    ("0.1.0", "0.3.0"), ("0.2.0", "0.3.0"), ("v0.2.0", "0.3.0"), ("0.2.5", "0.3.0"),
    ("0.2.0+cu121", "0.3.0"), ("0.2.0rc1", "0.3.0"),
    ("0.3.0", None), ("0.3.1", None), ("0.4.0", None),  # the log's release already lacks it
    ("0.9.0", None),  # newer than the index
    ("0.2.1.dev12+g1234abc", None), ("0.2.0+gaudi", None), ("0.2.1a1", None),  # not covered
    ("0.0.5", None),  # older than every indexed release
    ("unknown", None), (None, None)])
def test_a_message_dropped_from_living_code_dates_the_fix(version: str | None,
                                                           release: str | None) -> None:
    index = _index((REMOVED, "raise", "ValueError", "vllm.engine", "check", [[0, 1]]))
    found = _evidence(index, REMOVED_MESSAGE, version)
    assert (found.release if found else None) == release
    if found is not None:
        assert found.last_release == "0.2.0" and found.site == "vllm.engine.check"
        assert "gone from vLLM 0.3.0's source" in found.evidence


@pytest.mark.parametrize("later", [
    # moved: the same text printed by another module from the next release on
    (REMOVED, "raise", "ValueError", "vllm.v1.engine", "check", [[2, 3]]),
    # reworded trivially in the same function
    ("Chunked prefill cannot be combined with the sliding window of the model {any}.", "raise",
     "ValueError", "vllm.engine", "check", [[2, 3]]),
    # reworded substantially, in the same function: the check is still there
    ("Chunked prefill is not supported with the sliding window of {any}; disable it", "raise",
     "NotImplementedError", "vllm.engine", "check", [[2, 3]]),
    # moved and reworded: another module opens with its words
    ("Chunked prefill cannot be combined with sliding-window attention layers ({any}), see docs",
     "raise", "ValueError", "vllm.v1.core", "verify", [[2, 3]]),
    # rewritten past recognition: the function raises a new message from the next release on
    ("Sliding-window layers need a block size of {int}; got {int}", "raise", "ValueError",
     "vllm.engine", "check", [[2, 3]]),
    # removed, then written again in a later release
    ("Chunked prefill cannot be combined with the sliding window of the model {any}", "raise",
     "ValueError", "vllm.v1.core", "verify", [[3, 3]]),
])
def test_a_message_that_moved_or_was_reworded_gives_no_upgrade(later: tuple) -> None:
    index = _index((REMOVED, "raise", "ValueError", "vllm.engine", "check", [[0, 1]]), later)
    for version in ("0.1.0", "0.2.0"):
        assert _evidence(index, REMOVED_MESSAGE, version) is None


@pytest.mark.parametrize("twin", [
    (),  # the control for the cases above: the removed message alone is dated
    # a check that became a warning no longer fails
    (("Turning off the prefill splitting for sliding-window layers of {any}", "log", "WARNING",
      "vllm.engine", "check", [[2, 3]]),),
    # a new error of another function is another check
    (("Sliding-window layers need a block size of {int}; got {int}", "raise", "ValueError",
      "vllm.v1.core", "verify", [[2, 3]]),)])
def test_the_same_removal_without_its_twin_does_give_one(twin: tuple) -> None:
    index = _index((REMOVED, "raise", "ValueError", "vllm.engine", "check", [[0, 1]]), *twin)
    found = _evidence(index, REMOVED_MESSAGE, "0.2.0")
    assert found is not None and found.release == "0.3.0"


@pytest.mark.parametrize("site, message", [
    # the raising function is gone in the next release: its code moved or was rewritten
    ((REMOVED, "raise", "ValueError", "vllm.engine", "legacy_check", [[0, 1]]), REMOVED_MESSAGE),
    # a warning that disappears (a deprecation notice) dates no failure
    (("The legacy batching path for multi-modal inputs is deprecated and will go", "log",
      "WARNING", "vllm.engine", "check", [[0, 1]]),
     "The legacy batching path for multi-modal inputs is deprecated and will go"),
    # a message of a few fixed words is too generic to date (Python's own words, which have an
    # origin only through the site's frame: causality.yaml `python_messages`)
    (("No module named {any}", "raise", "ModuleNotFoundError", "vllm.engine", "check", [[0, 1]]),
     "No module named {any}"),
])
def test_no_upgrade_from_weak_evidence(site: tuple, message: str) -> None:
    index = _index(site)
    exception = site[2] if site[1] == "raise" else "ValueError"
    # raised there: a traceback through the site's own function
    frames = (Frame(f"/x/site-packages/{site[3].replace('.', '/')}.py", 3, site[4]),)
    assert _evidence(index, _render(message), "0.2.0", exception, frames) is None


def test_pythons_own_words_have_no_origin_without_the_sites_frame() -> None:
    # `python3: No module named vllm` is the interpreter's: a vLLM template in the same words
    # is where vLLM prints it only when a traceback passes through that function
    index = _index(("No module named {any}", "raise", "ModuleNotFoundError", "vllm.engine",
                    "check", [[0, 3]]))
    matcher = TemplateMatcher(index)
    for message in ("No module named vllm", "No module named 'vllm.entrypoints'"):
        assert origin_of(_event(message, "ModuleNotFoundError"), matcher, "0.2.0") is None
        through = (Frame("/x/site-packages/vllm/engine.py", 3, "check"),)
        assert origin_of(_event(message, "ModuleNotFoundError", through), matcher,
                         "0.2.0") is not None
    # vLLM's own words keep their origin without frames
    assert origin_of(_event(_render(LIVING)), matcher, "0.2.0") is not None


def test_a_traceback_through_another_function_is_not_the_site() -> None:
    index = _index((REMOVED, "raise", "ValueError", "vllm.engine", "check", [[0, 1]]))
    elsewhere = (Frame("/x/site-packages/vllm/engine.py", 3, "other"),)
    through = (Frame("/x/site-packages/vllm/engine.py", 3, "check"),)
    library = (*through, Frame("/x/site-packages/torch/nn/functional.py", 9, "pad"))
    for frames, fires in ((elsewhere, False), (through, True), (library, False)):
        event = _event(REMOVED_MESSAGE, frames=frames)
        origin = origin_of(event, TemplateMatcher(index), "0.2.0")
        assert (upgrade_for(event, origin, index, "0.2.0") is not None) is fires, frames


@pytest.mark.parametrize("version, ok", [
    ("0.9.2", True), ("0.6.6.post1", True), ("0.10.1+cu128", True), ("0.8.5rc1", True),
    ("0.10.1.dev3+g1234abcd.cu128", False), ("0.8.5.dev274+g166d0ef40", False),
    ("99.0.0", False), ("0.6.3.post2+rocm624.gaudi", False), ("garbage", False)])
def test_the_versions_the_index_covers(version: str, ok: bool) -> None:
    assert covered(version, default_index()) is ok


# --- generated over the shipped index ---------------------------------------------------------

def _origin(index: VllmIndex, site: MessageTemplate) -> Origin:
    names = index.release_names(site.releases)
    return Origin(site.text, (OriginSite(site.module, site.function, site.cls, site.kind.value,
                                         names, span(index, site.releases)),))


@cache
def _sample() -> tuple[MessageTemplate, ...]:
    """Raise sites of a seeded sample of the shipped index's texts that no longer print in its
    newest release, one per text (the one printing it last)."""
    index = default_index()
    texts = sorted(index.texts)
    random.Random(2026120515).shuffle(texts)
    newest = len(index.releases) - 1
    out: list[MessageTemplate] = []
    for text in texts[:900]:
        sites = sites_of(index, text)
        if max(r for s in sites for r in s.releases) < newest:
            last = max(sites, key=lambda s: s.releases[-1])
            if last.kind is MessageKind.RAISE and len(literal_of(text).split()) >= MIN_WORDS:
                out.append(last)
    return tuple(out)


@cache
def removed_sites() -> tuple[MessageTemplate, ...]:
    """The sampled sites release evidence dates, at the last release that raises them."""
    index = default_index()
    return tuple(site for site in _sample()
                 if upgrade_for(_event(_render(site.text), site.cls), _origin(index, site), index,
                                index.releases[site.releases[-1]]) is not None)


def test_the_sample_holds_each_kind_of_change() -> None:
    assert len(removed_sites()) >= 5  # dated removals exist: the rest of this file has data
    assert len(removed_sites()) < len(_sample()) / 2  # most disappearances are no such thing


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_a_dated_removal_is_true_of_every_release(data: st.DataObject) -> None:
    index = default_index()
    site = data.draw(st.sampled_from(removed_sites()), label="site")
    event, origin = _event(_render(site.text), site.cls), _origin(index, site)
    last = site.releases[-1]
    found = upgrade_for(event, origin, index, index.releases[last])
    assert found is not None and found.release == index.releases[last + 1]
    # the claim: no release from X on holds the text, and the function still exists in X
    assert all(r <= last for s in sites_of(index, site.text) for r in s.releases)
    assert any(last + 1 in t.releases and (t.module, t.function) == (site.module, site.function)
               for t in index.templates)
    # every indexed release that raised it is told the same; X and later, and builds the index
    # does not cover, are told nothing
    for before in site.releases:
        assert upgrade_for(event, origin, index, index.releases[before]) == \
            ReleaseEvidence(found.release, found.last_release, index.releases[before],
                            found.site, found.event_line)
    for after in range(last + 1, len(index.releases)):
        assert upgrade_for(event, origin, index, index.releases[after]) is None
    name = index.releases[last]
    for uncovered in (f"{name}.dev7+g0123abc", f"{name}+g0123abc", None, "unknown"):
        assert upgrade_for(event, origin, index, uncovered) is None


@cache
def moved_sites() -> tuple[MessageTemplate, ...]:
    """Sites of the shipped index whose text another module goes on printing after them."""
    index = default_index()
    out: list[MessageTemplate] = []
    for site in index.templates:
        if site.kind is not MessageKind.RAISE or len(out) >= 60:
            continue
        others = [s for s in sites_of(index, site.text) if s.module != site.module]
        if any(s.releases[-1] > site.releases[-1] for s in others):
            out.append(site)
    return tuple(out)


@cache
def reworded_sites() -> tuple[MessageTemplate, ...]:
    """Sites of the shipped index whose function writes a like message from the next release on,
    when the text itself is gone."""
    index = default_index()
    by_function: dict[tuple[str, str], list[MessageTemplate]] = {}
    for site in index.templates:
        by_function.setdefault((site.module, site.function), []).append(site)
    out: list[MessageTemplate] = []
    for sites in by_function.values():
        for old in sites:
            gone = max(r for s in sites_of(index, old.text) for r in s.releases)
            if old.kind is not MessageKind.RAISE or gone != old.releases[-1] \
                    or gone >= len(index.releases) - 1:
                continue
            if any(new.releases[0] == gone + 1 and new.text != old.text
                   and fuzz.ratio(literal_of(old.text), literal_of(new.text)) >= 60
                   for new in sites):
                out.append(old)
        if len(out) >= 60:
            break
    return tuple(out)


@pytest.mark.parametrize("kind", ["moved", "reworded"])
def test_no_upgrade_for_a_message_that_moved_or_was_reworded(kind: str) -> None:
    index = default_index()
    sites = moved_sites() if kind == "moved" else reworded_sites()
    assert len(sites) >= 10
    for site in sites:
        event = _event(_render(site.text), site.cls)
        version = index.releases[site.releases[-1]]
        assert upgrade_for(event, _origin(index, site), index, version) is None, site


def _log(site: MessageTemplate, message: str, version: str | None) -> str:
    path = site.module.replace(".", "/")
    head = f"INFO 12-05 01:00:00 api_server.py:1] vLLM API server version {version}\n" \
        if version else ""
    return (f"{head}Traceback (most recent call last):\n"
            f'  File "/usr/lib/python3.12/site-packages/{path}.py", line 10, in '
            f"{site.function.rsplit('.', 1)[-1]}\n"
            f"    raise {site.cls}(message)\n{site.cls}: {message}\n")


@settings(max_examples=12, deadline=None)
@given(st.data())
def test_the_report_says_upgrade_with_its_evidence(data: st.DataObject) -> None:
    index = default_index()
    site = data.draw(st.sampled_from(removed_sites()), label="site")
    message = _render(site.text)
    last, following = index.releases[site.releases[-1]], index.releases[site.releases[-1] + 1]
    report = explain_text(_log(site, message, last), signatures=default_signatures())
    if report.root_cause is None or report.root_cause.message != message \
            or report.origins.get(report.root_cause.id) is None \
            or report.origins[report.root_cause.id].template != site.text:
        return  # the log's reading of the message, or a likelier template, is another test's
    out = report_to_dict(report)
    jsonschema.validate(out, SCHEMA)
    assert out["upgrade"]["release"] == following and out["upgrade"]["log_version"] == last
    fix = out["signature"]["fix"]
    assert f"Upgrade vLLM to >= {following}" in fix and "pip install -U vllm" in fix
    assert f"gone from vLLM {following}'s source" in fix
    if report.signature is not None and report.signature.kind is SignatureKind.RELEASE:
        assert out["signature"]["id"] == f"release:{site.module}.{site.function}"
    assert f"Upgrade vLLM to >= {following}" in render_markdown(report)
    for version in (following, None):  # the log's release already lacks it; no version known
        later = report_to_dict(explain_text(_log(site, message, version),
                                            signatures=default_signatures()))
        assert later["upgrade"] is None
        assert "Release evidence" not in ((later["signature"] or {}).get("fix") or "")


@settings(max_examples=8, deadline=None)
@given(st.data())
def test_with_no_signature_the_evidence_is_the_fix(data: st.DataObject) -> None:
    index = default_index()
    site = data.draw(st.sampled_from(removed_sites()), label="site")
    message = _render(site.text)
    following = index.releases[site.releases[-1] + 1]
    report = explain_text(_log(site, message, index.releases[site.releases[-1]]),
                          signatures=SignatureSet([]))
    if report.upgrade is None:
        return  # the log's reading of the message is another test's subject
    assert report.signature is not None
    out = report_to_dict(report)
    jsonschema.validate(out, SCHEMA)
    # the message's own remedy, when it states one, stays the fix; the evidence follows it
    kind = SignatureKind.MESSAGE if report.advice is not None else SignatureKind.RELEASE
    assert report.signature.kind is kind
    assert out["signature"]["fix"].rstrip().endswith("its release notes say what replaced it.")
    if kind is SignatureKind.RELEASE:
        assert out["signature"]["id"] == f"release:{site.module}.{site.function}"
        assert f"vLLM {following} no longer raises this error" in out["signature"]["title"]
        assert "a later vLLM release no longer raises it" in render_markdown(report)


def test_the_evidence_joins_a_fix_for_the_root_cause_only() -> None:
    root = _event(REMOVED_MESSAGE)
    evidence = ReleaseEvidence("0.3.0", "0.2.0", "0.2.0", "vllm.engine.check", root.line)
    family = Match("some-family", "A class", 0.8, "Do the thing.", (), (), "root_cause", None,
                   SignatureKind.FAMILY)
    added = with_upgrade(family, evidence, root)
    assert added is not None and added.fix.startswith("Do the thing.\n\n**Release evidence**")
    assert "Upgrade vLLM to >= 0.3.0: `pip install -U vllm`" in added.fix
    symptom = replace(family, target="symptom")
    assert with_upgrade(symptom, evidence, root) is symptom
    assert with_upgrade(family, None, root) is family
    other = replace(root, line=root.line + 1)
    assert with_upgrade(family, evidence, other) is family
    alone = with_upgrade(None, evidence, root)
    assert alone is not None and alone.kind is SignatureKind.RELEASE
    assert alone.id == "release:vllm.engine.check" and alone.target == "root_cause"
