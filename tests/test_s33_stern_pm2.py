"""Two launchers' line prefixes (issue 10: a failing log must not read as healthy because its
launcher tagged every line; grammars/vllm.lark STERN_TAG and PM2_TAG).

1. stern, Kubernetes' multi-pod tailer: `<pod> <container> <line>`, the names coloured or not,
   with `--timestamps` the kubelet's time after them, several pods' lines interleaved.
2. `pm2 logs`: `<id>|<name>  | <line>`, the name padded, a `--time` start's stamp after the bar
   or `pm2 logs --timestamp`'s before the id.
Each must leave the line it wraps read as it reads alone (every vLLM era's record shapes, a raw
traceback), and a near miss stays text: prose that begins with a pod-like word, a message that
merely holds `|`.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import clean, parse_line
from logsleuth.tokenize.grammar import terminal_regex

SOME = settings(max_examples=30, deadline=None, derandomize=True)

# a line of each era's shapes: V0's record, V1's prefixed record, a raw traceback, a bare error
V0 = ["INFO 06-01 10:11:12 api_server.py:212] vLLM API server version 0.5.4",
      "ERROR 06-01 10:11:13 engine.py:157] Engine background task failed"]
V1 = ["INFO 06-01 10:11:12 [api_server.py:1043] vLLM API server version 0.9.1",
      "(EngineCore_DP0 pid=812) ERROR 06-01 10:11:13 [core.py:708] EngineCore failed to start."]
TRACEBACK = ["Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 699, '
             "in run_engine_core",
             "    engine_core = EngineCoreProc(*args, **kwargs)",
             "ValueError: The model's max seq len (32768) is larger than the maximum number of "
             "tokens that can be stored in KV cache (16000). Try increasing "
             "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
LINES = [*V0, *V1, *TRACEBACK]

pods = st.builds(lambda name, rs, pod, ordinal, kind: f"{name}-{rs}-{pod}" if kind else f"{name}-{ordinal}",
                 st.sampled_from(["vllm", "vllm-serve", "llm-qwen", "inference.server"]),
                 st.from_regex(r"[bcdfghjklmnpqrstvwxz2456789]{8,10}", fullmatch=True),
                 st.from_regex(r"[bcdfghjklmnpqrstvwxz2456789]{5}", fullmatch=True),
                 st.integers(0, 63), st.booleans())
containers = st.sampled_from(["vllm", "server", "vllm-openai", "model", "main"])
colours = st.sampled_from([("", ""), ("\x1b[32m", "\x1b[0m"), ("\x1b[1;36m", "\x1b[0m")])
kube_times = st.sampled_from(["", "2025-06-01T10:11:12.123456789Z ", "2025-06-01T10:11:12+00:00 "])
sterns = st.builds(lambda pod, box, c1, c2, t: f"{c1[0]}{pod}{c1[1]} {c2[0]}{box}{c2[1]} {t}",
                   pods, containers, colours, colours, kube_times)
pm2s = st.builds(lambda before, pid, name, pad, after: f"{before}{pid}|{name}{' ' * pad} | {after}",
                 st.sampled_from(["", "2025-06-01T10:11:12: ", "2025-06-01 10:11:12 "]),
                 st.integers(0, 120), st.sampled_from(["vllm", "vllm-serve", "qwen_server", "api"]),
                 st.integers(0, 12), st.sampled_from(["", "2025-06-01T10:11:12: "]))


def _same(tag: str, raw: str) -> None:
    plain, tagged = parse_line(clean(raw)), parse_line(clean(tag + raw))
    assert (tagged.kind, tagged.process, tagged.exception, tagged.text) \
        == (plain.kind, plain.process, plain.exception, plain.text), repr(tag + raw)
    assert tagged.outer


@SOME
@given(sterns)
def test_a_stern_prefix_leaves_the_line_it_wraps(tag: str) -> None:
    for raw in LINES:
        _same(tag, raw)


@SOME
@given(pm2s)
def test_a_pm2_prefix_leaves_the_line_it_wraps(tag: str) -> None:
    for raw in LINES:
        _same(tag, raw)


def _failing(era: list[str]) -> list[str]:
    return [*era[:1], *[f"INFO 06-01 10:11:1{i} [gpu_model_runner.py:1] Loading weights took {i}.5 s"
                        for i in range(3)], *era[1:], *TRACEBACK]


@SOME
@given(st.lists(sterns, min_size=2, max_size=3, unique=True), st.sampled_from([V0, V1]),
       st.integers(0, 1 << 30), st.booleans())
def test_interleaved_pods_failing_log_names_the_error(tags: list[str], era: list[str], seed: int,
                                                       truncated: bool) -> None:
    rng = random.Random(seed)
    lines = _failing(era)
    if truncated:
        lines = lines[:-2] + lines[-1:]  # a tail that lost a frame
    text = "".join(f"{rng.choice(tags)}{line}\n" for line in lines)
    result = explain_text(text)
    assert result.verdict is not Verdict.NO_FAILURE
    assert result.root_cause is not None and result.root_cause.exception == "ValueError"


@SOME
@given(st.lists(pm2s, min_size=1, max_size=3, unique=True), st.sampled_from([V0, V1]),
       st.integers(0, 1 << 30))
def test_interleaved_pm2_processes_failing_log_names_the_error(tags: list[str], era: list[str],
                                                                seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(f"{rng.choice(tags)}{line}\n" for line in _failing(era))
    result = explain_text(text)
    assert result.verdict is not Verdict.NO_FAILURE
    assert result.root_cause is not None and result.root_cause.exception == "ValueError"


HEALTHY = ["INFO 06-01 10:11:12 [api_server.py:1043] vLLM API server version 0.9.1",
           "INFO 06-01 10:11:20 [gpu_model_runner.py:1] Model loading took 14.2 GiB and 8.1 s",
           "INFO 06-01 10:11:40 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000",
           'INFO:     10.0.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
           "INFO 06-01 10:12:00 [loggers.py:1] Avg prompt throughput: 12.3 tokens/s, Avg "
           "generation throughput: 45.6 tokens/s, Running: 1 reqs, Waiting: 0 reqs"]


@SOME
@given(st.one_of(sterns, pm2s))
def test_a_healthy_log_behind_either_prefix_stays_healthy(tag: str) -> None:
    assert explain_text("".join(tag + line + "\n" for line in HEALTHY)).verdict is Verdict.NO_FAILURE


# near misses: prose whose first word looks like a pod, a message that merely holds a bar
NEAR = ["worker-3 failed to start: ValueError: bad config",
        "vllm-0 is not ready yet",
        "node-12 exited with code 1",
        "a | b | c: table row",
        "x|y | z",
        "3 | vllm | 12 GiB",
        "ValueError: expected a|b | got c"]


@pytest.mark.parametrize("raw", NEAR)
def test_near_misses_are_not_read_as_either_prefix(raw: str) -> None:
    for name in ("STERN_TAG", "PM2_TAG"):
        assert terminal_regex(name).match(raw) is None, (name, raw)


def test_prose_with_a_pod_like_word_keeps_its_error() -> None:
    result = explain_text("worker-3 failed to start: ValueError: bad config\n")
    assert result.root_cause is not None and result.root_cause.exception == "ValueError"
