"""Error-looking lines a healthy deployment prints, and what keeps them from being a root cause.

Two classes from issue 10 (wrong-way verdicts on unseen logs):

- Python's `Exception ignored in: <...>` (the unraisable-exception hook: an error in `__del__`,
  a weakref callback, at interpreter exit) and the traceback after it: Python says it went on.
  An offline script that finished its prompts and printed one at exit did not fail.
- An error of an unnamed process in a log whose vLLM processes carry prefixes (V1 from 0.10 on):
  NCCL's `WARN` lines, torch's glog lines, a library's own ERROR record, printed without a
  process prefix. The engine that went on serving after it shows that it was survived, as it
  does for an engine core's or a worker's error.

Generated variations over the scenario server (tests/scenario_logs.py) and real message texts.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import Server

SOME = settings(max_examples=20, deadline=None)


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


# What Python prints after `Exception ignored in:` at the exit of real vLLM scripts (the
# objects and errors of vllm issues about shutdown noise): object, frames, exception line.
IGNORED = [
    ("<function BaseEventLoop.__del__ at 0x7f2b3c0d1ea0>",
     [("/usr/lib/python3.10/asyncio/base_events.py", 690, "__del__", "self.close()")],
     "RuntimeError: Event loop is closed"),
    ("<function LLM.__del__ at 0x7f9a1c2b3d90>",
     [("/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/llm.py", 301, "__del__",
       "self.llm_engine.shutdown()")],
     "AttributeError: 'NoneType' object has no attribute 'shutdown'"),
    ("<finalize object at 0x7f3e6c1a2b40; dead>",
     [("/usr/lib/python3.12/weakref.py", 590, "__call__", "return info.func(*info.args)")],
     "TypeError: 'NoneType' object is not callable"),
]
OFFLINE_RUN = [
    "INFO 07-10 10:00:00 llm_engine.py:169] Initializing an LLM engine (v0.5.1) with config: "
    "model='facebook/opt-125m'",
    "INFO 07-10 10:00:05 model_runner.py:255] Loading model weights took 0.2389 GB",
    "INFO 07-10 10:00:06 gpu_executor.py:84] # GPU blocks: 127608, # CPU blocks: 7281",
    "Processed prompts: 100%|##########| 4/4 [00:00<00:00, 33.40it/s]",
    "Prompt: 'Hello, my name is', Generated text: ' Joel, my dad is my friend.'",
]


def ignored_lines(which: int, with_traceback: bool, prefix: str) -> list[str]:
    where, frames, exception = IGNORED[which]
    lines = [f"{prefix}Exception ignored in: {where}"]
    if with_traceback:
        lines.append(f"{prefix}Traceback (most recent call last):")
        for path, number, function, code in frames:
            lines += [f'{prefix}  File "{path}", line {number}, in {function}', f"{prefix}    {code}"]
    return lines + [f"{prefix}{exception}"]


@SOME
@given(st.integers(0, len(IGNORED) - 1), st.booleans(),
       st.sampled_from(["", "(EngineCore_DP0 pid=2900) ", "vllm-1  | "]))
def test_an_ignored_exception_at_exit_is_no_failure(which: int, with_traceback: bool,
                                                     prefix: str) -> None:
    report = explain(OFFLINE_RUN + ignored_lines(which, with_traceback, prefix))
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@SOME
@given(st.integers(0, len(IGNORED) - 1), st.booleans())
def test_an_ignored_exception_does_not_hide_the_failure_after_it(which: int,
                                                                  with_traceback: bool) -> None:
    s = Server()
    lines = ignored_lines(which, with_traceback, "") + s.free_memory_startup_failure()
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


# Lines without a process prefix that healthy V1 deployments print (real texts: NCCL without
# InfiniBand, torch's c10d store, a plugin loader's ERROR record).
UNNAMED_ERRORS = [
    "gpu1:{pid}:{tid} [0] misc/ibvwrap.cc:94 NCCL WARN Failed to open libibverbs.so[.1]",
    "[rank0]:[E ProcessGroupGloo.cpp:143] Gloo connectFullMesh failed with a retryable error",
    "ERROR 08-01 20:00:02 [__init__.py:120] Failed to load plugin lora_filesystem_resolver",
    "[2025-08-01 20:00:03] gpu1:{pid}:{tid} [0] NCCL WARN NET/Plugin: Could not find: "
    "libnccl-net.so",
]


@SOME
@given(st.integers(0, len(UNNAMED_ERRORS) - 1), st.integers(1, 40), st.integers(1, 8))
def test_an_unnamed_error_the_engine_served_after_is_survived(which: int, requests: int,
                                                              at: int) -> None:
    s = Server()
    startup = s.startup()
    at = min(at, len(startup) - 1)
    text = UNNAMED_ERRORS[which].format(pid=s.workers[0], tid=s.workers[0] + 17)
    lines = startup[:at] + [text] + startup[at:] + s.requests(requests)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@SOME
@given(st.integers(0, len(UNNAMED_ERRORS) - 1), st.integers(0, 4))
def test_an_unnamed_error_nothing_worked_after_is_still_the_root(which: int, at: int) -> None:
    s = Server()
    startup = s.startup()[:4]  # the log stops during start-up: no later work saves it
    at = min(at, len(startup))
    text = UNNAMED_ERRORS[which].format(pid=s.workers[0], tid=s.workers[0] + 17)
    report = explain(startup[:at] + [text] + startup[at:])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == at + 1
