"""Realistic vLLM logs around one worker error, for the family tests and constructed examples.

A log is built the way vLLM writes it (shared/research/vllm-log-format.md): the engine's
lifecycle lines up to the phase that failed, the worker's logged traceback with the real call
path of that phase, and the symptoms that follow in the engine core and the API server. The
process prefix and record header follow one of several eras, so a test can draw the same failure
from V1 (2025-2026), the mid-2025 `VllmWorker rank=N` form, V0 multiprocessing and Ray workers.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from logsleuth.model import Phase

SITE = "/usr/local/lib/python3.12/dist-packages/vllm/"


@dataclass(frozen=True)
class Era:
    """How one generation of vLLM labels a worker and logs a worker's exception."""

    name: str
    worker: str  # the worker's prefix, `{rank}` and `{pid}` filled in
    engine: str  # the engine core's prefix ("" when the engine runs in the main process)
    site: str  # the record header's call site of a logged worker traceback
    loop: tuple[str, str]  # (file, function) of the worker's busy loop
    title_start: str  # the record that introduces a start-up traceback
    title_busy: str  # the record that introduces a traceback from the busy loop


ERAS = (
    Era("v1-2026", "(Worker_TP{rank} pid={pid}) ", "(EngineCore_DP0 pid=4100) ",
        "multiproc_executor.py:870", ("v1/executor/multiproc_executor.py", "worker_busy_loop"),
        "WorkerProc failed to start.", "WorkerProc hit an exception."),
    Era("v1-2025", "(VllmWorker rank={rank} pid={pid}) ", "(EngineCore_0 pid=4100) ",
        "multiproc_executor.py:611", ("v1/executor/multiproc_executor.py", "worker_busy_loop"),
        "WorkerProc failed to start.", "WorkerProc hit an exception."),
    Era("v0-multiproc", "(VllmWorkerProcess pid={pid}) ", "",
        "multiproc_worker_utils.py:242",
        ("executor/multiproc_worker_utils.py", "_run_worker_process"),
        "Exception in worker VllmWorkerProcess while processing method {method}.",
        "Exception in worker VllmWorkerProcess while processing method {method}."),
    Era("ray", "(RayWorkerWrapper pid={pid}, ip=10.0.0.{rank}) ", "",
        "worker_base.py:382", ("worker/worker_base.py", "execute_method"),
        "Error executing method {method}. This might cause deadlock in distributed execution.",
        "Error executing method {method}. This might cause deadlock in distributed execution."),
)

# Each phase: the worker method that runs it and its call path (file under vllm/, function),
# outermost first, as vLLM's V1 worker prints it.
PATHS: dict[Phase, tuple[str, tuple[tuple[str, str], ...]]] = {
    Phase.INIT: ("init_device", (
        ("v1/worker/gpu_worker.py", "init_device"),
        ("v1/worker/gpu_worker.py", "init_worker_distributed_environment"),
        ("distributed/parallel_state.py", "ensure_model_parallel_initialized"),
        ("distributed/parallel_state.py", "initialize_model_parallel"),
        ("distributed/parallel_state.py", "init_model_parallel_group"),
        ("distributed/device_communicators/cuda_communicator.py", "__init__"),
        ("distributed/device_communicators/pynccl.py", "__init__"),
    )),
    Phase.LOAD: ("load_model", (
        ("v1/worker/gpu_worker.py", "load_model"),
        ("v1/worker/gpu_model_runner.py", "load_model"),
        ("model_executor/model_loader/__init__.py", "get_model"),
        ("model_executor/model_loader/base_loader.py", "load_model"),
        ("model_executor/model_loader/default_loader.py", "load_weights"),
        ("model_executor/models/llama.py", "load_weights"),
        ("model_executor/models/utils.py", "load_weights"),
    )),
    Phase.PROFILE: ("determine_available_memory", (
        ("v1/worker/gpu_worker.py", "determine_available_memory"),
        ("v1/worker/gpu_model_runner.py", "profile_run"),
        ("v1/worker/gpu_model_runner.py", "_dummy_run"),
        ("model_executor/models/llama.py", "forward"),
        ("model_executor/layers/linear.py", "forward"),
    )),
    Phase.KV_CACHE: ("initialize_from_config", (
        ("v1/worker/gpu_worker.py", "initialize_from_config"),
        ("v1/worker/gpu_model_runner.py", "initialize_kv_cache"),
        ("v1/worker/gpu_model_runner.py", "initialize_kv_cache_tensors"),
        ("v1/worker/gpu_model_runner.py", "_allocate_kv_cache_tensors"),
    )),
    Phase.GRAPH_CAPTURE: ("compile_or_warm_up_model", (
        ("v1/worker/gpu_worker.py", "compile_or_warm_up_model"),
        ("v1/worker/gpu_model_runner.py", "capture_model"),
        ("v1/worker/gpu_model_runner.py", "_capture_cudagraphs"),
        ("v1/worker/gpu_model_runner.py", "_dummy_run"),
        ("model_executor/models/llama.py", "forward"),
    )),
    Phase.SERVING: ("execute_model", (
        ("v1/worker/gpu_worker.py", "execute_model"),
        ("v1/worker/gpu_model_runner.py", "execute_model"),
        ("v1/worker/gpu_model_runner.py", "_model_forward"),
        ("model_executor/models/llama.py", "forward"),
        ("model_executor/layers/linear.py", "forward"),
    )),
}

# The lifecycle lines each phase follows (worker's and engine's INFO records).
LIFECYCLE: dict[Phase, tuple[str, ...]] = {
    Phase.INIT: ("[parallel_state.py:1203] world_size=2 rank={rank} local_rank={rank} "
                 "distributed_init_method=tcp://127.0.0.1:41623 backend=nccl",),
    Phase.LOAD: ("[gpu_model_runner.py:3861] Starting to load model /models/m...",),
    Phase.PROFILE: ("[default_loader.py:384] Loading weights took 14.57 seconds",
                    "[gpu_model_runner.py:1950] Model loading took 15.2 GiB and 15.1 seconds"),
    Phase.KV_CACHE: ("[gpu_worker.py:276] Available KV cache memory: 48.38 GiB",
                     "[kv_cache_utils.py:715] GPU KV cache size: 1,745,264 tokens"),
    Phase.GRAPH_CAPTURE: ("[gpu_model_runner.py:3400] Capturing CUDA graphs (mixed prefill-decode, "
                          "PIECEWISE): 40%",),
    Phase.SERVING: ("[core.py:171] init engine (profile, create kv cache, warmup model) took "
                    "37.37 seconds",),
}
_ORDER = list(PATHS)


def worker_failure(error: str, *, phase: Phase = Phase.LOAD, era: Era = ERAS[0],
                   inner: tuple[tuple[str, str], ...] = (), root: str = SITE,
                   rank: int = 1) -> str:
    """A log in which worker `rank` raises `error` (`Type: message`, lines after the first are
    the message's continuation) during `phase`, `inner` frames below the phase's call path."""
    pid = 207850 + rank
    worker = era.worker.format(rank=rank, pid=pid)
    engine = era.engine or ""
    lines: list[str] = []
    stamp = "02-05 10:11:{:02d}"
    for index, phase_now in enumerate(_ORDER[:_ORDER.index(phase) + 1]):
        for text in LIFECYCLE[phase_now]:
            lines.append(f"{worker}INFO {stamp.format(index)} {text.format(rank=rank)}")
    method, path = PATHS[phase]
    busy = phase not in (Phase.INIT, Phase.LOAD) or era.name.startswith(("v0", "ray"))
    title = (era.title_busy if busy else era.title_start).format(method=method)
    header = f"{worker}ERROR {stamp.format(30)} [{era.site}] "
    if not era.name.startswith("v1"):
        header = f"{worker}ERROR {stamp.format(30)} {era.site}] "
    record = [title, "Traceback (most recent call last):"]
    frames = [(era.loop[0], era.loop[1]), *path, *inner]
    for number, (file, function) in enumerate(frames, start=101):
        where = file if file.startswith("/") else f"{root}{file}"
        record += [f'  File "{where}", line {number}, in {function}',
                   f"    return self.{function}(*args, **kwargs)"]
    record += error.split("\n")
    lines += [f"{header}{text}" for text in record]
    message = error.split('\n', 1)[0].partition(': ')[2] or error.split('\n', 1)[0]
    lines += _symptoms(engine, busy, stamp.format(31), message)
    return "\n".join(lines) + "\n"


def _symptoms(engine: str, busy: bool, stamp: str, message: str) -> list[str]:
    if busy:
        return [f"{engine}ERROR {stamp} [core.py:946] EngineCore encountered a fatal error.",
                f"{engine}ERROR {stamp} [core.py:946] Traceback (most recent call last):",
                f'{engine}ERROR {stamp} [core.py:946]   File "{SITE}v1/engine/core.py", line 937,'
                " in run_engine_core",
                f"{engine}ERROR {stamp} [core.py:946]     engine_core.run_busy_loop()",
                f"{engine}ERROR {stamp} [core.py:946] RuntimeError: Worker failed with error "
                f"'{message}', please check the stack trace above for the root cause",
                f"(APIServer pid=4000) ERROR {stamp} [async_llm.py:485] AsyncLLM output_handler "
                "failed.",
                "(APIServer pid=4000) vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
                "encountered an issue. See stack trace (above) for the root cause."]
    return [f"{engine}ERROR {stamp} [core.py:708] EngineCore failed to start.",
            f"{engine}ERROR {stamp} [core.py:708] Traceback (most recent call last):",
            f'{engine}ERROR {stamp} [core.py:708]   File "{SITE}v1/executor/multiproc_executor.py",'
            " line 527, in wait_for_ready",
            f"{engine}ERROR {stamp} [core.py:708]     raise e from None",
            f"{engine}ERROR {stamp} [core.py:708] Exception: WorkerProc initialization failed due "
            "to an exception in a background process. See stack trace for root cause.",
            "(APIServer pid=4000) RuntimeError: Engine core initialization failed. See root cause "
            "above. Failed core proc(s): {}"]


def python_traceback(frames: list[tuple[str, str, str]], error: str, prefix: str = "") -> str:
    """A traceback as Python prints it: each (path, function, source line) a frame, then the
    error's lines, every line behind `prefix` (a launcher's or a logger's)."""
    lines = ["Traceback (most recent call last):"]
    for number, (path, function, code) in enumerate(frames, start=21):
        lines += [f'  File "{path}", line {number}, in {function}', f"    {code}"]
    lines += error.split("\n")
    return "\n".join(prefix + line for line in lines) + "\n"


def signature_advice(log: str) -> tuple[str, str]:
    """The id and fix of the signature that answers for `log` (one must)."""
    from logsleuth.pipeline import explain_text
    from logsleuth.signatures import default_signatures

    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    return report.signature.id, report.signature.fix


# Strategies for generated tracebacks (hypothesis): the Python version, where site-packages is
# (format with py=...), and how a traceback reaches the log: bare, under an engine core's or a
# worker's ERROR record, or behind torchrun's rank prefix.
PYTHONS = st.sampled_from(["3.9", "3.10", "3.11", "3.12"])
SITE_PACKAGES = st.sampled_from(["/usr/local/lib/python{py}/dist-packages/",
                                 "/home/u/.venv/lib/python{py}/site-packages/",
                                 "/opt/conda/lib/python{py}/site-packages/"])
TRACEBACK_PREFIXES = st.sampled_from(["", "ERROR 07-28 10:42:05 [core.py:387] ",
                                      "(VllmWorker rank=0 pid=812) ERROR 07-28 10:42:05 "
                                      "[multiproc_executor.py:470] ",
                                      "[rank0]: "])
