"""Errors that only relay a failure reported elsewhere (causality.yaml `symptoms`), generated:

- an HTTP client whose server closed the connection inside its answer (a benchmark, an
  evaluation harness, an OpenAI client over aiohttp, httpx or requests): the body ends short, and
  the server's own error, if the log holds it, is the cause;
- torch_npu's summary of a failed ACL call, printed before CANN's own record of what failed: the
  record is the cause, however the runner prints the summary's level.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import ILLEGAL_ACCESS, SITE

CLIENT_CUTS = [
    ("aiohttp.http_exceptions.", "TransferEncodingError: {code}, message:\n"
     "  Not enough data for satisfy transfer length header."),
    ("aiohttp.http_exceptions.", "TransferEncodingError: {code}, message='Not enough data to "
     "satisfy transfer length header.'"),
    ("aiohttp.client_exceptions.", "ClientPayloadError: Response payload is not completed: "
     "<TransferEncodingError: {code}, message='Not enough data for satisfy transfer length "
     "header.'>"),
    ("aiohttp.client_exceptions.", "ServerDisconnectedError: Server disconnected"),
    ("httpx.", "RemoteProtocolError: peer closed connection without sending complete message body "
     "(incomplete chunked read)"),
    ("httpcore.", "RemoteProtocolError: Server disconnected without sending a response."),
    ("requests.exceptions.", "ChunkedEncodingError: ('Connection broken: InvalidChunkLength(got "
     "length b'', 0 bytes read)', InvalidChunkLength(got length b'', 0 bytes read))"),
]


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def client_traceback(script: str, cut: tuple[str, str], qualified: bool, code: int) -> list[str]:
    module, text = cut
    return ["Traceback (most recent call last):",
            f'  File "/work/{script}", line 256, in send_request',
            "    async for chunk_bytes in response.content:",
            '  File "/usr/lib/python3.10/site-packages/client/streams.py", line 50, in __anext__',
            "    rv = await self.read_func()",
            *f"{module if qualified else ''}{text.format(code=code)}".split("\n")]


def server_crash(prefix: str) -> list[str]:
    head = f"{prefix}ERROR 08-01 10:00:05 [core.py:700] "
    return [f"{head}EngineCore encountered a fatal error.",
            f"{head}Traceback (most recent call last):",
            f'{head}  File "{SITE}/v1/engine/core.py", line 691, in run_engine_core',
            f"{head}    engine_core.run_busy_loop()",
            *(head + line for line in ILLEGAL_ACCESS)]


scripts = st.sampled_from(["benchmarks/backend_request_func.py", "eval/harness.py", "client.py"])
cuts = st.sampled_from(CLIENT_CUTS)


@given(scripts, cuts, st.booleans(), st.integers(400, 599), st.integers(0, 3))
def test_a_client_cut_short_by_its_server_is_a_symptom(script: str, cut: tuple[str, str],
                                                       qualified: bool, code: int,
                                                       chatter: int) -> None:
    lines = [f"Sending request {n}..." for n in range(chatter)]
    lines += client_traceback(script, cut, qualified, code)
    report = explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (cut, report.root_cause)


@given(scripts, cuts, st.booleans(), st.sampled_from(["", "(EngineCore_DP0 pid=2900) "]))
def test_the_servers_crash_before_a_client_cut_is_the_cause(script: str, cut: tuple[str, str],
                                                            qualified: bool, prefix: str) -> None:
    crash = server_crash(prefix)
    lines = [*crash, *client_traceback(script, cut, qualified, 400)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(crash) - len(ILLEGAL_ACCESS) + 1
    assert report.symptoms, "the client's cut is a symptom of the crash"


# ---- torch_npu's summary, then CANN's record ---------------------------------------------------

# torch_npu prints `[ERROR] <time> ...` then `[Error]: <description>`; a CI runner's annotations
# print the same levels as `Error: ` (so `Error: : <description>`)
LEVELS = {"raw": ("[ERROR]", "[Error]:"), "ci annotation": ("Error: ", "Error: :")}


def ascend_failure(levels: str, pid: int, device: int, code: str, what: str) -> list[str]:
    level, described = LEVELS[levels]
    return [f"{level} 2025-07-31-01:25:19 (PID:{pid}, Device:{device}, RankID:-1) ERR00100 PTA "
            "call acl api failed",
            f"{described} Model execution failed. ",
            "        Rectify the fault based on the error information in the ascend log.",
            f"{code}: Inner Error!",
            f"{code}: [PID: {pid}] 2025-07-31-01:25:19.967.079 {what}[FUNC:ProcessErrorInfo]"
            "[FILE:device_error_proc.cc][LINE:1400]",
            "        TraceBack (most recent call last):",
            "       wait for compute device to finish failed, runtime result = 507011."
            "[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]"]


@given(st.sampled_from(sorted(LEVELS)), st.integers(1, 99999), st.integers(0, 15),
       st.sampled_from(["EE9999", "EE1001", "EZ9999"]),
       st.sampled_from(["The error from device(chipId:6, dieId:0), serial number is 1, event wait "
                        "timeout occurred during task execution, stream_id:19, timeout=1866s.",
                        "aicore exception occurred, stream_id:3, task_id:12.",
                        "memory access out of bounds on device 0."]))
def test_cann_records_under_torch_npus_summary_are_the_cause(levels: str, pid: int, device: int,
                                                            code: str, what: str) -> None:
    lines = ascend_failure(levels, pid, device, code, what)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    root = report.root_cause
    # the record that says what failed (line 5), not the summary (line 1) or its description
    # (line 2, whose indented `Rectify ...` line goes on its message in either form: in the raw
    # one, as the next line of a record whose logger wrote its header once; assemble.py
    # `_continued_key`, tests/test_record_continuations.py)
    assert root.line == 5, (root.line, root.exception)
    assert {1, 2} <= {s.line for s in report.symptoms}
