"""`logsleuth index ...`: the index of vLLM's own messages, flags and variables."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from logsleuth.cli import main


@main.group("index")
def index_group() -> None:
    """The vLLM message index shipped with logsleuth (mined from every vLLM release)."""


@index_group.command("stats")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--per-release", is_flag=True, help="Also one line per indexed release.")
def stats(fmt: str, per_release: bool) -> None:
    """Releases, message templates, engine arguments and environment variables counted."""
    from logsleuth.index import default_index
    from logsleuth.index.stats import index_stats

    counted = index_stats(default_index())
    if fmt == "json":
        click.echo(json.dumps(asdict(counted), indent=2))
        return
    kinds = ", ".join(f"{n:,} {kind}" for kind, n in counted.by_kind.items())
    click.echo(f"index {counted.stamp}")
    click.echo(f"releases       {len(counted.releases)} ({counted.releases[0]} .. "
               f"{counted.releases[-1]})")
    click.echo(f"templates      {counted.templates:,} ({kinds}; {counted.sites:,} sites)")
    click.echo(f"engine args    {counted.arguments:,} flags")
    click.echo(f"env vars       {counted.environment:,}")
    if per_release:
        click.echo(f"{'release':<14}{'templates':>10}{'args':>7}{'env':>6}")
        for row in counted.per_release:
            click.echo(f"{row.release:<14}{row.templates:>10}{row.arguments:>7}"
                       f"{row.environment:>6}")
