"""Per-file CPU seconds of a suite run measured with cpu_seconds.py (heaviest first).

    python tools/suite_cpu/table.py DIR [COUNT]          one run
    python tools/suite_cpu/table.py BEFORE AFTER [COUNT]  two runs side by side
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path


def read(folder: Path) -> tuple[Counter[str], Counter[str], list[str]]:
    cpu: Counter[str] = Counter()
    tests: Counter[str] = Counter()
    notes = []
    for path in sorted(folder.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if fields[0].startswith("#"):
                notes.append(f"{path.stem} {' '.join(fields)}")
                continue
            module = fields[0].split("::")[0]
            cpu[module] += float(fields[1])
            tests[module] += 1
    return cpu, tests, notes


def main(argv: list[str]) -> None:
    folders = [Path(arg) for arg in argv if not arg.isdigit()]
    count = next((int(arg) for arg in argv if arg.isdigit()), 40)
    runs = [read(folder) for folder in folders]
    for folder, (cpu, tests, notes) in zip(folders, runs):
        print(f"{folder}: {sum(cpu.values()):.1f} CPU-s in {sum(tests.values())} tests")
        for note in notes:
            print("  " + note)
    first = runs[0][0]
    for module, seconds in first.most_common(count):
        others = "".join(f" {run[0][module]:8.1f}" for run in runs[1:])
        print(f"{seconds:8.1f}{others} {runs[0][1][module]:6d} {module}")


if __name__ == "__main__":
    main(sys.argv[1:])
