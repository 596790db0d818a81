"""tools/holdout_sources/check.py answers `held-out` for every held-out source and never takes a
longer issue number for a shorter one, without printing which case it found."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("holdout_sources_check",
                                               ROOT / "tools" / "holdout_sources" / "check.py")
assert _spec is not None and _spec.loader is not None
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

SOURCES = sorted({m[1] for p in (ROOT / "tests/fixtures/holdout").glob("*/*/case.yaml")
                  if (m := re.search(r"^source:\s*(\S+)", p.read_text(), re.M))})


def test_every_held_out_source_is_reported_held_out(capsys: pytest.CaptureFixture[str]) -> None:
    threads = [s for s in SOURCES if check._THREAD.search(s)]
    assert len(threads) > 100
    assert check.main(threads[:40]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in printed] == ["held-out"] * 40
    assert not any("tests/fixtures" in line for line in printed)  # no case's folder is named


# Made-up threads, their URLs built at run time (a literal would read as a citation of a tracker,
# tests/test_signature_partition.py)
_URL = "https://github.com/{}/issues/{}"
_PULL = "https://github.com/{}/pull/{}"


@pytest.mark.parametrize("cited, candidate, same", [
    (_URL.format("o/r", 117), _URL.format("o/r", 1170), False),
    (_URL.format("o/r", 1170), _URL.format("o/r", 117), False),
    (_URL.format("o/r", 117), "o/r" + "#" + "117", True),
    ("o/r" + "#" + "117 in a comment", _PULL.format("o/r", 117), True),
    (_URL.format("o/r", 117), _URL.format("o/rr", 117), False),
])
def test_a_thread_matches_by_repository_and_whole_number(cited: str, candidate: str,
                                                          same: bool) -> None:
    assert bool(check.citation_pattern(candidate).search(cited)) is same


def test_a_made_up_thread_is_free() -> None:
    number = 987654321 + 1  # built at run time: this file must not cite it
    assert check.where(_URL.format("nobody-here/no-such-repo", number)) == "free"
