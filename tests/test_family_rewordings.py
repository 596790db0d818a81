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
from rapidfuzz import fuzz

from logsleuth.index.data import default_index
from logsleuth.index.lookup import literal_of
from logsleuth.index.origin import REWORDED_SIMILARITY
from logsleuth.model import SignatureKind
from logsleuth.signatures import default_signatures
from logsleuth.signatures.load import Signature
from logsleuth.signatures.template import mask

FLOOR = 0.95  # measured 1200 of 1245 (96.4%) when written
FILL = {"int": "16", "float": "0.9", "num": "8", "hex": "0x1f"}


def _render(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: FILL.get(m.group(1), "qwen"), template)


def _hits(family: Signature, cls: str, template: str) -> bool:
    from logsleuth.signatures.match import _words_hit

    text = _render(template)
    return any(_words_hit(family, t, mask(t)) for t in (f"{cls}: {text}", text))


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
    total = covered_count = 0
    misses: list[tuple[str, str, str]] = []
    for (_, _, cls), texts in sorted(by_function.items()):
        if len(texts) < 2:
            continue
        for family in families:
            covered = [t for t in sorted(texts) if _hits(family, cls, t)]
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
