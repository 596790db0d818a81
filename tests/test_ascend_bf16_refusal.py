"""An Atlas inference card (Atlas 300I, Ascend 310P) refusing bfloat16 (session 19's development
split: two ATB log lines, `RopeOperation_0 Atlas inference products can not support bf16.` and the
operator's setup failure, with no advice for them).

The class: any Ascend Transformer Boost operator vllm-ascend calls (rotary embedding, attention,
RMSNorm, linear) meeting bf16 tensors on a 310P, in whichever record form the log carries it
(CANN's log format, a vLLM worker's ERROR record, torch_npu's glog-style line), with or without the
setup failure after it. The advice is half precision (`--dtype float16`), the 310P build and eager
mode; vLLM's own bfloat16 check on an old CUDA GPU keeps its own advice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import python_traceback, signature_advice

_OPERATORS = ["RopeOperation", "SelfAttentionOperation", "RmsNormOperation", "LinearOperation",
              "PagedAttentionOperation", "ActivationOperation"]
# how one ATB record reaches the log, `{pid}`, `{text}` and the source line `{line}` filled in
_FORMS = [
    "[ERROR] ATB({pid},python):2025-06-18-09:31:44.118.402 [operation_base.cpp:{line}] {text}",
    "(VllmWorker rank=0 pid={pid}) ERROR 06-18 09:31:44 [model_runner_v1.py:1900] {text}",
    "(Worker_TP1 pid={pid}) ERROR 11-02 14:05:09 [multiproc_executor.py:702] {text}",
    "[E compiler_depend.ts:{line}] {text}",
]
_START = ("INFO 06-18 09:31:12 [core.py:58] Initializing a V1 LLM engine (v0.9.1) with config: "
          "model='Qwen/Qwen3-8B', dtype=torch.bfloat16, device_config=npu, enforce_eager=True\n")


@settings(max_examples=40, deadline=None)
@given(operator=st.sampled_from(_OPERATORS), index=st.integers(0, 40), form=st.sampled_from(_FORMS),
       pid=st.integers(100, 99999), line=st.integers(100, 900),
       wording=st.sampled_from(["bf16", "bfloat16"]), setup_failure=st.booleans())
def test_an_atb_operator_refusing_bf16_on_an_atlas_inference_card_says_float16(
        operator: str, index: int, form: str, pid: int, line: int, wording: str,
        setup_failure: bool) -> None:
    name = f"{operator}_{index}"
    texts = [f"{name} Atlas inference products can not support {wording}."]
    if setup_failure:
        texts.append(f"{name} invalid param, setup check fail, error code: 6")
    log = _START + "".join(form.format(pid=pid, line=line + n, text=text) + "\n"
                           for n, text in enumerate(texts))
    signature, fix = signature_advice(log)
    assert signature == "ascend-atlas-inference-bfloat16-unsupported"
    assert "--dtype float16" in fix and "-310p" in fix and "--enforce-eager" in fix


def test_the_cuda_bfloat16_check_keeps_its_own_advice() -> None:
    root = "/usr/local/lib/python3.10/dist-packages/vllm/"
    log = python_traceback(
        [(root + "worker/worker.py", "init_device", "_check_if_gpu_supports_dtype(self.model_config.dtype)"),
         (root + "worker/worker.py", "_check_if_gpu_supports_dtype", "raise ValueError(")],
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
        "Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly "
        "setting the`dtype` flag in CLI, for example: --dtype=half.")
    signature, _ = signature_advice(log)
    assert signature == "bfloat16-unsupported-compute-capability"
