"""Copies of a text with other digits, for the tests that check a per-shape reading (a shape
masks the digits) on lines whose numbers moved."""

from __future__ import annotations

import random
import re

DIGITS = "0123456789"
_DIGIT = re.compile("[0-9]")


def redigit(text: str, rng: random.Random) -> str:
    """`text` with each ASCII digit replaced by a digit drawn from `rng`, left to right, as
    `rng.choice(DIGITS)` draws it (four random bits, drawn again while they make 10 or more:
    CPython's `Random._randbelow`), without choice's two calls a digit (on the corpus lines they
    were two thirds of redigit's time, a sixth of tests/test_linememo.py's). The other
    characters are not visited one by one (that walk was a third of test_linememo's time)."""
    bits = rng.getrandbits

    def digit(_: re.Match[str]) -> str:
        drawn = bits(4)
        while drawn >= 10:
            drawn = bits(4)
        return DIGITS[drawn]

    return _DIGIT.sub(digit, text)
