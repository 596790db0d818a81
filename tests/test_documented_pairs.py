"""Failures the projects' documentation lists with their fix (signatures/NOTES-docs.md).

Each case is a constructed log carrying one documented message in its real shape; logsleuth
must match the signature whose fix names the documented remedy (or, for documented harmless
output, find no failure). The cases guard the fix items added to existing families, which the
signatures' own example logs do not check.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import logsleuth
from logsleuth.render.json import report_to_dict

FIXTURES = Path(__file__).parent / "fixtures" / "documented"
PAIRS = yaml.safe_load((FIXTURES / "pairs.yaml").read_text(encoding="utf-8"))


def test_pairs_are_there() -> None:
    assert len(PAIRS) >= 20
    assert all((FIXTURES / pair["log"]).is_file() for pair in PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: pair["log"])
def test_documented_fix_is_given(pair: dict[str, object]) -> None:
    report = report_to_dict(logsleuth.explain(FIXTURES / str(pair["log"])))
    if "verdict" in pair:
        assert report["verdict"] == pair["verdict"], report["verdict"]
        return
    signature = report["signature"]
    assert isinstance(signature, dict), f"no signature; want {pair['signature']}"
    assert signature["id"] == pair["signature"], signature["id"]
    fix = str(signature["fix"])
    missing = [name for name in pair["fix_names"] if name not in fix]  # type: ignore[attr-defined]
    assert not missing, f"{pair['doc']}: the fix does not name {missing}"
