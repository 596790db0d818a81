"""A native runtime's error records before the Python exception its call failed with: AWS
Neuron's runtime logs why (`failed to run scatter/gather ... out-of-bound access`), unprefixed,
then the engine core raises `RuntimeError: Failed to execute the model status=1006`. The runtime's
own line shape is a record (grammars/vllm.lark NEURON_HEADER) in both of its time precisions,
behind any wrapper, at its level with its `module:function` site; its INFO lines are no errors.
The exception stays the root: the labels of real logs name the Python exception a native call
failed with, not the native records before it (session 12 tried weighing such records as the
exception and measured it wrong on unseen logs; see tests/test_tuning.py); native records weigh
as a crash only when the process aborts over them (causality.yaml `native`)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.model import Level
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import parse_line

SOME = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

OUTERS = ["", "2025-06-25T14:34:26.362810Z ", "vllm-neuron-1  | ", "[pod/llm-0/vllm] "]
TIMES = ["2026-Jun-25 14:34:26.362810", "2022-Mar-29 07:07:29.0082"]
NATIVE = [
    ("ERROR", "TDRV:exec_process_custom_notification", "nd0:nc1:h_model.id1003: Received "
     "notification generated at runtime: failed to run scatter/gather (indirect memory copy via "
     "vector DGE), due to out-of-bound access."),
    ("ERROR", "TDRV:exec_request_process_errors", "[ND 0][NC 1] Out of bounds access on model "
     "/tmp/nxd_model/context_encoding_model/_tp0_bk0/model.neff"),
    ("ERROR", "NMGR:kmgr_exec", "Failed to execute model: 10004, error: 1006"),
    ("ERROR", "NRT:nrt_execute_repeat", "Failed to execute model /tmp/model.neff with status 1006")]
CORE = "(EngineCore_DP0 pid=275) ERROR 06-25 14:34:27 [core.py:1008] "
TRACEBACK = [CORE + line for line in [
    "EngineCore encountered a fatal error.", "Traceback (most recent call last):",
    '  File "/opt/vllm_neuron/worker/neuron_worker.py", line 136, in execute_model',
    "    output = self.model_runner.execute_model(scheduler_output)",
    "RuntimeError: Failed to execute the model status=1006 message=Execution Out-Of-Bounds "
    "Memory Access", ""]]
SERVING = ['(APIServer pid=41) INFO:     172.17.0.1:39420 - "POST /v1/chat/completions HTTP/1.1" '
           "200 OK"]


def native_line(time: str, level: str, site: str, message: str) -> str:
    return f"{time}   275:2040  {level:<5}  {site:<44}{message}"


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(TIMES), st.integers(1, 4), st.integers(0, 3))
def test_the_runtimes_records_are_read_and_the_exception_is_the_root(
        outer: str, time: str, records: int, between: int) -> None:
    natives = [native_line(time, *record) for record in NATIVE[:records]]
    for native, (level, site, _) in zip(natives, NATIVE):
        line = parse_line(outer + native)
        assert line.level is Level.ERROR and line.site == site
    dump = [CORE.replace("core.py:1008", "dump_input.py:72") + "Dumping scheduler stats: "
            "SchedulerStats(num_running_reqs=1)"] * between
    lines = [*SERVING, *natives, *dump, *TRACEBACK]
    report = explain_text("\n".join(outer + line for line in lines) + "\n")
    root = report.root_cause
    assert report.verdict == "failure" and root is not None, report.reasons
    assert root.exception == "RuntimeError" and "status=1006" in root.message


@SOME
@given(st.sampled_from(TIMES), st.sampled_from(["INFO", "WARN", "DEBUG"]))
def test_the_runtimes_quiet_lines_are_not_errors(time: str, level: str) -> None:
    line = parse_line(native_line(time, level, "NRT:nrt_init", "Neuron Runtime 2.22.14.0 built "
                                  "on Sep  4 2024"))
    assert line.level in (Level.INFO, Level.WARNING, Level.DEBUG) and line.site == "NRT:nrt_init"
    quiet = [native_line(time, level, "NRT:nrt_init", "Found neuron driver: 2.18")] * 2
    root = explain_text("\n".join([*quiet, *TRACEBACK]) + "\n").root_cause
    assert root is not None and root.exception == "RuntimeError"


@SOME
@given(st.integers(11, 80), st.sampled_from(OUTERS))
def test_records_before_other_output_do_not_take_the_exceptions_place(filler: int,
                                                                      outer: str) -> None:
    # a record the process went on from: a dozen lines of its output lie between
    natives = [native_line(TIMES[0], *NATIVE[2])]
    steps = [f"(EngineCore_DP0 pid=275) INFO 06-25 14:34:2{i % 10} [core.py:90] step {i}"
             for i in range(filler)]
    lines = [*natives, *steps, *TRACEBACK]
    report = explain_text("\n".join(outer + line for line in lines) + "\n")
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"


def test_a_named_other_process_native_records_do_not_take_its_place() -> None:
    other = "(VllmWorker rank=1 pid=300) [E625 14:34:26.6 ProcessGroupNCCL.cpp:616] [Rank 1] " \
            "Some NCCL operations have failed or timed out."
    report = explain_text("\n".join([other, *TRACEBACK]) + "\n")
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
