"""Request errors the server survives, an operator's Ctrl-C, records that end where their process
prints elsewhere, error records behind unknown wrappers, and the messages that only report a
failure elsewhere (issue 10, from the tuning set's new logs).

A request error is logged and answered (a 4xx refusal, or a 200 with a plain answer), and the
server goes on. One rule says which were survived, whatever their shape (causality.yaml
`requests`): the server served a request or refused another after it; a log that ends on one and
the refusal that answers it is failing (it is what its reporter asks about), unless the same
error was survived before. None of them hides a real crash that follows. Logs are generated from real line shapes (V0's
unprefixed records and uvicorn lines, V1's prefixed API server), in every order hypothesis picks.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.assemble import assemble
from logsleuth.model import ErrorEvent, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import clean, parse_line
from scenario_logs import ILLEGAL_ACCESS, OUT_OF_VOCAB, SITE, Server


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def events(lines: list[str]) -> list[ErrorEvent]:
    parsed = (parse_line(clean(raw), number) for number, raw in enumerate(lines, 1))
    return sorted((e for e in assemble(parsed) if isinstance(e, ErrorEvent)),
                  key=lambda e: e.line)


# ---- V0-era server: every process prints as `main` -------------------------------------------

V0_START = ["INFO 03-18 09:00:11 api_server.py:212] vLLM API server version 0.6.3",
            "INFO 03-18 09:00:12 llm_engine.py:98] Initializing an LLM engine (v0.6.3) with "
            "config: model='Qwen/QwQ-32B', tensor_parallel_size=1",
            "INFO:     Application startup complete."]

# Records vLLM's request handlers log at ERROR for one request, then answer it
REQUEST_ERRORS = [
    ("ERROR 03-18 09:02:03 serving_chat.py:133] Error with model object='error' message='The "
     "model `{name}` does not exist.' type='NotFoundError' param=None code=404",
     'INFO:     192.168.1.168:12475 - "POST /v1/chat/completions HTTP/1.1" 404 Not Found'),
    ("ERROR 05-01 01:51:54 serving_chat.py:898] Error in chat_completion_full_generator - cannot "
     "determine if tools should be extracted. Returning a standard chat completion.",
     'INFO:     114.242.33.191:32107 - "POST /v1/chat/completions HTTP/1.1" 200 OK'),
    ("ERROR 03-18 09:04:10 serving_completion.py:116] Error with model object='error' "
     "message='This model's maximum context length is 4096 tokens.' type='BadRequestError' "
     "param=None code=400",
     'INFO:     10.0.0.7:40112 - "POST /v1/completions HTTP/1.1" 400 Bad Request'),
]


def v0_serving(count: int) -> list[str]:
    lines = []
    for i in range(count):
        lines.append(f'INFO:     10.0.0.{i % 200}:5{i % 1000:03d} - "POST /v1/chat/completions '
                     'HTTP/1.1" 200 OK')
        if i % 4 == 0:
            lines.append("INFO 03-18 09:03:16 metrics.py:455] Avg prompt throughput: 33.4 tokens/"
                         "s, Avg generation throughput: 37.8 tokens/s, Running: 1 reqs, Swapped: "
                         "0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%")
    return lines


V0_CRASH = [
    "ERROR 03-18 09:09:00 async_llm_engine.py:64] Engine background task failed",
    "ERROR 03-18 09:09:00 async_llm_engine.py:64] Traceback (most recent call last):",
    f'ERROR 03-18 09:09:00 async_llm_engine.py:64]   File "{SITE}/worker/model_runner.py", line '
    "1703, in execute_model",
    "ERROR 03-18 09:09:00 async_llm_engine.py:64]     hidden_states = model_executable(",
    "ERROR 03-18 09:09:00 async_llm_engine.py:64] RuntimeError: CUDA error: an illegal memory "
    "access was encountered",
    "CRITICAL 03-18 09:09:01 launcher.py:99] MQLLMEngine is already dead, terminating server "
    "process",
]


# which request errors, how much serving before each, and whether the log ends on the last error
request_runs = st.lists(st.tuples(st.sampled_from(range(len(REQUEST_ERRORS))),
                                  st.integers(0, 30), st.booleans()), min_size=1, max_size=6)


def v0_log(runs: list[tuple[int, int, bool]], cut_after_last: bool) -> list[str]:
    lines = list(V0_START)
    for index, (kind, serving, _) in enumerate(runs):
        error, answer = REQUEST_ERRORS[kind]
        lines += v0_serving(serving) + [error.format(name=f"model-{index}"), answer]
    return lines[:-1] if cut_after_last else lines


@given(request_runs, st.integers(1, 30), st.booleans())
def test_request_errors_of_an_unnamed_server_are_survived(runs: list[tuple[int, int, bool]],
                                                          after: int, cut: bool) -> None:
    # each answered (4xx, or 200 with a plain answer) and the server serves on after the last;
    # or the log ends on a recurrence of one the server served on from before
    recurs = len(runs) > 1 and runs[-1][0] in [k for k, _, _ in runs[:-1]] and runs[-1][1] > 0
    lines = v0_log(runs, cut and recurs)
    if not (cut and recurs):
        lines += v0_serving(after)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


@given(request_runs, st.integers(0, 20))
def test_request_errors_do_not_hide_the_crash_that_follows(runs: list[tuple[int, int, bool]],
                                                           serving: int) -> None:
    lines = v0_log(runs, False) + v0_serving(serving)
    crash_at = len(lines)
    lines += V0_CRASH
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == crash_at + 5


def test_an_error_never_answered_is_no_request_error() -> None:
    # the same record with no answer and no work after it, and nothing earlier like it, logged
    # where no request handler logs (a request handler's own call site is knowledge that vLLM
    # answers it: tests/test_benign.py): failing
    record = REQUEST_ERRORS[0][0].format(name="m").replace("serving_chat.py:133", "engine.py:133")
    lines = V0_START + v0_serving(5) + [record]
    assert explain(lines).verdict is Verdict.FAILURE


def test_a_poll_answered_does_not_excuse_an_unnamed_error_record() -> None:
    # a 200 to a health poll says the HTTP server lives, not that the engine does
    lines = V0_START + v0_serving(5) + [
        "ERROR 03-18 09:05:00 async_llm_engine.py:658] Engine iteration timed out. This should "
        "never happen!"] + ['INFO:     10.0.0.9:40000 - "GET /health HTTP/1.1" 200 OK'] * 3
    assert explain(lines).verdict is not Verdict.NO_FAILURE


# ---- V1 API server: a tool parser's logged traceback per bad tool call -----------------------

def tool_parser_error(s: Server, cut: bool) -> list[str]:
    head = f"(APIServer pid={s.api}) ERROR {s.time()} [hermes_tool_parser.py:148] "
    lines = [head + "Error in extracting tool call from response.",
             head + "Traceback (most recent call last):"]
    if cut:
        return lines
    return lines + [
        f'{head}  File "{SITE}/entrypoints/openai/tool_parsers/hermes_tool_parser.py", line 88, '
        "in extract_tool_calls",
        f"{head}    json.loads(match[0] if match[0] else match[1])",
        f"{head}json.decoder.JSONDecodeError: Extra data: line 3 column 1 (char 56)"]


@given(st.lists(st.integers(0, 12), min_size=1, max_size=5), st.booleans())
def test_tool_parser_errors_between_answers_are_survived(gaps: list[int], cut: bool) -> None:
    # each error is followed by the request's 200 and more serving; the log may end inside the
    # next one's traceback (a paste cut there), which recurs at the same logger call site
    s = Server()
    lines = s.startup()
    for gap in gaps:
        lines += tool_parser_error(s, False) + s.requests(1 + gap)
    if cut:
        lines += tool_parser_error(s, True)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


def test_a_recurring_call_site_does_not_excuse_a_report_of_a_dead_engine() -> None:
    # the API server's stream generator: first a survived client error, later the report that
    # the engine died; the report still stands (its cause is not in the log)
    s = Server()
    head = f"(APIServer pid={s.api}) ERROR {{}} [serving_chat.py:1145] "
    first = [head.format(s.time()) + "Error in chat completion stream generator.",
             head.format(s.time()) + "Traceback (most recent call last):",
             head.format(s.time()) + "asyncio.exceptions.CancelledError: client disconnected"]
    last = [head.format(s.time()) + "Error in chat completion stream generator.",
            head.format(s.time()) + "Traceback (most recent call last):",
            head.format(s.time()) + "vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
            "encountered an issue. See stack trace (above) for the root cause."]
    lines = s.startup() + s.requests(5) + first + s.requests(40) + last
    assert explain(lines).verdict is Verdict.ROOT_CAUSE_MISSING


def test_a_crash_after_tool_parser_errors_is_the_root() -> None:
    s = Server()
    lines = s.startup() + tool_parser_error(s, False) + s.requests(30)
    crash_at = len(lines)
    lines += s.engine_error(ILLEGAL_ACCESS) + s.engine_dead()
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "torch.AcceleratorError"
    assert report.root_cause.line > crash_at


# ---- one record's lines are printed together --------------------------------------------------

@given(st.integers(0, 3), st.integers(1, 4))
def test_a_later_record_of_the_same_call_site_is_not_part_of_the_message(continued: int,
                                                                         between: int) -> None:
    # an exception with `continued` message lines; then the same process prints elsewhere
    # (answers, stats); then the same logger call site logs again: a new record, not the message
    s = Server()
    head = f"(APIServer pid={s.api}) ERROR {s.time()} [hermes_tool_parser.py:148] "
    lines = [head + "json.decoder.JSONDecodeError: Extra data: line 3 column 1 (char 56)"]
    lines += [head + f"detail {i}" for i in range(continued)]
    lines += s.requests(between)
    lines += [head + "Error in extracting tool call from response."]
    first = events(lines)[0]
    assert first.exception == "json.decoder.JSONDecodeError"
    assert "Error in extracting" not in first.message
    assert first.message.count("detail") == continued


def test_other_processes_may_interleave_a_message() -> None:
    s = Server()
    head = f"(EngineCore_DP0 pid={s.engine}) ERROR 08-01 20:00:01 [core.py:710] "
    lines = [head + "RuntimeError: CUDA error: an illegal memory access was encountered",
             s.worker_line(0, "INFO", "gpu_worker.py:1", "still here"),
             head + "CUDA kernel errors might be asynchronously reported at some other API call"]
    (event,) = [e for e in events(lines) if e.exception == "RuntimeError"]
    assert "asynchronously reported" in event.message


# ---- `NoneType: None`: logger.exception() with no exception to print --------------------------

@pytest.mark.parametrize("prefix", ["", "(APIServer pid=7) ", "api-1  | "])
def test_none_type_none_ends_the_record_above_it(prefix: str) -> None:
    lines = [f"{prefix}ERROR 02-05 01:21:05 client.py:300] RuntimeError('Engine process (pid 76) "
             "died.')",
             f"{prefix}ERROR 02-05 01:21:05 client.py:300] NoneType: None"]
    (event,) = events(lines)
    assert event.exception == "RuntimeError"
    assert event.line == 1


# ---- messages that only report a failure elsewhere --------------------------------------------

REPORTS = [
    "ERROR 11-05 12:03:00 client.py:250] RuntimeError: Engine loop has died",
    "CRITICAL 11-05 12:03:03 launcher.py:99] MQLLMEngine is already dead, terminating server "
    "process",
    "(EngineCore_DP0 pid=2900) ERROR 07-07 02:22:12 [dump_input.py:76] Dumping scheduler output "
    "for model execution: SchedulerOutput(scheduled_new_reqs=[])",
    "(EngineCore_DP0 pid=2900) ERROR 07-07 02:22:12 [dump_input.py:69] Dumping input data for V1 "
    "LLM engine (v0.11.0) with config: model='m'",
    # Ray's, torchrun's, a subprocess's and a peer's reports (texts of Ray 2.9+, torch 2.x)
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    # a notebook runner's report that the notebook's kernel died (vllm#8352, Kaggle)
    "141.8s | 1035 | nbclient.exceptions.DeadKernelError: Kernel died",
    "subprocess.CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmpa2/main.c', '-O3']' "
    "returned non-zero exit status 1.",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
    "[10.0.0.2]:43211",
    "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 1.",
    # the native backtrace of an abort, through C++'s terminate handler (libstdc++'s frames)
    "(RayWorkerWrapper pid=7310) /usr/lib/x86_64-linux-gnu/libstdc++.so.6(+0xae20c) [0x7f5b9c8ae20c] "
    "__cxxabiv1::__terminate()",
]


@pytest.mark.parametrize("report_line", REPORTS, ids=range(len(REPORTS)))
def test_a_report_of_a_failure_elsewhere_is_never_the_root(report_line: str) -> None:
    alone = explain([report_line])
    assert alone.verdict is Verdict.ROOT_CAUSE_MISSING
    cause = ["ERROR 11-05 12:02:59 engine.py:135] ValueError: Attempted to assign 576 multimodal "
             "tokens to 0 placeholders"]
    found = explain(cause + [report_line]).root_cause
    assert found is not None and found.exception == "ValueError"


# ---- NCCL's timestamped WARN lines, syslog's escaped colours ----------------------------------

nccl_parts = st.tuples(st.from_regex(r"[a-z][a-z0-9\-]{0,12}", fullmatch=True),
                       st.integers(1, 99999), st.integers(0, 7),
                       st.sampled_from(["WARN", "ERROR", "INFO"]),
                       st.sampled_from(["init.cc:416 ", "misc/cudawrap.cc:36 ", ""]),
                       st.sampled_from(["Cuda failure 'operation not supported'",
                                        "NET/IB : Got async event : port error"]))


@given(nccl_parts, st.sampled_from(["[2025-08-11 10:45:36] ", "[2024-01-02 03:04:05.123] "]))
def test_a_timestamped_nccl_line_is_the_nccl_line(parts: tuple[str, int, int, str, str, str],
                                                  stamp: str) -> None:
    host, pid, dev, level, site, text = parts
    bare = parse_line(f"{host}:{pid}:{pid + 1} [{dev}] {site}NCCL {level} {text}")
    stamped = parse_line(f"{stamp}{host}:{pid}:{pid + 1} [{dev}] {site}NCCL {level} {text}")
    assert (stamped.kind, stamped.exception, stamped.message) == \
        (bare.kind, bare.exception, bare.message)
    assert stamped.exception == f"NCCL {level}"


LINES = ["(RayWorkerWrapper pid=5993) ERROR 07-29 21:41:19 worker_base.py:148] boom",
         "(raylet) A worker died or was killed while executing a task",
         "ERROR 03-18 09:02:03 [serving_chat.py:133] RuntimeError: x",
         '(APIServer pid=1) INFO:     10.0.0.1:1 - "GET /health HTTP/1.1" 200 OK']


@given(st.sampled_from(LINES), st.lists(st.sampled_from(["0", "2", "33", "36", "1;31"]),
                                        min_size=1, max_size=3))
def test_syslog_escaped_colours_read_as_colours(line: str, codes: list[str]) -> None:
    # rsyslog writes ESC as `#033`: the same line as with real escape codes
    colour = "".join(f"\x1b[{code}m" for code in codes)
    cut = line.index(" ") + 1
    coloured = colour + line[:cut] + "\x1b[0m" + line[cut:]
    escaped = coloured.replace("\x1b", "#033")
    assert parse_line(clean(escaped)) == parse_line(clean(coloured)) == parse_line(line)


def test_an_engine_exception_printed_again_after_answers_in_flight_stays_the_root() -> None:
    # V0: the engine's exception, answers already in flight, the same exception printed again as
    # the log ends: a copy, not a request error that recurs
    error = ["ERROR 03-18 09:09:00 async_llm_engine.py:64] Traceback (most recent call last):",
             f'ERROR 03-18 09:09:00 async_llm_engine.py:64]   File "{SITE}/worker/model_runner.py",'
             " line 1703, in execute_model",
             "ERROR 03-18 09:09:00 async_llm_engine.py:64] ValueError: Token id 151937 is out of "
             "vocabulary"]
    lines = V0_START + v0_serving(8) + error + v0_serving(2) + error
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


# ---- an ERROR record behind a wrapper nobody taught the grammar -------------------------------

unknown_wrapper = st.from_regex(r"[ a-z0-9/|:.\-]{0,24} ", fullmatch=True).filter(
    lambda w: not w.strip().startswith(("info", "warning", "error", "debug", "critical")))
record_shapes = st.sampled_from([
    "{level} 07-01 13:54:43 multiproc_worker_utils.py:120] ",
    "{level} 07-01 13:54:43 [multiproc_worker_utils.py:120] ",
    "2024-12-19 21:40:35 {level} 56542 [multiproc_worker_utils.py:120] ",
])


@given(unknown_wrapper, record_shapes, st.sampled_from(["ERROR", "CRITICAL"]))
def test_an_error_record_behind_an_unknown_wrapper_is_an_error(wrapper: str, shape: str,
                                                              level: str) -> None:
    text = "Worker VllmWorkerProcess pid 1159 died, exit code: -6"
    line = wrapper + shape.format(level=level) + text
    lines = ["INFO 07-01 13:50:00 api_server.py:212] vLLM API server version 0.5.1", line]
    report = explain(lines)
    assert report.verdict is not Verdict.NO_FAILURE, parse_line(clean(line))
    quiet = explain([lines[0], wrapper + shape.format(level="INFO") + text])
    assert quiet.verdict is Verdict.NO_FAILURE


@given(st.sampled_from(LINES + ["ERROR 12-19 21:40:35 async_llm_engine.py:64] Traceback (most "
                                "recent call last):",
                                'ERROR 12-19 21:40:35 x.py:64]   File "/v/w.py", line 1, in f']))
def test_a_pasted_caret_carriage_return_is_the_record_break(line: str) -> None:
    # vLLM ends record lines with `\r\n`; a paste may show that `\r` as `^M`
    assert parse_line(clean(line + "^M")) == parse_line(clean(line + "\r")) == parse_line(line)


# ---- Ctrl-C: an operator's interrupt is a stop, not a failure ---------------------------------

def interrupt_tail(s: Server, raw_processes: list[str]) -> list[str]:
    """What a terminal shows after Ctrl-C: uvicorn stops, processes print KeyboardInterrupt."""
    lines = [f"(APIServer pid={s.api}) INFO:     Shutting down",
             f"(APIServer pid={s.api}) INFO:     Application shutdown complete."]
    for name in raw_processes:
        lines += [f"({name}) Traceback (most recent call last):",
                  f'({name})   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, '
                  "in _bootstrap",
                  f"({name})     self.run()", f"({name}) KeyboardInterrupt"]
    return lines + ["Traceback (most recent call last):",
                    '  File "/usr/local/bin/vllm", line 8, in <module>',
                    "    sys.exit(main())", "KeyboardInterrupt"]


processes = st.lists(st.sampled_from(["EngineCore_DP0 pid=2900", "Worker_TP0 pid=3000",
                                      "Worker_TP1 pid=3001"]), max_size=3)


@given(st.integers(0, 40), processes)
def test_ctrl_c_after_serving_is_no_failure(serving: int, raw: list[str]) -> None:
    s = Server()
    lines = s.startup() + s.requests(serving) + interrupt_tail(s, raw)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


@given(st.integers(0, 10), processes)
def test_ctrl_c_after_a_crash_keeps_the_crash(serving: int, raw: list[str]) -> None:
    s = Server()
    lines = s.startup() + s.requests(serving)
    crash_at = len(lines)
    lines += s.engine_error(ILLEGAL_ACCESS) + s.engine_dead() + interrupt_tail(s, raw)
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "torch.AcceleratorError"
    assert report.root_cause.line > crash_at


# ---- a request's traceback in unprefixed output: its frames say it is the HTTP server's -------
# vLLM 0.10 prints every process without a prefix; an over-long prompt is logged with its
# traceback (serving_chat.py -> serving_engine.py:_validate_input) and answered 400, and the
# server goes on. The frames, not the prefix, say the error is the HTTP server's, so its answers
# show it survived; and an engine's death later is not caused by it.

# A handler's error that fails every request of its kind (no chat template: every chat request),
# and one that is the client's by its text (a prompt too long: only requests that do not fit;
# causality.yaml `requests.clients`)
NO_TEMPLATE = ("As of transformers v4.44, default chat template is no longer allowed, so you must "
               "provide a chat template if the tokenizer does not define one.")


def too_long(asked: int) -> str:
    return (f"This model's maximum context length is 2048 tokens. However, you requested {asked} "
            f"tokens ({asked - 500} in the messages, 500 in the completion). Please reduce the "
            "length of the messages or completion.")


def request_traceback(prefix: str, site: str, layout: str, asked: int,
                      client: bool = True) -> list[str]:
    head = f"{prefix}ERROR 08-18 19:58:43 [{site}] "
    handler, engine = {
        "old": ("entrypoints/openai/serving_chat.py", "entrypoints/openai/serving_engine.py"),
        "new": ("entrypoints/openai/chat_completion/serving.py",
                "entrypoints/openai/engine/serving.py")}[layout]
    return [head + "Error in preprocessing prompt inputs",
            head + "Traceback (most recent call last):",
            f'{head}  File "{SITE}/{handler}", line 186, in create_chat_completion',
            f"{head}    ) = await self._preprocess_chat(",
            f'{head}  File "{SITE}/{engine}", line 626, in _validate_input',
            f"{head}    raise ValueError(",
            f"{head}ValueError: {too_long(asked) if client else NO_TEMPLATE}"]


def unprefixed_answers(prefix: str, codes: list[int]) -> list[str]:
    words = {200: "OK", 400: "Bad Request", 401: "Unauthorized"}
    return [f'{prefix}INFO:     127.0.0.1:{50000 + i} - "POST /v1/chat/completions HTTP/1.1" '
            f"{code} {words[code]}" for i, code in enumerate(codes)]


V010_START = ["INFO 08-18 19:56:47 [api_server.py:1755] vLLM API server version 0.10.0",
              "INFO 08-18 19:56:55 [core.py:71] Initializing a V1 LLM engine (v0.10.0) with "
              "config: model='Qwen/Qwen3-8B', tensor_parallel_size=1",
              "INFO 08-18 19:57:21 [core.py:193] init engine (profile, create kv cache, warmup "
              "model) took 15.26 seconds",
              "INFO:     Started server process [85565]",
              "INFO:     Application startup complete."]
V010_ENGINE_DEATH = [
    "ERROR 08-18 20:10:00 [core.py:634] EngineCore encountered a fatal error.",
    "ERROR 08-18 20:10:00 [core.py:634] Traceback (most recent call last):",
    f'ERROR 08-18 20:10:00 [core.py:634]   File "{SITE}/v1/engine/core.py", line 625, in '
    "run_engine_core",
    "ERROR 08-18 20:10:00 [core.py:634]     engine_core.run_busy_loop()",
    "ERROR 08-18 20:10:00 [core.py:634] RuntimeError: CUDA error: unspecified launch failure"]
V010_DEAD = [
    "ERROR 08-18 20:10:01 [async_llm.py:416] AsyncLLM output_handler failed.",
    "ERROR 08-18 20:10:01 [async_llm.py:416] vllm.v1.engine.exceptions.EngineDeadError: "
    "EngineCore encountered an issue. See stack trace (above) for the root cause."]

# each request error: tokens asked, 2xx requests served before it, and whether its 400 is logged
request_errors = st.lists(st.tuples(st.integers(2100, 9000), st.integers(0, 6)),
                          min_size=1, max_size=5)
layouts = st.sampled_from(["old", "new"])
sites = st.sampled_from(["serving_chat.py:203", "chat_completion/serving.py:251"])


def served_with_request_errors(prefix: str, errors: list[tuple[int, int]], layout: str,
                               site: str) -> list[str]:
    lines = [prefix + line for line in V010_START]
    for asked, served in errors:
        lines += unprefixed_answers(prefix, [200] * served)
        lines += request_traceback(prefix, site, layout, asked)
        lines += unprefixed_answers(prefix, [400])
    return lines


@given(request_errors, st.integers(1, 8), layouts, sites, st.sampled_from(["", "api-1  | "]))
def test_request_tracebacks_answered_in_unprefixed_output_are_survived(
        errors: list[tuple[int, int]], after: int, layout: str, site: str, wrapper: str) -> None:
    # each answered 400, and the server goes on serving after them
    lines = served_with_request_errors(wrapper, errors, layout, site)
    lines += unprefixed_answers(wrapper, [200] * after)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.reasons
    assert sum(e.occurrences for e in report.survived) >= len(errors)


@given(request_errors, layouts, sites)
def test_an_engine_death_after_request_tracebacks_has_the_engines_cause(
        errors: list[tuple[int, int]], layout: str, site: str) -> None:
    lines = served_with_request_errors("", errors, layout, site) + unprefixed_answers("", [200])
    crash_at = len(lines) + len(V010_ENGINE_DEATH)
    report = explain(lines + V010_ENGINE_DEATH + V010_DEAD)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == crash_at
    assert report.root_cause.exception == "RuntimeError"


@given(request_errors, layouts, sites, st.booleans())
def test_an_engine_death_whose_cause_is_missing_is_never_a_request_error(
        errors: list[tuple[int, int]], layout: str, site: str, last_answered: bool) -> None:
    # the engine's own error cut from the log; the last request error may not have been
    # answered before the engine died (its 400 never logged)
    lines = served_with_request_errors("", errors, layout, site)
    if not last_answered:
        lines = lines[:-1]
    report = explain(lines + V010_DEAD)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause


@given(st.integers(2100, 9000), layouts, sites, st.integers(0, 6), st.booleans())
def test_a_log_ending_on_a_request_traceback_is_failing(asked: int, layout: str, site: str,
                                                       served: int, refused: bool) -> None:
    # the log ends on it, or on the 400 that answers it, with nothing served after: a handler's
    # error may fail every request of its kind, and that is what the log's reporter asks about
    lines = [*V010_START, *unprefixed_answers("", [200] * served),
             *request_traceback("", site, layout, asked, client=False),
             *unprefixed_answers("", [400] * refused)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


@given(st.integers(0, 6))
def test_a_serving_class_failing_to_start_is_no_request_error(served: int) -> None:
    # the same module's constructor runs at start-up: answers of an earlier server do not save it
    lines = [*V010_START, *unprefixed_answers("", [200] * served),
             "Traceback (most recent call last):",
             f'  File "{SITE}/entrypoints/openai/serving_chat.py", line 84, in __init__',
             "    self.tool_parser = ToolParserManager.get_tool_parser(tool_parser)",
             "KeyError: 'invalid tool call parser: foo (chose from { hermes })'",
             *unprefixed_answers("", [200] * served)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "KeyError"


# ---- one survival rule for every shape of request error (causality.yaml `requests`) -----------
# The same request error (a chat request refused with 400 for want of a chat template) printed as
# a V0 unprefixed record,
# a V1 API server's record, an unprefixed traceback whose frames are a request handler's, or an
# API server's traceback: whatever the shape, the server survived it when it went on to serve a
# request or to refuse another; a log that ends on it and the 400 that refuses it (polls after
# it or not) is failing, rooted at it.

def _record(prefix: str, client: bool = False) -> list[str]:
    message = "This model's maximum context length is 4096 tokens." if client else NO_TEMPLATE
    return [f"{prefix}ERROR 03-18 09:04:10 [serving_completion.py:116] Error with model "
            f"object='error' message='{message}' type='BadRequestError' param=None code=400"]


def _shapes(client: bool) -> dict[str, Callable[[], list[str]]]:
    return {
        "v0 record": lambda: _record("", client),
        "api server record": lambda: _record("(APIServer pid=2800) ", client),
        "unprefixed traceback": lambda: request_traceback("", "serving_chat.py:203", "old", 5000,
                                                          client),
        "api server traceback": lambda: request_traceback(
            "(APIServer pid=2800) ", "chat_completion/serving.py:251", "new", 5000, client),
    }


SHAPES = _shapes(client=False)
CLIENT_SHAPES = _shapes(client=True)
PREFIX_OF = {"v0 record": "", "api server record": "(APIServer pid=2800) ",
             "unprefixed traceback": "", "api server traceback": "(APIServer pid=2800) "}


def _answers(prefix: str, codes: list[int], path: str = "/v1/chat/completions") -> list[str]:
    words = {200: "OK", 400: "Bad Request", 404: "Not Found"}
    return [f'{prefix}INFO:     127.0.0.1:{51000 + i} - "POST {path} HTTP/1.1" {code} '
            f"{words[code]}" for i, code in enumerate(codes)]


def _polls(prefix: str, count: int) -> list[str]:
    return [f'{prefix}INFO:     10.0.0.7:52000 - "GET /health HTTP/1.1" 200 OK'] * count


def _shape_log(shape: str, before: int) -> tuple[list[str], int]:
    """A started server that served `before` requests, then the error and its 400; the line of
    the error's exception (or record)."""
    prefix = PREFIX_OF[shape]
    lines = [prefix + line for line in V010_START] + _answers(prefix, [200] * before)
    error = SHAPES[shape]()
    lines += error
    return lines + _answers(prefix, [400]), len(lines)


@given(st.sampled_from(sorted(SHAPES)), st.integers(0, 6), st.integers(1, 6),
       st.sampled_from([200, 404]))
def test_a_request_error_the_server_went_on_from_is_survived_in_every_shape(
        shape: str, before: int, after: int, code: int) -> None:
    # another request served, or another refused, after the failed one's own 400
    lines, _ = _shape_log(shape, before)
    lines += _answers(PREFIX_OF[shape], [code] * after)
    if code == 404:  # a refusal alone shows the server took requests; serving ends the log well
        lines += _answers(PREFIX_OF[shape], [200])
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, (shape, report.reasons)


@given(st.sampled_from(sorted(SHAPES)), st.integers(0, 6), st.integers(0, 5))
def test_a_log_ending_on_a_request_error_and_its_refusal_fails_in_every_shape(
        shape: str, before: int, polls: int) -> None:
    lines, error_line = _shape_log(shape, before)
    lines += _polls(PREFIX_OF[shape], polls)  # a server whose engine died answers polls too
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, (shape, report.reasons)
    assert report.root_cause is not None and report.root_cause.line == error_line


@given(st.integers(0, 6), st.integers(1, 4))
def test_every_shape_gets_the_same_verdict(before: int, after: int) -> None:
    # the unification itself: one verdict per situation, whatever the shape
    for tail in ([], _answers("", [200] * after)):
        verdicts = set()
        for shape in SHAPES:
            lines, _ = _shape_log(shape, before)
            lines += [PREFIX_OF[shape] + t for t in tail]
            verdicts.add(explain(lines).verdict)
        assert len(verdicts) == 1, (tail, verdicts)


# ---- the same rule with other processes interleaved, and the log cut anywhere ----------------
# Whatever the shape, whatever other processes print in between (inside a prefixed traceback too),
# and wherever the log ends after the error: the error is survived exactly when the same output
# serves a request or refuses a second one after it (the first refusal answers the failed request
# itself); polls never count. A log cut inside the error's own lines is never healthy.

TAIL = {"serve": lambda p: _answers(p, [200]), "refuse": lambda p: _answers(p, [404]),
        "poll": lambda p: _polls(p, 1)}
# other processes' lines that show no work of the HTTP server's
PREFIXED_NOISE = ["(EngineCore_DP0 pid=2900) INFO 08-18 19:58:44 [block_pool.py:321] "
                  "Successfully reset prefix cache",
                  "(Worker_TP0 pid=3000) WARNING 08-18 19:58:44 [custom_all_reduce.py:85] Custom "
                  "allreduce is disabled because this process group spans across nodes."]
UNPREFIXED_NOISE = ["INFO 08-18 19:58:44 [logger.py:43] Received request chatcmpl-1: prompt: "
                    "'hi', params: SamplingParams(n=1, temperature=0.7), lora_request: None."]


def _blocks_with_noise(data: st.DataObject, blocks: list[list[str]], prefixed: bool) -> list[str]:
    """The blocks' lines in order, other processes' lines drawn between them: between any two
    lines where each line names its process, only between whole blocks where none does (an
    unprefixed traceback cannot be told apart from what interrupts it)."""
    noise = PREFIXED_NOISE if prefixed else UNPREFIXED_NOISE
    units = [[line] for block in blocks for line in block] if prefixed else blocks
    lines: list[str] = []
    for unit in units:
        lines += unit
        lines += data.draw(st.lists(st.sampled_from(noise), max_size=2))
    return lines


@given(st.data(), st.sampled_from(sorted(SHAPES)), st.integers(0, 4),
       st.lists(st.sampled_from(sorted(TAIL)), max_size=6))
def test_survival_depends_only_on_what_the_same_output_answers_after_the_error(
        data: st.DataObject, shape: str, before: int, tail: list[str]) -> None:
    prefix = PREFIX_OF[shape]
    error = SHAPES[shape]()
    served = ([a] for a in _answers(prefix, [200] * before))
    blocks = [[prefix + line for line in V010_START], *served, error, *(TAIL[kind](prefix) for kind in tail)]
    lines = _blocks_with_noise(data, blocks, prefixed=bool(prefix))
    report = explain(lines)
    saved = "serve" in tail or tail.count("refuse") >= 2
    if saved:
        assert report.verdict is Verdict.NO_FAILURE, (shape, tail, report.reasons)
    else:
        assert report.verdict is Verdict.FAILURE, (shape, tail, report.reasons)
        assert report.root_cause is not None
        assert report.root_cause.line == lines.index(error[-1]) + 1


@given(st.data(), st.sampled_from(sorted(SHAPES)), st.integers(0, 4))
def test_a_log_cut_inside_a_request_error_is_never_healthy(data: st.DataObject, shape: str,
                                                          before: int) -> None:
    prefix = PREFIX_OF[shape]
    error = SHAPES[shape]()
    kept = data.draw(st.integers(1, len(error)))
    lines = [prefix + line for line in V010_START] + _answers(prefix, [200] * before)
    lines += _blocks_with_noise(data, [error[:kept]], prefixed=bool(prefix))
    assert explain(lines).verdict is not Verdict.NO_FAILURE


@given(st.data(), st.sampled_from(sorted(SHAPES)), st.lists(st.sampled_from(sorted(TAIL)),
                                                          max_size=4), st.booleans())
def test_an_engine_that_dies_after_a_request_error_is_never_explained_by_it(
        data: st.DataObject, shape: str, tail: list[str], cause_in_log: bool) -> None:
    # the engine's own error (when the excerpt kept it) is the root; without it the cause is
    # missing, whether or not the server went on from the request's error
    prefix = PREFIX_OF[shape]
    s = Server()
    cause = (s.engine_error(OUT_OF_VOCAB) if prefix else V010_ENGINE_DEATH) if cause_in_log else []
    death = cause + (s.engine_dead() if prefix else V010_DEAD)
    blocks = [[prefix + line for line in V010_START], SHAPES[shape](),
              *(TAIL[kind](prefix) for kind in tail), death]
    lines = _blocks_with_noise(data, blocks, prefixed=bool(prefix))
    report = explain(lines)
    if cause_in_log:
        assert report.verdict is Verdict.FAILURE, (shape, tail, report.reasons)
        assert report.root_cause is not None
        assert report.root_cause.line == lines.index(cause[-1]) + 1
    else:
        assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (shape, tail, report.root_cause)


# ---- a request answered 5xx ----------------------------------------------------------------------
# The access line of a request the HTTP server answered 5xx says the request failed inside the
# server (causality.yaml `failed_answers`): the first of a streak is an error event, a symptom whose
# cause is elsewhere, saved by the requests the same server serves afterwards (vllm#40856: one 500
# alone).
# (uvicorn's 500 carries the word `Error`, which the anchors keep; its 502 and 503 do not reach the
# assembler)
def _answer(server: Server, code: int) -> str:
    return (f'(APIServer pid={server.api}) INFO:     127.0.0.1:50994 - "POST /v1/chat/completions '
            f'HTTP/1.1" {code} Internal Server Error')


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 30), st.integers(1, 40), st.just(500))
def test_a_failed_answer_the_server_serves_after_is_survived(before: int, failed: int,
                                                             code: int) -> None:
    s = Server()
    lines = s.startup() + s.requests(before) + [_answer(s, code)] * failed + s.requests(3)
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 30), st.integers(1, 40), st.just(500), st.integers(0, 5))
def test_failed_answers_at_the_end_are_one_symptom(before: int, failed: int, code: int,
                                                   polls: int) -> None:
    s = Server()
    lines = s.startup() + s.requests(before)
    first = len(lines) + 1
    lines += [_answer(s, code)] * failed + s.polls(polls)  # a poll needs no engine
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert [(e.exception, e.line) for e in report.symptoms] == [(f"HTTP {code}", first)]


# ---- a request the client must change: refused by design, whatever follows ---------------------
# A prompt plus max_tokens above the context length is the client's error by vLLM's own words
# (serving_engine's `_validate_input`, the OpenAI error body): vLLM answers it 400 and serves every
# request that fits (causality.yaml `requests.clients`). In every shape, a log that ends on one
# (its 400, polls, other processes' lines after it or not) is healthy; an engine that dies after
# it keeps the engine's cause; an offline LLM's prompt over its limit is no request of the server.

@given(st.data(), st.sampled_from(sorted(CLIENT_SHAPES)), st.integers(0, 4),
       st.lists(st.sampled_from(sorted(TAIL)), max_size=4), st.booleans())
def test_a_request_too_long_for_the_context_is_the_clients_error_in_every_shape(
        data: st.DataObject, shape: str, before: int, tail: list[str], started: bool) -> None:
    prefix = PREFIX_OF[shape]
    served = ([a] for a in _answers(prefix, [200] * before))
    head = [[prefix + line for line in V010_START]] if started else []
    blocks = [*head, *served, CLIENT_SHAPES[shape](), *(TAIL[kind](prefix) for kind in tail)]
    report = explain(_blocks_with_noise(data, blocks, prefixed=bool(prefix)))
    assert report.verdict is Verdict.NO_FAILURE, (shape, tail, report.reasons)


@given(st.sampled_from(["serving_chat.py:198", "serving_completion.py:116",
                        "chat_completion/serving.py:251", "serving_engine.py:626"]),
       st.sampled_from(["", "api-1  | ", "(APIServer pid=7) "]), st.integers(2049, 90000))
def test_a_lone_line_refusing_a_long_request_is_no_failure(site: str, wrapper: str,
                                                           asked: int) -> None:
    # the one line a reporter pastes (tests/fixtures/tuning/healthy/o-specreason-v1-...-oneline)
    line = f"{wrapper}ERROR 05-08 21:27:27 [{site}] ValueError: {too_long(asked)}"
    report = explain([line])
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


@given(st.data(), st.sampled_from(sorted(CLIENT_SHAPES)), st.booleans())
def test_an_engine_death_after_a_request_too_long_keeps_the_engines_cause(
        data: st.DataObject, shape: str, cause_in_log: bool) -> None:
    prefix = PREFIX_OF[shape]
    s = Server()
    cause = (s.engine_error(OUT_OF_VOCAB) if prefix else V010_ENGINE_DEATH) if cause_in_log else []
    death = cause + (s.engine_dead() if prefix else V010_DEAD)
    blocks = [[prefix + line for line in V010_START], CLIENT_SHAPES[shape](), death]
    lines = _blocks_with_noise(data, blocks, prefixed=bool(prefix))
    report = explain(lines)
    if cause_in_log:
        assert report.verdict is Verdict.FAILURE, (shape, report.reasons)
        assert report.root_cause is not None
        assert report.root_cause.line == lines.index(cause[-1]) + 1
    else:
        assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (shape, report.root_cause)


@given(st.integers(1001, 90000), st.sampled_from(["", "WARNING 11-20 10:00:00 "]))
def test_an_offline_prompt_over_its_limit_stays_a_failure(asked: int, head: str) -> None:
    # no request of the HTTP server: the V0 scheduler's refusal in an `LLM` run, and an offline
    # engine's ValueError raised below its own frames
    refusal = f"{head}scheduler.py:648] Input prompt ({asked} tokens) is too long and exceeds limit of 1000"
    assert explain([refusal]).verdict is Verdict.FAILURE
    offline = ["Traceback (most recent call last):",
               '  File "/app/run.py", line 9, in <module>',
               "    outputs = llm.generate(prompts, params)",
               f'  File "{SITE}/v1/engine/processor.py", line 380, in _validate_model_input',
               "    raise ValueError(",
               f"ValueError: {too_long(asked)}"]
    report = explain(offline)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


# ---- a paste of refused answers and nothing else (logsleuth/refused.py) ------------------------
# Every request the excerpt shows was refused (a 4xx) and no line says why: what the reporter
# shows is the failure, its reason is in the answers' bodies or in the server's log around them,
# not here. Anything else in the log (a start-up, an answer served, the request's error record)
# makes the refusals answers of a working server, as before.

refusals = st.builds(
    lambda prefix, ip, port, method, path, answer: f'{prefix}INFO:     {ip}:{port} - "{method} '
                                                   f'{path} HTTP/1.1" {answer}',
    st.sampled_from(["", "(APIServer pid=2800) ", "vllm-1  | ", "2025-02-14T08:00:01.5Z "]),
    st.sampled_from(["172.30.0.4", "127.0.0.1", "10.0.0.7"]), st.integers(1024, 65535),
    st.sampled_from(["POST", "POST", "GET"]),
    st.sampled_from(["/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/models"]),
    st.sampled_from(["400 Bad Request", "404 Not Found", "422 Unprocessable Entity",
                     "401 Unauthorized"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(refusals, min_size=1, max_size=8), st.lists(st.booleans(), max_size=8))
def test_a_paste_of_refused_answers_alone_leaves_the_reason_out(answers: list[str],
                                                               blanks: list[bool]) -> None:
    lines = [line for answer, blank in zip(answers, [*blanks, *[False] * len(answers)])
             for line in ([answer, ""] if blank else [answer])]
    report = explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, lines
    assert report.symptoms and report.symptoms[0].exception == "Refused"
    assert report.symptoms[0].line == 1


# The client's polls of the server's state between the refusals (`GET /v1/models`, `/health`
# answered 200: causality.yaml milestones `alive`) serve no request: every request that asked for
# work was still refused, in whatever order the polls come.
polls = st.builds(
    lambda prefix, port, path: f'{prefix}INFO:     192.168.100.1:{port} - "GET {path} HTTP/1.1" '
                               "200 OK",
    st.sampled_from(["", "(APIServer pid=1) ", "vllm-1  | "]), st.integers(1024, 65535),
    st.sampled_from(["/v1/models", "/health", "/metrics", "/version"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(refusals, min_size=1, max_size=6), st.lists(polls, min_size=1, max_size=6),
       st.randoms(use_true_random=False))
def test_answered_polls_among_refused_requests_leave_the_reason_out_too(
        answers: list[str], answered: list[str], order) -> None:  # noqa: ANN001 - a Random
    lines = [*answers, *answered]
    order.shuffle(lines)
    report = explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, lines
    assert report.symptoms and report.symptoms[0].exception == "Refused"
    first = next(n for n, line in enumerate(lines, 1) if line in answers)
    assert report.symptoms[0].line == first


@settings(max_examples=20, deadline=None)
@given(st.lists(polls, min_size=1, max_size=6))
def test_answered_polls_alone_are_a_working_server(answered: list[str]) -> None:
    assert explain(answered).verdict is Verdict.NO_FAILURE, answered


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(refusals, st.lists(polls, max_size=3)), min_size=1, max_size=5),
       st.lists(polls, max_size=3))
def test_refusals_between_answered_polls_still_leave_the_reason_out(
        answers: list[tuple[str, list[str]]], first: list[str]) -> None:
    lines = [*first]
    for refusal, after in answers:
        lines += [*after, refusal]  # the paste ends on a refusal
    report = explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, lines
    assert report.symptoms and report.symptoms[0].exception == "Refused"
    assert report.symptoms[0].line == len(first) + len(answers[0][1]) + 1
    # the refusals' family, or the exact refusal a 401 names
    assert report.signature is not None
    assert report.signature.id in {"openai-request-rejected", "api-key-unauthorized"}


SERVED = 'INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK'


@settings(max_examples=40, deadline=None)
@given(st.lists(refusals, min_size=1, max_size=5), st.sampled_from([
    [SERVED], V0_START,
    # a request served among answered polls: the server works, the refusals are answers
    ['INFO:     192.168.100.1:39972 - "GET /v1/models HTTP/1.1" 200 OK', SERVED],
    ["INFO 03-18 09:03:16 [chat_utils.py:346] Detected the chat template content format to be "
     "'string'."]]), st.booleans())
def test_refusals_beside_any_other_line_are_a_working_servers_answers(answers: list[str],
                                                                      other: list[str],
                                                                      before: bool) -> None:
    lines = [*other, *answers] if before else [*answers, *other]
    assert explain(lines).verdict is Verdict.NO_FAILURE, lines


@settings(max_examples=20, deadline=None)
@given(st.lists(refusals, min_size=1, max_size=5))
def test_refusals_after_the_record_that_says_why_are_its_answers(answers: list[str]) -> None:
    # the record is the request's error (survived, or the failure a log ending on it asks
    # about: the rule above); its answers report nothing of their own
    lines = [REQUEST_ERRORS[0][0].format(name="QwQ-32B"), *answers]
    report = explain(lines)
    assert report.verdict is not Verdict.ROOT_CAUSE_MISSING, lines
    assert all(s.exception != "Refused" for s in report.symptoms)
