"""Ranking never depends on the order of the database (issue 11, item 2): ties are broken by
evidence, never by id, name or file order. Drawn: a permutation of the shipped signatures and a
sample of real and constructed logs (every signature's examples, positive and near miss, and the
shared corpus' cases); the best match and its kind are the same under any order."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain
from logsleuth.signatures import SignatureSet, default_signatures

HERE = Path(__file__).parent
SIGNATURES = HERE.parent / "signatures"
CORPUS = HERE / "fixtures" / "corpus"


@cache
def _logs() -> tuple[Path, ...]:
    examples = sorted(SIGNATURES.rglob("*.log"))
    cases = sorted(CORPUS.rglob("log.txt"))
    return tuple(examples + cases)


def _best(path: Path, database: SignatureSet) -> tuple[str | None, str | None]:
    match = explain(str(path), signatures=database).signature
    return (match.id, match.kind.value) if match else (None, None)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), picks=st.lists(st.integers(0, 10**6), min_size=12,
                                                      max_size=12))
def test_the_best_match_does_not_depend_on_the_databases_order(seed: int,
                                                               picks: list[int]) -> None:
    shipped = default_signatures()
    order = list(shipped)
    random.Random(seed).shuffle(order)
    shuffled = SignatureSet(order)
    logs = _logs()
    for pick in picks:
        path = logs[pick % len(logs)]
        assert _best(path, shuffled) == _best(path, shipped), path.relative_to(HERE.parent)


@settings(max_examples=5, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_fixed_lengths_kept_per_pattern_are_the_computed_ones(seed: int) -> None:
    """Scoring keeps each pattern's fixed length (match._fixed_length) instead of computing it
    for every error scored: asked in any order, the kept value is the pattern's own."""
    from logsleuth.signatures.match import _fixed_length
    patterns = [p.pattern for s in default_signatures().signatures for p in s.patterns]
    assert len(patterns) > 100
    random.Random(seed).shuffle(patterns)
    _fixed_length.cache_clear()
    for pattern in patterns:
        assert _fixed_length(pattern) == _fixed_length.__wrapped__(pattern), pattern
    assert {_fixed_length("ab(?:cd|e)"), _fixed_length(r"x\d+y(?!zz)")} == {3, 2}
