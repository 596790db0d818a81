#!/usr/bin/env python3
"""Throughput of `logsleuth triage`: files/s and MB/s, local process pool and Ray engine.

    python benchmarks/triage_bench.py                       # ~500 files from ../shared/corpus
    python benchmarks/triage_bench.py --files 2000 --runs 5 --jobs 1 2 --no-ray

The corpus logs (every `log.txt` under --corpus) are copied into a temp dir until there are
--files of them (each copy in its own subdirectory, so every path is distinct), then each
configuration runs --runs times over the whole tree, with no cache, through the library API
`logsleuth.triage.triage` (what the command runs, minus printing). Reported: the median wall
time, files/s and MB/s (input bytes), and the same for a warm-cache rerun (every report taken
from the cache, nothing read). Ray is started once, before its runs (its start-up time is shown
apart): the figure is the triage itself on a running instance, as on a cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from logsleuth.triage import Engine, TriageResult, triage

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpus"


def replicate(corpus: Path, target: Path, files: int) -> tuple[int, int]:
    logs = sorted(corpus.rglob("log.txt"))
    if not logs:
        raise SystemExit(f"no log.txt under {corpus}")
    count = size = 0
    copy = 0
    while count < files:
        for log in logs:
            if count == files:
                break
            out = target / f"copy-{copy:03d}" / log.parent.relative_to(corpus) / "log.txt"
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, out)
            count += 1
            size += out.stat().st_size
        copy += 1
    return count, size


def measure(label: str, run: Callable[[], TriageResult], runs: int, files: int,
            size: int) -> dict[str, object]:
    times: list[float] = []
    result: TriageResult | None = None
    for _ in range(runs):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    assert result is not None
    if len(result.cases) != files:
        raise SystemExit(f"{label}: {len(result.cases)} cases, expected {files}")
    median = statistics.median(times)
    return {"engine": label, "runs": runs, "median_s": round(median, 3),
            "min_s": round(min(times), 3), "files_per_s": round(files / median, 1),
            "mb_per_s": round(size / 1e6 / median, 2), "read": result.read,
            "cached": result.cached, "groups": len(result.groups)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=None,
                        help="local pool sizes to try (default: 1 and every core)")
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    jobs = args.jobs or sorted({1, cores or 1})
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="logsleuth-triage-bench-") as tmp:
        tree, cache = Path(tmp) / "logs", Path(tmp) / "cache"
        files, size = replicate(args.corpus, tree, args.files)
        print(f"{files} files, {size / 1e6:.1f} MB, {cores} cores, Python "
              f"{platform.python_version()}, {platform.machine()}", file=sys.stderr)
        for n in jobs:
            def local(n: int = n) -> TriageResult:
                return triage([tree], recursive=True, jobs=n)
            rows.append(measure(f"local -j{n}", local, args.runs, files, size))
        triage([tree], recursive=True, cache=cache)  # fill the cache
        rows.append(measure("local, warm cache", lambda: triage([tree], recursive=True,
                                                                cache=cache), args.runs, files,
                            size))
        if not args.no_ray:
            try:
                import ray
            except ImportError:
                print("ray is not installed: pip install 'logsleuth[ray]'", file=sys.stderr)
            else:
                start = time.perf_counter()
                ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
                started = time.perf_counter() - start
                try:
                    triage([tree], recursive=True, engine=Engine.RAY)  # warm the workers
                    row = measure(f"ray ({cores} CPUs)",
                                  lambda: triage([tree], recursive=True, engine=Engine.RAY),
                                  args.runs, files, size)
                    row["ray_start_s"] = round(started, 2)
                    rows.append(row)
                finally:
                    ray.shutdown()
    header = ("engine", "median_s", "files_per_s", "mb_per_s", "read", "cached", "groups")
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(str(row.get(key, "")) for key in header)
              + (f"  (ray start {row['ray_start_s']} s)" if "ray_start_s" in row else ""))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
