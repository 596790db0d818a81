"""Session 36's fix classes, each over generated wordings and the ways a log shows it, with near
misses:

- a structured-output library (outlines, outlines_core, xgrammar, lm-format-enforcer,
  llguidance) whose installed release lacks a name vLLM imports: structured-output-library-
  version-mismatch, whose fix names the library, the pins vLLM's requirements declare across
  releases and upgrading vLLM; another library's missing name (transformers, torch) stays with
  the package-version family;
- torch's Inductor failing at import on a Triton object it reads (Triton newer than torch):
  inductor-import-triton-api-changed, whose fix pins Triton to torch's release; it asks for
  Inductor's frames (`match.require`), so the interpreter's dataclass TypeError elsewhere is not it;
- a JAX call on another host's TPU device on a multi-host slice: tpu-multihost-non-addressable-
  device, whose fix names the local (addressable) devices, process_index and the Ray backend;
  other XLA statuses keep the TPU runtime family.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_s34_fix_classes import SHAPES, _shaped
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a structured-output library at another release than vLLM's -------------------------------

# (the library's module vLLM imports from, a name it imports, the package named in the fix)
_LIBRARY_NAMES = [
    ("outlines.fsm.json_schema", "build_regex_from_schema", "outlines"),
    ("outlines.fsm.guide", "RegexGuide", "outlines"),
    ("outlines_core.fsm.guide", "create_states_mapping", "outlines_core"),
    ("xgrammar", "StructuralTagItem", "xgrammar"),
    ("xgrammar.testing", "_is_single_token_bitmask", "xgrammar"),
    ("lmformatenforcer.integrations.transformers", "build_token_enforcer_tokenizer_data",
     "lmformatenforcer"),
    ("llguidance.torch", "fill_next_token_bitmask", "llguidance"),
]
# vLLM's importers across releases (outermost first)
_IMPORTERS = [
    [("{site}vllm/entrypoints/openai/serving_chat.py", "<module>",
      "from vllm.model_executor.guided_decoding import get_guided_decoding_logits_processor"),
     ("{site}vllm/model_executor/guided_decoding/outlines_logits_processors.py", "<module>",
      "from {module} import {name}")],
    [("{site}vllm/v1/engine/core.py", "__init__", "self.structured_output_manager = StructuredOutputManager(vllm_config)"),
     ("{site}vllm/v1/structured_output/backend_xgrammar.py", "<module>", "from {module} import {name}")],
    [("{site}vllm/v1/structured_output/__init__.py", "_create_backend", "from vllm.v1.structured_output.backend_guidance import GuidanceBackend"),
     ("{site}vllm/v1/structured_output/backend_guidance.py", "<module>", "from {module} import {name}")],
]


@settings(max_examples=50, deadline=None)
@given(library=st.sampled_from(_LIBRARY_NAMES), importer=st.sampled_from(_IMPORTERS),
       shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       located=st.booleans())
def test_a_structured_output_library_lacking_a_name_names_the_pin(
        library: tuple[str, str, str], importer: list[tuple[str, str, str]], shape: str,
        py: str, site: str, prefix: str, located: bool) -> None:
    module, name, package = library
    root = site.format(py=py)
    where = f" ({root}{module.replace('.', '/')}.py)" if located else ""
    frames = [(p.format(site=root), f, c.format(module=module, name=name)) for p, f, c in importer]
    log = _shaped(f"ImportError: cannot import name '{name}' from '{module}'{where}", frames,
                  shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "structured-output-library-version-mismatch", log
    assert f"`{package}`" in fix and "outlines==0.1.11" in fix and "pip check" in fix, fix


@settings(max_examples=25, deadline=None)
@given(package=st.sampled_from(["outlines", "xgrammar", "llguidance", "outlines_core"]),
       attribute=st.sampled_from(["Grammar", "apply_token_bitmask_inplace", "models"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_structured_output_library_lacking_an_attribute_is_the_same_class(
        package: str, attribute: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/v1/structured_output/backend_xgrammar.py", "compile_grammar",
               f"ctx = {package}.{attribute}(info)")]
    log = python_traceback(frames, f"AttributeError: module '{package}' has no attribute "
                                   f"'{attribute}'", prefix)
    sid, fix = signature_advice(log)
    assert sid == "structured-output-library-version-mismatch", log
    assert f"`{package}`" in fix, fix


@pytest.mark.parametrize("error", [
    # another library's missing name: the package-version family
    "ImportError: cannot import name 'get_image_processor_config' from "
    "'transformers.models.auto.image_processing_auto'",
    "ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler'",
    # a library whose name only starts like one of them
    "ImportError: cannot import name 'Guide' from 'outlines_extra.fsm'",
    # the library not installed at all: the missing-package class
    "ModuleNotFoundError: No module named 'xgrammar'",
    # a grammar the library refuses: a request error, not a release mismatch
    "RuntimeError: [10:02:11] xgrammar/cpp/json_schema_converter.cc:712: Unsupported type 'foo'",
])
def test_other_import_errors_are_not_the_structured_output_release_class(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/v1/structured_output/backend_xgrammar.py",
               "<module>", "import xgrammar as xgr")]
    sid, _ = signature_advice(python_traceback(frames, error))
    assert sid != "structured-output-library-version-mismatch", (error, sid)


# ---- torch's Inductor at import, on a Triton newer than torch ------------------------------------

# Who imports Inductor first (outermost), then Inductor's own import chain to runtime/hints.py.
_INDUCTOR_IMPORTERS = [
    [("{site}vllm/compilation/inductor_pass.py", "<module>",
      "from torch._inductor.custom_graph_pass import CustomGraphPass")],
    [("{site}habana_frameworks/torch/dynamo/compile_backend/freezing_passes.py", "<module>",
      "from torch._inductor.freezing import discard_traced_gm_params")],
    [("{site}torch/__init__.py", "__init__", "from torch._inductor.compile_fx import compile_fx")],
    [("{site}vllm/v1/worker/gpu_model_runner.py", "load_model", "self.model = torch.compile(self.model)"),
     ("{site}torch/__init__.py", "compile", "backend = _TorchCompileInductorWrapper(mode, options, dynamic)")],
]
_INDUCTOR_CHAIN = [
    ("{site}torch/_inductor/compile_fx.py", "<module>",
     "from torch._inductor.debug import save_args_for_compile_fx_inner"),
    ("{site}torch/_inductor/debug.py", "<module>", "from . import config, ir"),
    ("{site}torch/_inductor/ir.py", "<module>", "from .runtime.hints import ReductionHint"),
    ("{site}torch/_inductor/runtime/hints.py", "<module>",
     "attr_desc_fields = {f.name for f in fields(AttrsDescriptor)}"),
    ("/usr/lib/python{py}/dataclasses.py", "fields",
     "raise TypeError('must be called with a dataclass type or instance') from None"),
]


@settings(max_examples=40, deadline=None)
@given(importer=st.sampled_from(_INDUCTOR_IMPORTERS), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES, cut=st.integers(min_value=0, max_value=3))
def test_inductor_reading_a_changed_triton_object_pins_triton(
        importer: list[tuple[str, str, str]], py: str, site: str, prefix: str, cut: int) -> None:
    root = site.format(py=py)
    chain = _INDUCTOR_CHAIN[cut:]  # a traceback whose outer Inductor frames were elided
    frames = [(p.format(site=root, py=py), f, c) for p, f, c in [*importer, *chain]]
    log = python_traceback(frames, "TypeError: must be called with a dataclass type or instance",
                           prefix)
    sid, fix = signature_advice(log)
    assert sid == "inductor-import-triton-api-changed", log
    assert "triton==3.1.0" in fix and "pip show torch" in fix and "downgrade triton" in fix, fix


@pytest.mark.parametrize("frames", [
    # a user's own dataclass misuse
    [("/workspace/report.py", "<module>", "cols = [f.name for f in fields(Summary)]"),
     ("/usr/lib/python3.11/dataclasses.py", "fields", "raise TypeError(...)")],
    # a library's (vLLM's config) outside Inductor
    [("/usr/local/lib/python3.12/dist-packages/vllm/config/utils.py", "get_field",
      "for f in fields(cls):"),
     ("/usr/lib/python3.12/dataclasses.py", "fields", "raise TypeError(...)")],
])
def test_the_dataclass_typeerror_outside_inductor_is_not_the_triton_class(
        frames: list[tuple[str, str, str]]) -> None:
    for shape in ("traceback", "oneline"):
        log = _shaped("TypeError: must be called with a dataclass type or instance", frames,
                      shape, "")
        sid, _ = signature_advice(log)
        assert sid != "inductor-import-triton-api-changed", (log, sid)


# ---- a JAX call on another host's TPU device -----------------------------------------------------

_NON_ADDRESSABLE = [
    "INVALID_ARGUMENT: MemoryStats is only supported for addressable PjRt devices.",
    "INVALID_ARGUMENT: MemoryStats is only\nsupported for addressable PjRt devices.",
    "INVALID_ARGUMENT: Copying to non-addressable device TPU_12(process=3,(0,0,0,0)) is not supported",
]
_JAX_CLASSES = st.sampled_from(["jax.errors.JaxRuntimeError", "JaxRuntimeError",
                                "jaxlib.xla_extension.XlaRuntimeError", "XlaRuntimeError"])
_TPU_CALLERS = [
    [("/workspace/tpu_inference/worker/tpu_worker.py", "determine_available_memory",
      "used, limit = utils.hbm_usage_bytes(self.devices)"),
     ("/workspace/tpu_inference/utils.py", "hbm_usage_bytes", "stats = device.memory_stats()")],
    [("/home/u/bench/probe.py", "<module>", "print([d.memory_stats() for d in jax.devices()])")],
]


@settings(max_examples=40, deadline=None)
@given(message=st.sampled_from(_NON_ADDRESSABLE), cls=_JAX_CLASSES,
       caller=st.sampled_from(_TPU_CALLERS), shape=SHAPES,
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=231) ERROR 04-02 10:00:01 [core.py:708] ",
                               "  "]))
def test_a_non_addressable_tpu_device_names_the_local_devices(
        message: str, cls: str, caller: list[tuple[str, str, str]], shape: str,
        prefix: str) -> None:
    if shape == "record":  # a logger prefixes each line of a wrapped message
        message = message.replace("\n", f"\n{prefix}")
    log = _shaped(f"{cls}: {message}", caller, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "tpu-multihost-non-addressable-device", log
    assert "jax.local_devices()" in fix and "process_index" in fix and "ray" in fix, fix


@pytest.mark.parametrize("message", [
    "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 12.50G.",
    "INVALID_ARGUMENT: Shardings of the inputs are not addressable by the same devices",
    "FAILED_PRECONDITION: The TPU is already in use by process with pid 8812.",
])
def test_other_tpu_runtime_statuses_are_not_the_non_addressable_class(message: str) -> None:
    log = python_traceback(_TPU_CALLERS[0], f"jax.errors.JaxRuntimeError: {message}")
    sid, _ = signature_advice(log)
    assert sid != "tpu-multihost-non-addressable-device", (message, sid)
