"""What a paste does to a log on its way to an issue, one perturbation at a time (issues 10, 11).

Each perturbation rewrites a signature's positive example the way a reporter's paste, a terminal,
a tracker or another launcher does, and must leave logsleuth's answer (signature id, verdict)
as it was. Every one is a function of the example's lines and a seeded random source, never of
one example. Used by tests/test_s34_paste_perturbations.py (a hypothesis sample) and
tools/paste_sweep/sweep.py (the count over every example).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path

import metamorphic
from metamorphic import Anchor, Transform

from logsleuth.resources import data_dir

Perturbation = Callable[[list[str], random.Random], "list[str] | None"]

FRAME = re.compile(r'^(?P<lead>.*?)File "[^"]+", line \d+, in \S+\s*$')
TRACEBACK_HEAD = re.compile(r"Traceback \(most recent call last\):\s*$")
# the exception line a traceback ends with: its prefix, a dotted class, its message
ENDING = re.compile(r"^(?P<lead>.*?)(?P<cls>\b(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception))"
                    r"(?P<rest>(?::\s.*)?)$")
# a class's module as vLLM's tracebacks print it, for a class printed without one
KNOWN_MODULES = {"OutOfMemoryError": "torch", "AcceleratorError": "torch",
                 "HFValidationError": "huggingface_hub.errors",
                 "ValidationError": "pydantic_core._pydantic_core",
                 "RayTaskError": "ray.exceptions", "NcclError": "torch.distributed"}


def _lines(transform: Transform) -> Perturbation:
    """A whole-log transform of tests/metamorphic.py that moves no line, as a perturbation (None
    where it changes nothing)."""
    def apply(lines: list[str], rng: random.Random) -> list[str] | None:
        moved = transform(lines, rng, Anchor(0, 0))
        return None if moved is None or moved.lines == lines else moved.lines
    return apply


crlf = _lines(metamorphic.crlf)
quote = _lines(metamorphic.quote)  # a markdown quote
ansi_levels = _lines(metamorphic.ansi_levels)  # a terminal's colours around the level word


def trailing_spaces(lines: list[str], rng: random.Random) -> list[str]:
    """A tracker's or an editor's trailing blanks after every line (one to four)."""
    return [line + " " * rng.randrange(1, 5) if line else line for line in lines]


def indent(lines: list[str], rng: random.Random) -> list[str]:
    """A common indentation (a markdown list item's or a code block's in a comment)."""
    pad = rng.choice(["  ", "    ", "\t"])
    return [pad + line if line else line for line in lines]


def gutter(lines: list[str], rng: random.Random) -> list[str]:
    """A log viewer's gutter kept by the copy (`  | `, grammars/vllm.lark's MARGIN)."""
    return ["  | " + line for line in lines]


def elision(lines: list[str], rng: random.Random) -> list[str] | None:
    """A `...` line where the reporter dropped frames (after a frame's source line), in the
    frames' own prefix."""
    frames = [n for n, line in enumerate(lines) if FRAME.match(line)]
    if len(frames) < 2:
        return None
    n = rng.choice(frames[:-1])
    lead = FRAME.match(lines[n])["lead"]  # type: ignore[index]
    at = n + 1 if n + 1 < len(lines) and not FRAME.match(lines[n + 1]) else n
    return lines[:at + 1] + [lead + "..."] + lines[at + 1:]


def frames_cut(lines: list[str], rng: random.Random) -> list[str] | None:
    """The traceback's header and frames cut: its exception lines alone are left (a reporter
    who kept the last lines). Frames and source lines are those indented deeper than the
    header's own text, so a traceback a subprocess printed under pip's indentation keeps its
    exception line; a traceback with no exception line to keep (cut before it) is no such
    paste."""
    if not any(TRACEBACK_HEAD.search(line) for line in lines):
        return None
    out: list[str] = []
    lead: str | None = None  # the header's text before `Traceback`, while skipping its frames
    for line in lines:
        found = TRACEBACK_HEAD.search(line)
        if found:
            if lead is not None:
                return None  # a header right after frames: that traceback kept no ending
            lead = line[:found.start()]
            continue
        if lead is not None:
            body = _body(line, lead)
            if FRAME.match(line) or body.startswith(" "):
                continue  # a frame, its source line or its caret row
            if not body.strip():
                return None  # the frames end without an exception line
        lead = None
        out.append(line)
    if lead is not None:
        return None
    return out if out != lines else None


_RECORD_HEAD = re.compile(r"^(?:\(.*?pid=\d+.*?\) )?(?:\[rank\d+\]: )?(?:(?:ERROR|INFO|WARNING) "
                          r"\d\d-\d\d [\d:]+ \[[\w.]+:\d+\] )?")


def _body(line: str, lead: str) -> str:
    """A traceback's line without the header's prefix (or, where the prefix moved on, a vLLM
    record head)."""
    return line[len(lead):] if line.startswith(lead) else _RECORD_HEAD.sub("", line)


def frames_evidence(signature_id: str, lines: list[str]) -> str | None:
    """Why cutting a traceback's frames destroys the evidence the example's answer rests on, or
    None: its signature reads the frames (`match.frames`: the call path; `match.module`: the
    module that raised it, the innermost frame; `match.phase`: the lifecycle phase, often read
    from the frames), or the exception printed no message (a bare `AssertionError`: its words
    were the failing frame's source line)."""
    from logsleuth.signatures import default_signatures

    signature = default_signatures().get(signature_id)
    if signature is not None and (signature.frames or signature.modules or signature.phases):
        return "reads the frames"
    for n, line in enumerate(lines[1:], start=1):
        ending = ENDING.match(line)
        # right after a frame or its source line: the traceback's own ending
        if ending and not ending["rest"] and any(FRAME.match(before)
                                                 for before in lines[max(0, n - 2):n]):
            return "a bare class"
    return None


def ruled_out_by_frames(text: str, signature_id: str | None) -> bool:
    """Whether, in the whole log `text`, the signature an excerpt without the frames answers was
    ranked down by the frames (its call path, raising module or phase seen to differ): the frames
    were the evidence against it, and with them cut its more specific words rightly answer."""
    from logsleuth.pipeline import explain_text
    from logsleuth.signatures import default_signatures

    report = explain_text(text, signatures=default_signatures())
    return any(match.id == signature_id and any(
        e.part in ("frames", "module", "phase") and e.score < 1.0 for e in match.evidence)
        for match in report.alternatives)


def _last_ending(lines: list[str]) -> int | None:
    for n in range(len(lines) - 1, -1, -1):
        if ENDING.match(lines[n]) and ":" in lines[n]:
            return n
    return None


def dotted(lines: list[str], rng: random.Random) -> list[str] | None:
    """The final exception's module path added (a known class) or removed (`torch.X` <-> `X`)."""
    n = _last_ending(lines)
    if n is None:
        return None
    m = ENDING.match(lines[n])
    assert m is not None
    cls = m["cls"]
    if "." in cls:
        new = cls.rsplit(".", 1)[1]
    elif cls in KNOWN_MODULES:
        new = f"{KNOWN_MODULES[cls]}.{cls}"
    else:
        return None
    return lines[:n] + [m["lead"] + new + m["rest"]] + lines[n + 1:]


# a worker's error: its process prefix or its frames
_WORKER = re.compile(r"\((?:Vllm|Ray)?Worker|worker_busy_loop|/worker/|rank=\d")


def worker_wrapper(lines: list[str], rng: random.Random) -> list[str] | None:
    """The last line's `Type: message` of a worker's error restated by the executor's wrapper that quotes str(e) alone:
    `RuntimeError: Worker failed with error 'message', please check the stack trace above for
    the root cause`, after the worker's own traceback (vLLM's multiproc executor)."""
    n = len(lines) - 1
    m = ENDING.match(lines[n])
    if m is None or not _WORKER.search("\n".join(lines)):
        return None  # a wrapper of a worker's error that the example's last line states
    message = m["rest"][2:] if m["rest"].startswith(": ") else ""
    if not message:
        return None
    wrapper = (f"{m['lead']}RuntimeError: Worker failed with error '{message}', please check "
               "the stack trace above for the root cause")
    return lines[:n + 1] + [wrapper]


_PID = re.compile(r"\bpid=(\d+)")


def ray_task_wrapper(lines: list[str], rng: random.Random) -> list[str] | None:
    """A worker's last traceback raised again in a Ray driver that called the worker as a task
    (`ray.get`): the driver's traceback ends in `ray.exceptions.RayTaskError(<class>):
    ray::RayWorkerWrapper.execute_method() (pid=N, ...)`, which prints the remote frames and
    exception under it (Ray's exceptions.py), N the pid of the process that raised it."""
    heads = [n for n, line in enumerate(lines) if TRACEBACK_HEAD.search(line)]
    end = _last_ending(lines)
    if not heads or end is None or end < heads[-1] or not _WORKER.search("\n".join(lines)):
        return None  # Ray's worker wrapper re-raises a worker's error, not a server's request's
    head = heads[-1]
    lead = lines[head][:TRACEBACK_HEAD.search(lines[head]).start()]  # type: ignore[union-attr]
    body = [line[len(lead):] if line.startswith(lead) else line for line in lines[head + 1:end + 1]]
    ending = ENDING.match(body[-1])
    if ending is None or ending["lead"].strip():
        return None  # the exception line is not at the traceback's column
    pid = _PID.search(lines[end])
    carrier = (f"ray.exceptions.RayTaskError({ending['cls'].rsplit('.', 1)[-1]}): "
               f"ray::RayWorkerWrapper.execute_method() (pid={pid[1] if pid else 4100 + rng.randrange(900)}, "
               f"ip=10.0.0.{rng.randrange(2, 250)}, actor_id={rng.randrange(16**8):08x})")
    driver = ["Traceback (most recent call last):",
              '  File "/app/driver.py", line 12, in <module>', "    outputs = ray.get(refs)",
              '  File "/usr/lib/python3.12/site-packages/ray/_private/worker.py", line 2771, in get',
              "    raise value.as_instanceof_cause()", carrier]
    return lines + driver + [line for line in body if not line.startswith("Traceback")]


def _prefix(make: Callable[[random.Random, int], str]) -> Perturbation:
    return lambda lines, rng: [make(rng, n) + line for n, line in enumerate(lines)]


PREFIXES: dict[str, Perturbation] = {
    "docker-timestamps": _prefix(metamorphic.docker_time),
    "compose": _prefix(lambda rng, n: "vllm-1  | "),
    "kubectl-prefix": _prefix(lambda rng, n: "[pod/vllm-7d9f8b6c4-x2x9q/vllm] "),
    "srun-label": _prefix(lambda rng, n: "0: "),
    "journald": _prefix(metamorphic.journald("gpu-node-1", "vllm", 8052)),
}


def launcher(lines: list[str], rng: random.Random) -> list[str]:
    """Another launcher's or era's prefix before every line (tests/metamorphic.py's wrappers)."""
    return PREFIXES[rng.choice(sorted(PREFIXES))](lines, rng) or lines


PERTURBATIONS: dict[str, Perturbation] = {
    "crlf": crlf,
    "trailing-spaces": trailing_spaces,
    "markdown-quote": quote,
    "indent": indent,
    "ansi-levels": ansi_levels,
    "gutter": gutter,
    "elision": elision,
    "frames-cut": frames_cut,
    "dotted-name": dotted,
    "worker-wrapper": worker_wrapper,
    "ray-task-wrapper": ray_task_wrapper,
    "launcher-prefix": launcher,
}


def combined(names: list[str]) -> Perturbation:
    """The named perturbations applied in turn (one that does not apply is skipped)."""
    def apply(lines: list[str], rng: random.Random) -> list[str] | None:
        out, changed = lines, False
        for name in names:
            new = PERTURBATIONS[name](out, rng)
            if new is not None:
                out, changed = new, True
        return out if changed else None
    return apply


@cache
def positive_examples() -> tuple[tuple[str, Path], ...]:
    """(signature id, example path) of every signature's positive example log."""
    found = []
    for log in sorted(Path(data_dir("signatures")).rglob("*.log")):
        if log.name.endswith(".negative.log"):
            continue
        sid = log.name.split(".", 1)[0]
        found.append((sid, log))
    return tuple(found)


# a function of the text alone (the shipped database, loaded once): each test of
# test_s34_paste_perturbations asks it of the unperturbed example first, and hypothesis
# (derandomized) draws the same examples for each of the perturbations, so the base answer of one
# example is explained once per process instead of once per perturbation that drew it
@lru_cache(maxsize=4096)
def answer(text: str) -> tuple[str | None, str]:
    """(signature id, verdict) logsleuth gives a log."""
    from logsleuth.pipeline import explain_text
    from logsleuth.signatures import default_signatures

    report = explain_text(text, signatures=default_signatures())
    return (None if report.signature is None else report.signature.id), str(report.verdict)


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").rstrip("\n").split("\n")


def joined(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"

