"""A parser's error vLLM answers by design (causality.yaml `handled`: the tool and reasoning
parsers catch it and answer the model's raw text without the tool calls or the reasoning they
could not extract) is survived: the server goes on. But a client that needs what the parser
left out then raises, and when its error is in the same log (a reproduction that pastes the
server's records and the client's traceback), it follows from the parser's error: the parser's
error is the cause, the client's its symptom (`handled.explains`).

Generated over the parser (its call site and module), the era's prefixes (V1's API server, an
unprefixed V0 server), the parser's error, the client's complaint, and what lies between (the
request's 200, more serving, the reporter's words).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import python_traceback

SITE = "/usr/local/lib/python3.12/site-packages/vllm"
PARSERS = [("tool_parsers", "llama_tool_parser", "extract_tool_calls",
            "Error in extracting tool call from response."),
           ("tool_parsers", "hermes_tool_parser", "extract_tool_calls",
            "Error in extracting tool call from response."),
           ("tool_parsers", "mistral_tool_parser", "extract_tool_calls_streaming",
            "Error trying to handle streaming tool call."),
           ("reasoning", "deepseek_r1_reasoning_parser", "extract_reasoning_content",
            "Error in extracting reasoning content.")]
FAILURES = [("json.decoder.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"),
            ("json.decoder.JSONDecodeError", "Extra data: line 3 column 1 (char 56)"),
            ("IndexError", "list index out of range"),
            ("KeyError", "'arguments'")]
CLIENTS = [
    (["Traceback (most recent call last):",
      '  File "/home/user/mcp/test.py", line 22, in main',
      "    tool_calls = llm.get_tool_calls_from_response(resp,",
      '  File "/home/user/.venv/lib/python3.12/site-packages/llama_index/llms/openai/base.py", '
      "line 967, in get_tool_calls_from_response",
      "    raise ValueError(",
      "ValueError: Expected at least one tool call, but got 0 tool calls."], "ValueError"),
    (["Traceback (most recent call last):",
      '  File "/home/user/agent.py", line 41, in <module>',
      "    call = response.choices[0].message.tool_calls[0]",
      "TypeError: 'NoneType' object is not subscriptable: no tool_calls in the answer"],
     "TypeError"),
    (["Traceback (most recent call last):",
      '  File "/home/user/think.py", line 18, in <module>',
      "    print(resp.choices[0].message.reasoning_content.strip())",
      "AttributeError: 'ChatCompletionMessage' object has no attribute 'reasoning_content'"],
     "AttributeError"),
    (["RuntimeError: the model answered without a function call"], "RuntimeError"),
]
PREFIXES = ["(APIServer pid=2800) ", ""]
BETWEEN = [[], ['INFO:     127.0.0.1:40010 - "POST /v1/chat/completions HTTP/1.1" 200 OK'],
           ["", "#Test program output", "$ ./test.py"]]


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def _parser_error(parser: tuple[str, str, str, str], failure: tuple[str, str],
                  prefix: str) -> list[str]:
    folder, module, function, title = parser
    head = f"{prefix}ERROR 04-07 11:42:35 [{module}.py:101] "
    return [head + title, head + "Traceback (most recent call last):",
            f'{head}  File "{SITE}/entrypoints/openai/{folder}/{module}.py", line 78, in '
            f"{function}",
            f"{head}    (obj, end_idx) = dec.raw_decode(model_output[start_idx:])",
            f"{head}{failure[0]}: {failure[1]}"]


SERVING = ["INFO 04-07 11:40:01 [api_server.py:1081] Starting vLLM API server on "
           "http://0.0.0.0:8000", "INFO:     Application startup complete."]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(PARSERS), st.sampled_from(FAILURES), st.sampled_from(CLIENTS),
       st.sampled_from(PREFIXES), st.sampled_from(BETWEEN), st.booleans())
def test_a_client_s_complaint_follows_from_the_parser_s_handled_error(
        parser: tuple[str, str, str, str], failure: tuple[str, str],
        client: tuple[list[str], str], prefix: str, between: list[str], started: bool) -> None:
    lines = [*(prefix + line for line in SERVING if started)]
    first = len(lines) + 1
    lines += _parser_error(parser, failure, prefix)
    cause_line = len(lines)
    lines += [prefix + line if line.startswith("INFO") else line for line in between]
    lines += client[0]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.message) == failure
    assert report.root_cause.first_line == first and report.root_cause.line == cause_line
    assert client[1] in {symptom.exception for symptom in report.symptoms}
    assert any("follows from it" in reason for reason in report.reasons)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PARSERS), st.sampled_from(FAILURES), st.sampled_from(PREFIXES))
def test_the_parser_s_error_alone_is_survived(parser: tuple[str, str, str, str],
                                              failure: tuple[str, str], prefix: str) -> None:
    lines = [*(prefix + line for line in SERVING), *_parser_error(parser, failure, prefix)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


UNRELATED = python_traceback([("/home/user/bench.py", "<module>", "n = int(sys.argv[1])")],
                             "ValueError: invalid literal for int() with base 10: 'x'").splitlines()


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PARSERS), st.sampled_from(FAILURES), st.sampled_from(PREFIXES))
def test_a_client_error_of_another_kind_is_its_own_root_cause(
        parser: tuple[str, str, str, str], failure: tuple[str, str], prefix: str) -> None:
    lines = [*_parser_error(parser, failure, prefix), *UNRELATED]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "ValueError"
    assert report.root_cause.line == len(lines)


def test_a_complaint_before_the_parser_s_error_does_not_follow_from_it() -> None:
    client, exception = CLIENTS[0]
    lines = [*client, *_parser_error(PARSERS[0], FAILURES[0], "")]
    report = _explain(lines)
    assert report.root_cause is not None and report.root_cause.exception == exception
