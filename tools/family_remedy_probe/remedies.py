"""Does each family's fix name the remedies its own messages recommend? A probe over vLLM's index.

A family answers many messages nobody has written a signature for; when several of them name the
same remedy (a flag, an environment variable, a package to install or upgrade, an engine setting
by its field name: tools/remedy_probe's `knobs`), that remedy holds for the family, and its fix
should name it rather than leave it to the line the pipeline appends from the one message at hand.

Every error template of the message index whose text names a remedy (tools/index_coverage's
`error_templates`) is rendered as the engine core's start-up traceback (`coverage.render`) and
explained in process. For each family that answers such messages the probe lists the remedies
they name, most often first (by templates, then by template-releases), and whether the family's
own fix text names each (`remedy_probe.holds`, the YAML's fix, not the report's appended lines).
A remedy named by at least `--min` templates (2) and by `--share` of them (a tenth) is the
family's, not one message's (the pipeline appends a message's own settings to a family's fix); a
family whose fix lacks one of its own is counted as lacking.

    .venv/bin/python tools/family_remedy_probe/remedies.py --jobs 2 --sites /tmp/sites.jsonl
    .venv/bin/python tools/family_remedy_probe/remedies.py --read /tmp/sites.jsonl --show lacking
    # the same messages against an earlier commit's signatures
    git archive <commit> signatures | tar -x -C /tmp/base
    .venv/bin/python tools/family_remedy_probe/remedies.py --read /tmp/sites.jsonl \
        --signatures /tmp/base/signatures

`--sites FILE` writes the templates that name a remedy (JSON lines); `--read FILE` measures such
a file without the index walk. sample.jsonl beside this script is a committed sample that
tests/test_family_remedy_probe.py measures. Not run-time code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository's logsleuth
for tool in ("vllm_index", "index_coverage", "remedy_probe"):
    sys.path.insert(0, str(HERE.parent / tool))
import coverage  # noqa: E402  (error templates and their rendering as a log)
import probe as remedy_probe  # noqa: E402  (the knobs a message names; whether a fix holds one)

from logsleuth.index.data import MessageKind, default_index  # noqa: E402
from logsleuth.model import SignatureKind  # noqa: E402
from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.resources import data_dir  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures, load_signatures  # noqa: E402
from logsleuth.yamlload import load_yaml  # noqa: E402

MIN_TEMPLATES = 2  # a remedy named by this many of a family's messages ...
MIN_SHARE = 0.1  # ... and by this share of them is the family's, not one message's
# words the knob reader takes for a package after "install"/"upgrade" ("upgrade, but ...")
NOT_KNOBS = frozenset({"but", "which", "first", "in", "names", "requested", "it", "them"})


@dataclass(frozen=True, slots=True)
class Site:
    """One error template of the index that names a remedy."""

    text: str
    cls: str
    kind: str  # MessageKind's value: raise or log
    module: str
    function: str
    releases: int
    knobs: tuple[str, ...]

    def template(self) -> coverage.ErrorTemplate:
        return coverage.ErrorTemplate(self.text, self.cls, MessageKind(self.kind), self.module,
                                      self.function, self.releases, False)


def sites() -> list[Site]:
    """Every error template of the index whose message names a remedy."""
    found = []
    for t in coverage.error_templates(default_index()):
        wanted = remedy_probe.knobs(t.text)
        if wanted:
            found.append(Site(t.text, t.cls, t.kind.value, t.module, t.function, t.releases,
                              wanted))
    return found


@dataclass(slots=True)
class Remedy:
    """One knob a family's messages name."""

    knob: str
    templates: int = 0
    releases: int = 0
    named: bool = False  # the family's own fix names it
    example: str = ""  # the first message that names it


@dataclass(slots=True)
class Family:
    """A family and the remedies the messages it answers name."""

    id: str
    templates: int = 0
    remedies: dict[str, Remedy] = field(default_factory=dict)

    def ranked(self) -> list[Remedy]:
        return sorted(self.remedies.values(), key=lambda r: (-r.templates, -r.releases, r.knob))

    def own(self, least: int = MIN_TEMPLATES, share: float = MIN_SHARE) -> list[Remedy]:
        """The family's own remedies: named by `least` of its messages and by `share` of them."""
        return [r for r in self.ranked()
                if r.templates >= max(least, share * self.templates)]

    def lacking(self, least: int = MIN_TEMPLATES, share: float = MIN_SHARE) -> list[Remedy]:
        """The family's own remedies its fix leaves out."""
        return [r for r in self.own(least, share) if not r.named]


_SIGNATURES: SignatureSet | None = None
_TREE: str | None = None


def _answer(site: Site) -> str | None:
    """The family that answers this site's message, if a family does."""
    assert _SIGNATURES is not None
    report = explain_text(coverage.render(site.template()), signatures=_SIGNATURES)
    match = report.signature
    return match.id if match is not None and match.kind is SignatureKind.FAMILY else None


def _chunk(args: tuple[str | None, list[Site]]) -> list[str | None]:
    global _SIGNATURES, _TREE  # one database per worker process
    tree, chunk = args
    if _SIGNATURES is None or _TREE != tree:
        _SIGNATURES = load_signatures(Path(tree), shipped=False) if tree else default_signatures()
        _TREE = tree
    return [_answer(s) for s in chunk]


def answers(found: Sequence[Site], tree: Path | None = None, jobs: int = 1) -> list[str | None]:
    """Per site, the family that answers it (None: an exact signature, a fallback or nothing)."""
    name = str(tree) if tree else None
    if jobs <= 1:
        return _chunk((name, list(found)))
    size = max(1, len(found) // (jobs * 8))
    chunks = [(name, list(found[i:i + size])) for i in range(0, len(found), size)]
    with ProcessPoolExecutor(jobs) as pool:
        return [a for part in pool.map(_chunk, chunks) for a in part]


def families(found: Sequence[Site], answered: Sequence[str | None],
             signatures: SignatureSet) -> list[Family]:
    """The families that answer sites, each with the remedies its sites name."""
    by_id: dict[str, Family] = {}
    for site, family in zip(found, answered):
        if family is None:
            continue
        entry = by_id.setdefault(family, Family(family))
        entry.templates += 1
        for knob in site.knobs:
            if knob in NOT_KNOBS:
                continue
            remedy = entry.remedies.setdefault(knob, Remedy(knob))
            remedy.templates += 1
            remedy.releases += site.releases
            remedy.example = remedy.example or site.text
    for entry in by_id.values():
        signature = signatures.get(entry.id)
        fix = signature.fix if signature is not None else ""
        for remedy in entry.remedies.values():
            remedy.named = remedy_probe.holds(fix, [remedy.knob])
    return sorted(by_id.values(), key=lambda f: (-f.templates, f.id))


def summary(found: Sequence[Family], least: int = MIN_TEMPLATES, share: float = MIN_SHARE
            ) -> str:
    with_own = [f for f in found if f.own(least, share)]
    lacking = [f for f in with_own if f.lacking(least, share)]
    missing = sum(len(f.lacking(least, share)) for f in found)
    return (f"{len(found)} families answer messages that name a remedy; {len(with_own)} have "
            f"remedies of their own (named by {least}+ and {share:.0%} of their messages); "
            f"lacking one in their fix: {len(lacking)} ({missing} remedies)")


def lines(found: Iterable[Family], least: int = MIN_TEMPLATES, share: float = MIN_SHARE,
          only_lacking: bool = False) -> list[str]:
    """One line a family: its remedies most often first, `+` named by its fix, `-` not, with
    the number of its messages that name each; `*` marks the family's own."""
    out = []
    for family in found:
        if only_lacking and not family.lacking(least, share):
            continue
        own = {r.knob for r in family.own(least, share)}
        knobs = ", ".join(f"{'+' if r.named else '-'}{r.knob}({r.templates}){'*' if r.knob in own else ''}"
                          for r in family.ranked() if r.templates >= least or r.named)
        out.append(f"{family.id} [{family.templates}]: {knobs}")
        if only_lacking:
            out += [f"    {r.knob}: {r.example[:200]}" for r in family.lacking(least, share)]
    return out


def documented(signatures: SignatureSet, knobs_file: Path) -> tuple[int, list[str]]:
    """How many families the database holds, and those in no class of `family-knobs.yaml` (the
    classes' remedies are documented pages' knobs, tests/test_family_knobs.py holds each family
    of a class to them): a family in no class has no documented remedy checked."""
    data, _ = load_yaml(knobs_file)
    classed = {f for spec in data["classes"].values() for f in spec["families"]}
    families = sorted(s.id for s in signatures if s.kind is SignatureKind.FAMILY)
    return len(families), [f for f in families if f not in classed]


def read_sites(path: Path) -> list[Site]:
    with path.open(encoding="utf-8") as rows:
        return [Site(**{**row, "knobs": tuple(row["knobs"])}) for row in map(json.loads, rows)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--read", type=Path, help="a --sites file to measure instead of the index")
    parser.add_argument("--sites", type=Path, help="write the sites found as JSON lines")
    parser.add_argument("--signatures", type=Path,
                        help="measure with this signature tree instead of the shipped one")
    parser.add_argument("--min", type=int, default=MIN_TEMPLATES,
                        help="messages that must name a remedy for it to be the family's")
    parser.add_argument("--share", type=float, default=MIN_SHARE,
                        help="share of a family's messages that must name a remedy")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--show", choices=("all", "lacking"), help="list families")
    args = parser.parse_args(argv)
    found = read_sites(args.read) if args.read else sites()
    if args.sites:
        with args.sites.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(asdict(s), ensure_ascii=False) + "\n" for s in found)
    database = (load_signatures(args.signatures, shipped=False) if args.signatures
                else default_signatures())
    result = families(found, answers(found, args.signatures, args.jobs), database)
    print(summary(result, args.min, args.share))
    tree = args.signatures or data_dir("signatures")
    total, unclassed = documented(database, tree / "family-knobs.yaml")
    print(f"{total} families; in no class of family-knobs.yaml (no documented remedy checked): "
          f"{len(unclassed)}")
    if args.show:
        print("\n".join(lines(result, args.min, args.share, args.show == "lacking")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
