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
3. The Ascend plugin's failures printed without the exception's class (tools/failure_probe
   statements `torch-npu-function-error`, `torch-npu-hccl-function-error`, `aclnn-call-failed-
   detail`: every wrapper, 33 of 33 failing logs called healthy): torch_npu's text of the
   RuntimeError its NPU_CHECK_ERROR and HCCL_CHECK_ERROR raise (`addmm:.../compiler_depend.ts:112
   NPU function error: call aclnnAddmm failed, error code is 161002`), read as the phrase a C++
   layer's `CUDA error: ...` is (grammars/vllm.lark PHRASE_LABEL); and CANN's code before its
   colon after other words (`call aclnnX failed, detail:EZ9999: Inner Error!`, CANN_INLINE).
   Near misses: the RuntimeError that carries the text stays the exception; the words without
   their colon are prose; a code glued to a word is no code.
4. Two launchers' outputs (issue 10, last session's open ends): `stern --output json` (one
   object a line, the pod and the container beside the message, no time: jsonlines.py
   EVENT_KEYS) and `pm2 logs` of a process named with spaces (`0|vllm server | `, PM2_TAG).
5. Native code's record after the engine's output (a CANN code, Neuron's runtime) was read as the
   record of a program that drives vLLM judging its task (drivers.yaml) when its words named no
   failure: no driver writes it (causal.py, causality.yaml `native`).
6. Intel Gaudi's PyTorch bridge's fatal record, `[Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM
   Allocation failed for size::939524096 (896)MB` (its device memory exhausted; vllm-fork's and
   vllm-gaudi's calibration docs quote it as a RuntimeError's message): a header of its own
   (grammars/vllm.lark HABANA_HEADER, the module its native site). Near misses: the words
   without the module, another level.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Level, LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.platform_knobs import default_platforms
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


# ---- 3. the Ascend plugin's failures without their class -----------------------------------------

NPU_PHRASES = st.sampled_from([
    ("addmm:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:112 ", "NPU function error",
     "call aclnnAddmm failed, error code is 161002"),
    ("", "NPU function error", "aclrtSynchronizeStreamWithTimeout(stream, -1), error code is 507035"),
    ("HcclAllreduce:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:3490 ", "HCCL function error",
     "HcclAllReduce(...), error code is 9"),
    ("createHCCLComm:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:2372 ", "HCCL function error",
     "HcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error "
     "code is 7")])
DETAILS = st.sampled_from(["call aclnnMoeDistributeDispatchV2 failed, detail:EZ9999: Inner Error!",
                           "call aclnnIndexPutImpl failed, detail:EZ9999: Inner Error!",
                           "[rank0]: ... EZ1001: The operator is not supported on the current "
                           "SoC version.",
                           "npu op failed | E39999: open so failed"])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(NPU_PHRASES, WRAPS)
def test_torch_npu_s_error_text_without_its_class_is_an_error(phrase, wrap: str) -> None:
    lead, label, message = phrase
    text = f"{wrap}{lead}{label}: {message}"
    _check(text.encode())
    report = explain_text("\n".join([*SERVING, text]) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(SERVING) + 1
    assert (report.root_cause.exception, report.root_cause.message) == (label, message)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(DETAILS, WRAPS)
def test_a_cann_code_after_other_words_is_an_error_record(detail: str, wrap: str) -> None:
    _check((wrap + detail).encode())
    line = parse_line(clean(wrap + detail))
    assert line.level is Level.ERROR
    report = explain_text("\n".join([*SERVING, wrap + detail]) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(SERVING) + 1


def test_near_misses_of_the_ascend_phrases() -> None:
    # the RuntimeError that carries torch_npu's text is the exception
    line = parse_line("RuntimeError: addmm:x/compiler_depend.ts:112 NPU function error: call "
                      "aclnnAddmm failed, error code is 161002")
    assert line.exception == "RuntimeError"
    for text in ["checked the NPU function error handling of the plugin",  # prose, no colon
                 "call aclnnX failed, detail:XEZ9999: a code glued to a word",
                 "build id-E10001: not a code after a hyphen",
                 "a code of three digits E100: is no CANN code"]:
        report = explain_text("\n".join([f"INFO 07-01 10:11:12 [x.py:1] {text}", *SERVING * 3])
                              + "\n")
        assert report.verdict is Verdict.NO_FAILURE, text


# ---- 4. stern's JSON output, pm2's names with spaces ----------------------------------------------

FAILING = ["INFO 06-01 10:11:12 [api_server.py:1043] vLLM API server version 0.9.1",
           "(EngineCore_DP0 pid=812) ERROR 06-01 10:11:13 [core.py:708] EngineCore failed to start.",
           "(EngineCore_DP0 pid=812) ERROR 06-01 10:11:13 [core.py:708] Traceback (most recent call "
           "last):",
           '(EngineCore_DP0 pid=812) ERROR 06-01 10:11:13 [core.py:708]   File "/usr/lib/python3.12/'
           'site-packages/vllm/v1/engine/core.py", line 699, in run_engine_core',
           "(EngineCore_DP0 pid=812) ERROR 06-01 10:11:13 [core.py:708] ValueError: No available "
           "memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
           "the engine.",
           "[ERROR] 2025-06-01-10:12:40 (PID:4121, Device:0, RankID:-1) ERR00100 PTA call acl api "
           "failed"]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.integers(1, len(FAILING)), st.sampled_from(["", "2025-06-01T10:11:12.123456789Z "]),
       st.sampled_from(["vllm-7d9f8c6b5-x2k4q", "vllm-0"]))
def test_stern_json_output_is_read_by_its_message(end: int, stamp: str, pod: str) -> None:
    lines = FAILING[:end]
    objects = [json.dumps({"message": stamp + line, "nodeName": "gpu-node-3",
                           "namespace": "default", "podName": pod, "containerName": "vllm"})
               for line in lines]
    plain = explain_text("\n".join(stamp + line for line in lines) + "\n")
    report = explain_text("\n".join(objects) + "\n")
    assert any("JSON lines" in notice for notice in report.notices)
    assert report.verdict is plain.verdict
    assert (report.root_cause is None) is (plain.root_cause is None)
    if plain.root_cause is not None and report.root_cause is not None:
        assert (report.root_cause.line, report.root_cause.message) == \
            (plain.root_cause.line, plain.root_cause.message)


def test_an_object_without_time_or_source_is_no_event() -> None:
    # a client's printed error body has a message too: not a JSON-lines log
    body = json.dumps({"message": "ValueError: x", "type": "BadRequestError", "code": 400})
    assert not any("JSON lines" in n for n in explain_text(body + "\n").notices)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(["vllm server", "qwen 7b api", "my vllm serve job", "vllm"]),
       st.integers(0, 6), st.integers(0, len(FAILING) - 1))
def test_pm2_names_with_spaces_are_a_launcher_tag(name: str, pad: int, index: int) -> None:
    raw = FAILING[index]
    plain, tagged = parse_line(clean(raw)), parse_line(clean(f"0|{name}{' ' * pad} | {raw}"))
    assert (tagged.kind, tagged.process, tagged.exception, tagged.level, tagged.text) == \
        (plain.kind, plain.process, plain.exception, plain.level, plain.text)


def test_a_table_row_with_bars_stays_text() -> None:
    # a bar with no space after it, a name of more words than pm2's, a bar with no id before it
    for text in ["a b | c", "0|vllm server|running", "1|one two three four five six | x",
                 "|vllm server | x"]:
        assert parse_line(clean(text)).outer is None, text


# ---- 5. native code's record after the engine's output --------------------------------------------

# Records the runtime under the engine writes unprefixed (causality.yaml `native`): CANN's codes in
# each form, AWS Neuron's runtime. After the engine produced output they were read as the record of
# a program that drives vLLM (a harness's judgement of its task, drivers.yaml) when their words
# named no failure: a failing log called healthy. They are no driver's; answers served after one
# still survive it.
NATIVE = st.sampled_from([
    "EZ1001: The operator is not supported on the current SoC version.",
    "... EZ1001: The operator is not supported on the current SoC version.",
    "[PID: 4121] 2026-07-01-10:11:12.123.456 Invalid_Argument(EZ0027): x1Scale K 68, x2Scale K 67",
    "2026-Jun-25 14:34:26.362810   275:2040  ERROR  TDRV:exec_process_custom_notification   "
    "Received notification: the device reported an error"])


@settings(max_examples=20, deadline=None, derandomize=True)
@given(NATIVE, st.integers(1, 3))
def test_native_records_after_the_engine_s_output_are_no_driver_s(record: str, served: int) -> None:
    lines = [*SERVING * served, record]
    assert explain_text("\n".join(lines) + "\n").verdict is not Verdict.NO_FAILURE
    # the server answering after it saves it
    assert explain_text("\n".join([*lines, *SERVING * 3]) + "\n").verdict is Verdict.NO_FAILURE


# ---- 6. Gaudi's bridge ------------------------------------------------------------------------------

MODULES = st.sampled_from([("PT_DEVMEM", "Allocation failed for size::939524096 (896)MB"),
                           ("PT_DEVMEM", "Allocation failed for size::14680064 (14)MB"),
                           ("PT_BRIDGE", "Exception in Launch thread...")])


@settings(max_examples=30, deadline=None, derandomize=True)
@given(MODULES, st.sampled_from(["[Rank:0] ", "[Rank:7] ", ""]), WRAPS, st.integers(0, 2))
def test_gaudi_s_fatal_record_is_an_error(module, rank: str, wrap: str, served: int) -> None:
    name, message = module
    text = f"{wrap}{rank}FATAL ERROR :: MODULE:{name} {message}"
    _check(text.encode())
    line = parse_line(clean(text))
    assert (line.level, line.site, line.text) == (Level.CRITICAL, f"MODULE:{name}",
                                                   f"MODULE:{name} {message}")
    report = explain_text("\n".join([*SERVING * served, text]) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.message == f"MODULE:{name} {message}"
    # the module's words say the platform: Gaudi's spelling of the CUDA knobs a fix names
    assert any(p.name == "hpu" and p.seen(report.root_cause, {})
               for p in default_platforms())


@settings(max_examples=20, deadline=None, derandomize=True)
@given(MODULES, st.booleans())
def test_the_runtime_error_that_carries_it_stays_the_exception(module, record_first: bool) -> None:
    name, message = module
    record = f"[Rank:0] FATAL ERROR :: MODULE:{name} {message}"
    raised = f"RuntimeError: {record}"
    lines = [record, raised] if record_first else [raised]
    report = explain_text("\n".join(lines) + "\n")
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"


def test_near_misses_of_gaudi_s_record() -> None:
    for text in ["FATAL ERROR :: the module was not named", "[Rank:0] INFO :: MODULE:PT_DEVMEM x",
                 "FATAL ERROR :: MODULE:pt_devmem lower case is no module"]:
        assert parse_line(clean(text)).site in (None, "-"), text
