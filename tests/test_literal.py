"""One pass over a long line for many texts (literal.Needles), and the tests that use it: each must
say what the substring tests it replaces say, on every text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.knowledge import default_causality
from logsleuth.literal import SCREEN_CHARS, Needles
from logsleuth.tokenize.grammar import may_hold_colour

# pieces that make needles and lines: regex metacharacters, colour codes, non-ASCII text
_PIECES = ["a", "b", "m", "(", ")", "[", "]", ".", "*", "\\", "|", "?", "+", " ", "\x1b", "ESC",
           "#033", "^", "█", "é", "version ", " backend", "model", "0;36m", "\n"]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=8), _TEXT)
def test_needles_present_are_the_texts_the_line_holds(texts: list[str], line: str) -> None:
    needles = Needles(texts)
    assert needles.present(line) == {text for text in texts if text and text in line}
    assert needles.any_in(line) == any(text and text in line for text in texts)


def _colour_by_substrings(raw: str) -> bool:
    return "\x1b" in raw or "[[" in raw or "ESC[" in raw or "#033[" in raw or "m(" in raw \
        or ")[" in raw or raw[:1] == "[" and "m" in raw[2:12]


@settings(max_examples=300, deadline=None)
@given(_TEXT, _TEXT, st.integers(0, 2 * SCREEN_CHARS))
def test_colour_test_of_a_long_line_is_the_substring_test(head: str, tail: str, fill: int) -> None:
    raw = head + "x" * fill + tail
    assert may_hold_colour(raw) == _colour_by_substrings(raw)


_LINES = ["Starting vLLM API server 0 on http://0.0.0.0:8000", "Application startup complete.",
          "Model loading took 16.43 GiB memory and 23.1 seconds",
          "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%",
          "Loading safetensors checkpoint shards: 100% Completed | 4/4",
          "Graph capturing finished in 12 secs, took 0.54 GiB", "Shutting down FastAPI HTTP server.",
          "Received request chatcmpl-1: prompt: 'the dead letter queue and the backend version'"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_LINES), st.sampled_from(_LINES), _TEXT, st.integers(0, 2 * SCREEN_CHARS))
def test_milestones_and_phases_of_a_long_line_are_its_first_matching_pattern(
        first: str, second: str, filler: str, fill: int) -> None:
    causality = default_causality()
    text = first + " " + filler + "y" * fill + " " + second
    assert causality.milestone_of(text) == next(
        (kind for kind, pattern in causality.milestones if pattern.search(text)), None)
    assert causality.phase_of_line(text) == next(
        (phase for phase, pattern in causality.phase_lines if pattern.search(text)), None)


_LOOKING = [r"\S[^\n]{0,40}?[\s:](?=NCCL error(?: in)?: |CUDA error: )",
            r"[a-z]+ (?=Error code: 5\d\d - )", r"ab(?=cd|ef)", r"x(?=abc)?y", r"a|b(?=cdef)",
            r"q(?!rst)", r"(?:u(?=vwx))w"]
_LOOK_PIECES = ["NCCL error", " in", ": ", "CUDA error", "Error code", " 5", "03", " - ", "ab",
                "cd", "ef", "x", "y", "abc", "q", "rst", "u", "vwx", "w", "z", " "]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_LOOKING), st.lists(st.sampled_from(_LOOK_PIECES), max_size=12))
def test_a_line_without_the_looked_ahead_texts_cannot_match(pattern: str,
                                                           pieces: list[str]) -> None:
    """Every match (the look-ahead's text included) holds one of the texts: a line holding none
    of them is never matched (body lexer's screen of its digit-sighted terminals)."""
    import re

    from logsleuth.literal import looked_ahead_literals

    line = "".join(pieces)
    texts = looked_ahead_literals(pattern, 2)
    if texts and not any(text in line for text in texts):
        assert re.search(pattern, line) is None


def test_looked_ahead_texts_are_taken_only_where_every_match_looks_ahead() -> None:
    from logsleuth.literal import looked_ahead_literals

    assert looked_ahead_literals(r"\S[^\n]{0,9}?:(?=NCCL error: |CUDA error: )", 4) \
        == ("NCCL error: ", "CUDA error: ")
    assert looked_ahead_literals(r"x(?=abcd)?y", 2) == ()  # optional
    assert looked_ahead_literals(r"a|b(?=cdef)", 2) == ()  # one branch does not look ahead
    assert looked_ahead_literals(r"(?:u(?=vwxy))w", 2) == ()  # not at the top level
