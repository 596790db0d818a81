"""Issue 10: a record any logger marks as an error is an error event, whatever its format.

A failing log whose one error line has a shape the grammar did not know read as healthy: a Rust
router's tracing record, a Go sidecar's logfmt or JSON record, a wrapper's Python logger in a format
of its own (LLaMA-Factory, InstructLab, tornado, lm-eval, lighteval, OpenCompass,
GuideLLM), Ascend CANN's `[ERROR]` records behind a vLLM
process prefix and its bare error codes (`EZ9999: Inner Error!`), a tool's `FATAL: ` or `error: `,
the kernel's `segfault at`, and the exit lines that only report a failure (Go's `exit status 1`,
docker's classic builder, Open MPI, a pod listed in CrashLoopBackOff). Each shape is generated
behind every wrapper and prefix, with varied times and pids, and must be (1) read at an error level
or as an error line, (2) anchored, (3) parsed alike by the head/body split and the whole-line
parse, and (4) end a healthy start-up as its failure. Healthy lines that look alike stay healthy.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.model import Level, LineKind
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line, parse_line_whole

SOME = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ISO = st.builds("2025-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:06d}Z".format,
                st.integers(1, 12), st.integers(1, 28), st.integers(0, 23), st.integers(0, 59),
                st.integers(0, 59), st.integers(0, 999999))
DATE = st.builds("2024-{:02d}-{:02d} {:02d}:{:02d}:{:02d}".format, st.integers(1, 12),
                 st.integers(1, 28), st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))
PID = st.integers(1, 999999)
LEVEL = st.sampled_from(["ERROR", "CRITICAL", "FATAL"])
# (a bare "failed to start" with no reason only reports a failure: causality.yaml symptoms,
# tests/test_final_error_shapes.py; with its reason after the colon it states the cause)
MESSAGE = st.sampled_from(["model server failed to start: no CUDA GPUs are available",
                           "Failed to connect to worker "
                           "http://10.0.0.3:8000", "engine initialisation failed: no device",
                           "could not load the model weights"])

# (the line, whether it states a cause: False for an exit line that only reports a failure)
RECORD = st.one_of(
    # Rust's tracing (a router in front of vLLM): ISO time, padded level, target
    st.builds(lambda t, m: (f"{t} ERROR vllm_router::server: {m}", True), ISO, MESSAGE),
    st.builds(lambda t, m: (f"{t} ERROR  router: src/server.rs:12: {m}", True), ISO, MESSAGE),
    # Python logging in formats of its own
    st.builds(lambda d, lv, m: (f"{d} - {lv} - {m}", True), DATE, LEVEL, MESSAGE),
    st.builds(lambda d, ms, lv, m: (f"{d},{ms:03d} {lv} {m}", True), DATE,
              st.integers(0, 999), LEVEL, MESSAGE),
    st.builds(lambda d, lv, m: (f"{d} | {lv} | {m}", True), DATE, LEVEL, MESSAGE),
    st.builds(lambda d, lv, m: (f"{d} [{lv}] {m}", True), DATE, LEVEL, MESSAGE),
    st.builds(lambda d, lv, n, m: (f"[{lv}|{d}] llamafactory.chat.vllm_engine:{n} >> {m}", True),
              DATE, LEVEL, st.integers(1, 999), MESSAGE),
    st.builds(lambda d, lv, n, m: (f"{lv} {d},123 instructlab.model.backends.vllm:{n}: {m}", True),
              DATE, st.sampled_from(["ERROR", "CRITICAL"]), st.integers(1, 999), MESSAGE),
    # lm-eval 0.4.x's own format: the date and time joined by a colon (lm_eval/utils.py)
    st.builds(lambda d, lv, n, m: (f"{d.replace(' ', ':')} {lv:<8} [evaluator:{n}] {m}", True),
              DATE, st.sampled_from(["ERROR", "CRITICAL"]), st.integers(1, 999), MESSAGE),
    # lighteval's root logger (its level padded in brackets, the call site after the message)
    # and OpenCompass's (mmengine's MMFormatter: month/day, the logger's name; at ERROR the path,
    # function and line before the message)
    st.builds(lambda d, lv, m: (f"[{d},123] [{lv:>8}]: {m} (vllm_model.py:281)", True), DATE,
              st.sampled_from(["ERROR", "CRITICAL"]), MESSAGE),
    st.builds(lambda d, lv, m: (f"{d[5:].replace('-', '/')} - OpenCompass - {lv} - /opt/"
                                f"opencompass/tasks/openicl_eval.py - _score - 241 - {m}", True),
              DATE, st.sampled_from(["ERROR", "CRITICAL"]), MESSAGE),
    # GuideLLM's console sink (loguru's, a two-digit year, no spaces around the bars)
    st.builds(lambda d, lv, m: (f"{d[2:]}|{lv:<8} |guidellm.scheduler.worker_group:run:705 - {m}",
                                True), DATE, st.sampled_from(["ERROR", "CRITICAL"]), MESSAGE),
    st.builds(lambda d, letter, m: (f"[{letter} {d}.123 serverapp:12] {m}", True), DATE,
              st.sampled_from(["E", "C"]), MESSAGE),
    # Go: logfmt and JSON records
    st.builds(lambda t, m: (f'time="{t}" level=error msg="{m}"', True), ISO, MESSAGE),
    st.builds(lambda t, lv, m: (f'{{"level":"{lv}","ts":"{t}","msg":"{m}"}}', True), ISO,
              st.sampled_from(["error", "ERROR", "fatal", "critical"]), MESSAGE),
    # Ascend CANN: a runtime record, torch_npu's, a bare error code
    st.builds(lambda p, m: (f"[ERROR] RUNTIME({p},python3):2026-01-20-09:48:14.622.900 "
                            f"[stars_engine.cc:1502]{p} ProcLogicCqReport:{m}", True), PID, MESSAGE),
    st.builds(lambda p: (f"[ERROR] 2025-09-03-03:02:37 (PID:{p}, Device:1, RankID:-1) ERR02200 "
                         "DIST call hccl api failed.", True), PID),
    st.builds(lambda code, m: (f"{code}: {m}", True),
              st.sampled_from(["EZ9999", "EI0006", "E89999", "EE1001", "EL0004"]), MESSAGE),
    # a tool's own words, the kernel's record of a crash
    st.builds(lambda lv, m: (f"{lv}: {m}", True), st.sampled_from(["FATAL", "error", "Fatal error"]), MESSAGE),
    st.builds(lambda p: (f"python3[{p}]: segfault at 0 ip 00007f3a1c2b sp 00007ffd9a10 error 4 "
                         "in libc.so.6[7f3a1c000000+195000]", True), PID),
    # exit lines: the failure shows, its cause is elsewhere
    st.builds(lambda c: (f"exit status {c}", False), st.integers(1, 127)),
    st.builds(lambda c: (f"Process exited with status {c}", False), st.integers(1, 127)),
    st.builds(lambda c: (f"The command '/bin/sh -c pip install vllm' returned a non-zero code: {c}",
                         False), st.integers(1, 127)),
    st.just(("Primary job  terminated normally, but 1 process returned", False)),
    st.builds(lambda c: (f"vllm-server process has terminated with exit code: {c}", False),
              st.integers(1, 127)),
    st.just(("Some Ray subprocesses exited unexpectedly:", False)),
    st.builds(lambda c: (f"raylet [exit code={c}]", False), st.integers(1, 127)),
    st.builds(lambda m: (f"[Error] {m}", True), MESSAGE),
    st.just(("MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD", False)),
    st.builds(lambda n, s: (f"vllm-0   0/1   {s}   {n} (2m ago)   10m", False),
              st.integers(1, 30), st.sampled_from(["CrashLoopBackOff", "Error"])),
)
# a process prefix puts the line in a vLLM (or Ray) process: no wrapper is tried behind it
PREFIX = st.sampled_from(["", "(EngineCore_DP0 pid=123) ", "(RayWorkerWrapper pid=88, ip=10.0.0.2) ",
                          "(pid=4411) "])
OUTER = st.sampled_from(["", "2024-05-01T10:00:00.123456789Z ", "vllm-1  | ", "[pod/vllm-0/vllm] ",
                         "0: ", "May 01 10:00:00 gpu-3 vllm[812]: "])

BASE = [
    "INFO 04-12 18:36:10 [__init__.py:239] Automatically detected platform cuda.",
    "INFO 04-12 18:36:11 [api_server.py:1034] vLLM API server version 0.8.3",
    "INFO 04-12 18:36:23 [core.py:61] Initializing a V1 LLM engine (v0.8.3) with config: "
    "model='TinyLlama/TinyLlama-1.1B-Chat-v1.0'",
    "INFO 04-12 18:36:23 [gpu_model_runner.py:1258] Starting to load model "
    "TinyLlama/TinyLlama-1.1B-Chat-v1.0...",
]


def _is_error(line: str) -> bool:
    record = parse_line(clean(line))
    return record.level in (Level.ERROR, Level.CRITICAL) or record.kind in (
        LineKind.EXCEPTION_REPR, LineKind.FATAL, LineKind.DIAGNOSTIC)


@SOME
@given(RECORD, PREFIX, OUTER)
def test_every_error_record_shape_reads_as_an_error_and_is_anchored(
        shaped: tuple[str, bool], prefix: str, outer: str) -> None:
    line = outer + (prefix if not shaped[0].startswith(("{", "time=")) else "") + shaped[0]
    assert _is_error(line), line
    assert anchor_patterns()[0].search(line.encode()), line
    text = clean(line)
    assert parse_line(text) == parse_line_whole(text), line


@FEW
@given(RECORD, st.sampled_from(["", "(EngineCore_DP0 pid=123) "]),
       st.sampled_from(["", "2024-05-01T10:00:00.123456789Z ", "[pod/vllm-0/vllm] "]))
def test_a_start_up_that_ends_in_any_error_record_is_no_healthy_log(
        shaped: tuple[str, bool], prefix: str, outer: str) -> None:
    line, states_cause = shaped
    if line.startswith(("{", "time=")):
        prefix = ""  # a Go sidecar's record is never behind a vLLM process prefix
    report = explain_text("\n".join([*BASE, outer + prefix + line]) + "\n")
    assert report.verdict.value != "no_failure", line
    if states_cause:
        assert report.root_cause is not None and report.root_cause.line == len(BASE) + 1, line


HEALTHY = [
    'INFO:     172.17.0.1:39420 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "INFO 2024-07-01 10:00:00,123 instructlab.model.backends.vllm:112: vLLM starting up",
    "2025-05-01T10:00:00.123456Z  INFO vllm_router::server: worker http://10.0.0.3:8000 ready",
    '{"level":"info","ts":1714557600.1,"msg":"model server ready"}',
    'time="2024-05-01T10:00:00Z" level=info msg="container started"',
    "2024-01-02 03:04:05 | WARNING | slow request",
    "[INFO|2024-06-26 10:00:00] llamafactory.chat.vllm_engine:123 >> vLLM engine ready",
    "vllm-1  | INFO 04-12 18:36:53 [api_server.py:1081] Starting vLLM API server",
    "vllm-0   1/1   Running   0   10m",
    "Process exited with status 0",
    "raylet [exit code=0]",
    "[Info] (WrappedServer) vllm-server is ready",
    "fatal: not a git repository (or any of the parent directories): .git",  # a tarball's build
    "The model supports error: none of the listed",  # `error: ` inside a sentence
]


def test_healthy_lines_of_the_same_shapes_are_no_errors() -> None:
    for line in HEALTHY:
        record = parse_line(clean(line))
        assert record.level not in (Level.ERROR, Level.CRITICAL), line
        assert record.kind not in (LineKind.EXCEPTION_REPR, LineKind.FATAL,
                                   LineKind.DIAGNOSTIC), line
    report = explain_text("\n".join([*BASE, *HEALTHY]) + "\n")
    assert report.verdict.value == "no_failure"


def test_a_compose_service_is_not_a_level_between_bars() -> None:
    # `2024-01-02 03:04:05 | ERROR | msg` is a logger's record, `vllm-1  | ` a compose service
    assert parse_line("2024-01-02 03:04:05 | ERROR | boom").level is Level.ERROR
    compose = parse_line("vllm-1  | boom")
    assert compose.text == "boom" and compose.level is None
