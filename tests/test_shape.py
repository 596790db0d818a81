"""Lexing decisions kept per digit-masked line (logsleuth/tokenize/shape.py) give what a fresh
parse gives: the blindness proof on a table of patterns, and copies of every corpus and mix line
with other digits read after the line (so that its shape's decision is reused)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus_judge import iter_logs
from digits import redigit
from logsleuth.tokenize import clean, parse_line, parse_line_whole
from logsleuth.tokenize.shape import ShapeCache, digit_blind, digit_classes, shape_key
from mix_logs import MIXES, mix_log


@pytest.mark.parametrize(("pattern", "blind"), [
    (r"\d+", True), (r"[0-9a-f]+", True), (r"[^0-9]", True), (r"\w+:\d+\]", True),
    (r"\S+ pid=\d+", True), (r".*?%", True), (r"[^()\n]*? pid=", True), (r"\D+", True),
    (r"(?:ERROR|INFO) \d\d-\d\d", True), (r"(?i:error)\b", True), (r"(?=\d)\d", True),
    (r"code 4\d\d", False), (r"[0-3]", False), (r"[^4]", False), (r"collect2: ", False),
    (r"HTTP/1\.1", False), (r"(\d)\1", False), (r"(?P<a>x)(?P=a)", False), (r"[1-9]\d*", False),
])
def test_digit_blindness_of_patterns(pattern: str, blind: bool) -> None:
    assert digit_blind(pattern) is blind


@given(st.text(alphabet="ab0123456789 :-.", max_size=30), st.integers(0, 2**32))
def test_blind_patterns_decide_alike_on_any_digits(text: str, seed: int) -> None:
    """The property the proof stands for, on patterns it calls blind."""
    import re
    other = redigit(text, random.Random(seed))
    assert shape_key(text) == shape_key(other)
    for pattern in (r"\d+:\d+", r"a\w*b", r"[^a]+", r"(?:\d\d-)+|\S+ ", r"\b\d+\.\d+\b"):
        assert digit_blind(pattern)
        one, two = re.match(pattern, text), re.match(pattern, other)
        assert (one is None) == (two is None)
        if one is not None and two is not None:
            assert (one.end(), one.lastindex) == (two.end(), two.lastindex)


@pytest.mark.parametrize(("patterns", "classes"), [
    ((r"\d+",), "0000000000"), ((r"[0-9a-f]+", r"\w:\S"), "0000000000"),
    ((r"code 5\d\d",), "0000050000"), ((r"[^4]",), "0000400000"), ((r"[1-9]\d*",), "0111111111"),
    ((r"HTTP/[\d.]+\" 2\d\d ", r"HTTP/[\d.]+\" 4\d\d "), "0020400000"),
    ((r"[1-4]\d\d", r"0\.0"), "0111155555"), ((r"(?!0\/)\d+/",), "0111111111"),
    ((r"\[c10d\]", r"x[3-5]"), "0123332222"), ((r"(?i:Exit 7)",), "0000000700"),
])
def test_digit_classes_of_patterns(patterns: tuple[str, ...], classes: str) -> None:
    table = digit_classes(patterns)
    assert table is not None and table[48:58] == classes.encode()
    assert (classes == "0000000000") is all(digit_blind(p) for p in patterns)


@pytest.mark.parametrize("patterns", [
    (r"(\d)\1",), (r"x", r"(?P<a>\d)(?P=a)"), (r"(?(1)a|b)",), (r"[",),
])
def test_digit_classes_unknown(patterns: tuple[str, ...]) -> None:
    """A back-reference compares digits themselves; a pattern `re` cannot read is unknown."""
    assert digit_classes(patterns) is None


_CLASSED_PATTERNS = (r'HTTP/[\d.]+"? (?P<code>5\d\d) ', r"[1-4]\d\d\b", r"throughput: (?:[1-9]|0\.\d*[1-9])",
                     r"(?!0/|9/KILL)\d+/\w+", r"\[c10d\] \S+", r"^\d{3,4}-\d+$", r"\b(?:2|40)\d\b")


@given(st.text(alphabet="ab0123456789 :-./\"HTPK[]cdI", max_size=40), st.integers(0, 2**32))
def test_patterns_decide_alike_on_one_class_key(text: str, seed: int) -> None:
    """The property the classes stand for: two texts that the table maps alike (other digits of
    the same class at the same places) get the same decision and spans from every pattern;
    texts built around what the patterns read (status codes, rates, exit statuses)."""
    import re
    rng = random.Random(seed)
    table = digit_classes(_CLASSED_PATTERNS)
    assert table is not None
    text = rng.choice(["", 'HTTP/1.1" ', "throughput: ", "[c10d] ", "9/KILL "]) + text
    members: dict[int, list[int]] = {}
    for digit in range(48, 58):
        members.setdefault(table[digit], []).append(digit)
    other = "".join(chr(rng.choice(members[table[ord(c)]])) if c.isdigit() and c.isascii()
                    else c for c in text)
    assert text.encode().translate(table) == other.encode().translate(table)
    for pattern in _CLASSED_PATTERNS:
        one, two = re.search(pattern, text), re.search(pattern, other)
        assert (one is None) == (two is None), (pattern, text, other)
        if one is not None and two is not None:
            assert one.regs == two.regs


def test_other_classes_may_decide_otherwise() -> None:
    """Near misses: digits of two classes are told apart (a 503 is not a 403, a 0.0 rate is
    not a 0.5 one), so their texts must not share a key."""
    table = digit_classes(_CLASSED_PATTERNS)
    assert table is not None
    for one, two in (('HTTP/1.1" 503 ', 'HTTP/1.1" 403 '), ("throughput: 0.0", "throughput: 0.5"),
                     ("9/KILL", "1/KILL"), ("[c10d] x", "[c20d] x")):
        assert one.encode().translate(table) != two.encode().translate(table)


def test_shape_cache_is_bounded() -> None:
    cache: ShapeCache[int] = ShapeCache(bound=3)
    for index in range(10):
        cache.put(str(index).encode(), index)
    assert sum(cache.get(str(i).encode()) is not None for i in range(10)) <= 3


def _check_variants(raw: bytes, rng: random.Random) -> None:
    text = clean(raw.decode("utf-8", "replace"))
    if not any(c.isdigit() for c in text):
        return
    # its shape is decided here; that this reading is Lark's, test_fastpath asserts on the same
    # lines (every corpus line, every distinct mix line cut at 4 KiB): asked again here, it
    # was a third of this module's Lark parses
    parse_line(text)
    for _ in range(2):
        other = redigit(text, rng)
        assert parse_line(other) == parse_line_whole(other), other  # and reused here


@pytest.mark.parametrize("log", list(iter_logs()),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_shapes_agree_with_lark_on_corpus_lines(log: Path) -> None:
    rng = random.Random(log.name)
    for raw in dict.fromkeys(log.read_bytes().split(b"\n")):
        _check_variants(raw, rng)


@pytest.mark.parametrize("mix", MIXES)
def test_shapes_agree_with_lark_on_generated_lines(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    rng = random.Random(mix)
    for raw in dict.fromkeys(path.read_bytes().split(b"\n")):
        _check_variants(raw[:4096], rng)


_SIGHTED = [  # bodies a digit-sighted terminal takes or not, by their digits alone
    '{"object":"error","message":"x","type":"BadRequestError","code":400}',
    '{"object":"error","message":"x","type":"InternalServerError","code":500}',
    "collect2: error: ld returned 1 exit status", "collect3: error: ld returned 1 exit status",
    "Exit Code:    137", "Exit Code:    138",
    "Thread 0x00007f (most recent call first):", "Thread 1x00007f (most recent call first):",
    "vllm.service: Main process exited, code=killed, status=9/KILL",
    "vllm.service: Main process exited, code=killed, status=8/KILL",
]


@given(st.permutations(_SIGHTED), st.sampled_from(["", "(APIServer pid=12) ",
                                                   "(APIServer pid=12) ERROR 01-02 03:04:05 [a.py:6] "]))
def test_digit_sighted_terminals_are_asked_on_every_line(bodies: list[str], head: str) -> None:
    for body in bodies:
        text = head + body
        assert parse_line(text) == parse_line_whole(text), text
