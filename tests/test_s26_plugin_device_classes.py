"""Classes behind the two cases the end-of-session-25 check moved into tuning, each generated over
its wordings and the ways a log shows it, with a near miss:

- an Ascend worker setting an NPU index that is not among the devices it may see (CANN's EE1001
  "Failed to set visible device. The invalid device is N and the input visible device is M",
  torch_npu's `c10_npu::SetDevice(device), error code is 107001`), under Ray or not:
  ascend-visible-device-mismatch, whose fix names CANN's `set_env.sh`, `ASCEND_RT_VISIBLE_DEVICES`
  and Ray's `RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES`; the same 107001 with CANN's
  "Invalid device ID N ... valid device range" reason stays ascend-device-id-invalid, which names
  the environment too; a busy card's refusal (EL0005) is neither;
- torch refusing to record a CUDA event on another device's stream ("Event device index [N] does
  not match recording stream's device index"), a KV connector such as LMCache having set another
  device under data parallelism: cuda-event-device-mismatch, whose fix names LMCache,
  `--data-parallel-size` and `--data-parallel-backend`; torch's other device mismatch (tensors on
  two devices) does not get it;
- torch_npu's error block (`[ERROR] ... PTA call acl api failed`, `[Error]: ...`, CANN-coded
  records) is the message of the exception it raised, bare or behind a process prefix, and a CI
  annotation's `Error: :` line does not take CANN's records.

Then the plugin and transport errors with a documented remedy (signatures/NOTES-plugins-s26.md),
each drawn over its wordings and layouts: Mooncake's transfer engine not starting, its memory
registration refused (by errno), its RDMA connections failing; LMCache without the KV layout of
this vLLM; HCCL's EI0001, EI0010, EI0013, EI0019/EI0020/EJ0003 and its device memory codes;
vllm-ascend's checks of the chip (device type, soc_version) and of `enable_mc2_hierarchy_comm`."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase
from v1log import ERAS, python_traceback, signature_advice, worker_failure

# ---- an Ascend worker's NPU index outside its visible devices -----------------------------------

_ASCEND_SITES = st.sampled_from(["/vllm-workspace/vllm-ascend/vllm_ascend/",
                                 "/__w/vllm-ascend/vllm-ascend/vllm_ascend/",
                                 "/usr/local/python3.11.13/lib/python3.11/site-packages/vllm_ascend/"])
_WORKER_FILES = st.sampled_from(["worker/worker.py", "worker/worker_v1.py"])
_PREFIXES = st.sampled_from([
    "", "  ", "(RayWorkerWrapper pid=23942, ip=10.0.0.3) ",
    "(RayWorkerWrapper pid=811) ERROR 06-05 08:18:18 [worker_base.py:620] ",
    "(Worker_TP1 pid=2577) ERROR 10-11 09:02:59 [multiproc_executor.py:585] ",
])
_SET_DEVICE_CALLS = st.sampled_from([
    "ExchangeDevice:../torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:286 NPU function error: "
    "c10_npu::SetDevice(device)",
    "SetDevice:torch_npu/csrc/core/npu/NPUFunctions.cpp:101 NPU function error: "
    "aclrtSetDevice(device)",
])
_EE1001_HEADS = st.sampled_from(["Invalid_Argument(EE1001): ", "EE1001: "])


def _ascend_set_device_failure(site: str, worker_file: str, call: str, reason: str,
                               prefix: str, ray: bool) -> str:
    frames = [(site + worker_file, "init_device", "self.device = self._init_device()"),
              (site + worker_file, "_init_device", "torch.npu.set_device(device)"),
              ("/usr/local/python3.11/site-packages/torch_npu/npu/utils.py", "set_device",
               "torch_npu._C._npu_setDevice(device_id)")]
    if ray:
        frames.insert(0, ("/usr/local/python3.11/site-packages/vllm/v1/executor/ray_utils.py",
                          "execute_method", "return run_method(self, method, args, kwargs)"))
    error = "\n".join([
        f"RuntimeError: {call}, error code is 107001",
        "[ERROR] 2026-06-05-08:18:18 (PID:23942, Device:0, RankID:-1) ERR00100 PTA call acl api "
        "failed",
        "[Error]: Invalid device ID.",
        "        Check whether the device ID is valid.",
        f"[PID: 23942] 2026-06-05-08:18:18.244.598 {reason}",
    ])
    return python_traceback(frames, error, prefix)


@settings(max_examples=40, deadline=None)
@given(site=_ASCEND_SITES, worker_file=_WORKER_FILES, call=_SET_DEVICE_CALLS, head=_EE1001_HEADS,
       prefix=_PREFIXES, ray=st.booleans(), invalid=st.integers(0, 15),
       visible=st.integers(0, 15))
def test_an_npu_index_outside_the_visible_devices_names_the_environment_and_ray(
        site: str, worker_file: str, call: str, head: str, prefix: str, ray: bool, invalid: int,
        visible: int) -> None:
    reason = (f"{head}The argument is invalid.Reason: Failed to set visible device. The invalid "
              f"device is {invalid} and the input visible device is {visible}.")
    signature, fix = signature_advice(
        _ascend_set_device_failure(site, worker_file, call, reason, prefix, ray))
    assert signature == "ascend-visible-device-mismatch"
    for knob in ("set_env.sh", "ascend-toolkit", "ASCEND_RT_VISIBLE_DEVICES",
                 "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES", "ray start"):
        assert knob in fix, knob


@settings(max_examples=25, deadline=None)
@given(site=_ASCEND_SITES, worker_file=_WORKER_FILES, call=_SET_DEVICE_CALLS, head=_EE1001_HEADS,
       prefix=_PREFIXES, ray=st.booleans(), device=st.integers(1, 15), cards=st.integers(1, 8))
def test_an_npu_index_past_the_cards_keeps_the_device_count_advice_with_the_environment(
        site: str, worker_file: str, call: str, head: str, prefix: str, ray: bool, device: int,
        cards: int) -> None:
    reason = (f"{head}The argument is invalid.Reason: Invalid device ID {device}. Set drv devId "
              f"to {device}. The valid device range is [0, {cards}).")
    signature, fix = signature_advice(
        _ascend_set_device_failure(site, worker_file, call, reason, prefix, ray))
    assert signature == "ascend-device-id-invalid"
    for knob in ("ASCEND_RT_VISIBLE_DEVICES", "--tensor-parallel-size", "set_env.sh",
                 "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(site=_ASCEND_SITES, worker_file=_WORKER_FILES, prefix=_PREFIXES, ray=st.booleans())
def test_a_busy_card_is_not_a_visibility_mismatch(site: str, worker_file: str, prefix: str,
                                                  ray: bool) -> None:
    call = ("ExchangeDevice:../torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:286 NPU function "
            "error: c10_npu::SetDevice(device)")
    log = _ascend_set_device_failure(
        site, worker_file, call, "EL0005: The resources are busy. Reason: the device is "
        "occupied by another process.", prefix, ray).replace("107001", "507033")
    signature, _ = signature_advice(log)
    assert signature not in ("ascend-visible-device-mismatch", "ascend-device-id-invalid")


# ---- a CUDA event recorded on another device's stream -------------------------------------------

_EVENT_INNER = st.sampled_from([
    (("v1/worker/gpu_model_runner.py", "synchronize_input_prep"),),
    (("v1/worker/gpu_model_runner.py", "_prepare_inputs"),
     ("v1/worker/gpu_model_runner.py", "synchronize_input_prep")),
    (("v1/worker/gpu_model_runner.py", "_update_states"),),
])
_EVENT_WORDINGS = st.sampled_from([
    "Event device index does not match recording stream's device index",
    "Event device index {n} does not match recording stream's device index",
    "Event device {n} does not match recording stream's device {m}.",
])


@settings(max_examples=40, deadline=None)
@given(era=st.sampled_from(ERAS), phase=st.sampled_from([Phase.GRAPH_CAPTURE, Phase.SERVING]),
       inner=_EVENT_INNER, wording=_EVENT_WORDINGS, n=st.integers(0, 7), m=st.integers(0, 7),
       rank=st.integers(0, 7))
def test_an_event_on_another_devices_stream_names_the_connector_and_data_parallel_knobs(
        era: object, phase: Phase, inner: tuple[tuple[str, str], ...], wording: str, n: int,
        m: int, rank: int) -> None:
    log = worker_failure("RuntimeError: " + wording.format(n=n, m=m), phase=phase,
                         era=era, inner=inner, rank=rank)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "cuda-event-device-mismatch"
    for knob in ("lmcache", "--data-parallel-size", "--data-parallel-backend",
                 "--kv-transfer-config", "CUDA_VISIBLE_DEVICES", "torch.cuda.set_device"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(era=st.sampled_from(ERAS), inner=_EVENT_INNER, n=st.integers(0, 7))
def test_tensors_on_two_devices_are_not_an_event_mismatch(
        era: object, inner: tuple[tuple[str, str], ...], n: int) -> None:
    log = worker_failure("RuntimeError: Expected all tensors to be on the same device, but found "
                         f"at least two devices, cuda:{n} and cpu!", phase=Phase.SERVING,
                         era=era, inner=inner)  # type: ignore[arg-type]
    signature, _ = signature_advice(log)
    assert signature != "cuda-event-device-mismatch"


# ---- torch_npu's error block is the exception's message -----------------------------------------

@settings(max_examples=25, deadline=None)
@given(prefix=_PREFIXES, code=st.sampled_from(["EE1001", "EZ9999", "EL0004", "EI0002"]),
       headed=st.booleans())
def test_torch_npus_bracketed_lines_and_cann_records_go_on_the_exception(
        prefix: str, code: str, headed: bool) -> None:
    from logsleuth.pipeline import explain_text
    from logsleuth.signatures import default_signatures

    record = (f"[PID: 811] 2026-06-05-08:18:18.244.598 Some_Error({code}): the reason."
              if headed else f"{code}: [PID: 811] 2026-06-05-08:18:18.244.598 the reason.")
    error = "\n".join([
        "RuntimeError: SetDevice:torch_npu/csrc/core/npu/NPUFunctions.cpp:101 NPU function error: "
        "aclrtSetDevice(device), error code is 107001",
        "[ERROR] 2026-06-05-08:18:18 (PID:811, Device:0, RankID:-1) ERR00100 PTA call acl api "
        "failed",
        "[Error]: The description.",
        "        Rectify the fault based on the error information in the ascend log.",
        record,
    ])
    log = python_traceback([("/usr/local/python3.11/site-packages/torch_npu/npu/utils.py",
                             "set_device", "torch_npu._C._npu_setDevice(device_id)")], error,
                           prefix)
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None
    message = report.root_cause.message
    assert "error code is 107001" in message
    assert "The description." in message
    assert code in message and "the reason." in message


def test_a_ci_annotations_error_line_does_not_take_cann_records() -> None:
    # a CI annotation (`Error: : ...`, no traceback) before CANN's records: the records are the
    # error, not the message of an exception Python raised
    from logsleuth.pipeline import explain_text
    from logsleuth.signatures import default_signatures

    log = "\n".join([
        "Error:  2025-07-31-01:25:19 (PID:12066, Device:0, RankID:-1) ERR00100 PTA call acl api "
        "failed",
        "Error: : Model execution failed. ",
        "        Rectify the fault based on the error information in the ascend log.",
        "EE9999: Inner Error!",
        "EE9999: [PID: 12066] 2025-07-31-01:25:19.967.079 The error from device(chipId:6, "
        "dieId:0), serial number is 1, event wait timeout occurred during task execution, "
        "stream_id:19, sq_id:19, task_id:16, event_id=73, timeout=1866s.",
    ]) + "\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None
    assert "event wait timeout" in report.root_cause.message


# ---- Mooncake's transfer engine and LMCache's KV layouts (their docs' documented errors) --------

_MOONCAKE_PREFIXES = st.sampled_from(["", "(Worker_TP0 pid=5120) ", "(RayWorkerWrapper pid=77) ",
                                      "(EngineCore_DP0 pid=300) "])
_GLOG_STAMPS = st.sampled_from(["E1101 10:05:12.123456  5120 ", "E20251101 10:05:12.123456  5120 ",
                                "W1101 10:05:12.123456  5120 "])


def _mooncake_record(prefix: str, stamp: str, site: str, text: str) -> str:
    return f"{prefix}{stamp}{site}] {text}"


def _mooncake_worker(record: str, error: str, function: str) -> str:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/"
               "kv_connector/v1/mooncake/mooncake_connector.py", function,
               "raise RuntimeError(...)")]
    return record + "\n" + python_traceback(frames, error)


@settings(max_examples=30, deadline=None)
@given(prefix=_MOONCAKE_PREFIXES, stamp=_GLOG_STAMPS, detail=st.sampled_from([
    ("rdma_context.cpp:118", "No matched device found: mlx5_{n}"),
    ("rdma_context.cpp:140", "Device mlx5_{n} port not active"),
    ("transfer_metadata_plugin.cpp:201", "Error from etcd client: {n}"),
]), n=st.integers(0, 9), raised=st.booleans())
def test_mooncakes_engine_not_starting_names_the_nic_protocol_and_metadata_knobs(
        prefix: str, stamp: str, detail: tuple[str, str], n: int, raised: bool) -> None:
    site, text = detail
    record = _mooncake_record(prefix, stamp.replace("W", "E", 1), site, text.format(n=n))
    log = (_mooncake_worker(record, "RuntimeError: Mooncake Transfer Engine initialization "
                            "failed.", "__init__") if raised else record + "\n")
    signature, fix = signature_advice(log)
    assert signature == "mooncake-transfer-engine-init-failed"
    for knob in ("device_name", "ibv_devinfo", "mooncake_protocol", "MC_IB_PORT",
                 "listen-client-urls"):
        assert knob in fix, knob


@settings(max_examples=30, deadline=None)
@given(prefix=_MOONCAKE_PREFIXES, stamp=_GLOG_STAMPS, errno=st.sampled_from([
    "Input/output error [5]", "Resource temporarily unavailable [11]",
    "Cannot allocate memory [12]", "Bad address [14]"]),
    address=st.integers(0x7e0000000000, 0x7fffffffffff), raised=st.booleans())
def test_mooncakes_memory_registration_names_each_errnos_remedy(
        prefix: str, stamp: str, errno: str, address: int, raised: bool) -> None:
    record = _mooncake_record(prefix, stamp.replace("W", "E", 1), "rdma_context.cpp:211",
                              f"Failed to register memory {address:#x}: {errno}")
    log = (_mooncake_worker(record, "RuntimeError: Mooncake batch memory registration failed.",
                            "register_kv_caches") if raised else record + "\n")
    signature, fix = signature_advice(log)
    assert signature == "mooncake-memory-registration-failed"
    for knob in ("max_mr_size", "vm.max_map_count", "memlock", "nvidia-peermem",
                 "WITH_NVIDIA_PEERMEM"):
        assert knob in fix, knob


@settings(max_examples=30, deadline=None)
@given(prefix=_MOONCAKE_PREFIXES, stamp=_GLOG_STAMPS, text=st.sampled_from([
    "Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]",
    "Worker: Cannot make connection for endpoint: 10.0.0.{n}:17713@mlx5_0, mark it inactive",
    "Failed to exchange handshake description",
    "Failed to create QP: Cannot allocate memory",
    "Worker: Process failed for slice (opcode: 0, source_addr: 0x7f00, length: 4096, "
    "dest_addr: 0x7f11, local_nic: mlx5_{n}, peer_nic: 10.0.0.2:17713@mlx5_0): "
    "transport retry counter exceeded",
]), n=st.integers(0, 9))
def test_mooncakes_rdma_connection_errors_name_gid_mtu_and_reachability(
        prefix: str, stamp: str, text: str, n: int) -> None:
    started = ("(EngineCore_DP0 pid=300) INFO 11-01 10:06:00 [core.py:171] init engine (profile, "
               "create kv cache, warmup model) took 37.37 seconds\n")
    log = started + _mooncake_record(prefix, stamp.replace("W", "E", 1), "rdma_endpoint.cpp:264",
                                     text.format(n=n)) + "\n"
    signature, fix = signature_advice(log)
    assert signature == "mooncake-rdma-connection-failed"
    for knob in ("MC_GID_INDEX", "MC_MTU", "ib_write_bw", "MC_ENABLE_DEST_DEVICE_AFFINITY",
                 "VLLM_HOST_IP"):
        assert knob in fix, knob


@settings(max_examples=20, deadline=None)
@given(era=st.sampled_from(ERAS), kind=st.sampled_from(["RuntimeError", "ValueError"]),
       layout=st.integers(0, 12), colon=st.booleans())
def test_lmcache_without_the_kv_layout_names_the_upgrade_and_vllms_own_offloading(
        era: object, kind: str, layout: int, colon: bool) -> None:
    message = f"Unsupported GPUKVFormat: {layout}" if colon else "Unsupported GPUKVFormat"
    inner = (("/usr/local/lib/python3.12/site-packages/lmcache/v1/gpu_connector/"
              "gpu_connectors.py", "batched_from_gpu"),)
    log = worker_failure(f"{kind}: {message}", phase=Phase.SERVING, era=era,  # type: ignore[arg-type]
                         inner=inner)
    signature, fix = signature_advice(log)
    assert signature == "lmcache-gpu-kv-format-unsupported"
    for knob in ("pip install -U lmcache", "--kv-offloading-backend", "--kv-transfer-config"):
        assert knob in fix, knob


# ---- HCCL's documented error codes (CANN's HCCL guide and error reference) -----------------------

def _hccl_failure(prefix: str, record: str) -> str:
    frames = [("/usr/local/lib/python3.11/site-packages/vllm/distributed/parallel_state.py",
               "init_distributed_environment",
               "torch.distributed.all_reduce(data, group=cpu_group)"),
              ("/usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py",
               "all_reduce", "work = group.allreduce([tensor], opts)")]
    error = ("RuntimeError: [ERROR] 2026-09-14-08:12:40 (PID:3301, Device:1, RankID:1) ERR02200 "
             "DIST call hccl api failed.\n" + record)
    return python_traceback(frames, error, prefix)


def _cann_record(code: str, name: str, text: str, headed: bool) -> str:
    if headed:
        return f"[PID: 3301] 2026-09-14-08:12:40.020.677 {name}({code}): {text}"
    return f"{code}: [PID: 3301] 2026-09-14-08:12:40.020.677 {text}"


@settings(max_examples=30, deadline=None)
@given(prefix=_PREFIXES, headed=st.booleans(), wording=st.sampled_from([
    "Environment variable [{var}] is invalid. Reason: it should be a number in range [{lo}, {hi}].",
    "Value {bad} for environment variable {var} is invalid. Expected value : range[{lo}, {hi}].",
]), var=st.sampled_from(["HCCL_EXEC_TIMEOUT", "HCCL_CONNECT_TIMEOUT", "HCCL_RDMA_SL",
                         "HCCL_RDMA_TC", "HCCL_IF_BASE_PORT", "HCCL_SOCKET_FAMILY"]),
    lo=st.integers(0, 120), hi=st.integers(7, 17340), bad=st.integers(20000, 99999))
def test_an_hccl_variable_out_of_range_names_the_ranges(
        prefix: str, headed: bool, wording: str, var: str, lo: int, hi: int, bad: int) -> None:
    text = wording.format(var=var, lo=lo, hi=hi, bad=bad)
    log = _hccl_failure(prefix, _cann_record("EI0001", "Config_Error_Invalid_Environment_Variable",
                                             text, headed))
    signature, fix = signature_advice(log)
    assert signature == "hccl-env-var-invalid"
    for knob in ("HCCL_CONNECT_TIMEOUT", "HCCL_INTRA_ROCE_ENABLE", "HCCL_SOCKET_IFNAME",
                 "HCCL_RDMA_SL", "HCCL_IF_BASE_PORT"):
        assert knob in fix, knob


@settings(max_examples=30, deadline=None)
@given(prefix=_PREFIXES, headed=st.booleans(), case=st.sampled_from([
    ("EJ0003", "Bind_Failed", "Failed to bind the IP port. Reason: The IP address and port have "
     "been bound already."),
    ("EI0019", "Communication_Error_Bind_IP_Port", "Failed to bind the IP port. Reason: The IP "
     "address and port have been bound already."),
    ("EI0020", "Communication_Error_Bind_IP_Port", "Failed to enable listening for the host "
     "network adapter socket. Reason: bind failed."),
]))
def test_an_hccl_port_held_by_another_process_names_the_port_ranges(
        prefix: str, headed: bool, case: tuple[str, str, str]) -> None:
    code, name, text = case
    signature, fix = signature_advice(_hccl_failure(prefix, _cann_record(code, name, text,
                                                                         headed)))
    assert signature == "hccl-port-bind-failed"
    for knob in ("HCCL_NPU_SOCKET_PORT_RANGE", "HCCL_HOST_SOCKET_PORT_RANGE", "HCCL_IF_BASE_PORT",
                 "npu-smi info"):
        assert knob in fix, knob


@settings(max_examples=20, deadline=None)
@given(prefix=_PREFIXES, headed=st.booleans(), peer=st.integers(0, 15))
def test_hccl_p2p_failure_names_roce_inside_the_server(prefix: str, headed: bool,
                                                      peer: int) -> None:
    record = _cann_record("EI0010", "Communication_Error_P2P",
                          f"P2P communication failed. Reason: peer NPU {peer} not reachable.",
                          headed)
    signature, fix = signature_advice(_hccl_failure(prefix, record))
    assert signature == "hccl-p2p-communication-failed"
    assert "HCCL_INTRA_ROCE_ENABLE=1" in fix


@settings(max_examples=20, deadline=None)
@given(prefix=_PREFIXES, headed=st.booleans(), code=st.sampled_from(["EI0011", "EL0019"]))
def test_hccl_or_driver_device_memory_shortage_names_hccl_buffsize_and_the_batch(
        prefix: str, headed: bool, code: str) -> None:
    record = _cann_record(code, "Resource_Error_Insufficient_Device_Memory",
                          "Failed to allocate [size: [0.25MB, 3MB], Affected by QP depth "
                          "configuration.] bytes of NPU memory.", headed)
    signature, fix = signature_advice(_hccl_failure(prefix, record))
    assert signature == "ascend-driver-memory-allocation-failed"
    for knob in ("HCCL_BUFFSIZE", "--max-num-seqs", "--gpu-memory-utilization"):
        assert knob in fix, knob


@settings(max_examples=20, deadline=None)
@given(prefix=_PREFIXES, headed=st.booleans(), device=st.integers(0, 15),
       name=st.sampled_from(["Execution_Error_ROCE_CQE", "Execution Error ROCE CQE"]))
def test_an_hccl_error_cqe_names_the_peer_the_link_and_the_retransmission_knobs(
        prefix: str, headed: bool, device: int, name: str) -> None:
    record = _cann_record("EI0013", name, "An error CQE occurred during operator execution. "
                          f"Local information: server 10.0.0.1, device ID {device}, device IP "
                          f"192.168.1.{device}. Peer information: server 10.0.0.2, device ID "
                          f"{device}, device IP 192.168.2.{device}.", headed)
    signature, fix = signature_advice(_hccl_failure(prefix, record))
    assert signature == "hccl-roce-error-cqe"
    for knob in ("hccn_tool", "HCCL_RDMA_TIMEOUT", "HCCL_RDMA_RETRY_CNT"):
        assert knob in fix, knob


# ---- vllm-ascend's own checks of the chip and of its MoE communication --------------------------

_ASCEND_PKG = "/usr/local/python3.11/site-packages/vllm_ascend/"


@settings(max_examples=25, deadline=None)
@given(era=st.sampled_from(ERAS), wording=st.sampled_from([
    "RuntimeError: Current device type: {a} does not match the installed version's device type: "
    "{b}, please check your installation package.",
    "RuntimeError: Cannot support runtime soc_version: {n}.",
    "RuntimeError: Undefined soc_version: {n}. Please file an issue to vllm-ascend.",
    "ValueError: Unsupported soc_version: {n}",
]), a=st.sampled_from(["A2", "A3", "_310P", "A5"]), b=st.sampled_from(["A2", "A3", "_310P"]),
    n=st.integers(100, 999))
def test_a_package_built_for_another_chip_names_the_images_and_soc_version(
        era: object, wording: str, a: str, b: str, n: int) -> None:
    inner = ((_ASCEND_PKG + "device/device_config.py", "check_ascend_device_type"),)
    log = worker_failure(wording.format(a=a, b=b, n=n), phase=Phase.INIT, era=era,  # type: ignore[arg-type]
                         inner=inner)
    signature, fix = signature_advice(log)
    assert signature == "ascend-soc-version-mismatch"
    for knob in ("SOC_VERSION", "-a3", "-310p", "npu-smi info"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(era=st.sampled_from(ERAS), message=st.sampled_from([
    "RuntimeError: PTA and CANN version is too old to support mc2 hierarchy comm, please upgrade "
    "your version.",
    "ValueError: enable_mc2_hierarchy_comm is only supported on A2 and A3, but got _310P.",
    "ValueError: enable_mc2_hierarchy_comm supports at most 512 experts, but got 1024.",
]))
def test_mc2_hierarchy_comm_refused_names_the_key_and_the_upgrade(era: object,
                                                                  message: str) -> None:
    inner = ((_ASCEND_PKG + "ops/fused_moe/token_dispatcher.py", "__init__"),)
    log = worker_failure(message, phase=Phase.LOAD, era=era, inner=inner)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "ascend-additional-config-rejected"
    for knob in ("enable_mc2_hierarchy_comm", "--additional-config", "torch_npu"):
        assert knob in fix, knob


@settings(max_examples=20, deadline=None)
@given(era=st.sampled_from(ERAS), var=st.sampled_from(["MMC_LOCAL_CONFIG_PATH", "YR_CONFIG_PATH",
                                                       "MOONCAKE_CONFIG_PATH", "LMCACHE_CONFIG_FILE"]),
       quote=st.sampled_from(["'", "`", '"', ""]))
def test_a_plugin_naming_a_quoted_unset_variable_gets_it_in_the_fix(era: object, var: str,
                                                                    quote: str) -> None:
    inner = ((_ASCEND_PKG + "distributed/kv_transfer/kv_pool/ascend_store/backend/"
              "memcache_backend.py", "__init__"),)
    log = worker_failure(f"ValueError: The environment variable {quote}{var}{quote} is not set.",
                         phase=Phase.LOAD, era=era, inner=inner)  # type: ignore[arg-type]
    _, fix = signature_advice(log)
    assert f"export {var}=" in fix
