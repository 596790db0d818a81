#!/usr/bin/env python3
"""Throughput / memory benchmark for `logsleuth explain` on large generated vLLM logs.

    python benchmarks/bench.py --lines 10000 100000 1000000
    python benchmarks/bench.py --lines 1000000 --runs 3 --no-drain3 --keep /tmp/lsbench \\
        --cmd 'python -m logsleuth explain --format json {log}'

For each size: generate the log once (benchmarks/generate.py, cached in --keep DIR or a temp
dir), read it once to warm the page cache, then for each of --runs rounds run, one after the
other in the same round (the starting tool rotates between rounds):

  grep      LC_ALL=C grep -c Traceback FILE        (a floor: one pass, no parsing)
  logsleuth the --cmd command, {log} replaced by the file path
  Drain3    benchmarks/drain3_baseline.py FILE     (template mining of every line; optional)

Each is a separate child process; wall time is time.perf_counter() from spawn to reap, peak
RSS is ru_maxrss from os.wait4() on that child (KiB on Linux), both taken inside a tiny launcher
process (see LAUNCHER) so the harness's own memory does not leak into the child's ru_maxrss. Reported values are medians
over the rounds. logsleuth's answer is checked on every run: its JSON stdout must have
root_cause.line == the generator's PATH.truth.json line, and its exit code must be 0 or 1
(0 no failure, 1 failure found; 2 = unusable input counts as an error). Exit status: 0 all
answers right, 1 any answer wrong, 2 harness error (command not found, ...).
"""
from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATE = os.path.join(HERE, "generate.py")
DRAIN3_SCRIPT = os.path.join(HERE, "drain3_baseline.py")
DEFAULT_CMD = "logsleuth explain --format json {log}"


# ----------------------------------------------------------------------------- machine info
def machine_info():
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ram = "?"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    ram = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "ram": ram, "python": platform.python_version(),
            "kernel": platform.release()}


# ----------------------------------------------------------------------------- child runner
class Result:
    __slots__ = ("seconds", "maxrss_kib", "returncode", "stdout", "stderr", "child_kib", "summed_kib",
                 "cpu")

    def __init__(self, seconds, maxrss_kib, returncode, stdout, stderr, child_kib=0, children_kib=0,
                 cpu=0.0):
        self.seconds = seconds
        self.maxrss_kib = maxrss_kib
        self.child_kib = child_kib
        self.cpu = cpu  # user + system CPU seconds of the process and the children it reaped
        self.summed_kib = maxrss_kib + children_kib
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


# Why a launcher: on Linux a child's ru_maxrss starts at the RSS of the process that forked it
# (the pre-exec mm's high-water mark is folded in at exec), so children spawned straight from
# this harness would all report at least the harness's own peak RSS. A tiny `python -S` process
# (~6.5 MB) forks and execs the measured command, times it with perf_counter from fork to
# reap, takes ru_maxrss from os.wait4 on it, and reports "rc maxrss_kib seconds" on a pipe.
# The measured process's own children (logsleuth's second-half reader) are found through
# /proc/PID/task/PID/children every 20 ms and their peak (VmHWM) taken: "child peak" is the
# largest, and "summed" adds every process's peak (an upper bound of the sum at any instant).
# Floor of the RSS numbers: the launcher's RSS (~6.5 MB; grep really uses ~2 MB).
LAUNCHER = r"""
import os, sys, time
w = int(sys.argv[1]); argv = sys.argv[2:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os.write(2, b"bench launcher: exec failed: " + argv[0].encode() + b"\n")
        os._exit(127)

def children(p):
    try:
        with open("/proc/%d/task/%d/children" % (p, p)) as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []

def hwm(p):
    try:
        with open("/proc/%d/status" % p) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

peaks = {}
while True:
    done, st, ru = os.wait4(pid, os.WNOHANG)
    if done:
        break
    todo = children(pid)
    while todo:
        c = todo.pop()
        peaks[c] = max(peaks.get(c, 0), hwm(c))
        todo += children(c)
    time.sleep(0.02)
dt = time.perf_counter() - t0
others = sum(peaks.values())
os.write(w, b"%d %d %.9f %d %d %.6f" % (os.waitstatus_to_exitcode(st), ru.ru_maxrss, dt,
                                       max(peaks.values(), default=0), others,
                                       ru.ru_utime + ru.ru_stime))
"""

def run_child(argv, env=None, cwd=None, timeout=None):
    """Run argv via LAUNCHER; return a Result with its own wall time and peak RSS.

    stdout/stderr go to temp files (nothing to drain while it runs).
    """
    r, w = os.pipe()
    try:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            p = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, str(w)] + list(argv),
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd,
                                 pass_fds=(w,), start_new_session=True)
            os.close(w)
            w = -1
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            report = os.read(r, 200).decode()
            out.seek(0)
            err.seek(0)
            o, e = out.read(), err.read()
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
    if not report:
        return Result(float(timeout or 0), 0, -9, o, e + b"\n(killed: timed out)")
    rc, rss, dt, child, children, cpu = report.split()
    return Result(float(dt), int(rss), int(rc), o, e, int(child), int(children), float(cpu))


# ----------------------------------------------------------------------------- generation
def ensure_log(lines, seed, gen_args, cache_dir, mix="healthy"):
    tag = "" if not gen_args else "-" + "".join(c if c.isalnum() else "_" for c in " ".join(gen_args))
    path = os.path.join(cache_dir, f"{mix}-{lines}-s{seed}{tag}.log")
    truth_path = path + ".truth.json"
    if os.path.exists(path) and os.path.exists(truth_path):
        with open(truth_path) as f:
            truth = json.load(f)
        print(f"# using cached {path}", file=sys.stderr)
        return path, truth
    cmd = [sys.executable, GENERATE, "--lines", str(lines), "--out", path, "--seed", str(seed),
           "--mix", mix] + gen_args
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    print(f"# generated {path} in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    with open(truth_path) as f:
        return path, json.load(f)


def compile_package():
    """Write the bytecode of the logsleuth package this Python imports, as installing a wheel
    does. An editable install compiles its modules on first import and keeps them, unless
    PYTHONDONTWRITEBYTECODE is set (as it is on the machines of these rounds): then every run
    compiled fifty modules from source, about 0.1 s of CPU that an installed logsleuth never
    spends. Returns the package folder, or None when this Python does not see logsleuth."""
    spec = importlib.util.find_spec("logsleuth")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = list(spec.submodule_search_locations)[0]
    subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=False,
                   stdout=subprocess.DEVNULL)
    return folder


def warm(path):
    buf = bytearray(1 << 20)
    with open(path, "rb", buffering=0) as f:
        while f.readinto(buf):
            pass


# ----------------------------------------------------------------------------- checking
def check_answer(res, truth):
    """-> (ok: bool, note: str)"""
    if res.returncode not in (0, 1):
        return False, f"exit {res.returncode}: {res.stderr[-300:].decode('utf-8', 'replace').strip()}"
    try:
        doc = json.loads(res.stdout.decode("utf-8", "replace"))
    except ValueError as e:
        return False, f"stdout is not JSON ({e}); starts {res.stdout[:120]!r}"
    rc = doc.get("root_cause") if isinstance(doc, dict) else None
    got = rc.get("line") if isinstance(rc, dict) else None
    if got != truth["line"]:
        return False, f"root_cause.line={got!r}, expected {truth['line']} (verdict={doc.get('verdict') if isinstance(doc, dict) else doc!r})"
    if "runs" in truth:  # a crash loop: every run fails the same way, and the report says so
        runs = doc.get("runs") or []
        explained = [r for r in runs if r.get("explained")]
        same = explained[0].get("same_failure") if explained else None
        if len(runs) != truth["runs"] or same != truth["runs"]:
            return False, (f"runs: the same failure in {same} of {len(runs)} runs, expected "
                           f"{truth['runs']} of {truth['runs']}")
        return True, f"root_cause.line={got}, the same failure in {same} of {len(runs)} runs"
    return True, f"root_cause.line={got}"


# ----------------------------------------------------------------------------- main
def fmt(x, spec):
    return "—" if x is None else format(x, spec)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, nargs="+", default=[10000, 100000, 1000000])
    ap.add_argument("--mix", nargs="+", default=["healthy"],
                    help="mixes to generate and measure (benchmarks/mixes.py): healthy restart errors "
                         "crashloop debug procs64 longlines")
    ap.add_argument("--runs", type=int, default=5, help="rounds per size (medians are reported)")
    ap.add_argument("--cmd", default=DEFAULT_CMD,
                    help="logsleuth command line; {log} is replaced by the (shell-quoted) path. "
                         "Split with shlex and run without a shell unless --shell")
    ap.add_argument("--shell", action="store_true", help="run --cmd through /bin/sh -c")
    ap.add_argument("--drain3", dest="drain3", action="store_true", default=True)
    ap.add_argument("--no-drain3", dest="drain3", action="store_false")
    ap.add_argument("--drain3-max-lines", type=int, default=0,
                    help="run Drain3 on the first N lines only and extrapolate its time linearly")
    ap.add_argument("--drain3-python", default=None,
                    help="Python with drain3 installed (default: this one; `pip install -e '.[bench]'` adds drain3)")
    ap.add_argument("--keep", metavar="DIR", help="generate/cache logs in DIR (kept); default: a temp dir, removed")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gen-args", default="", help="extra generate.py arguments, e.g. '--after shutdown'")
    ap.add_argument("--timeout", type=float, default=None, help="kill a child after this many seconds")
    ap.add_argument("--json", metavar="PATH", help="also write all raw measurements as JSON")
    ap.add_argument("--no-compile", dest="compile", action="store_false",
                    help="do not write the logsleuth package's bytecode first (see compile_package)")
    a = ap.parse_args(argv)
    if a.compile:
        folder = compile_package()
        print(f"# bytecode written for {folder}" if folder else
              "# this Python does not import logsleuth: no bytecode written", file=sys.stderr)

    d3py = a.drain3_python or sys.executable
    if a.drain3:
        probe = subprocess.run([d3py, "-c", "import drain3"], capture_output=True)
        if probe.returncode != 0:
            print(f"# drain3 not importable with {d3py}; Drain3 baseline skipped", file=sys.stderr)
            a.drain3 = False

    tmp = None
    cache = a.keep
    if cache:
        os.makedirs(cache, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="logsleuth-bench-")
        cache = tmp.name
    gen_args = shlex.split(a.gen_args)
    grep_env = dict(os.environ, LC_ALL="C")
    info = machine_info()
    rows, raw, any_wrong = [], [], False
    try:
        for mix, n in itertools.product(a.mix, a.lines):
            path, truth = ensure_log(n, a.seed, gen_args, cache, mix)
            size = os.path.getsize(path)
            nlines = truth.get("lines", n)
            warm(path)
            q = shlex.quote(path)
            if a.shell:
                ls_argv = ["/bin/sh", "-c", a.cmd.replace("{log}", q)]
            else:
                ls_argv = shlex.split(a.cmd.replace("{log}", q))
            d3_lines = nlines
            d3_argv = None
            if a.drain3:
                d3_argv = [d3py, DRAIN3_SCRIPT, path]
                if a.drain3_max_lines and a.drain3_max_lines < nlines:
                    d3_lines = a.drain3_max_lines
                    d3_argv += ["--max-lines", str(d3_lines)]
            tools = [("grep", ["grep", "-c", "Traceback", path], grep_env, None),
                     ("logsleuth", ls_argv, None, None)]
            if d3_argv:
                # cwd=cache so drain3 never picks up a stray drain3.ini
                tools.append(("drain3", d3_argv, None, cache))
            for name, argv_, *_ in tools:
                if shutil.which(argv_[0]) is None:
                    print(f"error: cannot run {name}: {argv_[0]!r} not found on PATH", file=sys.stderr)
                    return 2
            meas = {name: [] for name, *_ in tools}
            notes = []
            ok_all = True
            for r in range(a.runs):
                k = r % len(tools)
                for name, argv_, env, cwd in tools[k:] + tools[:k]:
                    res = run_child(argv_, env=env, cwd=cwd, timeout=a.timeout)
                    meas[name].append(res)
                    if name == "logsleuth":
                        ok, note = check_answer(res, truth)
                        if not ok:
                            ok_all = False
                            notes.append(note)
                    elif name == "grep" and res.returncode not in (0, 1):
                        print(f"warning: grep exit {res.returncode}", file=sys.stderr)
                    elif name == "drain3" and res.returncode != 0:
                        print(f"warning: drain3 exit {res.returncode}: {res.stderr[-300:]!r}", file=sys.stderr)
                print(f"# {mix} {n} lines, round {r + 1}/{a.runs}: " + ", ".join(
                    f"{nm} {meas[nm][-1].seconds:.3f}s" for nm in meas), file=sys.stderr)

            def med(name, attr):
                v = [getattr(x, attr) for x in meas.get(name, [])]
                return statistics.median(v) if v else None

            mb = size / 1e6
            ls_s = med("logsleuth", "seconds")
            grep_s = med("grep", "seconds")
            ls_rss = med("logsleuth", "maxrss_kib")
            d3_s = med("drain3", "seconds")
            d3_extrap = d3_s is not None and d3_lines < nlines
            if d3_s is not None and d3_extrap:
                # scale only the per-line loop (reported by the script); keep start-up as is
                loops = []
                for x in meas["drain3"]:
                    try:
                        loops.append(float(json.loads(x.stdout.decode().strip().splitlines()[-1])["seconds"]))
                    except (ValueError, IndexError, KeyError):
                        pass
                loop = statistics.median(loops) if loops else d3_s
                d3_s = (d3_s - loop) + loop * nlines / d3_lines
            row = {
                "mix": mix, "lines": nlines,
                "child_rss_mb": med("logsleuth", "child_kib") / 1024,
                "summed_rss_mb": med("logsleuth", "summed_kib") / 1024, "mb": mb, "logsleuth_s": ls_s, "mb_s": mb / ls_s, "lines_s": nlines / ls_s,
                "rss_mb": ls_rss / 1024, "grep_s": grep_s, "x_grep": ls_s / grep_s,
                "cpu_s": med("logsleuth", "cpu"), "grep_cpu_s": med("grep", "cpu"),
                "x_grep_cpu": med("logsleuth", "cpu") / max(med("grep", "cpu"), 1e-3),
                "drain3_s": d3_s, "drain3_extrapolated_from": d3_lines if d3_extrap else None,
                "drain3_over_logsleuth": (d3_s / ls_s) if d3_s else None,
                "drain3_mb_s": (mb / d3_s) if d3_s else None,
                "drain3_rss_mb": (med("drain3", "maxrss_kib") / 1024) if d3_s else None,
                "grep_rss_mb": med("grep", "maxrss_kib") / 1024,
                "answer": "OK" if ok_all else "WRONG", "truth_line": truth["line"],
            }
            if not ok_all:
                any_wrong = True
                print(f"WRONG at {mix} {n} lines: " + "; ".join(sorted(set(notes))), file=sys.stderr)
            rows.append(row)
            raw.append({"mix": mix, "lines": nlines, "path": path, "bytes": size, "truth": truth,
                        "runs": {nm: [{"seconds": x.seconds, "maxrss_kib": x.maxrss_kib, "rc": x.returncode,
                                       "cpu": x.cpu,
                                       "child_kib": x.child_kib, "summed_kib": x.summed_kib}
                                      for x in v] for nm, v in meas.items()}})
    finally:
        if tmp:
            tmp.cleanup()

    # ------------------------------------------------------------------- report
    print()
    print(f"Machine: {info['nproc']} CPUs ({info['cpu']}), {info['ram']} RAM, Linux {info['kernel']}, "
          f"Python {info['python']}")
    print(f"Command: `{a.cmd}`; medians of {a.runs} runs, alternating per round; warm page cache")
    print()
    print("| mix | lines | MB | logsleuth s | MB/s | peak RSS MB | child RSS MB | summed RSS MB | grep s "
          "| × grep time | CPU s | × grep CPU | Drain3 s | Drain3 ÷ logsleuth | answer |")
    print("|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|")
    foot = False
    for r in rows:
        star = ""
        if r["drain3_extrapolated_from"]:
            star = "*"
            foot = True
        print(f"| {r['mix']} | {r['lines']:,} | {r['mb']:.1f} | {r['logsleuth_s']:.3f} | {r['mb_s']:.1f} | "
              f"{r['rss_mb']:.1f} | {fmt(r['child_rss_mb'] or None, '.1f')} | {r['summed_rss_mb']:.1f} | "
              f"{r['grep_s']:.3f} | {r['x_grep']:.1f} | {r['cpu_s']:.2f} | {r['x_grep_cpu']:.0f} | "
              f"{fmt(r['drain3_s'], '.2f')}{star} | {fmt(r['drain3_over_logsleuth'], '.1f')} | {r['answer']} |")
    if foot:
        lim = min(r["drain3_extrapolated_from"] for r in rows if r["drain3_extrapolated_from"])
        print(f"\n\\* Drain3 ran on the first {lim:,} lines only; its per-line loop time is extrapolated linearly to the whole file (start-up counted once).")
    print("\nCPU s = user + system CPU seconds of logsleuth (its second-half reader included); "
          "× grep CPU = that over grep's CPU seconds: less moved by other load on the machine.")
    print("\n× grep time = logsleuth s / grep s (how many times slower than one `grep -c` pass); "
          "Drain3 ÷ logsleuth = Drain3 s / logsleuth s (how many times faster than Drain3).")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": info, "cmd": a.cmd, "runs": a.runs, "rows": rows, "raw": raw}, f, indent=1)
    return 1 if any_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
