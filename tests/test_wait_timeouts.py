"""A wait's timeout re-raised under the name of what was waited for, generated.

vLLM's shm_broadcast raises a bare `TimeoutError` when a reader's wait ends; the executor raises
`TimeoutError: RPC call to <method> timed out.` from it (vllm#19408; the tuning case
b-v090-execute-model-rpc-timeout-after-a-day). The bare one is the same timeout before it was
named (causality.yaml `mechanisms`), so the named one is the error, and that one says the cause
is in the workers: with no worker error in the log the cause is not in it (as the shared corpus
labels a silent death or a hang); with one, that error is the root.
"""

from __future__ import annotations

import pytest

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SITE = "/venv/lib/python3.12/site-packages/vllm/"
PREFIXES = ["", "ERROR 06-10 16:33:51 [core.py:398] ",
            "(EngineCore_DP0 pid=812) ERROR 08-01 21:21:48 [core.py:710] "]
WRAPPERS = ["", "2025-06-10T16:33:51.123456789Z "]
DIRECT = "The above exception was the direct cause of the following exception:"
DURING = "During handling of the above exception, another exception occurred:"


def _rpc_timeout(method: str, reason: str) -> list[str]:
    return ["Traceback (most recent call last):",
            f'  File "{SITE}v1/executor/multiproc_executor.py", line 181, in collective_rpc',
            "    status, result = w.worker_response_mq.dequeue(",
            f'  File "{SITE}distributed/device_communicators/shm_broadcast.py", line 443, in '
            "acquire_read", "    raise TimeoutError", "TimeoutError", "", reason, "",
            "Traceback (most recent call last):",
            f'  File "{SITE}v1/engine/core.py", line 389, in run_engine_core',
            "    engine_core.run_busy_loop()",
            f'  File "{SITE}v1/executor/multiproc_executor.py", line 193, in collective_rpc',
            '    raise TimeoutError(f"RPC call to {method} timed out.") from e',
            f"TimeoutError: RPC call to {method} timed out."]


def _log(prefix: str, wrapper: str, method: str, reason: str, worker: bool) -> str:
    lines = ["INFO 06-10 16:32:52 [core.py:159] init engine (profile, create kv cache, warmup "
             "model) took 7.68 seconds"]
    if worker:
        lines.append("(VllmWorker rank=1 pid=4021) ERROR 06-10 16:33:40 [multiproc_executor.py:"
                     "527] RuntimeError: CUDA error: an illegal memory access was encountered")
    lines += [prefix + line for line in ["EngineCore encountered a fatal error."]
              + _rpc_timeout(method, reason)]
    lines += ["Traceback (most recent call last):",
              f'  File "{SITE}v1/engine/core_client.py", line 558, in get_output',
              "    raise self._format_exception(outputs) from None",
              "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See "
              "stack trace (above) for the root cause."]
    return "\n".join(wrapper + line for line in lines) + "\n"


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("method", ["execute_model", "sample_tokens", "determine_num_available_blocks"])
@pytest.mark.parametrize("reason", [DIRECT, DURING])
def test_a_named_wait_timeout_with_silent_workers_has_no_root_in_the_log(
        prefix: str, wrapper: str, method: str, reason: str) -> None:
    report = explain_text(_log(prefix, wrapper, method, reason, worker=False),
                          signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_a_worker_error_before_the_timeout_is_the_root(prefix: str, wrapper: str) -> None:
    report = explain_text(_log(prefix, wrapper, "execute_model", DIRECT, worker=True),
                          signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "RuntimeError" and root.line == 2


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_bare_timeout_another_error_is_raised_from_stays_the_cause(prefix: str) -> None:
    lines = _rpc_timeout("execute_model", DIRECT)
    lines[-1] = "RuntimeError: engine step failed"
    report = explain_text("\n".join(prefix + line for line in lines) + "\n",
                          signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.exception == "TimeoutError" and root.line == 6
