"""Session 36's verdict misses on a cold sample of committed logs, as classes (issue 10: no healthy
log called failing). The sample: signatures/NOTES-dev-root.md.

1. A JIT build step of start-up finished: ROCm's aiter builds its kernel modules on first use,
   one worker at a time under a lock file the other workers wait on (aiter/jit/core.py `start
   build [module_moe_asm] under ...`, then `finish build [module_moe_asm], cost 44.9s`; the
   waiters' `waiting for baton release at .../lock_module_moe_asm`), minutes each for a TP8 MoE
   model. Meanwhile the engine core prints `No available shared memory broadcast block found in
   60 seconds` each minute (its text names compilation among the harmless reasons). A build that
   finished after those notices is start-up going on (causality.yaml `milestones.progress`), so
   the notices before it are a slow start-up, not a stall (tuning healthy/s36r-rocm-aiter-tp8-moe-
   jit-build-cut-at-startup). Near misses: notices after the last finished build (a build that
   began and never finished, `start build` alone) stay a stall; so does a finished build printed
   before the notices.
2. A serving benchmark's report of the requests that failed: `vllm bench serve` (and the older
   benchmark_serving.py) keeps each failed request's traceback and prints up to ten after the run,
   `Failed requests during benchmark run detected (capping to 10):`, then `Error 0: <traceback>`
   (vllm/benchmarks/serve.py). The traceback is the client's (a connection reset, a body it could
   not parse), chained exceptions included: a symptom of what the server did, as the summary's
   `Failed requests: N` already was (causality.yaml `reported_titles`; tuning runtime/s36r-gb10-
   bench-client-one-request-connection-reset). With the server's own error in the same file, that
   error is the root. Near miss: a client traceback under no such heading stays a cause.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


_NOTICE = ("INFO 03-10 20:{m:02d}:48 [shm_broadcast.py:542] No available shared memory broadcast "
           "block found in 60 seconds. This typically happens when some processes are hanging or "
           "doing some time-consuming work (e.g. compilation, weight/kv cache quantization).")
_ENGINE = "(EngineCore_DP0 pid=54359) "
# aiter's two loggers print every line twice: its own `[aiter] ` echo and the logging record
_FINISH = ("[aiter] finish build [module_{mod}], cost {cost}s ",
           "[2026-03-10 20:21:10] INFO core.py:863: finish build [module_{mod}], cost {cost}s")
_START = ("[aiter] start build [module_{mod}] under /opt/venv/lib/python3.12/site-packages/aiter/jit/"
          "build/module_{mod}",)
_WAIT = ("[aiter] waiting for baton release at /opt/venv/lib/python3.12/site-packages/aiter/jit/"
         "build/lock_module_{mod}",
         "[2026-03-10 20:11:49] INFO file_baton.py:48: waiting for baton release at "
         "/opt/venv/lib/python3.12/site-packages/aiter/jit/build/lock_module_{mod}")
_WORKERS = ("(Worker_TP{rank} pid={pid}) ", "(VllmWorker rank={rank} pid={pid}) ")
_ERAS = (  # the engine's start-up lines of the V1 eras that print worker prefixes
    ["(APIServer pid=54100) INFO 03-10 20:05:01 [api_server.py:1351] vLLM API server version 0.16.0",
     _ENGINE + "INFO 03-10 20:05:30 [core.py:93] Initializing a V1 LLM engine (v0.16.0) with config: "
     "model='/models/Qwen3-235B-A22B-FP8', tensor_parallel_size=8"],
    ["INFO 03-10 20:05:01 [api_server.py:1351] vLLM API server version 0.10.2",
     _ENGINE + "INFO 03-10 20:05:30 [core.py:74] Initializing a V1 LLM engine (v0.10.2) with config: "
     "model='/models/DeepSeek-V3', tensor_parallel_size=8"],
)
_WRAPPERS = ("", "2026-03-10T20:21:10.123456789Z ", "vllm-1  | ")


def _log(era: int, worker: int, wrapper: str, notices: int, finish_after: bool,
         finish_before: bool, module: str) -> list[str]:
    """A TP start-up whose workers build aiter modules while the engine core prints `notices`
    shared-memory notices; a finished build before them and/or after them."""
    worker_prefix = _WORKERS[worker]
    lines = list(_ERAS[era])
    for rank in range(4):
        lines.append(worker_prefix.format(rank=rank, pid=54562 + rank)
                     + f"INFO 03-10 20:06:0{rank} [gpu_model_runner.py:2602] Model loading took "
                     "28.1 GiB memory and 80.2 seconds")
    builder = worker_prefix.format(rank=0, pid=54562)
    if finish_before:
        lines += [builder + f.format(mod="rmsnorm", cost="12.6") for f in _FINISH]
    lines += [builder + s.format(mod=module) for s in _START]
    for rank in range(1, 4):
        lines += [worker_prefix.format(rank=rank, pid=54562 + rank) + w.format(mod=module)
                  for w in _WAIT]
    lines += [_ENGINE + _NOTICE.format(m=12 + n) for n in range(notices)]
    if finish_after:
        lines += [builder + f.format(mod=module, cost="44.9") for f in _FINISH]
        lines += [builder + s.format(mod="moe_sorting") for s in _START]
    return [wrapper + line for line in lines]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(era=st.integers(0, 1), worker=st.integers(0, 1), wrapper=st.sampled_from(_WRAPPERS),
       notices=st.integers(2, 9), before=st.booleans(),
       module=st.sampled_from(["moe_asm", "quant", "gemm_a8w8_blockscale"]))
def test_a_build_finished_after_the_notices_is_start_up_going_on(
        era: int, worker: int, wrapper: str, notices: int, before: bool, module: str) -> None:
    report = _explain(_log(era, worker, wrapper, notices, True, before, module))
    assert report.verdict is Verdict.NO_FAILURE, (report.root_cause, report.symptoms)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(era=st.integers(0, 1), worker=st.integers(0, 1), wrapper=st.sampled_from(_WRAPPERS),
       notices=st.integers(2, 9), before=st.booleans(),
       module=st.sampled_from(["moe_asm", "quant", "gemm_a8w8_blockscale"]))
def test_notices_after_the_last_finished_build_stay_a_stall(
        era: int, worker: int, wrapper: str, notices: int, before: bool, module: str) -> None:
    # near misses: the build that began before the notices never finished (only `start build`
    # and the waiters' baton lines after the last finished one), with or without an earlier build
    report = _explain(_log(era, worker, wrapper, notices, False, before, module))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.root_cause, report.verdict)


def test_a_build_finished_then_notices_to_the_end_is_a_stall() -> None:
    lines = _log(0, 0, "", 0, True, False, "moe_asm")
    lines += [_ENGINE + _NOTICE.format(m=30 + n) for n in range(3)]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.root_cause, report.verdict)


def test_a_build_line_without_its_cost_is_no_finished_step() -> None:
    # the words alone (another tool's "finish build" without aiter's module and cost) prove nothing
    lines = _log(1, 1, "", 3, False, False, "quant")
    lines.append("(VllmWorker rank=0 pid=54562) INFO 03-10 20:21:10 [setup.py:12] finish build steps")
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.root_cause, report.verdict)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(cut=st.integers(1, 30))
def test_the_finished_build_line_cut_at_its_start_still_counts(cut: int) -> None:
    # a paste that cut the head of the last line: the record's prefix, not the build's words
    lines = _log(0, 0, "", 4, True, False, "moe_asm")
    lines = [line for line in lines if "moe_sorting" not in line]
    last = lines[-1]
    lines[-1] = last[min(cut, last.index("finish build")):]
    report = _explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, (report.root_cause, report.symptoms)


_CLIENT_ERRORS = [
    ("ConnectionResetError", "[Errno 104] Connection reset by peer",
     "aiohttp.client_exceptions.ClientOSError", "[Errno 104] Connection reset by peer"),
    ("json.decoder.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)", None, None),
    ("asyncio.exceptions.TimeoutError", "", "aiohttp.client_exceptions.ServerTimeoutError",
     "Timeout on reading data from socket"),
]


def _client_item(index: int, kind: int, chained: bool) -> list[str]:
    first, message, second, second_message = _CLIENT_ERRORS[kind]
    lines = [f"Error {index}: Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/benchmarks/lib/'
             'endpoint_request_func.py", line 381, in async_request_openai_chat_completions',
             "    async with session.post(url=api_url, json=payload, headers=headers) as response:",
             f"{first}: {message}".rstrip(": ")]
    if chained and second is not None:
        lines += ["", "The above exception was the direct cause of the following exception:", "",
                  "Traceback (most recent call last):",
                  '  File "/usr/local/lib/python3.12/dist-packages/aiohttp/streams.py", line 705, '
                  "in read", "    await self._waiter", f"{second}: {second_message}"]
    return lines


def _bench(failed: int, kind: int, chained: bool, wrapper: str,
           server: list[str] | None = None) -> list[str]:
    lines = ["INFO 08-06 07:31:52 [utils.py:90] Sampling input_len from [399, 7600] and "
             "output_len from [49, 950]", "Starting main benchmark run...",
             "Traffic request rate: 0.3", "Maximum request concurrency: None"]
    lines += server or []
    lines.append("Failed requests during benchmark run detected (capping to 10):")
    for index in range(min(failed, 10)):
        lines += _client_item(index, (kind + index) % len(_CLIENT_ERRORS), chained)
    lines += ["tip: install termplotlib and gnuplot to plot the metrics",
              "============ Serving Benchmark Result ============",
              f"Successful requests:                     {200 - failed}",
              f"Failed requests:                         {failed}",
              "Benchmark duration (s):                  681.78",
              "=================================================="]
    return [wrapper + line if line else line for line in lines]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(failed=st.integers(1, 14), kind=st.integers(0, 2), chained=st.booleans(),
       wrapper=st.sampled_from(("", "bench-1  | ", "2026-08-06T07:44:20.100Z ")))
def test_a_benchmarks_failed_request_report_is_a_symptom_of_the_server(
        failed: int, kind: int, chained: bool, wrapper: str) -> None:
    report = _explain(_bench(failed, kind, chained, wrapper))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.verdict, report.root_cause)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(failed=st.integers(1, 4), chained=st.booleans())
def test_the_servers_own_error_in_the_same_file_is_the_root(failed: int, chained: bool) -> None:
    server = ["(EngineCore_DP0 pid=812) ERROR 08-06 07:40:02 [core.py:710] EngineCore encountered "
              "a fatal error.",
              "(EngineCore_DP0 pid=812) ERROR 08-06 07:40:02 [core.py:710] Traceback (most recent "
              "call last):",
              '(EngineCore_DP0 pid=812) ERROR 08-06 07:40:02 [core.py:710]   File "/usr/lib/'
              'python3.12/site-packages/vllm/v1/engine/core.py", line 701, in run_engine_core',
              "(EngineCore_DP0 pid=812) ERROR 08-06 07:40:02 [core.py:710]     engine_core."
              "run_busy_loop()",
              "(EngineCore_DP0 pid=812) ERROR 08-06 07:40:02 [core.py:710] torch.AcceleratorError: "
              "CUDA error: an illegal memory access was encountered"]
    report = _explain(_bench(failed, 0, chained, "", server))
    assert report.verdict is Verdict.FAILURE, (report.verdict, report.root_cause)
    assert report.root_cause is not None
    assert "illegal memory access" in report.root_cause.message


def test_a_client_traceback_under_no_report_heading_stays_a_cause() -> None:
    lines = _bench(1, 0, True, "")
    start = lines.index("Error 0: Traceback (most recent call last):")
    lines[start] = "Traceback (most recent call last):"
    del lines[start - 1]  # and no report heading before it
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE, (report.verdict, report.root_cause)
