"""Classes of issue 10 (root cause and verdict) that session 32's development split showed, each
over generated logs of its class, with the same shapes where they are (or are not) the failure.

- **A serverless platform's word that its worker exited.** RunPod's console prints `worker exited
  with exit code 136` (128+8: a signal) above the engine's last record, newest first, and nothing
  else of why. A launcher's exit report (grammars/vllm.lark EXIT_REPORT, a symptom by
  causality.yaml `exited: `): with no error of the program before it, the cause is not in the log
  (tests/fixtures/tuning: i-runpod-serverless-worker-exit-code-136-after-added-request-symptom).
  An error before it is the root; exit code 137 is a kill (KILL_REPORT), a failure of its own;
  exit code 0 is no failure.
- **The front end's start-up wait that ran out.** `TimeoutError: Timed out waiting for engines to
  send initial message on input socket.` (vLLM 0.9.2-0.16) is the wait that 0.17 on words `Timed
  out waiting for engine core processes to start. This is often caused by slow weight loading
  ...`, raised at the same place (MPClient.__init__): an engine alive and not ready in time. It is
  the failure in either wording (alone, after the start-up's first lines, while weight loading
  still prints), not a report of one; an engine's own error before it is the root
  (tests/fixtures/tuning: ii-ascend-v0160-ci-163-shard-weight-loading-engine-ready-timeout-oneline).
- **A kernel assertion whose only trace is the assertion.** An AscendC kernel's `[ASSERT] ...
  Assertion `...' Index N out of range[0 M)!` lines under the vector cores' `DumpHead:` lines, no
  Python exception: the first assertion is the root, whatever the cores' order and repeats, and
  stays the root when the host's error follows it (tests/fixtures/tuning: cc-ascend-v0130-a3-pcp-
  dcp-long-sequence-chunked-prefill-gather-v3-assert-only, relabelled to its twins' name).
- **A crash loop in a `grep -n` of a journal.** Every attempt fails the free-memory check because
  another process holds the device; the last failed attempt's copy is the root and the report's
  runs say how many failed the same way (tests/fixtures/tuning: t-systemd-gb10-v0271-unified-
  memory-held-by-ollama-...-grep-n-journal, relabelled to the last failed run).
- **A line's number before it.** `grep -n`'s `N:` glued to the line, its context lines' `N-` and
  `--` breaks, `grep -n` over several files (`file:N:`), `cat -n`'s and `nl`'s number and tab
  (grammars/vllm.lark LINE_NUMBER, GREP_FILE): an error record behind any of them is an error,
  a start-up failure keeps its root.
- **A record every earlier run went on past.** A crash loop's start-up prints a harmless ERROR
  record every time (transformers' `[ERROR] `min_frames` ... not documented`, in the same
  tuning case) and the log ends right after the next start's copy: that last run is no failure
  and the last failed run is explained (runs.Recurring). A record that ended an earlier run, or
  that is new in the last one, stays its failure.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import SITE, Server

SOME = settings(max_examples=20, deadline=None)


def explain(lines: list[str]) -> Report:
    return explain_text("".join(f"{line}\n" for line in lines), signatures=default_signatures())


def wrapped(lines: list[str], wrap: str) -> list[str]:
    """Each line as a collector keeps it: as printed, behind docker's time, behind journald's."""
    if wrap == "docker":
        return [f"2025-07-23T16:43:{i % 60:02d}.123456789Z {line}" for i, line in enumerate(lines)]
    if wrap == "journald":
        return [f"Jul 23 16:43:{i % 60:02d} node1 worker.sh[4411]: {line}"
                for i, line in enumerate(lines)]
    return lines


# --- a serverless platform's word that its worker exited -------------------------------------

EXITED = ["worker exited with exit code {c}", "Worker exited with exit code {c}",
          "worker process exited with code {c}", "Worker has exited with status {c}"]
SIGNALLED = st.sampled_from([136, 139, 134, 1, 2, -11])
ENGINE_LAST = [
    "INFO 07-23 16:43:20 [async_llm_engine.py:210] Added request 192c6636b44048959880183d076fb20f.",
    "INFO 07-23 16:43:21 [metrics.py:455] Avg prompt throughput: 0.0 tokens/s, Avg generation "
    "throughput: 12.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache "
    "usage: 0.4%, CPU KV cache usage: 0.0%.",
    "INFO 07-23 16:43:22 [async_llm_engine.py:210] Added request 5a1f0e3c9d2b4e7f8a6b1c0d2e3f4a5b.",
]


def _console(lines: list[str], exit_line: str, shape: str) -> list[str]:
    """RunPod's console: `<worker id>[level]` before each line, newest first; or the same lines
    oldest first with no console tag, or behind docker's or journald's wrapper."""
    if shape == "runpod":
        worker = "0s0n9esxgd0u45"
        tagged = [f"{worker}[info]{line}\\n" for line in lines] + [f"{worker}[error]{exit_line}"]
        return tagged[::-1]
    return wrapped([*lines, exit_line], shape)


@SOME
@given(st.sampled_from(EXITED), SIGNALLED, st.integers(1, 3),
       st.sampled_from(["runpod", "plain", "docker", "journald"]))
def test_a_workers_exit_after_the_engines_last_record_leaves_the_root_out(
        form: str, code: int, records: int, shape: str) -> None:
    lines = _console(ENGINE_LAST[-records:], form.format(c=code), shape)
    report = explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.reasons
    assert report.root_cause is None


@SOME
@given(st.sampled_from(EXITED), SIGNALLED, st.sampled_from(["plain", "docker", "journald"]))
def test_the_workers_own_error_before_its_exit_is_the_root(form: str, code: int,
                                                           shape: str) -> None:
    error = [
        "Traceback (most recent call last):",
        '  File "/src/handler.py", line 41, in handler',
        "    outputs = engine.generate(prompt, params, request_id)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    lines = wrapped([*ENGINE_LAST, *error, form.format(c=code)], shape)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == len(ENGINE_LAST) + len(error)


@SOME
@given(st.sampled_from(EXITED), st.sampled_from(["runpod", "plain", "docker"]))
def test_a_workers_exit_137_is_a_kill_and_exit_0_no_failure(form: str, shape: str) -> None:
    killed = explain(_console(ENGINE_LAST, form.format(c=137), shape))
    assert killed.verdict is Verdict.FAILURE
    assert killed.root_cause is not None and killed.root_cause.exception == "Killed"
    assert explain(_console(ENGINE_LAST, form.format(c=0), shape)).verdict is Verdict.NO_FAILURE


# --- the front end's start-up wait that ran out ----------------------------------------------

WAIT_TIMEOUTS = [
    "TimeoutError: Timed out waiting for engines to send initial message on input socket.",
    "TimeoutError: Timed out waiting for engines to sendinitial message on input socket.",
    "TimeoutError: Timed out waiting for engine core processes to start. This is often caused "
    "by slow weight loading for large models. Waited 600s (configured by "
    "VLLM_ENGINE_READY_TIMEOUT_S). To increase the timeout, set the environment variable: "
    "VLLM_ENGINE_READY_TIMEOUT_S=<seconds>",
]


def _raised(server: Server, timeout: str) -> list[str]:
    prefix = f"(APIServer pid={server.api})"
    return [f"{prefix} Traceback (most recent call last):",
            f'{prefix}   File "{SITE}/v1/engine/core_client.py", line 541, in __init__',
            f"{prefix}     raise TimeoutError(",
            f"{prefix} {timeout}"]


def _loading(server: Server, shards: int, waits: bool = False) -> list[str]:
    """The engine's worker still loading a large checkpoint when the wait ran out; `waits`: the
    API server's wait lines interleaved with the bars (every 10 s, 0.9+)."""
    lines: list[str] = []
    for n in range(20, 20 * shards + 1, 20):
        lines.append(f"(Worker_TP0 pid={server.workers[0]}) Loading safetensors checkpoint shards:"
                     f" {100 * n // 163:3d}% Completed | {n}/163 [{n // 6:02d}:00<20:00, 4.1s/it]")
        if waits:
            lines.append(server.api_line("INFO", "utils.py:862", "Waiting for 1 local, 0 remote "
                                         "core engine proc(s) to start."))
    return lines


@SOME
@given(st.sampled_from(WAIT_TIMEOUTS), st.sampled_from(["alone", "raw", "started", "loading",
                                                        "interleaved"]),
       st.integers(1, 7), st.sampled_from(["plain", "docker", "journald"]), st.booleans())
def test_a_start_up_wait_that_ran_out_is_the_failure(timeout: str, before: str, shards: int,
                                                     shape: str, cut: bool) -> None:
    s = Server()
    if cut:  # the paste cut the message after its first words
        timeout = timeout[:timeout.index(" waiting") + len(" waiting for engine")]
    if before == "alone":  # the paste of the one line (the case)
        lines = [timeout]
    elif before == "raw":  # the traceback only
        lines = _raised(s, timeout)
    elif before == "started":  # the server's and the engine's first lines, then silence
        lines = s.startup()[:3] + _raised(s, timeout)
    else:  # weight loading still printing (the server's waits between the bars or not)
        lines = s.startup()[:3] + _loading(s, shards, before == "interleaved") \
            + _raised(s, timeout)
    report = explain(wrapped(lines, shape))
    assert report.verdict is Verdict.FAILURE, report.reasons
    root = report.root_cause
    assert root is not None and root.exception == "TimeoutError", root
    assert root.line == len(lines)


@SOME
@given(st.sampled_from(WAIT_TIMEOUTS), st.integers(0, 4),
       st.sampled_from(["plain", "docker", "journald"]))
def test_an_engines_error_before_the_wait_ran_out_is_the_root(timeout: str, shards: int,
                                                              shape: str) -> None:
    s = Server()
    failed = s.free_memory_startup_failure()[:-4]  # the engine core's record, not the server's
    lines = s.startup()[:3] + _loading(s, shards) + failed + _raised(s, timeout)
    report = explain(wrapped(lines, shape))
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "ValueError", root
    assert "Free memory on device" in root.message


# --- a kernel assertion whose only trace is the assertion ------------------------------------

def _dump_head(core: int) -> str:
    return (f"DumpHead: AIV-{core}, CoreType=AIV, block dim=48, total_block_num=48, "
            "block_remain_len=640, block_initial_space=1024, rsv=0, magic=5aa5bccd")


def _assertion(index: int, size: int, kernel: str) -> str:
    return (f"[ASSERT] [CANN_VERSION : 8.5.0][TimeStamp : 0] /usr/local/Ascend/8.5.0/opp/built-in/"
            f"op_impl/ai_core/tbe/impl/dynamic/../ascendc/{kernel}/{kernel}_base.h:137: Assertion "
            f"`(0 <= val && val < this->gxSize_)' Index {index} out of range[0 {size})!")


@SOME
@given(st.lists(st.tuples(st.integers(0, 47), st.integers(0, 9)), min_size=1, max_size=12),
       st.sampled_from(["gather_v3", "scatter_elements", "index_put"]),
       st.booleans(), st.sampled_from(["plain", "docker"]))
def test_the_first_kernel_assertion_is_the_root(cores: list[tuple[int, int]], kernel: str,
                                                host_error: bool, shape: str) -> None:
    lines: list[str] = []
    for core, past in cores:
        lines += [_dump_head(core), _assertion(72 + past, 72, kernel)]
    if host_error:  # the host's copy of the step's output fails after the core trapped
        lines += ["Traceback (most recent call last):",
                  '  File "/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py", '
                  "line 2310, in execute_model",
                  "    sampled_token_ids = sampled_token_ids.tolist()",
                  "RuntimeError: ACL stream synchronize failed, error code:507035"]
    report = explain(wrapped(lines, shape))
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line == 2, root
    assert f"Index {72 + cores[0][1]} out of range[0 72)" in root.message


def test_the_dump_heads_alone_are_no_failure() -> None:
    # the vector cores' dump headers print with every kernel dump, failed or not
    assert explain([_dump_head(core) for core in (27, 28, 29)]).verdict is Verdict.NO_FAILURE


# --- a crash loop in a `grep -n` of a journal ---------------------------------------------

@SOME
@given(st.integers(2, 4), st.booleans(), st.booleans(), st.booleans())
def test_a_crash_loop_in_a_grep_of_the_journal_is_explained_by_its_last_attempt(
        attempts: int, numbered: bool, own_pids: bool, next_start: bool) -> None:
    lines: list[str] = []
    for run in range(attempts):
        s = Server(api=959000 + 300 * run, engine=959100 + 300 * run)
        s.second = 30 * run
        lines += s.startup()[:3] + s.free_memory_startup_failure()
    if next_start:  # the next restart's first line, where `head` cut the output
        s = Server(api=959000 + 300 * attempts, engine=959100 + 300 * attempts)
        s.second = 30 * attempts
        lines += s.startup()[:1]

    def unit(line: str) -> str:  # journald's tag: the unit's script, or each process's own pid
        pid = line.partition("pid=")[2].partition(")")[0] if own_pids else ""
        return f"qwen-nvfp4.sh[{pid or 959000}]"

    journal = [f"Aug 24 01:02:{i % 60:02d} dgx {unit(line)}: {line}"
               for i, line in enumerate(lines)]
    if numbered:  # grep -n over the journal: each line behind its number in the journal
        journal = [f"{7 * i + 3}:{line}" for i, line in enumerate(journal)]
    report = explain(journal)
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "ValueError", root
    failed = [i + 1 for i, line in enumerate(lines) if "ValueError: Free memory" in line]
    assert len(failed) == attempts and root.line == failed[-1], (failed, root.line)
    assert [run.same_failure for run in report.runs if run.verdict is Verdict.FAILURE] == \
        [attempts] * attempts


# --- a line's number before it (grep -n, its context lines, cat -n, nl) --------------------

def numbered(lines: list[str], form: str) -> list[str]:
    """Each line behind its number as a tool that numbers lines prints it: `grep -n` (`N:`), its
    context lines (`N-` before the lines around a match, `--` between groups), `grep -n` over
    several files (`file:N:`), `cat -n` and `nl` (the number right-aligned, a tab)."""
    if form == "grep":
        return [f"{7 * i + 3}:{line}" for i, line in enumerate(lines)]
    if form == "context":  # every third line matched, the others context, a group break before
        out = []
        for i, line in enumerate(lines):
            if i and i % 5 == 0:
                out.append("--")
            out.append(f"{i + 40}{':' if i % 3 == 2 else '-'}{line}")
        return out
    if form == "files":
        return [f"/var/log/vllm/serve.log.1:{i + 1}:{line}" for i, line in enumerate(lines)]
    return [f"{i + 1:6d}\t{line}" for i, line in enumerate(lines)]  # cat -n, nl


NUMBERED = ["grep", "context", "files", "cat"]
# records printed as errors with no exception: a relayed level (transformers' logger), vLLM's
# own record, Python's default format
BARE_ERRORS = [
    "[ERROR] `min_frames` is part of Qwen3VLVideoProcessorInitKwargs, but not documented. Make "
    "sure to add it to the docstring of the function in /x/video_processing_qwen3_vl.py.",
    "ERROR 08-24 01:02:18 [loader.py:88] Could not read the tokenizer config of /models/qwen3-8b",
    "2025-08-24 01:02:18,123 - vllm.engine - ERROR - engine loop stopped: worker not responding",
]


@SOME
@given(st.sampled_from(BARE_ERRORS), st.sampled_from(NUMBERED),
       st.sampled_from(["plain", "journald", "docker"]), st.integers(0, 3))
def test_an_error_record_behind_a_line_number_is_an_error(record: str, form: str, shape: str,
                                                          before: int) -> None:
    s = Server()
    lines = numbered(wrapped([*s.startup()[:before], record], shape), form)
    report = explain(lines)
    assert report.verdict is not Verdict.NO_FAILURE, (lines, report.reasons)
    root = report.root_cause
    assert root is not None and root.line == len(lines), root


@SOME
@given(st.sampled_from(NUMBERED), st.sampled_from(["plain", "journald"]), st.integers(0, 3))
def test_a_numbered_start_up_failure_has_its_root(form: str, shape: str, before: int) -> None:
    s = Server()
    plain = wrapped(s.startup()[:before + 1] + s.free_memory_startup_failure(), shape)
    lines = numbered(plain, form)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "ValueError", root
    at = next(i for i, line in enumerate(lines, 1) if "ValueError: Free memory" in line)
    assert root.line == at


# --- a record the earlier runs of a crash loop printed and went on past ------------------------

def _relayed(server: Server, word: str) -> str:
    return (f"(APIServer pid={server.api}) [ERROR] `{word}` is part of "
            "Qwen3VLVideoProcessorInitKwargs, but not documented. Make sure to add it to the "
            "docstring of the function in /x/transformers/models/qwen3_vl/video_processing.py.")


RECURRING = {  # a harmless record of every start-up, as each process prints it
    "relayed": lambda s: [_relayed(s, "min_frames"), _relayed(s, "max_frames")],
    "worker": lambda s: s.worker_benign_startup_error(),
    "logged": lambda s: [s.api_line("ERROR", "chat_utils.py:512", "Failed to load the chat "
                                    "template of /models/qwen3-8b: using the tokenizer's default")],
}


def _crash_loop(attempts: int, record: str, last: str, cut: int) -> tuple[list[str], list[int]]:
    """`attempts` starts that print the record and go on starting, then fail the free-memory
    check; then one more start, the log cut after its copy of the record (`last`: `recurring`)
    or after a record no earlier run printed (`new`), or earlier runs died on the record
    (`killed`: the run before the last went no further). The lines, and each failure's line."""
    lines: list[str] = []
    for run in range(attempts):
        s = Server(api=959000 + 300 * run, engine=959100 + 300 * run)
        s.second = 30 * run
        start = s.startup()
        said = [] if last == "new" else RECURRING[record](s)
        if last == "killed" and run == attempts - 1:
            lines += start[:2] + said  # this run went no further
        else:
            lines += start[:2] + said + start[2:3 + len(s.workers)] + \
                s.free_memory_startup_failure()
    s = Server(api=959000 + 300 * attempts, engine=959100 + 300 * attempts)
    s.second = 30 * attempts
    lines += s.startup()[:cut] + RECURRING[record](s)
    failed = [i + 1 for i, line in enumerate(lines) if "ValueError: Free memory" in line]
    return lines, failed


LAYOUTS = ["plain", "journald", "grep-journal", "cat"]


def _laid_out(lines: list[str], layout: str) -> list[str]:
    if layout == "plain":
        return lines
    if layout == "cat":
        return numbered(lines, "cat")
    journal = wrapped(lines, "journald")
    return numbered(journal, "grep") if layout == "grep-journal" else journal


@SOME
@given(st.integers(2, 4), st.sampled_from(sorted(RECURRING)), st.integers(1, 2),
       st.sampled_from(LAYOUTS))
def test_a_record_every_earlier_run_went_on_past_is_no_failure_of_the_cut_last_run(
        attempts: int, record: str, cut: int, layout: str) -> None:
    lines, failed = _crash_loop(attempts, record, "recurring", cut)
    report = explain(_laid_out(lines, layout))
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "ValueError", root
    assert root.line == failed[-1], (failed, root.line)
    assert [run.verdict for run in report.runs] == [Verdict.FAILURE] * attempts + \
        [Verdict.NO_FAILURE]
    assert [run.same_failure for run in report.runs[:-1]] == [attempts] * attempts


@SOME
@given(st.integers(2, 4), st.sampled_from(sorted(RECURRING)), st.integers(1, 2),
       st.sampled_from(LAYOUTS), st.sampled_from(["new", "killed"]))
def test_a_record_new_in_the_last_run_or_that_ended_an_earlier_one_stays_the_failure(
        attempts: int, record: str, cut: int, layout: str, last: str) -> None:
    lines, _ = _crash_loop(attempts, record, last, cut)
    report = explain(_laid_out(lines, layout))
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    last_start = len(lines) - len(RECURRING[record](Server())) - cut
    assert root is not None and root.line > last_start, (root, last_start)
    assert report.runs[-1].verdict is Verdict.FAILURE and report.runs[-1].explained
