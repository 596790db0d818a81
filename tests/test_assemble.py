"""The assembler: LogLine stream -> one error event per traceback per process, and milestones.

Logs are built from real vLLM lines (corpus case or issue named beside them), a few lines each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.assemble import CUT_TRACEBACK, MAX_EVENTS_PER_PROCESS, Assembler, assemble
from logsleuth.facts import FactCollector
from logsleuth.knowledge import default_causality
from logsleuth.model import (ChainReason, ErrorEvent, Event, EventKind, LogLine, Milestone,
                             MilestoneKind, Process)
from logsleuth.pipeline import assemble_folded
from logsleuth.read import open_input
from logsleuth.recur import Recurrences
from logsleuth.tokenize import TokenizeStats, clean, parse_line, tokenize, tokenize_runs
from mix_logs import MIXES, mix_log

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"


def events_of(text: str | bytes) -> list[Event]:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return sorted(assemble(tokenize([data])), key=lambda e: (e.line, getattr(e, "id", 0)))


def errors_of(text: str | bytes) -> list[ErrorEvent]:
    return [e for e in events_of(text) if isinstance(e, ErrorEvent)]


def log(*lines: str) -> str:
    return "\n".join(lines) + "\n"


# ---- interleaved tracebacks of several processes ------------------------------------------------

def test_seed_log_gives_one_event_per_worker() -> None:
    events = [e for e in assemble(tokenize(open_input(SEED).blocks()))
              if isinstance(e, ErrorEvent)]
    workers = sorted((e for e in events if e.process.name.startswith("Worker_TP")),
                     key=lambda e: e.process.name)
    assert [e.process.name for e in workers] == [f"Worker_TP{i}" for i in range(8)]
    assert len({e.process.pid for e in workers}) == 8
    for event in workers:
        assert event.exception == "ValueError"
        assert event.message.startswith("No valid attention backend found for cuda")
        assert event.title == "WorkerProc failed to start."
        assert event.first_line < event.line == event.last_line
        assert event.frames[0].function == "worker_main"
        assert event.frames[-1].function == "get_attn_backend_cls"
        assert not event.raw
    first = min(workers, key=lambda e: e.line)
    assert (first.process.name, first.line) == ("Worker_TP5", 325)


INTERLEAVED = log(  # seed log, two workers printing at once
    "(Worker_TP7 pid=207857) ERROR 02-05 10:11:12 [multiproc_executor.py:870] WorkerProc failed to "
    "start.",
    "(Worker_TP2 pid=207852) ERROR 02-05 10:11:13 [multiproc_executor.py:870] WorkerProc failed to "
    "start.",
    "(Worker_TP7 pid=207857) ERROR 02-05 10:11:13 [multiproc_executor.py:870] Traceback (most recent "
    "call last):",
    "(Worker_TP7 pid=207857) ERROR 02-05 10:11:13 [multiproc_executor.py:870]   File "
    "\"/root/ml-env/lib/python3.12/site-packages/vllm/v1/executor/multiproc_executor.py\", line 841, "
    "in worker_main",
    "(Worker_TP2 pid=207852) ERROR 02-05 10:11:13 [multiproc_executor.py:870] Traceback (most recent "
    "call last):",
    "(Worker_TP2 pid=207852) ERROR 02-05 10:11:16 [multiproc_executor.py:870]   File "
    "\"/root/ml-env/lib/python3.12/site-packages/vllm/v1/executor/multiproc_executor.py\", line 841, "
    "in worker_main",
    "(Worker_TP7 pid=207857) ERROR 02-05 10:11:16 [multiproc_executor.py:870]     worker = "
    "WorkerProc(*args, **kwargs)",
    "(Worker_TP2 pid=207852) ERROR 02-05 10:12:20 [multiproc_executor.py:870]   File "
    "\"/root/ml-env/lib/python3.12/site-packages/vllm/platforms/cuda.py\", line 338, in "
    "get_attn_backend_cls",
    "(Worker_TP7 pid=207857) ERROR 02-05 10:12:37 [multiproc_executor.py:870]   File "
    "\"/root/ml-env/lib/python3.12/site-packages/vllm/platforms/cuda.py\", line 338, in "
    "get_attn_backend_cls",
    "(Worker_TP7 pid=207857) ERROR 02-05 10:12:37 [multiproc_executor.py:870]     raise ValueError(",
    "(Worker_TP2 pid=207852) ERROR 02-05 10:12:25 [multiproc_executor.py:870]     raise ValueError(",
    "(Worker_TP7 pid=207857) ERROR 02-05 10:12:38 [multiproc_executor.py:870] ValueError: No valid "
    "attention backend found for cuda with AttentionSelectorConfig(head_size=576, "
    "dtype=torch.bfloat16, kv_cache_dtype=fp8_e4m3, block_size=64, use_mla=True)",
    "(Worker_TP2 pid=207852) ERROR 02-05 10:12:30 [multiproc_executor.py:870] ValueError: No valid "
    "attention backend found for cuda with AttentionSelectorConfig(head_size=576, "
    "dtype=torch.bfloat16, kv_cache_dtype=fp8_e4m3, block_size=64, use_mla=True)",
)


def test_interleaved_tracebacks_become_one_event_per_process() -> None:
    events = errors_of(INTERLEAVED)
    summary = [(e.process, e.exception, e.line, e.first_line, e.last_line) for e in events]
    assert summary == [
        (Process("Worker_TP7", 207857), "ValueError", 12, 1, 12),
        (Process("Worker_TP2", 207852), "ValueError", 13, 2, 13),
    ]
    for event in events:
        assert [f.function for f in event.frames] == ["worker_main", "get_attn_backend_cls"]
        assert event.title == "WorkerProc failed to start."


# ---- logged and raw copies -----------------------------------------------------------------------

LOGGED_THEN_RAW = log(  # seed lines 398-431, shortened
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:41 [core.py:1108] EngineCore failed to start.",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:41 [core.py:1108] Traceback (most recent call "
    "last):",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:42 [core.py:1108]   File \"/root/ml-env/lib/"
    "python3.12/site-packages/vllm/v1/engine/core.py\", line 1082, in run_engine_core",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:42 [core.py:1108]     engine_core = "
    "EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:46 [core.py:1108]   File \"/root/ml-env/lib/"
    "python3.12/site-packages/vllm/v1/executor/multiproc_executor.py\", line 758, in wait_for_ready",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:46 [core.py:1108]     raise e from None",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:46 [core.py:1108] Exception: WorkerProc "
    "initialization failed due to an exception in a background process. See stack trace for root "
    "cause.",
    "(EngineCore_DP0 pid=207811) Process EngineCore_DP0:",
    "(EngineCore_DP0 pid=207811) Traceback (most recent call last):",
    "(EngineCore_DP0 pid=207811)   File \"/usr/lib/python3.12/multiprocessing/process.py\", line 314, "
    "in _bootstrap",
    "(EngineCore_DP0 pid=207811)     self.run()",
    "(EngineCore_DP0 pid=207811)   File \"/root/ml-env/lib/python3.12/site-packages/vllm/v1/executor/"
    "multiproc_executor.py\", line 758, in wait_for_ready",
    "(EngineCore_DP0 pid=207811)     raise e from None",
    "(EngineCore_DP0 pid=207811) Exception: WorkerProc initialization failed due to an exception in a "
    "background process. See stack trace for root cause.",
)


def test_logged_and_raw_tracebacks() -> None:
    logged, raw = errors_of(LOGGED_THEN_RAW)
    assert (logged.line, logged.first_line, logged.last_line) == (7, 1, 7)
    assert logged.title == "EngineCore failed to start."
    assert not logged.raw
    assert logged.time == "02-05 10:12:41"
    assert [f.function for f in logged.frames] == ["run_engine_core", "wait_for_ready"]
    assert (raw.line, raw.first_line, raw.last_line) == (14, 8, 14)
    assert raw.title == "Process EngineCore_DP0:"
    assert raw.raw
    assert [f.function for f in raw.frames] == ["_bootstrap", "wait_for_ready"]
    for event in (logged, raw):
        assert event.process == Process("EngineCore_DP0", 207811)
        assert event.exception == "Exception"
        assert event.message.startswith("WorkerProc initialization failed")


# ---- chained exceptions --------------------------------------------------------------------------

RAW_CHAIN = log(  # logit-bias-out-of-vocab-engine-dead (rank tags removed) and vllm#8194
    "Traceback (most recent call last):",
    "  File \"/usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/logits_processor.py"
    "\", line 116, in _apply_logits_processors",
    "    logits_row = logits_processor(past_tokens_ids,",
    "  File \"/usr/local/lib/python3.10/dist-packages/vllm/entrypoints/openai/protocol.py\", line 245, "
    "in logit_bias_logits_processor",
    "    logits[int(token_id)] += bias",
    "IndexError: index 55434 is out of bounds for dimension 0 with size 32064",
    "",
    "The above exception was the direct cause of the following exception:",
    "",
    "Traceback (most recent call last):",
    "  File \"/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py\", line 54, in "
    "_log_task_completion",
    "    raise AsyncEngineDeadError(",
    "vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly. This should never "
    "happen! Please open an issue on Github. See stack trace above for the actual cause.",
    "",
    "During handling of the above exception, another exception occurred:",
    "",
    "Traceback (most recent call last):",
    "  File \"/usr/local/lib/python3.10/dist-packages/uvicorn/protocols/http/httptools_impl.py\", line "
    "401, in run_asgi",
    "    result = await app(  # type: ignore[func-returns-value]",
    "asyncio.exceptions.CancelledError",
)


def test_raw_chained_exceptions() -> None:
    index_error, dead, cancelled = errors_of(RAW_CHAIN)
    assert (index_error.exception, index_error.line, index_error.first_line) == ("IndexError", 6, 1)
    assert index_error.cause_id is None
    assert [f.function for f in index_error.frames] == ["_apply_logits_processors",
                                                        "logit_bias_logits_processor"]
    assert dead.exception == "vllm.engine.async_llm_engine.AsyncEngineDeadError"
    assert (dead.line, dead.first_line) == (13, 10)
    assert (dead.cause_id, dead.cause_reason) == (index_error.id, ChainReason.DIRECT_CAUSE)
    assert (cancelled.exception, cancelled.message, cancelled.line) == (
        "asyncio.exceptions.CancelledError", "", 20)
    assert (cancelled.cause_id, cancelled.cause_reason) == (dead.id, ChainReason.DURING_HANDLING)
    assert all(e.raw for e in (index_error, dead, cancelled))


LOGGED_CHAIN = log(  # nccl-dev-shm-exhausted-dp16: the header on every line, chain separator too
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] WorkerProc failed to start.",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] Traceback (most recent call last):",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597]   File \"/app/vllm/vllm/v1/executor/"
    "multiproc_executor.py\", line 571, in worker_main",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597]     worker = WorkerProc(*args, "
    "**kwargs)",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] RuntimeError: NCCL error: unhandled "
    "system error (run with NCCL_DEBUG=INFO for details)",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] ",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] The above exception was the direct "
    "cause of the following exception:",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] ",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] Traceback (most recent call last):",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597]   File \"/app/vllm/vllm/v1/executor/"
    "multiproc_executor.py\", line 430, in __init__",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597]     self.worker.init_device()",
    "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] Exception: WorkerProc initialization "
    "failed due to an exception in a background process. See stack trace for root cause.",
)


def test_logged_chained_exceptions() -> None:
    cause, effect = errors_of(LOGGED_CHAIN)
    assert (cause.exception, cause.line, cause.first_line) == ("RuntimeError", 5, 1)
    assert cause.title == "WorkerProc failed to start."
    assert (effect.exception, effect.line, effect.first_line) == ("Exception", 12, 9)
    assert (effect.cause_id, effect.cause_reason) == (cause.id, ChainReason.DIRECT_CAUSE)
    assert not cause.raw and not effect.raw


# ---- line numbers in the original numbering --------------------------------------------------------

def test_event_lines_count_newlines_only() -> None:
    data = (b"Capturing CUDA graphs (FULL): 0%| | 0/2 [00:00<?, ?it/s]\rCapturing CUDA graphs (FULL): "
            b"100%|##########| 2/2 [00:00<00:00, 6.11it/s]\n"
            b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] WorkerProc failed to "
            b"start.\r\n"
            b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] Traceback (most recent "
            b"call last):\r\n"
            b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597]   File \"/app/vllm/vllm/"
            b"v1/executor/multiproc_executor.py\", line 571, in worker_main\r\n"
            b"ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] RuntimeError: NCCL "
            b"error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
            b"plain\n")
    (event,) = errors_of(data)
    assert (event.line, event.first_line, event.last_line) == (5, 2, 5)


# ---- cut logs ------------------------------------------------------------------------------------

CUT_AT_START = log(  # inductor-ptxas-sm121a-dgx-spark: a paste that starts inside a traceback
    "(EngineCore_DP0 pid=73)   File \"/usr/local/lib/python3.12/dist-packages/torch/_inductor/codegen/"
    "wrapper.py\", line 1615, in _generate",
    "(EngineCore_DP0 pid=73)     self.generate_and_run_autotune_block()",
    "(EngineCore_DP0 pid=73)   File \"/usr/local/lib/python3.12/dist-packages/torch/_inductor/codegen/"
    "wrapper.py\", line 1695, in generate_and_run_autotune_block",
    "(EngineCore_DP0 pid=73)     raise RuntimeError(f\"Failed to run autotuning code block: {e}\") "
    "from e",
    "(EngineCore_DP0 pid=73) torch._inductor.exc.InductorError: RuntimeError: Failed to run "
    "autotuning code block: No valid triton configs. PTXASError: PTXAS error: Internal Triton PTX "
    "codegen error",
)


def test_log_that_starts_inside_a_traceback() -> None:
    (event,) = errors_of(CUT_AT_START)
    assert event.kind is EventKind.EXCEPTION
    assert event.exception == "torch._inductor.exc.InductorError"
    assert (event.line, event.first_line) == (5, 1)
    assert [f.function for f in event.frames] == ["_generate", "generate_and_run_autotune_block"]


CUT_AT_END = log(  # no-kernel-image-sm120-torch-zeros lines 8-18: the paste stops mid-traceback
    "Process EngineCore_0:",
    "Traceback (most recent call last):",
    "  File \"/usr/lib/python3.12/multiprocessing/process.py\", line 314, in _bootstrap",
    "    self.run()",
    "  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 623, in "
    "run_engine_core",
    "    engine_core = EngineCoreProc(*args, **kwargs)",
    "                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
)


def test_log_cut_before_the_exception_line() -> None:
    (event,) = errors_of(CUT_AT_END)
    assert event.kind is EventKind.ERROR_RECORD
    assert event.exception == CUT_TRACEBACK
    assert (event.first_line, event.last_line, event.line) == (1, 7, 7)
    assert "run_engine_core" in event.message
    assert [f.function for f in event.frames] == ["_bootstrap", "run_engine_core"]


def test_cut_chained_traceback_keeps_its_cause() -> None:
    """logit-bias-out-of-vocab-engine-dead ends inside the traceback chained to the IndexError."""
    case = CORPUS / "runtime" / "logit-bias-out-of-vocab-engine-dead" / "log.txt"
    index_error, cut = errors_of(case.read_bytes())
    assert (index_error.exception, index_error.line) == ("IndexError", 7)
    assert (cut.exception, cut.first_line, cut.last_line) == (CUT_TRACEBACK, 9, 11)
    assert (cut.cause_id, cut.cause_reason) == (index_error.id, ChainReason.DIRECT_CAUSE)


# ---- faulthandler and other fatal lines -----------------------------------------------------------

FAULT_DUMP = log(  # gemma2-flashinfer-segfault (vllm#6252) with its closing line (vllm#7960)
    "Fatal Python error: Segmentation fault",
    "",
    "Current thread 0x00007fcf597eb640 (most recent call first):",
    "  File \"/usr/local/lib/python3.10/dist-packages/flashinfer/decode.py\", line 514 in begin_forward",
    "  File \"/usr/local/lib/python3.10/dist-packages/vllm/attention/backends/flashinfer.py\", line 149 "
    "in begin_forward",
    "  File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py\", line 1000 in "
    "execute_model",
    "",
    "Extension modules: msgpack._cmsgpack, google._upb._message, psutil._psutil_linux (total: 3)",
    "INFO 07-03 11:58:36 llm_engine.py:161] Initializing an LLM engine (v0.5.0.post1)",
)


def test_faulthandler_dump_lists_frames_innermost_last() -> None:
    (event,) = errors_of(FAULT_DUMP)
    assert event.kind is EventKind.FATAL
    assert (event.exception, event.message) == ("Fatal Python error", "Segmentation fault")
    assert (event.line, event.first_line, event.last_line) == (1, 1, 8)
    assert [f.file.rsplit("/", 1)[-1] for f in event.frames] == [
        "model_runner.py", "flashinfer.py", "decode.py"]
    assert event.raw


@pytest.mark.parametrize(("text", "label", "message"), [
    ("Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'", "Failed",
     "Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'"),
    ("terminate called after throwing an instance of 'c10::Error'", "terminate",
     "after throwing an instance of 'c10::Error'"),
])
def test_fatal_line_is_an_event(text: str, label: str, message: str) -> None:
    (event,) = errors_of(log("Capturing CUDA graphs (FULL): 100%|##########| 2/2 [00:00<00:00, "
                             "6.11it/s]", text))
    assert event.kind is EventKind.FATAL
    assert (event.exception, event.message, event.line) == (label, message, 2)


def test_bare_exception_line_is_an_event() -> None:
    (event,) = errors_of(log(  # weights-not-found-load-format-safetensors
        "RuntimeError: Cannot find any model weights with `/home/huggingface_models/"
        "models--lmsys--vicuna-13b-v1.5/snapshots/3deb0106f72a3a433f0c6ea0cb978bdf14bcd3a6`"))
    assert event.kind is EventKind.EXCEPTION
    assert event.exception == "RuntimeError"
    assert event.message.startswith("Cannot find any model weights")
    assert (event.line, event.first_line, event.last_line) == (1, 1, 1)
    assert event.frames == ()
    assert event.process.name == "main"


def test_multi_line_message_continues_the_exception() -> None:
    (event,) = errors_of(log(  # no-kernel-image-sm120-torch-zeros lines 1-7
        "ERROR 07-28 15:07:22 [core.py:632]     _ = torch.zeros(1, device=device)",
        "ERROR 07-28 15:07:22 [core.py:632]         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "ERROR 07-28 15:07:22 [core.py:632] RuntimeError: CUDA error: no kernel image is available for "
        "execution on the device",
        "ERROR 07-28 15:07:22 [core.py:632] CUDA kernel errors might be asynchronously reported at some "
        "other API call, so the stacktrace below might be incorrect.",
        "ERROR 07-28 15:07:22 [core.py:632] For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "ERROR 07-28 15:07:22 [core.py:632] ",
        "Process EngineCore_0:",
    ))
    assert (event.line, event.first_line) == (3, 1)
    assert event.last_line in (5, 6)
    assert event.message.splitlines() == [
        "CUDA error: no kernel image is available for execution on the device",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]


# ---- records: errors and non-errors ---------------------------------------------------------------

@pytest.mark.parametrize("level", ["DEBUG", "INFO", "WARNING"])
def test_quiet_record_whose_text_looks_like_an_exception_is_no_event(level: str) -> None:
    # a real message (healthy-minimax-tp4-rocm-benign-error) logged below ERROR
    line = (f"(APIServer pid=103793) {level} 03-08 20:37:09 [repo_utils.py:47] ValueError: Repo id "
            "must be in the form 'repo_name' or 'namespace/repo_name': "
            "'/data0/huggingface/MiniMax-M2.5'. Use `repo_type` argument if needed.")
    assert errors_of(log(line, "(APIServer pid=103793) INFO 03-08 20:37:12 [api_server.py:1272] "
                               "vLLM API server version 0.16.0")) == []


def test_error_record_without_traceback_is_an_event() -> None:
    (event,) = errors_of(log(  # custom-allreduce-invalid-argument-cudagraph line 10
        "(EngineCore pid=3677484) ERROR 09-10 09:37:41 [multiproc_executor.py:314] Worker proc "
        "VllmWorker-0 died unexpectedly (exit code: None), shutting down executor.",
        "(EngineCore pid=3677484) INFO 09-10 09:37:41 [multiproc_executor.py:472] [shutdown] Executor: "
        "waiting for worker exit count=2"))
    assert event.kind is EventKind.ERROR_RECORD
    assert event.exception == "ERROR"
    assert event.message.startswith("Worker proc VllmWorker-0 died unexpectedly")
    assert event.process == Process("EngineCore", 3677484)
    assert event.line == 1


@pytest.mark.parametrize(("line", "events"), [
    ("3837134f4773:4527:4527 [1] NCCL INFO P2P Chunksize set to 524288", 0),
    ("node-12:3791:3791 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to extend "
     "/dev/shm/nccl-JYcYTs to 9637892 bytes", 1),
    ("(APIServer pid=23283) Warning: You are sending unauthenticated requests to the HF Hub. Please "
     "set a HF_TOKEN to enable higher rate limits and faster downloads.", 0),
    ("/home2/ycj/miniconda3/lib/python3.13/multiprocessing/resource_tracker.py:400: UserWarning: "
     "resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown", 0),
    ("[rank0]:[W301 17:37:32.701608294 ProcessGroupNCCL.cpp:1524] Warning: WARNING: "
     "destroy_process_group() was not called before program exit, which can leak resources.", 0),
])
def test_which_single_lines_are_events(line: str, events: int) -> None:
    assert len(errors_of(log(line))) == events


def test_nccl_warn_event() -> None:
    (event,) = errors_of(log("node-12:3791:3791 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to "
                             "extend /dev/shm/nccl-JYcYTs to 9637892 bytes"))
    assert event.exception == "NCCL WARN"
    assert event.message == "Error: failed to extend /dev/shm/nccl-JYcYTs to 9637892 bytes"


# ---- milestones ----------------------------------------------------------------------------------

MILESTONES = [
    # (raw line, milestone kind or None)
    # a poll or a rejected request shows the HTTP server alive, not that an engine works
    ('(APIServer pid=23283) INFO:     127.0.0.1:35594 - "GET /v1/models HTTP/1.1" 200 OK',
     MilestoneKind.ALIVE),
    ('(APIServer pid=23283) INFO:     127.0.0.1:45084 - "POST /v1/chat/completions HTTP/1.1" 400 Bad '
     "Request", MilestoneKind.REJECTED),
    ('(APIServer pid=23283) INFO:     127.0.0.1:43282 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
     MilestoneKind.SERVING),
    ("(Worker_TP0 pid=3740) INFO 10-26 21:47:40 [gpu_model_runner.py:2653] Model loading took "
     "15.2 GiB and 12.3 seconds", MilestoneKind.PROGRESS),
    ("(APIServer pid=1) INFO 08-11 10:45:20 [cli_args.py:261] non-default args: {'model_tag': "
     "'/models/gemma-3-27b-it-FP8-Dynamic/'}", MilestoneKind.START),
    ("INFO 10-07 06:41:25 llm_engine.py:72] Initializing an LLM engine with config: model='x'",
     MilestoneKind.START),
    ("(APIServer pid=1) INFO 05-12 07:51:39 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 "
     "tokens/s, Avg generation throughput: 76.6 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV "
     "cache usage: 57.3%, Prefix cache hit rate: 0.0%", MilestoneKind.SERVING),
    ("(APIServer pid=23283) INFO:     Application startup complete.", MilestoneKind.READY),
    ("INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)", MilestoneKind.READY),
    ("(EngineCore pid=23397) INFO 08-01 21:34:51 [core.py:1214] [shutdown] EngineCore: trigger "
     "received signal=SIGTERM", MilestoneKind.SHUTDOWN_REQUESTED),
    ("(APIServer pid=23283) INFO 08-01 21:34:51 [launcher.py:100] [shutdown] API server: shutdown "
     "triggered", MilestoneKind.SHUTDOWN_REQUESTED),
    # not milestones
    ("(APIServer pid=1) INFO 05-12 07:51:39 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 "
     "tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs", None),
    ('INFO:     127.0.0.1:50994 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
     None),
    ("(EngineCore pid=321) WARNING 09-01 07:40:21 [multiproc_executor.py:441] [shutdown] Executor: "
     "workers still running after grace period; sending SIGTERM count=1", None),
    ("(Worker_TP0 pid=207850) INFO 02-05 10:12:38 [multiproc_executor.py:744] Parent process exited, "
     "terminating worker", None),
    # vLLM's own Ray executor after a failure: it only mentions the SIGTERM it is about to send
    ("INFO 07-31 19:35:35 [ray_distributed_executor.py:128] Shutting down Ray distributed executor. If "
     "you see error log from logging.cc regarding SIGTERM received, please ignore because this is the "
     "expected termination process in Ray.", None),
]


@pytest.mark.parametrize(("raw", "kind"), MILESTONES)
def test_milestones(raw: str, kind: MilestoneKind | None) -> None:
    record = parse_line(clean(raw), 7)
    found = [e for e in assemble([record]) if isinstance(e, Milestone)]
    if kind is None:
        assert found == []
    else:
        (milestone,) = found
        assert milestone.kind is kind
        assert milestone.line == 7
        assert milestone.process == record.process


@pytest.mark.parametrize("level,events", [("WARNING", 0), ("INFO", 0), ("ERROR", 1)])
def test_a_traceback_logged_below_error_is_not_an_error(level: str, events: int) -> None:
    # `logger.warning("...", exc_info=True)`: vLLM prints these for optional kernels and goes on
    found = errors_of(log(
        f"(EngineCore_DP0 pid=10) {level} 01-01 00:00:01 [utils.py:12] Could not load the kernel.",
        f"(EngineCore_DP0 pid=10) {level} 01-01 00:00:01 [utils.py:12] Traceback (most recent call last):",
        f'(EngineCore_DP0 pid=10) {level} 01-01 00:00:01 [utils.py:12]   File "/x/vllm/utils.py", line 10, in load',
        f"(EngineCore_DP0 pid=10) {level} 01-01 00:00:01 [utils.py:12]     import fancy_kernel",
        f"(EngineCore_DP0 pid=10) {level} 01-01 00:00:01 [utils.py:12] ModuleNotFoundError: No module named 'fancy_kernel'",
        "(EngineCore_DP0 pid=10) INFO 01-01 00:00:02 [core.py:1] Loading model"))
    assert len([e for e in found if e.exception == "ModuleNotFoundError"]) == events


# ---- IPython / Jupyter tracebacks ----------------------------------------------------------------
# `LLM(...)` run in a notebook: IPython prints a ruled header, the cell, then each frame as
# `File ~/env/x.py:12, in Class.f(args)` followed by numbered source lines (`--> 12` marks the
# line), a blank line between frames, and the exception last (vllm#20716).

_MODULES = st.lists(st.sampled_from(["entrypoints/llm", "config", "compilation/backends",
                                     "v1/worker/gpu_model_runner", "model_executor/models/llama"]),
                    min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(modules=_MODULES, home=st.sampled_from(["~/venv", "/opt/conda", "~/.local/share/env"]),
       numbers=st.lists(st.integers(min_value=5, max_value=99999), min_size=4, max_size=4))
def test_ipython_traceback_is_one_event_with_its_frames(modules: list[str], home: str,
                                                        numbers: list[int]) -> None:
    lines = ["-" * 75, "IndexError                                Traceback (most recent call last)",
             "Cell In[3], line 4", "      2 from vllm import LLM", "----> 4 llm = LLM(model=m)", ""]
    for index, module in enumerate(modules):
        number = numbers[index]
        lines += [f"File {home}/lib/python3.11/site-packages/vllm/{module}.py:{number}, in "
                  f"Runner.step_{index}(self, *args, **kwargs)",
                  f"    {number - 1} batch = self.batch", f"--> {number} value = batch[0]", ""]
    lines.append("IndexError: list index out of range")
    (event,) = errors_of(log(*lines))
    assert event.exception == "IndexError"
    assert [f.function for f in event.frames] == [f"Runner.step_{i}" for i in range(len(modules))]
    assert event.frames[-1].file.endswith(f"vllm/{modules[-1]}.py")
    assert event.frames[-1].line == numbers[len(modules) - 1]
    assert event.first_line == 7 and event.line == len(lines)


# ---- tracebacks printed indented as a whole --------------------------------------------------------
# pip shows a failed build step's output in a box (`╰─> [17 lines of output]`), every line shifted
# right: a setup.py that raised under `pip install` prints its traceback there, the exception line
# at the header's column, frames two deeper, source lines four deeper.

_EXCEPTIONS = st.sampled_from([
    ("RuntimeError", "GPUs with compute capability below 7.0 are not supported."),
    ("ModuleNotFoundError", "No module named 'torch'"),
    ("OSError", "CUDA_HOME environment variable is not set. Please set it to your CUDA install root."),
    ("AssertionError", "CUDA_HOME is not set"),
])


def _boxed(indent: int, frames: int, exception: tuple[str, str]) -> list[str]:
    pad = " " * indent
    lines = ["  error: subprocess-exited-with-error", "",
             "  × Getting requirements to build wheel did not run successfully.",
             "  │ exit code: 1", "  ╰─> [17 lines of output]",
             f"{pad}Traceback (most recent call last):"]
    for index in range(frames):
        lines += [f'{pad}  File "/tmp/pip-build-env-x/overlay/setup_{index}.py", line {10 + index}, '
                  f"in step_{index}", f"{pad}    step_{index + 1}()"]
    lines += [f"{pad}{exception[0]}: {exception[1]}", f"{pad}[end of output]"]
    return lines


@settings(max_examples=40, deadline=None)
@given(indent=st.integers(min_value=1, max_value=12), frames=st.integers(min_value=1, max_value=5),
       exception=_EXCEPTIONS)
def test_an_indented_traceback_ends_at_its_headers_column(indent: int, frames: int,
                                                          exception: tuple[str, str]) -> None:
    lines = _boxed(indent, frames, exception)
    (event,) = [e for e in errors_of(log(*lines)) if e.kind is EventKind.EXCEPTION]
    assert event.exception == exception[0]
    assert event.message.startswith(exception[1])
    assert [f.function for f in event.frames] == [f"step_{i}" for i in range(frames)]
    assert event.line == len(lines) - 1


@pytest.mark.parametrize("shift", [-1, 1, 2, 4])
def test_an_exception_shaped_line_off_the_headers_column_ends_nothing(shift: int) -> None:
    lines = _boxed(6, 2, ("RuntimeError", "boom"))
    lines[-2] = " " * (6 + shift) + "RuntimeError: boom"
    assert not [e for e in errors_of(log(*lines)) if e.exception == "RuntimeError"]


# ---- wrappers whose message names the inner error on the next line ------------------------------

@pytest.mark.parametrize("prefix", [
    "(VllmWorker rank=0 pid=48211) ERROR 07-29 14:02:31 [multiproc_executor.py:546] ",
    "[rank0]: ",
    "",
])
def test_raised_colon_takes_the_inner_error_line_as_its_message(prefix: str) -> None:
    # torch._dynamo's BackendCompilerFailed prints "backend=... raised:" and the inner exception
    # on the next line (vllm#21858's inner line); that line is its message, not a new error
    inner = ("RuntimeError: vLLM failed to compile the model. The most likely reason for this is "
             "that a previous compilation failed")
    errors = errors_of(log(
        prefix + "Traceback (most recent call last):",
        prefix + '  File "/usr/lib/python3.12/site-packages/vllm/compilation/compiler_interface.py'
        '", line 436, in compile',
        prefix + "    raise RuntimeError(",
        prefix + "torch._dynamo.exc.BackendCompilerFailed: backend='<vllm.compilation.backends."
        "VllmBackend object at 0x7f4a1c2b3e90>' raised:",
        prefix + inner,
        prefix,
        prefix + "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace"))
    errors = [e for e in errors if e.kind is EventKind.EXCEPTION]
    assert len(errors) == 1
    assert errors[0].exception == "torch._dynamo.exc.BackendCompilerFailed"
    assert errors[0].message.splitlines()[1] == inner


def test_an_exception_line_after_a_complete_message_is_a_new_error() -> None:
    errors = errors_of(log(
        "Traceback (most recent call last):",
        '  File "/x/vllm/worker.py", line 3, in f',
        "    g()",
        "ValueError: the first error",
        "RuntimeError: printed on its own after it"))
    assert [e.exception for e in errors] == ["ValueError", "RuntimeError"]


# ---- channels forgotten while fresh (a restart-heavy log made thousands) -----------------------

def test_a_channel_made_again_keeps_its_place_in_the_order_of_making() -> None:
    # A's INFO line makes its channel, which is left as made and forgotten; B's traceback waits;
    # A's traceback at the same call site makes it again. The two waiting at the end are flushed
    # in the order their channels were first made: A's first, as when nothing was forgotten.
    text = log(
        "(APIServer pid=11) INFO 01-24 01:00:00 [serving.py:296] Exception in callback ignored",
        "(EngineCore_DP0 pid=21) ERROR 01-24 01:00:01 [core.py:900] Traceback (most recent call last):",
        '(EngineCore_DP0 pid=21) ERROR 01-24 01:00:01 [core.py:900]   File "core.py", line 1, in run',
        "(EngineCore_DP0 pid=21) ERROR 01-24 01:00:01 [core.py:900] ValueError: engine side",
        "(APIServer pid=11) ERROR 01-24 01:00:02 [serving.py:296] Traceback (most recent call last):",
        '(APIServer pid=11) ERROR 01-24 01:00:02 [serving.py:296]   File "serving.py", line 2, in create',
        "(APIServer pid=11) ERROR 01-24 01:00:02 [serving.py:296] RuntimeError: server side",
    )
    errors = [e for e in assemble(tokenize([text.encode()])) if isinstance(e, ErrorEvent)]
    assert [(e.exception, e.process.name) for e in errors] == [
        ("RuntimeError", "APIServer"), ("ValueError", "EngineCore_DP0")]
    assert errors[0].id < errors[1].id
    assert errors[0].process == Process("APIServer", 11)


# ---- an activity line's milestone skips `_capped`'s lists (Assembler.feed) -------------------

class _CappedEveryTime(Assembler):
    """Every batch through `_capped`, as `feed` did before its shortcut for one milestone."""

    def feed(self, line: LogLine) -> list[Event]:
        return self._capped(self._feed(line))


def _events_of(path: Path, assembler: Assembler) -> list[Event]:
    lines = FactCollector().watch(tokenize_runs(open_input(path).blocks(), TokenizeStats()))
    return assemble_folded(lines, assembler)


class _Seeing(Recurrences):
    """Recurrences that also list the milestones they see."""

    def __init__(self) -> None:
        super().__init__(default_causality())
        self.seen: list[Milestone] = []

    def see(self, milestone: Milestone) -> None:
        self.seen.append(milestone)
        super().see(milestone)


@pytest.mark.parametrize("mix", MIXES)
@pytest.mark.parametrize("cap", [3, MAX_EVENTS_PER_PROCESS])
def test_one_milestone_fed_as_capped_would(mix: str, cap: int, mix_dir: str) -> None:
    """The events of every mix (activity lines between request errors, restarts, a crash loop)
    are those of an assembler that passes every batch through `_capped`, with copies folded
    and with a small per-process cap; and recur.py sees the same milestones (a copy folds only
    once its process is seen working after the first)."""
    path, _ = mix_log(mix, 5_000, mix_dir)
    fast_seen, plain_seen = _Seeing(), _Seeing()
    fast = Assembler(max_events_per_process=cap, recurrences=fast_seen)
    plain = _CappedEveryTime(max_events_per_process=cap, recurrences=plain_seen)
    events = _events_of(path, fast)
    assert events == _events_of(path, plain)
    assert fast_seen.seen == plain_seen.seen
    assert any(isinstance(event, Milestone) for event in events)
