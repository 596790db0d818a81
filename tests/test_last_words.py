"""A run's last words with no traceback above them, in the forms the failure probe
(tools/failure_probe) found read as no error: pytest's last line alone when tests failed, Hydra's
report that its job raised (verl's trainers), absl's `F0000 00:00:<epoch>` header of a check that
failed before logging was set up (XLA, TPU), and Slurm's `sacct` row of a job that failed or ran
out of memory (grammars/vllm.lark LEVEL_LINE, GLOG_HEADER, EXIT_REPORT). Each beside its benign
twin: a summary of passes, a completed job, a time limit (a scheduler's stop).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

MODEL = "Qwen/Qwen2.5-7B-Instruct"
HEADS = st.sampled_from(["", "2025-06-01T10:11:35.123456789Z ", "[2025-06-01T10:11:35Z] "])


def _run(head: str, last: list[str], serving: bool) -> str:
    lines = [f"INFO 02-05 10:11:31 [core.py:100] Initializing a V1 LLM engine (v0.9.2) with "
             f"config: model='{MODEL}', tokenizer='{MODEL}', seed=0",
             "INFO 02-05 10:11:33 [default_loader.py:262] Loading weights took 3.21 seconds"]
    if serving:
        lines += ["INFO 02-05 10:11:40 [api_server.py:1000] Starting vLLM API server on "
                  "http://0.0.0.0:8000",
                  "INFO:     Application startup complete.",
                  'INFO:     127.0.0.1:50100 - "POST /v1/chat/completions HTTP/1.1" 200 OK']
    return "\n".join(head + line for line in lines + last) + "\n"


def _counts(draw: st.DrawFn, bad: bool) -> str:
    """pytest's counts in its order (failed, passed, skipped, ..., errors)."""
    failed = draw(st.integers(0, 3)) if bad else 0
    errors = (draw(st.integers(0 if failed else 1, 2)) if bad else 0)
    parts = [f"{failed} failed"] if failed else []
    parts += [f"{n} {word}" for n, word in ((draw(st.integers(0, 40)), "passed"),
                                           (draw(st.integers(0, 3)), "skipped"),
                                           (draw(st.integers(0, 9)), "warnings")) if n]
    if errors:
        parts.append(f"{errors} error" + ("s" if errors > 1 else ""))
    if not parts:
        parts = ["12 passed"]
    took = draw(st.sampled_from(["120.31s (0:02:00)", "3.02s", "95.10s (0:01:35)"]))
    bar = "=" * draw(st.integers(5, 30))
    return f"{bar} {', '.join(parts)} in {took} {bar}"


@st.composite
def failed_summaries(draw: st.DrawFn) -> str:
    return _counts(draw, True)


@st.composite
def passed_summaries(draw: st.DrawFn) -> str:
    return _counts(draw, False)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(HEADS, failed_summaries(), st.booleans())
def test_pytest_last_line_with_failures_is_a_failure(head: str, summary: str,
                                                     serving: bool) -> None:
    report = explain_text(_run(head, [summary], serving))
    assert report.verdict is not Verdict.NO_FAILURE, summary


@settings(max_examples=15, deadline=None, derandomize=True)
@given(HEADS, passed_summaries(), st.booleans())
def test_pytest_last_line_of_passes_is_a_result(head: str, summary: str, serving: bool) -> None:
    report = explain_text(_run(head, [summary], serving))
    assert report.verdict is Verdict.NO_FAILURE, summary


@settings(max_examples=10, deadline=None, derandomize=True)
@given(HEADS, st.sampled_from([
    "Error executing job with overrides: ['actor_rollout_ref.rollout.name=vllm', "
    "'trainer.n_gpus_per_node=8']",
    "Error executing job with overrides: []",
]), st.booleans())
def test_hydra_job_error_is_a_failure(head: str, line: str, with_hint: bool) -> None:
    last = [line] + (["", "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack "
                      "trace."] if with_hint else [])
    report = explain_text(_run(head, last, False))
    assert report.verdict is not Verdict.NO_FAILURE
    assert report.root_cause is not None and "Error executing job" in report.root_cause.text


@settings(max_examples=10, deadline=None, derandomize=True)
@given(HEADS, st.sampled_from(["F0000 00:00:1748772760.123456", "F0601 10:12:40.123456"]),
       st.sampled_from(["tpu_program.cc:412] Check failed: program.ok() INTERNAL: Failed to "
                        "compile the TPU program",
                        "pjrt_client.cc:2809] Check failed: status.ok() RESOURCE_EXHAUSTED: "
                        "Error allocating device buffer"]))
def test_absl_fatal_check_in_both_header_forms_is_a_failure(head: str, stamp: str,
                                                            rest: str) -> None:
    report = explain_text(_run(head, [f"{stamp}    4201 {rest}",
                                      "*** Check failure stack trace: ***"], False))
    assert report.verdict is not Verdict.NO_FAILURE
    assert report.root_cause is not None and "Check failed" in report.root_cause.text


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.sampled_from(["OUT_OF_MEMORY      0:125", "FAILED      1:0", "NODE_FAIL      0:0",
                        "OUT_OF_ME+      0:125"]), st.booleans())
def test_sacct_row_of_a_failed_job_is_a_failure(state: str, serving: bool) -> None:
    row = f"4412               vllm        gpu   {state}"
    report = explain_text(_run("", ["JobID    JobName  Partition      State ExitCode", row],
                               serving))
    assert report.verdict is not Verdict.NO_FAILURE


def test_sacct_row_of_a_completed_or_cancelled_job_is_no_failure() -> None:
    for state in ("COMPLETED      0:0", "CANCELLED      0:15"):
        report = explain_text(_run("", [f"4412               vllm        gpu   {state}"], True))
        assert report.verdict is Verdict.NO_FAILURE, state


# vLLM's own records whose text says the program goes on (causality.yaml `goes_on`), as the
# message index holds them (a weight loader's, a KV offloader's, an NCCL tuning warning's words)
GOES_ON = st.sampled_from([
    "(VllmWorker rank=0 pid=4201) ERROR 02-05 10:11:34 [ipc_loader.py:88] Weight cache IPC "
    "loading failed; falling back to disk loading",
    "(Worker_TP0 pid=4201) ERROR 02-05 10:11:34 [manager.py:210] KV offload tier-poll thread "
    "stopping after 3.0s of consecutive failures; falling back to per-step servicing.",
    "ERROR 02-05 10:11:34 hpu_model_runner.py:120] The current bucketing configuration would "
    "exceed token budget. Ignoring max_num_batched_tokens and using 8192",
])


@settings(max_examples=12, deadline=None, derandomize=True)
@given(HEADS, GOES_ON)
def test_a_start_up_that_ends_on_a_fallback_record_stopped_there(head: str, record: str) -> None:
    # the step the record says start-up goes on with never printed a line: as a start-up that
    # ends on `Starting to load model`, a stall whose cause is not in the log
    report = explain_text(_run(head, [record], False))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert any("goes on" in symptom.message for symptom in report.symptoms)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(HEADS, GOES_ON, st.sampled_from(["ready", "serving", "warning"]))
def test_a_fallback_record_the_run_went_on_from_is_no_failure(head: str, record: str,
                                                              after: str) -> None:
    # the counter-evidence: start-up completes after it, it comes while serving, or a record of
    # another level (a warning) says it
    if after == "warning":
        report = explain_text(_run(head, [record.replace("ERROR", "WARNING")], False))
    elif after == "ready":
        report = explain_text(_run(head, [record, "INFO 02-05 10:11:40 [api_server.py:1000] "
                                          "Starting vLLM API server on http://0.0.0.0:8000",
                                          "INFO:     Application startup complete."], False))
    else:
        report = explain_text(_run(head, [record], True))
    assert report.verdict is Verdict.NO_FAILURE


EXIT_NOISE = st.sampled_from([
    ["[rank0]:[W601 10:12:40.123456 ProcessGroupNCCL.cpp:1538] Warning: WARNING: "
     "destroy_process_group() was not called before program exit, which can leak resources. For "
     "more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function "
     "operator())"],
    ["/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: "
     "There appear to be 1 leaked semaphore objects to clean up at shutdown",
     "  warnings.warn('resource_tracker: There appear to be %d '"],
])


@settings(max_examples=10, deadline=None, derandomize=True)
@given(HEADS, EXIT_NOISE, st.booleans())
def test_a_start_up_that_ends_on_the_exit_noise_exited_there(head: str, noise: list[str],
                                                             fallback: bool) -> None:
    # (after a fall-back record too: the record said start-up went on, the exit says it did not)
    before = ["(VllmWorker rank=0 pid=4201) ERROR 02-05 10:11:34 [ipc_loader.py:88] Weight "
              "cache IPC loading failed; falling back to disk loading"] if fallback else []
    report = explain_text(_run(head, before + noise, False))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert any("exited there" in symptom.message for symptom in report.symptoms)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(HEADS, EXIT_NOISE, st.sampled_from(["serving", "ctrl-c", "offline"]))
def test_the_exit_noise_after_work_or_a_stop_asked_for_is_no_failure(head: str, noise: list[str],
                                                                     before: str) -> None:
    if before == "serving":
        text = _run(head, noise, True)
    elif before == "ctrl-c":
        text = _run(head, ["^CTraceback (most recent call last):",
                           '  File "/usr/local/bin/vllm", line 8, in <module>',
                           "    sys.exit(main())", "KeyboardInterrupt"] + noise, False)
    else:  # an offline `LLM` that sized its KV cache and finished its batch
        text = _run(head, ["INFO 02-05 10:11:38 [kv_cache_utils.py:700] GPU KV cache size: "
                           "940,176 tokens",
                           "Processed prompts: 100%|##########| 64/64 [00:04<00:00, 15.2it/s, "
                           "est. speed input: 1500.00 toks/s, output: 800.00 toks/s]"] + noise,
                    False)
    assert explain_text(text).verdict is Verdict.NO_FAILURE
