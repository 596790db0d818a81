"""Every class of failure issue 11 names gets family-level advice that names the class's knobs,
whatever shape the log gives it: a worker's logged traceback (four eras of prefixes), the engine
core's `EngineCore failed to start.` record or the API server's for a request, a plain traceback from a script (`LLM(...)`) or from
the API server, torch's `[rank0]: ` prefix, and a pasted tail that kept only the exception line.
Each class is one real message text; the shapes and the process around it are generated."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, SITE, worker_failure


@dataclass(frozen=True)
class Case:
    """One class of failure: a message vLLM or a library raises, where, and the knobs."""

    name: str
    error: str  # `Type: message` (further lines continue the message)
    phase: Phase
    knobs: tuple[str, ...]  # each must appear in the advice's fix (any case)
    raiser: tuple[str, str] | None = None  # (file under site-packages, function) raising it


def _vllm(path: str, function: str) -> tuple[str, str]:
    return (f"vllm/{path}", function)


CASES = [
    Case("npu-oom", "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB "
         "total capacity; 57.10 GiB already allocated; 57.10 GiB current active; 1.21 GiB free)",
         Phase.PROFILE, ("--gpu-memory-utilization",)),
    Case("xpu-oom", "RuntimeError: XPU out of memory. Tried to allocate 1.50 GiB (GPU 0; 64.00 GiB "
         "total capacity; 61.30 GiB already allocated)", Phase.PROFILE,
         ("--gpu-memory-utilization",)),
    Case("rocm-oom", "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 4.00 GiB. GPU 0 "
         "has a total capacity of 191.98 GiB of which 1.02 GiB is free.", Phase.PROFILE,
         ("--gpu-memory-utilization", "--max-num-seqs")),
    Case("nccl-unhandled-system-error",
         "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
         "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), "
         "NCCL version 2.21.5", Phase.INIT, ("NCCL_DEBUG=INFO", "/dev/shm")),
    Case("nccl-internal-error",
         "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
         "ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL "
         "developers, NCCL version 2.20.5", Phase.INIT, ("NCCL_DEBUG=INFO",)),
    Case("nccl-invalid-usage",
         "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
         "ProcessGroupNCCL.cpp:1970, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL "
         "version 2.21.5", Phase.INIT, ("NCCL_DEBUG",)),
    Case("illegal-memory-access", "RuntimeError: CUDA error: an illegal memory access was "
         "encountered", Phase.SERVING, ("CUDA_LAUNCH_BLOCKING=1", "--enforce-eager")),
    Case("misaligned-address", "RuntimeError: CUDA error: misaligned address", Phase.SERVING,
         ("CUDA_LAUNCH_BLOCKING=1",)),
    Case("no-kernel-image", "RuntimeError: CUDA error: no kernel image is available for execution "
         "on the device", Phase.PROFILE, ("TORCH_CUDA_ARCH_LIST",)),
    Case("cudnn-status", "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
         Phase.PROFILE, ("CUDA_LAUNCH_BLOCKING=1",)),
    Case("driver-too-old", "RuntimeError: The NVIDIA driver on your system is too old (found "
         "version 11040). Please update your GPU driver by downloading and installing a new version "
         "from the URL: http://www.nvidia.com/Download/index.aspx", Phase.INIT, ("driver",)),
    Case("forward-compat-804", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you "
         "run some cuda functions before calling NumCudaDevices() that might have already set an "
         "error? Error 804: forward compatibility was attempted on non supported HW",
         Phase.INIT, ("driver",)),
    Case("triton-no-c-compiler", "RuntimeError: Failed to find C compiler. Please specify via CC "
         "environment variable.", Phase.PROFILE, ("CC",)),
    Case("triton-libcuda", "AssertionError: libcuda.so cannot found!", Phase.PROFILE,
         ("ldconfig",)),
    Case("triton-out-of-resources", "triton.runtime.errors.OutOfResources: out of resource: "
         "shared memory, Required: 135200, Hardware limit: 101376. Reducing block sizes or "
         "`num_stages` may help.", Phase.PROFILE, ("--max-num-batched-tokens",)),
    Case("backend-compiler-failed", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' "
         "raised:\nRuntimeError: failed to compile a kernel", Phase.PROFILE, ("--enforce-eager",)),
    Case("undefined-symbol", "ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: "
         "undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs", Phase.INIT, ("torch",)),
    Case("missing-optional-package", "ModuleNotFoundError: No module named 'librosa'", Phase.LOAD,
         ("pip install",)),
    Case("safetensors-incomplete", "safetensors_rust.SafetensorError: Error while deserializing "
         "header: MetadataIncompleteBuffer", Phase.LOAD, ("download",)),
    Case("trust-remote-code", "ValueError: Loading /models/internlm2-chat requires you to execute "
         "the configuration file in that repo on your local machine. Make sure you have read the "
         "code there to avoid malicious use, then set the option `trust_remote_code=True` to remove "
         "this error.", Phase.INIT, ("--trust-remote-code",)),
    Case("hf-gated", "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated "
         "repo for url https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/"
         "config.json. Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must "
         "have access to it and be authenticated to access it. Please log in.", Phase.INIT,
         ("HF_TOKEN",)),
    Case("hf-offline", "huggingface_hub.errors.LocalEntryNotFoundError: Cannot find an appropriate "
         "cached snapshot folder for the specified revision on the local disk and outgoing traffic "
         "has been disabled. To enable repo look-ups and downloads online, set 'HF_HUB_OFFLINE=0' as "
         "environment variable.", Phase.INIT, ("HF_HUB_OFFLINE",)),
    Case("tokenizer-class", "ValueError: Tokenizer class TokenizersBackend does not exist or is not "
         "currently imported.", Phase.INIT, ("transformers", "--trust-remote-code")),
    Case("chat-template-roles", "jinja2.exceptions.TemplateError: Conversation roles must alternate "
         "user/assistant/user/assistant/...", Phase.SERVING, ("--chat-template",)),
    Case("chat-content-part-type", "NotImplementedError: Unknown part type: input_image",
         Phase.SERVING, ("--chat-template-content-format",),
         _vllm("entrypoints/chat_utils.py", "_parse_chat_message_content_part")),
    Case("mistral-tokenizer-template", "ValueError: chat_template is not supported for Mistral "
         "tokenizers.", Phase.SERVING, ("--tokenizer-mode",),
         _vllm("tokenizers/mistral.py", "validate_request_params")),
    Case("tokenizer-registry-mode", "ValueError: No tokenizer registered for "
         "tokenizer_mode='custom'.", Phase.INIT, ("--tokenizer-mode",),
         _vllm("tokenizers/registry.py", "load_tokenizer_cls")),
    Case("model-encoder-role", "NotImplementedError: Unknown role: developer", Phase.SERVING,
         ("--chat-template",), _vllm("tokenizers/deepseek_v32_encoding.py", "render_message")),
    Case("bf16-before-ampere", "ValueError: Bfloat16 is only supported on GPUs with compute "
         "capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5. You can use "
         "float16 instead by explicitly setting the `dtype` flag in CLI, for example: --dtype=half.",
         Phase.INIT, ("--dtype",)),
    Case("quant-not-on-gpu", "ValueError: The quantization method fp8 is not supported for the "
         "current GPU. Minimum capability: 80. Current capability: 75.", Phase.INIT,
         ("--quantization",)),
    Case("quant-tp-alignment", "ValueError: The input size is not aligned with the quantized weight "
         "shape. This can be caused by too large tensor parallel size.", Phase.LOAD,
         ("--tensor-parallel-size",)),
    Case("kv-cache-too-small", "ValueError: The model's max seq len (131072) is larger than the "
         "maximum number of tokens that can be stored in KV cache (45000). Try increasing "
         "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
         Phase.KV_CACHE, ("--max-model-len", "--gpu-memory-utilization")),
    Case("free-memory-below-utilization", "ValueError: Free memory on device (30.5/79.1 GiB) on "
         "startup is less than desired GPU memory utilization (0.9, 71.2 GiB). Decrease GPU memory "
         "utilization or reduce GPU memory used by other processes.", Phase.INIT,
         ("--gpu-memory-utilization",)),
    Case("ray-actor-died", "ray.exceptions.ActorDiedError: The actor died unexpectedly before "
         "finishing this task.", Phase.SERVING, ("dmesg",)),
    Case("structured-output-unsupported", "ValueError: The provided JSON schema contains features "
         "not supported by xgrammar.", Phase.SERVING, ("guidance",)),
    Case("lora-rank", "ValueError: LoRA rank 64 is greater than max_lora_rank 16.", Phase.SERVING,
         ("--max-lora-rank",)),
    Case("multimodal-processor", "RuntimeError: Failed to apply Qwen2VLProcessor on data={'text': "
         "'<|image_pad|>'} with kwargs={}", Phase.PROFILE, ("--limit-mm-per-prompt",)),
    Case("nvml", "pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found", Phase.INIT,
         ("driver",)),
    Case("chat-content-format", 'TypeError: can only concatenate str (not "list") to str',
         Phase.SERVING, ("--chat-template-content-format",),
         ("transformers/utils/chat_template_utils.py", "render_jinja_template")),
    Case("custom-allreduce-p2p", "RuntimeError: CUDA error: peer access is not supported between "
         "these two devices", Phase.INIT, ("--disable-custom-all-reduce",)),
    Case("tp-exceeds-devices", "ValueError: The number of required GPUs exceeds the total number of "
         "available GPUs in the placement group.", Phase.INIT, ("--tensor-parallel-size",)),
    Case("rpc-timeout", "TimeoutError: RPC call to execute_model timed out.", Phase.SERVING,
         ("VLLM_RPC_TIMEOUT",)),
    Case("spec-decode", "ValueError: Speculative decoding with draft model is not supported yet. "
         "Please consider using other speculative decoding methods such as ngram, medusa, eagle, "
         "or deepseek_mtp.", Phase.INIT, ("--speculative-config",)),
    Case("max-batched-tokens", "ValueError: max_num_batched_tokens (2048) is smaller than "
         "max_model_len (8192). This effectively limits the maximum sequence length to "
         "max_num_batched_tokens and makes vLLM reject longer sequences. Please increase "
         "max_num_batched_tokens or decrease max_model_len.", Phase.INIT,
         ("--max-num-batched-tokens",)),
    Case("tpu-runtime", "RuntimeError: TPU initialization failed: open(/dev/vfio/0): Device or "
         "resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/0",
         Phase.INIT, ("/dev/vfio",)),
    Case("ascend-operator", "RuntimeError: The Inner error is reported as above. The process "
         "exits for this inner error, and the current working operator name is aclnnMatmul.\n"
         "[ERROR] 2025-03-01-10:00:00 (PID:1234, Device:0, RankID:-1) ERR00100 PTA call acl api "
         "failed", Phase.PROFILE, ("ASCEND_LAUNCH_BLOCKING=1",)),
    Case("hip-error", "RuntimeError: HIP error: invalid device function", Phase.PROFILE,
         ("PYTORCH_ROCM_ARCH",)),
]

# (file under vllm/, function) of the frames each phase prints above the raise, outermost first
_PATHS = {
    Phase.INIT: (("v1/engine/core.py", "__init__"), ("v1/executor/abstract.py", "__init__"),
                 ("v1/worker/gpu_worker.py", "init_device")),
    Phase.LOAD: (("v1/engine/core.py", "__init__"), ("v1/worker/gpu_worker.py", "load_model"),
                 ("model_executor/model_loader/default_loader.py", "load_weights")),
    Phase.PROFILE: (("v1/engine/core.py", "_initialize_kv_caches"),
                    ("v1/worker/gpu_worker.py", "determine_available_memory"),
                    ("v1/worker/gpu_model_runner.py", "profile_run")),
    Phase.KV_CACHE: (("v1/engine/core.py", "_initialize_kv_caches"),
                     ("v1/core/kv_cache_utils.py", "get_kv_cache_config")),
    Phase.SERVING: (("entrypoints/openai/serving_chat.py", "create_chat_completion"),
                    ("entrypoints/openai/serving_engine.py", "_preprocess_chat")),
}
_ROOTS = ("/usr/local/lib/python3.12/dist-packages/", "/opt/conda/lib/python3.10/site-packages/",
          "/home/u/.venv/lib/python3.11/site-packages/")


def _frames(case: Case, root: str) -> list[str]:
    frames = [(f"vllm/{file}", function) for file, function in _PATHS[case.phase]]
    if case.raiser is not None:
        frames.append(case.raiser)
    lines = []
    for number, (file, function) in enumerate(frames, start=201):
        lines += [f'  File "{root}{file}", line {number}, in {function}',
                  f"    return self.{function}(*args, **kwargs)"]
    return lines


def _logged(case: Case, root: str, prefix: str) -> str:
    """A logged traceback: the engine core's `EngineCore failed to start.` at start-up, the API
    server's `Error in preprocessing prompt inputs` for a request."""
    if case.phase is Phase.SERVING:
        site, title, after = "serving_chat.py:257", "Error in preprocessing prompt inputs", \
            [f'{prefix}INFO:     10.0.0.7:51520 - "POST /v1/chat/completions HTTP/1.1" 400 '
             "Bad Request"]
    else:
        site, title, after = "core.py:866", "EngineCore failed to start.", \
            ["RuntimeError: Engine core initialization failed. See root cause above. Failed core "
             "proc(s): {}"]
    header = f"{prefix}ERROR 03-02 11:20:19 [{site}] "
    body = [title, "Traceback (most recent call last):", *_frames(case, root),
            *case.error.split("\n")]
    return "\n".join([f"{prefix}INFO 03-02 11:20:18 [core.py:93] Initializing a V1 LLM engine "
                      "(v0.11.0) with config: model='/models/m'",
                      *(header + line for line in body), *after]) + "\n"


def _plain(case: Case, root: str, prefix: str) -> str:
    """A traceback straight to stderr: a script's `LLM(...)`, or the API server's own."""
    body = ["Traceback (most recent call last):",
            '  File "/work/run.py", line 12, in <module>', "    llm = LLM(model='/models/m')",
            *_frames(case, root), *case.error.split("\n")]
    return "\n".join(prefix + line for line in body) + "\n"


def _tail(case: Case, root: str, prefix: str) -> str:
    """A pasted tail: a lifecycle line, then only the exception line (no frames)."""
    return (f"{prefix}INFO 03-02 11:20:18 [core.py:93] Initializing a V1 LLM engine (v0.11.0)\n"
            + "\n".join(prefix + line for line in case.error.split("\n")) + "\n")


_SHAPES = {"logged": _logged, "plain": _plain, "tail": _tail}
_PREFIXES = ("", "(EngineCore_DP0 pid=311) ", "(APIServer pid=1) ", "[rank0]: ")


def _log(case: Case, data: st.DataObject) -> str:
    shape = data.draw(st.sampled_from(["worker", *_SHAPES]), label="shape")
    root = data.draw(st.sampled_from(_ROOTS), label="install")
    if shape == "worker":
        inner = () if case.raiser is None else ((root + case.raiser[0], case.raiser[1]),)
        return worker_failure(case.error, phase=case.phase,
                              era=data.draw(st.sampled_from(ERAS), label="era"), inner=inner,
                              root=root + "vllm/")
    if shape == "tail" and case.raiser is not None:  # no frame: the message index names the module
        shape = "logged"
    return _SHAPES[shape](case, root, data.draw(st.sampled_from(_PREFIXES), label="prefix"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_each_class_gets_advice_naming_its_knobs(case: Case, data: st.DataObject) -> None:
    report = explain_text(_log(case, data), signatures=default_signatures())
    # a timeout is itself a symptom: with nothing before it, the cause is reported missing
    assert report.verdict in (Verdict.FAILURE, Verdict.ROOT_CAUSE_MISSING)
    assert report.signature is not None, f"{case.name}: no advice"
    fix = report.signature.fix.lower()
    missing = [knob for knob in case.knobs if knob.lower() not in fix]
    assert not missing, f"{case.name}: {report.signature.id} does not name {missing}"


# ---- native crashes: the signal, not a library, unless that library's frames are printed ------------

_SIGNALS = ("Segmentation fault (core dumped)", "Segmentation fault", "Aborted (core dumped)",
            "Bus error (core dumped)")
_LIBRARY_CRASHES = {"flashinfer-segfault", "segfault-in-attention-kernel", "nccl-allreduce-segfault"}


@settings(max_examples=20, deadline=None)
@given(signal=st.sampled_from(_SIGNALS), before=st.sampled_from(
    ["(EngineCore_DP0 pid=311) INFO 03-02 11:20:18 [core.py:93] Initializing a V1 LLM engine",
     "INFO 07-03 11:58:36 llm_engine.py:161] Initializing an LLM engine (v0.5.0.post1)",
     "(APIServer pid=1) INFO 05-09 10:37:24 [launcher.py:46] Route: /v1/chat/completions",
     "(VllmWorker rank=1 pid=12) INFO 06-10 03:43:31 [gpu_model_runner.py:1403] Model loading "
     "took 18.1 GiB"]), prefix=st.sampled_from(["", "(EngineCore_DP0 pid=311) "]))
def test_a_bare_signal_gets_the_native_crash_family_not_a_librarys_advice(
        signal: str, before: str, prefix: str) -> None:
    """No frames printed: nothing says which library crashed, so no library's fix is the answer
    (it stays an alternative)."""
    report = explain_text(f"{before}\n{prefix}{signal}\n", signatures=default_signatures())
    assert report.signature is not None and report.signature.id == "native-crash"
    assert "PYTHONFAULTHANDLER=1" in report.signature.fix


def test_a_segfault_with_flashinfer_frames_still_gets_flashinfers_advice() -> None:
    site = SITE.removesuffix("vllm/")
    frames = "\n".join(f'  File "{site}{file}", line {n} in {function}' for n, (file, function) in
                       enumerate([("flashinfer/decode.py", "plan"),
                                  ("vllm/v1/attention/backends/flashinfer.py", "build")],
                                 start=300))
    log = ("Fatal Python error: Segmentation fault\n\nThread 0x00007f3c945c8630 (most recent call "
           f"first):\n{frames}\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.id in _LIBRARY_CRASHES
