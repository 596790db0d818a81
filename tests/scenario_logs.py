"""Small realistic vLLM logs built from real line shapes, for the causal scenarios and properties.

Shapes follow the corpus (tests/fixtures/corpus) and shared/research/vllm-log-format.md: a V1
server (API server, engine core, tensor-parallel workers) starting, serving, failing at run time
or at start-up, shutting down on SIGTERM. Every function returns lines without newlines.
"""

from __future__ import annotations

SITE = "/usr/local/lib/python3.12/dist-packages/vllm"


class Server:
    """One V1 deployment: its pids and a clock that advances one second per call."""

    def __init__(self, api: int = 2800, engine: int = 2900, workers: int = 2, day: str = "08-01"):
        self.api, self.engine = api, engine
        self.workers = [engine + 100 + i for i in range(workers)]
        self.day = day
        self.second = 0

    def time(self) -> str:
        self.second += 1
        hours, rest = divmod(self.second, 3600)
        return f"{self.day} {20 + hours % 4:02d}:{rest // 60:02d}:{rest % 60:02d}"

    def api_line(self, level: str, site: str, text: str) -> str:
        return f"(APIServer pid={self.api}) {level} {self.time()} [{site}] {text}"

    def engine_line(self, level: str, site: str, text: str) -> str:
        return f"(EngineCore_DP0 pid={self.engine}) {level} {self.time()} [{site}] {text}"

    def worker_line(self, rank: int, level: str, site: str, text: str) -> str:
        return f"(Worker_TP{rank} pid={self.workers[rank]}) {level} {self.time()} [{site}] {text}"

    # ---- lifecycle ------------------------------------------------------------------------------
    def startup(self) -> list[str]:
        lines = [
            self.api_line("INFO", "utils.py:253", "vLLM API server version 0.11.0"),
            self.api_line("INFO", "utils.py:254", "non-default args: {'model_tag': 'Qwen/Qwen3-8B', "
                          f"'tensor_parallel_size': {len(self.workers)}}}"),
            self.engine_line("INFO", "core.py:77", "Initializing a V1 LLM engine (v0.11.0) with "
                             "config: model='Qwen/Qwen3-8B', tensor_parallel_size="
                             f"{len(self.workers)}"),
        ]
        for rank in range(len(self.workers)):
            lines.append(self.worker_line(rank, "INFO", "gpu_model_runner.py:2653",
                                          "Model loading took 8.2 GiB and 12.3 seconds"))
        lines += [
            self.engine_line("INFO", "kv_cache_utils.py:1087", "GPU KV cache size: 401,232 tokens"),
            self.api_line("INFO", "api_server.py:1971", "Starting vLLM API server 0 on "
                          "http://0.0.0.0:8000"),
            f"(APIServer pid={self.api}) INFO:     Started server process [{self.api}]",
            f"(APIServer pid={self.api}) INFO:     Application startup complete.",
        ]
        return lines

    def requests(self, count: int, port: int = 40000) -> list[str]:
        lines: list[str] = []
        for i in range(count):
            lines.append(f'(APIServer pid={self.api}) INFO:     127.0.0.1:{port + i % 20000} - '
                         '"POST /v1/chat/completions HTTP/1.1" 200 OK')
            if i % 10 == 9:
                lines.append(self.api_line(
                    "INFO", "loggers.py:123", "Engine 000: Avg prompt throughput: 412.3 tokens/s, "
                    "Avg generation throughput: 88.0 tokens/s, Running: 4 reqs, Waiting: 0 reqs, "
                    "GPU KV cache usage: 3.1%, Prefix cache hit rate: 41.2%"))
        return lines

    def polls(self, count: int) -> list[str]:
        return [f'(APIServer pid={self.api}) INFO:     10.0.0.7:51000 - "GET /metrics HTTP/1.1" '
                "200 OK" for _ in range(count)]

    def failed_requests(self, count: int) -> list[str]:
        return [f'(APIServer pid={self.api}) INFO:     127.0.0.1:50994 - "POST /v1/chat/'
                'completions HTTP/1.1" 500 Internal Server Error' for _ in range(count)]

    def sigterm(self) -> list[str]:
        return [
            self.engine_line("INFO", "core.py:1214", "[shutdown] EngineCore: trigger received "
                             "signal=SIGTERM"),
            self.api_line("INFO", "launcher.py:100", "[shutdown] API server: shutdown triggered"),
            f"(APIServer pid={self.api}) INFO:     Shutting down",
            f"(APIServer pid={self.api}) INFO:     Application shutdown complete.",
        ]

    # ---- errors ---------------------------------------------------------------------------------
    def _logged(self, prefix: str, level_site: str, title: str, frames: list[tuple[str, int, str,
                str]], error: list[str]) -> list[str]:
        head = f"{prefix} ERROR {self.time()} [{level_site}] "
        lines = [head + title, head + "Traceback (most recent call last):"]
        for file, number, function, code in frames:
            lines.append(f'{head}  File "{SITE}/{file}", line {number}, in {function}')
            lines.append(f"{head}    {code}")
        return lines + [head + text for text in error]

    def request_error(self) -> list[str]:
        """A request the API server rejects with a logged traceback, then answers 400."""
        return self._logged(
            f"(APIServer pid={self.api})", "serving_chat.py:222",
            "Error in preprocessing prompt inputs",
            [("entrypoints/openai/serving_chat.py", 206, "create_chat_completion",
              ") = await self._preprocess_chat("),
             ("entrypoints/openai/serving_engine.py", 801, "_validate_input",
              "raise ValueError(")],
            ["ValueError: This model's maximum context length is 4096 tokens. However, you "
             "requested 5000 tokens in the messages, Please reduce the length of the messages."],
        ) + [f'(APIServer pid={self.api}) INFO:     127.0.0.1:50990 - "POST /v1/chat/completions '
             'HTTP/1.1" 400 Bad Request']

    def worker_kv_fetch_error(self, rank: int = 1) -> list[str]:
        """A worker that logs a failed KV transfer and carries on (the request is retried)."""
        return self._logged(
            f"(Worker_TP{rank} pid={self.workers[rank]})", "nixl_connector.py:1024",
            "Failed to fetch KV blocks from the remote engine; retrying",
            [("distributed/kv_transfer/kv_connector/v1/nixl_connector.py", 1018, "_read_blocks",
              "handle = self.nixl_wrapper.make_prepped_xfer(")],
            ["TimeoutError: NIXL transfer did not complete within 30 s"])

    def worker_benign_startup_error(self, rank: int = 1) -> list[str]:
        return [self.worker_line(rank, "ERROR", "repo_utils.py:47", "Error retrieving safetensors: "
                                 "Repo id must be in the form 'repo_name' or 'namespace/repo_name':"
                                 " '/models/qwen3-8b'. Use `repo_type` argument if needed.")]

    def worker_runtime_error(self, rank: int, error: list[str]) -> list[str]:
        """A worker's exception during a step (multiproc_executor's busy loop)."""
        return self._logged(
            f"(Worker_TP{rank} pid={self.workers[rank]})", "multiproc_executor.py:654",
            "WorkerProc hit an exception.",
            [("v1/executor/multiproc_executor.py", 649, "worker_busy_loop",
              "output = func(*args, **kwargs)"),
             ("v1/worker/gpu_model_runner.py", 1620, "execute_model",
              "valid_sampled_token_ids = sampled_token_ids.tolist()")], error)

    def engine_wrapper(self, quoted: list[str]) -> list[str]:
        """The engine core's report that a worker failed, quoting str(e)."""
        quote = list(quoted)
        quote[0] = "RuntimeError: Worker failed with error '" + quote[0]
        quote[-1] += "', please check the stack trace above for the root cause"
        return self._logged(
            f"(EngineCore_DP0 pid={self.engine})", "core.py:710",
            "EngineCore encountered a fatal error.",
            [("v1/engine/core.py", 701, "run_engine_core", "engine_core.run_busy_loop()"),
             ("v1/executor/multiproc_executor.py", 243, "get_response", "raise RuntimeError(")],
            quote)

    def engine_error(self, error: list[str]) -> list[str]:
        """An exception raised in the engine core itself during a step."""
        return self._logged(
            f"(EngineCore_DP0 pid={self.engine})", "core.py:710",
            "EngineCore encountered a fatal error.",
            [("v1/engine/core.py", 701, "run_engine_core", "engine_core.run_busy_loop()"),
             ("v1/core/sched/scheduler.py", 880, "update_from_output",
              "new_token_ids = generated_token_ids.tolist()")], error)

    def engine_dead(self) -> list[str]:
        return self._logged(
            f"(APIServer pid={self.api})", "async_llm.py:480", "AsyncLLM output_handler failed.",
            [("v1/engine/async_llm.py", 439, "output_handler",
              "outputs = await engine_core.get_output_async()"),
             ("v1/engine/core_client.py", 846, "get_output_async",
              "raise self._format_exception(outputs) from None")],
            ["vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See "
             "stack trace (above) for the root cause."])

    def free_memory_startup_failure(self) -> list[str]:
        """free-memory-less-than-utilization: the engine core fails at start-up."""
        return self._logged(
            f"(EngineCore_DP0 pid={self.engine})", "core.py:718", "EngineCore failed to start.",
            [("v1/worker/gpu_worker.py", 180, "init_device", "raise ValueError(")],
            ["ValueError: Free memory on device (3.22/4.0 GiB) on startup is less than desired "
             "GPU memory utilization (0.9, 3.6 GiB). Decrease GPU memory utilization or reduce "
             "GPU memory used by other processes."],
        ) + [
            f"(APIServer pid={self.api}) Traceback (most recent call last):",
            f'(APIServer pid={self.api})   File "{SITE}/v1/engine/utils.py", line 1193, in '
            "wait_for_engine_startup",
            f"(APIServer pid={self.api})     raise RuntimeError(",
            f"(APIServer pid={self.api}) RuntimeError: Engine core initialization failed. See "
            "root cause above. Failed core proc(s): {}",
        ]


ILLEGAL_ACCESS = [
    "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
]
OUT_OF_VOCAB = ["ValueError: Token id 151937 is out of vocabulary (size 151936)"]
