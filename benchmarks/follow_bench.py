#!/usr/bin/env python3
"""Does `logsleuth explain --follow` keep up with a log growing at 50 MB/s?

    python benchmarks/follow_bench.py --lines 2000000 --rate 50 [--mix healthy] [--cmd ...]

A generated log (benchmarks/mixes.py, its failure at ~98%) is copied into a new file at --rate
MB/s, in 20 ms slices cut at line ends, while the command follows it. Printed: the rate reached,
when the failure's last line was written, when the report came out, the lag between the two
(what an operator waits for after the crash), and whether the report names the planted line.
The writer is this process; the follower runs as its own process, as a user would run it.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from mixes import generate_mix  # noqa: E402

SLICE = 0.02  # seconds between writes
AFTER_ROOT = 60  # lines after the root cause by which the failure is reported (EngineDeadError)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--mix", default="healthy")
    ap.add_argument("--rate", type=float, default=50.0, help="MB/s written")
    ap.add_argument("--cmd", default="logsleuth explain --follow --timeout 600 --format json {log}")
    ap.add_argument("--keep", default=os.path.join(HERE, ".cache"), help="where generated logs are cached")
    a = ap.parse_args(argv)

    os.makedirs(a.keep, exist_ok=True)
    source = os.path.join(a.keep, f"{a.mix}-{a.lines}-s0.log")
    if os.path.exists(source + ".truth.json"):
        with open(source + ".truth.json") as f:
            truth = json.load(f)
    else:
        truth = generate_mix(a.mix, a.lines, source)
        with open(source + ".truth.json", "w") as f:
            json.dump(truth, f)
    data = open(source, "rb").read()
    reported_by = _offset_after_line(data, truth["line"] + AFTER_ROOT)

    with tempfile.TemporaryDirectory(prefix="logsleuth-follow-") as tmp:
        target = os.path.join(tmp, "growing.log")
        out = open(target, "wb", buffering=0)
        argv_ = shlex.split(a.cmd.replace("{log}", shlex.quote(target)))
        follower = subprocess.Popen(argv_, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        start = time.perf_counter()
        written, failure_written, step = 0, None, int(a.rate * 1e6 * SLICE)
        while written < len(data) and follower.poll() is None:
            due = start + (written + step) / (a.rate * 1e6)
            cut = data.rfind(b"\n", written, written + step) + 1 or min(written + step, len(data))
            out.write(data[written:cut])
            written = cut
            if failure_written is None and written >= reported_by:
                failure_written = time.perf_counter()
            pause = due - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
        wrote_for = time.perf_counter() - start
        stdout, stderr = follower.communicate(timeout=600)
        reported = time.perf_counter()
        out.close()

    try:
        doc = json.loads(stdout)
        line = (doc.get("root_cause") or {}).get("line")
    except ValueError:
        doc, line = {}, None
    print(f"mix {a.mix}, {truth['lines']:,} lines, {len(data) / 1e6:.0f} MB written in {wrote_for:.1f} s "
          f"({written / 1e6 / wrote_for:.1f} MB/s asked {a.rate:g})")
    if failure_written is None:
        print("the follower exited before the failure was written: " + stderr.decode()[-300:])
        return 1
    lag = reported - failure_written
    print(f"failure written at {failure_written - start:.2f} s, report at {reported - start:.2f} s: "
          f"lag {lag:.2f} s; root cause line {line} (planted {truth['line']}): "
          f"{'OK' if line == truth['line'] else 'WRONG'}")
    return 0 if line == truth["line"] else 1


def _offset_after_line(data: bytes, line: int) -> int:
    """The byte offset just after line `line` (1-based)."""
    position = 0
    for _ in range(line):
        position = data.index(b"\n", position) + 1
    return position


if __name__ == "__main__":
    sys.exit(main())
