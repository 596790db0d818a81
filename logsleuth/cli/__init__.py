"""The command line. The one place where errors become exit codes.

Exit codes (each means one thing; REPORT_SCHEMA.md):
  0    a report was printed and nothing failed (or --fail-on says not to fail)
  1    a report was printed and it found a failure (as --fail-on counts failures)
  2    no report: the arguments or the input could not be used at all
  3    a report was printed, but no line of the input looks like log output
  4    the report could not be written (a full disk, a missing directory)
  70   logsleuth itself failed (a bug: please report it, or a dependency missing from the
       Python that runs it); never a Python traceback
  130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from logsleuth.cli.output import emit, hint_if_typing, is_terminal, render_rich
from logsleuth.dependencies import missing_package_message
from logsleuth.errors import LogsleuthError, OutputError
from logsleuth.model import Report, SignatureKind, Verdict

if TYPE_CHECKING:
    from logsleuth.halfread import FarReader

EXIT_NO_FAILURE = 0
EXIT_FAILURE = 1
EXIT_UNUSABLE = 2
EXIT_NOT_A_LOG = 3
EXIT_OUTPUT = 4
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130

_EXPLAIN_HELP = """Explain a vLLM log: name the earliest causal error, its symptoms and the fix.

PATH is a log file (plain or gzip-compressed, whatever its name) or `-` for stdin.

\b
Exit codes:
  0    report printed, verdict no_failure (or --fail-on says not to fail)
  1    report printed, verdict failure or root_cause_missing
  2    no report: the input could not be used (missing, a directory, unreadable)
  3    report printed, but no line of the input looks like log output
  4    the report could not be written
  70   logsleuth itself failed (a bug); one line on stderr, never a traceback
  130  interrupted (with --follow, after a report of what was read)
"""


class FailOn(StrEnum):
    """Which reports make `explain` exit 1."""

    FAILURE = "failure"  # any failure, known or not
    UNKNOWN = "unknown"  # only a failure that no signature knows
    NEVER = "never"  # never: the job only wants the report


def exit_code(report: Report, fail_on: FailOn = FailOn.FAILURE) -> int:
    """The exit code of a printed report."""
    if not report.recognised:
        return EXIT_NOT_A_LOG
    if report.verdict is Verdict.NO_FAILURE or fail_on is FailOn.NEVER:
        return EXIT_NO_FAILURE
    # a fallback is the class's last resort, release evidence a date: no signature knows either
    if fail_on is FailOn.UNKNOWN and report.signature is not None \
            and report.signature.kind not in (SignatureKind.FALLBACK, SignatureKind.RELEASE):
        return EXIT_NO_FAILURE
    return EXIT_FAILURE


@cache
def _freeze_at_exit() -> None:
    """At the interpreter's exit, move what is alive then (the databases, the caches, the
    modules) out of the collector's sight, so that its last full collection, in the interpreter's
    finalization, does not walk it: ~50 ms of CPU, a tenth of explaining a small log, for memory
    the ending process frees anyway. Registered for the exit, once however often the command
    line runs in a process (tests), rather than done at once: a process that goes on after a
    command keeps collecting what it drops."""
    atexit.register(gc.freeze)


class _Commands(click.Group):
    """Runs a command and turns whatever escapes it into one line on stderr and an exit code:
    Ctrl-C is 130 (not click's "Aborted!" and 1), a write error 4, anything unforeseen 70."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        # Reading a log makes millions of short-lived objects while it keeps a few hundred
        # thousand (parsed bodies, events, the databases): at the default thresholds the
        # collector walked the kept ones again and again, 6-12% of the CPU of a log of request
        # errors. What a run throws away holds few cycles; a larger first generation is enough.
        gc.set_threshold(50_000, 20, 100)
        _freeze_at_exit()
        try:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt):
            click.echo("logsleuth: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except OutputError as exc:
            click.echo(f"logsleuth: {exc}", err=True)
            sys.exit(EXIT_OUTPUT)
        except LogsleuthError as exc:
            click.echo(f"logsleuth: {exc}", err=True)
            sys.exit(EXIT_UNUSABLE)
        except BrokenPipeError:
            sys.exit(EXIT_NO_FAILURE)
        except ModuleNotFoundError as exc:  # a dependency loaded late (dependencies.py)
            click.echo(missing_package_message(exc), err=True)
            sys.exit(EXIT_INTERNAL)
        except Exception as exc:  # noqa: BLE001 - the one place a bug becomes a message
            click.echo(f"logsleuth: internal error: {type(exc).__name__}: {exc} (please report "
                       "it at the project's issue tracker, with the log if you can)", err=True)
            sys.exit(EXIT_INTERNAL)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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


@contextmanager
def _far_reader(path: str) -> Iterator[FarReader | None]:
    """A second process that starts reading a big plain log from its end before this one loads
    the pipeline (halfread.py): the imports and the signature database take this process a
    few tenths of a second, which the other spends reading. The pipeline adopts it, or stops
    it when the input turns out to be something else (an export, a console's reversed copy)."""
    from logsleuth.halfread import FarReader, may_start_far_reader, worth_a_far_reader
    from logsleuth.read import MAX_LINE_BYTES

    reader = None
    if path != "-" and may_start_far_reader() and worth_a_far_reader(Path(path)):
        try:
            reader = FarReader.start(Path(path), path, MAX_LINE_BYTES)
        except OSError:
            reader = None  # no temporary files: the pipeline reads the file alone
    try:
        yield reader
    finally:
        if reader is not None:
            reader.close()


output_option = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                              help="Write to this file instead of stdout.")
width_option = click.option("--width", type=click.IntRange(min=20), default=None,
                            help="Wrap text at this width (default: the terminal's; output "
                                 "to a pipe or file is never wrapped).")


@main.command(help=_EXPLAIN_HELP)
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=True, path_type=str))
@click.option("--format", "fmt",
              type=click.Choice(["text", "json", "markdown", "github", "html"]),
              default="text", show_default=True,
              help="Human text, the JSON report contract, Markdown for a bug report, GitHub "
                   "Actions annotations, or one self-contained HTML page (with -o).")
@click.option("--signatures", "signature_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Extra signature directory, layered over the shipped ones (repeatable). "
                   "Also: LOGSLEUTH_SIGNATURES=dir1:dir2.")
@click.option("-v", "--verbose", is_flag=True,
              help="Show the whole root-cause message, every symptom and survived error.")
@click.option("--fail-on", type=click.Choice([f.value for f in FailOn]), default="failure",
              show_default=True, help="Exit 1 on any failure, only on a failure no signature "
                                      "knows, or never.")
@output_option
@width_option
@click.option("--redact/--no-redact", default=None,
              help="Mask IP addresses, host names, user names in paths and tokens (default: "
                   "on for markdown, the format pasted in public; off otherwise).")
@click.option("-f", "--follow", is_flag=True,
              help="Follow a growing log or a pipe (like tail -f); report as soon as a failure "
                   "is known, when the pipe ends, or on Ctrl-C.")
@click.option("--timeout", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
              help="With --follow: give up after this long (exit 0 if nothing failed).")
@click.option("--settle", type=click.FloatRange(min=0), default=10.0, show_default=True,
              metavar="SECONDS", help="With --follow: report a failure nothing else reports "
                                      "after the log has been quiet this long.")
def explain(path: str, fmt: str, signature_dirs: tuple[Path, ...], verbose: bool, fail_on: str,
            output: Path | None, width: int | None, redact: bool | None, follow: bool,
            timeout: float | None, settle: float) -> None:
    hint_if_typing(path)
    interrupted, events = False, None
    if follow:
        from logsleuth.follow import FollowInterrupted
        from logsleuth.follow import follow as run_follow

        try:
            with _waiting_status(path) as status:
                report = run_follow(path, timeout=timeout, settle=settle, status=status,
                                    signatures=signature_set(signature_dirs))
        except FollowInterrupted as stop:
            report, interrupted = stop.report, True
    else:
        with _far_reader(path) as reader, _progress_bar(path) as advance:
            from logsleuth.pipeline import explain_events

            # the pictures of html draw every event: runs are not folded as they end for them
            report, events = explain_events(path, signatures=signature_set(signature_dirs),
                                            progress=advance, reader=reader,
                                            fold_runs=fmt != "html")
    text = render_report(report, fmt, verbose=verbose, width=width,
                         terminal=output is None and is_terminal(),
                         signatures=signature_set(signature_dirs), read=events)
    if redact if redact is not None else fmt in REDACTED_BY_DEFAULT:
        from logsleuth.redact import NOTICE, redact as masked

        text = masked(text) + {"json": "", "github": "", "markdown": f"<sub>{NOTICE}</sub>\n"
                               }.get(fmt, f"{NOTICE}\n")
    emit(text, output)
    sys.exit(EXIT_INTERRUPTED if interrupted else exit_code(report, FailOn(fail_on)))


REDACTED_BY_DEFAULT = frozenset({"markdown"})


def render_report(report: Report, fmt: str, *, verbose: bool = False, width: int | None = None,
                  terminal: bool = False, signatures: Any = None, read: Any = None) -> str:
    """The report in one of explain's formats, as text. `read` (the pipeline's EventsRead)
    gives the HTML page its pictures."""
    if fmt == "json":
        from logsleuth.render.json import to_json

        return to_json(report) + "\n"
    if fmt == "markdown":
        from logsleuth.render.markdown import render_markdown

        return render_markdown(report, footer=made_by(signatures)) + "\n"
    if fmt == "github":
        from logsleuth.render.github import render_github

        return render_github(report)
    if fmt == "html":
        from logsleuth.render.html import render_html

        graph_svg = timeline_svg = None
        if read is not None:
            graph_svg, timeline_svg = _pictures(read)
        return render_html(report, graph_svg=graph_svg, timeline_svg=timeline_svg,
                           footer=made_by(signatures))
    from logsleuth.render.text import render_text, unwrapped_width

    return render_rich(lambda console: render_text(report, console, verbose=verbose),
                       width=width, natural_width=unwrapped_width(report), terminal=terminal)


def _pictures(read: Any) -> tuple[str, str]:
    """The causal graph and the timeline of what the pipeline read, as SVG."""
    from logsleuth.pipeline import pictured
    from logsleuth.render.graph import build_picture, to_svg
    from logsleuth.render.timeline import build_timeline, timeline_svg

    events, inference, origins = pictured(read)  # the file's line numbers, as the report's
    timeline = build_timeline(events, inference, origins, read.facts.result())
    return to_svg(build_picture(events, inference)), timeline_svg(timeline)


def made_by(signatures: Any) -> str:
    """`logsleuth 0.2.0 · 312 signatures (set 1a2b3c4d5e)`: what a pasted report was made with."""
    from logsleuth import __version__
    from logsleuth.signatures import set_version

    if signatures is None:
        return f"logsleuth {__version__}"
    return (f"made by logsleuth {__version__} with {len(signatures)} signatures "
            f"(set {set_version(signatures)})")


@contextmanager
def _waiting_status(path: str) -> Iterator[Callable[[int, float], None] | None]:
    """While --follow waits: a live status line on a terminal's stderr; elsewhere one line, the
    first time it has caught up with the input, so a CI log shows it is waiting, not stuck."""
    if not sys.stderr.isatty():
        said = False

        def once(lines: int, waited: float) -> None:
            nonlocal said
            if not said:
                said = True
                click.echo(f"logsleuth: following {path}: {lines:,} lines read, no failure "
                           "yet; waiting (Ctrl-C for a report of what was read)", err=True)
        yield once
        return
    from rich.console import Console

    with Console(stderr=True).status(f"following {path}") as shown:
        def update(lines: int, waited: float) -> None:
            shown.update(f"following {path}: {lines:,} lines read, no failure yet "
                         f"({waited:.0f} s; Ctrl-C for a report of what was read)")
        yield update


# Each command group lives in its own module and registers itself on `main`.
from logsleuth.cli import graph as _graph  # noqa: E402,F401
from logsleuth.cli import index as _index  # noqa: E402,F401
from logsleuth.cli import signatures as _signatures  # noqa: E402,F401
from logsleuth.cli import triage as _triage  # noqa: E402,F401

if __name__ == "__main__":  # pragma: no cover
    main()
