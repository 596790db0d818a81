"""tests/labelled_reports.py: a report another worker wrote is the report explaining the log gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import labelled_reports
import logsleuth
from corpus_judge import CORPUS, load_cases
from logsleuth.render.json import report_to_dict

SEED_FULL = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"


def test_a_report_read_back_is_the_report_explained(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(labelled_reports, "SHARED", tmp_path / "shared")
    monkeypatch.setattr(labelled_reports, "_KEPT", {})
    written = labelled_reports.report_of(SEED_FULL)
    assert [path.suffix for path in (tmp_path / "shared").iterdir()] == [".json"]
    # another worker: nothing in its memory, and it must not explain the log again
    monkeypatch.setattr(labelled_reports, "_KEPT", {})
    with monkeypatch.context() as patched:
        patched.setattr(logsleuth, "explain", lambda *_: pytest.fail("explained again"))
        read = labelled_reports.report_of(SEED_FULL)
    assert read == written == report_to_dict(logsleuth.explain(SEED_FULL))
    assert labelled_reports.report_of(SEED_FULL) is read  # then kept in memory


@pytest.mark.parametrize("case", load_cases(CORPUS)[::4], ids=lambda case: case.id)
def test_reports_are_json_whole(case: object) -> None:
    """report_to_dict gives JSON's types only: the dict read back equals the dict written (a
    tuple read back is a list, which compares unequal)."""
    report = report_to_dict(logsleuth.explain(case.log))  # type: ignore[attr-defined]
    assert json.loads(json.dumps(report)) == report


def test_the_contract_check_holds_reports_to_readmes_fields() -> None:
    seed = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
    report = report_to_dict(logsleuth.explain(seed))
    labelled_reports.check_contract(report)
    for broken in ({**report, "runs": [{**report["runs"][0], "explained": "yes"}]},
                   {**report, "signature": {**report["signature"], "kind": "guess"}},
                   {**report, "alternatives": [{"id": "x", "title": "y", "score": 0.5}]},
                   {**report, "verdict": "failure", "root_cause": None}):
        with pytest.raises(AssertionError, match="contract"):
            labelled_reports.check_contract(broken)
