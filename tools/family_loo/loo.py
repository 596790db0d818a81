"""Leave-one-out: does a family's advice reach a failure no exact signature knows?

A failure nobody has seen meets the database with no exact signature for it: only the families
can answer. This tool plays that meeting on every log whose answer we know, with ALL exact
signatures withheld (families only), and asks whether the family that matches names the knobs
the real fix names:

- every exact signature's positive example: the knobs are read mechanically from that exact
  signature's fix (`--flags`, `ENV_VARS`, `LLM(keyword=...)` names, packages in backticks and after
  `pip install`, "upgrade"/"downgrade");
- every failing case with `fix_keywords` of the tuning set and of the shared corpus copy
  (tests/fixtures/tuning, tests/fixtures/corpus): the knobs are the case's own keywords.

Each log comes out as one of: no family matched; a family matched but names none of the knobs
(the wrong family, or a family whose fix misses the knob); right. A knob counts when the matched
family's id, title or fix contains it (case-insensitive), the way ../shared/tools/score.py counts
a fix. The held-out set is never read.

    .venv/bin/python tools/family_loo/loo.py               # the figures per group
    .venv/bin/python tools/family_loo/loo.py -v            # and every miss, with its knobs
    .venv/bin/python tools/family_loo/loo.py -v --group corpus --show right

Not run-time code: nothing in `logsleuth/` imports it. `tests/test_family_loo.py` holds its
figures to a floor.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import yaml

from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain
from logsleuth.signatures import SignatureSet, default_signatures
from logsleuth.signatures.load import Signature

ROOT = Path(__file__).resolve().parent.parent.parent
CASE_SETS = {"tuning": ROOT / "tests" / "fixtures" / "tuning",
             "corpus": ROOT / "tests" / "fixtures" / "corpus"}


class Group(Enum):
    """Where a probe log comes from."""

    CITED = "cited"  # an exact signature's positive example with a public report's URL
    UNCITED = "uncited"  # an older positive example listed under no `examples` key
    CONSTRUCTED = "constructed"  # built from vLLM's (or a library's) own message texts
    TUNING = "tuning"
    CORPUS = "corpus"


class Outcome(Enum):
    """What the families alone make of one log."""

    NONE = "no family matched"
    WRONG = "wrong family"  # it matched, and names none of the knobs
    RIGHT = "right"


# Knobs a fix names, read mechanically. A flag, an environment variable (capitals joined by
# underscores, such as CUDA_VISIBLE_DEVICES), a keyword argument of `LLM(...)` or of a config
# (`max_model_len=`), a package that `pip install` installs, a package or module named alone in
# backticks, and the version words a fix turns on.
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:[-.][a-z0-9]+)*")
ENV = re.compile(r"(?<![\w.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w.])")
# Ray's own variables keep the case of the setting they override (`RAY_CGRAPH_get_timeout`,
# `RAY_memory_usage_threshold`: Ray's docs on compiled graphs and OOM prevention)
RAY_ENV = re.compile(r"(?<![\w.])RAY_[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+(?![\w.])")
KEYWORD = re.compile(r"(?<![\w.-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s?=")
PIP = re.compile(r"pip3? install\s+((?:-[-\w]+\s+)*)([A-Za-z][\w.\[\]-]*)")
UPGRADE = re.compile(r"pip3? install\s+(?:-[-\w]+\s+)*?(?:-U|--upgrade)\b")
BACKTICKED = re.compile(r"`([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(?:[<>=!~]=?[\w.*]+)?`")
VERSION_WORDS = ("upgrade", "downgrade")
# Backticked words that are values or Python, not a package or a setting.
NOT_KNOBS = frozenset({"true", "false", "none", "auto", "half", "float", "bfloat16", "float16",
                       "float32", "fp16", "bf16", "fp8", "int8", "int4", "cuda", "import", "python",
                       "self", "eager", "spawn", "fork", "main", "error", "warning", "info",
                       "debug", "model", "config", "tokenizer", "kwargs", "dtype", "generate"})


def knobs(fix: str) -> tuple[str, ...]:
    """The concrete knobs a fix text names, in the order first named, each once."""
    found: list[str] = []
    found += FLAG.findall(fix)
    found += [name for name in ENV.findall(fix) if len(name) >= 5]
    found += RAY_ENV.findall(fix)
    found += KEYWORD.findall(fix)
    found += [package for _, package in PIP.findall(fix)]
    found += [word for word in BACKTICKED.findall(fix)
              if len(word) >= 4 and word not in NOT_KNOBS]
    lowered = fix.lower()
    found += [word for word in VERSION_WORDS if word in lowered]
    if UPGRADE.search(fix):  # `pip install -U x` upgrades x
        found.append("upgrade")
    seen: dict[str, None] = {}
    for knob in found:
        seen.setdefault(knob.rstrip(".-"), None)
    return tuple(k for k in seen if k)


@dataclass(frozen=True, slots=True)
class Probe:
    """One log whose right advice is known, with the knobs that advice names."""

    name: str  # the exact signature's id and example, or the case's folder
    group: Group
    log: Path
    knobs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Result:
    """What the families alone said about one probe."""

    probe: Probe
    outcome: Outcome
    family: str | None  # the matched family's id
    shared: tuple[str, ...]  # the probe's knobs the family names
    kind: str = ""  # root_cause | chain | symptom: what the family matched


# with --fallbacks, the last resorts (signatures/fallback/) answer too: how far they reach the
# failures no family knows
KINDS = {SignatureKind.FAMILY}


def families_only(database: SignatureSet) -> SignatureSet:
    """The database as an unseen failure meets it: every exact signature withheld."""
    return SignatureSet([s for s in database if s.kind in KINDS])


def _group(signature: Signature, example: Path) -> Group:
    source = dict(signature.example_sources).get(example.name)
    if source is None:  # the old convention: the first reference cites the example's report
        return Group.UNCITED
    return Group.CITED if source.startswith("http") else Group.CONSTRUCTED


def signature_probes(database: SignatureSet) -> list[Probe]:
    """Every positive example of every exact signature whose fix names a knob."""
    probes = []
    for signature in database:
        if signature.kind is not SignatureKind.EXACT:
            continue
        wanted = knobs(signature.fix)
        if not wanted:
            continue
        for example, positive in signature.examples():
            if positive:
                probes.append(Probe(f"{signature.id}:{example.name}", _group(signature, example),
                                    example, wanted))
    return probes


def case_probes(root: Path, group: Group) -> list[Probe]:
    """Every failing case under root that names fix keywords."""
    probes = []
    for case_file in sorted(root.rglob("case.yaml")):
        label = yaml.safe_load(case_file.read_text(encoding="utf-8")) or {}
        keywords = tuple(str(k) for k in label.get("fix_keywords") or ())
        log = case_file.with_name("log.txt")
        if keywords and not label.get("healthy") and log.exists():
            probes.append(Probe(str(case_file.parent.relative_to(root)), group, log, keywords))
    return probes


def all_probes(database: SignatureSet) -> list[Probe]:
    return signature_probes(database) + case_probes(CASE_SETS["tuning"], Group.TUNING) \
        + case_probes(CASE_SETS["corpus"], Group.CORPUS)


def judge(probe: Probe, families: SignatureSet) -> Result:
    """Explain the probe's log with the families alone and judge the advice."""
    report = explain(probe.log, signatures=families)
    match = report.signature
    if match is None:
        return Result(probe, Outcome.NONE, None, ())
    text = f"{match.id} {match.title} {match.fix}".lower()
    shared = tuple(k for k in probe.knobs if k.lower() in text)
    return Result(probe, Outcome.RIGHT if shared else Outcome.WRONG, match.id, shared,
                  match.target)


_FAMILIES: SignatureSet | None = None


def _judge_one(probe: Probe) -> Result:
    global _FAMILIES  # one families-only set per worker process, built on first use
    if _FAMILIES is None:
        _FAMILIES = families_only(default_signatures())
    return judge(probe, _FAMILIES)


def run(probes: Sequence[Probe], jobs: int = 1) -> list[Result]:
    """Judge every probe (in `jobs` processes when more than one)."""
    if jobs <= 1:
        return [_judge_one(p) for p in probes]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_judge_one, probes, chunksize=8))


def summary(results: Iterable[Result]) -> dict[Group, Counter[Outcome]]:
    counts: dict[Group, Counter[Outcome]] = {g: Counter() for g in Group}
    for result in results:
        counts[result.probe.group][result.outcome] += 1
    return counts


def render(results: list[Result], verbose: bool, show: set[Outcome]) -> str:
    # "version only": right by nothing but "upgrade"/"downgrade", the weakest agreement
    lines = [f"{'group':<12} {'probes':>6} {'right':>6} {'wrong':>6} {'none':>6}  right%  "
             "version only"]
    for group, counts in summary(results).items():
        total = sum(counts.values())
        if total:
            right = counts[Outcome.RIGHT]
            weak = sum(1 for r in results if r.probe.group is group and r.shared
                       and set(r.shared) <= set(VERSION_WORDS))
            lines.append(f"{group.value:<12} {total:>6} {right:>6} {counts[Outcome.WRONG]:>6} "
                         f"{counts[Outcome.NONE]:>6}  {100 * right / total:5.1f}  {weak:>6}")
    if verbose:
        for result in results:
            if result.outcome in show:
                got = result.family or "-"
                lines.append(f"{result.outcome.name:<5} {result.probe.group.value:<11} "
                             f"{result.probe.name}  -> {got} {result.kind}  knobs: "
                             f"{', '.join(result.probe.knobs[:8])}"
                             + (f"  shared: {', '.join(result.shared)}" if result.shared else ""))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="list the probes too")
    parser.add_argument("--group", action="append", choices=[g.value for g in Group],
                        help="only these groups (repeatable)")
    parser.add_argument("--show", action="append", choices=[o.name.lower() for o in Outcome],
                        help="with -v, list these outcomes (default: none and wrong)")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--fallbacks", action="store_true",
                        help="the fallbacks (signatures/fallback/) answer beside the families")
    args = parser.parse_args(argv)
    if args.fallbacks:  # set before the worker processes start: they inherit it
        KINDS.add(SignatureKind.FALLBACK)
    probes = all_probes(default_signatures())
    if args.group:
        probes = [p for p in probes if p.group.value in args.group]
    show = {Outcome[s.upper()] for s in args.show} if args.show else {Outcome.NONE, Outcome.WRONG}
    print(render(run(probes, args.jobs), args.verbose, show))
    return 0


if __name__ == "__main__":
    sys.exit(main())
