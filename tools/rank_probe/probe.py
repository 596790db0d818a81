"""Which signature wins, and what would a lower-ranked one have needed?

For each log whose right advice is known, this records every candidate the matcher ranked
(`SignatureSet._ranked`: the signatures that scored at least ALTERNATIVE_FLOOR, best first)
with its score, its rank key and the evidence of each part (message, exception, module,
frames, process, phase, facts, keywords, corroboration), and whether its fix would satisfy the
probe's keywords (the corpus scorer's rule, tests/corpus_judge.py: a keyword in the id, title
or fix). Three kinds of probe:

- `tuning`: every failing case with `fix_keywords` under tests/fixtures/tuning;
- `corpus`: the same for a corpus directory given with `--corpus` (the shared corpus);
- `withheld`: each exact signature's positive example, with that signature withheld (its knobs
  read from its fix as tools/family_loo reads them): an unseen failure's meeting with the rest
  of the database, exact signatures and families alike;
- `own`: the same examples with the whole database: the wins a rank order must keep.

Two questions, tabulated:

1. misses: the report's fix is wrong and its root cause right (or not in the log); at what rank
   is the first candidate whose fix is right, and which parts tell it from the winner;
2. withheld-winner: the winner's fix is right; withheld as well (the signature written for this
   failure does not exist yet for an unseen log), does the next one that answers name the
   keywords, and if not, at what rank is one that does.

The records (`--out FILE`, JSON) are enough to try another rank order offline (`--reorder`
reads them back with `rank_key` of this module). The held-out set is never read: a directory
named `holdout` is refused.

    .venv/bin/python tools/rank_probe/probe.py --jobs 2 --corpus ../shared/corpus --out r.json
    .venv/bin/python tools/rank_probe/probe.py --load r.json -v

Not run-time code: nothing in `logsleuth/` imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools" / "family_loo")]

from logsleuth.model import SignatureKind  # noqa: E402
from logsleuth.pipeline import explain  # noqa: E402
from logsleuth.render.json import report_to_dict  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures  # noqa: E402
from logsleuth.signatures.match import _Scored  # noqa: E402

TUNING = ROOT / "tests" / "fixtures" / "tuning"
PARTS = ("message", "keywords", "exception", "module", "frames", "process", "phase", "facts",
         "corroboration")


class Recording(SignatureSet):
    """The database, keeping the last ranking it made."""

    last: list[_Scored] = []

    def _ranked(self, targets, facts, phase=None):  # type: ignore[no-untyped-def]
        scored = super()._ranked(targets, facts, phase)
        self.last = scored
        return scored


def _probes(corpus: Path | None, withheld: bool) -> list[dict[str, Any]]:
    if corpus is not None and "holdout" in corpus.resolve().parts:
        raise SystemExit("the held-out set is never read")
    probes = []
    for group, root in (("tuning", TUNING), ("corpus", corpus)):
        if root is None:
            continue
        for case_file in sorted(root.rglob("case.yaml")):
            if "holdout" in case_file.parts:
                continue
            label = yaml.safe_load(case_file.read_text(encoding="utf-8")) or {}
            keywords = [str(k) for k in label.get("fix_keywords") or ()]
            log = case_file.with_name("log.txt")
            if keywords and not label.get("healthy") and log.exists():
                probes.append(dict(name=f"{case_file.parent.parent.name}/{case_file.parent.name}",
                                   group=group, log=str(log), keywords=keywords, label=label,
                                   withhold=[]))
    if withheld:
        from loo import VERSION_WORDS, knobs

        for signature in default_signatures():
            if signature.kind is not SignatureKind.EXACT:
                continue
            wanted = list(knobs(signature.fix))
            # "upgrade" alone agrees with any fix that says so (a class's last resort does):
            # the version words count only for a fix that names no other knob
            wanted = [k for k in wanted if k not in VERSION_WORDS] or wanted
            if not wanted:
                continue
            for example, positive in signature.examples():
                if positive:
                    for group, withhold in (("own", []), ("withheld", [signature.id])):
                        probes.append(dict(name=f"{signature.id}:{example.name}", group=group,
                                           log=str(example), keywords=wanted, label=None,
                                           withhold=withhold))
    return probes


def _satisfies(keywords: Iterable[str], *texts: str) -> bool:
    blob = " ".join(texts).lower()
    return any(k.lower() in blob for k in keywords)


def _candidate(scored: _Scored, keywords: list[str]) -> dict[str, Any]:
    m = scored.match
    parts: dict[str, float] = {}
    for ev in m.evidence:
        parts[ev.part] = min(parts.get(ev.part, 1.0), ev.score)
    return dict(id=m.id, kind=m.kind.value, score=m.score, target=m.target,
                order=list(scored.order()), answers=scored.answers(), near=scored.near(),
                tier=scored.tier(), contradicted=scored.contradicted,
                unconfirmed=scored.unconfirmed, demoted=scored.demoted,
                by_module=scored.by_module, by_library=scored.by_library, words=scored.words,
                narrow=scored.narrow, where_only=scored.where_only, generic=scored.generic,
                specificity=scored.specificity, message_specificity=scored.message_specificity,
                strength=scored.strength, parts=parts,
                right=_satisfies(keywords, m.id, m.title, m.fix))


_DB: Recording | None = None


def run_one(probe: dict[str, Any]) -> dict[str, Any]:
    global _DB
    if _DB is None:
        _DB = Recording(default_signatures().signatures)
    database = _DB
    if probe["withhold"]:
        database = Recording([s for s in _DB if s.id not in probe["withhold"]])
    try:
        report = report_to_dict(explain(Path(probe["log"]), signatures=database))
    except Exception as error:  # noqa: BLE001 - a tool's record of a crash
        return dict(probe, label=None, crash=repr(error)[:200])
    signature = report.get("signature") or {}
    out = dict(name=probe["name"], group=probe["group"], keywords=probe["keywords"],
               final=signature.get("id"), final_kind=signature.get("kind"),
               final_right=_satisfies(probe["keywords"], *(str(signature.get(k, ""))
                                                           for k in ("id", "title", "fix"))),
               candidates=[_candidate(s, probe["keywords"]) for s in database.last])
    if probe["label"] is not None:
        from corpus_judge import judge

        out["root"] = judge(probe["label"], report).root
    return out


def collect(probes: Sequence[dict[str, Any]], jobs: int) -> list[dict[str, Any]]:
    if jobs <= 1:
        return [run_one(p) for p in probes]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(run_one, probes, chunksize=4))


# ---- analysis, offline over the records ---------------------------------------------------

def rank_key(candidate: dict[str, Any]) -> tuple[float, ...]:
    """The order the records were ranked in (match.py `_Scored.order`); a variant to try is
    written here and compared with --load."""
    return tuple(candidate["order"])


def winner(candidates: list[dict[str, Any]], skip: Iterable[str] = ()) -> int | None:
    """The index of the candidate that answers once `skip` is withheld (None: none answers)."""
    skipped = set(skip)
    rest = [i for i, c in enumerate(candidates) if c["id"] not in skipped]
    if rest and candidates[rest[0]]["answers"]:
        return rest[0]
    return None


def separating(win: dict[str, Any], right: dict[str, Any]) -> list[str]:
    """The parts on which the right candidate had better evidence than the winner."""
    out = []
    for part in PARTS:
        a, b = win["parts"].get(part), right["parts"].get(part)
        if b is not None and b == 1.0 and (a is None or a < 1.0):
            out.append(f"{part}+")  # the right one has it matched, the winner lacks it
        elif a is not None and a < 1.0 and b is None:
            out.append(f"{part}~")  # the winner names a part that missed; the right names none
    if right["message_specificity"] > win["message_specificity"]:
        out.append("message-specificity+")
    if right["kind"] == "exact" and win["kind"] == "family":
        out.append("kind+")
    if right["score"] > win["score"]:
        out.append("score+")
    return out


def decided(win: dict[str, Any], right: dict[str, Any]) -> str:
    """Which element of the rank key put the winner first."""
    names = ("threshold", "tier", "demoted", "within the module tier", "kind", "score",
             "specificity")
    for i, (a, b) in enumerate(zip(win["order"], right["order"])):
        if a != b:
            return names[i] if i < len(names) else f"key{i}"
    return "tie (database order)"


def analyse(records: list[dict[str, Any]], verbose: bool) -> str:
    lines: list[str] = []
    for r in records:
        r["candidates"].sort(key=rank_key)
    rank_of = Counter()
    parts_of = Counter()
    decided_by = Counter()
    sim = Counter()
    sim_rank = Counter()
    sim_parts = Counter()
    sim_decided = Counter()
    shown: list[str] = []
    for r in records:
        if "crash" in r:
            shown.append(f"CRASH {r['name']} {r['crash']}")
            continue
        cands = r["candidates"]
        w = winner(cands, ())
        right_at = [i for i, c in enumerate(cands) if c["right"]]
        group = r["group"]
        if r.get("root") is not False and not r["final_right"]:
            if w is not None and right_at:
                i = right_at[0]
                rank_of[(group, min(i + 1, 6))] += 1
                for p in separating(cands[w], cands[i]):
                    parts_of[(group, p)] += 1
                decided_by[(group, decided(cands[w], cands[i]))] += 1
                if verbose:
                    shown.append(_pair("MISS", r, cands[w], cands[i], i))
            else:
                rank_of[(group, "none" if not right_at else "no winner")] += 1
        # the winner withheld as well: an unseen failure's meeting with the rest
        if r.get("root") is False or w is None or not cands[w]["right"]:
            continue
        w2 = winner(cands, [cands[w]["id"]])
        rest = [i for i, c in enumerate(cands) if c["right"] and i != w]
        if w2 is not None and cands[w2]["right"]:
            sim[(group, "right")] += 1
        elif rest:
            i = rest[0]
            sim[(group, "right ranked lower")] += 1
            if w2 is not None:
                sim_rank[(group, min(i, 6))] += 1
                for p in separating(cands[w2], cands[i]):
                    sim_parts[(group, p)] += 1
                sim_decided[(group, decided(cands[w2], cands[i]))] += 1
                if verbose:
                    shown.append(_pair("SIM", r, cands[w2], cands[i], i))
        else:
            sim[(group, "no right candidate")] += 1

    def table(title: str, counter: Counter) -> None:
        lines.append(title)
        for key, n in sorted(counter.items(), key=lambda kv: (str(kv[0][0]), -kv[1])):
            lines.append(f"  {key[0]:<9} {str(key[1]):<28} {n}")

    table("misses (root right, fix wrong): rank of the first right candidate", rank_of)
    table("misses: parts where the right candidate beat the winner", parts_of)
    table("misses: rank-key element that put the winner first", decided_by)
    table("winner withheld: next answer", sim)
    table("winner withheld, next answer wrong: rank of the first right (1 = next)", sim_rank)
    table("winner withheld: parts where the right candidate beat the new winner", sim_parts)
    table("winner withheld: rank-key element that put the new winner first", sim_decided)
    return "\n".join(lines + shown)


def _brief(c: dict[str, Any]) -> str:
    parts = " ".join(f"{k}={v:g}" for k, v in c["parts"].items())
    return (f"{c['id']} [{c['kind']} {c['score']:.3f} tier={c['tier']} msgspec="
            f"{c['message_specificity']:g} spec={c['specificity']:g}"
            f"{' contra' if c['contradicted'] else ''}{' unconf' if c['unconfirmed'] else ''}"
            f"{' demoted' if c['demoted'] else ''}{' near' if c['near'] else ''}] {parts}")


def _pair(tag: str, r: dict[str, Any], win: dict[str, Any], right: dict[str, Any], i: int) -> str:
    return (f"{tag} {r['group']} {r['name']}\n    won:      {_brief(win)}\n"
            f"    right #{i + 1}: {_brief(right)}\n    decided by {decided(win, right)}; "
            f"right has {', '.join(separating(win, right)) or '-'}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="a corpus directory (group/case/case.yaml)")
    parser.add_argument("--withheld", action="store_true",
                        help="also each exact signature's examples, that signature withheld")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the records here (JSON)")
    parser.add_argument("--load", type=Path, help="analyse records written before")
    parser.add_argument("-v", "--verbose", action="store_true", help="each pair too")
    args = parser.parse_args(argv)
    if args.load:
        records = json.loads(args.load.read_text())
    else:
        records = collect(_probes(args.corpus, args.withheld), args.jobs)
        if args.out:
            args.out.write_text(json.dumps(records))
    print(analyse(records, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
