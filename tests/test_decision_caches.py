"""Shortcuts that decide once for many inputs give the answer deciding each input would.

Every shortcut here is checked against the slow path it replaces, over the shipped knowledge
and generated inputs: a template's needle test against its compiled pattern alone; decisions
and masks kept per digit shape (`tokenize.shape`) against deciding and masking each text.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.knowledge import Causality, default_causality, load_causality
from logsleuth.literal import required_literals
from logsleuth.model import MilestoneKind, Role
from logsleuth.signatures import default_signatures, template
from logsleuth.signatures.template import PLACEHOLDERS, Template, mask
from logsleuth.tokenize.shape import digit_blind, shape_key

# One value per placeholder, as a message would print it.
_FILLING = {"int": "4096", "float": "1.5", "num": "12", "size": "2.00 GiB", "path": "/a/b.py",
            "hex": "0x1f", "word": "abc", "quoted": "'x'", "any": "some text"}


@cache
def _templates() -> tuple[Template, ...]:
    return tuple(template for signature in default_signatures()
                 for template in signature.templates)


def _filled(template: Template) -> str:
    text = template.text
    for name in PLACEHOLDERS:
        text = text.replace("{" + name + "}", _FILLING[name])
    return text


def _without_needle(template: Template, message: str) -> float:
    return dataclasses.replace(template, needle="").score(message, mask(message))


def test_templates_have_needles() -> None:
    """The shortcut is in use: most templates hold fixed words."""
    templates = _templates()
    assert sum(1 for t in templates if t.needle) > len(templates) // 2


@pytest.mark.parametrize("index", range(0, 400, 7))
def test_needle_keeps_every_exact_match(index: int) -> None:
    """A template's own message, and every other template's, score the same with and without
    the needle test (its own scores 1.0: the test can fail)."""
    templates = _templates()
    template = templates[index % len(templates)]
    own = _filled(template)
    assert template.score(own, mask(own)) == _without_needle(template, own)
    for other in templates[::5]:
        message = _filled(other)
        assert template.score(message, mask(message)) == _without_needle(template, message)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_needle_on_edited_messages(data: st.DataObject) -> None:
    """Messages edited around a template's fixed words (words dropped, case or spacing
    changed, text added) score the same with and without the needle test."""
    templates = _templates()
    template = data.draw(st.sampled_from(templates))
    words = _filled(template).split()
    kept = [w for w in words if data.draw(st.booleans())]
    if data.draw(st.booleans()):
        kept = [w.upper() if data.draw(st.booleans()) else w for w in kept]
    message = data.draw(st.text(max_size=8)) + "  ".join(kept) + data.draw(st.text(max_size=8))
    assert template.score(message, mask(message)) == _without_needle(template, message)


# ---- decisions by digit shape ---------------------------------------------------------------
_DIGIT_TEXT = st.text(alphabet=st.sampled_from(list("0123456789 .,:/x-_'\"()[]abcdefGiB\n")),
                      max_size=60)


def _shaped_pair(data: st.DataObject, seed: str) -> tuple[str, str]:
    """A text built around `seed`, and the same text with other digits at the same places."""
    text = data.draw(_DIGIT_TEXT) + seed + data.draw(_DIGIT_TEXT)
    other = "".join(data.draw(st.sampled_from("0123456789")) if c.isdigit() and c.isascii()
                    else c for c in text)
    return text, other


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_blind_patterns_decide_alike_on_one_shape(data: st.DataObject) -> None:
    """Every shipped causality pattern read as digit-blind matches two texts of one shape
    alike (texts built from the pattern's own literal text, numbers and punctuation)."""
    know = default_causality()
    patterns = [s.pattern for s in know.symptoms] + [p for _, p in know.milestones] \
        + list(know.corrupting) + list(know.wrappers)
    pattern = data.draw(st.sampled_from([p for p in patterns if digit_blind(p.pattern)]))
    seed = " ".join(required_literals(pattern.pattern)) or pattern.pattern[:20]
    text, other = _shaped_pair(data, seed)
    assert shape_key(text) == shape_key(other)
    assert bool(pattern.search(text)) == bool(pattern.search(other))


def test_masks_after_hex_are_digit_blind() -> None:
    """The premise of `mask_by_shape`: every mask after the hex one reads digits alike, and no
    token holds a digit."""
    for pattern, token, needle in template._MASKS[1:]:
        assert digit_blind(pattern.pattern), pattern.pattern
        assert not any(c.isdigit() for c in token + needle)
    assert digit_blind(template._SPACES.pattern)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_mask_by_shape_is_mask(data: st.DataObject) -> None:
    """Masking by shape gives `mask`'s text, for texts of sizes, paths, hex, quotes and
    numbers, and for two texts of one shape in a row (the second answered from the first)."""
    text, other = _shaped_pair(data, data.draw(st.sampled_from(
        ["Tried to allocate 2.00 GiB", "0x7f3a", "'/a/b1.py'", "v0.9.1", "1e-5", "", "ab0x"])))
    assert template.mask_by_shape(text) == mask(text)
    assert template.mask_by_shape(other) == mask(other)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_symptoms_and_handled_by_shape(data: st.DataObject) -> None:
    """`symptom_of` and `handles` answer as a fresh search would, for texts that share shapes
    with texts asked before (built from every symptom pattern's literal text)."""
    know = default_causality()
    fresh = load_causality()
    symptom = data.draw(st.sampled_from(know.symptoms))
    seed = " ".join(required_literals(symptom.pattern.pattern)) or "died unexpectedly"
    text, other = _shaped_pair(data, seed)
    for asked in (text, other, text):
        expected = next((s for s in fresh.symptoms if s.pattern.search(asked)), None)
        got = know.symptom_of(asked)
        assert (got.pattern.pattern if got else None) == \
            (expected.pattern.pattern if expected else None)
    site = data.draw(st.sampled_from([None, "serving.py:296", "api_server.py:100"]))
    places = data.draw(st.lists(st.sampled_from(
        ["serving.py:_validate_input", "gpu_model_runner.py:execute_model", "x.py:f"]),
        max_size=3))
    for _ in range(2):
        assert know.handles(site, places) == fresh._handles(site, places, None)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_line_marks_by_shape(data: st.DataObject) -> None:
    """`marks_of` answers as `milestone_of` and `phase_of_line` do, for lines built from every
    milestone and phase pattern's literal text (access lines with their status codes among
    them), asked again with other digits at the same places."""
    know = default_causality()
    patterns = [p for _, p in know.milestones] + [p for _, p in know.phase_lines]
    pattern = data.draw(st.sampled_from(patterns))
    seed = " ".join(required_literals(pattern.pattern)) or pattern.pattern[:20]
    seed = data.draw(st.sampled_from([seed, f'"POST /v1/x HTTP/1.1" {seed} 200 OK ',
                                      f"Avg prompt throughput: 0.0 tokens/s {seed}"]))
    text, other = _shaped_pair(data, seed)
    for asked in (text, other):
        assert know.marks_of(asked) == (know.milestone_of(asked), know.phase_of_line(asked))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_long_line_marks_kept_by_text(data: st.DataObject) -> None:
    """A long line's marks are kept by its text (a restart loop prints the same 3 KB config line
    at every start): asked again, of it or of a line that differs in one character, `marks_of`
    answers as `milestone_of` and `phase_of_line` do; a decision made while a search ran out of
    time is not kept."""
    know = load_causality()
    patterns = [p for _, p in know.milestones] + [p for _, p in know.phase_lines]
    pattern = data.draw(st.sampled_from(patterns))
    seed = " ".join(required_literals(pattern.pattern)) or pattern.pattern[:20]
    filler = " ".join(f"key{index}={index}" for index in range(400))
    text = data.draw(st.sampled_from([f"{seed} {filler}", f"{filler} {seed}", filler]))
    edited = text[:-1] + data.draw(st.sampled_from("0x "))
    for asked in (text, edited, text, edited):
        assert know.marks_of(asked) == (know.milestone_of(asked), know.phase_of_line(asked))


def test_long_line_marks_not_kept_after_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decided while a search ran out of time: decided again; else decided once."""
    import logsleuth.knowledge as knowledge

    know = load_causality()
    text = "Initializing a V1 LLM engine with config: " + "x=1, " * 600
    calls: list[str] = []
    real = knowledge.Causality.milestone_of

    def counted(self: knowledge.Causality, asked: str, timing_out: bool = True) -> object:
        calls.append(asked)
        if timing_out:
            knowledge._TIMEOUTS[0] += 1  # as a search that ran out of time counts itself
        return real(self, asked)

    monkeypatch.setattr(knowledge.Causality, "milestone_of", counted)
    first, second = know.marks_of(text), know.marks_of(text)
    assert first == second and len(calls) == 2  # decided again
    monkeypatch.setattr(knowledge.Causality, "milestone_of",
                        lambda self, asked: counted(self, asked, timing_out=False))
    assert know.marks_of(text) == know.marks_of(text) == first
    assert len(calls) == 3  # decided once more, then kept



def _fresh_answers(know: Causality, text: str) -> dict[str, object]:
    """What each kept question answers of `text`, searched pattern by pattern."""
    starts = [p for kind, p in know.milestones if kind is MilestoneKind.START]
    return {
        "start_marker": next((i for i, p in enumerate(starts) if p.search(text)), None),
        "latent_warning": any(latent.warning.search(text) for latent in know.latent),
        "refusal_warning": any(p.search(text) for p in know.refusals),
        "role_of": next((role for role, p in know.roles if p.search(text)), Role.OTHER),
        "is_singleton": know.singletons is not None and know.singletons.search(text) is not None,
        "is_engine_once": any(p.search(text) for p in know.engine_once),
    }


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_text_answers_kept(data: st.DataObject) -> None:
    """The questions asked of a short text again and again (a restart-heavy log's start lines,
    warnings and process names, in every run) answer as a fresh search does, asked again, and
    one text asked each question in turn gets each question's own answer (the memo is keyed by
    both). Texts are built from the literal text of every pattern those questions search."""
    know = default_causality()
    patterns = [*(p for kind, p in know.milestones if kind is MilestoneKind.START),
                *(latent.warning for latent in know.latent), *know.refusals,
                *(p for _, p in know.roles), *([know.singletons] if know.singletons else []),
                *know.engine_once]
    pattern = data.draw(st.sampled_from(patterns))
    seed = " ".join(required_literals(pattern.pattern)) or pattern.pattern[:20]
    filler = " ".join(f"key{index}={index}" for index in range(400))  # a ~3 KB config line
    text = data.draw(st.sampled_from([seed, f"(APIServer pid=7) {seed} 12", seed.upper(),
                                      f"{seed} {filler}", f"{filler} {seed}"]))
    expected = _fresh_answers(load_causality(), text)
    for _ in range(2):
        for name, answer in expected.items():
            assert getattr(know, name)(text) == answer, name


def test_long_text_answer_not_kept_after_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long text's answer decided while a search ran out of time is decided again; else
    decided once (the engine's config line, a start line, is asked at every start)."""
    import logsleuth.knowledge as knowledge

    know = load_causality()
    text = "Initializing a V1 LLM engine with config: " + "x=1, " * 600
    calls: list[str] = []
    real = knowledge.Causality._start_marker

    def counted(self: knowledge.Causality, asked: str, timing_out: bool = True) -> int | None:
        calls.append(asked)
        if timing_out:
            knowledge._TIMEOUTS[0] += 1  # as a search that ran out of time counts itself
        return real(self, asked)

    monkeypatch.setattr(knowledge.Causality, "_start_marker", counted)
    first, second = know.start_marker(text), know.start_marker(text)
    assert first == second is not None and len(calls) == 2  # decided again
    monkeypatch.setattr(knowledge.Causality, "_start_marker",
                        lambda self, asked: counted(self, asked, timing_out=False))
    assert know.start_marker(text) == know.start_marker(text) == first
    assert len(calls) == 3  # decided once more, then kept


def _reclassed(data: st.DataObject, text: str) -> str:
    """`text` with each ASCII digit drawn again, any digit (a port, a rate, a token count)."""
    return "".join(data.draw(st.sampled_from("0123456789")) if c.isdigit() and c.isascii()
                   else c for c in text)


_ACCESS = ['127.0.0.1:44327 - "POST /v1/chat/completions HTTP/1.1" {} OK',
           '10.0.3.7:5100 - "GET /health HTTP/1.0" {} Service Unavailable',
           '[::1]:60999 - "POST /v1/completions HTTP/2" {} Bad Request']


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_failed_answer_by_digit_classes(data: st.DataObject) -> None:
    """An access line's failed answer, kept by its digit classes, is the search's on access
    lines whose port and code are drawn anew (5xx and near misses: 4xx, 2xx, a 5 elsewhere),
    asked in turn of one knowledge, so that later lines reuse what earlier ones kept."""
    know = default_causality()
    fresh = load_causality()  # (its own memo: asked once per text)
    line = data.draw(st.sampled_from(_ACCESS)).format(data.draw(st.sampled_from(
        ["503", "500", "403", "200", "599", "404", "555"])))
    for text in (line, _reclassed(data, line), _reclassed(data, line)):
        found = know.failed_answers.search(text) if know.failed_answers else None
        assert know.failed_answer(text) == (f"HTTP {found.group('code')}" if found else None)
        assert fresh.failed_answer(text) == know.failed_answer(text)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_digit_decisions_by_shape_and_classes(data: st.DataObject) -> None:
    """`digit_decisions` (the reading patterns left to those a shape may match, answered by
    digit classes) says what each reading pattern's search says, on texts built from every
    reading pattern's literal text, asked again with other digits."""
    know = default_causality()
    pattern = data.draw(st.sampled_from([p for p, _ in know._reading]))
    seed = " ".join(required_literals(pattern.pattern)) or pattern.pattern[:20]
    seed = data.draw(st.sampled_from([seed, f"HTTP 503: {seed}", f"Error code: 502 {seed}",
                                      f"RuntimeError: worker exited with code 1 {seed}"]))
    text, other = _shaped_pair(data, seed)
    for asked in (text, other, _reclassed(data, text)):
        assert know.digit_decisions(asked) == tuple(
            bool(p.search(asked)) for p, _ in know._reading), asked


@pytest.mark.parametrize(("needles", "line", "may"), [
    (("[c10d] The client socket",), "[c10d] The client socket has failed", True),
    (("[c10d] The client socket",), "[c23d] The client socket has failed", True),  # one shape
    (("[c10d] The client socket",), '127.0.0.1:5100 - "POST /v1 HTTP/1.1" 200 OK', False),
    (("HTTP 5",), "HTTP 503: Service Unavailable", True),
    (("HTTP 5",), "HTTP Error: bad", False),
    (("Avg prompt throughput: 0.0",), "Avg prompt throughput: 12.5 tokens/s", False),
    (("Avg prompt throughput: 0.0",), "Avg prompt throughput: 1.5 tokens/s", True),
    ((), "anything", True),
])
def test_required_texts_with_digits_screen_a_shape(needles: tuple[str, ...], line: str,
                                                   may: bool) -> None:
    """A pattern is left out of a shape's candidates only when none of its required texts,
    masked, is in the shape: never when a line of the shape may hold one (digits aside)."""
    from logsleuth.knowledge import _may_hold_shape
    assert _may_hold_shape(needles, shape_key(line)) is may
    if not may:
        assert not any(n in line for n in needles)
