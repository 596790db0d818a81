"""A deployment's own Python logging format of bracketed fields, which vLLM's loggers then use
(grammars/vllm.lark BRACKET_FIELDS_HEADER; a `logging.Formatter` of bracketed fields, e.g.
`[2025-04-18 07:52:31,207] [ERROR] [MainThread] [vllm.worker.worker_base] >>> `): every line of a
logged traceback carries the header, its indentation after it, so the header must come off as a
record's, or the frames and the exception line are plain text and the record that introduced the
traceback is taken for the error. Generated over the formats' parts: the fields after the level,
the separator before the message, the spacing between brackets, the time's fraction, and the
log cut right after the exception line."""

from __future__ import annotations

import itertools

import pytest

from logsleuth.model import Level, LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize.grammar import clean, parse_line, parse_line_whole

FIELDS = (("MainThread", "vllm.worker.worker_base"), ("vllm.worker.worker_base",),
          ("worker_base.py:585",), ("MainProcess", "Thread-3", "vllm.executor"))
SEPARATORS = (">>> ", "- ", "| ", ": ", "-> ", "")
TIMES = ("2025-04-18 07:52:31,207", "2025-04-18T07:52:31.207113", "2025-04-18 07:52:31")


def header(level: str, fields: tuple[str, ...], separator: str, gap: str, time: str) -> str:
    brackets = gap.join(f"[{f}]" for f in (time, level, *fields))
    return f"{brackets} {separator}"


def traceback_log(head_error: str, head_info: str, *, cut: bool = False) -> str:
    """A worker's init_device failure logged through the format: a RuntimeError that is the
    direct cause of torch's DeferredCudaCallError, after some INFO records."""
    site = "/usr/local/lib/python3.10/dist-packages/"
    lines = [head_info + "Automatically detected platform cuda.",
             head_info + "Initializing a V1 LLM engine (v0.7.4) with config: model='/m'",
             head_error + "Error executing method 'init_device'. This might cause deadlock in "
             "distributed execution.",
             head_error + "Traceback (most recent call last):",
             head_error + f'  File "{site}torch/cuda/__init__.py", line 527, in '
             "get_device_properties",
             head_error + "    return _get_device_properties(device)",
             head_error + "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED "
             "at \"../aten/src/ATen/cuda/CUDAContext.cpp\":49. device=1, num_gpus=1"]
    if not cut:
        lines += [head_error,
                  head_error + "The above exception was the direct cause of the following "
                  "exception:",
                  head_error,
                  head_error + "Traceback (most recent call last):",
                  head_error + f'  File "{site}vllm/worker/worker_base.py", line 577, in '
                  "init_device",
                  head_error + "    self.worker.init_device()",
                  head_error + "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at "
                  "initialization with error: device >= 0 && device < num_gpus"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("fields", "separator", "gap", "time"),
                         list(itertools.product(FIELDS, SEPARATORS, (" ", ""), TIMES)))
def test_the_header_comes_off_every_line(fields: tuple[str, ...], separator: str, gap: str,
                                         time: str) -> None:
    head = header("ERROR", fields, separator, gap, time)
    frame = parse_line(clean(head + '  File "/x/vllm/worker/worker_base.py", line 577, in f'))
    assert frame.kind is LineKind.FRAME and frame.level is Level.ERROR
    line = parse_line(clean(head + "RuntimeError: device >= 0"))
    assert (line.kind, line.exception, line.level) == (LineKind.EXCEPTION, "RuntimeError",
                                                       Level.ERROR)
    assert line.time == "04-18 07:52:31"
    # the fast head lexer and the whole-line parse agree
    assert parse_line_whole(clean(head + "RuntimeError: device >= 0")).exception == "RuntimeError"


@pytest.mark.parametrize(("fields", "separator", "cut"),
                         list(itertools.product(FIELDS, SEPARATORS, (False, True))))
def test_a_traceback_logged_in_the_format_is_read_as_one(fields: tuple[str, ...],
                                                         separator: str, cut: bool) -> None:
    time = "2025-04-18 07:52:31,207"
    log = traceback_log(header("ERROR", fields, separator, " ", time),
                        header("INFO", fields, separator, " ", time), cut=cut)
    report = explain_text(log)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == 7


def test_a_message_that_begins_with_brackets_keeps_them() -> None:
    # a time and a level alone before such a message are no field format (BRACKET_LOG): an
    # OSError's `[Errno 2]` stays the message's, torch's `[rank0]: ` names the rank, glog's
    # `[E x.cpp:N]` is glog's header
    head = "[2025-04-18 07:52:31,207] [ERROR] "
    errno = parse_line(clean(head + "[Errno 2] No such file or directory: '/m/config.json'"))
    assert errno.text.startswith("[Errno 2] No such file")
    rank = parse_line(clean(head + "[rank0]: RuntimeError: NCCL error"))
    assert (rank.kind, rank.exception) == (LineKind.EXCEPTION, "RuntimeError")
    glog = parse_line(clean(head + "[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog caught"))
    assert glog.site == "ProcessGroupNCCL.cpp:474"


VLLM_HEADS = ("(EngineCore_DP0 pid=9) ERROR 07-01 10:00:00 [core.py:708] ",
              "ERROR 07-01 10:00:00 [core.py:708] ",
              "(VllmWorker rank=1 pid=12) ERROR 07-01 10:00:00 [multiproc_executor.py:5] ")


@pytest.mark.parametrize(("separator", "vllm_head"),
                         list(itertools.product((">>> ", "- ", ""), VLLM_HEADS)))
def test_a_launcher_relaying_vllm_in_the_format_keeps_vllms_header(separator: str,
                                                                   vllm_head: str) -> None:
    # the fields are a relay's: vLLM's own prefix and record header behind them still name the
    # process and the call site
    head = header("INFO", ("MainThread", "launcher"), separator, " ", "2025-07-01 10:00:00,001")
    line = parse_line(clean(head + vllm_head + "ValueError: No valid attention backend"))
    assert (line.kind, line.exception) == (LineKind.EXCEPTION, "ValueError")
    assert line.site == vllm_head.rsplit("[", 1)[1].rstrip("] ")
    assert line.process.name == (vllm_head[1:].split(" pid=")[0] if vllm_head[0] == "("
                                 else "main")
