"""Five classes whose advice must name the knob to change, each generated over its members and
the shapes a log gives it (session 18's development split: the right class was found, or a
neighbour's, but the advice did not say what to turn):

- an attention backend that cannot attend over cached context (Phi-3-small's block-sparse
  backend, FlashInfer and the MLA backends before they had it) under chunked prefill or prefix
  caching: `enable_chunked_prefill` / `--no-enable-prefix-caching`;
- a CUDA-only quantization kernel (Marlin, Machete, GPTQ, AWQ, GGUF) missing on the CPU
  backend: serve unquantized in bfloat16, not "rebuild vLLM";
- a V0-style model runner flattening positions it never built for an M-RoPE model
  (`input_positions` / `mrope_input_positions`);
- a collective or step that hangs mid-serving with no rank's error: speculative decoding's
  `num_speculative_tokens` and async scheduling are named by every hang signature;
- NaN probabilities at sampling (torch's multinomial refusal or its CUDA kernel's device-side
  check, in every era's sampler) and NaN in a JSON answer name CUDA graphs, ruled out with
  `--enforce-eager` (session 19: a GPTQ kernel wrong only under CUDA graphs);
- and, over every signature, a fix that says to take an optional feature away (prefix caching,
  chunked prefill, speculative decoding, LoRA, async scheduling, expert parallelism) names the
  flag or keyword that does it.

Each asserts the class's advice and one of its knobs, and that near neighbours keep theirs."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.signatures.load import Signature
from v1log import python_traceback, signature_advice

_PY = st.sampled_from(["3.9", "3.10", "3.11", "3.12"])
_SITE = st.sampled_from(["/usr/local/lib/python{py}/dist-packages/",
                         "/home/u/.venv/lib/python{py}/site-packages/",
                         "/opt/conda/lib/python{py}/site-packages/"])
# how the engine's traceback reaches the log: printed bare (offline LLM), under V0's async
# engine's ERROR record, under the V0 multiprocessing engine's, or with torchrun's rank prefix
_PREFIX = st.sampled_from(["", "ERROR 08-19 16:42:05 async_llm_engine.py:56] ",
                           "ERROR 04-23 02:03:54 [engine.py:160] ", "[rank0]: "])


# ---- attention backends without chunked prefill / prefix caching -----------------------------

# (backend module file, raising function, message) as vLLM's releases raise them
_NO_CONTEXT = [
    ("blocksparse_attn.py", "forward", "AssertionError: Does not support prefix-enabled attention."),
    ("flashinfer.py", "forward", "AssertionError: Chunked prefill is not supported with flashinfer yet."),
    ("flashinfer.py", "forward",
     "NotImplementedError: Prefix caching is not supported with flashinfer yet."),
    ("mla/utils.py", "forward", "NotImplementedError: chunked prefill is not supported for MLAImplBase"),
    ("cpu_mla.py", "__init__", "AssertionError: chunked prefill is currently not supported"),
    ("differential_flash_attn.py", "_add_seq_group",
     "AssertionError: prefix caching is not supported for now"),
]


@settings(max_examples=30, deadline=None)
@given(member=st.sampled_from(_NO_CONTEXT), py=_PY, site=_SITE, prefix=_PREFIX)
def test_backend_without_cached_context_names_chunked_prefill_and_prefix_caching(
        member: tuple[str, str, str], py: str, site: str, prefix: str) -> None:
    module, function, error = member
    root = site.format(py=py) + "vllm/"
    frames = [(root + "worker/model_runner.py", "execute_model",
               "hidden_or_intermediate_states = model_executable("),
              (root + "attention/layer.py", "forward", "return self.impl.forward(query,"),
              (root + "attention/backends/" + module, function, "assert cond, msg")]
    signature, fix = signature_advice(python_traceback(frames, error, prefix))
    assert signature == "attention-backend-no-chunked-prefill-or-prefix-caching"
    assert "enable_chunked_prefill=False" in fix and "--no-enable-prefix-caching" in fix


@pytest.mark.parametrize("error", [
    # the config's own refusal at start-up, with its own knob
    "NotImplementedError: Prefix caching is not supported with sliding window. Run with "
    "--disable-sliding-window to use prefix caching.",
    # another assertion of the same block-sparse backend
    "AssertionError: length of q should either be 1 (decoding) or same as k (prefilling).",
])
def test_other_refusals_are_not_the_cached_context_class(error: str) -> None:
    root = "/usr/local/lib/python3.10/dist-packages/vllm/"
    frames = [(root + "attention/backends/blocksparse_attn.py", "forward", "assert cond, msg")]
    report = explain_text(python_traceback(frames, error), signatures=default_signatures())
    assert report.signature is None or \
        report.signature.id != "attention-backend-no-chunked-prefill-or-prefix-caching"


# ---- GPU-only quantization kernels on the CPU backend ----------------------------------------

_GPU_QUANT_OPS = ["gptq_marlin_repack", "awq_marlin_repack", "marlin_gemm", "gptq_marlin_gemm",
                  "fp8_marlin_gemm", "machete_mm", "machete_prepack_B", "gptq_shuffle",
                  "gptq_gemm", "awq_dequantize", "awq_gemm", "ggml_dequantize", "aqlm_gemm",
                  "cutlass_scaled_fp4_mm"]
_QUANT_CALLERS = ["quantization/utils/marlin_utils_fp8.py", "quantization/gptq.py",
                  "quantization/awq.py", "quantization/gguf.py",
                  "quantization/compressed_tensors/schemes/compressed_tensors_w8a16_fp8.py"]


def _config_line(device: str, version: str) -> str:
    return (f"INFO 01-21 08:44:38 llm_engine.py:249] Initializing an LLM engine (v{version}) with "
            f"config: model='/models/m', dtype=torch.bfloat16, quantization=fp8, "
            f"device_config={device}, seed=0\n")


def _op_missing(op: str, caller: str, site: str, prefix: str) -> str:
    root = site + "vllm/"
    frames = [(root + "model_executor/model_loader/loader.py", "load_model",
               "quant_method.process_weights_after_loading(module)"),
              (root + "model_executor/layers/" + caller, "process_weights_after_loading",
               f"ops.{op}(w)"),
              (root + "_custom_ops.py", op, f"return torch.ops._C.{op}(w)"),
              (site + "torch/_ops.py", "__getattr__", "raise AttributeError(")]
    return python_traceback(frames, f"AttributeError: '_OpNamespace' '_C' object has no attribute '{op}'",
                      prefix)


@settings(max_examples=30, deadline=None)
@given(op=st.sampled_from(_GPU_QUANT_OPS), caller=st.sampled_from(_QUANT_CALLERS), py=_PY,
       site=_SITE, prefix=_PREFIX, version=st.sampled_from(["0.5.5", "0.6.3", "0.6.5", "0.7.3"]))
def test_gpu_quantization_kernel_on_cpu_backend_says_serve_unquantized(
        op: str, caller: str, py: str, site: str, prefix: str, version: str) -> None:
    log = _config_line("cpu", version) + _op_missing(op, caller, site.format(py=py), prefix)
    signature, fix = signature_advice(log)
    assert signature == "cpu-backend-gpu-quantization-kernel-missing"
    assert "bfloat16" in fix and "FP8" in fix


@settings(max_examples=15, deadline=None)
@given(op=st.sampled_from(_GPU_QUANT_OPS), caller=st.sampled_from(_QUANT_CALLERS), py=_PY,
       site=_SITE)
def test_the_same_missing_kernel_on_a_gpu_is_a_build_problem(op: str, caller: str, py: str,
                                                             site: str) -> None:
    log = _config_line("cuda", "0.6.5") + _op_missing(op, caller, site.format(py=py), "")
    signature, _ = signature_advice(log)
    assert signature == "vllm-custom-op-not-registered"


def test_a_cpu_kernel_missing_on_the_cpu_backend_is_not_the_quantization_class() -> None:
    log = _config_line("cpu", "0.6.5") + _op_missing(
        "rms_norm", "layernorm.py", "/usr/local/lib/python3.10/dist-packages/", "")
    signature, _ = signature_advice(log)
    assert signature != "cpu-backend-gpu-quantization-kernel-missing"


# ---- a runner's input builder flattening positions it never built ----------------------------

_RUNNERS = ["vllm_ascend/worker/model_runner.py", "vllm_ascend/worker/model_runner_v0.py",
            "vllm/worker/model_runner.py"]
_UTILS = ["vllm/utils.py", "vllm/utils/__init__.py"]


@settings(max_examples=25, deadline=None)
@given(runner=st.sampled_from(_RUNNERS), utils=st.sampled_from(_UTILS), py=_PY, site=_SITE,
       prefix=_PREFIX, profiling=st.booleans())
def test_positions_not_built_names_mrope_positions(runner: str, utils: str, py: str, site: str,
                                                   prefix: str, profiling: bool) -> None:
    root = site.format(py=py)
    entry = ("profile_run", "model_input = self.prepare_model_input(") if profiling else \
        ("execute_model", "inputs = self.prepare_input(execute_model_req)")
    frames = [(root + runner, *entry),
              (root + runner, "_prepare_model_input_tensors", "return builder.build()"),
              (root + runner, "build", "input_positions = flatten_2d_lists(input_positions)"),
              (root + utils, "flatten_2d_lists",
               "return [item for sublist in lists for item in sublist]")]
    signature, fix = signature_advice(python_traceback(frames, "TypeError: 'NoneType' object is not iterable",
                                        prefix))
    assert signature == "model-runner-positions-not-built"
    assert "input_positions" in fix and "mrope" in fix


def test_a_none_iterated_elsewhere_keeps_its_own_advice() -> None:
    root = "/usr/local/lib/python3.10/dist-packages/vllm/"
    frames = [(root + "model_executor/models/registry.py", "inspect_model_cls",
               "for arch in architectures:")]
    signature, _ = signature_advice(python_traceback(frames, "TypeError: 'NoneType' object is not iterable"))
    assert signature != "model-runner-positions-not-built"


# ---- hangs mid-serving: speculative decoding and async scheduling are named ------------------

_HANGS = ["nccl-watchdog-timeout", "nccl-collective-timeout", "shm-broadcast-timeout",
          "rpc-execute-model-timeout"]


@pytest.mark.parametrize("signature_id", _HANGS)
def test_every_hang_signature_names_speculative_decoding_and_async_scheduling(
        signature_id: str) -> None:
    signature = default_signatures().get(signature_id)
    assert signature is not None
    for knob in ("--speculative-config", "num_speculative_tokens", "--no-async-scheduling",
                 "async_scheduling"):
        assert knob in signature.fix, (signature_id, knob)


@settings(max_examples=25, deadline=None)
@given(op=st.sampled_from(["ALLREDUCE", "_ALLGATHER_BASE", "BROADCAST", "_REDUCE_SCATTER_BASE"]),
       seq=st.integers(1000, 10**8), ranks=st.integers(1, 8),
       timeout=st.sampled_from([600000, 1800000]))
def test_watchdog_timeout_mid_serving_names_speculative_decoding(op: str, seq: int, ranks: int,
                                                                 timeout: int) -> None:
    lines = ["(APIServer pid=4242) INFO:     Application shutdown complete."]
    for rank in range(ranks):
        lines.append(f"[rank{rank}]:[E517 20:17:34.985814210 ProcessGroupNCCL.cpp:689] [Rank {rank}] "
                     f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
                     f"OpType={op}, NumelIn=387840, NumelOut=775680, Timeout(ms)={timeout}) ran "
                     f"for {timeout + 1} milliseconds before timing out.")
    _, fix = signature_advice("\n".join(lines) + "\n")
    assert "num_speculative_tokens" in fix


# ---- every fix that says to take a feature away names its flag or keyword -------------------

# an optional feature a fix may tell the reader to turn off, and the spellings that name its knob
_FEATURES = {
    "prefix caching": ("enable-prefix-caching", "enable_prefix_caching"),
    # (a platform plugin's own switch of it too: vllm-spyre's VLLM_SPYRE_USE_CHUNKED_PREFILL)
    "chunked prefill": ("enable-chunked-prefill", "enable_chunked_prefill",
                        "VLLM_SPYRE_USE_CHUNKED_PREFILL"),
    "speculative decoding": ("speculative-config", "speculative_config", "speculative-model",
                             "num_speculative_tokens", "num-speculative-tokens"),
    "lora": ("enable-lora", "enable_lora"),
    "async scheduling": ("async-scheduling", "async_scheduling"),
    "expert parallel": ("enable-expert-parallel", "enable_expert_parallel"),
    # (session 19) the execution features and front-end options a fix may take away
    "cuda graphs": ("enforce-eager", "enforce_eager", "cudagraph_mode", "cuda-graph-sizes",
                    "cuda_graph_sizes", "graph_mode"),
    "torch.compile": ("enforce-eager", "enforce_eager", "-O0", "compilation-config",
                      "compilation_config", "PT_HPU_LAZY_MODE"),
    "custom all-reduce": ("disable-custom-all-reduce", "disable_custom_all_reduce"),
    "sliding window": ("disable-sliding-window", "disable_sliding_window"),
    "cascade attention": ("disable-cascade-attn", "disable_cascade_attn"),
    "frontend multiprocessing": ("disable-frontend-multiprocessing",
                                 "disable_frontend_multiprocessing"),
    "reasoning parser": ("reasoning-parser", "reasoning_parser"),
}
_TAKE_AWAY = re.compile(r"(?i)\b(?:no|without|turn(?:ing)? off|disable|disabling|drop|skip(?:ping)?)"
                        r"\s+(?:the\s+|a\s+|an\s+)?(" + "|".join(map(re.escape, _FEATURES)) + r")")


@pytest.mark.parametrize("signature", list(default_signatures()), ids=lambda s: s.id)
def test_a_feature_taken_away_is_named_by_its_knob(signature: Signature) -> None:
    for found in _TAKE_AWAY.finditer(signature.fix):
        knobs = _FEATURES[found.group(1).lower()]
        assert any(knob in signature.fix for knob in knobs), (found.group(0), knobs)


# ---- NaN probabilities at sampling: CUDA graphs are ruled out with --enforce-eager -----------

# where the sampler's NaN surfaces, by era: (file under vllm/, function, source line)
_SAMPLERS = [
    ("model_executor/layers/sampler.py", "_random_sample",
     "random_samples = torch.multinomial(probs,"),
    ("model_executor/layers/sampler.py", "_multinomial",
     "return torch.multinomial(probs, num_samples)"),
    ("v1/sample/ops/topk_topp_sampler.py", "random_sample",
     "return probs.div_(q).argmax(dim=-1).view(-1)"),
]
# torch's CUDA multinomial kernel checking the same probabilities on the device
_KERNEL_CHECKS = [
    "binarySearchForMultinomial: block: [0,0,0], thread: [{t},0,0] Assertion "
    "`cumdist[size - 1] > static_cast<scalar_t>(0)` failed.",
    "sampleMultinomialOnce: block: [{t},0,0], thread: [0,0,0] Assertion `!_isnan(val)` failed.",
    "renormRowsL1: block: [0,0,0], thread: [{t},0,0] Assertion `!(val < zero)` failed.",
]


@settings(max_examples=40, deadline=None)
@given(sampler=st.sampled_from(_SAMPLERS), py=_PY, site=_SITE, prefix=_PREFIX,
       kernel=st.one_of(st.none(), st.sampled_from(_KERNEL_CHECKS)), thread=st.integers(0, 31),
       line=st.integers(90, 140))
def test_nan_probabilities_at_sampling_name_cuda_graphs_and_enforce_eager(
        sampler: tuple[str, str, str], py: str, site: str, prefix: str, kernel: str | None,
        thread: int, line: int) -> None:
    root = site.format(py=py) + "vllm/"
    file, function, code = sampler
    frames = [(root + "worker/model_runner.py", "execute_model", "output = self.model.sample("),
              (root + file, function, code)]
    if kernel is None:
        log = python_traceback(frames, "RuntimeError: probability tensor contains either `inf`, "
                                       "`nan` or element < 0", prefix)
    else:
        check = f"../aten/src/ATen/native/cuda/MultinomialKernel.cu:{line}: " + kernel.format(t=thread)
        log = check + "\n" + python_traceback(frames, "RuntimeError: CUDA error: device-side "
                                                       "assert triggered", prefix)
    signature, fix = signature_advice(log)
    assert signature == "sampling-probabilities-nan-inf"
    assert "--enforce-eager" in fix and "CUDA graph" in fix and "cudagraph_mode" in fix


def test_nan_in_a_json_answer_names_cuda_graphs_too() -> None:
    site = "/usr/local/lib/python3.12/dist-packages/"
    frames = [(site + "vllm/entrypoints/openai/serving_chat.py", "chat_completion_stream_generator",
               "data = chunk.model_dump_json(exclude_unset=True)"),
              (site + "starlette/responses.py", "render", "return json.dumps(content, allow_nan=False)")]
    signature, fix = signature_advice(python_traceback(
        frames, "ValueError: Out of range float values are not JSON compliant: nan"))
    assert signature == "model-output-nan-or-inf"
    assert "--enforce-eager" in fix and "CUDA graph" in fix


def test_another_device_side_assert_keeps_its_own_advice() -> None:
    root = "/usr/local/lib/python3.10/dist-packages/"
    log = ("../aten/src/ATen/native/cuda/Indexing.cu:1290: indexSelectLargeIndex: block: [5,0,0], "
           "thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n" + python_traceback(
               [(root + "vllm/model_executor/layers/vocab_parallel_embedding.py", "forward",
                 "output_parallel = F.embedding(masked_input, self.weight)")],
               "RuntimeError: CUDA error: device-side assert triggered"))
    signature, _ = signature_advice(log)
    assert signature != "sampling-probabilities-nan-inf"
