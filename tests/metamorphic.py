"""Whole-log transforms that must not change logsleuth's answer (issue 10: unseen launchers).

A log reaches us through launchers, consoles and pastes we never saw. Each transform here rewrites
a whole log the way one of them does and says where every original line went, so that a report
of the transformed log can be held to the report of the original: the same verdict, the same root
(exception, message, process) at the line the original root was moved to.

Every transform is generated from the log and a seeded random source (times advance, prefixes
vary, cut points and interleavings are drawn), never written for one case. Used by
tests/test_metamorphic.py (a small fixed-seed sample) and tools/metamorphic/sweep.py (the sweep
over every real log we may read).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from scenario_logs import Server

from logsleuth.knowledge import default_causality
from logsleuth.tokenize import parse_line


@dataclass(frozen=True)
class Anchor:
    """Where the original root lies (1-based lines; 0 when there is none), for the cuts, and
    whether anything else of its deployment reports the failure (a symptom)."""

    first: int
    last: int
    reported: bool = True


def anchor_of(report: dict[str, Any]) -> Anchor:
    root = report.get("root_cause") or {}
    return Anchor(int(root.get("first_line") or root.get("line") or 0),
                  int(root.get("last_line") or root.get("line") or 0),
                  bool(report.get("symptoms")))


@dataclass(frozen=True)
class Moved:
    """A transformed log: its lines and, for each original line, the (first, last) lines it
    became, or None where the transform dropped it."""

    lines: list[str]
    where: list[tuple[int, int] | None]


Transform = Callable[[list[str], random.Random, Anchor], "Moved | None"]
_START = datetime(2025, 3, 14, 9, 26, 53, tzinfo=timezone.utc)
# a logger's level word: the one a record header starts with (`INFO 03-24 ...`, uvicorn's `INFO:`),
# not a word of the message (NCCL's `NCCL WARN Cuda failure` is not coloured)
LEVEL_WORD = re.compile(r"\b(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?=:| \d)")
PROCESS_PREFIX = re.compile(r"^\(((?:[^()\n]*? )?pid=\d+)\)")
EXCEPTION_NAME = re.compile(r"\b[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b")
_START_MARKER = default_causality().start_marker
MAIN_NAMES = re.compile(r"APIServer|EngineCore|LLMEngine|MQLLMEngine|api_server", re.I)


def one_to_one(lines: list[str]) -> Moved:
    return Moved(lines, [(n, n) for n in range(1, len(lines) + 1)])


def per_line(prefix: Callable[[random.Random, int], str]) -> Transform:
    """A wrapper that puts a generated prefix before every line (the n-th line's clock)."""
    def apply(lines: list[str], rng: random.Random, _: Anchor) -> Moved:
        return one_to_one([prefix(rng, n) + line for n, line in enumerate(lines)])
    return apply


def _clock(rng: random.Random, n: int) -> datetime:
    # every transform call draws its own start; lines a few milliseconds apart, in order
    return _START + timedelta(milliseconds=n * 7 + rng.randrange(0, 5))


def docker_time(rng: random.Random, n: int) -> str:
    return _clock(rng, n).strftime("%Y-%m-%dT%H:%M:%S.%f") + f"{rng.randrange(1000):03d}Z "


def journald(host: str, unit: str, pid: int) -> Callable[[random.Random, int], str]:
    return lambda rng, n: f"{_clock(rng, n).strftime('%b %d %H:%M:%S')} {host} {unit}[{pid}]: "


def cri(lines: list[str], rng: random.Random, _: Anchor) -> Moved:
    """containerd's log files: time, stream, then F for a whole line or P for a piece of one
    (a line longer than the runtime's buffer, or written without its newline yet)."""
    out: list[str] = []
    where: list[tuple[int, int] | None] = []
    stream = "stderr" if rng.random() < 0.5 else "stdout"
    for n, line in enumerate(lines):
        pieces = [line]
        if len(line) > 120 and rng.random() < 0.5:
            cut = rng.randrange(40, len(line) - 20)
            pieces = [line[:cut], line[cut:]]
        first = len(out) + 1
        for i, piece in enumerate(pieces):
            tag = "F" if i == len(pieces) - 1 else "P"
            out.append(f"{docker_time(rng, n)[:-1].rstrip('Z')}Z {stream} {tag} {piece}")
        where.append((first, len(out)))
    return Moved(out, where)


def ray_relay(named: bool) -> Transform:
    """Ray's driver relays each actor's lines behind `(Name pid=N, ip=A)`, or `(pid=N, ip=A)`
    for a task without an actor name: a worker's own prefix gains the node's address (and may
    lose its name)."""
    def apply(lines: list[str], rng: random.Random, _: Anchor) -> Moved | None:
        ip = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
        changed = False
        out = []
        for line in lines:
            match = PROCESS_PREFIX.match(line)
            if match and not MAIN_NAMES.search(match.group(1)):
                inside = match.group(1) if named else match.group(1).rsplit(" ", 1)[-1]
                line = f"({inside}, ip={ip})" + line[match.end():]
                changed = True
            out.append(line)
        return one_to_one(out) if changed else None
    return apply


def ansi_levels(lines: list[str], rng: random.Random, _: Anchor) -> Moved:
    """A terminal's colours around the level word (uvicorn, vLLM's coloured records)."""
    colour = {"DEBUG": 36, "INFO": 32, "WARNING": 33, "WARN": 33, "ERROR": 31, "CRITICAL": 35,
              "FATAL": 35}
    return one_to_one([LEVEL_WORD.sub(lambda m: f"\x1b[{colour[m.group(1)]}m{m.group(1)}\x1b[0m",
                                      line, 1) for line in lines])


def crlf(lines: list[str], rng: random.Random, _: Anchor) -> Moved:
    return one_to_one([line + "\r" for line in lines])


def tabs(lines: list[str], rng: random.Random, _: Anchor) -> Moved:
    """Indentation written with tabs at stops of 8 (`unexpand`, a terminal's copy). Stops of 4
    cannot be told from 8 in one line, and the reader takes a terminal's."""
    width = 8

    def tabify(line: str) -> str:
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        return "\t" * (indent // width) + " " * (indent % width) + body
    return one_to_one([tabify(line) for line in lines])


def dedent(lines: list[str], rng: random.Random, _: Anchor) -> Moved:
    """A paste that lost every line's leading whitespace (a chat, a form field)."""
    return one_to_one([line.lstrip() for line in lines])


def no_blank_lines(lines: list[str], rng: random.Random, _: Anchor) -> Moved | None:
    """A GitHub issue paste that lost its blank lines."""
    out: list[str] = []
    where: list[tuple[int, int] | None] = []
    for line in lines:
        if line.strip():
            out.append(line)
            where.append((len(out), len(out)))
        else:
            where.append(None)
    return Moved(out, where) if len(out) < len(lines) else None


def is_record(line: str) -> bool:
    """Whether a line starts a logger's record (a call site, or a time and a level: `INFO 03-24
    ... [x.py:1] `, glog's `E0101 ...`, a relay's `2024-... - INFO - `), as the grammar reads it."""
    record = parse_line(line)
    return record.site is not None or (record.time is not None and record.level is not None)


def _same_prefix(line: str) -> str:
    """The process prefix a line starts with (vLLM's or Ray's `(Name pid=N, ip=A) `), or ''."""
    match = PROCESS_PREFIX.match(line)
    return line[:match.end()] + " " if match else ""


def blank_lines(lines: list[str], rng: random.Random, _: Anchor) -> Moved | None:
    """Blank lines printed between records (a `print()` of a script, a logger's empty message,
    a paste's spacing), empty or of whitespace, behind the process prefix of the record they
    come before when it has one (the process printed them): before a few records drawn from
    the log's records (a blank line inside a traceback or a message is another text)."""
    records = [n for n, line in enumerate(lines) if n and is_record(line)]
    if not records:
        return None
    chosen = set(rng.sample(records, min(len(records), rng.randint(1, 6))))
    out: list[str] = []
    where: list[tuple[int, int] | None] = []
    for n, line in enumerate(lines):
        if n in chosen:
            prefix = _same_prefix(line)
            out.extend(prefix + rng.choice(["", " ", "  ", "\t"]) if prefix or rng.random() < 0.5
                       else rng.choice(["", "   "]) for _ in range(rng.randint(1, 3)))
        out.append(line)
        where.append((len(out), len(out)))
    return Moved(out, where)


def then(first: Transform, second: Transform) -> Transform:
    """`second` applied to what `first` made, each original line mapped through both."""
    def apply(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
        inner = first(lines, rng, anchor)
        if inner is None:
            return None
        outer = second(inner.lines, rng, anchor)
        if outer is None:
            return None
        where: list[tuple[int, int] | None] = []
        for spot in inner.where:
            if spot is None:
                where.append(None)
                continue
            ends = [outer.where[n - 1] for n in (spot[0], spot[1])]
            where.append(None if None in ends else (ends[0][0], ends[1][1]))  # type: ignore[index]
        return Moved(outer.lines, where)
    return apply


def quote(lines: list[str], rng: random.Random, _: Anchor) -> Moved:
    """A markdown quote of the log (`> ` before each line; a blank line quoted is `>` alone)."""
    return one_to_one([f"> {x}" if x else ">" for x in lines])


def wrapped_blank_lines(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
    """`blank_lines`, then the whole log (the blank lines too) behind one of the launchers'
    wrappers (LINE_WRAPPERS, drawn): a blank line a launcher or a quote prefixed reads as blank."""
    name = rng.choice(sorted(LINE_WRAPPERS))
    return then(blank_lines, LINE_WRAPPERS[name])(lines, rng, anchor)


def interleave_healthy(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
    """Another, healthy deployment's lines (its start-up, then requests) interleaved with the
    log, each keeping its order: two servers writing to one terminal or one file. Only for a
    failure something else reports: a lone error (an excerpt of one traceback) among a healthy
    server's lines is an error that server lived through (test_run_properties.py says so too)."""
    if not anchor.reported:
        return None
    server = Server(api=990_001, engine=990_101, workers=2)
    host = server.startup() + server.requests(max(40, len(lines) // 2))
    return interleave(lines, 0, host, rng)


def interleave(lines: list[str], start: int, host: list[str], rng: random.Random) -> Moved:
    """`lines` kept as they are up to `start`, then `host`'s lines dealt in among the rest,
    each side keeping its order."""
    out = lines[:start]
    where: list[tuple[int, int] | None] = [(n, n) for n in range(1, start + 1)]
    i, j = start, 0
    while i < len(lines):
        if j < len(host) and rng.random() < 0.4:
            out.append(host[j])
            j += 1
        else:
            out.append(lines[i])
            where.append((len(out), len(out)))
            i += 1
    return Moved(out + host[j:], where)


def interleave_failing(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
    """Another, healthy deployment that starts while this one fails: its start-up and requests
    interleaved from the root's first line on (its serving follows the failure: the evidence of
    survival or of a restart must be the failing deployment's own). Only for a failure something
    else reports, as for interleave_healthy."""
    if not anchor.reported or not anchor.first:
        return None
    server = Server(api=990_001, engine=990_101, workers=2)
    host = server.startup() + server.requests(max(40, (len(lines) - anchor.first) // 2))
    return interleave(lines, anchor.first - 1, host, rng)


def head_cut(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
    """A paste that starts mid-log: after the first tenth of the lines (past start-up) and
    before the root's first line. Only for a failure: a healthy log cut may lose the start-up
    that makes its errors harmless, a log without its cause may lose its symptoms."""
    if not anchor.first:
        return None
    end = anchor.first - 1
    start = max(1, len(lines) // 10)
    if end <= start:
        return None
    cut = rng.randrange(start, end + 1)
    return Moved(lines[cut:], [None] * cut + [(n, n) for n in range(1, len(lines) - cut + 1)])


def tail_cut(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
    """A paste that stops after the root's traceback (the rest seemed noise to its writer).
    Only for a failure, as for head_cut."""
    if not anchor.last:
        return None
    start = anchor.last
    if start >= len(lines) - 1:
        return None
    cut = rng.randrange(start + 1, len(lines))
    return Moved(lines[:cut], [(n, n) for n in range(1, cut + 1)] + [None] * (len(lines) - cut))


def hard_wrap(width: int) -> Transform:
    """A terminal's copy of a log it showed `width` columns wide: each longer line comes as
    pieces of `width` characters (tmux/screen copy mode, `fold -w`, a web form's hard wrap). Only
    where it cuts no line inside the root's `Type: message` head before the message starts (a
    type cut in two is a different word to any reader) and the log has at least 3 different
    lines to wrap: a lone row as wide as any other line may be a line that long, and nothing says
    where a terminal cut."""
    def apply(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
        if len({line for line in lines if len(line) > width}) < 3:
            return None
        for n in range(anchor.first, anchor.last + 1):
            for name in EXCEPTION_NAME.finditer(lines[n - 1] if n <= len(lines) else ""):
                if any(name.start() < cut < name.end() for cut in range(width, name.end(), width)):
                    return None
        return wrapped(lines, width)
    return apply


def wrapped(lines: list[str], width: int) -> Moved | None:
    """`lines` cut into rows of `width` characters, each line's rows where it was (None: no line
    is longer than `width`)."""
    out: list[str] = []
    where: list[tuple[int, int] | None] = []
    for line in lines:
        first = len(out) + 1
        out.extend([line[i:i + width] for i in range(0, len(line), width)] or [""])
        where.append((first, len(out)))
    return Moved(out, where) if len(out) > len(lines) else None


def shutdown_tail(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
    """What a server prints after its failure as it goes down: uvicorn's shutdown lines and
    Python's resource tracker warning at exit. Only for a failure (a healthy log that ends in a
    shutdown is still healthy, but that is no change of meaning to test here)."""
    if not anchor.first:
        return None
    pid = rng.randrange(100, 99999)
    tail = ["INFO:     Shutting down", "INFO:     Waiting for application shutdown.",
            "INFO:     Application shutdown complete.", f"INFO:     Finished server process [{pid}]",
            "/usr/lib/python3.12/multiprocessing/resource_tracker.py:254: UserWarning: "
            "resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at "
            "shutdown", "  warnings.warn('resource_tracker: There appear to be %d '"]
    return Moved(lines + tail, [(n, n) for n in range(1, len(lines) + 1)])


def healthy_run_before(lines: list[str], rng: random.Random, anchor: Anchor) -> Moved | None:
    """A log that first holds an earlier, healthy run of another deployment (it started, served,
    was stopped with SIGTERM), then this log: a file appended to across restarts. Only for a log
    that shows its own start of vLLM (a start marker of causality.yaml): an excerpt without one
    after another run's stop may be that run's shutdown, whose errors are the stop's."""
    if not any(_START_MARKER(line) is not None for line in lines):
        return None
    # New Year's day: the earlier run's times do not run past any log's own (a clock that goes
    # back is no restart)
    server = Server(api=990_001, engine=990_101, workers=2, day="01-01")
    earlier = server.startup() + server.requests(rng.randrange(5, 30)) + server.sigterm()
    shift = len(earlier)
    return Moved(earlier + lines, [(n + shift, n + shift) for n in range(1, len(lines) + 1)])


# The wrappers a launcher, a log viewer or a paste puts before every line of a log (the grammar
# strips each: grammars/vllm.lark's outer wrappers)
LINE_WRAPPERS: dict[str, Transform] = {
    "docker-timestamps": per_line(docker_time),
    "compose": per_line(lambda rng, n: "vllm-1  | "),
    "compose-wide": per_line(lambda rng, n: "inference-server-1  | "),
    "kubectl-prefix": per_line(lambda rng, n: "[pod/vllm-7d9f8b6c4-x2x9q/vllm] "),
    "journald": per_line(journald("gpu-node-1", "vllm", 8052)),
    "journald-docker": per_line(journald("ip-10-0-3-17", "dockerd", 1187)),
    "cri": cri,
    "srun-label": per_line(lambda rng, n: "0: "),
    # a line's number as grep -n (matches a few lines apart) and cat -n
    # print it before each line
    "grep-n": per_line(lambda rng, n: f"{3 * n + 1}:"),
    "cat-n": per_line(lambda rng, n: f"{n + 1:6d}\t"),
    "markdown-quote": quote,
}

TRANSFORMS: dict[str, Transform] = {
    **LINE_WRAPPERS,
    "ray-worker": ray_relay(named=True),
    "ray-worker-unnamed": ray_relay(named=False),
    "blank-lines": blank_lines,
    "blank-lines-wrapped": wrapped_blank_lines,
    "ansi-levels": ansi_levels,
    "crlf": crlf,
    "tabs": tabs,
    "dedent": dedent,
    "no-blank-lines": no_blank_lines,
    "interleave-healthy": interleave_healthy,
    "interleave-failing": interleave_failing,
    "head-cut": head_cut,
    "tail-cut": tail_cut,
    "hard-wrap-80": hard_wrap(80),
    "hard-wrap-120": hard_wrap(120),
    "hard-wrap-200": hard_wrap(200),
    "shutdown-tail": shutdown_tail,
    "healthy-run-before": healthy_run_before,
}


@dataclass(frozen=True)
class Answer:
    """What the check holds a report to."""

    verdict: str
    exception: str
    message: str
    process: str
    line: int  # 0 without a root
    signature: str


def answer_of(report: dict[str, Any]) -> Answer:
    root = report.get("root_cause") or {}
    message = " ".join(str(root.get("message") or "").split("\n", 1)[0].split())[:120]
    return Answer(str(report.get("verdict", "")), str(root.get("exception") or ""), message,
                  str((root.get("process") or {}).get("name") or ""), int(root.get("line") or 0),
                  str((report.get("signature") or {}).get("id") or ""))


def differences(reference: Answer, got: Answer, moved: Moved, unnamed: bool = False) -> list[str]:
    """What about the transformed report differs from the reference (empty when it keeps it):
    `verdict`, `root` (exception or message), `line`, `process`, `signature`."""
    found = []
    if got.verdict != reference.verdict:
        return ["verdict"]
    if not reference.exception:
        return []
    if (got.exception, got.message) != (reference.exception, reference.message):
        found.append("root")
    target = moved.where[reference.line - 1] if reference.line else None
    if target is not None and not target[0] <= got.line <= target[1]:
        found.append("line")
    # a process is compared where the transform keeps its name (Ray's unnamed relay drops it)
    if reference.process and got.process != reference.process and not unnamed:
        found.append("process")
    if got.signature != reference.signature:
        found.append("signature")
    return found
