"""A traceback pasted without its indentation (issue 10, the metamorphic sweep's `dedent`): every
line at the margin, Python's frame lines, their source lines and carets alike. The line under a
frame is that frame's source line all the same (locate.py `_source_line_below` reads it, though
no anchor holds it; assemble.py `_dedented_source` gives it to the frame), so the frames carry
the code the error's reading asks of them: a loader's `lora_path = ...` that a later
UnboundLocalError names, a bare assertion matched on its source line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.assemble import assemble
from logsleuth.model import ErrorEvent
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import tokenize

_CODE = ["lora_path = get_adapter_absolute_path(lora_request.lora_path)",
         "if lora_path.startswith('~'):", "return self.model_executor.execute_model(batch)",
         "assert num_tokens_padded % uniform_decode_query_len == 0", "output = fn(*args)",
         "raise ValueError(msg)", "self._init_engine(config)", "x = torch.empty(size)"]
_FUNCTIONS = ["_load_adapter", "get_adapter_absolute_path", "execute_model", "run", "f"]
_ENDINGS = ["AttributeError: 'PosixPath' object has no attribute 'startswith'", "AssertionError",
            "ValueError: bad value", "RuntimeError: CUDA error: out of memory"]
_HEADS = ["", "ERROR 07-31 22:37:30 async_llm_engine.py:56] Engine background task failed\n",
          "Exception in callback _log_task_completion()\n"]


@st.composite
def tracebacks(draw: st.DrawFn) -> str:
    frames = draw(st.lists(st.tuples(st.sampled_from(_FUNCTIONS), st.sampled_from(_CODE),
                                     st.booleans(), st.integers(1, 2000)),
                           min_size=1, max_size=4))
    lines = ["Traceback (most recent call last):"]
    for number, (function, code, caret, line) in enumerate(frames):
        lines.append(f'  File "/opt/venv/lib/python3.11/site-packages/vllm/m{number}.py", '
                     f"line {line}, in {function}")
        lines.append(f"    {code}")
        if caret:
            lines.append("    " + "^" * min(len(code), 30))
    lines.append(draw(st.sampled_from(_ENDINGS)))
    return draw(st.sampled_from(_HEADS)) + "\n".join(lines) + "\n"


def _errors(text: str) -> list[ErrorEvent]:
    return [event for event in assemble(tokenize([text.encode()]))
            if isinstance(event, ErrorEvent)]


def _dedent(text: str) -> str:
    return "".join(line.lstrip(" \t") + "\n" for line in text.splitlines())


@settings(max_examples=120, deadline=None)
@given(tracebacks())
def test_a_dedented_traceback_keeps_each_frames_source_line(text: str) -> None:
    indented, dedented = _errors(text), _errors(_dedent(text))
    assert [(e.exception, e.message, e.frames) for e in dedented] \
        == [(e.exception, e.message, e.frames) for e in indented]
    assert all(frame.code for event in dedented for frame in event.frames)


def test_the_source_line_decides_root_and_signature_dedented_as_indented() -> None:
    """The two shapes the sweep broke: an UnboundLocalError a loader's handler raised, logged
    above the traceback of the error it was handling (the handled error is the root once the
    frame's `lora_path = ...` is read), and a bare assertion matched on its source line."""
    loader = (
        "ERROR 07-31 22:37:30 async_llm_engine.py:56] UnboundLocalError: cannot access local "
        "variable 'lora_path' where it is not associated with a value\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.11/site-packages/vllm/lora/worker_manager.py", line 93, '
        "in _load_adapter\n"
        "    lora_path = get_adapter_absolute_path(lora_request.lora_path)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/vllm/lora/utils.py", line 136, in '
        "get_adapter_absolute_path\n"
        "    if lora_path.startswith('~'):\n"
        "AttributeError: 'PosixPath' object has no attribute 'startswith'\n")
    assertion = (
        '  File "/w/vllm/vllm/v1/cudagraph_dispatcher.py", line 140, in '
        "_create_padded_batch_descriptor\n"
        "    assert num_tokens_padded % uniform_decode_query_len == 0\n"
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "AssertionError\n")
    for text in (loader, assertion):
        reports = [report_to_dict(explain_text(t, signatures=default_signatures()))
                   for t in (text, _dedent(text))]
        root, dedented_root = (r["root_cause"] for r in reports)
        assert isinstance(root, dict) and isinstance(dedented_root, dict)
        assert (root["exception"], root["line"]) \
            == (dedented_root["exception"], dedented_root["line"])
        signature, dedented_signature = (r["signature"] for r in reports)
        assert isinstance(signature, dict) and isinstance(dedented_signature, dict)
        assert signature["id"] == dedented_signature["id"]


_MODULES = st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), min_size=1,
                    max_size=3).map(".".join)
# a CamelCase class whose name says nothing of an error (`SerializedRayObject`, `Tensor`)
_CLASSES = st.from_regex(r"[A-Z][a-z]{1,6}(?:[A-Z][a-z]{1,6}){0,2}", fullmatch=True).filter(
    lambda name: not any(word in name for word in (
        "Error", "Exception", "Exit", "Interrupt", "Warning", "Failure", "Fault", "Timeout",
        "Iteration", "Group")))


@settings(max_examples=150, deadline=None)
@given(_MODULES, _CLASSES, st.sampled_from(["", "  "]))
def test_a_dotted_class_is_an_exception_with_its_message_under_frames_or_named_so(
        module: str, name: str, trailing: str) -> None:
    """A dotted class with its message after a colon is an exception
    (`triton.runtime.errors.OutOfResources: out of resource`), and so is the bare name under a
    traceback's frames (`bdb.BdbQuit`), and a bare name that says it is an error. (A dotted
    class alone on its line with no traceback open stays a bare exception too, indented or
    not: tests/test_paste_wrappers.py. A dedented source listing's `serialization.
    SerializedRayObject` reads the same, and only the lines around it could tell them apart;
    session 29 tried a rule for it and withdrew it, tools/metamorphic/README.md.)"""
    dotted = f"{module}.{name}"
    assert [e.exception for e in _errors(f"{dotted}: out of resource: shared memory\n")] \
        == [dotted]
    assert [e.exception for e in _errors(f"{dotted}Error{trailing}\n")] == [f"{dotted}Error"]
    raised = ('Traceback (most recent call last):\n  File "/usr/lib/python3.12/bdb.py", '
              f"line 125, in dispatch_line\n    if self.quitting: raise {name}\n{dotted}\n")
    assert [e.exception for e in _errors(raised)] == [dotted]


@settings(max_examples=150, deadline=None)
@given(_MODULES, st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}", fullmatch=True),
       st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
       st.sampled_from(["TypeError", "ray.exceptions.ActorDiedError", "ValueError"]))
def test_a_call_at_the_margin_is_code_a_wrapped_class_an_exception(module: str, name: str,
                                                                   argument: str,
                                                                   inner: str) -> None:
    """`ctypes.CDLL(path)` (a frame's source line pasted at the margin) is no exception line;
    `ray.exceptions.RayTaskError(TypeError): ...`, a class wrapping another's, is one."""
    from logsleuth.model import LineKind
    from logsleuth.tokenize import parse_line

    assert parse_line(f"{module}.{name}({argument})").kind is not LineKind.EXCEPTION
    wrapped = parse_line(f"ray.exceptions.RayTaskError({inner}): ray::Worker.execute()")
    assert (wrapped.kind, wrapped.exception) \
        == (LineKind.EXCEPTION, f"ray.exceptions.RayTaskError({inner})")


# a native symbol as a crash handler prints it: a qualified name, its arguments elided or typed
_SYMBOLS = st.from_regex(r"[a-z_]{2,8}(?:::[a-z_]{2,10}){0,2}\((?:\.\.\.|int, char const\*)?\)",
                         fullmatch=True)
_AFTER = ["", "INFO 09-02 11:20:15 [core.py:71] Shutting down\n", "\nthe job ended\n"]


@settings(max_examples=80, deadline=None)
@given(st.lists(_SYMBOLS, min_size=1, max_size=8), st.sampled_from(_AFTER))
def test_a_dedented_native_stack_keeps_its_symbols(symbols: list[str], after: str) -> None:
    """A native crash handler's stack under its banner (`!!!!!!! Segfault encountered !!!!!!!`,
    one symbol a line, indented) pasted at the margin: the lines under the banner are its
    symbols all the same (locate.py `_stack_below`, assemble.py `_dedented_symbol`), up to a
    blank line or a record of its own."""
    text = ("|CCL_WARN| failed to get PCI device: [0:0:2:0]\n"
            "!!!!!!! Segfault encountered !!!!!!!\n"
            + "".join(f"  {symbol}\n" for symbol in symbols) + after)
    indented, dedented = _errors(text), _errors(_dedent(text))
    assert [(e.exception, e.message, e.frames) for e in dedented] \
        == [(e.exception, e.message, e.frames) for e in indented]
    assert len(indented[0].frames) == len(symbols)


def test_a_dedented_oneccl_stack_is_still_oneccl_s() -> None:
    """The sweep's break: oneCCL's symbols under the banner say whose crash it is, dedented as
    indented (signatures/platform/xpu-oneccl-native-crash)."""
    text = ("!!!!!!! Segfault encountered !!!!!!!\n  ccl_comm::post_coll(...)\n"
            "  ccl_comm::allreduce_impl(...)\n")
    for pasted in (text, _dedent(text)):
        report = report_to_dict(explain_text(pasted, signatures=default_signatures()))
        signature = report["signature"]
        assert isinstance(signature, dict) and signature["id"] == "xpu-oneccl-native-crash"
