"""`logsleuth triage PATH...`: explain many logs and group them by root-cause fingerprint."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from logsleuth.cli import EXIT_FAILURE, EXIT_NO_FAILURE, EXIT_NOT_A_LOG, EXIT_UNUSABLE, main, \
    signature_set
from logsleuth.cli.output import emit, render_rich
from logsleuth.model import Verdict

PROGRESS_MIN_FILES = 20  # fewer logs take a moment: no bar

_TRIAGE_HELP = """Explain many vLLM logs and group them by signature or root-cause fingerprint.

Each PATH is a log file or a directory (its files named like a log: see --glob). Logs with no
matching signature are grouped by their masked root cause, a start for a new signature. One
log that cannot be read, or that logsleuth fails on, is reported and never stops the run.

\b
Exit codes:
  0  every usable log was read and none shows a failure
  1  at least one log shows a failure (verdict failure or root_cause_missing)
  2  no input could be used: no file found, or none could be read
  3  nothing failed, and no file read holds a line that looks like log output
  4  the result could not be written (a full disk, a missing directory)
  70 logsleuth itself failed (a bug); one line on stderr, never a traceback
"""


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for a long run, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("explaining", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("logs", total=None)

        def advance(done: int, total: int) -> None:
            if total >= PROGRESS_MIN_FILES:
                bar.update(task, completed=done, total=total)
        yield advance


@main.command(help=_TRIAGE_HELP)
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(path_type=str))
@click.option("-r", "--recursive", is_flag=True, help="Look in subdirectories too.")
@click.option("--glob", "globs", multiple=True, metavar="PATTERN",
              help="File names to take from directories (repeatable). Default: *.log *.log.* "
                   "*.txt *.out *.err *.gz. Files named directly are always taken.")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json", "jsonl", "csv", "markdown", "junit"]),
              help="A table per kind of group; JSON with every group and case; one JSON case "
                   "per line; CSV or Markdown with a row per group; JUnit XML with a test case "
                   "per log (for CI dashboards).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to this file instead of stdout.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Processes of the local engine (default: every core).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local",
              show_default=True, help="A local process pool, or Ray tasks (logs on storage "
                                      "every node sees; needs logsleuth[ray]).")
@click.option("--ray-address", default=None, metavar="ADDRESS",
              help="With --engine ray: the cluster (default RAY_ADDRESS, else a local one).")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Keep reports here and read only new or changed logs next "
                                 "time [default: $XDG_CACHE_HOME/logsleuth/triage].")
@click.option("--no-cache", is_flag=True, help="Read every log; use and keep no cache.")
@click.option("--examples", type=click.IntRange(min=1), default=3, show_default=True,
              help="Example files per group in the table, CSV and Markdown.")
@click.option("--signatures", "signature_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Extra signature directory, layered over the shipped ones (repeatable).")
def triage(paths: tuple[str, ...], recursive: bool, globs: tuple[str, ...], fmt: str,
           jobs: int | None, engine: str, ray_address: str | None, cache_dir: Path | None,
           no_cache: bool, examples: int, signature_dirs: tuple[Path, ...],
           output: Path | None) -> None:
    from logsleuth.triage import DEFAULT_GLOBS, Engine, Status, triage as run_triage
    from logsleuth.triage import render
    from logsleuth.triage.cache import default_cache_dir

    cache = None if no_cache else (cache_dir or default_cache_dir())
    with _progress() as progress:
        result = run_triage(paths, recursive=recursive, globs=globs or DEFAULT_GLOBS,
                            engine=Engine(engine), jobs=jobs, cache=cache,
                            signature_dirs=signature_dirs, ray_address=ray_address,
                            progress=progress)
    if fmt == "table":
        emit(render_rich(lambda console: render.render_table(result, console,
                                                             examples=examples),
                         width=None, natural_width=200), output)
    else:
        def fix_of(signature_id: str) -> str | None:
            found = signature_set(signature_dirs).get(signature_id)
            return found.fix if found is not None else None

        text = {"json": lambda: render.to_json(result) + "\n",
                "jsonl": lambda: render.to_jsonl(result),
                "csv": lambda: render.to_csv(result, examples=examples),
                "markdown": lambda: render.to_markdown(result, examples=examples),
                "junit": lambda: render.to_junit(result, fix_of=fix_of)}[fmt]()
        emit(text, output)
        for notice in result.notices:
            click.echo(f"logsleuth: {notice}", err=True)
    # The one place the outcome becomes an exit code.
    if result.count(Status.REPORTED) == 0:
        if not result.cases:
            click.echo("logsleuth: no log file found", err=True)
        sys.exit(EXIT_UNUSABLE)
    failed = result.count(Verdict.FAILURE) + result.count(Verdict.ROOT_CAUSE_MISSING)
    if failed:
        sys.exit(EXIT_FAILURE)
    # as explain: a run over files none of which is a log (the wrong directory, the wrong glob)
    # must not pass for a run over healthy logs
    if not any(case.recognised for case in result.cases if case.status is Status.REPORTED):
        click.echo("logsleuth: no file read holds a line that looks like log output", err=True)
        sys.exit(EXIT_NOT_A_LOG)
    sys.exit(EXIT_NO_FAILURE)
