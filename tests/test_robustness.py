"""Never crash, never hang, never lose an answer (issue 5).

The catalogue of bad inputs in tests/fixtures/bad/README.md, one row per case: each is run through
the command line and must exit with a documented code (0/1 with a JSON report that validates
against tests/report.schema.json, or 2 with one line on stderr), never with a traceback.
Then broken signature files, the resource caps, and zero false alarms on healthy logs.
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner, Result

from logsleuth.cli import main
from logsleuth.errors import InputError
from logsleuth.pipeline import explain
from logsleuth.read import LogInput, open_input

TESTS = Path(__file__).parent
CORPUS = TESTS / "fixtures" / "corpus"
BAD = TESTS / "fixtures" / "bad"
BAD_SIGNATURES = BAD / "signatures"
CANARY_LOG = BAD_SIGNATURES / "robustness" / "robustness-canary.log"
FORK = CORPUS / "startup" / "fork-cuda-reinit-multiproc" / "log.txt"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
REPORT_SCHEMA = json.loads((TESTS / "report.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(REPORT_SCHEMA)
ANSI_COLOURS = ("\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1b[?25l", "^[[33m")

TRACEBACK = (b'Traceback (most recent call last):\n'
             b'  File "/app/vllm/worker.py", line 12, in init_device\n'
             b'    torch.cuda.set_device(self.device)\n'
             b'ValueError: robustness probe failed\n')


def run_cli(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def checked_report(result: Result) -> dict[str, Any]:
    """The JSON report of a run that printed one: exit 0/1, valid against the contract."""
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"logsleuth raised {result.exception!r}"
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(result.stdout)
    VALIDATOR.validate(report)
    if result.exit_code == 3:  # nothing in it looked like a log: said so, never called healthy
        assert not report["recognised"] and report["notices"], report
    else:
        assert result.exit_code == (0 if report["verdict"] == "no_failure" else 1)
    for event in [report["root_cause"], *report["symptoms"]]:
        if event:
            assert 1 <= event["first_line"] <= event["line"] <= event["last_line"] \
                <= max(report["lines_read"], 1), event
    return report


def one_line_refusal(result: Result) -> str:
    """A run that could not use its input: exit 2, nothing on stdout, one line on stderr."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("logsleuth: "), result.stderr
    return lines[0]


# ---- the catalogue --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One row of tests/fixtures/bad/README.md."""

    id: str
    make: Callable[[Path], bytes]  # the log's bytes (written to tmp_path / name)
    name: str = "vllm.log"
    verdict: str | None = None
    exception: str | None = None
    message: str | None = None  # a part of the root cause's message
    line: int | None = None  # the root cause's `Type: message` line
    notices: tuple[str, ...] = ()  # parts of the notices expected
    no_notices: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _random_bytes(_: Path) -> bytes:
    return random.Random(5).randbytes(200_000)


def _long_line(_: Path) -> bytes:
    return b"INFO 01-01 00:00:00 [x.py:1] " + b"A" * 50_000_000 + b"\n" + TRACEBACK


def _tiny_lines(_: Path) -> bytes:
    return b"a\n" * 10_000_000 + TRACEBACK


def _gzip_cut(_: Path) -> bytes:
    filler = b"".join(b"DEBUG 01-01 00:00:00 [x.py:1] step %d\n" % i for i in range(40_000))
    whole = gzip.compress(TRACEBACK + filler)
    return whole[: len(whole) // 2]


def _chain(depth: int) -> bytes:
    lines: list[str] = []
    for level in range(depth):
        lines += ["Traceback (most recent call last):", '  File "/app/x.py", line 1, in f',
                  "    g()", f"{'ValueError' if level == 0 else 'RuntimeError'}: level {level}",
                  "", "The above exception was the direct cause of the following exception:", ""]
    lines += ["Traceback (most recent call last):", '  File "/app/x.py", line 2, in h',
              "RuntimeError: top"]
    return ("\n".join(lines) + "\n").encode()


def _processes(count: int) -> bytes:
    lines = [f"(VllmWorker TP{p} pid={10_000 + p}) INFO 01-01 00:00:00 [w.py:1] starting"
             for p in range(count)]
    for p in range(count):
        prefix = f"(VllmWorker TP{p} pid={10_000 + p}) ERROR 01-01 00:00:01 [w.py:2] "
        lines += [prefix + "Traceback (most recent call last):",
                  prefix + '  File "/app/w.py", line 9, in run',
                  prefix + f"RuntimeError: worker {p} lost its device"]
    return ("\n".join(lines) + "\n").encode()


def _pid_reuse(_: Path) -> bytes:
    # The first EngineCore is killed mid-traceback; its restart gets the same pid and fails whole.
    first = "(EngineCore_DP0 pid=77) "
    lines = [first + "INFO 01-01 00:00:00 [core.py:1] Initializing a V1 LLM engine",
             first + "ERROR 01-01 00:00:01 [core.py:9] Traceback (most recent call last):",
             first + 'ERROR 01-01 00:00:01 [core.py:9]   File "/app/core.py", line 5, in run',
             first + "INFO 01-01 00:05:00 [core.py:1] Initializing a V1 LLM engine",
             first + "ERROR 01-01 00:05:01 [core.py:9] Traceback (most recent call last):",
             first + 'ERROR 01-01 00:05:01 [core.py:9]   File "/app/core.py", line 5, in run',
             first + "ERROR 01-01 00:05:01 [core.py:9] ValueError: restart failed too"]
    return ("\n".join(lines) + "\n").encode()


def _retimed(text: str, stamps: list[str]) -> str:
    """Replace every `MM-DD HH:MM:SS` in order with the next of `stamps` (cycling)."""
    counter = iter(range(10**9))
    return re.sub(r"\d\d-\d\d \d\d:\d\d:\d\d", lambda _: stamps[next(counter) % len(stamps)], text)


FORK_TEXT = FORK.read_text(encoding="utf-8")
FORK_ROOT = dict(verdict="failure", exception="RuntimeError",
                 message="Cannot re-initialize CUDA in forked subprocess", line=4)

CATALOGUE = [
    Case("empty-file", lambda _: b"", verdict="no_failure", notices=("the input is empty",),
         extra={"lines_read": 0, "recognised": False, "runs": []}),
    Case("random-bytes", _random_bytes, verdict="no_failure",
         notices=("NUL byte", "looks like log output"), extra={"recognised": False}),
    Case("nul-bytes", lambda _: b"hello\0world\n\0\0\n" + TRACEBACK.replace(b"failed", b"fa\0iled"),
         verdict="failure", exception="ValueError", line=6, notices=("NUL byte",)),
    Case("invalid-utf8", lambda _: TRACEBACK.replace(b"robustness", b"rob\xff\xfe\xc3(ustness"),
         verdict="failure", exception="ValueError", line=4, notices=("not UTF-8",)),
    Case("utf16-le-bom", lambda _: codecs.BOM_UTF16_LE + TRACEBACK.decode().encode("utf-16-le"),
         verdict="failure", exception="ValueError", message="robustness probe", line=4,
         notices=("UTF-16",)),
    Case("utf16-be-bom", lambda _: codecs.BOM_UTF16_BE + TRACEBACK.decode().encode("utf-16-be"),
         verdict="failure", exception="ValueError", line=4, notices=("UTF-16",)),
    Case("crlf", lambda _: FORK_TEXT.replace("\n", "\r\n").encode(), **FORK_ROOT),
    Case("single-50mb-line", _long_line, verdict="failure", exception="ValueError", line=5,
         notices=("longer than 65,536 bytes were cut",)),
    Case("ten-million-tiny-lines", _tiny_lines, verdict="failure", exception="ValueError",
         line=10_000_004, no_notices=True),
    Case("cut-mid-traceback", lambda _: TRACEBACK[: TRACEBACK.index(b"    torch")],
         extra={"verdict_in": ("failure", "root_cause_missing")}),
    Case("cut-mid-line", lambda _: TRACEBACK[:-12], verdict="failure", exception="ValueError",
         message="robustness", line=4),
    Case("truncated-gzip", _gzip_cut, name="vllm.log.gz", verdict="failure",
         exception="ValueError", line=4, notices=("ends early", "gzip")),
    Case("gz-name-on-plain-text", lambda _: FORK_TEXT.encode(), name="vllm.log.gz", **FORK_ROOT,
         no_notices=True),
    Case("gzip-under-a-plain-name", lambda _: gzip.compress(FORK_TEXT.encode()), **FORK_ROOT,
         no_notices=True),
    Case("ansi-junk", lambda _: "".join(
        f"{ANSI_COLOURS[i % len(ANSI_COLOURS)]}{line}\x1b[0m\n"
        for i, line in enumerate(FORK_TEXT.splitlines())).encode(), **FORK_ROOT),
    Case("chained-3000-deep", lambda _: _chain(3000), verdict="failure", exception="ValueError",
         message="level 0", line=4),
    Case("processes-1000", lambda _: _processes(1000), verdict="failure",
         exception="RuntimeError", message="worker 0 ", line=1003),
    Case("pid-reused-by-restart", _pid_reuse, verdict="failure", exception="ValueError",
         message="restart failed too", line=7),
    Case("timestamps-out-of-order", lambda _: _retimed(
        FORK_TEXT, ["08-02 18:15:15", "08-02 09:00:00", "08-03 01:00:00", "01-01 00:00:00"]
    ).encode(), **FORK_ROOT),
    Case("timestamps-across-midnight", lambda _: _retimed(
        FORK_TEXT, ["08-02 23:59:59", "08-03 00:00:00", "08-03 00:00:01"]).encode(), **FORK_ROOT),
    Case("timestamps-across-new-year", lambda _: _retimed(
        FORK_TEXT, ["12-31 23:59:59", "01-01 00:00:00", "01-01 00:00:02"]).encode(), **FORK_ROOT),
    Case("duplicated-lines", lambda _: "".join(
        line + "\n" + line + "\n" for line in FORK_TEXT.splitlines()).encode(),
        verdict="failure", exception="RuntimeError",
        message="Cannot re-initialize CUDA in forked subprocess"),
]


@pytest.mark.parametrize("case", CATALOGUE, ids=[c.id for c in CATALOGUE])
def test_bad_input_gets_a_report(case: Case, tmp_path: Path) -> None:
    path = tmp_path / case.name
    path.write_bytes(case.make(tmp_path))
    report = checked_report(run_cli("explain", "--format", "json", str(path)))
    verdict_in = case.extra.get("verdict_in")
    if verdict_in:
        assert report["verdict"] in verdict_in
    if case.verdict:
        assert report["verdict"] == case.verdict, report
    root = report["root_cause"]
    if case.exception:
        assert root["exception"] == case.exception, root
    if case.message:
        assert case.message in root["message"], root
    if case.line:
        assert root["line"] == case.line, root
    for part in case.notices:
        assert any(part in notice for notice in report["notices"]), report["notices"]
    if case.no_notices:
        assert report["notices"] == []
    if "lines_read" in case.extra:
        assert report["lines_read"] == case.extra["lines_read"]
    if "recognised" in case.extra:
        assert report["recognised"] == case.extra["recognised"]
    if "runs" in case.extra:
        assert report["runs"] == case.extra["runs"]


def test_the_catalogue_is_documented() -> None:
    readme = (BAD / "README.md").read_text(encoding="utf-8")
    for case in CATALOGUE:
        assert f"`{case.id}`" in readme, f"{case.id} is missing from {BAD / 'README.md'}"


# ---- inputs that cannot be used: exit 2, one line -------------------------------------------------

def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in one_line_refusal(run_cli("explain", str(tmp_path / "nope.log")))


def test_directory(tmp_path: Path) -> None:
    assert "is a directory" in one_line_refusal(run_cli("explain", str(tmp_path)))


def test_path_through_a_file(tmp_path: Path) -> None:
    # open() fails with ENOTDIR: a failure other than "missing" that root cannot bypass
    (tmp_path / "file").write_text("x\n")
    assert "cannot open" in one_line_refusal(run_cli("explain", str(tmp_path / "file" / "log")))


def test_no_read_permission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # These tests run as root, for whom chmod 000 does not stop open(): make open() refuse.
    path = tmp_path / "secret.log"
    path.write_bytes(TRACEBACK)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("logsleuth.read.open", refuse, raising=False)
    assert "permission denied" in one_line_refusal(run_cli("explain", str(path)))


def test_nul_in_the_path() -> None:
    # Only the API can be given one: a command-line argument cannot hold a NUL byte.
    with pytest.raises(InputError, match="cannot open"):
        open_input("bad\0name.log")


def test_stdin_closed() -> None:
    # Started with file descriptor 0 closed, Python has no sys.stdin at all.
    done = subprocess.run([sys.executable, "-m", "logsleuth", "explain", "-"],
                          preexec_fn=lambda: os.close(0),  # noqa: PLW1509 - single-threaded here
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == ["logsleuth: <stdin>: stdin is closed"]


def test_stdin_ending_mid_line() -> None:
    report = checked_report(run_cli("explain", "--format", "json", "-", input=TRACEBACK[:-5]))
    assert report["root_cause"]["exception"] == "ValueError"


class _Failing(io.RawIOBase):
    """A stream that gives some bytes, then fails like a dying pipe or a disk error."""

    def __init__(self, data: bytes):
        self._data = data

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._data:
            out, self._data = self._data, b""
            return out
        raise OSError(5, "Input/output error")


def test_read_error_mid_stream_keeps_what_was_read() -> None:
    report = explain(_Failing(TRACEBACK + b"INFO 01-01 00:00:00 [x.py:1] more\n"), name="pipe")
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    assert any("ends early" in n and "Input/output error" in n for n in report.notices)


def test_open_input_refuses_a_closed_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(InputError, match="stdin is closed"):
        open_input("-")


# ---- the line-length cap --------------------------------------------------------------------------

def _read_all(log: LogInput) -> bytes:
    return b"".join(log.blocks())


@pytest.mark.parametrize("limit", [1, 7, 100, 4096])
def test_line_cap_is_configurable_and_keeps_line_numbers(limit: int) -> None:
    lines = [b"x" * n for n in (0, 3, limit - 1, limit, limit + 1, 5 * limit + 3, 2)]
    data = b"\n".join(lines) + b"\n"
    log = open_input(io.BytesIO(data), max_line_bytes=limit)
    out = _read_all(log)
    assert out.split(b"\n") == [line[:limit] for line in lines] + [b""]
    cut = sum(len(line) > limit for line in lines)
    assert log.cut_lines == cut
    assert any(f"{cut:,} line(s) longer than {limit:,} bytes" in n for n in log.notices)


def test_gzip_bomb_is_read_in_bounded_blocks() -> None:
    bomb = gzip.compress(b"A" * 100_000_000 + b"\n" + TRACEBACK)
    log = open_input(io.BytesIO(bomb))
    blocks = list(log.blocks())
    assert max(map(len, blocks)) <= 2 * (1 << 20) + 65_536
    assert b"".join(blocks).count(b"\n") == 5
    assert any("cut" in n for n in log.notices)


def test_gzip_members_and_padding() -> None:
    data = gzip.compress(b"one\n") + gzip.compress(b"two\n") + b"\0" * 512
    log = open_input(io.BytesIO(data))
    assert _read_all(log) == b"one\ntwo\n"
    assert log.notices == []
    log = open_input(io.BytesIO(gzip.compress(b"one\n") + b"trailing junk"))
    assert _read_all(log) == b"one\n"
    assert any("after the end of the gzip stream" in n for n in log.notices)


def test_corrupt_gzip_keeps_what_came_before() -> None:
    text = b"".join(b"INFO 01-01 00:00:00 [x.py:1] line %d\n" % i for i in range(100_000))
    data = bytearray(gzip.compress(text, compresslevel=1))
    data[len(data) // 2: len(data) // 2 + 64] = b"\xff" * 64
    log = open_input(io.BytesIO(bytes(data)))
    out = _read_all(log)
    assert len(out) > len(text) // 4
    assert text.startswith(out[: out.rfind(b"\n") + 1])
    assert any("gzip data corrupt" in n for n in log.notices)


# ---- signature files -------------------------------------------------------------------------------

# file -> (line, part of the message): what `logsleuth signatures lint` must say about it
BROKEN_SIGNATURES = {
    "alias-bomb.yaml": (4, "YAML aliases"),
    "catastrophic-regex.yaml": (12, "catastrophic backtracking"),
    "duplicate-keys.yaml": (5, "duplicate key 'title' (first on line 2)"),
    "empty.yaml": (1, "must hold a mapping"),
    "huge-number.yaml": (3, "a number of 5,000 characters"),
    "id-mismatch.yaml": (1, "does not match the file name"),
    "invalid-regex.yaml": (9, "invalid regex"),
    "malformed-yaml.yaml": (6, "invalid YAML"),
    "non-text-key.yaml": (4, "key 'yes' is not text"),
    "not-a-mapping.yaml": (1, "must hold a mapping"),
    "not-utf8.yaml": (2, "not UTF-8"),
    "unknown-keys.yaml": (10, "fixx: unknown key"),
    "wrong-types.yaml": (2, "title: 12345678 is not of type 'string'"),
}


@pytest.fixture(scope="module")
def lint_output(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    from logsleuth.signatures.lint import lint

    # an enormous file is made here rather than kept in the repository
    directory = tmp_path_factory.mktemp("sigs") / "robustness"
    directory.mkdir()
    for path in (BAD_SIGNATURES / "robustness").iterdir():
        (directory / path.name).write_bytes(path.read_bytes())
    (directory / "enormous.yaml").write_text("id: enormous\n" + "# padding\n" * 60_000)
    return [p.format() for p in lint([directory], examples=False)]


@pytest.mark.parametrize(("name", "expected"), sorted(BROKEN_SIGNATURES.items()))
def test_lint_names_each_problem_at_path_and_line(lint_output: list[str], name: str,
                                                  expected: tuple[int, str]) -> None:
    line, message = expected
    found = [p for p in lint_output if re.search(rf"/{re.escape(name)}:{line}: error: ", p)]
    assert any(message in p for p in found), "\n".join(lint_output)


def test_lint_reports_an_enormous_file(lint_output: list[str]) -> None:
    assert any(re.search(r"/enormous\.yaml:1: error: file is [\d,]+ bytes, more than", p)
               for p in lint_output)


def test_lint_gives_every_problem_a_line(lint_output: list[str]) -> None:
    assert all(re.match(r"\S+\.yaml:\d+: (error|warning): ", p) for p in lint_output), lint_output


def test_lint_the_canary_is_clean(lint_output: list[str]) -> None:
    assert not [p for p in lint_output if "robustness-canary" in p and ": error: " in p]


def _subprocess_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LOGSLEUTH_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}


def test_explain_with_broken_signatures_loaded_skips_each_with_a_notice(tmp_path: Path) -> None:
    # A generous bound through the subprocess timeout only: a hang fails, a slow machine does not.
    done = subprocess.run([sys.executable, "-m", "logsleuth", "explain", "--format", "json",
                           "--signatures", str(BAD_SIGNATURES), str(CANARY_LOG)],
                          capture_output=True, text=True, timeout=120, env=_subprocess_env(tmp_path))
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    VALIDATOR.validate(report)
    assert report["signature"]["id"] == "robustness-canary"  # the good file still matches
    skipped = [n for n in report["notices"] if n.startswith("signature skipped: ")]
    for name, (line, _) in BROKEN_SIGNATURES.items():
        assert any(f"{name}:{line}: " in n for n in skipped), (name, skipped)


MATCH_TIME_PROBE = """
import sys
from pathlib import Path
from logsleuth.pipeline import explain
from logsleuth.signatures import SignatureSet, default_signatures
from logsleuth.signatures.load import _load

# Loaded without the load-time probe, as a pattern the probe cannot catch would be.
problems = []
bad = _load(Path(sys.argv[1]), problems, probe=False)
assert bad is not None and not problems, problems
report = explain(sys.argv[2], signatures=SignatureSet([*default_signatures(), bad]))
print(report.verdict.value, report.root_cause.exception)
"""


def test_a_catastrophic_pattern_at_match_time_finishes(tmp_path: Path) -> None:
    directory = tmp_path / "robustness"
    directory.mkdir()
    source = BAD_SIGNATURES / "robustness" / "catastrophic-regex.yaml"
    (directory / source.name).write_bytes(source.read_bytes())
    done = subprocess.run([sys.executable, "-c", MATCH_TIME_PROBE, str(directory / source.name),
                           str(CANARY_LOG)], capture_output=True, text=True, timeout=120,
                          env=_subprocess_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["failure", "RuntimeError"]


# ---- zero false alarms -------------------------------------------------------------------------------

def _cases() -> list[Path]:
    return sorted(CORPUS.glob("*/*/case.yaml"))


HEALTHY = [p.parent for p in _cases()
           if (yaml.safe_load(p.read_text(encoding="utf-8")) or {}).get("healthy") is True]


def test_there_are_healthy_logs() -> None:
    assert len(HEALTHY) >= 2


@pytest.mark.parametrize("case", HEALTHY, ids=[p.name for p in HEALTHY])
def test_healthy_logs_give_no_failure(case: Path) -> None:
    report = checked_report(run_cli("explain", "--format", "json", str(case / "log.txt")))
    assert report["verdict"] == "no_failure"
    assert report["root_cause"] is None and report["signature"] is None


HANDLED = [
    # a request the server rejected and lived through, in the middle of serving
    b"(APIServer pid=1) INFO 01-01 00:00:00 [api_server.py:1] Starting vLLM API server on "
    b"http://0.0.0.0:8000\n"
    b"(APIServer pid=1) INFO:     Application startup complete.\n"
    b'(APIServer pid=1) INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK\n'
    b"(APIServer pid=1) ERROR 01-01 00:00:05 [serving.py:9] Error in request\n"
    b"(APIServer pid=1) ERROR 01-01 00:00:05 [serving.py:9] Traceback (most recent call last):\n"
    b'(APIServer pid=1) ERROR 01-01 00:00:05 [serving.py:9]   File "/app/serving.py", line 3, '
    b"in create\n"
    b"(APIServer pid=1) ERROR 01-01 00:00:05 [serving.py:9] ValueError: This model's maximum "
    b"context length is 4096 tokens. However, you requested 9000 tokens.\n"
    b'(APIServer pid=1) INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 400 Bad Request\n'
    + b'(APIServer pid=1) INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK\n' * 5
    + b"(APIServer pid=1) INFO 01-01 00:01:00 [loggers.py:1] Engine 000: Avg prompt throughput: "
    b"10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 1 reqs\n",
]


@pytest.mark.parametrize("log", HANDLED, ids=["rejected-request-while-serving"])
def test_handled_errors_give_no_failure(log: bytes) -> None:
    report = checked_report(run_cli("explain", "--format", "json", "-", input=log))
    assert report["verdict"] == "no_failure", report


# ---- caps, pattern timeouts and broken signature files on the other commands -----------------


def test_events_per_process_cap_is_configurable_and_noticed() -> None:
    from logsleuth.assemble import Assembler
    from logsleuth.tokenize import parse_line

    assembler = Assembler(max_events_per_process=10)  # type: ignore[call-arg]
    events = []
    for number in range(1, 101):
        line = parse_line(f"(EngineCore_DP0 pid=5) ERROR 01-01 00:00:00 [x.py:1] request "
                          f"{number} failed", number)
        events += assembler.feed(line)
    events += assembler.finish()
    assert len([e for e in events if e.line <= 100]) == 10
    assert [e.line for e in events] == list(range(1, 11))
    assert assembler.notices() == [  # type: ignore[attr-defined]
        "90 error(s) of EngineCore_DP0 pid=5 after its first 10 were not analysed "
        "(the per-process cap)"]


def test_the_event_cap_reaches_the_report(tmp_path: Path) -> None:
    from logsleuth.assemble import MAX_EVENTS_PER_PROCESS  # type: ignore[attr-defined]

    path = tmp_path / "flood.log"
    path.write_text("".join(f"(EngineCore_DP0 pid=5) ERROR 01-01 00:00:00 [x.py:1] request {i} "
                            "failed\n" for i in range(MAX_EVENTS_PER_PROCESS + 7)))
    report = checked_report(run_cli("explain", "--format", "json", str(path)))
    assert report["root_cause"]["line"] == 1
    assert any("7 error(s) of EngineCore_DP0 pid=5" in n for n in report["notices"])


def test_a_causality_pattern_that_times_out_is_no_match() -> None:
    import regex

    from logsleuth.knowledge import Causality
    from logsleuth.model import MilestoneKind

    slow = Causality((), (), (), ((MilestoneKind.SERVING, regex.compile(r"(\w+\s?)+$")),))
    assert slow.milestone_of("a " * 10000 + "!") is None


def test_signatures_test_with_a_broken_file_refuses_in_one_line() -> None:
    line = one_line_refusal(run_cli("signatures", "test", str(BAD_SIGNATURES)))
    assert "robustness/" in line and ".yaml:" in line


# a finder that refuses one of logsleuth's dependencies, as a Python without it installed would
_WITHOUT = """
import runpy, sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name == {package!r} or name.startswith({package!r} + "."):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Refuse())
sys.argv = ["logsleuth", "explain", "--format", {format!r}, {log!r}]
runpy.run_module("logsleuth", run_name="__main__")
"""


# Packages load when first needed: click with the command line, rich only for the formats it
# draws, Lark when the first line reaches the grammar. Each missing one is named in one line.
@pytest.mark.parametrize(("package", "output"), [("click", "json"), ("rich", "text"),
                                                 ("lark", "json"), ("networkx", "json")])
def test_a_python_without_a_dependency_gets_one_line_not_a_traceback(package: str,
                                                                     output: str) -> None:
    script = _WITHOUT.format(package=package, format=output, log=str(FORK))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 70
    assert "Traceback" not in run.stderr
    assert f"{package!r}" in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert run.stdout == ""
