"""A family's fix names the settings the error's own message names (logsleuth/index, annotate).

A family knows the class of a failure, not the one setting at fault; vLLM's messages often name
it. Whatever engine argument or environment variable of the message index a message names, a
family's fix in the report lists it (as flag and keyword), once; an exact signature's fix is its
own and is left alone; words that are no setting are not listed."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from logsleuth.index import default_index
from logsleuth.index.spellings import with_spellings
from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

# a config check raised in vLLM's config module: a family known by that module answers it
CONFIG_ERROR = """(APIServer pid=2788) Traceback (most recent call last):
(APIServer pid=2788)   File "/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py", line 1341, in create_engine_config
(APIServer pid=2788)     config = VllmConfig(
(APIServer pid=2788)   File "/usr/local/lib/python3.12/dist-packages/vllm/config/scheduler.py", line 212, in __post_init__
(APIServer pid=2788)     raise ValueError(
(APIServer pid=2788) ValueError: {message}
"""


@cache
def flags() -> tuple[tuple[str, str], ...]:
    """(flag, field) of engine arguments of the index, with a flag of their own."""
    return tuple(sorted({(a.flag, a.field) for a in default_index().arguments
                         if a.flag.startswith("--") and not a.flag.startswith("---")
                         and "_" in a.field}))


@cache
def variables() -> tuple[str, ...]:
    return tuple(sorted({e.name for e in default_index().environment if e.name.startswith("VLLM_")}))


def _fix(message: str) -> tuple[SignatureKind, str]:
    report = explain_text(CONFIG_ERROR.format(message=message), signatures=default_signatures())
    assert report.signature is not None, message
    return report.signature.kind, report.signature.fix


@given(st.data())
def test_a_family_fix_names_the_flag_and_variable_the_message_names(data: st.DataObject) -> None:
    flag, field = data.draw(st.sampled_from(flags()))
    variable = data.draw(st.sampled_from(variables()))
    message = (f"Zorblax mode is not supported together with {flag} in this configuration; "
               f"unset {variable} to continue.")
    kind, fix = _fix(message)
    assert kind is SignatureKind.FAMILY
    assert flag in fix and field in fix and variable in fix
    named = fix.split("The error's own message names these settings:")
    # listed once (the list is its own paragraph: a release note after it may name the flag too)
    assert len(named) <= 2 and all(f"`{flag}`" not in named[0]
                                   or f"`{flag}`" not in part.split("\n\n")[0]
                                   for part in named[1:])


def test_words_that_are_no_setting_are_not_listed() -> None:
    kind, fix = _fix("Zorblax mode requires frobnicate_level to be set to a_valid_value.")
    assert kind is SignatureKind.FAMILY
    assert "frobnicate_level" not in fix and "own message names" not in fix


def test_an_exact_signatures_fix_is_left_alone() -> None:
    for signature in default_signatures():
        if signature.kind is not SignatureKind.EXACT:
            continue
        example = next((p for p, positive in signature.examples() if positive), None)
        if example is None:
            continue
        report = explain_text(example.read_text(encoding="utf-8", errors="replace"),
                              signatures=default_signatures())
        if report.signature is not None and report.signature.id == signature.id:
            # the message's settings are not added; the other spelling of the engine arguments
            # the fix names is, to every kind (index/spellings.py)
            spelled = with_spellings(replace(report.signature, fix=signature.fix))
            assert spelled is not None and report.signature.fix == spelled.fix
            return
    raise AssertionError("no exact signature matched its own example")
