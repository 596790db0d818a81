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


def _big_log(tmp_path: Path) -> Path:
    path = tmp_path / "big.log"
    path.write_bytes(_serving_lines(20_000) + SEED.read_bytes() + _serving_lines(20_000)
                     + b"x" * 300_000 + b"\n" + _serving_lines(10) + b"x" * 70_000 + b"\n"
                     + _serving_lines(3) + b"last line without its newline")
    return path


def _may_split(monkeypatch: pytest.MonkeyPatch, blocks: int) -> None:
    import logsleuth.halfread as halfread

    monkeypatch.setattr(halfread, "SPLIT_MIN_BYTES", 1)
    monkeypatch.setattr(halfread, "CHUNK_BLOCKS", blocks)
    # whatever other tests left running (Ray's threads), this process may start one for this test
    monkeypatch.setattr("logsleuth.halfread.threading.active_count", lambda: 1)


def _single_pass(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    import logsleuth.halfread as halfread
    import logsleuth.read as read
    from logsleuth.render.json import report_to_dict

    # small blocks: a file of a few MB holds many blocks and chunks, and lines longer than a block
    monkeypatch.setattr(read, "BLOCK_SIZE", 64 << 10)
    with monkeypatch.context() as patched:
        patched.setattr(halfread, "SPLIT_MIN_BYTES", 1 << 40)
        return report_to_dict(explain(path))


# chunks of one block (some inside the 300 KB line), of two, of about a fifth of the file, all of
# it; the two processes racing, or the far reader reading every chunk before this one takes any
@pytest.mark.parametrize("far_first", [False, True])
@pytest.mark.parametrize("blocks", [1, 2, 20, 1000])
def test_chunks_read_from_both_ends_give_the_same_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: int, far_first: bool) -> None:
    """A big plain file is read by two processes, one from each end (tokenize/halves.py); the
    report must be the one a single pass gives, line numbers and notices included (each chunk
    is read in the blocks a single pass reads, so the same lines are located)."""
    import logsleuth.halfread as halfread
    from logsleuth.read import open_input
    from logsleuth.render.json import report_to_dict
    from logsleuth.tokenize import halves

    path = _big_log(tmp_path)
    single = _single_pass(path, monkeypatch)
    _may_split(monkeypatch, blocks)
    assert halves.can_split(open_input(path))
    take_front, result = halfread.FarReader.take_front, halfread.FarReader.result
    answered: list[int] = []

    def waiting(reader: halfread.FarReader) -> int | None:
        if far_first and reader.process is not None:
            reader.process.wait()
        return take_front(reader)

    def counted(reader: halfread.FarReader) -> halfread.FarResult | None:
        far = result(reader)
        answered.append(len(far.chunks) if far is not None else -1)
        return far

    monkeypatch.setattr(halfread.FarReader, "take_front", waiting)
    monkeypatch.setattr(halfread.FarReader, "result", counted)
    split = report_to_dict(explain(path))
    assert split == single
    assert answered[0] >= 0  # the far reader answered
    if far_first:
        assert answered[0] == halfread.chunk_count(path.stat().st_size,
                                                   blocks * (64 << 10))
    assert single["root_cause"]["line"] == 20_000 + 325  # type: ignore[index]
    notices = single["notices"]
    assert isinstance(notices, list) and any("cut to that length" in n for n in notices)


def test_chunks_the_far_reader_did_not_answer_for_are_read_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A far reader that fails (here: after it read its chunks, its answer lost) costs time,
    never lines: the chunks it claimed are read by the parsing process."""
    import logsleuth.halfread as halfread
    from logsleuth.render.json import report_to_dict

    path = _big_log(tmp_path)
    single = _single_pass(path, monkeypatch)
    _may_split(monkeypatch, 3)
    answered: list[object] = []

    def lost(reader: halfread.FarReader) -> None:
        assert reader.process is not None
        reader.process.communicate()
        answered.append(reader.process.returncode)

    monkeypatch.setattr(halfread.FarReader, "result", lost)
    assert report_to_dict(explain(path)) == single
    assert answered == [0]


def test_the_command_line_starts_the_far_reader_before_the_pipeline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`explain` starts the second process first and the pipeline adopts it (one process
    started, its chunks used): the JSON report is the single pass's."""
    import json

    from click.testing import CliRunner

    import logsleuth.halfread as halfread
    from logsleuth.cli import main

    path = _big_log(tmp_path)
    single = _single_pass(path, monkeypatch)
    _may_split(monkeypatch, 4)
    started: list[halfread.FarReader] = []
    original = halfread.FarReader.start.__func__  # type: ignore[attr-defined]

    def start(cls: type[halfread.FarReader], /, *args: object, **kwargs: object) -> object:
        reader = original(cls, *args, **kwargs)
        started.append(reader)
        return reader

    monkeypatch.setattr(halfread.FarReader, "start", classmethod(start))
    done = CliRunner().invoke(main, ["explain", "--format", "json", str(path)])
    assert done.exit_code == 1, done.output
    assert json.loads(done.output) == json.loads(json.dumps(single))
    assert len(started) == 1 and started[0].process is not None
    assert not Path(started[0].spool).exists() and not Path(started[0].claims_path).exists()
