"""Markdown bold a reporter put around a line of the log they pasted (grammars/vllm.lark BOLD_SPAN).

An issue's body pasted without a code fence, with the one line that matters made bold: the
exception line of a traceback, bare or after the logger's header that every line of the record
carries (`ERROR 09-19 10:53:38 async_llm_engine.py:63] **RuntimeError: mat1 and mat2 shapes
cannot be multiplied (1x5120 and 4096x4096)**`; tests/fixtures/tuning, runtime/d-v06-medusa-
head-hidden-size-mat1-mat2-bold). The marks are the reporter's, not the program's: the line is
what it would be without them, so the traceback ends in its exception and the message holds no
`**`. Not glibc's or absl's `***` banners, not Python's `**` operator in a frame's source line.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import clean, parse_line

HEADERS = ["", "ERROR 09-19 10:53:38 async_llm_engine.py:63] ",
           "(VllmWorkerProcess pid=1234) ERROR 09-19 10:53:38 multiproc_worker_utils.py:233] ",
           "[rank0]: ", "(EngineCore_DP0 pid=3) ERROR 02-05 10:12:30 [core.py:700] "]
WRAPPERS = ["{}", "2024-09-19T10:53:38.123456789Z {}", "vllm-1  | {}"]
ERRORS = [("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (1x5120 and 4096x4096)"),
          ("ValueError", "The model's max seq len (32768) is larger than the maximum number of "
           "tokens that can be stored in KV cache (20000)."),
          ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB."),
          ("AssertionError", "")]
FRAMES = ['  File "/env/lib/python3.10/site-packages/vllm/engine/async_llm_engine.py", line 53, '
          "in _log_task_completion",
          "    return_value = task.result()",
          '  File "/env/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 117, '
          "in forward",
          "    return F.linear(input, self.weight, self.bias)"]


def _traceback(header: str, error: tuple[str, str], bold: str, trailing: str) -> list[str]:
    name, message = error
    last = f"{name}: {message}" if message else name
    return [f"{header}Engine background task failed", f"{header}Traceback (most recent call last):",
            *(header + f for f in FRAMES), f"{header}{bold}{last}{bold}{trailing}"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(HEADERS), st.sampled_from(ERRORS), st.sampled_from(WRAPPERS),
       st.sampled_from(["", "  "]))
def test_a_traceback_whose_exception_line_was_made_bold_ends_in_that_exception(
        header: str, error: tuple[str, str], wrapper: str, trailing: str) -> None:
    lines = [wrapper.format(x) for x in _traceback(header, error, "**", trailing)]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE, lines[-1]
    root = report.root_cause
    assert root is not None and root.line == len(lines), lines[-1]
    assert root.exception == error[0] and "**" not in root.message
    if error[1]:
        assert error[1] in root.message
    plain = explain_text("\n".join(wrapper.format(x) for x in _traceback(header, error, "", ""))
                         + "\n").root_cause
    assert plain is not None and (plain.exception, plain.message) == (root.exception, root.message)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(ERRORS), st.sampled_from(WRAPPERS))
def test_a_bold_exception_line_alone_is_that_exception(error: tuple[str, str],
                                                       wrapper: str) -> None:
    name, message = error
    line = wrapper.format(f"**{name}: {message}**" if message else f"**{name}**")
    parsed = parse_line(clean(line))
    assert parsed.kind is LineKind.EXCEPTION and parsed.exception == name, line
    assert "**" not in (parsed.message or "")


def test_stars_that_are_no_markdown_bold_stay() -> None:
    assert clean("*** SIGSEGV received at time=1718 on cpu 3 ***") == \
        "*** SIGSEGV received at time=1718 on cpu 3 ***"
    assert clean("    return x**2 + y**") == "    return x**2 + y**"
    assert clean("*** stack smashing detected ***: terminated") == \
        "*** stack smashing detected ***: terminated"
