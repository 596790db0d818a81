"""Classes behind sigs-b's session-36 sample of platform-plugin threads (vllm-ascend, Kunlun),
each generated over its wordings and the ways a log shows it, with near misses:

- HCCL's transport to a peer rank not set up (CANN's EI0009), in each release's words ("Device
  <n> transport init error", "Transport init error. Reason: [Create][DestLink]Create Dest error!
  createLink para: ...", some builds' `creakLink`), under torch_npu's HCCL error or as CANN's own
  record read alone: hccl-transport-init-link-down, whose fix names the NPU network checks and,
  for two processes on one server, the driver/firmware package HCCL's log asks for; a socket
  time-out (EI0006) and a P2P failure (EI0010) are other classes;
- CANN's runtime refusing a card the process cannot see, in its TraceBack lines logged alone
  ("Set visible device failed, invalid device=N", "rtSetDevice execute failed, reason=[device
  id error]"): ascend-device-id-invalid; the same words for GetDeviceIndexByPhyId (CANN 8.0's
  communicator bug) are not it;
- the HCCL communicator not created at start-up (hcclCommInitRootInfo[Config] with a code):
  the hccl-communication-failed family, whose fix now says that data/expert-parallel ranks on
  CANN 8.0.x need CANN 8.1.RC1; NCCL's own communicator failure is not it;
- a CUDA-worded fix on vLLM-Kunlun (the `kunlun` platform plugin): the report adds Kunlun's name
  for the device-visibility knob (XPU_VISIBLE_DEVICES); on CUDA it adds nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Match, SignatureKind
from logsleuth.platform_knobs import with_platform_knobs
from v1log import PYTHONS, SITE_PACKAGES, python_traceback, signature_advice

# How a rank's lines reach the log: bare, behind torchrun's rank prefix, behind a V1 worker's
# ERROR record, behind an RL framework's server actor and its worker.
_PREFIXES = st.sampled_from([
    "", "[rank1]: ",
    "(Worker_TP1 pid=5120) ERROR 09-24 20:59:57 [multiproc_executor.py:703] ",
    "(vLLMHttpServer pid=2790495) (Worker_TP1 pid=2805207) ERROR 01-26 03:28:29 "
    "[multiproc_executor.py:671] ",
])
_STAMP = "2025-09-24-20:59:48.119.066"


# ---- HCCL's transport to a peer not set up (EI0009) -----------------------------------------------

def _transport_wording(wording: str, rank: int, peer: int, local: str, remote: str) -> str:
    if wording == "device":
        return f"Device {rank} transport init error. Reason: the link of the local NIC is down."
    link = "creakLink" if wording == "creak" else "createLink"
    return (f"Transport init error. Reason: [Create][DestLink]Create Dest error! {link} para:"
            f"rank[{rank}]-localUserrank[{rank}]-localIpAddr[{local}], dst_rank[{peer}]-"
            f"remoteUserrank[{peer}]-remote_ip_addr[{remote}]")


@settings(max_examples=40, deadline=None)
@given(wording=st.sampled_from(["device", "create", "creak"]), rank=st.integers(1, 15),
       peer=st.integers(0, 15), same_host=st.booleans(), alone=st.booleans(),
       prefix=_PREFIXES, py=PYTHONS, site=SITE_PACKAGES)
def test_a_transport_not_set_up_names_the_npu_network_and_the_driver_package(
        wording: str, rank: int, peer: int, same_host: bool, alone: bool, prefix: str,
        py: str, site: str) -> None:
    local = "172.16.0.114"
    remote = local if same_host else "172.16.0.115"
    record = f"EI0009: [PID: 2225827] {_STAMP} " + _transport_wording(wording, rank, peer, local, remote)
    solution = ("        Solution: Check other NPUs that are not reporting errors, or check if there "
                "are any abnormalities on the other end's NPU.")
    if alone:
        # CANN's own record is all the log kept of the failing rank
        log = f"{prefix}{record}\n{prefix}{solution}\n"
    else:
        frames = [(f"{site.format(py=py)}vllm/distributed/parallel_state.py", "all_reduce",
                   "torch.distributed.all_reduce(data, group=self.device_group)")]
        error = ("RuntimeError: HcclAllreduce:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:3490 "
                 "HCCL function error: HcclAllReduce(...), error code is 4\n"
                 f"[ERROR] 2025-09-24-20:59:48 (PID:2225827, Device:{rank % 8}, RankID:{rank}) "
                 f"ERR02200 DIST call hccl api failed.\n{record}")
        log = python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    assert sid == "hccl-transport-init-link-down", log
    assert "hccn_tool" in fix and "hrtRaAiQpCreate" in fix and "HCCL_SOCKET_IFNAME" in fix, fix


@pytest.mark.parametrize("record, not_it", [
    ("EI0006: [PID: 3301] 2025-09-24-20:59:48.119.066 Getting socket times out. Reason: 1. The remote "
     "does not initiate a connect request because the collective communication operator is started "
     "too late on some NPU.", "a socket time-out while the communicator is built"),
    ("[PID: 3301] 2025-09-24-20:59:48.119.066 Communication_Error_P2P(EI0010): P2P communication "
     "failed. Reason: the peer NPU 3 is not reachable.", "a P2P failure between two NPUs"),
    ("ERROR 09-24 20:59:57 [mooncake_connector.py:412] KV transfer init error: engine not ready",
     "another transport's words"),
])
def test_other_hccl_and_transfer_failures_are_not_a_transport_set_up(record: str, not_it: str) -> None:
    sid, _ = signature_advice(record + "\n")
    assert sid != "hccl-transport-init-link-down", not_it


# ---- CANN refusing a card the process cannot see, in its TraceBack lines ---------------------------

_REFUSALS = [
    "The argument is invalid.Reason: Set visible device failed, invalid device={n}, input visible devices:{v}",
    "rtSetDevice execute failed, reason=[device id error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
]


@settings(max_examples=30, deadline=None)
@given(refusal=st.sampled_from(_REFUSALS), n=st.integers(1, 15), v=st.integers(0, 7),
       # an ERROR record's body (a bare TraceBack line says nothing failed)
       prefix=st.sampled_from(["ERROR 02-26 09:45:37 worker_base.py:572] ",
                               "(RayWorkerWrapper pid=118835) ERROR 02-26 09:45:37 worker_base.py:572] ",
                               "ERROR 02-26 09:45:37 [worker_base.py:572] "]))
def test_a_card_the_process_cannot_see_names_the_visible_devices(
        refusal: str, n: int, v: int, prefix: str) -> None:
    log = prefix + refusal.format(n=n, v=v) + "\n"
    sid, fix = signature_advice(log)
    assert sid == "ascend-device-id-invalid", log
    assert "ASCEND_RT_VISIBLE_DEVICES" in fix and "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES" in fix


def test_the_physical_id_mapping_of_cann_80_is_not_a_card_out_of_sight() -> None:
    log = ("ERROR 04-27 03:11:08 worker_base.py:572] rtGetDeviceIndexByPhyId execute failed, "
           "reason=[device id error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n")
    sid, _ = signature_advice(log)
    assert sid != "ascend-device-id-invalid"


# ---- the HCCL communicator not created at start-up -----------------------------------------------

@settings(max_examples=30, deadline=None)
@given(call=st.sampled_from(["hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_))",
                             "HcclCommInitRootInfo(numRanks, &rootInfo, rank, &(comm->hcclComm_))"]),
       where=st.sampled_from(["create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102",
                              "create:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:89",
                              "create_config:torch_npu/csrc/distributed/HCCLUtils.cpp:140"]),
       code=st.sampled_from([1, 2, 11, 15]), prefix=_PREFIXES, py=PYTHONS, site=SITE_PACKAGES)
def test_a_communicator_not_created_names_visibility_and_the_cann_release(
        call: str, where: str, code: int, prefix: str, py: str, site: str) -> None:
    frames = [(f"{site.format(py=py)}vllm/distributed/parallel_state.py", "init_model_parallel_group",
               "return GroupCoordinator("),
              (f"{site.format(py=py)}torch/distributed/distributed_c10d.py", "recv",
               "pg.recv([tensor], group_src_rank, tag).wait()")]
    error = f"RuntimeError: {where} HCCL function error: {call}, error code is {code}"
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "hccl-communication-failed"
    assert "8.1.RC1" in fix and "ASCEND_RT_VISIBLE_DEVICES" in fix and "GetDeviceIndexByPhyId" in fix


def test_nccls_own_communicator_failure_is_not_hccls() -> None:
    log = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
           "NCCLUtils.hpp:275, unhandled system error (run with NCCL_DEBUG=INFO for details), "
           "NCCL version 2.21.5\nncclSystemError: System call (e.g. socket, malloc) or external "
           "library call failed or device error.\n")
    sid, _ = signature_advice(log)
    assert sid != "hccl-communication-failed"


# ---- Kunlun's name for the device-visibility knob -----------------------------------------------

def _ordinal_log(banner: str, py: str, site: str) -> str:
    frames = [(f"{site.format(py=py)}vllm/v1/worker/gpu_worker.py", "init_device",
               "torch.cuda.set_device(self.device)")]
    prefix = "(Worker_TP4 pid=25104) ERROR 03-27 17:57:04 [multiproc_executor.py:852] "
    return (f"INFO 03-27 17:50:01 [__init__.py:239] {banner}\n"
            + python_traceback(frames, "RuntimeError: CUDA error: invalid device ordinal", prefix))


@settings(max_examples=10, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES)
def test_a_cuda_worded_fix_on_kunlun_names_its_visible_devices(py: str, site: str) -> None:
    _, fix = signature_advice(_ordinal_log("Platform plugin kunlun is activated", py, site))
    assert "Kunlun XPU" in fix and "XPU_VISIBLE_DEVICES" in fix
    _, cuda = signature_advice(_ordinal_log("Automatically detected platform cuda.", py, site))
    assert "XPU_VISIBLE_DEVICES" not in cuda and "its names for the CUDA knobs" not in cuda


def test_the_kunlun_fact_alone_says_whose_names() -> None:
    match = Match("x", "x", 1.0, "Set `CUDA_VISIBLE_DEVICES` and check `nvidia-smi`.\n", (), (),
                  "root_cause", None, SignatureKind.FAMILY)
    fix = with_platform_knobs(match, None, {"platform": "kunlun"}).fix  # type: ignore[union-attr]
    assert "`CUDA_VISIBLE_DEVICES` -> `XPU_VISIBLE_DEVICES" in fix
    # Intel's XPU keeps its own name: the two XPUs are different platforms
    intel = with_platform_knobs(match, None, {"platform": "xpu"}).fix  # type: ignore[union-attr]
    assert "XPU_VISIBLE_DEVICES" not in intel and "ZE_AFFINITY_MASK" in intel


# ---- a platform plugin installed, its device not detected ---------------------------------------

# How vLLM lists the platform plugins it found, by release (0.7-0.8, then 0.9 on).
_LISTINGS = {
    "0.7": ("INFO 02-23 00:50:03 __init__.py:28] Available plugins for group vllm.platform_plugins:\n"
            "INFO 02-23 00:50:03 __init__.py:30] name={name}, value={package}:register\n"
            "INFO 02-23 00:50:03 __init__.py:34] set environment variable VLLM_PLUGINS to control "
            "which plugins to load.\n"),
    "0.9": ("INFO 03-30 06:41:15.850 [__init__.py:44] Available plugins for group vllm.platform_plugins:\n"
            "INFO 03-30 06:41:15.851 [__init__.py:46] - {name} -> {package}:register\n"
            "INFO 03-30 06:41:15.851 [__init__.py:49] All plugins in this group will be loaded. "
            "Set `VLLM_PLUGINS` to control which plugins to load.\n"),
}
_PLUGINS = [("ascend", "vllm_ascend"), ("hpu", "vllm_gaudi"), ("spyre", "vllm_spyre"),
            ("kunlun", "vllm_kunlun"), ("rbln", "vllm_rbln")]


@settings(max_examples=40, deadline=None)
@given(era=st.sampled_from(sorted(_LISTINGS)), plugin=st.sampled_from(_PLUGINS),
       failed_load=st.booleans(), raised=st.booleans(), py=PYTHONS, site=SITE_PACKAGES)
def test_an_undetected_plugin_device_names_its_runtime_not_nvidias(
        era: str, plugin: tuple[str, str], failed_load: bool, raised: bool, py: str,
        site: str) -> None:
    name, package = plugin
    log = _LISTINGS[era].format(name=name, package=package)
    if failed_load:
        log += (f"ERROR 02-23 00:50:03 __init__.py:46] Failed to load plugin {name}\n"
                "ERROR 02-23 00:50:03 __init__.py:46] Traceback (most recent call last):\n")
    log += "INFO 02-23 00:50:03 __init__.py:187] No platform detected, vLLM is running on UnspecifiedPlatform\n"
    frames = [(f"{site.format(py=py)}vllm/engine/arg_utils.py", "create_engine_config",
               "device_config = DeviceConfig(device=self.device)"),
              (f"{site.format(py=py)}vllm/config.py", "__init__",
               'raise RuntimeError("Failed to infer device type")')]
    error = "RuntimeError: Failed to infer device type"
    log += python_traceback(frames, error, "ERROR 02-23 00:50:05 engine.py:387] ") if raised \
        else error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "platform-plugin-device-undetected", log
    assert "import torch, torch_npu" in fix and "VLLM_PLUGINS" in fix and "set_env.sh" in fix
    assert "NVIDIA Container Toolkit" not in fix


@pytest.mark.parametrize("listing, not_it", [
    ("", "no plugin listed: a CUDA install without a GPU in reach"),
    ("INFO 03-30 06:41:15.851 [__init__.py:46] - lora_filesystem_resolver -> "
     "vllm.plugins.lora_resolvers.filesystem_resolver:register_filesystem_resolver\n",
     "a general plugin's entry point, not a platform's"),
    ("INFO 03-30 06:41:15.851 [__init__.py:46] - kunlun_model -> vllm_kunlun:register_model\n",
     "a platform package's model registration (a general plugin)"),
])
def test_the_same_error_without_a_platform_plugin_is_a_missing_gpu(listing: str, not_it: str) -> None:
    log = listing + ("INFO 02-23 00:50:03 [__init__.py:220] No platform detected, vLLM is running on "
                     "UnspecifiedPlatform\nRuntimeError: Failed to infer device type\n")
    sid, _ = signature_advice(log)
    assert sid == "no-gpu-visible", not_it


def test_a_listed_plugin_says_whose_names_when_no_platform_came_up() -> None:
    match = Match("x", "x", 1.0, "Set `CUDA_VISIBLE_DEVICES` and check `nvidia-smi`.\n", (), (),
                  "root_cause", None, SignatureKind.FAMILY)
    listed = with_platform_knobs(match, None, {"platform_plugin": "ascend"}).fix  # type: ignore[union-attr]
    assert "`CUDA_VISIBLE_DEVICES` -> `ASCEND_RT_VISIBLE_DEVICES`" in listed and "`npu-smi`" in listed
    # the platform vLLM detected is what ran: a plugin merely installed beside it says nothing
    assert with_platform_knobs(match, None, {"platform": "cuda", "platform_plugin": "ascend"}) == match


# ---- the CUDA runtime's status name as a line's label -------------------------------------------

@pytest.mark.parametrize("prefix", ["", "(Worker_TP0 pid=812) ", "[rank0]: "])
@pytest.mark.parametrize("status, words", [
    ("cudaErrorLaunchFailure", "unspecified launch failure"),
    ("cudaErrorIllegalAddress", "an illegal memory access was encountered"),
])
def test_a_cuda_status_label_is_an_error_line(prefix: str, status: str, words: str) -> None:
    from logsleuth.pipeline import explain_text

    report = explain_text(f"{prefix}This kernel only supports sm120.\n{prefix}{status}: {words}\n")
    assert report.verdict.value == "failure"
    assert report.root_cause is not None and report.root_cause.exception == status


def test_the_sm120_only_trap_on_gb10_names_the_family_guard() -> None:
    _, fix = signature_advice("This kernel only supports sm120.\n"
                              "cudaErrorLaunchFailure: unspecified launch failure\n")
    assert "GB10" in fix and "sm_120 family" in fix


@pytest.mark.parametrize("text", [
    "INFO 01-01 00:00:00 [core.py:1] cudaErrorLaunchFailure is handled by retrying\n",
    "The runtime maps cudaErrorLaunchFailure: to a RuntimeError in torch\n",
    "see docs for cudaErrorLaunchFailure: unspecified launch failure\n",
])
def test_a_cuda_status_named_inside_words_is_no_error(text: str) -> None:
    from logsleuth.pipeline import explain_text

    assert explain_text(text).verdict.value == "no_failure"
