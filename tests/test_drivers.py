"""The program that drives vLLM prints its own ERROR records about its task; they are no failure
of vLLM (issue 10; signatures/drivers.yaml, logsleuth/drivers.py).

An evaluation harness (lm-eval, lighteval, a quantisation toolkit's evaluation script), a
benchmark client or an RL trainer logs with a logger of its own, in its own format, and marks at
ERROR what failed *in its task*: a score below a threshold, an answer it could not parse, a metric
it could not compute. Printed unprefixed after the run's engine produced output (the offline
batch finished, a harness's request bar at 100%, a benchmark's count of successful requests),
such a record is that program's judgement of the work it got: the run is `no_failure`.

Counter-evidence keeps `failure`, in both directions:
- the record reports vLLM's failure as the driver saw it (a refused or dropped connection, a 5xx
  answer, a timeout, a request that failed, an engine or server that died, a CUDA error, an
  exception named);
- the record is vLLM's own (its record header, `[core.py:N]`), a logger named for vLLM, or one
  that names a source file's line (torch's glog, native code);
- it comes before any output of the engine (start-up: it may be why nothing was served);
- a vLLM failure printed before the driver's records stays the root.

A driver's usage error (argparse's `prog: error: ...`, click's `Error: No such option`) after the
engine's output is the driver's next invocation failing on its own command line; vLLM's server's
own (`vllm serve: error:`, the top-level `vllm: error:`) is its deployment's exit, and a usage
error with no output of the engine anywhere is what the log shows.

A traceback raised through a harness's or a benchmark client's own code (lm-eval, lighteval,
OpenCompass, GuideLLM, vLLM's benchmark clients) with no frame in vLLM's engine, after the
engine's output, is the harness failing on the answers it got; one through vLLM's engine (a
generate call that raised), one whose exception reports the server's failure (a refused
connection, a 5xx answer) or one before any output stays the failure.

A test runner's session whose summary reports success (pytest's `=== 3 passed, 2 warnings in
52.31s ===`) held only passing tests: the errors printed in it were expected by them (a test of
vLLM's error handling) or gone on from. A summary that counts a failure or an error, and a crash
printed after the summary, stay the failure.

A trainer's Ray actor (a process none of vLLM's roles names: verl's `TaskRunner`) logging in its
own format is such a driver too; an engine core's or a worker's record is vLLM's whatever its
format.

At the exit of an offline program whose last batch finished, CPython's `Fatal Python error: ...
at interpreter shutdown` (a daemon thread still holding stdout's lock) is the exit, no failure
(causality.yaml `offline_exits`); with the batch unfinished it stays the failure.

Also: a terminal's progress bar redrawn over one line for longer than the reader keeps of a line
(64 KiB: an evaluation of a thousand requests) is read as its last drawing, where the harness's
bar says 100% (read.py `_cut_long_lines`).

Generated over driver logger formats, messages, the evidence of output and positions.
(tests/fixtures/tuning/healthy/nn-llm-compressor-v015rc2dev-lm-eval-awq-recovery-threshold-error-
lines-vllm-fine is the real log of the class.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.drivers import load_drivers
from logsleuth.errors import SignatureError
from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

SOME = settings(max_examples=20, deadline=None)

ENGINE = [
    "INFO 01-29 05:21:22 [utils.py:282] non-default args: {'model': 'meta-llama/Llama-3-8B'}",
    "INFO 01-29 05:21:24 [core.py:96] Initializing a V1 LLM engine (v0.15.0) with config: "
    "model='meta-llama/Llama-3-8B'",
    "INFO 01-29 05:21:33 [gpu_model_runner.py:4122] Model loading took 14.96 GiB memory and "
    "4.67 seconds",
    "INFO 01-29 05:21:34 [kv_cache_utils.py:1307] GPU KV cache size: 451,312 tokens",
    "INFO 01-29 05:21:40 [llm.py:343] Supported tasks: ['generate']",
]
# the evidence that the engine produced output, as the driver or vLLM prints it
OUTPUT = [
    "Processed prompts: 100%|██████████| {n}/{n} [01:15<00:00,  1.06it/s]",
    "Running generate_until requests:   0%|   | 0/{n} [00:00<?, ?it/s]\r"
    "Running generate_until requests: 100%|██████████| {n}/{n} [19:15<00:00,  1.16s/it]",
    "Running loglikelihood requests: 100%|██████████| {n}/{n} [02:10<00:00, 7.6it/s]",
    "Successful requests:                     {n}        ",
    'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK',
]
# another program's logger (the driver's own format: loguru, Python's logging defaults, lm-eval's,
# a bare level tag), {msg} the record's text
DRIVER_FORMATS = [
    "2026-01-29T05:51:50.616355+0000 | compare_with_baseline | ERROR - {msg}",
    "2026-01-29 05:51:50.616 | ERROR    | __main__:evaluate:86 - {msg}",
    "2026-01-29 05:51:50,616 - lighteval - ERROR - {msg}",
    "ERROR:root:{msg}",
    "[2026-01-29 05:51:50] ERROR evaluator.py:324: {msg}",
    "2026-01-29:05:51:50 ERROR    [evaluator:324] {msg}",  # lm-eval 0.4.x's own format
    "[2026-01-29 05:51:50,616] [   ERROR]: {msg} (metrics.py:120)",  # lighteval's root logger
    "26-01-29 05:51:50|ERROR    |guidellm.benchmark.benchmarker:run:176 - {msg}",  # GuideLLM
    "01/29 05:51:50 - OpenCompass - ERROR - /opt/opencompass/tasks/openicl_eval.py - _score - "
    "241 - {msg}",  # OpenCompass (mmengine's MMFormatter)
    "[ERROR] {msg}",
]
# what a driver says of its task (no failure of vLLM)
JUDGEMENTS = [
    "✗ exact_match,strict-match | Baseline: 0.7620 | Compressed: 0.6930 | Recovery: 91.00% | "
    "Threshold: ≥92.00%",
    "FAILED: Recovery thresholds not met",
    "Prompt templates not found",
    "doc_to_choice must return list",
    "accuracy 0.41 is below the expected 0.55 for gsm8k",
    "could not extract an answer from sample 17",
    "Score regression detected: mmlu dropped by 3.2 points",
]
# what a driver says of vLLM's failure
FAILURES = [
    "API request failed after multiple retries. Please check the API status.",
    "Cannot connect to host localhost:8000 ssl:default [Connection refused]",
    "Request failed with status code 500",
    "Server disconnected without sending a response.",
    "request timed out after 600 seconds",
    "vLLM engine died, aborting the evaluation",
    "Exception:ClientConnectorError('localhost:8000'), retrying.",
    "CUDA error: an illegal memory access was encountered",
    "Failed requests: 12",
    "failed (exitcode: 1) local_rank: 0 (pid: 4242) of binary: /usr/bin/python3",
]


def _log(output: str, n: int, records: list[str], *, before: bool = False) -> str:
    lines = [*ENGINE]
    if before:
        lines += records
    lines.append(output.format(n=n))
    if not before:
        lines += records
    return "\n".join(lines) + "\n"


# the wrappers a log is read through: none, docker's time, journald's prefix
WRAPPERS = ["{}", "2026-01-29T05:51:50.123456789Z {}", "Jan 29 05:51:50 gpu-node-3 vllm[4242]: {}"]


def _wrapped(text: str, wrapper: str) -> str:
    return "".join(wrapper.format(line) + "\n" for line in text.splitlines())


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000), st.lists(
    st.tuples(st.sampled_from(DRIVER_FORMATS), st.sampled_from(JUDGEMENTS)), min_size=1,
    max_size=4), st.sampled_from(WRAPPERS))
def test_a_drivers_judgement_after_output_is_no_failure(output: str, n: int,
                                                        records: list[tuple[str, str]],
                                                        wrapper: str) -> None:
    text = _log(output, n, [form.format(msg=msg) for form, msg in records])
    assert explain_text(_wrapped(text, wrapper)).verdict is Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000), st.sampled_from(DRIVER_FORMATS),
       st.sampled_from(FAILURES), st.sampled_from(JUDGEMENTS), st.sampled_from(WRAPPERS))
def test_a_driver_reporting_vllms_failure_stays_failure(output: str, n: int, form: str,
                                                        failure: str, judgement: str,
                                                        wrapper: str) -> None:
    text = _log(output, n, [form.format(msg=failure), form.format(msg=judgement)])
    assert explain_text(_wrapped(text, wrapper)).verdict is not Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000), st.sampled_from(JUDGEMENTS))
def test_vllms_own_record_after_output_stays_failure(output: str, n: int, msg: str) -> None:
    records = [f"ERROR 01-29 05:51:50 [core.py:708] {msg}",
               f"[E129 05:51:50.090053684 ProcessGroupNCCL.cpp:1524] {msg}"]
    if not msg.startswith("FAILED:"):
        # (a logging-format record whose text opens with a tool's `FAILED:` is read as a relay
        # of that tool's line, the logger's name with the relay's wrapper: not told apart)
        records += [f"2026-01-29 05:51:50,616 - vllm.engine.async_llm_engine - ERROR - {msg}",
                    f"2026-01-29 05:51:50,616 - torch.distributed.elastic.multiprocessing.api - "
                    f"ERROR - {msg}"]
    for record in records:
        text = _log(output, n, [record])
        assert explain_text(text).verdict is not Verdict.NO_FAILURE, record


@SOME
@given(st.sampled_from(DRIVER_FORMATS), st.sampled_from(JUDGEMENTS))
def test_a_drivers_record_before_any_output_stays_failure(form: str, msg: str) -> None:
    # the engine never served: the record may be why (the survival rules decide it)
    text = "\n".join([*ENGINE, form.format(msg=msg)]) + "\n"
    assert explain_text(text).verdict is not Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000), st.sampled_from(DRIVER_FORMATS),
       st.sampled_from(JUDGEMENTS))
def test_a_vllm_failure_then_a_drivers_records_stays_the_root(output: str, n: int, form: str,
                                                              msg: str) -> None:
    crash = ["ERROR 01-29 05:40:00 [core.py:708] EngineCore encountered a fatal error.",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3/site-packages/vllm/v1/engine/core.py", line 701, in '
             "run_engine_core",
             "    engine_core.run_busy_loop()",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    lines = [*ENGINE, output.format(n=n), *crash, form.format(msg=msg)]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and "OutOfMemoryError" in report.root_cause.exception


def test_an_overwritten_bar_longer_than_a_line_is_read_as_its_last_drawing() -> None:
    # lm-eval's bar over a thousand requests: one line of ~100 KiB of `\r` redraws, then the
    # harness's threshold records; the bar's last drawing (100%) is the engine's output
    bar = "".join(f"Running generate_until requests: {i * 100 // 1000:3d}%|   | {i}/1000 "
                  f"[00:{i % 60:02d}<00:00,  1.16s/it]\r" for i in range(1000))
    bar += "Running generate_until requests: 100%|██████████| 1000/1000 [19:15<00:00,  1.16s/it]"
    assert len(bar.encode()) > 64 * 1024
    record = "2026-01-29T05:51:50.616588+0000 | compare_with_baseline | ERROR - FAILED: " \
             "Recovery thresholds not met"
    text = "\n".join([*ENGINE, bar, record]) + "\n"
    assert explain_text(text).verdict is Verdict.NO_FAILURE
    # the same bar stopped short of its end is no output: the record stays an error
    stopped = bar.rsplit("\r", 1)[0]
    text = "\n".join([*ENGINE, stopped, record]) + "\n"
    assert explain_text(text).verdict is not Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000), st.sampled_from(JUDGEMENTS),
       st.integers(1, 99999))
def test_a_trainers_actor_record_after_output_is_no_failure_an_engines_is_not(
        output: str, n: int, msg: str, pid: int) -> None:
    record = f"ERROR:2026-03-26 21:59:41,526:{msg}"
    text = _log(output, n, [f"(TaskRunner pid={pid}) {record}"])
    assert explain_text(text).verdict is Verdict.NO_FAILURE
    text = _log(output, n, [f"(EngineCore_DP0 pid={pid}) {record}"])
    assert explain_text(text).verdict is not Verdict.NO_FAILURE


INTERPRETER_EXIT = [
    "Fatal Python error: _enter_buffered_busy: could not acquire lock for "
    "<_io.BufferedWriter name='<{stream}>'> at interpreter shutdown, possibly due to daemon "
    "threads",
    "Python runtime state: finalizing (tstate=0x{tstate:016x})",
    "",
    "Thread 0x{thread:016x} (most recent call first):",
    "  <no Python frame>",
    "Aborted (core dumped)",
]


@SOME
@given(st.sampled_from(["stdout", "stderr"]), st.integers(1, 2**40), st.integers(1, 2**40),
       st.integers(1, 5000))
def test_the_interpreters_exit_after_a_finished_batch_is_no_failure(
        stream: str, tstate: int, thread: int, n: int) -> None:
    tail = [line.format(stream=stream, tstate=tstate, thread=thread) for line in INTERPRETER_EXIT]
    done = f"Processed prompts: 100%|██████████| {n}/{n} [00:15<00:00,  6.4it/s]"
    assert explain_text("\n".join([*ENGINE, done, *tail]) + "\n").verdict is Verdict.NO_FAILURE
    # mid-batch (its bar unfinished) or before any output, the crash is what the log shows
    half = f"Processed prompts:  50%|█████     | {n}/{2 * n} [00:15<00:15,  6.4it/s]"
    for lines in ([*ENGINE, half, *tail], [*ENGINE, *tail]):
        assert explain_text("\n".join(lines) + "\n").verdict is not Verdict.NO_FAILURE


DRIVER_PROGRAMS = ["lm_eval", "lighteval", "benchmark_serving.py", "vllm bench serve",
                   "/usr/bin/genai-perf", "run_eval.py"]
USAGE = ["unrecognized arguments: --foo", "argument --backend: invalid choice: 'x' (choose "
         "from 'vllm', 'openai')", "the following arguments are required: --model"]


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000), st.sampled_from(DRIVER_PROGRAMS),
       st.sampled_from(USAGE))
def test_a_drivers_usage_error_after_output_is_no_failure(output: str, n: int, prog: str,
                                                          usage: str) -> None:
    name = prog.rsplit("/", 1)[-1]
    lines = [f"usage: {name} [-h] [--model MODEL]", f"{prog}: error: {usage}"]
    assert explain_text(_log(output, n, lines)).verdict is Verdict.NO_FAILURE
    # with no output of the engine, the usage error is what the log shows
    assert explain_text("\n".join([*ENGINE, *lines]) + "\n").verdict is not Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000), st.sampled_from(["vllm serve", "vllm",
                                                                       "api_server.py"]),
       st.sampled_from(USAGE))
def test_vllms_own_usage_error_after_output_stays_failure(output: str, n: int, prog: str,
                                                          usage: str) -> None:
    lines = [f"usage: {prog} [-h] [--model MODEL]", f"{prog}: error: {usage}"]
    assert explain_text(_log(output, n, lines)).verdict is not Verdict.NO_FAILURE


DRIVER_FRAMES = [
    ("/usr/lib/python3/site-packages/lm_eval/evaluator.py", "evaluate"),
    ("/opt/venv/lib/python3.12/site-packages/lighteval/metrics/metrics.py", "compute"),
    ("/workspace/opencompass/opencompass/tasks/openicl_eval.py", "_score"),
    ("/usr/local/lib/python3.11/dist-packages/guidellm/benchmark/output.py", "save_json"),
    ("/usr/local/lib/python3.12/dist-packages/vllm/benchmarks/serve.py", "save_to_pytorch"),
    ("/home/u/vllm/benchmarks/benchmark_serving.py", "main"),
]
OWN_EXCEPTIONS = ["ValueError: log_samples must be True for 'bypass' metric-only tasks",
                  "KeyError: 'acc_norm'",
                  "TypeError: Object of type ndarray is not JSON serializable",
                  "ZeroDivisionError: division by zero"]
SERVER_EXCEPTIONS = [
    "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host localhost:8000",
    "openai.InternalServerError: Error code: 500 - {'detail': 'engine dead'}",
    "httpx.ReadTimeout: timed out",
]
VLLM_FRAME = ("/usr/lib/python3/site-packages/vllm/entrypoints/llm.py", "generate")


def _traceback(frames: list[tuple[str, str]], exception: str) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for number, (path, function) in enumerate(frames, 10):
        lines += [f'  File "{path}", line {number}, in {function}', "    do_it()"]
    return [*lines, exception]


@SOME
@given(st.sampled_from(OUTPUT), st.integers(1, 5000),
       st.lists(st.sampled_from(DRIVER_FRAMES), min_size=1, max_size=3),
       st.sampled_from(OWN_EXCEPTIONS), st.sampled_from(SERVER_EXCEPTIONS))
def test_a_drivers_own_traceback_after_output_is_no_failure(
        output: str, n: int, frames: list[tuple[str, str]], own: str, server: str) -> None:
    assert explain_text(_log(output, n, _traceback(frames, own))).verdict is Verdict.NO_FAILURE
    # through vLLM's engine, reporting the server's failure, or before any output: a failure
    for lines in (_log(output, n, _traceback([*frames, VLLM_FRAME], own)),
                  _log(output, n, _traceback(frames, server)),
                  "\n".join([*ENGINE, *_traceback(frames, own)]) + "\n"):
        assert explain_text(lines).verdict is not Verdict.NO_FAILURE, lines


SESSION_ERRORS = [
    ["ERROR 01-29 05:21:40 [serving_chat.py:200] Error in preprocessing prompt inputs",
     "Traceback (most recent call last):",
     '  File "/usr/lib/python3/site-packages/vllm/entrypoints/openai/serving_chat.py", line 190,'
     " in create_chat_completion",
     '    raise ValueError("too long")',
     "ValueError: This model's maximum context length is 4096 tokens"],
    ["(EngineCore_DP0 pid=123) ERROR 01-29 05:21:41 [core.py:708] EngineCore failed to start.",
     "(EngineCore_DP0 pid=123) ERROR 01-29 05:21:41 [core.py:708] ValueError: invalid kv cache "
     "dtype"],
    ["RuntimeError: Engine core initialization failed. See root cause above."],
]
PASSED = st.builds("{} passed{}{} in {}.{:02d}s".format, st.integers(1, 500),
                   st.sampled_from(["", ", 3 skipped"]), st.sampled_from(["", ", 2 warnings"]),
                   st.integers(1, 9999), st.integers(0, 99))


def _session(errors: list[list[str]], summary: str, header: bool = True) -> list[str]:
    lines = ["=" * 29 + " test session starts " + "=" * 30] if header else []
    lines += ["platform linux -- Python 3.12.3, pytest-8.3.5, pluggy-1.5.0", "collected 3 items",
              "", "tests/entrypoints/test_errors.py " + ENGINE[0], *ENGINE[1:]]
    for error in errors:
        lines += [*error, "."]
    return [*lines, f"{'=' * 20} {summary} {'=' * 20}"]


@SOME
@given(st.lists(st.sampled_from(SESSION_ERRORS), min_size=1, max_size=3), PASSED, st.booleans(),
       st.integers(1, 20))
def test_a_passing_test_sessions_errors_are_no_failure(errors: list[list[str]], passed: str,
                                                       header: bool, failed: int) -> None:
    assert explain_text("\n".join(_session(errors, passed, header)) + "\n").verdict \
        is Verdict.NO_FAILURE
    # a session that counts a failure or an error, or a crash after the summary, is a failure
    for summary in (f"{failed} failed, {passed}", f"{passed.split(' in ')[0]}, {failed} error"
                    f"{'s' if failed > 1 else ''} in 1.00s"):
        text = "\n".join(_session(errors, summary, header)) + "\n"
        assert explain_text(text).verdict is not Verdict.NO_FAILURE, summary
    text = "\n".join([*_session(errors, passed, header), "Segmentation fault (core dumped)"])
    assert explain_text(text + "\n").verdict is not Verdict.NO_FAILURE


def test_a_broken_drivers_file_says_where(tmp_path: Path) -> None:
    bad = tmp_path / "drivers.yaml"
    bad.write_text("own_sites: '(unclosed'\nown_loggers: '^vllm'\n", encoding="utf-8")
    with pytest.raises(SignatureError, match="own_sites") as caught:
        load_drivers(bad)
    assert caught.value.location == str(bad)
    shipped = load_drivers()
    assert shipped.reports_failure and shipped.frames and shipped.passed_sessions is not None
