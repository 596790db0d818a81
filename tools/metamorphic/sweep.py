"""The metamorphic sweep (issue 10): every real log we may read, under every transform of
tests/metamorphic.py, held to its own report.

Subjects are the cases of tests/fixtures/corpus and tests/fixtures/tuning whose report is right
today (tests/corpus_judge.py). Each is transformed with a seed drawn from its name and the
transform's, so a run is repeatable; a transform that does not apply to a log (no worker prefix
to relay, no blank line to lose, no room for a cut) is skipped. Prints, for each transform, how
many subjects kept their answer and what the others lost; `--breaks FILE` writes every break as
a JSON line (case, transform, what differs, the reference and the transformed answer).

    PYTHONPATH=. python tools/metamorphic/sweep.py [--only TRANSFORM,...] [--breaks FILE]
        [--cases SUBSTRING] [--case-file IDS] [--salt TEXT]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import zlib
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from corpus_judge import CORPUS, TUNING_DIR, Case, judge, load_cases  # noqa: E402
from metamorphic import TRANSFORMS, anchor_of, answer_of, differences  # noqa: E402

from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.render.json import report_to_dict  # noqa: E402
from logsleuth.signatures import default_signatures  # noqa: E402


def report(lines: list[str]) -> dict[str, object]:
    return report_to_dict(explain_text("\n".join(lines) + "\n", signatures=default_signatures()))


def seed(case: str, transform: str, salt: str = "") -> int:
    """The draw's seed: the case and transform names, and a salt for another draw of each."""
    return zlib.crc32(f"{case}|{transform}{'|' + salt if salt else ''}".encode())


def sweep_case(job: tuple[Case, tuple[str, ...], str]) -> list[dict[str, object]]:
    case, names, salt = job
    lines = case.log.read_text(encoding="utf-8", errors="replace").splitlines()
    original = report(lines)
    if not judge(case.label, original).case:
        return [{"case": case.id, "transform": None, "skipped": "wrong today"}]
    reference = answer_of(original)
    anchor = anchor_of(original)
    rows: list[dict[str, object]] = []
    for name in names:
        moved = TRANSFORMS[name](lines, random.Random(seed(case.id, name, salt)), anchor)
        if moved is None:
            continue
        try:
            got = answer_of(report(moved.lines))
        except Exception as exc:  # noqa: BLE001 - a crash is a finding
            rows.append({"case": case.id, "transform": name, "diffs": ["crash"],
                         "error": repr(exc)})
            continue
        rows.append({"case": case.id, "transform": name,
                     "diffs": differences(reference, got, moved, name.endswith("unnamed")),
                     "reference": asdict(reference), "got": asdict(got),
                     "expected_line": moved.where[reference.line - 1] if reference.line else None})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated transforms")
    parser.add_argument("--cases", default="", help="a substring a case id must hold")
    parser.add_argument("--case-file", type=Path,
                        help="a file of case ids (group/name), one a line: only these")
    parser.add_argument("--set", choices=("corpus", "tuning", "both"), default="both",
                        help="which labelled cases are subjects")
    parser.add_argument("--breaks", type=Path, help="write every break here, one JSON a line")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--salt", default="",
                        help="draw other variations (wrapper names, cut points, interleavings)")
    args = parser.parse_args()
    names = tuple(args.only.split(",")) if args.only else tuple(TRANSFORMS)
    sets = {"corpus": [CORPUS], "tuning": [TUNING_DIR], "both": [CORPUS, TUNING_DIR]}[args.set]
    cases = [c for root in sets for c in load_cases(root) if args.cases in c.id]
    if args.case_file:
        wanted = {line.strip() for line in args.case_file.read_text().splitlines() if line.strip()}
        cases = [c for c in cases if c.id in wanted]
    kept: Counter[str] = Counter()
    lost: dict[str, Counter[str]] = defaultdict(Counter)
    breaks = []
    wrong = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for rows in pool.map(sweep_case, [(c, names, args.salt) for c in cases], chunksize=2):
            for row in rows:
                if row.get("skipped"):
                    wrong += 1
                    continue
                name = str(row["transform"])
                diffs = row["diffs"]
                assert isinstance(diffs, list)
                if diffs:
                    breaks.append(row)
                    lost[name].update(diffs)
                else:
                    kept[name] += 1
    print(f"{len(cases)} cases, {len(cases) - wrong} right today (subjects)")
    for name in names:
        broken = sum(1 for b in breaks if b["transform"] == name)
        detail = ", ".join(f"{k} {v}" for k, v in sorted(lost[name].items()))
        print(f"{name:20} kept {kept[name]:4}  broken {broken:3}  {detail}")
    print(f"total kept {sum(kept.values())} broken {len(breaks)}")
    if args.breaks:
        args.breaks.write_text("".join(json.dumps(b) + "\n" for b in breaks))


if __name__ == "__main__":
    main()
