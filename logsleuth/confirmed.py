"""Remedies vLLM's tracker confirmed for a family in some releases only.

`signatures/confirmed-remedies.yaml` is the confirmed-remedy census (tools/confirmed_remedies):
per family, the remedies threads of vLLM's tracker confirmed, each with the words advice must
carry. Most hold for every release and live in the family's own fix. Some depend on the release
(`releases: '<0.9.0'`: a limit raised, a variable added, a fix merged in a given release): a
family's fix cannot say them for every log without saying them wrongly for most, so
`with_release_remedies` adds the ones whose range holds the log's vLLM version, after whatever
family answers, when its fix does not already name them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from logsleuth.errors import SignatureError
from logsleuth.model import Match, SignatureKind
from logsleuth.resources import data_dir
from logsleuth.signatures.match import fact_holds
from logsleuth.yamlload import load_yaml

FILE = "confirmed-remedies.yaml"


@dataclass(frozen=True, slots=True)
class ReleaseRemedy:
    """One remedy of the census that holds for some vLLM releases only."""

    family: str
    releases: str  # a version condition, as `match.facts` writes one: '<0.9.0', '>=0.14'
    text: str  # the remedy in our words, with its reason
    keywords: tuple[tuple[str, ...], ...]  # the words that name it: all entries, any alternative
    kind: SignatureKind = SignatureKind.FAMILY  # an exact signature's (`signature:`) or a family's

    def named_by(self, fix: str) -> bool:
        """Whether a fix names the remedy already: every keyword entry, one of its spellings
        (a flag's dashes and an argument's underscores are one)."""
        text = re.sub(r"(?<![\w-])--?(?=[A-Za-z])", " ", fix).lower().replace("-", "_")
        return all(any(re.search(rf"(?<![\w]){re.escape(_plain(k))}(?![\w])", text)
                       for k in entry) for entry in self.keywords)


def _plain(keyword: str) -> str:
    return keyword.lower().lstrip("-").replace("-", "_")


def load_release_remedies(path: Path | None = None) -> Mapping[str, tuple[ReleaseRemedy, ...]]:
    """The census's release-scoped remedies by family (the shipped file by default)."""
    path = path or data_dir("signatures") / FILE
    data, _ = load_yaml(path)
    if not isinstance(data, list):
        raise SignatureError(f"{path}: a list of census entries")
    found: dict[str, list[ReleaseRemedy]] = {}
    for entry in data:
        exact = isinstance(entry, dict) and "signature" in entry  # an exact signature's entry
        family = (entry.get("signature" if exact else "family")
                  if isinstance(entry, dict) else None)
        remedies = entry.get("remedies") if isinstance(entry, dict) else None
        if not isinstance(family, str) or not isinstance(remedies, list):
            raise SignatureError(f"{path}: an entry without `family` (`signature`) or `remedies`")
        for remedy in remedies:
            releases = remedy.get("releases") if isinstance(remedy, dict) else None
            if releases is None:
                continue
            keywords = remedy.get("keywords")
            if not isinstance(keywords, list) or not keywords:
                raise SignatureError(f"{path}: {family}: a remedy without keywords")
            found.setdefault(family, []).append(ReleaseRemedy(
                family, str(releases), " ".join(str(remedy["remedy"]).split()),
                tuple(tuple(a.strip() for a in str(k).split(" | ")) for k in keywords),
                SignatureKind.EXACT if exact else SignatureKind.FAMILY))
    return {family: tuple(remedies) for family, remedies in found.items()}


@cache
def default_release_remedies() -> Mapping[str, tuple[ReleaseRemedy, ...]]:
    return load_release_remedies()


def with_release_remedies(match: Match | None, version: str | None,
                          remedies: Mapping[str, tuple[ReleaseRemedy, ...]] | None = None
                          ) -> Match | None:
    """A family's match (or an exact signature's that the census records) with the confirmed
    remedies of the log's vLLM release that its fix does not name. Without the log's release
    nothing is added: the range is the remedy's truth."""
    if match is None or match.kind not in (SignatureKind.FAMILY, SignatureKind.EXACT) \
            or version is None:
        return match
    table = default_release_remedies() if remedies is None else remedies
    lines = [r.text for r in table.get(match.id, ())
             if r.kind is match.kind and fact_holds(version, r.releases)
             and not r.named_by(match.fix)]
    if not lines:
        return match
    return match.with_paragraph(f"Confirmed for vLLM {version} (the log's release): "
                                + " ".join(lines))
