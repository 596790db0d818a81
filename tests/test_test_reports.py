"""A test runner's report read by its sections (causality.yaml `milestones.captured` and
`report`; runs.py). pytest prints each failed test's header, its `E` lines, then the output it
captured while the test ran (`--- Captured stdout call ---`, ...), then the next failed test, then
the short summary. A vLLM start inside captured output happened before the failure printed above
it: it begins no run, and the work it shows (weights loaded, prompts processed, a shutdown) saves
no error printed before it. The report is one run whose root is the first failed test's error.
Generated: one to three failed tests, each era's engine banner, the captured sections pytest
prints, wrappers a CI runner adds, the log cut before the summary; and the control, the same lines
without the section headers, where the engine's starts still split the log into runs."""

from __future__ import annotations

import itertools

import pytest

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

BANNERS = (  # (era, the engine's start banner as the test's captured stdout holds it)
    ("v0.5", "INFO 07-13 00:09:30 llm_engine.py:174] Initializing an LLM engine (v0.5.1) with "
             "config: model='facebook/opt-125m', tokenizer='facebook/opt-125m'"),
    ("v0.9", "INFO 05-27 12:32:18 [llm_engine.py:230] Initializing a V0 LLM engine (v0.9.1) "
             "with config: model='BAAI/bge-base-en-v1.5', speculative_config=None"),
    ("v1", "(EngineCore_DP0 pid={pid}) INFO 10-02 08:11:04 [core.py:77] Initializing a V1 LLM "
           "engine (v0.11.0) with config: model='Qwen/Qwen3-0.6B', speculative_config=None"),
)
SECTIONS = (("stdout call",), ("stdout call", "stderr call"), ("stdout setup", "log call"))
WRAPPERS = ("", "[2025-10-02T08:11:04Z] ")
ERRORS = ("AttributeError: 'PoolerConfig' object has no attribute 'pooling_norm'",
          "AssertionError: Scalars are not close!",
          "ValueError: prompt logprobs differ at position 3")


def _bar(text: str) -> str:
    return f"{'-' * 30} {text} {'-' * 30}"


def _test(index: int, banner: str, sections: tuple[str, ...]) -> list[str]:
    """One failed test as pytest reports it: header, source, `E` line, captured output."""
    error = ERRORS[index % len(ERRORS)]
    lines = [f"{'_' * 20} test_case_{index} {'_' * 20}", "",
             "    def test_case(vllm_runner):",
             "        with vllm_runner(MODEL) as model:",
             ">           assert model.check()",
             f"E           {error}", "",
             f"tests/test_x.py:{40 + index}: {error.split(':', 1)[0]}"]
    for number, section in enumerate(sections):
        lines.append(_bar(f"Captured {section}"))
        if number == 0:
            lines += [banner.format(pid=5000 + index),
                      "INFO 05-27 12:32:19 [model_runner.py:1170] Starting to load model m...",
                      "INFO 05-27 12:32:20 [default_loader.py:280] Loading weights took 0.08 "
                      "seconds",
                      "INFO 05-27 12:32:20 [model_runner.py:1202] Model loading took 0.21 GiB "
                      "and 0.73 seconds"]
        else:
            lines += ["Processed prompts: 100%|██████████| 66/66 [00:00<00:00, 176it/s]",
                      "INFO 05-27 12:32:21 [llm_engine.py:440] Shutting down engine"]
    return lines


def _report(tests: int, banner: str, sections: tuple[str, ...], *, cut: bool = False,
            headers: bool = True) -> tuple[str, int]:
    """The report's text, and the line of the first `E` line (1-based)."""
    lines = [f"{'=' * 30} test session starts {'=' * 30}", "collected 3 items", "",
             "tests/test_x.py " + "F" * tests + "." + " " * 10 + "[100%]", "",
             f"{'=' * 30} FAILURES {'=' * 30}"]
    for index in range(tests):
        lines += _test(index, banner, sections)
    if not cut:
        lines.append(f"{'=' * 30} short test summary info {'=' * 30}")
        lines += [f"FAILED tests/test_x.py::test_case_{i} - {ERRORS[i % len(ERRORS)]}"
                  for i in range(tests)]
        lines.append(f"{'=' * 30} {tests} failed, 1 passed in 64.00s {'=' * 30}")
    if not headers:
        lines = [line for line in lines if not line.startswith(("---", "___", "==="))]
    first_e = next(n for n, line in enumerate(lines, 1) if line.startswith("E "))
    return "\n".join(lines) + "\n", first_e


@pytest.mark.parametrize(("tests", "era", "sections", "wrapper", "cut"), [
    (tests, era, sections, wrapper, cut)
    for tests, (era, _), sections, wrapper, cut in itertools.product(
        (1, 2, 3), BANNERS, SECTIONS, WRAPPERS, (False, True))])
def test_a_test_report_is_one_run_rooted_at_its_first_failure(
        tests: int, era: str, sections: tuple[str, ...], wrapper: str, cut: bool) -> None:
    banner = dict(BANNERS)[era]
    text, first_e = _report(tests, banner, sections, cut=cut)
    text = "".join(wrapper + line + "\n" for line in text.splitlines())
    report = explain_text(text)
    assert report.verdict is Verdict.FAILURE
    assert len(report.runs) <= 1, report.runs
    assert report.root_cause is not None
    assert report.root_cause.line == first_e
    assert report.root_cause.exception == ERRORS[0].split(":", 1)[0]


@pytest.mark.parametrize("era", [era for era, _ in BANNERS])
def test_without_its_section_headers_the_starts_still_split_runs(era: str) -> None:
    # the control: the same lines with no report structure read as restarts, as a crash loop's
    text, _ = _report(3, dict(BANNERS)[era], ("stdout call", "stderr call"), headers=False)
    assert len(explain_text(text).runs) >= 2
