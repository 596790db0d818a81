"""engine-dead-async-loop for V0 AsyncLLMEngine's `dead_error` ("Background loop is not running.
If it was running, inspect the output ..."), which a program driving the V0 engine itself meets
(a request aborted after the loop died, or added while no loop runs): bare, under a framework's
frames and vLLM's, with a launcher's prefix, as the qualified or the short class. Near miss: the
loop stopped by another event loop ("Background loop is stopped.") keeps its own signature."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SITE = "/usr/local/lib/python3.10/site-packages/"
DEAD = ("Background loop is not running. If it was running, inspect the output to find the "
        "stacktrace of the error that caused the background loop to stop (AsyncEngineDeadError).")
_CLASS = st.sampled_from(("AsyncEngineDeadError",
                          "vllm.engine.async_llm_engine.AsyncEngineDeadError"))
_CALLER = st.sampled_from(("", "llamafactory/chat/vllm_engine.py", "trl/trainer/grpo_trainer.py",
                           "openrlhf/trainer/ray/vllm_engine.py"))
_FUNCTION = st.sampled_from(("abort", "add_request", "generate"))
_PREFIX = st.sampled_from(("", "(LLMRayActor pid=5120) ", "[rank0]: "))


def _log(prefix: str, caller: str, function: str, cls: str, message: str) -> str:
    lines = [f"{cls}: {message}"]
    if caller:
        lines = ["Traceback (most recent call last):",
                 f'  File "{SITE}{caller}", line 120, in chat', "    await self.model.generate()",
                 f'  File "{SITE}vllm/engine/async_llm_engine.py", line 712, in {function}',
                 "    raise self.dead_error", *lines]
    return "".join(f"{prefix}{line}\n" for line in lines)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=_CLASS, caller=_CALLER, function=_FUNCTION, prefix=_PREFIX)
def test_the_v0_dead_loop_words_get_the_dead_loop_signature(cls: str, caller: str,
                                                            function: str, prefix: str) -> None:
    report = explain_text(_log(prefix, caller, function, cls, DEAD),
                          signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.id == "engine-dead-async-loop", report.signature.id


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=_CLASS, prefix=_PREFIX)
def test_near_miss_a_loop_stopped_by_another_event_loop(cls: str, prefix: str) -> None:
    report = explain_text(_log(prefix, "", "", cls, "Background loop is stopped."),
                          signatures=default_signatures())
    assert report.signature is None or report.signature.id != "engine-dead-async-loop"
