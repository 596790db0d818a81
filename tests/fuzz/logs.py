"""Hypothesis strategies for log-shaped bytes, shared by the property tests and the fuzz harness.

Real lines from the copied corpus are the raw material: mutated, cut, re-encoded and mixed with
arbitrary bytes they reach the grammar's corners far faster than random text would.
"""

from __future__ import annotations

import gzip
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import strategies as st

TESTS = Path(__file__).resolve().parent.parent
CORPUS = TESTS / "fixtures" / "corpus"
ANSI = ("\x1b[31m", "\x1b[0m", "\x1b[1;33m", "\x1b[2K", "^[[32m", "ESC[0m", "\x1b[?25h")
NOISE = ("INFO 01-01 00:00:00 [logger.py:1] noise line",
         "(APIServer pid=1) DEBUG 01-01 00:00:00 [x.py:2] heartbeat",
         "Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01]",
         "WARNING 01-01 00:00:00 [y.py:3] something harmless",
         "", "    indented text", "random words without structure")


@cache
def corpus_lines() -> tuple[str, ...]:
    """Distinct lines of every corpus log, a few thousand."""
    seen: dict[str, None] = {}
    for path in sorted(CORPUS.glob("*/*/log.txt")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            seen.setdefault(line[:2000], None)
    return tuple(seen)


@cache
def report_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((TESTS / "report.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def check_report(data: dict[str, Any], line_count: int) -> None:
    """The report validates against the contract and its line numbers point inside the input."""
    report_validator().validate(data)
    assert data["lines_read"] == line_count, (data["lines_read"], line_count)
    for event in [data["root_cause"], *data["symptoms"]]:
        if event:
            assert 1 <= event["first_line"] <= event["line"] <= event["last_line"] \
                <= max(line_count, 1), event


def line_count(data: bytes) -> int:
    """Lines as `grep -c ''` counts them: `\\n`-terminated, plus an unterminated last one."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _mutate(draw: st.DrawFn, line: str) -> bytes:
    choice = draw(st.integers(0, 9))
    raw = line.encode("utf-8", "surrogateescape")
    if choice == 0 and raw:
        return raw[: draw(st.integers(0, len(raw)))]  # cut
    if choice == 1:
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.binary(max_size=8)) + raw[at:]  # inserted bytes
    if choice == 2:
        return f"{draw(st.sampled_from(ANSI))}{line}{draw(st.sampled_from(ANSI))}".encode()
    if choice == 3:
        return raw + b"\r"  # CRLF once joined
    if choice == 4:
        return raw.replace(b" ", b"\r", 1)  # a progress-bar overwrite
    if choice == 5:
        return draw(st.text(max_size=60)).encode("utf-8", "surrogatepass")
    return raw


@st.composite
def log_bytes(draw: st.DrawFn, max_lines: int = 40) -> bytes:
    """A log: mostly real corpus lines, mutated, in any order, in any of a few encodings."""
    pool = corpus_lines()
    # indexes, not sampled_from: hypothesis checks every element of a big sampled_from per draw
    lines = [pool[i] for i in draw(st.lists(st.integers(0, len(pool) - 1), max_size=max_lines))]
    body = b"\n".join(_mutate(draw, line) for line in lines)
    if draw(st.booleans()):
        body += b"\n"
    wrapper = draw(st.integers(0, 19))
    if wrapper == 0:
        return draw(st.binary(max_size=400))  # plain garbage
    if wrapper == 1:
        packed = gzip.compress(body)
        return packed[: draw(st.integers(0, len(packed)))]  # gzip, possibly cut
    if wrapper == 2:
        return b"\xff\xfe" + body.decode("utf-8", "replace").encode("utf-16-le")
    return body


def random_log(rng: random.Random, max_lines: int = 30) -> bytes:
    """As `log_bytes`, from a seeded generator: a tenth of hypothesis's drawing cost, so the fuzz
    harness reaches ten thousand cases a minute; a failing seed reproduces its log exactly."""
    pool = corpus_lines()
    lines: list[bytes] = []
    for _ in range(rng.randint(0, max_lines)):
        line = pool[rng.randrange(len(pool))]
        raw = line.encode("utf-8", "surrogateescape")
        choice = rng.randrange(10)
        if choice == 0 and raw:
            raw = raw[: rng.randint(0, len(raw))]
        elif choice == 1:
            at = rng.randint(0, len(raw))
            raw = raw[:at] + rng.randbytes(rng.randint(1, 8)) + raw[at:]
        elif choice == 2:
            raw = f"{rng.choice(ANSI)}{line}{rng.choice(ANSI)}".encode()
        elif choice == 3:
            raw += b"\r"
        elif choice == 4:
            raw = raw.replace(b" ", b"\r", 1)
        elif choice == 5:
            raw = rng.choice(NOISE).encode()
        lines.append(raw)
    body = b"\n".join(lines) + (b"\n" if rng.random() < 0.5 else b"")
    wrapper = rng.randrange(20)
    if wrapper == 0:
        return rng.randbytes(rng.randint(0, 400))
    if wrapper == 1:
        packed = gzip.compress(body)
        return packed[: rng.randint(0, len(packed))]
    if wrapper == 2:
        return b"\xff\xfe" + body.decode("utf-8", "replace").encode("utf-16-le")
    return body
