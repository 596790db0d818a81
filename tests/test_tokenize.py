"""The tokenizer: line numbers as `grep -n` gives them, and the anchor prefilter against drift.

Numbering (REPORT_SCHEMA.md): 1-based, counting `\\n` only; a `\\r\\n` ending is one break; a bare
`\\r` (a progress refresh) starts no line.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus_judge import iter_logs
from logsleuth.model import Level, LineKind
from logsleuth.read import LogInput, open_input
from logsleuth.tokenize import (TokenizeStats, Tokenizer, anchor_patterns, clean, parse_line,
                                tokenize)
from mix_logs import MIXES, mix_log

CORPUS_LOGS = list(iter_logs())
CORPUS_IDS = [f"{log.parent.parent.name}/{log.parent.name}" for log in CORPUS_LOGS]

# A logged traceback as vLLM writes it (NewLineFormatter: `\r\n` inside a record, `\n` after it),
# a tqdm bar refreshed with `\r`, then raw stderr. Lines from nccl-dev-shm-exhausted-dp16 and
# custom-allreduce-invalid-argument-cudagraph.
LOG = (
    b"(EngineCore pid=3677484) INFO 09-10 09:37:30 [core.py:96] Initializing a V1 LLM engine\n"
    b"Capturing CUDA graphs (FULL): 0%| | 0/2 [00:00<?, ?it/s]\rCapturing CUDA graphs (FULL): "
    b"100%|##########| 2/2 [00:00<00:00, 6.11it/s]\n"
    b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] WorkerProc failed to start.\r\n"
    b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] Traceback (most recent call "
    b"last):\r\n"
    b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597]   File \"/app/vllm/vllm/v1/"
    b"executor/multiproc_executor.py\", line 571, in worker_main\r\n"
    b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597]     worker = "
    b"WorkerProc(*args, **kwargs)\r\n"
    b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] RuntimeError: NCCL error: "
    b"unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
    b"\n"
    b"plain text nobody cares about\n"
    b"Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'\n"
    b"(EngineCore pid=3677484) ERROR 09-10 09:37:41 [multiproc_executor.py:314] Worker proc "
    b"VllmWorker-0 died unexpectedly (exit code: None), shutting down executor."
)
# what `grep -n` says: line number -> a piece of that line
EXPECTED = {
    3: "WorkerProc failed to start.",
    4: "Traceback (most recent call last):",
    5: "worker_main",
    6: "worker = WorkerProc",
    7: "RuntimeError: NCCL error",
    10: "Failed: Cuda error",
    11: "Worker proc VllmWorker-0 died unexpectedly",
}
TOTAL_LINES = 11


def grep_n(data: bytes) -> list[str]:
    """The lines as `grep -n` numbers them (index + 1)."""
    return data.decode("utf-8").split("\n")


def test_expected_numbers_agree_with_grep() -> None:
    lines = grep_n(LOG)
    assert len(lines) == TOTAL_LINES
    for number, piece in EXPECTED.items():
        assert piece in lines[number - 1]


def line_aligned_splits(data: bytes) -> list[list[bytes]]:
    """Ways to cut `data` into blocks that each end just after a `\\n` (the reader's contract)."""
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    splits = [[data], [b"", data, b""]]
    for end in ends:  # a cut after every single line, one at a time
        splits.append([data[:end], data[end:]])
    pieces, start = [], 0
    for end in ends:  # one line per block
        pieces.append(data[start:end])
        start = end
    pieces.append(data[start:])
    splits.append(pieces)
    return splits


@pytest.mark.parametrize("blocks", line_aligned_splits(LOG),
                         ids=lambda blocks: f"{len(blocks)}-blocks")
def test_line_numbers_whatever_the_blocks(blocks: list[bytes]) -> None:
    stats = TokenizeStats()
    found = {line.number: line for line in tokenize(blocks, stats)}
    for number, piece in EXPECTED.items():
        assert number in found, f"line {number} ({piece!r}) was not tokenized"
        assert piece in found[number].text
    assert stats.lines == TOTAL_LINES


def test_crlf_is_one_line_break() -> None:
    data = (b"ERROR 10-13 09:06:25 [core.py:1] Traceback (most recent call last):\r\n"
            b"ERROR 10-13 09:06:25 [core.py:1] RuntimeError: NCCL error\r\n"
            b"ERROR 10-13 09:06:25 [core.py:1] RuntimeError: again\n")
    numbers = [(line.number, line.kind) for line in tokenize([data])]
    assert numbers == [(1, LineKind.TRACEBACK_HEADER), (2, LineKind.EXCEPTION),
                       (3, LineKind.EXCEPTION)]


def test_bare_carriage_return_starts_no_line() -> None:
    data = (b"Loading safetensors checkpoint shards:   0% Completed | 0/5 [00:00<?, ?it/s]\r"
            b"Loading safetensors checkpoint shards:  20% Completed | 1/5 [00:01<00:04, 1.0s/it]\r"
            b"Loading safetensors checkpoint shards:  40% Completed | 2/5 [00:02<00:03, 1.0s/it]\n"
            b"(EngineCore_DP0 pid=268) ERROR 09-16 20:57:00 [core.py:718] EngineCore failed to "
            b"start.\n")
    stats = TokenizeStats()
    errors = [line for line in tokenize([data], stats) if line.level is Level.ERROR]
    assert [line.number for line in errors] == [2]
    assert stats.lines == 2


def test_last_line_without_newline_counts() -> None:
    stats = TokenizeStats()
    lines = list(tokenize([b"plain\n", b"plain\n", b"RuntimeError: Failed to infer device type"],
                          stats))
    assert [(line.number, line.exception) for line in lines] == [(3, "RuntimeError")]
    assert stats.lines == 3
    assert stats.last_line_text == "RuntimeError: Failed to infer device type"


class _Trickle(io.RawIOBase):
    """A stream that hands out a few bytes per read, as a pipe may."""

    def __init__(self, data: bytes, size: int):
        self._data = data
        self._size = size

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        out, self._data = self._data[: self._size], self._data[self._size:]
        return out


@pytest.mark.parametrize("size", [1, 3, 7, 64])
def test_reader_blocks_split_at_odd_places_keep_numbering(size: int) -> None:
    log = LogInput("<trickle>", _Trickle(LOG, size))  # type: ignore[arg-type]
    blocks = list(log.blocks())
    assert b"".join(blocks) == LOG
    assert all(block.endswith(b"\n") for block in blocks[:-1])
    stats = TokenizeStats()
    found = {line.number: line.text for line in tokenize(blocks, stats)}
    for number, piece in EXPECTED.items():
        assert piece in found.get(number, ""), f"line {number} ({piece!r})"
    assert stats.lines == TOTAL_LINES


@pytest.mark.parametrize("log", CORPUS_LOGS, ids=CORPUS_IDS)
def test_numbers_match_grep_on_corpus_logs(log: Path) -> None:
    """Every line the tokenizer yields is the line `grep -n` shows under that number."""
    raw_lines = log.read_bytes().split(b"\n")
    stats = TokenizeStats()
    for line in tokenize(open_input(log).blocks(), stats):
        expected = parse_line(clean(raw_lines[line.number - 1].decode("utf-8", "replace")))
        assert (line.kind, line.text, line.process) == (
            expected.kind, expected.text, expected.process), f"{log}:{line.number}"
    newlines = log.read_bytes().count(b"\n")
    assert stats.lines == newlines + (0 if log.read_bytes().endswith(b"\n") else 1)


# ---- the anchor prefilter cannot drift from the grammar ------------------------------------------

_MATTERING_KINDS = {LineKind.TRACEBACK_HEADER, LineKind.GROUP_HEADER, LineKind.FRAME,
                    LineKind.EXCEPTION, LineKind.CHAIN, LineKind.PROCESS_HEADER, LineKind.FATAL,
                    LineKind.DIAGNOSTIC, LineKind.FAULT_THREAD, LineKind.EXTENSION_MODULES,
                    LineKind.FRAME_LIST, LineKind.EXCEPTION_REPR}


def _matters(raw: bytes) -> bool:
    record = parse_line(clean(raw.decode("utf-8", "replace")))
    if record.kind is LineKind.EXCEPTION and (record.exception or "").endswith("Warning"):
        return False
    return (record.kind in _MATTERING_KINDS
            # a line of another kind that names an exception: one pasted indented, a client's
            # copy of an error body (the assembler reads each as the error it names)
            or (record.kind in (LineKind.INDENTED, LineKind.ACCESS) and record.exception is not None
                and not record.exception.endswith("Warning"))
            or record.level in (Level.ERROR, Level.CRITICAL)
            or (record.kind is LineKind.NCCL and record.exception == "NCCL WARN"))


@pytest.mark.parametrize("log", CORPUS_LOGS, ids=CORPUS_IDS)
def test_every_line_that_matters_is_anchored(log: Path) -> None:
    anchor = anchor_patterns()[0]
    missed = [f"{number}: {raw[:120]!r}"
              for number, raw in enumerate(log.read_bytes().split(b"\n"), 1)
              if _matters(raw) and not anchor.search(raw)]
    assert not missed, f"{log}: lines the grammar calls errors that ANCHOR skips:\n" + \
        "\n".join(missed)


@pytest.mark.parametrize("raw", [
    # shapes that are rare in the corpus: each must be anchored too
    b"Fatal Python error: Segmentation fault",
    b"Current thread 0x00007fcf597eb640 (most recent call first):",
    b"Stack (most recent call first):",
    b"Extension modules: msgpack._cmsgpack, google._upb._message (total: 2)",
    b"terminate called after throwing an instance of 'c10::Error'",
    b"*** SIGSEGV received at time=1715675462 on cpu 12 ***",
    b"Segmentation fault (core dumped)",
    b"Killed",
    b"Process EngineCore_DP0:\r",
    b"(EngineCore_DP0 pid=207811) Process EngineCore_DP0:",
    b"During handling of the above exception, another exception occurred:",
    b"  + Exception Group Traceback (most recent call last):",
    b"KeyboardInterrupt",
    b"StopIteration",
    b"node-12:3791:3791 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to extend "
    b"/dev/shm/nccl-JYcYTs to 9637892 bytes",
    b"\x1b[0;36m(APIServer pid=523647)\x1b[0;0m ERROR 04-27 18:09:47 [core_client.py:600] Engine "
    b"core proc EngineCore_DP0 died unexpectedly, shutting down client.",
    # the dynamic loader's refusal printed without its exception, cut or whole
    b"/env/site-packages/vllm/activation_ops.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    b"_ZN3c106detail19maybe_wrap_dim_slowEllb",
    b"cudart.so.12: cannot open shared object file: No such file or directory",
    # Ray's header of a remote traceback nobody retrieved, and its terminate handler
    b"(_AsyncLLMEngine pid=10245) Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): "
    b"ray::RayWorkerVllm.execute_method() (pid=10360, ip=10.42.0.27)",
    b"Unhandled exception: N3c1016DistBackendErrorE. what(): [PG ID 2 PG GUID 3 Rank 3] Process "
    b"group watchdog thread terminated with exception",
    # glog with the year (0.7+), as Mooncake's transfer engine writes it
    b"E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] Failed to connect to "
    b"target: 172.17.0.16:25482, status: 103900",
    b"[F20250301 01:02:03.500000 77 rdma_context.cpp:9] Check failed: ctx != nullptr",
    # AWS Neuron's runtime
    b"2026-Jun-25 14:34:26.373800   275:1936  ERROR  NMGR:kmgr_exec                               "
    b"Failed to execute model: 10004, error: 1006",
])
def test_rare_shapes_are_anchored(raw: bytes) -> None:
    assert _matters(raw)
    assert anchor_patterns()[0].search(raw)


def test_uvicorn_error_lines_are_anchored() -> None:
    # vllm#8194: uvicorn's own ERROR line before a kind-C traceback
    assert anchor_patterns()[0].search(b"ERROR:    Exception in ASGI application")


@pytest.mark.parametrize("log", CORPUS_LOGS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_head_body_split_parses_like_the_whole_line(log: Path) -> None:
    """parse_line parses head and body apart (and caches both); it must agree with the
    whole-line parse of the grammar on every real line."""
    from logsleuth.tokenize import parse_line_whole

    for raw in log.read_bytes().split(b"\n"):
        text = clean(raw.decode("utf-8", "replace"))
        assert parse_line(text) == parse_line_whole(text), text


# ---- a record's continuation lines take the head of the line before them ------------------------

def _one_by_one(raw: bytes, number: int) -> object:
    return parse_line(clean(raw.decode("utf-8", "replace")), number)


def _assert_streamed_like_one_by_one(lines: list[bytes]) -> None:
    tokenizer = Tokenizer()
    for number, raw in enumerate(lines, 1):
        assert tokenizer.parse(number, raw) == _one_by_one(raw, number), raw


@pytest.mark.parametrize("log", CORPUS_LOGS, ids=CORPUS_IDS)
def test_continuation_lines_parse_like_lines_alone_on_corpus_logs(log: Path) -> None:
    """Tokenizer.parse reuses the head of the line before (vLLM repeats the record header on
    every line of a record) and bodies it parsed already: every line, in the log's order, must
    come out as parse_line gives it alone."""
    _assert_streamed_like_one_by_one(log.read_bytes().split(b"\n"))


@pytest.mark.parametrize("mix", MIXES)
def test_continuation_lines_parse_like_lines_alone_on_mixes(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    _assert_streamed_like_one_by_one([raw[:4096] for raw in path.read_bytes().split(b"\n")])


_HEAD_TEXTS = [
    "(APIServer pid=17) ERROR 01-24 01:52:18 [serving.py:296] ",
    "(APIServer pid=17) ERROR 01-24 01:52:19 [serving.py:296] ",
    "(APIServer pid=17) ERROR 01-24 01:52:19 [serving.py:296]",
    "(APIServer pid=17) INFO 01-24 01:52:19 [loggers.py:259] ",
    "(Worker_TP3 pid=18) ERROR 01-24 01:52:19 [multiproc_executor.py:876] ",
    "ERROR 01-24 01:52:19 [engine.py:12] ", "(APIServer pid=17) ", "",
    "2026-01-24 01:52:19,123 - vllm - ERROR - ", "[rank0]: ", "E0124 01:52:19.123 12 x.cc:7] ",
    "\x1b[0;36m(APIServer pid=17)\x1b[0;0m ERROR 01-24 01:52:19 [serving.py:296] ",
    "\u2502 (APIServer pid=17) ERROR 01-24 01:52:19 [serving.py:296] ",
    "ker_TP5 pid=207855) ERROR 01-24 01:52:19 [serving.py:296] ",
]
_BODY_TEXTS = [
    "Traceback (most recent call last):", '  File "/v/x.py", line 3, in f', "    return f(x)",
    "           ^^^^^^", "ValueError: bad 12", "ValueError: bad 13", "", " ", "  ",
    "Error in preprocessing prompt inputs", "RuntimeError",
    "INFO: 1.2.3.4:5 - \"GET / HTTP/1.1\" 200 OK",
    "ERROR 01-24 01:52:19 [serving.py:296] nested", "(APIServer pid=17) again",
    "Loading 10%\rLoading 50%", "tail \x1b[0m colour", "ends in caret ^M", "\u2502 boxed \u2502",
    "caf\xe9", "[[0m", "During handling of the above exception, another exception occurred:",
    "[36m(Worker_TP1 pid=9)[0m x", "ends coloured[0m", "v(1)[0m", "[0;36mstart",
]


@pytest.mark.parametrize("end", ["", "\r"])
@pytest.mark.parametrize("head_major", [True, False])
def test_continuation_lines_parse_like_lines_alone_on_every_pairing(end: str,
                                                                    head_major: bool) -> None:
    """Every head with every body, in both orders: bodies learnt after one head are met again
    after every other."""
    pairs = [(head, body) for head in _HEAD_TEXTS for body in _BODY_TEXTS] if head_major else \
        [(head, body) for body in _BODY_TEXTS for head in _HEAD_TEXTS]
    _assert_streamed_like_one_by_one([(head + body + end).encode("utf-8")
                                      for head, body in pairs])


_HEADS = st.sampled_from(_HEAD_TEXTS)
_BODIES = st.sampled_from(_BODY_TEXTS)


@given(st.lists(st.tuples(_HEADS, _BODIES, st.sampled_from(["", "\r"])), max_size=30),
       st.booleans())
def test_continuation_lines_parse_like_lines_alone_on_generated_records(
        parts: list[tuple[str, str, str]], bad_byte: bool) -> None:
    lines = [(head + body + end).encode("utf-8") for head, body, end in parts]
    if bad_byte and lines:
        lines[len(lines) // 2] += b"\xff"
    _assert_streamed_like_one_by_one(lines)


# Lines that differ only in their digits: the tokenizer keeps the memo's plan, and what it
# learns of a line's head and body, by the raw line's digit shape (Tokenizer._shapes). Digits
# that clean() reads (rsyslog's `#015` and `#033[`, colour codes) must keep such shapes out.
_DIGIT_TEMPLATES = [
    '(APIServer pid={}) INFO:     127.0.0.1:{} - "POST /v1/chat/completions HTTP/1.1" {} OK',
    "(APIServer pid={}) INFO 01-24 01:5{}:1{} [loggers.py:259] Engine 000: Avg prompt "
    "throughput: {}.5 tokens/s, Running: 4 reqs",
    "(APIServer pid={}) ERROR 01-24 01:52:1{} [serving.py:296] ValueError: requested {} tokens",
    "(APIServer pid={}) ERROR 01-24 01:52:1{} [serving.py:296] Error in preprocessing {}",
    "(APIServer pid={}) ERROR 01-24 01:52:1{} [serving.py:296] tail #0{}5",
    "(APIServer pid={}) ERROR 01-24 01:52:1{} [serving.py:296] x #0{}3[0m coloured",
    "(APIServer pid={}) ERROR 01-24 01:52:1{} [serving.py:296] \x1b[{}m coloured",
    "Jan 24 01:52:1{} host vllm[{}]: ERROR 01-24 01:52:19 [core.py:{}] boom#01{}",
    "[rank{}]: Traceback (most recent call last):{}",
    "(Worker_TP{} pid={}) ERROR 01-24 01:52:19 [multiproc_executor.py:876]   File \"/x.py\", "
    "line {}, in f",
]


@given(st.lists(st.tuples(st.sampled_from(_DIGIT_TEMPLATES),
                          st.lists(st.integers(0, 99_999), min_size=4, max_size=4)),
                min_size=1, max_size=60))
def test_lines_of_one_digit_shape_parse_like_lines_alone(
        lines: list[tuple[str, list[int]]]) -> None:
    raws = [template.format(*numbers[:template.count("{}")]).encode("utf-8")
            for template, numbers in lines]
    # every shape met often enough to be kept, and no line after one with its head
    _assert_streamed_like_one_by_one([raw for one in raws for raw in (one, b"x")] * 3)


# what a line may end in: a record's `\r` (kept by its shape: cleaning only takes it), and ends
# that cleaning reads otherwise (an overwrite, a caret form, rsyslog's `#015`, a colour code)
_LINE_ENDS = ["", "\r", "\r", "\r\r", " \r", "^M\r", "#015\r", "#016\r", "\x1b[0m\r",
              "\rover\r", "\t\r", ">\r", "</code>\r"]


@given(st.lists(st.tuples(st.sampled_from(_DIGIT_TEMPLATES),
                          st.lists(st.integers(0, 99_999), min_size=4, max_size=4),
                          st.sampled_from(_LINE_ENDS)),
                min_size=1, max_size=60))
def test_lines_of_one_digit_shape_with_their_line_ends_parse_like_lines_alone(
        lines: list[tuple[str, list[int], str]]) -> None:
    """The lines of a record end in `\r` (vLLM's NewLineFormatter): a shape that cleaning only
    takes that `\r` from is kept too, and must read every line of it as parse_line does; a `\r`
    or an escape before it changes what cleaning does."""
    raws = [(template.format(*numbers[:template.count("{}")]) + end).encode("utf-8")
            for template, numbers, end in lines]
    _assert_streamed_like_one_by_one([raw for one in raws for raw in (one, b"x")] * 3)


def test_a_record_line_is_read_by_its_shape() -> None:
    """A record's first line, `\r`-ended, with a new time on every record: read by the shape
    after the first two (the test above checks what that reading gives)."""
    tokenizer = Tokenizer()
    lines = [f"(APIServer pid=7) ERROR 01-24 01:5{i % 10}:1{i % 7} [serving.py:296] Error in "
             "preprocessing prompt inputs\r".encode() for i in range(20)]
    for number, raw in enumerate(lines, 1):
        assert tokenizer.parse(number, raw) == _one_by_one(raw, number)
    assert any(kept[3] for kept in tokenizer._shapes._decisions.values())


def test_digit_shapes_with_escapes_read_by_digits_parse_like_lines_alone() -> None:
    """`#015` ends a line (rsyslog's carriage return) and `#033[` starts a colour code, but
    `#016` and `#034[` are text: lines of one digit shape that clean() reads differently."""
    bodies = ("tail #015", "tail #016", "tail #015", "x #033[0m y", "x #034[0m y",
              "x #033[0m y", "x \x1b[1m y", "x \x1b[2m y", "x \x1b[1m y")
    # a new pid on every line: no line repeats the head of the line before it
    raws = [f"(APIServer pid={1000 + pid}) ERROR 01-24 01:52:{pid % 60:02} [serving.py:296] "
            f"{bodies[pid % len(bodies)]}".encode() for pid in range(300)]
    _assert_streamed_like_one_by_one(raws)
