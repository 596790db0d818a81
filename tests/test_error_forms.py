"""Every error form is evidence: a failing log is never read as healthy, nor its cause cut
short, because the error took a form its record's logger, its wrapper or its reporter gave it
(issue 10). Each test generates the form's variations: prefixes, eras, wrappers, truncations.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import Server


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


# ---- 1. pydantic's check lines under a ValidationError a record named -----------------------

CHECKS = [
    ("Value error", "Total number of attention heads (64) must be divisible by tensor parallel "
     "size (3)."),
    ("Value error", "max_num_batched_tokens (2048) is smaller than max_model_len (8192)."),
    ("Assertion failed", "Only quantization methods fp8 and awq are supported on this GPU."),
]
VALIDATION_NAMES = ["pydantic_core._pydantic_core.ValidationError", "pydantic.ValidationError",
                    "ValidationError"]
CONFIGS = ["ModelConfig", "VllmConfig", "SpeculativeConfig", "CacheConfig"]
# a record's head as its logger writes it: vLLM's two eras (its formatter repeats the head on
# every line of a record: `repeated`), Python's default format, a level word (written once)
VLLM_HEADS = 2
RECORD_HEADS = ["ERROR 06-01 10:00:01 [api_server.py:700] ", "ERROR 06-01 10:00:01 core.py:700] ",
                "2025-06-01 10:00:01,123 - vllm.entrypoints - ERROR - ",
                "2025-06-01T10:00:01.123Z ERROR vllm::launcher: "]
PREFIXES = ["", "(APIServer pid=2800) ", "(EngineCore_DP0 pid=2900) "]
OUTER = ["", "2025-06-01T10:00:01.123456789Z ", "vllm-1  | ", "[pod/vllm-0/vllm] "]
LEADS = ["", "Error in startup: ", "EngineCore failed to start: "]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(CHECKS), st.sampled_from(VALIDATION_NAMES), st.sampled_from(CONFIGS),
       st.sampled_from(RECORD_HEADS), st.sampled_from(PREFIXES), st.sampled_from(OUTER),
       st.sampled_from(LEADS), st.booleans(), st.booleans(), st.integers(0, 2))
def test_a_validation_errors_checks_go_on_its_message_under_a_record_head_printed_once(
        check: tuple[str, str], name: str, config: str, head: str, prefix: str, outer: str,
        lead: str, repeated: bool, field: bool, before: int) -> None:
    """A logger that writes its head once (or vLLM's, which repeats it on every line) before
    `ValidationError: 1 validation error for X`: pydantic's check line under it, and the
    `For further information` line, are the message going on, not an error of their own, so
    the check reaches the signatures."""
    label, message = check
    again = head if repeated and RECORD_HEADS.index(head) < VLLM_HEADS else ""
    body = [f"{lead}{name}: 1 validation error for {config}",
            *([f"{again}max_model_len"] if field else []),
            f"{again}  {label}, {message} [type=value_error, input_value=ArgsKwargs((), "
            "{}), input_type=ArgsKwargs]",
            f"{again}    For further information visit https://errors.pydantic.dev/2.11/v/"
            "value_error"]
    lines = Server().startup()[:before]
    lines += [f"{outer}{prefix}{head if i == 0 else ''}{text}" for i, text in enumerate(body)]
    report = _explain(lines)
    assert report.verdict is not Verdict.NO_FAILURE, lines
    root = report.root_cause
    assert root is not None and root.exception.endswith("ValidationError"), (lines, root)
    assert root.line == before + 1 and message in root.message, (lines, root)
    assert not any(message in s.text for s in report.symptoms), (lines, report.symptoms)
