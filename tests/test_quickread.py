"""A request's answer or activity line read by its shape (scan._Quick: an access line, an engine's
metrics line, `Received request`, `Added request`, ... with their digits masked) is the line
Lark and the memo read: on generated lines of every such shape, mixed with other processes,
call sites, levels, line ends and lines that only look alike, read in a stream where each shape
comes back (so its quick reading is learned and used), and on every mix; and the report is the
same with and without it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from digits import redigit
from logsleuth.model import LineRun, LogLine, RecordRun
from logsleuth.pipeline import explain
from logsleuth.render.json import report_to_dict
from logsleuth.tokenize import Tokenizer, clean, parse_line
from logsleuth.tokenize import scan
from mix_logs import MIXES, mix_log

_PROCESSES = ["(APIServer pid={pid}) ", "(APIServer pid={pid}) ", "(EngineCore_DP0 pid={pid}) ",
              "(Worker_TP{d} pid={pid}) ", "", "[rank{d}]: ", "vllm-1  | ",
              "2026-01-24T01:52:{n2}.{n}Z ", "Jan 24 01:52:{n2} host vllm[{pid}]: "]
_LEVELS = ["INFO", "INFO", "DEBUG", "WARNING", "ERROR", "CRITICAL"]
_SITES = ["loggers.py:{n}", "async_llm.py:{n}", "logger.py:{n}", "serving.py:{n}",
          "launcher.py:{n}", "core.py:{n}"]
_RECORD = "{level} 01-{n2} {n2}:{n2}:{n2} [{site}] "
_ANSWERS = ['INFO:     {ip}:{port} - "{method} {path} HTTP/1.1" {status} {reason}',
            'INFO:     {ip}:{port} - "{method} {path} HTTP/1.1" {status}']
_METHODS = ["POST", "GET", "DELETE"]
_PATHS = ["/v1/chat/completions", "/v1/completions", "/metrics", "/health", "/v1/models",
          "/v1/embeddings?x={n}"]
_STATUSES = [200, 200, 201, 204, 301, 400, 404, 413, 422, 429, 499, 500, 502, 503, 504]
_REASONS = ["OK", "Bad Request", "Internal Server Error", "Service Unavailable", "Not Found"]
_MESSAGES = [
    "Engine {n3}: Avg prompt throughput: {f} tokens/s, Avg generation throughput: {f} tokens/s, "
    "Running: {n} reqs, Waiting: {n} reqs, GPU KV cache usage: {f}%, Prefix cache hit rate: {f}%",
    "Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, "
    "Running: {n} reqs, Waiting: {n} reqs, GPU KV cache usage: {f}%, Prefix cache hit rate: {f}%",
    "Received request chatcmpl-{hex}: prompt: '', params: SamplingParams(n={n}, "
    "temperature={f}), prompt_token_ids: None, lora_request: None.",
    "Added request cmpl-{hex}-{n}.", "Finished request cmpl-{hex}-{n}.",
    "Aborted request cmpl-{hex}.", "Called check_health.", "Scheduled {n} requests, {n} tokens.",
    "Model loading took {f} GiB and {f} seconds", "# GPU blocks: {n}",
    "Error in preprocessing prompt inputs", "ValueError: requested {n} tokens",
    "NCCL error {n}: unhandled", "Error code: {n}", "CUDA error: out of memory {n}",
    # a digit-sighted body: 5xx is an exception's repr, 4xx a plain line of the same shape
    "Error code: {status} - {{'message': 'x'}}", "Error code: {status} - {{'message': 'x'}}",
    "Engine {n3} is {f}% done", "  indented {n}",
]
_ENDS = ["", "", "\r", " ", "\t\r"]


@st.composite
def _line(draw: st.DrawFn) -> str:
    """A line of one of the shapes, with its own digits."""
    number = st.integers(0, 99_999)

    def fill(template: str) -> str:
        return template.format(
            pid=draw(st.sampled_from([7, 17, 1784005, draw(number)])), d=draw(st.integers(0, 7)),
            n=draw(number), n2=f"{draw(st.integers(0, 59)):02d}", n3=f"{draw(number) % 1000:03d}",
            f=f"{draw(number) / 10:.1f}", hex=f"{draw(number):08x}", ip="127.0.0.1",
            port=draw(st.integers(1024, 65535)), method=draw(st.sampled_from(_METHODS)),
            path=draw(st.sampled_from(_PATHS)).format(n=draw(number)),
            status=draw(st.sampled_from(_STATUSES)), reason=draw(st.sampled_from(_REASONS)),
            level=draw(st.sampled_from(_LEVELS)),
            site=draw(st.sampled_from(_SITES)).format(n=draw(number)))

    process = fill(draw(st.sampled_from(_PROCESSES)))
    if draw(st.booleans()):
        body = fill(draw(st.sampled_from(_ANSWERS)))
    else:
        body = fill(_RECORD) + fill(draw(st.sampled_from(_MESSAGES)))
    return process + body + draw(st.sampled_from(_ENDS))


def _alone(raw: bytes, number: int) -> LogLine:
    return parse_line(clean(raw.decode("utf-8", "replace")), number)


@pytest.mark.long
@settings(max_examples=150, deadline=None)
@given(st.lists(_line(), min_size=1, max_size=12), st.integers(0, 2**16))
def test_quick_reading_is_lark_s_reading_on_generated_lines(lines: list[str], seed: int) -> None:
    """Each line comes back five times with other digits (a shape's plan is made by its second
    line, its quick reading learned from its third and used from its fourth), in an order that
    interleaves the shapes."""
    rng = random.Random(seed)
    stream = [line for _ in range(5) for line in lines]
    stream = [redigit(line, rng) if index >= len(lines) else line
              for index, line in enumerate(stream)]
    quick, plain = Tokenizer(quick=True), Tokenizer(quick=False)
    for number, text in enumerate(stream, 1):
        raw = text.encode("utf-8")
        read = quick.parse(number, raw)
        assert read == plain.parse(number, raw) == _alone(raw, number), text


def test_quick_reading_is_used_and_tells_processes_and_sites_apart() -> None:
    """The same shape (digits masked) from another pid, another call site's line number or
    another time is read with its own, and the common lines are read quickly."""
    lines = []
    for index in range(10, 90):
        pid = 7 if index % 3 else 8  # one digit apart: the same shape
        lines.append(f'(APIServer pid={pid}) INFO:     127.0.0.1:{40000 + index} - "POST '
                     f'/v1/chat/completions HTTP/1.1" {200 + 300 * (index % 5 == 4)} OK')
        lines.append(f"(APIServer pid={pid}) INFO 01-24 05:4{index % 10}:1{index % 7} "
                     f"[loggers.py:2{index % 2}9] Engine 000: Avg prompt throughput: "
                     f"{index}.5 tokens/s, Running: {index % 9} reqs\r")
    tokenizer = Tokenizer(quick=True)
    for number, text in enumerate(lines, 1):
        raw = text.encode("utf-8")
        assert tokenizer.parse(number, raw) == _alone(raw, number), text
    assert tokenizer.quick_read > len(lines) // 3


def _flat(items: list[LogLine | LineRun | RecordRun]) -> list[LogLine]:
    lines: list[LogLine] = []
    for item in items:
        if isinstance(item, LineRun):
            lines += item.lines()
        elif isinstance(item, RecordRun):
            lines += item.lines()
        else:
            lines.append(item)
    return lines


def _items(data: bytes, quick: bool) -> tuple[list[LogLine], Tokenizer]:
    tokenizer = Tokenizer(quick=quick)
    items = [item for block in _blocks(data) for item in tokenizer.feed_runs(block)]
    return _flat(items), tokenizer


def _blocks(data: bytes, size: int = 1 << 20) -> list[bytes]:
    blocks, start = [], 0
    while start < len(data):
        end = data.find(b"\n", start + size)
        end = len(data) if end < 0 else end + 1
        blocks.append(data[start:end])
        start = end
    return blocks


@pytest.mark.parametrize("mix", MIXES)
def test_quick_reading_gives_every_mix_s_lines(mix: str, mix_dir: str) -> None:
    """The lines a tokenizer gives (runs and records unrolled) are the same read quickly or not;
    only how they are grouped may differ (a line read quickly does not keep its head)."""
    path, _ = mix_log(mix, 20_000, mix_dir)
    data = path.read_bytes()
    quick, tokenizer = _items(data, True)
    assert quick == _items(data, False)[0]
    if mix == "errors":  # its answers and metrics lines, sampled around every rejected request
        assert tokenizer.quick_read > 1000


@pytest.mark.parametrize("mix", ["errors", "healthy", "restart", "debug"])
def test_quick_reading_leaves_the_report_as_it_was(mix: str, mix_dir: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = mix_log(mix, 20_000, mix_dir)
    quick = report_to_dict(explain(str(path)))
    monkeypatch.setattr(scan, "QUICK", False)
    assert report_to_dict(explain(str(path))) == quick


@pytest.mark.parametrize("template", [
    "(APIServer pid=7) INFO 01-24 05:42:1{i} [x.py:2] Error code: {code} - {{'message': 'x'}}",
    "Error code: {code} - {{'message': 'x'}}\r",
])
def test_a_body_a_digit_sighted_terminal_takes_is_read_as_lark_reads_it(template: str) -> None:
    """`Error code: 4xx - ...` is a plain line and `Error code: 5xx - ...`, of the same shape, an
    exception's repr: the quick reading learned from the first asks every body (as the memo
    does) and leaves the second to the parser."""
    tokenizer = Tokenizer(quick=True)
    codes = [400, 401, 402, 403, 404, 502, 405, 503] * 4
    for number, code in enumerate(codes, 1):
        raw = template.format(i=number % 10, code=code).encode()
        assert tokenizer.parse(number, raw) == _alone(raw, number)
    assert tokenizer.quick_read >= 2
