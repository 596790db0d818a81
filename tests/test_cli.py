"""The command line, through click's CliRunner: exit codes, the JSON contract, inputs."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from logsleuth.cli import main

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
FAILING = CORPUS / "startup" / "tp-size-not-dividing-heads-32-by-3" / "log.txt"
HEALTHY = CORPUS / "long" / "healthy-dgx-spark-sigterm-shutdown" / "log.txt"
SYMPTOM_ONLY = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-tail30" / "log.txt"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
ANSI = re.compile(r"\x1b\[")
VERDICTS = {"failure", "root_cause_missing", "no_failure"}
EVENT_KEYS = {"exception", "message", "process", "line", "first_line", "last_line", "frames"}


def run(*args: str, input: bytes | str | None = None,
        env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, env=env)


def report_of(result: Result) -> dict[str, Any]:
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


# ---- exit codes -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "code"), [
    (FAILING, 1),
    (SYMPTOM_ONLY, 1),
    (HEALTHY, 0),
])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_exit_code_follows_the_verdict(path: Path, code: int, fmt: str) -> None:
    result = run("explain", "--format", fmt, str(path))
    assert result.exit_code == code, result.output
    assert result.stdout.strip()


@pytest.mark.parametrize("make", [
    lambda tmp: tmp / "no-such.log",
    lambda tmp: tmp,  # a directory
    lambda tmp: tmp / "missing-dir" / "vllm.log",
], ids=["missing-file", "directory", "missing-directory"])
def test_unusable_input_exits_2_with_one_line(tmp_path: Path, make: Any) -> None:
    path = make(tmp_path)
    result = run("explain", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(path) in lines[0]
    assert "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_help_mentions_the_exit_codes() -> None:
    result = run("explain", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for code, words in (("0", "no_failure"), ("1", "failure"), ("2", "no report")):
        assert re.search(rf"\b{code}\b[^0-9]*{words}", text), text


# ---- the JSON contract (REPORT_SCHEMA.md) ---------------------------------------------------------

def check_event(event: Any) -> None:
    assert isinstance(event, dict)
    assert EVENT_KEYS <= set(event)
    assert isinstance(event["exception"], str) and event["exception"]
    assert isinstance(event["message"], str)
    assert isinstance(event["process"], dict)
    assert isinstance(event["process"]["name"], str) and event["process"]["name"]
    assert event["process"]["pid"] is None or isinstance(event["process"]["pid"], int)
    for key in ("line", "first_line", "last_line"):
        assert isinstance(event[key], int) and event[key] >= 1
    assert event["first_line"] <= event["line"] <= event["last_line"]
    for frame in event["frames"]:
        assert set(frame) >= {"file", "line", "function"}
        assert isinstance(frame["line"], int)


def check_contract(report: dict[str, Any]) -> None:
    assert report["schema"] == "logsleuth.report/1"
    assert isinstance(report["source"], str) and report["source"]
    assert report["verdict"] in VERDICTS
    if report["verdict"] == "failure":
        check_event(report["root_cause"])
    else:
        assert report["root_cause"] is None
    assert isinstance(report["symptoms"], list)
    for symptom in report["symptoms"]:
        check_event(symptom)
    signature = report["signature"]
    if signature is not None:
        assert set(signature) >= {"id", "title", "score", "fix", "references"}
        assert isinstance(signature["id"], str) and isinstance(signature["title"], str)
        assert isinstance(signature["score"], (int, float)) and 0 <= signature["score"] <= 1
        assert isinstance(signature["fix"], str) and signature["fix"]
        assert isinstance(signature["references"], list)
    assert isinstance(report["alternatives"], list)
    for alternative in report["alternatives"]:
        assert set(alternative) >= {"id", "title", "score"}
    assert isinstance(report["facts"], dict)
    assert isinstance(report["notices"], list)
    assert all(isinstance(n, str) for n in report["notices"])


@pytest.mark.parametrize("path", [FAILING, HEALTHY, SYMPTOM_ONLY, SEED],
                         ids=lambda p: p.parent.name)
def test_json_output_follows_the_contract(path: Path) -> None:
    result = run("explain", "--format", "json", str(path))
    report = report_of(result)
    check_contract(report)
    assert report["source"] == str(path)
    assert report["notices"] == []


def test_json_report_of_a_failure() -> None:
    report = report_of(run("explain", "--format", "json", str(SEED)))
    assert report["verdict"] == "failure"
    root = report["root_cause"]
    assert (root["exception"], root["line"]) == ("ValueError", 325)
    assert root["process"] == {"name": "Worker_TP5", "pid": 207855}
    assert report["symptoms"]
    assert report["signature"] is not None
    assert report["facts"].get("vllm_version", "").startswith("0.16.0rc2")


# ---- inputs ----------------------------------------------------------------------------------------

def test_stdin_dash() -> None:
    result = run("explain", "--format", "json", "-", input=FAILING.read_bytes())
    assert result.exit_code == 1
    report = report_of(result)
    check_contract(report)
    assert report["root_cause"]["line"] == 15


def test_stdin_empty_is_not_called_healthy() -> None:
    result = run("explain", "--format", "json", "-", input=b"")
    assert result.exit_code == 3
    report = report_of(result)
    assert report["verdict"] == "no_failure" and not report["recognised"]
    assert any("empty" in notice for notice in report["notices"])


@pytest.mark.parametrize("name", ["vllm.log.gz", "vllm.log"])
def test_gzip_input_whatever_its_name(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(gzip.compress(FAILING.read_bytes()))
    result = run("explain", "--format", "json", str(path))
    assert result.exit_code == 1
    report = report_of(result)
    check_contract(report)
    assert report["root_cause"]["line"] == 15
    assert report["notices"] == []


def test_truncated_gzip_still_reports(tmp_path: Path) -> None:
    path = tmp_path / "vllm.log.gz"
    data = gzip.compress(SEED.read_bytes())
    path.write_bytes(data[: len(data) * 2 // 3])
    result = run("explain", "--format", "json", str(path))
    assert result.exit_code in (0, 1)
    report = report_of(result)
    check_contract(report)
    assert report["notices"], "a cut gzip stream must say so"


def test_undecodable_bytes_still_report(tmp_path: Path) -> None:
    path = tmp_path / "vllm.log"
    path.write_bytes(b"\xc3\x28 \xfa garbage Error\n" + FAILING.read_bytes())
    result = run("explain", "--format", "json", str(path))
    assert result.exit_code == 1
    report = report_of(result)
    assert report["root_cause"]["line"] == 16
    assert report["notices"]


# ---- colour --------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [FAILING, HEALTHY, SYMPTOM_ONLY], ids=lambda p: p.parent.name)
@pytest.mark.parametrize("env", [
    {"NO_COLOR": "1", "TERM": "xterm-256color", "FORCE_COLOR": None},
    {"NO_COLOR": None, "TERM": "xterm-256color", "FORCE_COLOR": None},  # output is not a TTY
], ids=["NO_COLOR", "not-a-tty"])
def test_text_output_has_no_ansi_escapes(path: Path, env: dict[str, str | None]) -> None:
    result = run("explain", str(path), env=env)
    assert result.stdout.strip()
    assert not ANSI.search(result.stdout)
    assert not ANSI.search(result.stderr)


def test_text_output_names_root_cause_and_line() -> None:
    result = run("explain", str(SEED))
    assert "ValueError" in result.stdout
    assert "325" in result.stdout
    assert "Worker_TP5" in result.stdout
