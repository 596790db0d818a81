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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    logs = tuning_logs()
    with ProcessPoolExecutor(args.jobs) as pool:
        entries = sorted(pool.map(_entry, logs, chunksize=8))
    table = sorted({shape for _, _, shapes in entries for shape in shapes})
    index = {shape: i for i, shape in enumerate(table)}
    # a shape or a log a line: a regenerated manifest's diff says what changed
    shapes = ",\n".join(json.dumps(shape) for shape in table)
    known = ",\n".join(json.dumps(name) + ": " + json.dumps(
        {"size": size, "shapes": [index[shape] for shape in held]})
        for name, size, held in entries)
    MANIFEST.write_text('{"about": "tests/reference_logs.py; made by '
                        'tools/reference_logs/manifest.py",\n'
                        f'"shapes": [\n{shapes}\n],\n"logs": {{\n{known}\n}}}}\n',
                        encoding="utf-8")
    manifest.cache_clear()
    chosen = choose(logs, manifest())
    print(f"{len(logs)} tuning logs, {len(table)} shapes; {len(chosen)} chosen "
          f"(rare: fewer than {RARE} logs; stride {STRIDE})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
