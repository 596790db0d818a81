"""`logsleuth graph` and `logsleuth timeline`: the failure as pictures."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click

from logsleuth.cli import EXIT_NO_FAILURE, EXIT_NOT_A_LOG, EXIT_UNUSABLE, main, output_option
from logsleuth.cli.output import emit, render_rich
from logsleuth.errors import LogsleuthError
from logsleuth.model import Event, FactOrigin, Inference


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the pictures are drawn from."""

    events: list[Event]
    inference: Inference
    facts: dict[str, object]
    origins: dict[str, FactOrigin]
    recognised: bool = True  # some line looks like log output (as explain tells; else exit 3)


def analyse(path: str) -> Analysis:
    """Read, tokenize, assemble and infer, keeping the events and facts the pictures need, with
    the file's line numbers (read as `explain` reads: pipeline.read_events, pictured)."""
    from logsleuth.pipeline import pictured, read_events
    from logsleuth.read import open_input

    log = open_input(path)
    try:
        read = read_events(log, fold_runs=False)  # every run's events are drawn
    finally:
        log.close()
    from logsleuth.tokenize.sniff import looks_like_log

    events, inference, origins = pictured(read)
    facts = read.facts.result()
    recognised = bool(read.events) or bool(facts) or looks_like_log(read.head)
    return Analysis(events, inference, facts, origins, recognised)


def _analyse_or_exit(path: str) -> Analysis:
    from logsleuth.cli.output import hint_if_typing

    hint_if_typing(path)
    try:
        return analyse(path)
    except LogsleuthError as exc:
        from rich.console import Console

        Console(stderr=True).print(f"logsleuth: {exc}", markup=False, highlight=False,
                                   soft_wrap=True)
        sys.exit(EXIT_UNUSABLE)


def _exit(analysis: Analysis, path: str) -> None:
    """0 once the picture is out; 3, with one line on stderr, when nothing in the input looked
    like a log (an empty picture says nothing by itself)."""
    if analysis.recognised:
        sys.exit(EXIT_NO_FAILURE)
    from rich.console import Console

    Console(stderr=True).print(f"logsleuth: {'<stdin>' if path == '-' else path}: no line of "
                               "this input looks like log output (empty, prose, binary): is it "
                               "the right file?", markup=False, highlight=False, soft_wrap=True)
    sys.exit(EXIT_NOT_A_LOG)


# graph and timeline answer alike: one table for both help texts
_PICTURE_EXIT_CODES = """
\b
Exit codes:
  0    the picture was printed
  2    no picture: the input could not be used (missing, a directory, unreadable)
  3    the picture was printed, but no line of the input looks like log output
  4    the picture could not be written
  70   logsleuth itself failed (a bug); one line on stderr, never a traceback
"""


@main.command(help="""The causal graph across processes: errors and lifecycle events coloured by
process role, edges labelled with why they are linked. SVG uses graphviz's `dot` when installed.
""" + _PICTURE_EXIT_CODES)
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["dot", "mermaid", "svg"]), default="dot",
              show_default=True, help="Graphviz DOT, Mermaid, or an SVG picture.")
@output_option
def graph(path: str, fmt: str, output: Path | None) -> None:
    """The causal graph of one log (its help text: above)."""
    from logsleuth.render.graph import build_picture, to_dot, to_mermaid, to_svg

    analysis = _analyse_or_exit(path)
    picture = build_picture(analysis.events, analysis.inference)
    render = {"dot": to_dot, "mermaid": to_mermaid, "svg": to_svg}[fmt]
    emit(render(picture), output)
    _exit(analysis, path)


@main.command(help="One lane per process with its key events and the failure, by log line.\n"
                   + _PICTURE_EXIT_CODES)
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "svg", "html"]), default="text",
              show_default=True, help="Terminal lanes, an SVG picture, or an HTML page.")
@output_option
def timeline(path: str, fmt: str, output: Path | None) -> None:
    """The timeline of one log (its help text: above)."""
    from logsleuth.render.timeline import (build_timeline, render_timeline_text, timeline_html,
                                           timeline_svg)

    analysis = _analyse_or_exit(path)
    picture = build_timeline(analysis.events, analysis.inference, analysis.origins,
                             analysis.facts)
    if fmt == "text":
        # a terminal gets colour at its width; a pipe or a file whole lines (cli/output.py)
        emit(render_rich(lambda console: render_timeline_text(picture, console), width=None,
                         terminal=None if output is None else False), output)
    elif fmt == "svg":
        emit(timeline_svg(picture), output)
    else:
        emit(timeline_html(picture, title=f"logsleuth timeline: {Path(path).name}"), output)
    _exit(analysis, path)
