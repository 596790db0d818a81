"""Session 36's Ascend error shapes a platform-plugin sample found unread (issue 10), as classes.

1. CANN's error trace inside another logger's records, its head not kept: the lines CANN prints
   under its `TraceBack (most recent call last):` heading (capital B), each a message then the
   C++ function, file and line that reported it (`Kernel task happen error, retCode=0x31.[FUNC:
   PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1526]`). The heading, indented at ERROR,
   opened a Python traceback cut above its header that nothing closed, and the trace lines were
   its continuation: a failing log called healthy. Now each trace line is native code's error
   record (grammars/vllm.lark CANN_TRACE, its site `file.cc:N`) and the heading a separator
   (CANN_TRACE_HEADING). Near misses: the same text at INFO or WARNING, the suffix inside other
   words, Python's own `Traceback` heading.
2. torch_npu's advisory printed with a failed operator's error ("Since the operator is called
   asynchronously, the stacktrace may be inaccurate ...", its `Note: ASCEND_LAUNCH_BLOCKING=1 ...`)
   and its `[ERROR] <time> (PID:..) ERR00100 PTA call acl api failed` summary relayed inside
   another logger's record were taken as the root before CANN's record (`EE1001: ...`). They are
   symptoms pointing to it (causality.yaml `symptoms`); alone they still say a failure happened.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Level, LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import clean, parse_line
from test_fastpath import _check

# the record heads a vLLM era writes the caught lines behind (V1's worker, V0's worker, the
# engine core), and a pasted trace with no head at all
HEAD_LIST = [
    "(VllmWorker rank=3 pid=50935) ERROR 09-10 03:36:31 [multiproc_executor.py:527] ",
    "(Worker_TP1 pid=4122) ERROR 07-01 10:11:12 [multiproc_executor.py:671] ",
    "ERROR 05-29 20:52:26 worker_base.py:581] ",
    "(EngineCore_DP0 pid=4121) ERROR 07-01 10:11:12 [core.py:710] ",
    "[rank0]: ",
    "",
]
HEADS = st.sampled_from(HEAD_LIST)
WRAPS = st.sampled_from(["", "2026-07-01T10:11:12.123456789Z ", "vllm-ascend-1  | ",
                         "Jul 01 10:11:12 npu-node vllm[4121]: "])
INDENTS = st.sampled_from(["", "        ", "\t"])
# CANN's error-trace lines (message, then [FUNC:][FILE:][LINE:]), from several of its modules
TRACE = [
    "rtKernelLaunchWithHandleV2 execute failed, reason=[vector core exception]"
    "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
    "Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr]"
    "[FILE:davinci_kernel_task.cc][LINE:1526]",
    "AIV Kernel happen error, retCode=0x31.[FUNC:GetError][FILE:stream.cc][LINE:1183]",
    "Memory async failed, check kind and loc, retCode=0x7110001[FUNC:MemcpyAsyncCkeckLocation]"
    "[FILE:api_error.cc][LINE:1793]",
    "rtStreamSynchronizeWithTimeout execute failed, reason=[aicore exception] "
    "[FUNC:FuncErrorReason] [FILE:error_message_manage.cc] [LINE:53]",
]
HEADING = "TraceBack (most recent call last):"
SERVING = ["INFO:     127.0.0.1:40312 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
           "INFO 07-01 10:11:20 [loggers.py:123] Engine 000: Avg prompt throughput: 12.1 tokens/s, "
           "Avg generation throughput: 40.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV "
           "cache usage: 1.2%, Prefix cache hit rate: 0.0%"]


# ---- 1. CANN's error trace, its head not kept -----------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(HEADS, WRAPS, INDENTS, st.lists(st.sampled_from(TRACE), min_size=1, max_size=4),
       st.booleans(), st.booleans())
def test_a_cann_trace_without_its_head_is_a_failure(head: str, wrap: str, indent: str,
                                                    trace: list[str], heading: bool,
                                                    cut_end: bool) -> None:
    body = ([HEADING] if heading else []) + trace
    lines = [f"{wrap}{head}{indent}{text}" for text in body]
    for line in lines:
        _check(line.encode())  # the fast path reads it as Lark does
    if cut_end and len(lines) > 2:
        lines = lines[:-1]  # a paste cut before the trace ended
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None
    assert report.root_cause.line == (2 if heading else 1)
    assert trace[0].split("[FUNC:")[0].strip() in report.root_cause.message


@given(HEADS, INDENTS, st.sampled_from(TRACE))
def test_a_cann_trace_line_is_native_codes_record(head: str, indent: str, text: str) -> None:
    line = parse_line(clean(f"{head}{indent}{text}"))
    assert line.kind is LineKind.PLAIN and line.level is Level.ERROR
    if not head:  # no header names a site: the reporting source is the line's own
        assert line.site is not None and line.site.split(":")[0].endswith(".cc")
    heading = parse_line(clean(f"{head}{indent}{HEADING}"))
    assert heading.kind is LineKind.BLANK  # no Python traceback opened at it


def test_a_cann_trace_after_its_record_leaves_the_record_the_root() -> None:
    head = "(VllmWorker rank=1 pid=771) ERROR 09-10 03:36:31 [multiproc_executor.py:527] "
    lines = [f"{head}EE1001: [PID: 771] 2025-05-29-20:52:24.655.114 The argument is invalid.",
             f"{head}        Solution: 1.Check the input parameter range of the function.",
             f"{head}        {HEADING}", *(f"{head}        {text}" for text in TRACE[:3])]
    report = explain_text("\n".join(lines) + "\n")
    assert report.root_cause is not None and report.root_cause.line == 1


def test_near_misses_of_a_cann_trace_stay_healthy() -> None:
    for text in [
        # the same lines below ERROR: the record's own level wins
        "INFO 07-01 10:11:12 [x.py:1]         " + TRACE[2],
        "WARNING 07-01 10:11:12 [x.py:1]         " + TRACE[0],
        # the suffix not at the line's end, or part of it missing
        "INFO 07-01 10:11:12 [x.py:1] the table [FUNC:GetError][FILE:stream.cc] lists sites",
        "ok [FUNC:GetError][FILE:stream.cc][LINE:1183] then more words",
        # Python's own heading in a healthy INFO record (lower-case b)
        "INFO 07-01 10:11:12 [x.py:1] Traceback (most recent call last): shown on demand",
    ]:
        report = explain_text("\n".join([text, *SERVING * 3]) + "\n")
        assert report.verdict is Verdict.NO_FAILURE, text
    for text in ["ok [FUNC:GetError][FILE:stream.cc][LINE:1183] then more words",
                 "the table [FUNC:GetError][FILE:stream.cc] lists sites"]:
        assert parse_line(clean(text)).level is None, text


# ---- 2. torch_npu's advisory and summary before CANN's record -------------------------------------

ADVISORY = ("Since the operator is called asynchronously, the stacktrace may be inaccurate. If you "
            "want to get the accurate stacktrace, pleace set the environment variable "
            "ASCEND_LAUNCH_BLOCKING=1.")
NOTE = ("Note: ASCEND_LAUNCH_BLOCKING=1 will force ops to run in synchronous mode, resulting in "
        "performance degradation. Please unset ASCEND_LAUNCH_BLOCKING in time after debugging.")
SUMMARY = "[ERROR] 2025-05-29-20:52:26 (PID:1059, Device:0, RankID:-1) ERR00100 PTA call acl api failed."
CANN = st.sampled_from([
    "EE1001: [PID: 1059] 2025-05-29-20:52:24.655.114 The argument is invalid.Reason: Memory async "
    "failed, src loc type=1, dst loc type=1, kind=1 is invalid!",
    "EZ9999: Parse dynamic kernel config fail.",  # (`Inner Error!` alone is a symptom itself)
    "EI0009: Failed to get device id, please check the ASCEND_RT_VISIBLE_DEVICES.",
    "E39999: [PID: 85141] 2025-05-29-20:52:24.655.114 open so failed",
])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([h for h in HEAD_LIST if h]),
       WRAPS, CANN, st.booleans(), st.booleans(), st.booleans())
def test_the_cann_record_after_the_advisory_is_the_root(head: str, wrap: str, cann: str,
                                                        note: bool, summary: bool,
                                                        trace: bool) -> None:
    body = [ADVISORY] + ([NOTE] if note else []) + ([SUMMARY] if summary else []) + [cann]
    if trace:
        body += [f"        {HEADING}", f"        {TRACE[3]}"]
    lines = [f"{wrap}{head}{text}" for text in body]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == body.index(cann) + 1, lines
    assert cann.partition(": ")[2][:20] in report.root_cause.message


def test_the_advisory_alone_still_says_a_failure() -> None:
    head = "ERROR 05-29 20:52:26 worker_base.py:581] "
    for body in ([ADVISORY], [ADVISORY, NOTE], [SUMMARY]):
        report = explain_text("\n".join(head + text for text in body) + "\n")
        assert report.verdict is not Verdict.NO_FAILURE, body


def test_the_advisory_inside_an_exceptions_message_stays_that_exception() -> None:
    # torch_npu's RuntimeError whose message goes on with the advisory: the exception is the error
    lines = ["Traceback (most recent call last):",
             '  File "/x/vllm/worker/worker_base.py", line 573, in execute_method',
             "    return run_method(self, method, args, kwargs)",
             "RuntimeError: The Inner error is reported as above. The process exits for this inner "
             "error, and the current working operator name is aclnnInplaceCopy.",
             ADVISORY]
    report = explain_text("\n".join(lines) + "\n")
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
