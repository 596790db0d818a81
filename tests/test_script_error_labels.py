"""A program's own label for an error it caught and printed without its class (issue 10).

A test script or a launcher that wraps `LLM(...)` in `try/except` often prints only
`print(f"<label> error: {e}")`: the exception's class is gone, its text stays. An OSError's text
behind any label (`Model init error: [Errno 122] Disk quota exceeded`, `Download failed - [Errno
28] No space left on device`) names the error: an OSError with that message, whatever the label
(grammars/vllm.lark PHRASE_LEAD / PHRASE_LABEL), as CPython prints an OSError (`[Errno N]
strerror`; Windows' `[WinError N] ...`). (Another message behind such a label is looked up among
the messages vLLM raises when the input is a short paste: index/bare.py, tests/test_bare_message.py.)

Each is tried at the end of a start-up, under every wrapper a launcher adds, with the start of
the line cut off (a paste that lost its first characters), and inside an INFO record (a message
that quotes an error it went on from: no failure). A label with a metric's value or a denial
after it is no error line.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line

SOME = settings(max_examples=40, deadline=None)

STARTING = [
    "INFO 04-16 16:11:40 [__init__.py:239] Automatically detected platform cuda.",
    "INFO 04-16 16:11:52 [llm_engine.py:242] Initializing a V0 LLM engine (v0.8.3) with config: "
    "model='facebook/opt-13b', tensor_parallel_size=2",
    "INFO 04-16 16:11:57 [model_runner.py:1110] Starting to load model facebook/opt-13b...",
    "INFO 04-16 16:11:57 [weight_utils.py:265] Using model weights format ['*.bin']",
]
END = ["INFO 04-16 16:11:58 [multiproc_worker_utils.py:137] Terminating local vLLM worker "
       "processes"]
# (errno, strerror) as CPython prints them on Linux (os.strerror)
ERRNOS = [(122, "Disk quota exceeded"), (28, "No space left on device"),
          (13, "Permission denied"), (24, "Too many open files"),
          (2, "No such file or directory"), (30, "Read-only file system"),
          (98, "Address already in use"), (12, "Cannot allocate memory")]
LABELS = ["LLM init error: ", "Model init error: ", "Init error: ", "error while loading: ",
          "Download failed - ", "load failed: ", "[run.py] setup error: ", "Engine error -> ",
          "ERROR!! ", "推理报错："]
WRAPPERS = ["{}", "2025-04-16T16:11:58.123Z {}", "0: {}", "vllm-1  | {}",
            "(VllmWorkerProcess pid=102959) {}", "[pod/vllm-0/vllm] {}",
            "Apr 16 16:11:58 gpu-3 python[1234]: {}"]
NOT_ERRORS = ["Mean error: 0.02", "Relative error: 1.5e-3", "No error: the run is clean",
              "Ignored error: BrokenPipe on a closed client", "Max abs error: 12.5%"]


def _report(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n")


@SOME
@given(st.sampled_from(ERRNOS), st.sampled_from(LABELS), st.sampled_from(WRAPPERS),
       st.integers(0, 6))
def test_an_errno_behind_a_programs_label_is_the_root_cause(
        errno: tuple[int, str], label: str, wrapper: str, cut: int) -> None:
    number, text = errno
    said = f"[Errno {number}] {text}"
    line = wrapper.format(f"{label}{said}"[min(cut, len(label) - 2):].lstrip())
    lines = STARTING + [line] + END
    report = _report(lines)
    assert report.verdict is Verdict.FAILURE, line
    root = report.root_cause
    assert root is not None and root.exception == "OSError", line
    assert said in root.message and root.line == len(STARTING) + 1, line
    assert anchor_patterns()[0].search(line.encode()), line


@pytest.mark.parametrize("label", LABELS)
def test_a_windows_error_behind_a_label_is_an_oserror(label: str) -> None:
    line = parse_line(clean(f"{label}[WinError 5] Access is denied"))
    assert line.kind is LineKind.EXCEPTION_REPR and line.exception == "OSError"
    assert line.message == "[WinError 5] Access is denied"


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("errno", ERRNOS[:3])
def test_an_errno_an_info_record_quotes_is_no_failure(wrapper: str,
                                                      errno: tuple[int, str]) -> None:
    # a record at INFO that went on from the error it quotes (a retry, a fallback)
    record = ("INFO 04-16 16:11:58 [weight_utils.py:90] Retrying the download: "
              f"[Errno {errno[0]}] {errno[1]}")
    lines = STARTING + [wrapper.format(record)]
    assert _report(lines).verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("said", NOT_ERRORS)
def test_a_metric_or_a_denial_labelled_error_is_no_error_line(said: str) -> None:
    assert parse_line(clean(said)).level is None, said
    assert _report(STARTING + [said]).verdict is Verdict.NO_FAILURE
