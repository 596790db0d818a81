"""Lint of the `examples` key (every example log has a public source; the held-out set's
odd-numbered vLLM issues never give one) and of skeleton placeholders."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from logsleuth.cli import main
from logsleuth.signatures.lint import lint

BASE = """\
id: sourced
title: A signature written by the test suite
category: misc
description: A signature written by the test suite to exercise the examples lint.
severity: error
status: experimental
match:
  regex: ['xyzzy happened']
fix: |
  Written by the test suite; this text only needs to be long enough for the schema.
references:
  - https://github.com/vllm-project/vllm/issues/2
"""
LOG = "ValueError: xyzzy happened\n"


def _write(tmp_path: Path, extra: str, logs: tuple[str, ...] = ("sourced.log",)) -> Path:
    folder = tmp_path / "misc"
    folder.mkdir(parents=True, exist_ok=True)
    for name in logs:
        (folder / name).write_text(LOG, encoding="utf-8")
    path = folder / "sourced.yaml"
    path.write_text(BASE + extra, encoding="utf-8")
    return path


@pytest.mark.parametrize("extra,logs,words", [
    ("examples:\n  sourced.log: https://github.com/vllm-project/vllm/issues/4\n",
     ("sourced.log", "sourced.negative.log"), "sourced.negative.log has no source"),
    ("examples:\n  sourced.log: https://github.com/vllm-project/vllm/issues/4\n"
     "  sourced.2.log: 'constructed: from the message'\n", ("sourced.log",),
     "sourced.2.log, which is not beside the file"),
    ("examples:\n  sourced.log: https://github.com/vllm-project/vllm/issues/31\n",
     ("sourced.log",), "odd-numbered vLLM issue #31"),
    ("examples:\n  sourced.log: somewhere on the web\n", ("sourced.log",),
     "neither a URL nor 'constructed: ...'"),
    ("examples:\n  sourced.log: 'TODO: the public source'\n", ("sourced.log",),
     "skeleton placeholder"),
])
def test_examples_lint_errors(tmp_path: Path, extra: str, logs: tuple[str, ...],
                              words: str) -> None:
    _write(tmp_path, extra, logs)
    errors = [p.message for p in lint([tmp_path], examples=False) if p.is_error]
    assert any(words in e for e in errors), errors


def test_example_logs_without_an_examples_key_fail_lint(tmp_path: Path) -> None:
    """CONTRIBUTING.md: an example log whose public source is not declared is an error, not a
    warning (the check that no example comes from the held-out set cannot see it otherwise)."""
    path = _write(tmp_path, "", ("sourced.log", "sourced.negative.log"))
    errors = [p for p in lint([tmp_path], examples=False) if p.is_error]
    assert [p.location for p in errors] == [f"{path}:1"], [p.format() for p in errors]
    assert "no `examples` key: give each example log's public source" in errors[0].format()
    assert errors[0].format().startswith(f"{path}:1: error: ")
    result = CliRunner().invoke(main, ["signatures", "lint", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert f"{path}:1: error: no `examples` key" in result.output


def test_fully_sourced_examples_lint_clean(tmp_path: Path) -> None:
    _write(tmp_path, "examples:\n  sourced.log: https://github.com/vllm-project/vllm/issues/4\n"
           "  sourced.negative.log: 'constructed: another message'\n",
           ("sourced.log", "sourced.negative.log"))
    assert [p.format() for p in lint([tmp_path], examples=False) if p.is_error] == []


def test_a_fresh_skeleton_fails_lint_until_its_todos_are_written(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text("Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n"
                   "    g()\nValueError: the frobnicator is out of range 42\n", encoding="utf-8")
    made = CliRunner().invoke(main, ["signatures", "new", "--from", str(log), "--dir",
                                     str(tmp_path / "sigs"), "--category", "misc", "--id", "frob"])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(main, ["signatures", "lint", str(tmp_path / "sigs")])
    assert result.exit_code == 1
    assert "skeleton placeholder (TODO)" in result.output


def test_signatures_list_counts_each_kind() -> None:
    result = CliRunner().invoke(main, ["signatures", "list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert " exact, " in result.output and " family" in result.output


def test_overlap_is_reported_between_signatures_of_one_kind_only(tmp_path: Path) -> None:
    # a family under an exact signature is a fallback by design; a second exact one is a rival
    path = _write(tmp_path,
                  "examples:\n  sourced.log: https://github.com/vllm-project/vllm/issues/4\n")
    # the exception makes it the best match of its own example; the rivals match the text only
    path.write_text(path.read_text().replace("match:\n", "match:\n  exception: [ValueError]\n"))
    for rival, kind in (("sourced-twin", "exact"), ("sourced-family", "family")):
        (tmp_path / "misc" / f"{rival}.yaml").write_text(
            BASE.replace("id: sourced", f"id: {rival}") + f"kind: {kind}\n", encoding="utf-8")
    warnings = [p.message for p in lint([tmp_path]) if not p.is_error
                and p.location.startswith(str(tmp_path / "misc" / "sourced.log"))]
    assert any("also matches sourced-twin" in w for w in warnings), warnings
    assert not any("sourced-family" in w for w in warnings), warnings
