"""A literal every match of a pattern must contain: a screen before the regex search.

Ranking scores every signature against each error (about 1,300 patterns per text), and the
regex searches were most of a report's time on a short log. A pattern such as
`CUDA error: an illegal memory access(?: was encountered)?` cannot match a text without
`CUDA error: an illegal memory access`, and `needle in text` costs a fraction of a search.

The needle is the longest run of literal characters at the pattern's top level (a group, a
class, a repetition or an anchor ends a run; a top-level alternation gives none), read by
Python's own regular-expression parser. It is computed when the signature is loaded, so it is
pickled with the loaded database. A pattern that parser cannot read the same way as the `regex`
module (syntax of `regex`'s own, global flags after the start) gets no needle and is always
searched. Under IGNORECASE the needle is lower-cased and only screens ASCII texts, where
lower-casing is the same as the case folding the search does.
"""

from __future__ import annotations

import re
import re._constants as _sre  # type: ignore[import-not-found]  # CPython's own parser, no stubs
import re._parser as _parser  # type: ignore[import-not-found]
from typing import Any, NamedTuple

MIN_NEEDLE = 4  # shorter literals screen out too little to be worth the check

# `regex`-only syntax that Python's parser reads as literal characters: fuzzy constraints
# (`{e<=1}`), version flags (`(?V1)`), named lists (`\L<name>`)
_REGEX_ONLY = re.compile(r"\{[edis][<=]|\(\?[^)]*V[01]|\\L<")


class Needle(NamedTuple):
    text: str
    folded: bool  # lower-cased: the pattern ignores case

    def absent(self, text: str, lowered: str | None) -> bool:
        """Whether `text` surely holds no match (`lowered`: its lower case, None unless ASCII)."""
        if not self.folded:
            return self.text not in text
        return lowered is not None and self.text not in lowered


def _parsed(pattern: str) -> tuple[Any, bool] | None:
    """`re`'s parse of `pattern` and whether it ignores case; None for `regex`-only syntax or a
    pattern `re` cannot parse."""
    if _REGEX_ONLY.search(pattern):
        return None
    try:
        parsed = _parser.parse(pattern, 0)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    return parsed, bool(parsed.state.flags & re.IGNORECASE)


def needle_of(pattern: str) -> Needle | None:
    """The literal a match of `pattern` must contain, or None when none is known."""
    parse = _parsed(pattern)
    if parse is None:
        return None
    parsed, folded = parse
    best, run = "", []
    for op, value in parsed.data:
        if op is _sre.LITERAL:
            run.append(chr(value))
            continue
        best = max(best, "".join(run), key=len)
        run = []
    best = max(best, "".join(run), key=len)
    if len(best) < MIN_NEEDLE or (folded and not best.isascii()):
        return None
    return Needle(best.lower() if folded else best, folded)


def lowered_if_ascii(text: str) -> str | None:
    """The lower case a folded needle is looked for in (None: the screen does not apply)."""
    return text.lower() if text.isascii() else None


def needle_set(pattern: str) -> tuple[frozenset[str], bool] | None:
    """Literals one of which every match of `pattern` contains, and whether they are folded
    (lower-cased: the pattern ignores case), for a pattern without a needle: a top-level
    alternation (`subprocess-exited-with-error|metadata-generation-failed`) needs one of its
    branches' literals. None when none is known (a branch without a literal, `regex`-only
    syntax, flags scoped to a group)."""
    parse = _parsed(pattern)
    if parse is None:
        return None
    parsed, folded = parse
    found = _required(parsed.data, 0)
    if not found or (folded and not all(text.isascii() for text in found)):
        return None
    return frozenset(text.lower() for text in found) if folded else frozenset(found), folded


def _required(items: list[tuple[Any, Any]], depth: int) -> frozenset[str] | None:
    """Literals one of which a match of the sequence `items` holds: a literal run of its own,
    or a group, alternation or repetition (at least once) it holds; the set whose shortest
    literal is longest."""
    if depth > 20:
        return None
    best: frozenset[str] | None = None
    run: list[str] = []
    choices: list[frozenset[str]] = []
    for op, value in items:
        if op is _sre.LITERAL:
            run.append(chr(value))
            continue
        if run:
            choices.append(frozenset({"".join(run)}))
            run = []
        inner: frozenset[str] | None = None
        if op is _sre.SUBPATTERN:
            _, add_flags, del_flags, sub = value
            if not add_flags and not del_flags:
                inner = _required(sub.data, depth + 1)
        elif op is _sre.BRANCH:
            branches = [_required(sub.data, depth + 1) for sub in value[1]]
            known = [branch for branch in branches if branch]
            if len(known) == len(branches):
                inner = frozenset().union(*known)
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
            low, _, sub = value
            if low >= 1:
                inner = _required(sub.data, depth + 1)
        if inner:
            choices.append(inner)
    if run:
        choices.append(frozenset({"".join(run)}))
    for choice in choices:
        if best is None or min(map(len, choice)) > min(map(len, best)):
            best = choice
    return best
