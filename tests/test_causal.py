"""Causal inference: which error is the root cause, which are symptoms, and the verdict.

Each log is a handful of real vLLM lines (the corpus case or issue is named beside it).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import logsleuth
from logsleuth.assemble import assemble
from logsleuth.causal import CausalGraph
from logsleuth.model import Inference, Verdict
from logsleuth.tokenize import TokenizeStats, tokenize


def infer(text: str) -> Inference:
    stats = TokenizeStats()
    events = list(assemble(tokenize([text.encode("utf-8")], stats)))
    graph = CausalGraph.build(events, last_line=stats.last_line_text, line_count=stats.lines)
    return graph.infer()


def log(*lines: str) -> str:
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Root:
    exception: str
    message_start: str
    process: str
    line: int


# ---- building blocks, real lines ------------------------------------------------------------------

WORKER_VALUEERROR = [  # seed, Worker_TP5
    "(Worker_TP5 pid=207855) ERROR 02-05 10:11:14 [multiproc_executor.py:870] WorkerProc failed to "
    "start.",
    "(Worker_TP5 pid=207855) ERROR 02-05 10:11:15 [multiproc_executor.py:870] Traceback (most recent "
    "call last):",
    "(Worker_TP5 pid=207855) ERROR 02-05 10:12:16 [multiproc_executor.py:870]   File \"/root/ml-env/"
    "lib/python3.12/site-packages/vllm/platforms/cuda.py\", line 338, in get_attn_backend_cls",
    "(Worker_TP5 pid=207855) ERROR 02-05 10:12:16 [multiproc_executor.py:870]     raise ValueError(",
    "(Worker_TP5 pid=207855) ERROR 02-05 10:12:18 [multiproc_executor.py:870] ValueError: No valid "
    "attention backend found for cuda with AttentionSelectorConfig(head_size=576, "
    "dtype=torch.bfloat16, kv_cache_dtype=fp8_e4m3, block_size=64, use_mla=True)",
]
WORKER_EXIT = [
    "(Worker_TP5 pid=207855) INFO 02-05 10:12:41 [multiproc_executor.py:744] Parent process exited, "
    "terminating worker",
]
ENGINE_CORE_SYMPTOM = [  # seed, EngineCore_DP0 (logged copy)
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:41 [core.py:1108] EngineCore failed to start.",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:41 [core.py:1108] Traceback (most recent call "
    "last):",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:46 [core.py:1108]   File \"/root/ml-env/lib/"
    "python3.12/site-packages/vllm/v1/executor/multiproc_executor.py\", line 758, in wait_for_ready",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:46 [core.py:1108]     raise e from None",
    "(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:46 [core.py:1108] Exception: WorkerProc "
    "initialization failed due to an exception in a background process. See stack trace for root "
    "cause.",
]
API_SERVER_SYMPTOM = [  # seed, APIServer (raw)
    "(APIServer pid=207603) Traceback (most recent call last):",
    "(APIServer pid=207603)   File \"/root/ml-env/lib/python3.12/site-packages/vllm/v1/engine/utils.py"
    "\", line 1193, in wait_for_engine_startup",
    "(APIServer pid=207603)     raise RuntimeError(",
    "(APIServer pid=207603) RuntimeError: Engine core initialization failed. See root cause above. "
    "Failed core proc(s): {}",
]
FREE_MEMORY_LOGGED = [  # free-memory-less-than-utilization-4gb
    "(EngineCore_DP0 pid=17374) ERROR 09-28 15:47:24 [core.py:718] EngineCore failed to start.",
    "(EngineCore_DP0 pid=17374) ERROR 09-28 15:47:24 [core.py:718] Traceback (most recent call last):",
    "(EngineCore_DP0 pid=17374) ERROR 09-28 15:47:24 [core.py:718]   File \"/home/vmejia/projects/"
    "loreal/loreal-dipi/.venv/lib/python3.10/site-packages/vllm/v1/worker/gpu_worker.py\", line 180, "
    "in init_device",
    "(EngineCore_DP0 pid=17374) ERROR 09-28 15:47:24 [core.py:718]     raise ValueError(",
    "(EngineCore_DP0 pid=17374) ERROR 09-28 15:47:24 [core.py:718] ValueError: Free memory on device "
    "(3.22/4.0 GiB) on startup is less than desired GPU memory utilization (0.9, 3.6 GiB). Decrease "
    "GPU memory utilization or reduce GPU memory used by other processes.",
]
FREE_MEMORY_RAW = [
    "(EngineCore_DP0 pid=17374) Process EngineCore_DP0:",
    "(EngineCore_DP0 pid=17374) Traceback (most recent call last):",
    "(EngineCore_DP0 pid=17374)   File \"/usr/lib/python3.10/multiprocessing/process.py\", line 314, "
    "in _bootstrap",
    "(EngineCore_DP0 pid=17374)     self.run()",
    "(EngineCore_DP0 pid=17374)   File \"/home/vmejia/projects/loreal/loreal-dipi/.venv/lib/python3.10/"
    "site-packages/vllm/v1/worker/gpu_worker.py\", line 180, in init_device",
    "(EngineCore_DP0 pid=17374)     raise ValueError(",
    "(EngineCore_DP0 pid=17374) ValueError: Free memory on device (3.22/4.0 GiB) on startup is less "
    "than desired GPU memory utilization (0.9, 3.6 GiB). Decrease GPU memory utilization or reduce "
    "GPU memory used by other processes.",
]
FREE_MEMORY_API_SERVER = [
    "(APIServer pid=17200) RuntimeError: Engine core initialization failed. See root cause above. "
    "Failed core proc(s): {}",
]
SERVING = [  # healthy-dgx-spark-sigterm-shutdown
    "(APIServer pid=23283) INFO:     Started server process [23283]",
    "(APIServer pid=23283) INFO:     Application startup complete.",
    '(APIServer pid=23283) INFO:     127.0.0.1:43282 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "(APIServer pid=23283) INFO 08-01 21:34:19 [loggers.py:273] Engine 000: Avg prompt throughput: "
    "1868.2 tokens/s, Avg generation throughput: 0.8 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU "
    "KV cache usage: 12.1%, Prefix cache hit rate: 0.0%",
]
FREE_MEMORY_RAW_FIRST = FREE_MEMORY_RAW + FREE_MEMORY_LOGGED[1:] + FREE_MEMORY_API_SERVER

# ---- root cause choices ---------------------------------------------------------------------------

ROOT_CASES = [
    # (id, log, expected root)
    ("worker-before-engine-core-and-api-server",
     log(*WORKER_VALUEERROR, *WORKER_EXIT, *ENGINE_CORE_SYMPTOM, *API_SERVER_SYMPTOM),
     Root("ValueError", "No valid attention backend found for cuda", "Worker_TP5", 5)),
    ("duplicate-copies-logged-then-raw",
     log(*FREE_MEMORY_LOGGED, *FREE_MEMORY_RAW, *FREE_MEMORY_API_SERVER),
     Root("ValueError", "Free memory on device (3.22/4.0 GiB)", "EngineCore_DP0", 5)),
    # stdout and stderr interleave unpredictably (research 6.3 #3): the raw copy may come first
    ("duplicate-copies-raw-then-logged", log(*FREE_MEMORY_RAW_FIRST),
     Root("ValueError", "Free memory on device (3.22/4.0 GiB)", "EngineCore_DP0", 7)),
    # a restarted server (new pids) serving later does not rescue the first one's failure
    ("restart-does-not-rescue",
     log(*FREE_MEMORY_LOGGED, *FREE_MEMORY_RAW, *FREE_MEMORY_API_SERVER, *SERVING),
     Root("ValueError", "Free memory on device (3.22/4.0 GiB)", "EngineCore_DP0", 5)),
    # lora-rank-exceeds-max-lora-rank: the wrapper quotes an error whose traceback is not in the log
    ("wrapper-without-original", log(
        "(EngineCore_DP0 pid=1789245) ERROR 11-19 12:54:26 [core.py:710]     raise RuntimeError(",
        "(EngineCore_DP0 pid=1789245) ERROR 11-19 12:54:26 [core.py:710] RuntimeError: Worker failed "
        "with error 'LoRA rank 32 is greater than max_lora_rank 16.', please check the stack trace "
        "above for the root cause"),
     Root("RuntimeError", "Worker failed with error 'LoRA rank 32", "EngineCore_DP0", 2)),
    # ... and when the quoted error is in the log, it is the root cause
    ("wrapper-with-original", log(
        "(Worker_TP0 pid=1789301) ERROR 11-19 12:54:26 [multiproc_executor.py:703] WorkerProc hit an "
        "exception.",
        "(Worker_TP0 pid=1789301) ERROR 11-19 12:54:26 [multiproc_executor.py:703] Traceback (most "
        "recent call last):",
        "(Worker_TP0 pid=1789301) ERROR 11-19 12:54:26 [multiproc_executor.py:703]   File \"/usr/local/"
        "lib/python3.12/dist-packages/vllm/lora/models.py\", line 380, in activate_adapter",
        "(Worker_TP0 pid=1789301) ERROR 11-19 12:54:26 [multiproc_executor.py:703] ValueError: LoRA "
        "rank 32 is greater than max_lora_rank 16.",
        "(EngineCore_DP0 pid=1789245) ERROR 11-19 12:54:26 [core.py:710]     raise RuntimeError(",
        "(EngineCore_DP0 pid=1789245) ERROR 11-19 12:54:26 [core.py:710] RuntimeError: Worker failed "
        "with error 'LoRA rank 32 is greater than max_lora_rank 16.', please check the stack trace "
        "above for the root cause"),
     Root("ValueError", "LoRA rank 32 is greater than max_lora_rank 16.", "Worker_TP0", 4)),
    # custom-allreduce-invalid-argument-cudagraph: a fatal C++ line, then the engine core notices
    ("fatal-line-before-worker-death", log(
        "Capturing CUDA graphs (FULL): 100%|##########| 2/2 [00:00<00:00, 6.11it/s]",
        "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'",
        "(EngineCore pid=3677484) ERROR 09-10 09:37:41 [multiproc_executor.py:314] Worker proc "
        "VllmWorker-0 died unexpectedly (exit code: None), shutting down executor."),
     Root("Failed", "Cuda error /workspace/csrc/custom_all_reduce.cuh:164", "main", 2)),
    # an error printed after vLLM's Ray executor announced its own teardown still counts
    # (ray-tp16-mindie-turbo-weights-iterator-typeerror lines 197-233, shortened)
    ("ray-executor-shutdown-notice-is-no-operator-shutdown", log(
        "INFO 07-31 19:35:35 [ray_distributed_executor.py:128] Shutting down Ray distributed executor. "
        "If you see error log from logging.cc regarding SIGTERM received, please ignore because this "
        "is the expected termination process in Ray.",
        "  File \"/vllm-workspace/vllm/vllm/worker/worker_base.py\", line 623, in execute_method",
        "    raise e",
        "  File \"/vllm-workspace/vllm/vllm/model_executor/model_loader/default_loader.py\", line 198, "
        "in _get_weights_iterator",
        "    weights_iterator = safetensors_weights_iterator(",
        "TypeError: wrapper_weights_iterator.<locals>._safetensors_weights_iterator() takes 1 "
        "positional argument but 2 were given"),
     Root("TypeError", "wrapper_weights_iterator.<locals>", "main", 6)),
]


@pytest.mark.parametrize(("log_text", "root"), [(c[1], c[2]) for c in ROOT_CASES],
                         ids=[c[0] for c in ROOT_CASES])
def test_root_cause(log_text: str, root: Root) -> None:
    result = infer(log_text)
    assert result.verdict is Verdict.FAILURE, result.reasons
    found = result.root_cause
    assert found is not None
    assert (found.exception, found.process.name, found.line) == (
        root.exception, root.process, root.line)
    assert found.message.startswith(root.message_start)
    assert found not in result.symptoms


def test_symptoms_of_a_worker_failure() -> None:
    result = infer(log(*WORKER_VALUEERROR, *WORKER_EXIT, *ENGINE_CORE_SYMPTOM,
                       *API_SERVER_SYMPTOM))
    texts = [s.text for s in result.symptoms]
    assert any("WorkerProc initialization failed" in t for t in texts)
    assert any("Engine core initialization failed" in t for t in texts)
    assert all(s.line > result.root_cause.line for s in result.symptoms)  # type: ignore[union-attr]
    assert result.reasons


def test_copies_of_the_root_are_not_symptoms() -> None:
    result = infer(log(*FREE_MEMORY_LOGGED, *FREE_MEMORY_RAW, *FREE_MEMORY_API_SERVER))
    assert [s.exception for s in result.symptoms] == ["RuntimeError"]


# ---- root cause missing ---------------------------------------------------------------------------

SYMPTOMS_ONLY = [
    # (id, log, a process family the hints must name)
    ("api-server-only", log(  # gpt-oss-120b-h100-kv-cache-symptom-only
        "(APIServer pid=223598)   File \"/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/"
        "engine/utils.py\", line 785, in wait_for_engine_startup",
        "(APIServer pid=223598)     raise RuntimeError(\"Engine core initialization failed. \"",
        "(APIServer pid=223598)                        \"See root cause above. \"",
        "(APIServer pid=223598)                        f\"Failed core proc(s): {finished}\")",
        "(APIServer pid=223598) RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {}"), "EngineCore"),
    ("engine-core-and-api-server", log(*ENGINE_CORE_SYMPTOM, *API_SERVER_SYMPTOM), "Worker"),
    ("engine-core-died", log(  # qwen3-30b-enginecore-died-silently
        "(APIServer pid=523647) ERROR 04-27 18:09:47 [core_client.py:600] Engine core proc "
        "EngineCore_DP0 died unexpectedly, shutting down client."), "EngineCore"),
]


@pytest.mark.parametrize(("log_text", "names"), [(c[1], c[2]) for c in SYMPTOMS_ONLY],
                         ids=[c[0] for c in SYMPTOMS_ONLY])
def test_only_symptoms_means_root_cause_missing(log_text: str, names: str) -> None:
    result = infer(log_text)
    assert result.verdict is Verdict.ROOT_CAUSE_MISSING
    assert result.root_cause is None
    assert result.symptoms
    assert result.look_for
    assert any(names in hint for hint in result.look_for), result.look_for


def test_stalled_progress_bar_at_the_end() -> None:
    result = infer(log(  # tp2-hang-acs-iommu-p2p
        "HP-Z8-Fury-G5-Workstation-Desktop-PC:23541:23673 [1] NCCL INFO Channel 01 : 1[1] -> 0[0] via "
        "SHM/direct/direct",
        "INFO 11-01 23:16:33 distributed_gpu_executor.py:56] # GPU blocks: 185231, # CPU blocks: "
        "18724",
        "<vllm.entrypoints.llm.LLM object at 0x72c46e351a50>",
        "Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, "
        "output: 0.00 toks/s]"))
    assert result.verdict is Verdict.ROOT_CAUSE_MISSING
    assert result.root_cause is None
    assert [s.line for s in result.symptoms] == [4]
    assert "Processed prompts" in result.symptoms[0].message
    assert result.look_for


@pytest.mark.parametrize("served", [
    '(APIServer pid=7) INFO:     127.0.0.1:36936 - "POST /update_named_param/ HTTP/1.1" 200 OK',
    "INFO 07-13 20:32:08 [loggers.py:116] Avg prompt throughput: 12.5 tokens/s, Avg generation "
    "throughput: 40.1 tokens/s, Running: 1 reqs",
])
def test_unfinished_bar_after_the_run_served_is_a_log_read_mid_work(served: str) -> None:
    # b-v092-offline-generate-progress-bars: a server that generated batch after batch, its
    # committed log file read while the next batch's bar was being drawn
    result = infer(log(
        "INFO 11-01 23:16:33 distributed_gpu_executor.py:56] # GPU blocks: 185231, # CPU blocks: "
        "18724",
        served,
        "Processed prompts:   0%|          | 0/9 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, "
        "output: 0.00 toks/s]"))
    assert result.verdict is Verdict.NO_FAILURE


FINISHED_BARS = [
    "Downloading (…)okenizer_config.json: 100%|██████| 825/825 [00:00<00:00, 82.4kB/s]",
    "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.10it/s]",
    "(EngineCore_DP0 pid=9) Loading safetensors checkpoint shards: 100%|██████████| 2/2 [00:01<00:00]",
]
STARTING = [  # awq-turing-unsupported-v02-symptom-only (vllm#1282)
    "INFO 10-07 06:41:25 llm_engine.py:72] Initializing an LLM engine with config: model='m', "
    "tokenizer='t', dtype=torch.float16, quantization=awq, seed=0)",
]


@pytest.mark.parametrize("bar", FINISHED_BARS)
def test_finished_bar_that_ends_start_up_is_a_stall(bar: str) -> None:
    result = infer(log(*STARTING, bar))
    assert result.verdict is Verdict.ROOT_CAUSE_MISSING
    assert [s.line for s in result.symptoms] == [2]


@pytest.mark.parametrize("bar", FINISHED_BARS)
@pytest.mark.parametrize("ready", [
    "INFO 07-08 20:49:31 api_server.py:206] Starting vLLM API server on http://0.0.0.0:8000",
    "INFO:     Application startup complete.",
])
def test_finished_bar_after_start_up_completed_is_no_stall(bar: str, ready: str) -> None:
    assert infer(log(*STARTING, ready, bar)).verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("sized", [
    "INFO 06-01 11:35:40 gpu_executor.py:56] # GPU blocks: 2252, # CPU blocks: 1638",
    "(EngineCore_DP0 pid=9) INFO 08-01 20:59:30 [kv_cache_utils.py:1087] GPU KV cache size: "
    "401,232 tokens",
])
def test_an_offline_run_ending_on_its_finished_generate_bar_is_no_stall(sized: str) -> None:
    # an offline script (no server, so no readiness line) whose last output is its generate bar
    bar = ("Processed prompts: 100%|██████████| 9/9 [00:02<00:00,  3.91it/s, est. speed input: "
           "412.07 toks/s, output: 380.10 toks/s]")
    assert infer(log(*STARTING, sized, bar)).verdict is Verdict.NO_FAILURE


ENGINE_WAITS = [  # the API server while its engine core has not reported ready (DEBUG)
    "DEBUG 05-16 13:12:16 [core_client.py:425] Waiting for 1 core engine proc(s) to start: {0}",
    "(APIServer pid=1) DEBUG 08-09 20:55:10 [v1/engine/utils.py:1262] Waiting for 1 local, 0 "
    "remote core engine proc(s) to start.",
    "2025-05-16T13:12:16.645427617Z DEBUG 05-16 13:12:16 [core_client.py:425] Waiting for 2 core "
    "engine proc(s) to start: {0, 1}",
    "(APIServer pid=8) DEBUG 01-02 03:04:05 [utils.py:741] Waiting for 2 local, 2 remote core "
    "engine proc(s) to start.",
]
WORKERS_STARTED = [  # vllm#18260: the workers' last lines before the server's waits
    "(VllmWorker rank=0 pid=249) DEBUG 05-16 13:08:58 [parallel_state.py:867] world_size=8 rank=0 "
    "local_rank=0 distributed_init_method=tcp://127.0.0.1:39977 backend=nccl",
]


@pytest.mark.parametrize("wait", ENGINE_WAITS)
@pytest.mark.parametrize("times", [1, 3, 12])
def test_engine_core_waits_that_end_the_log_are_a_hang(wait: str, times: int) -> None:
    result = infer(log(*WORKERS_STARTED, *[wait] * times))
    assert result.verdict is Verdict.ROOT_CAUSE_MISSING
    assert [s.line for s in result.symptoms] == [2]
    assert f"printed {times} time(s)" in result.symptoms[0].message


@pytest.mark.parametrize("wait", ENGINE_WAITS)
def test_engine_core_waits_before_start_up_completed_are_no_hang(wait: str) -> None:
    ready = "(APIServer pid=1) INFO:     Application startup complete."
    assert infer(log(*WORKERS_STARTED, wait, wait, ready)).verdict is Verdict.NO_FAILURE


# ---- no failure -----------------------------------------------------------------------------------

NO_FAILURE = [
    # (id, log, lines of errors that were survived or belong to a shutdown)
    ("handled-error-records-then-serving", log(  # healthy-minimax-tp4-rocm-benign-error
        "(APIServer pid=103793) ERROR 03-08 20:37:09 [repo_utils.py:47] Error retrieving safetensors: "
        "Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
        "'/data0/huggingface/MiniMax-M2.5'. Use `repo_type` argument if needed., retrying 1 of 2",
        "(APIServer pid=103793) ERROR 03-08 20:37:11 [repo_utils.py:45] Error retrieving safetensors: "
        "Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
        "'/data0/huggingface/MiniMax-M2.5'. Use `repo_type` argument if needed.",
        "(APIServer pid=103793) INFO:     Application startup complete.",
        '(APIServer pid=103793) INFO:     172.18.0.2:39810 - "GET /metrics HTTP/1.1" 200 OK'), [1, 2]),
    ("handled-request-traceback-then-serving", log(  # uvicorn kind C (vllm#8194) while serving
        *SERVING[:3],
        "(APIServer pid=23283) ERROR:    Exception in ASGI application",
        "(APIServer pid=23283) Traceback (most recent call last):",
        "(APIServer pid=23283)   File \"/usr/local/lib/python3.10/dist-packages/uvicorn/protocols/http/"
        "httptools_impl.py\", line 401, in run_asgi",
        "(APIServer pid=23283)     result = await app(  # type: ignore[func-returns-value]",
        "(APIServer pid=23283) ValueError: Cannot use chat template functions because "
        "tokenizer.chat_template is not set and no template argument was passed!",
        '(APIServer pid=23283) INFO:     127.0.0.1:47294 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
        SERVING[3]), [8]),
    ("errors-after-sigterm", log(  # healthy-dgx-spark-sigterm-shutdown lines 489-510
        *SERVING,
        "(EngineCore pid=23397) INFO 08-01 21:34:51 [core.py:1214] [shutdown] EngineCore: trigger "
        "received signal=SIGTERM",
        "(APIServer pid=23283) INFO 08-01 21:34:51 [launcher.py:100] [shutdown] API server: shutdown "
        "triggered",
        "(APIServer pid=23283) ERROR 08-01 21:34:51 [async_llm.py:704] AsyncLLM output_handler failed.",
        "(APIServer pid=23283) ERROR 08-01 21:34:51 [async_llm.py:704] Traceback (most recent call "
        "last):",
        "(APIServer pid=23283) ERROR 08-01 21:34:51 [async_llm.py:704]   File \"/home/stefano/bench/"
        "venv-vllm/lib/python3.12/site-packages/vllm/v1/engine/core_client.py\", line 1061, in "
        "get_output_async",
        "(APIServer pid=23283) ERROR 08-01 21:34:51 [async_llm.py:704]     raise "
        "self._format_exception(outputs) from None",
        "(APIServer pid=23283) ERROR 08-01 21:34:51 [async_llm.py:704] "
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace "
        "(above) for the root cause.",
        "(APIServer pid=23283) INFO:     Shutting down",
        "(APIServer pid=23283) INFO:     Application shutdown complete."), [11]),
    ("warnings-only", log(  # healthy-dgx-spark-sigterm-shutdown and qwen3-30b, last lines
        "(APIServer pid=23283) Warning: You are sending unauthenticated requests to the HF Hub. Please "
        "set a HF_TOKEN to enable higher rate limits and faster downloads.",
        "[rank0]:[W301 17:37:32.701608294 ProcessGroupNCCL.cpp:1524] Warning: WARNING: "
        "destroy_process_group() was not called before program exit, which can leak resources.",
        "/home2/ycj/miniconda3/lib/python3.13/multiprocessing/resource_tracker.py:400: UserWarning: "
        "resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown",
        "  warnings.warn('resource_tracker: There appear to be %d '"), []),
]


@pytest.mark.parametrize(("log_text", "survived"), [(c[1], c[2]) for c in NO_FAILURE],
                         ids=[c[0] for c in NO_FAILURE])
def test_no_failure(log_text: str, survived: list[int]) -> None:
    result = infer(log_text)
    assert result.verdict is Verdict.NO_FAILURE, [e.text for e in result.symptoms]
    assert result.root_cause is None
    assert result.symptoms == ()
    assert sorted(e.line for e in result.survived) == survived


def test_handled_error_of_another_server_generation_is_not_survived() -> None:
    """Serving by a restarted server (new pids) does not make an earlier error harmless."""
    result = infer(log(*FREE_MEMORY_LOGGED, *FREE_MEMORY_API_SERVER, *SERVING))
    assert result.survived == ()
    assert result.verdict is Verdict.FAILURE


def test_one_native_crash_is_one_error() -> None:
    # Ray (research section 5, Ray core glog): absl's banner, Ray's copy through its C++ logger, then faulthandler
    text = "\n".join([
        "*** SIGSEGV received at time=1715675462 on cpu 12 ***",
        "PC: @     0x7f3c5f628350  (unknown)  (unknown)",
        "[2024-05-14 08:31:02,447 E 6120 6120] logging.cc:361: *** SIGSEGV received at "
        "time=1715675462 on cpu 12 ***",
        "Fatal Python error: Segmentation fault",
        "",
        "Stack (most recent call first):",
        '  File "/root/.conda/envs/py39/lib/python3.9/site-packages/torch/cuda/graphs.py", '
        "line 77 in capture_begin",
    ]) + "\n"
    report = logsleuth.explain_text(text)
    assert report.root_cause is not None
    assert report.root_cause.exception == "Fatal Python error"
    assert (report.root_cause.first_line, report.root_cause.line) == (1, 4)
    assert report.root_cause.frames[-1].function == "capture_begin"
