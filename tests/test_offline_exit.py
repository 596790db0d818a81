"""An offline program's exit after its batch finished is no failure (causality.yaml
`offline_exits`, causal.py `_offline_exit`).

vLLM 0.10.1-0.11's offline client (an `LLM` in the program's own process) reports that its engine
core "died unexpectedly" when the interpreter's exit tears the engine core down before the
client: right after the run's last generate bar reached 100% (and the program printed its
outputs), with nothing after it. The same line after an unfinished bar, after nothing, followed
by an error, or printed by an API server (a prefixed process) is the engine's death: a failure.
(tests/fixtures/tuning/healthy/w-v011-mineru-... is that exit with no vLLM sign of its finished
work: it stays a known miss.)

Generated over start-up lines, bars, outputs, the died line's wording and wrappers.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text

SOME = settings(max_examples=30, deadline=None)
START = [
    "INFO 10-20 10:00:01 [__init__.py:216] Automatically detected platform cuda.",
    "INFO 10-20 10:00:05 [utils.py:233] non-default args: {'disable_log_stats': True, "
    "'model': 'Qwen/Qwen2.5-0.5B-Instruct'}",
    "INFO 10-20 10:00:20 [llm.py:306] Supported_tasks: ['generate']",
]
BARS = ["\u2588" * 10, "#" * 10]
DIED = ["Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.",
        "Engine core proc EngineCore_0 died unexpectedly, shutting down client.",
        "Engine core process EngineCore_DP0 died unexpectedly."]
WRAPPERS = ["", "2025-10-20T10:00:22.123456789Z ", "job-1  | "]
UNRAISABLE = ["Exception ignored in: <function LLM.__del__ at 0x7f3a2c1b5ee0>",
              "Traceback (most recent call last):",
              '  File "/usr/lib/python3.12/site-packages/vllm/entrypoints/llm.py", line 312, in '
              "__del__",
              "TypeError: 'NoneType' object is not callable"]
DEAD_CALLER = ["Traceback (most recent call last):",
               '  File "/work/run.py", line 20, in <module>',
               "    outputs = llm.generate(prompts, params)",
               "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See "
               "stack trace (above) for the root cause."]


def bar(desc: str, done: int, total: int, blocks: str) -> str:
    filled = blocks[: 10 * done // total]
    return (f"{desc}: {100 * done // total:3d}%|{filled:<10}| {done}/{total} "
            "[00:01<00:00,  3.21it/s]")


def offline_run(total: int, blocks: str, outputs: int, done: int | None = None) -> list[str]:
    return [*START, bar("Adding requests", total, total, blocks),
            bar("Processed prompts", total if done is None else done, total, blocks),
            *(f"Prompt: 'Prompt {i}', Generated text: ' an answer {i}'" for i in range(outputs))]


def died(which: int, when: str = "10-20 10:00:22") -> str:
    return f"ERROR {when} [core_client.py:564] {DIED[which]}"


def explain(lines: list[str], wrapper: str = "") -> Report:
    return explain_text("".join(wrapper + line + "\n" for line in lines))


TOTAL = st.integers(1, 64)
BLOCKS = st.sampled_from(BARS)
OUTPUTS = st.integers(0, 4)
WHICH = st.integers(0, len(DIED) - 1)
WRAP = st.sampled_from(WRAPPERS)


@SOME
@given(TOTAL, BLOCKS, OUTPUTS, WHICH, WRAP, st.booleans())
def test_the_engine_death_after_a_finished_batch_is_the_exit(
        total: int, blocks: str, outputs: int, which: int, wrapper: str, noise: bool) -> None:
    lines = [*offline_run(total, blocks, outputs), died(which), *(UNRAISABLE if noise else [])]
    assert explain(lines, wrapper).verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(2, 64), BLOCKS, WHICH, WRAP, st.data())
def test_the_engine_death_during_a_batch_is_a_failure(total: int, blocks: str, which: int,
                                                      wrapper: str, data: st.DataObject) -> None:
    done = data.draw(st.integers(0, total - 1))
    lines = [*offline_run(total, blocks, 0, done), died(which)]
    assert explain(lines, wrapper).verdict is not Verdict.NO_FAILURE


@SOME
@given(TOTAL, BLOCKS, OUTPUTS, WHICH, WRAP)
def test_the_engine_death_the_caller_then_raises_over_is_a_failure(
        total: int, blocks: str, outputs: int, which: int, wrapper: str) -> None:
    lines = [*offline_run(total, blocks, outputs), died(which), *DEAD_CALLER]
    assert explain(lines, wrapper).verdict is not Verdict.NO_FAILURE


@SOME
@given(TOTAL, BLOCKS, OUTPUTS, WHICH, WRAP)
def test_a_second_batch_begun_after_the_first_keeps_the_death(
        total: int, blocks: str, outputs: int, which: int, wrapper: str) -> None:
    lines = [*offline_run(total, blocks, outputs), bar("Adding requests", total, total, blocks),
             died(which)]
    assert explain(lines, wrapper).verdict is not Verdict.NO_FAILURE


@SOME
@given(WHICH, WRAP)
def test_the_engine_death_alone_is_a_failure(which: int, wrapper: str) -> None:
    assert explain([died(which)], wrapper).verdict is Verdict.ROOT_CAUSE_MISSING


@SOME
@given(TOTAL, WHICH)
def test_an_api_servers_report_after_output_is_a_failure(total: int, which: int) -> None:
    # a server's client is a named process: its engine died while it served
    lines = [f"(APIServer pid=41) INFO 10-20 10:00:21 [loggers.py:123] Engine 000: Avg prompt "
             f"throughput: {total}.0 tokens/s, Avg generation throughput: 80.1 tokens/s, Running: "
             "0 reqs, Waiting: 0 reqs",
             f"(APIServer pid=41) {died(which)}"]
    assert explain(lines).verdict is not Verdict.NO_FAILURE
