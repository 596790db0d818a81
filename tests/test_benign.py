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
from scenario_logs import ILLEGAL_ACCESS, Server

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


# ---- a request's error that vLLM catches and answers ----------------------------------------
# Real call sites and texts of the tool parsers (vllm issues 21544, 17790, 26561), logged by the
# parser or by serving_chat.py's stream generator around it, as a record with its traceback in
# V1's prefixed and V0's unprefixed form, and as the raw traceback a parser's `logger.exception`
# prints after a record that lost its date. (A request handler's own errors are not knowledge:
# a chat template that raises fails every chat request, and has a signature.)
HANDLED = [
    ("hermes_tool_parser.py:157", "Error in extracting tool call from response.",
     [("entrypoints/openai/tool_parsers/hermes_tool_parser.py", 134, "extract_tool_calls"),
      ("/usr/lib/python3.12/json/decoder.py", 341, "decode")],
     "json.decoder.JSONDecodeError: Extra data: line 3 column 1 (char 527)"),
    ("serving_chat.py:1123", "Error in chat completion stream generator.",
     [("entrypoints/openai/serving_chat.py", 700, "chat_completion_stream_generator"),
      ("entrypoints/openai/tool_parsers/hermes_tool_parser.py", 241,
       "extract_tool_calls_streaming")],
     "IndexError: list index out of range"),
]


def handled_lines(which: int, form: str, s: Server) -> list[str]:
    site, title, frames, exception = HANDLED[which]
    if form == "raw":  # the record's date removed, the traceback printed raw after it
        lines = [f"ERROR [{site}] {title}", "Traceback (most recent call last):"]
        for path, number, function in frames:
            lines.append(f'  File "{path if path.startswith("/") else "/x/vllm/" + path}", '
                         f"line {number}, in {function}")
        return lines + [exception]
    prefix = f"(APIServer pid={s.api}) " if form == "v1" else ""
    head = f"{prefix}ERROR {s.time()} [{site}] "
    lines = [head + title, head + "Traceback (most recent call last):"]
    for path, number, function in frames:
        lines.append(f'{head}  File "/x/vllm/{path}", line {number}, in {function}')
    return lines + [head + exception]


@SOME
@given(st.integers(0, len(HANDLED) - 1), st.sampled_from(["v1", "v0", "raw"]),
       st.integers(0, 30))
def test_a_request_error_vllm_answers_is_survived_even_at_the_end(which: int, form: str,
                                                                  requests: int) -> None:
    if form == "raw":
        which = 0  # the parser's own record; the stream generator's is not a parser's call site
    s = Server()
    lines = s.startup() + s.requests(requests) + handled_lines(which, form, s)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@SOME
@given(st.integers(0, len(HANDLED) - 1), st.sampled_from(["v1", "v0"]), st.integers(0, 30))
def test_a_request_error_does_not_hide_the_engine_death_after_it(which: int, form: str,
                                                                 requests: int) -> None:
    s = Server()
    lines = s.startup() + s.requests(requests) + handled_lines(which, form, s)
    crash_at = len(lines)
    lines += s.engine_error(ILLEGAL_ACCESS) + s.engine_dead()
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line > crash_at
    assert report.root_cause.exception == "torch.AcceleratorError"


def test_an_api_server_error_outside_the_request_handlers_is_not_survived_by_knowledge() -> None:
    s = Server()
    lines = s.startup() + s.requests(3) + [s.api_line(
        "ERROR", "api_server.py:1520", "Failed to bind the metrics port: [Errno 98] Address "
        "already in use")]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE


def test_an_engine_error_a_v0_request_handler_logged_is_not_taken_for_a_request_error() -> None:
    # V0: the engine loop's exception, re-raised in the request's generator and logged at the
    # handler's call site (serving_chat's stream generator); the server's later requests fail
    s = Server()
    head = f"ERROR {s.time()} [serving_chat.py:911] "
    lines = s.startup() + s.requests(5) + [
        head + "Error in chat completion stream generator.",
        head + "Traceback (most recent call last):",
        head + '  File "/x/vllm/entrypoints/openai/serving_chat.py", line 481, in '
               "chat_completion_stream_generator",
        head + '  File "/x/vllm/engine/async_llm_engine.py", line 976, in generate',
        head + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "torch.OutOfMemoryError"


# ---- uvicorn's orderly stop of the HTTP server ------------------------------------------------
UVICORN_STOP = ["INFO:     Shutting down", "INFO:     Waiting for application shutdown.",
                "INFO:     Application shutdown complete.", "INFO:     Finished server process [1]"]


@SOME
@given(st.integers(0, 20), st.sampled_from(["-15", "-2"]))
def test_workers_stopped_after_an_orderly_http_shutdown_are_no_failure(requests: int,
                                                                       code: str) -> None:
    s = Server()
    lines = s.startup() + s.requests(requests) + [f"(APIServer pid={s.api}) {line}"
                                                  for line in UVICORN_STOP]
    lines.append(f"ERROR 08-17 23:28:45 multiproc_worker_utils.py:120] Worker VllmWorkerProcess "
                 f"pid 1221546 died, exit code: {code}")
    assert explain(lines).verdict is Verdict.NO_FAILURE


def test_an_orderly_http_shutdown_after_a_crash_keeps_the_crash() -> None:
    s = Server()
    lines = s.startup() + s.requests(5)
    crash_at = len(lines)
    lines += s.engine_error(ILLEGAL_ACCESS) + s.engine_dead() + [
        f"(APIServer pid={s.api}) {line}" for line in UVICORN_STOP]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line > crash_at
    assert report.root_cause.exception == "torch.AcceleratorError"


# ---- an error record that says it is harmless ---------------------------------------------------
# An ERROR record (no exception) whose own text says, without a condition, that it does not stop
# the program (causality.yaml `harmless`): the NVML probe of a virtualised GPU (vllm#2325, a
# library's own `YYYY-MM-DD HH:MM:SS [ERROR]` format) and vLLM-style wordings. It is no cause even
# where the log ends on it. A conditional wording (pynccl's "It is expected if you are not
# running on NVIDIA/AMD GPUs. Otherwise ...", vllm#5594) keeps its weight, and so does a plain
# record nothing worked after.
HARMLESS = [
    "2024-01-03 11:48:06 [ERROR] [ -4263953,Not implemented in the current version ] "
    "nvmlDeviceGetHandleByPciBusId() This is unlikely to affect the main functionalities of user "
    "applications.",
    "ERROR 01-03 11:48:06 [nvml.py:120] nvmlDeviceGetMemoryInfo failed for GPU 1. This can be "
    "safely ignored.",
    "ERROR 01-03 11:48:06 [plugins.py:40] Failed to probe the xpu platform: No module named "
    "'intel_extension_for_pytorch'. This error is harmless on CUDA machines.",
    "(Worker_TP1 pid=3001) ERROR 08-01 20:00:02 [custom_all_reduce.py:88] Could not query the "
    "NVLink topology: Not Supported. This is unlikely to affect inference.",
]
CONDITIONAL = [
    "ERROR 06-17 06:23:53 pynccl.py:53] Failed to load NCCL library from libnccl.so.2 .It is "
    "expected if you are not running on NVIDIA/AMD GPUs.Otherwise please set the environment "
    "variable VLLM_NCCL_SO_PATH to point to the correct nccl library path.",
    "ERROR 06-17 06:23:53 [neuron.py:88] LoRA requests are only supported through the "
    "lora_modules parameter. If you supplied the parameter, you can ignore this warning.",
]
V0_STARTUP = [
    "INFO 01-03 11:47:54 llm_engine.py:73] Initializing an LLM engine with config: "
    "model='Qwen/Qwen-7B-Chat', tokenizer='Qwen/Qwen-7B-Chat', dtype=torch.float16",
    "WARNING 01-03 11:47:54 tokenizer.py:79] Using a slow tokenizer. This might cause a "
    "significant slowdown. Consider using a fast tokenizer instead.",
]


@SOME
@given(st.integers(0, len(HARMLESS) - 1), st.integers(0, 2))
def test_a_record_that_says_it_is_harmless_is_no_cause_even_at_the_end(which: int,
                                                                      at: int) -> None:
    lines = V0_STARTUP[:at] + [HARMLESS[which]]
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause
    assert [e.line for e in report.survived] == [at + 1]


@SOME
@given(st.integers(0, len(CONDITIONAL) - 1), st.integers(0, 2))
def test_a_conditional_wording_is_not_a_statement_that_it_is_harmless(which: int, at: int) -> None:
    report = explain(V0_STARTUP[:at] + [CONDITIONAL[which]])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == at + 1


@SOME
@given(st.integers(0, len(HARMLESS) - 1), st.integers(0, 2))
def test_a_harmless_record_does_not_hide_the_failure_after_it(which: int, at: int) -> None:
    lines = V0_STARTUP[:at] + [HARMLESS[which]] + [
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/site-packages/vllm/worker/worker.py", line 100, in '
        "init_device", "    torch.cuda.set_device(self.device)",
        "RuntimeError: CUDA error: invalid device ordinal"]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
