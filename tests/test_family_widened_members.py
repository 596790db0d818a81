"""Families carry the remedies their exact members share (issue 11, family leave-one-out): with
every exact signature withheld, another member of the family's class, in another shape (a bare
line, a traceback through the member's frames or another call path, an engine core's ERROR record,
torchrun's rank prefix, a Ray worker's prefix), is answered by the family, and the family's fix
names the remedy the members needed; a near neighbour in the same words goes elsewhere.

The remedies are the ones session 32's leave-one-out found the exact members carrying and their
family lacking: HCCL's link variables and equal settings on every rank; the Ascend runtime's CANN
environment, NumPy and Ray's NPU visibility; Gaudi's visible modules; the host's amdgpu driver
under a HIP error; a parser, script or Ray of another release; full CUDA graphs under an internal
assertion; AMD's AITER kernels under a native crash; a shape-compiling plugin's warm-up shapes;
the mp executor across nodes for Ray's failures; a context above the model's derived length; the
torch index of the driver's CUDA; Triton's per-process cache; V0's KV blocks; transformers 5
under a tokenizer's check; a ROCm build where no platform is found; the torch a release pins
under a compiler check."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures
from tool_import import import_tool
from v1log import python_traceback

SITE = "/usr/local/lib/python3.12/dist-packages/"
VLLM = SITE + "vllm/"
ALL_REDUCE = [(VLLM + "distributed/parallel_state.py", "all_reduce"),
              (SITE + "torch/distributed/distributed_c10d.py", "all_reduce")]
SET_DEVICE = [(VLLM + "v1/worker/worker_base.py", "init_device"),
              (SITE + "vllm_ascend/worker/worker.py", "init_device"),
              (SITE + "torch_npu/npu/utils.py", "set_device")]
MEM_GET_INFO = [(VLLM + "worker/worker.py", "init_device"),
                (SITE + "torch/cuda/memory.py", "mem_get_info")]
GAUDI_DEVICE = [(VLLM + "v1/worker/worker_base.py", "init_device"),
                (SITE + "vllm_gaudi/v1/worker/hpu_worker.py", "init_device")]
DISPATCH = [(VLLM + "v1/worker/gpu_model_runner.py", "_dummy_run"),
            (VLLM + "v1/cudagraph_dispatcher.py", "_create_padded_batch_descriptor")]
SERVING_CHAT = [(VLLM + "entrypoints/openai/serving_chat.py", "chat_completion_stream_generator")]
PLACEMENT = [(VLLM + "executor/ray_distributed_executor.py", "_init_executor"),
             (VLLM + "executor/ray_utils.py", "initialize_ray_cluster"),
             (VLLM + "executor/ray_utils.py", "_wait_until_pg_ready")]
MODEL_CONFIG = [(VLLM + "engine/arg_utils.py", "create_model_config"),
                (SITE + "pydantic/_internal/_dataclasses.py", "__init__")]
TORCH_CUDA_INIT = [(VLLM + "v1/worker/gpu_worker.py", "init_device"),
                   (SITE + "torch/cuda/__init__.py", "set_device"),
                   (SITE + "torch/cuda/__init__.py", "_lazy_init")]
TRITON_CACHE = [(SITE + "triton/compiler/compiler.py", "compile"),
                (SITE + "triton/compiler/compiler.py", "<dictcomp>")]
V0_BLOCKS = [(VLLM + "engine/llm_engine.py", "step"),
             (VLLM + "core/scheduler.py", "_schedule_chunked_prefill"),
             (VLLM + "core/block_manager.py", "allocate")]
RAY_INIT = [(VLLM + "executor/ray_utils.py", "initialize_ray_cluster"),
            (SITE + "ray/_private/worker.py", "init"),
            (SITE + "ray/_private/worker.py", "connect")]
PHYSICAL_DEVICE = [(VLLM + "worker/worker_base.py", "execute_method"),
                   (VLLM + "platforms/cuda.py", "device_id_to_physical_device_id")]
TOKENIZER_INIT = [(VLLM + "transformers_utils/tokenizer.py", "get_tokenizer"),
                  (VLLM + "transformers_utils/tokenizer.py", "get_cached_tokenizer"),
                  (SITE + "transformers/tokenization_utils_base.py", "__getattr__")]
DEVICE_CONFIG = [(VLLM + "engine/arg_utils.py", "create_engine_config"),
                 (VLLM + "config/device.py", "__post_init__")]
INDUCTOR = [(SITE + "torch/_inductor/scheduler.py", "_codegen"),
            (SITE + "torch/_inductor/scheduler.py", "_codegen_partitions")]
SPYRE = [(VLLM + "v1/engine/core.py", "add_request"),
         (SITE + "vllm_spyre/platform.py", "validate_request")]
ACCELERATOR = [(VLLM + "distributed/parallel_state.py", "cleanup_dist_env_and_memory"),
               (SITE + "torch/accelerator/memory.py", "memory_stats"),
               (SITE + "torch/accelerator/_utils.py", "_get_device_index")]
CLI_PARSE = [(VLLM + "entrypoints/cli/main.py", "main"),
             (VLLM + "utils/argparse_utils.py", "parse_args")]


def _hccl(label: str, text: str) -> st.SearchStrategy[str]:
    return st.builds(
        lambda pid, rank, peer: (f"RuntimeError: [ERROR] 2026-09-14-08:12:40 (PID:{pid}, Device:"
                                 f"{rank}, RankID:{rank}) ERR02200 DIST call hccl api failed.\n"
                                 f"[PID: {pid}] {label}: {text.format(peer=peer)}"),
        st.integers(1000, 99999), st.integers(0, 7), st.integers(0, 15))


def _npu(call: str, code: int) -> st.SearchStrategy[str]:
    return st.builds(lambda line: f"RuntimeError: {call}:../torch_npu/csrc/core/npu/{line} NPU "
                                  f"function error: {call.split(':')[0]}, error code is {code}",
                     st.sampled_from(["sys_ctrl/npu_sys_ctrl.cpp:286", "NPUFunctions.cpp:91"]))


def _placement_group_timeout(gpus: int, seconds: int) -> str:
    specs = ", ".join(["{'GPU': 1.0}"] * gpus)
    return (f"ValueError: Cannot provide a placement group of placement_group_specs=[{specs}] "
            f"within {seconds} seconds. See `ray status` and `ray list nodes` to make sure the "
            "cluster has enough resources.")


# (error lines, frames innermost last as (path, function), the family, a remedy its fix names)
MEMBERS = [
    (_hccl("Communication_Error_P2P(EI0010)",
           "P2P communication failed. Reason: the peer NPU {peer} is not reachable."),
     ALL_REDUCE, "hccl-communication-failed", "HCCL_INTRA_ROCE_ENABLE"),
    (_hccl("Execution_Error_ROCE_CQE(EI0013)",
           "An error CQE occurred during operator execution. Local information: server "
           "10.0.0.1, device ID 1. Peer information: server 10.0.0.2, device ID {peer}."),
     ALL_REDUCE, "hccl-communication-failed", "HCCL_RDMA_RETRY_CNT"),
    (_npu("SetPrecisionMode:../torch_npu/csrc/framework/utils/OpPreparation.cpp:155", 500001),
     [], "ascend-npu-runtime-error-code", "set_env.sh"),
    (_npu("ExchangeDevice", 107001), SET_DEVICE, "ascend-npu-runtime-error-code",
     "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES"),
    (st.builds(lambda asked, top: f"RuntimeError: Invalid HABANA_VISIBLE_MODULES={asked}. Module "
                                  f"IDs should be between 0 and {top}.",
               st.sampled_from(["1", "4", "2,3", "4,5,6,7"]), st.integers(0, 3)),
     GAUDI_DEVICE, "hpu-backend-rejected", "HABANA_VISIBLE_MODULES"),
    (st.sampled_from(["RuntimeError: HIP error: invalid argument\nHIP kernel errors might be "
                      "asynchronously reported at some other API call, so the stacktrace below "
                      "might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3",
                      "RuntimeError: HIP error: invalid argument\nCompile with `TORCH_USE_HIP_DSA` "
                      "to enable device-side assertions."]),
     MEM_GET_INFO, "hip-runtime-error", "amdgpu-dkms"),
    (st.builds(lambda name, module, script: (
        f"ImportError: cannot import name '{name}' from '{module}' "
        f"(/home/user/.venv/lib/python3.10/site-packages/{module.replace('.', '/')}.py)"),
        st.sampled_from(["FlexibleArgumentParser", "get_open_port", "merge_async_iterators"]),
        st.sampled_from(["vllm.utils", "vllm.entrypoints.utils"]), st.just("")),
     [("/home/user/vllm/benchmarks/benchmark_throughput.py", "<module>")],
     "python-package-version-mismatch", "VLLM_USE_PRECOMPILED"),
    (st.builds(lambda parser, kind, kwarg: (
        f"TypeError: {parser}{kind}Parser.__init__() got an unexpected keyword argument "
        f"'{kwarg}'"), st.sampled_from(["Qwen3", "DeepSeekR1", "MyThink", "Hermes2Pro"]),
        st.sampled_from(["Reasoning", "Tool"]),
        st.sampled_from(["chat_template_kwargs", "model_config", "tools"])),
     SERVING_CHAT, "python-package-version-mismatch", "--reasoning-parser-plugin"),
    (st.builds(lambda name, module: f"ImportError: cannot import name '{name}' from '{module}'",
               st.sampled_from(["DEFAULT_NCCL_SOCKET_IFNAME", "PlacementGroupSchedulingStrategy"]),
               st.sampled_from(["ray.train.constants", "ray.util.scheduling_strategies"])),
     [], "python-package-version-mismatch", "ray[default]=="),
    (st.sampled_from(["AssertionError"]), DISPATCH, "vllm-internal-assertion", "cudagraph_mode"),
    (st.sampled_from(["Fatal Python error: Segmentation fault",
                      "Fatal Python error: Aborted"]),
     [], "native-crash", "VLLM_ROCM_USE_AITER"),
    (st.builds(lambda n: f"ValueError: Request {n} is outside of the warmup shapes",
               st.integers(1, 99999)),
     SPYRE, "library-platform-plugin-error", "VLLM_SPYRE_USE_CB"),
    (st.builds(_placement_group_timeout, st.integers(2, 16), st.sampled_from([300, 1800])),
     PLACEMENT, "ray-cluster-resources", "--nnodes"),
    (st.builds(lambda n, limit: (
        f"pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
        f"  Value error, User-specified max_model_len ({n}) is greater than the derived "
        f"max_model_len (max_position_embeddings={limit} or model_max_length=None in model's "
        f"config.json). To allow overriding this maximum, set the env var "
        f"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1."), st.sampled_from([65536, 131072, 999999]),
        st.sampled_from([2048, 32768, 40960])),
     MODEL_CONFIG, "engine-config-invalid", "--hf-overrides"),
    (st.builds(lambda found: (f"RuntimeError: The NVIDIA driver on your system is too old (found "
                              f"version {found}). Please update your GPU driver by downloading "
                              f"and installing a new version from the URL: "
                              f"http://www.nvidia.com/Download/index.aspx"),
               st.sampled_from([11040, 12020, 12040])),
     TORCH_CUDA_INIT, "library-torch-cuda-error", "--extra-index-url"),
    (st.builds(lambda digest, kernel, pid: (
        f"FileNotFoundError: [Errno 2] No such file or directory: '/root/.triton/cache/{digest}/"
        f"{kernel}.json.tmp.pid_{pid}_587007'"), st.sampled_from(["de758c42", "0a1b2c3d4e5f"]),
        st.sampled_from(["fused_moe_kernel", "_fwd_kernel", "sgmv_expand"]),
        st.integers(100, 99999)),
     TRITON_CACHE, "library-triton-error", "TRITON_CACHE_DIR"),
    (st.just("ValueError: Out of memory! No free blocks are available."), V0_BLOCKS,
     "v0-block-manager-rejected", "--kv-cache-dtype fp8"),
    (st.builds(lambda old, new: (f"RuntimeError: Version mismatch: The cluster was started with:\n"
                                 f"Ray: {old}\nPython: 3.12.3\nThis process on node 10.0.0.2 was "
                                 f"started with:\nRay: {new}\nPython: 3.12.3"),
               st.sampled_from(["2.40.0", "2.46.0"]), st.sampled_from(["2.43.0", "2.48.0"])),
     RAY_INIT, "library-ray-error", "--nnodes"),
    (st.just("RuntimeError: CUDA_VISIBLE_DEVICES is set to empty string, which means GPU support "
             "is disabled. If you are using ray, please unset the environment variable "
             "`CUDA_VISIBLE_DEVICES` inside the worker/actor."), PHYSICAL_DEVICE,
     "parallelism-exceeds-devices", "--master-addr"),
    # transformers 5's tokenizers are its TokenizersBackend class
    (st.builds(lambda attr: f"AttributeError: TokenizersBackend has no attribute {attr}",
               st.sampled_from(["all_special_tokens_extended", "special_tokens_map_extended"])),
     TOKENIZER_INIT, "tokenizer-class-attribute-missing", "transformers<5"),
    (st.sampled_from(["RuntimeError: Failed to infer device type",
                      "RuntimeError: Failed to infer device type, please set the environment "
                      "variable `VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help "
                      "debug the issue."]),
     DEVICE_CONFIG, "cuda-device-unavailable", "rocm/vllm"),
    (st.builds(lambda cls: f"AssertionError: type(self)=<class 'torch._inductor.{cls}'>",
               st.sampled_from(["scheduler.Scheduler", "graph.GraphLowering"])),
     INDUCTOR, "torch-compile-internal-check-failed", "requirements/cpu.txt"),
    # torch's device-generic API on a device whose backend lacks what it needs
    (st.builds(lambda dev: (f"RuntimeError: device_allocator INTERNAL ASSERT FAILED at \""
                            f"/pytorch/c10/core/CachingDeviceAllocator.h\":253, please report a "
                            f"bug to PyTorch. Allocator for {dev} is not a DeviceAllocator."),
               st.sampled_from(["hpu", "npu", "privateuseone"])),
     ACCELERATOR, "library-torch-accelerator-error", "VLLM_PLUGINS"),
    (st.builds(lambda want, have: f"ValueError: {want} doesn't match the current accelerator {have}.",
               st.sampled_from(["cuda", "xpu"]), st.sampled_from(["npu:0", "hpu:0", "npu"])),
     ACCELERATOR, "library-torch-accelerator-error", "current_accelerator"),
    # a required argument missing: argparse's words for any subcommand, vLLM's model check
    (st.builds(lambda cmd, arg: f"usage: {cmd} <{arg}> [options]\n{cmd}: error: the following "
                                f"arguments are required: {arg}",
               st.sampled_from(["vllm serve", "vllm chat", "api_server.py"]),
               st.sampled_from(["model_tag", "--model", "model"])),
     [], "cli-argument-value-rejected", "positional"),
    (st.sampled_from(["ValueError: `model` should be provided as the first positional argument "
                      "when using `vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.",
                      "ValueError: With `vllm serve`, you should provide the model as a "
                      "positional argument or in a config file instead of via the `--model` "
                      "option."]),
     CLI_PARSE, "cli-argument-value-rejected", "vllm serve <model>"),
]

# families whose members' words name the class without a frame (an assertion's source line, a
# plugin's module and the free-memory query are known by their frames only)
BARE_WORDS_SUFFICE = {"hccl-communication-failed", "ascend-npu-runtime-error-code",
                      "hpu-backend-rejected", "python-package-version-mismatch", "native-crash",
                      "ray-cluster-resources", "engine-config-invalid",
                      "parallelism-exceeds-devices", "tokenizer-class-attribute-missing",
                      "cuda-device-unavailable", "torch-compile-internal-check-failed",
                      "cli-argument-value-rejected"}

# (error line, frames, the family that must NOT answer): the same words, another failure
NEAR_MISSES = [
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:3356, remote process exited or there was a network error",
     ALL_REDUCE, "hccl-communication-failed"),
    ("RuntimeError: CUDA error: invalid device ordinal",
     [(VLLM + "v1/worker/gpu_worker.py", "init_device"), (SITE + "torch/cuda/__init__.py",
                                                          "set_device")],
     "ascend-npu-runtime-error-code"),
    ("RuntimeError: Invalid CUDA_VISIBLE_DEVICES=4. Device IDs should be between 0 and 3.",
     [(VLLM + "v1/worker/gpu_worker.py", "init_device")], "hpu-backend-rejected"),
    ("RuntimeError: CUDA error: invalid argument\nCUDA kernel errors might be asynchronously "
     "reported at some other API call, so the stacktrace below might be incorrect.",
     MEM_GET_INFO, "hip-runtime-error"),
    ("ModuleNotFoundError: No module named 'ray'",
     [(VLLM + "executor/ray_utils.py", "<module>")], "python-package-version-mismatch"),
    ("ValueError: Request 17 is outside of the warmup shapes",
     [(VLLM + "v1/engine/core.py", "add_request")], "library-platform-plugin-error"),
    ("ValueError: The number of required GPUs exceeds the total number of available GPUs in the "
     "placement group.", [(VLLM + "executor/ray_utils.py", "initialize_ray_cluster")],
     "ray-cluster-resources"),
    ("ValueError: This model's maximum context length is 32768 tokens. However, you requested "
     "65536 tokens in the messages, Please reduce the length of the messages.",
     [(VLLM + "entrypoints/openai/serving_engine.py", "_validate_input")],
     "engine-config-invalid"),
    ("RuntimeError: The detected CUDA version (12.1) mismatches the version that was used to "
     "compile PyTorch (11.8). Please make sure to use the same CUDA versions.",
     [(SITE + "torch/utils/cpp_extension.py", "_check_cuda_version")],
     "library-torch-cuda-error"),
    ("FileNotFoundError: [Errno 2] No such file or directory: '/models/llama/config.json'",
     [(VLLM + "transformers_utils/config.py", "get_config")], "library-triton-error"),
    ("ERROR 05-14 10:04:12 [nixl_connector.py:1290] Error handling NIXL handshake with remote "
     "engine 10.30.1.9:5600", [], "mooncake-transfer-failed"),
    ("RuntimeError: Failed to connect to the Ray cluster at 10.0.0.2:6379",
     [(VLLM + "executor/ray_utils.py", "initialize_ray_cluster")], "mooncake-transfer-failed"),
    ("RuntimeError: CUDA error: out of memory",
     [(VLLM + "distributed/parallel_state.py", "cleanup_dist_env_and_memory"),
      (SITE + "torch/cuda/memory.py", "empty_cache")], "library-torch-accelerator-error"),
    ("usage: vllm serve <model_tag> [options]\nvllm serve: error: unrecognized arguments: "
     "--enable-foo", [], "cli-argument-value-rejected"),
    ("ValueError: No available memory for the cache blocks. Try increasing "
     "`gpu_memory_utilization` when initializing the engine.",
     [(VLLM + "v1/core/kv_cache_utils.py", "check_enough_kv_cache_memory")],
     "v0-block-manager-rejected"),
    ("ModuleNotFoundError: No module named 'ray'",
     [(VLLM + "executor/ray_utils.py", "initialize_ray_cluster")], "library-ray-error"),
    ("RuntimeError: Failed to infer the attention backend for this model",
     [(VLLM + "attention/selector.py", "get_attn_backend")], "cuda-device-unavailable"),
    ("AttributeError: 'Qwen2Config' object has no attribute 'rope_theta'",
     [(VLLM + "model_executor/models/qwen2.py", "__init__")], "tokenizer-library-check-failed"),
]

# how the traceback reaches the log: printed bare, under a V1 engine core's ERROR records, with
# torchrun's rank prefix, from a Ray worker
PREFIXES = ["", "(EngineCore_DP0 pid=4100) ERROR 11-03 14:02:16 [core.py:708] ", "[rank0]: ",
            "(RayWorkerWrapper pid=233, ip=10.20.1.125) "]


@cache
def families() -> SignatureSet:
    return import_tool("family_loo", "loo").families_only(default_signatures())


def _log(error: str, frames: list[tuple[str, str]], prefix: str) -> str:
    if not frames:
        return "".join(prefix + line + "\n" for line in error.split("\n"))
    return python_traceback([(path, function, "call(...)") for path, function in frames], error,
                            prefix)


@st.composite
def member_logs(draw: st.DrawFn) -> tuple[str, str, str]:
    messages, frames, family, remedy = draw(st.sampled_from(MEMBERS))
    # a member is seen with its frames, its innermost frame alone, or (when its words say it
    # all) as the bare message a pasted excerpt keeps
    shapes = [frames, frames[-1:]] + ([[]] if family in BARE_WORDS_SUFFICE else [])
    shown = draw(st.sampled_from(shapes))
    return _log(draw(messages), shown, draw(st.sampled_from(PREFIXES))), family, remedy


@settings(max_examples=80, deadline=None)
@given(member_logs())
def test_a_widened_family_answers_another_member_with_the_shared_remedy(
        member: tuple[str, str, str]) -> None:
    log, family, remedy = member
    report = explain_text(log, signatures=families())
    assert report.signature is not None, log
    assert report.signature.id == family, (log, report.signature.id)
    assert remedy.lower() in report.signature.fix.lower(), (family, remedy)


@pytest.mark.parametrize(("error", "frames", "family"), NEAR_MISSES,
                         ids=[f"{f}-{i}" for i, (_, _, f) in enumerate(NEAR_MISSES)])
def test_a_near_neighbour_in_the_same_words_goes_elsewhere(
        error: str, frames: list[tuple[str, str]], family: str) -> None:
    for prefix in PREFIXES:
        report = explain_text(_log(error, frames, prefix), signatures=families())
        assert report.signature is None or report.signature.id != family, (error, prefix)


# Mooncake's transfer engine writes glog E-lines (with or without the year, any transport's
# source file); the connectors (vLLM's, vllm-ascend's) write ERROR records from engine cores or
# workers. Each alone is answered by the Mooncake family with the transports' remedies.
MOONCAKE_LINES = st.one_of(
    st.builds(lambda stamp, tid, source, kind, host, port: (
        f"{stamp} {tid} {source}] Failed to connect to {kind}: {host}:{port}"),
        st.sampled_from(["E20260302 09:16:02.481230", "E1210 03:24:54.779678"]),
        st.integers(100, 3000000),
        st.sampled_from(["ascend_direct_transport.cpp:820", "rdma_transport.cpp:402",
                         "transfer_engine.cpp:311"]),
        st.sampled_from(["target", "segment"]),
        st.sampled_from(["10.20.0.7", "172.16.100.99", "node-3"]), st.integers(15000, 40000)),
    st.builds(lambda proc, source, req, text: (
        f"({proc}) ERROR 12-10 03:24:54 [{source}] {text.format(req=req)}"),
        st.sampled_from(["EngineCore_DP0 pid=4188", "Worker_DP0_TP3 pid=2540966"]),
        st.sampled_from(["mooncake_connector.py:419", "mooncake_connector.py:330"]),
        st.sampled_from(["5f0e", "09be0283"]),
        st.sampled_from(["Mooncake transfer failed for request cmpl-{req}-0",
                         "Failed to transfer KV cache for request cmpl-{req}-0: Mooncake "
                         "transfer failed, ret: -1"])))


@settings(max_examples=30, deadline=None)
@given(MOONCAKE_LINES)
def test_a_mooncake_transfer_line_gets_the_transports_remedies(line: str) -> None:
    report = explain_text(f"INFO:     Application startup complete.\n{line}\n",
                          signatures=families())
    assert report.signature is not None and report.signature.id == "mooncake-transfer-failed", line
    fix = report.signature.fix
    assert all(knob in fix for knob in ("use_ascend_direct", "mooncake_protocol", "VLLM_HOST_IP"))
