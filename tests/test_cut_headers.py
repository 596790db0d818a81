"""A log that ends in a `Traceback` header, generated (issue 10; vllm#2580, an excerpt that ends
on `[rank0]: Traceback (most recent call last):` and a frame cut after a few characters).

Python prints the header only for an exception it is about to report, so a log cut right after it
(a paste cut short, a process killed mid-print) shows a failure whose cause it lacks: a symptom,
`root_cause_missing`, never `no_failure` (assemble.py `_flush` at the log's end). A header
followed by more than a cut frame's worth of other lines stays what it was.
"""

from __future__ import annotations

import pytest

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

PREFIXES = ["", "[rank0]: ", "(EngineCore_DP0 pid=812) ", "(VllmWorker rank=1 pid=4021) "]
WRAPPERS = ["", "2024-02-08T16:25:49.123Z ", "vllm-1  | "]
START = ["INFO 02-08 16:25:49 llm_engine.py:73] Initializing an LLM engine with config: "
         "model='EleutherAI/pythia-70m', tokenizer='EleutherAI/pythia-70m', "
         "tensor_parallel_size=1, seed=0)"]
TAILS = [[], ['  File "/scratch/project_4'], ['  File "/scratch/project_4650006'], ["  File"]]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("tail", TAILS)
@pytest.mark.parametrize("started", [True, False])
def test_a_log_ending_in_a_traceback_header_is_a_failure(prefix: str, wrapper: str,
                                                         tail: list[str], started: bool) -> None:
    lines = (START if started else []) + [prefix + "Traceback (most recent call last):"] \
        + [prefix + line for line in tail]
    report = explain_text("".join(wrapper + line + "\n" for line in lines),
                          signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_header_with_work_after_it_is_not_read_as_cut(prefix: str) -> None:
    # a header quoted by some line, then the run goes on: not the log's end
    lines = START + [prefix + "Traceback (most recent call last):"] + [
        "INFO 02-08 16:25:50 model_runner.py:100] Loading model weights took 0.13 GB",
        "INFO 02-08 16:25:51 gpu_executor.py:83] # GPU blocks: 2000, # CPU blocks: 500",
        "INFO 02-08 16:25:52 model_runner.py:200] Graph capturing finished in 5 secs."]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_header_with_prose_after_it_is_not_the_logs_end(prefix: str) -> None:
    # lines the tokenizer passes over (no anchor) still count: the log did not end there
    lines = START + [prefix + "Traceback (most recent call last):", "", "my environment:",
                     "some notes about the setup", "and the command I ran", "thanks"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE
