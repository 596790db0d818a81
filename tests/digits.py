"""Copies of a text with other digits, for the tests that check a per-shape reading (a shape
masks the digits) on lines whose numbers moved."""

from __future__ import annotations

import random
import re

DIGITS = "0123456789"
_DIGIT = re.compile("[0-9]")


def redigit(text: str, rng: random.Random) -> str:
    """`text` with each ASCII digit replaced by `rng.choice(DIGITS)`, left to right: the text
    that choosing per character gives, the other characters not visited one by one (on the
    corpus lines that walk was a third of tests/test_linememo.py's time)."""
    choice = rng.choice
    return _DIGIT.sub(lambda _: choice(DIGITS), text)
