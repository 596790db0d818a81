"""Folding the copies of a request's error into counts (logsleuth/recur.py) changes no report:
the same JSON as reading with every event kept (and no per-process cap), on every corpus log,
the tuning logs reference_logs.py chooses and every benchmark mix; and a log with N copies of a
survived error reports as the log with one, apart from the counts."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_judge import log_id
from logsleuth.assemble import Assembler
from logsleuth.facts import FactCollector
from logsleuth.knowledge import default_causality
from logsleuth.model import ErrorEvent, LineRun, LogLine, RecordRun, Report
from logsleuth.pipeline import assemble_folded, build_report
from logsleuth.read import open_input
from logsleuth.recur import Recurrences
from logsleuth.render.json import report_to_dict
from logsleuth.tokenize import TokenizeStats, tokenize_runs
from match_memo import matched_once  # noqa: F401 (the fixture)
from mix_logs import MIXES, mix_log
from reference_logs import reference_logs

# matching done once for a log's two readings when they hand it the same inputs (match_memo.py)
pytestmark = pytest.mark.usefixtures("matched_once")

UNCAPPED = 10**9
# the one sentence that counts survived errors: a folded error counts its copies printed after
# the root cause too (the unfolded reading counts those before it only)
SURVIVED = re.compile(r"^(\d+) earlier error\(s\) were survived")


Tokens = tuple[list[LogLine | LineRun | RecordRun], TokenizeStats, FactCollector]


def _tokens(data: bytes | Path) -> Tokens:
    """A log's lines as the tokenizer hands them to the assembler, with its counts and facts.

    Both readings of a comparison assemble this one list: folding is the assembler's
    (recur.py), and what the tokenizer and the fact collector give is the same for the two (they
    see the same lines; the LogLines and runs are frozen and build_report only reads the stats
    and facts), so tokenizing the log again for the second reading compared nothing."""
    source = open_input(data) if isinstance(data, Path) else open_input(io.BytesIO(data))
    stats, facts = TokenizeStats(), FactCollector()
    return list(facts.watch(tokenize_runs(source.blocks(), stats))), stats, facts


def _read(tokens: Tokens, fold: bool) -> tuple[Report, list[ErrorEvent]]:
    """(report, error events) of a log read with or without folding, every event kept."""
    lines, stats, facts = tokens
    recurrences = Recurrences(default_causality()) if fold else None
    assembler = Assembler(max_events_per_process=UNCAPPED, recurrences=recurrences)
    events = assemble_folded(iter(lines), assembler)
    report = build_report("log", events, stats, facts, None, tuple(assembler.notices()))
    errors = [event for event in events if isinstance(event, ErrorEvent)]
    assert recurrences is None or sum(e.occurrences - 1 for e in errors) == recurrences.folded
    return report, errors


def _comparable(report: Report) -> dict[str, Any]:
    data = report_to_dict(report)
    data["reasons"] = [SURVIVED.sub("N", reason) for reason in data["reasons"]]
    return data


def _occurrences(events: tuple[ErrorEvent, ...] | list[ErrorEvent]) -> int:
    return sum(event.occurrences for event in events)


def _assert_same(data: bytes | Path | Tokens,
                 read: tuple[Report, list[ErrorEvent]] | None = None) -> int:
    """Compare the readings; the copies folded. `read`: the folded reading of these tokens,
    when the caller has made it already."""
    tokens = data if isinstance(data, tuple) else _tokens(data)
    folded, kept = read if read is not None else _read(tokens, True)
    plain, every = _read(tokens, False)
    assert _comparable(folded) == _comparable(plain)
    assert json.dumps(report_to_dict(folded)) == json.dumps(report_to_dict(plain)) \
        or any(SURVIVED.match(reason) for reason in folded.reasons)
    # every copy is counted in its example, and the examples are events of the plain reading
    assert _occurrences(kept) == len(every)
    assert {e.id for e in kept} <= {e.id for e in every}
    # the run explained: every copy folded there is a survived error of the plain reading
    # (copies folded into an example that stands for the root cause too: a later copy, not
    # survived, is the failure, and the earliest copy names it)
    root = folded.root_cause
    assert _occurrences(folded.survived) + (root.occurrences - 1 if root else 0) \
        == len(plain.survived)
    return len(every) - len(kept)


# every corpus log and the tuning logs reference_logs.py chooses (every line shape the
# tuning set holds; LOGSLEUTH_REFERENCE=all: every tuning log)
@pytest.mark.parametrize("log", reference_logs(), ids=log_id)
def test_folding_changes_no_corpus_report(log: Path) -> None:
    _assert_same(log)


@pytest.mark.parametrize("mix", MIXES)
def test_folding_changes_no_mix_report(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 20_000, mix_dir)
    copies = _assert_same(path)
    if mix == "errors":
        assert copies > 500  # a rejected request about every fourth: most are copies


# ---- generated: a server answering, with copies of request errors between its answers ---------

_HEAD = "(APIServer pid=7) "
_START = [
    _HEAD + "INFO 01-01 00:00:00 [utils.py:254] non-default args: {'model_tag': 'x'}",
    _HEAD + "INFO:     Application startup complete.",
]


def _request_error(tokens: int, site: str, chained: bool) -> list[str]:
    head = f"{_HEAD}ERROR 01-01 00:00:{tokens % 60:02d} [{site}] "
    lines = [
        head + "Error in preprocessing prompt inputs",
        head + "Traceback (most recent call last):",
        head + '  File "/vllm/entrypoints/openai/serving_chat.py", line 203, in create_chat_completion',
        head + "    engine_prompt = await self._preprocess(request)",
        head + '  File "/vllm/entrypoints/openai/serving_engine.py", line 1016, in _validate_input',
        head + "    raise ValueError(",
        head + f"ValueError: This model's maximum context length is 4096 tokens. However, you "
               f"requested {tokens} tokens. Please reduce the length of the messages.",
    ]
    if chained:  # raised again from it: the chain folds as one
        lines += [
            head,
            head + "The above exception was the direct cause of the following exception:",
            head,
            head + "Traceback (most recent call last):",
            head + '  File "/vllm/entrypoints/openai/serving_chat.py", line 210, in '
                   "create_chat_completion",
            head + "    raise RequestError(str(e)) from e",
            head + f"vllm.entrypoints.openai.RequestError: This model's maximum context length "
                   f"is 4096 tokens. However, you requested {tokens} tokens.",
        ]
    return lines + [_HEAD + f'INFO:     127.0.0.1:{40000 + tokens % 999} - "POST '
                            '/v1/chat/completions HTTP/1.1" 400 Bad Request']


def _answers(count: int) -> list[str]:
    return [_HEAD + f'INFO:     127.0.0.1:{50000 + i} - "POST /v1/chat/completions HTTP/1.1" '
            "200 OK" for i in range(count)]


_FILLER = _HEAD + "INFO 01-01 00:00:00 [logger.py:1] nothing to say"
_CRASH = [
    "(EngineCore_DP0 pid=9) ERROR 01-01 00:01:00 [core.py:946] EngineCore encountered a fatal "
    "error.",
    "(EngineCore_DP0 pid=9) ERROR 01-01 00:01:00 [core.py:946] Traceback (most recent call last):",
    '(EngineCore_DP0 pid=9) ERROR 01-01 00:01:00 [core.py:946]   File "/vllm/v1/engine/core.py", '
    "line 937, in run_engine_core",
    "(EngineCore_DP0 pid=9) ERROR 01-01 00:01:00 [core.py:946] RuntimeError: CUDA error: an "
    "illegal memory access was encountered",
]

_STEP = st.tuples(st.integers(4097, 90000), st.integers(0, 6))
_SITE = st.sampled_from(["serving_chat.py:222", "serving.py:296"])


def _log(steps: list[tuple[int, int]], site: str, chained: bool, crash: bool, repeated: bool
         ) -> tuple[bytes, int]:
    """A server's log: for each step a request error (its copies when `repeated`, else filler
    lines in their place, so that every other line keeps its number) and some answers; then
    the engine's crash or not. Also the number of request errors printed."""
    lines = list(_START)
    printed = 0
    for index, (tokens, answers) in enumerate(steps):
        error = _request_error(tokens, site, chained)
        if repeated or index == 0:
            lines += error
            printed += 1
        else:
            lines += [_FILLER] * len(error)
        lines += _answers(answers + 1)
    if crash:
        lines += _CRASH
    return ("\n".join(lines) + "\n").encode(), printed


@settings(max_examples=40, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=12), _SITE, st.booleans(), st.booleans())
def test_copies_of_a_survived_error_report_as_one(steps: list[tuple[int, int]], site: str,
                                                  chained: bool, crash: bool) -> None:
    many, printed = _log(steps, site, chained, crash, repeated=True)
    one, _ = _log(steps, site, chained, crash, repeated=False)
    tokens = _tokens(many)
    folded, kept = _read(tokens, True)
    single, _ = _read(_tokens(one), True)
    if chained:  # an exception raised from a copy keeps it apart (recur.py): nothing folds
        assert len(kept) == _occurrences(kept)
    else:
        assert _occurrences(kept) - len(kept) == printed - 1
        assert _comparable(folded) == _comparable(single)
        assert [e.occurrences for e in folded.survived] == [printed]
        assert [e.occurrences for e in single.survived] == [1]
    # and as the reading with every copy kept, apart from the counts (the folded reading is
    # the one above: the same tokens read the same way, not made a second time)
    _assert_same(tokens, (folded, kept))


# ---- generated: several servers, their copies interleaved, other numbers, the log cut ---------

# Message texts of one failure that differ only in their numbers: the context length check
# (vllm/entrypoints/openai/serving_engine.py), and a constructed one whose numbers sometimes
# read as hex (`0x1f`) and sometimes not (`1x1f`), the one mask that reads a digit
_MESSAGES = (
    "This model's maximum context length is 4096 tokens. However, you requested {n} tokens. "
    "Please reduce the length of the messages.",
    "Sampling parameter top_k={n} is out of range at offset {d}x{n:x}",
)
_RECORD = st.tuples(st.integers(0, 2), st.sampled_from(range(len(_MESSAGES))),
                    st.integers(1, 90000), st.integers(0, 2), st.booleans(), st.integers(0, 3))


def _server_record(pid: int, message: str, chained: bool, answers: int) -> list[str]:
    """One rejected request as a server with `pid` logs it, and some answers after it."""
    head = f"(APIServer pid={pid}) ERROR 01-01 00:00:01 [serving.py:296] "
    lines = [head + "Error in preprocessing prompt inputs",
             head + "Traceback (most recent call last):",
             head + '  File "/vllm/entrypoints/openai/serving_engine.py", line 1016, in '
                    "_validate_input",
             head + "    raise ValueError(",
             head + f"ValueError: {message}"]
    if chained:
        lines += [head, head + "The above exception was the direct cause of the following "
                               "exception:", head,
                  head + "Traceback (most recent call last):",
                  head + '  File "/vllm/entrypoints/openai/serving_chat.py", line 210, in '
                         "create_chat_completion",
                  head + "    raise RequestError(str(e)) from e",
                  head + f"vllm.entrypoints.openai.RequestError: {message}"]
    access = f'(APIServer pid={pid}) INFO:     127.0.0.1:{pid} - "POST /v1/chat/completions ' \
             'HTTP/1.1" '
    return lines + [access + "400 Bad Request"] + [access + "200 OK"] * answers


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.lists(_RECORD, min_size=1, max_size=14), st.randoms(),
       st.booleans(), st.floats(0.05, 1.0))
def test_folding_changes_no_report_of_interleaved_servers(
        servers: int, records: list[tuple[int, int, int, int, bool, int]],
        rng: Any, crash: bool, kept: float) -> None:
    """Servers (one to three processes) log request errors whose messages differ in their
    numbers; their lines interleave as processes writing to one file do (records, and lines
    within records); the engine may crash; the log may be cut anywhere. Folding changes no
    report."""
    streams: list[list[str]] = [[_HEAD.replace("7", str(10 + p)) + line.removeprefix(_HEAD)
                                 for line in _START] for p in range(servers)]
    for server, message, number, digit, chained, answers in records:
        text = _MESSAGES[message].format(n=number, d=digit)
        streams[server % servers] += _server_record(10 + server % servers, text, chained,
                                                    answers)
    lines: list[str] = []
    while any(streams):  # each process's own order kept, the processes' mixed
        stream = rng.choice([s for s in streams if s])
        lines.append(stream.pop(0))
    if crash:
        lines += _CRASH
    lines = lines[:max(1, round(len(lines) * kept))]
    _assert_same(("\n".join(lines) + "\n").encode())
