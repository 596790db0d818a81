"""Families matched by the raising module (`match.module`): the fallback for vLLM's long tail of
messages no signature knows by its words. The raising module is read from the traceback's innermost
frame, else from where vLLM's message index files the message; a module match is weaker than any
message or regex, never reaches a symptom, and is not fooled by an error another library raised
under a vLLM frame."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.origin import vllm_module
from logsleuth.model import Confidence, Phase, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures
from logsleuth.signatures.load import load_signature_file
from logsleuth.signatures.match import CHAIN_WEIGHT, MODULE_ONLY, SYMPTOM_WEIGHT, THRESHOLD
from v1log import ERAS, SITE, worker_failure

# (family, raising module, function, a message that module raises in vLLM's source)
RAISED = [
    ("quantization-method-rejected",
     "vllm.model_executor.layers.quantization.compressed_tensors.schemes.compressed_tensors_wNa16",
     "__init__", "ValueError: Unsupported num_bits = 3. Supported num_bits = [4, 8]"),
    ("moe-kernel-rejected", "vllm.model_executor.layers.fused_moe.fused_moe",
     "fused_experts_impl", "AssertionError: Hidden size mismatch"),
    ("attention-kernel-rejected", "vllm.v1.attention.backends.flash_attn", "get_kv_cache_shape",
     "ValueError: Block size must be a multiple of 16."),
    ("model-implementation-rejected", "vllm.model_executor.models.llama", "__init__",
     "ValueError: Unsupported activation: gelu. Only silu is supported for now."),
    ("kv-offload-rejected", "vllm.v1.kv_offload.factory", "create_spec",
     "ValueError: Unsupported spec type: DiskSpec"),
    ("vllm-internal-assertion", "vllm.v1.core.kv_cache_utils", "block_hash",
     "AssertionError: The block already has a hash. This should not happen."),
]
PHASES = [Phase.INIT, Phase.LOAD, Phase.PROFILE, Phase.KV_CACHE, Phase.SERVING]


def _frame(module: str, function: str) -> tuple[tuple[str, str], ...]:
    return ((SITE.rsplit("vllm/", 1)[0] + module.replace(".", "/") + ".py", function),)


@pytest.mark.parametrize("family,module,function,error", RAISED, ids=[r[0] for r in RAISED])
@settings(max_examples=6)
@given(data=st.data())
def test_an_error_raised_in_a_module_gets_its_subsystems_family(
        family: str, module: str, function: str, error: str, data: st.DataObject) -> None:
    era = data.draw(st.sampled_from(ERAS), label="era")
    phase = data.draw(st.sampled_from(PHASES), label="phase")
    log = worker_failure(error, phase=phase, era=era, inner=_frame(module, function))
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    if report.signature.kind is SignatureKind.EXACT:
        # words an exact class knows beat the library that raised them (a platform plugin calling
        # vLLM with another release's arguments is platform-plugin-vllm-call-mismatch); the
        # library's family stays the runner-up
        assert family in [m.id for m in report.alternatives], report.signature
        return
    assert report.signature.id == family, report.signature


def test_without_frames_the_index_names_the_module() -> None:
    """An ERROR record prints no traceback: the module comes from vLLM's message index."""
    log = ("(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:30 [factory.py:61] Unsupported spec type: "
           "DiskSpec\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.id == "kv-offload-rejected"


def test_an_error_another_library_raises_under_a_vllm_frame_is_not_claimed() -> None:
    """torch raised it (its frame is innermost): the vLLM module above it did not."""
    inner = (*_frame("vllm.model_executor.layers.fused_moe.fused_moe", "fused_experts_impl"),
             ("/usr/local/lib/python3.12/dist-packages/torch/_ops.py", "__call__"))
    log = worker_failure("ValueError: expected a contiguous tensor of rank 2", phase=Phase.PROFILE,
                         inner=inner)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.id not in {r[0] for r in RAISED}


def test_a_signature_that_knows_the_words_wins_even_when_its_frames_differ() -> None:
    """An exact signature whose call path differs beats a family that knows only the module."""
    log = worker_failure("ValueError: Cannot find any of ['bits'] in the model's quantization "
                         "config.", phase=Phase.LOAD,
                         inner=_frame("vllm.model_executor.layers.quantization.gptq", "from_config"))
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is SignatureKind.EXACT
    assert "quantization-method-rejected" in [m.id for m in report.alternatives]


def _module_family(tmp_path: Path, exceptions: str = "[ValueError]") -> SignatureSet:
    path = tmp_path / "config" / "only-module.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "id: only-module\ntitle: a family known by its module alone\ncategory: config\n"
        "kind: family\ndescription: A test family matched only by the raising module.\n"
        "severity: error\nstatus: stable\nmatch:\n"
        f"  exception: {exceptions}\n  module: ['^vllm\\.config\\.']\n"
        "fix: Check the argument the message names against vllm serve --help.\nreferences: [https://docs.vllm.ai/]\n", encoding="utf-8")
    return SignatureSet([load_signature_file(path)])


def test_a_module_match_never_reaches_the_threshold_on_a_symptom_or_a_wrong_type(
        tmp_path: Path) -> None:
    # a symptom's weight (the root cause not in the log) keeps a module alone under the threshold
    assert MODULE_ONLY * SYMPTOM_WEIGHT < THRESHOLD <= MODULE_ONLY * CHAIN_WEIGHT
    signatures = _module_family(tmp_path)
    inner = _frame("vllm.config.model", "_verify_quantization")
    raised = explain_text(worker_failure("ValueError: Unknown quantization method: foo8",
                                         inner=inner), signatures=signatures)
    assert raised.signature is not None and raised.signature.score == pytest.approx(0.75)
    wrong_type = explain_text(worker_failure("KeyError: 'foo8'", inner=inner),
                              signatures=signatures)
    # under the threshold: the subsystem's family still answers, with low confidence
    assert wrong_type.signature is not None and wrong_type.signature.score < THRESHOLD
    assert wrong_type.signature.confidence is Confidence.LOW


# ---- installed libraries ---------------------------------------------------------------------------

# (family, the library's module that raised, function): an error vLLM did not raise itself
LIBRARIES = [
    ("library-transformers-error", "transformers.configuration_utils", "__init__"),
    ("library-huggingface-hub-error", "huggingface_hub.file_download", "hf_hub_download"),
    ("library-triton-error", "triton.compiler.compiler", "compile"),
    ("library-flashinfer-error", "flashinfer.decode", "plan"),
    ("library-ray-error", "ray._private.worker", "get_objects"),
    ("library-safetensors-error", "safetensors.torch", "load_file"),
    ("library-tokenizer-backend-error", "sentencepiece", "LoadFromFile"),
    ("library-structured-output-backend-error", "xgrammar.compiler", "compile_json_schema"),
    ("library-bitsandbytes-error", "bitsandbytes.functional", "quantize_4bit"),
    ("library-torch-distributed-error", "torch.distributed.distributed_c10d", "new_group"),
    ("library-torch-compile-error", "torch._inductor.lowering", "wrapped"),
    ("library-torch-cuda-error", "torch.cuda", "set_device"),
    ("library-numpy-abi-error", "numpy.core._multiarray_umath", "__getattr__"),
    ("library-peft-error", "peft.config", "from_pretrained"),
    ("library-kv-connector-error", "lmcache.v1.cache_engine", "store"),
    ("library-zmq-error", "zmq.sugar.socket", "recv"),
    ("library-pydantic-validation-error", "pydantic._internal._dataclasses", "__init__"),
    ("library-attention-package-error", "flash_attn.flash_attn_interface", "_flash_attn_forward"),
    ("library-platform-plugin-error", "vllm_ascend.worker.model_runner_v1", "profile_run"),
    ("library-harmony-encoding-error", "openai_harmony", "load_harmony_encoding"),
    ("library-media-decoder-error", "PIL.Image", "open"),
    ("library-gguf-error", "gguf.gguf_reader", "_build_tensors"),
    ("library-compressed-tensors-error", "compressed_tensors.quantization.quant_config",
     "model_validate"),
]
_PREFIXES = ["/usr/local/lib/python3.12/dist-packages/", "/opt/conda/lib/python3.10/site-packages/",
             "/usr/lib/python3/dist-packages/", "/home/u/.venv/lib/python3.11/site-packages/"]
_UNKNOWN_ERRORS = ["RuntimeError: qzv unexpected state 7 in blorp", "KeyError: 'zqxv'",
                   "TypeError: frob() takes 2 positional arguments but 3 were given"]


def _library_frame(prefix: str, module: str, function: str) -> tuple[str, str]:
    package = "." not in module  # a package's own __init__.py
    return (prefix + module.replace(".", "/") + ("/__init__" if package else "") + ".py", function)


@pytest.mark.parametrize("family,module,function", LIBRARIES, ids=[r[0] for r in LIBRARIES])
@settings(max_examples=6)
@given(data=st.data())
def test_an_error_a_library_raised_gets_that_librarys_family(
        family: str, module: str, function: str, data: st.DataObject) -> None:
    prefix = data.draw(st.sampled_from(_PREFIXES), label="install")
    error = data.draw(st.sampled_from(_UNKNOWN_ERRORS), label="error")
    inner = [_library_frame(prefix, module, function)]
    if data.draw(st.booleans(), label="stdlib below"):  # Python's own code raised it for the library
        inner.append(("/usr/lib/python3.12/json/encoder.py", "default"))
    log = worker_failure(error, phase=data.draw(st.sampled_from(PHASES), label="phase"),
                         era=data.draw(st.sampled_from(ERAS), label="era"), inner=tuple(inner))
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    if report.signature.kind is SignatureKind.EXACT:
        # words an exact class knows beat the library that raised them (a platform plugin calling
        # vLLM with another release's arguments is platform-plugin-vllm-call-mismatch); the
        # library's family stays the runner-up
        assert family in [m.id for m in report.alternatives], report.signature
        return
    assert report.signature.id == family, report.signature


@pytest.mark.parametrize("family,module,function", LIBRARIES[:4], ids=[r[0] for r in LIBRARIES[:4]])
def test_a_library_frame_above_vllms_own_raise_is_not_the_library(
        family: str, module: str, function: str) -> None:
    inner = (_library_frame(_PREFIXES[0], module, function),
             *_frame("vllm.model_executor.models.utils", "load_weights"))
    report = explain_text(worker_failure(_UNKNOWN_ERRORS[0], inner=inner),
                          signatures=default_signatures())
    assert report.signature is None or report.signature.id != family


def test_words_a_signature_knows_beat_the_library_that_raised_them() -> None:
    # torch.compile's own failure, raised in Dynamo: the family that knows the words wins over
    # the family that knows only where
    inner = (_library_frame(_PREFIXES[0], "torch._dynamo.convert_frame", "_compile"),)
    log = worker_failure("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
                         "RuntimeError: qzv", phase=Phase.PROFILE, inner=inner)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.id != "library-torch-compile-error"
    assert "library-torch-compile-error" in [m.id for m in report.alternatives]


# Where an environment lives: a vLLM source checkout often holds the virtualenv itself
# (`~/vllm/.venv`, vllm#26678), so a directory named `vllm` sits above every installed library.
ROOTS = st.sampled_from(["/usr/local/lib", "/home/u/vllm/.venv/lib", "/work/vllm/vllm/.venv29/lib",
                         "/opt/conda/envs/vllm/lib", "/root/vllm-src/vllm/env/lib"])
PYTHONS = st.sampled_from(["python3.10", "python3.12"])
INSTALLS = st.sampled_from(["site-packages", "dist-packages"])
LIBRARY_FILES = st.sampled_from(["torch/_inductor/scheduler.py", "transformers/configuration_utils.py",
                                 "triton/runtime/jit.py", "torch/distributed/distributed_c10d.py"])
VLLM_FILES = st.sampled_from(["vllm/v1/worker/gpu_worker.py", "vllm/config/model.py",
                              "vllm/model_executor/models/llama.py"])


@settings(max_examples=40)
@given(root=ROOTS, python=PYTHONS, installs=INSTALLS, library=LIBRARY_FILES, own=VLLM_FILES)
def test_a_library_installed_under_a_directory_named_vllm_is_not_vllm(
        root: str, python: str, installs: str, library: str, own: str) -> None:
    """The installed file's package decides: torch stays torch whatever directory holds the
    environment, and vLLM's own files (installed or in the checkout) stay vLLM's."""
    site = f"{root}/{python}/{installs}/"
    assert vllm_module(site + library) is None
    assert vllm_module(site + own) == own[:-3].replace("/", ".")
    assert vllm_module("/home/u/src/" + own) == own[:-3].replace("/", ".")
