"""An exception class a native binding names in lower camel case is an exception (issue 10).

A C++ library's Python binding (pybind11, nanobind) may keep the library's own spelling for the
exception classes it registers: NIXL's bindings raise `nixl._bindings.nixlNotFoundError`,
`nixlBackendError`, `nixlInvalidParamError` (one class per `NIXL_ERR_*` status). Python prints such
a class with its module, as it prints every class that is not a builtin, so the exception line is
a dotted name whose last part begins in lower case and ends in `Error` or `Exception`
(grammars/vllm.lark EXC_TYPE, INDENT_LEAD; tests/fixtures/tuning, launchers/w-dynamo-vllm-v1-
tp16-multinode-nixl-register-kv-caches-prep-xfer-dlist-not-found: a traceback's tail that ends
`nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND`). Read as text, the traceback it ends
was cut before its exception and the log's only error a symptom. Undotted, such a word is no
exception Python prints (`myError: x` is a label).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import clean, parse_line

MODULES = ["nixl._bindings", "nixl", "mylib._C", "ucx_py.core", "_ext.bindings"]
PREFIXES = ["nixl", "ucx", "mori", "ext", "lib2"]
MIDDLES = ["", "NotFound", "Backend", "InvalidParam", "Remote", "NotAllowed"]
SUFFIXES = ["Error", "Exception"]
MESSAGES = ["NIXL_ERR_NOT_FOUND", "NIXL_ERR_BACKEND", "status -3", ""]
HEADERS = ["", "(EngineCore_DP0 pid=412) ERROR 06-14 18:52:40 [core.py:710] ", "[rank3]: "]
FRAMES = ['  File "/venv/lib/python3.12/site-packages/vllm/distributed/kv_transfer/kv_connector/'
          'v1/nixl_connector.py", line 601, in register_kv_caches',
          "    self.src_xfer_side_handle = self.nixl_wrapper.prep_xfer_dlist(",
          '  File "/venv/lib/python3.12/site-packages/nixl/_api.py", line 341, in prep_xfer_dlist',
          "    handle = self.agent.prepXferDlist(agent_name, descs, handle_list)"]

NAMES = st.builds(lambda m, p, mid, s: f"{m}.{p}{mid}{s}", st.sampled_from(MODULES),
                  st.sampled_from(PREFIXES), st.sampled_from(MIDDLES), st.sampled_from(SUFFIXES))


@settings(max_examples=60, deadline=None)
@given(NAMES, st.sampled_from(MESSAGES), st.sampled_from(HEADERS), st.booleans())
def test_a_traceback_ending_in_a_lower_camel_binding_exception_is_that_exception(
        name: str, message: str, header: str, titled: bool) -> None:
    last = f"{name}: {message}" if message else name
    lines = [*(["Traceback (most recent call last):"] if titled else []), *FRAMES, last]
    lines = [header + x for x in lines]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE, lines[-1]
    root = report.root_cause
    assert root is not None and root.line == len(lines), lines[-1]
    assert root.exception == name and root.message == message


@settings(max_examples=40, deadline=None)
@given(NAMES, st.sampled_from(MESSAGES[:3]), st.sampled_from(["", "    ", "\t"]))
def test_a_lower_camel_binding_exception_line_alone_is_an_exception(
        name: str, message: str, indent: str) -> None:
    line = f"{indent}{name}: {message}"
    parsed = parse_line(clean(line))
    assert parsed.exception == name, line
    assert parsed.kind in (LineKind.EXCEPTION, LineKind.INDENTED), line


@given(st.sampled_from(PREFIXES), st.sampled_from(MIDDLES), st.sampled_from(SUFFIXES))
def test_an_undotted_lower_camel_word_is_no_exception(prefix: str, middle: str,
                                                      suffix: str) -> None:
    line = f"{prefix}{middle}{suffix}: could not reach the store"
    assert parse_line(clean(line)).exception is None, line
