"""Renderers: text, JSON and Markdown say what was requested and what ran; the causal graph and
the timeline have the right structure; pictures of the founding case are valid SVG."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import logsleuth.cli.graph  # noqa: F401  registers `graph` and `timeline` on main
from logsleuth.cli import main
from logsleuth.cli.graph import analyse
from logsleuth.pipeline import explain
from logsleuth.render.json import to_json
from logsleuth.render.text import render_text
from logsleuth.render.graph import (NodeStatus, build_picture, layout_svg, to_dot, to_mermaid,
                                    to_svg)
from logsleuth.render.markdown import render_markdown
from logsleuth.render.timeline import Mark, build_timeline, timeline_html, timeline_svg

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
SVG = "{http://www.w3.org/2000/svg}"


def text_of(path: Path, *, verbose: bool = False) -> str:
    buffer = io.StringIO()
    render_text(explain(path), Console(file=buffer, width=200, no_color=True), verbose=verbose)
    return buffer.getvalue()


# ---- requested vs effective in every format ------------------------------------------------------

def test_text_says_auto_was_asked_and_fp8_ran() -> None:
    text = text_of(SEED)
    assert "kv_cache_dtype: requested auto (line 3), but the engine ran fp8_e4m3 (line 10)" in text
    assert "fp8_e4m3 (requested auto)" in text
    # root cause first, then why, then the fix
    assert text.index("Root cause") < text.index("Why this one") < text.index("Fix:")


def test_text_verbose_shows_fact_lines_and_the_raw_arguments() -> None:
    text = text_of(SEED, verbose=True)
    assert "non-default args" in text
    assert "(line 10)" in text


def test_json_has_config_differences_and_fact_origins() -> None:
    data = json.loads(to_json(explain(SEED)))
    assert data["config_differences"] == [{"name": "kv_cache_dtype", "requested": "auto",
                                           "effective": "fp8_e4m3", "requested_line": 3,
                                           "effective_line": 10}]
    assert data["facts"]["kv_cache_dtype"] == "fp8_e4m3"
    assert data["facts"]["kv_cache_dtype.requested"] == "auto"
    assert data["fact_origins"]["kv_cache_dtype"]["line"] == 10
    assert {"part": "facts", "score": 1.0, "detail": "kv_cache_dtype.requested=auto (auto)"} \
        in data["signature"]["evidence"]


def test_markdown_is_a_bug_report() -> None:
    text = render_markdown(explain(SEED))
    assert text.startswith("### vLLM failure: `ValueError` in `Worker_TP5` (line 325)")
    assert "| vLLM | 0.16.0rc2.dev313+g6b3e0f2a1 |" in text
    assert "| `kv_cache_dtype` | `auto` (line 3) | `fp8_e4m3` (line 10) |" in text
    # the original lines, numbered, of the root cause's own process only
    assert "   325 | (Worker_TP5 pid=207855) ERROR 02-05 10:12:18" in text
    assert "(Worker_TP0 pid=207850)" not in text.split("#### Root cause")[1].split("####")[0]
    assert "#### Suggested fix:" in text and "https://github.com/vllm-project/vllm/pull/29980" in text
    assert "<details><summary>Causal chain" in text and text.rstrip().endswith("</details>")


@pytest.mark.parametrize("text", [
    "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0\n"
    "INFO 05-01 10:00:09 [launcher.py:1] Application startup complete.\n",
    "\r\r\r"])  # no log at all: its notices are still shown
def test_markdown_of_a_log_that_did_not_fail_offers_no_fix(text: str) -> None:
    # nothing failed: no "no signature matches" with a call to write one, no empty block
    from logsleuth.pipeline import explain_text

    report = explain_text(text)
    out = render_markdown(report)
    assert report.verdict.value == "no_failure"
    assert "Suggested fix" not in out and "signatures new" not in out
    said = "Nothing in this log failed." if report.recognised else "Nothing to explain: "
    assert said in out and "root cause</summary>" not in out
    assert "<summary>" in out if report.notices else "<details>" not in out


def test_markdown_from_stdin_says_it_cannot_reread() -> None:
    result = CliRunner().invoke(main, ["explain", "--format", "markdown", "-"],
                                input=SEED.read_bytes())
    assert result.exit_code == 1
    assert "The log came from stdin and cannot be read again" in result.stdout
    assert "   325 | ValueError: No valid attention backend" in result.stdout


# ---- the causal graph ----------------------------------------------------------------------------

def test_graph_of_the_founding_case() -> None:
    analysis = analyse(str(SEED))
    picture = build_picture(analysis.events, analysis.inference)
    roots = [n for n in picture.nodes if n.status is NodeStatus.ROOT]
    # the eight workers' copies are one node, at the first copy's line
    assert [(n.process, n.line, n.count) for n in roots] == [("Worker_TP0–TP7", 325, 8)]
    symptoms = {(n.process, n.line) for n in picture.nodes if n.status is NodeStatus.SYMPTOM}
    assert symptoms == {("EngineCore_DP0", 412), ("APIServer", 489)}
    ids = {n.line: n.id for n in picture.nodes}
    assert any(e.cause == ids[325] and e.effect == ids[412] and e.label == "points to"
               for e in picture.edges)
    assert picture.lanes == ("workers", "engine core", "API server")
    dot, mermaid = to_dot(picture), to_mermaid(picture)
    assert f'{ids[325]} -> {ids[412]} [label="points to"];' in dot
    assert f"{ids[325]} -->|points to| {ids[412]}" in mermaid


def test_graph_picture_of_the_founding_case_is_svg(tmp_path: Path) -> None:
    out = tmp_path / "graph.svg"
    result = CliRunner().invoke(main, ["graph", str(SEED), "--format", "svg", "-o", str(out)])
    assert result.exit_code == 0, result.output
    root = ElementTree.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    # our own layout (graphviz may be absent): one group per node, the root cause among them
    own = ElementTree.fromstring(layout_svg(build_picture(*_events(SEED))))
    groups = own.findall(f"{SVG}g")
    assert any("root_cause" in g.get("class", "") for g in groups)
    assert to_svg(build_picture(*_events(SEED)), use_dot=False).startswith("<svg")


def _events(path: Path):  # type: ignore[no-untyped-def]
    analysis = analyse(str(path))
    return analysis.events, analysis.inference


@pytest.mark.parametrize("fmt", ["dot", "mermaid"])
def test_graph_formats_on_stdout(fmt: str) -> None:
    result = CliRunner().invoke(main, ["graph", str(SEED), "--format", fmt])
    assert result.exit_code == 0
    assert result.stdout.startswith("digraph" if fmt == "dot" else "flowchart")


def test_graph_of_a_missing_file_is_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["graph", str(tmp_path / "nope.log")])
    assert result.exit_code == 2


# ---- the timeline --------------------------------------------------------------------------------

def test_timeline_lanes_of_the_founding_case() -> None:
    analysis = analyse(str(SEED))
    timeline = build_timeline(analysis.events, analysis.inference, analysis.origins,
                              analysis.facts)
    lanes = {lane.process.name: lane for lane in timeline.lanes}
    assert set(lanes) >= {"APIServer", "EngineCore_DP0", "Worker_TP5", "Worker_TP0"}
    assert len([n for n in lanes if n.startswith("Worker_TP")]) == 8
    assert timeline.root_line == 325
    assert [e.line for e in lanes["Worker_TP5"].events if e.mark is Mark.ROOT] == [325]
    api = [(e.line, e.mark) for e in lanes["APIServer"].events]
    assert (2, Mark.STEP) in api and (489, Mark.ERROR) in api
    assert (10, Mark.STEP) in [(e.line, e.mark) for e in lanes["EngineCore_DP0"].events]


def test_timeline_text_in_the_terminal() -> None:
    result = CliRunner().invoke(main, ["timeline", str(SEED)])
    assert result.exit_code == 0
    assert "Worker_TP5 pid=207855" in result.stdout
    assert "ROOT CAUSE  ValueError" in result.stdout


@pytest.mark.parametrize("fmt", ["svg", "html"])
def test_timeline_picture_of_the_founding_case(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"timeline.{fmt}"
    result = CliRunner().invoke(main, ["timeline", str(SEED), "--format", fmt, "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    svg = text if fmt == "svg" else text[text.index("<svg"):text.index("</svg>") + 6]
    root = ElementTree.fromstring(svg)
    lanes = root.findall(f"{SVG}g")
    assert len(lanes) == 10  # the API server, the engine core and eight workers
    assert root.findall(f".//{SVG}circle[@class='root_cause']")


def test_timeline_svg_and_html_functions() -> None:
    analysis = analyse(str(SEED))
    timeline = build_timeline(analysis.events, analysis.inference, analysis.origins,
                              analysis.facts)
    ElementTree.fromstring(timeline_svg(timeline))
    assert timeline_html(timeline).startswith("<!DOCTYPE html>")
