"""Which vLLM message template a printed message comes from, among tens of thousands.

Every template is filed under one literal word of its own, the one fewest other templates
share; a message is compared only with the templates filed under the words it contains, and
only those few are compiled and run as patterns. Placeholders use the vocabulary and
sub-patterns of `signatures.template` so that an index template is a valid signature template.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from enum import IntEnum

from logsleuth.index.data import MessageTemplate, VllmIndex, sites_of
from logsleuth.signatures.template import PLACEHOLDERS

# the miner writes {int} {float} {num} {hex} {any}; a template typed by a message
# (typed_template) may hold any placeholder of template.py
PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
MAX_MESSAGE_CHARS = 4000  # longer messages are compared on their start: templates are shorter
# A template must explain a fair part of the message: "{any} is not supported" alone would
# claim every message that ends that way.
MIN_LITERAL_SHARE = 0.35
MIN_LITERAL_CHARS = 28
# A short template admitted by its share of a short message, whose fixed words name no program
# entity ("{any} must be positive", "{any} is not supported"), says where the message comes from
# only through what its placeholders hold: words vLLM's templates use, or an entity (an
# identifier, an acronym, a word with digits), or through a traceback that passes its site.
# Made-up words in plain-word frames name no vLLM subsystem, whatever module prints that frame
# (issue 11, tests/test_nonsense_probe.py): such a fit is `weak`.


class Fit(IntEnum):
    """How a template covers a message; higher is better."""

    PREFIX = 1  # the message starts with the template (vLLM appended more text, or a wrapper did)
    WHOLE = 2  # the template renders the whole message


@dataclass(frozen=True, slots=True)
class TextMatch:
    """One template text matched against a message, and every place vLLM prints it."""

    text: str
    fit: Fit
    literal_chars: int
    sites: tuple[MessageTemplate, ...]
    # a short template of plain words whose placeholders hold no entity and no word of vLLM's
    # (MIN_LITERAL_CHARS): only a traceback through one of its sites says vLLM printed it
    weak: bool = False


def literal_of(text: str) -> str:
    """The fixed text of a template, placeholders blanked."""
    return PLACEHOLDER.sub(" ", text)


def compile_template(text: str) -> re.Pattern[str]:
    """A template's pattern: words separated by any whitespace, placeholders as sub-patterns."""
    parts: list[str] = []
    position = 0
    for found in PLACEHOLDER.finditer(text):
        parts.append(_literal_pattern(text[position:found.start()]))
        parts.append(f"(?:{PLACEHOLDERS[found.group(1)][0]})")
        position = found.end()
    parts.append(_literal_pattern(text[position:]))
    return re.compile("".join(parts), re.DOTALL)


# What an `{any}` holds in one message, most specific first (template.py's sub-patterns)
_TYPES = tuple((name, re.compile(PLACEHOLDERS[name][0]))
               for name in ("int", "float", "size", "hex", "path", "quoted"))


def typed_template(text: str, message: str) -> str:
    """The template with each `{any}` typed by the value it holds in `message`: `({any})` around
    `32` becomes `({int})`. vLLM's source says where a message varies; one printed message says
    what kind of value goes there. Unchanged when the message does not match the template."""
    parts: list[str] = []
    names: list[str] = []
    position = 0
    for found in PLACEHOLDER.finditer(text):
        parts.append(_literal_pattern(text[position:found.start()]))
        parts.append(f"({PLACEHOLDERS[found.group(1)][0]})")
        names.append(found.group(1))
        position = found.end()
    parts.append(_literal_pattern(text[position:]))
    matched = re.compile("".join(parts), re.DOTALL).match(message)
    if matched is None:
        return text
    typed = iter(
        next((kind for kind, pattern in _TYPES if pattern.fullmatch(value.strip())), name)
        if name == "any" and value.strip() else name
        for name, value in zip(names, matched.groups()))
    return PLACEHOLDER.sub(lambda _: "{" + next(typed) + "}", text)


def _literal_pattern(fixed: str) -> str:
    words = fixed.split()
    if not words:
        return r"\s*"
    lead = r"\s*" if fixed[:1].isspace() else ""
    tail = r"\s*" if fixed[-1:].isspace() else ""
    return lead + r"\s+".join(re.escape(w) for w in words) + tail


class TemplateMatcher:
    """Finds the templates a message was rendered from."""

    def __init__(self, index: VllmIndex) -> None:
        self.index = index
        self._sites: dict[str, tuple[MessageTemplate, ...]] = {}  # made as texts are matched
        self._filed: dict[str, list[str]] = defaultdict(list)
        for text, key in zip(index.texts, index.keys):  # keys chosen by the miner
            if key:
                self._filed[key].append(text)
        self._patterns: dict[str, re.Pattern[str]] = {}
        self._literal: dict[str, int] = {}
        self._words: dict[str, tuple[str, ...]] = {}  # a template's fixed words (literal_of)
        self._vocabulary: frozenset[str] | None = None

    @property
    def texts(self) -> int:
        return len(self.index.texts)

    def _sites_of(self, text: str) -> tuple[MessageTemplate, ...]:
        found = self._sites.get(text)
        if found is None:
            found = self._sites[text] = sites_of(self.index, text)
        return found

    def vocabulary(self) -> frozenset[str]:
        """Every word (TOKEN, lower case) of every template's fixed text, made on first use."""
        if self._vocabulary is None:
            self._vocabulary = frozenset(
                word.lower() for text in self.index.texts
                for word in TOKEN.findall(literal_of(text)))
        return self._vocabulary

    def _fill_names_vllm(self, text: str, words: tuple[str, ...], message: str) -> bool:
        """Whether a short template's fit says the message is vLLM's: its fixed words name a
        program entity, or what its placeholders hold does (see MIN_LITERAL_CHARS)."""
        from logsleuth.signatures.generic import names_nothing  # it imports the index lazily

        if not names_nothing(text, regex=False):
            return True
        fixed = set(words)
        fill = " ".join(w for w in message.split() if w not in fixed)
        if not names_nothing(fill, regex=False):
            return True
        tokens = TOKEN.findall(fill)
        return not tokens or all(t.lower() in self.vocabulary() for t in tokens)

    def candidates(self, message: str) -> set[str]:
        """The template texts filed under a word of the message."""
        words = set(TOKEN.findall(message[:MAX_MESSAGE_CHARS]))
        return {text for word in words for text in self._filed.get(word, ())}

    def find(self, message: str) -> TextMatch | None:
        """The template that explains most of the message, or None."""
        message = message[:MAX_MESSAGE_CHARS].strip()
        if not message:
            return None
        alnum = sum(c.isalnum() for c in message)
        best: TextMatch | None = None
        for text in sorted(self.candidates(message)):
            literal = self._literal.get(text)
            if literal is None:
                literal = self._literal[text] = sum(c.isalnum() for c in literal_of(text))
            if literal < MIN_LITERAL_CHARS and literal < MIN_LITERAL_SHARE * alnum:
                continue
            words = self._words.get(text)
            if words is None:
                words = self._words[text] = tuple(literal_of(text).split())
            if not all(word in message for word in words):
                continue  # its pattern needs each of its words as it is: not compiled for none
            pattern = self._patterns.get(text)
            if pattern is None:
                pattern = self._patterns[text] = compile_template(text)
            if pattern.fullmatch(message):
                fit = Fit.WHOLE
            elif pattern.match(message):
                fit = Fit.PREFIX
            else:
                continue
            if best is None or (fit, literal) > (best.fit, best.literal_chars):
                best = TextMatch(text, fit, literal, self._sites_of(text))
        if best is not None and best.literal_chars < MIN_LITERAL_CHARS \
                and not self._fill_names_vllm(best.text, self._words[best.text], message):
            best = replace(best, weak=True)
        return best
