"""`logsleuth graph` and `logsleuth timeline`: the failure as pictures."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click

from logsleuth.cli import EXIT_NO_FAILURE, EXIT_UNUSABLE, main, output_option
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
    events, inference, origins = pictured(read)
    return Analysis(events, inference, read.facts.result(), origins)


def _analyse_or_exit(path: str) -> Analysis:
    try:
        return analyse(path)
    except LogsleuthError as exc:
        from rich.console import Console

        Console(stderr=True).print(f"logsleuth: {exc}", markup=False, highlight=False)
        sys.exit(EXIT_UNUSABLE)




@main.command()
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["dot", "mermaid", "svg"]), default="dot",
              show_default=True, help="Graphviz DOT, Mermaid, or an SVG picture.")
@output_option
def graph(path: str, fmt: str, output: Path | None) -> None:
    """The causal graph across processes: errors and lifecycle events coloured by process role,
    edges labelled with why they are linked. SVG uses graphviz's `dot` when installed."""
    from logsleuth.render.graph import build_picture, to_dot, to_mermaid, to_svg

    analysis = _analyse_or_exit(path)
    picture = build_picture(analysis.events, analysis.inference)
    render = {"dot": to_dot, "mermaid": to_mermaid, "svg": to_svg}[fmt]
    emit(render(picture), output)
    sys.exit(EXIT_NO_FAILURE)


@main.command()
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "svg", "html"]), default="text",
              show_default=True, help="Terminal lanes, an SVG picture, or an HTML page.")
@output_option
def timeline(path: str, fmt: str, output: Path | None) -> None:
    """One lane per process with its key events and the failure, by log line."""
    from logsleuth.render.timeline import (build_timeline, render_timeline_text, timeline_html,
                                           timeline_svg)

    analysis = _analyse_or_exit(path)
    picture = build_timeline(analysis.events, analysis.inference, analysis.origins,
                             analysis.facts)
    if fmt == "text":
        if output is None:
            from rich.console import Console

            render_timeline_text(picture, Console(highlight=False))
        else:
            emit(render_rich(lambda console: render_timeline_text(picture, console),
                             width=120, terminal=False), output)
    elif fmt == "svg":
        emit(timeline_svg(picture), output)
    else:
        emit(timeline_html(picture, title=f"logsleuth timeline: {Path(path).name}"), output)
    sys.exit(EXIT_NO_FAILURE)
