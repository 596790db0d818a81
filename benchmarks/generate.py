#!/usr/bin/env python3
"""Deterministic generator of large, realistic vLLM (V1, v0.16.0, TP=8) server logs.

    python benchmarks/generate.py --lines 1000000 --out /tmp/big.log [--seed 1] [--gzip]

The log is what `vllm serve /models/Llama-3.3-70B-Instruct --tensor-parallel-size 8 ... > log 2>&1`
writes: an (APIServer pid=P) front end, an (EngineCore_DP0 pid=P) engine core, eight
(Worker_TP0..7 pid=P) workers, unprefixed NCCL INFO lines, tqdm bars refreshed with bare `\\r`
inside one physical line, NewLineFormatter records whose continuation lines repeat the full
header and end in `\\r` (the `\\r\\n` break), then a long serving phase (uvicorn access lines,
`Engine 000:` metrics, /metrics scrapes, occasional handled 400 errors with a logged
ValueError traceback), and ONE real failure at about --fail-at (default 0.98) of the file:
Worker_TP3 raises torch.OutOfMemoryError in execute_model, the engine core dies
(`EngineCore encountered a fatal error.`, `Worker proc Worker_TP3 died unexpectedly`), the
API server logs EngineDeadError and shuts down.

What fills the rest of the file after the failure (--after):
  restart   (default) the supervisor (docker restart policy) starts a fresh server with new
            pids in the same log; it comes up healthy and serves until the file ends.
  shutdown  nothing: the failure is placed so that the shutdown lines end the file
            (the failure then sits at N - ~60 lines, whatever --fail-at says).

The 1-based line number of the planted `torch.OutOfMemoryError:` line is printed on stderr
and written to PATH.truth.json. Line numbers count `\\n` only (a `\\r\\n` ends one line; a bare
`\\r` inside a tqdm line does not). Output is streamed in big chunks (constant memory) and
depends only on --lines/--seed/--fail-at/--after: same arguments -> same bytes (gzip too:
its header mtime is fixed to 0).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import time

VERSION = "0.16.0"
MODEL = "/models/Llama-3.3-70B-Instruct"
SERVED = "llama-3.3-70b"
HOST = "gpu-node-12"
MAX_LEN = 4096
SITE = "/usr/local/lib/python3.12/dist-packages"
VL = SITE + "/vllm"
FLUSH_LINES = 1 << 16  # lines per write() call
FULL10 = "\u2588" * 10

OOM_MSG = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.19 GiB "
           "of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.97 GiB memory "
           "in use. Of the allocated memory 74.36 GiB is allocated by PyTorch, and 1.15 GiB is reserved "
           "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
           "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

ENGINE_CONFIG = (
    f"model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, "
    "tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, "
    f"dtype=torch.bfloat16, max_seq_len={MAX_LEN}, download_dir=None, load_format=auto, "
    "tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, "
    "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, "
    "enable_return_routed_experts=False, kv_cache_dtype=auto, device_config=cuda, "
    "structured_outputs_config=StructuredOutputsConfig(backend='auto', disable_fallback=False, "
    "disable_any_whitespace=False, disable_additional_properties=False, reasoning_parser='', "
    "reasoning_parser_plugin='', enable_in_reasoning=False), observability_config=ObservabilityConfig("
    "show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None, "
    "kv_cache_metrics=False, kv_cache_metrics_sample=0.01, cudagraph_metrics=False, "
    "enable_layerwise_nvtx_tracing=False, enable_mfu_metrics=False, enable_mm_processor_stats=False, "
    f"enable_logging_iteration_details=False), seed=0, served_model_name={SERVED}, "
    "enable_prefix_caching=True, enable_chunked_prefill=True, pooler_config=None, "
    "compilation_config={'level': None, 'mode': <CompilationMode.VLLM_COMPILE: 3>, "
    "'debug_dump_path': None, 'cache_dir': '', 'compile_cache_save_format': 'binary', "
    "'backend': 'inductor', 'custom_ops': ['none'], 'splitting_ops': ['vllm::unified_attention', "
    "'vllm::unified_attention_with_output', 'vllm::unified_mla_attention', "
    "'vllm::unified_mla_attention_with_output', 'vllm::mamba_mixer2', 'vllm::mamba_mixer', "
    "'vllm::short_conv', 'vllm::linear_attention', 'vllm::plamo2_mamba_mixer', "
    "'vllm::gdn_attention_core', 'vllm::kda_attention', 'vllm::sparse_attn_indexer'], "
    "'compile_mm_encoder': False, 'compile_sizes': [], 'compile_ranges_split_points': [8192], "
    "'inductor_compile_config': {'enable_auto_functionalized_v2': False, 'combo_kernels': True, "
    "'benchmark_combo_kernel': True}, 'inductor_passes': {}, "
    "'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'cudagraph_num_of_warmups': 1, "
    "'cudagraph_capture_sizes': [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, "
    "120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256, 272, "
    "288, 304, 320, 336, 352, 368, 384, 400, 416, 432, 448, 464, 480, 496, 512], "
    "'cudagraph_copy_inputs': False, 'cudagraph_specialize_lora': True, "
    "'use_inductor_graph_partition': False, 'pass_config': {'fuse_norm_quant': False, "
    "'fuse_act_quant': False, 'fuse_attn_quant': False, 'eliminate_noops': True, 'enable_sp': False, "
    "'fuse_gemm_comms': False, 'fuse_allreduce_rms': False, 'fuse_act_padding': False}, "
    "'max_cudagraph_capture_size': 512, 'dynamic_shapes_config': {'type': "
    "<DynamicShapesType.BACKED: 'backed'>, 'evaluate_guards': False, 'assume_32_bit_indexing': False}, "
    "'local_cache_dir': None, 'fast_moe_cold_start': True, 'static_all_moe_layers': []}")

NON_DEFAULT_ARGS = (
    f"{{'model_tag': '{MODEL}', 'api_server_count': 1, 'host': '0.0.0.0', 'port': 8000, "
    f"'model': '{MODEL}', 'max_model_len': {MAX_LEN}, 'served_model_name': ['{SERVED}'], "
    "'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.95, 'max_num_seqs': 256, "
    "'max_num_batched_tokens': 8192}")

ROUTES = [
    ("/openapi.json", "GET, HEAD"), ("/docs", "GET, HEAD"), ("/docs/oauth2-redirect", "GET, HEAD"),
    ("/redoc", "GET, HEAD"), ("/load", "GET"), ("/version", "GET"), ("/health", "GET"),
    ("/metrics", "GET"), ("/tokenize", "POST"), ("/detokenize", "POST"), ("/v1/models", "GET"),
    ("/ping", "GET"), ("/ping", "POST"), ("/invocations", "POST"), ("/v1/chat/completions", "POST"),
    ("/v1/responses", "POST"), ("/v1/responses/{response_id}", "GET"),
    ("/v1/responses/{response_id}/cancel", "POST"), ("/v1/completions", "POST"),
    ("/v1/messages", "POST"), ("/v1/audio/transcriptions", "POST"), ("/v1/audio/translations", "POST"),
    ("/scale_elastic_ep", "POST"), ("/is_scaling_elastic_ep", "POST"), ("/v1/score", "POST"),
    ("/v1/rerank", "POST"), ("/rerank", "POST"), ("/v2/rerank", "POST"), ("/pooling", "POST"),
]

LOGO = ["",
        "       \u2588     \u2588     \u2588\u2584   \u2584\u2588",
        f" \u2584\u2584 \u2584\u2588 \u2588     \u2588     \u2588 \u2580\u2584\u2580 \u2588  version {VERSION}",
        f"  \u2588\u2584\u2588\u2580 \u2588     \u2588     \u2588     \u2588  model   {MODEL}",
        "   \u2580\u2580  \u2580\u2580\u2580\u2580\u2580 \u2580\u2580\u2580\u2580\u2580 \u2580     \u2580",
        ""]


def tb_frames(frames):
    """[(path, lineno, func, src, caret_or_None)] -> traceback body lines."""
    out = []
    for path, no, fn, src, caret in frames:
        out.append(f'  File "{path}", line {no}, in {fn}')
        if src is not None:
            out.append("    " + src)
        if caret:
            out.append(caret)
    return out


def caret_under(src, start, width):
    return " " * (4 + start) + "^" * width


CTX_FRAMES = [
    (f"{VL}/entrypoints/openai/chat_completion/serving.py", 281, "create_chat_completion",
     "conversation, engine_prompts = await self._preprocess_chat(",
     "                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/entrypoints/openai/engine/serving.py", 1187, "_preprocess_chat",
     "engine_prompt = await self._tokenize_prompt_input_async(",
     "                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/entrypoints/openai/engine/serving.py", 1043, "_tokenize_prompt_input_async",
     "async for result in self._tokenize_prompt_inputs_async(", None),
    (f"{VL}/entrypoints/openai/engine/serving.py", 1064, "_tokenize_prompt_inputs_async",
     "yield await self._normalize_prompt_text_to_input(",
     "      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/entrypoints/openai/engine/serving.py", 937, "_normalize_prompt_text_to_input",
     "return self._validate_input(request, input_ids, input_text)",
     "       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/entrypoints/openai/engine/serving.py", 1016, "_validate_input", "raise ValueError(", None),
]
CTX_BODY = ["Error in preprocessing prompt inputs", "Traceback (most recent call last):"] + tb_frames(CTX_FRAMES)

OOM_FRAMES = [
    (f"{VL}/v1/executor/multiproc_executor.py", 871, "worker_busy_loop",
     "output = func(*args, **kwargs)", "             ^^^^^^^^^^^^^^^^^^^^^"),
    (f"{SITE}/torch/utils/_contextlib.py", 120, "decorate_context",
     "return func(*args, **kwargs)", "           ^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/v1/worker/gpu_worker.py", 629, "execute_model",
     "output = self.model_runner.execute_model(", "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{SITE}/torch/utils/_contextlib.py", 120, "decorate_context",
     "return func(*args, **kwargs)", "           ^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/v1/worker/gpu_model_runner.py", 3192, "execute_model",
     "model_output = self._model_forward(", "                   ^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/v1/worker/gpu_model_runner.py", 2901, "_model_forward",
     "return self.model(", "           ^^^^^^^^^^^"),
    (f"{VL}/compilation/cuda_graph.py", 171, "__call__",
     "return self.runnable(*args, **kwargs)", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{SITE}/torch/nn/modules/module.py", 1775, "_wrapped_call_impl",
     "return self._call_impl(*args, **kwargs)", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{SITE}/torch/nn/modules/module.py", 1786, "_call_impl",
     "return forward_call(*args, **kwargs)", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/model_executor/models/llama.py", 633, "forward",
     "model_output = self.model(", "                   ^^^^^^^^^^^"),
    (f"{VL}/compilation/decorators.py", 447, "__call__",
     "output = self.compiled_callable(*args, **kwargs)",
     "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{SITE}/torch/_dynamo/eval_frame.py", 929, "compile_wrapper",
     "return fn(*args, **kwargs)", "           ^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/model_executor/models/llama.py", 405, "forward", "def forward(", None),
    (f"{VL}/compilation/caching.py", 186, "__call__",
     "return self.optimized_call(*args, **kwargs)", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{SITE}/torch/fx/graph_module.py", 837, "call_wrapped",
     "return self._wrapped_call(self, *args, **kwargs)",
     "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    ("<eval_with_key>.162", 355, "forward",
     "submod_2 = self.submod_2(getitem_3, s72, l_self_modules_layers_modules_0_modules_mlp_"
     "modules_gate_up_proj_parameters_weight_, getitem_4);  getitem_3 = None", None),
    (f"{VL}/compilation/piecewise_backend.py", 178, "__call__",
     "return range_entry.runnable(*args)", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{SITE}/torch/_inductor/output_code.py", 613, "__call__",
     "return self.current_callable(inputs)", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    ("/root/.cache/vllm/torch_compile_cache/4b5e2c7a1d/rank_3_0/backbone/inductor_cache/x3/"
     "cx3qzk5m7wq4o2hvd6c3l2g7t5n3j4b2y6x7r5u3e4w2q1a9s8d7f6g.py", 1190, "call",
     "buf7 = empty_strided_cuda((s72, 7168), (7168, 1), torch.bfloat16)", None),
]

ENGINE_FATAL_FRAMES = [
    (f"{VL}/v1/engine/core.py", 937, "run_engine_core", "engine_core.run_busy_loop()", None),
    (f"{VL}/v1/engine/core.py", 964, "run_busy_loop", "self._process_engine_step()", None),
    (f"{VL}/v1/engine/core.py", 993, "_process_engine_step",
     "outputs, model_executed = self.step_fn()", "                              ^^^^^^^^^^^^^^"),
    (f"{VL}/v1/engine/core.py", 480, "step_with_batch_queue",
     "model_output = future.result()", "                   ^^^^^^^^^^^^^^^"),
    ("/usr/lib/python3.12/concurrent/futures/_base.py", 449, "result",
     "return self.__get_result()", "           ^^^^^^^^^^^^^^^^^^^"),
    ("/usr/lib/python3.12/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception", None),
    (f"{VL}/v1/executor/multiproc_executor.py", 84, "result", "return super().result()",
     "           ^^^^^^^^^^^^^^^^"),
    ("/usr/lib/python3.12/concurrent/futures/_base.py", 449, "result",
     "return self.__get_result()", "           ^^^^^^^^^^^^^^^^^^^"),
    ("/usr/lib/python3.12/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception", None),
    (f"{VL}/v1/executor/multiproc_executor.py", 90, "wait_for_response",
     "response = self.get_response()", "               ^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/v1/executor/multiproc_executor.py", 381, "get_response", "raise RuntimeError(", None),
]

API_DEAD_FRAMES = [
    (f"{VL}/v1/engine/async_llm.py", 652, "output_handler",
     "outputs = await engine_core.get_output_async()", "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    (f"{VL}/v1/engine/core_client.py", 902, "get_output_async",
     "raise self._format_exception(outputs) from None", None),
]


class Writer:
    """Buffers physical lines (without their final \\n) and writes them in big chunks."""

    __slots__ = ("f", "buf", "n")

    def __init__(self, f):
        self.f = f
        self.buf = []
        self.n = 0  # physical lines emitted so far

    def add(self, lines):
        self.buf.extend(lines)
        self.n += len(lines)
        if len(self.buf) >= FLUSH_LINES:
            self.flush()

    def flush(self):
        if self.buf:
            self.buf.append("")  # trailing \n
            self.f.write("\n".join(self.buf).encode("utf-8"))
            self.buf = []


class Clock:
    """Simulated wall clock; formats vLLM's `MM-DD HH:MM:SS` with a per-second cache."""

    __slots__ = ("t", "_sec", "_str")

    def __init__(self, t):
        self.t = t
        self._sec = -1
        self._str = ""

    def ts(self):
        s = int(self.t)
        if s != self._sec:
            self._sec = s
            self._str = time.strftime("%m-%d %H:%M:%S", time.gmtime(s))
        return self._str

    def nccl_ts(self):
        return time.strftime("%m%d %H:%M:%S", time.gmtime(int(self.t))) + f".{int(self.t * 1e6) % 1000000:06d}"


class Server:
    """One `vllm serve` run: pids, prefixes and line builders."""

    def __init__(self, rng: random.Random, clock: Clock, w: Writer):
        self.rng = rng
        self.clock = clock
        self.w = w
        api = rng.randrange(20000, 3000000)
        self.api_pid = api
        self.eng_pid = api + rng.randrange(180, 700)
        base = self.eng_pid + rng.randrange(30, 90)
        self.wk_pid = [base + i for i in range(8)]
        self.api = f"(APIServer pid={api}) "
        self.eng = f"(EngineCore_DP0 pid={self.eng_pid}) "
        self.wk = [f"(Worker_TP{i} pid={p}) " for i, p in enumerate(self.wk_pid)]

    # -- record builders -------------------------------------------------------------
    def rec(self, pfx, level, fileinfo, msg):
        """A one-line vLLM record."""
        return f"{pfx}{level} {self.clock.ts()} [{fileinfo}] {msg}"

    def mrec(self, pfx, level, fileinfo, lines):
        """A multi-line record, NewLineFormatter style: header on every line, `\\r\\n` breaks."""
        h = f"{pfx}{level} {self.clock.ts()} [{fileinfo}] "
        out = [h + ln + "\r" for ln in lines]
        out[-1] = out[-1][:-1]
        return out

    def tick(self, lo, hi):
        self.clock.t += self.rng.uniform(lo, hi)

    def nccl(self, rank, msg, tid=None):
        p = self.wk_pid[rank]
        return f"{HOST}:{p}:{tid or p} [{rank}] NCCL INFO {msg}"

    # -- startup ------------------------------------------------------------------------
    def startup(self):
        rng, w, api, eng, wk = self.rng, self.w, self.api, self.eng, self.wk
        R = self.rec
        w.add(self.mrec(api, "INFO", "utils.py:287", LOGO))
        w.add([R(api, "INFO", "utils.py:223", "non-default args: " + NON_DEFAULT_ARGS)])
        self.tick(0.5, 1.5)
        w.add([R(api, "INFO", "model.py:529", "Resolved architecture: LlamaForCausalLM"),
               R(api, "INFO", "model.py:1549", f"Using max model len {MAX_LEN}"),
               R(api, "INFO", "scheduler.py:224", "Chunked prefill is enabled with max_num_batched_tokens=8192."),
               R(api, "INFO", "vllm.py:689", "Asynchronous scheduling is enabled.")])
        self.tick(5, 12)
        w.add([R(eng, "INFO", "core.py:97", f"Initializing a V1 LLM engine (v{VERSION}) with config: " + ENGINE_CONFIG),
               R(eng, "WARNING", "multiproc_executor.py:921", "Reducing Torch parallelism from 104 threads to 1 to "
                 "avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this "
                 "value as needed."),
               R(eng, "INFO", "shm_broadcast.py:313", "vLLM message queue communication handle: Handle(local_reader_"
                 "ranks=[0, 1, 2, 3, 4, 5, 6, 7], buffer_handle=(8, 16777216, 10, 'psm_%08x'), local_subscribe_addr="
                 "'ipc:///tmp/%08x-%04x-4c6e-9a57-0c7d1f0b8f11', remote_subscribe_addr=None, remote_addr_ipv6=False)"
                 % (rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(16)))])
        self.tick(6, 12)
        port = rng.randrange(30000, 60000)
        order = list(range(8))
        rng.shuffle(order)
        w.add([R(wk[r], "INFO", "parallel_state.py:1234", f"world_size=8 rank={r} local_rank={r} "
                 f"distributed_init_method=tcp://127.0.0.1:{port} backend=nccl") for r in order])
        # NCCL init, unprefixed C output, interleaved across ranks
        comm = f"0x{rng.getrandbits(64):016x}"
        nl = []
        for r in range(8):
            p = self.wk_pid[r]
            ip = f"10.0.3.{12}"
            seq = [self.nccl(r, f"Bootstrap: Using eth0:{ip}<0>"),
                   self.nccl(r, "cudaDriverVersion 12080")]
            if r == 0:
                seq.append(self.nccl(r, "NCCL version 2.27.5+cuda12.9"))
            seq += [self.nccl(r, "NET/Plugin: Could not find: libnccl-net.so."),
                    self.nccl(r, "Failed to open libibverbs.so[.1]"),
                    self.nccl(r, f"NET/Socket : Using [0]eth0:{ip}<0>"),
                    self.nccl(r, "Using network Socket"),
                    self.nccl(r, f"ncclCommInitRank comm 0x{rng.getrandbits(40):x} rank {r} nranks 8 cudaDev {r} "
                                 f"nvmlDev {r} busId {0x18 + 0x11 * r:x}000 commId {comm} - Init START"),
                    self.nccl(r, "NVLS multicast support is available on dev %d (NVLS_NCHANNELS 16)" % r),
                    self.nccl(r, f"comm 0x{rng.getrandbits(40):x} rank {r} nRanks 8 nNodes 1 localRanks 8 "
                                 f"localRank {r} MNNVL 0")]
            if r == 0:
                seq += [self.nccl(0, "Channel %02d/24 :    0   1   2   3   4   5   6   7" % c) for c in range(24)]
            tid = p + rng.randrange(90, 200)
            seq += [self.nccl(r, f"Channel {c:02d}/0 : {r}[{r}] -> {(r + 1) % 8}[{(r + 1) % 8}] via P2P/CUMEM/read",
                              tid) for c in range(16)]
            seq += [self.nccl(r, "Connected all rings, use ring PXN 0 GDR 1", tid),
                    self.nccl(r, "Connected NVLS", tid),
                    self.nccl(r, "threadThresholds 8/8/64 | 64/8/64 | 512 | 512"),
                    self.nccl(r, "24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, "
                                 "32 p2p channels per peer"),
                    self.nccl(r, f"ncclCommInitRank comm 0x{rng.getrandbits(40):x} rank {r} nranks 8 cudaDev {r} "
                                 f"nvmlDev {r} busId {0x18 + 0x11 * r:x}000 commId {comm} - Init COMPLETE"),
                    self.nccl(r, "Init timings - ncclCommInitRank: rank %d nranks 8 total %.2f (kernels 0.18, "
                                 "alloc 0.02, bootstrap 0.01, allgathers 0.05, topo 0.17, graphs 0.01, connections "
                                 "0.08, rest 0.00)" % (r, rng.uniform(0.4, 0.9)))]
            nl.append(seq)
        # interleave the 8 sequences
        idx = [0] * 8
        merged = []
        while True:
            live = [r for r in range(8) if idx[r] < len(nl[r])]
            if not live:
                break
            r = rng.choice(live)
            k = rng.randrange(1, 5)
            merged.extend(nl[r][idx[r]:idx[r] + k])
            idx[r] += k
        w.add(merged)
        self.tick(1, 3)
        w.add([R(wk[0], "INFO", "pynccl.py:111", "vLLM is using nccl==2.27.5")])
        rng.shuffle(order)
        w.add([R(wk[r], "INFO", "custom_all_reduce.py:144", "Custom allreduce is enabled with NVLink") for r in order])
        rng.shuffle(order)
        w.add([R(wk[r], "INFO", "parallel_state.py:1445", f"rank {r} in world size 8 is assigned as DP rank 0, "
                 f"PP rank 0, PCP rank 0, TP rank {r}, EP rank {r}") for r in order])
        self.tick(1, 2)
        rng.shuffle(order)
        for r in order:
            w.add([R(wk[r], "INFO", "gpu_model_runner.py:4124", f"Starting to load model {MODEL}..."),
                   R(wk[r], "INFO", "cuda.py:416", "Using FLASH_ATTN attention backend out of potential backends: "
                     "['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']."),
                   R(wk[r], "INFO", "flash_attn.py:587", "Using FlashAttention version 3")])
        # tqdm: one physical line, refreshed with bare \r, prefix only at its start
        nsh = 30
        segs = ["Loading safetensors checkpoint shards:   0% Completed | 0/30 [00:00<?, ?it/s]"]
        el = 0.0
        for i in range(1, nsh + 1):
            el += rng.uniform(0.9, 1.4)
            rate = el / i
            eta = rate * (nsh - i)
            segs.append("Loading safetensors checkpoint shards: %3d%% Completed | %d/%d [%02d:%02d<%02d:%02d, %5.2fs/it]"
                        % (i * 100 // nsh, i, nsh, el // 60, el % 60, eta // 60, eta % 60, rate))
        segs.append(segs[-1])
        self.clock.t += el
        w.add([wk[0] + "\r" + "\r".join(segs), wk[0]])
        rng.shuffle(order)
        for r in order:
            w.add([R(wk[r], "INFO", "default_loader.py:293", "Loading weights took %.2f seconds" % (el + rng.random())),
                   R(wk[r], "INFO", "gpu_model_runner.py:4221", "Model loading took 16.43 GiB memory and %.6f seconds"
                     % (el + 2 + rng.random()))])
        self.tick(2, 4)
        rng.shuffle(order)
        for r in order:
            w.add([R(wk[r], "INFO", "backends.py:1089", "Using cache directory: /root/.cache/vllm/torch_compile_cache/"
                     f"4b5e2c7a1d/rank_{r}_0/backbone for vLLM's torch.compile"),
                   R(wk[r], "INFO", "backends.py:1148", "Dynamo bytecode transform time: %.2f s" % rng.uniform(5, 8))])
        self.tick(8, 20)
        rng.shuffle(order)
        for r in order:
            w.add([R(wk[r], "INFO", "backends.py:292", "Directly load the compiled graph(s) for compile range "
                     "(1, 8192) from the cache, took %.3f s" % rng.uniform(0.8, 1.6)),
                   R(wk[r], "INFO", "monitor.py:53", "torch.compile took %.2f s in total" % rng.uniform(7, 10))])
        self.tick(4, 8)
        rng.shuffle(order)
        for r in order:
            w.add([R(wk[r], "INFO", "gpu_worker.py:373", "Available KV cache memory: %.2f GiB" % rng.uniform(55.3, 55.5))])
        w.add([R(eng, "INFO", "kv_cache_utils.py:1307", "GPU KV cache size: 1,451,648 tokens"),
               R(eng, "INFO", "kv_cache_utils.py:1312", "Maximum concurrency for 4,096 tokens per request: 354.41x")])
        rng.shuffle(order)
        w.add([R(wk[r], "WARNING", "topk_topp_sampler.py:81", "FlashInfer is not available. Falling back to the "
                 "PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install "
                 "FlashInfer.") for r in order])
        for desc, n in (("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE)", 51), ("Capturing CUDA graphs (decode, FULL)", 35)):
            segs = []
            el = 0.0
            for i in range(0, n + 1, max(1, n // 12)):
                el = i * 0.085
                bar = "\u2588" * (i * 10 // n) + " " * (10 - i * 10 // n)
                rate = "?it/s" if i == 0 else "%5.2fit/s" % (i / el)
                eta = "?" if i == 0 else "00:%02d" % ((n - i) * 0.085)
                segs.append(f"{desc}: {i * 100 // n:3d}%|{bar}| {i}/{n} [00:{int(el):02d}<{eta}, {rate}]")
            segs.append(f"{desc}: 100%|{FULL10}| {n}/{n} [00:{int(n * 0.085):02d}<00:00, {1 / 0.085:5.2f}it/s]")
            w.add([wk[0] + "\r" + "\r".join(segs)])
            self.tick(4, 6)
        rng.shuffle(order)
        w.add([R(wk[r], "INFO", "custom_all_reduce.py:216", "Registering %d cuda graph addresses" % 8232) for r in order])
        rng.shuffle(order)
        w.add([R(wk[r], "INFO", "gpu_model_runner.py:4982", "Graph capturing finished in %d secs, took 1.12 GiB"
                 % rng.randrange(9, 12)) for r in order])
        w.add([R(eng, "INFO", "core.py:278", "init engine (profile, create kv cache, warmup model) took %.2f seconds"
                 % rng.uniform(60, 90)),
               R(eng, "INFO", "vllm.py:689", "Asynchronous scheduling is enabled.")])
        self.tick(0.5, 1)
        w.add([R(api, "INFO", "api_server.py:481", "Supported tasks: ['generate']"),
               R(api, "WARNING", "model.py:1350", "Default vLLM sampling parameters have been overridden by the "
                 "model's `generation_config.json`: `{'temperature': 0.6, 'top_p': 0.9}`. If this is not intended, "
                 "please relaunch vLLM instance with `--generation-config vllm`."),
               R(api, "INFO", "serving.py:188", "Warming up chat template processing..."),
               R(api, "INFO", "hf.py:318", "Detected the chat template content format to be 'string'. You can set "
                 "`--chat-template-content-format` to override this."),
               R(api, "INFO", "serving.py:213", "Chat template warmup completed in %.1fms" % rng.uniform(200, 400)),
               R(api, "INFO", "api_server.py:486", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
               R(api, "INFO", "launcher.py:38", "Available routes are:")])
        w.add([R(api, "INFO", "launcher.py:47", f"Route: {p}, Methods: {m}") for p, m in ROUTES])
        w.add([f"{api}INFO:     Started server process [{self.api_pid}]",
               f"{api}INFO:     Waiting for application startup.",
               f"{api}INFO:     Application startup complete."])

    # -- serving ------------------------------------------------------------------------
    def serve(self, until):
        """Emit serving-phase lines until exactly `until` lines have been written."""
        rng, w, clock = self.rng, self.w, self.clock
        rand = rng.random
        bits = rng.getrandbits
        api = self.api
        acc_chat = api + 'INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK'
        acc_cmpl = api + 'INFO:     127.0.0.1:%d - "POST /v1/completions HTTP/1.1" 200 OK'
        acc_models = api + 'INFO:     127.0.0.1:%d - "GET /v1/models HTTP/1.1" 200 OK'
        scrape = api + 'INFO:     10.0.3.7:%d - "GET /metrics HTTP/1.1" 200 OK'
        health = api + 'INFO:     10.0.3.1:%d - "GET /health HTTP/1.1" 200 OK'
        bad = api + 'INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request'
        met_h = api + "INFO %s [loggers.py:259] "
        met = ("Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, "
               "Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%")
        warn_h = api + "WARNING %s [protocol.py:117] "
        warn = "The following fields were present in the request but ignored: {'metadata'}"
        scrape_port = 40000 + bits(12)
        prefix_hit = 40.0
        buf = []
        n = w.n
        while True:
            clock.t += 10.0 + rand() * 0.02
            ts = clock.ts()
            k = int(rand() * rand() * 8)  # requests finishing in this 10 s interval, mean ~1.6
            for _ in range(k):
                x = rand()
                if x < 0.90:
                    buf.append(acc_chat % (32768 + bits(15)))
                elif x < 0.985:
                    buf.append(acc_cmpl % (32768 + bits(15)))
                elif x < 0.99:
                    buf.append(warn_h % ts + warn)
                else:
                    buf.append(acc_models % (32768 + bits(15)))
            if rand() < 0.33:  # Prometheus scrape every 30 s
                buf.append(scrape % scrape_port)
            if rand() < 0.05:
                buf.append(health % (32768 + bits(15)))
            if k or rand() < 0.93:  # logged whenever requests are running (long generations)
                prefix_hit += (rand() - 0.5)
                prefix_hit = min(max(prefix_hit, 5.0), 95.0)
                run = 1 + int(rand() * 14)
                buf.append(met_h % ts + met % (rand() * 3000.0, 60.0 + rand() * 900.0, run, int(rand() * rand() * 4),
                                               run * (0.5 + rand()), prefix_hit))
            if rand() < 0.0009:  # a handled request error: logged traceback, 400, server keeps serving
                req = 4097 + int(rand() * 6000)
                comp = 256 + int(rand() * 2048)
                body = CTX_BODY + [
                    f"ValueError: This model's maximum context length is {MAX_LEN} tokens. However, you requested "
                    f"{req + comp} tokens ({req} in the messages, {comp} in the completion). Please reduce the length "
                    f"of the messages or completion."]
                buf.extend(self.mrec(api, "ERROR", "serving.py:296", body))
                buf.append(bad % (32768 + bits(15)))
            if n + len(buf) >= until:
                break
            if len(buf) >= 4096:
                n += len(buf)
                w.add(buf)
                buf = []
        keep = until - n
        if len(buf) > keep:
            # cut at a record boundary (never inside a \r\n-continued record), then pad
            cut = keep
            while cut > 0 and buf[cut - 1].endswith("\r"):
                cut -= 1
            buf = buf[:cut]
            while len(buf) < keep:
                buf.append(acc_chat % (32768 + bits(15)))
        w.add(buf)

    # -- the failure ----------------------------------------------------------------------
    def failure(self):
        """Append the failure cascade; return the 1-based line number of the OOM line."""
        rng, w = self.rng, self.w
        api, eng, wk = self.api, self.eng, self.wk
        acc = api + 'INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK'
        R = self.rec
        self.tick(1, 5)
        w.add([acc % (32768 + rng.getrandbits(15)), acc % (32768 + rng.getrandbits(15))])
        self.tick(0.2, 0.8)
        body = ["WorkerProc hit an exception.", "Traceback (most recent call last):"] + tb_frames(OOM_FRAMES) + \
               ["torch.OutOfMemoryError: " + OOM_MSG]
        lines = self.mrec(wk[3], "ERROR", "multiproc_executor.py:876", body)
        # stdout of several processes shares one file: an access line lands inside the record
        cut = len(lines) // 2
        block = lines[:cut] + [acc % (32768 + rng.getrandbits(15))] + lines[cut:]
        oom_line = w.n + len(block)  # last line of the block, 1-based
        w.add(block)
        self.tick(0.01, 0.1)
        ebody = ["EngineCore encountered a fatal error.", "Traceback (most recent call last):"] + \
            tb_frames(ENGINE_FATAL_FRAMES) + [
                "RuntimeError: Worker failed with error '" + OOM_MSG + "', please check the stack trace above for "
                "the root cause"]
        w.add(self.mrec(eng, "ERROR", "core.py:946", ebody))
        w.add([R(eng, "ERROR", "multiproc_executor.py:231", "Worker proc Worker_TP3 died unexpectedly, shutting down executor.")])
        abody = ["AsyncLLM output_handler failed.", "Traceback (most recent call last):"] + \
            tb_frames(API_DEAD_FRAMES) + [
                "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace "
                "(above) for the root cause."]
        w.add(self.mrec(api, "ERROR", "async_llm.py:693", abody))
        order = [r for r in range(8) if r != 3]
        rng.shuffle(order)
        w.add([R(wk[r], "INFO", "multiproc_executor.py:709", "Parent process exited, terminating worker") for r in order])
        err500 = api + 'INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'
        w.add([err500 % (32768 + rng.getrandbits(15)) for _ in range(3)])
        self.tick(0.5, 1.5)
        ts = self.clock.nccl_ts()[:4]
        hms = self.clock.ts()[6:]
        w.add([R(api, "INFO", "launcher.py:149", "Shutting down FastAPI HTTP server."),
               f"{api}INFO:     Shutting down",
               f"{api}INFO:     Waiting for application shutdown.",
               f"{api}INFO:     Application shutdown complete.",
               f"{api}INFO:     Finished server process [{self.api_pid}]",
               f"[rank0]:[W{ts} {hms}.{rng.randrange(10**9):09d} ProcessGroupNCCL.cpp:1538] Warning: WARNING: "
               "destroy_process_group() was not called before program exit, which can leak resources. For more "
               "info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())",
               "/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There "
               "appear to be 1 leaked shared_memory objects to clean up at shutdown",
               "  warnings.warn('resource_tracker: There appear to be %d '"])
        return oom_line


FAILURE_PREAMBLE = 2  # access lines written by failure() before the Worker_TP3 record


def failure_len():
    """(lines written by Server.failure(), offset of the OOM line within them), from a dry run."""

    class _Null:
        def write(self, b):
            pass

    w = Writer(_Null())
    s = Server(random.Random(0), Clock(1e9), w)
    oom = s.failure()
    return w.n, oom


def startup_len():
    class _Null:
        def write(self, b):
            pass

    w = Writer(_Null())
    Server(random.Random(0), Clock(1e9), w).startup()
    return w.n


def generate(n_lines, out, seed=0, gz=False, fail_at=0.98, after="restart", gzip_level=6):
    rng = random.Random(seed)
    flen, foom = failure_len()
    slen = startup_len()
    fail_start = max(n_lines - flen, slen)  # "shutdown": the cascade ends the file
    if after == "restart":
        # room is needed after the cascade for the restarted server's startup
        oom_target = min(int(round(n_lines * fail_at)), n_lines - (flen - foom) - slen - 10)
        if oom_target - foom >= slen:
            fail_start = oom_target - foom  # lines before failure()
        else:
            after = "shutdown"  # file too small for a restart
    # Jan 5 .. ; vLLM prints no year
    clock = Clock(1767571200 + rng.randrange(0, 86400 * 30) + 9 * 3600)
    raw = open(out, "wb")
    f = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=gzip_level, mtime=0) if gz else raw
    try:
        w = Writer(f)
        s = Server(rng, clock, w)
        s.startup()
        s.serve(fail_start)
        oom_line = s.failure()
        if after == "restart":
            clock.t += rng.uniform(20, 40)
            s2 = Server(rng, clock, w)
            s2.startup()
            if w.n < n_lines:
                s2.serve(n_lines)
        w.flush()
        total = w.n
    finally:
        if gz:
            f.close()
        raw.close()
    return oom_line, total, after


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, required=True, help="number of physical lines (\\n) to write")
    ap.add_argument("--out", required=True, help="output path (written as is, also with --gzip)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gzip", action="store_true", help="gzip-compress the output (deterministic header)")
    ap.add_argument("--gzip-level", type=int, default=6)
    ap.add_argument("--fail-at", type=float, default=0.98, help="position of the root cause, fraction of --lines")
    ap.add_argument("--after", choices=("restart", "shutdown"), default="restart",
                    help="what follows the failure's shutdown lines (see the module docstring)")
    ap.add_argument("--mix", default=None,
                    help="write one of the mixes of mixes.py instead (healthy, restart, errors, crashloop, "
                         "debug, procs64, longlines); --gzip, --fail-at and --after do not apply")
    a = ap.parse_args(argv)
    if a.mix:
        return _main_mix(a)
    t0 = time.perf_counter()
    oom_line, total, after = generate(a.lines, a.out, a.seed, a.gzip, a.fail_at, a.after, a.gzip_level)
    dt = time.perf_counter() - t0
    truth = {"line": oom_line, "exception": "torch.OutOfMemoryError", "process": "Worker_TP3",
             "message_contains": "CUDA out of memory. Tried to allocate 2.00 GiB",
             "lines": total, "seed": a.seed, "after": after, "gzip": a.gzip}
    with open(a.out + ".truth.json", "w") as fh:
        json.dump(truth, fh)
        fh.write("\n")
    size = os.path.getsize(a.out)
    print(oom_line, file=sys.stderr)
    print(f"# wrote {total} lines, {size / 1e6:.1f} MB to {a.out} in {dt:.1f}s; root cause "
          f"torch.OutOfMemoryError (Worker_TP3) at line {oom_line}", file=sys.stderr)
    if total != a.lines:
        print(f"# note: asked for {a.lines} lines; the fixed startup/failure blocks need more", file=sys.stderr)


def _main_mix(a):
    from mixes import generate_mix  # noqa: PLC0415 (mixes imports this module)
    t0 = time.perf_counter()
    truth = generate_mix(a.mix, a.lines, a.out, a.seed)
    with open(a.out + ".truth.json", "w") as fh:
        json.dump(truth, fh)
        fh.write("\n")
    print(truth["line"], file=sys.stderr)
    print(f"# wrote {truth['lines']} lines ({a.mix}), {os.path.getsize(a.out) / 1e6:.1f} MB to {a.out} in "
          f"{time.perf_counter() - t0:.1f}s; root cause {truth['exception']} at line {truth['line']}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
