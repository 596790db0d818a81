"""Exceptions printed alone, before vLLM starts: a library imported at start-up catches an error
and prints its `Type: message` line without a traceback (protobuf's `AttributeError:
'MessageFactory' object has no attribute 'GetPrototype'` from a TensorFlow install, in every
process that imports it). Python prints an uncaught exception with its traceback, so one printed
alone was caught; its output then starting vLLM shows the process went on, and its copies in the
processes started later recur as survived. The failure is the error after them. An exception line
printed alone with no start after it (a paste of a traceback's last line) stays the failure.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=25, deadline=None)
NOISE = ["AttributeError: 'MessageFactory' object has no attribute 'GetPrototype'",
         "ImportError: cannot import name 'builder' from 'google.protobuf.internal'",
         "ModuleNotFoundError: No module named 'tensorflow_text'"]
GLOG = ["W0000 00:00:1781687833.451144 3902535 computation_placer.cc:177] computation placer "
        "already registered."]
WARNING = ["/x/site-packages/matplotlib/projections/__init__.py:63: UserWarning: Unable to "
           "import Axes3D.", '  warnings.warn("Unable to import Axes3D. This may be due to "']
START = ["INFO 06-17 05:17:17 __init__.py:207] Automatically detected platform cuda.",
         "INFO 06-17 05:17:17 api_server.py:912] vLLM API server version 0.7.3",
         "INFO 06-17 05:17:17 api_server.py:209] Started engine process with PID 3902773"]
FAILURE = ["Traceback (most recent call last):",
           '  File "/x/vllm/engine/arg_utils.py", line 1334, in create_engine_config',
           "    config = VllmConfig(",
           "ValueError: Cannot find the config file for awq"]


def _noise(kind: int, copies: int, warning: bool) -> list[str]:
    return GLOG + [NOISE[kind]] * copies + (WARNING if warning else [])


@SOME
@given(st.integers(0, len(NOISE) - 1), st.integers(1, 6), st.booleans(), st.booleans())
def test_noise_printed_before_the_start_is_survived(kind: int, copies: int, warning: bool,
                                                    again: bool) -> None:
    lines = _noise(kind, copies, warning) + START
    if again:  # the engine process imports the same library and prints it again
        lines += _noise(kind, copies, warning) + [START[0]]
    lines += FAILURE
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "ValueError" and root.line == len(lines)


@SOME
@given(st.integers(0, len(NOISE) - 1), st.integers(1, 3), st.booleans())
def test_an_exception_alone_with_no_start_after_it_is_the_failure(kind: int, copies: int,
                                                                   started: bool) -> None:
    lines = (START if started else []) + [NOISE[kind]] * copies
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line == (len(START) if started else 0) + 1


def test_a_warning_line_ends_the_message_of_the_exception_before_it() -> None:
    lines = [NOISE[0], *WARNING, *START, *FAILURE]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    survived = [e for e in report.survived if e.line == 1]
    assert survived and "warnings.warn" not in survived[0].message
