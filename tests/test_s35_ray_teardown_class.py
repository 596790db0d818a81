"""A Ray-executor run torn down after a start-up whose cause the excerpt cut (session 35, sigs-d):
on a multi-node Ray deployment (LeaderWorkerSet, KubeRay, `ray start` pods) the engine core fails
while it sets up its workers, and what is left is the teardown: Ray's ActorHandleNotFoundError,
which only `ray.kill` raises and vLLM calls only as its Ray executor shuts down, with vLLM's
`Engine core initialization failed` and Ray's worker-death lines. The class
(ray-executor-teardown-cause-not-in-log) answers on that symptom set, whatever Ray's wording (the
whole message, one cut before or after its job ids, with or without its module), the prefixes
(a process's, a Ray actor's, a pod's, indented quotes) and how the excerpt was cut; its fix says
the cause is earlier in another node's log and names the multi-node start-up knobs in order.
Near misses: a single-node mp run whose engine core fails with its cause shown, the same teardown
beside a cause shown, and Ray's other actor errors."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, signature_advice

CLASS = "ray-executor-teardown-cause-not-in-log"

_RAY_WORDS = st.sampled_from([
    "ActorHandle objects are not valid across Ray sessions. The actor handle was created in job "
    "01000000, but the current job is 02000000.",
    "ActorHandle objects are not valid across Ray sessions.",
    "... created in job 01000000,\n    but the current job is 02000000",
    "... created in job 03000000, but the current job is 04000000",
])
_MODULES = st.sampled_from(["ray.exceptions.", ""])
_PREFIXES = st.sampled_from(["", "  ", "(EngineCore_DP0 pid=6120) ",
                             "(RayWorkerWrapper pid=4471, ip=10.0.7.14) ",
                             "[pod/vllm-0/vllm-leader] ", "vllm-0-1 vllm "])
# the API server's pointer as releases print it, or cut after its first words, or not kept
_POINTERS = st.sampled_from([
    None, "RuntimeError: Engine core initialization failed",
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
    "RuntimeError: Engine core initialization failed. See root cause above.",
])
_DEATHS = st.sampled_from([
    None,
    "(raylet, ip=10.0.7.14) A worker died or was killed while executing a task by an unexpected "
    "system error. To troubleshoot the problem, check the logs for the dead worker.",
])


def _teardown(words: str, module: str, frames: bool, py: str, site: str) -> list[str]:
    lines: list[str] = []
    if frames:  # the traceback's tail: the executor's shutdown and Ray's kill
        packages = site.format(py=py)
        lines += ["Traceback (most recent call last):",
                  f'  File "{packages}vllm/executor/ray_distributed_executor.py", line 124, '
                  "in shutdown",
                  "    ray.kill(worker)",
                  f'  File "{packages}ray/_private/worker.py", line 3119, in kill',
                  "    worker.core_worker.kill_actor(actor._ray_actor_id, no_restart)"]
    first, *rest = words.split("\n")
    return lines + [f"{module}ActorHandleNotFoundError: {first}", *rest]


@settings(max_examples=80, deadline=None)
@given(words=_RAY_WORDS, module=_MODULES, prefix=_PREFIXES, pointer=_POINTERS, death=_DEATHS,
       frames=st.booleans(), ray_line=st.booleans(), py=PYTHONS, site=SITE_PACKAGES)
def test_a_ray_teardown_after_a_cut_start_up_gets_the_multi_node_advice(
        words: str, module: str, prefix: str, pointer: str | None, death: str | None,
        frames: bool, ray_line: bool, py: str, site: str) -> None:
    lines: list[str] = []
    if ray_line:  # the executor's own notice that it is shutting down (vLLM 0.8 and later)
        lines.append("INFO 12-06 07:31:57 [ray_distributed_executor.py:120] Shutting down Ray "
                     "distributed executor. If you see error log from logging.cc regarding "
                     "SIGTERM received, please ignore because this is the expected termination "
                     "process in Ray.")
    if death is not None:
        lines.append(death)
    lines += _teardown(words, module, frames, py, site)
    if pointer is not None:
        lines.append(pointer)
    log = "".join(f"{prefix}{line}\n" for line in lines)
    sid, fix = signature_advice(log)
    assert sid == CLASS, log
    # the knobs in the order the fix gives them
    knobs = ["another node", "GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "VLLM_HOST_IP",
             "same path", "ray status", "NCCL_DEBUG=INFO"]
    places = [fix.find(knob) for knob in knobs]
    assert -1 not in places and places == sorted(places), (knobs, places)


_MP_FAILURE = """\
(APIServer pid=52110) INFO 03-02 08:14:20 [utils.py:233] non-default args: {'model_tag': 'org/model', 'distributed_executor_backend': 'mp'}
(EngineCore_DP0 pid=7312) ERROR 03-02 08:15:02 [core.py:708] EngineCore failed to start.
(EngineCore_DP0 pid=7312) ERROR 03-02 08:15:02 [core.py:708] Traceback (most recent call last):
(EngineCore_DP0 pid=7312) ERROR 03-02 08:15:02 [core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 699, in check_enough_kv_cache_memory
(EngineCore_DP0 pid=7312) ERROR 03-02 08:15:02 [core.py:708]     raise ValueError(
(EngineCore_DP0 pid=7312) ERROR 03-02 08:15:02 [core.py:708] ValueError: To serve at least one request with the models's max seq len (131072), (4.54 GiB KV cache is needed, which is larger than the available KV cache memory (1.71 GiB). Based on the available memory, the estimated maximum model length is 49104. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
"""


@settings(max_examples=20, deadline=None)
@given(pointer=_POINTERS, teardown=st.booleans(), module=_MODULES)
def test_a_start_up_whose_cause_is_shown_gets_the_causes_advice(
        pointer: str | None, teardown: bool, module: str) -> None:
    log = _MP_FAILURE
    if teardown:  # the same teardown beside the cause: a symptom of a known root
        log += f"{module}ActorHandleNotFoundError: ActorHandle objects are not valid across Ray sessions.\n"
    if pointer is not None:
        log += f"(APIServer pid=52110) {pointer}\n"
    sid, _ = signature_advice(log)
    assert sid != CLASS and "kv-cache" in sid, log


def test_ray_s_other_actor_errors_are_not_the_teardown() -> None:
    log = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this "
           "task.\nRuntimeError: Engine core initialization failed. See root cause above. "
           "Failed core proc(s): {}\n")
    sid, _ = signature_advice(log)
    assert sid != CLASS
