"""The command line. The one place where errors become exit codes.

Exit codes of `logsleuth explain` (REPORT_SCHEMA.md):
  0  a report was printed and its verdict is no_failure
  1  a report was printed and its verdict is failure or root_cause_missing
  2  no report: the arguments or the input could not be used at all
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from logsleuth.errors import LogsleuthError
from logsleuth.model import Verdict

EXIT_NO_FAILURE = 0
EXIT_FAILURE = 1
EXIT_UNUSABLE = 2

_EXPLAIN_HELP = """Explain a vLLM log: name the earliest causal error, its symptoms and the fix.

PATH is a log file (plain or gzip-compressed, whatever its name) or `-` for stdin.

\b
Exit codes:
  0  report printed, verdict no_failure
  1  report printed, verdict failure or root_cause_missing
  2  no report: the input could not be used (missing, a directory, unreadable)
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="logsleuth")
def main() -> None:
    """logsleuth: find the root cause in vLLM logs, and its documented fix."""


def signature_set(directories: tuple[Path, ...]):  # type: ignore[no-untyped-def]
    """The shipped signatures, with extra directories layered over them."""
    from logsleuth.signatures import default_signatures, load_signatures

    return load_signatures(*directories) if directories else default_signatures()


PROGRESS_MIN_BYTES = 8 << 20  # below this a run takes well under a second: no bar


@contextmanager
def _progress_bar(path: str) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on stderr for a big file, only when stderr is a terminal."""
    try:
        size = os.path.getsize(path) if path != "-" else 0
    except OSError:
        size = 0
    if size < PROGRESS_MIN_BYTES or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, DownloadColumn, Progress, TimeRemainingColumn,
                               TransferSpeedColumn)

    compressed = path.endswith(".gz")
    with Progress("reading", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        # a .gz file's size says nothing of its uncompressed length: show bytes only
        task = bar.add_task("read", total=None if compressed else size)
        yield lambda count: bar.advance(task, count)


@main.command(help=_EXPLAIN_HELP)
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True,
              help="Human text, the JSON report contract, or Markdown for a bug report.")
@click.option("--signatures", "signature_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Extra signature directory, layered over the shipped ones (repeatable). "
                   "Also: LOGSLEUTH_SIGNATURES=dir1:dir2.")
@click.option("-v", "--verbose", is_flag=True, help="Show every symptom and survived error.")
@click.option("-f", "--follow", is_flag=True,
              help="Follow a growing log (like tail -f); report as soon as a failure is known.")
@click.option("--timeout", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
              help="With --follow: give up after this long (exit 0 if nothing failed).")
@click.option("--settle", type=click.FloatRange(min=0), default=10.0, show_default=True,
              metavar="SECONDS", help="With --follow: report a failure nothing else reports "
                                      "after the log has been quiet this long.")
def explain(path: str, fmt: str, signature_dirs: tuple[Path, ...], verbose: bool, follow: bool,
            timeout: float | None, settle: float) -> None:
    from logsleuth.pipeline import explain as run_explain
    from logsleuth.render.json import to_json

    try:
        if follow:
            from logsleuth.follow import follow as run_follow

            if path == "-":
                raise click.UsageError("--follow needs a file, not stdin")
            report = run_follow(path, timeout=timeout, settle=settle,
                                signatures=signature_set(signature_dirs))
        else:
            with _progress_bar(path) as advance:
                report = run_explain(path, signatures=signature_set(signature_dirs),
                                     progress=advance)
    except LogsleuthError as exc:  # InputError and a broken --signatures directory alike
        click.echo(f"logsleuth: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    if fmt == "json":
        click.echo(to_json(report))
    elif fmt == "markdown":
        from logsleuth.render.markdown import render_markdown

        click.echo(render_markdown(report))
    else:
        from rich.console import Console

        from logsleuth.render.text import render_text

        render_text(report, Console(highlight=False), verbose=verbose)
    sys.exit(EXIT_NO_FAILURE if report.verdict is Verdict.NO_FAILURE else EXIT_FAILURE)


# Each command group lives in its own module and registers itself on `main`.
from logsleuth.cli import graph as _graph  # noqa: E402,F401
from logsleuth.cli import index as _index  # noqa: E402,F401
from logsleuth.cli import signatures as _signatures  # noqa: E402,F401
from logsleuth.cli import triage as _triage  # noqa: E402,F401

if __name__ == "__main__":  # pragma: no cover
    main()
