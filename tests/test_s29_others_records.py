"""Another program's ERROR records around a healthy vLLM run, both directions (issue 10: survived
or fatal, from evidence; signatures/drivers.yaml `alone_sites`, `names_failure`).

An evaluation harness drives an offline engine (or a served one), then logs its own verdict on
the scores at ERROR with its own logger (`| compare_with_baseline | ERROR - FAILED: Recovery
thresholds not met`): nothing failed in vLLM, the run is healthy; so is a record of its own before
the engine came up, which stopped nothing. A harness record that names what failed in vLLM (an
exception, the engine, the device, a request), the same records in a run whose engine never came
up, vLLM's own record, and any record beside a failure of vLLM's are weighed as before.
Generated variations: the harness's logger format, its words, how many records and where, offline
or served, where the vLLM failure sits, the collector's wrapper around every line."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import logsleuth
from logsleuth.model import ErrorEvent, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=25, deadline=None)

E = "(EngineCore_DP0 pid=4045786)"
A = "(APIServer pid=100)"
OFFLINE = [
    "INFO 01-29 05:21:22 [utils.py:282] non-default args: {'seed': 1234, 'model': 'm/llama-8b'}",
    "INFO 01-29 05:21:22 [model.py:541] Resolved architecture: LlamaForCausalLM",
    f"{E} INFO 01-29 05:21:24 [core.py:96] Initializing a V1 LLM engine (v0.15.0) with config: "
    "model='m/llama-8b'",
    f"{E} INFO 01-29 05:21:25 [gpu_model_runner.py:4025] Starting to load model m/llama-8b...",
    f"{E} INFO 01-29 05:21:27 [gpu_model_runner.py:4122] Model loading took 5.32 GiB memory and "
    "1.6 seconds",
    f"{E} INFO 01-29 05:21:42 [gpu_worker.py:356] Available KV cache memory: 64.73 GiB",
    f"{E} INFO 01-29 05:21:42 [kv_cache_utils.py:1307] GPU KV cache size: 530,288 tokens",
    f"{E} INFO 01-29 05:21:46 [gpu_model_runner.py:5055] Graph capturing finished in 4 secs, "
    "took 0.58 GiB",
    f"{E} INFO 01-29 05:21:46 [core.py:272] init engine (profile, create kv cache, warmup model) "
    "took 18.51 seconds",
    "INFO 01-29 05:21:47 [llm.py:343] Supported tasks: ['generate']",
]
SERVED = [
    f"{A} INFO 08-13 11:31:25 [api_server.py:1000] vLLM API server version 0.10.1",
    f"{A} INFO 08-13 11:31:26 [utils.py:326] non-default args: {{'model': 'Qwen/Qwen3-8B'}}",
    f"{E} INFO 08-13 11:32:08 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: "
    "model='Qwen/Qwen3-8B'",
    f"{E} INFO 08-13 11:34:50 [gpu_worker.py:276] Available KV cache memory: 50.0 GiB",
    f"{E} INFO 08-13 11:35:20 [core.py:193] init engine (profile, create kv cache, warmup model) "
    "took 30.0 seconds",
    f"{A} INFO:     Application startup complete.",
    f'{A} INFO:     127.0.0.1:5555 - "POST /v1/completions HTTP/1.1" 200 OK',
]
# a harness's own output while it evaluates (progress, results at INFO)
HARNESS_WORK = [
    "[2026-01-29 05:21:55] INFO evaluator.py:574: Running generate_until requests",
    "Running generate_until requests: 100%|##########| 1000/1000 [09:20<00:00,  1.78it/s]",
    "2026-01-29T05:31:17.202182+0000 | print_results | INFO - exact_match,strict-match | 0.6930",
]
# another program's logger, each with the text of a record at ERROR (loguru's default format,
# a loguru format naming the function, Python's logging with a logger name and with `root`)
FORMATS = [
    "2026-01-29 05:51:50.616 | ERROR    | __main__:compare:120 - {}",
    "2026-01-29T05:51:50.616355+0000 | compare_with_baseline | ERROR - {}",
    "2026-01-29 05:51:50,616 - __main__ - ERROR - {}",
    "ERROR:root:{}",
]
# what such a harness says of the scores
VERDICTS = [
    "✗ exact_match,strict-match | Baseline: 0.7620 | Compressed: 0.6930 | Recovery: 91.00% ↑ | "
    "Threshold: ≥92.00%",
    "Accuracy 0.412 is below the expected 0.45 for gsm8k",
    "Score regression on mmlu: 63.1 < 64.0",
    "exact_match,flexible-extract: 91.00% < 93.00%",
    "FAILED: Recovery thresholds not met",
]
# llm-compressor's summary after them, as its logger printed it (its indented list is read as a
# record in this format; in the others the grammar reads an indented body as a cut traceback)
SUMMARY = [
    "2026-01-29T05:51:50.616588+0000 | compare_with_baseline | ERROR - FAILED: Recovery "
    "thresholds not met",
    "2026-01-29T05:51:50.616615+0000 | compare_with_baseline | ERROR -   - exact_match,"
    "strict-match: 91.00% < 92.00%",
]
# a harness record that reports what failed in vLLM
NAMES_VLLM = [
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "Evaluation aborted: the engine died while generating",
    "Generation failed: request timed out after 600 s",
    "vLLM worker process died unexpectedly",
    "CUDA out of memory while running the model",
]
VLLM_FAILURE = [
    f"{E} ERROR 01-29 05:25:05 [core.py:700] EngineCore encountered a fatal error.",
    f"{E} Traceback (most recent call last):",
    f'{E}   File "/x/vllm/v1/engine/core.py", line 600, in run_engine_core',
    f"{E}     engine_core.run_busy_loop()",
    f"{E} RuntimeError: CUDA error: an illegal memory access was encountered",
]


# the wrappers a collector puts around every line: none, docker's time, journald, compose
WRAPS = ["", "2026-01-31T14:21:03.123456789Z ", "Jan 31 14:21:03 gpu-node-1 vllm[4242]: ",
         "vllm-1  | "]


def explain(lines: list[str], wrap: str = "") -> Report:
    return explain_text("".join(f"{wrap}{line}\n" for line in lines),
                        signatures=default_signatures())


def records(formats: list[int], verdicts: list[int]) -> list[str]:
    return [FORMATS[f].format(VERDICTS[v]) for f, v in zip(formats, verdicts, strict=False)]


run_kinds = st.sampled_from([OFFLINE, SERVED])
formats = st.lists(st.integers(0, len(FORMATS) - 1), min_size=1, max_size=5)
verdicts = st.lists(st.integers(0, len(VERDICTS) - 1), min_size=5, max_size=5)


@SOME
@given(run_kinds, formats, verdicts, st.booleans(), st.booleans(), st.sampled_from(WRAPS))
def test_a_harness_verdict_after_a_healthy_run_is_no_failure(run: list[str], fmt: list[int],
                                                             words: list[int], work: bool,
                                                             summary: bool, wrap: str) -> None:
    # an offline run's output is the harness's work (its bar); without any output the record may
    # be why the engine stopped (tests/test_drivers.py: before any output it stays an error)
    work = work or run is OFFLINE
    report = explain([*run, *(HARNESS_WORK if work else []), *records(fmt, words),
                      *(SUMMARY if summary else [])], wrap)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@SOME
@given(run_kinds, formats, verdicts, st.data())
def test_a_harness_record_before_the_engine_came_up_stopped_nothing(run: list[str],
                                                                    fmt: list[int],
                                                                    words: list[int],
                                                                    data: st.DataObject) -> None:
    # the engine came up after it: the record did not stop the run
    at = data.draw(st.integers(0, len(run) - 1))
    report = explain([*run[:at], *records(fmt, words), *run[at:], *HARNESS_WORK])
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@SOME
@given(run_kinds, st.integers(0, len(FORMATS) - 1), st.integers(0, len(NAMES_VLLM) - 1),
       formats, verdicts, st.sampled_from(WRAPS))
def test_a_harness_record_that_names_vllm_failing_stays_the_failure(
        run: list[str], fmt: int, which: int, more: list[int], words: list[int],
        wrap: str) -> None:
    named = FORMATS[fmt].format(NAMES_VLLM[which])
    report = explain([*run, named, *records(more, words)], wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(run) + 1


@SOME
@given(formats, verdicts, st.booleans())
def test_a_vllm_failure_before_the_harness_lines_stays_the_root(fmt: list[int],
                                                                words: list[int],
                                                                work: bool) -> None:
    lines = [*OFFLINE, *VLLM_FAILURE, *(HARNESS_WORK if work else []), *records(fmt, words)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == len(OFFLINE) + len(VLLM_FAILURE)


@SOME
@given(formats, verdicts)
def test_a_harness_record_in_a_start_up_that_never_completed_stays_the_failure(
        fmt: list[int], words: list[int]) -> None:
    # the engine never got to its KV cache: the records are all the log says of why (a
    # `FAILED: ...` alone reads as a report of a failure elsewhere: root_cause_missing)
    lines = [*OFFLINE[:4], *records(fmt, words)]
    report = explain(lines)
    assert report.verdict is not Verdict.NO_FAILURE
    assert report.root_cause is None or report.root_cause.line > 4


@SOME
@given(run_kinds, st.integers(0, len(VERDICTS) - 1))
def test_vllms_own_record_after_start_up_stays_the_failure(run: list[str], word: int) -> None:
    # vLLM's logger names its call site: its record is vLLM's, whatever it says
    own = f"{E} ERROR 01-29 05:51:50 [core.py:946] {VERDICTS[word].strip()}"
    report = explain([*run, own])
    # (its `FAILED: ...` reads as a build step's report of a failure elsewhere: not healthy)
    assert report.verdict is not Verdict.NO_FAILURE
    assert report.root_cause is None or report.root_cause.line == len(run) + 1


# grammars/vllm.lark PYLOG_RELAY: a launch script's tag before a relayed child's line (`vLLM: `)
# is a relay; a status word in capitals (`FAILED: `) is the record's own message, as the same
# word in lower case always was, and the record keeps its logger's name
@pytest.mark.parametrize(("line", "site", "text"), [
    ("2026-01-29 05:51:50,616 - __main__ - ERROR - FAILED: Recovery thresholds not met",
     "__main__", "FAILED: Recovery thresholds not met"),
    ("2026-01-29 05:51:50,616 - ERROR - FATAL: out of memory", "-", "FATAL: out of memory"),
    # (a level word after the header is the record's level again, not its text)
    ("2026-01-29 05:51:50,616 - lm_eval - ERROR - ERROR: task failed", "lm_eval",
     "task failed"),
    ("2026-01-29 05:51:50,616 - INFO - vLLM: ERROR 01-02 03:04:05 [core.py:1] boom", "core.py:1",
     "boom"),
])
def test_a_status_word_after_a_logging_header_is_the_records_message(line: str, site: str,
                                                                     text: str) -> None:
    events = [e for e in logsleuth.parse(io.BytesIO(f"{line}\n".encode()))
              if isinstance(e, ErrorEvent)]
    assert [(e.site, e.message) for e in events] == [(site, text)]


# a harness's own traceback after the engine's output: in its metric code (judged on its own,
# drivers.yaml `frames`), or through vLLM's engine (`engine_frames`: vLLM's failure)
HARNESS_TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3/site-packages/lm_eval/evaluator.py", line 500, in evaluate',
    "    results = task.process_results(doc, outputs)",
    '  File "/usr/lib/python3/site-packages/{}", line 88, in {}',
    "    raise ValueError(msg)",
    "ValueError: could not parse the answer of sample 17",
]


@SOME
@given(run_kinds, formats, verdicts, st.data())
def test_records_before_the_output_and_a_judged_error_after_it_are_the_drivers_together(
        run: list[str], fmt: list[int], words: list[int], data: st.DataObject) -> None:
    # one rule in two parts (causal.py `_drivers_verdicts`): the traceback after the output is
    # judged on its own, and the records before it are then all that is left of the run
    at = data.draw(st.integers(0, len(run) - 1))
    harness = "\n".join(HARNESS_TRACEBACK).format("lm_eval/api/metrics.py", "exact_match")
    lines = [*run[:at], *records(fmt, words), *run[at:], *HARNESS_WORK, *harness.split("\n")]
    assert explain(lines).verdict is Verdict.NO_FAILURE
    # raised through vLLM's engine, the traceback is vLLM's failure, and the records beside it
    # are weighed as any record is: the run failed
    engine = "\n".join(HARNESS_TRACEBACK).format("vllm/v1/engine/llm_engine.py", "step")
    lines = [*run[:at], *records(fmt, words), *run[at:], *HARNESS_WORK, *engine.split("\n")]
    assert explain(lines).verdict is Verdict.FAILURE
