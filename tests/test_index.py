"""The index of vLLM's own messages: data, lookup, origins, the message's advice, lint, CLI.

Messages are generated from the shipped templates with random values (hypothesis), so every
test exercises the class of messages vLLM prints, not one log.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index import annotate, default_index
from logsleuth.index.advice import config_names, remedy_of
from logsleuth.index.data import (MessageKind, MessageTemplate, Templates, VllmIndex,
                                  sites_of)
from logsleuth.index.lint import IndexLinter
from logsleuth.index.lookup import MIN_LITERAL_CHARS, PLACEHOLDER, TemplateMatcher, literal_of
from logsleuth.index.origin import change_since, default_matcher, origin_of
from logsleuth.index.versions import release_of, version_key
from logsleuth.model import ErrorEvent, EventKind, Process

INDEX = default_index()
MATCHER = default_matcher()


def _sample(count: int, predicate) -> list[str]:  # type: ignore[no-untyped-def]
    """A fixed random sample of template texts (the same in every run)."""
    texts = [t for t in INDEX.texts if predicate(t)]
    return random.Random(12).sample(texts, min(count, len(texts)))


def _literal_chars(text: str) -> int:
    return sum(c.isalnum() for c in literal_of(text))


SAMPLE = _sample(400, lambda t: _literal_chars(t) >= MIN_LITERAL_CHARS)
VALUE = {
    "int": st.integers(-10**9, 10**9).map(str),
    "float": st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: f"{x:.3f}"),
    "num": st.integers(0, 10**7).map(lambda x: f"{x:,}"),
    "hex": st.integers(0, 2**48).map(hex),
    "any": st.text("abcdefghijklmnopqrstuvwxyz0123456789_./:'[]() -", min_size=1, max_size=24),
}


@st.composite
def rendered(draw: st.DrawFn) -> tuple[str, str]:
    """(template text, a message rendered from it with random values)."""
    text = draw(st.sampled_from(SAMPLE))
    message = PLACEHOLDER.sub(lambda m: draw(VALUE[m.group(1)]), text)
    return text, message


# --- the data ---------------------------------------------------------------------------------

def test_index_covers_every_minor_release_from_first_to_newest() -> None:
    minors = sorted({version_key(r)[:2] for r in INDEX.releases})
    first, last = minors[0], minors[-1]
    expected = [(first[0], (n, "")) for n in range(first[1][0], last[1][0] + 1)]
    assert minors == expected
    assert list(INDEX.releases) == sorted(INDEX.releases, key=version_key)


def test_index_is_stamped_and_counted() -> None:
    assert INDEX.stamp.startswith(INDEX.releases[-1] + "+")
    assert len(INDEX.texts) > 1000 and len(INDEX.arguments) > 100 and len(INDEX.environment) > 50
    assert {t.kind for t in INDEX.templates} == set(MessageKind)


def test_every_template_is_filed_under_one_of_its_own_words() -> None:
    for text, key in zip(INDEX.texts, INDEX.keys):
        assert key in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]{3,}", literal_of(text))), text


# --- lookup: rendered messages come back to their template and origin ------------------------

@settings(max_examples=300, deadline=None)
@given(rendered())
def test_a_rendered_message_matches_its_template(case: tuple[str, str]) -> None:
    text, message = case
    found = MATCHER.find(message)
    assert found is not None, (text, message)
    if found.text != text:
        # another template renders the same message too; it must be at least as specific
        assert found.literal_chars >= _literal_chars(text), (text, found.text, message)
        return
    sites = {(s.module, s.function, s.cls, s.releases) for s in INDEX.templates if s.text == text}
    assert {(s.module, s.function, s.cls, s.releases) for s in found.sites} == sites


def _find_compiling_every_candidate(message: str) -> tuple[str, object, int] | None:
    """TemplateMatcher.find without its screen by the template's words: every candidate's
    pattern compiled and asked (the reference)."""
    from logsleuth.index.lookup import (MAX_MESSAGE_CHARS, MIN_LITERAL_SHARE, Fit,
                                        compile_template)
    message = message[:MAX_MESSAGE_CHARS].strip()
    if not message:
        return None
    alnum = sum(c.isalnum() for c in message)
    best: tuple[str, object, int] | None = None
    for text in sorted(MATCHER.candidates(message)):
        literal = _literal_chars(text)
        if literal < MIN_LITERAL_CHARS and literal < MIN_LITERAL_SHARE * alnum:
            continue
        pattern = compile_template(text)
        fit = Fit.WHOLE if pattern.fullmatch(message) else Fit.PREFIX if pattern.match(message) \
            else None
        if fit is not None and (best is None or (fit, literal) > (best[1], best[2])):
            best = (text, fit, literal)
    return best


@settings(max_examples=150, deadline=None)
@given(rendered(), st.sampled_from(["", "whole", "cut", "word", "case", "space"]), st.data())
def test_templates_screened_by_their_words_find_what_compiling_all_finds(
        case: tuple[str, str], change: str, data: st.DataObject) -> None:
    """A template none of whose matches the message can hold (a word of its fixed text absent)
    is not compiled; what find answers is what asking every candidate's pattern answers, on
    rendered messages, cut ones, ones with a word dropped, re-cased or spaced otherwise."""
    _, message = case
    words = message.split(" ")
    if change == "cut":
        message = message[:data.draw(st.integers(0, len(message)))]
    elif change == "word" and len(words) > 1:
        del words[data.draw(st.integers(0, len(words) - 1))]
        message = " ".join(words)
    elif change == "case":
        message = message.swapcase()
    elif change == "space":
        message = "  \n".join(words)
    found = MATCHER.find(message)
    expected = _find_compiling_every_candidate(message)
    assert (None if found is None else (found.text, found.fit, found.literal_chars)) == expected


@settings(max_examples=150, deadline=None)
@given(rendered())
def test_an_event_gets_the_origin_of_its_template(case: tuple[str, str]) -> None:
    text, message = case
    sites = [s for s in INDEX.templates if s.text == text]
    event = ErrorEvent(1, EventKind.EXCEPTION, sites[0].cls, message, Process("main"), 5, 1, 5)
    origin = origin_of(event, MATCHER)
    assert origin is not None
    if origin.template == text:
        best = origin.site
        assert (best.module, best.function) in {(s.module, s.function) for s in sites}
        wanted = next(s for s in sites if (s.module, s.function, s.cls)
                      == (best.module, best.function, best.exception))
        assert best.releases == INDEX.release_names(wanted.releases)


ASSERTED = sorted({site.text for site in INDEX.templates if site.cls == "AssertionError"
                   and _literal_chars(site.text) >= MIN_LITERAL_CHARS})


def test_assert_messages_are_indexed() -> None:
    """`assert cond, msg` prints `AssertionError: msg`: vLLM checks many preconditions so."""
    assert len(ASSERTED) > 100


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(ASSERTED or [""]), st.data())
def test_an_assertion_error_gets_its_assert_as_origin(text: str, data: st.DataObject) -> None:
    message = PLACEHOLDER.sub(lambda m: data.draw(VALUE[m.group(1)]), text)
    event = ErrorEvent(1, EventKind.EXCEPTION, "AssertionError", message, Process("main"), 5, 1, 5)
    origin = origin_of(event, MATCHER)
    assert origin is not None, message


@settings(max_examples=100, deadline=None)
@given(st.text("abcdefghij klmnop", min_size=0, max_size=80))
def test_prose_that_vllm_never_prints_has_no_origin(message: str) -> None:
    event = ErrorEvent(1, EventKind.EXCEPTION, "RuntimeError", message, Process("main"), 1, 1, 1)
    assert origin_of(event, MATCHER) is None


# --- versions ---------------------------------------------------------------------------------

@pytest.mark.parametrize("printed, release", [
    ("0.10.1.dev3+g1234abcd.cu128", "0.10.1"), ("v0.9.2", "0.9.2"),
    ("0.6.6.post1", "0.6.6.post1"), ("0.16.0rc2", "0.16.0rc2"), ("unknown", None)])
def test_release_of_a_printed_version(printed: str, release: str | None) -> None:
    assert release_of(printed) == release


def _tiny_index() -> VllmIndex:
    """Three releases: a message reworded in the third, another removed in it."""
    return VllmIndex.from_dict({
        "schema": "logsleuth.vllm-index/1", "stamp": "0.3.0+test",
        "releases": ["0.1.0", "0.2.0", "0.3.0"],
        "texts": [["Cannot allocate {int} blocks for the KV cache, try a smaller model", "allocate"],
                  ["Cannot allocate {int} blocks for the KV cache; try --max-model-len", "allocate"],
                  ["The tokenizer mode {any} is no longer accepted by this engine", "tokenizer"]],
        "sites": [[0, "raise", "ValueError", "vllm.worker", "Worker.init", [[0, 1]]],
                  [1, "raise", "ValueError", "vllm.worker", "Worker.init", [[2, 2]]],
                  [2, "log", "ERROR", "vllm.config", "check", [[0, 1]]]],
        "arguments": [{"flag": "--max-model-len", "field": "max_model_len", "type": "int",
                       "default": "None", "help": "Model context length.", "r": [[0, 2]]}],
        "env": [{"name": "VLLM_USE_V1", "default": "'1'", "help": None, "r": [[1, 2]]}]})


@pytest.mark.parametrize("message, version, change", [
    ("Cannot allocate 12 blocks for the KV cache, try a smaller model", "0.2.0",
     "reworded in 0.3.0: \u201cCannot allocate {int} blocks for the KV cache; try "
     "--max-model-len\u201d"),
    ("The tokenizer mode 'slow' is no longer accepted by this engine", "0.1.0",
     "no longer printed since 0.3.0"),
    ("Cannot allocate 12 blocks for the KV cache, try a smaller model", None, None),
    ("Cannot allocate 3 blocks for the KV cache; try --max-model-len", "0.3.0", None),
])
def test_a_newer_release_that_changed_the_message_is_named(message: str, version: str | None,
                                                           change: str | None) -> None:
    index = _tiny_index()
    matcher = TemplateMatcher(index)
    found = matcher.find(message)
    assert found is not None
    assert change_since(found, found.sites[0], index, version) == change


# --- the message's own advice -----------------------------------------------------------------

@pytest.mark.parametrize("message, remedy", [
    ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
     "initializing the engine.",
     "Try increasing `gpu_memory_utilization` when initializing the engine."),
    ("Weight input_size_per_partition = 7168 is not divisible by min_thread_k = 128. Consider "
     "reducing tensor_parallel_size or running with --quantization gptq.",
     "Consider reducing tensor_parallel_size or running with --quantization gptq."),
    ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 "
     "GPU has compute capability 7.5. You can use float16 instead by explicitly setting the "
     "`dtype` flag in CLI, for example: --dtype=half.",
     "You can use float16 instead by explicitly setting the `dtype` flag in CLI, for example: "
     "--dtype=half."),
    ("CUDA out of memory.", None),
    ("The model's max seq len (4096) is larger than the KV cache (2048).", None),
])
def test_the_remedy_clause_of_a_message(message: str, remedy: str | None) -> None:
    assert remedy_of(message) == remedy


def test_config_names_become_flags_and_variables_of_the_release() -> None:
    index = _tiny_index()
    names = config_names("Try lowering max_model_len, or set VLLM_USE_V1=0.", index, 2)
    assert [(n.name, n.flag, n.env) for n in names] == [
        ("max_model_len", "--max-model-len", None), ("VLLM_USE_V1", None, "VLLM_USE_V1")]
    # the variable did not exist in the first release
    assert [n.name for n in config_names("set VLLM_USE_V1=0", index, 0)] == []


def test_shipped_index_translates_a_real_remedy() -> None:
    newest = len(INDEX.releases) - 1
    names = config_names("Try increasing `gpu_memory_utilization` or decreasing "
                         "`max_model_len`.", INDEX, newest)
    assert {n.flag for n in names} == {"--gpu-memory-utilization", "--max-model-len"}


# --- lint -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", SAMPLE[:20])
def test_lint_finds_a_shipped_message(text: str) -> None:
    linter = IndexLinter(INDEX)
    assert linter.check((PLACEHOLDER.sub("{any}", text),), None) == []


def test_lint_names_the_nearest_template_for_a_paraphrase() -> None:
    index = _tiny_index()
    findings = IndexLinter(index).check(("Cannot allocate {int} pages of memory for the model",), None)
    assert len(findings) == 1 and "Cannot allocate {int} blocks" in (findings[0].hint or "")


def test_lint_checks_the_version_range_against_the_releases_printing_it() -> None:
    linter = IndexLinter(_tiny_index())
    template = "The tokenizer mode {any} is no longer accepted"
    assert linter.check((template,), ">=0.1,<0.3") == []
    [finding] = linter.check((template,), ">=0.3")
    assert "0.1.0-0.2.0" in (finding.hint or "")
    # a soft range (`?`: weighs, never rules out) names the same releases
    assert linter.check((template,), "?>=0.1,<0.3") == []
    assert len(linter.check((template,), "?>=0.3")) == 1


def test_lint_compares_the_same_templates_whatever_the_string_hashing() -> None:
    # a short text held by more templates than are compared: which ones are compared (and so
    # lint's hint and a part's vLLM spread) was decided by a set's order, different each run
    import subprocess
    import sys

    probe = ("from logsleuth.index import default_index\n"
             "from logsleuth.index.lint import IndexLinter\n"
             "linter = IndexLinter(default_index())\n"
             "for text in ('must be a multiple of', 'is not supported for', 'Frobnicator width "
             "must be a multiple of {num} got {num} for layer {quoted}'):\n"
             "    print([n.text for n in linter.nearest(text)])\n")
    seen = {subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2", "3")}
    assert len(seen) == 1


# --- the pipeline and the CLI ------------------------------------------------------------------

def _raise_sites() -> list[str]:
    # the texts some site raises, gathered once: asking every site about each of the index's
    # texts was the suite's costliest collection step (over a minute in every xdist worker)
    raised = {s.text for s in INDEX.templates if s.kind is MessageKind.RAISE}
    return _sample(30, lambda t: "\n" not in t and _literal_chars(t) >= MIN_LITERAL_CHARS
                   and t in raised)


@pytest.mark.parametrize("text", _raise_sites()[:10])
def test_the_json_report_carries_the_origin(text: str) -> None:
    from logsleuth.pipeline import explain_text
    from logsleuth.render.json import report_to_dict

    site = next(s for s in INDEX.templates if s.text == text and s.kind is MessageKind.RAISE)
    message = PLACEHOLDER.sub("7", text)
    log = ("Traceback (most recent call last):\n"
           f'  File "/opt/venv/lib/python3.12/site-packages/{site.module.replace(".", "/")}.py", '
           f"line 10, in {site.function.rsplit('.', 1)[-1]}\n"
           "    raise error\n"
           f"{site.cls}: {message}\n")
    report = report_to_dict(explain_text(log))
    root = report["root_cause"]
    assert root is not None and root["message"].strip() == message.strip()
    assert root["origin"]["template"] in INDEX.texts
    json.dumps(report)


def test_annotate_offers_advice_only_without_an_exact_signature() -> None:
    from logsleuth.pipeline import explain_text

    log = ("ValueError: No available memory for the cache blocks. Try increasing "
           "`gpu_memory_utilization` when initializing the engine.\n")
    report = explain_text(log)
    if report.signature is None:
        assert report.advice is not None
        assert any(n.flag == "--gpu-memory-utilization" for n in report.advice.names)
    assert annotate(report).origins == report.origins


def test_index_stats_command() -> None:
    from logsleuth.cli import main

    result = CliRunner().invoke(main, ["index", "stats", "--format", "json"])
    assert result.exit_code == 0, result.output
    counted = json.loads(result.output)
    assert counted["templates"] == len(INDEX.texts)
    assert len(counted["releases"]) == len(INDEX.releases)
    assert counted["arguments"] > 0 and counted["environment"] > 0
    text = CliRunner().invoke(main, ["index", "stats"])
    assert text.exit_code == 0 and "templates" in text.output


def test_the_site_the_traceback_passes_through_comes_first() -> None:
    from logsleuth.model import Frame

    data = {"schema": "logsleuth.vllm-index/1", "stamp": "0.1.0+test", "releases": ["0.1.0"],
            "texts": [["Cannot find any model weights with {any} in the checkpoint", "weights"]],
            "sites": [[0, "raise", "RuntimeError", "vllm.loader.alpha", "Alpha.load", [[0, 0]]],
                      [0, "raise", "RuntimeError", "vllm.loader.beta", "Beta.load", [[0, 0]]]],
            "arguments": [], "env": []}
    matcher = TemplateMatcher(VllmIndex.from_dict(data))
    message = "Cannot find any model weights with `/models/x` in the checkpoint"
    for module in ("vllm.loader.alpha", "vllm.loader.beta"):
        frame = Frame(f"/venv/lib/python3.12/site-packages/{module.replace('.', '/')}.py", 9,
                      "load")
        event = ErrorEvent(1, EventKind.EXCEPTION, "RuntimeError", message, Process("main"),
                           3, 1, 3, frames=(frame,))
        origin = origin_of(event, matcher)
        assert origin is not None and origin.site.module == module
        assert len(origin.sites) == 2


@settings(max_examples=150, deadline=None)
@given(rendered())
def test_a_typed_template_still_matches_the_message_it_was_typed_by(case: tuple[str, str]) -> None:
    from logsleuth.index.lookup import compile_template, typed_template

    text, message = case
    typed = typed_template(text, message)
    assert PLACEHOLDER.sub("{}", typed) == PLACEHOLDER.sub("{}", text)  # only placeholders change
    assert compile_template(typed).match(message.strip())


def test_a_rewording_is_found_from_the_index_records_as_from_its_sites() -> None:
    """_reworded reads each site's fields from the index's records (not making a
    MessageTemplate of every site): the same answer as over the sites themselves, for every
    site of a fixed sample in the release after its last (where a rewording is looked for)."""
    import dataclasses

    from logsleuth.index.origin import _reworded
    # the records' path: the index as its cached copy loads it (a first run reads the JSON)
    records = INDEX if isinstance(INDEX.templates, Templates) \
        else type(INDEX).from_records(INDEX.records())
    assert isinstance(records.templates, Templates)
    made = dataclasses.replace(INDEX, templates=_made_sites())
    reworded = 0
    for text in SAMPLE[:80]:
        for site in sites_of(INDEX, text):
            release = max(site.releases) + 1
            if release < len(INDEX.releases):
                found = _reworded(text, site, records, release)
                assert found == _reworded(text, site, made, release), (text, site)
                reworded += found is not None
    assert reworded >= 5  # the sample holds messages a later release reworded


@functools.cache
def _made_sites() -> tuple[MessageTemplate, ...]:
    return tuple(INDEX.templates)
