"""Needles (logsleuth/signatures/needle.py): a literal every match of a signature's pattern
contains, checked before the regex search. A needle that a match can lack would drop a match
silently, so: every match drawn from a pattern holds its needle, every match found in the
signatures' own example logs holds it, and ranking gives the same answers with needles as
without them."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report
from logsleuth.pipeline import explain
from logsleuth.signatures import default_signatures
from logsleuth.signatures.match import SignatureSet
from logsleuth.signatures.needle import Needle, lowered_if_ascii, needle_of

SIGNATURES = default_signatures()
SCREENED = [(pattern, needle) for signature in SIGNATURES
            for pattern, needle in zip(signature.patterns, signature.needles) if needle]


def _holds(needle: Needle, text: str) -> bool:
    return not needle.absent(text, lowered_if_ascii(text))


@pytest.mark.parametrize(("pattern", "needle"), [
    ("CUDA error: an illegal memory access(?: was encountered)?",
     Needle("CUDA error: an illegal memory access", False)),
    ("(?i)no space left on device", Needle("no space left on device", True)),
    (r"^ValueError: .*max_model_len \(\d+\)", Needle("max_model_len (", False)),
    ("Engine core (?:initialization|init) failed", Needle("Engine core init", False)),  # the common start
])
def test_the_longest_top_level_literal_is_the_needle(pattern: str, needle: Needle) -> None:
    assert needle_of(pattern) == needle


@pytest.mark.parametrize("pattern", [
    "out of memory|OOM",  # an alternation at the top: either side may match alone
    "(?:CUDA|HIP)_ok",  # three characters outside the group at most: too few to screen
    r"(?:illegal memory access){e<=1}",  # `regex`'s fuzzy matching: the letters may differ
    "(?i)Straße",  # folded, not ASCII: lower-casing is not the search's case folding
    "abc(?i)def",  # a global flag after the start: Python's parser refuses it
    r"\p{Lu}+ failed",  # `regex`'s own syntax
])
def test_no_needle_where_a_match_may_lack_any_literal(pattern: str) -> None:
    assert needle_of(pattern) is None


def test_a_folded_needle_screens_only_ascii_texts() -> None:
    needle = Needle("kernel", True)
    assert needle.absent("CUDA error", lowered_if_ascii("CUDA error"))
    assert not needle.absent("KERNEL image", lowered_if_ascii("KERNEL image"))
    assert not needle.absent("\u212aernel", lowered_if_ascii("\u212aernel"))  # Kelvin sign: searched


def test_most_shipped_patterns_have_a_needle() -> None:
    patterns = sum(len(signature.patterns) for signature in SIGNATURES)
    assert len(SCREENED) >= 0.8 * patterns  # 1349 of 1405 when written


# patterns Python's `re` reads as the `regex` module does, for hypothesis to draw matches from
_DRAWABLE = []
for _pattern, _needle in SCREENED:
    try:
        re.compile(_pattern.pattern)
    except re.error:
        continue
    _DRAWABLE.append((_pattern.pattern, _needle))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_every_drawn_match_holds_its_needle(data: st.DataObject) -> None:
    pattern, needle = data.draw(st.sampled_from(_DRAWABLE))
    text = data.draw(st.from_regex(pattern))
    assert _holds(needle, text), (pattern, needle, text)


def test_every_match_in_the_example_logs_holds_its_needle() -> None:
    checked = 0
    for signature in SIGNATURES:
        for example, _ in signature.examples():
            lines = example.read_text(encoding="utf-8", errors="replace").splitlines()
            for pattern, needle in zip(signature.patterns, signature.needles):
                for line in lines:
                    if needle and pattern.search(line):
                        checked += 1
                        assert _holds(needle, line), (signature.id, pattern.pattern, line)
    assert checked > 500


def _answer(report: Report) -> tuple[object, ...]:
    ranked = ([report.signature] if report.signature else []) + list(report.alternatives)
    return tuple((m.id, round(m.score, 6)) for m in ranked)


def test_ranking_is_the_same_without_needles() -> None:
    """On a sample of the signatures' example logs (every seventh signature)."""
    unscreened = SignatureSet([dataclasses.replace(s, needles=()) for s in SIGNATURES])
    sample = [example for signature in list(SIGNATURES)[::7] for example, _ in signature.examples()]
    assert len(sample) > 100
    for example in sample:
        assert _answer(explain(example, signatures=SIGNATURES)) == \
            _answer(explain(example, signatures=unscreened)), example
