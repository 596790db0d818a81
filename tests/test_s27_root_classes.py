"""Root causes in three shapes a paste gives them (issue 10, "every error form"; session 27's cold
misses of the eighteenth development split, each fixed for its class):

- a time of day glued to the line's first word, as a copy from a web UI's table or notification
  runs its time column into the message (`14:07ValueError: ...`): a wrapper (vllm.lark ANY_TIME);
- an exception's message alone, in the interpreter's own words (`'X' object has no attribute
  'y'`), printed above the frames of its traceback, which has no `Traceback` header (`print(e)`
  then `traceback.print_tb`, a paste that puts the message first): that traceback's exception,
  of the class the interpreter raises the message with (causality.yaml `interpreter_messages`);
- an UnboundLocalError raised while handling the exception that left its variable unbound (`x =
  f()` raised; the `except` branch read `x`), printed in any order and in parts: the exception
  that broke the binding is the cause (causality.yaml `unbound`, causal.py `_unbound_causes`).

Generated: the times, names, messages, frames, statements, prose around them and the order of
the prints; and what must stay as it was (a time before lower-case text, a message with no frames
under it, a variable bound by no failing frame).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import PASTE_LINES, explain_text
from logsleuth.tokenize import parse_line


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


_PROSE = ["I started the model and got this:", "Any help is appreciated",
          "INFO 07-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.1",
          "Loading model...", "```"]
prose = st.lists(st.sampled_from(_PROSE), max_size=3)
_CAMEL = ["Shard", "Weight", "Tensor", "Quant", "Layer", "Cache", "Config", "Kernel"]
_MODULE = ["torch", "vllm", "model_executor", "errors", "utils", "transformers"]
names = st.one_of(
    st.sampled_from(["RuntimeError", "ValueError", "KeyError", "TypeError", "ImportError",
                     "NotImplementedError", "IndexError", "AttributeError", "OSError"]),
    st.builds(lambda camel, suffix: "".join(camel) + suffix,
              st.lists(st.sampled_from(_CAMEL), min_size=1, max_size=3),
              st.sampled_from(["Error", "Exception"])),
    st.builds(lambda module, camel: ".".join(module) + "." + "".join(camel) + "Error",
              st.lists(st.sampled_from(_MODULE), min_size=1, max_size=3),
              st.lists(st.sampled_from(_CAMEL), min_size=1, max_size=2)))
messages = st.lists(st.sampled_from(["shape", "mismatch", "for", "layers.0.weight", "expected",
                                     "got", "4096", "the", "model", "'q_proj'"]),
                    min_size=1, max_size=6).map(" ".join)
# a time of day to the minute or finer, with or without its date, as a UI's column gives it
clocks = st.builds(
    lambda date, hour, minute, rest: f"{date}{hour}:{minute:02d}{rest}",
    st.sampled_from(["", "2025-02-11 ", "2025/02/11 ", "2025-02-11T"]),
    st.sampled_from(["9", "09", "14", "23"]), st.integers(0, 59),
    st.sampled_from(["", ":07", ":07.123", ":07,123456"]))


# ---- a time glued to the line's first word ----------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(prose, clocks, names, messages, st.booleans())
def test_an_exception_line_with_a_glued_time_is_the_failure(lead: list[str], clock: str,
                                                            name: str, message: str,
                                                            traced: bool) -> None:
    body = [f"{name}: {message}"]
    if traced:  # the whole traceback copied with the time on its first line
        body = ["Traceback (most recent call last):",
                '  File "/usr/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 9, '
                "in create", "    raise err", *body]
    lines = [*lead, clock + body[0], *body[1:]]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.exception == name, lines
    assert report.root_cause.line == len(lines), lines
    assert report.root_cause.message == message


@settings(max_examples=30, deadline=None)
@given(clocks, st.sampled_from(["pm lunch break", "AM meeting", "PM call", "am", "h later",
                                "min elapsed"]))
def test_a_time_before_other_text_stays_text(clock: str, rest: str) -> None:
    # a clock run into lower-case words or its own AM/PM is not a wrapper: nothing is read away
    line = parse_line(clock + rest, 1)
    assert line.outer is None and line.text == clock + rest
    assert explain(["All good:", clock + rest]).verdict is Verdict.NO_FAILURE


# ---- the interpreter's message above its frames -----------------------------------------------

_IDENT = st.sampled_from(["model_executor", "driver_worker", "lora_path", "get", "weight",
                          "cfg", "tokenizer", "engine"])
_TYPE = st.sampled_from(["LLMEngine", "NoneType", "dict", "PosixPath", "Qwen2Config", "list"])
_MOD = st.sampled_from(["vllm", "torch.cuda", "vllm._C", "transformers.utils", "trl"])
# (class, message) in the interpreter's own words
interpreter_messages = st.one_of(
    st.builds(lambda t, a: ("AttributeError", f"'{t}' object has no attribute '{a}'"), _TYPE,
              _IDENT),
    st.builds(lambda m, a: ("AttributeError", f"module '{m}' has no attribute '{a}'"), _MOD,
              _IDENT),
    st.builds(lambda t, a: ("AttributeError", f"type object '{t}' has no attribute '{a}'"),
              _TYPE, _IDENT),
    st.builds(lambda a: ("NameError", f"name '{a}' is not defined"), _IDENT),
    st.builds(lambda a: ("UnboundLocalError",
                         f"cannot access local variable '{a}' where it is not associated with a "
                         "value"), _IDENT),
    st.builds(lambda a: ("UnboundLocalError", f"local variable '{a}' referenced before "
                         "assignment"), _IDENT),
    st.builds(lambda m: ("ModuleNotFoundError", f"No module named '{m}'"), _MOD),
    st.builds(lambda a, m: ("ImportError", f"cannot import name '{a}' from '{m}'"), _IDENT, _MOD),
    st.builds(lambda t, what: ("TypeError", f"'{t}' object is not {what}"), _TYPE,
              st.sampled_from(["subscriptable", "callable", "iterable"])),
    st.builds(lambda f, a: ("TypeError", f"{f}() got an unexpected keyword argument '{a}'"),
              _IDENT, _IDENT),
    st.builds(lambda f, n: ("TypeError", f"{f}() takes {n} positional arguments but {n + 1} "
                            "were given"), _IDENT, st.integers(1, 4)),
    st.builds(lambda t: ("TypeError", f"object of type '{t}' has no len()"), _TYPE),
    st.builds(lambda n: ("ValueError", f"too many values to unpack (expected {n})"),
              st.integers(2, 4)),
    st.builds(lambda n: ("ValueError", f"not enough values to unpack (expected {n + 1}, got {n})"),
              st.integers(1, 3)),
    st.sampled_from([("IndexError", "list index out of range"),
                     ("IndexError", "tuple index out of range"),
                     ("ZeroDivisionError", "division by zero"),
                     ("TypeError", 'can only concatenate str (not "int") to str'),
                     ("ValueError", "invalid literal for int() with base 10: 'abc'"),
                     ("RecursionError", "maximum recursion depth exceeded")]))
frames = st.lists(st.builds(
    lambda path, n, function, code: [f'  File "{path}", line {n}, in {function}', f"    {code}"],
    st.sampled_from(["/root/work/train/online_dpo.py", "/opt/app/serve.py",
                     "/usr/local/lib/python3.11/site-packages/vllm/engine/llm_engine.py"]),
    st.integers(1, 900), st.sampled_from(["_generate_vllm", "main", "step", "load"]),
    st.sampled_from(["model = self.llm.llm_engine.model_executor.driver_worker.model",
                     "out = run(batch)", "return self._load(path)"])),
    min_size=1, max_size=3).map(lambda fs: [line for frame in fs for line in frame])
# how the lines reach the log: raw, or behind a wrapper or a process prefix on every line
prefixes = st.sampled_from(["", "2025-07-01T10:00:00.123456Z ", "(pid=4242) ", "> "])


@settings(max_examples=80, deadline=None)
@given(prose, prefixes, interpreter_messages, frames, st.booleans(), st.booleans(),
       st.sampled_from(["cut", "dots", "whole"]))
def test_the_message_printed_above_headless_frames_is_their_exception(
        lead: list[str], prefix: str, exception: tuple[str, str], frame_lines: list[str],
        blank: bool, header: bool, end: str) -> None:
    # (with its `Traceback` header too: `print(e)`, then `traceback.print_exc()` cut short)
    name, message = exception
    tail = {"cut": [], "dots": ["", "    ..."], "whole": [f"{name}: {message}"]}[end]
    head = ["Traceback (most recent call last):"] if header else []
    body = [message, *([""] if blank else []), *head, *frame_lines, *tail]
    lines = [*lead, *(prefix + line if line else line for line in body)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.exception == name, lines
    assert report.root_cause.message == message
    assert report.root_cause.first_line == len(lead) + 1, lines


@settings(max_examples=40, deadline=None)
@given(interpreter_messages, st.sampled_from(["no frames", "far", "far header", "record"]))
def test_a_message_not_right_above_frames_is_no_error(exception: tuple[str, str],
                                                      shape: str) -> None:
    # a program's print of an error it went on from, with no frames under it, in a run's log
    # (a short paste of the message alone is read by index/bare.py as the error vLLM raises it
    # as); one with other output between it and a later cut traceback; one logged as an INFO
    # record's text
    _, message = exception
    if shape == "no frames":
        lines = [message, *(f'INFO:     127.0.0.1:{n} - "POST /v1/completions HTTP/1.1" 200 OK'
                            for n in range(PASTE_LINES + 1))]
    elif shape.startswith("far"):
        lines = [message, "step 1 done", "step 2 done", "step 3 done",
                 *(["Traceback (most recent call last):"] if shape == "far header" else []),
                 '  File "/opt/app/serve.py", line 3, in main', "    out = run(batch)"]
    else:
        lines = [f"INFO 07-01 10:00:00 [serve.py:1] {message}",
                 '  File "/opt/app/serve.py", line 3, in main', "    out = run(batch)"]
    report = explain(lines)
    assert report.root_cause is None, lines
    if shape == "no frames":
        assert report.verdict is Verdict.NO_FAILURE, lines


# ---- an UnboundLocalError raised while handling what left its variable unbound ---------------

variables = st.sampled_from(["lora_path", "result", "fh", "conn", "tokenizer", "out"])
# the statement that binds the variable, and how it reads with the variable in place
statements = st.sampled_from(["{v} = get_adapter_absolute_path(lora_request.lora_path)",
                              "{v}: str = resolve(path)", "_, {v} = split(path)",
                              "with open(path) as {v}:", "for {v} in load(path):"])
cause_exceptions = st.sampled_from([
    ("AttributeError", "'PosixPath' object has no attribute 'startswith'"),
    ("FileNotFoundError", "[Errno 2] No such file or directory: '/models/adapter'"),
    ("KeyError", "'adapter_config'"), ("ValueError", "invalid literal for int() with base 10")])
orders = st.sampled_from(["record first", "chained", "apart", "old wording record first"])


def _unbound_log(variable: str, statement: str, cause: tuple[str, str], order: str,
                 function: str = "_load_adapter") -> tuple[list[str], int]:
    """The log and the line of the cause's exception."""
    name, message = cause
    base = "/usr/lib/python3.11/site-packages/vllm/lora"
    cause_tb = ["Traceback (most recent call last):",
                f'  File "{base}/worker_manager.py", line 93, in _load_adapter',
                "    " + statement.format(v=variable),
                f'  File "{base}/utils.py", line 136, in get_adapter_absolute_path',
                "    if lora_path.startswith('~'):",
                f"{name}: {message}"]
    new = f"cannot access local variable '{variable}' where it is not associated with a value"
    old = f"local variable '{variable}' referenced before assignment"
    unbound_tb = ["Traceback (most recent call last):",
                  f'  File "{base}/worker_manager.py", line 99, in {function}',
                  f"    raise RuntimeError(f'Loading lora {{{variable}}} failed') from e",
                  f"UnboundLocalError: {old if order.startswith('old') else new}"]
    if order.endswith("record first"):
        # the engine's logger prints the chain's last exception, then asyncio the whole chain,
        # cut before its end
        record = f"ERROR 07-31 22:37:30 async_llm_engine.py:56] {unbound_tb[-1]}"
        lines = [record, "Exception in callback _log_task_completion(...) at async_llm_engine.py:36",
                 *cause_tb]
        return lines, len(lines)
    if order == "chained":
        lines = [*cause_tb, "", "During handling of the above exception, another exception "
                 "occurred:", "", *unbound_tb]
        return lines, len(cause_tb)
    lines = [*unbound_tb, "INFO 07-31 22:37:31 engine.py:1] retrying", *cause_tb]
    return lines, len(lines)


@settings(max_examples=60, deadline=None)
@given(variables, statements, cause_exceptions, orders, prose, prefixes)
def test_an_unbound_local_follows_from_the_exception_that_broke_its_binding(
        variable: str, statement: str, cause: tuple[str, str], order: str,
        lead: list[str], prefix: str) -> None:
    lines, cause_line = _unbound_log(variable, statement, cause, order)
    report = explain([*lead, *(prefix + line if line else line for line in lines)])
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == cause[0], (order, root)
    assert root.line == len(lead) + cause_line
    assert any(s.exception == "UnboundLocalError" for s in report.symptoms), order


@settings(max_examples=30, deadline=None)
@given(variables, statements, cause_exceptions, st.sampled_from(["record first", "apart"]),
       st.sampled_from(["other variable", "other function"]))
def test_an_unbound_local_whose_binding_no_frame_shows_stays_first(
        variable: str, statement: str, cause: tuple[str, str], order: str, why: str) -> None:
    # the other exception binds another variable, or the UnboundLocalError's own frame is
    # another function than the one whose binding failed: not linked, the earliest stays first
    other = "unrelated" if why == "other variable" else variable
    function = "_load_adapter" if why == "other variable" else "_apply_adapters"
    lines, _ = _unbound_log(variable, statement.replace("{v}", other), cause, order,
                            function=function)
    if why == "other function" and order == "record first":
        return  # a record without frames names no function: linked by the variable alone
    root = explain(lines).root_cause
    assert root is not None and root.exception == "UnboundLocalError", (why, order, root)


@settings(max_examples=10, deadline=None)
@given(variables, statements, cause_exceptions, st.sampled_from(["apart", "chained"]))
def test_a_symptom_printed_above_its_root_is_shown_as_such(
        variable: str, statement: str, cause: tuple[str, str], order: str) -> None:
    # the text and Markdown reports do not call every symptom "later": one printed above the
    # root cause says so, one printed below does not
    from io import StringIO

    from rich.console import Console

    from logsleuth.render.markdown import render_markdown
    from logsleuth.render.text import render_text

    lines, _ = _unbound_log(variable, statement, cause, order)
    report = explain(lines)
    out = StringIO()
    render_text(report, Console(file=out, width=400, color_system=None))
    text, markdown = out.getvalue(), render_markdown(report)
    above = order == "apart"  # the UnboundLocalError's traceback is printed first
    assert "later errors" not in text
    for rendered in (text, markdown):
        assert ("(printed above the root cause)" in rendered) is above, (order, rendered)
