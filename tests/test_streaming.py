"""Streaming: memory does not grow with the size of the log, and --follow reports a failure
appended to a growing file. No wall-clock thresholds: sizes and subprocess timeouts only."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from logsleuth.pipeline import explain

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
HEALTHY = CORPUS / "long" / "healthy-dgx-spark-sigterm-shutdown" / "log.txt"


def _serving_lines(count: int) -> bytes:
    """A healthy serving phase built from real lines of the healthy corpus log."""
    lines = [line for line in HEALTHY.read_bytes().split(b"\n") if b"200 OK" in line
             or b"Avg prompt throughput" in line or b"[metrics.py" in line]
    assert lines
    return b"\n".join(lines[i % len(lines)] for i in range(count)) + b"\n"


def _peak_traced(path: Path) -> int:
    tracemalloc.start()
    try:
        report = explain(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    return peak


def test_memory_does_not_grow_with_input_size(tmp_path: Path) -> None:
    failure = SEED.read_bytes()
    small, large = tmp_path / "small.log", tmp_path / "large.log"
    small.write_bytes(_serving_lines(50_000) + failure)
    large.write_bytes(_serving_lines(500_000) + failure)
    explain(small)  # load the grammar, signatures and caches outside the measurement
    peak_small, peak_large = _peak_traced(small), _peak_traced(large)
    # ten times the input: a whole-file list of lines would take ten times the memory
    assert peak_large < 2 * peak_small + 4_000_000, (peak_small, peak_large)


def _write_slowly(source: Path, target: Path, stop: threading.Event) -> None:
    with open(target, "ab") as out:
        for number, line in enumerate(source.read_bytes().split(b"\n")):
            if stop.is_set():
                return
            out.write(line + b"\n")
            out.flush()
            if number % 25 == 0:
                time.sleep(0.02)


def test_follow_reports_a_failure_appended_to_a_growing_file(tmp_path: Path) -> None:
    target = tmp_path / "vllm.log"
    target.write_bytes(_serving_lines(200))
    stop = threading.Event()
    writer = threading.Thread(target=_write_slowly, args=(SEED, target, stop))
    follower = subprocess.Popen(
        [sys.executable, "-m", "logsleuth", "explain", "--follow", "--timeout", "60",
         "--format", "json", str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer.start()
    try:
        out, err = follower.communicate(timeout=120)
    finally:
        stop.set()
        writer.join()
    import json

    assert follower.returncode == 1, err.decode()
    report = json.loads(out)
    assert report["verdict"] == "failure"
    assert report["root_cause"]["exception"] == "ValueError"
    assert report["root_cause"]["process"]["name"].startswith("Worker_TP")
    # the report names the line in the growing file: 200 serving lines, then the seed log
    assert report["root_cause"]["line"] == 200 + 325


def test_follow_gives_up_cleanly_on_a_healthy_log(tmp_path: Path) -> None:
    target = tmp_path / "vllm.log"
    target.write_bytes(_serving_lines(300))
    done = subprocess.run(
        [sys.executable, "-m", "logsleuth", "explain", "--follow", "--timeout", "1",
         "--format", "json", str(target)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    import json

    report = json.loads(done.stdout)
    assert report["verdict"] == "no_failure"
    assert any("stopped following" in notice for notice in report["notices"])


def test_two_halves_read_in_two_processes_give_the_same_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big plain file is read in two processes (tokenize/halves.py); the report must be the
    one a single pass gives, line numbers and notices included."""
    import logsleuth.tokenize.halves as halves
    from logsleuth.render.json import report_to_dict

    path = tmp_path / "big.log"
    path.write_bytes(_serving_lines(20_000) + SEED.read_bytes() + _serving_lines(20_000)
                     + b"x" * 300_000 + b"\n" + _serving_lines(10))
    monkeypatch.setattr(halves, "SPLIT_MIN_BYTES", 1 << 40)
    single = report_to_dict(explain(path))
    monkeypatch.setattr(halves, "SPLIT_MIN_BYTES", 1)
    # whatever other tests left running (Ray's threads), this process may fork for this test
    monkeypatch.setattr(halves.threading, "active_count", lambda: 1)
    from logsleuth.read import open_input

    assert halves.can_split(open_input(path))
    split = report_to_dict(explain(path))
    assert split == single
    assert single["root_cause"]["line"] == 20_000 + 325
