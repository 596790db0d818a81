"""What a new user reads: a quoted message that was cut says so; list items at a terminal's
width keep a hanging indent."""

from __future__ import annotations

import re

import pytest

import logsleuth

WORKER = "(Worker pid=200) ERROR 02-05 10:11:05 [multiproc_executor.py:870] "
CORE = "(EngineCore_DP0 pid=100) ERROR 02-05 10:11:06 [core.py:1] "


def _log(pointer: str) -> str:
    return "\n".join([
        "INFO 02-05 10:11:01 [api_server.py:1] vLLM API server version 0.10.0",
        WORKER + "WorkerProc failed to start.",
        WORKER + "Traceback (most recent call last):",
        WORKER + '  File "/x/vllm/v1/worker/gpu_worker.py", line 10, in load_model',
        WORKER + '    raise ValueError("bad thing")',
        WORKER + "ValueError: bad thing",
        CORE + "EngineCore failed to start.",
        CORE + "Traceback (most recent call last):",
        CORE + '  File "/x/vllm/v1/engine/core.py", line 5, in run',
        CORE + '    raise Exception("...")',
        CORE + f"Exception: {pointer}",
    ]) + "\n"


POINTER = ("WorkerProc initialization failed due to an exception in a background process. "
           "See stack trace for root cause.")


@pytest.mark.parametrize("extra", [0, 1, 3, 8, 20])
def test_a_quoted_report_that_was_cut_ends_in_an_ellipsis(tmp_path, extra):
    message = POINTER + "".join(f" word{i}" for i in range(extra))
    path = tmp_path / "vllm.log"
    path.write_text(_log(message))
    report = logsleuth.explain(str(path))
    quoted = [r for r in report.reasons if "only reports a failure elsewhere" in r]
    assert quoted, report.reasons
    said = re.search(r'elsewhere: "(.*)"\.$', quoted[0]).group(1)
    if said != message:
        assert said.endswith("…"), said
        assert message.startswith(said[:-1])


def _items(text: str, heading: str) -> list[list[str]]:
    """The list items under `heading`, each as the lines it was printed on."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    items: list[list[str]] = []
    for line in lines[start:]:
        if not line.strip() or not line.startswith("  "):
            break
        if line.startswith("  - "):
            items.append([line])
        else:
            items[-1].append(line)
    return items


@pytest.mark.parametrize("width", [40, 60, 80])
def test_list_items_wrapped_at_a_width_hang_under_their_first_word(tmp_path, width):
    from click.testing import CliRunner

    from logsleuth.cli import main

    path = tmp_path / "vllm.log"
    path.write_text(_log(POINTER))
    result = CliRunner().invoke(main, ["explain", "--width", str(width), str(path)])
    for heading in ("Why this one", "Symptoms (errors that follow from it)"):
        items = _items(result.output, heading)
        assert items and any(len(item) > 1 for item in items), result.output
        for item in items:
            for line in item[1:]:
                assert line.startswith("    ") and line[4] != " ", (heading, item)
            assert all(len(line) <= width for line in item)


def test_list_items_in_a_pipe_stay_one_line_each(tmp_path):
    from click.testing import CliRunner

    from logsleuth.cli import main

    path = tmp_path / "vllm.log"
    path.write_text(_log(POINTER))
    result = CliRunner().invoke(main, ["explain", str(path)])
    for heading in ("Why this one", "Symptoms (errors that follow from it)"):
        assert all(len(item) == 1 for item in _items(result.output, heading)), result.output


NOT_LOGS = {"empty": b"", "prose": b"hello world\nthis is a letter, not a log\n",
            "binary": bytes(range(256)) * 40}


@pytest.mark.parametrize("command", [["graph"], ["graph", "--format", "mermaid"],
                                     ["timeline"], ["timeline", "--format", "svg"]])
@pytest.mark.parametrize("kind", sorted(NOT_LOGS))
def test_a_picture_of_something_that_is_no_log_says_so_and_exits_3(tmp_path, command, kind):
    from click.testing import CliRunner

    from logsleuth.cli import EXIT_NOT_A_LOG, main

    path = tmp_path / "input.log"
    path.write_bytes(NOT_LOGS[kind])
    result = CliRunner().invoke(main, [*command, str(path)])
    assert result.exit_code == EXIT_NOT_A_LOG, result.output
    said = [line for line in result.stderr.splitlines() if line]
    assert len(said) == 1 and said[0].startswith(f"logsleuth: {path}: no line of this input")


@pytest.mark.parametrize("command", [["graph"], ["timeline"]])
def test_a_picture_of_a_log_exits_0(tmp_path, command):
    from click.testing import CliRunner

    from logsleuth.cli import EXIT_NO_FAILURE, main

    path = tmp_path / "vllm.log"
    path.write_text(_log(POINTER))
    result = CliRunner().invoke(main, [*command, str(path)])
    assert result.exit_code == EXIT_NO_FAILURE and not result.stderr


@pytest.mark.parametrize("command", ["explain", "graph", "timeline", "triage"])
def test_every_exit_code_a_command_can_return_is_in_its_help(command):
    from click.testing import CliRunner

    from logsleuth.cli import EXIT_INTERNAL, EXIT_NOT_A_LOG, EXIT_OUTPUT, EXIT_UNUSABLE, main

    shown = CliRunner().invoke(main, [command, "--help"]).output
    codes = (EXIT_UNUSABLE, EXIT_OUTPUT, EXIT_INTERNAL) if command == "triage" else \
        (EXIT_UNUSABLE, EXIT_NOT_A_LOG, EXIT_OUTPUT, EXIT_INTERNAL)
    for code in codes:
        assert re.search(rf"(?m)^\s+{code}\s+\S", shown), (command, code)


@pytest.mark.parametrize("words", [4, 9, 14])
def test_the_timeline_in_a_pipe_or_a_file_is_never_wrapped(tmp_path, words):
    from click.testing import CliRunner

    from logsleuth.cli import main

    message = " ".join(f"setting{i}=value{i}" for i in range(words))
    path = tmp_path / "vllm.log"
    path.write_text(_log(POINTER).replace("bad thing", message))
    piped = CliRunner().invoke(main, ["timeline", str(path)]).output
    out = tmp_path / "timeline.txt"
    CliRunner().invoke(main, ["timeline", "-o", str(out), str(path)])
    for text in (piped, out.read_text()):
        rows = text.splitlines()
        root = [i for i, row in enumerate(rows) if "ROOT CAUSE" in row]
        assert len(root) == 1, text
        # the row after the root cause's is another event of its lane or the blank after the
        # lane, never the wrapped tail of its label
        after = rows[root[0] + 1] if root[0] + 1 < len(rows) else ""
        assert not after.strip() or after.startswith("  "), text
        assert "\x1b[" not in text


@pytest.mark.parametrize("command", ["explain", "graph", "timeline"])
def test_a_refusal_is_one_line_on_stderr_however_long_the_path(tmp_path, command):
    from click.testing import CliRunner

    from logsleuth.cli import EXIT_UNUSABLE, main

    path = tmp_path / ("a-rather-long-directory-name-" * 6) / "missing.log"
    result = CliRunner().invoke(main, [command, str(path)])
    assert result.exit_code == EXIT_UNUSABLE
    assert result.stderr.splitlines() == [f"logsleuth: {path}: no such file"], result.stderr


@pytest.mark.parametrize("kind", sorted(NOT_LOGS))
def test_triage_keeps_what_is_no_log_apart_from_a_healthy_log(tmp_path, kind):
    import json

    from click.testing import CliRunner

    from logsleuth.cli import main

    healthy = tmp_path / "healthy.log"
    healthy.write_text("INFO 02-05 10:11:01 [api_server.py:1] vLLM API server version 0.10.0\n"
                       "INFO 02-05 10:11:09 [launcher.py:1] Application startup complete.\n")
    other = tmp_path / "other.log"
    other.write_bytes(NOT_LOGS[kind])
    result = CliRunner().invoke(main, ["triage", "--no-cache", "--format", "json",
                                       str(healthy), str(other)])
    groups = {g["title"]: [c.rsplit("/", 1)[-1] for c in g.get("examples", ())] or g["count"]
              for g in json.loads(result.stdout)["groups"]}
    assert len(groups) == 2, groups
    assert "no failure" in groups
    assert any("no line looks like log output" in title for title in groups), groups


_WIDTH_PROBE = ("<pre id=\"probe\"></pre><script>document.getElementById('probe').textContent = "
                "document.documentElement.scrollWidth + ' ' + window.innerWidth;</script>")


def test_the_timeline_page_fits_a_narrow_window_without_scrolling_sideways(tmp_path):
    import shutil
    import subprocess

    from logsleuth.cli.graph import analyse
    from logsleuth.render.timeline import build_timeline, timeline_html

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium")
    log = tmp_path / "vllm.log"
    log.write_text(_log(POINTER))
    analysis = analyse(str(log))
    page = timeline_html(build_timeline(analysis.events, analysis.inference, analysis.origins,
                                        analysis.facts))
    path = tmp_path / "timeline.html"
    path.write_text(page.replace("</body>", _WIDTH_PROBE + "</body>"), encoding="utf-8")
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=700,900",
         "--virtual-time-budget=3000", "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r'<pre id="probe">(\d+) (\d+)</pre>', done.stdout)
    assert found, done.stdout[-2000:]
    scroll, window = map(int, found.groups())
    assert scroll <= window, (scroll, window)


@pytest.mark.parametrize("logs", [1, 2])
def test_the_triage_headline_counts_in_english(tmp_path, logs):
    from click.testing import CliRunner

    from logsleuth.cli import main

    paths = []
    for i in range(logs):
        path = tmp_path / f"vllm{i}.log"
        path.write_text(_log(POINTER))
        paths.append(str(path))
    head = CliRunner().invoke(main, ["triage", "--no-cache", *paths]).stdout.splitlines()[0]
    assert (f"{logs} log, " if logs == 1 else f"{logs} logs, ") in head, head
    assert " in 1 group (read" in head, head


@pytest.mark.parametrize("command", [["explain"], ["explain", "--format", "json"], ["graph"],
                                     ["timeline"]])
@pytest.mark.parametrize("typing", [True, False])
def test_reading_stdin_from_a_terminal_says_how_to_end_it(monkeypatch, command, typing):
    from click.testing import CliRunner

    from logsleuth.cli import main, output

    monkeypatch.setattr(output, "stdin_is_terminal", lambda: typing)
    result = CliRunner().invoke(main, [*command, "-"], input=_log(POINTER))
    assert ("Ctrl-D" in result.stderr) is typing, result.stderr
    assert result.exit_code in (0, 1), result.output


@pytest.mark.parametrize("kind", sorted(NOT_LOGS))
def test_the_text_report_of_no_log_does_not_call_it_a_healthy_log(tmp_path, kind):
    from click.testing import CliRunner

    from logsleuth.cli import EXIT_NOT_A_LOG, main

    path = tmp_path / "input.log"
    path.write_bytes(NOT_LOGS[kind])
    result = CliRunner().invoke(main, ["explain", str(path)])
    assert result.exit_code == EXIT_NOT_A_LOG
    assert "Nothing in this log failed" not in result.stdout
    assert "Nothing to explain: " in result.stdout, result.stdout


def test_the_text_report_of_a_healthy_log_says_nothing_failed(tmp_path):
    from click.testing import CliRunner

    from logsleuth.cli import EXIT_NO_FAILURE, main

    path = tmp_path / "vllm.log"
    path.write_text("INFO 02-05 10:11:01 [api_server.py:1] vLLM API server version 0.10.0\n"
                    "INFO 02-05 10:11:09 [launcher.py:1] Application startup complete.\n")
    result = CliRunner().invoke(main, ["explain", str(path)])
    assert result.exit_code == EXIT_NO_FAILURE and "Nothing in this log failed." in result.stdout


@pytest.mark.parametrize("fmt", ["markdown", "html"])
@pytest.mark.parametrize("kind", [*sorted(NOT_LOGS), "healthy"])
def test_markdown_and_html_tell_no_log_from_a_healthy_log(tmp_path, fmt, kind):
    from click.testing import CliRunner

    from logsleuth.cli import main

    path = tmp_path / "input.log"
    path.write_bytes(NOT_LOGS[kind] if kind in NOT_LOGS else (
        b"INFO 02-05 10:11:01 [api_server.py:1] vLLM API server version 0.10.0\n"
        b"INFO 02-05 10:11:09 [launcher.py:1] Application startup complete.\n"))
    out = CliRunner().invoke(main, ["explain", "--format", fmt, str(path)]).stdout
    assert ("Nothing in this log failed." in out) is (kind == "healthy"), out[-3000:]
    assert ("Nothing to explain: " in out) is (kind != "healthy")


@pytest.mark.parametrize("healthy_runs", [1, 2])
def test_one_failed_run_among_several_is_not_called_the_last_of_them(tmp_path, healthy_runs):
    from logsleuth.render.text import runs_lines

    healthy = ("INFO 02-05 10:11:01 [api_server.py:1] vLLM API server version 0.10.0\n"
               "INFO 02-05 10:11:09 [launcher.py:1] Application startup complete.\n")
    path = tmp_path / "vllm.log"
    path.write_text(_log(POINTER) + healthy * healthy_runs)
    report = logsleuth.explain(str(path))
    assert len(report.runs) == 1 + healthy_runs, report.runs
    said = runs_lines(report)[0]
    assert said.startswith(f"a failure in 1 of {1 + healthy_runs} runs") and "last of" not in said
