"""A SIGKILL whose report names no reason, after the run was up and while it was idle
(causality.yaml `idle_kills`).

A shell's job report (`./serve.sh: line 193: 124064 Killed   vllm serve ...`, `[1]+  Killed`),
systemd's `status=9/KILL`, an exit code 137, a bare `Killed`: after the server started, its last
activity an answered poll, a refused request or nothing since it was ready (errors it went on
from before), it is how an operator's `kill -9`, a wrapper's timeout or `docker stop` past its
grace period end an idle server, as an operator's SIGTERM is. Right after output served it stays
the failure (under load, most often the host's OOM killer), and so it does before start-up
completed (a process killed while it loads); a report that names memory is the OOM killer's at
any time. An error the server did not survive before the kill stays the root.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import Server

COMMANDS = ['vllm serve "$MODEL" --dtype auto --gpu-memory-utilization 0.5 --max-model-len 512',
            "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B",
            "python serve.py"]
# every shape of a SIGKILL report that names no reason (grammars/vllm.lark KILL_REPORT and
# SHELL_SIGNAL); each takes the command line it killed
BARE_KILLS = [
    lambda cmd: f"./tools/vllm/vllm_local_serve.sh: line 193: 124064 Killed                  {cmd}",
    lambda cmd: f"[1]+  Killed                  {cmd}",
    lambda cmd: f"zsh: killed     {cmd}",
    lambda cmd: "Killed",
    lambda cmd: "vllm.service: Main process exited, code=killed, status=9/KILL",
    lambda cmd: "vllm-1 exited with code 137",
]
MEMORY_KILLS = [
    "[ 2448.628970] Out of memory: Killed process 124064 (python3) total-vm:69420kB, "
    "anon-rss:2111980kB, file-rss:2412kB, shmem-rss:0kB, UID:1000 pgtables:5204kB",
    "    Reason:       OOMKilled",
    "vllm.service: Failed with result 'oom-kill'.",
]
AFTER = ["", "[rank0]:[W927 00:32:19.446476778 ProcessGroupNCCL.cpp:1479] Warning: WARNING: "
         "destroy_process_group() was not called before program exit, which can leak resources."]
WRAPPERS = ["", "2025-09-26T23:39:00.123Z ", "vllm-1  | "]


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def _worked(server: Server, probe_errors: bool, work: str) -> list[str]:
    lines = server.startup()
    if probe_errors:  # handled errors before the server came up (a Hub probe's retries)
        lines[2:2] = [server.api_line("ERROR", "config.py:130", "Error retrieving safetensors: "
                                      "Cannot reach https://hf-mirror.com/m/resolve/main/model."
                                      "safetensors: offline mode is enabled.")] * 2
    lines += {"served": server.requests(3), "polled": server.polls(2),
              "refused": [f'(APIServer pid={server.api}) INFO:     127.0.0.1:60871 - "GET / '
                          'HTTP/1.1" 404 Not Found'], "idle": []}[work]
    return lines


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(BARE_KILLS), st.sampled_from(COMMANDS), st.booleans(),
       st.sampled_from(["served then polled", "polled", "refused", "idle"]),
       st.sampled_from(AFTER), st.sampled_from(WRAPPERS))
def test_a_bare_sigkill_of_an_idle_server_ends_a_working_run(
        kill, command: str, probe_errors: bool, work: str, after: str, wrapper: str) -> None:
    server = Server()
    lines = [*_worked(server, probe_errors, "served" if work.startswith("served") else work),
             *(server.polls(2) if work.startswith("served") else []), wrapper + kill(command),
             *([after] if after else [])]
    report = _explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, (lines[-2:], report.verdict)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(BARE_KILLS), st.sampled_from(COMMANDS), st.booleans(),
       st.sampled_from(WRAPPERS))
def test_a_bare_sigkill_right_after_output_served_is_the_failure(
        kill, command: str, probe_errors: bool, wrapper: str) -> None:
    lines = [*_worked(Server(), probe_errors, "served"), wrapper + kill(command)]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE, (lines[-2:], report.verdict)
    assert report.root_cause is not None and report.root_cause.line == len(lines)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(BARE_KILLS), st.sampled_from(COMMANDS), st.sampled_from(WRAPPERS))
def test_a_bare_sigkill_before_start_up_completed_is_the_failure(kill, command: str,
                                                                 wrapper: str) -> None:
    lines = [*Server().startup()[:4], wrapper + kill(command)]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(lines)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(MEMORY_KILLS), st.sampled_from(["served", "polled", "idle"]))
def test_a_kill_that_names_memory_is_the_oom_killers_after_start_up_too(kill: str,
                                                                        work: str) -> None:
    lines = [*_worked(Server(), False, work), kill]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE, lines[-1]
    assert report.root_cause is not None and report.root_cause.line == len(lines)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(BARE_KILLS), st.sampled_from(COMMANDS))
def test_an_error_the_server_did_not_survive_before_the_kill_stays_the_root(kill,
                                                                           command: str) -> None:
    server = Server()
    error = server.worker_runtime_error(0, ["RuntimeError: CUDA error: an illegal memory access "
                                            "was encountered"])
    lines = [*_worked(server, False, "served"), *error, kill(command)]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
