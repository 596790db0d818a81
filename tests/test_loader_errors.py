"""The dynamic loader's refusal of a shared library printed without its exception (a notebook's
output, `print(e)`, a paste that dropped `ImportError: `): an error of the class Python raises
it with, found in a short paste and in a long log alike (its anchor), behind any wrapper."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.tokenize import parse_line

SOME = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LIBRARIES = [("/env/lib/python3.10/site-packages/vllm/activation_ops.cpython-310-x86_64-linux-gnu"
              ".so", "ImportError"),
             ("/usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so", "ImportError"),
             ("libcudart.so.12", "OSError"), ("/usr/lib/x86_64-linux-gnu/libnccl.so.2", "OSError")]
REASONS = ["undefined symbol: _ZN3c106detail19maybe_wrap_dim_slowEllb",
           "cannot open shared object file: No such file or directory",
           "wrong ELF class: ELFCLASS32", "invalid ELF header"]
OUTERS = ["", "vllm-1  | ", "2025-01-01T10:00:00.123456789Z stderr F ", "(EngineCore_DP0 pid=7) "]
HEALTHY = ['INFO:     127.0.0.1:36936 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
           "INFO 05-01 10:00:00 [loggers.py:116] Engine 000: Avg prompt throughput: 12.5 tokens/s"]


@SOME
@given(st.sampled_from(LIBRARIES), st.sampled_from(REASONS), st.sampled_from(OUTERS),
       st.sampled_from([0, 3, 600]))
def test_a_loader_error_alone_is_the_error_python_raises(library: tuple[str, str], reason: str,
                                                          outer: str, before: int) -> None:
    path, cls = library
    lines = [HEALTHY[i % 2] for i in range(before)] + [f"{outer}{path}: {reason}"]
    report = explain_text("\n".join(lines) + "\n")
    root = report.root_cause
    assert report.verdict == "failure" and root is not None, report.reasons
    assert (root.exception, root.line) == (cls, before + 1)
    assert reason in root.message


@given(st.sampled_from(LIBRARIES), st.sampled_from(REASONS))
def test_a_typed_loader_error_stays_the_typed_exception(library: tuple[str, str],
                                                        reason: str) -> None:
    line = parse_line(f"ImportError: {library[0]}: {reason}")
    assert (line.exception, line.message) == ("ImportError", f"{library[0]}: {reason}")


def test_prose_about_a_library_is_not_a_loader_error() -> None:
    line = parse_line("Loaded libcudart.so.12: version 12.4 found")
    assert line.exception is None


@SOME
@given(st.sampled_from(LIBRARIES), st.sampled_from(REASONS), st.data())
def test_a_loader_error_cut_at_its_start_is_still_found(library: tuple[str, str], reason: str,
                                                        data: st.DataObject) -> None:
    # a paste or a terminal that cut the line's start anywhere inside the library's path
    path = library[0]
    cut = data.draw(st.integers(0, path.rindex(".so") - 1))
    report = explain_text(f"{path[cut:]}: {reason}\n")
    assert report.root_cause is not None and report.root_cause.line == 1
    assert reason in report.root_cause.message
