"""An exception whose message ends in a traceback's header carries that traceback: TorchScript's
`RuntimeError: The following operation failed in the TorchScript interpreter.` then `Traceback of
TorchScript, serialized code (most recent call last):`, the serialized frames, and the original
error's own `RuntimeError: ...` line. The error is the one the carried traceback ends in (the
wrapper is its headline), not a wrapper whose message stops at the header."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text

PREFIXES = ["", "(EngineCore_DP0 pid=275) ERROR 06-25 14:34:27 [core.py:1008] ",
            "ERROR 01-02 10:00:00 [worker.py:91] "]
HEADERS = ["Traceback of TorchScript, serialized code (most recent call last):",
           "Traceback of TorchScript, original code (most recent call last):"]
INNER = ["RuntimeError: Failed to execute the model status=1006 message=Execution Out-Of-Bounds "
         "Memory Access", "RuntimeError: shape '[4, 128]' is invalid for input of size 500",
         "IndexError: index 7 is out of bounds for dimension 0 with size 4"]


def _log(prefix: str, header: str, inner: str, announced: bool) -> tuple[str, int]:
    lines = ["Traceback (most recent call last):",
             '  File "/opt/conda/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", '
             'line 361, in execute_model',
             "    return self.model_runner.execute_model(scheduler_output)",
             "RuntimeError: The following operation failed in the TorchScript interpreter."]
    if announced:
        lines.append(header)
    lines += ['  File "code/__torch__/model/trace.py", line 17, in forward',
              "    return (nxd_model).forward(_0, )",
              '  File "/opt/conda/lib/python3.12/site-packages/model/trace.py", line 32, in forward',
              "    output = self.models[bucket_idx].forward(inputs)",
              inner]
    return "".join(f"{prefix}{line}\n" for line in lines), len(lines)


@settings(max_examples=30, deadline=None)
@given(prefix=st.sampled_from(PREFIXES), header=st.sampled_from(HEADERS),
       inner=st.sampled_from(INNER))
def test_the_carried_tracebacks_error_is_the_root(prefix: str, header: str, inner: str) -> None:
    log, last = _log(prefix, header, inner, announced=True)
    report = explain_text(log)
    assert report.root_cause is not None
    assert f"{report.root_cause.exception}: {report.root_cause.message}" == inner
    assert report.root_cause.line == last


@settings(max_examples=10, deadline=None)
@given(prefix=st.sampled_from(PREFIXES), inner=st.sampled_from(INNER))
def test_frames_after_a_message_that_announces_nothing_are_not_carried(
        prefix: str, inner: str) -> None:
    log, _ = _log(prefix, HEADERS[0], inner, announced=False)
    report = explain_text(log)
    assert report.root_cause is not None
    assert report.root_cause.message.startswith("The following operation failed")
