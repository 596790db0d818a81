"""A shell or an exec wrapper that could not start the command it was given (issue 10: the
launcher's own error is an error event): the command not found (bash's exit status 127), or
found and not runnable (126). Every shell's wording (bash interactive, login, `-c` and script;
dash; zsh; fish; sudo), the wrappers that exec a command (nohup, timeout, env, a container
runtime), every wrapper the log itself may carry; alone (a committed log that is only the
shell's line), after a start-up, or at the end after an earlier run served. Bash's job table's
`Exit N` is the same report for a background job. A helper's missing command that the
deployment's later work outlives is no failure.

Sources: bash(1) (COMMAND EXECUTION, EXIT STATUS, JOB CONTROL), dash(1), zsh's and fish's
messages, coreutils' nohup/timeout/env, runc's exec error.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import clean, parse_line

COMMANDS = ["vllm", "python3", "python", "torchrun", "ray", "vllm-server"]
SCRIPTS = ["./serve.sh", "/entrypoint.sh", "/app/start_vllm.sh", "run.sh"]
QUOTES = [("'", "'"), ("\u2018", "\u2019"), ('"', '"')]


def _not_found(shape: int, cmd: str, script: str, n: int, q: tuple[str, str]) -> str:
    return [
        f"{cmd}: command not found",
        f"bash: {cmd}: command not found",
        f"-bash: {cmd}: command not found",
        f"bash: line {n}: {cmd}: command not found",
        f"{script}: line {n}: {cmd}: command not found",
        f"{script}: line {n}: exec: {cmd}: not found",
        f"sudo: {cmd}: command not found",
        f"sh: {n}: {cmd}: not found",
        f"/bin/sh: {n}: exec: {cmd}: not found",
        f"{script}: {n}: {cmd}: not found",
        f"zsh: command not found: {cmd}",
        f"fish: Unknown command: {cmd}",
        f"nohup: failed to run command {q[0]}{cmd}{q[1]}: No such file or directory",
        f"timeout: failed to run command {q[0]}{cmd}{q[1]}: No such file or directory",
        f"nohup: can't execute {q[0]}{cmd}{q[1]}: No such file or directory",
        f"/usr/bin/env: {q[0]}{cmd}{q[1]}: No such file or directory",
        f"env: {q[0]}{cmd}\\r{q[1]}: No such file or directory",
        f"exec /usr/local/bin/{cmd}: no such file or directory",
        "Error: failed to start container \"vllm\": Error: failed to create containerd task: "
        "OCI runtime create failed: runc create failed: unable to start container process: "
        f"exec: \"{cmd}\": executable file not found in $PATH: unknown",
        f"bash: /usr/local/bin/{cmd}: /usr/bin/python3: bad interpreter: No such file or directory",
        f"{script}: line {n}: /opt/venv/bin/{cmd}: cannot execute: required file not found",
        f"/bin/sh: {n}: {script}: not found",
    ][shape]


def _unrunnable(shape: int, cmd: str, script: str, n: int) -> str:
    return [
        f"bash: {script}: Permission denied",
        f"/bin/sh: {n}: {script}: Permission denied",
        f"zsh: permission denied: {script}",
        f"{script}: line {n}: /usr/local/bin/{cmd}: Permission denied",
        f"bash: /usr/local/bin/{cmd}: cannot execute binary file: Exec format error",
        f"exec /usr/local/bin/{cmd}: exec format error",
        f"zsh: exec format error: /usr/local/bin/{cmd}",
    ][shape]


SHELL_LINES = st.one_of(
    st.builds(lambda *a: (_not_found(*a), "command not found"), st.integers(0, 21),
              st.sampled_from(COMMANDS), st.sampled_from(SCRIPTS), st.integers(1, 40),
              st.sampled_from(QUOTES)),
    st.builds(lambda *a: (_unrunnable(*a), "cannot execute"), st.integers(0, 6),
              st.sampled_from(COMMANDS), st.sampled_from(SCRIPTS), st.integers(1, 40)),
)
WRAPPERS = ["", "2025-02-05T10:12:00.123456789Z ", "vllm-1  | ", "Feb 05 10:12:00 gpu1 bash[8052]: ",
            "[pod/vllm-0/vllm] "]
START = ["INFO 02-05 10:11:14 [__init__.py:239] Automatically detected platform cuda.",
         "(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version "
         "0.11.0",
         "(APIServer pid=1) INFO 02-05 10:11:15 [utils.py:233] non-default args: {'model_tag': "
         "'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B'}"]
UP = ["(APIServer pid=1) INFO:     Application startup complete.",
      '(APIServer pid=1) INFO:     127.0.0.1:36936 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      "(APIServer pid=1) INFO 02-05 10:12:15 [loggers.py:116] Engine 000: Avg prompt "
      "throughput: 12.5 tokens/s, Avg generation throughput: 40.1 tokens/s"]


@settings(max_examples=200, deadline=None)
@given(SHELL_LINES, st.sampled_from(WRAPPERS))
def test_a_shell_error_is_one_diagnostic_line(shell: tuple[str, str], wrapper: str) -> None:
    line, label = shell
    parsed = parse_line(clean(wrapper + line))
    assert parsed.kind is LineKind.DIAGNOSTIC, line
    assert parsed.exception == label, line


@settings(max_examples=150, deadline=None)
@given(SHELL_LINES, st.sampled_from(WRAPPERS), st.sampled_from(["alone", "started", "served"]),
       st.booleans())
def test_a_shell_error_that_ends_the_log_is_its_root(shell: tuple[str, str], wrapper: str,
                                                     before: str, echo: bool) -> None:
    """Alone, after a start-up that stopped, or after a run that served (the log's last
    launch failed): the shell's line is the root, and a launcher's exit report after it
    (`exited with code 127`) its symptom, not its message."""
    line, label = shell
    lines = {"alone": [], "started": START[:2], "served": [*START, *UP]}[before]
    lines = [*lines, wrapper + line]
    if echo:
        lines.append(wrapper + "vllm-1 exited with code 127")
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None
    assert report.root_cause.exception == label
    assert report.root_cause.line == (len(lines) - 1 if echo else len(lines)), lines
    assert line.strip() in report.root_cause.message


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["nvidia-smi", "numactl", "jq", "ibstat"]), st.sampled_from(WRAPPERS[:3]),
       st.sampled_from(["bash: {}: command not found", "/bin/sh: 1: {}: not found",
                        "zsh: command not found: {}"]))
def test_a_helper_the_deployment_outlives_is_no_failure(helper: str, wrapper: str,
                                                        shape: str) -> None:
    """An entrypoint probing a tool it may lack (nvidia-smi in a CPU image): the server
    started and served after it."""
    lines = [wrapper + shape.format(helper), *START, *UP]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, lines


@pytest.mark.parametrize(("line", "root"), [
    ("[1]+  Exit 127                vllm serve m", True),
    ("[2]  + 8123 exit 1     python serve.py", True),
    ("[1]+  Exit 130                vllm serve m", False),  # Ctrl-C: a stop asked for
    ("[1]+  Done                    vllm serve m", False),
])
def test_a_job_tables_nonzero_exit_is_an_exit_report(line: str, root: bool) -> None:
    parsed = parse_line(clean(line))
    assert (parsed.kind is LineKind.DIAGNOSTIC and parsed.exception == "exited") is root


@pytest.mark.parametrize("line", [
    "cat: /etc/vllm.conf: No such file or directory",  # another tool's error, not a shell's
    "ls: cannot access 'x': No such file or directory",
    "The command not found page explains PATH lookups.",
    "(APIServer pid=1) INFO 02-05 10:11:15 [x.py:1] nvcc: command not found, using the wheel",
])
def test_what_is_not_a_shells_report(line: str) -> None:
    assert parse_line(clean(line)).kind is not LineKind.DIAGNOSTIC
