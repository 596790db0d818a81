"""pytest's short test summary restates a report, generated (a Buildkite job's report
pasted with the summary line first).

`FAILED tests/x.py::test[id] - Type: message` (and `ERROR tests/x.py - Type: message` for a
collection or fixture error) repeats the first line of the exception the test's report printed in
its `E   ` lines. Wherever the paste puts it, under whatever wrapper, it is one line (what follows is
not its message) and a copy of the report: the `E` line is the root (causality.yaml
`restatements`, logsleuth/restatements.py). A summary with no report stays the error it names.
"""

from __future__ import annotations

import pytest

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize.grammar import clean, parse_line

WRAPPERS = ["", "[2025-04-03T16:08:35Z] ", "2025-04-03T16:08:35.1234567Z ", "> "]
ERRORS = [("json.decoder.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"),
          ("AssertionError", "assert 'a' == 'b'"),
          ("RuntimeError", "CUDA error: an illegal memory access was encountered"),
          ("ValueError", "The decoder prompt (length 5000) is longer than the maximum model "
                         "length of 4096. Make sure that `max_model_len` is no smaller than the "
                         "number of text tokens.")]
SUMMARIES = ["FAILED tests/v1/test_struct_output.py::test_structured_output[Qwen-guidance] - ",
             "FAILED entrypoints/openai/test_chat.py::test_chat[model] - ",
             "ERROR tests/models/test_load.py - ",
             "ERROR tests/models/test_load.py::test_load - "]


def _report(exception: str, message: str) -> list[str]:
    short = exception.rsplit(".", 1)[-1]
    return ["_ test_structured_output[Qwen-guidance] _", "",
            "monkeypatch = <_pytest.monkeypatch.MonkeyPatch object at 0x7f318d89eb40>", "",
            "    def test_structured_output(monkeypatch):",
            "        outputs = llm.generate(prompts, sampling_params)",
            ">       output_json = json.loads(generated_text)", "",
            "tests/v1/test_struct_output.py:332:",
            "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _",
            "self = <json.decoder.JSONDecoder object at 0x7f32ee3035c0>, s = '', idx = 0", "",
            "    def raw_decode(self, s, idx=0):",
            "        try:",
            "            obj, end = self.scan_once(s, idx)",
            "        except StopIteration as err:",
            '>           raise JSONDecodeError("Expecting value", s, err.value) from None',
            f"E           {exception}: {message}", "",
            f"/usr/lib/python3.12/json/decoder.py:356: {short}"]


def _summary(summary: str, exception: str, message: str, width: int | None) -> str:
    line = f"{summary}{exception}: {message}"
    if width is not None and len(line) > width:
        line = line[: width - 3] + "..."  # pytest cuts the summary to the terminal's width
    return line


def _root_line(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines, 1) if line.startswith("E   "))


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("exception,message", ERRORS)
@pytest.mark.parametrize("summary", SUMMARIES)
@pytest.mark.parametrize("first", [True, False])
@pytest.mark.parametrize("width", [None, 80, 120])
def test_the_report_not_its_summary_is_the_root(wrapper: str, exception: str, message: str,
                                                summary: str, first: bool,
                                                width: int | None) -> None:
    said = _summary(summary, exception, message, width)
    body = _report(exception, message)
    lines = ([said, ""] + body) if first else (body + ["=== short test summary info ===", said])
    text = "".join(wrapper + line + "\n" for line in lines)
    report = explain_text(text, signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == exception
    assert root.line == _root_line(lines), (root.line, root.first_line, root.last_line)


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("exception,message", ERRORS)
@pytest.mark.parametrize("summary", SUMMARIES)
def test_a_summary_alone_is_one_line_and_the_error(wrapper: str, exception: str, message: str,
                                                   summary: str) -> None:
    # what follows a summary line is not its message: the next test's source, indented
    lines = [wrapper + line for line in [
        _summary(summary, exception, message, None), "",
        "    @pytest.mark.parametrize('model', MODELS)", "    def test_other(model):",
        "        assert run(model)", "some plain text after it"]]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.exception == exception and root.line == 1
    assert root.last_line == 1 and root.message == message


@pytest.mark.parametrize("text", ["ERROR vllm.engine - RuntimeError: x",
                                  "ERROR engine.py - RuntimeError: x",
                                  "ERROR 06-10 16:33:51 [core.py:398] RuntimeError: x",
                                  "FAILED to start - RuntimeError: x"])
def test_a_record_is_no_summary(text: str) -> None:
    line = parse_line(clean(text))
    assert not (line.outer or "").startswith(("FAILED", "ERROR")) or line.kind is not \
        LineKind.EXCEPTION


POINTERS = [("RuntimeError", "Engine core initialization failed. See root cause above. "
                             "Failed core proc(s): {}"),
            ("vllm.v1.engine.exceptions.EngineDeadError",
             "EngineCore encountered an issue. See stack trace (above) for the root cause.")]


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("exception,message", POINTERS)
@pytest.mark.parametrize("gap", [[""], []])
def test_the_place_and_type_line_restates_the_exception_above(
        wrapper: str, exception: str, message: str, gap: list[str]) -> None:
    # pytest ends a report with the exception's place and type alone (`x.py:363: RuntimeError`):
    # a copy of the `E` line above, never an error of its own, so an `E` line that only points
    # to a cause elsewhere leaves the cause missing, not a message-less RuntimeError as root
    short = exception.rsplit(".", 1)[-1]
    lines = ["    def test_gen():", ">       llm = LLM('x')",
             f"E       {exception}: {message}", *gap, f"tests/test_x.py:3: {short}",
             "=== short test summary info ===",
             f"FAILED tests/test_x.py::test_gen - {exception}: {message}"]
    report = explain_text("".join(wrapper + line + "\n" for line in lines),
                          signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause
