"""Two quantization start-up classes from the s19a sweep, over eras, processes and wordings.

- bitsandbytes on a model class without a bitsandbytes mapping (vllm issues 7624, 9714):
  `Model X does not support BitsAndBytes quantization yet.` is a dense class the release cannot
  quantize (bitsandbytes-model-unsupported); its MoE wording, `MoE Model X ... Ensure this model
  has 'get_expert_mapping' method.`, stays bitsandbytes-moe-unsupported.
- GGUF with tensor parallelism on 0.5.4 (vllm issue 7662): `GGUF quantization hasn't supported
  tensor parallelism yet.`, from any worker (gguf-tensor-parallel-unsupported), not the GGUF
  loader's refusals of a file (gguf-checkpoint-rejected).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict

SOME = settings(max_examples=30, deadline=None)
# how each era and launcher prints an exception line of a worker or engine
SHAPES = [
    "{line}",  # pasted alone
    "ERROR 10-26 14:02:41 engine.py:366] {line}",  # V0's MQLLMEngine record
    "(VllmWorkerProcess pid=2214) ERROR 08-21 10:02:20 multiproc_worker_utils.py:226] {line}",
    "(RayWorkerWrapper pid=11033) ERROR 08-19 16:07:35 worker_base.py:438] {line}",
    "(EngineCore_DP0 pid=288) ERROR 10-01 09:30:12 [core.py:708] {line}",
    "vllm-openai-1  | [rank0]: {line}",
]
DENSE = ["Qwen2ForCausalLM", "MllamaForConditionalGeneration", "LlavaForConditionalGeneration",
         "Phi3ForCausalLM", "Mamba2ForCausalLM", "BitsAndBytesModelLoader"]
MOE = ["GptOssForCausalLM", "Qwen3MoeForCausalLM", "DeepseekV2ForCausalLM"]


def _signature(line: str) -> str | None:
    report = report_to_dict(explain_text(line + "\n"))
    assert report["verdict"] == "failure", report["verdict"]
    return (report["signature"] or {}).get("id")


@SOME
@given(st.sampled_from(SHAPES), st.sampled_from(DENSE), st.sampled_from(["AttributeError",
                                                                         "ValueError"]),
       st.sampled_from(["", " No 'packed_modules_mapping' found."]))
def test_a_dense_class_without_bitsandbytes_support(shape: str, model: str, cls: str,
                                                    tail: str) -> None:
    line = f"{cls}: Model {model} does not support BitsAndBytes quantization yet.{tail}"
    assert _signature(shape.format(line=line)) == "bitsandbytes-model-unsupported"


@SOME
@given(st.sampled_from(SHAPES), st.sampled_from(MOE))
def test_the_moe_wording_stays_the_moe_class(shape: str, model: str) -> None:
    line = (f"AttributeError: MoE Model {model} does not support BitsAndBytes quantization yet. "
            "Ensure this model has 'get_expert_mapping' method.")
    assert _signature(shape.format(line=line)) == "bitsandbytes-moe-unsupported"


@SOME
@given(st.sampled_from(SHAPES), st.sampled_from(["", " [repeated 2x across cluster]",
                                                 " [repeated 7x across cluster]"]))
def test_gguf_with_tensor_parallelism(shape: str, repeated: str) -> None:
    line = f"ValueError: GGUF quantization hasn't supported tensor parallelism yet.{repeated}"
    assert _signature(shape.format(line=line)) == "gguf-tensor-parallel-unsupported"
