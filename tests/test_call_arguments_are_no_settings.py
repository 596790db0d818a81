"""A call's argument named in Python's words for a call that did not fit its function (`f() got an
unexpected keyword argument 'max_num_batched_tokens'`, `missing 1 required positional argument:
'block_size'`) is that function's parameter, not an engine setting, however it is spelled: the
report does not add "The error's own message names `--max-num-batched-tokens`" for it
(remedy.yaml `call_arguments`, index/advice.py settings_named). A message that names the flag in
its own advice still gets it listed."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index import default_index
from logsleuth.index.advice import settings_named
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

NAMED = "The error's own message names these settings:"


@cache
def _arguments() -> tuple[tuple[str, str], ...]:
    """(flag, field) of the index's engine arguments whose field is a snake-case name."""
    return tuple(sorted({(a.flag, a.field) for a in default_index().arguments
                         if a.flag.startswith("--") and not a.flag.startswith("---")
                         and "_" in a.field}))


_CALLEES = st.sampled_from(["Scheduler.__init__()", "__init__()", "build_engine()",
                            "NPUModelRunner.__init__()", "EngineArgs.__init__()",
                            "AscendScheduler.schedule()", "LLM.generate()"])
_QUOTES = st.sampled_from(["'", '"'])


def _call_errors(callee: str, field: str, quote: str) -> list[str]:
    q = f"{quote}{field}{quote}"
    return [f"{callee} got an unexpected keyword argument {q}",
            f"{callee} got multiple values for argument {q}",
            f"{callee} got multiple values for keyword argument {q}",
            f"{callee} missing 1 required positional argument: {q}",
            f"{callee} missing 1 required keyword-only argument: {q}",
            f"{callee} missing 2 required positional arguments: {quote}model{quote} and {q}",
            f"{callee} missing 3 required positional arguments: {quote}a{quote}, {q}, and "
            f"{quote}b{quote}",
            f"{q} is an invalid keyword argument for {callee.rstrip('()')}()"]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), callee=_CALLEES, quote=_QUOTES)
def test_a_calls_parameter_is_no_setting(data: st.DataObject, callee: str, quote: str) -> None:
    flag, field = data.draw(st.sampled_from(_arguments()))
    message = data.draw(st.sampled_from(_call_errors(callee, field, quote)))
    assert flag not in {n.flag for n in settings_named(message, default_index())}, message


@settings(max_examples=60, deadline=None)
@given(data=st.data(), callee=_CALLEES, quote=_QUOTES,
       advice=st.sampled_from(["Use {flag} instead.", "Pass {flag} to vllm serve.",
                               "Set {field} via {flag} on the engine."]))
def test_a_flag_the_message_advises_is_still_named(data: st.DataObject, callee: str, quote: str,
                                                   advice: str) -> None:
    # near miss: the same call error, with advice naming the flag in the message's own words
    flag, field = data.draw(st.sampled_from(_arguments()))
    message = (data.draw(st.sampled_from(_call_errors(callee, field, quote))) + ". "
               + advice.format(flag=flag, field=field))
    assert flag in {n.flag for n in settings_named(message, default_index())}, message


@settings(max_examples=30, deadline=None)
@given(data=st.data(), quote=_QUOTES)
def test_a_setting_named_outside_a_call_error_is_still_named(data: st.DataObject,
                                                             quote: str) -> None:
    # near miss: the field quoted, but not as a call's argument
    flag, field = data.draw(st.sampled_from(_arguments()))
    message = data.draw(st.sampled_from([
        f"{quote}{field}{quote} must be positive, got -1",
        f"Invalid value for {quote}{field}{quote}: expected an int",
        f"keyword argument {quote}{field}{quote} is too small for this model"]))
    assert flag in {n.flag for n in settings_named(message, default_index())}, message


_TRACEBACK = """Traceback (most recent call last):
  File "/home/u/run.py", line 5, in <module>
    engine = build(model="m", {field}=8192)
  File "/home/u/.venv/lib/python3.12/site-packages/someplugin/patch.py", line 12, in build
    return Scheduler(**kwargs)
TypeError: {message}
"""


@settings(max_examples=15, deadline=None)
@given(data=st.data(), callee=_CALLEES, prefix=st.sampled_from(["", "(EngineCore_DP0 pid=7) ",
                                                                  "[rank0]: "]))
def test_the_report_does_not_read_a_keyword_as_a_flag(data: st.DataObject, callee: str,
                                                      prefix: str) -> None:
    flag, field = data.draw(st.sampled_from(_arguments()))
    message = f"{callee} got an unexpected keyword argument '{field}'"
    log = "".join(prefix + line + "\n"
                  for line in _TRACEBACK.format(field=field, message=message).splitlines())
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None
    fix = report.signature.fix
    assert NAMED not in fix or f"`{flag}`" not in fix.split(NAMED, 1)[1].split("\n\n")[0], fix
