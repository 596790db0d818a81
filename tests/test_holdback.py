"""Holding activity lines back from the assembler around copies of a request's error
(logsleuth/holdback.py) changes no event, and the assembler's answer that a record will fold
(`Assembler.copy_folds`) is what feeding it then does.

Generated: servers that answer (`200`), log their engine's stats, reject requests with copies of
one error whose numbers change (and near-copies: another exception, another shape, numbers that
read otherwise), fail answers in 5xx streaks, leave ERROR records waiting for a traceback, start
again, and processes that appear mid-way; their lines interleave."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.activity import ActivityFold
from logsleuth.assemble import Assembler
from logsleuth.facts import FactCollector
from logsleuth.holdback import HoldBack
from logsleuth.knowledge import default_causality
from logsleuth.model import Event, LineRun, LogLine, RecordRun
from logsleuth.pipeline import assemble_folded, build_report
from logsleuth.read import open_input
from logsleuth.recur import Recurrences
from logsleuth.render.json import report_to_dict
from logsleuth.runfold import RunFold
from logsleuth.tokenize import TokenizeStats, tokenize_runs
from mix_logs import MIXES, mix_log

_Item = LogLine | LineRun | RecordRun

_MESSAGES = (
    "This model's maximum context length is 4096 tokens. However, you requested {n} tokens "
    "({m} in the messages, 559 in the completion). Please reduce the length.",
    "This model's maximum context length is 4096 tokens. However, you requested {n} tokens.",
    "Sampling parameter top_k={n} is out of range at offset {d}x{m:x}",
)
_TYPES = ("ValueError", "ValueError", "ValueError", "TypeError")


def _record(pid: int, second: int, message: str, exception: str, frames: int) -> list[str]:
    head = f"(APIServer pid={pid}) ERROR 01-01 00:{second // 60 % 60:02d}:{second % 60:02d} " \
           "[serving.py:296] "
    lines = [head + "Error in preprocessing prompt inputs",
             head + "Traceback (most recent call last):"]
    for index in range(frames):
        lines += [head + f'  File "/vllm/entrypoints/openai/serving_engine.py", line '
                         f'{1016 + index}, in _validate_input',
                  head + "    raise ValueError("]
    return lines + [head + f"{exception}: {message}"]


def _access(pid: int, port: int, answer: str) -> str:
    return f'(APIServer pid={pid}) INFO:     127.0.0.1:{port} - "POST /v1/chat/completions ' \
           f'HTTP/1.1" {answer}'


def _stats(pid: int, second: int, busy: int) -> str:
    return f"(APIServer pid={pid}) INFO 01-01 00:00:{second % 60:02d} [loggers.py:259] Engine " \
           f"000: Avg prompt throughput: {busy}.0 tokens/s, Avg generation throughput: " \
           f"{busy}.5 tokens/s, Running: {busy} reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%"


def _start(pid: int) -> list[str]:
    return [f"(APIServer pid={pid}) INFO 01-01 00:00:00 [api_server.py:1] vLLM API server "
            "version 0.9.0",
            f"(APIServer pid={pid}) INFO:     Application startup complete."]


# a step: (what, a number, another number, a server)
_STEP = st.tuples(st.sampled_from(["copy"] * 6 + ["answers"] * 4 + ["stats"] * 2
                                  + ["near", "hex", "hex", "fail", "waiting", "start", "new",
                                     "interleave"]),
                  st.integers(1, 90000), st.integers(0, 5), st.sampled_from([0, 0, 0, 1, 2]))


def _log(steps: list[tuple[str, int, int, int]], servers: int) -> bytes:
    pids = [10 + p for p in range(servers)]
    lines: list[str] = []
    for pid in pids:
        lines += _start(pid)
    for index, (what, number, small, server) in enumerate(steps):
        pid = pids[server % len(pids)]
        if what in ("copy", "near", "hex"):
            variant = {"copy": 1 if small == 5 else 0, "near": 1 + number % 2, "hex": 2}[what]
            message = _MESSAGES[variant].format(n=number, m=number // 3, d=small % 2)
            exception = _TYPES[3 if what == "near" and small % 2 else 0]
            lines += _record(pid, index, message, exception, 1 + small % 3 if what == "near" else 2)
            if small < 4:  # (mostly) the rejection's answer right after
                lines.append(_access(pid, 40000 + number % 999, "400 Bad Request"))
        elif what == "answers":
            lines += [_access(pid, 50000 + i, "200 OK") for i in range(small + 1)]
        elif what == "stats":
            lines.append(_stats(pid, index, small * (number % 2)))
        elif what == "fail":
            lines += [_access(pid, 60000 + i, "500 Internal Server Error") for i in range(small)]
        elif what == "waiting":  # an ERROR record that may head a traceback
            lines.append(f"(APIServer pid={pid}) ERROR 01-01 00:00:{index % 60:02d} "
                         "[engine.py:99] Request failed")
        elif what == "start":
            lines += _start(pid)
        elif what == "new":
            pids.append(pids[-1] + 1)
            lines += _start(pids[-1])
        else:  # another process's line between a record and its answer
            lines += _record(pid, index, _MESSAGES[0].format(n=number, m=small), "ValueError", 2)
            lines.append(_stats(pids[(server + 1) % len(pids)], index, small))
            lines.append(_access(pid, 40000, "400 Bad Request"))
    return ("\n".join(lines) + "\n").encode()


def _items(data: bytes) -> list[_Item]:
    return list(tokenize_runs(open_input(io.BytesIO(data)).blocks(), TokenizeStats()))


def _read(items: list[_Item], hold: bool) -> tuple[list[Event], Assembler]:
    recurrences = Recurrences(default_causality())
    assembler = Assembler(recurrences=recurrences)
    runs = RunFold(default_causality(), recurrences.counted, every=8)  # (folds often)
    events = assemble_folded(items, assembler, runs, TokenizeStats(), hold=hold)
    return events, assembler


def _answers(items: list[_Item]) -> list[tuple[bool, bool]]:
    """For each record that its next line ends, with nothing being assembled before it and its
    change known: (copy_folds before feeding it, whether feeding it and that line folded it).
    Every other record: copy_folds must say no."""
    assembler = Assembler(recurrences=Recurrences(default_causality()))
    recurrences = assembler.recurrences
    assert recurrences is not None
    out: list[tuple[bool, bool]] = []
    index = 0
    while index < len(items):
        item = items[index]
        index += 1
        if isinstance(item, LineRun):
            for _ in assembler.feed_run(item):
                pass
            continue
        if isinstance(item, LogLine):
            assembler.feed(item)
            continue
        steady = assembler.pending_from() is None and assembler.knows(item)
        said = assembler.copy_folds(item)
        after = items[index] if index < len(items) else None
        ended = isinstance(after, LogLine) and assembler.ended_by(item, after)
        folded = recurrences.folded
        for _ in assembler.feed_record(item):
            pass
        if steady and ended:
            assert isinstance(after, LogLine)
            assembler.feed(after)
            index += 1
            out.append((said, recurrences.folded == folded + 1))
        else:
            assert not (said and ended), "a record said to fold outside what is answered"
    return out


_SERVERS = st.integers(1, 3)


@settings(max_examples=80, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=40), _SERVERS)
def test_copy_folds_is_what_feeding_does(steps: list[tuple[str, int, int, int]],
                                         servers: int) -> None:
    for said, folded in _answers(_items(_log(steps, servers))):
        assert said == folded


def test_copy_folds_says_both() -> None:
    """Copies a start of vLLM, a new process or numbers that read otherwise (`0x..` then
    `1x..`) keep apart are said not to fold, in the domain answered, and the copies before
    them are said to fold (the test above can fail either way)."""
    answers = [("answers", 1, 2, 0)]
    for what, between in (("copy", ("start", 1, 0, 0)), ("copy", ("new", 1, 0, 0)),
                          ("hex", ("hex", 31, 1, 0))):  # (`0x..`, then `1x..`)
        copies = [(what, 5000 + 7 * i, 0, 0) for i in range(4)]
        steps = [*copies, *answers, between, *answers, (what, 9000, 0, 0), *answers]
        said = _answers(_items(_log(steps, 1)))
        assert (False, False) in said[2:], between
        assert said[:2] == [(True, True)] * 2


def test_copy_folds_answers_copies() -> None:
    """A server rejecting requests: from the third copy on (the second learns the replay in
    the state a first copy leaves), every copy is answered, and folds."""
    steps = [("copy", 5000 + 7 * i, 0, 0) for i in range(12)]
    steps = [step for pair in zip(steps, [("answers", 1, 2, 0)] * 12) for step in pair]
    answers = _answers(_items(_log(steps, 1)))
    assert answers and all(said and folded for said, folded in answers)
    assert len(answers) >= 9


def _same(items: list[_Item]) -> None:
    held, _ = _read(items, True)
    plain, _ = _read(items, False)
    assert held == plain


@settings(max_examples=60, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=40), _SERVERS, st.floats(0.05, 1.0))
def test_holding_back_changes_no_event(steps: list[tuple[str, int, int, int]], servers: int,
                                       kept: float) -> None:
    """Events equal with and without the hold-back (the log cut anywhere)."""
    data = _log(steps, servers)
    lines = data.split(b"\n")
    _same(_items(b"\n".join(lines[:max(1, round(len(lines) * kept))])))


@pytest.mark.parametrize("between", ["near", "hex", "fail", "waiting", "start", "new",
                                     "interleave", "stats"])
def test_holding_back_keeps_the_stretches_around_a_change(between: str) -> None:
    """A server answering and rejecting copies steadily, where one step of another kind
    comes: an error that does not fold (its lines and in-flight window are marks), a 5xx
    streak, a start. The events are equal, and lines were held back and copies fed past them."""
    steps: list[tuple[str, int, int, int]] = []
    for index in range(20):
        steps += [("copy", 5000 + 7 * index, 0, 0), ("answers", 1, 5, 0), ("stats", 3, 2, 0),
                  ("answers", 1, 5, 0)]
    steps.insert(41, (between, 2, 3, 0))
    items = _items(_log(steps, 1))
    _same(items)
    recurrences = Recurrences(default_causality())
    assembler = Assembler(recurrences=recurrences)
    held = HoldBack(assembler, ActivityFold())
    held.feed(items)
    held.finish()
    assert held.held > 25 and held.copies > 5


def _report(data: bytes | Any, hold: bool) -> str:
    source = open_input(data) if not isinstance(data, bytes) else open_input(io.BytesIO(data))
    stats, facts = TokenizeStats(), FactCollector()
    recurrences = Recurrences(default_causality())
    assembler = Assembler(recurrences=recurrences)
    runs = RunFold(default_causality(), recurrences.counted)
    events = assemble_folded(facts.watch(tokenize_runs(source.blocks(), stats)), assembler, runs,
                             stats, hold=hold)
    report = build_report("log", events, stats, facts, None, tuple(assembler.notices()),
                          folded=runs.finish())
    return json.dumps(report_to_dict(report))


@pytest.mark.parametrize("mix", MIXES)
def test_holding_back_changes_no_mix_report(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 20_000, mix_dir)
    _same(list(tokenize_runs(open_input(path).blocks(), TokenizeStats())))
    assert _report(path, True) == _report(path, False)
