"""Signature matching done once for the two readings a comparison test makes of one log.

tests/test_replay.py and tests/test_recur.py read each log twice (an optimised reading and the
plain one) and compare the reports; about half of each reading's time was SignatureSet.best
scoring every signature against the failure's errors, which both readings hand the same
inputs when they agree. `remembered_best` is SignatureSet.best kept for the last few inputs,
keyed by the pickled bytes of everything it is given (the targets, the facts, the phase) and
by the database object itself: a reading whose errors, facts or phase differ in any field is
matched afresh, so what the test compares (the readings' events and reports) is still each
reading's own; only the matching of byte-identical inputs, a deterministic computation of the
same code, is not repeated.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pytest

from logsleuth.signatures.match import SignatureSet

_BEST = SignatureSet.best
BOUND = 4  # a test's two readings, and a little slack
_KEPT: OrderedDict[tuple[int, bytes], tuple[SignatureSet, Any]] = OrderedDict()


def remembered_best(self: SignatureSet, targets: Iterable[Any], facts: Mapping[str, object],
                    phase: Any = None) -> Any:
    targets = tuple(targets)
    try:
        key = (id(self), pickle.dumps((targets, facts, phase), protocol=pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return _BEST(self, targets, facts, phase)
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is self:
        _KEPT.move_to_end(key)
        return kept[1]
    result = _BEST(self, targets, facts, phase)
    _KEPT[key] = (self, result)
    while len(_KEPT) > BOUND:
        _KEPT.popitem(last=False)
    return result


@pytest.fixture(scope="module")
def matched_once() -> Iterator[None]:
    """SignatureSet.best remembered while one test module runs (and forgotten after it); a
    module uses it with `pytestmark = pytest.mark.usefixtures("matched_once")`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SignatureSet, "best", remembered_best)
        yield
    _KEPT.clear()
