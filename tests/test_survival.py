"""Survived or fatal, from evidence; pointers that name the nearest unsurvived error; runs.

The four causal scenarios of issue 10 ("Why"), each a small realistic log (tests/scenario_logs.py
builds them from real line shapes), plus the start-up and restart cases around them.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from logsleuth.causal import IN_FLIGHT
from logsleuth.knowledge import default_causality
from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.render.text import runs_lines
from logsleuth.signatures import default_signatures
from scenario_logs import ILLEGAL_ACCESS, OUT_OF_VOCAB, Server


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def line_of(lines: list[str], text: str, after: int = 0) -> int:
    """The 1-based number of the first line after line `after` that contains `text`."""
    return next(n for n, line in enumerate(lines, 1) if n > after and text in line)


def test_handled_worker_error_then_thousands_of_requests_is_not_the_root() -> None:
    # Why 1: a worker's handled traceback early on, 3,000 lines of requests, then the engine
    # core quotes a CUDA illegal memory access: the root is the worker's illegal access
    s = Server()
    lines = s.startup() + s.requests(50) + s.worker_kv_fetch_error() + s.requests(3000)
    crash_at = len(lines)
    lines += (s.worker_runtime_error(0, ILLEGAL_ACCESS) + s.engine_wrapper(ILLEGAL_ACCESS)
              + s.engine_dead() + s.failed_requests(3))
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "torch.AcceleratorError"
    assert report.root_cause.line == line_of(lines, "AcceleratorError", crash_at)
    assert report.root_cause.process.name == "Worker_TP0"
    assert any(e.exception == "TimeoutError" for e in report.survived)


def test_quoted_error_without_its_traceback_makes_the_wrapper_the_root() -> None:
    s = Server()
    lines = s.startup() + s.worker_kv_fetch_error() + s.requests(500)
    crash_at = len(lines)
    lines += s.engine_wrapper(ILLEGAL_ACCESS) + s.engine_dead()
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.line == line_of(lines, "Worker failed with error", crash_at)


def test_survived_errors_every_few_hundred_lines_then_a_quoted_worker_error() -> None:
    # Why 1, the long server run: request errors the server survives every 300 lines while it
    # keeps serving, then a worker's ValueError that the engine core quotes
    s = Server()
    lines = s.startup()
    for _ in range(8):
        lines += s.requests(300) + s.request_error()
    crash_at = len(lines)
    lines += s.worker_runtime_error(1, OUT_OF_VOCAB) + s.engine_wrapper(OUT_OF_VOCAB) \
        + s.engine_dead()
    report = explain(lines)
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.process.name) == ("ValueError",
                                                                              "Worker_TP1")
    assert report.root_cause.line == line_of(lines, "ValueError: Token id", crash_at)
    assert sum(e.occurrences for e in report.survived if e.exception == "ValueError") == 8


def test_polls_answered_do_not_save_a_dead_engine_core() -> None:
    # Why 2: an AcceleratorError in the engine core, then GET /metrics 200 and POST ... 500
    s = Server()
    lines = s.startup() + s.requests(40)
    crash_at = len(lines)
    lines += s.engine_error(ILLEGAL_ACCESS) + s.polls(20) + s.failed_requests(5) + s.polls(20)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "torch.AcceleratorError"
    assert report.root_cause.process.name == "EngineCore_DP0"
    assert report.root_cause.line == line_of(lines, "AcceleratorError", crash_at)


def test_a_shutdown_ends_its_run_not_the_analysis() -> None:
    # Why 3: a healthy run stopped with SIGTERM, then a second run fails at start-up
    first, second = Server(2800, 2900), Server(5100, 5200)
    lines = first.startup() + first.requests(30) + first.sigterm()
    second_at = len(lines)
    lines += second.startup()[:3] + second.free_memory_startup_failure()
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.message.startswith("Free memory on device")
    assert report.root_cause.line == line_of(lines, "ValueError: Free memory", second_at)
    assert [r.verdict for r in report.runs] == [Verdict.NO_FAILURE, Verdict.FAILURE]
    assert report.runs[1].start_line == second_at + 1
    assert report.runs[1].explained


def test_benign_worker_error_at_startup_then_serving_is_healthy() -> None:
    # Why 4: a worker's benign ERROR during start-up, then a thousand requests
    s = Server()
    startup = s.startup()
    lines = startup[:3] + s.worker_benign_startup_error() + startup[3:] + s.requests(1000)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.reasons
    assert len(report.survived) == 1


def test_benign_error_without_later_work_is_still_a_failure() -> None:
    # the same ERROR where the log ends during start-up: nothing shows that work went on
    s = Server()
    lines = s.startup()[:3] + s.worker_benign_startup_error()
    assert explain(lines).verdict is Verdict.FAILURE


def test_requests_in_flight_do_not_save_the_error_the_engine_core_quotes() -> None:
    # a few responses finish right after the worker's error, before the engine core reports it
    s = Server()
    lines = s.startup() + s.requests(40)
    crash_at = len(lines)
    lines += (s.worker_runtime_error(0, OUT_OF_VOCAB) + s.requests(3)
              + s.engine_wrapper(OUT_OF_VOCAB) + s.engine_dead())
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.line == line_of(lines, "ValueError: Token id", crash_at)


def test_timed_out_waiting_for_engines_follows_the_engines_own_error() -> None:
    # Why 5: the front end's start-up wait is not the root where the engine's error is in the
    # log. Alone it is the failure (an engine alive and not ready in time), as vLLM 0.17 on
    # words the same wait at the same place (causality.yaml `symptoms`, the note on it;
    # tests/test_s32_root_classes.py)
    s = Server()
    timeout = [
        f"(APIServer pid={s.api}) Traceback (most recent call last):",
        f'(APIServer pid={s.api})   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/'
        'core_client.py", line 541, in __init__',
        f"(APIServer pid={s.api})     raise TimeoutError(",
        f"(APIServer pid={s.api}) TimeoutError: Timed out waiting for engines to send initial "
        "message on input socket.",
    ]
    lines = s.startup()[:3] + s.free_memory_startup_failure()[:-4] + timeout
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "ValueError"
    alone = explain(s.startup()[:3] + timeout)
    assert alone.verdict is Verdict.FAILURE
    assert alone.root_cause is not None and alone.root_cause.exception == "TimeoutError"


def test_tcp_store_get_error_is_a_symptom_of_the_rank_that_died() -> None:
    s = Server()
    lines = s.startup()[:3] + s.worker_runtime_error(0, OUT_OF_VOCAB) + [
        s.worker_line(1, "ERROR", "multiproc_executor.py:654", "WorkerProc hit an exception."),
        s.worker_line(1, "ERROR", "multiproc_executor.py:654", "torch.distributed.DistBackendError:"
                      " [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via"
                      " c10d key-value store by key '0', but store->get('0') got error: Connection "
                      "reset by peer"),
    ]
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.process.name == "Worker_TP0"


# ---- runs -----------------------------------------------------------------------------------------

def _crash_loop(runs: int) -> tuple[list[str], list[int]]:
    """A container restarted after every start-up failure: same names, pid 1 reused, each start
    half a minute after the one before (a run printed again whole, times and all, is one output pasted
    twice, not a restart: tests/test_pasted_twice.py)."""
    lines: list[str] = []
    starts: list[int] = []
    for run in range(runs):
        s = Server(1, 170)
        s.second = 30 * run
        starts.append(len(lines) + 1)
        lines += s.startup()[:3] + s.free_memory_startup_failure()
    return lines, starts


def test_crash_loop_is_one_failure_in_every_run() -> None:
    lines, starts = _crash_loop(12)
    report = explain(lines)
    assert [r.start_line for r in report.runs] == starts
    assert all(r.verdict is Verdict.FAILURE and r.same_failure == 12 for r in report.runs)
    assert report.runs[-1].explained
    assert report.root_cause is not None
    assert report.root_cause.line == line_of(lines, "ValueError: Free memory", starts[-1])
    assert runs_lines(report)[0].startswith("the same failure in 12 of 12 runs")


def test_healthy_last_run_after_failed_ones_says_so() -> None:
    lines, _ = _crash_loop(3)
    last = Server(1, 170)
    last.second = 30 * 3  # restarted after the third failure
    last_at = len(lines) + 1
    lines += last.startup() + last.requests(20)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert [r.verdict for r in report.runs][-1] is Verdict.NO_FAILURE
    assert report.runs[2].explained
    assert f"the last run (from line {last_at}) did not fail" in runs_lines(report)


def test_one_start_is_one_run() -> None:
    s = Server()
    report = explain(s.startup() + s.requests(5))
    assert len(report.runs) == 1 and report.runs[0].verdict is Verdict.NO_FAILURE


def test_two_servers_in_one_log_at_once_stay_one_run() -> None:
    a, b = Server(2800, 2900), Server(4800, 4900)
    lines = [x for pair in zip(a.startup() + a.requests(8), b.startup() + b.requests(8))
             for x in pair]
    assert len(explain(lines).runs) == 1


def test_identical_runs_are_inferred_once(monkeypatch) -> None:  # noqa: ANN001 - pytest fixture
    """A crash loop costs about one run's inference: a run equal to one already inferred (times,
    pids and numbers aside) reuses its outcome; only the first and the last run are built."""
    from logsleuth.causal import CausalGraph

    built: list[int] = []
    original = CausalGraph._build_run.__func__  # type: ignore[attr-defined]

    def counting(cls, events, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        built.append(1)
        return original(cls, events, *args, **kwargs)

    monkeypatch.setattr(CausalGraph, "_build_run", classmethod(counting))
    lines, _ = _crash_loop(300)
    report = explain(lines)
    assert len(report.runs) == 300 and report.runs[-1].same_failure == 300
    assert len(built) == 2


# ---- unnamed output: one stream, several processes ------------------------------------------------

_V0_START = [
    "INFO 05-01 10:00:00 api_server.py:212] vLLM API server version 0.6.3",
    "INFO 05-01 10:00:01 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: "
    "model='m'",
    "INFO 05-01 10:00:30 model_runner.py:1067] Loading model weights took 14.99 GB",
    "INFO:     Application startup complete.",
]
_ANSWERED = 'INFO:     10.0.0.{n}:4{n:04d} - "POST /v1/chat/completions HTTP/1.1" 200 OK'


def _unnamed_traceback(frames: list[tuple[str, str]], exception: str) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for file, function in frames:
        lines += [f'  File "{file}", line 10, in {function}', "    do()"]
    return lines + [exception]


def test_requests_answered_after_an_unnamed_traceback_do_not_save_it() -> None:
    # vLLM 0.6 writes every process without a prefix: the 200s after an engine's traceback
    # may be the API server's answers to streams the dead engine never fed
    lines = _V0_START + [_ANSWERED.format(n=n) for n in range(5)]
    crash_at = len(lines)
    lines += _unnamed_traceback(
        [("/usr/lib/python3/site-packages/vllm/engine/async_llm_engine.py", "run_engine_loop"),
         ("/usr/lib/python3/site-packages/vllm/model_executor/layers/sampler.py", "forward")],
        "IndexError: index 55434 is out of bounds for dimension 0 with size 32064")
    lines += [_ANSWERED.format(n=n) for n in range(5, 40)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == line_of(lines, "IndexError", crash_at)


def test_start_up_steps_after_an_unnamed_traceback_still_save_it() -> None:
    # an optional import that failed loudly, then a start-up that went on to serve
    lines = _unnamed_traceback([("/usr/lib/python3/site-packages/vllm/_custom_ops.py",
                                 "<module>")],
                               "ImportError: libcudart.so.11.0: cannot open shared object file")
    lines += _V0_START + [_ANSWERED.format(n=n) for n in range(20)]
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE
    assert any(e.exception == "ImportError" for e in report.survived)


def test_a_parsers_unnamed_traceback_is_still_one_requests_error() -> None:
    # a tool parser catches its own error and the request is answered: knowledge, not the
    # unnamed stream's answers, says it was survived
    lines = _V0_START + [_ANSWERED.format(n=n) for n in range(5)]
    lines += _unnamed_traceback(
        [("/usr/lib/python3/site-packages/vllm/entrypoints/openai/tool_parsers/"
          "hermes_tool_parser.py", "extract_tool_calls")],
        "json.decoder.JSONDecodeError: Extra data: line 3 column 1 (char 56)")
    lines += [_ANSWERED.format(n=n) for n in range(5, 40)]
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE
    assert any(e.exception == "json.decoder.JSONDecodeError" for e in report.survived)


def test_a_lifecycle_line_after_an_error_shows_its_process_went_on() -> None:
    # a loud but harmless traceback at start-up; the same process then begins loading the
    # model (a phase line, no milestone of its own) and fails later for another reason
    lines = _V0_START[:2] + _unnamed_traceback(
        [("/usr/lib/python3/site-packages/vllm/platforms/__init__.py", "cuda_platform_plugin")],
        "ModuleNotFoundError: No module named 'amdsmi'")
    lines += ["INFO 05-01 10:00:05 model_runner.py:1056] Starting to load model /models/m..."]
    crash_at = len(lines)
    lines += _unnamed_traceback(
        [("/usr/lib/python3/site-packages/vllm/model_executor/model_loader/loader.py",
          "load_model")],
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.line == line_of(lines, "OutOfMemoryError", crash_at)
    assert any(e.exception == "ModuleNotFoundError" for e in report.survived)


# ---- an earlier unnamed traceback against the later one a report names ------------------------

def _library_traceback(error: str) -> list[str]:
    """A traceback printed without a prefix (a library's `traceback.print_exc()`, a launcher
    script's own) in a log whose vLLM processes are all prefixed."""
    return ["Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.12/dist-packages/transformers/utils/import_utils.py", '
            "line 1967, in _get_module",
            "    return importlib.import_module('.' + module_name, self.__name__)",
            error]


UNNAMED_ERRORS = ["ModuleNotFoundError: No module named 'flash_attn'",
                  "OSError: [Errno 28] No space left on device: '/root/.cache/triton'"]


def test_a_quoted_worker_error_beats_an_earlier_unnamed_traceback() -> None:
    for error in UNNAMED_ERRORS:
        s = Server()
        lines = s.startup() + _library_traceback(error) + s.requests(30)
        crash_at = len(lines)
        lines += (s.worker_runtime_error(0, ILLEGAL_ACCESS) + s.engine_wrapper(ILLEGAL_ACCESS)
                  + s.engine_dead())
        report = explain(lines)
        assert report.root_cause is not None
        assert (report.root_cause.exception, report.root_cause.process.name) \
            == ("torch.AcceleratorError", "Worker_TP0"), error
        assert report.root_cause.line == line_of(lines, "AcceleratorError", crash_at)


def test_a_named_engine_core_error_beats_an_earlier_unnamed_traceback() -> None:
    for error in UNNAMED_ERRORS:
        s = Server()
        lines = s.startup()[:3] + _library_traceback(error)
        failed_at = len(lines)
        lines += s.free_memory_startup_failure()
        report = explain(lines)
        assert report.root_cause is not None
        assert (report.root_cause.exception, report.root_cause.process.name) \
            == ("ValueError", "EngineCore_DP0"), error
        assert report.root_cause.line == line_of(lines, "ValueError: Free memory", failed_at)


def test_an_unnamed_engine_core_keeps_its_earlier_error() -> None:
    # vLLM 0.8-0.9 printed its engine core without a prefix, its workers with one: an unnamed
    # traceback there may be the engine core's own, and the worker error after it its effect
    lines = [
        "INFO 04-01 10:00:00 [core.py:58] Initializing a V1 LLM engine (v0.8.4) with config: "
        "model='Qwen/Qwen2.5-7B'",
        "ERROR 04-01 10:00:05 [core.py:390] EngineCore hit an exception: Traceback (most recent "
        "call last):",
        'ERROR 04-01 10:00:05 [core.py:390]   File "/usr/local/lib/python3.12/dist-packages/vllm/'
        'v1/engine/core.py", line 378, in run_engine_core',
        "ERROR 04-01 10:00:05 [core.py:390] ValueError: No available memory for the cache "
        "blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
        "(VllmWorker rank=0 pid=5120) ERROR 04-01 10:00:06 [multiproc_executor.py:375] "
        "WorkerProc hit an exception: Traceback (most recent call last):",
        '(VllmWorker rank=0 pid=5120) ERROR 04-01 10:00:06 [multiproc_executor.py:375]   File '
        '"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line '
        "370, in worker_busy_loop",
        "(VllmWorker rank=0 pid=5120) ERROR 04-01 10:00:06 [multiproc_executor.py:375] "
        "RuntimeError: shm_broadcast: reader gone",
        "RuntimeError: Engine core initialization failed. See root cause above.",
    ]
    report = explain(lines)
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == ("ValueError", 4)


# ---- an engine's error: only its engine's later work saves it, never answers in flight --------
# The API server logs a stream's `200` as the stream starts, so answers it logs just after an
# engine core's or a worker's error may be requests the failure then ended (causal.IN_FLIGHT).
# They neither save the error when the log ends there (an excerpt cut after the crash) nor when
# the engine's death is reported; answers well after it show the engine served on.

def _engine_failure(s: Server, where: str) -> list[str]:
    return s.engine_error(OUT_OF_VOCAB) if where == "engine" \
        else s.worker_runtime_error(1, OUT_OF_VOCAB)


def _interleave(data: st.DataObject, first: list[str], second: list[str]) -> list[str]:
    """Two processes' lines merged in an order hypothesis picks, each in its own order."""
    picks = data.draw(st.permutations([0] * len(first) + [1] * len(second)))
    sources = [iter(first), iter(second)]
    return [next(sources[pick]) for pick in picks]


@given(st.data(), st.sampled_from(["engine", "worker"]), st.integers(0, 40),
       st.integers(1, IN_FLIGHT - 2), st.booleans())
def test_answers_in_flight_never_save_an_engines_error(data: st.DataObject, where: str,
                                                       before: int, in_flight: int,
                                                       reported: bool) -> None:
    s = Server()
    head = s.startup() + s.requests(before)
    failure = _engine_failure(s, where)
    answers = s.requests(in_flight)[:in_flight]
    # the answers may be logged while the traceback is printed, from its second line on
    lines = head + failure[:1] + _interleave(data, failure[1:], answers)
    if reported:
        lines += s.engine_dead()
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None
    assert report.root_cause.line == line_of(lines, "ValueError: Token id", len(head))


@given(st.sampled_from(["engine", "worker"]), st.integers(IN_FLIGHT + 1, 3 * IN_FLIGHT))
def test_answers_well_after_an_engines_error_show_it_served_on(where: str, after: int) -> None:
    s = Server()
    lines = s.startup() + s.requests(5) + _engine_failure(s, where) + s.requests(after)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.reasons
    assert [e.exception for e in report.survived] == ["ValueError"]


# ---- a progress bar that has not advanced -------------------------------------------------------
# tqdm draws its bar when the loop it wraps starts and once more when that loop raises: loading the
# first checkpoint shard fails, and the log shows the bar at 0, the traceback, the bar at 0 again
# (vllm#15222). A bar at 0 is no step taken: it neither marks nor claims its phase, and the first
# bar of the phase that advanced does both (causality.yaml `unstarted_bars`).

_BAR_FORMATS = (
    "Loading safetensors checkpoint shards: {percent:3d}% Completed | {done}/{total} [00:00<?, "
    "?it/s]",
    "Loading pt checkpoint shards: {percent:3d}%|###       | {done}/{total} [00:00<?, ?it/s]",
)
_BAR_PREFIXES = ("", "[rank0]: ", "(VllmWorker rank=0 pid=812) ")
_OFFLINE_START = ["INFO 05-01 10:00:01 llm_engine.py:237] Initializing an LLM engine (v0.6.3) "
                  "with config: model='m'"]


def _bar(form: str, done: int, total: int) -> str:
    return form.format(percent=done * 100 // total, done=done, total=total)


@given(st.sampled_from(_BAR_FORMATS), st.integers(1, 120), st.sampled_from(_BAR_PREFIXES),
       st.integers(0, 2), st.integers(1, 3), st.booleans())
def test_a_bar_at_zero_around_a_loading_error_does_not_save_it(form: str, total: int, prefix: str,
                                                                before: int, after: int,
                                                                started: bool) -> None:
    lines = list(_OFFLINE_START)
    if started:
        lines += ["INFO 05-01 10:00:05 model_runner.py:1056] Starting to load model /models/m..."]
    lines += [prefix + _bar(form, 0, total)] * before
    crash_at = len(lines)
    lines += [prefix + line for line in _unnamed_traceback(
        [("/usr/lib/python3/site-packages/vllm/model_executor/models/bert.py", "load_weights")],
        "KeyError: 'embeddings.LayerNorm.weight'")]
    lines += [prefix + _bar(form, 0, total)] * after
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == line_of(lines, "KeyError", crash_at)


@given(st.sampled_from(_BAR_FORMATS), st.integers(1, 120), st.data(),
       st.sampled_from(_BAR_PREFIXES), st.integers(0, 3))
def test_a_bar_that_advanced_after_bars_at_zero_still_marks_its_phase(
        form: str, total: int, data: st.DataObject, prefix: str, zeros: int) -> None:
    """An error, the phase's bar at 0 (drawn, or redrawn any number of times), then the same bar
    advanced: the bar at 0 claimed nothing, so the bar that moved marks the phase, and the error
    is survived (the run went on loading). The reverted rule of 14387f3 lost exactly this."""
    done = data.draw(st.integers(1, total))
    lines = [*_OFFLINE_START,  # the error and the bars printed by one process
             prefix + "ERROR 05-01 10:00:02 repo_utils.py:47] Error retrieving safetensors: Repo "
             "id must be in the form 'repo_name' or 'namespace/repo_name': '/data0/m'. Use "
             "`repo_type` argument if needed., retrying 1 of 2"]
    lines += [prefix + _bar(form, 0, total)] * zeros
    lines += [prefix + _bar(form, done, total)]
    report = explain(lines)
    assert report.verdict is not Verdict.FAILURE, report.reasons
    assert [e.exception for e in report.survived] == ["ERROR"]
    # and the same error, followed by the bar at 0 alone, was no step taken
    if zeros:
        assert explain(lines[:-1]).verdict is Verdict.FAILURE


@given(st.integers(1, 120), st.data())
def test_only_a_bar_that_has_not_advanced_is_unstarted(total: int, data: st.DataObject) -> None:
    done = data.draw(st.integers(0, total))
    percent = done * 100 // total
    know = default_causality()
    for bar in (f"Loading safetensors checkpoint shards: {percent:3d}% Completed | {done}/{total}",
                f"Processed prompts: {percent:3d}%|#####     | {done}/{total} [00:01<00:01]",
                f"{percent:3d}%|##        | {done}/{total} [00:00<00:03,  1.21it/s]"):
        assert know.is_unstarted_bar(bar) is (done == 0)


# ---- a tool parser's error while serving ----------------------------------------------------------
# The parser logs its own error and returns the text as content; the server answers and goes on.
# REPORT_SCHEMA.md: handled, harmless tracebacks do not count, so the log is no_failure and the
# error is listed as survived, as the tuning set labels such logs (compose-v1-hermes-tool-parser-errors,
# hermes-tool-parser-jsondecodeerror-no-date, hermes-streaming-tool-parser-traceback-cut).

_PARSER_HEADS = (
    "(APIServer pid=85343) ERROR 10-09 09:39:54 [hermes_tool_parser.py:157] ",
    "ERROR 05-01 10:01:00 hermes_tool_parser.py:110] ",
    "ERROR [hermes_tool_parser.py:110] ",
)
_PARSER_FUNCTIONS = ("extract_tool_calls", "extract_tool_calls_streaming")
_PARSER_ERRORS = ("json.decoder.JSONDecodeError: Extra data: line 3 column 1 (char 527)",
                  "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)")


@given(st.sampled_from(_PARSER_HEADS), st.sampled_from(_PARSER_FUNCTIONS),
       st.sampled_from(_PARSER_ERRORS), st.integers(1, 5), st.integers(1, 5),
       st.booleans())
def test_a_tool_parsers_error_while_serving_is_survived(head: str, function: str, error: str,
                                                         before: int, after: int,
                                                         prefixed: bool) -> None:
    lines = _V0_START + [_ANSWERED.format(n=n) for n in range(before)]
    record = ["Error in extracting tool call from response.",
              "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/'
              f'tool_parsers/hermes_tool_parser.py", line 88, in {function}',
              "    json.loads(match[0] if match[0] else match[1])",
              error]
    lines += [head + record[0]] + [(head if prefixed else "") + line for line in record[1:]]
    lines += [_ANSWERED.format(n=n) for n in range(before, before + after)]
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.reasons
    assert any(e.exception == "json.decoder.JSONDecodeError" for e in report.survived) \
        or any("extracting tool call" in e.message for e in report.survived)
