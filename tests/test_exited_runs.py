"""A start of vLLM after an error that ended the program that was to run it (causality.yaml
`exits`: argparse refusing vLLM's or a launch script's arguments, a traceback that reached the
top of a vLLM program) is another invocation: it begins a run of its own, though the program
that exited printed no start of its own (argparse refuses before vLLM prints anything). The
report explains the last run that failed (runs.py). A wrapper script that starts vLLM, then is
edited and started again, writes both into one file.

Generated over how the first program ended, how the second run failed (or did not), the
wrapper's own lines around each (a deployment script's logger) and the wrappers before every
line. A second deployment that keeps talking after the first one's exit stays one run with it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

USAGE = ["usage: api_server.py [-h] [--host HOST] [--port PORT]",
         "                     [--uvicorn-log-level {debug,info,warning,error,critical,trace}]"]
EXITS = {
    "argparse of a script": [*USAGE, "api_server.py: error: unrecognized arguments: "
                             "--attention-backend FLASHINFER --enable-metrics"],
    "argparse of vllm serve": ["usage: vllm serve [model_tag] [options]",
                               "vllm serve: error: argument --dtype: invalid choice: 'fp8' "
                               "(choose from 'auto', 'half', 'float16', 'bfloat16')"],
    "an uncaught traceback": [
        "Traceback (most recent call last):",
        '  File "<frozen runpy>", line 198, in _run_module_as_main',
        '  File "<frozen runpy>", line 88, in _run_code',
        '  File "/usr/local/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py",'
        ' line 1946, in <module>',
        "    parser = make_arg_parser(parser)",
        '  File "/usr/local/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 470, '
        "in add_cli_args",
        "    raise ValueError(msg)",
        "ValueError: Unknown quantization method: mxfp5"],
}
FIRST = {"argparse of a script": "usage error", "argparse of vllm serve": "usage error",
         "an uncaught traceback": "ValueError"}

START = ["INFO 06-20 20:03:37 [__init__.py:244] Automatically detected platform cuda.",
         "INFO 06-20 20:03:41 [api_server.py:1287] vLLM API server version 0.9.1",
         "INFO 06-20 20:03:42 [cli_args.py:309] non-default args: {'host': '0.0.0.0', "
         "'model': 'Qwen/Qwen3-30B-A3B', 'tensor_parallel_size': 4}"]
PORT = ["Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
        "    return _run_code(code, main_globals, None,",
        '  File "/usr/local/lib/python3.10/site-packages/vllm/entrypoints/openai/api_server.py",'
        " line 1263, in create_server_socket",
        "    sock.bind(addr)",
        "OSError: [Errno 98] Address already in use"]
KV = ["ERROR 06-20 20:04:10 [core.py:515] EngineCore failed to start.",
      "ERROR 06-20 20:04:10 [core.py:515] Traceback (most recent call last):",
      'ERROR 06-20 20:04:10 [core.py:515]   File "/usr/local/lib/python3.10/site-packages/vllm/'
      'v1/engine/core.py", line 75, in __init__',
      "ERROR 06-20 20:04:10 [core.py:515]     self._initialize_kv_caches(vllm_config)",
      "ERROR 06-20 20:04:10 [core.py:515] ValueError: To serve at least one request with the "
      "models's max seq len (32768), (6.00 GiB KV cache is needed, which is larger than the "
      "available KV cache memory (2.10 GiB)."]
SECOND = {"port in use": (PORT, "OSError", "[Errno 98] Address already in use"),
          "kv cache": (KV, "ValueError", "To serve at least one request")}
HEALTHY = ["INFO 06-20 20:04:30 [gpu_model_runner.py:1595] Model loading took 14.25 GiB and "
           "21.5 seconds",
           "INFO:     Application startup complete."]


def _wrapper(time: str, ended: bool) -> list[str]:
    """A deployment script's own logger around the program it starts."""
    head = [f"2025-06-20 {time},931 - __main__ - INFO - Starting deployment...",
            f"2025-06-20 {time},932 - __main__ - INFO - vLLM server started with PID: 1499023"]
    tail = [f"2025-06-20 {time},812 - __main__ - ERROR - vLLM process terminated unexpectedly",
            f"2025-06-20 {time},813 - __main__ - INFO - vLLM server stopped"]
    return head + (tail if ended else [])


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


WRAPPERS = ["", "2025-06-20T20:02:20.931456789Z ", "vllm-1  | "]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(EXITS)), st.sampled_from(sorted(SECOND)), st.booleans(),
       st.sampled_from(WRAPPERS))
def test_a_start_after_the_program_exited_begins_the_run_the_report_explains(
        exit: str, second: str, wrapped: bool, outer: str) -> None:
    lines = [*(_wrapper("20:02:20", False) if wrapped else []), *EXITS[exit],
             *(_wrapper("20:02:32", True)[2:] if wrapped else []),
             *(_wrapper("20:03:33", False) if wrapped else [])]
    begins = len(lines) + 2  # the API server's version line
    failed, exception, message = SECOND[second]
    lines += [*START, *failed, *(_wrapper("20:03:45", True)[2:] if wrapped else [])]
    lines = [outer + line for line in lines]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == exception
    assert message in report.root_cause.message
    assert len(report.runs) == 2
    explained = [run for run in report.runs if run.explained]
    assert [run.start_line for run in explained] == [begins]
    assert report.runs[0].exception == FIRST[exit]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(EXITS)), st.sampled_from(WRAPPERS))
def test_a_healthy_start_after_it_leaves_the_exit_the_failure(exit: str, outer: str) -> None:
    """The last run that failed is the one that exited: a later healthy start is a run of its
    own, which does not save it."""
    lines = [outer + line for line in [*EXITS[exit], *START, *HEALTHY]]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == FIRST[exit]
    assert len(report.runs) == 2


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(SECOND)))
def test_no_exit_before_the_start_keeps_one_run(second: str) -> None:
    """A launcher's lines before vLLM's own start are the same run."""
    failed, exception, _ = SECOND[second]
    lines = [*_wrapper("20:03:33", False), *START, *failed]
    report = _explain(lines)
    assert report.root_cause is not None and report.root_cause.exception == exception
    assert len(report.runs) <= 1


def test_a_second_deployment_that_goes_on_talking_is_the_same_run() -> None:
    """Another server, started before the exit, keeps logging after the new start: two
    deployments side by side, not a restart."""
    other = "(APIServer pid=4410) "
    lines = [other + START[1], *EXITS["argparse of a script"],
             "(APIServer pid=5120) " + START[1], "(APIServer pid=5120) " + START[2],
             other + "INFO 06-20 20:03:50 [loggers.py:116] Engine 000: Avg prompt throughput: "
             "12.0 tokens/s, Avg generation throughput: 30.1 tokens/s, Running: 1 reqs"]
    report = _explain(lines)
    assert len(report.runs) <= 1
