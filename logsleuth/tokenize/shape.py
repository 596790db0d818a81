"""Lines that differ only in their digits are lexed the same way: a lexing decision is kept per
digit-masked line (its shape) and reused for every line of that shape.

A rejected request's exception line, an access line or an engine's metrics line come back all
day with new numbers (a time, a port, a token count): the terminals that take them, and where
each token ends, are the same whenever the regular expressions that decide it never tell one
ASCII digit from another. `digit_blind` proves that of a pattern from its syntax tree (no
literal digit, no class holding some digits but not all, no back-reference); a decision is
reused only where every pattern that made it is blind, or can be shown absent (fastpath.py).
The tokens are then cut from the line itself at the kept boundaries and transformed as Lark's
own would be, so the numbers in a LogLine are always the line's own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from re import _constants as sre
from re import _parser as sre_parse
from collections.abc import Callable
from typing import Any, Generic, TypeVar

_DIGITS = frozenset(range(ord("0"), ord("9") + 1))
# every ASCII digit becomes `0`: two lines with the same mask differ only in digits
_MASK = MASK = bytes.maketrans(b"123456789", b"000000000")
_ALL_DIGITS = (sre.CATEGORY_DIGIT, sre.CATEGORY_WORD, sre.CATEGORY_NOT_SPACE,
               sre.CATEGORY_UNI_DIGIT, sre.CATEGORY_UNI_WORD, sre.CATEGORY_UNI_NOT_SPACE)
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)

Decision = TypeVar("Decision")


def shape_key(text: str) -> bytes:
    """The line with every ASCII digit masked (as bytes: `bytes.translate` is a table lookup,
    `str.translate` a dictionary call per character)."""
    return text.encode("utf-8", "surrogatepass").translate(_MASK)


@lru_cache(maxsize=1024)
def digit_blind(pattern: str, flags: int = 0) -> bool:
    """Whether every match decision of `pattern` (which alternative, where it ends) is the same
    on two texts that differ only in ASCII digits: no construct of it tells digits apart."""
    try:
        tree = sre_parse.parse(pattern, flags)
    except re.error:
        return False
    return _blind(tree)


def _blind(items: Any) -> bool:
    for op, value in items:
        if op in (sre.LITERAL, sre.NOT_LITERAL):
            if value in _DIGITS:
                return False
        elif op is sre.IN:
            if not _class_blind(value):
                return False
        elif op in _REPEATS:
            if not _blind(value[2]):
                return False
        elif op is sre.SUBPATTERN:
            if not _blind(value[3]):
                return False
        elif op is sre.BRANCH:
            if not all(_blind(branch) for branch in value[1]):
                return False
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            if not _blind(value[1]):
                return False
        elif op is sre.ATOMIC_GROUP:
            if not _blind(value):
                return False
        elif op in (sre.GROUPREF, sre.GROUPREF_EXISTS, sre.GROUPREF_IGNORE,
                    sre.GROUPREF_LOC_IGNORE, sre.GROUPREF_UNI_IGNORE):
            return False  # a back-reference compares the digits themselves
        elif op not in (sre.ANY, sre.AT, sre.CATEGORY):
            return False  # anything not known to be blind is taken as seeing digits
    return True


@lru_cache(maxsize=1024)
def digit_classes(patterns: tuple[str, ...]) -> bytes | None:
    """A `bytes.translate` table that maps each ASCII digit to the least digit of its class,
    where two digits are of one class when no construct of any of `patterns` tells them apart:
    every literal digit and every character class holds both or neither. Two texts whose
    encodings this table maps alike (digits of one class at every place, the rest equal) get
    the same match decisions and spans from each pattern. None when a pattern cannot be read
    that way (a back-reference compares the digits themselves; an unparsable one is unknown).
    `digit_blind` is the case of a single class."""
    found: list[frozenset[int]] = []  # the digits each digit-telling construct holds
    for pattern in patterns:
        try:
            tree = sre_parse.parse(pattern)
        except re.error:
            return None
        if not _digit_sets(tree, found):
            return None
    digits = sorted(_DIGITS)
    least: dict[tuple[bool, ...], int] = {}
    to = [least.setdefault(tuple(digit in held for held in found), digit) for digit in digits]
    return bytes.maketrans(bytes(digits), bytes(to))


def _digit_sets(items: Any, found: list[frozenset[int]]) -> bool:
    """Add to `found` the digits each literal digit and each class that holds some digits but
    not all holds (False: a construct not known to see digits only that way)."""
    for op, value in items:
        if op in (sre.LITERAL, sre.NOT_LITERAL):
            if value in _DIGITS:
                found.append(frozenset((value,)))
        elif op is sre.IN:
            held = _class_digits(value)
            if held is None:
                return False
            if held and held != _DIGITS:
                found.append(held)
        elif op in _REPEATS:
            if not _digit_sets(value[2], found):
                return False
        elif op is sre.SUBPATTERN:
            if not _digit_sets(value[3], found):
                return False
        elif op is sre.BRANCH:
            if not all(_digit_sets(branch, found) for branch in value[1]):
                return False
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            if not _digit_sets(value[1], found):
                return False
        elif op is sre.ATOMIC_GROUP:
            if not _digit_sets(value, found):
                return False
        elif op not in (sre.ANY, sre.AT, sre.CATEGORY):
            return False  # a back-reference, or anything not known (as in `_blind`)
    return True


def _class_digits(items: Any) -> frozenset[int] | None:
    """The digits a character class holds (negation aside: it holds the others, which splits
    the digits alike), or None for an item not known."""
    held: set[int] = set()
    for op, value in items:
        if op is sre.LITERAL:
            held.add(value)
        elif op is sre.RANGE:
            held.update(range(value[0], value[1] + 1))
        elif op is sre.CATEGORY:
            if value in _ALL_DIGITS:
                held.update(_DIGITS)
        elif op is not sre.NEGATE:
            return None
    return frozenset(held & _DIGITS)


def _class_blind(items: Any) -> bool:
    """A character class holds all ten digits or none of them (negation does not change that)."""
    digits = _class_digits(items)
    return digits is not None and (not digits or digits == _DIGITS)


class ShapeCache(Generic[Decision]):
    """Decisions by shape, with a bound: a log of few shapes keeps them all, one of endless
    shapes (every line a new prompt) starts again rather than grow."""

    def __init__(self, bound: int = 4096):
        self._bound = bound
        self._decisions: dict[bytes, Decision] = {}
        # the decision kept for a shape, if any: the dict's own method (asked of nearly every
        # line read; `put` clears this dict, never replaces it)
        self.get: Callable[[bytes], Decision | None] = self._decisions.get

    def put(self, key: bytes, decision: Decision) -> None:
        """Keep a decision for a shape."""
        if len(self._decisions) >= self._bound:
            self._decisions.clear()
        self._decisions[key] = decision
