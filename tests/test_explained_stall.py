"""A start-up that waits for what a warning said it cannot get, until it is killed.

V0's Ray executor warns that the placement group needs more GPUs than the Ray cluster has, then
waits for it, printing `Waiting for creating a placement group of specs for N seconds` until it
gives up or an operator (a time-out wrapper, a pod's termination) sends SIGTERM. The warning is
the cause of the wait (causality.yaml `latent`), the wait its symptom; absl's `*** SIGTERM
received` banner and the tracebacks of the stop are the stop (causality.yaml `interrupts`), not a
crash. Without the warning the wait is a stall whose cause the log lacks; with the group formed
(the engine goes on), the warning is nothing; a SIGTERM after a real failure leaves that failure
the root.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=25, deadline=None)
START = ["INFO 05-26 18:53:37 [api_server.py:1043] vLLM API server version 0.8.5.post1",
         "INFO 05-26 18:53:50 [llm_engine.py:240] Initializing a V0 LLM engine (v0.8.5.post1) "
         "with config: model='m', tensor_parallel_size=4",
         "2025-05-26 18:53:52,518\tINFO worker.py:1888 -- Started a local Ray instance.",
         "INFO 05-26 18:53:53 [ray_utils.py:335] No current placement group found. Creating a "
         "new placement group."]
WARNING = ("WARNING 05-26 18:53:53 [ray_utils.py:342] The number of required GPUs exceeds the "
           "total number of available GPUs in the placement group.")
SPECS = "specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` and `ray list nodes`."


def _waits(count: int) -> list[str]:
    return [f"INFO 05-26 18:5{n}:03 [ray_utils.py:233] Waiting for creating a placement group of "
            f"specs for {10 * 2 ** n} seconds. {SPECS}" for n in range(count)]


def _stop(shape: int) -> list[str]:
    """What the operator's stop prints: nothing, absl's banner, or the banner and tracebacks."""
    banner = ["*** SIGTERM received at time=1748300290 on cpu 8 ***",
              "PC: @     0x7a30bba98d71  (unknown)  (unknown)",
              "    @     0x7a30bba9bc8e        224  pthread_cond_timedwait",
              "[2025-05-26 18:58:10,600 E 629624 629624] logging.cc:496: *** SIGTERM received at "
              "time=1748300290 on cpu 8 ***"]
    trace = ["ERROR 05-26 18:58:11 [engine.py:448] Traceback (most recent call last):",
             'ERROR 05-26 18:58:11 [engine.py:448]   File "/x/ray/_private/worker.py", line 3053,'
             " in wait",
             "ERROR 05-26 18:58:11 [engine.py:448] KeyboardInterrupt",
             "Traceback (most recent call last):",
             '  File "/x/vllm/entrypoints/openai/api_server.py", line 1130, in <module>',
             "    uvloop.run(run_server(args))",
             "asyncio.exceptions.CancelledError"]
    return [[], banner, banner + trace][shape]


@SOME
@given(st.integers(1, 6), st.integers(0, 2), st.integers(0, 3))
def test_the_warning_is_the_cause_of_the_wait(waits: int, stop: int, between: int) -> None:
    lines = START + [WARNING] + ["INFO 05-26 18:53:53 [ray_utils.py:1] still here"] * between
    lines += _waits(waits) + _stop(stop)
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line == len(START) + 1
    assert "exceeds the total number of available GPUs" in root.message


@SOME
@given(st.integers(1, 6), st.integers(0, 2))
def test_without_the_warning_the_wait_is_a_stall(waits: int, stop: int) -> None:
    lines = START + _waits(waits) + _stop(stop)
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


def test_a_group_that_formed_makes_the_warning_nothing() -> None:
    lines = START + [WARNING] + _waits(1) + [
        "INFO 05-26 18:55:03 [model_runner.py:1110] Loading model weights took 15.3 GiB",
        "INFO 05-26 18:55:03 [executor_base.py:112] # cuda blocks: 2000, # CPU blocks: 100",
        "INFO 05-26 18:55:40 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(1, 2))
def test_a_sigterm_after_a_failure_leaves_the_failure_the_root(stop: int) -> None:
    failure = ["Traceback (most recent call last):",
               '  File "/x/vllm/worker/worker.py", line 12, in load_model',
               "    self.model_runner.load_model()",
               "ValueError: The checkpoint you are trying to load has model type `x`"]
    lines = START + failure + _stop(stop)
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "ValueError" and root.line == len(START) + 4
