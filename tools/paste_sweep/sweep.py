"""Count, per paste perturbation (tests/paste_perturbations.py), the signature examples whose
answer (signature id, verdict) it changes. Only examples answered by their own signature count.

    PYTHONPATH=.:tests python tools/paste_sweep/sweep.py [--only crlf,gutter] [--show 3]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from multiprocessing import Pool

sys.path.insert(0, "tests")

from paste_perturbations import (PERTURBATIONS, answer, frames_evidence, joined,  # noqa: E402
                                 lines_of, positive_examples, ruled_out_by_frames)


def _one(item: tuple[str, str, list[str]]) -> list[tuple[str, str, str, str]]:
    sid, path, names = item
    from pathlib import Path
    lines = lines_of(Path(path))
    base = answer(joined(lines))
    if base[0] != sid:
        return [("", sid, "", "")]
    out = []
    for name in names:
        new = PERTURBATIONS[name](lines, random.Random(f"{sid}/{name}"))
        if new is None:
            out.append((name, sid, "n/a", ""))
            continue
        got = answer(joined(new))
        if got != base and name == "frames-cut" and (
                frames_evidence(sid, lines) is not None
                or ruled_out_by_frames(joined(lines), got[0])):
            # the frames were the evidence (tests/test_s34_paste_perturbations.py)
            out.append((name, sid, "excluded", path))
            continue
        out.append((name, sid, "ok" if got == base else f"{got[0]}|{got[1]}", path))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--stride", type=int, default=1, help="every n-th example (a sample)")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(PERTURBATIONS)
    items = [(sid, str(path), names) for sid, path in positive_examples()[::args.stride]]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    shown: dict[str, list[str]] = defaultdict(list)
    own = 0
    with Pool(args.jobs) as pool:
        for rows in pool.imap_unordered(_one, items, chunksize=8):
            for name, sid, result, path in rows:
                if not name:
                    continue
                own += name == names[0]
                cell = counts[name]
                if result == "n/a":
                    cell[2] += 1
                elif result == "excluded":
                    cell[3] += 1
                elif result == "ok":
                    cell[0] += 1
                else:
                    cell[1] += 1
                    shown[name].append(f"{path} -> {result}")
    print(f"examples {len(items)}, answered by their own signature {own}")
    print(f"{'perturbation':18} {'kept':>5} {'broken':>6} {'n/a':>5} {'changed, frames evidence':>24}")
    for name in names:
        kept, broken, na, excluded = counts[name]
        print(f"{name:18} {kept:5} {broken:6} {na:5} {excluded:24}")
        for line in sorted(shown[name])[:args.show]:
            print("   ", line)


if __name__ == "__main__":
    main()
