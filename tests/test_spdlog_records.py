"""Records of spdlog and the C++ runtimes that log in its manner (issue 10: an error record is an
error event whatever its format): the time in brackets, the level in brackets in lower case
(spdlog's `%l` names), fields before or after it. Ascend's ATB operations print
`[2025-05-05 01:56:15.842742] [error] [1408] [operation_base.cpp:338] RopeOperation_0 ...`
(vllm-ascend); spdlog's default pattern is `[2014-10-31 23:46:59.678] [my_logger] [error] ...`
(spdlog's README). Every time precision, level spelling, field set and wrapper; an error record
is the run's root, an info or warning record is no failure.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Level, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import clean, parse_line

STAMPS = ["2025-05-05 01:56:15", "2025-05-05 01:56:15.842", "2025-05-05 01:56:15.842742",
          "2024-12-31T23:59:59.123", "2025-01-02 03:04:05,678"]
ERRORS = ["error", "err", "critical", "fatal", "Error", "Critical", "Fatal"]
QUIET = ["info", "debug", "trace", "warning", "warn", "Info", "Warning"]
BEFORE = ["", "[atb] ", "[my_logger] ", "[vllm_ascend.ops] "]
AFTER = [(" [1408] [operation_base.cpp:338]", "operation_base.cpp:338"),
         (" [1408]", "1408"), ("", "-"), (" [7] [kernel.cu:12]", "kernel.cu:12"),
         (" [operation_base.cpp:513] [1408]", "operation_base.cpp:513")]
MESSAGES = ["RopeOperation_0 Atlas inference products can not support bf16.",
            "LinearOperation_3 invalid param, setup check fail, error code: 6",
            "failed to allocate workspace of 1073741824 bytes",
            "hccl communicator init failed, ret=7"]
WRAPPERS = ["", "vllm-1  | ", "2025-05-05T01:56:15.842742Z ", "(EngineCore_DP0 pid=9) "]
START = ["INFO 05-05 01:56:00 [__init__.py:239] Automatically detected platform npu.",
         "INFO 05-05 01:56:01 [api_server.py:1896] vLLM API server version 0.8.5",
         "INFO 05-05 01:56:01 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B'}"]
SERVING = ['INFO:     127.0.0.1:36936 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
           "INFO 05-05 01:57:15 [loggers.py:116] Engine 000: Avg prompt throughput: 12.5 "
           "tokens/s, Avg generation throughput: 40.1 tokens/s"]


def _record(stamp: str, before: str, level: str, after: str, message: str) -> str:
    return f"[{stamp}] {before}[{level}]{after} {message}"


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(STAMPS), st.sampled_from(BEFORE), st.sampled_from(ERRORS + QUIET),
       st.sampled_from(AFTER), st.sampled_from(MESSAGES))
def test_a_record_is_read_with_its_level_and_site(stamp: str, before: str, level: str,
                                                  after: tuple[str, str], message: str) -> None:
    line = parse_line(clean(_record(stamp, before, level, after[0], message)))
    word = {"err": "ERROR", "fatal": "CRITICAL", "warn": "WARNING", "trace": "DEBUG"}.get(
        level.lower(), level.upper())
    assert line.level is Level[word]
    assert line.site == after[1]
    assert line.text == message


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(STAMPS), st.sampled_from(BEFORE), st.sampled_from(ERRORS),
       st.sampled_from(AFTER), st.sampled_from(MESSAGES), st.sampled_from(WRAPPERS),
       st.integers(0, 2), st.booleans())
def test_an_error_record_is_the_runs_root(stamp: str, before: str, level: str,
                                          after: tuple[str, str], message: str, wrapper: str,
                                          context: int, echoed: bool) -> None:
    """Alone (a reporter's two pasted lines) or after a start-up, and before a second error
    record of the same setup check: the first error record is the root."""
    lines = [*START[:context], wrapper + _record(stamp, before, level, after[0], message)]
    if echoed:
        lines.append(wrapper + _record(stamp, before, "error", after[0],
                                       "invalid param, setup check fail, error code: 6"))
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None
    assert report.root_cause.line == context + 1
    assert message in report.root_cause.message


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(STAMPS), st.sampled_from(BEFORE), st.sampled_from(QUIET),
       st.sampled_from(AFTER), st.sampled_from(MESSAGES), st.sampled_from(["", "vllm-1  | "]))
def test_an_info_or_warning_record_is_no_failure(stamp: str, before: str, level: str,
                                                 after: tuple[str, str], message: str,
                                                 wrapper: str) -> None:
    lines = [*START, wrapper + _record(stamp, before, level, after[0], message), *SERVING]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, lines


def test_runpods_stream_tag_is_no_spdlog_level() -> None:
    """RunPod's `[id] [error]` marks whatever a process wrote to stderr: vLLM's INFO records
    behind it stay INFO (the wrapper, not a level)."""
    line = parse_line(clean("2024-05-01 10:00:00.123 [zx8k2m4q9w1e3r] [error] INFO 05-01 "
                            "10:00:00 [api_server.py:1] vLLM API server version 0.8.5"))
    assert line.level is Level.INFO
