"""Scary lines in runs that go on working, both directions (issue 10: survived or fatal, from
evidence).

Records vLLM logs at ERROR at call sites that then go on, saying they set the check aside (the
Gaudi bucketing check that ignores the token budget: causality.yaml `latent`, `any_level`) are no error when nothing that follows from them
comes after, and the cause of the error that does. The noise of a clean exit (an exception Python
ignored in a destructor, `atexit`'s traceback, the process group not destroyed, leaked
semaphores, an NCCL WARN as the communicators close, uvicorn's cancelled lifespan) after a run
that served is no failure; the same noise after a run whose engine died leaves that death the
root. Generated variations: where the record sits, how much work follows, which exit noise."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=25, deadline=None)

A = "(APIServer pid=100)"
E = "(EngineCore_DP0 pid=200)"
START = [
    f"{A} INFO 08-13 11:31:25 [api_server.py:1000] vLLM API server version 0.10.1",
    f"{A} INFO 08-13 11:31:26 [utils.py:326] non-default args: {{'model': 'Qwen/Qwen3-8B'}}",
    f"{E} INFO 08-13 11:32:08 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: "
    "model='Qwen/Qwen3-8B'",
    f"{E} INFO 08-13 11:33:35 [gpu_model_runner.py:1913] Starting to load model Qwen/Qwen3-8B...",
    f"{E} INFO 08-13 11:34:35 [gpu_model_runner.py:1942] Model loading took 15.3 GiB and 50.1 "
    "seconds",
    f"{E} INFO 08-13 11:34:50 [gpu_worker.py:276] Available KV cache memory: 50.0 GiB",
    f"{E} INFO 08-13 11:34:51 [kv_cache_utils.py:849] GPU KV cache size: 400,000 tokens",
    f"{E} INFO 08-13 11:35:20 [core.py:193] init engine (profile, create kv cache, warmup model) "
    "took 30.0 seconds",
    f"{A} INFO 08-13 11:35:21 [api_server.py:1880] Starting vLLM API server 0 on "
    "http://0.0.0.0:8000",
    f"{A} INFO:     Started server process [100]",
    f"{A} INFO:     Application startup complete.",
]
SERVE = [
    f'{A} INFO:     127.0.0.1:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    f"{A} INFO 08-13 11:36:10 [loggers.py:123] Engine 000: Avg prompt throughput: 50.0 tokens/s, "
    "Avg generation throughput: 40.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache "
    "usage: 0.1%, Prefix cache hit rate: 0.0%",
]
SHUTDOWN = [
    f"{A} INFO 08-14 11:23:40 [launcher.py:101] Shutting down FastAPI HTTP server.",
    f"{A} INFO:     Shutting down",
    f"{A} INFO:     Waiting for application shutdown.",
    f"{A} INFO:     Application shutdown complete.",
]
ENGINE_DEATH = [
    f"{E} ERROR 08-13 11:36:05 [core.py:700] EngineCore encountered a fatal error.",
    "Traceback (most recent call last):",
    '  File "/x/vllm/v1/engine/core.py", line 600, in run_engine_core',
    "    engine_core.run_busy_loop()",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
]
# the noise a clean exit prints, after the server's own shutdown lines
EXIT_NOISE = [
    ["Exception ignored in: <function Worker.__del__ at 0x7f3a2c1b5e10>",
     "Traceback (most recent call last):",
     '  File "/usr/lib/python3.12/site-packages/vllm/worker.py", line 50, in __del__',
     "    self.shutdown()",
     "AttributeError: 'NoneType' object has no attribute 'close'"],
    ["[rank0]:[W814 11:23:44.118 ProcessGroupNCCL.cpp:1479] Warning: WARNING: "
     "destroy_process_group() was not called before program exit, which can leak resources. For "
     "more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function "
     "operator())"],
    ["/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: "
     "There appear to be 1 leaked shared_memory objects to clean up at shutdown",
     "  warnings.warn('resource_tracker: There appear to be %d '"],
    ["Error in atexit._run_exitfuncs:", "Traceback (most recent call last):",
     '  File "/usr/lib/python3.12/logging/__init__.py", line 2245, in shutdown',
     "    h.flush()", "ValueError: I/O operation on closed file."],
    ["host:300:400 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote "
     "peer"],
    ["nanobind: leaked 2 instances!", "nanobind: leaked 1 types!",
     ' - leaked type "xgrammar.xgrammar_bindings.GrammarCompiler"',
     "nanobind: this is likely caused by a reference counting issue in the binding code."],
]
# records vLLM logs at ERROR at call sites that go on, each with the error that follows from it
GOING_ON = [
    ("ERROR 08-27 21:01:02 habana_model_runner.py:128] The current bucketing configuration (min, "
     "step, max_warmup): bs:[128, 128, 256], seq:[1024, 128, 2048] cannot be used with specified "
     "max_num_batched_tokens (2048), as the smallest bucket (16384) would exceed token budget. "
     "Please increase max_num_batched_tokens or decrease bucket minimum Ignoring "
     "max_num_batched_tokens at risk of out-of-memory errors.",
     "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::"
     "268435456 (256)MB, out of memory"),
]
FATAL = [
    "Traceback (most recent call last):",
    '  File "/x/vllm/entrypoints/openai/api_server.py", line 1500, in run_server',
    "    await serve_http(app)",
    "OSError: [Errno 98] Address already in use",
]


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@SOME
@given(st.integers(0, len(EXIT_NOISE) - 1), st.integers(1, 12))
def test_exit_noise_after_a_run_that_served_is_no_failure(noise: int, served: int) -> None:
    report = explain([*START, *SERVE * served, *SHUTDOWN, *EXIT_NOISE[noise]])
    assert report.verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(0, len(EXIT_NOISE) - 1), st.integers(1, 6), st.booleans())
def test_exit_noise_leaves_an_engine_death_the_root(noise: int, served: int,
                                                   metrics: bool) -> None:
    """Counter-evidence: a failing run whose last error is followed only by shutdown lines and
    exit noise (and a poll answered 200) stays a failure, its root the engine's error."""
    poll = [f'{A} INFO:     127.0.0.1:5555 - "GET /metrics HTTP/1.1" 200 OK'] if metrics else []
    report = explain([*START, *SERVE * served, *ENGINE_DEATH, *poll, *SHUTDOWN,
                      *EXIT_NOISE[noise]])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == len(START) + len(SERVE) * served + len(ENGINE_DEATH)


@SOME
@given(st.integers(0, len(GOING_ON) - 1), st.integers(0, len(START)), st.integers(0, 8),
       st.booleans())
def test_a_record_of_code_that_goes_on_is_no_failure_alone(which: int, at: int, served: int,
                                                          shutdown: bool) -> None:
    record = GOING_ON[which][0]
    lines = [*START[:at], record, *START[at:], *SERVE * served, *(SHUTDOWN if shutdown else [])]
    assert explain(lines).verdict is Verdict.NO_FAILURE
    assert explain([record]).verdict is Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(GOING_ON), st.integers(0, 6))
def test_the_record_is_the_root_of_the_error_it_warned_of(going: tuple[str, str],
                                                          gap: int) -> None:
    record, effect = going
    trace = ["Traceback (most recent call last):",
             '  File "/x/vllm/worker/worker.py", line 100, in execute_model',
             "    out = self.model_runner.execute_model()"]
    report = explain([record, *START[:gap], *trace, effect])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1


@SOME
@given(st.integers(0, len(GOING_ON) - 1), st.integers(0, 4))
def test_an_unrelated_fatal_error_after_the_record_stays_the_root(which: int, gap: int) -> None:
    """Counter-evidence: a record that says it goes on does not take the root from a fatal
    error it does not explain, nor make the run healthy."""
    record = GOING_ON[which][0]
    lines = [record, *START[:gap], *FATAL]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "OSError"
    assert report.root_cause.line == len(lines)


# a request handler's error printed with its traceback unprefixed under the API server's record
# (a paste that kept the prefix on the record's line only): the frames place it in the HTTP
# server's request path (causality.yaml `requests.frames`)
ASGI = [
    f"{A} ERROR:    Exception in ASGI application",
    "Traceback (most recent call last):",
    '  File "/x/uvicorn/protocols/http/httptools_impl.py", line 409, in run_asgi',
    "    result = await app(",
    '  File "/x/vllm/entrypoints/openai/api_server.py", line 500, in create_chat_completion',
    "    generator = await handler.create_chat_completion(request, raw_request)",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
]
POLL = f'{A} INFO:     127.0.0.1:5555 - "GET /metrics HTTP/1.1" 200 OK'


@SOME
@given(st.integers(0, 4), st.integers(2, 12), st.booleans())
def test_an_unprefixed_request_error_the_api_server_served_after_is_survived(
        before: int, after: int, shutdown: bool) -> None:
    lines = [*START, *SERVE * before, *ASGI, *SERVE * after, *(SHUTDOWN if shutdown else [])]
    assert explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(0, 4), st.integers(0, 12), st.booleans())
def test_an_unprefixed_request_error_with_only_polls_after_stays_the_failure(
        before: int, polls: int, shutdown: bool) -> None:
    """Counter-evidence: a server that only answers polls after the error (or nothing) did not
    show it serves requests again."""
    lines = [*START, *SERVE * before, *ASGI, *[POLL] * polls, *(SHUTDOWN if shutdown else [])]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == len(START) + len(SERVE) * before + len(ASGI)


# torch's TCPStore client on each retry while the store is not reachable (causality.yaml
# milestones `hang`)
C10D = ("[W1207 11:33:{s:02d}.{n:03d} socket.cpp:755] [c10d] The client socket has failed to connect "
        "to [{host}]:29500 (errno: 99 - Cannot assign requested address).")
HOSTS = ["localhost", "10.0.0.2", "node-1.cluster.local"]


@SOME
@given(st.integers(1, 6), st.sampled_from(HOSTS), st.integers(2, len(START)), st.integers(0, 6))
def test_store_connect_retries_that_start_up_goes_on_from_are_no_failure(
        times: int, host: str, at: int, served: int) -> None:
    retries = [C10D.format(s=i, n=i, host=host) for i in range(times)]
    lines = [*START[:at], *retries, *START[at:], *SERVE * served]
    assert explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(1, 6), st.sampled_from(HOSTS), st.integers(1, 7))
def test_a_log_that_ends_on_store_connect_retries_is_no_healthy_run(
        times: int, host: str, at: int) -> None:
    """Counter-evidence: a rank that never reached the store stalled there; the log is not
    `no_failure`, however few the retries it shows."""
    retries = [C10D.format(s=i, n=i, host=host) for i in range(times)]
    assert explain([*START[:at], *retries]).verdict is not Verdict.NO_FAILURE
