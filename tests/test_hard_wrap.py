"""A log pasted through a terminal or a web form that hard-wrapped its lines at a fixed width
(logsleuth/hardwrap.py, issue 10: error evidence in every form).

Two properties. A log wrapped at any width reads as the log: the same verdict, root exception
type and root line (the first row of the wrapped line, the report's spans covering its rows),
generated over the deployment's failure, how long it served, the launcher's prefix and the
width. And the rejoin never fires on a log nobody wrapped: every tuning, corpus and signature
example log, every generated log of tests/scenario_logs.py, every benchmark mix
(tests/mix_logs.py) and the benchmark's own generator are read as they are, and rows a wrapper
prefixed, padded table rows and repeated stats lines as wide as the widest are no evidence.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from metamorphic import Answer, Moved, answer_of, wrapped
from mix_logs import MIXES, mix_log
from scenario_logs import ILLEGAL_ACCESS, OUT_OF_VOCAB, Server

from logsleuth.hardwrap import HEAD_BYTES, HardWrapped, Rows, wrap_width
from logsleuth.pipeline import explain_text
from logsleuth.read import input_from_text, open_input
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
# Logs that were collected hard-wrapped (a terminal's or a web view's copy; their rows are cut
# at one width mid-word): the rejoin reads them joined, as it should. Any other log it fires on
# is a failure of this test.
COLLECTED_WRAPPED = {
    "tests/fixtures/tuning/startup/d-v09-llama4-maverick-fp8-tp8-illegal-memory-access/log.txt",
    "tests/fixtures/tuning/runtime/v043-asyncio-callback-wrapped-traceback-cut-symptom-only/"
    "log.txt",
    "tests/fixtures/tuning/runtime/ray-esc-text-worker-execution-loop-wrapped-symptom-only/"
    "log.txt",
    "tests/fixtures/tuning/launchers/s16a-v01-ray-raylet-rsyslog-workers-killed-memory-pressure-"
    "wrapped/log.txt",
    "tests/fixtures/tuning/launchers/b-rocm-mi300a-ray-v1-cupy-missing/log.txt",
    "tests/fixtures/tuning/healthy/v054-ray-terminal-wrapped-config-working-run/log.txt",
    "tests/fixtures/tuning/healthy/v05-bnb-llama3-openai-server-startup/log.txt",
    "tests/fixtures/tuning/runtime/w-ascend-v090-v1-qwen25-7b-benchmark-29th-request-gather-v3-"
    "index-out-of-range-507035-wrapped-lines/log.txt",  # session 23's split: wrapped as posted
    "tests/fixtures/tuning/healthy/ff-v01011-a100-80gb-tp2-same-node-qwen2-7b-vllmworker-tp-"
    "startup-custom-allreduce-warnings/log.txt",  # session 27's split: wrapped at 136 as posted
    "tests/fixtures/tuning/healthy/ff-ray-two-nodes-v01011-a100-40gb-tp2-qwen2-7b-wrapped-145-"
    "cols-startup/log.txt",  # session 26's split: wrapped at 145 columns as posted
    "tests/fixtures/tuning/startup/ii-gaudi-inc-calibration-max-model-len-128-exponential-"
    "bucketing-log2-zero-math-domain-error-esc-text-wrapped/log.txt",  # session 30's split:
    # wrapped at word boundaries (72 columns) as posted, read joined by its record heads
    "tests/fixtures/tuning/healthy/nn-ray-two-node-tp2-v01011-startup-tp-bigger-than-reserved-"
    "gpus-warnings-wrapped/log.txt",  # session 30's split: hard-wrapped at 147 as posted (the
    # split's move left it out of this list; the base already read it joined)
    "tests/fixtures/tuning/launchers/ee-ascend-ray-two-node-v0102-pp2-tp8-ray-start-num-gpus-no-"
    "npu-in-placement-group-wrapped/log.txt",  # the same split: hard-wrapped at 145, likewise
    "tests/fixtures/tuning/startup/v080-gemma3-cudagraph-capture-local-attn-masks-wrapped/"
    "log.txt",  # wrapped at 132 and padded as posted: read once cuts at spaces are evidence
    "tests/fixtures/tuning/healthy/ll-v01011-a100-qwen-7b-half-gpu-memory-startup-hard-wrapped-"
    "lines/log.txt",  # session 31's split: hard-wrapped as posted (the base already read it joined)
    "tests/fixtures/tuning/runtime/kk-gaudi-v0-qwen-vl-mrope-second-per-grid-ts-boolean-tensor-"
    "wrapped/log.txt",  # wrapped at word boundaries as posted, each frame cut after its `File`:
    # read joined since session 34 (hardwrap._frame_cut), its whole message and frames read
    "tests/fixtures/tuning/startup/ss-gaudi-plugin-v1-warmup-prompt-bucket-above-batched-tokens-"
    "broadcast-valueerror-wrapped/log.txt",  # session 34's split: likewise (its fix misses left)
    "tests/fixtures/tuning/launchers/mm-v064post1-eks-lws-ray-two-node-pp2-tp4-hang-after-"
    "pynccl-wrapped-symptom/log.txt",  # session 35's split: hard-wrapped at 159 as posted
    "tests/fixtures/tuning/startup/aaa-gaudi-oct2025-deepseek-fp8-shared-fused-moe-create-weights-"
    "weight-block-size-assert-esc-text-wrapped/log.txt",  # moved from held-out in session 36:
    # wrapped at word boundaries as posted (the base already read it joined)
    "signatures/distributed/gloo-peer-connection-lost.negative.log",
    "signatures/distributed/gloo-recv-timeout.log",
    "signatures/ray/ray-compiled-graph-channel-timeout.negative.log",
}


def _report(lines: list[str]) -> dict[str, Any]:
    return report_to_dict(explain_text("\n".join(lines) + "\n", signatures=default_signatures()))


def _reads_wrapped_as_printed(lines: list[str], width: int) -> Any:
    """Wrap `lines` at `width` (every row that wide: else the draw is skipped), and check the
    wrapped copy says it was wrapped and gives the original's answer at the first row of the
    original's root line; the original's answer (metamorphic.answer_of)."""
    moved = wrapped(lines, width)
    assert moved is not None
    assume(max(len(row) for row in moved.lines) == width)
    original = _report(lines)  # explained once the draw is kept (a skipped one needs none)
    return _same_answer_when_wrapped(original, moved)


def _same_answer_when_wrapped(original: dict[str, Any], moved: Moved) -> Answer:
    """The wrapped copy `moved` says it was wrapped and gives `original`'s answer at the first
    row of the original's root line; the original's answer (metamorphic.answer_of)."""
    got = _report(moved.lines)
    assert any("hard-wrapped" in notice for notice in got["notices"])
    want, have = answer_of(original), answer_of(got)
    assert (have.verdict, have.exception, have.message) == (want.verdict, want.exception,
                                                            want.message)
    assert have.line == moved.where[want.line - 1][0]  # type: ignore[index]
    return want


def _failure(server: Server, kind: str) -> list[str]:
    if kind == "illegal access":
        return (server.worker_runtime_error(1, ILLEGAL_ACCESS)
                + server.engine_wrapper(ILLEGAL_ACCESS) + server.engine_dead())
    if kind == "free memory":
        return server.free_memory_startup_failure()
    if kind == "request error":
        return server.request_error()
    return server.engine_error(OUT_OF_VOCAB) + server.engine_dead()


PREFIXES = {"none": lambda n: "", "compose": lambda n: "vllm-1  | ",
            "docker": lambda n: f"2025-03-14T09:26:{n % 60:02d}.{n:06d}123Z ",
            "journald": lambda n: f"Mar 14 09:26:{n % 60:02d} gpu-node-1 vllm[8052]: "}
FAILURES = ["illegal access", "free memory", "out of vocabulary", "request error"]


def _log(kind: str, served: int, prefix: str, rng: random.Random) -> list[str]:
    server = Server(api=rng.randrange(100, 90000), engine=rng.randrange(100, 90000),
                    workers=rng.randint(2, 4))
    lines = server.startup()
    if kind != "free memory":
        lines += server.requests(served)
    lines += _failure(server, kind)
    if kind == "request error":
        lines += server.requests(served)
    return [PREFIXES[prefix](n) + line for n, line in enumerate(lines)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FAILURES), st.integers(0, 40), st.sampled_from(sorted(PREFIXES)),
       st.integers(60, 240), st.randoms(use_true_random=False))
def test_a_log_wrapped_at_any_width_reads_as_the_log(kind: str, served: int, prefix: str,
                                                     width: int, rng: random.Random) -> None:
    lines = _log(kind, served, prefix, rng)
    moved = wrapped(lines, width)
    assume(moved is not None and len({line for line in lines if len(line) > width}) >= 3)
    assert moved is not None
    original = _report(lines)  # explained once the draw is kept (a skipped one needs none)
    got = _report(moved.lines)
    assert got["verdict"] == original["verdict"]
    want, have = answer_of(original), answer_of(got)
    assert have.exception == want.exception
    if want.line:
        first, last = moved.where[want.line - 1]  # type: ignore[misc]
        assert have.line == first  # the first row of the wrapped line
        # the report's sentences name the file's rows too
        said = f"printed it at line {want.line}"
        if any(said in reason for reason in original["reasons"]):
            assert any(f"printed it at line {first}" in reason for reason in got["reasons"])
        if not any("hard-wrapped" in notice for notice in got["notices"]):
            return  # too few rows say where it was cut: read row by row (the rows it has)
        span = got["root_cause"]
        assert span["first_line"] == moved.where[original["root_cause"]["first_line"] - 1][0]
        assert span["last_line"] == moved.where[original["root_cause"]["last_line"] - 1][1]
    # every line number in the report is a row of the file
    assert got["lines_read"] == len(moved.lines)


def test_rows_map_lines_read_to_the_files_rows() -> None:
    rows = Rows()
    rows.add(3, 2)  # line 3 took rows 3-5
    rows.add(7, 1)  # line 7 (row 9) took rows 9-10
    assert [rows.first(n) for n in (1, 2, 3, 4, 6, 7, 8)] == [1, 2, 3, 6, 8, 9, 11]
    assert [rows.last(n) for n in (2, 3, 4, 7, 8)] == [2, 5, 6, 10, 11]
    assert rows.count(8) == 11


def _never_rejoined(text: str) -> None:
    head = text.encode("utf-8", "surrogateescape")[:HEAD_BYTES]
    assert wrap_width(head) is None
    assert input_from_text(text).rows is None


def _logs() -> list[Path]:
    found = sorted((FIXTURES / "tuning").rglob("log.txt")) + sorted(
        (FIXTURES / "corpus").rglob("log.txt")) + sorted((ROOT / "signatures").rglob("*.log"))
    return [path for path in found if path.is_file()]


@pytest.mark.long
def test_the_rejoin_never_fires_on_a_log_nobody_wrapped() -> None:
    fired = set()
    logs = _logs()
    assert len(logs) > 1000
    for path in logs:
        with path.open("rb") as handle:
            if wrap_width(handle.read(HEAD_BYTES)) is not None:
                fired.add(path.relative_to(ROOT).as_posix())
        if path.relative_to(ROOT).as_posix() not in COLLECTED_WRAPPED:
            # no hard wrap's rows joined (a CRI log's pieces may be: crilines.py)
            assert not isinstance(open_input(path)._stream, HardWrapped), path
    assert fired == COLLECTED_WRAPPED


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["startup", "requests", "polls", "failed", "sigterm", "request",
                                 "kv", "benign", "worker", "wrapper", "engine", "dead", "free"]),
                min_size=1, max_size=12),
       st.integers(1, 60), st.sampled_from(sorted(PREFIXES)), st.randoms(use_true_random=False))
def test_generated_scenario_logs_are_read_as_they_are(parts: list[str], count: int, prefix: str,
                                                      rng: random.Random) -> None:
    server = Server(api=rng.randrange(100, 90000), engine=rng.randrange(100, 90000),
                    workers=rng.randint(2, 8))
    make = {"startup": server.startup, "requests": lambda: server.requests(count),
            "polls": lambda: server.polls(count), "failed": lambda: server.failed_requests(count),
            "sigterm": server.sigterm, "request": server.request_error,
            "kv": server.worker_kv_fetch_error, "benign": server.worker_benign_startup_error,
            "worker": lambda: server.worker_runtime_error(0, ILLEGAL_ACCESS),
            "wrapper": lambda: server.engine_wrapper(ILLEGAL_ACCESS),
            "engine": lambda: server.engine_error(OUT_OF_VOCAB), "dead": server.engine_dead,
            "free": server.free_memory_startup_failure}
    lines = [line for part in parts for line in make[part]()]
    _never_rejoined("\n".join(PREFIXES[prefix](n) + line for n, line in enumerate(lines)) + "\n")


@pytest.mark.parametrize("mix", MIXES)
def test_benchmark_mixes_are_read_as_they_are(mix: str, tmp_path_factory: pytest.TempPathFactory
                                              ) -> None:
    path, _ = mix_log(mix, 3000, str(tmp_path_factory.getbasetemp()))
    assert open_input(path).rows is None


def test_the_benchmarks_generated_log_is_read_as_it_is(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import generate  # noqa: PLC0415 (benchmarks/ is not a package)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    for seed in range(3):
        out = tmp_path / f"bench-{seed}.log"
        generate(4000, str(out), seed=seed)
        assert open_input(out).rows is None


@settings(max_examples=50, deadline=None)
@given(st.integers(60, 200), st.sampled_from(["", "vllm-1  | ", "0: ", "[pod/vllm-0/vllm] "]),
       st.lists(st.text("abcdefgh0123 ", min_size=3, max_size=30), min_size=3, max_size=8,
                unique=True), st.sampled_from([" ", "-", "=", "."]))
def test_rows_as_wide_as_the_widest_are_no_evidence_alone(width: int, prefix: str,
                                                          texts: list[str], pad: str) -> None:
    """Padded table rows, repeated stats lines and rows a launcher prefixed, all as wide as the
    widest line, each followed by a record or a row of their own: no width is read."""
    lines: list[str] = []
    for n, text in enumerate(texts):
        head = f"{prefix}INFO 03-14 09:26:{n:02d} [loggers.py:123] {text}"
        lines.append((head + pad * width)[:max(width, len(head))])  # padded to the width
        lines.append(f"{prefix}(APIServer pid=7) WARNING 03-14 09:26:{n:02d} [a.py:1] {text}")
        lines.append(f"{prefix}| {text:<{max(0, width - len(prefix) - 4)}} |")  # a table row
        lines.append(f"{prefix}+{'-' * max(0, width - len(prefix) - 2)}+")
    stats = f"{prefix}INFO 03-14 09:27:00 [loggers.py:123] Engine 000: Avg prompt throughput: "
    lines += [(stats + "0.0 tokens/s, Running: 0 reqs" + " " * width)[:width]] * 5
    _never_rejoined("\n".join(lines) + "\n")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["vllm-1  | ", "[pod/vllm-0/vllm] ", "2025-03-14T09:26:53.000000123Z ",
                        "Mar 14 09:26:53 gpu-node-1 vllm[8052]: "]),
       st.integers(70, 200), st.randoms(use_true_random=False))
def test_rows_a_launcher_prefixed_after_the_wrap_are_lines(prefix: str, width: int,
                                                           rng: random.Random) -> None:
    """A log wrapped first and prefixed by its launcher after (every row begins with the prefix)
    is read row by row: a prefix is never joined into the middle of a message."""
    lines = _log(rng.choice(FAILURES), 20, "none", rng)
    moved = wrapped(lines, width)
    assume(moved is not None)
    assert moved is not None
    _never_rejoined("\n".join(prefix + row for row in moved.lines) + "\n")


SEAMS = {
    "in the call site": lambda line: line.index(".py:") + 2,
    "right after the head": lambda line: line.index("] ") + 2,
    "inside the type": lambda line: line.index("Error: ") - 3,
    "after the type": lambda line: line.index("Error: ") + len("Error: "),
    "inside the message": lambda line: line.index("Error: ") + len("Error: ") + 6,
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(SEAMS)), st.sampled_from(["none", "compose", "docker"]),
       st.sampled_from([["RuntimeError: CUDA error: an illegal memory access was encountered"],
                        OUT_OF_VOCAB]),
       st.randoms(use_true_random=False))
def test_a_wrap_at_any_seam_of_the_root_line_reads_as_the_line(
        seam: str, prefix: str, error: list[str], rng: random.Random) -> None:
    """The width falls at each seam of the root's `Type: message` record line (in its head's
    call site, right after its head, inside or right after the type, in the message): the root
    is the line's type and message, at its first row."""
    server = Server(api=rng.randrange(100, 90000), engine=rng.randrange(100, 90000))
    lines = server.startup() + server.engine_error(error) + server.engine_dead()
    lines = [PREFIXES[prefix](n) + line for n, line in enumerate(lines)]
    original = _report(lines)
    root = original["root_cause"]
    assert root is not None
    width = SEAMS[seam](lines[root["line"] - 1])
    assume(width >= 60 and all(len(line) != width for line in lines))
    moved = wrapped(lines, width)
    assert moved is not None
    _same_answer_when_wrapped(original, moved)


WORDS = ("model", "config", "tokenizer", "request", "engine", "worker", "cache", "blocks",
         "memory", "device", "tensor", "parallel", "size", "must", "be", "divisible", "by",
         "the", "number", "of", "attention", "heads", "found", "expected", "shape", "value")


def _cut_at_spaces(head: str, length: int, width: int, rng: random.Random,
                   sep: str = " ") -> str:
    """`head`, then words drawn from WORDS, `sep` between them, up to about `length` characters,
    laid out so that every multiple of `width` falls where two words meet: the row ends with a
    word (the separator begins the next row) or, with a space between words, with the space
    (the next row begins with a word)."""
    def filler(size: int) -> str:
        return (rng.choice(WORDS) * size)[:size]

    line = head
    while len(line) < length:
        word = rng.choice(WORDS)
        seam = (len(line) // width + 1) * width  # where the next cut falls
        room = seam - len(line)
        if len(line) + len(sep) + len(word) < seam:
            line += sep + word
        elif sep == " " and room >= 3 and rng.random() < 0.5:  # the space ends the row
            line += " " + filler(room - 2) + " " + word
        elif room >= len(sep) + 1:  # a word ends the row
            line += sep + filler(room - len(sep))
        else:
            line += filler(room)  # the row's last word longer, to the cut
    return line


@settings(max_examples=40, deadline=None)
@given(st.integers(100, 200), st.integers(2, 4), st.sampled_from(["none", "compose", "docker"]),
       st.sampled_from([" ", ", ", "; "]), st.randoms(use_true_random=False))
def test_an_excerpt_cut_between_words_reads_as_the_excerpt(width: int, records: int,
                                                          prefix: str, sep: str,
                                                          rng: random.Random) -> None:
    """A short excerpt whose long lines a terminal cut only where words meet (a cut at a space,
    or before the comma after a word: no word cut in two) still says its width: rows exactly
    that wide, each followed by a row of no shape of its own that begins with a word, with the
    one space the cut left or with the comma (no line of its own begins with one). The root
    is the error line's type and whole message, at its first row."""
    # records of different modules: rows alike but for their digits are one row of evidence
    heads = [f"INFO 03-14 09:26:{n:02d} [{module}.py:{100 + n}]"
             for n, module in enumerate(["config", "loader", "worker", "engine"][:records])]
    heads += ["Traceback (most recent call last):",
              '  File "/usr/lib/python3.12/site-packages/vllm/engine/llm_engine.py", line 42, in '
              "step", "    self.model_executor.execute_model()", "ValueError: expected"]
    lines = [PREFIXES[prefix](n) + head for n, head in enumerate(heads)]
    long = [n for n, head in enumerate(heads) if head.startswith(("INFO", "ValueError"))]
    for n in long:
        lines[n] = _cut_at_spaces(lines[n], rng.randrange(width + 10, 2 * width), width, rng,
                                  sep)
    want = _reads_wrapped_as_printed(lines, width)
    assert want.exception == "ValueError"


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 40), st.integers(3, 8), st.randoms(use_true_random=False))
def test_an_excerpt_cut_inside_its_record_heads_reads_as_the_excerpt(seam: int, frames: int,
                                                                     rng: random.Random) -> None:
    """A native crash report relayed by Ray (`(RayWorkerWrapper pid=N) [time E pid tid]
    logging.cc:447: ...` records, one a frame) wrapped where every row ends inside the record's
    head, at a seam no space marks (`logging.cc` + `:447: ...`, `E 812 8` + `12] ...`): the rows
    cut the heads, which says the width though no word is cut in two. The root is the report's
    first line, whole."""
    pid = rng.randrange(100, 9999)
    head = (f"(RayWorkerWrapper pid={pid}) [2025-04-17 15:09:14,{rng.randrange(100, 999)} "
            f"E {pid} {pid}] logging.cc:447:")
    # the seams inside the head that no space marks, from the time on
    seams = [n for n in range(head.index("[") + 1, len(head))
             if not head[n - 1].isspace() and not head[n].isspace()]
    width = seams[seam % len(seams)]
    assume(width >= 60)
    bodies = [f" *** SIGSEGV received at time={rng.randrange(10**9, 10**10)} on cpu "
              f"{rng.randrange(256)} ***",
              f" PC: @     0x{rng.randrange(16**12):012x}  (unknown)  ncclAllReduce()"]
    bodies += [f"     @     0x{rng.randrange(16**12):012x}  (unknown)  (unknown)"
               for _ in range(frames)]
    lines = [head + body for body in bodies]
    want = _reads_wrapped_as_printed(lines, width)
    assert want.exception


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(FAILURES), st.integers(0, 20), st.integers(70, 200),
       st.randoms(use_true_random=False))
def test_a_quoted_terminal_copy_reads_as_the_copy(kind: str, served: int, width: int,
                                                 rng: random.Random) -> None:
    """A terminal's copy quoted in markdown (a reply or an issue quoting a wrapped paste: `> `
    before every row, `>` alone for a blank one): the rows inside the quote say the width they
    say unquoted, and the quoted copy reads as the copy unquoted (its rows joined alike)."""
    lines = _log(kind, served, "none", rng)
    moved = wrapped(lines, width)
    assume(moved is not None and len({line for line in lines if len(line) > width}) >= 3)
    assert moved is not None

    def quoted(rows: list[str]) -> list[str]:
        return [f"> {row}" if row else ">" for row in rows]

    head = ("\n".join(moved.lines) + "\n").encode()[:HEAD_BYTES]
    quoted_head = ("\n".join(quoted(moved.lines)) + "\n").encode()[:HEAD_BYTES]
    read = wrap_width(head)
    assert wrap_width(quoted_head) == (None if read is None else read + 2)
    assume(read is not None)
    unquoted, got = _report(moved.lines), _report(quoted(moved.lines))
    assert any("hard-wrapped" in notice for notice in got["notices"])
    want, have = answer_of(unquoted), answer_of(got)
    assert (have.verdict, have.exception, have.message, have.line) \
        == (want.verdict, want.exception, want.message, want.line)
