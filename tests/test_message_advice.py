"""vLLM's own stated remedy (issue 11): when no signature matches a root cause whose message
states its fix ("... Install it with: pip install vllm[grpc]"), the report's `signature` carries
that remedy as kind `message`, and the text and Markdown reports show it as the fix; when a family
matched whose fix lacks a setting the remedy names, the family's fix ends with it. Messages are
drawn from vLLM's message index."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.advice import remedy_of
from logsleuth.remedy import knobs
from logsleuth.index.data import MessageKind, MessageTemplate, default_index
from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.render.markdown import render_markdown
from logsleuth.signatures import default_signatures

SCHEMA = json.loads((Path(__file__).parent / "report.schema.json").read_text(encoding="utf-8"))
FILL = {"int": "16", "float": "0.9", "num": "8", "hex": "0x1f"}


def _render(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: FILL.get(m.group(1), "qwen"), template)


def _traceback(site: MessageTemplate, message: str) -> str:
    path = site.module.replace(".", "/")
    return ("Traceback (most recent call last):\n"
            f'  File "/usr/lib/python3.12/site-packages/{path}.py", line 10, in '
            f"{site.function.rsplit('.', 1)[-1]}\n"
            f"    raise {site.cls}(message)\n{site.cls}: {message}\n")


@cache
def raised_with_remedy() -> tuple[MessageTemplate, ...]:
    """One raise site per vLLM message whose text states a remedy (newest releases first)."""
    seen: dict[str, MessageTemplate] = {}
    for site in default_index().templates:
        if site.kind is MessageKind.RAISE and site.text not in seen \
                and remedy_of(_render(site.text)) is not None:
            seen[site.text] = site
    return tuple(seen.values())


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_the_fix_is_never_missing_when_the_message_states_one(data: st.DataObject) -> None:
    site = data.draw(st.sampled_from(raised_with_remedy()), label="site")
    message = _render(site.text)
    report = explain_text(_traceback(site, message), signatures=default_signatures())
    if report.root_cause is None or report.root_cause.message != message:
        return  # the log's reading of the message is another test's subject
    remedy = remedy_of(message)
    assert remedy is not None and report.signature is not None, message
    out = report_to_dict(report)
    jsonschema.validate(out, SCHEMA)
    if report.signature.kind is SignatureKind.MESSAGE:
        assert remedy in out["signature"]["fix"]
        assert out["signature"]["id"] == f"message:{site.module}.{site.function}" \
            or out["signature"]["id"].startswith("message:vllm.")
        assert out["advice"]["text"] == remedy
        markdown = render_markdown(report)
        assert remedy in markdown and "The message's own advice" not in markdown
    elif report.signature.kind is SignatureKind.FAMILY:
        # the family's fix names every setting the remedy names: its own, or the remedy added
        fix = out["signature"]["fix"]
        assert remedy in fix or (knobs(remedy) and all(k in fix for k in knobs(remedy)))
    # whoever shows it, a reader sees the message's own advice once: as the fix, or as its section
    if remedy in report.signature.fix:
        assert remedy not in _advice_section(render_markdown(report), "#### "), message
        assert remedy not in _advice_section(_text(report), ""), message


def _advice_section(out: str, heading: str) -> str:
    """The report's "The message's own advice" section, up to the next heading."""
    if "The message's own advice" not in out:
        return ""
    rest = out.split("The message's own advice", 1)[1]
    ends = re.search(rf"\n{re.escape(heading)}[A-Z]|\n<details>|\n\n[A-Z][a-z]+( [a-z]+)*\n", rest)
    return rest[:ends.start()] if ends else rest


def _text(report: object) -> str:
    from io import StringIO

    from rich.console import Console

    from logsleuth.render.text import render_text

    out = StringIO()
    render_text(report, Console(file=out, width=10_000, no_color=True))  # type: ignore[arg-type]
    return out.getvalue()


def test_a_message_nobody_wrote_a_signature_for_gets_its_own_remedy() -> None:
    # a vLLM start-up check, raised in vllm/entrypoints: no exact signature, no family by words
    sites = [s for s in raised_with_remedy() if "pip install" in s.text]
    assert sites
    kinds = set()
    for site in sites[:15]:
        report = explain_text(_traceback(site, _render(site.text)), signatures=default_signatures())
        assert report.signature is not None
        kinds.add(report.signature.kind)
        if report.signature.kind is SignatureKind.MESSAGE:
            assert "pip install" in report.signature.fix
            assert report.signature.title.startswith("vLLM's own advice: ")
    assert SignatureKind.MESSAGE in kinds or SignatureKind.FAMILY in kinds


def test_a_symptoms_remedy_is_not_the_fix_for_a_root_cause_without_one() -> None:
    log = ("Traceback (most recent call last):\n"
           '  File "/usr/lib/python3.12/site-packages/vllm/v1/worker/frob.py", line 3, in frob\n'
           "    raise RuntimeError('x')\n"
           "RuntimeError: frobnicator exploded unexpectedly\n"
           "ERROR 02-05 10:11:31 [core.py:946] RuntimeError: Worker failed with error 'frobnicator "
           "exploded unexpectedly', please check the stack trace above for the root cause\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.kind is not SignatureKind.MESSAGE


@settings(max_examples=10, deadline=None)
@given(free=st.floats(1, 70), total=st.sampled_from([24.0, 40.0, 79.25, 141.0]),
       wrapped=st.booleans())
def test_a_family_fix_that_quotes_the_message_s_advice_is_not_followed_by_it_again(
        free: float, total: float, wrapped: bool) -> None:
    # the free-memory family quotes the check's own advice; the report says it once
    advice = "Decrease GPU memory utilization or reduce GPU memory used by other processes."
    line = (f"ValueError: Free memory on device ({free:.2f}/{total} GiB) on startup is less than "
            f"desired GPU memory utilization (0.9, {total * 0.9:.2f} GiB). {advice}")
    log = ("(EngineCore_DP0 pid=7) ERROR 12-07 10:00:00 [core.py:700] " + line) if wrapped else line
    report = explain_text(log + "\n", signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is SignatureKind.FAMILY
    assert advice in report.signature.fix
    assert advice not in _advice_section(render_markdown(report), "#### ")
    assert advice not in _advice_section(_text(report), "")
