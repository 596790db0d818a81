"""Platform plugins' failure classes (session 33, sigs-b), each generated over its wordings and the
ways a log shows it, with near misses:

- continuous batching asked of a pooling (embedding, reranker) model on IBM Spyre: the plugin's
  pooling model runner lacks the continuous-batching runner's methods, so an AttributeError
  names it (`'SpyrePoolingModelRunner' object has no attribute 'pre_warmup'`):
  spyre-pooling-model-with-continuous-batching, whose fix is static batching
  (`VLLM_SPYRE_USE_CB=0`) or a plugin that falls back by itself; an AttributeError on the
  plugin's decoder runner is not it;
- text-only serving (`--language-model-only`) of a multimodal model, where vLLM puts a
  StageMissingLayer placeholder in place of the towers and a loader (vLLM's or a plugin's)
  still reaches into one: language-model-only-placeholder-layer-accessed, whose fix upgrades
  the loader's package or serves with the towers; the same loader failing on a real module is
  not it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import ERAS, PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, \
    signature_advice, worker_failure

from logsleuth.model import Phase

_ERAS = st.sampled_from(ERAS)

# --- Spyre: continuous batching on a pooling model ------------------------------------------

_CB_METHODS = st.sampled_from(["pre_warmup", "complete_warmup", "finish_warmup",
                               "_update_states", "tkv"])
_POOLING_RUNNERS = st.sampled_from(["SpyrePoolingModelRunner"])


def _spyre_frames(packages: str, method: str) -> tuple[tuple[str, str], ...]:
    return ((f"{packages}vllm_spyre/v1/worker/spyre_worker.py", "compile_or_warm_up_model"),
            (f"{packages}vllm_spyre/v1/worker/spyre_worker.py", f"_warmup_for_{method}"))


@settings(max_examples=40, deadline=None)
@given(method=_CB_METHODS, runner=_POOLING_RUNNERS, era=_ERAS, py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["worker", "traceback", "oneline"]), prefix=TRACEBACK_PREFIXES)
def test_continuous_batching_on_a_spyre_pooling_model_gets_static_batching_advice(
        method: str, runner: str, era: object, py: str, site: str, shape: str,
        prefix: str) -> None:
    error = f"AttributeError: '{runner}' object has no attribute '{method}'"
    packages = site.format(py=py)
    if shape == "worker":
        log = worker_failure(error, phase=Phase.GRAPH_CAPTURE, era=era,  # type: ignore[arg-type]
                             inner=_spyre_frames(packages, method), root=f"{packages}vllm/")
    elif shape == "traceback":
        frames = [(path, function, f"self.model_runner.{method}()")
                  for path, function in _spyre_frames(packages, method)]
        log = python_traceback(frames, error, prefix)
    else:
        log = f" {error}\n"  # a paste of the one line, its indent kept
    sid, fix = signature_advice(log)
    assert sid == "spyre-pooling-model-with-continuous-batching", log
    assert "VLLM_SPYRE_USE_CB=0" in fix and "static batching" in fix


@pytest.mark.parametrize("error", [
    "AttributeError: 'ContinuousBatchingSpyreModelRunner' object has no attribute 'pre_warmup'",
    "AttributeError: 'StaticBatchingSpyreModelRunner' object has no attribute 'model_config'",
    "AttributeError: 'PoolingModelRunner' object has no attribute 'pre_warmup'",
    "TypeError: SpyrePoolingModelRunner.__init__() got an unexpected keyword argument 'rank'",
])
def test_other_spyre_runner_errors_are_not_the_pooling_class(error: str) -> None:
    log = worker_failure(error, phase=Phase.GRAPH_CAPTURE,
                         inner=_spyre_frames("/usr/local/lib/python3.12/site-packages/",
                                             "pre_warmup"))
    sid, _ = signature_advice(log)
    assert sid != "spyre-pooling-model-with-continuous-batching", log


# --- text-only serving: a loader reaching into vLLM's StageMissingLayer ----------------------

_ATTRIBUTES = st.sampled_from(["rot_proj", "merger", "proj", "weight", "blocks", "norm_scale"])
_LOADERS = st.sampled_from([
    "vllm_ascend/models/kimi_k3.py", "vllm_ascend/models/qwen3_vl.py",
    "vllm/model_executor/models/qwen2_5_vl.py", "vllm_gaudi/models/gemma3_mm.py",
])


@settings(max_examples=40, deadline=None)
@given(attribute=_ATTRIBUTES, loader=_LOADERS, era=_ERAS, py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["worker", "traceback", "reordered"]), prefix=TRACEBACK_PREFIXES)
def test_a_loader_touching_the_text_only_placeholder_gets_its_advice(
        attribute: str, loader: str, era: object, py: str, site: str, shape: str,
        prefix: str) -> None:
    error = f"AttributeError: 'StageMissingLayer' object has no attribute '{attribute}'"
    path = f"{site.format(py=py)}{loader}"
    if shape == "worker":
        log = worker_failure(error, phase=Phase.LOAD, era=era,  # type: ignore[arg-type]
                             inner=((path, "load_weights"),))
    elif shape == "traceback":
        log = python_traceback([(path, "load_weights", f"del self.mm_projector.{attribute}")],
                               error, prefix)
    else:  # an author's abridged paste: the error first, then the frame, its path elided
        log = (f"{error}\n  File \".../{loader}\", line 619, in load_weights\n"
               f"    del self.mm_projector.{attribute}\n")
    sid, fix = signature_advice(log)
    assert sid == "language-model-only-placeholder-layer-accessed", log
    assert "--language-model-only" in fix and "Upgrade" in fix


@pytest.mark.parametrize("error", [
    "AttributeError: 'RowParallelLinear' object has no attribute 'weight_scale'",
    "AttributeError: 'NoneType' object has no attribute 'rot_proj'",
    "RuntimeError: Missing layer 'visual.merger' in checkpoint",
])
def test_a_loader_failing_on_a_real_module_is_not_the_placeholder_class(error: str) -> None:
    log = worker_failure(error, phase=Phase.LOAD,
                         inner=(("/usr/local/lib/python3.11/site-packages/vllm_ascend/models/"
                                 "kimi_k3.py", "load_weights"),))
    sid, _ = signature_advice(log)
    assert sid != "language-model-only-placeholder-layer-accessed", log
