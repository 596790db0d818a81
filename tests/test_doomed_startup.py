"""A warning that no engine can start after it (causality.yaml `latent`, `dooms_startup`: vLLM
found no platform at import, "No platform detected, vLLM is running on UnspecifiedPlatform"),
then a start-up step and nothing more, is the failure: the error building the engine met is not
in the log (a logging config that sends vLLM's records to a file and leaves tracebacks on stderr;
tests/fixtures/tuning, m-lmcache-experiment-committed-log-no-platform-detected-...). With that
error in the log, the error is the root; without a start-up step after the record (a client that
only imports vLLM: `vllm bench serve` from a host without a GPU), or with a start-up that got
further (another process had the device), the record is nothing.

Generated over record formats (vLLM's eras, a logging config's own format), wrappers (docker,
compose, a process prefix), the steps that follow and what comes after them.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=30, deadline=None)
MESSAGE = "No platform detected, vLLM is running on UnspecifiedPlatform"
# a record as each era and a user's logging config print it: {level}, {site} and {message}
FORMATS = [
    "{level} 05-12 09:41:07 [{site}] {message}",  # 0.8+
    "{level} 02-06 10:12:01 {site}] {message}",  # 0.7
    # a logging config's `%(asctime)s - %(levelname)s - %(filename)s:%(funcName)s:%(lineno)d`
    "2025-07-08 14:03:55,524 - {level} - {file}:{function}:{number} - {message}",
    # a deployment's bracketed-fields format (vllm.lark BRACKET_FIELDS)
    "[2025-07-08 14:03:55,524] [{level}] [MainThread] [vllm] >>> {message}",
]
WRAPPERS = ["", "vllm-1  | ", "2025-07-08T14:03:55.524871123Z ", "(APIServer pid=4242) "]
LEVELS = ["INFO", "DEBUG"]  # INFO until 0.11, DEBUG later
# start-up steps a serve or an LLM(...) prints after the import: (message, site)
STEPS = [
    ("Disabled the custom all-reduce kernel because it is not supported on current platform.",
     "config.py:1804"),
    ("vLLM API server version 0.8.5.post1", "api_server.py:1043"),
    ("non-default args: {'model': '/models/Qwen3-8B', 'tensor_parallel_size': 2}",
     "utils.py:328"),
    ("Initializing a V1 LLM engine (v0.9.2) with config: model='/models/Qwen3-8B'",
     "core.py:69"),
]
# what a run that went on prints (another process had the device): a step past the engine's
# config, output, an answer
WENT_ON = [
    ("Loading weights took 14.20 seconds", "loader.py:458"),
    ("Starting vLLM API server 0 on http://0.0.0.0:8000", "api_server.py:1090"),
    ("Engine 000: Avg prompt throughput: 12.0 tokens/s, Avg generation throughput: 40.1 "
     "tokens/s, Running: 1 reqs, Waiting: 0 reqs", "loggers.py:116"),
]
# a benchmark client's output on a host without a GPU (it imports vLLM and needs no device)
CLIENT = [
    "============ Serving Benchmark Result ============",
    "Successful requests:                     100",
    "Benchmark duration (s):                  41.27",
    "Request throughput (req/s):              2.42",
]
ERROR = [
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py", line 1322, in '
    "create_engine_config",
    "    device_config = DeviceConfig(device=cast(Device, current_platform.device_type))",
    "RuntimeError: Device string must not be empty",
]


def record(fmt: int, wrapper: int, level: str, message: str, site: str) -> str:
    file, number = site.split(":")
    return WRAPPERS[wrapper] + FORMATS[fmt].format(level=level, site=site, message=message,
                                                   file=file, function="main", number=number)


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


FMT = st.integers(0, len(FORMATS) - 1)
WRAP = st.integers(0, len(WRAPPERS) - 1)
LEVEL = st.sampled_from(LEVELS)
STEPS_AFTER = st.lists(st.integers(0, len(STEPS) - 1), min_size=1, max_size=3)


@SOME
@given(FMT, WRAP, LEVEL, STEPS_AFTER)
def test_the_record_then_start_up_steps_and_nothing_more_is_the_failure(
        fmt: int, wrapper: int, level: str, steps: list[int]) -> None:
    lines = [record(fmt, wrapper, level, MESSAGE, "__init__.py:239"),
             *(record(fmt, wrapper, "INFO", *STEPS[i]) for i in steps)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1
    assert MESSAGE in report.root_cause.message
    assert report.signature is not None
    assert report.signature.id == "platform-unspecified-device-empty"


@SOME
@given(FMT, WRAP, LEVEL, st.lists(st.integers(0, len(STEPS) - 1), max_size=2))
def test_the_error_the_start_up_met_stays_the_root(fmt: int, wrapper: int, level: str,
                                                   steps: list[int]) -> None:
    lines = [record(fmt, wrapper, level, MESSAGE, "__init__.py:239"),
             *(record(fmt, wrapper, "INFO", *STEPS[i]) for i in steps), *ERROR]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == ("RuntimeError", len(lines))


@SOME
@given(FMT, WRAP, LEVEL, st.booleans())
def test_the_record_without_a_start_up_after_it_is_no_failure(fmt: int, wrapper: int,
                                                              level: str, client: bool) -> None:
    lines = [record(fmt, wrapper, level, MESSAGE, "__init__.py:239"), *(CLIENT if client else [])]
    assert explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(FMT, WRAP, LEVEL, STEPS_AFTER, st.integers(0, len(WENT_ON) - 1))
def test_a_start_up_that_went_on_past_the_engine_config_is_no_failure(
        fmt: int, wrapper: int, level: str, steps: list[int], went_on: int) -> None:
    lines = [record(fmt, wrapper, level, MESSAGE, "__init__.py:239"),
             *(record(fmt, wrapper, "INFO", *STEPS[i]) for i in steps),
             record(fmt, wrapper, "INFO", *WENT_ON[went_on])]
    assert explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(FMT, WRAP, STEPS_AFTER)
def test_start_up_steps_without_the_record_are_no_failure(fmt: int, wrapper: int,
                                                          steps: list[int]) -> None:
    # the custom all-reduce kernel is disabled on platforms that do run (CPU, TPU, XPU)
    lines = [record(fmt, wrapper, "INFO", *STEPS[i]) for i in steps]
    assert explain(lines).verdict is Verdict.NO_FAILURE
