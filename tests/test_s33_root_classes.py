"""Classes of issue 10 (root cause and verdict) that session 33's development split showed, each
over generated logs of its class, with the same shapes where they are (or are not) the failure.

- **A poll of a socket its own process closed.** pyzmq's asyncio socket raises `ZMQError:
  Operation not supported` (ENOTSUP) from `poll` only once the socket is closed (zmq/_future.py:
  `if self.closed: raise ZMQError(ENOTSUP)`). V0's multiprocessing front end (MQLLMEngineClient,
  0.6-0.10) closes its client as it gives up on an engine process that died, and asyncio then
  reports each output loop still polling it (`Task exception was never retrieved`): a symptom
  (causality.yaml `symptoms`, `raised_at`). With nothing else, the cause is not in the log
  (tests/fixtures/tuning: s-minikube-wsl-v064post1-mqllmengine-zmq-enotsup-engine-died-silently);
  the engine's own traceback before it is the root. The same message raised anywhere else
  (libzmq refusing an option, below a compiled frame), or another message at that place, is a
  cause.
- **asyncio's bare report of the next task.** Where no logging is configured (V0's front end),
  asyncio's `Task exception was never retrieved` / `Future exception was never retrieved` /
  `Exception in callback ...` is printed bare, like the line of a message going on; it heads the
  next record, whose traceback follows, and ends the message above it (the first ZMQError's
  message held the next task's heading, and that task lost its `future: <Task ...>` title).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import ErrorEvent, Report, Verdict
from logsleuth.pipeline import explain_text, parse
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=20, deadline=None)

SITES = st.sampled_from([
    "/usr/local/lib/python3.12/dist-packages",
    "/opt/conda/lib/python3.10/site-packages",
    "/home/user/.local/lib/python3.11/site-packages",
    "/opt/vllm/lib64/python3.12/site-packages",
])
WRAPS = st.sampled_from(["plain", "docker", "compose", "kubectl"])


def wrapped(lines: list[str], wrap: str) -> list[str]:
    """Each line as a collector keeps it: as printed, behind docker's time, compose's service
    column, or as `kubectl logs` prints it (as printed)."""
    if wrap == "docker":
        return [f"2025-01-16T18:11:{i % 60:02d}.123456789Z {line}" for i, line in enumerate(lines)]
    if wrap == "compose":
        return [f"vllm-1  | {line}" for line in lines]
    return lines


def explain(lines: list[str]) -> Report:
    return explain_text("".join(f"{line}\n" for line in lines), signatures=default_signatures())


def errors(lines: list[str]) -> list[ErrorEvent]:
    """The error events of a log written to a file (parse reads a path)."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "log.txt"
        log.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        return [e for e in parse(log) if isinstance(e, ErrorEvent)]


STARTUP = [
    "INFO 01-16 18:10:46 api_server.py:585] vLLM API server version 0.6.4.post1",
    "INFO 01-16 18:10:46 api_server.py:194] Started engine process with PID 38",
    "INFO 01-16 18:10:54 model_runner.py:1072] Starting to load model some/model...",
    "INFO 01-16 18:11:58 model_runner.py:1077] Loading model weights took 2.0512 GB",
    "INFO 01-16 18:11:59 gpu_executor.py:113] # GPU blocks: 20671, # CPU blocks: 11915",
]


# the client's loops that poll a socket: its output loop, and its heartbeat loop (0.6.x)
LOOPS = {"run_output_handler_loop": "while await self.output_socket.poll(timeout=VLLM_RPC_TIMEOUT",
         "run_heartbeat_loop": "if await self.heartbeat_socket.poll(timeout=timeout) == 0:"}


def closed_poll(site: str, task: int, carets: bool, zmq_line: int,
                heading: str = "Task exception was never retrieved",
                message: str = "Operation not supported",
                raise_line: str = "raise _zmq.ZMQError(_zmq.ENOTSUP)",
                loop: str = "run_output_handler_loop") -> list[str]:
    """asyncio's report of one MQLLMEngineClient loop that polled its closed socket."""
    lines = [
        heading,
        f"future: <Task finished name='Task-{task}' coro=<MQLLMEngineClient.{loop}() done, "
        f"defined at {site}/vllm/engine/multiprocessing/client.py:178> "
        f"exception=ZMQError('{message}')>",
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/engine/multiprocessing/client.py", line 184, in {loop}',
        f"    {LOOPS[loop]}",
    ]
    if carets:
        lines.append("                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")
    lines += [f'  File "{site}/zmq/_future.py", line {zmq_line}, in poll',
              f"    {raise_line}",
              f"zmq.error.ZMQError: {message}"]
    return lines


def failed_to_start(site: str) -> list[str]:
    return [
        "Traceback (most recent call last):",
        '  File "<frozen runpy>", line 198, in _run_module_as_main',
        f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 609, in run_server',
        "    async with build_async_engine_client(args) as engine_client:",
        f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 210, in '
        "build_async_engine_client_from_engine_args",
        "    raise RuntimeError(",
        "RuntimeError: Engine process failed to start. See stack trace for the root cause.",
    ]


ENDINGS = st.sampled_from(["failed_to_start", "cut"])


def polls(site: str, tasks: int, carets: bool, zmq_line: int) -> list[str]:
    return [line for task in range(2, 2 + tasks)
            for line in closed_poll(site, task, carets, zmq_line,
                                    loop=sorted(LOOPS)[task % len(LOOPS)])]


@SOME
@given(SITES, st.integers(1, 6), st.booleans(), st.sampled_from([371, 382, 400]), ENDINGS, WRAPS,
       st.booleans())
def test_polls_of_the_closed_client_alone_leave_the_root_out(
        site: str, tasks: int, carets: bool, zmq_line: int, ending: str, wrap: str,
        startup: bool) -> None:
    lines = [*(STARTUP if startup else []), *polls(site, tasks, carets, zmq_line),
             *(failed_to_start(site) if ending == "failed_to_start" else [])]
    report = explain(wrapped(lines, wrap))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.reasons
    assert report.root_cause is None


ENGINE_ERRORS = [
    ("ValueError", "The model's max seq len (32768) is larger than the maximum number of tokens "
                   "that can be stored in KV cache (20752). Try increasing `gpu_memory_utilization`"
                   " or decreasing `max_model_len` when initializing the engine."),
    ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total "
                               "capacity of 11.99 GiB of which 0 bytes is free."),
    ("AssertionError", "Tensor parallel size (2) must be a divisor of 3"),
]


@SOME
@given(SITES, st.integers(1, 4), st.booleans(), st.sampled_from(ENGINE_ERRORS), ENDINGS, WRAPS)
def test_the_engines_own_error_before_the_polls_is_the_root(
        site: str, tasks: int, carets: bool, error: tuple[str, str], ending: str,
        wrap: str) -> None:
    name, message = error
    engine = [
        "Process SpawnProcess-1:",
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/engine/multiprocessing/engine.py", line 390, in run_mp_engine',
        "    engine = MQLLMEngine.from_engine_args(engine_args=engine_args,",
        f'  File "{site}/vllm/worker/worker.py", line 229, in determine_num_available_blocks',
        "    self.model_runner.profile_run()",
        f"{name}: {message}",
    ]
    lines = [*STARTUP, *engine, *polls(site, tasks, carets, 400),
             *(failed_to_start(site) if ending == "failed_to_start" else [])]
    report = explain(wrapped(lines, wrap))
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None
    assert report.root_cause.exception == name
    assert report.root_cause.line == len(STARTUP) + len(engine)


@SOME
@given(SITES, st.integers(1, 3), st.booleans(), ENDINGS, WRAPS)
def test_another_message_at_the_closed_poll_is_a_cause(
        site: str, tasks: int, carets: bool, ending: str, wrap: str) -> None:
    # the place alone is no symptom: the message must be the closed socket's refusal
    lines = [line for task in range(2, 2 + tasks)
             for line in closed_poll(site, task, carets, 400,
                                     message="Address already in use (addr='tcp://127.0.0.1:5570')",
                                     raise_line="raise _zmq.ZMQError(_zmq.EADDRINUSE)")]
    lines += failed_to_start(site) if ending == "failed_to_start" else []
    report = explain(wrapped(lines, wrap))
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None and report.root_cause.exception.endswith("ZMQError")
    assert report.root_cause.message.startswith("Address already in use")


@SOME
@given(SITES, WRAPS, st.sampled_from(["set", "bind", "connect"]))
def test_enotsup_raised_by_libzmq_is_a_cause(site: str, wrap: str, call: str) -> None:
    # libzmq refusing what it was asked (an option, a transport) says so with the same words
    # from the socket's own call, below a compiled frame: the refusal is the failure
    lines = [
        *STARTUP[:2],
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/utils.py", line 2034, in make_zmq_socket',
        f"    socket.{call}(path)",
        f'  File "{site}/zmq/sugar/socket.py", line 311, in {call}',
        f"    super().{call}(addr)",
        f'  File "_zmq.py", line 917, in zmq.backend.cython._zmq.Socket.{call}',
        '  File "_zmq.py", line 179, in zmq.backend.cython._zmq._check_rc',
        "zmq.error.ZMQError: Operation not supported",
    ]
    report = explain(wrapped(lines, wrap))
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None and report.root_cause.exception.endswith("ZMQError")


# --- asyncio's bare report of the next task -----------------------------------------------------

HEADINGS = st.sampled_from(["Task exception was never retrieved",
                            "Future exception was never retrieved",
                            "Exception in callback Loop.done(<Task finished name='Task-{task}'>)"])
RAISED = st.sampled_from([
    ("zmq.error.ZMQError", "Operation not supported"),
    ("RuntimeError", "Event loop is closed"),
    ("ValueError", "bad value"),
    ("asyncio.exceptions.CancelledError", ""),
])


def task_report(heading: str, task: int, site: str, raised: tuple[str, str]) -> list[str]:
    name, message = raised
    short = name.rsplit(".", 1)[-1]
    described = (f"handle: <Handle Loop.done(<Task finished name='Task-{task}'>)>"
                 if heading.startswith("Exception in callback") else
                 f"future: <Task finished name='Task-{task}' coro=<Loop.run() done, defined at "
                 f"{site}/app/loop.py:10> exception={short}('{message}')>")
    return [
        heading.format(task=task),
        described,
        "Traceback (most recent call last):",
        f'  File "{site}/app/loop.py", line 12, in run',
        "    await self.step()",
        f"{name}: {message}" if message else name,
    ]


@SOME
@given(st.lists(st.tuples(HEADINGS, RAISED), min_size=2, max_size=5), SITES, WRAPS)
def test_each_bare_task_report_heads_its_own_traceback(
        reports: list[tuple[str, tuple[str, str]]], site: str, wrap: str) -> None:
    lines = [line for task, (heading, raised) in enumerate(reports, start=2)
             for line in task_report(heading, task, site, raised)]
    found = [e for e in errors(wrapped(lines, wrap)) if e.frames]
    assert len(found) == len(reports)
    for task, (event, (heading, (name, message))) in enumerate(zip(found, reports), start=2):
        assert event.exception == name
        assert event.message == message  # the next report's heading is not its message
        if "never retrieved" in heading:  # its `future: <Task ...>` line is its own title
            assert event.title is not None and f"name='Task-{task}'" in event.title


@SOME
@given(RAISED, SITES, WRAPS)
def test_a_message_that_goes_on_bare_keeps_its_lines(raised: tuple[str, str], site: str,
                                                      wrap: str) -> None:
    # near miss: a message's further lines are printed as bare as a bare report's heading
    name, _ = raised
    lines = [
        "Traceback (most recent call last):",
        f'  File "{site}/app/loop.py", line 12, in run',
        "    await self.step()",
        f"{name}: the step failed",
        "while the task was still waiting for its result",
    ]
    (event,) = errors(wrapped(lines, wrap))
    assert "while the task was still waiting" in event.message
