"""Families reach the members of their class that no exact signature is needed for (issue 11,
leave-one-out): with every exact signature withheld, each member's error, in each shape a log
gives it (a bare line, a traceback through vLLM's frames, an engine core's ERROR record, torchrun's
rank prefix), is answered by its class's family, and the family's fix names the member's knob;
near neighbours in the same words go elsewhere.

The members are the classes session 20's leave-one-out found uncovered: an attention kernel that
lacks a model's feature (logits soft-capping, ALiBi) or whose own argument check fails (FlashInfer's
paged-KV checks), xgrammar's bitmask kernels by name, torch's shared-memory files, a device or
kernel that cannot compute in bfloat16, an OpenAI client without the server's key, the Gaudi
backend's own refusals, the KV cache specs' checks, an error raised inside the chat template's
rendering, and the sleep-mode allocator's CUDA errors."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures
from tool_import import import_tool
from v1log import python_traceback

SITE = "/usr/local/lib/python3.12/dist-packages/"
VLLM = SITE + "vllm/"

# (error line, frames innermost last as (path, function), family, a knob its fix must name)
MEMBERS = [
    ("RuntimeError: CHECK_EQ(paged_kv_indptr.size(0), batch_size + 1) failed. 1 vs 257",
     [(VLLM + "attention/backends/flashinfer.py", "begin_forward")],
     "attention-backend-unavailable", "flashinfer-python"),
    ("ValueError: Torch SPDA does not support logits soft cap.",
     [(VLLM + "attention/backends/torch_sdpa.py", "__init__")],
     "attention-backend-unavailable", "upgrade vLLM"),
    ("NotImplementedError: FlashMLAImpl does not support one of the following: alibi_slopes, "
     "sliding_window, logits_soft_cap", [(VLLM + "v1/attention/backends/mla/flashmla.py", "__init__")],
     "attention-backend-unavailable", "--attention-backend"),
    ("RuntimeError: attn_bias is not correctly aligned",
     [(SITE + "xformers/ops/fmha/common.py", "validate_inputs")],
     "attention-backend-unavailable", "ALiBi"),
    ("TypeError: apply_token_bitmask_inplace_cpu(): incompatible function arguments. The "
     "following argument types are supported:", [], "structured-output-backend", "xgrammar"),
    ("RuntimeError: unable to mmap 1048576 bytes from file </torch_4100_2394872_0>: Cannot "
     "allocate memory (12)", [(SITE + "torch/storage.py", "_new_shared_fd_cpu")],
     "shared-memory-too-small", "--shm-size"),
    ("ValueError: torch.bfloat16 is not supported for quantization method awq. Supported dtypes: "
     "[torch.float16]", [(VLLM + "model_executor/model_loader.py", "get_model")],
     "device-dtype-unsupported", "--dtype half"),
    ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
     "Your Tesla T4 GPU has compute capability 7.5.",
     [(VLLM + "worker/worker.py", "_check_if_gpu_supports_dtype")],
     "device-dtype-unsupported", "--dtype half"),
    ("RuntimeError: RopeOperation_0 Atlas inference products can not support bf16.", [],
     "device-dtype-unsupported", "--dtype half"),
    ("openai.AuthenticationError: Error code: 401 - {'error': 'Unauthorized'}",
     [(SITE + "openai/_base_client.py", "request")], "openai-client-authentication-failed",
     "--api-key"),
    ("openai.OpenAIError: The api_key client option must be set either by passing api_key to the "
     "client or by setting the OPENAI_API_KEY environment variable",
     [(SITE + "openai/_client.py", "__init__")], "openai-client-authentication-failed",
     "VLLM_API_KEY"),
    ("AssertionError: Contiguous PA doesn't support APC",
     [(VLLM + "worker/hpu_model_runner.py", "__init__")], "hpu-backend-rejected",
     "VLLM_CONTIGUOUS_PA"),
    ("AssertionError: Prefill with FusedSDPA not supported with alibi slopes!",
     [(VLLM + "attention/backends/hpu_attn.py", "__init__")], "hpu-backend-rejected",
     "vllm-gaudi"),
    ("ValueError: All attention layers in the same KV cache group must have the same window size.",
     [(VLLM + "v1/core/kv_cache_utils.py", "unify_hybrid_kv_cache_specs"),
      (VLLM + "v1/kv_cache_interface.py", "merge_window_sizes")],
     "kv-cache-manager-rejected", "--disable-hybrid-kv-cache-manager"),
    ("TypeError: can only concatenate str (not \"dict\") to str",
     [(VLLM + "entrypoints/chat_utils.py", "apply_hf_chat_template"),
      (SITE + "jinja2/environment.py", "render"), ("<template>", "top-level template code")],
     "library-jinja2-error", "--chat-template-content-format"),
    ("RuntimeError: CUDA Error: operation not supported at /workspace/csrc/cumem_allocator.cpp:62",
     [(VLLM + "device_allocator/cumem.py", "python_malloc_callback")],
     "sleep-mode-failed", "--enable-sleep-mode"),
]

# (error line, frames, the family that must NOT answer): the same words, another failure
NEAR_MISSES = [
    ("RuntimeError: CHECK_EQ(x.size(0), y.size(0)) failed. 3 vs 4",
     [(SITE + "some_ext/ops.py", "run")], "attention-backend-unavailable"),
    ("ValueError: Prefix caching is not supported with sliding window. Run with "
     "--disable-sliding-window to use prefix caching.", [(VLLM + "config.py", "__post_init__")],
     "attention-backend-unavailable"),
    ("NotImplementedError: DCP for FlashMLA sparse requires an fp8_ds_mla kv-cache; the bf16 sparse "
     "path is not supported under DCP.", [(VLLM + "v1/attention/backends/mla/flashmla_sparse.py",
                                           "__init__")], "device-dtype-unsupported"),
    ("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::BFloat16 != "
     "c10::Half", [(SITE + "torch/nn/functional.py", "linear")], "device-dtype-unsupported"),
    ("openai.NotFoundError: Error code: 404 - {'object': 'error', 'message': 'The model `x` does "
     "not exist.'}", [(SITE + "openai/_base_client.py", "request")],
     "openai-client-authentication-failed"),
    ("AssertionError: Contiguous PA doesn't support APC",
     [(VLLM + "worker/model_runner.py", "__init__")], "hpu-backend-rejected"),
]

# how the traceback reaches the log: printed bare, under a V1 engine core's ERROR records, with
# torchrun's rank prefix
PREFIXES = ["", "(EngineCore_DP0 pid=4100) ERROR 11-03 14:02:16 [core.py:708] ", "[rank0]: "]


@cache
def families() -> SignatureSet:
    return import_tool("family_loo", "loo").families_only(default_signatures())


def _log(error: str, frames: list[tuple[str, str]], prefix: str) -> str:
    if not frames:
        return prefix + error + "\n"
    return python_traceback([(path, function, "call(...)") for path, function in frames], error,
                            prefix)


@settings(max_examples=60, deadline=None)
@given(member=st.sampled_from(MEMBERS), prefix=st.sampled_from(PREFIXES))
def test_a_family_answers_its_member_with_every_exact_signature_withheld(
        member: tuple[str, list[tuple[str, str]], str, str], prefix: str) -> None:
    error, frames, family, knob = member
    report = explain_text(_log(error, frames, prefix), signatures=families())
    assert report.signature is not None, error
    assert report.signature.id == family, (error, report.signature.id)
    assert knob.lower() in report.signature.fix.lower(), (family, knob)


@pytest.mark.parametrize(("error", "frames", "family"), NEAR_MISSES,
                         ids=[f"{f}-{i}" for i, (_, _, f) in enumerate(NEAR_MISSES)])
def test_a_near_neighbour_in_the_same_words_goes_elsewhere(
        error: str, frames: list[tuple[str, str]], family: str) -> None:
    for prefix in PREFIXES:
        report = explain_text(_log(error, frames, prefix), signatures=families())
        assert report.signature is None or report.signature.id != family, (error, prefix)
