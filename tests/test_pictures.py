"""The pictures and the HTML report, checked as a person sees them: rendered by headless Chromium
(the Debian package; `.ci/run` installs it), with the layout measured in the browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import logsleuth
from logsleuth.cli import main
from logsleuth.cli.graph import analyse
from logsleuth.render.graph import build_picture, layout_svg, process_range
from logsleuth.render.timeline import build_timeline, timeline_svg

TESTS = Path(__file__).parent
CORPUS = TESTS / "fixtures" / "corpus"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
FOUR_PROCESSES = CORPUS / "multi" / "nim-tp2-free-memory-below-utilization" / "log.txt"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed here; .ci/run installs the "
                             "Debian package so these run in CI")
HOSTILE = ('<script>alert("x")</script> <img src=x onerror=alert(1)> __init__ **bold** '
           '<path>:<num>')
HOSTILE_LOG = ("(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1] EngineCore failed to "
               "start.\n(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1] Traceback (most "
               "recent call last):\n(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1]   "
               'File "/v/core.py", line 3, in run\n(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 '
               f"[core.py:1] ValueError: {HOSTILE}\n")

_MEASURE = """<!DOCTYPE html><html><body>%s<pre id="result"></pre><script>
const boxes = [...document.querySelectorAll('svg text')].map(t => {
  const r = t.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, t.textContent];
}).filter(b => b[2] > b[0]);
const overlaps = [];
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const a = boxes[i], b = boxes[j];
  if (a[0] < b[2] - 1 && b[0] < a[2] - 1 && a[1] < b[3] - 1 && b[1] < a[3] - 1)
    overlaps.push([a[4], b[4]]);
}
const svg = document.querySelector('svg').getBoundingClientRect();
document.getElementById('result').textContent =
  JSON.stringify({texts: boxes.length, overlaps: overlaps, width: svg.width});
</script></body></html>"""


def _chromium_dom(page: Path) -> tuple[str, str]:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={page.parent / 'chromium-profile'}",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom",
         page.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    return done.stdout, done.stderr


def _measure(svg: str, tmp_path: Path) -> dict[str, object]:
    page = tmp_path / "measure.html"
    page.write_text(_MEASURE % svg, encoding="utf-8")
    dom, _ = _chromium_dom(page)
    found = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), dom[-2000:]
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")
                        .replace("&lt;", "<").replace("&gt;", ">"))
    assert isinstance(result, dict)
    return result


def _graph_svg(path: Path) -> str:
    analysis = analyse(str(path))
    return layout_svg(build_picture(analysis.events, analysis.inference))


def _timeline_svg(path: Path) -> str:
    analysis = analyse(str(path))
    return timeline_svg(build_timeline(analysis.events, analysis.inference, analysis.origins,
                                       analysis.facts))


# ---- without a browser ----------------------------------------------------------------------------

def test_identical_errors_of_eight_workers_are_one_node() -> None:
    analysis = analyse(str(SEED))
    picture = build_picture(analysis.events, analysis.inference)
    roots = [n for n in picture.nodes if n.status.value == "root_cause"]
    assert len(roots) == 1 and roots[0].count == 8
    assert roots[0].process == "Worker_TP0–TP7" and roots[0].line == 325
    assert len(picture.lanes) <= 4  # one lane per process role, not per process


@pytest.mark.parametrize(("names", "shown"), [
    (["Worker_TP0"], "Worker_TP0"),
    ([f"Worker_TP{i}" for i in (3, 0, 1, 2)], "Worker_TP0–TP3"),
    (["Worker_TP0", "Worker_TP2"], "Worker_TP0, Worker_TP2"),
    (["a", "b", "c", "d", "e"], "a, b, c +2"),
])
def test_process_ranges(names: list[str], shown: str) -> None:
    assert process_range(names) == shown


def test_node_texts_keep_the_messages_key_words() -> None:
    svg = _graph_svg(SEED)
    assert "No valid attention backend found" in svg and "kv_cache_dtype=fp8_e4m3" in svg


@pytest.mark.parametrize("render", ["graph", "timeline", "markdown", "html"])
def test_log_text_is_never_markup(tmp_path: Path, render: str) -> None:
    log = tmp_path / "hostile.log"
    log.write_text(HOSTILE_LOG, encoding="utf-8")
    if render == "graph":
        out = _graph_svg(log)
    elif render == "timeline":
        out = _timeline_svg(log)
    else:
        out = CliRunner().invoke(main, ["explain", "--format", render, str(log)]).stdout
    if render == "markdown":  # code spans and fences show text as it is: GitHub renders no
        out = re.sub(r"```.*?```|`[^`]*`", "", out, flags=re.S)  # markup in them
        assert "<path>" not in out and "**bold**" not in out and "HOSTILE" not in out
    assert "<script>" not in out and "<img" not in out


# ---- in the browser -------------------------------------------------------------------------------

@needs_chromium
@pytest.mark.parametrize("log", [SEED, FOUR_PROCESSES], ids=["seed-tp8", "four-processes"])
@pytest.mark.parametrize("picture", ["graph", "timeline"])
def test_no_two_texts_of_a_picture_overlap(tmp_path: Path, log: Path, picture: str) -> None:
    svg = _graph_svg(log) if picture == "graph" else _timeline_svg(log)
    result = _measure(svg, tmp_path)
    assert result["texts"], result
    assert result["overlaps"] == [], result["overlaps"]
    if picture == "graph":
        assert float(str(result["width"])) <= 1600  # about a screen wide, even for TP=8


@needs_chromium
def test_the_html_report_loads_offline_and_shows_root_cause_and_fix(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["explain", "--format", "html", "-o", str(page), str(SEED)])
    assert result.exit_code == 1, result.output
    html = page.read_text(encoding="utf-8")
    assert "http://" not in html.split("<body>")[0] and "<link" not in html  # nothing fetched
    dom, log = _chromium_dom(page)
    root = logsleuth.explain(SEED).root_cause
    assert root is not None
    assert 'id="root-message"' in dom and "Reasons: {FLASH_ATTN_MLA" in dom  # the whole message
    assert 'id="fix"' in dom and "<svg" in dom
    assert "Uncaught" not in log and ":ERROR:CONSOLE" not in log


@needs_chromium
def test_hostile_log_text_makes_no_element_in_the_browser(tmp_path: Path) -> None:
    log = tmp_path / "hostile.log"
    log.write_text(HOSTILE_LOG, encoding="utf-8")
    page = tmp_path / "report.html"
    CliRunner().invoke(main, ["explain", "--format", "html", "-o", str(page), str(log)])
    dom, _ = _chromium_dom(page)
    assert "<img" not in dom and "<script>alert" not in dom
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom  # shown as text
