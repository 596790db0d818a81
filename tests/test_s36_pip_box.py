"""pip's box around a build step's output (grammars/vllm.lark pip_box: PIP_BOX_OPEN and
PIP_BOX_END), read by assemble.py through the grammar's terminals: `╰─> [N lines of output]`
opens it, `[end of output]` closes it. Inside an open box an exception line is the child's own
error even when the paste kept none of its traceback's frames; after the box closes it is not,
and the closing line never goes on a shifted traceback's message. Generated: the step, the
child's error, the count, the box's indentation, how much of the traceback was kept, the
wrapper every line is behind.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize.grammar import PART_SYMBOLS, terminal_regex

STEPS = ["Getting requirements to build wheel", "Preparing metadata (pyproject.toml)",
         "python setup.py egg_info", "Building wheel for vllm (pyproject.toml)",
         "installing build dependencies"]
CHILD_ERRORS = [("RuntimeError", "Unknown runtime environment"),
                ("OSError", "CUDA_HOME environment variable is not set. Please set it to your "
                            "CUDA install root."),
                ("AssertionError", "CUDA_HOME is not set"),
                ("ModuleNotFoundError", "No module named 'torch'")]
# what a collector or runner puts before every line (buildkit's `#4 3570.9 ` is left out: the
# box's build report behind it is read apart from the box at the session-35 code already)
WRAPPERS = ["", "2025-06-01T10:00:01.123456Z ", "2025-06-01T10:00:01.123456789Z stderr F ",
            "vllm-1  | ", "Jun 01 10:00:01 gpu-3 python[4242]: "]
TRACE = ['Traceback (most recent call last):',
         '  File "/tmp/pip-build-env-x/overlay/setuptools/build_meta.py", line 341, in run_setup',
         '    exec(code, locals())',
         '  File "<string>", line 98, in <module>',
         '    raise {exc}("...")']


def _pip_log(step: str, error: tuple[str, str], *, kept: int | None, shift: int, count: int,
             wrapper: str, closed_first: bool = False) -> str:
    """pip's report of a child step that raised, the child's lines `shift` columns in (pip: six),
    its traceback whole (`kept` None) or only its last `kept` source lines; `closed_first`: the
    box closes before the child's exception line (a near miss: the line is then not the box's)."""
    trace = [line.format(exc=error[0]) for line in TRACE]
    if kept is not None:
        trace = [line for line in trace[1:] if not line.lstrip().startswith("File ")]
        trace = trace[len(trace) - kept:] if kept else []
    pad = " " * shift
    child, end = [f"{pad}{error[0]}: {error[1]}"], [f"{pad}[end of output]"]
    body = [pad + line for line in trace] + (end + child if closed_first else child + end)
    lines = ["Collecting vllm==0.6.3", "  Downloading vllm-0.6.3.tar.gz (2.7 MB)",
             f"  {step} ... error", "  error: subprocess-exited-with-error", "",
             f"  × {step} did not run successfully.", "  │ exit code: 1",
             f"  ╰─> [{count} lines of output]", *body, "",
             "  note: This error originates from a subprocess, and is likely not a problem with "
             "pip.", "error: subprocess-exited-with-error"]
    return "".join(f"{wrapper}{line}\n" for line in lines)


def _explain(text: str):  # type: ignore[no-untyped-def]
    return explain_text(text, signatures=default_signatures())


# ---- the terminals ------------------------------------------------------------------------------

def test_the_box_is_a_part_of_the_grammar() -> None:
    assert "pip_box" in PART_SYMBOLS


@given(indent=st.integers(0, 12), count=st.integers(1, 99_999),
       trailing=st.sampled_from(["", " ", "  "]))
def test_the_box_lines_are_the_terminals_wherever_they_stand(indent: int, count: int,
                                                             trailing: str) -> None:
    pad = " " * indent
    assert terminal_regex("PIP_BOX_OPEN").match(f"{pad}╰─> [{count} lines of output]{trailing}")
    assert terminal_regex("PIP_BOX_END").match(f"{pad}[end of output]{trailing}")
    assert not terminal_regex("PIP_BOX_END").match(f"{pad}╰─> [{count} lines of output]")
    assert not terminal_regex("PIP_BOX_OPEN").match(f"{pad}[end of output]")


@pytest.mark.parametrize("text", [
    "╰─> [17 lines of output] and more", "see the [17 lines of output] above",
    "╰─> [many lines of output]",
    "╰─▶ Because torch==2.11.0+cpu has no wheels",  # uv's cause, drawn alike
    "│ exit code: 1", "× Getting requirements to build wheel did not run successfully.",
    "[end of output] then", "(end of output)", "the [end of output] marker"])
def test_near_misses_are_no_box_line(text: str) -> None:
    assert not terminal_regex("PIP_BOX_OPEN").match(text)
    assert not terminal_regex("PIP_BOX_END").match(text)


# ---- through the pipeline -----------------------------------------------------------------------

BOXES = dict(step=st.sampled_from(STEPS), error=st.sampled_from(CHILD_ERRORS),
             kept=st.integers(0, 2), shift=st.integers(4, 8), count=st.integers(1, 400),
             wrapper=st.sampled_from(WRAPPERS))


@settings(max_examples=40)
@given(**BOXES)
def test_a_childs_exception_in_an_open_box_is_the_root_without_its_frames(
        step: str, error: tuple[str, str], kept: int, shift: int, count: int,
        wrapper: str) -> None:
    text = _pip_log(step, error, kept=kept, shift=shift, count=count, wrapper=wrapper)
    report = _explain(text)
    assert report.root_cause is not None, text
    assert (report.root_cause.exception, report.root_cause.message) == error, text
    assert str(report.verdict) == "failure"


@settings(max_examples=25)
@given(**BOXES)
def test_an_exception_line_after_the_box_closed_is_not_the_childs(
        step: str, error: tuple[str, str], kept: int, shift: int, count: int,
        wrapper: str) -> None:
    # the near miss: `[end of output]` came first, so the line is not the child's relayed output
    text = _pip_log(step, error, kept=kept, shift=shift, count=count, wrapper=wrapper,
                    closed_first=True)
    report = _explain(text)
    assert report.root_cause is None or report.root_cause.exception != error[0], text


@settings(max_examples=25)
@given(step=BOXES["step"], error=BOXES["error"], shift=BOXES["shift"], count=BOXES["count"],
       wrapper=BOXES["wrapper"])
def test_the_box_end_never_goes_on_a_shifted_tracebacks_message(
        step: str, error: tuple[str, str], shift: int, count: int, wrapper: str) -> None:
    text = _pip_log(step, error, kept=None, shift=shift, count=count, wrapper=wrapper)
    report = _explain(text)
    assert report.root_cause is not None, text
    assert (report.root_cause.exception, report.root_cause.message) == error, text
    assert "end of output" not in report.root_cause.message
