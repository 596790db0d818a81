"""Errors that carry or lose another process's error, in generated variants:

- an exception whose message carries a subprocess's output (its first line ends in a colon, the
  child's stderr follows: log records, a `Process X:` bootstrap header, the child's traceback)
  reports the child's error, which is the root (vLLM's P2P check runs in a child process);
- a `CalledProcessError` of a child a signal ended (`died with <Signals.SIGINT: 2>`) reports it
  as one that exited non-zero does;
- a record whose words run into `Traceback (most recent call last):` titles that traceback;
- a TypeError about `__init__` raised where a process unpickles another's reply is the other's
  failure lost on the way (a reply that fails to unpickle), while the same TypeError raised anywhere else is a cause.
"""

from __future__ import annotations

import signal
import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

import logsleuth
from logsleuth.assemble import MAX_CARRIED_LINES, assemble
from logsleuth.model import ErrorEvent, Verdict
from logsleuth.tokenize import tokenize

_PREFIXES = ["", "[rank0]: ", "(VllmWorkerProcess pid=5) "]
_WORDS = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)
_CARRIED = [  # what a child prints before its traceback: its libraries' records and warnings
    "2024-09-23 17:49:55.013891: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:485] "
    "Unable to register cuFFT factory",
    "2024-09-23 17:49:56.155623: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT "
    "Warning: Could not find TensorRT",
    "To enable the following instructions: AVX2 AVX512F FMA, rebuild TensorFlow",
    "WARNING 09-23 17:49:48 utils.py:721] a warning the child logged",
]
_CHILD_ERRORS = [("RuntimeError", "CUDART error: invalid argument"),
                 ("ValueError", "cannot reshape array of size 0"),
                 ("OSError", "[Errno 12] Cannot allocate memory")]


def _frames(prefix: str, count: int) -> list[str]:
    out = []
    for index in range(count):
        out += [f'{prefix}  File "/x/vllm/distributed/mod{index}.py", line {10 + index}, in f{index}',
                f"{prefix}    f{index + 1}(x)"]
    return out


def _traceback(prefix: str, name: str, message: str, frames: int = 2) -> list[str]:
    return [f"{prefix}Traceback (most recent call last):", *_frames(prefix, frames),
            f"{prefix}{name}: {message}"]


def _report(lines: list[str]) -> logsleuth.Report:
    return logsleuth.explain_text("\n".join(lines) + "\n")


@settings(max_examples=60)
@given(st.sampled_from(_PREFIXES), st.lists(st.sampled_from(_CARRIED), max_size=30),
       st.booleans(), st.sampled_from(_CHILD_ERRORS), st.sampled_from([None, "SIGINT", "SIGKILL",
                                                                      "exit"]),
       st.lists(_WORDS, min_size=2, max_size=6), st.booleans())
def test_the_error_in_carried_output_is_the_root(
        prefix: str, carried: list[str], bootstrap: bool, child: tuple[str, str],
        ended: str | None, words: list[str], interrupted: bool) -> None:
    lines = ["INFO 09-23 17:49:51 custom_all_reduce_utils.py:203] generating GPU P2P access cache"]
    if ended is not None:  # the child's end as subprocess reports it, raised from first
        code = 1 if ended == "exit" else -getattr(signal, ended)
        called = subprocess.CalledProcessError(code, ["python", "check.py"])
        lines += _traceback(prefix, "subprocess.CalledProcessError", str(called))
        lines += ["", f"{prefix}The above exception was the direct cause of the following "
                      "exception:", ""]
    lines += [*_traceback(prefix, "RuntimeError", " ".join(words) + ":", 3)[:-1],
              f"{prefix}RuntimeError: {' '.join(words)}:"]
    lines += [prefix + line for line in carried]
    if bootstrap:
        lines.append(f"{prefix}Process SpawnProcess-1:")
    lines += _traceback(prefix, *child)
    if interrupted:  # the operator's Ctrl-C ended the others, after the child's error
        lines += _traceback(prefix, "KeyboardInterrupt", "")[:-1] + [f"{prefix}KeyboardInterrupt"]
    report = _report(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.message) == child, lines


def test_carried_output_is_bounded() -> None:
    # far past the carrier, a traceback is not what it carried: the carrier stands on its own
    lines = ["RuntimeError: Error happened when batch testing:"]
    lines += [f"plain output line {i}" for i in range(MAX_CARRIED_LINES + 10)]
    lines += _traceback("", "ValueError", "unrelated")
    events = [e for e in assemble(tokenize([("\n".join(lines) + "\n").encode()]))
              if isinstance(e, ErrorEvent)]
    assert [e.exception for e in sorted(events, key=lambda e: e.line)] == \
        ["RuntimeError", "ValueError"]


@settings(max_examples=30)
@given(st.lists(_WORDS, min_size=1, max_size=5),
       st.sampled_from(["ERROR 04-03 18:30:13 [core.py:343] ", "ERROR 04-03 18:30:13 core.py:208] ",
                        "(EngineCore_DP0 pid=3) ERROR 04-03 18:30:13 [core.py:343] "]))
def test_a_record_that_runs_into_a_traceback_titles_it(words: list[str], header: str) -> None:
    title = " ".join(words).capitalize() + " hit an exception"
    lines = [f"{header}{title}: Traceback (most recent call last):", *_frames(header, 2),
             f"{header}ValueError: bad shape"]
    events = [e for e in assemble(tokenize([("\n".join(lines) + "\n").encode()]))
              if isinstance(e, ErrorEvent)]
    assert len(events) == 1, events
    assert events[0].exception == "ValueError" and (events[0].title or "").startswith(title)


_UNPICKLED = ["    obj = pickle.loads(buf[1:])", "    return pickle.loads(data)",
              "    msg = self.socket.recv_pyobj()", "    return _ForkingPickler.loads(buf.getbuffer())"]
_INIT_ERRORS = ["__init__() missing 1 required positional argument: 'inner_exception'",
                "BackendCompilerFailed.__init__() missing 1 required positional argument: "
                "'inner_exception'",
                "MyError.__init__() missing 2 required positional arguments: 'a' and 'b'",
                "__init__() takes 2 positional arguments but 3 were given",
                "Oops.__init__() got an unexpected keyword argument 'code'"]


@settings(max_examples=40)
@given(st.sampled_from(_UNPICKLED), st.sampled_from(_INIT_ERRORS),
       st.sampled_from(["", "(EngineCore_DP0 pid=3) ", "ERROR 04-03 18:30:13 [core.py:343] "]))
def test_an_exception_lost_in_transport_reports_the_sender(code: str, message: str,
                                                          header: str) -> None:
    lines = [f"{header}Traceback (most recent call last):",
             f'{header}  File "/x/vllm/v1/executor/multiproc_executor.py", line 118, in '
             "collective_rpc",
             f"{header}    status, result = w.worker_response_mq.dequeue(",
             f'{header}  File "/x/vllm/distributed/device_communicators/shm_broadcast.py", '
             "line 471, in dequeue", f"{header}{code}",
             f"{header}TypeError: {message}"]
    report = _report(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, lines
    # raised anywhere else, the same TypeError is a cause of its own
    elsewhere = lines[:-2] + [f"{header}    model = cls(config, prefix)", lines[-1]]
    assert _report(elsewhere).verdict is Verdict.FAILURE, elsewhere
