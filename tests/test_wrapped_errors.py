"""Shapes of runtime and launcher logs the first mechanisms misread (issue 10), as properties:

- an exception whose message is a whole traceback (Ray Serve re-raises a replica's failed
  constructor as `RuntimeError(traceback.format_exc())`): the root is the exception the carried
  traceback ends with, at its line, never the wrapper;
- exception classes that standard modules name in lower case (`socket.gaierror`,
  `struct.error`) are exceptions, behind any wrapper and prefix;
- a report that the engine died (`EngineDeadError`, `Engine process (pid N) died`) followed by
  the answers of requests that were in flight is a failure whose cause is not in the log, never
  a healthy log.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.causal import IN_FLIGHT
from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# what goes before each line: a launcher's wrapper and a process prefix (Ray's, vLLM's, none)
OUTERS = ["", "2025-06-09T16:23:50.123456789Z ", "Jun 09 16:23:50 node-1 ray[4021]: ",
          "ray-head-1  | ", "[pod/llm-0/vllm] ", "0: "]
PREFIXES = ["", "(ServeController pid=7620) ", "(ServeReplica:default:VLLMDeployment pid=8753) ",
            "(APIServer pid=1) ", "(_EngineBackgroundProcess pid=9083) "]
INNER = [("ValueError", "No available memory for the cache blocks. Try increasing "
                        "`gpu_memory_utilization` when initializing the engine."),
         ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB."),
         ("RuntimeError", "No CUDA GPUs are available"),
         ("OSError", "We couldn't connect to 'https://huggingface.co' to load this file."),
         ("socket.gaierror", "[Errno -2] Name or service not known"),
         # a private class: its leading underscore is part of the name
         ("numpy.core._exceptions._ArrayMemoryError", "Unable to allocate 3.81 GiB for an array "
          "with shape (1024, 1000000) and data type float32")]
FRAMES = ['  File "/home/ray/anaconda3/lib/python3.11/site-packages/ray/serve/_private/'
          'replica.py", line 690, in initialize',
          "    self._user_callable_asgi_app = await asyncio.wrap_future(",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/llm_engine.py", '
          "line 435, in _initialize_kv_caches",
          "    self.model_executor.determine_num_available_blocks())",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 233, '
          "in determine_num_available_blocks",
          "    raise ValueError("]


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(PREFIXES), st.sampled_from(INNER),
       st.sampled_from(["RuntimeError", "Exception", "ray.exceptions.RayTaskError"]),
       st.integers(0, 4), st.integers(1, 6), st.integers(0, 3))
def test_an_exception_that_carries_a_traceback_is_not_the_root(
        outer: str, prefix: str, inner: tuple[str, str], wrapper: str, outer_frames: int,
        inner_frames: int, cut: int) -> None:
    name, message = inner
    header = [f"{prefix}ERROR 2025-06-09 16:23:50,123 controller 7620 -- Exception in "
              "Replica(id='q1w2', deployment='VLLMDeployment', app='default'), the replica "
              "will be stopped.", f"{prefix}Traceback (most recent call last):"]
    body = [*header, *(prefix + f for f in FRAMES[:outer_frames]),
            f"{prefix}{wrapper}: Traceback (most recent call last):",
            *(prefix + f for f in FRAMES[-inner_frames:]), f"{prefix}{name}: {message}",
            f"{prefix}INFO 2025-06-09 16:23:51,001 controller 7620 -- Replica(id='q1w2') is "
            "stopped."]
    lines = [outer + line for line in body[cut:]]  # a paste may start anywhere before it
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None
    assert report.root_cause.exception == name
    assert report.root_cause.line == len(lines) - 1


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(PREFIXES),
       st.sampled_from(["socket.gaierror", "_socket.gaierror", "socket.herror", "struct.error",
                        "zlib.error", "select.error", "binascii.error"]),
       st.sampled_from(["[Errno -3] Temporary failure in name resolution",
                        "unpack requires a buffer of 4 bytes", "Error -3 while decompressing"]),
       st.booleans())
def test_a_lower_case_exception_class_is_an_exception(outer: str, prefix: str, name: str,
                                                      message: str, logged: bool) -> None:
    header = "ERROR 03-27 08:29:21 [core.py:718] " if logged else ""
    lines = [outer + prefix + "INFO 03-27 08:29:20 [config.py:193] Using max model len 4096",
             *(outer + prefix + header + line for line in (
                 "Traceback (most recent call last):",
                 '  File "/usr/local/lib/python3.10/dist-packages/vllm/utils.py", line 176, '
                 "in get_ip",
                 '    s.connect(("8.8.8.8", 80))',
                 f"{name}: {message}"))]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None and report.root_cause.exception == name
    assert report.root_cause.line == len(lines)


DEAD_ENGINE = [
    ["(APIServer pid=1) ERROR 05-24 12:44:50 [async_llm.py:480] AsyncLLM output_handler failed.",
     "(APIServer pid=1) ERROR 05-24 12:44:50 [async_llm.py:480] Traceback (most recent call last):",
     '(APIServer pid=1) ERROR 05-24 12:44:50 [async_llm.py:480]   File "/usr/local/lib/python3.12/'
     'dist-packages/vllm/v1/engine/core_client.py", line 846, in get_output_async',
     "(APIServer pid=1) ERROR 05-24 12:44:50 [async_llm.py:480] vllm.v1.engine.exceptions."
     "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root "
     "cause."],
    ["ERROR 12-01 13:05:02 client.py:282] RuntimeError('Engine process (pid 76) died.')",
     "ERROR 12-01 13:05:02 client.py:282] NoneType: None",
     "CRITICAL 12-01 13:05:02 launcher.py:99] MQLLMEngine is already dead, terminating server "
     "process"],
    ["ERROR 07-02 10:00:00 async_llm_engine.py:56] Engine background task failed",
     "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already."],
    ["(APIServer pid=9) ERROR 08-01 21:00:05 [core_client.py:564] Engine core proc "
     "EngineCore_DP0 died unexpectedly, shutting down client."],
]
ANSWERS = ['INFO:     10.42.4.0:58264 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
           'INFO:     10.42.31.1:56700 - "GET /health HTTP/1.1" 200 OK',
           'INFO:     10.42.4.0:58270 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error',
           "INFO 05-24 12:44:53 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 "
           "tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs"]


@SOME
@given(st.sampled_from(DEAD_ENGINE), st.sampled_from(["", "(APIServer pid=1) "]),
       st.lists(st.sampled_from(ANSWERS), max_size=IN_FLIGHT - 2), st.booleans())
def test_a_dead_engine_with_requests_in_flight_is_never_healthy(
        report_lines: list[str], prefix: str, answers: list[str], served_before: bool) -> None:
    before = [prefix + ANSWERS[0]] * 3 if served_before else []
    lines = [*before, *report_lines, *(prefix + a for a in answers), prefix + "INFO:     "
             "Shutting down"]
    report = explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.verdict, report.reasons)


# ---- a log service's CSV export (CloudWatch for SageMaker endpoints, Logs Insights) ----------
CSV_ROWS = ['1718000000000,INFO 06-10 12:00:00 api_server.py:177] vLLM API server version 0.5.0',
            '1718000000001,Traceback (most recent call last):',
            '1718000000002,"  File ""/usr/local/lib/python3.10/dist-packages/vllm/worker/'
            'worker.py"", line 175, in determine_num_available_blocks"',
            '1718000000003,"ValueError: No available memory for the cache blocks. Try increasing '
            '`gpu_memory_utilization`, or lower `max_model_len`."']


@SOME
@given(st.sampled_from(["timestamp,message", '"@timestamp","@message"', "\ufefftime,log"]),
       st.integers(0, len(CSV_ROWS) - 2), st.booleans())
def test_a_csv_export_with_a_row_cut_open_loses_no_later_row(header: str, cut: int,
                                                            crlf: bool) -> None:
    """A row whose quote never closes (an export cut mid-row) is one line; the rows after it
    are read, and line numbers are the file's."""
    rows = [*CSV_ROWS[:cut], CSV_ROWS[cut][:40], *CSV_ROWS[cut + 1:]]
    end = "\r\n" if crlf else "\n"
    report = explain_text(end.join([header, *rows]) + end, signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    assert report.root_cause.line == len(rows) + 1
    assert "No available memory" in report.root_cause.message


def test_a_csv_header_alone_is_no_log() -> None:
    report = explain_text("timestamp,message\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE
    assert any("CSV export" in notice for notice in report.notices)


def test_a_comma_in_the_first_line_of_a_log_is_not_a_csv_export() -> None:
    text = ("INFO 06-10 12:00:00 api_server.py:177] args: Namespace(host=None, port=8000)\n"
            "ValueError: time,message\n")
    report = explain_text(text, signatures=default_signatures())
    assert not any("CSV export" in notice for notice in report.notices)
    assert report.root_cause is not None and report.root_cause.line == 2


# ---- a process that aborts over what its native code logged (torch's NCCL watchdog) ----------
WATCHDOG_HEADERS = ["[rank1]:[E524 12:54:43.267261276 ProcessGroupNCCL.cpp:607] ",
                    "[E ProcessGroupNCCL.cpp:475] ", "E0524 12:54:43.267261 301 ProcessGroupNCCL.cpp:607] "]
ABORTS = [["terminate called after throwing an instance of 'c10::DistBackendError'",
           "  what():  [PG 3 Rank 1] Process group watchdog thread terminated with exception: "
           "[Rank 1] Watchdog caught collective operation timeout"],
          ["Fatal Python error: Aborted", "", "Thread 0x00007f3e (most recent call first):"],
          ["*** SIGABRT received at time=1716555283 on cpu 12 ***"]]


@SOME
@given(st.sampled_from(["", "(Worker_TP1 pid=301) ", "(RayWorkerWrapper pid=301, ip=10.0.0.2) "]),
       st.sampled_from(WATCHDOG_HEADERS), st.sampled_from(ABORTS), st.integers(0, 3),
       st.integers(0, 20))
def test_the_record_a_process_aborted_over_is_the_root(prefix: str, header: str,
                                                       abort: list[str], serving: int,
                                                       between: int) -> None:
    lines = [ANSWERS[0]] * serving + [
        prefix + header + "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL("
        "SeqNum=203441, OpType=ALLREDUCE, NumelIn=32064, NumelOut=32064, Timeout(ms)=600000) "
        "ran for 600020 milliseconds before timing out.",
        *[prefix + header + "[Rank 1] Some NCCL operations have failed or timed out."] * between,
        *(prefix + line for line in abort),
        "(EngineCore_DP0 pid=100) ERROR 05-24 12:54:44 [multiproc_executor.py:150] Worker proc "
        "Worker_TP1 died unexpectedly, shutting down executor."]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert "Watchdog caught collective operation timeout" in report.root_cause.message
    assert report.root_cause.line == serving + 1


def test_a_python_record_before_a_crash_does_not_outweigh_it() -> None:
    """Only native code's records: a Python logger's error a few lines before a segfault is not
    what the segfault was about."""
    lines = ["(Worker_TP0 pid=200) ERROR 05-24 12:54:40 [utils.py:88] Failed to read the model's "
             "generation config",
             "(Worker_TP0 pid=200) Fatal Python error: Segmentation fault",
             "(Worker_TP0 pid=200) ",
             '(Worker_TP0 pid=200)   File "/vllm/worker/model_runner.py", line 1234 in '
             "execute_model"]
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "Fatal Python error"


# What can stand before an exception's name on its line: a wrapper the grammar has no shape for,
# the end of a line a paste cut, a script's or a test runner's lead, a logger's message quoting it.
LEADS = ["[2024-05-01 10:00:00] ", "10:00:00 ", "E   ", "pod/vllm-0 ", "+ ", "Failed: ",
         "I get this error: ", "Error in model execution: ", "worker.py 12 -> ",
         "2024/05/01 10:00:00 serve.sh: "]
# after other text only a class named `...Error`/`...Exception` counts (a lower-case `socket.gaierror`
# there is too like a sentence's words)
NAMED = [(name, message) for name, message in INNER if name.endswith(("Error", "Exception"))]


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(LEADS), st.sampled_from(NAMED),
       st.integers(0, 3))
def test_an_exception_named_after_other_text_is_an_error(
        outer: str, lead: str, inner: tuple[str, str], healthy_before: int) -> None:
    name, message = inner
    before = ["INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.8.5"][:healthy_before]
    lines = [outer + line for line in [*before, f"{lead}{name}: {message}"]]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None
    assert report.root_cause.exception == name
    assert report.root_cause.line == len(lines)


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(LEADS), st.sampled_from(NAMED),
       st.sampled_from(["INFO", "WARNING", "DEBUG"]))
def test_a_quiet_record_that_names_an_exception_is_not_an_error(
        outer: str, lead: str, inner: tuple[str, str], level: str) -> None:
    # an INFO or WARNING record quoting an error it handled. (An indented line that names one is
    # an exception line pasted indented, except where a frame's source line could be that code:
    # tests/test_paste_wrappers.py)
    name, message = inner
    line = f"{level} 05-01 10:00:00 [loader.py:88] {lead}{name}: {message}"
    report = explain([outer + line])
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


@SOME
@given(st.sampled_from(["Something about an Error: not really", "an Exception: see below",
                        "the server said Error: retry later", "lowercaseerror: text"]))
def test_a_bare_error_word_after_text_stays_text(line: str) -> None:
    assert explain([line]).verdict is Verdict.NO_FAILURE


# Errors printed as a phrase, not as a class: native code's CUDA and NCCL errors, an OSError's own
# text, an OpenAI client's report of a server error.
PHRASES = [("CUDA error", "an illegal memory access was encountered"),
           ("NCCL error", "unhandled system error (run with NCCL_DEBUG=INFO for details)"),
           ("HIP error", "invalid device function")]


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(["", *LEADS]), st.sampled_from(PHRASES))
def test_a_native_error_phrase_is_an_error(outer: str, lead: str,
                                           phrase: tuple[str, str]) -> None:
    label, message = phrase
    report = explain([outer + "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.8.5",
                      f"{outer}{lead}{label}: {message}"])
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None and report.root_cause.line == 2
    assert report.root_cause.exception in (label, "CUDA error"), report.root_cause


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(["98] error while attempting to bind on address "
                                                 "('0.0.0.0', 8000): address already in use",
                                                 "28] No space left on device"]))
def test_an_errno_text_is_an_os_error(outer: str, rest: str) -> None:
    report = explain([f"{outer}[Errno {rest}"])
    assert report.root_cause is not None and report.root_cause.exception == "OSError"


@SOME
@given(st.sampled_from(["INFO", "WARNING"]), st.sampled_from(PHRASES), st.integers(400, 499))
def test_a_quiet_phrase_is_not_an_error_and_a_refused_request_after_it_is_the_root(
        level: str, phrase: tuple[str, str], code: int) -> None:
    label, message = phrase
    quiet = f"{level} 05-01 10:00:00 [x.py:1] retrying after {label}: {message}"
    assert explain([quiet]).verdict is Verdict.NO_FAILURE
    # a client's copy of the refusal's body, the paste ending on it: the request's error
    # (tests/test_client_error_pastes.py), never the quiet phrase before it
    report = explain([quiet, f"Error code: {code} - {{'object': 'error', 'message': 'too long', "
                             f"'type': 'BadRequestError', 'code': {code}}}"])
    assert report.root_cause is not None and report.root_cause.line == 2, report.root_cause


def test_a_traceback_message_going_on_keeps_the_phrase_as_its_own() -> None:
    # torch prints NCCL's phrase inside a DistBackendError's message; it is not a second error
    report = explain(["Traceback (most recent call last):",
                      '  File "/x/vllm/distributed/parallel_state.py", line 12, in init',
                      "    torch.distributed.all_reduce(x)",
                      "torch.distributed.DistBackendError: NCCL error in: "
                      "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error",
                      "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"])
    assert report.root_cause is not None
    assert report.root_cause.exception == "torch.distributed.DistBackendError"
    assert not report.symptoms
