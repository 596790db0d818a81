"""Paste shapes of an error line (issue 10, "every error form"): a reporter's paste wraps the one
line that says what failed in whatever their editor or mail client adds, and a log whose only
error line is not read as one is called healthy, the worst answer. Generated here: an exception
line pasted indented (a markdown code block, a list item, a quote, tabs, an editor's gutter) after
ordinary text, alone or at the end of a traceback whose other lines are not indented; a whole
indented traceback whose source lines look like exception lines; an interpreter's prompt and
GitHub's HTML before the line; `\\r`-only line ends. And what must stay what it is: a traceback's
own source lines, a config dump's indented `Timeout: 30`, a refused request's indented body.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.read import input_from_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


# what a reporter writes before the paste, and lines of a run that went well
_PROSE = ["Loading model...", "I started the server and it fails with:", "Here is the log:",
          "INFO 07-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.1",
          "Any help is appreciated", "```"]
# exceptions no cause-and-effect knowledge calls a symptom or a stop
_BUILTIN = ["RuntimeError", "ValueError", "KeyError", "TypeError", "AssertionError",
            "ImportError", "ModuleNotFoundError", "NotImplementedError", "IndexError",
            "AttributeError", "ZeroDivisionError", "OSError", "FileNotFoundError"]
_CAMEL = st.lists(st.sampled_from(["Shard", "Weight", "Tensor", "Quant", "Layer", "Cache",
                                   "Backend", "Config", "Kernel"]), min_size=1, max_size=3)
_MODULE = st.lists(st.sampled_from(["torch", "vllm", "model_executor", "errors", "_C", "utils",
                                    "transformers"]), min_size=1, max_size=3)
names = st.one_of(
    st.sampled_from(_BUILTIN),
    st.builds(lambda camel, suffix: "".join(camel) + suffix, _CAMEL,
              st.sampled_from(["Error", "Exception"])),
    st.builds(lambda module, camel, suffix: ".".join(module) + "." + "".join(camel) + suffix,
              _MODULE, _CAMEL, st.sampled_from(["Error", "Exception", ""])))
_WORDS = ["shape", "mismatch", "for", "layers.0.weight", "expected", "got", "4096", "the", "model",
          "tensor", "on", "device", "cuda:0", "'q_proj'", "(32,", "128)"]
messages = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8).map(" ".join)
# the paste's indentation: spaces, tabs, a list item's bullet, a quote, an editor's gutter
indents = st.one_of(
    st.integers(1, 12).map(lambda n: " " * n),
    st.integers(1, 3).map(lambda n: "\t" * n),
    st.sampled_from(["  - ", "    * ", "   + ", ">     ", "> >     ", "  12 | ", "   7 |     "]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_PROSE), min_size=1, max_size=4), indents, names, messages)
def test_an_indented_exception_line_is_the_failure(lead: list[str], indent: str, name: str,
                                                   message: str) -> None:
    lines = [*lead, f"{indent}{name}: {message}"]
    assert anchor_patterns()[0].search(lines[-1].encode())  # the prefilter sends it to the grammar
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, (lines, report.reasons)
    assert report.root_cause is not None
    assert report.root_cause.exception == name
    assert report.root_cause.line == len(lines)


@settings(max_examples=40, deadline=None)
@given(indents, names)
def test_an_indented_bare_exception_name_is_one(indent: str, name: str) -> None:
    lines = ["Loading model...", f"{indent}{name}"]
    assert anchor_patterns()[0].search(lines[-1].encode())
    report = explain(lines)
    assert report.root_cause is not None and report.root_cause.exception == name, lines


# source lines a frame may show that an exception-shaped reader could mistake: statements that
# start with a class name, an annotation, a raise
_SOURCE = ['raise RuntimeError("failed")', "KeyError", "x = foo(a: b)", "ValueError: int = 3",
           "StopIteration", "err = OSError(2)", "raise ValueError(f\"bad {x}: {y}\")",
           "torch.cuda.OutOfMemoryError", "return self.model(x)"]


def _traceback(sources: list[str], name: str, message: str, shift: str, only_exception: bool,
               cut_header: bool) -> list[str]:
    lines = [] if cut_header else ["Traceback (most recent call last):"]
    for number, source in enumerate(sources):
        lines += [f'  File "/app/vllm/x{number}.py", line {10 + number}, in f{number}',
                  f"    {source}"]
    lines.append(f"{name}: {message}")
    if only_exception:
        return [*lines[:-1], shift + lines[-1]]
    return [shift + line for line in lines]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_SOURCE), min_size=1, max_size=5), names, messages,
       st.sampled_from(["", "    ", "  ", "\t", "        "]), st.booleans(), st.booleans())
def test_a_tracebacks_source_lines_stay_code(sources: list[str], name: str, message: str,
                                             shift: str, only_exception: bool,
                                             cut_header: bool) -> None:
    """Indented whole or in its exception line alone, the traceback's failure is its exception
    line; no source line of its frames is an error of its own."""
    traceback = _traceback(sources, name, message, shift, only_exception, cut_header)
    lines = ["Loading model...", *traceback]
    report = explain(lines)
    assert report.root_cause is not None, lines
    assert report.root_cause.exception == name, lines
    assert report.root_cause.line == len(lines)
    assert not report.symptoms, lines


@pytest.mark.parametrize("line", [
    "  Timeout: 30", "    Group: default", "  Error: none", "    Warning: 3",
    "  model.layers: 32", "    UserWarning: the default changed", "  max_retries: 3",
    "    Iteration: 5 of 10", "  - timeout: 30s"])
def test_an_indented_config_line_is_no_error(line: str) -> None:
    lines = ["INFO 07-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.1",
             "Settings:", line, "INFO 07-01 10:00:05 [launcher.py:2] Application startup complete."]
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, (line, report.reasons)


_BODIES = [('{{"object":"error","message":"{message}","type":"{name}","param":null,'
            '"code":{code}}}'),
           '{{"error":{{"message":"{message}","type":"{name}","param":null,"code":{code}}}}}']


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["", "    ", "\t", "> "]), st.sampled_from(_BODIES),
       st.sampled_from([("BadRequestError", 400), ("NotFoundError", 404),
                        ("InternalServerError", 500)]),
       st.sampled_from(["This model's maximum context length is 4096 tokens.",
                        "The model `m` does not exist.", "boom"]),
       st.sampled_from([[], ["$ curl localhost:8000/v1/completions -d @r.json"]]))
def test_an_error_response_body_is_the_clients_failure(indent: str, body: str,
                                                       error: tuple[str, int], message: str,
                                                       lead: list[str]) -> None:
    """A client's copy of vLLM's error body, indented or not, names its exception: the failure
    of a paste that ends on it. A 4xx body is also the refusal a live server answered
    (tests/test_evidence.py: a server that refused again went on)."""
    name, code = error
    line = indent + body.format(message=message, name=name, code=code)
    parsed = parse_line(clean(line))
    assert parsed.exception == name
    assert (parsed.kind is LineKind.ACCESS) is (code < 500)
    report = explain([*lead, line])
    assert report.verdict is not Verdict.NO_FAILURE, (line, report.reasons)
    if report.root_cause is not None:
        assert report.root_cause.exception == name
        assert report.root_cause.line == len(lead) + 1


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([">>> ", ">> ", "> > > ", "In [3]: ", "Out[12]: ", "<pre>", "<code>",
                        "<details><summary>log</summary>", "<details><summary>Error</summary>",
                        "<p><code>"]), names, messages)
def test_a_prompt_or_html_before_the_line_is_a_wrapper(wrapper: str, name: str,
                                                       message: str) -> None:
    lines = ["Loading model...", f"{wrapper}{name}: {message}"]
    assert anchor_patterns()[0].search(lines[-1].encode())
    report = explain(lines)
    assert report.root_cause is not None, lines
    assert report.root_cause.exception == name
    assert report.root_cause.line == 2


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_carriage_return_line_ends(end: str) -> None:
    """`\\r` alone between lines is a line break when the paste has no `\\n` at all (a terminal's
    `\\r` overwrites come inside lines that `\\n` ends)."""
    lines = ["INFO 07-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.1",
             "Traceback (most recent call last):", '  File "/app/x.py", line 3, in <module>',
             '    raise RuntimeError("x")', "RuntimeError: CUDA error: no kernel image is available"]
    report = explain_text(end.join(lines) + end)
    assert report.root_cause is not None and report.root_cause.line == len(lines)
    assert report.root_cause.exception == "RuntimeError"


def test_a_progress_bar_keeps_its_overwrites() -> None:
    """A log with `\\n` line ends keeps `\\r` as a terminal's overwrite: one line."""
    log = input_from_text("Loading: 10%\rLoading: 50%\rLoading: 100%\nINFO done\n")
    assert not any("carriage return" in notice for notice in log.notices)


@pytest.mark.parametrize("status", ["HTTP/1.1 500 Internal Server Error", "< HTTP/1.1 503 Service Unavailable",
                                    "HTTP/2 502 Bad Gateway"])
def test_a_clients_5xx_status_line_is_a_failed_answer(status: str) -> None:
    """`curl -i` prints the answer's status line: a 5xx says a request failed inside the server,
    as its access line would (causality.yaml `failed_answers`): a symptom of a cause elsewhere."""
    assert anchor_patterns()[0].search(status.encode())
    report = explain(["$ curl -i localhost:8000/v1/completions -d @r.json", status,
                      "content-type: text/plain; charset=utf-8", "", "Internal Server Error"])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.reasons


@pytest.mark.parametrize("status", ["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request",
                                    "< HTTP/1.1 404 Not Found"])
def test_a_clients_other_status_line_is_no_failure(status: str) -> None:
    report = explain(["$ curl -i localhost:8000/v1/models", status, "content-type: application/json"])
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


@pytest.mark.parametrize("line", [
    ">>> RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "1. RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "     7\tRuntimeError: CUDA error: no kernel image is available for execution on the device",
    "<pre><code>RuntimeError: CUDA error: no kernel image is available for execution on the "
    "device</code></pre>",
    "I get this error: RuntimeError: CUDA error: no kernel image is available for execution on "
    "the device"])
def test_the_exception_named_before_a_native_phrase_is_the_root(line: str) -> None:
    """What stands before the line does not change what it names: the class Python printed, with
    the native phrase its message, and no closing HTML tag in the message."""
    report = explain(["Loading model...", line])
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
    assert report.root_cause.message.endswith("on the device")
