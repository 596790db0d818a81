"""Which of several printings of one error is the root (issue 10, session 12's development
split), as properties over prefixes, wrappers and interleavings:

- a logged record whose message is a native error's text (`logger.exception(e)` in V0's engine:
  `HIP error: invalid argument`, then the traceback ending `RuntimeError: HIP error: ...`) is the
  traceback's headline: one error, named by the traceback's exception, spanning both;
- an exception whose first message line ends in a colon and runs into a traceback
  (`RuntimeError: Error raised in subprocess:` and the child's stderr) carries that traceback:
  the root is the carried exception; one that does not end in a colon stays an error of its own;
- asyncio's CancelledError is how a TimeoutError came about, whichever way Python chained them;
- `Worker failed with error 'X'` quotes str(e) of the worker's exception: the exception whose
  message is X is the root, not another line (torch's watchdog) that holds X inside its text;
- Ray's `Unhandled error (suppress with ...)` header titles the remote traceback after it, so
  the first of several identical ones is the root;
- Ray's terminate handler (`Unhandled exception: N3c10...E. what(): ...`) is the process's
  abort: the native records its process logged just before weigh as the crash.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

OUTERS = ["", "2025-06-09T16:23:50.123456789Z ", "vllm-0  | ", "[pod/llm-0/vllm] "]
START = ["INFO 11-29 09:35:57 api_server.py:625] vLLM API server version 0.6.1",
         "INFO 11-29 09:36:11 llm_engine.py:248] Initializing an LLM engine (v0.6.1) with "
         "config: model='facebook/opt-125m'"]
FRAMES = ['  File "/vllm-workspace/vllm/engine/multiprocessing/engine.py", line 357, in '
          "run_mp_engine",
          "    engine = MQLLMEngine.from_engine_args(engine_args=engine_args,",
          '  File "/vllm-workspace/vllm/worker/worker.py", line 141, in init_device',
          "    self.init_gpu_memory = torch.cuda.mem_get_info()[0]"]
NATIVE = [("HIP error: invalid argument",
           ["HIP kernel errors might be asynchronously reported at some other API call, so the "
            "stacktrace below might be incorrect.",
            "For debugging consider passing AMD_SERIALIZE_KERNEL=3"]),
          ("CUDA error: an illegal memory access was encountered",
           ["CUDA kernel errors might be asynchronously reported at some other API call, so the "
            "stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."])]
HEADS = ["ERROR 11-29 09:36:15 engine.py:366] ",
         "(EngineCore_DP0 pid=219) ERROR 11-29 09:36:15 [core.py:517] ",
         "ERROR 2025-01-01 10:00:00,000 engine.py:366] "]


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


OTHER = '(APIServer pid=1) INFO:     127.0.0.1:5 - "GET /health HTTP/1.1" 200 OK'


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(HEADS), st.sampled_from(NATIVE),
       st.integers(0, 3), st.integers(1, 4), st.booleans(),
       st.lists(st.integers(1, 12), max_size=3))
def test_a_native_error_logged_as_a_records_message_heads_its_traceback(
        outer: str, head: str, native: tuple[str, list[str]], notes: int, frames: int,
        reported: bool, others: list[int]) -> None:
    text, more = native
    more = more[:notes]
    record = [head + line for line in [text, *more, "Traceback (most recent call last):",
                                       *FRAMES[-frames:], f"RuntimeError: {text}", *more, ""]]
    # another process's lines land between the record's (their own channel)
    for at in sorted(others, reverse=True):
        record.insert(min(at, len(record) - 1), OTHER)
    lines = [*START, *record]
    if reported:
        lines.append("RuntimeError: Engine process failed to start. See stack trace for the "
                     "root cause.")
    lines = [outer + line for line in lines]
    report = explain(lines)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE and root is not None, report.reasons
    assert root.exception == "RuntimeError" and root.message.startswith(text)
    assert lines[root.line - 1].endswith(f"RuntimeError: {text}")
    assert root.first_line == len(START) + 1


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(["", "ERROR 04-28 07:56:28 [registry.py:354] "]),
       st.integers(0, 2), st.integers(1, 4),
       st.sampled_from([("ModuleNotFoundError", "No module named 'triton.compiler'"),
                        ("ImportError", "libcudart.so.12: cannot open shared object file"),
                        ("ValueError", "Unsupported architecture")]))
def test_an_exception_that_announces_a_traceback_carries_it(
        outer: str, head: str, stderr_lines: int, frames: int, inner: tuple[str, str]) -> None:
    name, message = inner
    warnings = ["<frozen runpy>:128: RuntimeWarning: 'vllm.model_executor.models.registry' found "
                "in sys.modules after import of package", "  warn(RuntimeWarning(msg))"]
    body = ["Error in inspecting model architecture 'GraniteForCausalLM'",
            "Traceback (most recent call last):",
            '  File "/opt/vllm/vllm/model_executor/models/registry.py", line 589, in '
            "_run_in_subprocess",
            '    raise RuntimeError(f"Error raised in subprocess:\\n"',
            "RuntimeError: Error raised in subprocess:", *warnings[:stderr_lines],
            "Traceback (most recent call last):", *FRAMES[-frames:], f"{name}: {message}", ""]
    lines = [outer + head + line for line in body]
    report = explain(lines)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE and root is not None, report.reasons
    assert (root.exception, root.message) == (name, message)
    assert root.line == len(body) - 1


@SOME
@given(st.sampled_from(OUTERS), st.integers(1, 3),
       st.sampled_from(["ValueError: the first error", "KeyError: 'first'"]))
def test_an_exception_without_the_colon_is_not_a_headline(outer: str, frames: int,
                                                          first: str) -> None:
    # two raw tracebacks printed back to back (two threads): the first is the first error
    lines = ["Traceback (most recent call last):", *FRAMES[-frames:], first,
             "Traceback (most recent call last):", *FRAMES[-frames:],
             "RuntimeError: the second error"]
    report = explain([outer + line for line in lines])
    assert report.root_cause is not None
    assert f"{report.root_cause.exception}: {report.root_cause.message}" == first


@SOME
@given(st.sampled_from(OUTERS), st.sampled_from(["asyncio.exceptions.", "asyncio.", ""]),
       st.sampled_from(["During handling of the above exception, another exception occurred:",
                        "The above exception was the direct cause of the following exception:"]),
       st.sampled_from(["", "Engine iteration timed out"]))
def test_a_cancelled_error_is_how_a_timeout_came_about(outer: str, module: str, chain: str,
                                                       message: str) -> None:
    timeout = f"{module}TimeoutError" + (f": {message}" if message else "")
    lines = ["Traceback (most recent call last):",
             '  File "/vllm/engine/async_llm_engine.py", line 604, in run_engine_loop',
             "    done, _ = await asyncio.wait(", f"{module}CancelledError", "", chain, "",
             "Traceback (most recent call last):",
             '  File "/vllm/engine/async_timeout.py", line 178, in _do_exit',
             "    raise asyncio.TimeoutError", timeout,
             'INFO 07-19 16:09:21 metrics.py:295] Avg prompt throughput: 84.8 tokens/s']
    report = explain([outer + line for line in lines])
    root = report.root_cause
    assert root is not None and root.exception == f"{module}TimeoutError"
    assert root.line == 11


CUDA = "CUDA error: an illegal memory access was encountered"
WORKER = "(VllmWorker rank=0 pid=226) ERROR 06-11 01:51:09 [multiproc_executor.py:527] "
CORE = "ERROR 06-11 01:51:09 [core.py:517] "


def _worker_traceback() -> list[str]:
    return [WORKER + line for line in
            ["WorkerProc hit an exception.", "Traceback (most recent call last):",
             '  File "/vllm/v1/worker/gpu_model_runner.py", line 1374, in execute_model',
             "    valid_sampled_token_ids = sampled_token_ids.tolist()",
             f"RuntimeError: {CUDA}", ""]]


def _watchdog() -> list[str]:
    return ["[rank0]:[E611 01:51:09.940883637 ProcessGroupNCCL.cpp:1896] [PG ID 2 PG GUID 3 "
            f"Rank 0] Process group watchdog thread terminated with exception: {CUDA}",
            "terminate called after throwing an instance of 'c10::DistBackendError'",
            f"  what():  [PG ID 2 PG GUID 3 Rank 0] Process group watchdog thread terminated "
            f"with exception: {CUDA}"]


@SOME
@given(st.sampled_from(OUTERS), st.integers(0, 5), st.booleans())
def test_a_quote_names_the_exception_it_is_str_of(outer: str, cut: int, dead: bool) -> None:
    worker, watchdog = _worker_traceback(), _watchdog()
    cut = min(cut, len(worker) - 1)
    # the watchdog's lines land before the worker's traceback or inside it (two streams)
    mixed = [*worker[:cut], *watchdog, *worker[cut:]] if cut else [*watchdog, *worker]
    core = [CORE + "EngineCore encountered a fatal error.",
            CORE + "Traceback (most recent call last):",
            CORE + '  File "/vllm/v1/executor/multiproc_executor.py", line 207, in get_response',
            CORE + "    raise RuntimeError(",
            CORE + f"RuntimeError: Worker failed with error '{CUDA}', please check the stack "
                   "trace above for the root cause"]
    if dead:
        core.append("ERROR 06-11 01:51:09 [async_llm.py:420] vllm.v1.engine.exceptions."
                    "EngineDeadError: EngineCore encountered an issue. See stack trace (above) "
                    "for the root cause.")
    lines = [outer + line for line in [*mixed, *core]]
    report = explain(lines)
    root = report.root_cause
    assert root is not None, report.reasons
    assert (root.exception, root.message.splitlines()[0]) == ("RuntimeError", CUDA)
    assert root.process.name == "VllmWorker rank=0"


@SOME
@given(st.sampled_from(OUTERS),
       st.sampled_from(["(_AsyncLLMEngine pid=10245) ",
                        "2024-01-01 10:00:00,123\tERROR worker.py:405 -- "]),
       st.integers(2, 4), st.integers(0, 3))
def test_rays_unhandled_error_header_titles_the_traceback_after_it(
        outer: str, prefix: str, copies: int, notes: int) -> None:
    more = NATIVE[1][1][:notes]
    lines = ["I0606 07:44:10.297581 8157 model.py:275] [vllm] Error generating stream: Task "
             "finished unexpectedly. See stack trace above for the actual cause."]
    roots = []
    for pid in range(copies):
        lines += [f"{prefix}Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): "
                  f"ray::RayWorkerVllm.execute_method() (pid={10358 + pid}, ip=10.42.0.27)",
                  f'{prefix}  File "/vllm/worker/worker.py", line 147, in execute_model',
                  f"{prefix}    output = self.model_runner.execute_model(seq_group_metadata)",
                  f"{prefix}RuntimeError: CUDA error: no kernel image is available for "
                  "execution on the device"]
        roots.append(len(lines))
        lines += [prefix + note for note in more]
    report = explain([outer + line for line in lines])
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE and root is not None, report.reasons
    assert root.exception == "RuntimeError" and root.line == roots[0]


RAY = "(RayWorkerWrapper pid={pid}, ip=10.175.94.190) "


@SOME
@given(st.sampled_from(OUTERS), st.integers(1, 4), st.integers(1, 5))
def test_rays_terminate_handler_makes_the_watchdog_records_the_crash(
        outer: str, records: int, at: int) -> None:
    glog = ["[rank3]:[E219 08:58:32.606233339 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=31, OpType=ALLREDUCE) ran for 600031 "
            "milliseconds before timing out.",
            "[rank3]:[E219 08:58:32.606693321 ProcessGroupNCCL.cpp:1834] [PG ID 2 PG GUID 3 "
            "Rank 3] Timeout at NCCL work: 31, last enqueued NCCL work: 58.",
            "[rank3]:[E219 08:58:32.606733115 ProcessGroupNCCL.cpp:636] [Rank 3] To avoid data "
            "inconsistency, we are taking the entire process down.",
            "[rank3]:[E219 08:58:32.611865696 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 "
            "Rank 3] Process group watchdog thread terminated with exception: [Rank 3] "
            "Watchdog caught collective operation timeout"]
    own = [RAY.format(pid=270291) + line for line in glog[:records]]
    own.append(RAY.format(pid=270291) + "[2025-02-19 08:58:32,022 E 270291 270373] "
               "logging.cc:108: Unhandled exception: N3c1016DistBackendErrorE. what(): [PG ID 2 "
               "PG GUID 3 Rank 3] Process group watchdog thread terminated with exception")
    # another worker whose own watchdog lines Ray folded away: only its abort is printed
    other = [RAY.format(pid=270237) + line for line in
             ["[2025-02-19 08:58:32,122 E 270237 270370] logging.cc:115: Stack trace: ",
              "/x/ray/_raylet.so(+0x1144ec2) [0x7f4072e66ec2] ray::TerminateHandler()",
              "*** SIGABRT received at time=1739955512 on cpu 15 ***",
              "Fatal Python error: Aborted"]]
    at = min(at, len(own))  # the other's abort anywhere after the first watchdog record
    lines = [*own[:at], *other, *own[at:]]
    report = explain([outer + line for line in lines])
    root = report.root_cause
    assert root is not None, report.reasons
    assert "Watchdog caught collective operation timeout" in root.message
    assert root.line == 1 and root.process.pid == 270291


@SOME
@given(st.sampled_from(OUTERS), st.integers(1, 4),
       st.sampled_from(["RuntimeError: Engine core initialization failed. See root cause above. "
                        "Failed core proc(s): {}", None]))
def test_a_carrier_stands_alone_when_what_follows_is_a_report_or_cut(
        outer: str, frames: int, after: str | None) -> None:
    # a child's error whose message ends in a colon, then in the same stream the parent's
    # traceback that only reports it (or a traceback cut before its exception line)
    first = "ValueError: The model's max seq len is larger than the KV cache can hold:"
    lines = ["Traceback (most recent call last):", *FRAMES[-frames:], first,
             "Traceback (most recent call last):", *FRAMES[-frames:]]
    if after is not None:
        lines.append(after)
    report = explain([outer + line for line in lines])
    root = report.root_cause
    assert root is not None, report.reasons
    assert (root.exception, root.line) == ("ValueError", frames + 2)
