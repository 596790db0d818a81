"""A platform that gives up on vLLM's start-up while it is still loading (session 19's development
split: Modal's `Runner has been initializing for too long`, answered by the last-resort fallback).

The class: a launcher's start-up limit, probe or health check (Modal's runner, the kubelet's
liveness or startup probe, SageMaker's ping health check on a new endpoint) stops a vLLM that is
loading weights, compiling or capturing CUDA graphs. Nothing in vLLM failed; the advice is the
launcher's own knob for the start-up time, then a faster start (`--enforce-eager`, a persistent
compile cache). Generated over vLLM's eras of start-up lines, the launchers' wordings, the limit
and the console prefix a launcher puts in front of the lines it collects."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import signature_advice

# the start-up lines a log shows before the launcher gives up, by era (the last step reached:
# weights loaded, torch.compile running, CUDA graphs being captured)
_STARTS = [
    ["INFO 06-03 08:02:11 llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with "
     "config: model='Qwen/Qwen2.5-72B-Instruct-AWQ', dtype=torch.float16, max_seq_len=32768",
     "INFO 06-03 08:05:40 model_runner.py:1067] Loading model weights took 19.2405 GB",
     "INFO 06-03 08:05:55 model_runner.py:1395] Capturing the model for CUDA graphs. This may lead "
     "to unexpected consequences if the model is not static."],
    ["INFO 05-01 12:38:02 [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: "
     "model='google/gemma-3-12b-it', dtype=torch.bfloat16",
     "INFO 05-01 12:38:19 [gpu_model_runner.py:1329] Model loading took 23.3 GiB and 16.6 seconds",
     "INFO 05-01 12:39:00 [backends.py:430] Dynamo bytecode transform time: 41.22 s"],
    ["(EngineCore_DP0 pid=311) INFO 11-20 10:11:02 [gpu_model_runner.py:2653] Model loading took "
     "61.2 GiB and 412.3 seconds",
     "(EngineCore_DP0 pid=311) INFO 11-20 10:12:40 [backends.py:548] Using cache directory: "
     "/root/.cache/vllm/torch_compile_cache/9a1e/rank_0_0/backbone for vLLM's torch.compile"],
]


def _launcher_lines(seconds: int, pod: str) -> list[str]:
    return [
        f"Runner failed with exception: Runner has been initializing for too long: {seconds} seconds",
        f"  Normal   Killing    {seconds % 50 + 2}s   kubelet  Container {pod} failed liveness "
        "probe, will be restarted",
        "sagemaker.exceptions.UnexpectedStatusException: Error hosting endpoint "
        f"{pod}-endpoint: Failed. Reason: The primary container for production variant AllTraffic "
        "did not pass the ping health check. Please check CloudWatch logs for this endpoint..",
    ]


@settings(max_examples=40, deadline=None)
@given(start=st.sampled_from(_STARTS), which=st.integers(0, 2), seconds=st.integers(60, 3600),
       pod=st.sampled_from(["vllm", "vllm-server", "llama-70b", "gemma-deployment"]),
       console=st.sampled_from(["", "May 01  14:38:18.434 | ", "2025-05-01T14:38:18.434Z "]))
def test_a_launcher_stopping_a_loading_vllm_names_its_start_up_knobs(
        start: list[str], which: int, seconds: int, pod: str, console: str) -> None:
    log = "".join(console + line + "\n" for line in start) + _launcher_lines(seconds, pod)[which] + "\n"
    signature, fix = signature_advice(log)
    assert signature == "launcher-startup-timeout-while-loading"
    for knob in ("startup_timeout", "startupProbe", "failureThreshold",
                 "container_startup_health_check_timeout", "--enforce-eager", "VLLM_CACHE_ROOT"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(seconds=st.integers(60, 3600))
def test_a_scheduler_time_limit_after_start_up_is_not_the_class(seconds: int) -> None:
    log = ("INFO 06-03 08:09:02 api_server.py:585] Application startup complete.\n"
           f"slurmstepd: error: *** JOB {seconds} ON gpu-node-17 CANCELLED AT 2024-06-03T12:09:02 "
           "DUE TO TIME LIMIT ***\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.id != "launcher-startup-timeout-while-loading"


@settings(max_examples=15, deadline=None)
@given(done=st.integers(0, 29), console=st.sampled_from(["", "May 01  14:38:18.434 | "]))
def test_a_start_up_cut_off_without_a_word_names_the_launchers_limits_too(done: int,
                                                                          console: str) -> None:
    # the launcher's own report is often not in the container's log: the log just stops while
    # the checkpoint shards load
    log = (console + "INFO 05-01 12:38:02 [core.py:58] Initializing a V1 LLM engine (v0.8.5) with "
           "config: model='google/gemma-3-27b-it', dtype=torch.bfloat16\n" + console +
           f"Loading safetensors checkpoint shards:  {done * 100 // 30:2d}% Completed | {done}/30 "
           "[01:12<04:10,  9.87s/it]\n")
    signature, fix = signature_advice(log)
    assert signature == "startup-stalled-no-error"
    assert "startup_timeout" in fix and "startupProbe" in fix
