"""The real logs a per-line reference check reads: every corpus log and a chosen subset of the
tuning logs, chosen so that every line shape the tuning set holds is still read.

A reference check reads a whole log a second time by another path and compares the two line by
line or report by report (test_replay: replayed runs against every line read; test_recur:
folded copies against every event kept; test_linememo: a shape's plan against parse_split;
test_fastpath: the quick screen against `re`; test_locate: stretches against each line asked).
On all 1,100 tuning logs they were ~225 CPU-s (session 33, load ~9), a sixth of the suite, and
most logs add no line shape the others lack (a vLLM 0.10 server's start-up and requests look
alike in fifty logs). The rule, applied to the shapes
`line_shapes(log)` finds among the lines the tokenizer anchors (a line's kind, level, process
prefix, wrapper and header time masked of their digits and words, chain, exception, call site,
group depth and relay; a replayed run or record):

- every log holding a shape that fewer than RARE tuning logs hold (a shape few logs hold is
  read in each of them);
- every log the manifest does not know or knows at another size (a new or changed case is read
  until the manifest is made again);
- every STRIDE-th of the others by sorted path, so the common shapes are read in many logs and
  eras, not only their first;
- and for a shape none of those holds, the first log (by sorted path) that holds it.

The shapes of each tuning log are kept in tests/reference_shapes.json, made by
`python tools/reference_logs/manifest.py` (which reads every tuning log once); tests/
test_reference_logs.py checks that the chosen logs hold every shape the manifest holds and that
the manifest's shapes are what `line_shapes` finds now on a sample of logs.
`LOGSLEUTH_REFERENCE=all` reads every tuning log (the full check, on demand).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from corpus_judge import TUNING_DIR, iter_logs

MANIFEST = Path(__file__).parent / "reference_shapes.json"
RARE = 4  # a shape fewer tuning logs than this hold keeps each of them
STRIDE = 8  # and one of every STRIDE of the others
EVERY = "LOGSLEUTH_REFERENCE"  # =all: every tuning log

_DIGITS = re.compile(r"\d+")
_WORDS = re.compile(r"[A-Za-z_]+")


def _mask(text: str | None) -> str:
    """A wrapper's or a time's form: digits and words masked (`[2025-07-09T23:17:11Z]` ->
    `[0-0-0a0:0:0a]`), so that two logs' wrappers of one kind are one shape."""
    if text is None:
        return "-"
    return _WORDS.sub("a", _DIGITS.sub("0", text))[:24]


def line_shape(line: object) -> str:
    """A LogLine's shape: what decides which path of the tokenizer and the assembler reads it."""
    from logsleuth.model import LogLine

    assert isinstance(line, LogLine)
    process = line.process
    prefix = ("main" if process.name == "main" else
              "ip" if process.ip else "pid" if process.pid is not None else "name")
    return "|".join((line.kind.value, line.level.name if line.level else "-", prefix,
                     _mask(line.outer), _mask(line.time), line.chain.value if line.chain else "-",
                     "exc" if line.exception else "-", "site" if line.site else "-",
                     str(min(line.depth, 2)), "relayed" if line.relayed else "-"))


def line_shapes(log: Path) -> frozenset[str]:
    """Every shape among a log's anchored lines, as the tokenizer reads it with runs; `run` and
    `record` when it replays a repeated record (LineRun, RecordRun)."""
    from logsleuth.model import LineRun, RecordRun
    from logsleuth.read import open_input
    from logsleuth.tokenize import tokenize_runs

    shapes: set[str] = set()
    for item in tokenize_runs(open_input(log).blocks()):
        if isinstance(item, RecordRun):
            shapes.add("record")
        elif isinstance(item, LineRun):
            shapes.add("run")
        else:
            shapes.add(line_shape(item))
    return frozenset(shapes)


def tuning_logs() -> list[Path]:
    """Every tuning log, sorted (as corpus_and_tuning_logs lists them)."""
    return sorted(TUNING_DIR.glob("*/*/log.txt"))


def case_name(log: Path) -> str:
    """A tuning log's name in the manifest: `group/case`."""
    return f"{log.parent.parent.name}/{log.parent.name}"


@functools.cache
def manifest() -> Mapping[str, tuple[int, frozenset[str]]]:
    """The manifest: a tuning case's name -> (its log's size, its shapes)."""
    if not MANIFEST.exists():
        return {}
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    table = data["shapes"]
    return {name: (entry["size"], frozenset(table[i] for i in entry["shapes"]))
            for name, entry in data["logs"].items()}


def choose(logs: Iterable[Path], known: Mapping[str, tuple[int, frozenset[str]]]) -> list[Path]:
    """The rule above, over `logs` (sorted) and the manifest `known`."""
    logs = sorted(logs)
    current = {log: known.get(case_name(log)) for log in logs}
    current = {log: entry if entry and entry[0] == log.stat().st_size else None
               for log, entry in current.items()}
    held = Counter(shape for entry in current.values() if entry for shape in entry[1])
    chosen, others = [], []
    for log, entry in current.items():
        if entry is None or any(held[shape] < RARE for shape in entry[1]):
            chosen.append(log)
        else:
            others.append(log)
    chosen += others[::STRIDE]
    read = {shape for log in chosen if current[log] for shape in current[log][1]}
    for log in others:  # a shape that neither kept: its first log
        entry = current[log]
        assert entry is not None
        if not entry[1] <= read:
            chosen.append(log)
            read |= entry[1]
    return sorted(set(chosen))


def chosen_tuning_logs() -> list[Path]:
    """The tuning logs a reference check reads: all with LOGSLEUTH_REFERENCE=all."""
    if os.environ.get(EVERY) == "all":
        return tuning_logs()
    return choose(tuning_logs(), manifest())


def reference_logs() -> list[Path]:
    """Every corpus log, then the chosen tuning logs (corpus_and_tuning_logs, when all)."""
    return [*iter_logs(), *chosen_tuning_logs()]
