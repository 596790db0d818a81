"""The index coverage tool (tools/index_coverage/coverage.py) keeps working: on a sample of the
index's error templates it renders logs the pipeline reads back as the template's own error, and
its figures add up."""

from __future__ import annotations

import random
from functools import cache
from types import ModuleType

import pytest

from logsleuth.index.data import MessageKind, default_index
from logsleuth.index.lookup import compile_template
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from tool_import import import_tool

SAMPLE = 80


@cache
def tool() -> ModuleType:
    return import_tool("index_coverage", "coverage")


@cache
def sample() -> tuple[object, ...]:
    templates = tool().error_templates(default_index())
    return tuple(random.Random(11).sample(templates, SAMPLE))


def test_only_error_templates_are_counted() -> None:
    templates = tool().error_templates(default_index())
    assert len({t.text for t in templates}) == len(templates)
    assert all(t.kind is MessageKind.RAISE or t.cls in tool().ERROR_LEVELS for t in templates)
    assert {t.kind for t in templates} == {MessageKind.RAISE, MessageKind.LOG}


@pytest.mark.parametrize("position", range(0, SAMPLE, 4))
def test_a_rendered_template_is_read_back_as_its_own_error(position: int) -> None:
    template = sample()[position]
    filled = tool().fill(template.text)
    assert compile_template(template.text).fullmatch(filled), "a fill the template does not take"
    report = explain_text(tool().render(template), signatures=default_signatures())
    assert report.root_cause is not None, tool().render(template)
    first = filled.split("\n", 1)[0].strip()
    assert first in report.root_cause.message or first in report.root_cause.text
    if template.kind is MessageKind.RAISE:
        assert report.root_cause.exception.rsplit(".", 1)[-1] == template.cls


def test_the_summary_adds_up_and_lists_the_largest_gap_first() -> None:
    results = tool().measure(sample()[:40])
    counts = tool().shares(results)
    assert sum(counts.values()) == len(results) == 40
    groups = tool().gaps(results)
    assert sum(g.templates for g in groups) == sum(
        n for kind, n in counts.items() if not kind.advised)
    assert [g.templates for g in groups] == sorted((g.templates for g in groups), reverse=True)
    text = tool().summary(results, top=5)
    assert text.startswith("40 error templates: advice (exact or family) for ")
    table = tool().summary(results, top=5, markdown=True)
    assert "| subsystem | class | uncovered |" in table


def test_a_template_a_signature_is_written_for_gets_that_signature() -> None:
    """The rendering is realistic enough for exact signatures written from real logs: the
    message that KV-cache sizing raises when no memory is left gets its exact signature."""
    templates = tool().error_templates(default_index())
    wanted = next(t for t in templates if t.text.startswith("No available memory for the cache "
                                                            "blocks"))
    result = tool().measure_one(wanted, default_signatures())
    assert result.coverage is tool().Coverage.EXACT, result
