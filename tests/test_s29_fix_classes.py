"""Classes behind session 29's twentieth split's cold fix misses, each generated over its wordings
and the ways a log shows it, with a near miss:

- a vLLM package without its compiled extensions (a source tree on the path, an unbuilt
  checkout): `_C` and its siblings, cumem_allocator and the per-kernel modules of releases up to
  0.2.x (`activation_ops`, `cuda_utils`, ...), in both of Python's wordings (`No module named
  'vllm.X'`; `cannot import name 'X' from partially initialized module 'vllm'`), bare, in a
  traceback or in runpy's one line: vllm-c-extension-missing, whose fix names the source tree,
  PYTHONPATH and `pip install -e .`; a name that is no extension does not get it;
- an index past the scheduler's compacted grammar-bitmask rows in a model runner's
  `apply_grammar_bitmask` (a plugin's copy or vLLM's own, numpy's or torch's wording):
  grammar-bitmask-rows-out-of-step; the same IndexError elsewhere does not get it;
- "Encoder cache miss for <mm_hash>." raised by a worker (assertion or RuntimeError) or quoted by
  the engine core: encoder-cache-entry-missing-at-gather, whose fix names the encoder cache and the
  runner's encoder step; the processor cache's own miss does not get it;
- a platform plugin's own module calling a `torch.ops` operator that refuses its arguments (torch's
  dispatcher frame `torch/_ops.py` innermost), the plugin installed, checked out or its directory on
  the path as it is: the **Plugin code** paragraph names the module, and the plugin's switch between
  its implementations of that module (signatures/plugin-switches.yaml: vllm-ascend's
  USE_OPTIMIZED_MODEL for its Qwen2.5-VL vision tower); the same operator called by vLLM's code or
  another library's gets no plugin paragraph."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.errors import SignatureError
from logsleuth.index.plugin import load_switches
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a vllm package without its compiled extensions --------------------------------------------

_EXTENSIONS = st.sampled_from(["_C", "_moe_C", "_rocm_C", "_flashmla_C", "cumem_allocator",
                               "activation_ops", "attention_ops", "cache_ops", "cuda_utils",
                               "layernorm_ops", "pos_encoding_ops", "quantization_ops"])
_CHECKOUTS = st.sampled_from(["/workspace/vllm/", "/home/u/src/vllm/", "/opt/inference/vllm/",
                              "C:\\Users\\u\\vllm\\"])
_ENTRYPOINTS = st.sampled_from(["vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server",
                                "vllm.entrypoints.cli.main"])


def _init_path(checkout: str) -> str:
    sep = "\\" if "\\" in checkout else "/"
    return f"{checkout}vllm{sep}__init__.py"


@settings(max_examples=60, deadline=None)
@given(ext=_EXTENSIONS, checkout=_CHECKOUTS, entry=_ENTRYPOINTS, prefix=TRACEBACK_PREFIXES,
       wording=st.sampled_from(["missing", "partial", "plain"]),
       shape=st.sampled_from(["bare", "runpy", "traceback"]))
def test_a_vllm_package_without_a_compiled_extension_points_at_the_source_tree(
        ext: str, checkout: str, entry: str, prefix: str, wording: str, shape: str) -> None:
    init = _init_path(checkout)
    error = {"missing": f"ModuleNotFoundError: No module named 'vllm.{ext}'",
             "partial": f"ImportError: cannot import name '{ext}' from partially initialized module "
                        f"'vllm' (most likely due to a circular import) ({init})",
             "plain": f"ImportError: cannot import name '{ext}' from 'vllm' ({init})"}[wording]
    if shape == "bare":
        log = prefix + error + "\n"
    elif shape == "runpy":
        log = f"/usr/bin/python3: Error while finding module specification for '{entry}' ({error})\n"
    else:
        frames = [(f"{checkout}examples/offline_inference.py", "<module>", "from vllm import LLM"),
                  (init, "<module>", "from vllm.engine.arg_utils import EngineArgs"),
                  (f"{checkout}vllm/utils.py", "<module>", f"from vllm import {ext}")]
        log = python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    assert sid == "vllm-c-extension-missing", log
    assert "PYTHONPATH" in fix and "pip install -e ." in fix and "source tree" in fix, fix


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(["LLM", "SamplingParams", "envs", "AsyncEngineArgs", "_version",
                             "_custom_ops", "vllm_flash_attn"]),
       checkout=_CHECKOUTS, partial=st.booleans())
def test_a_name_that_is_no_compiled_extension_is_not_the_missing_extension(
        name: str, checkout: str, partial: bool) -> None:
    init = _init_path(checkout)
    where = "partially initialized module 'vllm' (most likely due to a circular import)" \
        if partial else "'vllm'"
    log = f"ImportError: cannot import name '{name}' from {where} ({init})\n"
    from logsleuth.pipeline import explain_text

    report = explain_text(log)
    assert report.signature is None or report.signature.id != "vllm-c-extension-missing", log


# ---- an index past the compacted grammar-bitmask rows --------------------------------------------

_RUNNERS = st.sampled_from([
    ("vllm_ascend/worker/model_runner_v1.py", "apply_grammar_bitmask"),
    ("vllm_gaudi/v1/worker/hpu_model_runner.py", "apply_grammar_bitmask"),
    ("vllm_gaudi/v1/worker/hpu_model_runner.py", "prefill_apply_grammar_bitmask"),
    ("vllm/v1/worker/gpu_model_runner.py", "apply_grammar_bitmask"),
    ("vllm/v1/structured_output/utils.py", "apply_grammar_bitmask"),
])


@settings(max_examples=60, deadline=None)
@given(runner=_RUNNERS, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       size=st.integers(1, 64), over=st.integers(0, 8),
       axis=st.sampled_from(["axis", "dimension"]))
def test_an_index_past_the_grammar_bitmask_rows_gets_the_layout_advice(
        runner: tuple[str, str], py: str, site: str, prefix: str, size: int, over: int,
        axis: str) -> None:
    path, function = runner
    root = site.format(py=py)
    frames = [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
               "output = func(*args, **kwargs)"),
              (f"{root}{path.split('/')[0]}/worker/model_runner.py", "execute_model",
               "self.apply_grammar_bitmask(scheduler_output, logits)"),
              (f"{root}{path}", function, "sorted_bitmask[batch_index] = grammar_bitmask[orig_index]")]
    error = f"IndexError: index {size + over} is out of bounds for {axis} 0 with size {size}"
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "grammar-bitmask-rows-out-of-step"
    assert "grammar_bitmask" in fix and "--max-num-seqs 1" in fix, fix


@settings(max_examples=30, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, size=st.integers(1, 64),
       where=st.sampled_from([("vllm/v1/worker/gpu_input_batch.py", "add_request"),
                              ("vllm/v1/sample/sampler.py", "gather_logprobs"),
                              ("vllm_ascend/worker/model_runner_v1.py", "_prepare_inputs")]))
def test_the_same_index_error_elsewhere_is_not_the_bitmask_layout(
        py: str, site: str, size: int, where: tuple[str, str]) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
               "output = func(*args, **kwargs)"),
              (f"{root}{where[0]}", where[1], "self.token_ids_cpu[req_index] = ids")]
    log = python_traceback(frames, f"IndexError: index {size} is out of bounds for axis 0 with "
                                   f"size {size}")
    from logsleuth.pipeline import explain_text

    report = explain_text(log)
    assert report.signature is None or report.signature.id != "grammar-bitmask-rows-out-of-step"


# ---- an encoder cache miss ----------------------------------------------------------------------

_HASHES = st.text("0123456789abcdef", min_size=16, max_size=64)


@settings(max_examples=60, deadline=None)
@given(mm_hash=_HASHES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       shape=st.sampled_from(["assert", "runtime", "quoted", "quoted-bare"]))
def test_an_encoder_cache_miss_gets_the_encoder_cache_advice(
        mm_hash: str, py: str, site: str, prefix: str, shape: str) -> None:
    root = site.format(py=py)
    message = f"Encoder cache miss for {mm_hash}."
    if shape in ("assert", "runtime"):
        frames = [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
                   "output = func(*args, **kwargs)"),
                  (f"{root}vllm/v1/worker/gpu_model_runner.py", "execute_model",
                   "mm_embeds = self._gather_mm_embeddings(scheduler_output)"),
                  (f"{root}vllm/v1/worker/gpu_model_runner.py", "_gather_mm_embeddings",
                   "assert encoder_output is not None, f\"Encoder cache miss for {mm_hash}.\"")]
        kind = "AssertionError" if shape == "assert" else "RuntimeError"
        log = python_traceback(frames, f"{kind}: {message}", prefix)
    else:
        error = (f"RuntimeError: Worker failed with error '{message}', please check the stack "
                 f"trace above for the root cause")
        frames = [(f"{root}vllm/v1/engine/core.py", "run_engine_core", "engine_core.run_busy_loop()"),
                  (f"{root}vllm/v1/executor/multiproc_executor.py", "get_response",
                   "raise RuntimeError(")]
        log = python_traceback(frames, error, prefix) if shape == "quoted" else prefix + error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "encoder-cache-entry-missing-at-gather", log
    assert "encoder cache" in fix and "_execute_mm_encoder" in fix, fix


@settings(max_examples=20, deadline=None)
@given(mm_hash=_HASHES, prefix=TRACEBACK_PREFIXES)
def test_the_processor_cache_miss_is_not_the_encoder_cache(mm_hash: str, prefix: str) -> None:
    log = prefix + f"AssertionError: Expected a cached item for mm_hash='{mm_hash}'\n"
    from logsleuth.pipeline import explain_text

    report = explain_text(log)
    assert report.signature is None or \
        report.signature.id != "encoder-cache-entry-missing-at-gather", log


# ---- a plugin's own code calling a torch.ops operator ---------------------------------------------
# (the twentieth split's Ascend vision tower whose unpadded implementation passed CPU tensors to an
# NPU operator: torch's dispatcher frame under the plugin's is no library of its own; the plugin's
# directory on the path as it is names the plugin too; a switch of the plugin's between its
# implementations of the module that raised is named, signatures/plugin-switches.yaml)

_PLUGIN_ROOTS = st.sampled_from(["{site}", "/home/u/", "/root/vllm-ascend/", "/opt/src/"])
_SWITCHED = st.sampled_from(["models/qwen2_5_vl_without_padding.py", "models/qwen2_5_vl.py",
                             "models/qwen2_5_omni_thinker.py", "ops/mm_encoder_attention.py",
                             "patch/worker/patch_qwen2_5_vl.py"])
_UNSWITCHED = st.sampled_from(["attention/attention_v1.py", "ops/rotary_embedding.py",
                               "models/deepseek_v2.py", "worker/model_runner_v1.py"])
_OPERATOR_ERRORS = st.sampled_from([
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
    "npu:0 and cpu! (when checking argument for argument r1 in method wrapper__npu_rotary_mul)",
    "RuntimeError: expected scalar type BFloat16 but found Float",
])


def _plugin_op_log(root: str, module_file: str, error: str, prefix: str, py: str, site: str) -> str:
    site_root = site.format(py=py)
    plugin = root.format(site=site_root) + "vllm_ascend/" + module_file
    frames = [(f"{site_root}vllm/v1/worker/gpu_model_runner.py", "execute_model",
               "model_output = self.model(**model_kwargs)"),
              (f"{site_root}torch/nn/modules/module.py", "_call_impl",
               "return forward_call(*args, **kwargs)"),
              (plugin, "forward", "q = torch_npu.npu_rotary_mul(q, cos, sin)"),
              (f"{site_root}torch/_ops.py", "__call__", "return self._op(*args, **(kwargs or {}))")]
    return python_traceback(frames, error, prefix)


@settings(max_examples=40, deadline=None)
@given(root=_PLUGIN_ROOTS, module_file=_SWITCHED, error=_OPERATOR_ERRORS,
       prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES)
def test_a_plugin_module_a_switch_selects_names_the_plugin_and_its_switch(
        root: str, module_file: str, error: str, prefix: str, py: str, site: str) -> None:
    _, fix = signature_advice(_plugin_op_log(root, module_file, error, prefix, py, site))
    module = "vllm_ascend." + module_file.removesuffix(".py").replace("/", ".")
    assert "**Plugin code**" in fix and f"`{module}`" in fix, fix
    assert "USE_OPTIMIZED_MODEL" in fix and "qwen2_5_vl_without_padding" in fix, fix


@settings(max_examples=30, deadline=None)
@given(root=_PLUGIN_ROOTS, module_file=_UNSWITCHED, error=_OPERATOR_ERRORS,
       prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES)
def test_a_plugin_module_no_switch_selects_names_the_plugin_only(
        root: str, module_file: str, error: str, prefix: str, py: str, site: str) -> None:
    _, fix = signature_advice(_plugin_op_log(root, module_file, error, prefix, py, site))
    assert "**Plugin code**" in fix and "vllm_ascend." in fix, fix
    assert "USE_OPTIMIZED_MODEL" not in fix, fix


@settings(max_examples=20, deadline=None)
@given(error=_OPERATOR_ERRORS, py=PYTHONS, site=SITE_PACKAGES,
       caller=st.sampled_from(["vllm/_custom_ops.py", "torch_npu/contrib/function/rotary.py"]))
def test_an_operator_called_by_vllm_or_another_library_is_not_the_plugins(
        error: str, py: str, site: str, caller: str) -> None:
    site_root = site.format(py=py)
    frames = [(f"{site_root}vllm_ascend/worker/model_runner_v1.py", "execute_model",
               "hidden_states = self.model(input_ids)"),
              (f"{site_root}{caller}", "rotary", "return torch.ops.npu.npu_rotary_mul(q, c, s)"),
              (f"{site_root}torch/_ops.py", "__call__", "return self._op(*args, **(kwargs or {}))")]
    _, fix = signature_advice(python_traceback(frames, error))
    assert "**Plugin code**" not in fix, fix


def test_a_switch_file_without_its_sources_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plugin-switches.yaml"
    path.write_text("switches:\n  - package: vllm-ascend\n    modules: '^vllm_ascend\\.x$'\n"
                    "    text: say it\n")
    with pytest.raises(SignatureError):
        load_switches(path)
    assert load_switches()  # the shipped file reads
