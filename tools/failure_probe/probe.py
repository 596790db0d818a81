"""A failing run's last words: is a log that ends on a failure statement with no Python traceback
ever called healthy, and is its benign twin ever called failing?

Each statement of the catalogue (`statements.yaml`: what the OS and shells, Python, native
runtimes, launchers, drivers and vLLM itself print when a run fails, each with the source that
documents its wording) is rendered as the last lines of a generated vLLM run (start-up or
serving, in the record shapes of the verdict probe's eras: `tools/verdict_probe/probe.py` Shape),
inside a wrapper (none, docker/k8s timestamps, a compose service prefix, journald, Ray's
`(pid=N)` relay, `srun -l`'s task label, `torchrun --tee`'s rank label, `grep -n`'s file and line,
a reporter's elision marks (`[...]` on a line of its own and before the statement's first line),
hard-wrapped at 80 columns, glued to the previous record without its line end):

- `fatal`: the statement ends the log. A report of `no_failure` is a failing log called healthy.
- `survived` (statements marked `survivable`: a process that is not the server's, a record whose
  process goes on): the statement, then the run's normal work (start-up completes and answers, or
  more answers with tokens produced). A report of `failure`/`root_cause_missing` is a healthy log
  called failing.
- `benign` (the catalogue's `benign` forms: an operator's Ctrl-C, `exit code 0`, a test run's
  summary of passes, a benchmark with no failed request): they end a healthy run. A report of
  `failure`/`root_cause_missing` is a healthy log called failing.

Misses are ranked by class (group, context, wrapper, era, phase) and by statement.

    PYTHONPATH=. .venv/bin/python tools/failure_probe/probe.py --jobs 2
    PYTHONPATH=. .venv/bin/python tools/failure_probe/probe.py --only oom-killed --show 3

Not run-time code: nothing in `logsleuth/` imports it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import importlib.util

import yaml

HERE = Path(__file__).resolve().parent


def _verdict_probe():  # type: ignore[no-untyped-def]
    """The verdict probe's module: one set of era shapes for every probe."""
    spec = importlib.util.spec_from_file_location("verdict_probe",
                                                  HERE.parent / "verdict_probe" / "probe.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["verdict_probe"] = module
    spec.loader.exec_module(module)
    return module


_VERDICT = _verdict_probe()
Shape = _VERDICT.Shape


ERAS = ("v0", "v1early", "v1")
WRAPPERS = ("plain", "docker", "cri", "compose", "journald", "ray", "wrapped", "glued", "srun",
            "torchrun", "grep", "pm2", "stern", "stern-json", "elided")
# the marks a reporter puts where a paste left lines out (the `elided` wrapper)
ELISIONS = ("[...]", "[…]", "[... 300 lines omitted ...]", "[truncated]", "<snip>", "(...)",
            "[ ... ]", "(truncated)")
CONTEXTS = ("fatal", "survived", "benign")


@dataclass(frozen=True, slots=True)
class Statement:
    """One way a run's last words can look (`statements.yaml`)."""

    id: str
    group: str
    lines: tuple[str, ...]
    by: str  # who prints it: shell (unprefixed), api/core/worker (the role's prefix)
    survivable: bool
    benign: bool
    serving_only: bool
    startup_only: bool


@dataclass(frozen=True, slots=True)
class Case:
    statement: str
    group: str
    context: str
    wrapper: str
    era: str
    serving: bool
    ray: bool


@dataclass(frozen=True, slots=True)
class Result:
    case: Case
    verdict: str
    root: str | None

    @property
    def wrong(self) -> bool:
        if self.case.context == "fatal":
            return self.verdict == "no_failure"
        return self.verdict != "no_failure"


def catalogue(path: Path = HERE / "statements.yaml") -> list[Statement]:
    data = yaml.safe_load(path.read_text())
    out = []
    for group, entries in data.items():
        for entry in entries:
            lines = entry["text"].rstrip("\n").split("\n")
            out.append(Statement(entry["id"], group, tuple(lines), entry.get("by", "shell"),
                                 bool(entry.get("survivable")), bool(entry.get("benign")),
                                 bool(entry.get("serving_only")),
                                 bool(entry.get("startup_only"))))
    return out


def fill(text: str, rng: random.Random) -> str:
    return (text.replace("{pid}", str(rng.randint(2000, 99999)))
            .replace("{n}", str(rng.randint(1, 7))))


def wrap(lines: list[str], wrapper: str, rng: random.Random, at: int) -> list[str]:
    """The log's lines as the wrapper shows them; `at` is the statement's first line (glued: it
    runs on from the record before it, its line end lost)."""
    if wrapper == "docker":
        return [f"2025-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randint(0, 999999999):09d}Z {line}"
                for i, line in enumerate(lines)]
    if wrapper == "cri":  # the node's container log files (containerd): time, stream, F(ull)
        return [f"2025-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randint(0, 999999999):09d}Z "
                f"stderr F {line}" for i, line in enumerate(lines)]
    if wrapper == "compose":
        return [f"vllm-1  | {line}" for line in lines]
    if wrapper == "pm2":  # `pm2 logs`: id|name, the name padded, a bar; a `--time` start's stamp
        stamp = rng.random() < 0.5
        name = rng.choice(["vllm      ", "vllm server ", "qwen 7b api"])  # `--name "vllm server"`
        return [f"0|{name} | " + (f"2025-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}: " if stamp else "")
                + line for i, line in enumerate(lines)]
    if wrapper == "stern":  # stern: pod and container, coloured or not, `--timestamps` or not
        colour, stamp = rng.random() < 0.5, rng.random() < 0.5
        pod, box = ("\x1b[32mvllm-7d9f8c6b5-x2k4q\x1b[0m", "\x1b[33mvllm\x1b[0m") if colour \
            else ("vllm-7d9f8c6b5-x2k4q", "vllm")
        return [f"{pod} {box} " + (f"2025-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}.123456789Z " if stamp else "")
                + line for i, line in enumerate(lines)]
    if wrapper == "stern-json":  # `stern --output json`: one object a line, the line its message
        return [json.dumps({"message": line, "nodeName": "gpu-node-3", "namespace": "default",
                            "podName": "vllm-7d9f8c6b5-x2k4q", "containerName": "vllm"})
                for line in lines]
    if wrapper == "journald":
        return [f"Jun 01 10:{i // 60 % 60:02d}:{i % 60:02d} gpu-node-3 vllm[4000]: {line}"
                for i, line in enumerate(lines)]
    if wrapper == "ray":
        return [f"(pid=4000) {line}" if line else line for line in lines]
    if wrapper == "srun":  # `srun -l`: the task's number, right-aligned to the widest
        task = rng.randint(0, 15)
        return [f"{task:>2}: {line}" for line in lines]
    if wrapper == "torchrun":  # `torchrun --tee 3`: the rank's role and number, glued
        return [f"[default{rng.randint(0, 7)}]:{line}" for line in lines]
    if wrapper == "grep":  # `grep -n` over the log file, or `grep -rn` over /var/log
        name = rng.choice(["vllm.log", "syslog", "/var/log/messages"])
        first = rng.randint(1, 5000)
        return [f"{name}:{first + i}:{line}" for i, line in enumerate(lines)]
    if wrapper == "wrapped":  # a terminal's hard wrap: rows of exactly 80 columns, mid-token
        return [line[i:i + 80] for line in lines for i in range(0, max(len(line), 1), 80)]
    if wrapper == "elided" and 0 < at < len(lines):
        # a paste shortened by its reporter: a mark on a line of its own where lines were left
        # out, and the statement's first line kept from a mark on (its start cut)
        mark = rng.choice(ELISIONS)
        return lines[:at] + [mark, f"{mark} {lines[at]}"] + lines[at + 1:]
    if wrapper == "glued" and 0 < at < len(lines):
        return lines[:at - 1] + [lines[at - 1] + lines[at]] + lines[at + 1:]
    return lines


def render(statement: Statement, case: Case, seed: int) -> str:
    rng = random.Random(seed)
    shape = Shape(case.era, case.ray)
    lines = shape.banner() + shape.loaded()
    if case.serving:
        lines += shape.ready() + shape.serve(3)
    said: list[str] = []
    for text in (fill(text, rng) for text in statement.lines):
        if text.startswith("@"):  # a logger record of the `by` process
            level, _, rest = text[1:].partition(" ")
            file, _, message = rest.partition("|")
            said += shape.record(statement.by, level, file, message)
        elif statement.by in ("shell", "outside"):
            said.append(text)
        else:  # a terminal's echo of Ctrl-C comes before the process's prefix
            echo = "^C" if text.startswith("^C") else ""
            said.append(echo + shape.prefix(statement.by) + text[len(echo):])
    if case.wrapper == "glued" and not case.serving and case.context != "benign":
        # the kill cut a progress bar short: the statement runs on from it (vLLM's loader's bar)
        lines += shape.plain("worker", "Loading safetensors checkpoint shards:  50% Completed | "
                             "2/4 [00:05<00:05,  2.51s/it]")
    at, tail = len(lines), len(said)
    lines += said
    if case.context == "survived":
        if case.serving:
            lines += shape.serve(12)
        else:
            lines += shape.ready() + shape.serve(12)
    if statement.by == "outside" and case.context != "survived" and case.wrapper in (
            "docker", "cri", "compose", "ray", "journald", "srun", "torchrun", "pm2", "stern",
            "stern-json"):
        # the launcher's own lines are not its program's output: unwrapped, or systemd's own
        head = wrap(lines[:-tail], case.wrapper, rng, at)
        own = [f"Jun 01 10:59:59 gpu-node-3 systemd[1]: {line}" for line in lines[-tail:]] \
            if case.wrapper == "journald" else lines[-tail:]
        return "\n".join(head + own) + "\n"
    return "\n".join(wrap(lines, case.wrapper, rng, at)) + "\n"


def cases(statements: Sequence[Statement], seed: int, per: int) -> list[tuple[Statement, Case, int]]:
    """`per` draws of (wrapper, era, phase) for each statement and context it takes."""
    rng = random.Random(seed)
    out = []
    for statement in statements:
        contexts = ["benign"] if statement.benign else ["fatal"] + (
            ["survived"] if statement.survivable else [])
        for context in contexts:
            for i in range(per):
                # a launcher writes its own lines whole: never run on from its program's
                wrappers = [w for w in WRAPPERS if w != "glued" or statement.by != "outside"]
                wrapper = wrappers[i % len(wrappers)] if per >= len(wrappers) \
                    else rng.choice(wrappers)
                serving = statement.serving_only or not statement.startup_only \
                    and rng.random() < 0.5
                case = Case(statement.id, statement.group, context, wrapper, rng.choice(ERAS),
                            serving, rng.random() < 0.3)
                out.append((statement, case, rng.randrange(1 << 30)))
    return out


def measure_one(item: tuple[Statement, Case, int]) -> Result:
    return Result(item[1], *_VERDICT.explain_verdict(render(*item)))


def summary(results: Sequence[Result], top: int) -> str:
    out = []
    for context in CONTEXTS:
        group = [r for r in results if r.case.context == context]
        if group:
            wrong = sum(r.wrong for r in group)
            out.append(f"{context:9} {wrong:5} / {len(group):5} wrong "
                       f"({100 * wrong / len(group):.1f}%)")
    missed = [r for r in results if r.wrong]
    out += _VERDICT.misses_by(missed, (
        ("group", lambda r: (r.case.context, r.case.group)),
        ("wrapper", lambda r: (r.case.context, r.case.wrapper)),
        ("era, phase", lambda r: (r.case.context, r.case.era,
                                  "serving" if r.case.serving else "startup")),
        ("statement", lambda r: (r.case.context, r.case.statement))), top)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per", type=int, default=8, help="draws per statement and context")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--only", nargs="+", help="statement ids")
    parser.add_argument("--results", type=Path, help="write one JSON line per case")
    parser.add_argument("--show", type=int, default=0, help="print N missed logs")
    args = parser.parse_args(argv)
    statements = [s for s in catalogue() if not args.only or s.id in args.only]
    items = cases(statements, args.seed, args.per)
    results = _VERDICT.measure_all(measure_one, items, args.jobs, 8)
    print(summary(results, args.top))
    if args.results:
        with args.results.open("w") as out:
            for result in results:
                out.write(json.dumps({**asdict(result.case), "verdict": result.verdict,
                                      "root": result.root, "wrong": result.wrong}) + "\n")
    shown = 0
    for item, result in zip(items, results):
        if result.wrong and shown < args.show:
            shown += 1
            print(f"\n--- {result.case} -> {result.verdict} (root: {result.root})")
            print(render(*item), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
