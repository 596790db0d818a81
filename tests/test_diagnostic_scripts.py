"""A script run to describe the environment for a report (vLLM's collect_env.py, `vllm
collect-env`, torch.utils.collect_env) that fails on its own is not the failure being reported
(causality.yaml `diagnostics`). Generated: vLLM's warning that a compiled extension could not be
loaded because its binary does not fit (an undefined symbol, a symbol version not found, a wrong
ELF class), in each extension's name, each era's record header and process prefix, then the
environment script's own traceback (any error, any place the script is run from): the warning is
the root. Any other error printed before or after such a script's error is the root too. And
what does not change: the script's error alone is the failure; a warning of a library that is
only missing (`No module named`, `cannot open shared object file`: platforms without the kernels
print it and work) does not become one; the binary warning with nothing after it, or with a
serving engine after it, stays no failure.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


extensions = st.sampled_from(["_C", "_C_stable_libtorch", "_moe_C", "_rocm_C", "_core_C",
                              "_C_AVX512"])
binary = st.sampled_from([
    "undefined symbol: _ZNK3c1011StorageImpl27throw_data_ptr_access_errorEv",
    "undefined symbol: _ZN3c104cuda9SetDeviceEi",
    "version `GLIBCXX_3.4.30' not found (required by /opt/venv/lib/python3.12/site-packages/"
    "vllm/{ext}.abi3.so)",
    "wrong ELF class: ELFCLASS32",
])
missing = st.sampled_from(["No module named 'vllm.{ext}'",
                           "libcudart.so.12: cannot open shared object file: No such file or "
                           "directory"])
headers = st.sampled_from(["WARNING 01-30 20:57:18 _custom_ops.py:14] ",
                           "WARNING 01-30 20:57:18 [_custom_ops.py:14] ",
                           "(APIServer pid=1) WARNING 01-30 20:57:18 [_custom_ops.py:14] ",
                           "WARNING 01-30 20:57:18 [interface.py:312] "])


def _warning(header: str, ext: str, reason: str, with_repr: bool) -> str:
    library = f"/opt/venv/lib/python3.12/site-packages/vllm/{ext}.abi3.so"
    reason = reason.format(ext=ext)
    text = f"{library}: {reason}" if "No module" not in reason else reason
    if with_repr:
        kind = "ModuleNotFoundError" if "No module" in reason else "ImportError"
        return f"{header}Failed to import from vllm.{ext} with {kind}({text!r})"
    return f"{header}Failed to import from vllm.{ext}: {text}"


# where the environment script is run from, and the error it ends in
scripts = st.sampled_from(["/home/orin/collect_env.py",
                           "/opt/venv/lib/python3.12/site-packages/vllm/collect_env.py",
                           "/opt/venv/lib/python3.12/site-packages/torch/utils/collect_env.py",
                           "C:\\Users\\me\\collect_env.py"])
ENDS = ["ImportError: cannot import name '__version_tuple__' from 'vllm' "
        "(/opt/venv/lib/python3.12/site-packages/vllm/__init__.py)",
        "AttributeError: module 'vllm' has no attribute '__version__'",
        "FileNotFoundError: [Errno 2] No such file or directory: 'nvidia-smi'",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start "
        "byte"]
ends = st.sampled_from(ENDS)


def _script(path: str, end: str, depth: int) -> list[str]:
    lines = ["Collecting environment information...", "Traceback (most recent call last):",
             f'  File "{path}", line 765, in <module>', "    main()"]
    for n in range(depth):
        lines += [f'  File "{path}", line {700 - n * 40}, in step_{n}', f"    return step_{n + 1}()"]
    return [*lines, end]


@settings(max_examples=100, deadline=None)
@given(headers, extensions, binary, st.booleans(), scripts, ends, st.integers(0, 3),
       st.lists(st.sampled_from(["PyTorch version: 2.3.1+cu118", "Is debug build: False",
                                 "CUDA used to build PyTorch: 11.8"]), max_size=3))
def test_a_binary_that_does_not_fit_is_the_failure_the_script_was_run_to_report(
        header: str, ext: str, reason: str, with_repr: bool, path: str, end: str, depth: int,
        output: list[str]) -> None:
    warning = _warning(header, ext, reason, with_repr)
    report = explain([warning, *output, *_script(path, end, depth)])
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line == 1, (root, warning)
    assert root.exception in ("ImportError", "ModuleNotFoundError") or "import" in root.message


_RUN = ["INFO 01-30 21:00:00 [api_server.py:1] vLLM API server version 0.9.1",
        "Traceback (most recent call last):",
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1, in '
        "create_engine_config",
        "    raise ValueError(msg)",
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0."]


@settings(max_examples=60, deadline=None)
@given(scripts, ends, st.integers(0, 2), st.booleans())
def test_another_error_is_the_root_before_or_after_the_scripts_own(
        path: str, end: str, depth: int, script_first: bool) -> None:
    script = _script(path, end, depth)
    lines = [*script, *_RUN] if script_first else [*_RUN, *script]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError", \
        report.root_cause


@settings(max_examples=40, deadline=None)
@given(scripts, ends, st.integers(0, 2))
def test_the_scripts_error_alone_is_the_failure(path: str, end: str, depth: int) -> None:
    lines = _script(path, end, depth)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(lines)


@settings(max_examples=60, deadline=None)
@given(headers, extensions, missing, st.booleans(), scripts, ends, st.integers(0, 2))
def test_a_library_only_missing_does_not_become_the_failure(
        header: str, ext: str, reason: str, with_repr: bool, path: str, end: str,
        depth: int) -> None:
    lines = [_warning(header, ext, reason, with_repr), *_script(path, end, depth)]
    report = explain(lines)
    assert report.root_cause is not None and report.root_cause.line == len(lines), \
        report.root_cause


_SERVING = ["INFO 01-30 21:00:00 [api_server.py:1] vLLM API server version 0.9.1",
            "INFO:     Application startup complete.",
            'INFO:     10.0.0.5:40000 - "POST /v1/completions HTTP/1.1" 200 OK']


@settings(max_examples=40, deadline=None)
@given(headers, extensions, binary, st.booleans(), st.integers(0, len(_SERVING)))
def test_the_binary_warning_without_a_later_error_stays_no_failure(
        header: str, ext: str, reason: str, with_repr: bool, served: int) -> None:
    report = explain([_warning(header, ext, reason, with_repr), *_SERVING[:served]])
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause
