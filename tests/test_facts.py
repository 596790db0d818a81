"""Facts from real vLLM lines of each era, requested vs effective settings, and facts conditions
in signatures (version ranges, compute capability, soft conditions)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from logsleuth.facts import (FactCollector, RecordFormat, folded_literal, fact_table, parse_record,
                             split_top_level)
from logsleuth.knowledge import UNTIMED_CHARS
from logsleuth.model import ConfigDifference
from logsleuth.pipeline import explain, explain_text
from logsleuth.signatures import load_signatures
from logsleuth.signatures.match import fact_holds, judge_fact, version_key
from logsleuth.tokenize import parse_line

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"


def facts_of(*lines: str) -> dict[str, object]:
    collector = FactCollector()
    for number, text in enumerate(lines, 1):
        collector.look(parse_line(text, number))
    return collector.result()


# ---- single lines, by era ------------------------------------------------------------------------

# (real line, where it comes from, expected facts)
LINES = [
    # vLLM API server version, no-bracket era (2024) and bracket era (2025)
    ("INFO 11-15 01:06:10 api_server.py:528] vLLM API server version 0.6.3.post1",
     {"vllm_version": "0.6.3.post1"}),  # vLLM 0.6.3.post1 api_server.py:528
    ("INFO 07-15 08:50:04 [api_server.py:1395] vLLM API server version 0.9.2",
     {"vllm_version": "0.9.2"}),  # corpus ascend-310p
    ("\x1b[0;36m(APIServer pid=523647)\x1b[0;0m INFO 04-27 15:04:49 [api_server.py:1772] vLLM API "
     "server version 0.12.0", {"vllm_version": "0.12.0"}),  # corpus qwen3-30b
    # the multi-line logo (2026+)
    ("(APIServer pid=23283) INFO 08-01 20:59:09 [api_utils.py:339]  ▄▄ ▄█ █     █     █ ▀▄▀ █  "
     "version 0.25.1", {"vllm_version": "0.25.1"}),  # corpus healthy-dgx-spark
    ("(APIServer pid=8707) INFO 08-19 18:30:11 [api_utils.py:345]   █▄█▀ █     █     █     █  "
     "model   Qwen/Qwen2.5-0.5B-Instruct",
     {"model": "Qwen/Qwen2.5-0.5B-Instruct"}),  # community-scripts/ProxmoxVED#2047
    # platform, per process
    ("INFO 10-24 13:47:33 [__init__.py:235] Automatically detected platform rocm.",
     {"platform": "rocm"}),  # corpus rocm-tp2
    ("INFO 07-15 08:49:55 [__init__.py:235] Platform plugin ascend is activated",
     {"platform": "ascend"}),  # corpus ascend-310p
    # attention backend, by era (research notes 4.2)
    ("(EngineCore_DP0 pid=268) INFO 09-16 20:56:51 [cuda.py:362] Using Flash Attention backend on "
     "V1 engine.", {"attention_backend": "Flash Attention"}),  # corpus gptq-moe
    ("(EngineCore_DP0 pid=3645964) INFO 11-24 20:03:41 [cuda.py:419] Using FLASH_ATTN backend.",
     {"attention_backend": "FLASH_ATTN"}),  # vllm PR#29337
    ("(EngineCore pid=23397) INFO 08-01 20:59:17 [cuda.py:476] Using FLASH_ATTN attention backend "
     "out of potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION'].",
     {"attention_backend": "FLASH_ATTN"}),  # corpus healthy-dgx-spark
    ("(Worker_TP2 pid=104688) INFO 03-08 20:37:42 [rocm.py:377] Using Triton Attention backend.",
     {"attention_backend": "Triton Attention"}),  # corpus healthy-minimax (ROCm)
    # another library's backend is not the attention backend (an RL trainer's wandb beside vLLM)
    ("(main_task pid=457932) wandb: Using wandb-core as the SDK backend.  Please refer to "
     "https://wandb.me/wandb-core for more information.", {}),
    # a MoE backend line is not the attention backend
    ("(Worker_TP0 pid=104686) INFO 03-08 20:37:42 [fp8.py:338] Using TRITON Fp8 MoE backend out of "
     "potential backends: ['AITER', 'FLASHINFER_TRTLLM', 'TRITON'].", {}),
    # KV cache (V1) and GPU blocks (V0)
    ("(EngineCore_DP0 pid=104481) INFO 03-08 20:38:40 [kv_cache_utils.py:1307] GPU KV cache size: "
     "2,030,656 tokens", {"kv_cache_tokens": 2030656}),
    ("(Worker_TP0 pid=104686) INFO 03-08 20:38:40 [gpu_worker.py:373] Available KV cache memory: "
     "120.07 GiB", {"kv_cache_memory": "120.07 GiB"}),
    ("INFO 11-01 23:16:33 distributed_gpu_executor.py:56] # GPU blocks: 185231, # CPU blocks: "
     "18724", {"gpu_blocks": 185231}),  # corpus tp2-hang
    ("INFO 07-31 15:52:03 [model.py:1510] Using max model len 4096", {"max_model_len": 4096}),
    # GPU and compute capability
    ("(Worker pid=369) /usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:371: "
     "UserWarning: Found GPU1 Tesla V100-SXM2-32GB which is of compute capability (CC) 7.0.",
     {"gpu_name": "Tesla V100-SXM2-32GB", "compute_capability": "7.0"}),  # vllm PR#39878
    ("ValueError: The quantization method fp8 is not supported for the current GPU. Minimum "
     "capability: 90. Current capability: 86.", {"compute_capability": "8.6"}),  # corpus fp8-quant
    ("(Worker_TP0 pid=207850) INFO 02-05 10:11:12 [cuda.py:403] Using NVIDIA RTX PRO 6000 Blackwell "
     "Server Edition (compute capability 12.0)",
     {"gpu_name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "compute_capability": "12.0"}),
    # NCCL's CUDA, Python from a frame path
    ("(Worker_TP2 pid=207852) gpu-node-7:207852:207852 [2] NCCL INFO NCCL version 2.28.3+cuda13.0",
     {"nccl_version": "2.28.3", "cuda_version": "13.0"}),
    ('  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 12, in f',
     {"python_version": "3.10"}),
    # the selector's error carries the kv-cache dtype the engine ran with (research notes 4.3)
    ("(Worker_TP4_EP4 pid=2532) ERROR 12-29 15:21:11 [multiproc_executor.py:751] ValueError: No "
     "valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, "
     "dtype=torch.bfloat16, kv_cache_dtype=auto, block_size=None, use_mla=True, has_sink=False, "
     "use_sparse=True, use_mm_prefix=False, attn_type=decoder).", {"kv_cache_dtype": "auto"}),
]


@pytest.mark.parametrize(("line", "expected"), LINES)
def test_fact_lines_of_each_era(line: str, expected: dict[str, object]) -> None:
    found = facts_of(line)
    for name, value in expected.items():
        assert found.get(name) == value, (name, found)
    if not expected:
        assert "attention_backend" not in found


# ---- the engine config line and the command line, by era -----------------------------------------

V0_2024 = ("INFO 12-19 22:08:12 llm_engine.py:249] Initializing an LLM engine (v0.6.4) with config: "
           "model='facebook/opt-125m', speculative_config=None, tokenizer='facebook/opt-125m', "
           "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
           "override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, "
           "dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=LoadFormat.AUTO, "
           "tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
           "quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
           "quantization_param_path=None, device_config=cuda, "
           "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
           "observability_config=ObservabilityConfig(otlp_traces_endpoint=None, "
           "collect_model_forward_time=False, collect_model_execute_time=False), seed=0, "
           "served_model_name=facebook/opt-125m, num_scheduler_steps=1, "
           "chunked_prefill_enabled=False multi_step_stream_outputs=True, "
           "enable_prefix_caching=False, use_async_output_proc=True, use_cached_o")  # nixpkgs#359609
V0_2023 = ("INFO 10-07 06:41:25 llm_engine.py:72] Initializing an LLM engine with config: "
           "model='wasertech/assistant-llama2-7b-chat-awq', "
           "tokenizer='hf-internal-testing/llama-tokenizer', tokenizer_mode=auto, revision=None, "
           "trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, "
           "load_format=auto, tensor_parallel_size=1, quantization=awq, seed=0)")  # corpus awq
V1_2025 = ("INFO 05-08 14:04:01 [core.py:58] Initializing a V1 LLM engine (v0.8.5.post1) with "
           "config: model='Qwen/Qwen3-4B', speculative_config=None, tokenizer='Qwen/Qwen3-4B', "
           "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
           "override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, "
           "dtype=torch.bfloat16, max_seq_len=40960, download_dir=None, load_format=auto, "
           "tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
           "quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, "
           "decoding_config=DecodingConfig(guided_decoding_backend='auto', reasoning_backend=None), "
           "observability_config=ObservabilityConfig(show_hi")  # vllm#17854, cut as pasted
NAMESPACE = ("INFO 12-11 17:57:51 api_server.py:719] args: Namespace(host='0.0.0.0', port=8000, "
             "allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], "
             "allowed_headers=['*'], served_model_name=None, chat_template=None, "
             "response_role='assistant', model='mistralai/Mixtral-8x7B-Instruct-v0.1', "
             "tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', "
             "trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', "
             "max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, "
             "tensor_parallel_size=2, max_parallel_loading_workers=None, block_size=16, seed=0, "
             "swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, "
             "max_num_seqs=256, max_paddings=256, disable_log_stats=False, quantization=None)"
             )  # vllm#2026 (the tail after quantization cut)
NON_DEFAULT = ("(APIServer pid=207603) INFO 02-05 10:11:04 [utils.py:261] non-default args: "
               "{'model_tag': '/models/Kimi-K2.5-NVFP4', 'host': '0.0.0.0', 'port': 8000, "
               "'model': '/models/Kimi-K2.5-NVFP4', 'trust_remote_code': True, "
               "'max_model_len': 65536, 'tensor_parallel_size': 8, "
               "'gpu_memory_utilization': 0.92, 'kv_cache_dtype': 'auto', "
               "'served_model_name': ['kimi-k2.5']}")  # the founding case
NON_DEFAULT_CUT = ("INFO 07-15 08:50:04 [cli_args.py:325] non-default args: {'host': '0.0.0.0', "
                   "'port': 8001, 'model': '/models/Qwen3-30B-A3B', 'dtype': 'float16', "
                   "'max_model_len': 32768, 'enforce_eager': True, 'tensor_parallel_size': 4, "
                   "'enable_expert_parallel': True, 'served_model_name': ['qwen30b'], 'max_num_se")

RECORDS = [
    (V0_2024, {"vllm_version": "0.6.4", "model": "facebook/opt-125m", "dtype": "float16",
               "tensor_parallel_size": 1, "kv_cache_dtype": "auto", "max_model_len": 2048,
               "device": "cuda", "served_model_name": "facebook/opt-125m"}),
    (V0_2023, {"model": "wasertech/assistant-llama2-7b-chat-awq", "quantization": "awq",
               "tensor_parallel_size": 1, "max_model_len": 4096}),
    (V1_2025, {"vllm_version": "0.8.5.post1", "model": "Qwen/Qwen3-4B", "dtype": "bfloat16",
               "tensor_parallel_size": 2, "kv_cache_dtype": "auto", "max_model_len": 40960}),
    (NAMESPACE, {"model": "mistralai/Mixtral-8x7B-Instruct-v0.1",
                 "tensor_parallel_size.requested": 2, "gpu_memory_utilization": 0.9,
                 "max_num_seqs": 256, "dtype.requested": "auto"}),
    (NON_DEFAULT, {"model": "/models/Kimi-K2.5-NVFP4", "tensor_parallel_size.requested": 8,
                   "kv_cache_dtype.requested": "auto", "served_model_name": "kimi-k2.5",
                   "max_model_len.requested": 65536, "gpu_memory_utilization": 0.92}),
    (NON_DEFAULT_CUT, {"model": "/models/Qwen3-30B-A3B", "dtype.requested": "float16",
                       "tensor_parallel_size.requested": 4, "expert_parallel": True,
                       "served_model_name": "qwen30b"}),
]


@pytest.mark.parametrize(("line", "expected"), RECORDS)
def test_records_of_each_era(line: str, expected: dict[str, object]) -> None:
    found = facts_of(line)
    for name, value in expected.items():
        assert found.get(name) == value, (name, found)


def test_unset_settings_are_not_facts() -> None:
    found = facts_of(V1_2025)
    assert "quantization" not in found  # quantization=None
    assert "kv_cache_dtype" not in facts_of(NON_DEFAULT)  # only requested; the engine decides


def test_non_default_args_are_kept_whole() -> None:
    assert facts_of(NON_DEFAULT)["non_default_args"] == {
        "model_tag": "/models/Kimi-K2.5-NVFP4", "host": "0.0.0.0", "port": 8000,
        "model": "/models/Kimi-K2.5-NVFP4", "trust_remote_code": True, "max_model_len": 65536,
        "tensor_parallel_size": 8, "gpu_memory_utilization": 0.92, "kv_cache_dtype": "auto",
        "served_model_name": ["kimi-k2.5"]}


@pytest.mark.parametrize(("text", "parts"), [
    ("a=1, b=(2, 3), c=[4, 5], d={'e': 6, 'f': [7]}", ["a=1", "b=(2, 3)", "c=[4, 5]",
                                                       "d={'e': 6, 'f': [7]}"]),
    ("a='x, y', b=\"z, w\", c=O'Brien, d=2", ["a='x, y'", 'b="z, w"', "c=O'Brien", "d=2"]),
    ("host='0.0.0.0', port=8000) trailing, words", ["host='0.0.0.0'", "port=8000"]),
    ("mode=<CompilationMode.VLLM_COMPILE: 3>, cudagraph_mode=<CUDAGraphMode.FULL: (2, 1)>, x=1",
     ["mode=<CompilationMode.VLLM_COMPILE: 3>", "cudagraph_mode=<CUDAGraphMode.FULL: (2, 1)>",
      "x=1"]),
    ("a=1, cut={'b': [1, 2", ["a=1", "cut={'b': [1, 2"]),
    ("a='unterminated, b=2", ["a='unterminated, b=2"]),
])
def test_the_scanner_respects_brackets_and_quotes(text: str, parts: list[str]) -> None:
    assert split_top_level(text) == parts


def test_config_values_that_are_not_literals_stay_text() -> None:
    settings = parse_record("dtype=torch.bfloat16, kv_cache_dtype=fp8_e4m3, seed=0, "
                            "quantization=None, x='a'", RecordFormat.KEYVALUE)
    assert settings == {"dtype": "torch.bfloat16", "kv_cache_dtype": "fp8_e4m3", "seed": 0,
                        "quantization": None, "x": "a"}


# ---- requested vs effective ----------------------------------------------------------------------

CONFIG_FP8 = ("(EngineCore_DP0 pid=207811) INFO 02-05 10:11:05 [core.py:96] Initializing a V1 LLM "
              "engine (v0.16.0rc2.dev313+g6b3e0f2a1) with config: model='/models/Kimi-K2.5-NVFP4',"
              " speculative_config=None, tokenizer='/models/Kimi-K2.5-NVFP4', "
              "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
              "trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=65536, "
              "download_dir=None, load_format=auto, tensor_parallel_size=8, "
              "pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, "
              "quantization=modelopt_fp4, enforce_eager=False, kv_cache_dtype=fp8_e4m3, "
              "device_config=cuda, seed=0, served_model_name=kimi-k2.5, "
              "enable_prefix_caching=True, enable_chunked_prefill=True")


def differences_of(*lines: str) -> tuple[ConfigDifference, ...]:
    collector = FactCollector()
    for number, text in enumerate(lines, 1):
        collector.look(parse_line(text, number))
    return collector.differences()


def test_the_founding_case_ran_fp8_although_auto_was_asked() -> None:
    assert differences_of(NON_DEFAULT, CONFIG_FP8) == (
        ConfigDifference("kv_cache_dtype", "auto", "fp8_e4m3", 1, 2),)
    found = facts_of(NON_DEFAULT, CONFIG_FP8)
    assert found["kv_cache_dtype"] == "fp8_e4m3"
    assert found["kv_cache_dtype.requested"] == "auto"


@pytest.mark.parametrize(("requested", "config", "names"), [
    # `--dtype auto` and `--dtype half` are satisfied by float16: no difference
    ("{'dtype': 'auto'}", "dtype=torch.bfloat16", []),
    ("{'dtype': 'half'}", "dtype=torch.float16", []),
    ("{'dtype': 'float16'}", "dtype=torch.bfloat16", ["dtype"]),
    ("{'max_model_len': 32768}", "max_seq_len=8192", ["max_model_len"]),
    ("{'quantization': 'fp8'}", "quantization=fp8", []),
    ("{'kv_cache_dtype': 'fp8'}", "kv_cache_dtype=fp8", []),
])
def test_requested_and_effective(requested: str, config: str, names: list[str]) -> None:
    found = differences_of(f"INFO 01-01 00:00:00 [utils.py:1] non-default args: {requested}",
                           f"INFO 01-01 00:00:01 [core.py:1] Initializing a V1 LLM engine "
                           f"(v0.10.0) with config: model='m', {config}, seed=0")
    assert [d.name for d in found] == names


# ---- the corpus: every case that prints them -----------------------------------------------------

# case -> (vllm_version, tensor_parallel_size, kv_cache_dtype, model); None where the log does not
# print it
CORPUS_FACTS = {
    "long/healthy-dgx-spark-sigterm-shutdown": ("0.25.1", 1, "auto", "poolside/Laguna-S-2.1-NVFP4"),
    "long/healthy-minimax-tp4-rocm-benign-error": ("0.16.0", 4, "auto",
                                                   "/data0/huggingface/MiniMax-M2.5"),
    "long/qwen3-30b-enginecore-died-silently": ("0.12.0", 1, "auto",
                                                "/home2/ycj/Models/Qwen3-30B-A3B-Instruct-2507"),
    "long/rocm-rx9070-inductor-hip-oom": ("0.14.0rc1.dev2+g7d9f6663a.d20260121", 1, "auto",
                                          "RedHatAI/DeepSeek-R1-Distill-Qwen-14B-FP8-dynamic"),
    "long/rusteze-torch-oom-model-load": ("0.13.0", 1, "auto", "Qwen/Qwen2.5-Coder-14B-Instruct"),
    "long/t4-cu118-triton-kernel-image-invalid": ("0.11.0+torch271", 1, "auto",
                                                  "/root/Qwen3-VL-Embedding-2B"),
    "multi/ascend-310p-tp4-ep-qwen3moe-shape-mismatch": ("0.9.2", 4, "auto",
                                                         "/models/Qwen3-30B-A3B"),
    "multi/ray-tp16-mindie-turbo-weights-iterator-typeerror": (
        "0.9.2", 16, "auto", "/share/model/Qwen/Qwen3-235B-A22B-Thinking-2507"),
    "multi/rocm-tp2-single-gpu-node-invalid-device-ordinal": ("0.1.dev8023+g894bed8", 2, "auto",
                                                              "Qwen/Qwen3-8B-FP8"),
    "seed/seed-kimi-k25-nvfp4-sm120-full": ("0.16.0rc2.dev313+g6b3e0f2a1", 8, "fp8_e4m3",
                                            "/models/Kimi-K2.5-NVFP4"),
    "startup/awq-turing-unsupported-v02-symptom-only": (
        None, 1, None, "wasertech/assistant-llama2-7b-chat-awq"),
    "startup/deepseek-v32-sparse-mla-sm120": (None, None, "auto", None),
}


@pytest.mark.parametrize("case", sorted(CORPUS_FACTS))
def test_corpus_facts(case: str) -> None:
    path = CORPUS / case / "log.txt"
    if not path.exists():
        pytest.skip(f"{case} is not among the copied fixtures")
    facts = explain(path).facts
    names = ("vllm_version", "tensor_parallel_size", "kv_cache_dtype", "model")
    assert tuple(facts.get(name) for name in names) == CORPUS_FACTS[case]


def test_the_founding_case_reports_the_difference() -> None:
    report = explain(SEED)
    assert report.config_differences == (
        ConfigDifference("kv_cache_dtype", "auto", "fp8_e4m3", 3, 10),)
    assert report.fact_origins["kv_cache_dtype"].line == 10
    assert report.fact_origins["vllm_version"].process.name == "APIServer"
    assert report.signature is not None
    details = [e.detail for e in report.signature.evidence if e.part == "facts"]
    assert "kv_cache_dtype=fp8_e4m3 (fp8*)" in details
    assert "kv_cache_dtype.requested=auto (auto)" in details


# ---- facts conditions ----------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expression", "holds"), [
    ("0.16.0rc2.dev313+g6b3e0f2a1", ">=0.14,<0.17", True),
    ("0.16.0rc2.dev313+g6b3e0f2a1", ">=0.16", False),  # a pre-release of 0.16 comes before it
    ("0.16.0rc2.dev313+g6b3e0f2a1", ">=0.16.0rc1", True),
    ("0.17.1", ">=0.14,<0.17", False),
    ("0.11.0+torch271", "==0.11", True),  # the local part does not count
    ("0.6.3.post1", ">0.6.3", True),
    ("0.1.dev8023+g894bed8", "<0.2", True),
    ("12.0", ">=12.0,<13", True),
    ("8.6", ">=9.0", False),
    (8, ">=4", True),
    ("fp8_e4m3", "fp8*", True),
    ("FP8_E5M2", "fp8*", True),
    ("auto", "fp8*", False),
    ("auto", "fp8*|auto", True),
    ("cuda", "rocm|xpu", False),
    ("dev", ">=0.1", False),  # not a version: no comparison holds
])
def test_fact_holds(value: object, expression: str, holds: bool) -> None:
    assert fact_holds(value, expression) is holds


def test_versions_order_as_pep_440() -> None:
    ordered = ["0.9.2", "0.16.0.dev1", "0.16.0rc1", "0.16.0rc2.dev313", "0.16.0rc2", "0.16",
               "0.16.0.post1", "0.17.0"]
    keys = [version_key(v) for v in ordered]
    assert keys == sorted(keys)  # type: ignore[type-var]


@pytest.mark.parametrize(("expression", "facts", "factor"), [
    ("fp8*", {"kv_cache_dtype": "fp8_e4m3"}, 1.0),
    ("fp8*", {"kv_cache_dtype": "auto"}, 0.0),  # a hard condition rules the match out
    ("fp8*", {}, 0.9),  # unknown: the log did not print it
    ("?auto", {"kv_cache_dtype": "fp8"}, 0.95),  # a soft one only lowers the score
    ("?auto", {}, 1.0),
    ("+on", {"kv_cache_dtype": "on"}, 1.0),  # a fact that must be seen: it was
    ("+on", {}, 0.0),  # not printed: the failure is not known to be this one
    ("+on", {"kv_cache_dtype": "off"}, 0.0),
])
def test_judge_fact(expression: str, facts: dict[str, object], factor: float) -> None:
    assert judge_fact("kv_cache_dtype", expression, facts).factor == factor


# A fix that applies only to some versions or GPUs is offered only there.
GATED = """id: test-fp8-quant-old-gpu
title: FP8 quantization needs a newer GPU (test signature)
category: quantization
description: >-
  A test signature gated on compute capability and vLLM version, for tests/test_facts.py only.
severity: error
status: stable
match:
  message: ["The quantization method fp8 is not supported for the current GPU{any}"]
  facts:
    compute_capability: '<8.9'
    vllm_version: '>=0.5,<0.7'
fix: |
  Use a GPU with compute capability 8.9 or newer, or a W8A16 (Marlin) FP8 checkpoint.
references: [https://github.com/vllm-project/vllm/issues/0]
"""
ERROR = ("ValueError: The quantization method fp8 is not supported for the current GPU. Minimum "
         "capability: 89. Current capability: {cc}.")


@pytest.mark.parametrize(("version", "cc", "offered"), [
    ("0.6.3.post1", "86", True),
    ("0.6.3.post1", "90", False),  # the GPU is new enough: this fix does not apply
    ("0.9.2", "86", False),  # another version: not offered there
])
def test_a_gated_fix_is_offered_only_where_it_applies(tmp_path: Path, version: str, cc: str,
                                                       offered: bool) -> None:
    folder = tmp_path / "quantization"
    folder.mkdir()
    (folder / "test-fp8-quant-old-gpu.yaml").write_text(GATED, encoding="utf-8")
    log = (f"INFO 11-15 01:06:10 api_server.py:528] vLLM API server version {version}\n"
           + ERROR.format(cc=cc) + "\n")
    report = explain_text(log, signatures=load_signatures(tmp_path, shipped=False))
    assert (report.signature is not None
            and report.signature.id == "test-fp8-quant-old-gpu") is offered
    if offered:
        assert report.signature is not None
        details = {e.detail for e in report.signature.evidence if e.part == "facts"}
        assert details == {"compute_capability=8.6 (<8.9)",
                           f"vllm_version={version} (>=0.5,<0.7)"}


@pytest.mark.parametrize("pattern,needle", [
    (r"Using (?P<value>[A-Z_0-9]+) (?:attention )?backend", "backend"),
    (r"GPU KV cache size: (?P<value>[\d,]+) tokens", "GPU KV cache size: "),
    (r"\(compute capability (?P<value>\d+\.\d+)\)", "(compute capability "),
    (r"versions? (?P<value>\S+)", "version"),
    (r"a|b", ""),
    (r"(?i)cuda version (?P<value>\S+)", ""),
])
def test_required_literal_is_in_every_match(pattern: str, needle: str) -> None:
    from logsleuth.literal import required_literal

    assert required_literal(pattern) == needle


@pytest.mark.parametrize("pattern,needle", [
    (r"file.py:\d+", "file"),
    (r"^Received SIG(?:TERM|INT)", "Received SIG"),
    (r"shutdown triggered$", "shutdown triggered"),
])
def test_required_literal_stops_at_wildcards_and_anchors(pattern: str, needle: str) -> None:
    from logsleuth.literal import required_literal

    assert required_literal(pattern) == needle


@pytest.mark.parametrize("pattern,needle", [
    (r"\d{1,3} tokens", " tokens"),  # a repeat count is no text to look for
    (r"-{4,}(?: x)", ""),
    (r"abc{2}def", "def"),
])
def test_required_literal_skips_repeat_counts(pattern: str, needle: str) -> None:
    from logsleuth.literal import required_literal

    assert required_literal(pattern) == needle


@pytest.mark.parametrize("pattern,needles", [
    (r"Capturing CUDA graphs?|Graph capturing finished",
     ("Capturing CUDA graph", "Graph capturing finished")),
    (r"Loading (?:a|b) weights|Model (x|y) took", ("Loading ", "Model ")),
    (r"foo|\d+", ()),  # an alternative without text: any line may match
    (r"[|]abc|(?:x|y)def", ("abc", "def")),  # `|` in a class or a group splits nothing
    (r"(?i)abc|def", ()),
])
def test_required_literals_of_each_alternative(pattern: str, needles: tuple[str, ...]) -> None:
    from logsleuth.literal import required_literals

    assert required_literals(pattern) == needles


_PATTERNS = [r"Capturing CUDA graphs?|Graph capturing finished", r"KV cache size: \d+ tokens",
             r"world_size=\d+ rank=\d+|Starting vLLM (?:API )?server", r"\d+ tokens|x"]


@given(st.text(alphabet="Capturing CUDA graphs KV cache size: 0123 tokens world_=rank vLLM "
                        "Starting server API x", max_size=80))
def test_a_screen_never_rules_out_a_line_a_pattern_matches(text: str) -> None:
    from logsleuth.literal import SCREEN_CHARS, Screen

    text = "." * SCREEN_CHARS + text  # shorter lines are never screened
    for patterns in (_PATTERNS[:1], _PATTERNS[:3], _PATTERNS):
        if Screen(patterns).rules_out(text):
            assert not any(regex.search(p, text) for p in patterns), text


def test_a_screen_rules_out_only_lines_without_the_texts() -> None:
    from logsleuth.literal import SCREEN_CHARS, Screen

    pad = "." * SCREEN_CHARS  # shorter lines are never screened: a test per pattern is cheaper
    screen = Screen(_PATTERNS[:3])
    assert screen.rules_out(pad + "INFO 127.0.0.1 POST /v1/chat/completions 200 OK")
    assert not screen.rules_out("INFO 127.0.0.1 POST /v1/chat/completions 200 OK")
    assert not screen.rules_out(pad + "x Graph capturing finished in 5 secs")
    assert not screen.rules_out(pad + "world_size=8 rank=3 local_rank=3")
    assert not Screen(_PATTERNS).rules_out(pad + "anything")  # `x` has no text to look for


def test_no_shipped_fact_or_causality_pattern_backtracks_catastrophically() -> None:
    """They run without a time budget on lines up to UNTIMED_CHARS long (the budget costs more
    than the search there), so each must pass the probes `signatures lint` applies."""
    from logsleuth.facts import fact_table
    from logsleuth.knowledge import default_causality
    from logsleuth.signatures.load import backtracks

    causality = default_causality()
    patterns = [p.pattern for spec in fact_table().specs for p in spec.patterns]
    patterns += [p for _, p in (*causality.roles, *causality.milestones, *causality.phase_lines,
                                *causality.phase_frames)]
    patterns += [s.pattern for s in causality.symptoms] + list(causality.wrappers)
    patterns += list(causality.corrupting)
    patterns += [*causality.handled_sites, *causality.handled_frames, *causality.engine_frames,
                 *causality.request_sites, *causality.request_frames,
                 *causality.startup_frames, *causality.scheduler_stops, *causality.harmless]
    patterns += [causality.restated] if causality.restated is not None else []
    patterns += [p for latent in causality.latent for p in (latent.warning, *latent.explains)]
    assert [p.pattern for p in patterns if backtracks(p)] == []



def _counting(collector: FactCollector, searched: list[str], timeout: bool = False) -> None:
    """Make every pending pattern of a collector record the texts it searches."""
    collector._pending = [replace(spec, patterns=tuple(
        replace(item, pattern=cast(Any, _Counted(item.pattern, searched, timeout)))
        for item in spec.patterns)) for spec in collector._pending]


def test_a_long_line_that_found_nothing_is_not_searched_again() -> None:
    """A long line (over the untimed length) that found no fact finds none again: what is looked
    for only shrinks. Its copies are not searched; a fact on a line after them is still found,
    and a long line one of whose searches ran out of time is searched again."""
    filler = " ".join(f"word{index}=value{index}" for index in range(300))
    long_line = f"INFO 07-31 15:52:03 [model.py:1510] Using max model len tokens {filler}"
    assert len(long_line) > UNTIMED_CHARS
    searched: list[str] = []
    collector = FactCollector()
    _counting(collector, searched)
    collector.look(parse_line(long_line, 1))
    first = len(searched)
    assert first > 0  # the line holds texts some patterns need: it was searched
    collector.look(parse_line(long_line.replace("tokens", "token"), 2))  # another text
    second = len(searched)
    assert second > first
    for number in range(3, 6):
        collector.look(parse_line(long_line, number))
    assert len(searched) == second  # copies: not searched again
    collector.look(parse_line("INFO 07-31 15:52:03 [model.py:1510] Using max model len 4096", 6))
    assert collector.result().get("max_model_len") == 4096

    timed_out = FactCollector()
    searched.clear()
    _counting(timed_out, searched, timeout=True)
    timed_out.look(parse_line(long_line, 1))
    once = len(searched)
    timed_out.look(parse_line(long_line, 2))
    assert once > 0 and len(searched) == 2 * once  # cut short: searched again


class _Counted:
    """A compiled pattern that records the texts it searches (and may run out of time)."""

    def __init__(self, pattern: regex.Pattern[str], searched: list[str], timeout: bool):
        self._compiled, self._searched, self._timeout = pattern, searched, timeout
        self.pattern = pattern.pattern

    def search(self, text: str, *args: Any, **kwargs: Any) -> regex.Match[str] | None:
        self._searched.append(text)
        if self._timeout:
            raise TimeoutError
        return self._compiled.search(text, *args, **kwargs)


# ---- the candidates kept per shape of line ---------------------------------------------------------

def _every_candidate(collector: FactCollector) -> FactCollector:
    """The collector testing every candidate pattern's needle on every line (no shape filter)."""
    setattr(collector, "_shaped", lambda _kind, candidates, _text: candidates)
    return collector


def _same_facts(lines: list[str]) -> None:
    shaped, every = FactCollector(), _every_candidate(FactCollector())
    for number, text in enumerate(lines, 1):
        line = parse_line(text, number)
        shaped.look(line)
        every.look(line)
    assert shaped.result() == every.result()
    assert shaped.origins() == every.origins()


@pytest.mark.parametrize("case", sorted(CORPUS_FACTS))
def test_shape_filter_reads_the_corpus_alike(case: str) -> None:
    """Lines of one shape (digits masked) test only the needles their shape may hold: the facts
    and where each was read are those every needle's test gives."""
    path = CORPUS / case / "log.txt"
    if not path.exists():
        pytest.skip(f"{case} is not among the copied fixtures")
    _same_facts(path.read_text(encoding="utf-8", errors="replace").splitlines()[:20000])


def test_shape_filter_reads_each_era_alike() -> None:
    """The fact lines of each era, each again with its digits changed (the same shape, other
    values), read after a line of the same shape: as every needle's test reads them."""
    changed = str.maketrans("0123456789", "1234567890")
    lines = [text for line, _ in LINES for text in (line.translate(changed), line)]
    _same_facts(lines)


@given(st.lists(st.tuples(st.sampled_from([
    "INFO 07-31 15:52:03 [model.py:1510] Using max model len {n}",
    "INFO 07-31 15:52:03 [kv_cache_utils.py:{n}] GPU KV cache size: {n} tokens",
    "(Worker_TP{n} pid={n}) INFO 01-24 01:50:35 [gpu_worker.py:{n}] Available KV cache memory: "
    "{n}.{n} GiB",
    "INFO 01-24 01:50:35 [cuda.py:{n}] Using FLASH_ATTN attention backend out of potential "
    "backends: ['FLASH_ATTN']",
    "INFO {n}-{n} 01:50:35 [api_server.py:{n}] vLLM API server version 0.{n}.{n}",
    "Engine 000: Avg prompt throughput: {n}.{n} tokens/s, Running: {n} reqs",
    "gpu-node-{n}:{n}:{n} [{n}] NCCL INFO NCCL version 2.{n}.{n}+cuda12.{n}",
    "INFO {n}-{n} 01:50:35 [worker.py:{n}] # GPU blocks: {n}, # CPU blocks: {n}",
    # a needle with a digit (`Creating v1 connector`): a shape masks it, so it is always tested
    "INFO {n}-{n} 01:50:35 [factory.py:{n}] Creating v1 connector with name: NixlConnector and "
    "engine_id: {n}",
    # patterns that ignore case (their needle folded: `folded_literal`), in any case, and on
    # lines that are not ASCII (never screened by it)
    "INFO {n}-{n} 01:50:35 [utils.py:{n}] LMCache version {n}.{n}.{n}",
    "INFO {n}-{n} 01:50:35 [utils.py:{n}] lmcache=={n}.{n} loaded",
    "INFO {n}-{n} 01:50:35 [nixl.py:{n}] NIXL {n}.{n}.{n} is available",
    "INFO {n}-{n} 01:50:35 [nixl.py:{n}] Nixl version: v{n}.{n} ✓",
    "WARNING {n}-{n} 01:50:35 [x.py:{n}] failed to initialize flashinfer ALLREDUCE workspace",
    "INFO {n}-{n} 01:50:35 [x.py:{n}] no fact here ✓ {n}",
]), st.integers(0, 99999)), min_size=1, max_size=12))
def test_shape_filter_reads_generated_lines_alike(lines: list[tuple[str, int]]) -> None:
    """Lines of a few shapes with any digits: facts and origins as every needle's test gives."""
    _same_facts([template.replace("{n}", str(value)) for template, value in lines])


def test_folded_literal_is_the_needle_of_a_pattern_that_ignores_case() -> None:
    """A leading `(?i)` and no other flag: the required text, lower-cased; anything else: none."""
    assert folded_literal(r"(?i)(?<![\w/-])LMCache(?:==|\s+)v?(?P<value>\d+)") == "lmcache"
    assert folded_literal(r"(?i)Failed to initialize Flashinfer (?:a|b) workspace") \
        == "failed to initialize flashinfer "
    assert folded_literal(r"LMCache (?P<value>\d+)") == ""  # case matters: its own needle
    assert folded_literal(r"(?i)nixl(?x) version") == ""  # another flag
    assert folded_literal(r"(?i)naïve (?P<value>\d+)") == ""  # not ASCII
    assert all(p.folded for spec in fact_table().specs for p in spec.patterns
               if p.pattern.pattern.startswith("(?i)") and "lmcache" in p.pattern.pattern)


class _NeverHeld(set[Any]):
    """A set that keeps nothing: a collector that searches every line again."""

    def add(self, _item: Any) -> None:
        return None


@given(st.lists(st.tuples(st.sampled_from([
    "INFO 01-24 01:50:35 [gpu_model_runner.py:{n}] Starting to load model /models/x...",
    "INFO 01-24 01:50:35 [cuda.py:{n}] Using FLASH_ATTN attention backend",
    "INFO 01-24 01:50:35 [utils.py:{n}] LMCache version {n}.{n}.{n}",
    "INFO 01-24 01:50:35 [api_server.py:{n}] vLLM API server version 0.{n}.{n}",
    "INFO 01-24 01:50:35 [model.py:{n}] Using max model len {n}",
    "INFO 01-24 01:50:35 [x.py:1] no fact here {n}",
]), st.integers(0, 3)), min_size=1, max_size=16))
def test_silent_lines_read_alike_when_they_recur(lines: list[tuple[str, int]]) -> None:
    """A line whose searches found nothing is not searched again when its text comes back (a
    restart's start-up lines): facts and origins as searching every copy gives, the same texts
    coming back before and after other lines' facts are found."""
    texts = [template.replace("{n}", str(value)) for template, value in lines]
    kept, every = FactCollector(), FactCollector()
    setattr(every, "_silent", _NeverHeld())
    for number, text in enumerate(texts * 2, 1):
        line = parse_line(text, number)
        kept.look(line)
        every.look(line)
    assert kept.result() == every.result()
    assert kept.origins() == every.origins()
