"""Every command reads a log through the one read stage and numbers its lines as the file's
(pipeline.read_events, pipeline.pictured, pipeline.in_file, inputorder.FileLines): `explain`,
its HTML pictures, `graph`, `timeline` and `--follow` name the same root, at the same line and
span, on a generated log as it was printed, hard-wrapped at a width (rows a terminal's copy
cut) and downloaded newest line first (a log console's download).
"""

from __future__ import annotations

import io
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from metamorphic import wrapped
from scenario_logs import ILLEGAL_ACCESS, OUT_OF_VOCAB, Server

from logsleuth.cli import main
from logsleuth.cli.graph import analyse
from logsleuth.follow import follow
from logsleuth.inputorder import in_input_order
from logsleuth.model import ErrorEvent, Report, Verdict
from logsleuth.pipeline import explain, parse
from logsleuth.read import open_input
from logsleuth.render.markdown import source_lines
from logsleuth.signatures import default_signatures

FAILURES = ["illegal access", "free memory", "out of vocabulary"]
LAYOUTS = ["as printed", "wrapped", "newest first"]


def _log(kind: str, served: int, rng: random.Random) -> list[str]:
    server = Server(api=rng.randrange(100, 90000), engine=rng.randrange(100, 90000),
                    workers=rng.randint(2, 4))
    lines = server.startup()
    if kind == "free memory":
        return lines + server.free_memory_startup_failure()
    lines += server.requests(served)
    if kind == "illegal access":
        return lines + (server.worker_runtime_error(1, ILLEGAL_ACCESS)
                        + server.engine_wrapper(ILLEGAL_ACCESS) + server.engine_dead())
    return lines + server.engine_error(OUT_OF_VOCAB) + server.engine_dead()


def _laid_out(lines: list[str], layout: str, width: int) -> tuple[list[str], Any]:
    """The file's lines, and for each line printed the (first, last) rows it is in the file."""
    if layout == "wrapped":
        moved = wrapped(lines, width)
        assume(moved is not None and len({line for line in lines if len(line) > width}) >= 3)
        assert moved is not None
        return moved.lines, moved.where
    if layout == "newest first":
        count = len(lines)
        return lines[::-1], [(count - n, count - n) for n in range(count)]
    return lines, [(n + 1, n + 1) for n in range(len(lines))]


def _span(event: ErrorEvent) -> tuple[int, int, int]:
    return event.line, event.first_line, event.last_line


def _check_layout(path: Path, layout: str) -> bool:
    """Whether the reader read the file as laid out (a wrap too few rows show is read row by
    row, as the rows it has: nothing to compare then)."""
    log = open_input(path)
    try:
        return {"wrapped": log.rows is not None, "newest first": log.last_line_first,
                "as printed": log.rows is None and not log.last_line_first}[layout]
    finally:
        log.close()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(FAILURES), st.integers(0, 30), st.sampled_from(LAYOUTS),
       st.integers(60, 160), st.randoms(use_true_random=False))
def test_every_command_names_the_same_root_at_the_same_rows(
        tmp_path: Path, kind: str, served: int, layout: str, width: int,
        rng: random.Random) -> None:
    printed = _log(kind, served, rng)
    lines, where = _laid_out(printed, layout, width)
    path = tmp_path / f"{layout.replace(' ', '-')}-{width}.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assume(_check_layout(path, layout))
    plain = tmp_path / "printed.log"
    plain.write_text("\n".join(printed) + "\n", encoding="utf-8")
    signatures = default_signatures()
    original = explain(str(plain), signatures=signatures)
    report = explain(str(path), signatures=signatures)
    assert original.root_cause is not None and report.root_cause is not None
    assert report.lines_read == len(lines)
    assert report.root_cause.exception == original.root_cause.exception
    if layout != "wrapped":  # (how well a wrapped log reads as printed: test_hard_wrap.py)
        # the root is the printed log's, at the lines the file holds it in, and the line
        # numbers its sentences give are the file's too (inputorder.py)
        root = original.root_cause
        ends = sorted({*where[root.first_line - 1], *where[root.last_line - 1]})
        assert report.root_cause.line == where[root.line - 1][0]
        assert (report.root_cause.first_line, report.root_cause.last_line) == (ends[0], ends[-1])
        assert report.reasons == tuple(
            re.sub(r"\b([Ll]ine) (\d+)\b(?=[.;:),]| \()",
                   lambda m: f"{m.group(1)} {where[int(m.group(2)) - 1][0]}", reason)
            for reason in original.reasons)
    # markdown's excerpt of the root reads the file's lines at the report's numbers: each line
    # as printed, at the row it begins on (or the file's row, where the rejoin left it alone)
    printed_at = {rows[0]: text for rows, text in zip(where, printed)}
    excerpt = source_lines(report)
    assert excerpt is not None
    shown = {n: text for n, text in excerpt.items() if n != report.root_cause.line}
    assert shown and all(text in (printed_at.get(n), lines[n - 1]) for n, text in shown.items())
    # graph and timeline (and explain's HTML pictures, pipeline.pictured) draw the same lines
    analysis = analyse(str(path))
    assert analysis.inference.root_cause is not None
    assert _span(analysis.inference.root_cause) == _span(report.root_cause)
    assert [_span(e) for e in analysis.inference.symptoms] == [_span(e) for e in report.symptoms]
    assert analysis.inference.reasons == report.reasons
    assert all(1 <= event.line <= len(lines) for event in analysis.events)
    assert all(1 <= origin.line <= len(lines) for origin in analysis.origins.values())
    # parse() gives the file's lines too
    assert report.root_cause.first_line in {e.first_line for e in parse(str(path))
                                            if isinstance(e, ErrorEvent)}
    # --follow reads the file as explain does
    followed = follow(path, timeout=0, settle=0, signatures=signatures)
    assert followed.root_cause is not None
    assert _span(followed.root_cause) == _span(report.root_cause)
    # (a growing file's last line may still go on: a row as wide as the wrap waits for the next)
    assert where[-1][0] - 1 <= followed.lines_read <= report.lines_read
    # what the commands print says the same line
    runner = CliRunner()
    dot = runner.invoke(main, ["graph", str(path)]).output
    assert f"ROOT CAUSE · line {report.root_cause.line}" in dot.replace("\\n", "\n")
    text = runner.invoke(main, ["timeline", str(path)]).output
    assert re.search(rf"line +{report.root_cause.line} +ROOT CAUSE", text)


@given(st.integers(1, 500), st.data())
def test_a_newest_first_reports_sentences_give_the_files_lines(lines: int,
                                                                 data: st.DataObject) -> None:
    """Line k of `lines` read turned over is the file's line lines + 1 - k, in the report's line
    fields and in the sentences that name a line (its reasons, where to look), and only there."""
    said = data.draw(st.integers(1, lines))
    frame_line = data.draw(st.integers(1, 5000))
    report = Report("log", Verdict.FAILURE, None, (), None, (), {}, (),
                    (f"the worker printed it at line {said}; the earlier copy is the cause.",
                     f"raised at model.py line {frame_line} in load"),
                    (f"search above line {said}.",), (), (), lines)
    turned = in_input_order(report, lines)
    assert turned.reasons[0] == (f"the worker printed it at line {lines + 1 - said}; the earlier "
                                 "copy is the cause.")
    assert turned.reasons[1] == report.reasons[1]  # a source file's line: kept
    assert turned.look_for == (f"search above line {lines + 1 - said}.",)


class _Trickle(io.RawIOBase):
    """A pipe that hands on a few hundred bytes a read (`kubectl logs -f | logsleuth ...`)."""

    def __init__(self, data: bytes, rng: random.Random):
        self._data, self._rng = data, rng

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        piece = self._data[:self._rng.randint(50, 800)]
        self._data = self._data[len(piece):]
        return piece


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(FAILURES), st.integers(0, 20), st.sampled_from(LAYOUTS),
       st.integers(60, 160), st.randoms(use_true_random=False))
def test_follow_decides_the_layout_from_the_head_as_it_arrives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, served: int, layout: str,
        width: int, rng: random.Random) -> None:
    """A piped log arriving a little at a time: once its head says a wrap width (or newest
    first), `--follow` reads it as `explain` does the whole file."""
    lines, _ = _laid_out(_log(kind, served, rng), layout, width)
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "log"
    path.write_bytes(data)
    assume(_check_layout(path, layout))
    report = explain(str(path), signatures=default_signatures())
    assert report.root_cause is not None
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": _Trickle(data, rng)})())
    followed = follow("-", signatures=default_signatures())
    assert followed.root_cause is not None
    assert _span(followed.root_cause) == _span(report.root_cause)
    assert followed.lines_read == report.lines_read
