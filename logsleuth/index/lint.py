"""Signatures checked against vLLM's own messages: does some release print this message, and
in the releases the signature's version range names?

A signature template that matches no message of any indexed release (and is not marked
`match.origin: torch`, `nccl`, ... as another program's) is usually a typo or a paraphrase;
the warning names the nearest template vLLM does print.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cached_property

from rapidfuzz import fuzz

from logsleuth.index.data import VllmIndex
from logsleuth.index.lookup import TOKEN, literal_of
from logsleuth.index.origin import span

SAME_MESSAGE = 90  # rapidfuzz partial_ratio of fixed texts: the signature's text is in it
SIMILAR = 60  # below this the nearest template is no help: another program prints the message
OTHER_PROGRAM = "if torch, NCCL, Ray, CUDA or Triton prints it, say so: match.origin: torch, ..."
MAX_COMPARED = 300  # candidate templates compared with each signature template
VERSION_FACT = "vllm_version"


@dataclass(frozen=True, slots=True)
class IndexFinding:
    """One signature template that the index does not bear out."""

    template_number: int  # position in match.message
    message: str
    hint: str | None = None


@dataclass(frozen=True, slots=True)
class Nearest:
    text: str
    similarity: float
    releases: tuple[int, ...]


class IndexLinter:
    """Compares signature templates with every template of the index."""

    def __init__(self, index: VllmIndex) -> None:
        self.index = index

    @cached_property
    def _by_token(self) -> dict[str, list[int]]:
        """Every literal word -> the texts that hold it (a lint-time index, built once)."""
        found: dict[str, list[int]] = defaultdict(list)
        for number, text in enumerate(self.index.texts):
            for token in set(TOKEN.findall(literal_of(text))):
                found[token].append(number)
        return found

    @cached_property
    def _releases(self) -> list[set[int]]:
        releases: list[set[int]] = [set() for _ in self.index.texts]
        position = {text: i for i, text in enumerate(self.index.texts)}
        for site in self.index.templates:
            releases[position[site.text]].update(site.releases)
        return releases

    def nearest(self, template: str) -> list[Nearest]:
        """The index templates holding the signature template's text, best first; when none
        does, the single closest one."""
        fixed = " ".join(literal_of(_blank(template)).split())
        votes: Counter[int] = Counter()
        for token in set(TOKEN.findall(fixed)):
            votes.update(self._by_token.get(token, ()))
        scored: list[Nearest] = []
        # ties broken by the index's order, not by the order the words were counted in (a
        # set's, which changes with each run's string hashing): the same templates are compared
        # in every run, so lint's hints and a part's vLLM spread do not change between runs
        for number, _ in heapq.nsmallest(MAX_COMPARED, votes.items(),
                                         key=lambda item: (-item[1], item[0])):
            text = self.index.texts[number]
            other = " ".join(literal_of(text).split())
            similarity = fuzz.partial_ratio(fixed, other) if len(fixed) <= len(other) \
                else fuzz.partial_ratio(other, fixed) * min(1.0, len(other) / max(len(fixed), 1))
            scored.append(Nearest(text, similarity, tuple(sorted(self._releases[number]))))
        scored.sort(key=lambda n: (-n.similarity, n.text))
        same = [n for n in scored if n.similarity >= SAME_MESSAGE]
        return same or scored[:1]

    def check(self, templates: tuple[str, ...], version_range: str | None) -> list[IndexFinding]:
        """Findings for one signature's `match.message` list and its vllm_version range."""
        from logsleuth.signatures.match import fact_holds

        findings: list[IndexFinding] = []
        for number, template in enumerate(templates):
            near = self.nearest(template)
            if not near or near[0].similarity < SAME_MESSAGE:
                hint = f"nearest vLLM message: \u201c{near[0].text}\u201d (vLLM " \
                       f"{span(self.index, near[0].releases)})" \
                    if near and near[0].similarity >= SIMILAR else OTHER_PROGRAM
                findings.append(IndexFinding(number, "message template matches no message "
                                             "of any indexed vLLM release", hint))
                continue
            if version_range is None:
                continue
            printed = sorted({r for n in near for r in n.releases})
            # a soft condition (`?>=0.10,<0.12`) names the same releases as a hard one
            expression = version_range.strip().removeprefix("?").strip()
            inside = [r for r in printed if fact_holds(self.index.releases[r], expression)]
            if not inside:
                findings.append(IndexFinding(
                    number, f"{VERSION_FACT} '{version_range}' names no release that prints "
                    "this message", f"vLLM prints it in {span(self.index, tuple(printed))}"))
        return findings


def _blank(template: str) -> str:
    """Signature placeholders ({size}, {path}, ...) blanked like the index's."""
    from logsleuth.signatures.template import PLACEHOLDERS

    for name in PLACEHOLDERS:
        template = template.replace("{" + name + "}", " ")
    return template
