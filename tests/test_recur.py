"""Folding the copies of a request's error into counts (logsleuth/recur.py) changes no report:
the same JSON as reading with every event kept (and no per-process cap), on every corpus and
tuning log and every benchmark mix; and a log with N copies of a survived error reports as the
log with one, apart from the counts."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_judge import iter_logs
from logsleuth.assemble import Assembler
from logsleuth.facts import FactCollector
from logsleuth.knowledge import default_causality
from logsleuth.model import ErrorEvent, Report
from logsleuth.pipeline import assemble_folded, build_report
from logsleuth.read import open_input
from logsleuth.recur import Recurrences
from logsleuth.render.json import report_to_dict
from logsleuth.tokenize import TokenizeStats, tokenize_runs
from mix_logs import MIXES, mix_log

TUNING = Path(__file__).parent / "fixtures" / "tuning"
UNCAPPED = 10**9
# the one sentence that counts survived errors: a folded error counts its copies printed after
# the root cause too (the unfolded reading counts those before it only)
SURVIVED = re.compile(r"^(\d+) earlier error\(s\) were survived")


def _read(data: bytes | Path, fold: bool) -> tuple[Report, list[ErrorEvent]]:
    """(report, error events) of a log read with or without folding, every event kept."""
    source = open_input(data) if isinstance(data, Path) else open_input(io.BytesIO(data))
    stats, facts = TokenizeStats(), FactCollector()
    recurrences = Recurrences(default_causality()) if fold else None
    assembler = Assembler(max_events_per_process=UNCAPPED, recurrences=recurrences)
    events = assemble_folded(facts.watch(tokenize_runs(source.blocks(), stats)), assembler)
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


def _assert_same(data: bytes | Path) -> int:
    """Compare the readings; the copies folded."""
    folded, kept = _read(data, True)
    plain, every = _read(data, False)
    assert _comparable(folded) == _comparable(plain)
    assert json.dumps(report_to_dict(folded)) == json.dumps(report_to_dict(plain)) \
        or any(SURVIVED.match(reason) for reason in folded.reasons)
    # every copy is counted in its example, and the examples are events of the plain reading
    assert _occurrences(kept) == len(every)
    assert {e.id for e in kept} <= {e.id for e in every}
    # the run explained: every copy folded there is a survived error of the plain reading
    assert _occurrences(folded.survived) == len(plain.survived)
    return len(every) - len(kept)


@pytest.mark.parametrize("log", [*iter_logs(), *sorted(TUNING.glob("*/*/log.txt"))],
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
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


def _request_error(tokens: int, site: str) -> list[str]:
    head = f"{_HEAD}ERROR 01-01 00:00:{tokens % 60:02d} [{site}] "
    return [
        head + "Error in preprocessing prompt inputs",
        head + "Traceback (most recent call last):",
        head + '  File "/vllm/entrypoints/openai/serving_chat.py", line 203, in create_chat_completion',
        head + "    engine_prompt = await self._preprocess(request)",
        head + '  File "/vllm/entrypoints/openai/serving_engine.py", line 1016, in _validate_input',
        head + "    raise ValueError(",
        head + f"ValueError: This model's maximum context length is 4096 tokens. However, you "
               f"requested {tokens} tokens. Please reduce the length of the messages.",
        _HEAD + f'INFO:     127.0.0.1:{40000 + tokens % 999} - "POST /v1/chat/completions '
                'HTTP/1.1" 400 Bad Request',
    ]


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


def _log(steps: list[tuple[int, int]], site: str, crash: bool, repeated: bool
         ) -> tuple[bytes, int]:
    """A server's log: for each step a request error (its copies when `repeated`, else filler
    lines in their place, so that every other line keeps its number) and some answers; then
    the engine's crash or not. Also the number of request errors printed."""
    lines = list(_START)
    printed = 0
    for index, (tokens, answers) in enumerate(steps):
        error = _request_error(tokens, site)
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
@given(st.lists(_STEP, min_size=1, max_size=12), _SITE, st.booleans())
def test_copies_of_a_survived_error_report_as_one(steps: list[tuple[int, int]], site: str,
                                                  crash: bool) -> None:
    many, printed = _log(steps, site, crash, repeated=True)
    one, _ = _log(steps, site, crash, repeated=False)
    folded, kept = _read(many, True)
    single, _ = _read(one, True)
    assert _occurrences(kept) - len(kept) == printed - 1
    assert _comparable(folded) == _comparable(single)
    assert [e.occurrences for e in folded.survived] == [printed]
    assert [e.occurrences for e in single.survived] == [1]
    # and as the reading with every copy kept, apart from the counts
    _assert_same(many)
