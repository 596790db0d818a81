"""Three classes of issue 10 (root cause and verdict) that session 30's development split showed,
each over generated logs of its class, with the same shapes where they are the failure.

- **The first failed test failed only with a report of a failure elsewhere.** vLLM's test helpers
  run a test's work in another process and say only that it failed (its tests/utils.py:
  fork_new_process_for_each_test's `AssertionError: function <function test_x at 0x..> failed
  when called with args ...`, RemoteOpenAIServer's `RuntimeError: Server exited unexpectedly.`):
  symptoms (causality.yaml `symptoms`). pytest's report gives each failed test a section under a
  heading filled to the terminal's width, `_ test_x[a-long-id] _` when the id leaves no room
  (causality.yaml `milestones.report`, `test_headings`). When the first test's section holds only
  such reports, a later test's own assertion is no cause of it: the root is not in the log
  (causal.py `_first_test`; tests/fixtures/tuning: ll-v091dev-ci-buildkite-quantization-cpu-
  offload-server-exited-unexpectedly-symptom). The first test's own error, in its section or in
  what it captured, or the server's output printed live before the report, is the root.
- **A record logged as one escaped string.** A logger that writes a multi-line message as one
  JSON or repr string (Triton's Python backend: `E1027 ... model.py:502] "[vllm] Error generating
  stream: ...\\n  At least one of ...:\\nray.exceptions.RaySystemError: System error: ..."`) holds
  the exception at the start of an escaped line, however far into the line (grammars/vllm.lark
  EXC_LEAD); the escape ends a line and is never part of the class's name (tests/fixtures/tuning:
  l-k8s-eks-triton-ray-vllm-backend-stream-raysystemerror-no-module-utils-oneline). A record
  below ERROR, or a model's answer quoting an error, stays what it is.
- **A reader the message queue's shutdown woke.** vLLM's shared-memory message queue raises a bare
  `RuntimeError("cancelled")` (shm_broadcast.py, acquire_read) in a reader woken by the queue's
  shutdown, which the executor orders when a worker died: a symptom pointing at the worker
  (causality.yaml `symptoms`, `raised_at`), so the worker's own output, an unprefixed native abort
  included, is the root (tests/fixtures/tuning: s-b200-v0220-kimi-k25-tp8-graph-capture-c10-error-
  terminate-unprefixed-worker-died). The same message raised by other code stays an error.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.knowledge import default_causality
from logsleuth.model import MilestoneKind, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=20, deadline=None)

# the wrappers a collector puts around every line: none, docker's time, a CI runner's time
WRAPS = ["", "2026-01-31T14:21:03.123456789Z ", "[2025-05-20T10:11:12Z] "]


def explain(lines: list[str], wrap: str = "") -> Report:
    return explain_text("".join(f"{wrap}{line}\n" for line in lines),
                        signatures=default_signatures())


# --- the first failed test ------------------------------------------------------------------

def _heading(name: str, fill: int) -> str:
    return f"{'_' * fill} {name} {'_' * fill}"


FORK = ("AssertionError: function <function {name} at 0x7fc6998f1800> failed when called with "
        "args () and kwargs {{'model_name': 'facebook/opt-125m'}}")
FORK_NEW = ("AssertionError: function {name} failed when called with args () and kwargs "
            "{{'model_name': 'facebook/opt-125m'}} (exit code: 1)")
SERVER = "RuntimeError: Server exited unexpectedly."


def _section(name: str, fill: int, error: str, place: str) -> list[str]:
    """One failed test's section of pytest's report: heading, source, `E` lines, place."""
    exc = error.partition(":")[0]
    return [
        _heading(name, fill),
        "",
        "    def wrapper(*args, **kwargs):",
        ">           assert _exitcode == 0, (f\"function {f} failed when called with\"",
        f"E           {error}",
        "",
        f"{place}: {exc}",
    ]


def _own_section(name: str, fill: int) -> list[str]:
    """A later test that failed of its own assertion."""
    return [
        _heading(name, fill),
        "",
        ">       assert ref_result == compare_result",
        f"E       AssertionError: Results for model='{name}' are not the same.",
        "",
        "utils.py:582: AssertionError",
    ]


def _report(first: list[str], later: list[list[str]], summary: bool) -> list[str]:
    lines = [
        "quantization/test_torchao.py::test_opt_125m_int4wo_model_loading SKIPPED",
        "",
        "=================================== FAILURES ===================================",
        *first,
    ]
    for section in later:
        lines += section
    if summary:
        lines += ["=========================== short test summary info ============================",
                  "FAILED quantization/test_x.py::test_first - RuntimeError: Server exited "
                  "unexpectedly.",
                  "====== 2 failed, 78 passed, 35 skipped, 49 warnings in 4561.59s (1:16:01) ======"]
    return lines


FIRST_ERRORS = st.sampled_from([FORK, FORK_NEW, SERVER])
FILLS = st.sampled_from([1, 2, 5, 29])
NAMES = st.sampled_from([
    "test_load_8bit_bnb_model[meta-llama/Llama-Guard-3-8B-INT8-read pre-quantized llama 8-bit]",
    "test_cpu_offload_gptq", "TestOffload.test_awq[1]", "ERROR at setup of test_cpu_offload_awq"])


@SOME
@given(FIRST_ERRORS, FILLS, NAMES, st.integers(1, 3), st.booleans(), st.sampled_from(WRAPS))
def test_a_first_test_that_failed_only_with_a_report_leaves_the_root_out(
        error: str, fill: int, name: str, later: int, summary: bool, wrap: str) -> None:
    function = name.partition("[")[0].split()[-1].rpartition(".")[2]
    first = _section(name, fill, error.format(name=function), "utils.py:161")
    others = [_own_section(f"test_later_{i}", 3 + i) for i in range(later)]
    report = explain(_report(first, others, summary), wrap)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause


@SOME
@given(FILLS, NAMES, st.integers(1, 3), st.sampled_from(WRAPS))
def test_the_first_tests_own_error_is_the_root(fill: int, name: str, later: int,
                                                wrap: str) -> None:
    own = "ValueError: Free memory on device (10.5/79.1 GiB) on startup is less than desired"
    first = _section(name, fill, own, "vllm/worker/worker.py:221")
    others = [_own_section(f"test_later_{i}", 3 + i) for i in range(later)]
    report = explain(_report(first, others, False), wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


@SOME
@given(FIRST_ERRORS, FILLS, st.sampled_from(WRAPS))
def test_what_the_first_test_captured_is_its_cause(error: str, fill: int, wrap: str) -> None:
    # the child's traceback, or the server's output, in the test's captured stderr
    first = [*_section("test_cpu_offload_gptq", fill, error.format(name="test_cpu_offload_gptq"),
                       "utils.py:161"),
             "----------------------------- Captured stderr call -----------------------------",
             "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line '
             "1021, in create_engine_config",
             "    raise ValueError(msg)",
             "ValueError: CPU offload is not supported with quantization method gptq_marlin"]
    report = explain(_report(first, [_own_section("test_later", 5)], False), wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.message.startswith("CPU offload is not supported")


@SOME
@given(FIRST_ERRORS, st.sampled_from(WRAPS))
def test_the_servers_output_printed_before_the_report_is_the_root(error: str,
                                                                  wrap: str) -> None:
    # pytest -s: the server's output streams live, before the report of the test it failed
    live = ["(APIServer pid=1736) INFO 05-20 10:11:12 [api_server.py:1043] vLLM API server "
            "version 0.9.0",
            "(APIServer pid=1736) Traceback (most recent call last):",
            '(APIServer pid=1736)   File "/usr/local/lib/python3.12/site-packages/vllm/config.py", '
            "line 1021, in verify",
            "(APIServer pid=1736)     raise ValueError(msg)",
            "(APIServer pid=1736) ValueError: CPU offload is not supported with gptq_marlin"]
    first = _section("test_cpu_offload_gptq", 29, error.format(name="test_cpu_offload_gptq"),
                     "utils.py:161")
    report = explain([*live, *_report(first, [_own_section("test_later", 5)], True)], wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


@SOME
@given(FIRST_ERRORS, st.integers(1, 3), st.sampled_from(WRAPS))
def test_a_summary_alone_whose_first_test_failed_with_a_report_leaves_the_root_out(
        error: str, later: int, wrap: str) -> None:
    # `--tb=no -rf`: the short summary is the whole report
    lines = ["=========================== short test summary info ============================",
             f"FAILED tests/quantization/test_x.py::test_first[a] - {error.format(name='t')}",
             *(f"FAILED tests/quantization/test_x.py::test_later_{i} - AssertionError: Results "
               f"for model='m{i}' are not the same." for i in range(later)),
             f"====== {later + 1} failed, 78 passed in 4561.59s (1:16:01) ======"]
    assert explain(lines, wrap).verdict is Verdict.ROOT_CAUSE_MISSING


@given(st.sampled_from([FORK, FORK_NEW, SERVER]), st.sampled_from(WRAPS))
@SOME
def test_a_helpers_report_alone_is_a_symptom(error: str, wrap: str) -> None:
    report = explain([error.format(name="test_x")], wrap)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


@given(st.integers(1, 40), st.text(st.sampled_from("abcdefgh_[]-/ .0123456789"), min_size=1,
                                   max_size=60))
@SOME
def test_a_heading_of_any_fill_is_one_tests_section(fill: int, tail: str) -> None:
    know = default_causality()
    name = f"test_{tail}".strip()
    heading = f"{'_' * fill} {name} {'_' * (fill + fill % 2)}" if fill < 3 else \
        _heading(name, fill)
    assert know.milestone_of(heading) is MilestoneKind.REPORT
    assert know.heads_test(heading)


def test_a_traceback_separator_and_the_sessions_sections_head_no_test() -> None:
    know = default_causality()
    separator = "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _"
    assert know.milestone_of(separator) is not MilestoneKind.REPORT
    assert not know.heads_test(separator)
    assert not know.heads_test("=================================== FAILURES ===============")
    assert not know.heads_test("_ unbalanced ___")


# --- a record logged as one escaped string --------------------------------------------------

LEADS = [
    'E1027 15:54:53.431777 1342 model.py:502] "[vllm] Error generating stream: ',
    "ERROR 10-27 15:54:53 [serving_chat.py:1021] \"Error in chat completion stream: ",
    '{"level":"error","ts":"2025-10-27T15:54:53Z","msg":"request failed: ',
]
CARRIED = [
    "\\u001B[36mray::RayWorkerWrapper.execute_method()\\u001B[39m (pid=12345, ip=10.0.0.7, "
    "actor_id=3f2a1b, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f12>)",
    "Traceback (most recent call last):\\n  File \\\"/opt/vllm/engine.py\\\", line 3, in step\\n"
    "    out = self.model(x)",
    "",
]
RAISED = [("ray.exceptions.RaySystemError", "System error: No module named 'utils'"),
          ("ValueError", "The decoder prompt (length 9000) is longer than the maximum model "
           "length of 8192."),
          ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB")]
BREAKS = ["\\n", "\\r\\n", "\\\\n"]


@SOME
@given(st.sampled_from(LEADS), st.sampled_from(CARRIED), st.sampled_from(RAISED),
       st.sampled_from(BREAKS), st.integers(0, 400), st.booleans(), st.sampled_from(WRAPS))
def test_the_exception_of_an_escaped_line_is_the_records(
        lead: str, carried: str, raised: tuple[str, str], escape: str, pad: int, more: bool,
        wrap: str) -> None:
    name, message = raised
    between = f"{escape}  At least one of the input arguments could not be computed:" if pad \
        else ""
    text = (f"{lead}{carried}{' ' * (pad % 7)}{'x' * pad}{between}{escape}{name}: {message}"
            f"{escape + 'more context' if more else ''}\"")
    report = explain([text], wrap)
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == name, root
    assert root.message == message


@SOME
@given(st.sampled_from(RAISED), st.sampled_from(BREAKS), st.sampled_from(WRAPS))
def test_an_escaped_string_on_the_records_indented_line(raised: tuple[str, str], escape: str,
                                                        wrap: str) -> None:
    # the record's header on its line, the escaped string indented under it
    name, message = raised
    lines = ["ERROR 10-27 15:54:53 [model.py:502] Error generating stream:",
             f'    "ray::RayWorkerWrapper.execute_method() (pid=12){escape}  At least one of the '
             f'input arguments could not be computed:{escape}{name}: {message}"']
    root = explain(lines, wrap).root_cause
    assert root is not None and root.exception == name, root


@SOME
@given(st.sampled_from(RAISED), st.sampled_from(BREAKS), st.sampled_from(WRAPS))
def test_a_record_below_error_or_an_answer_quoting_one_is_no_failure(
        raised: tuple[str, str], escape: str, wrap: str) -> None:
    name, message = raised
    info = (f"INFO 10-27 15:54:53 [logger.py:43] \"Request finished: ok{escape}{name}: "
            f"{message}\"")
    answer = ('INFO 10-27 15:54:53 [logger.py:43] Generated response: {"role": "assistant", '
              f'"content": "A short answer.{escape}{name}: {message}"}}')
    assert explain([info], wrap).verdict is Verdict.NO_FAILURE
    assert explain([answer], wrap).verdict is Verdict.NO_FAILURE


# --- a reader the message queue's shutdown woke ---------------------------------------------

E = "(EngineCore pid=639446)"
API = "(APIServer pid=638774)"


def _cancelled(record: bool) -> list[str]:
    lead = f"{E} ERROR 06-02 21:27:57 [core.py:1165] " if record else f"{E} "
    frames = [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", '
        "line 386, in get_response",
        "    status, result = mq.dequeue(timeout=dequeue_timeout)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/'
        'shm_broadcast.py", line 694, in acquire_read',
        '    raise RuntimeError("cancelled")',
        "RuntimeError: cancelled",
    ]
    head = [f"{E} ERROR 06-02 21:27:57 [core.py:1165] EngineCore failed to start."] if record \
        else []
    return [*head, *(f"{lead}{line}" for line in frames)]


def _worker_failure(kind: int, rank: int) -> tuple[list[str], str]:
    """A worker's own failure: an unprefixed native abort, or its traceback."""
    if kind == 0:
        return ([
            "terminate called after throwing an instance of 'c10::Error'",
            "  what():  The graph should be registered to the state",
            "Exception raised from unregister_graph at /pytorch/aten/src/ATen/cuda/"
            "CUDAGeneratorImpl.cpp:162 (most recent call first):",
            "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9d "
            "(0x7e6d7b37305d in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)",
            f"frame #9: VLLM::Worker_TP{rank}() [0x59dcbd]",
        ], "The graph should be registered to the state")
    w = f"(Worker_TP{rank} pid={639700 + rank})"
    return ([
        f"{w} ERROR 06-02 21:27:50 [multiproc_executor.py:671] WorkerProc hit an exception.",
        f"{w} ERROR 06-02 21:27:50 [multiproc_executor.py:671] Traceback (most recent call last):",
        f'{w} ERROR 06-02 21:27:50 [multiproc_executor.py:671]   File "/usr/local/lib/python3.12/'
        'dist-packages/vllm/v1/worker/gpu_model_runner.py", line 3120, in capture_model',
        f"{w} ERROR 06-02 21:27:50 [multiproc_executor.py:671]     self._capture_cudagraphs()",
        f"{w} ERROR 06-02 21:27:50 [multiproc_executor.py:671] torch.OutOfMemoryError: CUDA out of "
        "memory. Tried to allocate 2.00 GiB",
    ], "CUDA out of memory")


@SOME
@given(st.sampled_from([0, 1]), st.integers(0, 7), st.booleans(), st.booleans(),
       st.sampled_from(WRAPS))
def test_a_reader_the_queues_shutdown_woke_points_at_the_dead_worker(
        kind: int, rank: int, record: bool, api: bool, wrap: str) -> None:
    worker, said = _worker_failure(kind, rank)
    lines = [
        f"{API} INFO 06-02 21:20:00 [api_server.py:1885] vLLM API server version 0.22.0",
        f"{E} INFO 06-02 21:20:05 [core.py:93] Initializing a V1 LLM engine (v0.22.0) with "
        "config: model='moonshotai/Kimi-K2.5'",
        *worker,
        f"{E} ERROR 06-02 21:27:57 [multiproc_executor.py:284] Worker proc VllmWorker-{rank} died "
        "unexpectedly, shutting down executor.",
        *_cancelled(record),
    ]
    if api:
        lines.append(f"{API} RuntimeError: Engine core initialization failed. See root cause "
                     "above. Failed core proc(s): {}")
    report = explain(lines, wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and said in report.root_cause.text, report.root_cause


@SOME
@given(st.booleans(), st.sampled_from(WRAPS))
def test_a_woken_reader_alone_leaves_the_root_out(record: bool, wrap: str) -> None:
    report = explain(_cancelled(record), wrap)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


@SOME
@given(st.sampled_from(WRAPS))
def test_a_cancelled_that_other_code_raised_stays_the_error(wrap: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/home/user/job.py", line 40, in main',
        "    raise RuntimeError(reason)",
        "RuntimeError: cancelled",
    ]
    report = explain(lines, wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
