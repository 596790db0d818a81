"""tools/rank_probe records what the matcher ranked for a log whose right fix is known: every
candidate with its evidence, the winner first as the report has it, and which candidate's fix
names the keywords; its tables come from those records. It refuses the held-out set."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tool_import import import_tool

CASE = Path(__file__).parent / "fixtures" / "corpus" / "startup" / "deepseek-v32-sparse-mla-sm120"


def test_the_records_rank_as_the_report_answers_and_judge_each_candidate() -> None:
    probe_tool = import_tool("rank_probe", "probe")
    label = yaml.safe_load((CASE / "case.yaml").read_text(encoding="utf-8"))
    keywords = [str(k) for k in label["fix_keywords"]]
    record = probe_tool.run_one(dict(name="startup/x", group="corpus", log=str(CASE / "log.txt"),
                                     keywords=keywords, label=label, withhold=[]))
    candidates = record["candidates"]
    assert candidates and record["root"] is True
    assert [c["order"] for c in candidates] == sorted(c["order"] for c in candidates)
    if record["final_kind"] in ("exact", "family"):
        assert candidates[0]["id"] == record["final"]
        assert candidates[0]["right"] == record["final_right"]
    assert {"message"} <= set(candidates[0]["parts"])
    # withheld, the winner is not among the candidates
    again = probe_tool.run_one(dict(name="startup/x", group="withheld", log=str(CASE / "log.txt"),
                                    keywords=keywords, label=None,
                                    withhold=[candidates[0]["id"]]))
    assert candidates[0]["id"] not in [c["id"] for c in again["candidates"]]
    table = probe_tool.analyse([record, again], verbose=True)
    assert "winner withheld: next answer" in table


def test_the_held_out_set_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    probe_tool = import_tool("rank_probe", "probe")
    with pytest.raises(SystemExit):
        probe_tool._probes(tmp_path / "holdout", False)
