"""A client's error, pasted short, is never `no_failure` (issue 10; sigs-b's session-20 sweep).

Users post what their client printed: a few lines of an OpenAI client, a benchmark, an eval
harness or an agent, ending on the error. Two shapes of that error were read as nothing:

- vLLM's OpenAI-style error body as the client printed it: JSON or the Python dict it parsed
  (`{'object': 'error', 'message': ..., 'type': 'BadRequestError', 'param': None, 'code': 400}`),
  flat (vLLM <= 0.9) or under `error` (later), alone or after the OpenAI client's `Error code:
  400 - `, and behind whatever a logger or a harness put before either (grammars/vllm.lark
  REQUEST_REFUSED, REQUEST_FAILED, ERROR_BODY_LEAD). The root is that line, its exception the body's
  type, its message the body's message;
- a bare `Error` or `Exception` label (or uvicorn's `ERROR:` level) before a named exception's
  line: `Error: ValueError: x` is the ValueError (EXC_TYPE, EXC_LEAD, `leveled_exception`).

A benchmark's count of failed requests, when not zero, is the harness's report that the server
failed them (a symptom: `root_cause_missing`; grammars/vllm.lark LEVEL_LINE, causality.yaml).

Generated over bodies, codes, types, messages, leads, quoting and the client's lines around
them; the exception named before `Error code:` stays that exception's line; and healthy short
pastes with look-alike lines (zero failures, a 200, a warning that names an error class as
advice, an INFO line naming one) stay `no_failure`.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SIGNATURES = default_signatures()

TYPES = ["BadRequestError", "NotFoundError", "UnprocessableEntityError", "InternalServerError"]
MESSAGES = [
    "The model `Qwen1.5-14B-Chat` does not exist.",
    "This model's maximum context length is 2048 tokens. However, you requested 11352 tokens "
    "(11320 in the messages, 32 in the completion). Please reduce the length of the messages "
    "or completion.",
    "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set",
    "As of transformers v4.44, default chat template is no longer allowed, so you must provide "
    "a chat template if the tokenizer does not define one.",
    "max_tokens must be at least 1, got -53.",
]
CODES = {"BadRequestError": 400, "NotFoundError": 404, "UnprocessableEntityError": 422,
         "InternalServerError": 500}
# what a harness, an agent or a logger writes before the client's exception text
LEADS = ["", "Error Occurs: \"", "Unexpected error occurred: ", "request 12 failed: ",
         "2024-04-12 00:22:32,429 - utils.py[line:25] - ERROR: ",
         "01/15 16:19:36 - OpenCompass - ERROR - /x/models/openai_api.py - _generate - 650 - ",
         "[eval] ", "推理报错：",
         "2025-08-28:13:54:34 WARNING  [models.api_models:438] API request failed with error "
         "message: ", "Failed to parse JSON response: "]
# the client's own lines before its error, as pasted
BEFORE = [
    "Namespace(backend='openai-chat', base_url=None, host='localhost', port=8000, "
    "endpoint='/v1/chat/completions', num_prompts=10)",
    "Starting initial single prompt test run...",
    "  0%|          | 0/50 [00:00<?, ?it/s]",
    "python3 client.py",
]


def _body(kind: str, message: str, nested: bool, python: bool, with_type: bool) -> str:
    fields: dict[str, object] = {"message": message}
    if with_type:
        fields["type"] = kind
    fields["param"] = None
    fields["code"] = CODES[kind]
    body: dict[str, object] = {"error": fields} if nested else {"object": "error", **fields}
    return repr(body) if python else json.dumps(body, separators=(",", ":"))


@st.composite
def client_errors(draw: st.DrawFn) -> tuple[str, str, str]:
    kind = draw(st.sampled_from(TYPES))
    message = draw(st.sampled_from(MESSAGES))
    nested, python = draw(st.booleans()), draw(st.booleans())
    code = CODES[kind]
    # a 4xx body names its refusal by its code; any other code needs its type to be an error
    with_type = True if code >= 500 else draw(st.booleans())
    body = _body(kind, message, nested, python, with_type)
    lead = draw(st.sampled_from(LEADS))
    # the client's `Error code: 4xx - ` before a refusal (`Error code: 5xx - ` is a phrase of its
    # own: PHRASE_LABEL)
    prefixed = code < 500 and draw(st.booleans())
    line = f"{lead}Error code: {code} - {body}" if prefixed else f"{lead}{body}"
    if lead.endswith('"'):
        line += '"'
    return line, kind if with_type else "error", message


@settings(max_examples=200, deadline=None)
@given(client_errors(), st.lists(st.sampled_from(BEFORE), max_size=3))
def test_a_client_error_body_is_the_root_of_its_paste(error: tuple[str, str, str],
                                                      before: list[str]) -> None:
    line, kind, message = error
    lines = [*before, line]
    report = explain_text("\n".join(lines) + "\n", signatures=SIGNATURES)
    assert report.verdict is Verdict.FAILURE, lines
    root = report.root_cause
    assert root is not None and root.line == len(lines), lines
    assert root.exception == kind, (root.exception, lines)
    assert message.split(".")[0] in (root.message or ""), (root.message, lines)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["openai.BadRequestError", "openai.NotFoundError",
                        "litellm.BadRequestError"]),
       st.sampled_from(["", "Request failed: ", "E   "]), st.sampled_from(MESSAGES))
def test_an_exception_named_before_the_client_text_stays_that_exception(
        name: str, lead: str, message: str) -> None:
    """`openai.NotFoundError: Error code: 404 - {'error': {..., 'type': 'invalid_request_error'}}`:
    the line is the named exception's; the body's own type names no class."""
    body = repr({"error": {"message": message, "type": "invalid_request_error", "param": None,
                           "code": 404}})
    line = f"{lead}{name}: Error code: 404 - {body}"
    report = explain_text(line + "\n", signatures=SIGNATURES)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception is not None
    assert report.root_cause.exception.rpartition(".")[2] == name.rpartition(".")[2], line


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["Error: ", "Exception: ", "ERROR: ", "ERROR:    ", "Error:  "]),
       st.sampled_from(["ValueError", "RuntimeError", "torch.OutOfMemoryError",
                        "openai.BadRequestError", "KeyError", "vllm.v1.engine.exceptions."
                        "EngineDeadError"]),
       st.sampled_from(["Bfloat16 is only supported on GPUs with compute capability of at "
                        "least 8.0.", "'choices'", "CUDA out of memory. Tried to allocate "
                        "2.00 GiB"]),
       st.lists(st.sampled_from(BEFORE), max_size=2))
def test_a_label_before_a_named_exception_names_that_exception(
        label: str, name: str, message: str, before: list[str]) -> None:
    lines = [*before, f"{label}{name}: {message}"]
    report = explain_text("\n".join(lines) + "\n", signatures=SIGNATURES)
    assert report.verdict is not Verdict.NO_FAILURE, lines
    root = report.root_cause
    if root is not None:  # a symptom's name (EngineDeadError) leaves the root to be found
        assert root.exception == name, (root.exception, lines)
        assert root.line == len(lines)


@pytest.mark.parametrize("lines", [
    ["Successful requests:                     50",
     "Failed requests:                         0",
     "Benchmark duration (s):                  12.31"],
    ["INFO 2024-12-12 20:57:37,031 evaluator:95: error_count=0 warnings=1",
     "INFO:     127.0.0.1:55504 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"],
    ["WARNING 06-01 11:35:01 logger.py:146] Consider catching ValueError if the request "
     "is too long."],
    ["INFO:     ValueError: handlers are registered for 3 routes"],
    ['{"id":"chatcmpl-1","object":"chat.completion","model":"qwen3-8b","choices":[{"index":0,'
     '"message":{"role":"assistant","content":"Error code: 400 is a bad request."},'
     '"finish_reason":"stop"}]}'],
    ["{'object': 'list', 'data': [{'id': 'Qwen/Qwen3-8B', 'object': 'model', 'owned_by': "
     "'vllm'}]}"],
    ["INFO 06-01 11:35:01 [logger.py:39] Received request chatcmpl-1: prompt: 'What does "
     "{\"object\": \"error\", \"code\": 400} mean?', params: SamplingParams(n=1)"],
    ["result = {'error': None, 'status': 'ok', 'code': 200}",
     "WARNING 06-01 11:35:01 [protocol.py:116] The following fields were present in the request "
     "but ignored: {'error'}"],
])
def test_healthy_look_alikes_stay_healthy(lines: list[str]) -> None:
    report = explain_text("\n".join(lines) + "\n", signatures=SIGNATURES)
    assert report.verdict is Verdict.NO_FAILURE, lines


BENCH_ROWS = ["============ Serving Benchmark Result ============",
              "Benchmark duration (s):                  2.87",
              "Total input tokens:                      12800",
              "Request throughput (req/s):              0.35",
              "Mean TTFT (ms):                          297.70"]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5000), st.integers(0, 5000), st.lists(st.sampled_from(BENCH_ROWS),
                                                             max_size=4))
def test_a_benchmark_that_counts_failed_requests_is_not_healthy(failed: int, served: int,
                                                                rows: list[str]) -> None:
    """`vllm bench serve`'s `Failed requests: 12`: the harness saw the server fail requests; why
    is in the server's log (a symptom: `root_cause_missing`). `Failed requests: 0` is a result."""
    lines = [f"Successful requests:{' ' * 21}{served}", f"Failed requests:{' ' * 25}{failed}",
             *rows]
    report = explain_text("\n".join(lines) + "\n", signatures=SIGNATURES)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, lines
    healthy = [lines[0], f"Failed requests:{' ' * 25}0", *rows]
    report = explain_text("\n".join(healthy) + "\n", signatures=SIGNATURES)
    assert report.verdict is Verdict.NO_FAILURE, healthy
