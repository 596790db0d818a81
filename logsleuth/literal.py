"""The literal text every match of a pattern must contain, so a substring test can skip a search.

`needle in text` is a C-speed scan; most log lines miss it, and the pattern's search (Python's
`regex`, under a time budget) runs only on the few that hold it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

import re2
import regex


@lru_cache(maxsize=4096)
def required_literal(pattern: str, shortest: int = 3) -> str:
    """The longest run of plain characters that every match of `pattern` must contain.

    Conservative: only text outside every group and class, stopping before a character that a
    quantifier makes optional; a pattern with a top-level `|` has none. Empty when unsure, or
    when the run is shorter than `shortest` (a short needle is in most lines: a test for it
    spares nothing).
    """
    if regex.search(r"\(\?[aiLmsux-]+[:)]", pattern):
        return ""  # inline flags (ignore case, verbose) change what a literal means
    runs: list[str] = []
    run, depth, index = "", 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escaped = pattern[index + 1: index + 2]
            if escaped and not escaped.isalnum() and depth == 0:
                run += escaped
            else:  # a class such as \d or \s: the run ends here
                runs.append(run)
                run = ""
            index += 2
            continue
        if char == "|" and depth == 0:
            return ""
        if char in "([":
            depth += 1
            runs.append(run)
            run = ""
        elif char in ")]":
            depth = max(0, depth - 1)
            run = ""
        elif char in "*+?{":
            runs.append(run[:-1])  # the quantified character may be absent (or repeated)
            run = ""
            if char == "{":  # `{2,4}` counts repeats: none of it is text to look for
                close = pattern.find("}", index)
                index = close if close > index else index
        elif char in ".^$":  # any character, or an anchor: the run ends here
            runs.append(run)
            run = ""
        elif depth == 0:
            run += char
        index += 1
    runs.append(run)
    best = max(runs, key=len)
    return best if len(best) >= shortest else ""


@lru_cache(maxsize=4096)
def required_literals(pattern: str, shortest: int = 3) -> tuple[str, ...]:
    """Texts one of which every match of `pattern` contains: the required literal of each
    top-level alternative (`Capturing CUDA graphs?|Graph capturing finished`). Empty when an
    alternative has none: then nothing can be skipped.

    A line that holds none of them cannot match, which `needle in text` tells at C speed; a
    search of the whole alternation over a long line (a prompt logged with its request) does not.
    """
    if regex.search(r"\(\?[aiLmsux-]+[:)]", pattern):
        return ()
    found = tuple(required_literal(branch, shortest) for branch in _top_level_branches(pattern))
    return found if all(found) else ()


def looked_ahead_literals(pattern: str, shortest: int = 3) -> tuple[str, ...]:
    """`required_literals`, or else those of what the pattern looks ahead for at its top level
    (`\\S[^\\n]{0,240}?[\\s:](?=NCCL error: |CUDA error: )`): a match is followed by text
    its look-ahead matches, so one of those texts is in the line. Empty when none is known."""
    found = required_literals(pattern, shortest)
    if found or "(?=" not in pattern or len(_top_level_branches(pattern)) != 1:
        return found
    for content in _top_level_lookaheads(pattern):
        found = required_literals(content, shortest)
        if found:
            return found
    return ()


def _top_level_lookaheads(pattern: str) -> list[str]:
    """What each `(?=...)` outside other groups and character classes holds."""
    found: list[str] = []
    depth, opened = 0, -1
    for index, char in _outside_classes(pattern):
        if char == "(":
            if depth == 0 and pattern.startswith("(?=", index):
                opened = index + 3
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
            if depth == 0 and opened >= 0:
                if pattern[index + 1:index + 2] not in ("?", "*", "{"):  # not made optional
                    found.append(pattern[opened:index])
                opened = -1
    return found


def skips_any_text(pattern: str) -> bool:
    """Whether an alternative of `pattern` starts by skipping any text (`.*\\bfailed liveness
    probe`): matched at the start of a long line, it reads the whole line before it fails."""
    return any(branch.startswith(".*") for branch in _top_level_branches(pattern))


def _top_level_branches(pattern: str) -> list[str]:
    """`pattern` split at each `|` outside groups and character classes."""
    branches: list[str] = []
    start, depth = 0, 0
    for index, char in _outside_classes(pattern):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            branches.append(pattern[start:index])
            start = index + 1
    branches.append(pattern[start:])
    return branches


def _outside_classes(pattern: str) -> Iterator[tuple[int, str]]:
    """Each position and character of `pattern` outside escapes and character classes."""
    in_class, index = False, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1:index + 2] == "]":  # `[]...]`: the first `]` is a member
                index += 1
        else:
            yield index, char
        index += 1


class Screen:
    """Tells in one pass that no pattern of a list can match a line: none of the texts that
    their matches must contain (`required_literals`) is in it.

    A substring test per pattern is cheap on a short line, but a prompt logged with its request
    is a line of 90 KB, and forty scans of it cost milliseconds: RE2 looks for all the texts at
    once. A list with a pattern that has no such text rules nothing out.
    """

    def __init__(self, patterns: Iterable[str]):
        needles = [required_literals(p) for p in patterns]
        self._regex: re2._Regexp | None = None
        self.texts: tuple[str, ...] | None = None  # the texts, or None: nothing is ruled out
        if needles and all(needles):
            options = re2.Options()
            options.log_errors = False
            self.texts = tuple(n for group in needles for n in group)
            self._regex = re2.compile("|".join(re.escape(n) for n in self.texts), options)

    def rules_out(self, text: str) -> bool:
        """Whether no pattern of the list can match `text`. Lines shorter than SCREEN_CHARS are
        not screened (False): a test per pattern is cheaper there than a call into RE2."""
        return (len(text) >= SCREEN_CHARS and self._regex is not None
                and self._regex.search(text) is None)

    def rules_out_given(self, present: frozenset[str]) -> bool:
        """`rules_out` of a long line whose texts were found by `Needles` (one that holds
        `texts`)."""
        return self.texts is not None and present.isdisjoint(self.texts)


class Needles:
    """Which texts of a fixed list a line holds, in one pass (an RE2 set of literals).

    For a long line only: a logged prompt of 45 KB holds, by chance, words that patterns look
    for (`model`, ` backend`, `version `), and a substring test per text read it once per text
    (twenty scans and more per stage); the set reads it once. A short line is cheaper with the
    substring tests than with a call into RE2.
    """

    def __init__(self, texts: Iterable[str]):
        self._texts = tuple(dict.fromkeys(text for text in texts if text))
        options = re2.Options()
        options.log_errors = False
        self._set = re2.Set.SearchSet(options)
        for text in self._texts:
            self._set.Add(re2.escape(text))
        self._set.Compile()
        self._any: re2._Regexp | None = None

    def any_in(self, text: str) -> bool:
        """Whether `text` holds any of the texts (a search that stops at the first)."""
        if not self._texts:
            return False
        if self._any is None:
            options = re2.Options()
            options.log_errors = False
            self._any = re2.compile("|".join(re2.escape(t) for t in self._texts), options)
        return self._any.search(text) is not None

    def present(self, text: str) -> frozenset[str]:
        """The texts of the list that `text` holds."""
        found = self._set.Match(text) if self._texts else None
        return frozenset(self._texts[index] for index in found) if found else frozenset()


SCREEN_CHARS = 512

