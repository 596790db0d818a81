"""An excerpt that begins inside a logged exception's message, generated (tests/fixtures/tuning:
b-ascend-v1-lora-tp4-dynamo-data-dependent-guard-excerpt).

torch.compile's errors carry frame lists in their message (`Potential framework code culprit
(scroll up for full backtrace):`, `User Stack (most recent call last):`, `from user code:`), with
guidance lines between. vLLM logs the exception as one record, every line behind the same header.
An excerpt cut below the exception line holds record lines, then frames with no `Traceback`
header: all of it is the message of an exception the excerpt lacks (logsleuth/recordheads.py),
so the cause is not in the log, wherever the cut falls, whatever the prefix or wrapper, with
another process's lines interleaved. With the exception line in the excerpt, it is the root.
"""

from __future__ import annotations

import pytest

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SITE = "/venv/lib/python3.11/site-packages/vllm/"
EXCEPTION = ("torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard "
             "on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like "
             "symbols: none)")


def _frames(indent: str = "  ") -> list[str]:
    return [f'{indent}File "{SITE}model_executor/models/qwen2.py", line 354, in forward',
            "    hidden_states, residual = layer(",
            f'{indent}File "{SITE}lora/layers.py", line 581, in forward',
            "    output_parallel = self.apply(input_, bias)",
            f'{indent}File "{SITE}lora/ops/torch_ops/lora_ops.py", line 78, in bgmv_shrink',
            '    outputs = torch.einsum("bi, boi -> bo", inputs, selected_loras)']


# the message after its first line, as torch prints it
MESSAGE = (["", "Caused by: outputs = torch.einsum(...)  # lora_ops.py:78 in bgmv_shrink",
            "For more information, run with TORCH_LOGS=\"dynamic\"",
            "For extended logs when we create symbols, also add "
            "TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL=\"u0\"",
            "If you suspect the guard was triggered from C++, add TORCHDYNAMO_EXTENDED_DEBUG_CPP=1",
            "", "Potential framework code culprit (scroll up for full backtrace):",
            f'  File "{SITE}../torch/_ops.py", line 759, in decompose',
            "    return self._op_dk(dk, *args, **kwargs)", "",
            "User Stack (most recent call last):", "  (snipped, see stack below for prefix)"]
           + _frames() + ["", "For C++ stack trace, run with TORCHDYNAMO_EXTENDED_DEBUG_CPP=1",
                          "", "from user code:"] + _frames("   ")
           + ["", 'Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information', "",
              "", "You can suppress this exception and fall back to eager by setting:",
              "    import torch._dynamo", "    torch._dynamo.config.suppress_errors = True"])
HEADERS = ["(VllmWorker rank=0 pid=976407) ERROR 06-26 19:44:33 [multiproc_executor.py:527] ",
           "ERROR 06-26 19:44:33 [engine.py:160] ",
           "(EngineCore_DP0 pid=812) ERROR 08-01 21:21:48 [core.py:710] "]
WRAPPERS = ["", "2025-06-26T19:44:33.123456Z "]
FIRST_FRAME = MESSAGE.index("Potential framework code culprit (scroll up for full backtrace):") + 1
OTHER = "(VllmWorker rank=1 pid=976408) INFO 06-26 19:44:33 [gpu_worker.py:100] still loading"


def _log(header: str, wrapper: str, lines: list[str], interleave: bool) -> str:
    out = []
    for number, line in enumerate(lines):
        out.append(wrapper + header + line)
        if interleave and number % 3 == 1:
            out.append(wrapper + OTHER)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("cut", range(1, FIRST_FRAME))
@pytest.mark.parametrize("header", HEADERS)
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("interleave", [False, True])
def test_an_excerpt_inside_the_message_has_no_root(cut: int, header: str, wrapper: str,
                                                   interleave: bool) -> None:
    # the reporter's paste begins mid-sentence, above the record's remaining lines
    text = "ee doc below for more guidance.\n" + _log(header, wrapper, MESSAGE[cut:], interleave)
    report = explain_text(text, signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause


@pytest.mark.parametrize("header", HEADERS)
@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_with_its_exception_line_the_exception_is_the_root(header: str, wrapper: str) -> None:
    lines = (["Traceback (most recent call last):",
              f'  File "{SITE}v1/worker/gpu_model_runner.py", line 1200, in execute_model',
              "    hidden_states = self.model(", EXCEPTION] + MESSAGE)
    report = explain_text(_log(header, wrapper, lines, False), signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception.endswith("GuardOnDataDependentSymNode")
    assert root.line == 4


@pytest.mark.parametrize("header", HEADERS)
def test_a_record_of_another_second_stays_an_error(header: str) -> None:
    # a record printed before the cut record (another time): an error of its own
    earlier = header.replace("19:44:33", "19:44:30").replace("21:21:48", "21:21:40")
    text = (earlier + "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"
            + _log(header, "", MESSAGE[FIRST_FRAME - 1:], False))
    report = explain_text(text, signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line == 1
