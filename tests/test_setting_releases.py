"""A setting the message names that the log's vLLM release does not have (issue 11): a family's
fix says the release it arrived in (upgrade) or the last that had it (leave it out, or pin it),
read from the index of vLLM's engine arguments and variables. Flags and versions are drawn from
the index: every flag that some release lacks, at a release before or after its span."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index import default_index
from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

INDEX = default_index()
NEWEST = len(INDEX.releases) - 1
SPANS: dict[str, list[int]] = {}
for argument in INDEX.arguments:
    if argument.flag.startswith("--") and not argument.flag.startswith("---"):
        SPANS.setdefault(argument.flag, []).extend(argument.releases)
LATE = sorted(f for f, r in SPANS.items() if min(r) > 0)  # arrived after the oldest release
GONE = sorted(f for f, r in SPANS.items() if max(r) < NEWEST)  # removed before the newest


def _log(version: str, flag: str) -> str:
    return (f"INFO 05-01 10:00:01 [api_server.py:1896] vLLM API server version {version}\n"
            "usage: vllm serve [model_tag] [options]\n"
            f"vllm serve: error: unrecognized arguments: {flag} 8\n")


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_flag_newer_than_the_log_says_the_release_it_arrived_in(data: st.DataObject) -> None:
    flag = data.draw(st.sampled_from(LATE))
    first = min(SPANS[flag])
    version = INDEX.releases[data.draw(st.integers(min_value=0, max_value=first - 1))]
    report = explain_text(_log(version, flag), signatures=default_signatures())
    assert report.signature is not None
    if report.signature.kind in (SignatureKind.FAMILY, SignatureKind.FALLBACK):
        assert f"`{flag}` arrived in vLLM {INDEX.releases[first]}" in report.signature.fix


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_flag_older_than_the_log_says_the_last_release_that_had_it(data: st.DataObject) -> None:
    flag = data.draw(st.sampled_from(GONE))
    last = max(SPANS[flag])
    version = INDEX.releases[data.draw(st.integers(min_value=last + 1, max_value=NEWEST))]
    report = explain_text(_log(version, flag), signatures=default_signatures())
    assert report.signature is not None
    if report.signature.kind in (SignatureKind.FAMILY, SignatureKind.FALLBACK):
        assert f"`{flag}` was removed after vLLM {INDEX.releases[last]}" in report.signature.fix
        assert f"vllm=={INDEX.releases[last]}" in report.signature.fix


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_a_flag_the_logs_release_has_gets_no_release_note(data: st.DataObject) -> None:
    flag = data.draw(st.sampled_from(sorted(SPANS)))
    version = INDEX.releases[data.draw(st.sampled_from(sorted(set(SPANS[flag]))))]
    report = explain_text(_log(version, flag), signatures=default_signatures())
    assert report.signature is None or f"`{flag}` arrived in" not in report.signature.fix
    assert report.signature is None or f"`{flag}` was removed after" not in report.signature.fix
