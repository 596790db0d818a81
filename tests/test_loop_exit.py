"""A program's asyncio loop closing after its work is no failure (causality.yaml
`teardown.loop_reports`, `teardown.cancellations`; causal.py `_loop_exit`).

An agent, a benchmark or an RL framework that runs vLLM's server in its own process closes its
event loop when it is done: what still ran is cancelled, and asyncio's exception handler logs
the done callbacks that raised on it (`Exception in callback ...`, its `handle:` line and a
CancelledError traceback, often chained to a second CancelledError or to the closed loop's
`RuntimeError: Event loop is closed`), or a task dropped pending. After the run's output was
served (the server's access line, or the client's httpx record of the answer) and with nothing
after it, that is the exit. The same report before any output, with any other exception in its
chain (a timeout, the engine's error), followed by another error, or a CancelledError that
reached the top of the program with no loop report, is what it says: a failure.

asyncio's report printed bare (no logging configured: logging's last resort prints the message
alone, as in V0's front end) is the same record (assemble.py). Generated over record formats,
bare among them, the answer's evidence, the cancellation's spelling, its chain and
what the program prints after it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text

SOME = settings(max_examples=25, deadline=None)
START = [
    "INFO 09-18 09:24:56 [llm_engine.py:240] Initializing a V0 LLM engine (v0.8.5.post1) with "
    "config: model='Qwen/Qwen3-4B', speculative_config=None, tokenizer='Qwen/Qwen3-4B'",
    "INFO 09-18 09:25:10 [model_runner.py:1140] Model loading took 3.4153 GiB and 9.207365 seconds",
    "INFO 09-18 09:25:39 [model_runner.py:1592] Graph capturing finished in 19 secs, took 0.96 GiB",
    "INFO 09-18 09:25:40 [llm_engine.py:437] init engine (profile, create kv cache, warmup model) "
    "took 30.06 seconds",
]
ANSWERS = [
    '[2025-09-18 09:25:51] INFO _client.py:1740: HTTP Request: POST '
    'http://127.0.0.1:8000/v1/chat/completions "HTTP/1.1 200 OK"',
    '2025-09-18 09:25:51,123 - httpx - INFO - HTTP Request: POST '
    'http://localhost:8000/v1/completions "HTTP/1.1 200 OK"',
    'INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
]
PRINTS = ["Final answer: the date is 2025-09-18.", "[TEST] agent finished.",
          "{'messages': [AIMessage(content='ok')]}"]
HEADS = ["[2025-09-18 09:25:53] ERROR base_events.py:1758: {report}",
         "ERROR:asyncio:{report}",
         "2025-09-18 09:25:53,001 - asyncio - ERROR - {report}",
         # bare, where no logging is configured (logging's last resort prints the message alone)
         "{report}"]
REPORTS = [("Exception in callback Backend.close.<locals>.done_callback(<Task cancell...>) at "
            "/app/backend.py:278", "handle: <Handle Backend.close.<locals>.done_callback(<Task "
            "cancell...>) at /app/backend.py:278>"),
           ("Task exception was never retrieved",
            "future: <Task finished name='Task-7' coro=<Reader.run() done, defined at "
            "/app/reader.py:40> exception=CancelledError()>")]
CANCELLED = ["asyncio.exceptions.CancelledError", "CancelledError",
             "concurrent.futures._base.CancelledError"]
CLOSED = "RuntimeError: Event loop is closed"
TAILS = [[], ["wandb:", "wandb: View run agent at: http://wandb.local/runs/agent"],
         ["Exception ignored in: <function BaseEventLoop.__del__ at 0x7f0>",
          "Traceback (most recent call last):",
          '  File "/usr/lib/python3.10/asyncio/base_events.py", line 690, in __del__',
          "RuntimeError: Event loop is closed"]]


def traceback(exception: str, file: str = "/usr/lib/python3.10/asyncio/futures.py") -> list[str]:
    return ["Traceback (most recent call last):",
            f'  File "{file}", line 196, in result',
            "    raise exc",
            exception]


def loop_report(head: int, report: int, chain: list[str]) -> list[str]:
    title, under = REPORTS[report]
    lines = [HEADS[head].format(report=title), under]
    for index, exception in enumerate(chain):
        if index:
            lines += ["", "During handling of the above exception, another exception occurred:",
                      ""]
        lines += traceback(exception, "/app/backend.py" if index else
                           "/usr/lib/python3.10/asyncio/futures.py")
    return lines


def explain(lines: list[str]) -> Report:
    return explain_text("".join(line + "\n" for line in lines))


HEAD = st.integers(0, len(HEADS) - 1)
REPORT = st.integers(0, len(REPORTS) - 1)
ANSWER = st.sampled_from(ANSWERS)
CHAIN = st.lists(st.sampled_from([*CANCELLED, CLOSED]), min_size=1, max_size=3).filter(
    lambda chain: chain[0] != CLOSED)
PRINTED = st.lists(st.sampled_from(PRINTS), max_size=2)
TAIL = st.sampled_from(TAILS)


@SOME
@given(HEAD, REPORT, ANSWER, CHAIN, PRINTED, TAIL)
def test_cancellations_the_loop_reports_at_exit_are_no_failure(
        head: int, report: int, answer: str, chain: list[str], printed: list[str],
        tail: list[str]) -> None:
    lines = [*START, answer, *printed, *loop_report(head, report, chain), *tail]
    assert explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(HEAD, ANSWER, PRINTED)
def test_a_pending_task_dropped_at_exit_is_no_failure(
        head: int, answer: str, printed: list[str]) -> None:
    lines = [*START, answer, *printed,
             HEADS[head].format(report="Task was destroyed but it is pending!"),
             "task: <Task pending name='Task-3' coro=<Event.wait() running at "
             "/usr/lib/python3.12/asyncio/locks.py:212> wait_for=<Future cancelled>>"]
    assert explain(lines).verdict is Verdict.NO_FAILURE


@SOME
@given(HEAD, REPORT, CHAIN)
def test_a_cancellation_before_any_output_is_a_failure(
        head: int, report: int, chain: list[str]) -> None:
    lines = [*START, *loop_report(head, report, chain)]
    assert explain(lines).verdict is Verdict.FAILURE


@SOME
@given(HEAD, REPORT, ANSWER, st.sampled_from(CANCELLED),
       st.sampled_from(["asyncio.exceptions.TimeoutError",
                        "RuntimeError: CUDA error: an illegal memory access was encountered",
                        "vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished "
                        "unexpectedly. This should never happen!"]))
def test_a_cancellation_chained_to_another_error_is_a_failure(
        head: int, report: int, answer: str, cancelled: str, other: str) -> None:
    lines = [*START, answer, *loop_report(head, report, [cancelled, other])]
    report_ = explain(lines)
    assert report_.verdict is Verdict.FAILURE
    assert report_.root_cause is not None


@SOME
@given(HEAD, REPORT, ANSWER, CHAIN)
def test_an_error_after_the_loop_report_is_a_failure(
        head: int, report: int, answer: str, chain: list[str]) -> None:
    lines = [*START, answer, *loop_report(head, report, chain),
             *traceback("RuntimeError: CUDA error: an illegal memory access was encountered",
                        "/usr/lib/python3.10/site-packages/vllm/worker/model_runner.py")]
    # not the exit: the cancellation stays an error of the failure, the earliest one
    assert explain(lines).verdict is Verdict.FAILURE


@SOME
@given(ANSWER, st.sampled_from(CANCELLED), PRINTED)
def test_a_cancellation_that_ended_the_program_is_a_failure(
        answer: str, cancelled: str, printed: list[str]) -> None:
    # no loop report: the cancellation reached the top of the program, which it ended
    lines = [*START, answer, *printed, "Traceback (most recent call last):",
             '  File "/app/agent.py", line 88, in <module>',
             "    asyncio.run(main())",
             '  File "/usr/lib/python3.10/asyncio/runners.py", line 44, in run',
             "    return loop.run_until_complete(main)",
             cancelled]
    assert explain(lines).verdict is Verdict.FAILURE


@SOME
@given(HEAD, REPORT, CHAIN, st.sampled_from([
    '[2025-09-18 09:25:51] INFO _client.py:1740: HTTP Request: POST '
    'http://localhost:9000/messages/?session_id=9d97 "HTTP/1.1 202 Accepted"',
    '[2025-09-18 09:25:51] INFO _client.py:1740: HTTP Request: GET '
    'http://0.0.0.0:8000/v1/models "HTTP/1.1 200 OK"',
    '[2025-09-18 09:25:51] INFO _client.py:1740: HTTP Request: POST '
    'http://127.0.0.1:8000/v1/chat/completions "HTTP/1.1 500 Internal Server Error"']))
def test_a_client_record_of_no_generation_answered_is_no_output(
        head: int, report: int, chain: list[str], answer: str) -> None:
    # a tool server's answer, a model list, a failed completion: no output served, so the
    # loop's report is no exit after work
    lines = [*START, answer, *loop_report(head, report, chain)]
    assert explain(lines).verdict is Verdict.FAILURE
