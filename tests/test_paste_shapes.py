"""Shapes a terminal and Python's chains give a pasted traceback, generated:

- a bare exception name padded with spaces (a paste of a screen's rows keeps their padding):
  `TimeoutError      ` is the traceback's exception line;
- frames a terminal's wrap cut after `File "` (`File "/p/x.py", l`, the rest on the next row,
  a terminal's paste): still frames, so a traceback cut before its exception line is a symptom of a cause
  the excerpt lacks, not nothing;
- a CancelledError that Python prints as the direct cause of a TimeoutError (asyncio's timeouts
  cancel the awaited task, then raise TimeoutError from it): the timeout is the error
  (causality.yaml `mechanisms`), while a CancelledError another error is raised from stays a cause.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize.grammar import clean, parse_line

SOME = settings(max_examples=25, deadline=None)
NAMES = ["TimeoutError", "KeyboardInterrupt", "asyncio.exceptions.CancelledError",
         "torch.OutOfMemoryError", "AssertionError"]
PREFIXES = ["", "(VllmWorker rank=0 pid=20455) ", "[rank0]: ",
            "(EngineCore_DP0 pid=812) ERROR 07-08 15:41:43 [core.py:710] "]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("pad", [" ", "      ", "\t", " \t  "])
@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_padded_bare_exception_name_is_an_exception_line(name: str, pad: str,
                                                           prefix: str) -> None:
    line = parse_line(clean(prefix + name + pad))
    assert line.kind is LineKind.EXCEPTION and line.exception == name


@pytest.mark.parametrize("text", ["Timeout settings   ", "KeyboardInterrupt received  ",
                                  "TimeoutError is raised when   "])
def test_padding_does_not_make_prose_an_exception(text: str) -> None:
    assert parse_line(clean(text)).kind is not LineKind.EXCEPTION


SITE = "/usr/lib/python3.11/site-packages/vllm/"
FRAMES = [(SITE + "v1/executor/multiproc_executor.py", 465, "worker_main",
           "worker = WorkerProc(*args, **kwargs)"),
          (SITE + "model_executor/model_loader/utils.py", 64, "initialize_model",
           "return model_class(vllm_config=vllm_config, prefix=prefix)"),
          (SITE + "model_executor/models/deepseek_v2.py", 743, "__init__",
           "assert isinstance(layer, DeepseekV2DecoderLayer)")]
HEAD = "(VllmWorker rank=0 pid=20455) ERROR 07-08 15:41:43 [multiproc_executor.py:487] "


def _wrapped(width: int, prefixed: bool, exception: bool) -> list[str]:
    """A worker's traceback as a terminal `width` columns wide shows it: every longer row cut."""
    head = HEAD if prefixed else ""
    rows = [head + "Traceback (most recent call last):"]
    for path, number, function, code in FRAMES:
        rows += [f'{head}  File "{path}", line {number}, in {function}', f"{head}    {code}"]
    if exception:
        rows.append(f"{head}AssertionError")
    out: list[str] = []
    for row in rows:
        while len(row) > width:
            out.append(row[:width])
            row = row[width:]
        out.append(row)
    return out


@SOME
@given(st.integers(0, 3), st.integers(0, 30), st.booleans(), st.booleans())
def test_a_traceback_with_wrapped_frames_cut_before_its_exception_is_a_symptom(
        skip: int, extra: int, prefixed: bool, header: bool) -> None:
    # every frame row cut somewhere after `File "` and its path's first characters
    width = (len(HEAD) if prefixed else 0) + 2 + len('File "') + len(SITE) + extra
    lines = _wrapped(width, prefixed, exception=False)[0 if header else 1:]
    frames = [n for n, text in enumerate(lines) if 'File "' in text]
    assert all("line" not in lines[n] or ", in " not in lines[n] for n in frames)
    lines = lines[min(skip, len(frames) - 1) and frames[min(skip, len(frames) - 1)]:]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


@SOME
@given(st.integers(60, 140), st.booleans())
def test_wrapped_frames_keep_the_exception_the_root(width: int, prefixed: bool) -> None:
    lines = _wrapped(width + (len(HEAD) if prefixed else 0), prefixed, exception=True)
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "AssertionError"
    assert root.line == len(lines)


@pytest.mark.parametrize("text", ['  File "config.json"', 'File "/tmp/x.py", line 3',
                                  '  File "a.py", l'])
def test_a_short_quoted_file_is_no_frame(text: str) -> None:
    assert parse_line(clean(text)).kind is not LineKind.FRAME


AIOHTTP = "/venv/lib/python3.11/site-packages/aiohttp/"


def _timeout_chain(cancelled: str, effect: str, reason: str, title: bool, pad: str) -> list[str]:
    lines = ['"POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'] if title else []
    if title:
        lines.append("ERROR:    Exception in ASGI application")
    lines += ["Traceback (most recent call last):",
              f'  File "{AIOHTTP}streams.py", line 344, in _wait', "    await waiter",
              cancelled, "", reason, "",
              "Traceback (most recent call last):",
              f'  File "{AIOHTTP}client_reqrep.py", line 1214, in read',
              "    self._body = await self.content.read()",
              f'  File "{AIOHTTP}helpers.py", line 671, in __exit__',
              "    raise asyncio.TimeoutError from exc_val", effect + pad]
    return lines


DIRECT = "The above exception was the direct cause of the following exception:"
DURING = "During handling of the above exception, another exception occurred:"


@pytest.mark.parametrize("cancelled", ["asyncio.exceptions.CancelledError", "CancelledError"])
@pytest.mark.parametrize("effect", ["TimeoutError", "asyncio.TimeoutError",
                                    "asyncio.exceptions.TimeoutError"])
@pytest.mark.parametrize("title", [True, False])
@pytest.mark.parametrize("pad", ["", "      "])
@pytest.mark.parametrize("reason", [DIRECT, DURING])
def test_an_asyncio_timeout_is_the_error_not_its_cancel(cancelled: str, effect: str, title: bool,
                                                        pad: str, reason: str) -> None:
    # either chain: Python < 3.11's timers (vLLM 0.5's vendored async_timeout) raise the
    # TimeoutError while the CancelledError is being handled, later ones `from` it
    lines = _timeout_chain(cancelled, effect, reason, title, pad)
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == effect and root.line == len(lines)


@pytest.mark.parametrize("effect,reason", [("RuntimeError: engine loop stopped", DIRECT),
                                           ("RuntimeError: engine loop stopped", DURING)])
def test_a_cancel_another_error_follows_from_stays_the_cause(effect: str, reason: str) -> None:
    lines = _timeout_chain("asyncio.exceptions.CancelledError", effect, reason, False, "")
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.exception == "asyncio.exceptions.CancelledError"


CUDA_ASSERT = ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: indexSelectLargeIndex: "
               "block: [{b},0,0], thread: [{t},0,0] Assertion `srcIndex < srcSelectDimSize` "
               "failed.")
HIP_ASSERT = ("/pytorch/aten/src/ATen/native/hip/IndexKernel.hip:94: operator(): Device-side "
              "assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"' "
              "failed.")
CRASH_PREFIXES = ["", "(RayWorkerVllm pid=343836) ", "[rank3]: ", "(VllmWorker TP1 pid=77) "]


@pytest.mark.parametrize("shape", [CUDA_ASSERT, HIP_ASSERT])
@pytest.mark.parametrize("prefix", CRASH_PREFIXES)
@pytest.mark.parametrize("pad", ["", "        "])
def test_a_kernel_assert_is_an_error_line(shape: str, prefix: str, pad: str) -> None:
    line = parse_line(clean(prefix + shape.format(b=3, t=64) + pad))
    assert line.kind is LineKind.DIAGNOSTIC and line.exception == "device-side assertion"


def test_a_host_assert_is_not_a_kernel_assert() -> None:
    # glibc's report of a host assert() (a .cpp source, no block/thread) is a diagnostic of its
    # own kind, `assertion failure`: never the device-side assertion of a GPU kernel
    text = ("python3: /project/lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp:42: int "
            "f(int): Assertion `false && \"computeCapability not supported\"' failed.")
    line = parse_line(clean(text))
    assert line.kind is LineKind.DIAGNOSTIC and line.exception == "assertion failure"
    assert "computeCapability not supported" in (line.message or "")


def test_a_host_assert_alone_is_a_failure_and_a_compiler_error_after_it_is_the_root() -> None:
    assert_line = ("python3: /project/lib/Analysis/Allocation.cpp:40: std::pair<A, B> "
                   "mlir::triton::getCvtOrder(mlir::Attribute, mlir::Attribute): Assertion "
                   "`!(srcMmaLayout && dstMmaLayout) && \"Unexpected mma -> mma layout "
                   "conversion\"' failed.")
    alone = explain_text(assert_line + "\n", signatures=default_signatures())
    assert alone.verdict is Verdict.FAILURE
    assert alone.root_cause is not None and alone.root_cause.exception == "assertion failure"
    # MLIR's crash recovery catches the abort and fails the pass: that error explains the run
    caught = explain_text("\n".join([
        assert_line,
        "/x/vllm/attention/ops/prefix_prefill.py:38:0: error: Failures have been detected while "
        "processing an MLIR pass pipeline"]) + "\n", signatures=default_signatures())
    root = caught.root_cause
    assert root is not None and root.exception == "compiler error" and root.line == 2


@SOME
@given(st.sampled_from([CUDA_ASSERT, HIP_ASSERT]), st.sampled_from(CRASH_PREFIXES),
       st.integers(1, 40), st.booleans())
def test_the_first_kernel_assert_is_the_root(shape: str, prefix: str, copies: int,
                                             python_error: bool) -> None:
    lines = ["INFO 12-20 08:54:51 model_runner.py:394] Capturing the model for CUDA graphs."]
    lines += [prefix + shape.format(b=n % 7, t=n) for n in range(copies)]
    if python_error:
        lines += [prefix + "Traceback (most recent call last):",
                  prefix + '  File "/x/vllm/worker/model_runner.py", line 12, in execute_model',
                  prefix + "    output = self.model(**inputs)",
                  prefix + "RuntimeError: CUDA error: device-side assert triggered"]
    else:
        lines += [prefix + "*** SIGABRT received at time=1703062736 on cpu 75 ***",
                  prefix + "Fatal Python error: Aborted", prefix]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "device-side assertion" and root.line == 2


# A log quoted as an indented block (a Markdown code block inside a list, a ticket's quote):
# every line carries the same margin, the exception line too (vllm#49482's excerpt). The grammar
# reads an indented exception line as one wherever it is not a frame's source line
# (INDENT_LEAD, tests/test_paste_wrappers.py), so the margin needs no special reading.
QUOTED = ["Traceback (most recent call last):",
          '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/utils.py", line 40, '
          "in request_memory",
          "    raise ValueError(",
          "ValueError: Free memory on device xpu:0 (0.0/22.71 GiB) is less than desired GPU "
          "memory utilization (0.9, 20.44 GiB)."]


@pytest.mark.parametrize("margin", [2, 4, 8])
def test_a_log_quoted_as_an_indented_block_gives_its_exception(margin: int) -> None:
    report = explain_text("".join(" " * margin + line + "\n" for line in QUOTED))
    assert report.verdict is not Verdict.NO_FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    assert report.root_cause.line == len(QUOTED)


# A paste that lost its line breaks: whole vLLM records joined on one line (vllm#13678). The
# exception after an ERROR record's header inside the line is still the line's exception.
@pytest.mark.parametrize("site", ["registry.py:321]", "[registry.py:321]"])
@pytest.mark.parametrize("before", ["", "ERROR 02-21 11:17:10 {site}     from vllm.attention.backends."
                                    "flash_attn import FlashAttentionMetadata ",
                                    "{site}     from vllm.vllm_flash_attn import (flash_attn_varlen_func, "])
def test_an_exception_inside_joined_records_is_an_exception_line(site: str, before: str) -> None:
    line = parse_line(clean(
        before.format(site=site) + f"ERROR 02-21 11:17:10 {site} ImportError: cannot import name "
        "'flash_attn_varlen_func' from 'vllm.vllm_flash_attn' (unknown location) ERROR 02-21 "
        f"11:17:10 {site}  Traceback (most recent call last):"))
    assert line.exception == "ImportError"
