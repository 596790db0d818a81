"""Properties that hold for any input (hypothesis): nothing raises, the report keeps its contract,
line numbers point inside the input, and a real failure's root cause survives noise."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.logs import ANSI, NOISE, check_report, line_count, log_bytes
from logsleuth.assemble import assemble
from logsleuth.cli import main
from logsleuth.model import ErrorEvent
from logsleuth.pipeline import explain
from logsleuth.read import LogInput, open_input
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import TokenizeStats, parse_line, tokenize

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
FORK = CORPUS / "startup" / "fork-cuda-reinit-multiproc" / "log.txt"
SEED = CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt"
FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PREFIX = re.compile(r"^\((?P<name>[^()]*?) pid=(?P<pid>\d+)(?:, ip=[^)]*)?\) ")


def _explain_bytes(data: bytes) -> dict[str, object]:
    return report_to_dict(explain(io.BytesIO(data), signatures=default_signatures(), name="fuzz"))


# ---- nothing raises ---------------------------------------------------------------------------------

@FAST
@given(st.text(max_size=300))
def test_parse_line_never_raises(text: str) -> None:
    line = parse_line(text, 7)
    assert line.number == 7


@FAST
@given(st.binary(max_size=2000), st.integers(1, 3))
def test_tokenize_numbers_stay_inside_the_input(data: bytes, pieces: int) -> None:
    # any split into blocks that end on line breaks, as the reader makes them
    cuts = sorted({m.end() for m in re.finditer(rb"\n", data)})[:: max(1, pieces)]
    blocks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)]) if data[a:b]]
    stats = TokenizeStats()
    numbers = [line.number for line in tokenize(blocks, stats)]
    assert stats.lines == line_count(data)
    assert numbers == sorted(numbers)
    assert all(1 <= n <= stats.lines for n in numbers)


@FAST
@given(log_bytes())
def test_assemble_never_raises_and_events_point_inside(data: bytes) -> None:
    stats = TokenizeStats()
    events = list(assemble(tokenize(open_input(io.BytesIO(data)).blocks(), stats)))
    for event in events:
        if isinstance(event, ErrorEvent):
            assert 1 <= event.first_line <= event.line <= event.last_line <= stats.lines


@FAST
@given(log_bytes())
def test_explain_report_keeps_the_contract(data: bytes) -> None:
    log = open_input(io.BytesIO(data))
    report = report_to_dict(explain(log, signatures=default_signatures()))
    check_report(report, _lines_of(data))


def _lines_of(data: bytes) -> int:
    """The line count of what the reader hands on (gzip and UTF-16 decoded, long lines cut)."""
    return line_count(b"".join(open_input(io.BytesIO(data)).blocks()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log_bytes(max_lines=20))
def test_cli_exits_0_1_or_3_with_a_valid_report(data: bytes) -> None:
    result = CliRunner().invoke(main, ["explain", "--format", "json", "-"], input=data)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    report = json.loads(result.stdout)
    check_report(report, _lines_of(data))
    if not report["recognised"]:  # nothing in it looked like log output: never "healthy" (0)
        assert result.exit_code == 3 and report["verdict"] == "no_failure"
    else:
        assert result.exit_code == (0 if report["verdict"] == "no_failure" else 1)


@FAST
@given(st.binary(max_size=3000), st.integers(1, 64))
def test_line_cap_matches_a_plain_reference(data: bytes, limit: int) -> None:
    log = LogInput("x", io.BytesIO(data), max_line_bytes=limit)
    out = b"".join(log.blocks())
    expected = b"\n".join(_cut(line, limit) for line in data.split(b"\n"))
    assert out == expected


def _cut(line: bytes, limit: int) -> bytes:
    """A line cut to `limit` bytes, or a terminal's redrawn line to its last drawing (from its
    last `\r`, one that ends the line aside) when that fits (read.py `last_drawing`)."""
    if len(line) <= limit:
        return line
    last = line.rfind(b"\r", 0, len(line) - 1 if line.endswith(b"\r") else len(line))
    return line[last:] if last >= 0 and len(line) - last <= limit else line[:limit]


@FAST
@given(st.lists(st.sampled_from([b"x", b"ab", b"\r", b"\r\n", b"\n", b"12345"]), max_size=400),
       st.integers(1, 64), st.integers(1, 50))
def test_line_cap_is_the_same_across_block_bounds(parts: list[bytes], limit: int,
                                                  block: int) -> None:
    # a line cut inside one block or across several (read.py's `skipping`) keeps the same bytes
    data = b"".join(parts)
    log = LogInput("x", _Chunked(data, block), max_line_bytes=limit)
    assert b"".join(log.blocks()) == b"\n".join(_cut(line, limit) for line in data.split(b"\n"))


class _Chunked(io.BytesIO):
    """A stream that hands out at most `block` bytes a read, whatever is asked."""

    def __init__(self, data: bytes, block: int) -> None:
        super().__init__(data)
        self._block = block

    def read(self, size: int | None = -1) -> bytes:
        return super().read(self._block)


# ---- the root cause survives noise --------------------------------------------------------------

def _root(text: str) -> tuple[str, str]:
    report = explain(io.BytesIO(text.encode("utf-8", "surrogateescape")),
                     signatures=default_signatures())
    assert report.root_cause is not None, report
    return report.root_cause.exception, report.root_cause.message.splitlines()[0]


FORK_TEXT = FORK.read_text(encoding="utf-8")
SEED_TEXT = SEED.read_text(encoding="utf-8")
KNOWN = {FORK: _root(FORK_TEXT), SEED: _root(SEED_TEXT)}
REAL = st.sampled_from(sorted(KNOWN))


@settings(max_examples=25, deadline=None)
@given(REAL, st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(NOISE)), max_size=30))
def test_root_cause_survives_noise_lines(path: Path, noise: list[tuple[int, str]]) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    for position, text in noise:
        lines.insert(position % (len(lines) + 1), text)
    assert _root("\n".join(lines) + "\n") == KNOWN[path]


@settings(max_examples=10, deadline=None)
@given(REAL, st.integers(0, 2**32))
def test_root_cause_survives_crlf_and_ansi(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = path.read_text(encoding="utf-8").splitlines()
    coloured = [f"{rng.choice(ANSI)}{line}\x1b[0m" if rng.random() < 0.5 else line
                for line in lines]
    assert _root("\r\n".join(coloured) + "\r\n") == KNOWN[path]


@settings(max_examples=25, deadline=None)
@given(REAL, st.integers(0, 2**32))
def test_root_cause_survives_another_interleaving(path: Path, seed: int) -> None:
    """Each process keeps its own order; how the processes' lines interleave changes."""
    rng = random.Random(seed)
    streams: dict[str, list[str]] = {}
    order: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        found = PREFIX.match(line)
        key = found.group("pid") if found else "main"
        streams.setdefault(key, []).append(line)
        order.append(key)
    rng.shuffle(order)  # the same number of turns per process, in another order
    cursors = {key: iter(lines) for key, lines in streams.items()}
    shuffled = [next(cursors[key]) for key in order]
    exception, message = _root("\n".join(shuffled) + "\n")
    assert (exception, message) == KNOWN[path]
