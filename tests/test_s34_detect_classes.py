"""Session 34's failing logs called healthy, as classes (issue 10: no failing log called healthy).

1. Ascend CANN's error record whose head a paste elided. CANN 8.2+ writes `[PID: N] <time>
   Name(EXnnnn): message` (grammars/vllm.lark CANN_CODE_HEADER); a report that cuts the head to
   `... `, or writes the failed call and its return code before the name (`aclnnQuantMatmulV5 ...
   error code 161002 Invalid_Argument(EZ0027):`, the message on the next line: tests/fixtures/
   tuning/startup/yy-ascend-v0250-w4a4-mxfp4-quant-matmul-scale-k-mismatch-ez0027-elided), or a
   wrapper nobody taught the grammar, left a line no shape read: a failing log called healthy.
   Now the error's name and code in parentheses before a colon say it is CANN's record wherever
   they stand (CANN_INLINE): read as the header's record is (level ERROR, the code its site, so
   a Python exception the call then fails with is weighed as the header form's is), the words
   before the name kept. Near misses: a code without its name and colon, a warning's `W` code, a
   call with a code as its argument.
2. A container runtime's warning that the image's platform is not the host's (docker's `WARNING:
   The requested image's platform (linux/amd64) does not match the detected host platform
   (linux/arm64/v8) and no specific platform was requested`, podman's `WARNING: image platform
   (...) does not match the expected platform (...)`): when nothing of the container's program
   follows it is the run's only statement of its failure (tests/fixtures/tuning/launchers/
   uu-ascend-docker-run-openeuler-image-amd64-on-arm64-host-platform-mismatch-warning-two-lines),
   a failing warning (causality.yaml `failing_warnings`). The program's own work after it (it ran
   emulated) survives it; a later error of the program (`exec format error`, the start-up's own
   exception) says more and is the root. Near misses: docker's benign warnings alone.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Level, LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import clean, parse_line, parse_line_whole
from test_fastpath import _check

# ---- 1. CANN's error record, its head elided ------------------------------------------------------

# CANN's error names and codes as its records print them (CANN's error code reference: E, the
# module's letter or digit, four digits); the names without an exception's suffix are the ones no
# exception shape read
NAMES = st.sampled_from([("Invalid_Argument", "EZ0027"), ("Invalid_Argument", "EE1001"),
                         ("Bind_Failed", "EJ0003"), ("Ranktable_Detecte_Failed", "EI0015"),
                         ("Invalid_Param", "E89999"),
                         ("Resource_Exhausted", "EL0004"), ("Op_Not_Supported", "E39999")])
# what a report kept before the name: the head cut to an ellipsis, the call and its return code,
# the head's process and time with the time cut, nothing but indentation
LEADS = st.sampled_from(["... ", "  aclnnQuantMatmulV5 ... error code 161002 ",
                         "aclnnAddmm failed, error code is 161002, detail: ", "[PID: 4121] ... ",
                         "EZ9999[PID: 412] ... ", "  "])
MESSAGES = st.sampled_from(["x1Scale K 68, x2Scale K 67 ... scale K must equal K ceildivided by 64.",
                            "The k-axis of the two inputs are different.",
                            "Failed to allocate memory."])
# wrappers and prefixes a line of a run may stand behind
WRAPS = st.sampled_from(["", "2026-07-01T10:11:12.123456789Z ", "vllm-ascend-1  | ",
                         "Jul 01 10:11:12 npu-node vllm[4121]: ", "[rank0]: ",
                         "(EngineCore_DP0 pid=4121) ", "(Worker_TP1 pid=4122) "])
SAME_LINE = st.booleans()  # the message on the name's line, or on the next (the colon ends it)


def _cann(lead: str, name: str, code: str, message: str, same_line: bool) -> list[str]:
    if same_line:
        return [f"{lead}{name}({code}): {message}"]
    return [f"{lead}{name}({code}):", f"  {message}"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(NAMES, LEADS, MESSAGES, WRAPS, SAME_LINE)
def test_an_elided_cann_record_is_an_error_record(name_code, lead: str, message: str, wrap: str,
                                                  same_line: bool) -> None:
    name, code = name_code
    lines = [wrap + line for line in _cann(lead, name, code, message, same_line)]
    line = parse_line(clean(lines[0]))
    assert (line.kind, line.level, line.site) == (LineKind.PLAIN, Level.ERROR, code)
    for text in lines:
        _check(text.encode())  # the fast path reads it as Lark does
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1
    # the words before the name stay the message's (the call and its return code)
    assert lead.strip(" .") in report.root_cause.message
    assert f"{name}({code}):" in report.root_cause.message


@settings(max_examples=30, deadline=None, derandomize=True)
@given(NAMES, MESSAGES, st.sampled_from(["... ", "  aclnnFoo ... error code 161002 "]),
       st.booleans())
def test_the_elided_record_weighs_as_the_header_form_does(name_code, message: str, lead: str,
                                                          before: bool) -> None:
    # the call's Python error before or after it: the root is the one the header form gives
    name, code = name_code
    raised = "RuntimeError: call aclnnFoo failed, error code is 161002"

    def root(record: str) -> tuple[object, object]:
        lines = [raised, record] if before else [record, raised]
        report = explain_text("\n".join(lines) + "\n")
        assert report.root_cause is not None
        return report.root_cause.line, report.root_cause.exception

    header = f"[PID: 4121] 2026-07-01-10:11:12.123.456 {name}({code}): {message}"
    assert root(f"{lead}{name}({code}): {message}") == root(header)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(NAMES, LEADS, MESSAGES)
def test_the_elided_record_reads_the_same_whole_and_by_parts(name_code, lead: str,
                                                             message: str) -> None:
    name, code = name_code
    text = clean(f"{lead}{name}({code}): {message}")
    assert parse_line(text) == parse_line_whole(text)


SERVING = ["INFO:     127.0.0.1:40312 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
           "INFO 07-01 10:11:20 [loggers.py:123] Engine 000: Avg prompt throughput: 12.1 tokens/s, "
           "Avg generation throughput: 40.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV "
           "cache usage: 1.2%, Prefix cache hit rate: 0.0%"]


def test_near_misses_of_a_cann_record_stay_text() -> None:
    for text in ["see the table of codes (E10001): above",  # a code without its name
                 "Invalid_Argument(W11001): a warning's code",
                 "Invalid_Argument(EZ0027) is documented",  # no colon after the code
                 "retry(EZ00271): five digits",
                 "call(E1234): four characters"]:
        line = parse_line(clean(text))
        assert line.level is None and line.site is None, text
        report = explain_text("\n".join([f"INFO 07-01 10:11:12 [x.py:1] {text}", *SERVING * 3])
                              + "\n")
        assert report.verdict is Verdict.NO_FAILURE, text


# ---- 2. a container runtime's platform warning ------------------------------------------------------

PLATFORMS = st.sampled_from([("linux/amd64", "linux/arm64/v8"), ("linux/arm64", "linux/amd64"),
                             ("linux/amd64", "linux/arm64"), ("linux/ppc64le", "linux/amd64"),
                             ("linux/arm/v7", "linux/arm64/v8")])
WORDINGS = st.sampled_from([
    # docker's CLI (moby: the daemon's create warning as the CLI prints it)
    "WARNING: The requested image's platform ({image}) does not match the detected host platform "
    "({host}) and no specific platform was requested",
    # podman's
    "WARNING: image platform ({image}) does not match the expected platform ({host})",
])
BENIGN = ["WARNING: Published ports are discarded when using host network mode",
          "WARNING: Your kernel does not support swap limit capabilities or the cgroup is not "
          "mounted. Memory limited without swap.",
          "WARNING: IPv4 forwarding is disabled. Networking will not work."]
# a unit that runs `docker run` (journald), a terminal's prompt line before it, a collector's time
RUNTIME_WRAPS = st.sampled_from(["", "Jul 01 10:11:12 npu-node docker[4121]: ",
                                 "2026-07-01T10:11:12.123456789Z "])
STARTED = ["INFO 07-01 10:11:14 [__init__.py:216] Automatically detected platform cpu.",
           "INFO 07-01 10:11:20 [api_server.py:1896] vLLM API server version 0.10.0",
           "INFO:     Started server process [1]",
           "INFO:     Application startup complete.",
           *SERVING * 3]


def _platform(wording: str, platforms: tuple[str, str], wrap: str, benign: int) -> list[str]:
    image, host = platforms
    return [wrap + line for line in [*BENIGN[:benign], wording.format(image=image, host=host)]]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(WORDINGS, PLATFORMS, RUNTIME_WRAPS, st.integers(0, 2))
def test_a_platform_mismatch_that_ends_the_log_is_the_failure(wording: str, platforms,
                                                              wrap: str, benign: int) -> None:
    lines = _platform(wording, platforms, wrap, benign)
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(lines)
    assert f"platform ({platforms[0]}) does not match" in report.root_cause.message


@settings(max_examples=20, deadline=None, derandomize=True)
@given(WORDINGS, PLATFORMS, st.integers(0, 2))
def test_the_program_working_after_it_survives_it(wording: str, platforms, benign: int) -> None:
    lines = _platform(wording, platforms, "", benign) + STARTED
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None, derandomize=True)
@given(WORDINGS, PLATFORMS, st.sampled_from([
    ["exec /usr/bin/python3: exec format error"],
    ["INFO 07-01 10:11:14 [__init__.py:216] Automatically detected platform cpu.",
     "ValueError: To serve at least one request with the models's max seq len (40960), (4.38 GiB "
     "KV cache is needed, which is larger than the available KV cache memory (2.00 GiB)."]]))
def test_a_later_error_of_the_program_says_more(wording: str, platforms, after: list[str]) -> None:
    lines = _platform(wording, platforms, "", 1) + after
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(lines)


def test_benign_runtime_warnings_alone_stay_healthy() -> None:
    for count in range(1, len(BENIGN) + 1):
        assert explain_text("\n".join(BENIGN[:count]) + "\n").verdict is Verdict.NO_FAILURE
    # the platforms agreeing is no warning docker prints; the words without a mismatch are text
    text = "INFO 07-01 10:11:12 [x.py:1] image platform (linux/amd64) matches the host platform"
    assert explain_text(text + "\n").verdict is Verdict.NO_FAILURE
