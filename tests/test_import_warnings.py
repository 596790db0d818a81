"""A Python warning that quotes an exception it went on from is no failure (issue 10).

Python prints a warning as `file.py:N: Category: message`, the message's further lines raw, then
the warned line's source indented (warnings.formatwarning). Libraries warn at import time with the
text of an exception they caught: vLLM's `vllm/version.py` warns `Failed to read commit hash:`
with the ImportError's text on the next line (`No module named 'vllm._version'`, a source install
without its generated module), and goes on with version `dev`. Those lines are the warning's
text (assemble.py `_warning_goes_on`), not a pasted error (index/bare.py) nor an exception line.
The warning's place may be a Markdown link (an editor's terminal copied: VS Code's remote
links). The controls: a real traceback after the warning is still the root cause, and the same
text without a warning above it is still an error.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line

SOME = settings(max_examples=40, deadline=None)
PATH = "/opt/conda/lib/python3.10/site-packages/vllm/connections.py"
PLACES = [f"{PATH}:8",
          f"[{PATH}:8](https://vscode-remote+ssh-002dremote-002bgpu-002d3.vscode-resource."
          f"vscode-cdn.net{PATH}:8)"]
CATEGORIES = ["RuntimeWarning", "UserWarning", "FutureWarning", "ImportWarning",
              "DeprecationWarning"]
HEADS = ["Failed to read commit hash:", "Failed to import the optional kernels:",
         "Could not load the extension, falling back:"]
# the text of the exception the warning went on from, as `f"...:\n{e}"` prints it
QUOTED = ["No module named 'vllm._version'", "No module named 'flash_attn'",
          "[Errno 2] No such file or directory: '/opt/vllm/_version.py'",
          "ModuleNotFoundError: No module named 'vllm._version'",
          "ImportError: libcudart.so.12: cannot open shared object file: No such file or "
          "directory"]
SOURCE = "  from vllm.version import __version__ as VLLM_VERSION"
PREFIXES = ["", "(pid=880853) ", "(RayWorkerWrapper pid=4009) ", "2025-01-02T03:04:05.123Z "]
RUN = ["INFO 01-02 03:04:06 [__init__.py:207] Automatically detected platform cuda.",
       "INFO 01-02 03:04:20 [model_runner.py:1110] Starting to load model Qwen/Qwen2-7B...",
       "INFO 01-02 03:04:40 [model_runner.py:1115] Loading model weights took 14.2 GiB"]
TRACEBACK = ["Traceback (most recent call last):",
             '  File "/x/train.py", line 12, in <module>',
             "    main()",
             "ValueError: the rollout batch size 7 is not divisible by 2 GPUs"]


def _warning(prefix: str, place: str, category: str, head: str, quoted: str,
             source: bool) -> list[str]:
    lines = [f"{place}: {category}: {head}", quoted] + ([SOURCE] if source else [])
    return [prefix + line for line in lines]


@SOME
@given(st.sampled_from(PREFIXES), st.sampled_from(PLACES), st.sampled_from(CATEGORIES),
       st.sampled_from(HEADS), st.sampled_from(QUOTED), st.booleans(), st.integers(1, 3),
       st.booleans())
def test_a_warning_that_quotes_an_exception_is_no_failure(
        prefix: str, place: str, category: str, head: str, quoted: str, source: bool,
        copies: int, run: bool) -> None:
    lines: list[str] = []
    for _ in range(copies):  # each worker process imports vLLM and warns
        lines += _warning(prefix, place, category, head, quoted, source)
    lines += RUN if run else []
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.NO_FAILURE, lines


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_warnings_header_is_a_warning_and_anchored(place: str, prefix: str) -> None:
    raw = f"{prefix}{place}: RuntimeWarning: Failed to read commit hash:"
    assert parse_line(clean(raw)).kind is LineKind.PY_WARNING, raw
    assert anchor_patterns()[0].search(raw.encode()), raw


@pytest.mark.parametrize("quoted", QUOTED)
@pytest.mark.parametrize("place", PLACES)
def test_a_traceback_after_the_warning_is_still_the_root_cause(place: str, quoted: str) -> None:
    lines = _warning("", place, "RuntimeWarning", HEADS[0], quoted, True) + RUN + TRACEBACK
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE and report.root_cause is not None
    assert report.root_cause.exception == "ValueError"


@pytest.mark.parametrize("quoted", [q for q in QUOTED if "Error" in q or "Errno" in q])
def test_the_same_text_without_a_warning_above_it_is_still_an_error(quoted: str) -> None:
    lines = RUN + [quoted]
    assert explain_text("\n".join(lines) + "\n").verdict is not Verdict.NO_FAILURE


@pytest.mark.parametrize("final", ["Failed to start model server: ValueError: unknown model type",
                                   "[Errno 28] No space left on device",
                                   "ValueError: unknown model type"])
def test_a_line_printed_after_other_lines_is_not_the_warnings_text(final: str) -> None:
    # a warning without its source line (the header alone), other processes' lines, then the
    # program's own error line: Python writes a warning in one piece, so that line is no part
    # of it
    lines = [f"{PLACES[0]}: FutureWarning: The pynvml package is deprecated.", *RUN, final]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE and report.root_cause is not None, final
    assert report.root_cause.line == len(lines)
