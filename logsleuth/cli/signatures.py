"""`logsleuth signatures ...`: list, lint, test and create signatures."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from logsleuth.cli import EXIT_UNUSABLE, main, signature_set
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
    from rich.console import Console

    Console().print(table)


@signatures.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
def lint_signatures(paths: tuple[Path, ...]) -> None:
    """Check signature files; print every problem as `path:line: message`. Exit 1 on errors."""
    from logsleuth.signatures.lint import lint

    problems = lint(list(paths))
    for problem in problems:
        click.echo(problem.format())
    errors = sum(1 for p in problems if p.is_error)
    warnings = len(problems) - errors
    click.echo(f"{errors} error(s), {warnings} warning(s)", err=True)
    sys.exit(1 if errors else 0)


@signatures.command("test")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("-v", "--verbose", is_flag=True, help="Show passing examples too.")
def test_signatures(paths: tuple[Path, ...], verbose: bool) -> None:
    """Run every signature's example logs; exit 1 when any example does not behave."""
    from logsleuth.signatures.examples import run_examples

    try:
        results = run_examples(list(paths))
    except LogsleuthError as exc:  # a broken signature file: `signatures lint` says all
        click.echo(f"logsleuth: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    failed = [r for r in results if not r.passed]
    for result in results:
        if verbose or not result.passed:
            click.echo(result.format())
    click.echo(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


@signatures.command("new")
@click.option("--from", "log_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A log whose root cause the new signature should match.")
@click.option("--category", default="misc", show_default=True)
@click.option("--id", "signature_id", default=None, help="Defaults to one made from the error.")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
              default=Path("signatures"), show_default=True)
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
