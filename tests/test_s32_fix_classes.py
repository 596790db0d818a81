"""Classes behind session 32's twenty-third split's cold fix misses (dev-fix's four), each generated
over its wordings and the ways a log shows it, with a near miss:

- a speculative draft loaded under another method than the one it was trained for (an EAGLE-3
  draft as "eagle", an EAGLE-1 draft as "eagle3", MTP or Medusa heads under another name): the
  loader's shape check inside the draft model's own `load_weights`, V0's or V1's path:
  spec-decode-draft-method-mismatch, whose fix names `eagle3`; the same check in the target
  model's file stays the weight-shape family's.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a draft loaded under another speculative method ----------------------------------------------

_LOAD_FRAMES = [
    ("{site}vllm/model_executor/model_loader/__init__.py", "get_model",
     "return loader.load_model(vllm_config=vllm_config,"),
    ("{site}vllm/model_executor/model_loader/base_loader.py", "load_model",
     "self.load_weights(model, model_config)"),
    ("{site}vllm/model_executor/model_loader/default_loader.py", "load_weights",
     "loaded_weights = model.load_weights("),
]
_DRAFT_FILES = ["eagle.py", "llama_eagle.py", "llama_eagle3.py", "qwen2_eagle3.py",
                "deepseek_eagle.py", "llama4_eagle.py", "medusa.py", "mlp_speculator.py",
                "deepseek_mtp.py", "glm4_moe_mtp.py"]


def _shape_error(kind: str, hidden: int, wide: int, narrow: int) -> str:
    if kind == "assert":
        return (f"AssertionError: Attempted to load weight (torch.Size([{hidden}, {wide * hidden}]))"
                f" into parameter (torch.Size([{hidden}, {narrow * hidden}]))")
    return ("RuntimeError: Error(s) in loading state_dict for Eagle3LlamaForCausalLM:\n"
            f"\tsize mismatch for fc.weight: copying a param with shape torch.Size([{hidden}, "
            f"{wide * hidden}]) from checkpoint, the shape in current model is torch.Size("
            f"[{hidden}, {narrow * hidden}]).")


@settings(max_examples=40, deadline=None)
@given(draft=st.sampled_from(_DRAFT_FILES), hidden=st.sampled_from([2048, 4096, 5120, 7168]),
       widths=st.sampled_from([(3, 2), (2, 3)]), kind=st.sampled_from(["assert", "state_dict"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_draft_under_another_method_gets_the_method_for_its_head(
        draft: str, hidden: int, widths: tuple[int, int], kind: str, py: str, site: str,
        prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root), function, code) for path, function, code in _LOAD_FRAMES]
    frames.append((f"{root}vllm/model_executor/models/{draft}", "load_weights",
                   "weight_loader(self.fc.weight, loaded_weight)"))
    if kind == "assert":
        frames.append((f"{root}vllm/model_executor/model_loader/weight_utils.py",
                       "default_weight_loader", "assert param.size() == loaded_weight.size(), ("))
    sid, fix = signature_advice(python_traceback(frames, _shape_error(kind, hidden, *widths),
                                                 prefix))
    assert sid == "spec-decode-draft-method-mismatch"
    assert '"method": "eagle3"' in fix and "--speculative-config" in fix, fix


@settings(max_examples=20, deadline=None)
@given(model=st.sampled_from(["llama.py", "qwen2.py", "mistral.py", "deepseek_v2.py"]),
       hidden=st.sampled_from([2048, 4096, 5120]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_the_same_check_in_the_target_model_stays_the_shape_family(
        model: str, hidden: int, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root), function, code) for path, function, code in _LOAD_FRAMES]
    frames += [(f"{root}vllm/model_executor/models/{model}", "load_weights",
                "weight_loader(param, loaded_weight)"),
               (f"{root}vllm/model_executor/model_loader/weight_utils.py",
                "default_weight_loader", "assert param.size() == loaded_weight.size(), (")]
    sid, _ = signature_advice(python_traceback(frames, _shape_error("assert", hidden, 3, 2), prefix))
    assert sid != "spec-decode-draft-method-mismatch"
