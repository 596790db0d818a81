"""The documented remedies catalogue stays satisfied (tools/docs_remedy_probe, issue 11).

Every record of `signatures/documented-remedies.yaml` is a failure a vLLM documentation page
states with its remedy; written as a minimal log of the process that raises it, it must be
answered by a signature (exact or family, not a fallback) whose fix names every remedy the page
gives. The probe itself is checked: a fix without the remedies is counted as lacking, and a
record's log reads as the error it carries."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from types import ModuleType

import pytest

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from tool_import import import_tool


@cache
def tool() -> ModuleType:
    return import_tool("docs_remedy_probe", "probe")


@cache
def measured() -> tuple[object, ...]:
    return tuple(tool().measure(tool().catalogue(), default_signatures()))


def test_the_catalogue_cites_a_vllm_page_for_every_record() -> None:
    records = tool().catalogue()
    assert len(records) >= 40
    # vLLM's pages (the platform plugins' under docs.vllm.ai/projects/), the platforms whose
    # documentation lives in their repository (HabanaAI's Gaudi fork, Baidu's vLLM-Kunlun), and the
    # Ascend stack's own references under vllm-ascend (CANN's error codes and HCCL guide, torch_npu's
    # environment variables, on hiascend.com), and the platform plugins' repositories at a pinned
    # commit, for their docs/ pages and for the source that raises a check the pages leave unquoted
    hosts = ("https://docs.vllm.ai/", "https://github.com/vllm-project/vllm/blob/",
             "https://github.com/HabanaAI/vllm-fork/blob/", "https://github.com/baidu/vLLM-Kunlun/blob/",
             "https://www.hiascend.com/document/detail/",
             "https://github.com/vllm-project/tpu-inference/blob/",
             "https://github.com/vllm-project/vllm-spyre/blob/",
             "https://github.com/vllm-project/vllm-gaudi/blob/",
             "https://github.com/vllm-project/vllm-metal/blob/")
    assert [r.doc for r in records if not r.doc.startswith(hosts)] == []
    assert all(r.remedies and all(r.remedies) for r in records)


def test_every_documented_remedy_is_named_by_the_advice() -> None:
    results = measured()
    unsatisfied = [(r.status.value, r.signature, r.missing, r.record.doc)  # type: ignore[attr-defined]
                   for r in results if r.status is not tool().Status.NAMED]  # type: ignore[attr-defined]
    assert not unsatisfied, unsatisfied


@pytest.mark.parametrize("index", range(0, 44, 7))
def test_a_records_log_reads_as_its_error(index: int) -> None:
    record = tool().catalogue()[index]
    report = explain_text(tool().render(record))
    assert report.root_cause is not None
    first = record.error.split("\n")[0]
    cls, _, message = first.partition(": ")
    assert message[:30].strip() in report.root_cause.message or cls in report.root_cause.exception


def test_a_fix_without_the_remedies_is_counted_as_lacking(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = tool()
    record = probe.catalogue()[0]
    result = probe.measure_one(record, default_signatures())
    assert result.status is probe.Status.NAMED
    original = probe.explain_text

    def blanked(text: str, **kwargs: object) -> object:
        report = original(text, **kwargs)
        return replace(report, signature=replace(report.signature, fix=""))
    monkeypatch.setattr(probe, "explain_text", blanked)
    result = probe.measure_one(record, default_signatures())
    assert result.status is probe.Status.LACKING
    assert result.missing == tuple(r[0] for r in record.remedies)
    assert "lacking 1" in probe.summary([result])
