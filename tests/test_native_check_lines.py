"""A native CHECK macro's bare error line (issue 10): C and C++ code in vLLM and its kernels prints
an error as a line of its own, with no log record, prefix or traceback. vLLM's cumem allocator
(csrc/cumem_allocator.cpp, sleep mode) prints `CUDA Error: <cuGetErrorString> at <file>:<line>`
and goes on, so the calls after a failed one print more lines of the same shape. Each such line is
a fatal event labelled by the kind it prints, its text the message; the first is the root.

Generated: every format x wrapper x a line before and after; and a Python record that only
mentions the phrase inside an INFO message is no failure.
"""

from __future__ import annotations

import pytest

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import clean, parse_line

# (the line as the macro prints it, the label, the message): the shapes of CHECK macros in vLLM's
# csrc (cumem_allocator.cpp's `CUDA Error: %s at %s:%d`), its ROCm build, and common kernel code.
FORMATS = [
    ("CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:56", "CUDA Error",
     "out of memory at /workspace/csrc/cumem_allocator.cpp:56"),
    ("CUDA error: an illegal memory access was encountered at csrc/attention/x.cu:123",
     "CUDA error", "an illegal memory access was encountered at csrc/attention/x.cu:123"),
    ("HIP error: hipErrorOutOfMemory at csrc/cumem_allocator.cpp:88", "HIP error",
     "hipErrorOutOfMemory at csrc/cumem_allocator.cpp:88"),
    ("HIP Error: invalid argument at csrc/rocm/attention.cu:41", "HIP Error",
     "invalid argument at csrc/rocm/attention.cu:41"),
    ("CUBLAS error: CUBLAS_STATUS_ALLOC_FAILED at csrc/quantization/gemm.cu:210", "CUBLAS error",
     "CUBLAS_STATUS_ALLOC_FAILED at csrc/quantization/gemm.cu:210"),
    ("CUDA ERROR: misaligned address at csrc/moe/topk.cu:77", "CUDA ERROR",
     "misaligned address at csrc/moe/topk.cu:77"),
    # a label that runs on without a colon keeps the whole sentence as its message
    ("[CUDA ERROR] at file csrc/kernels/fused.cu:33: out of memory", "[CUDA ERROR]",
     "[CUDA ERROR] at file csrc/kernels/fused.cu:33: out of memory"),
    ("Cuda failure 'out of memory'", "Cuda failure", "Cuda failure 'out of memory'"),
    ("Cuda failure common.cu:891 'invalid argument'", "Cuda failure",
     "Cuda failure common.cu:891 'invalid argument'"),
]
WRAPPERS = ["", "vllm-1  | ", "2025-02-05T10:12:00.123456789Z ", "(EngineCore_DP0 pid=9) ",
            "Feb 05 10:12:00 gpu1 python[8052]: "]
START = ["INFO 02-05 10:11:14 [__init__.py:239] Automatically detected platform cuda.",
         "INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version 0.8.5"]
AFTER = ["", "Segmentation fault (core dumped)"]


@pytest.mark.parametrize(("line", "label", "message"), FORMATS)
def test_a_bare_check_line_is_a_fatal_line_labelled_by_its_kind(line: str, label: str,
                                                                 message: str) -> None:
    parsed = parse_line(clean(line))
    assert parsed.kind is LineKind.FATAL
    assert parsed.exception == label
    assert parsed.message == message


@pytest.mark.parametrize(("line", "label", "message"), FORMATS)
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("before", [False, True])
@pytest.mark.parametrize("after", AFTER)
def test_a_bare_check_line_is_the_root(line: str, label: str, message: str, wrapper: str,
                                       before: bool, after: str) -> None:
    lines = [*(START if before else []), wrapper + line, *([wrapper + after] if after else [])]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None
    assert report.root_cause.exception == label
    assert message in report.root_cause.message
    assert report.root_cause.line == lines.index(wrapper + line) + 1


def test_the_allocator_lines_after_the_first_are_not_the_root() -> None:
    """The allocator goes on after a failed call: the first line is the cause, whatever follows."""
    lines = ["CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:56",
             "CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:57",
             "CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:64"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.root_cause is not None
    assert report.root_cause.line == 1
    assert "out of memory" in report.root_cause.message


@pytest.mark.parametrize("line", [
    "INFO 02-05 10:11:16 [worker.py:88] Retrying after CUDA Error: out of memory at a.cpp:5",
    "INFO 02-05 10:11:16 [worker.py:88] checked for CUDA error: none found",
    "INFO 02-05 10:11:16 [worker.py:88] CUBLAS error: handling is enabled",
    "DEBUG 02-05 10:11:16 [utils.py:12] [CUDA ERROR] markers are parsed by the test harness",
    "INFO 02-05 10:11:16 [worker.py:88] no Cuda failure 'so far'",
    "CUDA Errors are reported at the end",  # no `: ` after the kind
])
def test_a_mention_in_a_healthy_record_is_no_failure(line: str) -> None:
    report = explain_text("\n".join([*START, line]) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, line


def _wake_up_failure(native: str, raised: str) -> list[str]:
    """A wake_up whose allocator prints its CHECK line unprefixed, then raises its text (PR 12981)."""
    core = "(EngineCore_DP0 pid=48200) ERROR 06-02 14:31:01 [core.py:1365] "
    return [*START,
            "(APIServer pid=47967) INFO 06-02 14:31:00 [api_router.py:39] wake up the engine",
            native,
            core + "Invocation of wake_up method failed",
            core + "Traceback (most recent call last):",
            core + '  File "/x/vllm/device_allocator/cumem.py", line 59, in create_and_map',
            core + "    python_create_and_map(*allocation_handle)",
            core + raised,
            "(EngineCore_DP0 pid=48200) Segmentation fault (core dumped)"]


@pytest.mark.parametrize(("line", "label", "message"), FORMATS[:6])
def test_an_exception_that_repeats_the_line_is_the_root(line: str, label: str,
                                                        message: str) -> None:
    """The exception is the same failure printed in full (process, stack): it is the root."""
    lines = _wake_up_failure(line, f"RuntimeError: {line}")
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == len(lines) - 1
    assert report.root_cause.process.name == "EngineCore_DP0"


def test_an_exception_that_says_something_else_leaves_the_line_the_root() -> None:
    lines = _wake_up_failure(FORMATS[0][0], "RuntimeError: Allocation on device 0 failed")
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.root_cause is not None
    assert report.root_cause.exception == "CUDA Error"
    assert report.root_cause.line == len(START) + 2
