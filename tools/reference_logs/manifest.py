"""Write tests/reference_shapes.json: each tuning log's size and line shapes
(tests/reference_logs.py says what a shape is and how the reference checks choose their logs).

    python tools/reference_logs/manifest.py [--jobs N]

Run it after tuning cases are added (until then a new case is read by every reference check) or
after a change to the grammar or to `line_shape`; tests/test_reference_logs.py checks a sample of
its entries against what the code finds now.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from reference_logs import (MANIFEST, RARE, STRIDE, case_name, choose,  # noqa: E402
                            line_shapes, manifest, tuning_logs)


def _entry(log: Path) -> tuple[str, int, list[str]]:
    return case_name(log), log.stat().st_size, sorted(line_shapes(log))


def render(entries: list[tuple[str, int, list[str]]]) -> str:
    """The manifest's text: the shapes' table, then each log's size and shapes (indexes into
    the table), a shape or a log a line, so that a regenerated manifest's diff says what changed."""
    table = sorted({shape for _, _, shapes in entries for shape in shapes})
    index = {shape: i for i, shape in enumerate(table)}
    shapes = ",\n".join(json.dumps(shape) for shape in table)
    known = ",\n".join(json.dumps(name) + ": " + json.dumps(
        {"size": size, "shapes": [index[shape] for shape in held]})
        for name, size, held in sorted(entries))
    return ('{"about": "tests/reference_logs.py; made by tools/reference_logs/manifest.py",\n'
            f'"shapes": [\n{shapes}\n],\n"logs": {{\n{known}\n}}}}\n')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    logs = tuning_logs()
    with ProcessPoolExecutor(args.jobs) as pool:
        entries = list(pool.map(_entry, logs, chunksize=8))
    MANIFEST.write_text(render(entries), encoding="utf-8")
    manifest.cache_clear()
    known = manifest()
    chosen = choose(logs, known)
    shapes = len(set().union(*(held for _, held in known.values())))
    print(f"{len(logs)} tuning logs, {shapes} shapes; {len(chosen)} chosen "
          f"(rare: fewer than {RARE} logs; stride {STRIDE})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
