"""Classes behind session 34's split's cold fix misses (dev-fix's four), each generated over its
wordings and the ways a log shows it, with near misses:

- vLLM code run outside the context vLLM's worker sets around its own calls ("Current vLLM config
  is not set ..." from 0.14, "Forward context is not set ..."): vllm-context-not-set, whose fix
  names `set_current_vllm_config` (an RL framework's weight update, a script, a plugin); vLLM's
  other "... is not set" checks are not it;
- a JIT kernel build that finds no CUDA toolkit, in the builder's own words (FlashInfer's "Could
  not find nvcc ...", vLLM's run-time kernels' "Cannot find CUDA toolkit", torch's CUDA_HOME
  error): cuda-home-not-set, whose fix names FlashInfer's prebuilt kernels; a torch without CUDA,
  a failed ninja build and a tool missing from PATH keep their own signatures;
- the Ray executor refused on a platform without a Ray device key, any platform name, release
  and raise site: ray-unsupported-on-platform names the plugin's `ray_device_key` and Ray's
  `--resources`; Ray's own shortage of devices is not it;
- ROCm's memory access fault, any node, address and reason, bare or behind a prefix: the fix
  names the APUs' MES firmware and `amdgpu.cwsr_enable=0`; a HIP illegal memory access raised as
  a Python exception is not it.

Siblings the same raise sites imply: inductor's "No working C++ compiler found" is the JIT
toolchain family's; vLLM's refusals that name the platform by reference ("The current platform
does not support ...", "platform xpu does not support ...") are the platform-feature family's,
the Ray and NVFP4 refusals keeping their exact signatures; "... group is not initialized" from
code outside vLLM's worker gets the distributed family's `initialize_model_parallel`.

With every exact signature withheld (tools/family_loo), the family that answers each of the four
classes names its remedy too: a failure of the class nobody wrote a signature for gets it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from functools import cache

from tool_import import import_tool
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures


def _signature_id(log: str) -> str | None:
    report = explain_text(log, signatures=default_signatures())
    return None if report.signature is None else report.signature.id


def _shaped(error: str, frames: list[tuple[str, str, str]], shape: str, prefix: str) -> str:
    """`error` as a traceback under `frames`, as its last line alone, or behind a prefix."""
    if shape == "traceback":
        return python_traceback(frames, error, prefix)
    if shape == "record":
        return f"{prefix}{error}\n"
    return error + "\n"


SHAPES = st.sampled_from(["traceback", "record", "oneline"])

# ---- vLLM's process-wide context missing ----------------------------------------------------------

_CONFIG_NOT_SET = (
    "AssertionError: Current vLLM config is not set. This typically means "
    "get_current_vllm_config() was called outside of a set_current_vllm_config() context, or a "
    "CustomOp was instantiated at module import time or model forward time when config is not "
    "set. For tests that directly test custom ops/modules, use the 'default_vllm_config' pytest "
    "fixture from tests/conftest.py.")
_FORWARD_NOT_SET = ("AssertionError: Forward context is not set. Please use `set_forward_context` "
                    "to set the forward context.")
# Who calls into vLLM outside its worker's own calls: an RL framework's weight sync, a script.
_CALLERS = [("{site}verl/workers/rollout/vllm_rollout/utils.py", "update_weights_from_ipc"),
            ("{site}openrlhf/trainer/ray/vllm_worker_wrap.py", "update_weight"),
            ("/home/u/project/sync_weights.py", "reload"),
            ("{site}skyrl_train/inference_engines/vllm/vllm_engine.py", "update_named_weights")]
# What reads the config, innermost first above get_current_vllm_config.
_READERS = [("vllm/model_executor/layers/fused_moe/flashinfer_cutlass_moe.py", "__init__"),
            ("vllm/model_executor/layers/fused_moe/layer.py", "_get_quant_method"),
            ("vllm/model_executor/custom_op.py", "dispatch_forward"),
            ("vllm/model_executor/layers/quantization/fp8.py", "process_weights_after_loading")]


def _context_frames(root: str, caller: tuple[str, str], reader: tuple[str, str],
                    forward: bool) -> list[tuple[str, str, str]]:
    frames = [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
               "output = func(*args, **kwargs)"),
              (caller[0].format(site=root), caller[1],
               "process_weights_after_loading(model, model_config, self.device)")]
    if forward:
        return frames + [(f"{root}vllm/model_executor/models/llama.py", "forward",
                          "hidden_states = self.self_attn(positions, hidden_states)"),
                         (f"{root}vllm/attention/layer.py", "forward",
                          "forward_context: ForwardContext = get_forward_context()"),
                         (f"{root}vllm/forward_context.py", "get_forward_context",
                          "assert _forward_context is not None, (")]
    return frames + [(f"{root}vllm/model_executor/model_loader/utils.py",
                      "process_weights_after_loading",
                      "quant_method.process_weights_after_loading(module)"),
                     (f"{root}{reader[0]}", reader[1],
                      "get_current_vllm_config().compilation_config"),
                     (f"{root}vllm/config/vllm.py", "get_current_vllm_config",
                      "raise AssertionError(")]


@settings(max_examples=50, deadline=None)
@given(caller=st.sampled_from(_CALLERS), reader=st.sampled_from(_READERS),
       forward=st.booleans(), relative=st.booleans(), cut=st.booleans(), shape=SHAPES,
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_vllm_code_outside_its_context_names_set_current_vllm_config(
        caller: tuple[str, str], reader: tuple[str, str], forward: bool, relative: bool,
        cut: bool, shape: str, py: str, site: str, prefix: str) -> None:
    root = "" if relative else site.format(py=py)
    error = _FORWARD_NOT_SET if forward else _CONFIG_NOT_SET
    if cut:  # a paste that keeps only the message's first sentence
        error = error.split(". ", 1)[0] + "."
    log = _shaped(error, _context_frames(root, caller, reader, forward), shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "vllm-context-not-set", log
    assert "set_current_vllm_config" in fix and "set_forward_context" in fix, fix


@pytest.mark.parametrize("shape", ["traceback", "record", "oneline"])
def test_the_model_prefix_of_the_same_context_names_set_current_vllm_config(shape: str) -> None:
    root = "/usr/local/lib/python3.12/dist-packages/"
    frames = [("/home/u/project/build_model.py", "<module>", "model = Qwen2ForCausalLM(vllm_config)"),
              (f"{root}vllm/model_executor/layers/linear.py", "__init__",
               "prefix = get_current_model_prefix()"),
              (f"{root}vllm/config/__init__.py", "get_current_model_prefix",
               'assert _current_prefix is not None, "Current model prefix is not set. "')]
    log = _shaped("AssertionError: Current model prefix is not set.", frames, shape,
                  "ERROR 07-28 10:42:05 [core.py:387] ")
    sid, fix = signature_advice(log)
    assert sid == "vllm-context-not-set" and "set_current_vllm_config" in fix


@pytest.mark.parametrize("error", [
    "AssertionError: speculative_config is not set",
    "ValueError: KVTransferConfig is not set in the VllmConfig, cannot initialize KVConnector.",
    "AssertionError: tensor model parallel group is not initialized",
    "AssertionError: Attention metadata is not set for this forward pass",
])
def test_other_not_set_checks_are_not_the_missing_context(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py",
               "load_model", "self.model_runner.load_model()")]
    assert _signature_id(python_traceback(frames, error)) != "vllm-context-not-set"


# ---- no CUDA toolkit for a JIT build, in each builder's words -------------------------------------

_TOOLKIT_MISSING = [
    # FlashInfer's get_cuda_path: 0.2-0.3, then 0.4 on with the default home it tried
    ("RuntimeError: Could not find nvcc", "flashinfer/jit/cpp_ext.py", "get_cuda_path"),
    ("RuntimeError: Could not find nvcc and default cuda_home='{home}' doesn't exist",
     "flashinfer/jit/cpp_ext.py", "get_cuda_path"),
    ("RuntimeError: nvcc was not found at {home}/bin/nvcc", "flashinfer/jit/cake_gdn.py",
     "_nvcc_identity"),
    # tvm-ffi's builder (tvm_ffi/cpp/extension.py load_inline), some of FlashInfer's kernels
    ("RuntimeError: Could not find CUDA installation. Please set CUDA_HOME environment variable.",
     "tvm_ffi/cpp/extension.py", "_find_cuda_home"),
    # vLLM's own kernels built at run time (vllm/third_party/fmha_sm100, 0.24 on)
    ("RuntimeError: Cannot find CUDA toolkit. Set CUDA_HOME.", "vllm/third_party/fmha_sm100/jit.py",
     "_get_cuda_home"),
    ("RuntimeError: CUDA_HOME/nvcc not found; a CUDA 13 toolkit is required",
     "vllm/third_party/fmha_sm100/kvouter/cpp_backend.py", "_jit_build_extension"),
    ("RuntimeError: No runnable CUDA toolkit was found. Set CUDA_HOME or CUDACXX to a toolkit "
     "containing a host-compatible bin/nvcc. Tried: ['{home}']",
     "vllm/third_party/fmha_sm100/decode_q8kv4/_build_utils.py", "cuda_home"),
    ("RuntimeError: Unable to determine NVCC version under {home}",
     "vllm/third_party/fmha_sm100/decode_q8kv4/_build_utils.py", "cuda_version"),
    # a builder running the toolkit's nvcc by its path, or asking `which nvcc`
    ("FileNotFoundError: [Errno 2] No such file or directory: '{home}/bin/nvcc'",
     "flashinfer/jit/cpp_ext.py", "get_cuda_version"),
    ("subprocess.CalledProcessError: Command '['which', 'nvcc']' returned non-zero exit status 1.",
     "flashinfer/jit/cpp_ext.py", "get_cuda_path"),
    # torch's cpp_extension, which FlashInfer and DeepGEMM ask too
    ("OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
     "torch/utils/cpp_extension.py", "_join_cuda_home"),
]


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(_TOOLKIT_MISSING),
       home=st.sampled_from(["/usr/local/cuda", "/opt/cuda", "/usr/local/cuda-12.8"]),
       shape=SHAPES, indent=st.sampled_from(["", "  "]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_jit_build_without_a_cuda_toolkit_names_the_prebuilt_kernels(
        case: tuple[str, str, str], home: str, shape: str, indent: str, py: str, site: str,
        prefix: str) -> None:
    error, path, function = case
    root = site.format(py=py)
    frames = [(f"{root}vllm/v1/sample/ops/topk_topp_sampler.py", "forward_cuda",
               "return flashinfer_sample(logits.contiguous(), k, p, generators), None"),
              (f"{root}flashinfer/jit/core.py", "build_and_load", "self.build(verbose)"),
              (f"{root}{path}", function, "raise RuntimeError(")]
    log = _shaped(error.format(home=home), frames, shape, prefix)
    if shape == "oneline":  # a paste that kept the traceback's indentation
        log = indent + log
    sid, fix = signature_advice(log)
    assert sid == "cuda-home-not-set", log
    assert "flashinfer-jit-cache" in fix and "CUDA_HOME" in fix and "vllm download-kernels" in fix


@pytest.mark.parametrize(("error", "expected"), [
    ("RuntimeError: nvcc not found and PyTorch is not built with CUDA support. Could not "
     "determine CUDA version.", "torch-not-compiled-with-cuda"),
    ("FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'",
     "jit-build-tool-not-on-path"),
])
def test_a_toolkit_lookup_near_miss_keeps_its_own_signature(error: str, expected: str) -> None:
    root = "/usr/local/lib/python3.12/dist-packages/"
    frames = [(f"{root}flashinfer/jit/core.py", "build_and_load", "self.build(verbose)"),
              (f"{root}flashinfer/jit/cpp_ext.py", "run_ninja", "subprocess.run(command)"),
              ("/usr/lib/python3.12/subprocess.py", "_execute_child",
               "raise child_exception_type(errno_num, err_msg, err_filename)")]
    assert _signature_id(python_traceback(frames, error)) == expected


@pytest.mark.parametrize(("needed", "found"), [("13.0", "12.8"), ("12.9", "12.4")])
def test_a_toolkit_too_old_for_vllms_own_kernels_is_the_too_old_signature(needed: str,
                                                                       found: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/third_party/fmha_sm100/decode_q8kv4/"
               "_build_utils.py", "require_cuda_version", "raise RuntimeError(")]
    error = (f"RuntimeError: decode_q8kv4 requires CUDA Toolkit {needed} or newer; selected "
             f"/usr/local/cuda reports {found}")
    assert _signature_id(python_traceback(frames, error)) == "cuda-toolkit-too-old-for-gpu-arch"


def test_a_failed_ninja_build_is_not_a_missing_toolkit() -> None:
    root = "/usr/local/lib/python3.12/dist-packages/"
    frames = [(f"{root}flashinfer/jit/core.py", "build_and_load", "self.build(verbose)"),
              (f"{root}flashinfer/jit/cpp_ext.py", "run_ninja", "raise RuntimeError(msg) from e")]
    error = ("RuntimeError: Ninja build failed. Ninja output:\n"
             "FAILED: sampling.cuda.o\n"
             "/usr/local/cuda/bin/nvcc: error: unsupported gpu architecture 'compute_120a'")
    assert _signature_id(python_traceback(frames, error)) != "cuda-home-not-set"


# ---- the Ray executor on a platform without a Ray device key --------------------------------------

# Raise sites across releases: V0 and V1 initialize_ray_cluster (0.7 on), the placement group's
# bundle sort (0.20 on), the Ray V2 executor's worker (0.20 on).
_RAY_SITES = [("ValueError", "vllm/executor/ray_utils.py", "initialize_ray_cluster"),
              ("ValueError", "vllm/v1/executor/ray_utils.py", "initialize_ray_cluster"),
              ("ValueError", "vllm/v1/executor/ray_utils.py", "get_bundles_sorted_by_node"),
              ("RuntimeError", "vllm/v1/executor/ray_executor_v2.py",
               "get_node_and_physical_gpu_ids"),
              ("RuntimeError", "vllm/v1/executor/ray_utils.py", "get_node_and_gpu_ids")]


@settings(max_examples=50, deadline=None)
@given(site_of=st.sampled_from(_RAY_SITES), platform=st.sampled_from(["cpu", "", "mps", "rbln"]),
       shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       summary=st.booleans())
def test_ray_refused_by_a_platform_names_its_device_key_and_ray_resources(
        site_of: tuple[str, str, str], platform: str, shape: str, py: str, site: str,
        prefix: str, summary: bool) -> None:
    kind, path, function = site_of
    root = site.format(py=py)
    error = f"{kind}: current platform {platform} does not support ray."
    frames = [(f"{root}vllm/v1/engine/core.py", "__init__",
               "self.model_executor = executor_class(vllm_config)"),
              (f"{root}vllm/v1/executor/ray_executor.py", "_init_executor",
               "initialize_ray_cluster(self.parallel_config)"),
              (f"{root}{path}", function, "raise ValueError(")]
    log = _shaped(error, frames, shape, prefix)
    if summary:  # the front end's summary after it, as vLLM prints it
        log += ("RuntimeError: Engine core initialization failed. See root cause above. "
                "Failed core proc(s): {'EngineCore': 1}\n")
    sid, fix = signature_advice(log)
    assert sid == "ray-unsupported-on-platform", log
    assert "ray_device_key" in fix and "--resources" in fix and "ray start" in fix, fix


def test_rays_own_shortage_of_devices_is_not_a_platform_refusal() -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/ray_utils.py",
               "initialize_ray_cluster", "raise ValueError(")]
    error = ("ValueError: The number of required GPUs exceeds the total number of available GPUs "
             "in the placement group. Required number of devices: 8. Total number of devices: 4.")
    assert _signature_id(python_traceback(frames, error)) != "ray-unsupported-on-platform"


# ---- ROCm's memory access fault on an APU ---------------------------------------------------------

_FAULT_PREFIXES = ["", "2025-11-28T23:05:47.412Z ", "(EngineCore_DP0 pid=178) ",
                   "vllm-1  | ", "(Worker_TP1 pid=2201) "]
_REASONS = ["Page not present or supervisor privilege.", "Write access to a read-only page.",
            "Unknown."]


@settings(max_examples=40, deadline=None)
@given(prefix=st.sampled_from(_FAULT_PREFIXES), node=st.integers(1, 8),
       address=st.sampled_from(["0x7f58f8001000", "(nil)", "0x1c2d3000"]),
       reason=st.sampled_from(_REASONS), lead=st.booleans(),
       aborted=st.booleans())
def test_rocm_memory_access_fault_names_the_apu_firmware(
        prefix: str, node: int, address: str, reason: str, lead: bool,
        aborted: bool) -> None:
    lines = []
    if lead:
        lines.append(f"{prefix}INFO 11-28 23:05:47 [parallel_state.py:1325] rank 0 in world size "
                     "1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0")
    lines.append(f"{prefix}Memory access fault by GPU node-{node} (Agent "
                 f"handle: 0x43578c10) on address {address}. Reason: {reason}")
    if aborted:
        lines.append("Aborted (core dumped)")
    sid, fix = signature_advice("\n".join(lines) + "\n")
    assert sid == "rocm-gpu-memory-access-fault"
    assert "MES firmware" in fix and "amdgpu.cwsr_enable=0" in fix and "amdgpu-dkms-firmware" in fix


@pytest.mark.parametrize("prefix", _FAULT_PREFIXES)
def test_the_same_runtimes_gpu_hang_names_the_mes_firmware_too(prefix: str) -> None:
    sid, fix = signature_advice(f"{prefix}HW Exception by GPU node-1 (Agent handle: "
                                "0x5581f5d0c2a0) reason :GPU Hang\n")
    assert sid == "rocm-gpu-hang"
    assert "amdgpu_firmware_info" in fix and "amdgpu.cwsr_enable=0" in fix


def test_a_hip_illegal_memory_access_exception_is_not_the_runtime_fault() -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py",
               "execute_model", "output = self.model(input_ids, positions)")]
    error = ("RuntimeError: HIP error: an illegal memory access was encountered\n"
             "HIP kernel errors might be asynchronously reported at some other API call, so the "
             "stacktrace below might be incorrect.")
    assert _signature_id(python_traceback(frames, error)) != "rocm-gpu-memory-access-fault"


# ---- siblings: the toolchain family, platform refusals, parallel groups ---------------------------

@settings(max_examples=15, deadline=None)
@given(cxx=st.sampled_from(["(None, 'g++')", "('/usr/bin/c++',)", "(None, 'clang++')"]),
       shape=SHAPES, prefix=TRACEBACK_PREFIXES)
def test_inductor_without_a_cxx_compiler_is_the_toolchain_family(cxx: str, shape: str,
                                                                  prefix: str) -> None:
    error = ("torch._inductor.exc.InvalidCxxCompiler: No working C++ compiler found in "
             f"torch._inductor.config.cpp.cxx: {cxx}")
    frames = [("/usr/local/lib/python3.12/dist-packages/torch/_inductor/cpp_builder.py",
               "get_cpp_compiler", "raise exc.InvalidCxxCompiler")]
    sid, fix = signature_advice(_shaped(error, frames, shape, prefix))
    assert sid == "triton-jit-toolchain-missing"
    assert "CXX" in fix and "build-essential" in fix


_REFUSALS = ["ValueError: The current platform does not support {feature}.",
             "RuntimeError: The current platform does not support {feature}.",
             "ValueError: platform {platform} does not support {feature}; only CUDA and ROCm are "
             "supported.",
             "ValueError: Fail to set current stream, current platform may not support "
             "current_stream with torch API"]


@settings(max_examples=30, deadline=None)
@given(refusal=st.sampled_from(_REFUSALS), feature=st.sampled_from(
           ["HiSparse", "CUDA IPC weight sharing", "sleep mode", "prefix caching"]),
       platform=st.sampled_from(["xpu", "cpu", "tpu", "hpu"]), shape=SHAPES,
       prefix=TRACEBACK_PREFIXES)
def test_a_platform_refusal_by_reference_is_the_platform_family(
        refusal: str, feature: str, platform: str, shape: str, prefix: str) -> None:
    error = refusal.format(feature=feature, platform=platform)
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/config/vllm.py", "__post_init__",
               "raise ValueError(")]
    sid, fix = signature_advice(_shaped(error, frames, shape, prefix))
    assert sid == "platform-feature-unsupported", error
    assert "Automatically detected platform" in fix


@pytest.mark.parametrize(("error", "expected"), [
    ("ValueError: current platform cuda does not support ray.", "ray-unsupported-on-platform"),
    ("ValueError: Current platform does not support NVFP4 quantization. Please use Blackwell "
     "GPUs or enable FlashInfer.", "nvfp4-unsupported-on-gpu"),
])
def test_platform_refusals_with_their_own_signature_keep_it(error: str, expected: str) -> None:
    assert _signature_id(error + "\n") == expected


@settings(max_examples=20, deadline=None)
@given(group=st.sampled_from(["tensor model parallel group", "pipeline model parallel group",
                              "world group", "data parallel group"]),
       relative=st.booleans(), py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_parallel_group_used_before_it_exists_names_initialize_model_parallel(
        group: str, relative: bool, py: str, site: str, prefix: str) -> None:
    root = "" if relative else site.format(py=py)
    frames = [("/home/u/project/build_layer.py", "<module>",
               "layer = ColumnParallelLinear(4096, 11008)"),
              (f"{root}vllm/model_executor/layers/linear.py", "__init__",
               "self.tp_size = get_tensor_model_parallel_world_size()"),
              (f"{root}vllm/distributed/parallel_state.py", "get_tp_group",
               f'assert _TP is not None, "{group} is not initialized"')]
    sid, fix = signature_advice(python_traceback(frames, f"AssertionError: {group} is not initialized",
                                                 prefix))
    assert sid == "distributed-setup-rejected"
    assert "initialize_model_parallel" in fix and "init_distributed_environment" in fix


# ---- the four classes with every exact signature withheld -----------------------------------------

@cache
def _families() -> SignatureSet:
    return import_tool("family_loo", "loo").families_only(default_signatures())


def _family_fix(log: str) -> str:
    report = explain_text(log, signatures=_families())
    assert report.signature is not None, log
    return report.signature.fix


@settings(max_examples=20, deadline=None)
@given(case=st.sampled_from([
           (_CONFIG_NOT_SET, "set_current_vllm_config"),
           ("RuntimeError: Could not find nvcc and default cuda_home='/usr/local/cuda' doesn't "
            "exist", "flashinfer-jit-cache"),
           ("RuntimeError: Cannot find CUDA toolkit. Set CUDA_HOME.", "vllm download-kernels"),
           ("RuntimeError: Could not find CUDA installation. Please set CUDA_HOME environment "
            "variable.", "flashinfer-cubin"),
           ("ValueError: current platform cpu does not support ray.", "ray_device_key"),
           ("Memory access fault by GPU node-1 (Agent handle: 0x43578c10) on address "
            "0x7f58f8001000. Reason: Page not present or supervisor privilege.", "cwsr_enable"),
       ]), prefix=TRACEBACK_PREFIXES)
def test_without_exact_signatures_the_family_names_the_classes_remedy(
        case: tuple[str, str], prefix: str) -> None:
    error, remedy = case
    assert remedy in _family_fix(f"{prefix}{error}\n")


# ---- round 2: library and host errors that got only a class fallback ------------------------------
# The Run:ai streamer's native library's refusals, any call, response and exception class;
# ModelScope's missing model, revision or file; a host name that does not resolve while vLLM or
# torch.distributed sets up an address. Each fallback (`signatures/fallback/`) said only "a value
# error" or "a network error"; the class's own remedy is the exact signature's.

_STREAMER_CALLS = ["send runai_request to", "open streamer in", "set credentials in"]
_STREAMER_RESPONSES = ["File access error", "b'File access error'", "S3 not supported",
                       "Retryable object storage file access error", "CA bundle file not found",
                       "GCS not supported"]
_STREAMER_FRAMES = [("{root}vllm/model_executor/model_loader/weight_utils.py",
                     "runai_safetensors_weights_iterator", "streamer.stream_files(files)"),
                    ("{root}runai_model_streamer/libstreamer/libstreamer.py", "runai_request",
                     "raise ValueError(")]


@settings(max_examples=40, deadline=None)
@given(call=st.sampled_from(_STREAMER_CALLS), response=st.sampled_from(_STREAMER_RESPONSES),
       cls=st.sampled_from(["Exception", "ValueError"]), shape=SHAPES, py=PYTHONS,
       site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_run_ai_streamer_refusal_names_the_store_credentials_and_extras(
        call: str, response: str, cls: str, shape: str, py: str, site: str,
        prefix: str) -> None:
    frames = [(path.format(root=site.format(py=py)), fn, code)
              for path, fn, code in _STREAMER_FRAMES]
    log = _shaped(f"{cls}: Could not {call} libstreamer due to: {response}", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "runai-streamer-libstreamer-error", log
    assert "AWS_ENDPOINT_URL" in fix and "vllm[runai]" in fix and "AWS_CA_BUNDLE" in fix


def test_an_s3_model_without_the_streamer_load_format_keeps_its_signature() -> None:
    error = ("ValueError: To load a model from S3, 'load_format' must be 'runai_streamer' or "
             "'runai_streamer_sharded', but got 'auto'. Model: s3://models/llama")
    assert _signature_id(error + "\n") == "object-storage-model-needs-runai-streamer"


_MODELSCOPE_ERRORS = [
    "The model: {model} has no revision: main !",
    "The model: {model} has no revision: v1.0 valid are: [v1.0.1,v1.1.0]!",
    "The model: {model} has no revision : master .",
    "The file path: preprocessor_config.json not exist in: {model}",
]


@settings(max_examples=40, deadline=None)
@given(error=st.sampled_from(_MODELSCOPE_ERRORS),
       model=st.sampled_from(["Qwen/Qwen2.5-VL-7B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
                              "LLM-Research/Meta-Llama-3-8B-Instruct"]),
       cls=st.sampled_from(["modelscope.hub.errors.NotExistError", "NotExistError",
                            "modelscope.hub.errors.NoValidRevisionError"]),
       shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_modelscope_without_the_model_or_revision_names_master_and_a_local_copy(
        error: str, model: str, cls: str, shape: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}modelscope/hub/snapshot_download.py", "snapshot_download",
               "revision_detail = _api.get_valid_revision_detail(repo_id, revision=revision)"),
              (f"{root}modelscope/hub/api.py", "get_valid_revision_detail",
               "raise NotExistError(")]
    log = _shaped(f"{cls}: {error.format(model=model)}", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "modelscope-model-or-revision-not-found", log
    assert "--revision master" in fix and "modelscope download" in fix


@pytest.mark.parametrize("error", [
    "huggingface_hub.errors.RevisionNotFoundError: 404 Client Error. Revision Not Found for url: "
    "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/resolve/v2/config.json.",
    "ModuleNotFoundError: No module named 'modelscope'",
])
def test_the_hubs_other_errors_are_not_modelscopes_missing_revision(error: str) -> None:
    assert _signature_id(error + "\n") != "modelscope-model-or-revision-not-found"


_UNRESOLVED = ["[Errno -3] Temporary failure in name resolution",
               "[Errno -2] Name or service not known",
               "[Errno -5] No address associated with hostname",
               "[Errno 8] nodename nor servname provided, or not known",
               "[Errno 11001] getaddrinfo failed"]
_RESOLVERS = [("{root}vllm/utils.py", "get_ip", 's.connect(("dns.google", 80))'),
              ("{root}vllm/utils/network_utils.py", "get_ip",
               "return socket.gethostbyname(socket.gethostname())"),
              ("{root}ray/_private/services.py", "resolve_ip_for_localhost",
               "return socket.gethostbyname(address)")]


@settings(max_examples=40, deadline=None)
@given(error=st.sampled_from(_UNRESOLVED), resolver=st.sampled_from(_RESOLVERS), shape=SHAPES,
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_host_name_that_does_not_resolve_names_vllm_host_ip(
        error: str, resolver: tuple[str, str, str], shape: str, py: str, site: str,
        prefix: str) -> None:
    path, fn, code = resolver
    frames = [(path.format(root=site.format(py=py)), fn, code)]
    log = _shaped(f"socket.gaierror: {error}", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "host-name-resolution-failed", log
    assert "VLLM_HOST_IP" in fix and "/etc/hosts" in fix


@pytest.mark.parametrize("family", ["IPv4 ", "IPv6 ", ""])
@pytest.mark.parametrize("gai", ["-2 - Name or service not known",
                                 "-3 - Temporary failure in name resolution"])
def test_torch_distributed_resolving_the_master_address_is_the_same_class(family: str,
                                                                          gai: str) -> None:
    log = (f"torch.distributed.DistNetworkError: The {family}network addresses of (vllm-head.svc, "
           f"29500) cannot be retrieved (gai error: {gai}).\n")
    sid, fix = signature_advice(log)
    assert sid == "host-name-resolution-failed", log
    assert "MASTER_ADDR" in fix


@pytest.mark.parametrize(("error", "expected"), [
    # the hub's connection error quotes the resolver's words: the hub's signature answers
    ("requests.exceptions.ConnectionError: (MaxRetryError(\"HTTPSConnectionPool(host='huggingface"
     ".co', port=443): Max retries exceeded with url: /api/models/x/revision/main (Caused by "
     "NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to "
     "establish a new connection: [Errno -3] Temporary failure in name resolution'))\"), "
     "'(Request ID: 3b86)')", "hub-http-connection-failed"),
    # a peer whose name resolved but that refused the connection
    ("torch.distributed.DistNetworkError: The client socket has failed to connect to "
     "[10.0.0.5]:29500 (errno: 111 - Connection refused).", None),
])
def test_a_connection_that_is_not_a_name_resolution_keeps_its_signature(
        error: str, expected: str | None) -> None:
    sid = _signature_id(error + "\n")
    assert sid != "host-name-resolution-failed"
    if expected is not None:
        assert sid == expected
