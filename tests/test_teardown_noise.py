"""The noise of a program's exit after the run was up: Python's multiprocessing resource tracker,
a helper daemon that prints the errors of its own bookkeeping and goes on (CPython's
Lib/multiprocessing/resource_tracker.py: `cache[rtype].remove(name)` raising KeyError for a name
unregistered twice, after it was relaunched), its warnings (leaked semaphores or shared memory to
clean up at shutdown, a tracker relaunched, a name it could not unlink), and exceptions Python
ignored in finalizers and atexit callbacks. After a run that was up (served, or ready), every
wording, prefix and Python version's frames is no failure (causality.yaml `teardown`,
`unraisable`); the tracker's traceback alone, or after a start-up that never got up, is the
failure the log shows.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

PYTHONS = ["/usr/lib/python3.12", "/usr/local/lib/python3.10", "/opt/conda/lib/python3.11",
           "/root/.local/share/uv/python/cpython-3.13.1-linux-x86_64-gnu/lib/python3.13"]
NAMES = ["'/mp-n3z18c6r'", "'/psm_3f2a9c1e'", "'/mp-0x7ab'"]
PREFIXES = ["", "(EngineCore_DP0 pid=9006) ", "vllm-1  | ", "2025-12-09T18:51:34.464268835Z "]


def _tracker_traceback(python: str, name: str, via_string: bool, line: int) -> list[str]:
    frames = ['  File "<string>", line 1, in <module>'] if via_string else []
    return ["Traceback (most recent call last):", *frames,
            f'  File "{python}/multiprocessing/resource_tracker.py", line {line}, in main',
            "    cache[rtype].remove(name)", f"KeyError: {name}"]


def _warnings(python: str, name: str, which: int) -> list[str]:
    return [
        [f"{python}/multiprocessing/resource_tracker.py:123: UserWarning: resource_tracker: "
         "process died unexpectedly, relaunching.  Some resources might leak.",
         "  warnings.warn('resource_tracker: process died unexpectedly, '"],
        [f"{python}/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: "
         "There appear to be 3 leaked semaphore objects to clean up at shutdown",
         "  warnings.warn('resource_tracker: There appear to be %d '"],
        [f"{python}/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: "
         "There appear to be 1 leaked shared_memory objects to clean up at shutdown: {" + name + "}",
         "  warnings.warn("],
        [f"{python}/multiprocessing/resource_tracker.py:267: UserWarning: resource_tracker: "
         f"{name}: [Errno 2] No such file or directory: {name}",
         "  warnings.warn('resource_tracker: %r: %s' % (name, e))"],
        ["Exception ignored in: <function SharedMemory.__del__ at 0x7f3a2c1e0ae0>",
         "Traceback (most recent call last):",
         f'  File "{python}/multiprocessing/shared_memory.py", line 187, in __del__',
         "    self.close()", "BufferError: cannot close exported pointers exist"],
        ["Exception ignored in atexit callback: <function _exit_function at 0x7f3a2c1e0ae0>",
         "Traceback (most recent call last):",
         f'  File "{python}/multiprocessing/util.py", line 360, in _exit_function',
         "    _run_finalizers()", "KeyboardInterrupt: "],
        [],
    ][which]


START = ["INFO 12-09 18:40:01 [__init__.py:239] Automatically detected platform cuda.",
         "(APIServer pid=8738) INFO 12-09 18:40:02 [api_server.py:1896] vLLM API server version "
         "0.12.0",
         "(APIServer pid=8738) INFO 12-09 18:40:02 [utils.py:233] non-default args: {'model': "
         "'openai/gpt-oss-20b'}",
         "(EngineCore_DP0 pid=9006) INFO 12-09 18:40:40 [gpu_model_runner.py:2000] Model loading "
         "took 13.7 GiB and 20.1 seconds"]
READY = ["(APIServer pid=8738) INFO:     Application startup complete."]
SERVED = ['(APIServer pid=8738) INFO:     127.0.0.1:39948 - "POST /v1/completions HTTP/1.1" 200 OK',
          "(APIServer pid=8738) INFO 12-09 18:42:22 [loggers.py:236] Engine 000: Avg prompt "
          "throughput: 1107.8 tokens/s, Avg generation throughput: 1063.8 tokens/s, Running: 16 "
          "reqs, Waiting: 0 reqs, GPU KV cache usage: 1.2%"]
AFTER = ["[rank0]:[W1209 18:51:34.464268835 ProcessGroupNCCL.cpp:1524] Warning: WARNING: "
         "destroy_process_group() was not called before program exit, which can leak resources.",
         "(APIServer pid=8738) INFO:     Shutting down"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PYTHONS), st.sampled_from(NAMES), st.booleans(), st.integers(200, 320),
       st.sampled_from(PREFIXES), st.integers(0, 6), st.booleans(), st.integers(0, 2),
       st.booleans())
def test_teardown_noise_after_a_run_that_was_up_is_no_failure(
        python: str, name: str, via_string: bool, line: int, prefix: str, warned: int,
        tracker: bool, after: int, served: bool) -> None:
    noise = [*_warnings(python, name, warned)]
    if tracker:
        noise += _tracker_traceback(python, name, via_string, line)
    lines = [*START, *READY, *(SERVED if served else []), *(prefix + n for n in noise),
             *AFTER[:after]]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, lines


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PYTHONS), st.sampled_from(NAMES), st.booleans(), st.integers(200, 320),
       st.sampled_from(PREFIXES[:3]), st.sampled_from([0, 1, 4]))
def test_the_trackers_traceback_before_the_run_was_up_is_the_failure(
        python: str, name: str, via_string: bool, line: int, prefix: str, started: int) -> None:
    """Alone, or after a start-up that never got up: nothing shows the run did its work."""
    lines = [*START[:started],
             *(prefix + n for n in _tracker_traceback(python, name, via_string, line))]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.exception == "KeyError"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PYTHONS), st.sampled_from(NAMES), st.sampled_from(PREFIXES[:2]))
def test_a_vllm_error_beside_the_tracker_stays_the_failure(python: str, name: str,
                                                           prefix: str) -> None:
    """The tracker's noise does not hide a real error after the run was up: a KeyError raised
    in vLLM's own frames is the root."""
    lines = [*START, *READY, *SERVED,
             "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 300, '
             "in step", "    output = self.model_executor.execute_model(scheduler_output)",
             "KeyError: 'model.layers.0.mlp.experts.w13_weight'",
             *(prefix + n for n in _tracker_traceback(python, name, False, 239))]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and "w13_weight" in report.root_cause.message
