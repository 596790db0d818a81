"""Classes behind session 30's twenty-first split's cold fix misses (dev-fix's three), each generated
over its wordings and the ways a log shows it, with a near miss:

- torch's TCP store unable to listen on the wildcard address ("The server socket has failed to
  listen on any local network address"), with or without the errno's name (a reporter's paste cut
  after `code: -9`), as RuntimeError or DistNetworkError, bare or under vLLM's start-up traceback:
  port-in-use, whose fix names the race for a port vLLM picked itself (a `VLLM_PORT` base per
  instance, below the kernel's ephemeral range); the same listen refused for a privileged port
  or a foreign address (EACCES, EADDRNOTAVAIL) does not get it;
- torch.accelerator's memory calls on a device whose allocator is no `c10::DeviceAllocator`
  (`Allocator for hpu/npu/musa/mps/jax is not a DeviceAllocator`, as torch's check or its INTERNAL
  ASSERT), in vLLM's `cleanup_dist_env_and_memory`, a worker's start-up or a one-line paste:
  torch-accelerator-allocator-not-device-allocator, whose fix names the plugin release and the
  platform's own `empty_cache`; torch's refusal when there is no accelerator at all does not get it;
- a bare assert of the scheduler's `_update_from_kv_xfer_finished` (a connector's report of a
  finished transfer for a request not waiting, or already freed), under any engine core's prefix,
  whole or cut above its header: kv-connector-reports-transfer-for-request-not-waiting, whose fix
  names the decode instance's prefix cache; another bare assert of the same scheduler's connector
  path does not get it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice


def _signature_id(log: str) -> str | None:
    from logsleuth.pipeline import explain_text

    report = explain_text(log)
    return report.signature.id if report.signature is not None else None


# ---- torch's TCP store cannot listen: a port taken, named or not ---------------------------------

_STORE_FRAMES = [
    ("{root}vllm/v1/worker/gpu_worker.py", "init_worker_distributed_environment",
     "init_distributed_environment(parallel_config.world_size, rank,"),
    ("{root}vllm/distributed/parallel_state.py", "init_distributed_environment",
     "torch.distributed.init_process_group("),
    ("{root}torch/distributed/distributed_c10d.py", "init_process_group",
     "store, rank, world_size = next(rendezvous_iterator)"),
    ("{root}torch/distributed/rendezvous.py", "_create_c10d_store", "return TCPStore("),
]


@settings(max_examples=60, deadline=None)
@given(port=st.integers(1024, 65535), ipv6=st.sampled_from(["0", "1", "false", "true"]),
       tail=st.sampled_from(["", ", code: -9", ", code: -98",
                             ", code: -98, name: EADDRINUSE, message: address already in use"]),
       kind=st.sampled_from(["RuntimeError", "torch.distributed.DistNetworkError",
                             "DistNetworkError"]),
       shape=st.sampled_from(["bare", "traceback"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_store_that_cannot_listen_gets_the_port_race_advice(
        port: int, ipv6: str, tail: str, kind: str, shape: str, py: str, site: str,
        prefix: str) -> None:
    error = (f"{kind}: The server socket has failed to listen on any local network address. "
             f"port: {port}, useIpv6: {ipv6}{tail}")
    if shape == "bare":
        log = prefix + error + "\n"
    else:
        root = site.format(py=py)
        frames = [(path.format(root=root), function, code) for path, function, code in _STORE_FRAMES]
        log = python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    assert sid == "port-in-use", log
    assert "VLLM_PORT" in fix and "ip_local_port_range" in fix and "at the same moment" in fix, fix


@settings(max_examples=30, deadline=None)
@given(port=st.integers(1, 65535),
       refusal=st.sampled_from([", code: -13, name: EACCES, message: permission denied",
                                ", code: -99, name: EADDRNOTAVAIL, message: cannot assign "
                                "requested address",
                                ", code: -13"]),
       prefix=TRACEBACK_PREFIXES)
def test_a_listen_refused_for_another_reason_is_not_a_taken_port(
        port: int, refusal: str, prefix: str) -> None:
    log = (prefix + "RuntimeError: The server socket has failed to listen on any local network "
           f"address. port: {port}, useIpv6: 0{refusal}\n")
    assert _signature_id(log) not in ("port-in-use", "address-in-use"), log


# ---- torch.accelerator's memory calls on an allocator that is no DeviceAllocator -----------------

_DEVICES = st.sampled_from(["hpu", "npu", "musa", "mps", "jax", "privateuseone", "xla"])
_CALLERS = st.sampled_from([
    ("vllm/distributed/parallel_state.py", "cleanup_dist_env_and_memory",
     "torch.accelerator.empty_cache()"),
    ("vllm/v1/worker/gpu_worker.py", "init_device", "torch.accelerator.empty_cache()"),
    ("vllm/utils/mem_utils.py", "memory_profiling", "torch.accelerator.reset_peak_memory_stats()"),
    ("vllm/v1/worker/gpu_model_runner.py", "profile_run", "torch.accelerator.empty_cache()"),
])


def _allocator_error(device: str, form: str, line: int) -> str:
    text = f"Allocator for {device} is not a DeviceAllocator"
    if form == "check":
        return f"RuntimeError: {text}"
    return (f'RuntimeError: device_allocator INTERNAL ASSERT FAILED at "/pytorch/c10/core/'
            f'CachingDeviceAllocator.h":{line}, please report a bug to PyTorch. {text}.')


@settings(max_examples=60, deadline=None)
@given(device=_DEVICES, form=st.sampled_from(["check", "assert"]), line=st.integers(90, 400),
       caller=_CALLERS, shape=st.sampled_from(["bare", "traceback"]), py=PYTHONS,
       site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_an_allocator_that_is_no_device_allocator_gets_the_plugin_advice(
        device: str, form: str, line: int, caller: tuple[str, str, str], shape: str, py: str,
        site: str, prefix: str) -> None:
    error = _allocator_error(device, form, line)
    if shape == "bare":
        log = prefix + error + "\n"
    else:
        root = site.format(py=py)
        frames = [(f"{root}{caller[0]}", caller[1], caller[2]),
                  (f"{root}torch/accelerator/memory.py", "empty_cache",
                   "if not torch._C._accelerator_isAllocatorInitialized():")]
        log = python_traceback(frames, error, prefix)
    sid, fix = signature_advice(log)
    assert sid == "torch-accelerator-allocator-not-device-allocator", log
    assert "empty_cache" in fix and "cleanup_dist_env_and_memory" in fix, fix
    assert "current_platform.empty_cache()" in fix and "VLLM_PLUGINS" in fix, fix


@pytest.mark.parametrize("error", [
    "RuntimeError: Cannot access accelerator device when none is available.",
    "RuntimeError: getDeviceAllocator is not supported for CPU device type.",
    "RuntimeError: Allocator for hpu is not initialized",
])
def test_an_accelerator_call_refused_otherwise_is_not_the_allocator_class(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/distributed/parallel_state.py",
               "cleanup_dist_env_and_memory", "torch.accelerator.empty_cache()")]
    log = python_traceback(frames, error)
    assert _signature_id(log) != "torch-accelerator-allocator-not-device-allocator", log


# ---- a connector's finished transfer the scheduler did not wait for ------------------------------

_KV_ASSERTS = st.sampled_from(["assert RequestStatus.is_finished(req.status)",
                               "assert req_id in self.requests"])
_ENGINE_PREFIXES = st.sampled_from([
    "", "(EngineCore_DP{rank} pid=34912) ", "(EngineCore_DP{rank} pid=34912) ERROR 03-13 10:02:11 "
    "[core.py:1138] ", "(EngineCore pid=812) ERROR 07-28 10:42:05 [core.py:946] ",
    "[rank0]: "])


@settings(max_examples=60, deadline=None)
@given(assertion=_KV_ASSERTS, prefix=_ENGINE_PREFIXES, rank=st.integers(0, 15), py=PYTHONS,
       site=SITE_PACKAGES, step=st.sampled_from(["step", "step_with_batch_queue"]),
       header=st.booleans(), carets=st.booleans())
def test_a_finished_transfer_the_scheduler_did_not_wait_for_gets_the_prefix_cache_advice(
        assertion: str, prefix: str, rank: int, py: str, site: str, step: str, header: bool,
        carets: bool) -> None:
    root = site.format(py=py)
    lead = prefix.format(rank=rank)
    lines = [f'  File "{root}vllm/v1/engine/core.py", line 520, in {step}',
             "    engine_core_outputs = self.scheduler.update_from_output(",
             f'  File "{root}vllm/v1/core/sched/scheduler.py", line 1520, in update_from_output',
             "    self._update_from_kv_xfer_finished(kv_connector_output)",
             f'  File "{root}vllm/v1/core/sched/scheduler.py", line 2120, in '
             "_update_from_kv_xfer_finished",
             f"    {assertion}"]
    if carets:
        lines.append("           " + "^" * (len(assertion) - len("assert ")))
    lines.append("AssertionError")
    if header:
        lines.insert(0, "Traceback (most recent call last):")
    log = "".join(lead + line + "\n" for line in lines)
    sid, fix = signature_advice(log)
    assert sid == "kv-connector-reports-transfer-for-request-not-waiting", log
    assert "--no-enable-prefix-caching" in fix and "prefix cache" in fix, fix
    assert "kv_load_failure_policy" in fix, fix


@pytest.mark.parametrize(("function", "assertion"), [
    ("_update_waiting_for_remote_kv", "assert self.connector is not None"),
    ("schedule", "assert num_computed_tokens % self.block_size == 0"),
    ("_free_blocks", "assert request.is_finished()"),
])
def test_another_scheduler_assert_is_not_the_finished_transfer(function: str,
                                                               assertion: str) -> None:
    root = "/usr/local/lib/python3.12/dist-packages/"
    frames = [(f"{root}vllm/v1/engine/core.py", "step",
               "scheduler_output = self.scheduler.schedule()"),
              (f"{root}vllm/v1/core/sched/scheduler.py", function, assertion)]
    log = python_traceback(frames, "AssertionError", "(EngineCore_DP0 pid=20417) ")
    assert _signature_id(log) != "kv-connector-reports-transfer-for-request-not-waiting", log
