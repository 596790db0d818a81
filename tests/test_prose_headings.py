"""A heading in a pasted report (`Error:`, `Exception:`, `RuntimeError:` on a line of its own, then
a blank line or prose) is no exception, generated (tests/fixtures/tuning j-v07-mlx-4bit-deepseek-
r1-checkpoint-unknown-quantization-method-prose: `Exception:` before the two starts' exception
lines).

Python prints `Name: message`, or `Name` alone when the message is empty; `Name:` with nothing
after the colon only when the message begins on the next line (`raise RuntimeError("\\n...")`,
torch's CUDA-version check). So such a line whose message nothing continues, with no traceback
above it, is a heading (grammars/vllm.lark EXC_TYPE keeps the colon; assemble.py drops it): the
report's real error stays the root. With its message on the next lines it is still that exception.
"""

from __future__ import annotations

import pytest

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

HEADINGS = ["Error:", "Exception:", "RuntimeError:", "ValueError: ", "Error:   "]
WRAPPERS = ["", "> ", "2025-02-14T06:40:00.000000000Z "]
AFTER = [[""], ["", "1. First start, the exception is as follows:", ""], ["", "", "see below:"]]
TRACEBACK = ["Traceback (most recent call last):",
             '  File "/venv/lib/python3.12/site-packages/vllm/config.py", line 310, in __init__',
             "    self._verify_quantization()",
             "OSError: /models/dir does not appear to have a file named configuration_x.py."]


@pytest.mark.parametrize("heading", HEADINGS)
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("after", range(len(AFTER)))
@pytest.mark.parametrize("traceback", [True, False])
def test_a_heading_is_not_the_root(heading: str, wrapper: str, after: int,
                                   traceback: bool) -> None:
    error = TRACEBACK if traceback else TRACEBACK[-1:]
    lines = [heading] + AFTER[after] + error
    report = explain_text("".join(wrapper + line + "\n" for line in lines),
                          signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.exception == "OSError", root
    assert root.line == len(lines)


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("indent", ["", "      "])
def test_a_message_on_the_next_lines_keeps_the_exception(wrapper: str, indent: str) -> None:
    lines = [indent + line for line in [
        "Traceback (most recent call last):",
        '  File "/tmp/pip-build-env/overlay/torch/utils/cpp_extension.py", line 387, in check',
        "    raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version))",
        "RuntimeError:",
        "The detected CUDA version (12.2) mismatches the version that was used to compile",
        "PyTorch (11.7). Please make sure to use the same CUDA versions."]]
    report = explain_text("".join(wrapper + line + "\n" for line in lines),
                          signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.exception == "RuntimeError" and root.line == 4
    assert "detected CUDA version" in root.message


@pytest.mark.parametrize("heading", HEADINGS)
def test_a_heading_alone_is_no_failure(heading: str) -> None:
    text = f"{heading}\n\nI ran vllm serve and it did not work, see the log in the next comment.\n"
    report = explain_text(text, signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE
