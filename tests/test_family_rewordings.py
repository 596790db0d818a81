"""Families generalise across vLLM releases (issue 11): a family that matches a message one release
prints also matches the same check as other releases word it. vLLM's message index holds every
release's wording; a rewording is a message raised or logged by the same function with the same
class, in releases the covered wording is not printed in (it replaced it or was replaced by it),
reading alike (rapidfuzz ratio of fixed texts at least REWORDED_SIMILARITY).

The floor is the measure when this test was written less a margin; raise it when it rises."""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache

import pytest
import re2
from rapidfuzz import fuzz

from logsleuth.index.data import default_index
from logsleuth.index.lookup import literal_of
from logsleuth.index.origin import REWORDED_SIMILARITY
from logsleuth.model import SignatureKind
from logsleuth.signatures import default_signatures
from logsleuth.signatures.load import Signature
from logsleuth.signatures.template import mask

# long (tests/conftest.py runs them first): the whole module, so that its tests stay together
# on one worker and share what its functools.cache helpers computed once
pytestmark = pytest.mark.long

FLOOR = 0.95  # measured 1200 of 1245 (96.4%) when written
FILL = {"int": "16", "float": "0.9", "num": "8", "hex": "0x1f"}


def _render(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: FILL.get(m.group(1), "qwen"), template)


@cache  # each wording is tried against every family: rendered and masked once
def _readings(cls: str, template: str) -> tuple[tuple[str, str], ...]:
    """The printed forms of a template, with and without its class, each with its mask."""
    text = _render(template)
    return tuple((t, mask(t)) for t in (f"{cls}: {text}", text))


class _Screen:
    """Which families' patterns can match a text, for all families in one pass of RE2 over it
    (a million texts and families: one `regex` search each took minutes). A family whose
    pattern RE2 cannot compile (lookarounds, backreferences) is always a candidate; a candidate
    is confirmed by the matcher itself (`_words_hit`), so the screen only ever skips work."""

    def __init__(self, families: list[Signature]) -> None:
        # a family with templates is always possible (`possible`): the screen reads patterns
        self._templated = frozenset(family.id for family in families if family.templates)
        options = re2.Options()
        options.log_errors = False  # a pattern RE2 cannot read is expected: it is not screened
        self._set = re2.Set.SearchSet(options)
        self._owner: list[str] = []
        self.unscreened: set[str] = set()
        for family in families:
            for pattern in family.patterns:
                try:
                    self._set.Add(pattern.pattern)
                except re2.error:
                    self.unscreened.add(family.id)
                else:
                    self._owner.append(family.id)
        self._set.Compile()

    @cache  # noqa: B019 (one screen per test run, kept with its cache)
    def candidates(self, text: str) -> frozenset[str]:
        return frozenset(self._owner[i] for i in self._set.Match(text) or ()) | self.unscreened

    def possible(self, cls: str, template: str) -> frozenset[str]:
        """The families `_hits` can find in a wording: any other has no template and no
        pattern that matches either of its readings, so `_hits` is False for it without being
        asked (asking each of 143 families about each of 13,000 wordings was most of the run)."""
        readings = _readings(cls, template)
        return self._templated.union(*(self.candidates(text) for text, _ in readings))


def _hits(family: Signature, cls: str, template: str, screen: _Screen | None = None) -> bool:
    from logsleuth.signatures.match import _words_hit

    for text, masked in _readings(cls, template):
        if any(t.score(text, masked) == 1.0 for t in family.templates):
            return True
        if (screen is None or family.id in screen.candidates(text)) \
                and _words_hit(family, text, masked):
            return True
    return False


@cache
def measure() -> tuple[int, int, tuple[tuple[str, str, str], ...]]:
    """(rewordings, covered, misses as (family, missed wording, covered wording))."""
    index = default_index()
    by_function: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    releases: dict[str, set[int]] = defaultdict(set)
    for site in index.templates:
        by_function[(site.module.rsplit(".", 1)[0], site.function, site.cls)].add(site.text)
        releases[site.text].update(site.releases)
    families = [s for s in default_signatures() if s.kind is SignatureKind.FAMILY
                and (s.templates or s.patterns)]
    screen = _Screen(families)
    total = covered_count = 0
    misses: list[tuple[str, str, str]] = []
    # a wording an exception class raises from several functions is asked of a family once per
    # function: its answer kept (a fifth of the 350,000 asks repeated one)
    answers: dict[tuple[str, str, str], bool] = {}

    def hits(family: Signature, cls: str, text: str) -> bool:
        key = (family.id, cls, text)
        if key not in answers:
            answers[key] = _hits(family, cls, text, screen)
        return answers[key]

    for (_, _, cls), texts in sorted(by_function.items()):
        if len(texts) < 2:
            continue
        possible = {t: screen.possible(cls, t) for t in texts}
        asked = frozenset().union(*possible.values())
        for family in families:
            if family.id not in asked:
                continue  # it covers none of these wordings: no rewording to find
            covered = [t for t in sorted(texts)
                       if family.id in possible[t] and hits(family, cls, t)]
            if not covered:
                continue
            total += len(covered)
            covered_count += len(covered)
            for text in sorted(texts - set(covered)):
                older = [c for c in covered if not releases[c] & releases[text]]
                if older and max(fuzz.ratio(literal_of(text), literal_of(c))
                                 for c in older) >= REWORDED_SIMILARITY:
                    total += 1
                    misses.append((family.id, text, older[0]))
    return total, covered_count, tuple(misses)


def test_families_match_the_rewordings_of_what_they_match() -> None:
    total, covered, misses = measure()
    assert total > 1000  # the measure sees the index
    shown = [f"{f}: {m[:90]!r} (covers {c[:60]!r})" for f, m, c in misses[:15]]
    assert covered / total >= FLOOR, f"{covered}/{total}; misses: {shown}"


@pytest.mark.parametrize(("family", "message"), [
    ("structured-output-backend", "ValueError: Invalid backend 'lm-format-enforcer', must be "
                                  "one of ['outlines', 'xgrammar']"),
    ("multimodal-processor-failed", "ValueError: Error in loading image data: cannot identify "
                                    "image file"),
    ("missing-optional-package", "ImportError: Unable to load Ray which is required for "
                                 "multi-node inference"),
    ("parallelism-exceeds-devices", "ValueError: The number of required TPUs exceeds the total "
                                    "number of available TPUs in the placement group."),
    ("tool-parser-options-rejected", "ValueError: thinking_token_budget is set but "
                                     "reasoning_config is not configured. Please set "
                                     "--reasoning-config to use thinking_token_budget."),
])
def test_a_family_matches_each_release_wording(family: str, message: str) -> None:
    signature = default_signatures().get(family)
    assert signature is not None
    cls, _, text = message.partition(": ")
    assert _hits(signature, cls, text)
