"""A blank line behind a wrapper is a blank line (issue 10; session 28).

Every launcher's, viewer's or paste's wrapper (tests/metamorphic.py LINE_WRAPPERS: docker's and
CRI's times, compose, kubectl, journald, srun, a markdown quote), and a process prefix (vLLM's,
Ray's) behind one or none, with nothing or whitespace behind it: the grammar reads a BLANK line
behind that wrapper; the locator ends an exception's message below at it as at a bare blank line,
so the lines it locates are the unwrapped log's; the message the assembler reads is the same.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.locate import locate
from logsleuth.model import LineKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet
from logsleuth.tokenize import parse_line
from logsleuth.tokenize.scan import located_by
from metamorphic import LINE_WRAPPERS, Anchor

PREFIXES = ["", "(VllmWorker rank=1 pid=5170) ", "(RayWorkerWrapper pid=2011, ip=10.0.0.3) ",
            "(pid=2011, ip=10.0.0.3) ", "(EngineCore_DP0 pid=4242) "]
SPACES = ["", " ", "   ", "\t"]
WORDS = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=8)


def _wrap(lines: list[str], wrapper: str, seed: int) -> list[str]:
    if not wrapper:
        return lines
    moved = LINE_WRAPPERS[wrapper](lines, random.Random(seed), Anchor(1, 1))
    assert moved is not None and len(moved.lines) >= len(lines)
    return moved.lines


@pytest.mark.parametrize("wrapper", sorted(LINE_WRAPPERS))
def test_a_wrapped_blank_line_reads_as_blank(wrapper: str) -> None:
    for prefix in PREFIXES:
        for space in SPACES:
            line = _wrap([prefix + space], wrapper, len(prefix + space))[0]
            record = parse_line(line)
            assert record.kind is LineKind.BLANK, (line, record)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["", *sorted(LINE_WRAPPERS)]), st.sampled_from(SPACES),
       st.lists(WORDS, min_size=1, max_size=4), st.lists(WORDS, min_size=1, max_size=4),
       st.integers(0, 2**16))
def test_a_message_below_ends_at_a_wrapped_blank_line(wrapper: str, space: str,
                                                      message: list[str], after: list[str],
                                                      seed: int) -> None:
    """`ImportError:` with its message on the lines below, a blank line, then other text: the
    message is the lines down to the blank line, wrapped or not, and the text after it is
    located (or not) as it is unwrapped."""
    plain = ["INFO 01-02 03:04:05 [api_server.py:1] vLLM API server version 0.9.2",
             "Traceback (most recent call last):",
             '  File "/opt/run.py", line 3, in <module>',
             "    import flash_zorbit",
             "ImportError: ", " ".join(message), space, " ".join(after)]
    lines = _wrap(plain, wrapper, seed)
    located = [n for n, _ in locate(("\n".join(lines) + "\n").encode(), 0, located_by())[0]]
    unwrapped = [n for n, _ in locate(("\n".join(plain) + "\n").encode(), 0, located_by())[0]]
    if wrapper != "cri":  # (CRI may cut a long line in pieces: other line numbers)
        assert located == unwrapped, (lines, located, unwrapped)
    report = explain_text("\n".join(lines) + "\n", signatures=SignatureSet([]))
    assert report.root_cause is not None and report.root_cause.exception == "ImportError"
    assert report.root_cause.message == " ".join(message), (lines, report.root_cause.message)
