"""V0's scheduler warns that it dropped a request it cannot run (causality.yaml `refusals`).

The warning is that request's error: a log that ends on it shows why a request came back empty;
after it, an engine that goes on serving others survived it, as it survives any request's error.
"""

from __future__ import annotations

import pytest

from logsleuth.pipeline import explain_text

START = ("INFO 11-19 09:58:02 llm_engine.py:249] Initializing an LLM engine (v0.6.4) with config: "
         "model='m', max_seq_len=1000")
LIMIT = "Input prompt (36893 tokens) is too long and exceeds limit of 1000"
CAPACITY = "Input prompt (40960 tokens) is too long and exceeds the capacity of block_manager"
SERVED = ['INFO:     127.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 200 OK',
          "INFO 11-19 10:00:16 metrics.py:449] Avg prompt throughput: 12.0 tokens/s, "
          "Avg generation throughput: 30.5 tokens/s, Running: 1 reqs"]


@pytest.mark.parametrize("warning", [
    f"WARNING 11-19 10:03:17 scheduler.py:648] {LIMIT}",
    f"WARNING 06-02 14:20:11 scheduler.py:1098] {CAPACITY}",
    f"scheduler.py:648] {LIMIT}",  # a paste that cut the record's level and date
    LIMIT,
])
def test_a_log_ending_on_a_dropped_prompt_fails_there(warning: str) -> None:
    lines = [START, warning] if warning.startswith("WARNING") else [warning]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict == "failure"
    assert report.root_cause is not None and report.root_cause.line == len(lines)
    assert "is too long and exceeds" in report.root_cause.message
    assert report.signature is not None
    assert report.signature.id == "v0-scheduler-ignored-long-prompt"


def test_an_engine_that_goes_on_serving_survived_the_dropped_prompt() -> None:
    lines = [START, f"WARNING 11-19 10:03:17 scheduler.py:648] {LIMIT}", *SERVED,
             SERVED[0].replace("5000", "5001")]
    assert explain_text("\n".join(lines) + "\n").verdict == "no_failure"


@pytest.mark.parametrize("warning", [
    "WARNING 11-19 10:03:17 scheduler.py:1560] Sequence group 7 is preempted by "
    "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space.",
    "WARNING 11-19 10:03:17 tokenizer.py:64] Input prompt is too long for the tokenizer's "
    "model_max_length; it will be truncated.",
])
def test_other_warnings_are_no_failure(warning: str) -> None:
    assert explain_text("\n".join([START, warning]) + "\n").verdict == "no_failure"
