"""Whole lines that differ only in their digits are read once per shape.

A rejected request's first line, its exception line and its access line come back all day with
new numbers (a time, a pid, a port, a token count). shape.py keeps each *lexing* decision per
digit-masked line; this keeps the whole *reading*: where in the line each field of the parsed
head and body comes from. The second line of a shape is read again with every digit changed (a
probe); every field that differs between the two readings must be the line's own text at one
place, or the int of one whole run of digits there, and every other field must be equal. A later
line of that shape is then built from its own text at those places, without the lexers, the
transformer methods or the caches parse_split goes through. A shape whose reading is no such
plan (a frame's line number, a field computed from digits, a body Lark parsed) is marked and
read by parse_split every time.

Sound where parse_split's decisions cannot see digits: every head terminal is digit-blind
(shape.py proves it), and the body is read by the fast path's per-shape decision with no
digit-sighted terminal able to take it (asked of every line). tests/test_linememo.py checks the
memo against parse_split on every corpus and mix line and on generated variations.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any

from logsleuth.model import LogLine, Process
from logsleuth.tokenize.grammar import (SHAPED_CHARS, Split, blind_body, continuation,
                                        head_blind, interned, parse_split, unsighted_body)
from logsleuth.tokenize.shape import ShapeCache, shape_key

Build = Callable[[str], Any]  # a field of a reading, from the text of a line of its shape


class _Plan:
    """How a line of one shape is read: where the head ends, and its head and body builders."""

    __slots__ = ("end", "head", "body", "repeatable", "sighted", "own_head", "last_text",
                 "last_head")

    def __init__(self, end: int, head: Build, body: Build, repeatable: bool, sighted: bool,
                 own_head: bool = False):
        self.end, self.head, self.body, self.repeatable = end, head, body, repeatable
        # whether a line's body must be asked if a digit-sighted terminal could take it: not
        # when the shape's body holds no digit (every body of the shape is that very text)
        self.sighted = sighted
        # whether the head is read from the head's own text alone (text[:end]): then a line
        # whose head text is the last one's has the last one's head (an access line's head,
        # `(APIServer pid=7) INFO:     `, is the same on every line of its process)
        self.own_head = own_head
        self.last_text: str = "\0"  # the last line's head text and head (of its own plan)
        self.last_head: Any = None


Plan = _Plan  # for the tokenizer, which keeps plans by the raw line's shape
_UNPLANNED = _Plan(0, str, str, False, False)  # a shape read by parse_split every time


class LineMemo:
    """parse_split, with the reading of each shape seen twice kept as a plan (bounded)."""

    def __init__(self, bound: int = 4096, seed: int = 0):
        self._seen: ShapeCache[bool] = ShapeCache(bound)
        self._plans: ShapeCache[_Plan] = ShapeCache(bound)
        self._rng = random.Random(seed)

    def parse(self, text: str, number: int = 0) -> tuple[LogLine, Split | None]:
        """What parse_split(text, number) gives."""
        if len(text) > SHAPED_CHARS or not head_blind():
            return parse_split(text, number)
        key = shape_key(text)
        plan = self._plans.get(key)
        if plan is None:
            line, split = parse_split(text, number)
            if self._seen.get(key) is None:
                self._seen.put(key, True)  # a shape met once may never come back: no probe yet
            else:
                self._plans.put(key, self._plan(text, split) or _UNPLANNED)
            return line, split
        if plan is _UNPLANNED:
            return parse_split(text, number)
        made = self.read(plan, text, number)
        return made if made is not None else parse_split(text, number)

    def plan_of(self, key: bytes) -> _Plan | None:
        """The plan kept for the shape `key` (shape_key), if it has one to read by."""
        plan = self._plans.get(key)
        return None if plan is None or plan is _UNPLANNED else plan

    @staticmethod
    def read(plan: _Plan, text: str, number: int = 0) -> tuple[LogLine, Split] | None:
        """A line of the plan's shape read by the plan (what parse_split gives), or None when
        its body must be asked of parse_split (a digit-sighted terminal could take it)."""
        if plan.sighted and not unsighted_body(text[plan.end:]):
            return None
        if plan.own_head:
            head_text = text[:plan.end]
            if head_text == plan.last_text:
                head = plan.last_head
            else:
                head = plan.last_head = plan.head(text)
                plan.last_text = head_text
        else:
            head = plan.head(text)
        body = plan.body(text)
        return continuation(head, body, number), Split(plan.end, head, body, plan.repeatable)

    def _plan(self, text: str, split: Split | None) -> _Plan | None:
        if split is None or not _same_body_for_shape(text[split.end:]):
            return None
        probe = self._probe(text)
        other = parse_split(probe)[1]
        if other is None or other.end != split.end or other.repeatable != split.repeatable \
                or not _same_body_for_shape(probe[other.end:]):
            return None
        head = _field(split.head, other.head, text, probe)
        body = _field(split.body, other.body, text, probe)
        if head is None or body is None:
            return None
        # the same reading from the head's text alone: found there, a field's place is the one
        # found in the whole text (a place unique in the whole text is unique in a part of it
        # that holds it), so the head depends on the head's text only
        end = split.end
        own = _field(split.head, other.head, text[:end], probe[:end]) is not None
        return _Plan(end, head, body, split.repeatable, _DIGIT.search(text, end) is not None,
                     own)

    def _probe(self, text: str) -> str:
        """The text with every ASCII digit changed (never to 0: no run gains a leading zero)."""
        choice = self._rng.choice
        return "".join(choice(_OTHER_DIGITS[c]) if c in _OTHER_DIGITS else c for c in text)


_DIGIT = re.compile("[0-9]")


def _same_body_for_shape(body: str) -> bool:
    """Whether every line of this body's shape has a body read as this one is: one the fast
    path reads by its shape (`blind_body`), or one that holds no digit, which is then the very
    body of every line of the shape (the head ends at one place in a shape, and the body is
    parsed from its text alone), whatever reads it: a terminal that tells digits apart or Lark
    (`EngineCore failed to start.`, systemd's `Failed with result 'exit-code'.`, read by
    parse_split at every start of a crash loop)."""
    return _DIGIT.search(body) is None or blind_body(body)


_OTHER_DIGITS = {d: [o for o in "123456789" if o != d] for d in "0123456789"}


def _field(one: object, two: object, text: str, probe: str) -> Build | None:
    """How a field read as `one` from `text` and `two` from `probe` is read from any line of
    their shape, or None when it cannot be told."""
    if type(one) is type(two) and one == two:
        return lambda _text: one
    if isinstance(one, str) and isinstance(two, str):
        where = _place(one, two, text, probe)
        if where is None:
            return None
        start, stop = where
        return lambda line: line[start:stop]
    if type(one) is int and type(two) is int and one >= 0 and two >= 0:
        where = _place(str(one), str(two), text, probe)
        if where is None or not _whole_run(text, *where) or not _whole_run(probe, *where):
            return None
        start, stop = where
        return lambda line: int(line[start:stop])
    if type(one) is not type(two) or not is_dataclass(one) or isinstance(one, type):
        return None
    values: list[object] = []  # the fields equal in both readings, as they are
    varying: list[tuple[int, Build]] = []  # and where each other one comes from
    for index, item in enumerate(fields(one)):
        value, other = getattr(one, item.name), getattr(two, item.name)
        values.append(value)
        if type(value) is not type(other) or value != other:
            part = _field(value, other, text, probe)
            if part is None:
                return None
            varying.append((index, part))
    make: Callable[..., object] = interned if isinstance(one, Process) else type(one)
    if len(varying) == 1:  # the common case (a time, a pid, a message): one call, no loop
        (index, part), = varying
        before, after = values[:index], values[index + 1:]
        return lambda line: make(*before, part(line), *after)
    if len(varying) == 2:  # an exception's text and message, a record's time and text
        (one_at, one_part), (two_at, two_part) = varying
        before, between, after = values[:one_at], values[one_at + 1:two_at], values[two_at + 1:]
        return lambda line: make(*before, one_part(line), *between, two_part(line), *after)

    def build(line: str) -> object:
        args = values.copy()
        for index, part in varying:
            args[index] = part(line)
        return make(*args)
    return build


def _place(one: str, two: str, text: str, probe: str) -> tuple[int, int] | None:
    """The one place where `text` holds `one` and `probe` holds `two`, if there is one."""
    if len(one) != len(two) or not one:
        return None
    found: tuple[int, int] | None = None
    start = text.find(one)
    while start >= 0:
        if probe.startswith(two, start):
            if found is not None:
                return None  # two places: which one a line of the shape reads is not known
            found = (start, start + len(one))
        start = text.find(one, start + 1)
    return found


def _whole_run(text: str, start: int, stop: int) -> bool:
    """Whether text[start:stop] is a whole run of digits (int() of a part would read another
    number on a line whose leading digit differs)."""
    return (start == 0 or not text[start - 1].isdigit()) \
        and (stop == len(text) or not text[stop].isdigit())
