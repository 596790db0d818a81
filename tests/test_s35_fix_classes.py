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
  kernels and layers missing an attribute are not it;
- an installed plugin (general or platform) that imports an optional package at module level,
  raised through vLLM's plugin loader (its frames, or the "Failed to load plugin" record that
  introduces a caught plugin's traceback), in each release's loader shape:
  plugin-imports-missing-optional-package, whose fix names installing the package, `VLLM_PLUGINS`,
  uninstalling the plugin and the plugin release made for this vLLM; the same import failure
  raised outside the loader keeps the missing-package family, and a vLLM module missing keeps the
  version-mismatch class.
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
    if shape == "traceback" and "load_general_plugins" in frames[0][1]:
        # through vLLM's plugin loader: the plugin's class, whose fix also says how to keep it out
        assert sid == "plugin-imports-missing-optional-package", log
        assert "`ray`" in fix and "VLLM_PLUGINS" in fix, fix
        return
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


# ---- a plugin importing an optional package, raised through vLLM's plugin loader ------------------

# The loader's frames (outermost first) in each release's shape: 0.6's load_general_plugins that
# loaded and called each entry point itself, load_plugins_by_group's `plugin.load()` (0.7 on),
# load_general_plugins calling a loaded plugin's register(), the platform resolver calling the
# activated platform plugin.
_LOADER_FRAMES = [
    [("{site}vllm/engine/arg_utils.py", "add_cli_args", "load_general_plugins()"),
     ("{site}vllm/plugins/__init__.py", "load_general_plugins", "func = plugin.load()")],
    [("{site}vllm/v1/engine/core.py", "run_engine_core", "load_general_plugins()"),
     ("{site}vllm/plugins/__init__.py", "load_general_plugins",
      "plugins = load_plugins_by_group(group=DEFAULT_PLUGINS_GROUP)"),
     ("{site}vllm/plugins/__init__.py", "load_plugins_by_group", "func = plugin.load()"),
     ("/usr/lib/python{py}/importlib/metadata/__init__.py", "load",
      "module = import_module(match.group('module'))")],
    [("{site}vllm/entrypoints/cli/serve.py", "subparser_init", "serve_parser = make_arg_parser(serve_parser)"),
     ("{site}vllm/plugins/__init__.py", "load_general_plugins", "func()")],
    [("{site}vllm/platforms/__init__.py", "__getattr__",
      "platform_cls_qualname = resolve_current_platform_cls_qualname()"),
     ("{site}vllm/platforms/__init__.py", "resolve_current_platform_cls_qualname",
      "platform_cls_qualname = platform_plugins[activated_oot_plugins[0]]()")],
]
# (the plugin's package, the optional package it imports at module level, the module Python names)
_PLUGIN_IMPORTS = [
    ("vllm_kvx", "from nixl._api import nixl_agent", "nixl"),
    ("vllm_ascend", "from mooncake.engine import TransferEngine", "mooncake"),
    ("vllm_acme", "from lmcache.v1.cache_engine import LMCacheEngine", "lmcache"),
    ("vllm_gaudi", "import ray", "ray"),
    ("my_vllm_patches", "import deep_gemm", "deep_gemm"),
    ("vllm_spyre", "from flashinfer.comm import trtllm_allreduce_fusion", "flashinfer.comm"),
]


def _plugin_frames(loader: list[tuple[str, str, str]], plugin: str, code: str, root: str,
                   py: str) -> list[tuple[str, str, str]]:
    frames = [(path.format(site=root, py=py), function, line) for path, function, line in loader]
    return frames + [(f"{root}{plugin}/__init__.py", "register", f"from {plugin}.patch import worker"),
                     (f"{root}{plugin}/patch/worker.py", "<module>", code)]


@settings(max_examples=60, deadline=None)
@given(loader=st.sampled_from(_LOADER_FRAMES), imported=st.sampled_from(_PLUGIN_IMPORTS),
       cls=st.sampled_from(["ModuleNotFoundError", "ImportError"]), py=PYTHONS,
       site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_plugin_importing_a_missing_package_names_install_and_vllm_plugins(
        loader: list[tuple[str, str, str]], imported: tuple[str, str, str], cls: str, py: str,
        site: str, prefix: str) -> None:
    plugin, code, module = imported
    root = site.format(py=py)
    log = python_traceback(_plugin_frames(loader, plugin, code, root, py),
                           f"{cls}: No module named '{module}'", prefix)
    sid, fix = signature_advice(log)
    assert sid == "plugin-imports-missing-optional-package", log
    assert f"`{module}`" in fix and "VLLM_PLUGINS" in fix and "pip uninstall" in fix, fix


@settings(max_examples=30, deadline=None)
@given(imported=st.sampled_from(_PLUGIN_IMPORTS), group=st.sampled_from(["general", "platform"]),
       name=st.sampled_from(["kvx_connector", "ascend", "register_dummy_model", "acme"]),
       record=st.sampled_from(["Failed to load plugin {name}", "Failed to load general plugin: {name}"]),
       stamp=st.sampled_from(["ERROR 03-20 06:11:02 [__init__.py:44] ",
                              "(APIServer pid=81) ERROR 11-02 09:14:50 [__init__.py:60] ",
                              "2026-01-05T10:00:00.123456789Z ERROR 01-05 10:00:00 [__init__.py:44] "]),
       py=PYTHONS, site=SITE_PACKAGES)
def test_a_caught_plugin_import_logged_by_the_loader_is_the_plugin_class(
        imported: tuple[str, str, str], group: str, name: str, record: str, stamp: str,
        py: str, site: str) -> None:
    """vLLM catches `plugin.load()`'s exception and logs it under "Failed to load plugin <name>"
    (logger.exception): the record and its traceback, with the discovery lines before it."""
    plugin, code, module = imported
    root = site.format(py=py)
    info = stamp.replace("ERROR", "INFO")
    head = (f"{info}Available plugins for group vllm.{group}_plugins:\n"
            f"{info}- {name} -> {plugin}:register\n"
            f"{stamp}{record.format(name=name)}\n")
    frames = [(f"{root}vllm/plugins/__init__.py", "load_plugins_by_group", "func = plugin.load()"),
              (f"{root}{plugin}/__init__.py", "<module>", code)]
    log = head + python_traceback(frames, f"ModuleNotFoundError: No module named '{module}'", stamp)
    sid, fix = signature_advice(log)
    assert sid == "plugin-imports-missing-optional-package", log
    assert "VLLM_PLUGINS" in fix, fix


@pytest.mark.parametrize("frames, error, family", [
    # the same import failure from vLLM's own KV-connector factory, outside the plugin loader
    ([("/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/factory.py",
       "loader", "module = importlib.import_module(module_path)"),
      ("/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/lmcache_connector.py",
       "<module>", "from lmcache.integration.vllm.vllm_v1_adapter import LMCacheConnectorV1Impl")],
     "ModuleNotFoundError: No module named 'lmcache'", None),
    # a user's script importing a kernel library
    ([("/home/u/bench.py", "<module>", "import deep_gemm")],
     "ModuleNotFoundError: No module named 'deep_gemm'", "missing-optional-package"),
    # vLLM's engine importing ray eagerly (releases before its imports were lazy)
    ([("/usr/local/lib/python3.10/site-packages/vllm/executor/ray_utils.py", "<module>", "import ray")],
     "ModuleNotFoundError: No module named 'ray'", "ray-module-missing"),
    # through the loader, but a module of vLLM itself: the plugin was built for another vLLM
    ([("/usr/local/lib/python3.10/site-packages/vllm/plugins/__init__.py", "load_plugins_by_group",
       "func = plugin.load()"),
      ("/usr/local/lib/python3.10/site-packages/vllm_ascend/__init__.py", "<module>",
       "from vllm.model_executor.layers.sampler import SamplerOutput")],
     "ModuleNotFoundError: No module named 'vllm.model_executor.layers.sampler'", None),
])
def test_the_same_import_failure_outside_the_loader_is_not_the_plugin_class(
        frames: list[tuple[str, str, str]], error: str, family: str | None) -> None:
    for prefix in ("", "ERROR 07-28 10:42:05 [core.py:387] "):
        sid, _ = signature_advice(python_traceback(frames, error, prefix))
        assert sid != "plugin-imports-missing-optional-package", (error, sid)
        if family is not None:
            assert sid == family, (error, sid)
