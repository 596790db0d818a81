"""Classes behind three of session 31's twenty-second split's cold fix misses (sigs-d's), each
generated over its wordings and the ways a log shows it, with a near miss:

- a compiled graph loaded from vLLM's torch.compile cache (its `call` frame inside
  `torch_compile_cache/`, an AOT artifact's or Inductor's) calling a custom operator this run never
  registered (`'_OpNamespace' '<ns>' object has no attribute '<op>'`, or the dispatcher's `No such
  operator`): torch-compile-cache-graph-calls-missing-op, whose fix names VLLM_DISABLE_COMPILE_CACHE
  and the cache directory; an operator of vLLM's Python-registered `vllm` namespace missing without
  such a frame: vllm-registered-op-missing, whose fix leads with the same cache; vLLM's own call of
  its compiled `_C` extension stays vllm-custom-op-not-registered;
- vLLM's compilation code reaching a private torch name where this torch or Python does not
  offer it: mock's `does not have the attribute` on the standalone_compile function (vLLM 0.18
  on Python 3.10 and older): standalone-compile-fake-mode-patch-resolves-function; other imports,
  attributes and patch targets of torch's compiler packages from vllm/compilation/:
  vllm-compile-torch-internals-mismatch, whose fix names the torch version the release pins;
- a speculative-decoding method that the release does not implement for a platform, an engine, a
  model family or a parallel layout: draft-model-spec-decode-unsupported-v1 for the draft model
  on V1, spec-decode-method-unsupported-here for the rest, whose fixes name the methods to choose
  (ngram, EAGLE, MTP); a value wrong in itself does not get it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice


def _signature_id(log: str) -> str | None:
    from logsleuth.pipeline import explain_text

    report = explain_text(log)
    return report.signature.id if report.signature is not None else None


_HEX = st.text("0123456789abcdef", min_size=10, max_size=64)
_NAMESPACES = st.sampled_from(["vllm", "_C", "_moe_C", "_C_cache_ops", "_rocm_C"])
_OPS = st.sampled_from(["flashinfer_mm_fp4", "bmm_fp8", "rocm_aiter_rms_norm", "unified_attention",
                        "cutlass_scaled_mm", "silu_and_mul", "moe_forward", "all_reduce"])
_CACHE_ROOTS = st.sampled_from(["/root/.cache/vllm/", "/home/u/.cache/vllm/", "/data/vllm-cache/",
                                "/models/cache/"])
_CACHE_LAYOUTS = st.sampled_from(["torch_compile_cache/torch_aot_compile/{h}/inductor_cache/q3/",
                                  "torch_compile_cache/{h}/rank_0_0/inductor_cache/k2/",
                                  "torch_compile_cache/{h}/rank_1_0/backbone/inductor_cache/ab/"])


def _op_error(namespace: str, op: str, form: str) -> str:
    if form == "attribute":
        return f"AttributeError: '_OpNamespace' '{namespace}' object has no attribute '{op}'"
    return f"RuntimeError: No such operator {namespace}::{op}"


@settings(max_examples=60, deadline=None)
@given(namespace=_NAMESPACES, op=_OPS, form=st.sampled_from(["attribute", "dispatcher"]),
       root=_CACHE_ROOTS, layout=_CACHE_LAYOUTS, digest=_HEX, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_cached_graph_calling_a_missing_op_gets_the_cache_advice(
        namespace: str, op: str, form: str, root: str, layout: str, digest: str, py: str,
        site: str, prefix: str) -> None:
    packages = site.format(py=py)
    cached = root + layout.format(h=digest) + "cq3xk7b2mfa4yhz6t1e5w8nrd0uvj9gcs2.py"
    frames = [(f"{packages}vllm/v1/worker/gpu_model_runner.py", "_dummy_run",
               "outputs = self.model("),
              (cached, "call", f"buf9 = torch.ops.{namespace}.{op}.default(buf4, arg7_1)"),
              (f"{packages}torch/_ops.py", "__getattr__", "raise AttributeError(")]
    log = python_traceback(frames, _op_error(namespace, op, form), prefix)
    sid, fix = signature_advice(log)
    assert sid == "torch-compile-cache-graph-calls-missing-op", log
    assert "VLLM_DISABLE_COMPILE_CACHE" in fix and "torch_compile_cache" in fix, fix


@settings(max_examples=40, deadline=None)
@given(op=_OPS, form=st.sampled_from(["attribute", "dispatcher"]),
       caller=st.sampled_from([("vllm/_aiter_ops.py", "rms_norm"),
                               ("vllm/model_executor/layers/quantization/modelopt.py", "apply"),
                               ("vllm_ascend/ops/linear.py", "forward"),
                               ("my_model_pkg/modeling.py", "forward")]),
       shape=st.sampled_from(["bare", "traceback"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_missing_op_of_vllms_python_namespace_gets_the_family(
        op: str, form: str, caller: tuple[str, str], shape: str, py: str, site: str,
        prefix: str) -> None:
    error = _op_error("vllm", op, form)
    if shape == "bare":
        log = prefix + error + "\n"
    else:
        packages = site.format(py=py)
        frames = [(packages + caller[0], caller[1], f"return torch.ops.vllm.{op}(x)"),
                  (f"{packages}torch/_ops.py", "__getattr__", "raise AttributeError(")]
        log = python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    # a one-line paste shows no frame to tell a cached graph from another caller: either
    # signature's advice leads with the compile cache
    assert sid in ("vllm-registered-op-missing", "torch-compile-cache-graph-calls-missing-op"), log
    if shape == "traceback":
        assert sid == "vllm-registered-op-missing", log
    assert "VLLM_DISABLE_COMPILE_CACHE" in fix and "torch_compile_cache" in fix, fix


@pytest.mark.parametrize("namespace", ["_C", "_moe_C", "_C_cache_ops"])
def test_vllms_own_call_of_an_unloaded_extension_is_not_a_stale_cache(namespace: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/_custom_ops.py", "rms_norm",
               f"torch.ops.{namespace}.rms_norm(out, input, weight, epsilon)"),
              ("/usr/local/lib/python3.12/dist-packages/torch/_ops.py", "__getattr__",
               "raise AttributeError(")]
    log = python_traceback(frames, _op_error(namespace, "rms_norm", "attribute"))
    assert _signature_id(log) == "vllm-custom-op-not-registered", log


# ---- vLLM's compilation code and torch's private names -------------------------------------------

_COMPILE_CALLERS = [
    ("vllm/compilation/backends.py", "compile", "compiled_graph, handle = self.compiler.compile("),
    ("vllm/compilation/compiler_interface.py", "compile",
     "with pregrad_ctx, fake_mode_ctx, _patch_constrain_to_fx_strides():"),
]
_MOCK_FRAMES = [("{py_lib}unittest/mock.py", "__enter__", "original, local = self.get_original()"),
                ("{py_lib}unittest/mock.py", "get_original", "raise AttributeError(")]


@settings(max_examples=40, deadline=None)
@given(address=st.integers(0x7f0000000000, 0x7fffffffffff), py=st.sampled_from(["3.9", "3.10"]),
       lib=st.sampled_from(["/usr/lib/python{py}/", "/opt/conda/lib/python{py}/", ".../python{py}/"]),
       site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       lead=st.sampled_from(["", "(EngineCore_DP0 pid=92680) ERROR [core.py:1099] EngineCore "
                                 "failed to start.\n"]))
def test_the_fake_mode_patch_on_the_function_gets_its_exact(
        address: int, py: str, lib: str, site: str, prefix: str, lead: str) -> None:
    packages, py_lib = site.format(py=py), lib.format(py=py)
    frames = [(packages + path, function, code) for path, function, code in _COMPILE_CALLERS]
    frames += [(path.format(py_lib=py_lib), function, code) for path, function, code in _MOCK_FRAMES]
    error = (f"AttributeError: <function standalone_compile at {address:#x}> does not have the "
             "attribute 'FakeTensorMode'")
    log = lead + python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    assert sid == "standalone-compile-fake-mode-patch-resolves-function", log
    assert "VLLM_USE_STANDALONE_COMPILE=0" in fix and "Python 3.11" in fix, fix
    assert "0.19" in fix and "torch version" in fix, fix


@settings(max_examples=60, deadline=None)
@given(error=st.sampled_from([
           "ImportError: cannot import name 'CompiledArtifact' from 'torch._inductor.standalone_compile'",
           "ImportError: cannot import name 'torch_key' from 'torch._inductor.codecache' "
           "(/x/torch/_inductor/codecache.py)",
           "AttributeError: module 'torch._inductor.config' has no attribute 'force_disable_caches'",
           "AttributeError: module 'torch._dynamo.symbolic_convert' has no attribute "
           "'InliningInstructionTranslator'",
           "ModuleNotFoundError: No module named 'torch._inductor.runtime.triton_heuristics'",
           "AttributeError: <module 'torch._inductor.compile_fx' from '/x/torch/_inductor/"
           "compile_fx.py'> does not have the attribute '_recursive_pre_grad_passes'"]),
       caller=st.sampled_from(["vllm/compilation/compiler_interface.py",
                               "vllm/compilation/backends.py", "vllm/compilation/decorators.py",
                               "vllm/compilation/piecewise_backend.py"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_torch_internals_vllms_compiler_reaches_get_the_torch_version_advice(
        error: str, caller: str, py: str, site: str, prefix: str) -> None:
    packages = site.format(py=py)
    frames = [(f"{packages}vllm/v1/worker/gpu_model_runner.py", "load_model",
               "self.model = self.load_model("),
              (packages + caller, "compile", "from torch._inductor import config")]
    log = python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    assert sid == "vllm-compile-torch-internals-mismatch", log
    assert "torch version" in fix and "pip show vllm torch" in fix, fix
    assert "--enforce-eager" in fix and "VLLM_USE_STANDALONE_COMPILE=0" in fix, fix


def test_a_plugins_mock_patch_of_another_library_is_not_torchs() -> None:
    frames = [("/usr/local/lib/python3.10/site-packages/my_plugin/patches.py", "apply",
               'with patch("transformers.modeling_utils.PreTrainedModel.tie_weights", _tie):')]
    frames += [(path.format(py_lib="/usr/lib/python3.10/"), function, code)
               for path, function, code in _MOCK_FRAMES]
    log = python_traceback(frames, "AttributeError: <class 'transformers.modeling_utils."
                                   "PreTrainedModel'> does not have the attribute 'tie_weights'")
    assert _signature_id(log) not in ("vllm-compile-torch-internals-mismatch",
                                      "standalone-compile-fake-mode-patch-resolves-function"), log


# ---- a speculative-decoding method the release lacks somewhere ---------------------------------

_REFUSALS = [
    ("NotImplementedError", "vllm/platforms/rocm.py", "Speculative decoding is not yet supported on "
     "vLLM V1."),
    ("NotImplementedError", "vllm/platforms/hpu.py", "Speculative decoding is not implemented for HPU"),
    ("NotImplementedError", "vllm/platforms/cuda.py", "Speculative decoding is not supported on "
     "vLLM V0."),
    ("NotImplementedError", "vllm/models/deepseek_v4/cpu/mtp.py", "DeepSeek-V4 speculative decoding "
     "(MTP) is not implemented on CPU."),
    ("NotImplementedError", "vllm/model_executor/layers/mamba/abstract.py", "Mamba with speculative "
     "decoding is not supported yet."),
    ("ValueError", "vllm/v1/worker/gpu/model_runner.py", "EAGLE3 with pipeline parallel is not "
     "supported."),
]
_DRAFT_MODEL = [
    ("NotImplementedError", "vllm/config/speculative.py", "Speculative decoding with draft model is "
     "not supported yet. Please consider using other speculative decoding methods such as ngram, "
     "medusa, eagle, or mtp."),
    ("NotImplementedError", "vllm/engine/arg_utils.py", "Draft model speculative decoding is not "
     "supported yet. Please consider using other speculative decoding methods such as ngram, "
     "medusa, eagle, or mtp."),
]
_SPEC_PREFIXES = st.sampled_from(["", "(APIServer pid=135812) ", "ERROR 01-08 10:00:01 [core.py:700] "])


@settings(max_examples=60, deadline=None)
@given(refusal=st.sampled_from(_REFUSALS + _DRAFT_MODEL), py=PYTHONS, site=SITE_PACKAGES,
       prefix=_SPEC_PREFIXES, shape=st.sampled_from(["bare", "traceback", "pydantic"]))
def test_a_spec_decode_method_lacking_here_gets_the_methods_to_choose(
        refusal: tuple[str, str, str], py: str, site: str, prefix: str, shape: str) -> None:
    exception, path, message = refusal
    error = f"{exception}: {message}"
    packages = site.format(py=py)
    if shape == "bare":
        log = prefix + error + "\n"
    else:
        frames = [(f"{packages}vllm/engine/arg_utils.py", "create_engine_config",
                   "speculative_config = self.create_speculative_config(")]
        if shape == "pydantic":
            frames.append((f"{packages}pydantic/_internal/_dataclasses.py", "__init__",
                           "s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), "
                           "self_instance=s)"))
        frames.append((packages + path, "__post_init__", f"raise {exception}("))
        log = python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    want = ("draft-model-spec-decode-unsupported-v1" if refusal in _DRAFT_MODEL
            else "spec-decode-method-unsupported-here")
    assert sid == want, log
    lowered = fix.lower()
    assert "ngram" in lowered and "eagle" in lowered and "mtp" in lowered, fix


@pytest.mark.parametrize("error", [
    "ValueError: Expected num_speculative_tokens to be greater than zero (0).",
    "ValueError: Structured output is not supported with speculative decoding.",
    "ValueError: The min_p and logit_bias sampling parameters are not yet supported with "
    "speculative decoding.",
])
def test_a_spec_decode_setting_wrong_in_itself_is_not_a_missing_method(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/config/speculative.py",
               "__post_init__", "raise ValueError(")]
    log = python_traceback(frames, error)
    assert _signature_id(log) != "spec-decode-method-unsupported-here", log
