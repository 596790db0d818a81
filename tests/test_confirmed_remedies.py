"""The confirmed-remedy census stays satisfied (tools/confirmed_remedies, issue 11).

`signatures/confirmed-remedies.yaml` records, per family, the remedies that vLLM's tracker
confirmed for its failures (a maintainer's answer, a merged fix, a reporter's confirmed
workaround), with the even-numbered threads that confirm each. A remedy confirmed by two threads,
or by one thread and a vLLM documentation page, is held: the family's fix must name it, and the
record's error, written as a minimal log, must be answered by the family (or an exact signature of
its case) with advice that names it. The census itself is checked (families, the partition, the
pages), and so is the checker: a fix without the remedies is counted as lacking."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from types import ModuleType

import pytest

from logsleuth.signatures import default_signatures
from tool_import import import_tool


@cache
def tool() -> ModuleType:
    return import_tool("confirmed_remedies", "census")


@cache
def measured() -> tuple[object, ...]:
    return tuple(tool().measure(tool().census(), default_signatures()))


def test_the_census_is_well_formed() -> None:
    entries = tool().census()
    assert tool().problems(entries, default_signatures()) == []
    assert len({e.family for e in entries}) >= 20
    assert all(r.keywords and all(r.keywords) and r.remedy for e in entries for r in e.remedies)


def test_every_held_remedy_is_named_by_its_family() -> None:
    results = measured()
    unsatisfied = [(r.status.value, r.entry.family, r.answered, r.missing)  # type: ignore[attr-defined]
                   for r in results if r.status is not tool().Status.NAMED]  # type: ignore[attr-defined]
    assert not unsatisfied, unsatisfied


@pytest.mark.parametrize(("threads", "docs", "held"), [
    (["https://github.com/vllm-project/vllm/issues/2"], [], False),
    (["https://github.com/vllm-project/vllm/issues/2"], ["https://docs.vllm.ai/en/latest/"], True),
    (["https://github.com/vllm-project/vllm/issues/2",
      "https://github.com/vllm-project/vllm/pull/4"], [], True),
    ([], ["https://docs.vllm.ai/en/latest/"], False),
])
def test_a_remedy_is_held_by_two_sources_one_of_them_a_thread(
        threads: list[str], docs: list[str], held: bool) -> None:
    remedy = tool().Remedy.from_dict({"remedy": "r", "keywords": ["k"], "threads": threads,
                                      "docs": docs})
    assert remedy.held is held


def test_the_partition_and_the_families_are_checked() -> None:
    census = tool()
    entry = census.census()[0]
    # built, not written: the partition test reads every literal citation in tests/
    odd_thread = "https://github.com/vllm-project/vllm/issues/" + str(2 * 10 + 1)
    other_tracker = "/".join(("https://github.com", "other", "project", "issues", "2"))
    odd = replace(entry, family="cuda-oom-no-such-family", remedies=(replace(
        entry.remedies[0], threads=(odd_thread, other_tracker),
        docs=("https://example.com/page",)),))
    found = census.problems([odd], default_signatures())
    assert any("not a family" in p for p in found)
    # an entry naming an exact signature must name one, and a family is not one
    assert census.problems([replace(entry, family="cuda-fork-reinit",
                                    kind=census.SignatureKind.EXACT)], default_signatures()) == []
    family_as_exact = census.problems([replace(entry, kind=census.SignatureKind.EXACT)],
                                      default_signatures())
    assert any("not an exact signature" in p for p in family_as_exact)
    assert sum("not an even-numbered vLLM thread" in p for p in found) == 2
    assert any("not a vLLM documentation page" in p for p in found)


def test_keywords_need_every_entry_and_take_either_alternative() -> None:
    census = tool()
    remedy = census.Remedy.from_dict({"remedy": "r", "keywords": ["--shm-size | --ipc=host",
                                                                  "NCCL_P2P_DISABLE"],
                                      "threads": []})
    assert census.names("run with `--ipc=host` and `NCCL_P2P_DISABLE=1`", remedy)
    assert not census.names("run with `--ipc=host`", remedy)
    assert census.names("set nccl_p2p_disable and shm_size", remedy)


def _answer_with_fix(monkeypatch: pytest.MonkeyPatch, census: ModuleType, fix: str) -> None:
    """Every report the census reads answers with this fix instead of its signature's own."""
    original = census.explain_text

    def replaced(text: str, **kwargs: object) -> object:
        report = original(text, **kwargs)
        return replace(report, signature=replace(report.signature, fix=fix))
    monkeypatch.setattr(census, "explain_text", replaced)


def test_a_fix_without_the_remedies_is_counted_as_lacking(monkeypatch: pytest.MonkeyPatch) -> None:
    census = tool()
    signatures = default_signatures()
    entry = next(e for e in census.census()
                 if e.held and census.measure_one(e, signatures).answered == e.family)
    assert census.measure_one(entry, signatures).status is census.Status.NAMED
    _answer_with_fix(monkeypatch, census, "")
    result = census.measure_one(entry, signatures)
    assert result.status is census.Status.LACKING
    assert result.missing == tuple(r.remedy for r in entry.held)
    assert "lacking 1" in census.summary([result])


def test_the_step_that_names_a_remedy_is_its_number() -> None:
    census = tool()
    remedy = census.Remedy.from_dict({"remedy": "r", "keywords": ["--enforce-eager"],
                                      "threads": []})
    fix = "Read the log.\n\n1. Lower the fraction.\n2. Run with `--enforce-eager`.\n"
    assert census.first_step(fix, remedy) == 2
    assert census.first_step("Use --enforce-eager.\n1. Other.", remedy) == 0
    assert census.first_step("1. Other.", remedy) is None
    lines = census.order(census.census(), default_signatures())
    assert lines and all(" step " in line for line in lines)


def test_an_exact_signature_answering_a_familys_record_is_read_too(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The case reads the exact signature's fix, not the family's: a family record answered by
    an exact signature whose fix lacks a held remedy is lacking, though the family names it."""
    census = tool()
    signatures = default_signatures()
    kinds = {s.id: s.kind for s in signatures}
    entry = next(e for e in census.census()
                 if e.kind is census.SignatureKind.FAMILY and e.held
                 and all(r.releases is None for r in e.held)
                 and kinds.get(census.measure_one(e, signatures).answered or "")
                 is census.SignatureKind.EXACT)
    assert census.measure_one(entry, signatures).status is census.Status.NAMED
    _answer_with_fix(monkeypatch, census, "Look above.")
    assert census.measure_one(entry, signatures).status is census.Status.LACKING


def test_a_member_of_a_familys_class_without_its_release_remedy_is_listed() -> None:
    """An exact signature whose example the family answers when exact signatures are withheld
    is a member of the family's class; it is listed when its advice on a log of the remedy's
    releases lacks the family's release-scoped remedy, and not once the census gives it that
    remedy (cuda-oom-multimodal-profile-run: the V1 engine's 1024 profiling sequences)."""
    census = tool()
    signatures = default_signatures()
    loo = census._loo()
    probes = [p for p in loo.signature_probes(signatures)
              if p.name.startswith("cuda-oom-multimodal-profile-run:")]
    assert probes
    entries = census.census()
    family = next(e for e in entries if e.family == "cuda-oom-during-profiling")
    assert not census.members_without([family], signatures, probes=probes)
    planted = census.Remedy.from_dict({"remedy": "planted", "keywords": ["NOT_A_KNOB_ANYWHERE"],
                                       "threads": [], "releases": ">=0.8.0,<0.11.0"})
    lines = census.members_without([replace(family, remedies=(planted,))], signatures,
                                   probes=probes)
    assert lines and all("cuda-oom-multimodal-profile-run" in line for line in lines)
