"""A message a reporter, a tracker or a terminal broke across lines is matched as the one sentence
it was (signatures/match.py `_readings`: the line break, with the indentation around it, read as
the space it replaced), for every signature whose positive example ends in a one-line
`Type: message` of several words: the example and its wrapped copies get the same answer.

The break falls before a word that starts in lower case (a capitalised or numeric continuation
may be a line of its own in some shape: the grammar's business, not matching's). A break between
two messages' sentences adds a reading, never removes one: an unbroken message's answer is
unchanged (the example itself is the near miss's check)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.resources import data_dir

_ENDING = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)): (\S.{38,})$")
_BREAKABLE = re.compile(r" (?=[a-z])")


@cache
def _examples() -> tuple[tuple[str, str, str], ...]:
    """(signature id, the example's text up to its last line, that last line) of every positive
    example of at most 20 lines whose last line is a long `Type: message` with a place to break."""
    found = []
    for log in sorted(Path(data_dir("signatures")).rglob("*.log")):
        if log.name.endswith(".negative.log"):
            continue
        lines = log.read_text(encoding="utf-8", errors="replace").rstrip("\n").split("\n")
        ending = _ENDING.match(lines[-1]) if 0 < len(lines) <= 20 else None
        if ending and len(list(_BREAKABLE.finditer(ending[2]))) >= 4:
            found.append((log.stem, "\n".join(lines[:-1]), lines[-1]))
    return tuple(found)


def _answer(log: str) -> str | None:
    from logsleuth.pipeline import explain_text
    from logsleuth.signatures import default_signatures

    report = explain_text(log, signatures=default_signatures())
    return None if report.signature is None else report.signature.id


def test_there_are_examples_to_wrap() -> None:
    assert len(_examples()) >= 200


@settings(max_examples=60, deadline=None)
@given(data=st.data(), indent=st.sampled_from(["", "  ", "    ", "\t"]),
       trailing=st.sampled_from(["", " "]))
def test_a_message_broken_across_lines_gets_the_answer_of_the_unbroken_one(
        data: st.DataObject, indent: str, trailing: str) -> None:
    sid, head, last = data.draw(st.sampled_from(_examples()), label="example")
    unbroken = (head + "\n" if head else "") + last + "\n"
    answer = _answer(unbroken)
    if answer != sid:
        return  # an example another signature answers: that signature's own tests decide
    exception, message = _ENDING.match(last).groups()  # type: ignore[union-attr]
    places = [m.start() for m in _BREAKABLE.finditer(message)]
    cut = data.draw(st.sampled_from(places), label="cut")
    broken = f"{exception}: {message[:cut]}{trailing}\n{indent}{message[cut + 1:]}"
    log = (head + "\n" if head else "") + broken + "\n"
    assert _answer(log) == sid, log
