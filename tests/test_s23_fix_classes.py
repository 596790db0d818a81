"""Classes behind session 23's fourteenth split's cold fix misses, each generated over its eras,
wordings and the ways a log shows it, with a near miss that keeps its own answer:

- a CUDA fault (an illegal memory access, a cuBLAS GEMM that fails after one, `invalid argument`,
  an unspecified launch failure) in a tensor-parallel run whose fused all-reduce + RMSNorm pass is
  on, as the engine says it (0.17+'s "Enabled custom fusions: ... allreduce_rms", the pass config
  of an engine config or a command line, 0.10-0.12's `enable_fi_allreduce_fusion`, the FlashInfer
  workspace the pass allocates): cuda-fault-with-fused-allreduce-rmsnorm, whose fix turns the pass
  off (vllm issues 34948, 45604); the same fault with the pass off, with nothing said about it,
  or after the pass turned itself off (its FlashInfer workspace failed), keeps the general advice;
- the loader's completeness check listing a multimodal model's encoder weights (`visual.*`,
  `vision_tower.*`, `multi_modal_projector.*`, `audio_tower.*`, under any wrapper prefix), a
  text-only checkpoint of a vision or audio architecture: multimodal-encoder-weights-missing-
  from-checkpoint, whose fix names `--language-model-only` and every modality's limit at 0 (vllm
  PR 26000); a set of language-model names only keeps the general signature."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase
from v1log import ERAS, signature_advice, worker_failure

# ---- a CUDA fault with the fused all-reduce + RMSNorm pass on ------------------------------------

_FAULTS = st.sampled_from([
    "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, "
    "opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, "
    "ldc, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
    "torch.AcceleratorError: CUDA error: invalid argument\nSearch for `cudaErrorInvalidValue' in "
    "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
    "RuntimeError: CUDA error: unspecified launch failure",
])
# How a log says the pass is on, by era: the engine's list of fusions (0.17+), the pass config of
# the engine config line (dict) or of 0.10-0.11's JSON, the command line's dotted flag, the
# workspace the pass allocates.
_PASS_ON = st.sampled_from([
    "(APIServer pid=4000) INFO 02-05 10:10:58 [compilation.py:330] Enabled custom fusions: "
    "allreduce_rms",
    "(APIServer pid=4000) INFO 02-05 10:10:58 [compilation.py:321] Enabled custom fusions: "
    "norm_quant, act_quant, allreduce_rms",
    "(EngineCore_DP0 pid=4100) INFO 02-05 10:10:59 [core.py:116] Initializing a V1 LLM engine "
    "(v0.18.1) with config: model='/models/m', tensor_parallel_size=4, compilation_config={'mode': "
    "<CompilationMode.VLLM_COMPILE: 3>, 'pass_config': {'fuse_norm_quant': False, "
    "'fuse_allreduce_rms': True, 'enable_sp': False}}",
    "INFO 09-02 11:40:12 [core.py:69] Initializing a V1 LLM engine (v0.10.1) with config: "
    "model='/models/m', tensor_parallel_size=2, compilation_config={\"level\":3,\"pass_config\":"
    "{\"enable_fi_allreduce_fusion\":true,\"enable_noop\":true}}",
    "$ vllm serve /models/m -tp 4 --compilation-config.pass_config.fuse_allreduce_rms=true",
    "(Worker_TP0 pid=207850) INFO 02-05 10:11:20 [flashinfer_all_reduce.py:170] Initialized "
    "FlashInfer Allreduce norm fusion workspace with backend=trtllm",
])
_PASS_OFF = st.sampled_from([
    "",  # nothing said about the pass
    "(APIServer pid=4000) INFO 02-05 10:10:58 [compilation.py:330] Enabled custom fusions: "
    "norm_quant, act_quant",
    "(EngineCore_DP0 pid=4100) INFO 02-05 10:10:59 [core.py:116] Initializing a V1 LLM engine "
    "(v0.18.1) with config: model='/models/m', tensor_parallel_size=4, compilation_config={'mode': "
    "<CompilationMode.VLLM_COMPILE: 3>, 'pass_config': {'fuse_norm_quant': False, "
    "'fuse_allreduce_rms': False, 'enable_sp': False}}",
])
_FAULT_PHASES = st.sampled_from([Phase.PROFILE, Phase.GRAPH_CAPTURE, Phase.SERVING])
_V1_ERAS = st.sampled_from([era for era in ERAS if era.name.startswith("v1")])


@settings(max_examples=40, deadline=None)
@given(fault=_FAULTS, on=_PASS_ON, phase=_FAULT_PHASES, era=_V1_ERAS, rank=st.integers(0, 7))
def test_a_cuda_fault_with_the_fused_pass_on_turns_the_pass_off(
        fault: str, on: str, phase: Phase, era: object, rank: int) -> None:
    log = on + "\n" + worker_failure(fault, phase=phase, era=era, rank=rank)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "cuda-fault-with-fused-allreduce-rmsnorm"
    assert '"fuse_allreduce_rms": false' in fix and "enable_fi_allreduce_fusion" in fix
    assert "VLLM_FLASHINFER_ALLREDUCE_BACKEND=trtllm" in fix


@settings(max_examples=30, deadline=None)
@given(fault=_FAULTS, off=_PASS_OFF, phase=_FAULT_PHASES, era=_V1_ERAS)
def test_the_same_fault_without_the_pass_keeps_the_general_advice(
        fault: str, off: str, phase: Phase, era: object) -> None:
    log = (off + "\n" if off else "") + worker_failure(fault, phase=phase, era=era)  # type: ignore[arg-type]
    signature, _ = signature_advice(log)
    assert signature != "cuda-fault-with-fused-allreduce-rmsnorm"


@settings(max_examples=20, deadline=None)
@given(on=_PASS_ON, phase=_FAULT_PHASES, era=_V1_ERAS, skipped=st.sampled_from([
    "(Worker_TP0 pid=207850) WARNING 02-05 10:11:20 [flashinfer_all_reduce.py:175] Failed to "
    "initialize FlashInfer Allreduce norm fusion workspace with backend=mnnvl",
    "(Worker_TP0 pid=207850) WARNING 02-05 10:11:20 [allreduce_rms_fusion.py:1042] Failed to "
    "initialize Flashinfer allreduce workspace. Flashinfer allreduce-norm fusion will be disabled.",
    "(Worker_TP0 pid=207850) WARNING 02-05 10:11:20 [allreduce_rms_fusion.py:1126] AllReduce "
    "fusion pass is disabled."]))
def test_an_illegal_access_after_the_pass_turned_itself_off_keeps_the_general_advice(
        on: str, phase: Phase, era: object, skipped: str) -> None:
    error = "torch.AcceleratorError: CUDA error: an illegal memory access was encountered"
    log = on + "\n" + skipped + "\n" + worker_failure(error, phase=phase, era=era)  # type: ignore[arg-type]
    signature, _ = signature_advice(log)
    assert signature == "cuda-illegal-memory-access"


@settings(max_examples=15, deadline=None)
@given(on=_PASS_ON, era=_V1_ERAS)
def test_another_failure_with_the_pass_on_is_not_taken_for_it(on: str, era: object) -> None:
    error = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a "
             "total capacity of 79.19 GiB of which 1.06 GiB is free.")
    log = on + "\n" + worker_failure(error, phase=Phase.PROFILE, era=era)  # type: ignore[arg-type]
    signature, _ = signature_advice(log)
    assert signature != "cuda-fault-with-fused-allreduce-rmsnorm"


# ---- a text-only checkpoint of a multimodal architecture -----------------------------------------

_ENCODER_NAMES = st.sampled_from([
    "visual.blocks.{n}.attn.qkv.weight", "visual.merger.mlp.0.bias", "visual.patch_embed.proj.weight",
    "model.visual.blocks.{n}.norm1.weight", "vision_tower.vision_model.encoder.layers.{n}.mlp.fc1.bias",
    "model.vision_tower.blocks.{n}.attn.proj.weight", "multi_modal_projector.linear_1.weight",
    "vision_model.encoder.layers.{n}.self_attn.k_proj.weight", "audio_tower.layers.{n}.fc2.weight",
    "thinker.audio_tower.conv1.weight", "vpm.encoder.layers.{n}.mlp.fc1.weight",
])
_LANGUAGE_NAMES = st.sampled_from([
    "lm_head.weight", "model.layers.{n}.mlp.gate_proj.weight", "model.norm.weight",
    "language_model.model.layers.{n}.self_attn.o_proj.weight", "score.weight",
])
# The loader that raises the check in each era (vllm/model_executor/model_loader/...): 0.6.6-0.8's
# loader.py, 0.9.2-0.20's default_loader.load_weights, 0.21+'s track_weights_loading.
_LOADERS = st.sampled_from([
    (("model_executor/model_loader/loader.py", "load_model"),),
    (("model_executor/model_loader/default_loader.py", "load_weights"),),
    (("model_executor/model_loader/default_loader.py", "load_weights"),
     ("model_executor/model_loader/default_loader.py", "track_weights_loading")),
])
_LOAD_PATH = (("v1/worker/gpu_worker.py", "load_model"), ("v1/worker/gpu_model_runner.py", "load_model"),
              ("model_executor/model_loader/base_loader.py", "load_model"))


def _weights_error(names: list[str]) -> str:
    listed = ", ".join(f"'{name}'" for name in names)
    return f"ValueError: Following weights were not initialized from checkpoint: {{{listed}}}"


@settings(max_examples=40, deadline=None)
@given(encoder=st.lists(_ENCODER_NAMES, min_size=1, max_size=4),
       language=st.lists(_LANGUAGE_NAMES, max_size=2), layers=st.integers(0, 47),
       loader=_LOADERS, era=st.sampled_from(ERAS), data=st.data())
def test_missing_encoder_weights_name_language_model_only(
        encoder: list[str], language: list[str], layers: int, loader: tuple[tuple[str, str], ...],
        era: object, data: st.DataObject) -> None:
    names = data.draw(st.permutations([n.format(n=layers) for n in encoder + language]))
    log = worker_failure(_weights_error(names), phase=Phase.LOAD, era=era,  # type: ignore[arg-type]
                         inner=loader)
    signature, fix = signature_advice(log)
    assert signature == "multimodal-encoder-weights-missing-from-checkpoint"
    assert "--language-model-only" in fix and '"video": 0' in fix


@settings(max_examples=20, deadline=None)
@given(language=st.lists(_LANGUAGE_NAMES, min_size=1, max_size=3), layers=st.integers(0, 47),
       loader=_LOADERS, era=st.sampled_from(ERAS))
def test_missing_language_model_weights_keep_the_general_signature(
        language: list[str], layers: int, loader: tuple[tuple[str, str], ...], era: object) -> None:
    names = [n.format(n=layers) for n in language]
    log = worker_failure(_weights_error(names), phase=Phase.LOAD, era=era,  # type: ignore[arg-type]
                         inner=loader)
    signature, _ = signature_advice(log)
    assert signature == "weights-not-initialized-from-checkpoint"
