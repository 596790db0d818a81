"""A rank that torch elastic's agent reports killed, with nothing in the log saying why.

torchrun, `accelerate launch` and DeepSpeed's launcher run one process per rank under torch
elastic's agent. When a rank dies of a signal the agent says so (`failed (exitcode: -9) local_rank:
0 (pid: N) of binary: ...`), stops the other ranks (`Sending process N closing signal SIGTERM`) and
raises ChildFailedError, whose message is a report (`Failures:`, `Root Cause (first observed
failure):`, `traceback : Signal 9 (SIGKILL) received by PID N`). The agent supervised the rank; it
did not kill it and does not know who did (the host's OOM killer, a scheduler, a user), as vLLM's
executor does not when it says `Worker proc X died unexpectedly`. With no error of the rank's own
and no kill report of the kernel's, the cause is not in the log: `root_cause_missing`, every line
of the agent's a symptom (grammars/vllm.lark EXIT_REPORT; tests/fixtures/tuning, launchers/bb-
accelerate-deepspeed-agent-grpo-trainer-rank0-sigkill-exitcode-9-symptom). A report that names
memory before it (the kernel's OOM killer) or the rank's own traceback stays the root.

The ChildFailedError report's `Failures:` heading is part of its message (Python printed the
exception's name alone, the message on the lines below: assemble.py `_message_below`), not an
exception of its own.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

# what the ranks print while they work (a trainer's progress, its own output)
WORK = [
    "INFO 06-11 20:18:26 [__init__.py:239] Automatically detected platform cuda.",
    "[2025-06-11 20:18:30,421] [INFO] [real_accelerator.py:254:get_accelerator] Setting "
    "ds_accelerator to cuda (auto detect)",
    "  0%|          | 1/1000 [01:10<19:42:36, 71.10s/it]",
    "{'loss': 0.016, 'grad_norm': 0.37106495946941137, 'learning_rate': 1e-07, 'epoch': 0.0}",
    "  0%|          | 2/1000 [02:22<19:42:36, 71.10s/it]",
    "Parsed content: namespace(crop=None, answer=None)",
]
# the agent's logger in torch's eras: glog-style (2.5+), its own format, Python's default format
AGENT = [
    "{level}0611 20:21:47.588000 3941626 site-packages/torch/distributed/elastic/multiprocessing/"
    "api.py:869] {text}",
    "[2024-06-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [{word}] {text}",
    "{word}:torch.distributed.elastic.multiprocessing.api:{text}",
]
SIGNALS = [(9, "SIGKILL"), (11, "SIGSEGV"), (6, "SIGABRT")]
WRAPPERS = ["{}", "2025-06-11T20:21:47.123456789Z {}", "trainer-1  | {}", "0: {}"]


def _agent(form: str, level: str, text: str) -> str:
    word = {"E": "ERROR", "W": "WARNING"}[level]
    return form.format(level=level, word=word, text=text)


def _child_failed(pid: int, signal: tuple[int, str], others: int) -> list[str]:
    """ChildFailedError's report as torch prints it (errors/__init__.py's message template)."""
    other = ["  <NO_OTHER_FAILURES>"] if not others else [
        line for i in range(1, others + 1) for line in (
            f"[{i}]:", "  time      : 2025-06-11_20:21:46", "  host      : node-1",
            f"  rank      : {i} (local_rank: {i})", f"  exitcode  : -15 (pid: {pid + i})",
            "  error_file: <N/A>", f"  traceback : Signal 15 (SIGTERM) received by PID {pid + i}")]
    return [
        "Traceback (most recent call last):",
        '  File "/env/bin/accelerate", line 10, in <module>',
        "    sys.exit(main())",
        '  File "/env/lib/python3.12/site-packages/torch/distributed/launcher/api.py", line 269, '
        "in launch_agent",
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "=" * 56, "train.py FAILED", "-" * 56, "Failures:", *other, "-" * 56,
        "Root Cause (first observed failure):", "[0]:", "  time      : 2025-06-11_20:21:46",
        "  host      : node-1", "  rank      : 0 (local_rank: 0)",
        f"  exitcode  : -{signal[0]} (pid: {pid})", "  error_file: <N/A>",
        f"  traceback : Signal {signal[0]} ({signal[1]}) received by PID {pid}", "=" * 56]


def _rank_killed(form: str, rank: int, others: int, cut: int,
                 signal: tuple[int, str] = (9, "SIGKILL")) -> list[str]:
    pid = 3942775
    lines = [_agent(form, "W", f"Sending process {pid + i} closing signal SIGTERM")
             for i in range(1, others + 1)]
    lines.append(_agent(form, "E", f"failed (exitcode: -{signal[0]}) local_rank: {rank} (pid: "
                                   f"{pid}) of binary: /env/bin/python3"))
    report = _child_failed(pid, signal, others)
    return [*lines, *report[:len(report) - cut]]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(AGENT), st.integers(0, 7), st.integers(0, 3),
       st.sampled_from([0, 1, 10, 27]), st.sampled_from(WRAPPERS), st.booleans())
def test_a_rank_the_agent_reports_killed_with_no_cause_is_root_cause_missing(
        form: str, rank: int, others: int, cut: int, wrapper: str, tool_error: bool) -> None:
    work = [*WORK, *(["Error calling tool "] if tool_error else [])]
    lines = [wrapper.format(x) for x in [*work, *_rank_killed(form, rank, others, cut)]]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.root_cause, lines[len(work):])
    assert report.symptoms and report.symptoms[0].line == len(work) + others + 1


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(AGENT), st.integers(0, 3), st.sampled_from([0, 10]),
       st.sampled_from(WRAPPERS), st.sampled_from(SIGNALS))
def test_the_report_the_agent_raises_is_one_exception(
        form: str, others: int, cut: int, wrapper: str, signal: tuple[int, str]) -> None:
    # its `Failures:` heading is part of ChildFailedError's message, never an error of its own
    lines = [wrapper.format(x) for x in [*WORK, *_rank_killed(form, 0, others, cut, signal)]]
    report = explain_text("\n".join(lines) + "\n")
    assert not any(s.exception == "Failures" for s in report.symptoms)
    assert report.root_cause is None


MEMORY_KILLS = [
    "[ 2448.628970] Out of memory: Killed process 3942775 (python3) total-vm:69420kB, "
    "anon-rss:2111980kB, file-rss:2412kB, shmem-rss:0kB, UID:1000 pgtables:5204kB",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=4412.0. Some of your processes may "
    "have been killed by the cgroup out-of-memory handler.",
]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(AGENT), st.sampled_from(MEMORY_KILLS), st.integers(0, 3))
def test_a_kill_that_names_memory_before_the_agents_report_is_the_root(
        form: str, kill: str, others: int) -> None:
    lines = [*WORK, kill, *_rank_killed(form, 0, others, 0)]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(WORK) + 1


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(AGENT), st.integers(0, 3))
def test_the_ranks_own_error_before_the_agents_report_is_the_root(form: str, others: int) -> None:
    error = ["[rank0]: Traceback (most recent call last):",
             '[rank0]:   File "/work/train.py", line 12, in <module>',
             "[rank0]:     main()",
             "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
             "GPU 0 has a total capacity of 79.10 GiB of which 1.10 GiB is free."]
    lines = [*WORK, *error, *_rank_killed(form, 0, others, 0)]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception.endswith(
        "OutOfMemoryError")
