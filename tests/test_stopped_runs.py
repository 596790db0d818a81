"""A start of vLLM after a stop an operator asked for (causality.yaml
`milestones.shutdown_requested`: SIGTERM, uvicorn's orderly shutdown, Ctrl-C) is another
invocation: it begins a run of its own, whatever names the new invocation's processes print under
(runs.py). A file appended to across restarts holds a healthy run stopped with SIGTERM, then a
run that fails: the report explains the failing run, and the stop's shutdown does not make that
run's errors the stop's.

Generated over the earlier deployment (V1 prefixed, or unprefixed), how it was stopped, how the
later run prints (another era's shapes, another deployment's names), how it failed, and the
wrappers before every line. A stop of one deployment while another keeps talking stays one run
(tests/test_exited_runs.py holds the same for an exit).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from scenario_logs import Server

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

STOPS = {
    "sigterm of a V1 server": lambda s: s.sigterm(),
    "uvicorn's shutdown": lambda s: [f"(APIServer pid={s.api}) INFO:     Shutting down",
                                     f"(APIServer pid={s.api}) INFO:     Waiting for application "
                                     "shutdown.",
                                     f"(APIServer pid={s.api}) INFO:     Application shutdown "
                                     "complete."],
    "ctrl-c": lambda s: [f"(APIServer pid={s.api}) INFO {s.time()} [launcher.py:80] "
                         "Received KeyboardInterrupt, shutting down"],
}

V0_START = ["INFO 06-20 20:03:41 api_server.py:1287] vLLM API server version 0.6.3",
            "INFO 06-20 20:03:42 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with "
            "config: model='Qwen/Qwen2-7B', tensor_parallel_size=1"]
OFFLINE_START = ["INFO 06-20 20:03:42 [config.py:1604] Using max model len 4096",
                 "INFO 06-20 20:03:42 [core.py:69] Initializing a V1 LLM engine (v0.9.1) with "
                 "config: model='Qwen/Qwen2-7B'"]
FAILURES = {
    "kv cache": (["ERROR 06-20 20:04:10 [core.py:515] EngineCore failed to start.",
                  "ERROR 06-20 20:04:10 [core.py:515] Traceback (most recent call last):",
                  'ERROR 06-20 20:04:10 [core.py:515]   File "/usr/local/lib/python3.10/'
                  'site-packages/vllm/v1/engine/core.py", line 75, in __init__',
                  "ERROR 06-20 20:04:10 [core.py:515]     self._initialize_kv_caches(vllm_config)",
                  "ERROR 06-20 20:04:10 [core.py:515] ValueError: To serve at least one request "
                  "with the models's max seq len (32768), (6.00 GiB KV cache is needed, which is "
                  "larger than the available KV cache memory (2.10 GiB)."],
                 "ValueError", "To serve at least one request"),
    "missing module": (["Traceback (most recent call last):",
                        '  File "/usr/local/lib/python3.10/site-packages/vllm/attention/'
                        'selector.py", line 40, in get_attn_backend',
                        "    import intel_extension_for_pytorch",
                        "ModuleNotFoundError: No module named 'intel_extension_for_pytorch'"],
                       "ModuleNotFoundError", "intel_extension_for_pytorch"),
}
WRAPPERS = ["", "2025-06-20T20:02:20.931456789Z ", "vllm-1  | "]


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def _later_start(era: str, pids: int) -> list[str]:
    if era == "v0":
        return V0_START
    if era == "offline":
        return OFFLINE_START
    later = Server(api=pids, engine=pids + 100, workers=1, day="06-20")
    return later.startup()[:3]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(STOPS)), st.sampled_from(["v0", "offline", "v1 new pids"]),
       st.sampled_from(sorted(FAILURES)), st.integers(0, 25), st.sampled_from(WRAPPERS))
def test_a_start_after_a_stop_begins_the_run_the_report_explains(
        stop: str, era: str, failure: str, served: int, outer: str) -> None:
    earlier = Server(api=3100, engine=3200, workers=2, day="06-19")
    lines = earlier.startup() + earlier.requests(served) + STOPS[stop](earlier)
    begins = len(lines) + 1
    failed, exception, message = FAILURES[failure]
    lines += [*_later_start(era, 5100), *failed]
    report = _explain([outer + line for line in lines])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == exception
    assert message in report.root_cause.message
    assert report.root_cause.line == len(lines)
    explained = [run for run in report.runs if run.explained]
    assert explained and explained[0].start_line >= begins


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(STOPS)), st.sampled_from(sorted(FAILURES)))
def test_a_stop_while_the_deployment_goes_on_talking_keeps_one_run(stop: str,
                                                                   failure: str) -> None:
    """A start printed while the stopped deployment still talks after it (a server that went on
    answering: a stop it did not obey, or a second server's start beside it) is no new
    invocation."""
    earlier = Server(api=3100, engine=3200, workers=2, day="06-19")
    failed, _, _ = FAILURES[failure]
    lines = (earlier.startup() + STOPS[stop](earlier) + V0_START + failed
             + earlier.requests(12))
    report = _explain(lines)
    assert len(report.runs) <= 1
