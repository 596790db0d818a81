"""vLLM's input dump (dump_input.py): the engine core logs at ERROR what the step it was running
held, only because that step just failed (causality.yaml `symptoms`). Every record of it is a
report of the failure that follows, in each era's wording: 0.9's heading alone (`Dumping input
data`), the engine's config on a record of its own, the scheduler's objects each printed alone
(`SchedulerOutput(...)`, `SchedulerStats(...)`); later releases' one heading with the config.
Generated: each era's dump, with the failure it precedes printed or cut off, behind each prefix."""

from __future__ import annotations

import itertools

import pytest

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

STAMP = "06-05 16:27:39"
CONFIG = ("model='m', speculative_config=None, tokenizer='m', tensor_parallel_size=4, "
          "enforce_eager=True")
OUTPUT = ("SchedulerOutput(scheduled_new_reqs=[], scheduled_cached_reqs=[CachedRequestData("
          "req_id='chatcmpl-1', resumed_from_preemption=true, new_token_ids=[497, 330])], "
          "num_scheduled_tokens={chatcmpl-1: 1}, total_num_scheduled_tokens=1)")
STATS = ("SchedulerStats(num_running_reqs=20, num_waiting_reqs=193, "
         "gpu_cache_usage=0.9776936865166301)")
DUMPS = {
    "v0.9": [("dump_input.py:68", "Dumping input data"),
             ("dump_input.py:70", f"V1 LLM engine (v0.9.0) with config: {CONFIG}, "),
             ("dump_input.py:78", "Dumping scheduler output for model execution:"),
             ("dump_input.py:79", OUTPUT),
             ("dump_input.py:81", STATS)],
    "v0.10": [("dump_input.py:72", f"Dumping input data for V1 LLM engine (v0.10.1) with "
                                   f"config: {CONFIG}, "),
              ("dump_input.py:79", f"Dumping scheduler output for model execution: {OUTPUT}"),
              ("dump_input.py:81", f"Dumping scheduler stats: {STATS}")],
}
PREFIXES = ("", "(EngineCore_DP0 pid=4100) ")


def _dump(era: str, prefix: str) -> list[str]:
    return [f"{prefix}ERROR {STAMP} [{site}] {text}" for site, text in DUMPS[era]]


def _engine_died(prefix: str) -> list[str]:
    return [f"{prefix}ERROR {STAMP} [core.py:502] EngineCore encountered a fatal error.",
            f"{prefix}ERROR {STAMP} [core.py:502] Traceback (most recent call last):",
            f'{prefix}ERROR {STAMP} [core.py:502]   File "/x/vllm/v1/engine/core.py", line 226, '
            "in step",
            f"{prefix}ERROR {STAMP} [core.py:502]     model_output = self.execute_model(so)",
            f"{prefix}ERROR {STAMP} [core.py:502] RuntimeError: Worker failed with error "
            "'CUDA error: an illegal memory access was encountered', please check the stack "
            "trace above for the root cause",
            "(APIServer pid=4000) vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
            "encountered an issue. See stack trace (above) for the root cause."]


@pytest.mark.parametrize(("era", "prefix"), list(itertools.product(DUMPS, PREFIXES)))
def test_a_dump_before_the_engines_report_is_no_cause(era: str, prefix: str) -> None:
    # the excerpt begins at the dump: the worker's error is not in it
    report = explain_text("\n".join(_dump(era, prefix) + _engine_died(prefix)[-1:]) + "\n")
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause
    assert report.root_cause is None


@pytest.mark.parametrize(("era", "prefix", "cut"),
                         list(itertools.product(DUMPS, PREFIXES, (False, True))))
def test_the_failure_after_a_dump_is_the_root(era: str, prefix: str, cut: bool) -> None:
    # the engine's own failure follows its dump; cut after its exception line or not
    died = _engine_died(prefix)
    log = _dump(era, prefix) + [f"{prefix}ERROR {STAMP} [core.py:502] "
                                "ValueError: cannot reshape tensor of 0 elements"]
    if not cut:
        log += died[-1:]
    report = explain_text("\n".join(log) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
