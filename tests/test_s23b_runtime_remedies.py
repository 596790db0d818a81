"""Runtime failures whose remedy vLLM's own source names (vLLM 0.11.0's raise sites in the engine,
the structured-output backends, the serving layer and the KV connectors), generated the way each
process logs them, and the knob each one's advice must name:

1. the P2P NCCL connector's tensor memory pool (tensor_memory_pool.py) running out of room:
   `mem_pool_size_gb` in `--kv-transfer-config` (family p2p-nccl-memory-pool-exhausted); another
   check of the same connector keeps other advice;
2. lm-format-enforcer with speculative decoding: `--structured-outputs-config`;
3. a request's data-parallel rank out of range: `--data-parallel-size`;
4. NIXL heterogeneous TP on XPU: `--tensor-parallel-size`;
5. the Mistral tokenizer with a cross-encoder: `--tokenizer-mode`;
6. a pooling request in an IO processor plugin's form without a plugin: `--io-processor-plugin`.

Each is raised while the server runs (a request or a step), under the engine core's fatal-error
record, the API server's request-error record, a worker's handshake record, or bare.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import python_traceback, signature_advice

_SITE = st.sampled_from(["/usr/local/lib/python3.{m}/dist-packages/vllm/",
                         "/opt/conda/lib/python3.{m}/site-packages/vllm/",
                         "/home/u/.venv/lib/python3.{m}/site-packages/vllm/"])
_MINOR = st.sampled_from([10, 11, 12, 13])
_ENGINE = ["", "ERROR 10-09 02:11:54 [core.py:710] ",
           "(EngineCore_DP0 pid={pid}) ERROR 10-09 02:11:54 [core.py:866] ",
           "(EngineCore_0 pid={pid}) ERROR 08-02 11:20:03 [core.py:634] "]
_API = ["", "ERROR 10-09 02:11:54 [serving_chat.py:262] ",
        "(APIServer pid={pid}) ERROR 10-09 02:11:54 [serving_engine.py:316] "]
_WORKER = ["", "(Worker_TP0 pid={pid}) ERROR 10-09 02:11:54 [nixl_connector.py:1011] ",
           "(VllmWorker rank=1 pid={pid}) ERROR 07-12 04:10:11 [nixl_connector.py:866] "]
_STEP = [("v1/engine/core.py", "step", "scheduler_output = self.scheduler.schedule()")]
_POOL = "distributed/kv_transfer/kv_connector/v1/p2p/tensor_memory_pool.py"
_P2P_ENGINE = "distributed/kv_transfer/kv_connector/v1/p2p/p2p_nccl_engine.py"

# (prefixes, frames under vllm/, the error, the signature, a knob its fix must name)
CASES = [
    (_WORKER, [(_P2P_ENGINE, "listen_for_requests", "addr = self.pool.store_tensor(tensor)"),
               (_POOL, "store_tensor", "addr = self.allocate(size)"),
               (_POOL, "allocate", 'raise ValueError("Insufficient memory")')],
     "ValueError: Insufficient memory", "p2p-nccl-memory-pool-exhausted", "mem_pool_size_gb"),
    (_WORKER, [(_P2P_ENGINE, "listen_for_requests", "addr = self.pool.store_tensor(tensor)"),
               (_POOL, "store_tensor", "addr = self.allocate(size)"),
               (_POOL, "allocate", "raise ValueError(")],
     "ValueError: Requested size exceeds maximum block size", "p2p-nccl-memory-pool-exhausted",
     "--kv-transfer-config"),
    (_WORKER, [(_P2P_ENGINE, "listen_for_requests", "tensor = self.pool.load_tensor(addr, dtype,"),
               (_POOL, "load_tensor", "raise ValueError(")],
     "ValueError: Requested tensor size exceeds block size", "p2p-nccl-memory-pool-exhausted",
     "mem_pool_size_gb"),
    (_ENGINE, [*_STEP, ("v1/core/sched/scheduler.py", "schedule",
                        "self.structured_output_manager.grammar_init(request)"),
               ("v1/structured_output/__init__.py", "_async_create_grammar",
                "return self.backend.compile_grammar(request_type, grammar_spec)"),
               ("v1/structured_output/backend_lm_format_enforcer.py", "compile_grammar",
                "raise ValueError(")],
     "ValueError: LM Format Enforcer backend does not support speculative tokens",
     "lm-format-enforcer-speculative-decoding", "--structured-outputs-config"),
    (_API, [("v1/engine/async_llm.py", "add_request",
             "prompt_str, request = self.processor.process_inputs("),
            ("v1/engine/processor.py", "process_inputs", "raise ValueError(")],
     "ValueError: data_parallel_rank {rank} is out of range [0, {size}).",
     "data-parallel-rank-out-of-range", "--data-parallel-size"),
    (_WORKER, [("distributed/kv_transfer/kv_connector/v1/nixl_connector.py", "_nixl_handshake",
                "remote_agent_name = self.add_remote_agent("),
               ("distributed/kv_transfer/kv_connector/v1/nixl_connector.py", "add_remote_agent",
                "raise ValueError(")],
     "ValueError: Heterogeneous TP is not supported on XPU", "nixl-heterogeneous-tp-xpu",
     "--tensor-parallel-size"),
    (_API, [("entrypoints/openai/serving_score.py", "_run_scoring",
             "final_res_batch = await self._cross_encoding_score("),
            ("entrypoints/openai/serving_score.py", "_cross_encoding_score", "raise ValueError(")],
     "ValueError: MistralTokenizer not supported for cross-encoding",
     "mistral-tokenizer-cross-encoding", "--tokenizer-mode"),
    (_API, [("entrypoints/openai/serving_pooling.py", "create_pooling", "raise ValueError(")],
     "ValueError: No IOProcessor plugin installed. Please refer to the documentation and to the "
     "'prithvi_geospatial_mae_io_processor' offline inference example for more details.",
     "io-processor-plugin-missing", "--io-processor-plugin"),
]


@settings(max_examples=80, deadline=None)
@given(case=st.sampled_from(CASES), site=_SITE, minor=_MINOR, data=st.data(),
       pid=st.integers(100, 99999), size=st.integers(1, 16), extra=st.integers(0, 8))
def test_each_runtime_failure_gets_advice_naming_its_knob(
        case: tuple, site: str, minor: int, data: st.DataObject, pid: int, size: int,
        extra: int) -> None:
    prefixes, frames, error, signature, knob = case
    prefix = data.draw(st.sampled_from(prefixes)).format(pid=pid)
    root = site.format(m=minor)
    log = python_traceback([(f"{root}{path}", function, code) for path, function, code in frames],
                           error.format(rank=size + extra, size=size), prefix)
    sig, fix = signature_advice(log)
    assert sig == signature, log
    assert knob in fix


# Near misses: another check of the same module or connector keeps other advice.
NEAR = [
    (_P2P_ENGINE, "__init__", "ValueError: Port cannot be 0", "p2p-nccl-memory-pool-exhausted"),
    (_POOL, "__init__", "ValueError: Max block size must be greater than min block size",
     "p2p-nccl-memory-pool-exhausted"),
    ("v1/structured_output/backend_lm_format_enforcer.py", "compile_grammar",
     "ValueError: Invalid request type for LM Format Enforcer backend(GRAMMAR)",
     "lm-format-enforcer-speculative-decoding"),
    ("v1/engine/processor.py", "_validate_model_input",
     "ValueError: Token id 152064 is out of vocabulary", "data-parallel-rank-out-of-range"),
    ("distributed/kv_transfer/kv_connector/v1/nixl_connector.py", "_nixl_handshake",
     "RuntimeError: Remote NIXL agent engine ID mismatch. Expected a_dp0,received b_dp0.",
     "nixl-heterogeneous-tp-xpu"),
    ("entrypoints/openai/serving_score.py", "_run_scoring",
     "ValueError: MultiModalParam is not supported for Qwen3ForSequenceClassification",
     "mistral-tokenizer-cross-encoding"),
]


@settings(max_examples=30, deadline=None)
@given(near=st.sampled_from(NEAR), site=_SITE, minor=_MINOR,
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=7) ERROR 10-09 02:11:54 [core.py:866] "]))
def test_other_checks_of_the_same_modules_keep_other_advice(
        near: tuple[str, str, str, str], site: str, minor: int, prefix: str) -> None:
    path, function, error, signature = near
    root = site.format(m=minor)
    log = python_traceback([(f"{root}{path}", function, "raise ValueError(")], error, prefix)
    sig, _ = signature_advice(log)
    assert sig != signature
