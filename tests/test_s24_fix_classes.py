"""Classes behind session 24's fifteenth split's cold fix misses and the fallback-only failures of
the tuning set, each generated over its wordings and the ways a log shows it, with a near miss:

- torch.compile's guards refusing the inputs: Dynamo's self-check of the guards it just built
  (`AssertionError: Guard check failed: <frame>/<compile>: <reason>`, torch/_dynamo/guards.py),
  a stance that forbids recompiling after warm-up (Gaudi's `VLLM_FULL_WARMUP`,
  `fail_on_recompile`): torch-compile-guard-check-failed, whose fix runs eager (`--enforce-eager`,
  `-O0`), names Gaudi's lazy mode (`PT_HPU_LAZY_MODE=1`) and the sampler penalties that build
  NumPy tensors (`repetition_penalty`, vLLM's `make_tensor_with_pad`); vLLM's own assertion in
  the same sampling path keeps the assertion fallback."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase
from v1log import ERAS, signature_advice, worker_failure

# ---- torch.compile's guards refusing the inputs -------------------------------------------------

_TENSORS = st.sampled_from(["__from_numpy(__stack0)", "__from_numpy(padded_x)", "L['x']",
                            "L['input_ids']", "L['self'].weight", "G['_cos_sin_cache']"])
_REASONS = st.sampled_from([
    "tensor '{t}' dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect, "
    "ADInplaceOrView), actual DispatchKeySet(CPU, BackendSelect)",
    "tensor '{t}' dispatch key set mismatch. expected DispatchKeySet(HPU, BackendSelect, "
    "ADInplaceOrView, AutogradHPU), actual DispatchKeySet(HPU, BackendSelect)",
    "tensor '{t}' stride mismatch at index 0. expected 4096, actual 1",
    "tensor '{t}' size mismatch at index 1. expected 128, actual 256",
    "tensor '{t}' requires_grad mismatch. expected requires_grad=1",
])
_STANCES = st.sampled_from([
    "RuntimeError: Recompilation triggered with skip_guard_eval_unsafe stance. This usually means "
    "that you have not warmed up your model with enough inputs such that you can guarantee no more "
    "recompilations.",
    "RuntimeError: Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: "
    "'/usr/local/lib/python3.10/dist-packages/vllm_gaudi/v1/worker/hpu_model_runner.py', function "
    "name: 'forward', line number: 410",
])
_TORCH_FRAMES = (("/usr/local/lib/python3.12/dist-packages/torch/_dynamo/convert_frame.py",
                  "__call__"),
                 ("/usr/local/lib/python3.12/dist-packages/torch/_dynamo/guards.py", "__init__"))
_SAMPLING = (("v1/sample/sampler.py", "forward"), ("v1/sample/ops/penalties.py",
                                                   "_convert_to_tensors"))
_ONE_LINERS = st.sampled_from(["[multiproc_executor.py:822] {e}", "{e}",
                               "(EngineCore_DP0 pid=4100) ERROR 01-21 08:02:11 [core.py:710] {e}",
                               "ERROR 01-21 08:02:11 [hpu_model_runner.py:2931] {e}"])


def _guard_fix_ok(fix: str) -> None:
    for knob in ("--enforce-eager", "PT_HPU_LAZY_MODE=1", "repetition_penalty",
                 "make_tensor_with_pad", "VLLM_FULL_WARMUP", "TORCH_LOGS"):
        assert knob in fix, knob


@settings(max_examples=40, deadline=None)
@given(reason=_REASONS, tensor=_TENSORS, frame=st.integers(0, 40), compile_id=st.integers(0, 8),
       phase=st.sampled_from([Phase.PROFILE, Phase.GRAPH_CAPTURE, Phase.SERVING]),
       era=st.sampled_from(ERAS), torch_frames=st.booleans())
def test_a_guard_self_check_failure_names_eager_lazy_mode_and_penalties(
        reason: str, tensor: str, frame: int, compile_id: int, phase: Phase, era: object,
        torch_frames: bool) -> None:
    error = (f"AssertionError: Guard check failed: {frame}/{compile_id}: "
             + reason.format(t=tensor))
    inner = _SAMPLING + (_TORCH_FRAMES if torch_frames else ())
    log = worker_failure(error, phase=phase, era=era, inner=inner)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "torch-compile-guard-check-failed"
    _guard_fix_ok(fix)


@settings(max_examples=20, deadline=None)
@given(reason=_REASONS, tensor=_TENSORS, shape=_ONE_LINERS)
def test_a_guard_failure_printed_on_one_line_gets_the_family(reason: str, tensor: str,
                                                              shape: str) -> None:
    error = "AssertionError: Guard check failed: 14/0: " + reason.format(t=tensor)
    signature, fix = signature_advice(shape.format(e=error) + "\n")
    assert signature == "torch-compile-guard-check-failed"
    _guard_fix_ok(fix)


@settings(max_examples=10, deadline=None)
@given(error=_STANCES, era=st.sampled_from(ERAS))
def test_a_recompile_forbidden_after_warm_up_gets_the_family(error: str, era: object) -> None:
    log = worker_failure(error, phase=Phase.SERVING, era=era)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "torch-compile-guard-check-failed"
    _guard_fix_ok(fix)


@settings(max_examples=10, deadline=None)
@given(era=st.sampled_from(ERAS),
       message=st.sampled_from(["output token lists must be 2D", "expected a 2D logits tensor",
                                "penalties tensor is on the wrong device"]))
def test_vllms_own_assertion_in_the_sampler_is_not_a_guard(era: object, message: str) -> None:
    log = worker_failure(f"AssertionError: {message}", phase=Phase.SERVING, era=era,  # type: ignore[arg-type]
                         inner=_SAMPLING)
    signature, _ = signature_advice(log)
    assert signature != "torch-compile-guard-check-failed"
