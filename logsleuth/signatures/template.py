"""Message templates with typed placeholders, and the masking that makes messages comparable.

A template such as `Free memory on device ({float}/{float} GiB) on startup is less than desired
GPU memory utilization ({float}, {size})` matches in two ways: exactly, as a pattern whose
placeholders are sub-patterns (score 1.0), or fuzzily, comparing the template's masked text with
the message's masked text (numbers, sizes, paths, hex and quoted names replaced by tokens) with
rapidfuzz, for wordings that drifted between vLLM versions.
"""

from __future__ import annotations

from dataclasses import dataclass

import functools
import re

from rapidfuzz import fuzz

from logsleuth.tokenize.shape import ShapeCache, shape_key

PATTERN_TIMEOUT = 0.05  # seconds; a contributed regex that takes longer is abandoned

# What each placeholder matches, and the token it becomes in masked text.
PLACEHOLDERS: dict[str, tuple[str, str]] = {
    "int": (r"[-+]?\d[\d,]*", "<num>"),
    "float": (r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "<num>"),
    "num": (r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?", "<num>"),
    "size": (r"\d[\d,]*(?:\.\d+)?\s*(?:[KMGTP]i?B|bytes|B)\b", "<size>"),
    "path": (r"[`'\"]?(?:[A-Za-z]:)?[\w.~\-]*(?:/[\w.@+~\-]+)+/?[`'\"]?", "<path>"),
    "hex": (r"0x[0-9a-fA-F]+", "<hex>"),
    "word": (r"[\w.\-:]+", " "),
    "quoted": (r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`", "<quoted>"),
    "any": (r".*?", " "),
}
# Templates and masks are built by logsleuth from escaped text and the fixed sub-patterns
# above, so they use the faster-compiling `re`; contributed regexes use `regex` with a timeout.
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
_UNKNOWN_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")

# Masking order matters: sizes before numbers, paths before numbers inside them.
# Each mask runs only on text holding what every one of its matches must contain: the path mask
# alone costs ~130 us on a 200-character message without a `/`, and every distinct error message
# is masked once (logsleuth/fingerprint.py).
_MASK_NEEDLES = {"hex": "0x", "path": "/"}
_MASKS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(PLACEHOLDERS[name][0]), PLACEHOLDERS[name][1], _MASK_NEEDLES.get(name, ""))
    for name in ("hex", "size", "path", "quoted", "num"))
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[a-z_]+")

FUZZY_THRESHOLD = 0.85
MAX_COMPARED_CHARS = 1500


def mask(text: str) -> str:
    """Replace the variable parts of a message by tokens: `Tried to allocate <size>`."""
    hex_pattern, hex_token, hex_needle = _MASKS[0]
    if hex_needle in text:
        text = hex_pattern.sub(hex_token, text)
    return _mask_after_hex(text)


# Masking by shape. A day of rejected requests is thousands of messages that differ only in
# their numbers' digits, each masked at ~25 us. After the hex mask, every mask (and its needle)
# treats all ASCII digits alike (`tokenize.shape.digit_blind`; tests/test_decision_caches.py
# checks it on the patterns themselves) and no token holds a digit. So two messages of one
# shape, once hex-masked, are masked at the same places into the same text, except where a
# digit is left unmasked: a masked text without digits is the masked text of its whole shape.
_ASCII_DIGIT = re.compile(r"[0-9]")
_BY_SHAPE: ShapeCache[str] = ShapeCache()


def mask_by_shape(text: str) -> str:
    """`mask(text)`, computed once per shape of message."""
    text = _hex_masked(text)
    key = shape_key(text)
    masked = _BY_SHAPE.get(key)
    if masked is None or _ASCII_DIGIT.search(masked):  # digits left: another message's
        masked = _mask_after_hex(text)
        _BY_SHAPE.put(key, masked)
    return masked


def mask_key(text: str, shape: bytes) -> bytes:
    """The key `mask_by_shape` keeps the mask of `text` under, given the text's own shape
    (`shape_key`): texts with one key have one mask. It is the shape unless the hex mask, the
    one mask that reads a digit (the `0` of `0x`), applies."""
    hexed = _hex_masked(text)
    return shape if hexed is text else shape_key(hexed)


def _hex_masked(text: str) -> str:
    hex_pattern, hex_token, hex_needle = _MASKS[0]  # (the masks' order: mask's comment)
    return hex_pattern.sub(hex_token, text) if hex_needle in text else text


def _mask_after_hex(text: str) -> str:
    for pattern, token, needle in _MASKS[1:]:
        if needle in text:
            text = pattern.sub(token, text)
    return _SPACES.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed message template."""

    text: str
    exact_source: str  # compiled on first use: a run scores few of the hundreds it loads
    masked: str
    literal_chars: int  # how much fixed text the template holds: its specificity
    fuzzy: bool = True  # off for templates with {any}: their fixed parts are the point
    key_words: tuple[str, ...] = ()  # words of 5+ letters a fuzzy match may not lose
    # the longest word of the fixed text, which every exact match holds as it is: most
    # templates are ruled out by one substring test, without compiling their pattern (a run
    # scores a few targets against hundreds of templates; compiling them all cost 0.6 s)
    needle: str = ""

    @classmethod
    def parse(cls, text: str) -> Template:
        unknown = {m.group(1) for m in _UNKNOWN_PLACEHOLDER.finditer(text)} - set(PLACEHOLDERS)
        if unknown:
            raise ValueError(f"unknown placeholder(s) {', '.join(sorted(unknown))}; known: "
                             + ", ".join("{" + p + "}" for p in PLACEHOLDERS))
        pattern_parts: list[str] = []
        masked_parts: list[str] = []
        words: list[str] = []
        literal = 0
        position = 0
        for found in _PLACEHOLDER.finditer(text):
            fixed = text[position:found.start()]
            literal += len(fixed.strip())
            words += fixed.split()
            pattern_parts.append(_literal_pattern(fixed))
            masked_parts.append(fixed)
            sub, token = PLACEHOLDERS[found.group(1)]
            pattern_parts.append(f"(?:{sub})")
            masked_parts.append(f" {token} " if token.strip() else " ")
            position = found.end()
        fixed = text[position:]
        literal += len(fixed.strip())
        words += fixed.split()
        pattern_parts.append(_literal_pattern(fixed))
        masked_parts.append(fixed)
        exact = "".join(pattern_parts)
        masked = _SPACES.sub(" ", "".join(masked_parts)).strip()
        key_words = tuple(sorted({w for w in _WORD.findall(masked.lower()) if len(w) >= 5}))
        return cls(text, exact, masked, literal, fuzzy="{any}" not in text, key_words=key_words,
                   needle=max(words, key=len, default=""))

    def score(self, message: str, masked_message: str) -> float:
        """1.0 for an exact match; else the fuzzy similarity if at least FUZZY_THRESHOLD; else 0.

        A fuzzy match must also keep the template's long words: "unhandled cuda error" is
        92% similar to "unhandled system error" and a different failure.
        """
        compared = message[:MAX_COMPARED_CHARS * 2]
        if self.needle in compared and _compiled(self.exact_source).search(compared):
            return 1.0
        if not self.fuzzy or len(self.masked) < 12 or self.masked.count(" ") < 2:
            return 0.0  # a phrase of one or two words is there or it is not: never "similar"
        similarity = fuzz.partial_ratio(self.masked, masked_message[:MAX_COMPARED_CHARS]) / 100.0
        if similarity < FUZZY_THRESHOLD:
            return 0.0
        present = message_words(masked_message)
        missing = sum(1 for word in self.key_words if word not in present)
        return similarity if missing <= len(self.key_words) // 8 else 0.0


def message_words(masked_message: str) -> set[str]:
    """The words of a masked message that a fuzzy match is checked for `key_words` against."""
    return set(_WORD.findall(masked_message.lower()))


@functools.cache  # one per template text of the database: bounded by the database
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(source, re.DOTALL)


def _literal_pattern(fixed: str) -> str:
    words = fixed.split()
    if not words:
        return r"\s*" if fixed else ""
    lead = r"\s*" if fixed[:1].isspace() else ""
    tail = r"\s*" if fixed[-1:].isspace() else ""
    return lead + r"\s+".join(re.escape(w) for w in words) + tail
