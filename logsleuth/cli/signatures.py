"""`logsleuth signatures ...`: list, lint, test and create signatures."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from logsleuth.cli import EXIT_UNUSABLE, main, signature_set
from logsleuth.cli.output import emit, render_rich
from logsleuth.errors import LogsleuthError


@main.group()
def signatures() -> None:
    """List, lint, test and create signatures."""


@signatures.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--signatures", "signature_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path))
def list_signatures(fmt: str, signature_dirs: tuple[Path, ...]) -> None:
    """Every signature: id, kind, title, category, status, file; counts per kind."""
    import json

    from rich.table import Table

    from logsleuth.model import SignatureKind

    database = signature_set(signature_dirs)
    rows = [{"id": s.id, "kind": s.kind.value, "title": s.title, "category": s.category,
             "status": s.status.value, "severity": s.severity.value, "file": str(s.path)}
            for s in database]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    counts = ", ".join(f"{sum(1 for r in rows if r['kind'] == kind.value)} {kind.value}"
                       for kind in SignatureKind)
    table = Table("id", "kind", "category", "status", "title",
                  title=f"{len(rows)} signatures: {counts}")
    for row in rows:
        table.add_row(row["id"], row["kind"], row["category"], row["status"], row["title"])
    emit(render_rich(lambda console: console.print(table), width=None))


@signatures.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text",
              show_default=True, help="`path:line: message` lines, JSON, or GitHub annotations.")
def lint_signatures(paths: tuple[Path, ...], fmt: str) -> None:
    """Check signature files; print every problem at once. Exit 1 on errors."""
    import json

    from logsleuth.render.github import annotation
    from logsleuth.signatures.lint import lint, lint_files

    checked = len(lint_files(list(paths)))
    problems = lint(list(paths))
    errors = sum(1 for p in problems if p.is_error)
    warnings = len(problems) - errors
    if fmt == "json":
        emit(json.dumps({"files": checked, "errors": errors, "warnings": warnings,
                         "problems": [{"location": p.location, "level": "error" if p.is_error
                                       else "warning", "message": p.message, "hint": p.hint}
                                      for p in problems]}, indent=2) + "\n")
    else:
        for problem in problems:
            if fmt == "github":
                file, _, line = problem.location.rpartition(":")
                emit(annotation("error" if problem.is_error else "warning",
                                problem.message + (f" (hint: {problem.hint})" if problem.hint
                                                   else ""),
                                file=file or problem.location,
                                line=int(line) if line.isdigit() else None) + "\n")
            else:
                emit(problem.format() + "\n")
        click.echo(f"{checked} file(s) checked: {errors} error(s), {warnings} warning(s)",
                   err=True)
    sys.exit(1 if errors else 0)


@signatures.command("test")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("-v", "--verbose", is_flag=True, help="Show passing examples too.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def test_signatures(paths: tuple[Path, ...], verbose: bool, fmt: str) -> None:
    """Run every signature's example logs; exit 1 when any example does not behave."""
    import json

    from logsleuth.signatures.examples import run_examples

    results = run_examples(list(paths))  # a broken file raises: `signatures lint` says all
    if not results:  # "0 passed, 0 failed" and exit 0 would read as a pass
        given = " ".join(map(str, paths)) or "the shipped signatures"
        click.echo(f"logsleuth: no example logs to run for {given}: name signature files "
                   "(<id>.yaml) or their folders; a signature's examples are <id>.log and "
                   "<id>.negative.log beside it", err=True)
        sys.exit(EXIT_UNUSABLE)
    failed = [r for r in results if not r.passed]
    if fmt == "json":
        emit(json.dumps({"passed": len(results) - len(failed), "failed": len(failed),
                         "examples": [{"signature": r.signature, "example": str(r.example),
                                       "positive": r.positive, "passed": r.passed,
                                       "best": r.best, "score": round(r.score, 3),
                                       "own_score": round(r.own_score, 3), "where": r.where}
                                      for r in results]}, indent=2) + "\n")
    else:
        for result in results:
            if verbose or not result.passed:
                emit(result.format() + "\n")
        emit(f"{len(results) - len(failed)} passed, {len(failed)} failed\n")
    sys.exit(1 if failed else 0)


@signatures.command("show")
@click.argument("signature_id")
@click.option("--signatures", "signature_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path))
def show_signature(signature_id: str, signature_dirs: tuple[Path, ...]) -> None:
    """Print one signature's title, fix and references, without a log."""
    import difflib

    database = signature_set(signature_dirs)
    found = database.get(signature_id)
    if found is None:
        near = difflib.get_close_matches(signature_id, [s.id for s in database], n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise click.UsageError(f"no signature '{signature_id}'{hint}")
    emit(f"{found.id} ({found.kind.value}, {found.category}): {found.title}\n"
         f"file: {found.path}\n\n{found.description}\n\nFix:\n{found.fix}\n\n"
         + "".join(f"- {url}\n" for url in found.references))


@signatures.command("new")
@click.option("--from", "log_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A log whose root cause the new signature should match.")
@click.option("--category", default="misc", show_default=True,
              help="The signature's category, and so its folder under --dir (lint fails a "
                   "file whose category is not its folder's); `logsleuth signatures list` "
                   "shows the shipped ones.")
@click.option("--id", "signature_id", default=None,
              help="Defaults to one made from the error; it is the files' name.")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
              default=Path("signatures"), show_default=True,
              help="The signature tree to write into: a checkout's signatures/, or a "
                   "directory of your own for --signatures.")
def new_signature(log_path: Path, category: str, signature_id: str | None,
                  directory: Path) -> None:
    """Write a skeleton signature from a log's root cause, with the log excerpt as its example."""
    from logsleuth.signatures.scaffold import scaffold

    try:
        written = scaffold(log_path, directory, category=category, signature_id=signature_id)
    except LogsleuthError as exc:
        click.echo(f"logsleuth: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(_where_it_is_used(directory))


def _where_it_is_used(directory: Path) -> str:
    """Say whether `logsleuth explain` will see the new files, and how to make it so."""
    from logsleuth.signatures import shipped_directory

    try:
        shipped = directory.resolve() == shipped_directory().resolve()
    except OSError:
        shipped = False
    if shipped:
        return ("This is the signature tree logsleuth loads: `logsleuth explain` uses it now. "
                "Edit the TODOs, then `logsleuth signatures lint` and `signatures test`.")
    return (f"logsleuth loads its signatures from {shipped_directory()}, not from here. Use "
            f"these with `--signatures {directory}` or LOGSLEUTH_SIGNATURES={directory}; in a "
            "checkout, `pip install -e .` makes the checkout's signatures/ the loaded tree.")
