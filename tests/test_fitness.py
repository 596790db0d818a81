"""Fit for where people use it (issue 14): pipes and files, exit codes CI can trust, CI formats,
following a pipe, the API's types. Each test is one complaint a user made, kept from coming back."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import logsleuth
from logsleuth.cli import main
from logsleuth.model import SignatureKind

TESTS = Path(__file__).parent
ROOT = TESTS.parent
CORPUS = TESTS / "fixtures" / "corpus"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
HEALTHY = CORPUS / "long" / "healthy-dgx-spark-sigterm-shutdown" / "log.txt"


def run(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


# ---- pipes and files get whole lines ------------------------------------------------------------

def test_piped_text_is_not_wrapped_or_padded() -> None:
    result = run("explain", str(SEED))
    lines = result.stdout.splitlines()
    assert lines and all(line == line.rstrip() for line in lines), "trailing padding"
    # the frame path a user greps for stays on one line
    assert any("attention/selector.py:120 in _cached_get_attn_backend" in line for line in lines)
    assert max(len(line) for line in lines) > 80  # not hard-wrapped at 80 columns


def test_a_fix_paragraph_written_over_several_lines_is_not_wrapped() -> None:
    # Markdown joins a paragraph's soft-broken lines (a YAML fix, the release evidence): the
    # width a pipe gets must hold the joined paragraph, not only its longest written line
    from dataclasses import replace

    from logsleuth.cli.output import render_rich
    from logsleuth.render.text import render_text, unwrapped_width

    report = logsleuth.explain(SEED)
    assert report.signature is not None
    words = [f"word{n}" for n in range(600)]
    fix = "1 Step one:\n" + "\n".join(" ".join(words[i:i + 10]) for i in range(0, 600, 10))
    report = replace(report, signature=replace(report.signature, fix=fix))
    text = render_rich(lambda console: render_text(report, console), width=None, terminal=False,
                       natural_width=unwrapped_width(report))
    assert any(" ".join(words) in line for line in text.splitlines())


def test_an_exception_without_a_message_says_so() -> None:
    log = ('Traceback (most recent call last):\n'
           '  File "/usr/lib/python3.12/site-packages/vllm/worker/worker.py", line 10, in f\n'
           '    raise AssertionError\nAssertionError\n')
    lines = run("explain", "-", input=log.encode()).stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.strip().startswith("AssertionError"))
    assert lines[head + 1].strip() == "(no message)"


def test_width_wraps_on_request() -> None:
    lines = run("explain", "--width", "60", str(SEED)).stdout.splitlines()
    assert max(len(line) for line in lines) <= 60


def test_verbose_shows_the_whole_root_cause_message() -> None:
    report = logsleuth.explain(SEED)
    assert report.root_cause is not None
    tail = report.root_cause.message.strip()[-60:]  # the end of the message: the Reasons list
    assert tail not in run("explain", str(SEED)).stdout.replace("\n", "")
    assert tail in run("explain", "-v", str(SEED)).stdout.replace("\n", "")


# ---- exit codes -----------------------------------------------------------------------------------

# Random bytes from fixed seeds: an unseeded draw made this test fail about once in 200 runs,
# when the bytes held a line that parses as a progress bar or an exception name (seed 131 does).
_SEEDS = range(120, 140)
_RANDOM = [random.Random(seed).randbytes(4096) for seed in _SEEDS]


@pytest.mark.parametrize("content", [b"", b"# A README\n\nSome prose, `code`, and a list:\n- one\n",
                                     bytes(range(256)) * 64, *_RANDOM],
                         ids=["empty", "prose", "binary", *(f"random{seed}" for seed in _SEEDS)])
def test_input_that_is_not_a_log_has_its_own_exit_code(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "wrong.txt"
    path.write_bytes(content)
    result = run("explain", str(path))
    assert result.exit_code == 3, result.output
    assert "NO FAILURE" in result.stdout and "log output" in result.stdout or "empty" in result.stdout


def test_a_healthy_log_is_still_zero() -> None:
    assert run("explain", str(HEALTHY)).exit_code == 0


@pytest.mark.parametrize(("fail_on", "code"), [("failure", 1), ("unknown", 0), ("never", 0)])
def test_fail_on_a_known_failure(fail_on: str, code: int) -> None:
    assert logsleuth.explain(SEED).signature is not None  # the seed's failure is a known one
    assert run("explain", "--fail-on", fail_on, str(SEED)).exit_code == code


def test_fail_on_unknown_fails_on_a_failure_no_signature_knows(tmp_path: Path) -> None:
    path = tmp_path / "unknown.log"
    path.write_text("Traceback (most recent call last):\n"
                    '  File "/app/x.py", line 3, in <module>\n'
                    "ZzyzxError: a failure nobody has catalogued qwxv\n")
    signature = logsleuth.explain(path).signature
    # only the last resort answers it (signatures/fallback/): still a failure no signature knows
    assert signature is not None and signature.kind is SignatureKind.FALLBACK
    assert run("explain", "--fail-on", "unknown", str(path)).exit_code == 1


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is Linux-only")
def test_a_full_disk_is_exit_4_without_a_traceback() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "logsleuth", "explain", "--format", "json",
                               str(SEED)], stdout=full, stderr=subprocess.PIPE, cwd=ROOT,
                              timeout=120)
    assert done.returncode == 4
    assert b"Traceback" not in done.stderr and b"No space left" in done.stderr


@pytest.mark.parametrize("command", [["explain"], ["explain", "--format", "json"],
                                     ["timeline", "--format", "svg"], ["graph", "--format", "svg"],
                                     ["timeline"]])
def test_an_unwritable_output_is_exit_4(tmp_path: Path, command: list[str]) -> None:
    result = run(*command, "-o", str(tmp_path / "missing" / "dir" / "out"), str(SEED))
    assert result.exit_code == 4, result.output
    assert "cannot write" in result.stderr and "Traceback" not in result.stderr


def _ctrl_c_heard() -> None:
    """Ctrl-C as at a terminal: a suite started in the background (`pytest &` in a script) has
    SIGINT ignored, and Python started with it ignored never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_following_prints_what_was_read_and_exits_130() -> None:
    lines = SEED.read_text().splitlines(keepends=True)[:40]  # start-up, no failure yet
    proc = subprocess.Popen([sys.executable, "-m", "logsleuth", "explain", "--follow",
                             "--format", "json", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            preexec_fn=_ctrl_c_heard)
    assert proc.stdin is not None
    proc.stdin.write("".join(lines).encode())
    proc.stdin.flush()
    assert proc.stderr is not None
    waiting = proc.stderr.readline()  # said once it has caught up with the input
    assert b"40 lines read" in waiting and b"waiting" in waiting
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert b'"lines_read": 40' in out and b"interrupted" in out
    assert b"Traceback" not in err


# ---- following a pipe -----------------------------------------------------------------------------

def test_follow_reads_a_pipe_to_its_end() -> None:
    result = run("explain", "--follow", "--format", "json", "-", input=SEED.read_bytes())
    assert result.exit_code == 1
    assert '"line": 325' in result.stdout


# ---- CI formats -----------------------------------------------------------------------------------

def test_github_annotations_point_at_the_root_cause_line() -> None:
    lines = run("explain", "--format", "github", str(SEED)).stdout.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 1 and ",line=325," in errors[0]
    assert any(line.startswith("::warning ") for line in lines)
    assert any(line.startswith("::notice ") and "title=Fix%3A" in line for line in lines)
    assert all("\n" not in line for line in lines)


def test_github_annotations_escape_newlines_and_percent(tmp_path: Path) -> None:
    from logsleuth.render.github import annotation

    text = annotation("error", "50% done\nnext", file="a,b:c.log", line=3)
    assert text == "::error file=a%2Cb%3Ac.log,line=3::50%25 done%0Anext"


# ---- the API --------------------------------------------------------------------------------------

def test_verdict_compares_equal_to_its_json_string() -> None:
    report = logsleuth.explain(SEED)
    assert report.verdict == "failure"
    assert f"{report.verdict}" == "failure"


def test_parse_yields_events_in_log_order() -> None:
    starts = [event.first_line if isinstance(event, logsleuth.ErrorEvent) else event.line
              for event in logsleuth.parse(SEED)]
    assert len(starts) > 10 and starts == sorted(starts)


def test_log_text_given_as_a_path_is_a_clear_error() -> None:
    text = SEED.read_text()
    with pytest.raises(logsleuth.InputError, match="explain_text"):
        logsleuth.explain(text)
    assert logsleuth.explain_text(text).verdict == "failure"


@pytest.mark.parametrize("source", [SEED.read_bytes()[:2000], 42, None])
def test_a_source_of_the_wrong_type_is_a_clear_type_error(source: Any) -> None:
    # not an AttributeError from the reader's insides ('bytes' object has no attribute 'read')
    for call in (logsleuth.explain, lambda s: list(logsleuth.parse(s))):
        with pytest.raises(TypeError, match="BytesIO" if isinstance(source, bytes) else "path"):
            call(source)


@pytest.mark.parametrize("command", [["explain"], ["explain", "--follow", "--timeout", "1"],
                                     ["graph"], ["timeline"]])
def test_a_directory_given_as_a_log_points_at_triage(tmp_path: Path, command: list[str]) -> None:
    result = run(*command, str(tmp_path))
    assert result.exit_code == 2 and "is a directory" in result.stderr, result.output
    assert "logsleuth triage DIR" in result.stderr and len(result.stderr.splitlines()) == 1


# ---- one signature tree, folders of any shape -------------------------------------------------------

SHIPPED = ROOT / "signatures"


def test_signatures_list_piped_keeps_whole_ids() -> None:
    from logsleuth.signatures import default_signatures

    out = run("signatures", "list").stdout
    longest = max((s.id for s in default_signatures()), key=len)
    assert longest in out and "…" not in out
    assert all(line == line.rstrip() for line in out.splitlines())


def test_a_flat_signature_folder_is_loaded(tmp_path: Path) -> None:
    source = next(SHIPPED.glob("cuda/*.yaml"))
    (tmp_path / source.name).write_text(source.read_text(), encoding="utf-8")
    from logsleuth.signatures import load_signatures

    assert [s.id for s in load_signatures(tmp_path, shipped=False)] == [source.stem]


def test_an_empty_signature_folder_is_a_notice(tmp_path: Path) -> None:
    report = logsleuth.explain(SEED, signatures=logsleuth.load_signatures(tmp_path))
    assert any("holds no signature files" in notice for notice in report.notices)


def test_signatures_test_with_nothing_to_run_says_so(tmp_path: Path) -> None:
    # a contributor who names the log, or an empty folder, must not read "0 passed" as a pass
    log = tmp_path / "vllm.log"
    log.write_text("ValueError: x\n", encoding="utf-8")
    for given in (log, tmp_path):
        result = run("signatures", "test", str(given))
        assert result.exit_code == 2 and "no example logs" in result.stderr, result.output
        assert "passed" not in result.stdout


def test_a_category_folder_tests_like_its_files() -> None:
    folder = SHIPPED / "pooling"  # a small one: every example is run twice (cuda's 36: 8 s)
    by_folder = run("signatures", "test", str(folder))
    by_files = run("signatures", "test", *map(str, sorted(folder.glob("*.yaml"))))
    assert by_folder.exit_code == by_files.exit_code == 0
    assert by_folder.stdout.splitlines()[-1] == by_files.stdout.splitlines()[-1]


def test_lint_counts_files_and_speaks_github_and_json() -> None:
    # a small category folder that has warnings to print (linting the cuda folder's 36 three
    # times, examples run each time, was most of this test's 20 s)
    folder = str(SHIPPED / "pooling")
    text = run("signatures", "lint", folder)
    assert "file(s) checked" in text.stderr
    import json

    data = json.loads(run("signatures", "lint", "--format", "json", folder).stdout)
    assert data["files"] == len(list((SHIPPED / "pooling").glob("*.yaml")))
    github = run("signatures", "lint", "--format", "github", folder).stdout.splitlines()
    assert github and all(line.startswith(("::error ", "::warning ")) for line in github)


def test_lint_fails_on_an_unedited_skeleton(tmp_path: Path) -> None:
    made = run("signatures", "new", "--from", str(SEED), "--dir", str(tmp_path))
    assert made.exit_code == 0 and "--signatures" in made.stdout  # says how it is picked up
    result = run("signatures", "lint", str(tmp_path))
    assert result.exit_code == 1 and "TODO" in result.stdout


def test_signatures_new_says_what_each_option_is() -> None:
    # CONTRIBUTING's first step: --category is the folder the files go to, and lint holds it
    text = " ".join(run("signatures", "new", "--help").stdout.split())
    assert "its folder under --dir" in text and "signatures list" in text
    assert "it is the files' name" in text and "--signatures" in text


def test_signatures_show_prints_a_fix_without_a_log() -> None:
    result = run("signatures", "show", "cuda-fork-reinit")
    assert result.exit_code == 0 and "Fix:" in result.stdout
    missing = run("signatures", "show", "cuda-fork-reinitt")
    assert missing.exit_code == 2 and "cuda-fork-reinit" in missing.stderr


def test_ctrl_c_stops_a_triage_run_with_130(tmp_path: Path) -> None:
    for index in range(300):
        (tmp_path / f"run{index}.log").write_bytes(SEED.read_bytes())
    proc = subprocess.Popen([sys.executable, "-m", "logsleuth", "triage", "--no-cache",
                             "--jobs", "2", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, preexec_fn=_ctrl_c_heard)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    for _ in range(600):  # until its pool of workers runs (polled; no timing is asserted)
        if not children.exists() or children.read_text().strip() or proc.poll() is not None:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert b"Traceback" not in err and b"interrupted" in err


# ---- safe to paste publicly ---------------------------------------------------------------------------

PRIVATE_LOG = ("(EngineCore_DP0 pid=7) ERROR 01-01 00:00:00 [core.py:1] EngineCore failed to start."
               "\n(EngineCore_DP0 pid=7) ERROR 01-01 00:00:00 [core.py:1] Traceback (most recent "
               'call last):\n(EngineCore_DP0 pid=7) ERROR 01-01 00:00:00 [core.py:1]   File '
               '"/home/alice/venv/lib/vllm/core.py", line 3, in run\n(EngineCore_DP0 pid=7) ERROR '
               "01-01 00:00:00 [core.py:1] RuntimeError: cannot reach tcp://10.20.30.40:29500 "
               "with token hf_abcdefghijklmnopqrstuvwxyz0123\n")


@pytest.mark.parametrize(("args", "masked"), [
    (["--format", "markdown"], True), (["--format", "markdown", "--no-redact"], False),
    (["--redact"], True), ([], False), (["--format", "html", "--redact"], True)])
def test_redaction(tmp_path: Path, args: list[str], masked: bool) -> None:
    log = tmp_path / "private.log"
    log.write_text(PRIVATE_LOG, encoding="utf-8")
    out = run("explain", *args, str(log)).stdout
    secrets = ("10.20.30.40", "/home/alice", "hf_abcdefghijklmnopqrstuvwxyz0123")
    assert ("RuntimeError" in out) and all((s not in out) == masked for s in secrets), out
    if masked:
        assert "<ip>" in out or "&lt;ip&gt;" in out


def test_markdown_names_the_versions_that_made_it() -> None:
    out = run("explain", "--format", "markdown", str(SEED)).stdout
    assert f"logsleuth {logsleuth.__version__}" in out and "signatures (set " in out


def test_every_public_name_is_documented() -> None:
    for name in logsleuth.__all__:
        value = getattr(logsleuth, name)
        if callable(value):
            assert (value.__doc__ or "").strip(), f"logsleuth.{name} has no docstring"
