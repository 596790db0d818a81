"""Release-scoped confirmed remedies (logsleuth/confirmed.py): a family's fix gains the remedies
vLLM's tracker confirmed for the log's release, and only for it.

The census (signatures/confirmed-remedies.yaml) marks a remedy that depends on the release with
`releases`; a log of a release inside the range reads it after the family's fix, a log of another
release or of no known release does not, and a fix that names it already is left alone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.confirmed import (ReleaseRemedy, default_release_remedies, load_release_remedies,
                                 with_release_remedies)
from logsleuth.index.data import default_index
from logsleuth.model import Match, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.resources import data_dir
from logsleuth.signatures import default_signatures
from logsleuth.signatures.match import fact_holds, version_key

REMEDY = ReleaseRemedy("some-family", "<0.9.0", "Upgrade to 0.9.0: the limit was raised.",
                       (("upgrade",), ("0.9.0",)))
TABLE = {"some-family": (REMEDY,)}


def _match(kind: SignatureKind = SignatureKind.FAMILY, fix: str = "1. Look earlier in the log.",
           id: str = "some-family") -> Match:
    return Match(id, "t", 0.9, fix, (), (), "root_cause", None, kind)


versions = st.tuples(st.integers(0, 1), st.integers(0, 30), st.integers(0, 5),
                     st.sampled_from(["", "rc1", ".post1", ".dev12+gabc", "rc2.dev3"])
                     ).map(lambda v: f"{v[0]}.{v[1]}.{v[2]}{v[3]}")


@settings(max_examples=80, deadline=None)
@given(versions)
def test_a_remedy_is_added_exactly_for_the_releases_it_holds_for(version: str) -> None:
    match = with_release_remedies(_match(), version, TABLE)
    assert match is not None
    inside = version_key(version) < version_key("0.9.0")  # type: ignore[operator]
    assert (REMEDY.text in match.fix) is inside
    assert match.fix.startswith("1. Look earlier in the log.")


def test_no_release_no_family_or_named_already_leaves_the_fix_alone() -> None:
    assert with_release_remedies(_match(), None, TABLE) == _match()
    exact = _match(SignatureKind.EXACT)
    assert with_release_remedies(exact, "0.8.5", TABLE) == exact
    named = _match(fix="Upgrade vLLM to 0.9.0 or later.")
    assert with_release_remedies(named, "0.8.5", TABLE) == named
    other = _match(id="another-family")
    assert with_release_remedies(other, "0.8.5", TABLE) == other
    assert with_release_remedies(None, "0.8.5", TABLE) is None


def test_an_exact_signatures_remedy_is_added_to_that_signature_only() -> None:
    """A census entry may name an exact signature (`signature:`): its release-scoped remedy
    is added to that signature's match, never to a family's of the same name."""
    exact = ReleaseRemedy("some-family", "<0.9.0", REMEDY.text, REMEDY.keywords,
                          SignatureKind.EXACT)
    table = {"some-family": (exact,)}
    added = with_release_remedies(_match(SignatureKind.EXACT), "0.8.5", table)
    assert added is not None and REMEDY.text in added.fix
    assert with_release_remedies(_match(), "0.8.5", table) == _match()
    assert with_release_remedies(_match(SignatureKind.EXACT), "0.9.1", table) \
        == _match(SignatureKind.EXACT)


def test_spellings_of_a_flag_are_one() -> None:
    remedy = ReleaseRemedy("f", ">=0.1", "r", (("--disable-custom-all-reduce",),))
    assert remedy.named_by("pass `disable_custom_all_reduce=True`")
    assert remedy.named_by("use --disable-custom-all-reduce")
    assert not remedy.named_by("use --disable-custom-all-reduce-x only")


def test_the_census_release_ranges_are_version_conditions_of_known_families() -> None:
    table = load_release_remedies(data_dir("signatures") / "confirmed-remedies.yaml")
    assert table == default_release_remedies()
    kinds = {s.id: s.kind for s in default_signatures()}
    remedies = [r for rs in table.values() for r in rs]
    assert remedies and all(kinds.get(r.family) is r.kind for r in remedies)
    for r in remedies:
        clauses = [c.strip() for a in r.releases.split("|") for c in a.split(",")]
        assert all(c[:1] in "<>=!" and version_key(c.lstrip("<>=!")) for c in clauses), r
        assert any(fact_holds(v, r.releases) for v in default_index().releases), r  # not empty


def test_a_log_of_an_old_release_reads_the_remedy_of_its_release() -> None:
    log = ("(EngineCore_DP0 pid=4100) INFO 02-05 10:11:00 [core.py:70] Initializing a V1 LLM "
           "engine (v{version}) with config: model='m'\n(EngineCore_DP0 pid=4100) ERROR 02-05 "
           "10:11:30 [core.py:321] TimeoutError: RPC call to sample_tokens timed out.\n")
    old = explain_text(log.format(version="0.8.5")).signature
    new = explain_text(log.format(version="0.10.2")).signature
    assert old is not None and new is not None and old.id == new.id == "engine-rpc-timeout"
    assert "Confirmed for vLLM 0.8.5" in old.fix and "0.9.0" in old.fix
    assert "Confirmed for vLLM" not in new.fix
