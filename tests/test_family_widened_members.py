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
under a compiler check.

Session 34 (sigs-a) adds the classes its leave-one-out found on no family or the wrong one, each
generated in other wordings and shapes: a process user with no name or home (pwd, getpass,
pathlib), torch.accelerator's refusals in torch's own words (a pytest `E   ` line holds no frame),
route objects of another FastAPI/Starlette release, an Ascend kernel's launch grid above 65535,
a key a KV connector reads from kv_connector_extra_config, parallel sampling under V0 multi-step,
vLLM's compiled extensions not loaded (the import, a source tree, torch's dispatcher), a script
named like the package, the front end's wait for its engines, torch's TCP store on a taken port,
the Gaudi software's bridge and Intel Neural Compressor's FP8 path, and a failed step of vLLM's
Dockerfile (BuildKit's and the legacy builder's words, the wheel-size guard). Round 2 adds the
remedies families lacked for members they already answered: a speculative draft's method under a
weight's shape (EAGLE-3, MTP), a runner's host buffers of one step's token budget under numpy's
broadcast check (vLLM's runner, the Gaudi plugin's warm-up buckets), pinned memory off where
vLLM's WSL test reads the hostname, a model compiled for fixed shapes (optimum-rbln) served
with other engine settings, and the draft sampling method the second runner's speculators
check."""

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
USER_LOOKUP = [(SITE + "torch/_inductor/runtime/cache_dir_utils.py", "default_cache_dir"),
               ("/usr/lib/python3.12/getpass.py", "getuser")]
HOME_LOOKUP = [(SITE + "triton/knobs.py", "default_cache_dir"),
               ("/usr/lib/python3.12/pathlib.py", "expanduser")]
ROUTE_LABEL = [(SITE + "starlette/applications.py", "__call__"),
               (SITE + "prometheus_fastapi_instrumentator/routing.py", "_get_route_name")]
P2P_NCCL = [(VLLM + "distributed/kv_transfer/kv_connector/v1/p2p/p2p_nccl_connector.py",
             "__init__"),
            (VLLM + "distributed/kv_transfer/kv_connector/v1/p2p/p2p_nccl_engine.py", "__init__")]
MULTI_STEP_SAMPLER = [(VLLM + "worker/multi_step_model_runner.py", "execute_model"),
                      (VLLM + "model_executor/layers/sampler.py", "_sample_with_torch")]
CUSTOM_OP = [(VLLM + "model_executor/layers/layernorm.py", "forward_cuda"),
             (VLLM + "_custom_ops.py", "rms_norm"), (SITE + "torch/_ops.py", "__getattr__")]
GAUDI_BRIDGE = [(VLLM + "worker/hpu_model_runner.py", "warmup_model"),
                (SITE + "habana_frameworks/torch/internal/bridge_config.py", "env_setting")]
GAUDI_INC = [(SITE + "vllm_gaudi/v1/worker/hpu_model_runner.py", "load_model"),
             (SITE + "neural_compressor/torch/algorithms/fp8_quant/_core/scale.py",
              "prepare_layer_scales")]


# session 34 round 2: a speculative draft's loader, a runner preparing a batch on the host (vLLM's
# V1 runner and the Gaudi plugin's warm-up), the V2 runner's pinned buffers
EAGLE_LOAD = [(VLLM + "v1/spec_decode/eagle.py", "load_model"),
              (VLLM + "model_executor/models/llama_eagle.py", "load_weights"),
              (VLLM + "model_executor/layers/linear.py", "weight_loader")]
MTP_LOAD = [(VLLM + "v1/spec_decode/eagle.py", "load_model"),
            (VLLM + "model_executor/models/deepseek_mtp.py", "load_weights"),
            (VLLM + "model_executor/model_loader/weight_utils.py", "default_weight_loader")]
HOST_PREP = [(VLLM + "v1/worker/gpu_model_runner.py", "_dummy_run"),
             (VLLM + "v1/worker/gpu_model_runner.py", "_prepare_inputs")]
GAUDI_WARMUP = [(SITE + "vllm_gaudi/v1/worker/hpu_model_runner.py", "warmup_model"),
                (SITE + "vllm_gaudi/v1/worker/hpu_model_runner.py", "_prepare_inputs")]
UVA_BUFFERS = [(VLLM + "v1/worker/gpu_worker.py", "init_device"),
               (VLLM + "v1/worker/gpu/model_runner.py", "__init__"),
               (VLLM + "v1/worker/gpu/buffer_utils.py", "__init__")]
SPECULATOR = [(VLLM + "v1/worker/gpu/model_runner.py", "__init__"),
              (VLLM + "v1/worker/gpu/spec_decode/speculator.py", "_validate_local_argmax_reduction")]
HIDDEN_STATES = [(VLLM + "v1/worker/gpu/model_runner.py", "load_model"),
                 (VLLM + "v1/worker/gpu/spec_decode/extract_hidden_states.py", "__init__")]
RBLN_STEP = [(SITE + "vllm_rbln/worker/model_runner.py", "execute_model"),
             (SITE + "optimum/rbln/transformers/models/decoderonly/decoderonly_runtime_utils.py",
              "forward")]


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
     ACCELERATOR, "torch-accelerator-call-unsupported-on-device", "VLLM_PLUGINS"),
    (st.builds(lambda want, have: f"ValueError: {want} doesn't match the current accelerator {have}.",
               st.sampled_from(["cuda", "xpu"]), st.sampled_from(["npu:0", "hpu:0", "npu"])),
     ACCELERATOR, "torch-accelerator-call-unsupported-on-device", "current_accelerator"),
    # a message raised inside torch.accelerator that no word family knows: the module's family
    (st.builds(lambda dev: (f"ValueError: Expected a torch.device with a specified index or an "
                            f"integer, but got:{dev}"), st.sampled_from(["npu", "hpu", "cuda"])),
     ACCELERATOR, "library-torch-accelerator-error", "VLLM_PLUGINS"),
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
    # a process user with no name or home (session 34)
    (st.builds(lambda uid: f"KeyError: 'getpwuid(): uid not found: {uid}'",
               st.sampled_from([1000910000, 1002700000, 12345, 65534000])),
     USER_LOOKUP, "process-user-unknown-to-system", "USER="),
    (st.sampled_from(["OSError: No username set in the environment",
                      "RuntimeError: Could not determine home directory."]),
     HOME_LOOKUP, "process-user-unknown-to-system", "NSS_WRAPPER_PASSWD"),
    # torch.accelerator's refusals in torch's own words
    (st.sampled_from(["RuntimeError: Cannot access accelerator device when none is available.",
                      "RuntimeError: Accelerator expected"]),
     ACCELERATOR, "torch-accelerator-call-unsupported-on-device", "empty_cache"),
    # route objects of another FastAPI/Starlette release
    (st.builds(lambda cls, attr: f"AttributeError: '{cls}' object has no attribute '{attr}'",
               st.sampled_from(["_IncludedRouter", "Mount", "Host", "APIRoute"]),
               st.sampled_from(["path", "name", "endpoint", "methods"])),
     ROUTE_LABEL, "asgi-route-object-api-changed", "prometheus-fastapi-instrumentator>=8.0.1"),
    # an Ascend kernel's launch grid above the runtime's limit, any kernel
    (st.builds(lambda kernel, n: (f"RuntimeError: operator name is {kernel}.\nKernelLaunch failed "
                                  f"because value {n} for parameter coreDim is invalid.\nExpected "
                                  f"value: less than or equal to 65535."),
               st.sampled_from(["layer_norm_fwd_kernel", "token_bin_counts_and_mask_kernel",
                                "_rotary_kernel", "fused_recurrent_gated_delta_rule_fwd_kernel"]),
               st.integers(65536, 400000)),
     [], "ascend-cann-operator-error", "--max-num-batched-tokens"),
    (st.builds(lambda n: (f"RuntimeError: EE1001: The argument is invalid.Reason: coreDim={n} "
                          f"can't be greater than UINT16_MAX."), st.integers(65536, 400000)),
     [], "ascend-cann-operator-error", "coreDim"),
    # a key a KV connector reads from kv_connector_extra_config without a default
    (st.sampled_from(["KeyError: 'http_port'", "KeyError: 'proxy_port'"]),
     P2P_NCCL, "kv-connector-code-mismatch", "http_port"),
    # parallel sampling through V0's multi-step sampler
    (st.builds(lambda n: (f"RuntimeError: shape mismatch: value tensor of shape [{n}] cannot be "
                          f"broadcast to indexing result of shape [1, 1]"), st.integers(2, 64)),
     MULTI_STEP_SAMPLER, "multi-step-request-feature-unsupported", "--num-scheduler-steps"),
    # vLLM's compiled extensions not loaded, in each shape
    (st.builds(lambda ns, op: f"RuntimeError: No such operator {ns}::{op}",
               st.sampled_from(["_C", "_moe_C", "_rocm_C", "_C_cache_ops"]),
               st.sampled_from(["rms_norm", "topk_softmax", "silu_and_mul", "reshape_and_cache"])),
     CUSTOM_OP, "vllm-compiled-extension-not-loaded", "VLLM_USE_PRECOMPILED"),
    (st.builds(lambda name, root: (f"ImportError: cannot import name '{name}' from partially "
                                   f"initialized module 'vllm' (most likely due to a circular "
                                   f"import) ({root}/vllm/__init__.py)"),
               st.sampled_from(["cache_ops", "activation_ops", "cuda_utils", "_custom_ops"]),
               st.sampled_from(["/workspace/vllm", "/home/u/src/vllm", "C:\\src\\vllm"])),
     [("/workspace/run.py", "<module>")], "vllm-compiled-extension-not-loaded", "PYTHONPATH"),
    # a script named like the package it imports
    (st.builds(lambda mod: f"ModuleNotFoundError: No module named 'vllm.{mod}'; 'vllm' is not a "
                           f"package", st.sampled_from(["engine", "entrypoints", "sampling_params"])),
     [("/root/vllm.py", "<module>")], "missing-optional-package", "vllm.py"),
    # the front end's wait for its engines (torch's TCP store on a port someone took is
    # port-in-use's, an exact signature whose advice is the port race: session 34's lead took the
    # family's copy of its pattern out when it outranked that signature on a bare line)
    (st.sampled_from(["TimeoutError: Timed out waiting for engines to send initial message on "
                      "input socket.", "TimeoutError: Timed out waiting for engines to "
                      "sendinitial message on input socket."]),
     [(VLLM + "v1/engine/core_client.py", "__init__")], "engine-startup-timeout",
     "VLLM_ENGINE_READY_TIMEOUT_S"),
    # the Gaudi software's bridge, and Intel Neural Compressor's FP8 path
    (st.builds(lambda setting: f"KeyError: 'get_pt_{setting}'",
               st.sampled_from(["compile_only_mode", "hpu_enable_eager_cache",
                                "hpu_lazy_acc_par_mode"])),
     GAUDI_BRIDGE, "hpu-backend-rejected", "vault.habana.ai"),
    (st.builds(lambda method: (f"AssertionError: Scaling method \"ScaleMethodString.{method}\" is not "
                               f"supported for runtime scale patching (graph recompile reduction)"),
               st.sampled_from(["ACT_MAXABS_PCS_POW2_WEIGHT_MAXABS_PTS_POW2_HW",
                                "MAXABS_HW_OPT_WEIGHT"])),
     GAUDI_INC, "hpu-backend-rejected", "RUNTIME_SCALE_PATCHING"),
    # session 34 round 2: an EAGLE-3 draft (three hidden states into fc) built as EAGLE-1 (two),
    # in vLLM's loader assertion or torch's state-dict words; the method names the draft's head
    (st.builds(lambda h: (f"AssertionError: Attempted to load weight (torch.Size([{h}, {3 * h}])) "
                          f"into parameter (torch.Size([{h}, {2 * h}]))"),
               st.sampled_from([2048, 4096, 5120, 7168])),
     EAGLE_LOAD, "weight-shape-mismatch", "eagle3"),
    (st.builds(lambda h: (f"RuntimeError: Error(s) in loading state_dict for EagleLlamaForCausalLM:"
                          f"\n\tsize mismatch for fc.weight: copying a param with shape "
                          f"torch.Size([{h}, {3 * h}]) from checkpoint, the shape in current model "
                          f"is torch.Size([{h}, {2 * h}])."), st.sampled_from([2048, 4096])),
     EAGLE_LOAD, "weight-shape-mismatch", "--speculative-config"),
    (st.builds(lambda h, v: (f"AssertionError: Attempted to load weight (torch.Size([{v}, {h}])) "
                             f"into parameter (torch.Size([{v // 2}, {h}]))"),
               st.sampled_from([4096, 7168]), st.sampled_from([129280, 151936])),
     MTP_LOAD, "weight-shape-mismatch", "deepseek_mtp"),
    # a batch larger than the runner's host buffers (sized by the step's token budget): numpy's
    # broadcast check in vLLM's runner or a plugin's warm-up
    (st.builds(lambda n, m: (f"ValueError: operands could not be broadcast together with shapes "
                             f"({n},) ({n},) ({m},)"),
               st.sampled_from([6144, 8192, 16384]), st.sampled_from([2048, 4096])),
     HOST_PREP, "tensor-shape-mismatch-in-forward", "max_num_batched_tokens"),
    (st.builds(lambda n, m: (f"ValueError: operands could not be broadcast together with shapes "
                             f"({n},) ({n},) ({m},)"),
               st.sampled_from([6144, 8192]), st.sampled_from([2048, 4096])),
     GAUDI_WARMUP, "tensor-shape-mismatch-in-forward", "VLLM_PROMPT_BS_BUCKET_MAX"),
    # the second runner's speculators refusing a draft sampling method (0.34's words)
    (st.sampled_from(["ValueError: use_local_argmax_reduction is not compatible with "
                      "draft_sample_method='probabilistic'."]), SPECULATOR,
     "spec-decode-proposer-rejected", "draft_sample_method"),
    (st.sampled_from(["ValueError: extract_hidden_states only supports "
                      "draft_sample_method='greedy'"]), HIDDEN_STATES,
     "spec-decode-proposer-rejected", "greedy"),
    # a model compiled for fixed shapes served with other engine settings (optimum-rbln)
    (st.builds(lambda got, want: (f"TypeError: block_tables (shape=({got},)) has a shape "
                                  f"different to required shape ({want},)."),
               st.sampled_from([1, 2, 16]), st.sampled_from([4, 8, 32])),
     RBLN_STEP, "library-optimum-error", "--block-size"),
    # pinned memory off because vLLM took the machine for WSL (the hostname in uname)
    (st.sampled_from(["RuntimeError: UVA is not available"]), UVA_BUFFERS,
     "gpu-model-runner-rejected", "hostname"),
]

# families whose members' words name the class without a frame (an assertion's source line, a
# plugin's module and the free-memory query are known by their frames only)
BARE_WORDS_SUFFICE = {"hccl-communication-failed", "ascend-npu-runtime-error-code",
                      "hpu-backend-rejected", "python-package-version-mismatch", "native-crash",
                      "ray-cluster-resources", "engine-config-invalid",
                      "parallelism-exceeds-devices", "tokenizer-class-attribute-missing",
                      "cuda-device-unavailable", "torch-compile-internal-check-failed",
                      "cli-argument-value-rejected", "process-user-unknown-to-system",
                      "torch-accelerator-call-unsupported-on-device",
                      "asgi-route-object-api-changed", "ascend-cann-operator-error",
                      "multi-step-request-feature-unsupported",
                      "vllm-compiled-extension-not-loaded", "missing-optional-package",
                      "engine-startup-timeout", "address-in-use"}

# members (by the remedy they test) of a family in BARE_WORDS_SUFFICE whose own words do not name
# the class: the Gaudi bridge's getter and INC's scaling check are known by their frames only
FRAMES_NEEDED = {"vault.habana.ai", "RUNTIME_SCALE_PATCHING"}

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
    ("RuntimeError: CUDA error: out of memory",
     [(VLLM + "distributed/parallel_state.py", "cleanup_dist_env_and_memory"),
      (SITE + "torch/cuda/memory.py", "empty_cache")],
     "torch-accelerator-call-unsupported-on-device"),
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
    # session 34: the same words, another failure
    ("KeyError: 'HOME'", [("/opt/app/serve.py", "<module>"), ("<frozen os>", "__getitem__")],
     "process-user-unknown-to-system"),
    ("AttributeError: 'State' object has no attribute 'openai_serving_chat'",
     [(SITE + "starlette/datastructures.py", "__getattr__")], "asgi-route-object-api-changed"),
    ("AttributeError: 'RouterOutput' object has no attribute 'path'",
     [("/opt/app/router.py", "route")], "asgi-route-object-api-changed"),
    ("RuntimeError: Triton Error [CUDA]: invalid argument",
     [(SITE + "triton/backends/nvidia/driver.py", "__call__")], "ascend-cann-operator-error"),
    ("RuntimeError: shape mismatch: value tensor of shape [188, 4096] cannot be broadcast to "
     "indexing result of shape [189, 4096]",
     [(VLLM + "model_executor/models/qwen2_audio.py", "forward")],
     "multi-step-request-feature-unsupported"),
    ("AttributeError: '_OpNamespace' '_C_ascend' object has no attribute 'rotary_embedding'",
     [(SITE + "vllm_ascend/ops/rotary_embedding.py", "forward_oot")],
     "vllm-compiled-extension-not-loaded"),
    ("ModuleNotFoundError: No module named 'vllm_ascend'",
     [(VLLM + "plugins/__init__.py", "load_plugins_by_group")],
     "vllm-compiled-extension-not-loaded"),
    ("RuntimeError: The server socket has failed to listen on any local network address. port: "
     "80, useIpv6: 0, code: -13, name: EACCES, message: permission denied",
     [(SITE + "torch/distributed/rendezvous.py", "_create_c10d_store")], "address-in-use"),
    ("KeyError: 'model.layers.0.mlp.experts.w13_weight'",
     [(VLLM + "model_executor/models/qwen3_moe.py", "load_weights")], "hpu-backend-rejected"),
    # session 34 round 2: an index_put shape error of the runner, no weight being loaded
    ("RuntimeError: shape mismatch: value tensor of shape [8, 4096] cannot be broadcast to "
     "indexing result of shape [9, 4096]", HOST_PREP, "weight-shape-mismatch"),
    # the second runner's own check, outside its speculators
    ("ValueError: Model Runner V2 does not support pooling models yet.",
     [(VLLM + "v1/worker/gpu/model_runner.py", "__init__")], "spec-decode-proposer-rejected"),
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
    bare = family in BARE_WORDS_SUFFICE and remedy not in FRAMES_NEEDED
    shapes = [frames, frames[-1:]] + ([[]] if bare else [])
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


# A failed step of vLLM's Dockerfile as a build prints it: BuildKit's plain progress (`#N `) or
# tty summary, the legacy builder's words, the wheel-size guard's verdict in either era's wording.
# Each alone is answered by the build family with the Dockerfile's build arguments.
_STEP = st.sampled_from([
    'if [ \\"$RUN_WHEEL_CHECK\\" = \\"true\\" ]; then python3 check-wheel-size.py dist; fi',
    "python3 setup.py bdist_wheel --dist-dir=dist --py-limited-api=cp38",
    "uv pip install --system -r requirements/cuda.txt"])
DOCKER_BUILD_LINES = st.one_of(
    st.builds(lambda step, code, prefix: (f'{prefix}ERROR: failed to solve: process "/bin/sh -c '
                                          f'{step}" did not complete successfully: exit code: '
                                          f'{code}'),
              _STEP, st.sampled_from([1, 2, 127]), st.sampled_from(["", "#24 "])),
    st.builds(lambda step, code: (f"executor failed running [/bin/sh -c {step}]: exit code: "
                                  f"{code}"), _STEP, st.sampled_from([1, 2])),
    st.builds(lambda step, code: (f"The command '/bin/sh -c {step}' returned a non-zero code: "
                                  f"{code}"), _STEP, st.sampled_from([1, 2])),
    st.builds(lambda prefix, size, limit: (f"{prefix}Not allowed: Wheel dist/vllm-0.9.1-cp38-abi3-"
                                           f"linux_x86_64.whl is larger ({size} MB) than the "
                                           f"limit ({limit} MB)."),
              st.sampled_from(["", "#24 0.241 ", "0.354 "]),
              st.sampled_from(["291.37", "817.06"]), st.sampled_from([250, 400])),
    # the 0.4 era's wording, which the legacy builder's verdict on the step follows
    st.builds(lambda size: (f"Wheel dist/vllm-0.4.2-cp310-cp310-linux_x86_64.whl is too large "
                            f"({size} MB) compare to the allowed size (100 MB).\nThe command "
                            f"'/bin/sh -c python3 check-wheel-size.py dist' returned a non-zero "
                            f"code: 1"), st.sampled_from(["131.82", "104.5"])))


@settings(max_examples=30, deadline=None)
@given(DOCKER_BUILD_LINES)
def test_a_failed_dockerfile_step_gets_the_build_arguments(line: str) -> None:
    # BuildKit's plain progress before the failed step (its `#N` step numbers)
    progress = ["#22 [build 7/8] RUN python3 setup.py bdist_wheel", "#22 DONE 5214.3s", line]
    report = explain_text("\n".join(progress) + "\n", signatures=families())
    assert report.signature is not None and \
        report.signature.id == "docker-image-build-step-failed", (line, report.signature)
    fix = report.signature.fix
    assert all(knob in fix for knob in ("RUN_WHEEL_CHECK", "VLLM_MAX_SIZE_MB", "max_jobs"))


@pytest.mark.parametrize("line", [
    "ERROR: failed to solve: nvidia/cuda:12.8.1-devel-ubuntu20.04: not found",
    "ERROR: failed to solve: failed to compute cache key: \"/requirements/cuda.txt\" not found",
    "Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]]"])
def test_a_docker_error_that_is_no_failed_build_step_goes_elsewhere(line: str) -> None:
    report = explain_text(f"{line}\n", signatures=families())
    assert report.signature is None or report.signature.id != "docker-image-build-step-failed"
