"""An exception Python reports as unraisable (`Exception ignored in: <function X.__del__ ...>`) right
before its process dies natively is that crash's cause (causality.yaml `unraisable`, issue 10;
e.g. Ray's compiled-DAG teardown in the executor's destructor raises, then the interpreter
segfaults). Elsewhere it stays what Python says it is, an exception the process went on from: at
exit after a clean run, after another failure, before a shutdown request, before a kill from
outside, or long before the crash.

Generated over prefixes (none, docker's timestamps, compose, a journald unit, a vLLM process
prefix), the lines between (none, or ordinary records of the same process), the crash's shapes
(the shell's job reports, bare signal lines, faulthandler, absl's banner, C++'s terminate) and
the ignored exception's shapes (a traceback, a chain, a bare exception line).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.knowledge import default_causality
from logsleuth.model import LinkReason, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import python_traceback

START = ["INFO 07-28 22:29:10 llm_engine.py:176] Initializing an LLM engine (v0.5.3) with config: "
         "model='facebook/opt-125m'",
         "INFO 07-28 22:29:40 model_runner.py:692] Loading model weights took 0.2389 GB"]
SERVED = ["Processed prompts: 100%|##########| 1000/1000 [00:12<00:00, 80.1it/s]",
          "Throughput: 80.12 requests/s, 16024.00 tokens/s"]

DESTRUCTOR = ["Exception ignored in: <function RayGPUExecutor.__del__ at 0x7ff2ee7048b0>",
              "Traceback (most recent call last):",
              '  File "/opt/vllm/vllm/executor/ray_gpu_executor.py", line 396, in __del__',
              "    self.forward_dag.teardown()",
              '  File "/opt/conda/lib/python3.10/site-packages/ray/experimental/channel/'
              'shared_memory_channel.py", line 512, in close',
              "    self._worker.core_worker.experimental_channel_set_error(self._writer_ref)",
              "AttributeError: 'Worker' object has no attribute 'core_worker'"]
CHAINED = ["Exception ignored in: <function LLMEngine.__del__ at 0x7f1e2c0d3f40>",
           "Traceback (most recent call last):",
           '  File "/opt/vllm/vllm/engine/llm_engine.py", line 512, in __del__',
           "    self.model_executor.shutdown()",
           "KeyError: 'workers'",
           "",
           "During handling of the above exception, another exception occurred:",
           "",
           "Traceback (most recent call last):",
           '  File "/opt/vllm/vllm/executor/ray_gpu_executor.py", line 120, in shutdown',
           "    ray.kill(worker)",
           "TypeError: 'NoneType' object is not callable"]
BARE = ["Exception ignored in: <function _after_fork at 0x7f3d1a2b9ea0>",
        "ValueError: I/O operation on closed file."]
# (lines, the exception that is the cause, its message)
IGNORED = [(DESTRUCTOR, "AttributeError", "'Worker' object has no attribute 'core_worker'"),
           (CHAINED, "TypeError", "'NoneType' object is not callable"),
           (BARE, "ValueError", "I/O operation on closed file.")]

CRASHES = ["Segmentation fault (core dumped)", "Segmentation fault", "Aborted (core dumped)",
           "Bus error (core dumped)",
           "[1]    3100846 segmentation fault (core dumped)  python benchmark_throughput.py",
           "zsh: abort (core dumped)  python offline.py",
           "./run.sh: line 3: 12345 Segmentation fault      (core dumped) python offline.py",
           "Fatal Python error: Segmentation fault",
           "Fatal Python error: Aborted",
           "*** SIGSEGV received at time=1722205836 on cpu 3 ***",
           "terminate called after throwing an instance of 'c10::Error'"]
PREFIXES = ["", "2024-07-28T22:30:36.078123456Z ", "vllm-1  | ",
            "Jul 28 22:30:36 gpu1 python[3100846]: "]
FILLER = "INFO 07-28 22:30:36 compiled_dag_node.py:1202] Tearing down compiled DAG"


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def _cause_line(lines: list[str], exception: str) -> int:
    return max(i for i, text in enumerate(lines, start=1) if f"{exception}: " in text)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(IGNORED), st.sampled_from(CRASHES), st.sampled_from(PREFIXES),
       st.integers(0, 12), st.booleans())
def test_an_unraisable_exception_right_before_a_native_death_is_its_cause(
        ignored: tuple[list[str], str, str], crash: str, prefix: str, between: int,
        served: bool) -> None:
    shown, exception, message = ignored
    lines = [prefix + line for line in
             [*START, *(SERVED if served else []), *shown, *[FILLER] * between, crash]]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.message) == (exception, message)
    assert report.root_cause.line == _cause_line(lines, exception)
    assert report.root_cause.title is not None and "Exception ignored" in report.root_cause.title
    crashed = [s for s in report.symptoms if s.line == len(lines)]
    assert crashed, "the crash is reported as what followed from it"


@pytest.mark.parametrize("prefix", ["", "(VllmWorkerProcess pid=812) "])
@pytest.mark.parametrize("ignored", IGNORED, ids=["destructor", "chained", "bare"])
def test_an_unprefixed_crash_may_be_any_process_s(prefix: str,
                                                  ignored: tuple[list[str], str, str]) -> None:
    """faulthandler, glibc and the shell write around vLLM's prefixes: a worker's unraisable
    exception then an unprefixed segfault is that worker's crash."""
    shown, exception, _ = ignored
    lines = [*START, *(prefix + line for line in shown), "Segmentation fault (core dumped)"]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == exception
    assert LinkReason.UNRAISABLE in {link.reason for link in report_links(lines)}


def report_links(lines: list[str]) -> tuple:  # noqa: ANN001 - Links
    from logsleuth.causal import CausalGraph
    from logsleuth.pipeline import read_events
    from logsleuth.read import input_from_text
    read = read_events(input_from_text("\n".join(lines) + "\n"))
    return CausalGraph.build(read.events).infer().links


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(IGNORED), st.sampled_from(PREFIXES), st.booleans())
def test_an_unraisable_exception_at_a_clean_exit_is_no_failure(
        ignored: tuple[list[str], str, str], prefix: str, served: bool) -> None:
    shown = ignored[0]
    lines = [prefix + line for line in [*START, *(SERVED if served else []), *shown]]
    report = _explain(lines)
    assert report.verdict is Verdict.NO_FAILURE
    assert report.root_cause is None


FAILURE = python_traceback([("/opt/vllm/benchmarks/benchmark_throughput.py", "main",
                             "llm.generate(prompts)")],
                           "RuntimeError: CUDA error: an illegal memory access was encountered"
                           ).splitlines()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(IGNORED), st.sampled_from(CRASHES), st.sampled_from(PREFIXES))
def test_after_another_failure_the_teardown_s_exception_is_not_the_cause(
        ignored: tuple[list[str], str, str], crash: str, prefix: str) -> None:
    lines = [prefix + line for line in [*START, *FAILURE, *ignored[0], crash]]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"


SHUTDOWNS = ["INFO:     Waiting for application shutdown.",
             "INFO 07-28 22:30:35 launcher.py:57] Received SIGTERM, shutting down",
             "KeyboardInterrupt: terminated"]


@pytest.mark.parametrize("stop", SHUTDOWNS)
@pytest.mark.parametrize("ignored", IGNORED, ids=["destructor", "chained", "bare"])
def test_a_shutdown_between_keeps_the_exception_out(stop: str,
                                                    ignored: tuple[list[str], str, str]) -> None:
    """A stop asked for between the exception and the crash: the crash belongs to the stop, not
    to the exception Python ignored before it."""
    shown, exception, _ = ignored
    lines = [*START, *SERVED, *shown, stop, "Segmentation fault (core dumped)"]
    report = _explain(lines)
    assert report.root_cause is None or report.root_cause.exception != exception


@pytest.mark.parametrize("crash", ["Killed", "[1]+  Killed                  python offline.py"])
def test_a_kill_from_outside_is_not_caused_by_it(crash: str) -> None:
    lines = [*START, *DESTRUCTOR, crash]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "Killed"


def test_a_crash_long_after_it_is_not_caused_by_it() -> None:
    within = default_causality().unraisable_within
    lines = [*START, *DESTRUCTOR, *[FILLER] * (within + 1), "Segmentation fault (core dumped)"]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "Segmentation fault"


def test_work_between_them_keeps_it_out() -> None:
    """The process went on (a lifecycle line of its own) after the exception, then crashed."""
    lines = [*START, *DESTRUCTOR, "INFO 07-28 22:30:40 model_runner.py:692] Loading model "
             "weights took 0.2389 GB", "Segmentation fault (core dumped)"]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "Segmentation fault"


def test_another_process_s_crash_is_not_caused_by_it() -> None:
    lines = [*START, *("(VllmWorkerProcess pid=812) " + line for line in DESTRUCTOR),
             "(VllmWorkerProcess pid=813) Fatal Python error: Segmentation fault"]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "Fatal Python error"
