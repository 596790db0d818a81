"""The ranking asks a signature only of the readings that hold a literal one of its parts needs
(signatures/match.py `_Screen`): what it skips would have scored nothing, so the ranking is the
one scoring every signature gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from labelled_reports import report_of
from logsleuth import explain
from logsleuth.render.json import report_to_dict
from logsleuth.resources import data_dir
from logsleuth.signatures import default_signatures
from logsleuth.signatures.match import _Screen
from logsleuth.signatures.needle import lowered_if_ascii, needle_set
from logsleuth.signatures.template import mask

TUNING = Path(__file__).parent / "fixtures" / "tuning"


def _texts() -> list[str]:
    """Lines of every signature's examples, and each with its words shuffled or cut (readings a
    part matches, nearly matches and does not)."""
    texts: list[str] = []
    rng = random.Random(13)
    for example in sorted(data_dir("signatures").rglob("*.log")):
        for line in example.read_text(encoding="utf-8", errors="replace").splitlines()[:40]:
            line = line.strip()
            if not line:
                continue
            words = line.split()
            texts.append(line)
            texts.append(" ".join(words[: max(1, len(words) * 2 // 3)]))
            rng.shuffle(words)
            texts.append(" ".join(words))
    return rng.sample(texts, 300)


def test_every_part_that_matches_is_screened_in() -> None:
    """Whatever template or regex of a signature gives a message score, the screen asks it."""
    database = default_signatures()
    screen = _Screen(database.signatures)
    texts = _texts()
    hits = 0
    for text in texts:
        masked = mask(text)
        allowed = screen.possible(text, masked, lowered_if_ascii(text))
        for index, signature in enumerate(database.signatures):
            if index in allowed:
                continue
            assert not signature.templates and not signature.patterns or all(
                template.score(text, masked) == 0.0 for template in signature.templates), \
                (signature.id, text)
            assert not any(pattern.search(text) for pattern in signature.patterns), \
                (signature.id, text)
        hits += len(allowed)
    assert hits < len(texts) * len(database.signatures) / 2  # and it screens most out


def test_an_alternations_literals_are_in_every_match() -> None:
    """A regex without a needle that is an alternation: each of its matches holds one of the
    literals needle_set gives (lower-cased when it ignores case)."""
    texts = _texts()
    checked = 0
    for signature in default_signatures().signatures:
        for pattern in signature.patterns:
            found = needle_set(pattern.pattern)
            if found is None:
                continue
            literals, folded = found
            for text in texts:
                hit = pattern.search(text)
                if hit is None:
                    continue
                matched = hit.group(0).lower() if folded else hit.group(0)
                if folded and not text.isascii():
                    continue
                assert any(literal in matched for literal in literals), (pattern.pattern, text)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("pattern, literals", [
    ("a-b|c-d", ({"a-b", "c-d"}, False)),
    ("(?i)Failed Here|Could Not", ({"failed here", "could not"}, True)),
    (r"\bDBO\b.{0,9}(?:not (?:yet )?(?:supported|known)|does not support)",
     ({"supported", "known", "does not support"}, False)),
    (r"^(?:[\w.]+\.)?(?:ImportError|ModuleNotFoundError)\b",
     ({"ImportError", "ModuleNotFoundError"}, False)),
    ("x|(?:y)?", None),  # a branch that may match nothing
    ("(?s)^.", None),
    ("a(?i:bcd)", ({"a"}, False)),  # flags scoped to a group: not read into
])
def test_needle_set(pattern: str, literals: tuple[set[str], bool] | None) -> None:
    found = needle_set(pattern)
    assert (None if found is None else (set(found[0]), found[1])) == literals


def test_reports_as_when_every_signature_is_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample of tuning logs: the same reports with the screen as with every signature asked
    of every reading."""
    logs = sorted(TUNING.rglob("log.txt"))
    logs = [log.resolve() for log in random.Random(25).sample(logs, 25)]  # as report_of names them
    # with the screen: the shipped reading, which test_tuning explains for every tuning log in
    # the session (labelled_reports.report_of: explained once, shared by the workers)
    screened = [report_of(log) for log in logs]
    count = len(default_signatures().signatures)
    monkeypatch.setattr(_Screen, "possible",
                        lambda self, text, masked, lowered: frozenset(range(count)))
    assert [report_to_dict(explain(log)) for log in logs] == screened
