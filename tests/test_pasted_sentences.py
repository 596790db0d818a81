"""An error sentence of another program pasted alone, without the level tag its logger printed
before it (a reporter copies `the socversion Ascend910B1 of bin package does not match the
current device socverison Ascend310P3. ...`, not the `[ERROR] ` in front): in a short input in
which nothing else is an error, a line whose own words say that a binary does not fit the
device or software it runs on (causality.yaml `pasted`) is an error record, and the signature
of its failure answers it (logsleuth/index/bare.py `stated_errors`). With its tag, in a whole
log, the same sentence is an error record by its level.

Generated over the sentence (the AscendC runtime's check for every pair of chips, and other
programs' wordings of the family), how a paste wraps it (markdown code, a quote, blank lines,
the reporter's words around it) and, as controls, the same words in a long log's prose and a
short paste whose own error comes first.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import PASTE_LINES, explain_text
from logsleuth.signatures import default_signatures

CHIPS = ["Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend310P1",
         "Ascend310P3", "Ascend910_9382", "Ascend910_9392"]
SOC = "ascend-soc-version-mismatch"


def _soc(built: str, device: str) -> str:
    return (f"the socversion {built} of bin package does not match the current device "
            f"socverison {device}. Please modify default socversion in run.sh or execute run.sh "
            "with socversion parameter.")


OTHERS = ["The kernel package was built for Ascend910B1, but the current device is "
                "Ascend310P3.",
                "the plugin binary does not match the installed driver (550.54 < 560.28)",
                "the operator library does not match the current CANN 8.0.RC3 runtime"]
AROUND = [[], [""], ["When I run inference on the Atlas 300I card I get:", ""],
          ["vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096", "", "error log:"]]
WRAPS = ["{}", "`{}`", "> {}"]


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CHIPS), st.sampled_from(CHIPS), st.sampled_from(AROUND),
       st.sampled_from(WRAPS), st.booleans())
def test_the_soc_check_pasted_alone_is_the_error_and_its_signature_answers(
        built: str, device: str, before: list[str], wrap: str, twice: bool) -> None:
    sentence = _soc(built, device)
    lines = [*before, wrap.format(sentence), *([wrap.format(sentence)] if twice else [])]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line == len(before) + 1
    assert f"current device socverison {device}" in root.message
    assert report.signature is not None and report.signature.id == SOC


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(OTHERS), st.sampled_from(AROUND), st.sampled_from(WRAPS))
def test_other_wordings_of_the_family_are_errors_too(sentence: str, before: list[str],
                                                     wrap: str) -> None:
    report = _explain([*before, wrap.format(sentence)])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(before) + 1


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(CHIPS), st.sampled_from(CHIPS))
def test_with_its_tag_in_a_whole_log_it_is_the_same_error(built: str, device: str) -> None:
    lines = ["INFO 09-03 08:14:20 [__init__.py:235] Platform plugin ascend is activated",
             "INFO 09-03 08:14:33 [model_runner_v1.py:2114] Loading model weights took 14.2 GB",
             "[ERROR] " + _soc(built, device)]
    report = _explain(lines)
    assert report.root_cause is not None and report.root_cause.line == 3
    assert report.signature is not None and report.signature.id == SOC


HEALTHY = "INFO 09-03 08:14:{:02d} [loggers.py:116] Engine 000: Avg prompt throughput: 10.0 " \
          "tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 1 reqs"


def test_in_a_long_log_an_untagged_sentence_is_not_looked_up() -> None:
    """A long log without any error event is a healthy run, not a paste (PASTE_LINES)."""
    lines = [_soc("Ascend910B1", "Ascend310P3"),
             *(HEALTHY.format(i % 60) for i in range(PASTE_LINES + 10))]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


def test_a_paste_s_own_error_comes_first() -> None:
    lines = ["Traceback (most recent call last):",
             '  File "/x/vllm_ascend/worker/worker.py", line 12, in init_device',
             "RuntimeError: Device 0 is not available",
             _soc("Ascend910B1", "Ascend310P3")]
    report = _explain(lines)
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"


PROSE = ["the socversion is printed by npu-smi info for the current device",
         "Make sure the tokenizer matches the model you serve.",
         "the output does not match what I expected from the current device"]


def test_words_that_state_no_such_failure_stay_prose() -> None:
    for text in PROSE:
        assert _explain([text]).verdict is Verdict.NO_FAILURE, text
