"""Classes behind session 35's split's cold fix misses (dev-fix's), each generated over its
wordings and the ways a log shows it, with near misses:

- Ray missing where something imported it ("No module named 'ray'", bare or behind an import
  chain: a platform plugin's global patch loading a weight-transfer engine, vLLM's own modules
  before they imported it lazily, a framework's vLLM backend): ray-module-missing, whose fix
  says to install ray and to upgrade what imports it eagerly; a submodule missing from an
  installed Ray, and vLLM's own "Failed to import Ray" check, are other classes;
- a KV-cache block size an attention kernel or backend does not take, in each one's words and
  release (the paged-attention kernel's "Unsupported block size: N", 0.6.6's cache config, the
  V1 selector's "does not support block size N", AITER/FlashAttention's multiple of 16,
  Triton's FP8 minimum, MLA's block size 1, b12x, FlyDSL): attention-block-size-unsupported,
  whose fix names `--block-size` and another attention backend; head-size refusals and a weight
  quantization block are not it;
- a kernel library's fused-MoE or GEMM kernel class lacking an attribute its own code uses (a
  FlashInfer / CuTe DSL build that does not match vLLM): moe-kernel-library-object-attribute-
  missing, whose fix names the FlashInfer version and another MoE backend; vLLM's own linear
  kernels and layers missing an attribute are not it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# a message as a traceback, its last line alone or behind a prefix, as session 34's classes show it
from test_s34_fix_classes import SHAPES, _shaped
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice


# ---- Ray imported where it is not installed -------------------------------------------------------

# Who imports ray at module level, outermost first below the entry point.
_RAY_IMPORTERS = [
    [("{site}vllm/plugins/__init__.py", "load_general_plugins", "func()"),
     ("{site}vllm_ascend/utils.py", "adapt_patch", "from vllm_ascend.patch import platform"),
     ("{site}vllm_ascend/patch/platform/patch_weight_transfer_engine.py", "<module>",
      "from vllm_ascend.distributed.weight_transfer.npu_ipc_engine import ("),
     ("{site}vllm/distributed/weight_transfer/ipc_engine.py", "<module>", "import ray")],
    [("{site}vllm/engine/llm_engine.py", "<module>", "from vllm.executor.ray_utils import initialize_ray_cluster"),
     ("{site}vllm/executor/ray_utils.py", "<module>", "import ray")],
    [("{site}lm_eval/api/registry.py", "get_model", "from lm_eval.models import vllm_causallms"),
     ("{site}lm_eval/models/vllm_causallms.py", "<module>", "import ray")],
    [("/home/u/rl/train.py", "<module>", "from trainer.rollout import VllmRollout"),
     ("/home/u/rl/trainer/rollout.py", "<module>", "import ray")],
]


@settings(max_examples=40, deadline=None)
@given(importer=st.sampled_from(_RAY_IMPORTERS), cls=st.sampled_from(["ModuleNotFoundError", "ImportError"]),
       shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_ray_imported_where_it_is_not_installed_names_install_and_lazy_import(
        importer: list[tuple[str, str, str]], cls: str, shape: str, py: str,
        site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root), function, code) for path, function, code in importer]
    log = _shaped(f"{cls}: No module named 'ray'", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "ray-module-missing", log
    assert "pip install ray" in fix and "lazily" in fix and "weight_transfer" in fix, fix


@pytest.mark.parametrize("error, not_it", [
    ("ModuleNotFoundError: No module named 'ray.dag'", "a submodule an older Ray lacks"),
    ("ModuleNotFoundError: No module named 'ray_adapter'", "another package"),
    ("ModuleNotFoundError: No module named 'rayon'", "another package"),
    ("ValueError: Failed to import Ray, please install Ray with `pip install ray`.", "vLLM's own check"),
])
def test_other_missing_modules_are_not_ray_missing(error: str, not_it: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/ray_distributed_executor.py",
               "_init_executor", "from ray.dag import InputNode")]
    sid, _ = signature_advice(python_traceback(frames, error))
    assert sid != "ray-module-missing", not_it


# ---- a KV-cache block size the attention kernel does not take -------------------------------------

# (message, innermost vLLM frame) in each backend's and release's words; N is the refused size.
_BLOCK_SIZE_REFUSALS = [
    ("RuntimeError: Unsupported block size: {n}", "vllm/_custom_ops.py", "paged_attention_v1"),
    ("RuntimeError: Unsupported block size: {n}", "vllm/_custom_ops.py", "paged_attention_v2"),
    ("ValueError: CUDA Paged Attention kernel only supports block sizes up to 32. Got {n}.",
     "vllm/config.py", "_verify_args"),
    ("ValueError: The selected backend, FLASHMLA,does not support block size {n}.",
     "vllm/platforms/cuda.py", "get_attn_backend_cls"),
    ("ValueError: The selected backend, ROCM_AITER_MLA,does not support block size {n}.(currently only supports block size 1)",
     "vllm/platforms/rocm.py", "get_attn_backend_cls"),
    ("ValueError: Block size must be a multiple of 16.", "vllm/v1/attention/backends/rocm_aiter_fa.py", "__init__"),
    ("ValueError: Block size must be a multiple of 16.", "vllm/v1/attention/backends/flash_attn.py", "get_kv_cache_shape"),
    ("AssertionError: Block size must be at least 32 for fp8", "vllm/attention/ops/triton_unified_attention.py",
     "unified_attention"),
    ("AssertionError: AITER MLA requires only block size 1.", "vllm/attention/backends/rocm_aiter_mla.py", "__init__"),
    ("AssertionError: Sparse MLA backend on ROCm only supports block size 1 for now.",
     "vllm/v1/attention/backends/mla/rocm_aiter_mla_sparse.py", "__init__"),
    ("ValueError: b12x requires --block-size in (64, 128), got {n}.", "vllm/v1/attention/backends/b12x.py", "__init__"),
    ("AssertionError: FlyDSL supports kv_block_size 16 or 32, got {n}", "vllm/v1/attention/ops/flydsl_turboquant_decode.py",
     "decode"),
    ("AssertionError: kv_block_size must be 16 or 32; got {n}", "vllm/v1/attention/ops/flydsl_kernels/tq_decode.py",
     "launch"),
]


@settings(max_examples=60, deadline=None)
@given(refusal=st.sampled_from(_BLOCK_SIZE_REFUSALS), n=st.sampled_from([8, 24, 64, 128, 256, 512]),
       shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_block_size_the_kernel_does_not_take_names_block_size_and_backend(
        refusal: tuple[str, str, str], n: int, shape: str, py: str, site: str, prefix: str) -> None:
    message, path, function = refusal
    root = site.format(py=py) + "vllm/"
    frames = [(f"{root}v1/worker/gpu_model_runner.py", "initialize_kv_cache", "self.initialize_attn_backend(kv_cache_config)"),
              (root + path.removeprefix("vllm/"), function, "raise ValueError(")]
    log = _shaped(message.format(n=n), frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "attention-block-size-unsupported", log
    assert "--block-size 16" in fix and "--attention-backend" in fix and "VLLM_ATTENTION_BACKEND" in fix, fix


@pytest.mark.parametrize("error", [
    "RuntimeError: Unsupported head size: 160",
    "NotImplementedError: FlashInfer CUTLASS FP8 MoE backend only supports block size [128, 128].",
    "AssertionError: Only support weight_block_size == [128, 128], got [64, 64]",
    "RuntimeError: Unsupported block size for page attention: 7 (another library's words)",
    "ValueError: When enabling chunked prefill and prefix caching, max_num_batched_tokens (chunk size) must be divisible by block size, but got chunk_size=100 and block_size=16.",
])
def test_other_size_refusals_are_not_the_kv_block_size(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", "load_model",
               "self.model_runner.load_model()")]
    sid, _ = signature_advice(python_traceback(frames, error))
    assert sid != "attention-block-size-unsupported", error


# ---- a kernel library's MoE / GEMM kernel class missing its own attribute -------------------------

_KERNEL_CLASSES = ["MoEGatedDynamicKernel", "Sm120FusedMoEGatedKernel", "MoEStaticKernelV5",
                   "Sm100BlockScaledPersistentDenseGemmKernel", "BlockwiseGemmKernel",
                   "GroupedGemmKernelSm90", "CuteMoeExpertsKernel"]
_HELPERS = ["_collapse_to_vmk", "_tile_sf_layout", "make_tiled_mma", "epilogue_op"]


@settings(max_examples=40, deadline=None)
@given(cls=st.sampled_from(_KERNEL_CLASSES), helper=st.sampled_from(_HELPERS),
       library=st.sampled_from(["flashinfer/fused_moe/cute_dsl/sm120", "flashinfer/gemm/kernels", "cutlass/cute"]),
       shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_kernel_library_class_missing_its_helper_names_flashinfer_version_and_moe_backend(
        cls: str, helper: str, library: str, shape: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/model_executor/layers/fused_moe/layer.py", "forward_impl",
               "final_hidden_states = self.quant_method.apply("),
              (f"{root}{library}/kernel.py", "partition_sfa", f"return self.{helper}(sfa, tile_shape)")]
    log = _shaped(f"AttributeError: '{cls}' object has no attribute '{helper}'", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "moe-kernel-library-object-attribute-missing", log
    assert "flashinfer version" in fix.lower() and "moe backend" in fix.lower(), fix


@pytest.mark.parametrize("error", [
    "AttributeError: 'MarlinLinearKernel' object has no attribute 'w_q_name'",
    "AttributeError: 'CutlassScaledMMLinearKernel' object has no attribute 'config'",
    "AttributeError: 'FusedMoE' object has no attribute 'w13_weight_scale'",
    "AttributeError: module 'flashinfer' has no attribute 'trtllm_fp4_block_scale_moe'",
    "AttributeError: 'Qwen3MoeForCausalLM' object has no attribute 'packed_modules_mapping'",
])
def test_vllm_objects_missing_an_attribute_are_not_a_kernel_library_class(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/model_loader/utils.py",
               "process_weights_after_loading", "quant_method.process_weights_after_loading(module)")]
    sid, _ = signature_advice(python_traceback(frames, error))
    assert sid != "moe-kernel-library-object-attribute-missing", error
