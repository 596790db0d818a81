"""Every line shape of an Ascend NPU failure (vllm-ascend on CANN and torch_npu), behind every
process prefix a vLLM log puts before it, is an error event of the process that printed it, with
its exception or its CANN code; and the chain CANN prints is read in its causal order.

The shapes: CANN's error codes (`EZ9999: Inner Error!`, `EE9999`, `EH9999`, `EL0004`, `EI0006`,
`E39999`, `E89999`; CANN's code-table docs), CANN 8.2+'s records under torch_npu 2.6+ that put the
process, the time and the error's name before the code (`EZ9999[PID: 412] 2026-... AclNN_Inner_Error
(EZ9999): ...`, `[PID: 10652] 2025-... Memory_Allocation_Failure(EL0004): ...`), the runtime's plog
record (`[ERROR] RUNTIME(pid,python):...`), torch_npu's coded records (`[ERROR] 2025-... (PID:1,
Device:0, RankID:-1) ERR00100 PTA call acl api failed`, `ERR99999 UNKNOWN applicaiton exception`),
and torch_npu's RuntimeErrors (`NPU out of memory. Tried to allocate`, `call aclnnXxx failed`,
`ACL stream synchronize failed`, `HCCL function error: HcclCommInitRootInfoConfig(...)`). The
prefixes: none, vLLM's `(EngineCore_DP0 pid=N) ` and `(Worker_TP1 pid=N) ` (coloured by vLLM 0.11+),
torch's `[rank0]: `, a vLLM ERROR record's header.

The chain: CANN's code block, torch_npu's RuntimeError quoting it, then vLLM's wrappers (the engine
core's `EngineCore failed to start.`, the front end's `Engine core initialization failed`). The
labels of real Ascend logs (tests/fixtures/tuning) name torch_npu's exception as the root, CANN's
records being what it failed with (causality.yaml `native`), and the wrappers symptoms."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.model import Level, LineKind
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line, parse_line_whole

from v1log import signature_advice

SOME = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PID = st.integers(1, 9999999)
STAMP = st.builds("2025-{:02d}-{:02d}-{:02d}:{:02d}:{:02d}.{:03d}.{:03d}".format,
                  st.integers(1, 12), st.integers(1, 28), st.integers(0, 23), st.integers(0, 59),
                  st.integers(0, 59), st.integers(0, 999), st.integers(0, 999))
# CANN's codes: E, the module's letter or digit, four digits (the code tables' EZ/EE/EH/EL/EI/E3/E8)
CODE = st.sampled_from(["EZ9999", "EZ1001", "EE9999", "EE1001", "EH9999", "EL0004", "EL0009",
                        "EI0006", "EI0002", "E39999", "E89999"])
NAME = st.sampled_from(["AclNN_Inner_Error", "AclNN_Parameter_Error", "Memory_Allocation_Failure",
                        "Insufficient_Stream_Resources", ""])
TEXT = st.sampled_from(["Inner Error!", "Failed to allocate memory.",
                        "Getting socket times out. Reason: Remote Rank did not send the data in time.",
                        "Parse dynamic kernel config fail.", "query dtype is not supported."])
OP = st.sampled_from(["aclnnMatmul", "aclnnFusedInferAttentionScoreV3", "aclnnInplaceCopy",
                      "aclnnGroupedMatmulV4", "aclnnAdd"])

# (line, the code its site names or None, the exception type it raises or None)
SHAPE = st.one_of(
    st.builds(lambda c, t: (f"{c}: {t}", c, None), CODE, TEXT),
    st.builds(lambda c, p, s, t: (f"{c}: [PID: {p}] {s} {t}", c, None), CODE, PID, STAMP, TEXT),
    st.builds(lambda c, p, s, n, t: (f"{c}[PID: {p}] {s} {n}({c}):  {t}", c, None),
              CODE, PID, STAMP, NAME, TEXT),
    st.builds(lambda c, p, s, n, t: (f"[PID: {p}] {s} {n}({c}): {t}", c, None),
              CODE, PID, STAMP, NAME, TEXT),
    st.builds(lambda p, s: (f"[ERROR] RUNTIME({p},python):{s} [engine.cc:1234]{p} "
                            "ReportExceptProc:Task exception! device_id=0, stream_id=2, task_id=10",
                            None, None), PID, STAMP),
    st.builds(lambda p, e: (f"[ERROR] 2025-09-01-10:00:00 (PID:{p}, Device:0, RankID:-1) {e}",
                            None, None), PID,
              st.sampled_from(["ERR00100 PTA call acl api failed", "ERR01100 OPS call acl api failed",
                               "ERR02200 DIST call hccl api failed.",
                               "ERR99999 UNKNOWN applicaiton exception"])),
    st.builds(lambda n: ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU "
                         f"{n}; 60.96 GiB total capacity; 58.20 GiB already allocated)", None,
                         "RuntimeError"), st.integers(0, 15)),
    st.builds(lambda op, c: (f"RuntimeError: call {op} failed, detail:{c}: Inner Error!", None,
                             "RuntimeError"), OP, CODE),
    st.builds(lambda op, n: (f"RuntimeError: NPU function error: call {op} failed, error code is {n}",
                             None, "RuntimeError"), OP, st.sampled_from([161002, 561002, 561003, 561103])),
    st.builds(lambda n: (f"RuntimeError: ACL stream synchronize failed, error code:{n}", None,
                         "RuntimeError"), st.sampled_from([507035, 507015, 507014, 107020])),
    st.builds(lambda n: ("RuntimeError: createHCCLComm:torch_npu/csrc/distributed/"
                         "ProcessGroupHCCL.cpp:2100 HCCL function error: HcclCommInitRootInfoConfig("
                         f"numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is {n}",
                         None, "RuntimeError"), st.integers(1, 20)),
)
# (prefix, the process it names); vLLM 0.11+ colours its process prefix
PREFIX = st.one_of(
    st.just(("", "main")),
    st.builds(lambda p: (f"(EngineCore_DP0 pid={p}) ", "EngineCore_DP0"), PID),
    st.builds(lambda r, p: (f"(Worker_TP{r} pid={p}) ", f"Worker_TP{r}"), st.integers(0, 15), PID),
    st.builds(lambda r, p: (f"\x1b[1;36m(Worker_TP{r} pid={p})\x1b[0;0m ", f"Worker_TP{r}"),
              st.integers(0, 15), PID),
    st.builds(lambda r: (f"[rank{r}]: ", "main"), st.integers(0, 15)),
)
RECORD = st.sampled_from(["", "ERROR 09-01 10:00:00 [multiproc_executor.py:596] ",
                          "ERROR 09-01 10:00:00 [core.py:708] "])


@SOME
@given(SHAPE, PREFIX, RECORD)
def test_every_ascend_error_line_is_an_error_of_its_process(
        shaped: tuple[str, str | None, str | None], prefixed: tuple[str, str], record: str) -> None:
    text, code, exception = shaped
    prefix, process = prefixed
    raw = prefix + record + text
    line = parse_line(clean(raw))
    assert line.process.name == process, raw
    if record:  # a vLLM ERROR record, whatever it holds
        assert line.level is Level.ERROR and line.site is not None, raw
    elif exception is not None:
        assert line.kind is LineKind.EXCEPTION and line.exception == exception, raw
    else:
        assert line.level is Level.ERROR, raw
        if code is not None:
            assert line.site == code, raw  # the code stands for the native site
    assert anchor_patterns()[0].search(raw.encode()), raw
    assert parse_line(clean(raw)) == parse_line_whole(clean(raw)), raw


def test_healthy_lines_that_hold_a_pid_or_a_code_are_no_errors() -> None:
    for text in ["[PID: 1234] 2025-01-01-10:00:00.123.456 Memory pool initialised.",
                 "INFO 09-01 10:00:00 [core.py:1] code EZ9999 is CANN's inner error",
                 "[rank0]: [INFO] 2025-01-01-10:00:00 (PID:9) HCCL init done"]:
        line = parse_line(clean(text))
        assert line.level not in (Level.ERROR, Level.CRITICAL), text


START = ["INFO 09-01 09:59:00 [__init__.py:235] Platform plugin ascend is activated",
         "INFO 09-01 09:59:05 [core.py:69] Initializing a V1 LLM engine (v0.11.0) with config: "
         "model='Qwen/Qwen3-8B'"]
VA = "/usr/local/python3.11/lib/python3.11/site-packages/vllm_ascend/"
FRAMES = [(VA + "worker/worker_v1.py", "determine_available_memory", "self.model_runner.profile_run()"),
          (VA + "worker/model_runner_v1.py", "_dummy_run", "hidden_states = self.model(input_ids)")]
# torch_npu's RuntimeError, the CANN lines it quotes after it (in its message), the family
FAILURE = st.sampled_from([
    ("RuntimeError: call aclnnFusedInferAttentionScoreV3 failed, error code is 561002",
     ["[ERROR] 2025-09-01-10:00:00 (PID:{pid}, Device:0, RankID:-1) ERR01100 OPS call acl api failed",
      "E89999[PID: {pid}] 2025-09-01-10:00:00.000.000 (E89999):  When layout is TND, queryD(256) "
      "must be 192/128/64"],
     "ascend-fused-attention-head-dim-unsupported"),  # that rule's own exact signature
    ("RuntimeError: The Inner error is reported as above. The process exits for this inner error, "
     "and the current working operator name is aclnnMatmul.",
     ["[ERROR] 2025-09-01-10:00:00 (PID:{pid}, Device:0, RankID:-1) ERR00100 PTA call acl api failed.",
      "[PID: {pid}] 2025-09-01-10:00:00.000.000 Memory_Allocation_Failure(EL0004): Failed to "
      "allocate memory."], "ascend-driver-memory-allocation-failed"),
    ("RuntimeError: ACL stream synchronize failed, error code:507035",
     ["[ERROR] 2025-09-01-10:00:00 (PID:{pid}, Device:0, RankID:-1) ERR00100 PTA call acl api failed",
      "EZ9999: Inner Error!",
      "EZ9999: [PID: {pid}] 2025-09-01-10:00:00.000.000 The error from device(chipId:0, dieId:0), "
      "serial number is 3, there is an aivec error exception"], "ascend-npu-runtime-error-code"),
])
WRAPPERS = ["EngineCore failed to start.",
            "Exception: WorkerProc initialization failed due to an exception in a background "
            "process. See stack trace for root cause."]


def _traceback(error: str, after: list[str]) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for path, function, code in FRAMES:
        lines += [f'  File "{path}", line 321, in {function}', f"    {code}"]
    return [*lines, error, *after]


@FEW
@given(FAILURE, st.integers(0, 7), PID, st.booleans(), st.booleans())
def test_the_cann_chain_roots_at_torch_npus_exception_in_the_worker(
        failure: tuple[str, list[str], str], rank: int, pid: int, coloured: bool, raw_block: bool) -> None:
    error, quoted, family = failure
    quoted = [q.format(pid=pid) for q in quoted]
    worker = f"(Worker_TP{rank} pid={pid}) "
    if coloured:
        worker = f"\x1b[1;36m{worker[:-1]}\x1b[0;0m "
    record = worker + "ERROR 09-01 10:00:00 [multiproc_executor.py:596] "
    core = "(EngineCore_DP0 pid=11) ERROR 09-01 10:00:01 [core.py:708] "
    lines = list(START)
    if raw_block:  # CANN's own lines, printed by native code before the worker logs its traceback
        lines += [worker + q for q in quoted if "PID" in q and "RankID" not in q]
    body = ["WorkerProc hit an exception.", *_traceback(error, quoted)]
    lines += [record + b for b in body]
    error_line = len(lines) - len(quoted)  # 1-based: the RuntimeError's line
    lines += [core + w for w in WRAPPERS]
    lines += ["RuntimeError: Engine core initialization failed. See root cause above. "
              "Failed core proc(s): {}"]
    report = explain_text("\n".join(lines) + "\n")
    root = report.root_cause
    assert report.verdict.value == "failure" and root is not None, report.reasons
    assert root.exception == "RuntimeError" and root.line == error_line, (root, report.reasons)
    assert root.process.name == f"Worker_TP{rank}"
    assert report.signature is not None and report.signature.id == family, report.signature


def _worker_failure(frames: list[tuple[str, str, str]], error: str, after: list[str]) -> str:
    record = "(Worker_TP0 pid=3333) ERROR 09-01 10:00:00 [multiproc_executor.py:596] "
    core = "(EngineCore_DP0 pid=11) ERROR 09-01 10:00:01 [core.py:708] "
    lines = ["Traceback (most recent call last):"]
    for path, function, code in frames:
        lines += [f'  File "{path}", line 321, in {function}', f"    {code}"]
    body = [record + b for b in ["WorkerProc hit an exception.", *lines, error, *after]]
    return "\n".join([*START, *body, *(core + w for w in WRAPPERS)]) + "\n"


# where vllm-ascend's worker runs out of NPU memory: profiling, graph capture, serving
PHASES = [(VA + "worker/model_runner_v1.py", "profile_run", "self._dummy_run(self.max_num_tokens)"),
          (VA + "worker/model_runner_v1.py", "capture_model", "self._capture_aclgraphs()"),
          (VA + "worker/model_runner_v1.py", "execute_model", "hidden_states = self.model(x)")]


@FEW
@given(st.sampled_from(PHASES), st.integers(0, 15), st.sampled_from(["2.00 GiB", "512.00 MiB"]))
def test_npu_out_of_memory_in_any_phase_names_the_npu_allocator_knobs(
        phase: tuple[str, str, str], npu: int, size: str) -> None:
    log = _worker_failure([phase], f"RuntimeError: NPU out of memory. Tried to allocate {size} (NPU "
                          f"{npu}; 60.96 GiB total capacity; 58.20 GiB already allocated)", [])
    signature, fix = signature_advice(log)
    assert signature == "accelerator-oom-npu-xpu"
    assert "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True" in fix and "--gpu-memory-utilization" in fix


@FEW
@given(OP, st.sampled_from([161002, 561001, 561002, 561003]), PID)
def test_an_aclnn_operator_refusing_its_inputs_reads_the_return_code(op: str, code: int, pid: int) -> None:
    log = _worker_failure(FRAMES, f"RuntimeError: call {op} failed, error code is {code}",
                          [f"[ERROR] 2025-09-01-10:00:00 (PID:{pid}, Device:0, RankID:-1) ERR01100 "
                           "OPS call acl api failed"])
    signature, fix = signature_advice(log)
    assert signature == "ascend-cann-operator-error"
    assert str(code) in fix and "head_dim" in fix and "--enforce-eager" in fix


@FEW
@given(PID, STAMP, st.sampled_from(["", "[rank0]: ", "(Worker_TP2 pid=9) "]))
def test_cann_records_read_alone_name_their_family(pid: int, stamp: str, prefix: str) -> None:
    memory = (f"[PID: {pid}] {stamp} Memory_Allocation_Failure(EL0004): Failed to allocate memory.\n"
              "        Possible Cause: Available memory is insufficient.\n"
              "        TraceBack (most recent call last):\n"
              "        alloc device memory failed, runtime result = 207001[FUNC:ReportCallError]"
              "[FILE:log_inner.cpp][LINE:161]\n")
    signature, fix = signature_advice("".join(prefix + line + "\n" for line in memory.splitlines()))
    assert signature == "ascend-driver-memory-allocation-failed" and "HCCL_BUFFSIZE" in fix
    unknown = f"[ERROR] 2025-09-01-10:00:00 (PID:{pid}, Device:-1, RankID:-1) ERR99999 UNKNOWN " \
              "applicaiton exception\n"
    signature, fix = signature_advice(prefix + unknown)
    assert signature == "ascend-cann-operator-error" and "ASCEND_LAUNCH_BLOCKING=1" in fix


@FEW
@given(st.integers(1, 20), st.integers(0, 7))
def test_hccl_communicator_set_up_failing_names_hccls_knobs(code: int, rank: int) -> None:
    log = _worker_failure(
        [(VA + "worker/worker_v1.py", "init_device", "init_distributed_environment()")],
        "RuntimeError: createHCCLComm:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:2100 HCCL "
        "function error: HcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, "
        f"&(comm->hcclComm_)), error code is {code}",
        [f"[ERROR] 2025-09-01-10:00:00 (PID:33, Device:{rank}, RankID:{rank}) ERR02200 DIST call "
         "hccl api failed."])
    signature, fix = signature_advice(log)
    assert signature == "hccl-communication-failed"
    assert "HCCL_CONNECT_TIMEOUT" in fix and "ASCEND_RT_VISIBLE_DEVICES" in fix


@FEW
@given(st.sampled_from([("utils.py", "enable_custom_op"), ("ops/rotary_embedding.py", "<module>"),
                        ("device_allocator/camem.py", "<module>")]),
       st.sampled_from(["ModuleNotFoundError", "ImportError"]))
def test_vllm_ascends_compiled_kernels_never_built_names_the_build(
        where: tuple[str, str], exception: str) -> None:
    path, function = where
    log = _worker_failure([(VA + path, function, "import vllm_ascend.vllm_ascend_C")],
                          f"{exception}: No module named 'vllm_ascend.vllm_ascend_C'", [])
    signature, fix = signature_advice(log)
    assert signature == "platform-plugin-custom-op-not-loaded"
    assert "COMPILE_CUSTOM_KERNELS=1" in fix and "set_env.sh" in fix


@FEW
@given(st.integers(0, 15), st.integers(1, 9999), st.sampled_from(["ALLREDUCE", "ALLGATHER", "_ALLGATHER_BASE"]),
       st.booleans(), st.sampled_from([("HCCL", "compiler_depend.ts"), ("NCCL", "ProcessGroupNCCL.cpp")]))
def test_a_collective_watchdog_timeout_is_the_root_and_its_library_is_named(
        rank: int, seq: int, op: str, coloured: bool, library: tuple[str, str]) -> None:
    name, source = library
    worker = f"(Worker_TP{rank} pid=2222) "
    if coloured:
        worker = f"\x1b[1;36m{worker[:-1]}\x1b[0;0m "
    lines = [*START,
             f"{worker}[rank{rank}]:[E {source}:1500] [Rank {rank}] Watchdog caught collective "
             f"operation timeout: Work{name}(SeqNum={seq}, OpType={op}, NumelIn=8, NumelOut=8, "
             "Timeout(ms)=1800000) ran for 1800046 milliseconds before timing out.",
             f"{worker}terminate called after throwing an instance of 'c10::DistBackendError'",
             "(EngineCore_DP0 pid=11) ERROR 09-01 10:30:01 [multiproc_executor.py:146] Worker proc "
             f"VllmWorker-{rank} died unexpectedly, shutting down executor."]
    report = explain_text("\n".join(lines) + "\n")
    root = report.root_cause
    assert root is not None and root.line == len(START) + 1, report.reasons
    assert root.process.name == f"Worker_TP{rank}"
    expected = "hccl-collective-execution-timeout" if name == "HCCL" else "nccl-watchdog-timeout"
    assert report.signature is not None and report.signature.id == expected
