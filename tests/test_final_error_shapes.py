"""A failing log is never `no_failure` because its one error had an unfamiliar shape (issue 10).

A healthy V1 server's log (start-up, answers, polls: tests/scenario_logs.py), with benign
warnings among its lines, then one last line that says the run failed, in one of many generated
shapes of four classes: a tool's error sentence in its own words (`FATAL: `, `fatal error: `,
`FAIL: `, `Failed: `, a check's refusal), a non-zero exit in any launcher's, harness's or CI
system's words (a process, a task, a script, a step; `exit status`, `exit code`, `return code`;
subprocess's `Command ... returned non-zero exit status N.`), a shell's report of a command it
could not find or run, and a runtime's or a native library's fatal line (Rust's and Go's
panics, protobuf's CHECK, glibc's heap report, a BSD or MSVC assert, macOS's
`Abort trap: 6`), and a harness's or a CI system's word that the server never came up or the run
failed (`Server failed to start within 600 seconds`, `Timed out waiting for the server to start`,
`Status: FAILED`, `BUILD FAILED`, unittest's `FAILED (failures=1)`). Behind any wrapper the log may carry. The same healthy logs without that line,
benign warnings and all, stay `no_failure`; so do lines that only look alike (an exit status 0,
a stop asked for, a sentence about failures that did not happen).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.assemble import assemble
from logsleuth.knowledge import Causality, default_causality
from logsleuth.model import ErrorEvent, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import anchor_patterns, clean, parse_line
from scenario_logs import Server

SUBJECTS = ["vllm", "vllm-server", "Process", "Task", "The process", "Container vllm", "Job",
            "script", "Step 'serve'", "Server", "Command", "worker-0", "python3"]
VERBS = ["exited", "failed", "returned", "terminated", "exited unexpectedly", "crashed", "died",
         "finished", "ended", "stopped"]
CODE_WORDS = ["with code", "with exit code", "with exit status", "with status", "with return code",
              "with a non-zero exit code", "with error code", "exit code", "with code exit status",
              "with exit code:", "with status ="]
CODES = ["1", "2", "127", "126", "255", "-11", "-6", "3"]
MESSAGES = ["model not found", "CUDA_HOME is not set", "the wheel is larger than the limit",
            "could not bind 0.0.0.0:8000", "unsupported architecture Qwen3MoeForCausalLM"]


def _exit_sentence(subject: str, verb: str, words: str, code: str) -> str:
    return f"{subject} {verb} {words} {code}".replace(": ", ":").replace(":", ": ").replace(
        "= ", "=")


EXITS = st.one_of(
    st.builds(_exit_sentence, st.sampled_from(SUBJECTS), st.sampled_from(VERBS),
              st.sampled_from(CODE_WORDS), st.sampled_from(CODES)),
    st.builds(lambda w, c: f"{w} {c}", st.sampled_from(["Exit status:", "exit status", "Exit code:",
                                                        "exit code:", "Return code:"]),
              st.sampled_from(CODES)),
    st.builds(lambda cmd, q, c: f"Command {q[0]}{cmd}{q[1]} returned non-zero exit status {c}.",
              st.sampled_from(["['vllm', 'serve', 'Qwen/Qwen3-8B']", "python -m vllm.entrypoints."
                               "openai.api_server", "bash serve.sh"]),
              st.sampled_from([("'", "'"), ('"', '"')]), st.sampled_from(CODES[:5])),
)
SENTENCES = st.builds(lambda label, message: f"{label}: {message}",
                      st.sampled_from(["FATAL", "Fatal error", "fatal error", "Fatal", "error",
                                       "FAIL", "Failed", "Not allowed", "Refused", "Rejected"]),
                      st.sampled_from(MESSAGES))
SHELLS = st.builds(lambda shape, cmd: shape.format(cmd),
                   st.sampled_from(["bash: {}: command not found", "{}: command not found",
                                    "/bin/sh: 1: {}: not found", "zsh: command not found: {}",
                                    "/entrypoint.sh: line 3: exec: {}: not found",
                                    "nohup: failed to run command '{}': No such file or directory",
                                    "exec /usr/local/bin/{}: exec format error",
                                    "bash: /usr/local/bin/{}: Permission denied"]),
                   st.sampled_from(["vllm", "python3", "torchrun"]))
NATIVE = st.one_of(
    st.sampled_from([
        "thread '<unnamed>' panicked at 'called `Option::unwrap()` on a `None` value', "
        "tokenizers/src/models/bpe/model.rs:212:49",
        "thread 'main' panicked at src/main.rs:12:5:",
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "[libprotobuf FATAL google/protobuf/message_lite.cc:123] CHECK failed: IsInitialized()",
        "*** Error in `python3': double free or corruption (out): 0x00007f3a2c1e0ae0 ***",
        "Assertion failed: (n > 0), function run, file ops.cpp, line 42.",
        "Assertion failed: n > 0, file csrc\\ops.cpp, line 42",
        "terminate called after throwing an instance of 'c10::Error'",
        "Segmentation fault (core dumped)",
    ]),
    st.builds(lambda s, n: f"{s}: {n}", st.sampled_from(["Abort trap", "Segmentation fault",
                                                         "Bus error", "Illegal instruction"]),
              st.sampled_from(["6", "11", "10", "4"])),
)
HARNESS_WORDS = st.one_of(  # that the server never came up, no reason on the line
    st.builds(lambda subject, phrase: f"{subject} {phrase}",
              st.sampled_from(["vLLM server", "Server", "The server", "vllm-0", "Model server",
                               "Endpoint 'qwen3'"]),
              st.sampled_from(["failed to start.", "failed to start within 600 seconds",
                               "did not become ready", "never came up", "is not ready after 600 "
                               "seconds", "did not start in time", "failed to become healthy"])),
    st.builds(lambda what: f"Timed out waiting for {what}",
              st.sampled_from(["the server to start", "vLLM server", "the vllm server to become "
                               "ready", "the endpoint", "health check"])),
)
HARNESS = st.one_of(
    HARNESS_WORDS,
    st.builds(lambda word, value: f"{word}: {value}",
              st.sampled_from(["Status", "Result", "State", "Outcome", "Conclusion"]),
              st.sampled_from(["FAILED", "FAILURE", "Failed", "failed", "CRASHED"])),
    st.sampled_from(["[FAILED] server start", "[FAIL] vllm serve Qwen/Qwen3-8B", "BUILD FAILED",
                     "TESTS FAILED", "Job failed", "Deployment failed.", "Startup failed",
                     "Build failed with an exception.", "FAILED (failures=1)",
                     "FAILED (errors=2, skipped=1)", "Step 'serve' failed"]),
)
FINAL = st.one_of(EXITS, SENTENCES, SHELLS, NATIVE, HARNESS)
WRAPPERS = ["", "2025-08-01T20:01:00.123456789Z ", "vllm-1  | ", "[pod/vllm-0/vllm] ",
            "Aug 01 20:01:00 gpu1 run.sh[8052]: "]
BENIGN = [
    "(APIServer pid=2800) WARNING 08-01 20:00:03 [config.py:1200] Casting torch.bfloat16 to "
    "torch.float16.",
    "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:61: FutureWarning: The "
    "pynvml package is deprecated. Please install nvidia-ml-py instead.",
    "  import pynvml  # type: ignore[import]",
    "(EngineCore_DP0 pid=2900) WARNING 08-01 20:00:09 [fused_moe.py:700] Using default MoE "
    "config. Performance might be sub-optimal! Config file not found at /x/E=8,N=1024.json",
    "[rank0]:[W801 20:01:00.464268835 ProcessGroupNCCL.cpp:1524] Warning: WARNING: "
    "destroy_process_group() was not called before program exit, which can leak resources.",
    "(APIServer pid=2800) WARNING 08-01 20:00:04 [api_server.py:900] Failed to fetch "
    "generation config: it is not found; using the default sampling parameters.",
]


def _healthy(requests: int, polls: int, benign: list[int], order: int) -> list[str]:
    server = Server()
    lines = server.startup()
    work = server.requests(requests) + server.polls(polls)
    if order:
        work = work[::-1]
    return [*lines[:3], *(BENIGN[i] for i in benign), *lines[3:], *work]


HEALTHY = st.builds(_healthy, st.integers(1, 6), st.integers(0, 3),
                    st.lists(st.integers(0, len(BENIGN) - 1), max_size=4), st.integers(0, 1))


@settings(max_examples=300, deadline=None)
@given(HEALTHY, FINAL, st.sampled_from(WRAPPERS))
def test_a_last_line_that_says_the_run_failed_is_never_no_failure(healthy: list[str], final: str,
                                                                  wrapper: str) -> None:
    lines = [*healthy, wrapper + final]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is not Verdict.NO_FAILURE, final


@settings(max_examples=80, deadline=None)
@given(HEALTHY)
def test_the_healthy_logs_with_their_warnings_are_no_failure(healthy: list[str]) -> None:
    report = explain_text("\n".join(healthy) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


@settings(max_examples=40, deadline=None)
@given(HEALTHY, st.sampled_from(["Failed to start model server", "Server failed to start",
                                 "Unable to load model Qwen/Qwen3-8B"]),
       st.sampled_from(["integer division or modulo by zero", "address already in use",
                        "ValueError: unknown model type"]))
def test_a_harness_sentence_with_its_reason_is_the_root(healthy: list[str], sentence: str,
                                                        reason: str) -> None:
    """`Failed to start model server: <reason>`: the reason is on the line, so the line is
    the cause, not a report of one printed elsewhere."""
    lines = [*healthy, f"{sentence}: {reason}"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.line == len(lines)


@pytest.mark.parametrize("final", [
    "Status: running",
    "Job succeeded",
    "vllm exited with code 0",
    "Process finished with exit code 0",
    "Exit status: 0",
    "vllm-1 exited with code 130",  # Ctrl-C
    "Container vllm exited with code 143",  # SIGTERM: the stop asked for
    "Failed requests: 0",
    "Successful requests: 100",
    "0 failed, 12 passed in 3.2s",
    "[1]+  Done                    vllm serve m",
    "Allowed: wheel size 180.02 MB",
])
def test_lines_that_only_look_like_failures_are_not(final: str) -> None:
    lines = [*_healthy(3, 1, [0, 1], 0), final]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, final


# ---- Reports of a failure printed elsewhere: a harness's word, a client's 5xx -----------------
# A harness's word that the server never came up, with no reason on its line, and an HTTP
# client's exception for a 5xx answer that says no more than the status, only report a failure
# whose cause is vLLM's own output (causality.yaml `symptoms`): alone, or after a healthy start
# (a wrapper that hid vLLM's output, a client's side of a failed request), the cause is not in
# the log; after vLLM's own error, that error is the root.

HARNESS_NOTES = ["", "Using unknown model family: meta-llama specified by user.",
                 "Retry with --enable-serving-output to learn more about the failure.",
                 "See the server log for details."]
STATUS_CLASSES = ["openai.InternalServerError", "InternalServerError", "openai.APIStatusError",
                  "openai.ServiceUnavailableError", "openai.APIError"]
# the URL a client called: an inference server's own route, on whatever host serves it
SERVER_URLS = st.builds(lambda host, path: f"http://{host}{path}",
                        st.sampled_from(["localhost:8000", "127.0.0.1:8000", "0.0.0.0:8080",
                                         "vllm-svc.default.svc:8000", "10.0.0.5:30000"]),
                        st.sampled_from(["/v1/completions", "/v1/chat/completions", "/generate",
                                         "/invocations", "/v1/embeddings", "/health"]))
# the body of a 5xx answer that names only its status: a proxy's or a framework's phrase (any case),
# or vLLM's own error body around it
STATUS_BODIES = st.builds(
    lambda key, phrase, lower, wrapped, quote: (
        "{" + ("'object': 'error', " if wrapped else "") + f"'{key}': '"
        + (phrase.lower().capitalize() if lower else phrase) + "'"
        + (", 'type': 'InternalServerError', 'param': None, 'code': 500" if wrapped else "")
        + "}").replace("'", quote),
    st.sampled_from(["detail", "message", "error"]),
    st.sampled_from(["Internal Server Error", "Service Unavailable", "Bad Gateway",
                     "Gateway Timeout"]), st.booleans(), st.booleans(), st.sampled_from(["'", '"']))
CLIENT_5XX = st.one_of(
    st.builds(lambda name, code, body: f"{name}: Error code: {code}{body}",
              st.sampled_from(STATUS_CLASSES), st.sampled_from(["500", "502", "503", "504"]),
              st.one_of(st.just(""), STATUS_BODIES.map(lambda body: f" - {body}"))),
    st.builds(lambda module, code, phrase, url: f"{module}HTTPError: {code} Server Error: {phrase} "
                                                f"for url: {url}",
              st.sampled_from(["requests.exceptions.", ""]), st.sampled_from(["500", "503"]),
              st.sampled_from(["Internal Server Error", "Service Unavailable"]), SERVER_URLS),
    st.builds(lambda code, phrase, url: f"httpx.HTTPStatusError: Server error '{code} {phrase}' "
                                        f"for url '{url}'",
              st.sampled_from(["500", "502"]), st.sampled_from(["Internal Server Error",
                                                                "Bad Gateway"]), SERVER_URLS),
    st.builds(lambda code, url: f"aiohttp.client_exceptions.ClientResponseError: {code}, message="
                                f"'Internal Server Error', url=URL('{url}')",
              st.sampled_from(["500", "503"]), SERVER_URLS),
)
# vLLM is a client too: the Hub, a mirror or a media URL answering 5xx to vLLM's own request
VLLMS_OWN_CALL = st.builds(
    lambda module, code, phrase, url: f"{module}HTTPError: {code} Server Error: {phrase} for url: "
                                      f"{url}",
    st.sampled_from(["requests.exceptions.", ""]), st.sampled_from(["500", "502", "503", "504"]),
    st.sampled_from(["Service Temporarily Unavailable", "Internal Server Error", "Bad Gateway"]),
    st.sampled_from(["https://huggingface.co/api/models/org/model-8b",
                     "https://hf-mirror.com/org/model/resolve/main/config.json",
                     "https://huggingface.co/org/model/resolve/main/tokenizer_config.json",
                     "https://example.com/images/cat.jpg"]))
CLIENT_FRAMES = [
    '  File "/home/u/bench.py", line 38, in <module>',
    "    out = client.chat.completions.create(",
    '  File "/venv/lib/python3.10/site-packages/openai/_base_client.py", line 1023, in _request',
    "    raise self._make_status_error_from_response(err.response) from None",
]
SERVER_ERROR = [
    "ERROR 08-01 20:01:02 [serving_chat.py:200] Error in preprocessing prompt inputs",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/multimodal/processing.py", line 91, in '
    "apply",
    "    raise ValueError(msg)",
    "ValueError: Attempted to assign 2 = 2 multimodal tokens to 3 placeholders",
]


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@settings(max_examples=60, deadline=None)
@given(HARNESS_WORDS, st.sampled_from(HARNESS_NOTES), st.sampled_from(WRAPPERS), st.booleans())
def test_a_harness_word_that_the_server_never_came_up_reports_a_cause_elsewhere(
        word: str, note: str, wrapper: str, healthy_before: bool) -> None:
    lines = [*(_healthy(2, 0, [], 0)[:3] if healthy_before else []), wrapper + word,
             *([wrapper + note] if note else [])]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (lines, report.verdict)


@settings(max_examples=40, deadline=None)
@given(HARNESS_WORDS, st.sampled_from(WRAPPERS))
def test_after_vllm_s_own_error_a_harness_word_is_its_symptom(word: str, wrapper: str) -> None:
    lines = [*_healthy(1, 0, [], 0)[:3], *SERVER_ERROR, wrapper + word]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


@settings(max_examples=80, deadline=None)
@given(CLIENT_5XX, st.integers(0, len(CLIENT_FRAMES)), st.sampled_from(WRAPPERS[:3]),
       st.booleans())
def test_a_clients_5xx_that_names_only_the_status_leaves_the_cause_on_the_server(
        final: str, frames: int, wrapper: str, header: bool) -> None:
    trace = ["Traceback (most recent call last):"] if header else []
    lines = [wrapper + line for line in [*trace, *CLIENT_FRAMES[:frames], final]]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (lines, report.verdict)


# The OpenAI client's text of such an answer without its class, as an agent framework, a harness
# or a logger prints str(e): on its own line under the framework's own words, or after them on
# the same line (`Error in generating model output:` / `Error code: 500 - {'message': 'Internal
# server error'}`).
FRAMEWORK_LEADS = ["Error in generating model output:", "Agent error:",
                   "Step 3: the model call failed:"]
LOGGED_LEADS = ["ERROR - request failed:",
                "2025-03-01 12:00:00,123 - agent - ERROR - Error while calling the model:"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["500", "502", "503", "504"]), STATUS_BODIES,
       st.sampled_from(FRAMEWORK_LEADS), st.sampled_from(LOGGED_LEADS),
       st.sampled_from(["line", "same", "logged", "none"]), st.sampled_from(WRAPPERS),
       st.booleans())
def test_the_openai_clients_5xx_text_without_its_class_leaves_the_cause_on_the_server(
        code: str, body: str, lead: str, logged: str, where: str, wrapper: str,
        twice: bool) -> None:
    text = f"Error code: {code} - {body}"
    lines = {"line": [lead, text], "same": [f"{lead} {text}"], "logged": [f"{logged} {text}"],
             "none": [text]}[where]
    lines = [wrapper + line for line in lines * (2 if twice else 1)]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (lines, report.verdict)
    # the line is the symptom: read as the client's `Error code: N`, or, where the body is
    # FastAPI's `{'detail': ...}` alone, as that answer (grammars/vllm.lark DETAIL_BODY)
    assert report.symptoms and (report.symptoms[0].exception.endswith(f"Error code: {code}")
                                or report.symptoms[0].exception == "HTTPException")


@pytest.mark.parametrize("body", [
    "{'message': 'CUDA out of memory. Tried to allocate 2.00 GiB'}",
    "{'object': 'error', 'message': 'Internal Server Error: list object has no attribute strip', "
    "'type': 'InternalServerError', 'param': None, 'code': 500}",
    "{'detail': 'Internal Server Error', 'traceback': 'ValueError: bad'}",
])
def test_the_clients_5xx_text_that_quotes_the_servers_error_is_that_error(body: str) -> None:
    report = _explain(["Error in generating model output:", f"Error code: 500 - {body}"])
    assert report.verdict is Verdict.FAILURE, body


@settings(max_examples=40, deadline=None)
@given(CLIENT_5XX)
def test_with_the_servers_error_in_the_log_a_clients_5xx_is_its_symptom(final: str) -> None:
    lines = [*SERVER_ERROR, "INFO:     127.0.0.1:5000 - \"POST /v1/chat/completions HTTP/1.1\" "
             "500 Internal Server Error", *CLIENT_FRAMES, final]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(SERVER_ERROR)


@settings(max_examples=30, deadline=None)
@given(VLLMS_OWN_CALL, st.sampled_from(WRAPPERS[:3]))
def test_a_5xx_answer_to_vllms_own_request_is_the_cause(final: str, wrapper: str) -> None:
    lines = [wrapper + line for line in [
        "INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.12.0",
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.12/site-packages/huggingface_hub/utils/_http.py", line 409, in '
        "hf_raise_for_status",
        "    response.raise_for_status()",
        final]]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE, (lines, report.verdict)
    assert report.root_cause is not None and report.root_cause.line == len(lines)


@pytest.mark.parametrize("final", [
    # the body quotes the server's error: it is the cause as the client saw it
    "openai.InternalServerError: Error code: 500 - {'object': 'error', 'message': 'CUDA out of "
    "memory. Tried to allocate 2.00 GiB', 'type': 'InternalServerError', 'code': 500}",
    "openai.InternalServerError: modal-http: internal server error: status Failure: "
    "ValueError('BitAndBytes with enforce_eager = False is not supported yet.')",
    # a 4xx is the client's own request refused, not this
    "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's "
    "maximum context length is 4096 tokens.\", 'type': 'BadRequestError', 'code': 400}",
])
def test_a_clients_error_that_carries_a_reason_is_no_bare_status(final: str) -> None:
    report = _explain([*CLIENT_FRAMES, final])
    assert report.verdict is Verdict.FAILURE, final


# ---- pydantic's line for a validator that raised; argparse's usage error after a label --------
# vLLM's configs are pydantic dataclasses: a check that raises prints, under the ValidationError,
# `  Value error, <message> [type=value_error, ...]` (`Assertion failed, ` for an assert). A paste
# of that one line names the problem: it is the ValueError (grammars/vllm.lark PYDANTIC_ERROR).
# argparse's `vllm serve: error: argument ...: invalid choice: ...` is the run's error whatever
# text a reporter or a wrapper put before it on its line (USAGE_LEAD).

CONFIG_MESSAGES = [
    "Total number of attention heads (64) must be divisible by tensor parallel size (3).",
    "The model's max seq len (131072) is larger than the maximum number of tokens that can be "
    "stored in KV cache (45000). Try increasing `gpu_memory_utilization` or decreasing "
    "`max_model_len` when initializing the engine.",
    "Invalid repository ID or local directory specified: '/models/qwen3'.",
    "max_num_batched_tokens (2048) is smaller than max_model_len (8192).",
]
PYDANTIC_TAILS = ["", " [type=value_error, input_value=ArgsKwargs((), {'model_config': "
                  "ModelConfig(model='m')}), input_type=ArgsKwargs]"]
LABELS = ["报错日志：", "Error log: ", "$ ", "错误信息: ", "> ", "I got this: "]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Value error", "Assertion failed"]), st.sampled_from(CONFIG_MESSAGES),
       st.sampled_from(PYDANTIC_TAILS), st.sampled_from(WRAPPERS), st.booleans())
def test_pydantics_line_for_a_failed_check_is_that_error(label: str, message: str, tail: str,
                                                         wrapper: str, after_start: bool) -> None:
    lines = [*(_healthy(1, 0, [], 0)[:3] if after_start else []),
             f"{wrapper}{label}, {message}{tail}"]
    assert anchor_patterns()[0].search(lines[-1].encode())
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    root = report.root_cause
    assert root is not None and root.line == len(lines)
    assert root.exception == ("ValueError" if label == "Value error" else "AssertionError")
    assert root.message == message


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CONFIG_MESSAGES), st.sampled_from(PYDANTIC_TAILS), st.booleans())
def test_under_its_validation_error_pydantics_line_goes_on_its_message(message: str, tail: str,
                                                                       located: bool) -> None:
    lines = ["Traceback (most recent call last):",
             '  File "/venv/lib/python3.12/site-packages/pydantic/_internal/_dataclasses.py", '
             "line 123, in __init__",
             "    s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), "
             "self_instance=s)",
             "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig",
             *(["max_model_len"] if located else []),
             f"  Value error, {message}{tail}",
             "    For further information visit https://errors.pydantic.dev/2.11/v/value_error"]
    report = _explain(lines)
    root = report.root_cause
    assert root is not None and root.exception.endswith("ValidationError"), lines
    assert message in root.message and len(report.symptoms) == 0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CONFIG_MESSAGES), st.sampled_from(PYDANTIC_TAILS),
       # a paste's stray space makes the name no exception line's: read as a printed error
       st.sampled_from(["pydantic_core._pydantic_core. ValidationError",
                        "pydantic_core. ValidationError"]),
       st.sampled_from(WRAPPERS[:3]), st.booleans())
def test_under_a_validation_error_printed_without_frames_pydantics_line_goes_on_its_message(
        message: str, tail: str, head: str, wrapper: str, more: bool) -> None:
    lines = [wrapper + line for line in [
        f"{head}: 1 validation error for ModelConfig", f"  Value error, {message}{tail}",
        *(["    For further information visit https://errors.pydantic.dev/2.12/v/value_error"]
          if more else [])]]
    report = _explain(lines)
    root = report.root_cause
    assert root is not None and root.exception.endswith("ValidationError"), (lines, root)
    assert root.line == 1 and message in root.message, (lines, root)


# Which exceptions' messages go on over indented lines is data (causality.yaml
# `indented_messages`), not code: without the entry pydantic's line is an error of its own, and a
# pattern for another class makes that class's printed message go on the same way.
def _printed_events(lines: list[str], know: Causality) -> list[ErrorEvent]:
    parsed = (parse_line(clean(raw), number) for number, raw in enumerate(lines, 1))
    return sorted((e for e in assemble(parsed, know) if isinstance(e, ErrorEvent)),
                  key=lambda e: e.line)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(CONFIG_MESSAGES), st.sampled_from(["pydantic_core. ValidationError",
                                                          "marshmallow. ValidationError"]))
def test_which_messages_go_on_indented_is_causality_data(message: str, head: str) -> None:
    lines = [f"{head}: 1 validation error for ModelConfig", f"  Value error, {message}"]
    known = default_causality()
    assert known.message_goes_on_indented(head.replace(" ", ""))
    joined = _printed_events(lines, known)
    assert [e.line for e in joined] == [1] and message in joined[0].message
    apart = _printed_events(lines, replace(known, indented_messages=()))
    assert [e.line for e in apart] == [1, 2]
    other = [f"{head.replace('ValidationError', 'SchemaError')}: 1 schema error",
             f"  Value error, {message}"]
    assert [e.line for e in _printed_events(other, known)] == [1, 2]
    taught = replace(known, indented_messages=(regex.compile(r"(?:^|\.)SchemaError$"),))
    assert [e.line for e in _printed_events(other, taught)] == [1]


USAGE_ERRORS = [
    "vllm serve: error: argument --tool-call-parser: invalid choice: 'glm45' (choose from "
    "'deepseek_v3', 'glm4_moe', 'hermes')",
    "api_server.py: error: unrecognized arguments: --enable-reasoning",
    "vllm serve: error: the following arguments are required: model_tag",
    "vllm: error: argument subparser: invalid choice: 'server' (choose from 'chat', 'complete', "
    "'serve')",
    "benchmark_serving.py: error: argument --dataset-name: expected one argument",
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(USAGE_ERRORS), st.sampled_from(LABELS), st.sampled_from(WRAPPERS))
def test_argparses_usage_error_after_a_label_is_the_runs_error(error: str, label: str,
                                                               wrapper: str) -> None:
    lines = [wrapper + label + error]
    assert anchor_patterns()[0].search(lines[-1].encode())
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    root = report.root_cause
    assert root is not None and root.exception == "usage error" and root.message == error


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(USAGE_ERRORS), st.sampled_from(WRAPPERS), st.booleans())
def test_argparses_usage_error_without_its_programs_name_is_one_too(error: str, wrapper: str,
                                                                    after_start: bool) -> None:
    # a paste that kept the line from `error:` (or a parser made with prog=""), alone or after
    # the run's start: argparse's words say what it is, as the program's name did
    bare = error[error.index("error: "):]
    lines = [*(_healthy(1, 0, [], 0)[:3] if after_start else []), wrapper + bare]
    assert anchor_patterns()[0].search(lines[-1].encode())
    root = _explain(lines).root_cause
    assert root is not None and root.exception == "usage error" and root.message == bare


@pytest.mark.parametrize("line", [
    "error: subprocess-exited-with-error",  # pip's, a build error
    "error: could not lock config file .git/config: File exists",
])
def test_another_tools_bare_error_line_is_not_argparses(line: str) -> None:
    root = _explain([line]).root_cause
    assert root is None or root.exception != "usage error", root


@pytest.mark.parametrize("line", [
    "Note: the server prints `error: ` lines when a request fails",
    "See the guide: vllm serve: error: lines name the argument that was wrong",
    "Value error count: 0",
    "The config said: value error, then retried and loaded",
])
def test_text_that_only_mentions_such_errors_is_not_one(line: str) -> None:
    lines = [*_healthy(2, 1, [], 0), line]
    assert _explain(lines).verdict is Verdict.NO_FAILURE, line


# A logger that prints its level once, at the head of its record (`%(levelname)s: %(message)s`,
# uvicorn's `ERROR:    `), after an exception printed raw: its line is the next record, not the
# exception's message going on (Python prints a message's further lines raw). An evaluation
# harness's paste: `ValueError: ...` from vLLM's input parsing, then the client's
# `ERROR: Engine core proc EngineCore_0 died unexpectedly, shutting down client.`; the error is
# the run's cause, the record its symptom.

RAW_ERRORS = [("ValueError", "please provide at least one prompt"),
              ("ValueError", "The decoder prompt cannot be empty"),
              ("TypeError", "Invalid type of HuggingFace config. Expected type: <class 'vllm."
               "transformers_utils.configs.qwen3_5.Qwen3_5Config'>, but found type: <class "
               "'transformers.models.qwen3_5.configuration_qwen3_5.Qwen3_5Config'>"),
              ("RuntimeError", "CUDA error: an illegal memory access was encountered")]
LEVEL_RECORDS = ["Engine core proc EngineCore_0 died unexpectedly, shutting down client.",
                 "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.",
                 "Exception in ASGI application", "Application startup failed. Exiting."]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(RAW_ERRORS), st.sampled_from(LEVEL_RECORDS),
       st.sampled_from(["ERROR: ", "ERROR:    ", "CRITICAL: "]), st.sampled_from(WRAPPERS[:3]),
       st.booleans())
def test_a_loggers_level_record_after_an_exception_is_the_next_record(
        error: tuple[str, str], record: str, level: str, wrapper: str, framed: bool) -> None:
    name, message = error
    lines = [wrapper + line for line in [
        *(["Traceback (most recent call last):",
           '  File "/venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py", line 380, in '
           "generate", "    parsed_prompts = self._convert_v1_inputs("] if framed else []),
        f"{name}: {message}", f"{level}{record}"]]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE, (lines, report.verdict)
    root = report.root_cause
    assert root is not None and root.exception == name and root.message == message, (lines, root)
    assert root.line == len(lines) - 1


@pytest.mark.parametrize("lines", [
    # an exception whose first line announces the output it carries: pip's `ERROR: ` lines in it
    # are that output
    ["subprocess.CalledProcessError: Command failed, its output:",
     "ERROR: Could not find a version that satisfies the requirement vllm==9.9.9"],
    # Python's raw further lines of a message stay the message
    ["ValueError: please provide at least one prompt", "while parsing the batch of 0 prompts"],
])
def test_a_messages_own_further_lines_stay_on_it(lines: list[str]) -> None:
    report = _explain(lines)
    root = report.root_cause
    assert root is not None and root.line == 1 and lines[1] in root.message, (lines, root)
