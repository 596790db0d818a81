"""Three rules of issue 10 (survived or fatal from evidence), each over generated logs of its class.

- **Carriers.** Ray's `RayTaskError(X): ray::Actor.method() (pid=N, ...)` prints the remote
  process's traceback and its `X: ...` right under its own line (causality.yaml `carriers`). Where
  every error before it is the process it names (an RL trainer's rollout worker: its NCCL
  watchdog's record of a CUDA error, then its abort), the carried exception is that process's
  failure printed in full, with the frames that say where: the root, whatever the watchdog printed
  first (tests/fixtures/tuning: gg-verl-ci-ray-ppo-megatron-v0-rollout-sampler-illegal-memory-
  access-watchdog-abort-134-lines). Where another process failed first, the carried exception may
  follow from that failure (a task that found its peer dead) and the earlier error stays the root.
- **Echoes.** A sticky device error that a process's Python code raised with its traceback, and
  that native code of the same process (an unprefixed line may be any process's) reported on its
  own (torch's NCCL watchdog, then its abort), is the raised exception; the watchdog's report is
  its echo, printed before or after it. A watchdog's own failure (a collective timed out) is no
  echo of a later error.
- **Bursts.** One failure is printed by every worker it reaches, with native records between: the
  answers of requests in flight when it began come after the last of them, so the window in which
  an answer does not show the engine survived runs from the burst's end, however many lines the
  burst takes (tests/fixtures/tuning: k-ascend-v0110rc2-pd-1p1d-dp2-tp8-decode-mooncake-ascend-
  direct-connect-103900). Answers well past that window still save it.
- **Interrupts.** A KeyboardInterrupt only a child process (an engine core, a worker) raised, which
  its parent reports as that child's failure (`Engine core initialization failed. See root cause
  above`), stopped no program: it is the failure (tests/fixtures/tuning: dd-v0230-py313-awq-engine-
  core-keyboardinterrupt-during-torch-compile). Ctrl-C that reached the parent too (its own
  KeyboardInterrupt) is an operator's stop, no failure (tests/fixtures/tuning/healthy:
  b-v0220-py313-startup-cancelled-keyboardinterrupt).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text

SOME = settings(max_examples=20, deadline=None)
STICKY = ["an illegal memory access was encountered", "device-side assert triggered",
          "unspecified launch failure", "misaligned address"]
ACTORS = ["WorkerDict", "RayWorkerWrapper", "RayWorkerVllm", "FSDPPolicyWorkerBase",
          "vLLMRolloutWorker"]
METHODS = ["actor_rollout_generate_sequences", "execute_method", "generate", "execute_model"]


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


def _line_of(lines: list[str], text: str) -> int:
    return next(i for i, line in enumerate(lines, 1) if line.startswith(text))


def _watchdog(actor: str, pid: int, rank: int, error: str, abort: bool) -> list[str]:
    p = f"({actor} pid={pid}) "
    out = [f"{p}[rank{rank}]:[E402 16:49:38.988158820 ProcessGroupNCCL.cpp:1515] [PG 97 Rank 0] "
           f"Process group watchdog thread terminated with exception: CUDA error: {error}",
           f"{p}CUDA kernel errors might be asynchronously reported at some other API call, so "
           "the stacktrace below might be incorrect.",
           f"{p}For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if abort:
        out += [f"{p}[2025-04-02 16:49:38,666 E {pid} 20767] logging.cc:97: Unhandled exception: "
                f"N3c1016DistBackendErrorE. what(): [PG 97 Rank 0] Process group watchdog thread "
                f"terminated with exception: CUDA error: {error}",
                f"{p}*** SIGABRT received at time=1743612578 on cpu 118 ***",
                f"{p}Fatal Python error: Aborted",
                f"{p}"]
    return out


def _driver(actor: str, method: str, pid: int, error: str, nested: bool,
            carried: str = "RuntimeError") -> list[str]:
    out = ["Traceback (most recent call last):",
           '  File "/app/trainer/main_ppo.py", line 54, in main',
           "    run_ppo(config)",
           '  File "/usr/lib/python3.10/site-packages/ray/_private/worker.py", line 864, in '
           "get_objects",
           "    raise value.as_instanceof_cause()"]
    if nested:
        out += [f"ray.exceptions.RayTaskError({carried}): ray::TaskRunner.run() (pid=10086, "
                "ip=172.20.0.2, actor_id=11bc4518)",
                '  File "/app/trainer/ray_trainer.py", line 545, in _validate',
                "    output = self.actor_rollout_wg.generate_sequences(batch)"]
    out += [f"ray.exceptions.RayTaskError({carried}): ray::{actor}.{method}() (pid={pid}, "
            "ip=172.20.0.2, actor_id=4f210758)",
            '  File "/usr/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 1708, '
            "in execute_model",
            "    output: SamplerOutput = self.model.sample(",
            '  File "/usr/lib/python3.10/site-packages/vllm/model_executor/sampling_metadata.py", '
            "line 529, in from_lists",
            "    temperatures_t = torch.tensor(",
            f"{carried}: CUDA error: {error}",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    return out


# every actor class: vLLM's own Ray workers are workers (a parent's later error follows from
# theirs by process order), an RL framework's actors are processes of no vLLM role
@pytest.mark.parametrize("actor", ACTORS)
@SOME
@given(st.sampled_from(METHODS), st.integers(1000, 99999), st.integers(0, 7),
       st.sampled_from(STICKY), st.booleans(), st.booleans(), st.integers(0, 40))
def test_a_carried_cause_of_the_named_process_is_its_failure(
        actor: str, method: str, pid: int, rank: int, error: str, abort: bool, nested: bool,
        chatter: int) -> None:
    lines = ["(TaskRunner pid=10086) step:0", "Training Progress:  33%|###  | 1/3 [02:39<05:18]",
             *_watchdog(actor, pid, rank, error, abort),
             *(f"(TaskRunner pid=10086) [response] answer {i}" for i in range(chatter)),
             *_driver(actor, method, pid, error, nested)]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == _line_of(lines, "RuntimeError: CUDA error")


@SOME
@given(st.sampled_from(ACTORS), st.sampled_from(METHODS), st.integers(1000, 99999),
       st.sampled_from(STICKY), st.booleans())
def test_another_process_failing_first_keeps_its_place(
        actor: str, method: str, pid: int, error: str, nested: bool) -> None:
    # a peer (another pid) failed first; the carried error may follow from it
    lines = [f"({actor} pid={pid + 1}) Traceback (most recent call last):",
             f'({actor} pid={pid + 1})   File "/app/worker.py", line 3, in init_model',
             f"({actor} pid={pid + 1})     import flash_attn_2_cuda",
             f"({actor} pid={pid + 1}) ImportError: flash_attn_2_cuda.so: undefined symbol: "
             "_ZNK3c1011StorageImpl",
             *_driver(actor, method, pid, error, nested)]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "ImportError"


@SOME
@given(st.sampled_from(ACTORS), st.sampled_from(METHODS), st.integers(1000, 99999),
       st.sampled_from(STICKY))
def test_a_wrapper_of_another_class_carries_nothing(actor: str, method: str, pid: int,
                                                    error: str) -> None:
    # the exception under the wrapper is not of the class it names: not its carried cause, and
    # the watchdog's record, the earliest, stays the root
    lines = [*_watchdog(actor, pid, 0, error, True),
             *_driver(actor, method, pid, error, False, carried="RuntimeError")]
    at = next(i for i, line in enumerate(lines) if line.startswith("RuntimeError: CUDA"))
    lines[at] = "ValueError: CUDA error: " + error
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.line == 1


def _burst(workers: int, native: bool, request: str) -> list[str]:
    lines: list[str] = []
    for rank in range(workers):
        if native:
            lines += [f"E1210 03:24:54.{778028 + rank:06d} {2548307 + rank} "
                      "ascend_direct_transport.cpp:820] Failed to connect to target: "
                      f"172.16.100.99:{25389 + rank}, status: 103900",
                      f"E1210 03:24:54.{778062 + rank:06d} {2548307 + rank} "
                      "ascend_direct_transport.cpp:581] Failed to connect to segment: "
                      f"172.16.100.99:{16381 + rank}"]
        p = f"(Worker_DP0_TP{rank} pid={2543213 + rank})"
        lines += [f"{p} ERROR 12-10 03:24:54 [mooncake_connector.py:410] Mooncake transfer failed "
                  f"for request {request}",
                  f"{p} ERROR 12-10 03:24:54 [mooncake_connector.py:329] Failed to transfer KV "
                  f"cache for request {request}: Mooncake transfer failed, ret: -1"]
    return lines


_SERVER = "(APIServer pid=2531394)"
_ANSWER = f'{_SERVER} INFO:     172.16.100.98:57438 - "POST /v1/completions HTTP/1.1" 200 OK'
_STATS = (f"{_SERVER} INFO 12-10 03:24:58 [loggers.py:127] Engine 000: Avg prompt throughput: "
          "{p} tokens/s, Avg generation throughput: {g} tokens/s, Running: 0 reqs, Waiting: 0 reqs")


@SOME
@given(st.integers(2, 16), st.booleans(), st.sampled_from(["cmpl-09be0283-0", "chatcmpl-7f3a"]))
def test_the_answer_right_after_a_burst_is_in_flight(workers: int, native: bool,
                                                     request: str) -> None:
    lines = [*_burst(workers, native, request), _ANSWER, _STATS.format(p="0.6", g="2.4"),
             _STATS.format(p="0.0", g="0.0")]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1


@SOME
@given(st.integers(2, 16), st.booleans(), st.integers(31, 80))
def test_answers_past_the_window_after_the_burst_save_it(workers: int, native: bool,
                                                         quiet: int) -> None:
    lines = [*_burst(workers, native, "cmpl-1"),
             *(f"{_SERVER} DEBUG 12-10 03:25:0{i % 10} [client.py:1] waiting"
               for i in range(quiet)),
             _ANSWER.replace("57438", "57500"), _STATS.format(p="12.0", g="40.1")]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


_COMPILE = [
    "INFO 06-22 01:26:12 [backends.py:1148] Dynamo bytecode transform time: 7.92 s",
    "INFO 06-22 01:26:18 [backends.py:378] Cache the graph of compile range (1, 2048) for later "
    "use",
]
_LOAD = ["INFO 06-22 01:26:00 [default_loader.py:397] Loading weights took 2.28 seconds"]


def _child_interrupt(child: str, frames: list[tuple[str, str]], landed: bool) -> list[str]:
    p = f"({child} pid=3408798) "
    out = [f"{p}Process {child.split()[0]}:", f"{p}Traceback (most recent call last):"]
    for file, function in frames:
        out += [f'{p}  File "/venv/lib/python3.13/site-packages/{file}", line 10, in {function}',
                f"{p}    {function}()"]
    if landed:  # the interrupt landed while another exception was being raised
        out += [f'{p}  File "/usr/lib/python3.13/typing.py", line 3817, in __getattr__',
                f'{p}    raise AttributeError(f"module {{__name__!r}} has no attribute")']
    return [*out, f"{p}KeyboardInterrupt"]


_REPORT = [
    "(APIServer pid=3407862) Traceback (most recent call last):",
    '(APIServer pid=3407862)   File "/venv/lib/python3.13/site-packages/vllm/v1/engine/utils.py", '
    "line 1249, in wait_for_engine_startup",
    "(APIServer pid=3407862)     raise RuntimeError(",
    "(APIServer pid=3407862) RuntimeError: Engine core initialization failed. See root cause "
    "above. Failed core proc(s): {}",
]
_FRAMES = [("vllm/v1/engine/core.py", "run_engine_core"),
           ("vllm/v1/worker/gpu_worker.py", "determine_available_memory"),
           ("vllm/compilation/backends.py", "compile"),
           ("torch/_inductor/codecache.py", "dumps"),
           ("vllm/model_executor/model_loader/default_loader.py", "load_weights")]


@SOME
@given(st.sampled_from([_COMPILE, _LOAD]), st.lists(st.sampled_from(_FRAMES), min_size=1,
                                                     max_size=4), st.booleans(), st.booleans())
def test_an_interrupt_only_a_child_got_that_its_parent_reports_is_the_failure(
        steps: list[str], frames: list[tuple[str, str]], landed: bool, nccl_warning: bool) -> None:
    lines = [*(f"(EngineCore pid=3408798) {line}" for line in steps),
             *_child_interrupt("EngineCore", frames, landed),
             *(["[rank0]:[W622 01:26:22.765816358 ProcessGroupNCCL.cpp:1575] Warning: WARNING: "
                "destroy_process_group() was not called before program exit"] if nccl_warning
               else []),
             *_REPORT]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "KeyboardInterrupt"
    assert report.root_cause.process.name == "EngineCore"


@SOME
@given(st.sampled_from([_COMPILE, _LOAD]), st.lists(st.sampled_from(_FRAMES), min_size=1,
                                                     max_size=4), st.booleans())
def test_ctrl_c_that_reached_the_parent_too_is_a_stop(
        steps: list[str], frames: list[tuple[str, str]], report_too: bool) -> None:
    parent = ["(APIServer pid=3407862) Traceback (most recent call last):",
              '(APIServer pid=3407862)   File "/usr/lib/python3.13/asyncio/runners.py", line 157, '
              "in _on_sigint",
              "(APIServer pid=3407862)     raise KeyboardInterrupt()",
              "(APIServer pid=3407862) KeyboardInterrupt"]
    lines = [*(f"(EngineCore pid=3408798) {line}" for line in steps),
             *_child_interrupt("EngineCore", frames, False), *parent,
             *(_REPORT if report_too else [])]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(st.sampled_from([_COMPILE, _LOAD]), st.lists(st.sampled_from(_FRAMES), min_size=1,
                                                     max_size=4))
def test_a_child_interrupt_nobody_reports_is_a_stop(steps: list[str],
                                                    frames: list[tuple[str, str]]) -> None:
    lines = [*(f"(EngineCore pid=3408798) {line}" for line in steps),
             *_child_interrupt("EngineCore", frames, False)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(0, 7), st.lists(st.sampled_from(_FRAMES), min_size=1, max_size=4),
       st.booleans())
def test_a_workers_interrupt_its_engine_core_reports_is_the_failure(
        rank: int, frames: list[tuple[str, str]], api_report: bool) -> None:
    worker = f"VllmWorker rank={rank}"
    lines = [*_child_interrupt(worker, frames, False),
             "(EngineCore pid=3408700) ERROR 06-22 01:26:22 [multiproc_executor.py:140] Worker "
             f"proc VllmWorker-{rank} died unexpectedly, shutting down executor.",
             *(_REPORT if api_report else [])]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "KeyboardInterrupt"
    assert report.root_cause.process.name == worker


@SOME
@given(st.integers(2, 4), st.integers(2, 8), st.booleans())
def test_every_request_failing_alike_keeps_the_first_bursts_root(bursts: int, workers: int,
                                                                 native: bool) -> None:
    # each request's transfer fails, and each is answered (with what the decode made of no KV
    # cache): native records a worker's transfer engine wrote unprefixed are that worker's, not
    # an HTTP handler's error a later answer saves as a recurrence (causal.py
    # `_may_be_request_error`)
    lines: list[str] = []
    for k in range(bursts):
        lines += [*_burst(workers, native, f"cmpl-{k}"), _ANSWER.replace("57438", f"{57438 + k}"),
                  _STATS.format(p="0.6", g="2.4")]
    report = _explain([*lines, _STATS.format(p="0.0", g="0.0")])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1


@pytest.mark.parametrize("actor", ACTORS)
@SOME
@given(st.integers(1000, 99999), st.sampled_from(STICKY), st.booleans(), st.booleans())
def test_the_named_processs_own_traceback_is_the_earliest_copy(actor: str, pid: int, error: str,
                                                               first: bool, nested: bool) -> None:
    # the actor printed its own traceback too (before or after its watchdog's record): that copy
    # of the carried exception, the earliest, is the root
    p = f"({actor} pid={pid}) "
    own = [f"{p}Traceback (most recent call last):",
           f'{p}  File "/usr/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 1708, '
           "in execute_model",
           f"{p}    output = self.model.sample(",
           f"{p}RuntimeError: CUDA error: {error}"]
    watchdog = _watchdog(actor, pid, 0, error, True)
    lines = [*(own + watchdog if first else watchdog + own),
             *_driver(actor, "generate", pid, error, nested)]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == _line_of(lines, f"{p}RuntimeError")
    assert report.root_cause.process.pid == pid


def test_the_reasons_say_the_carrier_names_the_process() -> None:
    error = STICKY[0]
    lines = [*_watchdog("WorkerDict", 18980, 0, error, True),
             *_driver("WorkerDict", "generate", 18980, error, True)]
    reasons = _explain(lines).reasons
    carrier = _line_of(lines, "ray.exceptions.RayTaskError(RuntimeError): ray::WorkerDict")
    assert reasons[0].startswith(f"It is the error the report at line {carrier} carries in full")
    assert "that process's own reports of the failure" in reasons[0]


@pytest.mark.parametrize("child", ["EngineCore", "EngineCore_DP0", "EngineCore_0"])
@pytest.mark.parametrize("reporter", ["(APIServer pid=3407862) ", ""])
def test_any_engine_core_reported_by_a_server_or_an_offline_script(child: str,
                                                                   reporter: str) -> None:
    # an offline `LLM` prints its engine core's failure unprefixed, from the script's process
    lines = [*(f"({child} pid=3408798) {line}" for line in _COMPILE),
             *_child_interrupt(child, _FRAMES[:3], True),
             *(line.replace("(APIServer pid=3407862) ", reporter) for line in _REPORT)]
    report = _explain(lines)
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.process.name) == \
        ("KeyboardInterrupt", child)


def test_a_single_process_interrupted_while_compiling_was_stopped() -> None:
    lines = [_COMPILE[0], "Traceback (most recent call last):",
             '  File "/venv/lib/python3.10/site-packages/vllm/compilation/backends.py", line 3, '
             "in compile", "    compile()", "KeyboardInterrupt"]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


def _unprefixed_watchdog(rank: int, error: str, abort: bool) -> list[str]:
    out = [f"[rank{rank}]:[E611 01:51:09.940883637 ProcessGroupNCCL.cpp:1896] [PG ID 2 PG GUID 3 "
           f"Rank {rank}] Process group watchdog thread terminated with exception: CUDA error: "
           f"{error}",
           "CUDA kernel errors might be asynchronously reported at some other API call, so the "
           "stacktrace below might be incorrect."]
    if abort:
        out += ["terminate called after throwing an instance of 'c10::DistBackendError'",
                f"  what():  [PG ID 2 PG GUID 3 Rank {rank}] Process group watchdog thread "
                f"terminated with exception: CUDA error: {error}"]
    return out


def _worker_traceback(rank: int, error: str) -> list[str]:
    p = (f"(VllmWorker rank={rank} pid={226 + rank}) ERROR 06-11 01:51:09 "
         "[multiproc_executor.py:527] ")
    return [f"{p}WorkerProc hit an exception.", f"{p}Traceback (most recent call last):",
            f'{p}  File "/usr/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py", '
            "line 1300, in execute_model",
            f"{p}    valid_sampled_token_ids = sampled_token_ids.tolist()",
            f"{p}RuntimeError: CUDA error: {error}"]


@SOME
@given(st.integers(0, 7), st.sampled_from(STICKY), st.booleans(), st.booleans(), st.booleans())
def test_a_watchdogs_report_echoes_the_exception_its_process_raised(
        rank: int, error: str, abort: bool, watchdog_first: bool, died: bool) -> None:
    # torch's NCCL watchdog finds the sticky error on its own and logs it (then aborts), before
    # or after the step's exception with its traceback: an echo, whichever came first
    watchdog, raised = _unprefixed_watchdog(rank, error, abort), _worker_traceback(rank, error)
    lines = [*(watchdog + raised if watchdog_first else raised + watchdog),
             *([f"(EngineCore_0 pid=200) ERROR 06-11 01:51:10 [multiproc_executor.py:140] Worker "
                f"proc VllmWorker-{rank} died unexpectedly, shutting down executor."] if died
               else [])]
    report = _explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.process.name == f"VllmWorker rank={rank}"


@SOME
@given(st.integers(0, 7), st.sampled_from(STICKY))
def test_a_watchdog_timeout_with_no_exception_of_its_error_stays_the_root(rank: int,
                                                                          error: str) -> None:
    # the watchdog's own failure (a collective that timed out; the process aborted over it),
    # then another error raised later: no echo, the watchdog's record is the earliest
    lines = [f"[rank{rank}]:[E611 01:51:09.940883637 ProcessGroupNCCL.cpp:632] [Rank {rank}] "
             "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE) "
             "ran for 600000 milliseconds before timing out.",
             "terminate called after throwing an instance of 'c10::DistBackendError'",
             *_worker_traceback(rank, error)]
    report = _explain(lines)
    assert report.root_cause is not None and report.root_cause.line == 1


@SOME
@given(st.integers(4, 16), st.integers(1, 3))
def test_polls_between_the_bursts_records_do_not_end_it(workers: int, every: int) -> None:
    # a load balancer's health polls, answered while the workers print the failure: the HTTP
    # server's own work, not the engine's, so the burst goes on past them
    poll = f'{_SERVER} INFO:     10.0.0.7:41000 - "GET /health HTTP/1.1" 200 OK'
    lines: list[str] = []
    for index, line in enumerate(_burst(workers, True, "cmpl-5")):
        lines += [line, *([poll] if index % (4 * every) == 3 else [])]
    report = _explain([*lines, _ANSWER, _STATS.format(p="0.6", g="2.4"),
                       _STATS.format(p="0.0", g="0.0")])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1


@pytest.mark.parametrize("stop", [
    "(APIServer pid=3407862) INFO:     Waiting for application shutdown.",
    "(APIServer pid=3407862) INFO 06-22 01:26:23 [core.py:1178] [shutdown] APIServer: trigger "
    "received signal=SIGINT",
    "(APIServer pid=3407862) INFO 06-22 01:26:23 [launcher.py:80] Shutting down FastAPI HTTP "
    "server. shutdown triggered",
])
@pytest.mark.parametrize("before", [True, False])
def test_a_child_interrupt_in_a_run_with_a_shutdown_asked_for_is_that_stop(stop: str,
                                                                         before: bool) -> None:
    lines = [*(f"(EngineCore pid=3408798) {line}" for line in _COMPILE),
             *([stop] if before else []), *_child_interrupt("EngineCore", _FRAMES[:2], False),
             *_REPORT, *([] if before else [stop])]
    assert _explain(lines).verdict is Verdict.NO_FAILURE
