"""Session 32's failing logs called healthy, as classes (issue 10: no failing log called healthy).

1. A container runtime's refusal to start the container, in whichever launcher's report reaches
   the log (grammars/vllm.lark LAUNCHER_ERROR): docker's `Error response from daemon: ...` behind
   a managed service's words (tests/fixtures/tuning/launchers/uu-oci-data-science-model-
   deployment-vllm-image-bootstrap-nvidia-container-cli-cuda-118-oneline: OCI Data Science's
   `Errors occurred while bootstrapping the Model Deployment: Start Container Error: ...`),
   containerd's and runc's chain in a pod's events or `kubectl describe`, nerdctl's, ctr's.
   An exception that carries such a text keeps its own line (ECS's CannotStartContainerError).
2. A request whose completion budget alone fills the model's context (`'max_tokens' or
   'max_completion_tokens' is too large: 8192. This model's maximum context length is 8192
   tokens ...`): no prompt of that client fits, every request it sends fails; not one request
   refused by design (causality.yaml `requests.clients`; tests/fixtures/tuning/runtime/
   ss-mineru-vllm-v0112-container-timestamped-max-tokens-too-large-8192-context-oneline). A prompt
   too long for the context beside a small budget stays the client's request refused
   (tests/fixtures/tuning/healthy/o-specreason-v1-serving-chat-request-over-8192-context-
   rejected-oneline), and either is survived when the server goes on serving.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

# ---- 1. container start refused ------------------------------------------------------------------

HOOK = ("OCI runtime create failed: runc create failed: unable to start container process: error "
        "during container init: error running hook #0: error running hook: exit status 1, "
        "stdout: , stderr: Auto-detected mode as 'legacy' nvidia-container-cli: requirement "
        "error: unsatisfied condition: cuda>={cuda}, please update your driver to a newer "
        "version, or use an earlier cuda container: unknown")
DEVICE = "could not select device driver \"\" with capabilities: [[gpu]]"
# the launcher's words before the runtime's error (docker, compose, kubelet, kubectl, nerdctl,
# ctr, a managed service), each as it prints the chain
LEADS = st.sampled_from([
    "docker: Error response from daemon: failed to create task for container: failed to create "
    "shim task: {chain}",
    "Error response from daemon: {chain}",
    "  Warning  Failed     10s (x3 over 40s)  kubelet            Error: failed to create "
    "containerd task: failed to create shim task: {chain}",
    "      Message:      failed to create containerd task: failed to create shim task: {chain}",
    "FATA[0000] failed to create shim task: {chain}",
    "ctr: failed to create shim task: {chain}",
    "Errors occurred while bootstrapping the Model Deployment: Start Container Error: unable to "
    "start container: Error response from daemon: {chain}",
    "Error: OCI runtime error: crun: error executing hook `/usr/bin/nvidia-container-toolkit` "
    "(exit code: 1)",
])
CHAINS = st.sampled_from([HOOK.format(cuda="11.8"), HOOK.format(cuda="12.4"),
                          f"Error response from daemon: {DEVICE}"])
WRAPPERS = st.sampled_from(["", "2025-06-01T10:11:35.123456789Z ", "[pod/vllm-0] ",
                            "Jun 01 10:11:35 gpu-node-3 dockerd[812]: "])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(LEADS, CHAINS, WRAPPERS)
def test_a_refused_container_start_is_the_failure(lead: str, chain: str, wrapper: str) -> None:
    line = lead.format(chain=chain)
    report = explain_text(f"{wrapper}{line}\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1
    assert report.root_cause.exception == "launcher error"


def test_an_exception_carrying_the_refusal_keeps_its_class() -> None:
    line = f"CannotStartContainerError: Error response from daemon: {HOOK.format(cuda='12.4')}"
    report = explain_text(line + "\n")
    assert report.root_cause is not None
    assert report.root_cause.exception == "CannotStartContainerError"


def test_the_refusal_before_a_start_that_served_leaves_the_last_run_healthy() -> None:
    # counter-evidence: the launcher tried again and vLLM started and served
    lines = [f"Error response from daemon: {DEVICE}",
             "INFO 02-05 10:11:31 [api_server.py:100] vLLM API server version 0.9.2",
             "INFO 02-05 10:11:39 [api_server.py:100] Starting vLLM API server on "
             "http://0.0.0.0:8000",
             "INFO:     Application startup complete.",
             *["INFO:     127.0.0.1:50100 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"] * 3]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


# ---- 2. a completion budget that fills the context ---------------------------------------------

def _v011(budget: int, context: int, prompt: int) -> str:
    return (f"'max_tokens' or 'max_completion_tokens' is too large: {budget}. This model's maximum "
            f"context length is {context} tokens and your request has {prompt} input tokens "
            f"({budget} > {context} - {prompt}).")


def _v08(budget: int, context: int, prompt: int) -> str:
    return (f"This model's maximum context length is {context} tokens. However, you requested "
            f"{budget + prompt} tokens ({prompt} in the messages, {budget} in the completion). "
            "Please reduce the length of the messages or completion.")


def _v02x(budget: int, context: int, prompt: int) -> str:
    return (f"This model's maximum context length is {context} tokens. However, you requested "
            f"{budget} output tokens and your prompt contains at least {prompt} input tokens, for "
            f"a total of at least {budget + prompt} tokens. Please reduce the length of the input "
            "prompt or the number of requested output tokens.")


FORMS = st.sampled_from([_v011, _v08, _v02x])
HEADS = st.sampled_from(["(APIServer pid=1) ERROR 04-28 14:17:50 [serving_chat.py:257] ",
                         "ERROR 05-08 21:27:27 [serving_chat.py:198] ",
                         "2026-04-28T14:17:50.089230833+08:00 (APIServer pid=1) ERROR 04-28 "
                         "14:17:50 [serving_completion.py:157] "])
SERVED = ["INFO:     127.0.0.1:50100 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
          "INFO 04-28 14:17:55 [loggers.py:100] Engine 000: Avg prompt throughput: 120.4 tokens/s, "
          "Avg generation throughput: 300.2 tokens/s, Running: 2 reqs, Waiting: 0 reqs"]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(FORMS, HEADS, st.sampled_from([2048, 8192, 32768]), st.integers(0, 4096),
       st.integers(1, 3000))
def test_a_budget_that_fills_the_context_fails_every_request(form, head: str, context: int,
                                                             extra: int, prompt: int) -> None:
    line = head + "ValueError: " + form(context + extra, context, prompt)
    report = explain_text(line + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


@settings(max_examples=30, deadline=None, derandomize=True)
@given(FORMS, HEADS, st.sampled_from([2048, 8192, 32768]), st.integers(1, 1024))
def test_a_prompt_too_long_beside_a_small_budget_is_the_request_refused(
        form, head: str, context: int, budget: int) -> None:
    line = head + "ValueError: " + form(budget, context, context - budget // 2)
    assert explain_text(line + "\n").verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None, derandomize=True)
@given(FORMS, HEADS, st.sampled_from([2048, 8192]), st.integers(1, 3000))
def test_a_budget_error_the_server_goes_on_from_is_survived(form, head: str, context: int,
                                                            prompt: int) -> None:
    # counter-evidence: other requests served after it
    line = head + "ValueError: " + form(context, context, prompt)
    prefix = head.split("ERROR")[0]  # the same server's output
    served = [prefix + text for text in SERVED * 2]
    assert explain_text("\n".join([line, *served]) + "\n").verdict is Verdict.NO_FAILURE


# ---- 3. an error record's head quoted inside a JSON line ----------------------------------------
# Where the head is a string's text (after words of that string: a request body, a ticket, a
# structured log's field), the line is text; where a string's value begins with the record (a
# collector relaying the line whole) or no string is open (a paste that glued records), the
# record is read (grammar.py embedded_exception `_mid_string`, vllm.lark CUT_RECORD_HEADER,
# GLUED_RECORD).

RECORDS = st.sampled_from([
    "ERROR 05-01 10:00:00 [engine.py:160] ValueError: boom",
    "ERROR 05-01 10:00:00 [core.py:12] EngineCore hit an exception: Traceback (most recent call "
    "last):",
    "(EngineCore_DP0 pid=7) ERROR 05-01 10:00:00 [core.py:12] RuntimeError: CUDA error: out of "
    "memory",
    "ERROR 05-01 10:00:00 [core.py:12] Traceback (most recent call last):",
])
QUOTINGS = st.sampled_from([
    '{{"level":"info","msg":"ticket text: {r}"}}',
    '{{"timestamp": "2025-06-01T10:00:00Z", "level": "INFO", "message": "request body: '
    '{{\\"messages\\": [{{\\"role\\": \\"user\\", \\"content\\": \\"why does vllm print {r}\\"}}]}}"}}',
    '{{"event": "chat", "body": "{{\\"content\\": \\"{r}\\"}}", "level": "info"}}',
    '{{"level":"info","msg":"user said {r} and more"}}',
])
HEALTHY_AROUND = ["INFO 05-01 09:59:00 [api_server.py:1] Starting vLLM API server on "
                  "http://0.0.0.0:8000", "INFO:     Application startup complete."]
ANSWER = 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK'


@settings(max_examples=40, deadline=None, derandomize=True)
@given(RECORDS, QUOTINGS, st.booleans())
def test_a_record_quoted_in_a_json_string_is_text(record: str, quoting: str,
                                                  answered: bool) -> None:
    line = quoting.format(r=record)
    lines = [*HEALTHY_AROUND, line, *([ANSWER] if answered else [])]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE, line


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from([
    "ERROR 05-01 10:00:00 [engine.py:160] ValueError: boom",
    "(EngineCore_DP0 pid=7) ERROR 05-01 10:00:00 [core.py:12] RuntimeError: CUDA error: out of "
    "memory",
]), st.sampled_from([
    "{r}",  # the record itself
    "INFO 05-01 10:00:00 [logger.py:39] Finished request chatcmpl-1. {r}",  # a paste glued it on
    '{{"level":"info","log":"{r}"}}',  # a collector's relay: the value is the record's line
]))
def test_a_record_not_quoted_by_words_is_the_failure(record: str, form: str) -> None:
    line = form.format(r=record)
    report = explain_text("\n".join([*HEALTHY_AROUND, line]) + "\n")
    assert report.verdict is Verdict.FAILURE, line
    assert report.root_cause is not None and report.root_cause.line == 3


# ---- 4. `docker ps -a`'s row wrapped by a narrow terminal ----------------------------------------
# The status column begins a row of its own (the failure probe's one hard-wrapped launcher miss):
# a non-zero exit is the exit report it is on the whole row; 0, 137 and 143 (a stop or a kill
# asked for) and a running container are not.

ROW = '3f4e5a6b7c8d   vllm/vllm-openai:latest   "vllm serve Qwen/Qwe…"   5 minutes ago'
STARTED = "INFO 02-05 10:11:34 [gpu_model_runner.py:100] Starting to load model Qwen/Qwen3-8B..."


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.sampled_from(["Exited (1) 2 minutes ago", "Restarting (139) 5 seconds ago",
                        "Exited (-11) About a minute ago"]), st.sampled_from(["  ", "    "]))
def test_a_wrapped_status_row_of_a_failed_container_is_its_exit(status: str, indent: str) -> None:
    text = "\n".join([STARTED, ROW, f"{indent}{status}             vllm"]) + "\n"
    assert explain_text(text).verdict is not Verdict.NO_FAILURE


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.sampled_from(["Exited (0) 2 minutes ago", "Exited (137) 2 minutes ago",
                        "Exited (143) 5 seconds ago", "Up 2 minutes"]))
def test_a_wrapped_status_row_of_a_stop_or_a_running_container_is_none(status: str) -> None:
    text = "\n".join([STARTED.replace("Starting to load model Qwen/Qwen3-8B...",
                                      "Model loading took 14.25 GiB and 4.02 seconds"),
                      "INFO:     Application startup complete.",
                      'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                      ROW, f"  {status}             vllm"]) + "\n"
    assert explain_text(text).verdict is Verdict.NO_FAILURE
