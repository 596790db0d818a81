"""worker-rpc-method-failed: a method a framework runs on vLLM's workers through collective_rpc
failed (vLLM's restatements of it) or is not on the worker (no worker extension loaded). Members
are generated: any method name, vLLM's worker classes, each restatement vLLM prints (the engine
core client's, the engine core's ERROR record, V0's worker wrapper for weight-sync methods), bare
or under a framework's frames, with the process prefix a launcher puts on the lines. Near misses:
V0's wrapper failing its own set-up method, another utility call than collective_rpc, an
attribute missing on a model or config object, the multiprocess executor's restatement of any
worker failure, Ray's own `Worker` object at interpreter exit."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

FAMILY = "worker-rpc-method-failed"
SITE = "/usr/local/lib/python3.11/site-packages/"
_NAME = st.text(string.ascii_lowercase, min_size=3, max_size=8)
_METHOD = st.lists(_NAME, min_size=1, max_size=3).map("_".join)
_WEIGHT_METHOD = st.one_of(
    st.sampled_from(("init_process_group", "init_communicator", "close_communicator",
                     "update_named_param", "update_weights_from_ipc")),
    _NAME.map(lambda n: f"update_weight_{n}"), _NAME.map(lambda n: f"{n}_weights_{n}"))
_WORKER = st.sampled_from(("Worker", "GPUWorker", "NPUWorker", "XPUWorker", "WorkerWrapperBase",
                           "RayWorkerWrapper", "TPUWorker", "HPUWorker"))
_INNER = st.lists(_NAME, min_size=3, max_size=7).map(" ".join)
_PREFIX = st.sampled_from(("", "(LLMRayActor pid=5120) ", "(WorkerDict pid=3101) ",
                           "(TaskRunner pid=2210) "))
_FRAMES = st.sampled_from(("", "openrlhf/trainer/ray/vllm_engine.py", "trl/trainer/grpo_trainer.py",
                           "verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py",
                           "swift/infer_engine/vllm_engine.py"))


def _explain(lines: list[str], prefix: str, caller: str) -> str | None:
    body = lines
    if caller:
        body = ["Traceback (most recent call last):",
                f'  File "{SITE}{caller}", line 120, in sync_weights',
                "    self.llm.collective_rpc(method, args=args)",
                f'  File "{SITE}vllm/entrypoints/llm.py", line 505, in collective_rpc',
                "    return self.llm_engine.collective_rpc(method, timeout, args, kwargs)",
                *lines]
    report = explain_text("".join(f"{prefix}{line}\n" for line in body),
                          signatures=default_signatures())
    return report.signature.id if report.signature is not None else None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), method=_METHOD, weight=_WEIGHT_METHOD, worker=_WORKER, inner=_INNER,
       prefix=_PREFIX, caller=_FRAMES)
def test_a_collective_rpc_failure_gets_the_family(data: st.DataObject, method: str, weight: str,
                                                   worker: str, inner: str, prefix: str,
                                                   caller: str) -> None:
    line = data.draw(st.sampled_from((
        f"Exception: Call to collective_rpc method failed: {inner}",
        f"AttributeError: '{worker}' object has no attribute '{method}'",
        f"NotImplementedError: Method '{method}' is not implemented.",
        f"ERROR 05-02 10:11:30 [worker_base.py:620] Error executing method '{weight}'. This might "
        "cause deadlock in distributed execution.")))
    # Python's own words ("'Worker' object has no attribute") are the family's only on a call
    # path through vLLM (its `origin: python`): a bare copy names no place, and Ray's own `Worker`
    # says the same at interpreter exit (the last test): a bare copy is not claimed
    assume(caller or not line.startswith("AttributeError"))
    assert _explain([line], prefix, "" if line.startswith("ERROR") else caller) == FAMILY, line


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), method=_METHOD, inner=_INNER, prefix=_PREFIX, name=_NAME)
def test_near_misses_are_not_the_family(data: st.DataObject, method: str, inner: str,
                                        prefix: str, name: str) -> None:
    line = data.draw(st.sampled_from((
        # V0's wrapper failing one of the worker's own set-up steps: a set-up failure
        "ERROR 05-02 10:11:30 [worker_base.py:467] Error executing method "
        "determine_num_available_blocks. This might cause deadlock in distributed execution.",
        "ERROR 05-02 10:11:30 [worker_base.py:467] Error executing method init_device. This "
        "might cause deadlock in distributed execution.",
        # another utility call of the engine core than collective_rpc
        f"Exception: Call to add_lora method failed: {inner}",
        # an attribute missing on a model or config object, not on vLLM's worker
        f"AttributeError: '{name.capitalize()}ForCausalLM' object has no attribute '{method}'",
        f"AttributeError: '{name.capitalize()}Config' object has no attribute '{method}'",
        f"AttributeError: 'Worker' object attribute '{method}' is read-only",
        # the multiprocess executor's restatement of any worker failure (a batch, warm-up): the
        # error it quotes is what answers
        f"RuntimeError: Worker failed with error '{inner}', please check the stack trace above "
        "for the root cause")))
    assert _explain([line], prefix, "") != FAMILY, line


def test_near_miss_rays_own_worker_object_at_exit_is_not_the_family() -> None:
    lines = ["Exception ignored in: <function RayGPUExecutor.__del__ at 0x7ff2ee7048b0>",
             "Traceback (most recent call last):",
             f'  File "{SITE}vllm/executor/ray_gpu_executor.py", line 396, in __del__',
             "    self.forward_dag.teardown()",
             f'  File "{SITE}ray/experimental/channel/shared_memory_channel.py", line 512, '
             "in close", "    self._worker.core_worker.experimental_channel_set_error(ref)",
             "AttributeError: 'Worker' object has no attribute 'core_worker'"]
    assert _explain(lines, "", "") != FAMILY
