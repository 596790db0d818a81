"""A device kernel's own assert, as each platform's kernels print it, in a request's path: the
first line of the failure, whatever the platform's runtime reports after it (issue 10: every
platform's form of an error). CUDA's and HIP's (`x.cu:92: k: block: [..], thread: [..]
Assertion `...` failed.`), SYCL's on Intel XPU (`x.hpp:10: void k(): global id: [..], local id:
[..] Assertion `...` failed.`), and an AscendC kernel's on an Ascend NPU (`[ASSERT][CANN_VERSION
: 8.1.RC1][TimeStamp : N] /x/gather_v3base.h:137: Assertion `...' Index 596 out of range [0 596)
!`, with or without CANN's stamp, spaced or not, and cut or hard-wrapped anywhere after
`Assertion`). Generated: the platform runtime's later errors (CANN's `EZ9999:` record, torch_npu's
and torch's RuntimeError, vLLM's input dump), process prefixes and wrappers, the serving lines
before it, the log cut after it. The controls: a healthy serving log with an AscendC kernel's
DumpHead lines, and the word `[ASSERT]` in prose, stay healthy.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


def _ascend(stamp: int, space: bool, tight: bool, message: str) -> str:
    head = "[ASSERT]" + (" " if space else "")
    stamps = ["", "[CANN_VERSION : 8.1.RC1][TimeStamp : 20250301120000123] ",
              "[CANN VERSION : 8.0.0][TimeStamp : 0] "]
    path = "/usr/local/Ascend/8.1.RC1/opp/built-in/op_impl/ai_core/tbe/impl/dynamic/../ascendc/" \
           "gather_v3/gather_v3base.h:137"
    return f"{head}{stamps[stamp]}{path}: Assertion{'' if tight else ' '}`(idx >= 0 && idx < " \
           f"this->gxSize)' {message}"


ascend = st.builds(_ascend, st.integers(0, 2), st.booleans(), st.booleans(),
                   st.sampled_from(["Index 596 out of range [0 596) !", "", "block 3 failed"]))
SYCL = ("/opt/intel/oneapi/include/sycl/ext/index_kernel.hpp:10: void kernelFunc(int *, int): "
        "global id: [3,0,0], local id: [0,0,0] Assertion `idx < size && \"index out of bounds\"` "
        "failed.")
CUDA = ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: indexSelectLargeIndex: block: "
        "[3,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.")
asserts = st.one_of(ascend, st.just(SYCL), st.just(CUDA))
# where the kernel's output lands: raw stderr, a worker's prefix, torch's rank tag, docker
prefixes = st.sampled_from(["", "(VllmWorker TP0 pid=77) ", "(EngineCore_DP0 pid=3) ",
                            "2025-07-03T05:08:53.123Z "])
# a request admitted, then the engine's steps: the assert is in its path
SERVING = [
    "INFO 07-03 05:08:40 [api_server.py:1395] vLLM API server version 0.9.1",
    "INFO:     Application startup complete.",
    'INFO:     10.0.0.5:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "INFO 07-03 05:08:53 [async_llm.py:271] Added request chatcmpl-8ba668fffcff4f3cb46a2ef9a78b5755",
    "DumpHead: AIV-39, CoreType=AIV, block dim=40, total_block_num=40, block_remain_len=640, "
    "block_initial_space=1024, rsv=0, magic=5aa5bccd",
]
# what a platform's runtime and vLLM print after a kernel's assert
AFTER = [
    "[rank0]:[W703 05:08:55.758707244 compiler_depend.ts:188] Warning: EZ9999: Inner Error!",
    "EZ9999: [PID:111457] 2025-07-03-05:08:53.788.426 The error from device(chipId:0, dieId:0), "
    "serial number is 1, there is an aivec error exception, core id is 2, error code = 0",
    "synchronize stream failed, runtime result = 507035[FUNC:ReportCallError]"
    "[FILE:log_inner.cpp][LINE:161]",
    "RuntimeError: ACL stream synchronize failed, error code:507035",
    "RuntimeError: CUDA error: device-side assert triggered",
    "ERROR 07-03 05:08:55 [dump_input.py:69] Dumping input data",
    "ERROR 07-03 05:08:55 [core.py:588] EngineCore encountered a fatal error.",
]
afters = st.lists(st.sampled_from(AFTER), max_size=5)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, len(SERVING)), asserts, prefixes, afters, st.booleans())
def test_a_kernel_assert_in_a_request_path_is_the_root(
        served: int, shape: str, prefix: str, after: list[str], wrapped: bool) -> None:
    line = prefix + shape
    assert anchor_patterns()[0].search(line.encode()), line
    parsed = parse_line(clean(line))
    assert parsed.kind is LineKind.DIAGNOSTIC and parsed.exception == "device-side assertion"
    lines = [*SERVING[:served], line]
    at = len(lines)
    if wrapped and shape.startswith("[ASSERT]"):
        # a terminal's hard wrap inside the expression: the rest goes on the next line (an
        # AscendC kernel's line has no fixed end; CUDA's and SYCL's end in `failed.`)
        cut = shape.index("Assertion") + len("Assertion") + 4
        lines[-1] = prefix + shape[:cut]
        lines.append(shape[cut:])
    report = explain([*lines, *after])
    assert report.verdict is Verdict.FAILURE, report.reasons
    root = report.root_cause
    assert root is not None and root.exception == "device-side assertion", root
    assert root.line == at
    assert ":" in root.message and "Assertion" in root.message


@settings(max_examples=40, deadline=None)
@given(ascend, prefixes)
def test_the_ascendc_assert_keeps_its_source_and_expression(shape: str, prefix: str) -> None:
    parsed = parse_line(clean(prefix + shape))
    assert parsed.message is not None and "gather_v3base.h:137: Assertion" in parsed.message
    assert parsed.message.startswith("[ASSERT]")


HEALTHY = [
    *SERVING,
    "INFO 07-03 05:08:54 [loggers.py:123] Engine 000: Avg prompt throughput: 120.0 tokens/s, "
    "Avg generation throughput: 30.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs",
    'INFO:     10.0.0.5:40002 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
]
NOT_ASSERTS = ["[ASSERT] checks are compiled out in release builds",
               "INFO 07-03 05:08:54 [utils.py:1] ASCENDC_DUMP=0: [ASSERT] and [PRINTF] output off",
               "[PRINTF] block 3: idx=595 size=596",
               "[ASSERT] passed: /x/gather_v3base.h:137"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(NOT_ASSERTS), min_size=1, max_size=3), st.integers(0, len(HEALTHY)))
def test_assert_words_in_a_healthy_serving_log_stay_healthy(noise: list[str], at: int) -> None:
    report = explain([*HEALTHY[:at], *noise, *HEALTHY[at:]])
    assert report.verdict is Verdict.NO_FAILURE, (report.root_cause, noise)
