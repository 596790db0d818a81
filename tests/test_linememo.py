"""A line read by its shape's plan (logsleuth/tokenize/linememo.py) is what parse_split reads:
on every line of the corpus, of the tuning logs reference_logs.py chooses and of the mixes, and
on copies of each with other digits (read after the line twice, so that its shape's plan is made
and then used), and on generated lines whose fields move with their digits."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_judge import log_id
from digits import redigit
from logsleuth.tokenize import clean
from logsleuth.tokenize.grammar import blind_body, parse_split
from logsleuth.tokenize.linememo import LineMemo
from logsleuth.tokenize.shape import shape_key
from mix_logs import MIXES, mix_log
from reference_logs import reference_logs


def _same(memo: LineMemo, text: str, number: int) -> None:
    assert memo.parse(text, number) == parse_split(text, number), text


def _check(memo: LineMemo, text: str, rng: random.Random) -> None:
    for number in (1, 2, 3):  # seen, planned, read by the plan
        _same(memo, text, number)
    for number in (4, 5, 6):
        _same(memo, redigit(text, rng), number)


def _lines(data: bytes, limit: int = 1 << 16) -> list[str]:
    return [clean(raw[:limit].decode("utf-8", "replace"))
            for raw in dict.fromkeys(data.split(b"\n"))]


# every corpus log and the tuning logs reference_logs.py chooses (every line shape the
# tuning set holds; LOGSLEUTH_REFERENCE=all: every tuning log)
@pytest.mark.parametrize("log", reference_logs(), ids=log_id)
def test_plans_read_like_parse_split_on_real_lines(log: Path) -> None:
    memo, rng = LineMemo(), random.Random(log.name)
    for text in _lines(log.read_bytes()):
        _check(memo, text, rng)


@pytest.mark.parametrize("mix", MIXES)
def test_plans_read_like_parse_split_on_mix_lines(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    memo, rng = LineMemo(), random.Random(mix)
    for text in _lines(path.read_bytes(), 4096):
        _check(memo, text, rng)


_HEADS = ["(APIServer pid={n}) ERROR 01-{n2} {n2}:52:{n2} [serving.py:{n}] ",
          "(Worker_TP{d} pid={n}) INFO 01-24 01:52:{n2} [multiproc_executor.py:{n}] ",
          "(EngineCore_DP{d} pid={n}) ", "[rank{d}]: ", "E0{n2}4 01:52:19.{n} {n} x.cc:{n}] ",
          "2026-01-{n2} 01:52:19,{n} - vllm - ERROR - ", "ker_TP{d} pid={n}) WARNING 01-24 "
          "01:52:{n2} [x.py:{n}] ", "(VllmWorker rank={d} pid={n}, ip=10.0.{d}.{n}) ", ""]
_BODIES = ["ValueError: This model's maximum context length is {n} tokens, you asked {n}",
           'INFO:     127.0.0.1:{n} - "POST /v1/chat/completions HTTP/1.1" {n3} OK',
           '  File "/v/x{d}.py", line {n}, in f{d}', "Engine {n}: Avg prompt throughput: {n}.{d} "
           "tokens/s, Running: {d} reqs", "Error in preprocessing prompt inputs",
           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {d}.{n2} GiB",
           "NCCL error: unhandled cuda error {n}", "Error code: {n3} - {{'error': 'x{d}'}}",
           '{{"object": "error", "code": {n3}, "message": "m{d}"}}', "[Errno {n2}] Address in use",
           "Loading weights took {d}.{n2} seconds", "collect{d}: error: ld returned {d} exit"]


@st.composite
def _line(draw: st.DrawFn) -> str:
    head, body = draw(st.sampled_from(_HEADS)), draw(st.sampled_from(_BODIES))
    numbers = st.integers(0, 10**7).map(str)
    template = head + body
    values = {"n": draw(numbers), "n2": draw(st.integers(0, 99).map(lambda v: f"{v:02d}")),
              "n3": draw(st.integers(100, 599).map(str)), "d": draw(st.integers(0, 9).map(str))}
    return template.format(**values)


@given(st.lists(_line(), min_size=1, max_size=20), st.integers(0, 2**16))
def test_plans_read_like_parse_split_on_generated_lines(lines: list[str], seed: int) -> None:
    """Lines of a few shapes, each line followed by copies with other digits (a pid, a status
    code, a time): each shape is planned from its first two lines and read by the plan after."""
    memo, rng = LineMemo(seed=seed), random.Random(seed)
    copies = [redigit(text, rng) for text in lines for _ in range(4)]
    for number, text in enumerate(lines + copies + lines, 1):
        _same(memo, text, number)


def test_numbers_with_a_leading_zero_read_their_own_value() -> None:
    """A pid written `07` is 7, and `17` of the same shape is 17: a plan must not read the
    digit after a zero as the whole number."""
    memo = LineMemo()
    texts = [f"(APIServer pid=0{i}) ERROR 01-24 01:52:1{i} [x.py:1] up" for i in range(1, 9)]
    texts += [f"(APIServer pid={i}{i}) ERROR 01-24 01:52:1{i} [x.py:1] up" for i in range(1, 9)]
    for number, text in enumerate(texts + texts[::-1], 1):
        _same(memo, text, number)


def test_memo_is_bounded() -> None:
    memo = LineMemo(bound=4)
    for index in range(50):
        _same(memo, "x" * index + " 12", index)
    assert len(memo._plans._decisions) <= 4 and len(memo._seen._decisions) <= 4


@given(st.lists(st.tuples(st.sampled_from(_HEADS), st.sampled_from(_BODIES)), min_size=1,
                max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["1", "7", "17", "71", "10"]),
                          st.sampled_from(["1", "7", "17", "71", "10"])),
                min_size=1, max_size=60))
def test_a_head_read_again_is_the_head_of_its_text(templates: list[tuple[str, str]],
                                                   picks: list[tuple[int, str, str]]) -> None:
    """A plan whose head is read from the head's text alone hands a line with the last line's
    head text the last line's head: lines of a few shapes in any order, their numbers from a
    small pool, so that heads repeat, a head's number also stands in the body (where a plan
    must not read it from) and the shapes' lines interleave."""
    memo = LineMemo()
    for number, (which, one, two) in enumerate(picks, 1):
        head, body = templates[which % len(templates)]
        values = {"n": one, "n2": two.rjust(2, "0")[-2:], "n3": "4" + two.rjust(2, "0")[-2:],
                  "d": one[-1]}
        _same(memo, (head + body).format(**values), number)


def test_an_access_lines_head_is_read_once() -> None:
    """The head of an access line holds its process only: a plan reads it from the head's text
    (and lines of one process share it), which the test above then checks."""
    memo = LineMemo()
    texts = [f'(APIServer pid=7) INFO:     127.0.0.1:{port} - "POST /v1/completions HTTP/1.1" '
             "200 OK" for port in range(40000, 40010)]
    for number, text in enumerate(texts, 1):
        _same(memo, text, number)
    plans = [plan for plan in memo._plans._decisions.values() if plan.head is not str]
    assert plans and all(plan.own_head for plan in plans)


# Bodies without a digit that a terminal telling digits apart (systemd's exit reports, a
# level line) or Lark reads: every line of the shape has that very body, so the shape is
# planned and read by its plan; beside them bodies of the same terminals with digits (a
# restart count, an exit status), which the memo still asks of parse_split when sighted.
_JOURNAL_HEADS = ["Jan {n2} 0{d}:28:{n2} gpu-node-{n2} systemd[{n}]: ",
                  "Jan {n2} 0{d}:28:{n2} gpu-node-{n2} vllm[{n}]: (EngineCore_DP{d} pid={n}) "
                  "ERROR 01-{n2} 01:51:{n2} [core.py:{n}] ",
                  "2026-01-{n2}T01:52:19.{n}Z ", "(APIServer pid={n}) ERROR 01-{n2} {n2}:52:{n2} "
                  "[x.py:{n}] ", "[rank{d}]: ", ""]
_DIGITLESS = ["vllm.service: Failed with result 'exit-code'.", "EngineCore failed to start.",
              "vllm.service: Start operation timed out. Terminating.",
              "vllm.service: Failed with result 'oom-kill'.",
              "Some Ray subprocesses exited unexpectedly:", "Killed",
              "Segmentation fault (core dumped)", "Fatal Python error: Aborted"]
_DIGITED = ["vllm.service: Main process exited, code=exited, status={d}/FAILURE",
            "vllm.service: Scheduled restart job, restart counter is at {n}.",
            "vllm.service: Main process exited, code=killed, status={d}/KILL",
            "engine exited with code {n3}", "Error code: {n3} - {{'error': 'x{d}'}}"]


@st.composite
def _journal_line(draw: st.DrawFn) -> str:
    template = draw(st.sampled_from(_JOURNAL_HEADS)) + draw(st.sampled_from(_DIGITLESS +
                                                                            _DIGITED))
    values = {"n": draw(st.integers(0, 10**7).map(str)),
              "n2": draw(st.integers(0, 99).map(lambda v: f"{v:02d}")),
              "n3": draw(st.sampled_from(["0", "1", "137", "143", "2", "255"])),
              "d": draw(st.integers(0, 9).map(str))}
    return template.format(**values)


@settings(max_examples=30, deadline=None)
@given(st.lists(_journal_line(), min_size=1, max_size=12), st.integers(0, 2**16))
def test_plans_read_like_parse_split_on_last_words(lines: list[str], seed: int) -> None:
    memo, rng = LineMemo(seed=seed), random.Random(seed)
    copies = [redigit(text, rng) for text in lines for _ in range(3)]
    for number, text in enumerate(lines + copies + lines, 1):
        _same(memo, text, number)


def test_a_digitless_body_a_sighted_terminal_reads_is_planned() -> None:
    """Read by the plan, not parse_split, once its shape was seen twice: a crash loop prints
    these at every start (a mutant that plans only the bodies the fast path reads by shape, as
    before, leaves them unplanned)."""
    rng = random.Random(5)
    for head in _JOURNAL_HEADS[:4]:
        for body in _DIGITLESS[:3]:
            memo = LineMemo()
            text = head.format(n="41000", n2="24", n3="1", d="2") + body
            assert not blind_body(body)  # a terminal that tells digits apart could take it
            for number in (1, 2):
                _same(memo, text, number)
            other = redigit(text, rng)
            assert memo.plan_of(shape_key(other)) is not None, text
            _same(memo, other, 3)
