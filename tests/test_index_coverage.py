"""The index coverage tool (tools/index_coverage/coverage.py) keeps working: on a sample of the
index's error templates it renders logs the pipeline reads back as the template's own error, and
its figures add up."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
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


@cache
def templates() -> tuple[object, ...]:
    return tuple(tool().error_templates(default_index()))


def test_every_template_is_filled_the_same_way_twice_and_takes_its_fill() -> None:
    """Filling is deterministic (the measure is comparable between runs) and every value fits its
    placeholder, with the holes' source names and without."""
    for template in templates():
        names = tool().holes().get(template.text)
        filled = tool().fill(template.text, names)
        assert filled == tool().fill(template.text, names)
        assert compile_template(template.text).fullmatch(filled), (template.text, filled)
        assert compile_template(template.text).fullmatch(tool().fill(template.text))


def test_the_hole_names_belong_to_the_index_and_name_every_placeholder() -> None:
    holes = tool().holes()
    texts = {t.text for t in templates()}
    assert len(holes) > len(texts) // 3, "holes.json.gz missing or stale: run holes.py"
    for text, groups in holes.items():
        assert text in texts
        assert len(groups) == len(tool().PLACEHOLDER.findall(text)), text


@pytest.mark.parametrize(("template", "names", "filled"), [
    ("got {any}", [["self.model_config.dtype"]], "got torch.bfloat16"),
    ("kv cache {any} unsupported", [["cache_config.cache_dtype"]], "kv cache fp8_e4m3 unsupported"),
    ("expected {any}, got {any}", [["expected_shape"], ["tuple(x.shape)"]],
     "expected torch.Size([8, 4096]), got torch.Size([8, 4096])"),
    ("{any} must divide {any}", [["len(self.layers)"], ["self.tp_size"]], "64 must divide 8"),
    ("max_lora_rank {any} too large", [["self.max_lora_rank"]], "max_lora_rank 64 too large"),
    ("model {any} not found", [["model_config.model"]],
     "model meta-llama/Llama-3.1-8B-Instruct not found"),
    ("backend {any} unavailable", [["selected_backend.name"]], "backend cutlass unavailable"),
    ("{any} failed", [["prefix", "layer_idx"]], "model.layers.0.mlp.gate_up_proj.weight64 failed"),
])
def test_a_hole_is_filled_by_the_name_of_what_fills_it(template: str, names: list[list[str]],
                                                       filled: str) -> None:
    assert tool().fill(template, names) == filled


@pytest.mark.parametrize(("template", "filled"), [
    ("Unsupported dtype {any} for this GPU", "Unsupported dtype torch.bfloat16 for this GPU"),
    ("Cannot open path {any}", "Cannot open path /models/Llama-3.1-8B-Instruct/config.json"),
    ("head_size={any} is not supported", "head_size=128 is not supported"),
    ("count must be positive, got {any}", "count must be positive, got 4096"),
    ("{any} is not supported", "Qwen2ForCausalLM is not supported"),
    ("took {int} ms at {float}", "took 4096 ms at 0.92"),
])
def test_a_hole_without_source_names_is_filled_by_the_words_before_it(template: str,
                                                                      filled: str) -> None:
    assert tool().fill(template) == filled


def test_a_recheck_measures_only_what_an_earlier_run_left_without_advice(tmp_path: Path) -> None:
    """--recheck keeps an earlier run's advised templates and measures the others again."""
    templates = list(sample()[:6])
    first = tool().measure(templates)
    earlier = tmp_path / "earlier.jsonl"
    earlier.write_text("".join(
        '{"text": %s, "coverage": "%s", "signature": null}\n'
        % (json.dumps(r.template.text), "family" if i % 2 else "none")
        for i, r in enumerate(first)), encoding="utf-8")
    read = tool().read_results(str(earlier), templates)
    again = tool().measure([t for t in templates if not read[t.text].coverage.advised])
    merged = tool().merge(templates, read, again)
    assert [r.template for r in merged] == templates
    assert [r.coverage for r in merged[1::2]] == [tool().Coverage.FAMILY] * 3
    assert [r.coverage for r in merged[0::2]] == [r.coverage for r in first[0::2]]
