#!/usr/bin/env python3
"""Drain3 baseline for bench.py: feed every line of a log to drain3.TemplateMiner.

    python benchmarks/drain3_baseline.py LOG [--max-lines N]

Default TemplateMiner() (no persistence, default masking; no drain3.ini, so drain3 prints
"config file not found" once). Lines are read as text (UTF-8, errors="replace"), one
add_log_message() call per line with the trailing newline removed; .gz input is decompressed.
Prints one JSON object: lines fed, clusters found, seconds inside the loop.
"""
import argparse
import gzip
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--max-lines", type=int, default=0, help="stop after N lines (0 = all)")
    a = ap.parse_args()
    try:
        from drain3 import TemplateMiner
    except ImportError:
        print("drain3 is not installed in this Python (%s)" % sys.executable, file=sys.stderr)
        return 3
    tm = TemplateMiner()
    add = tm.add_log_message
    opener = gzip.open if a.log.endswith(".gz") else open
    n = 0
    t0 = time.perf_counter()
    with opener(a.log, "rt", encoding="utf-8", errors="replace", newline="\n") as f:
        for line in f:
            add(line.rstrip("\n"))
            n += 1
            if n == a.max_lines:
                break
    dt = time.perf_counter() - t0
    print(json.dumps({"lines": n, "clusters": len(tm.drain.clusters), "seconds": round(dt, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
