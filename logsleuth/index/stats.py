"""Counts over the shipped vLLM index, for `logsleuth index stats`."""

from __future__ import annotations

from dataclasses import dataclass

from logsleuth.index.data import MessageKind, VllmIndex


@dataclass(frozen=True, slots=True)
class ReleaseCount:
    """What one indexed release's source holds."""

    release: str
    templates: int
    arguments: int
    environment: int


@dataclass(frozen=True, slots=True)
class IndexStats:
    """Totals over all releases, and per release."""

    stamp: str
    releases: tuple[str, ...]
    templates: int  # distinct message texts
    sites: int  # (text, class, module, function) places printing them
    by_kind: dict[str, int]
    arguments: int  # distinct CLI flags
    environment: int  # distinct environment variables
    per_release: tuple[ReleaseCount, ...]


def index_stats(index: VllmIndex) -> IndexStats:
    """Count releases, templates, engine arguments and environment variables."""
    count = len(index.releases)
    templates = [set[str]() for _ in range(count)]
    for site in index.templates:
        for release in site.releases:
            templates[release].add(site.text)
    arguments = [0] * count
    for argument in index.arguments:
        for release in argument.releases:
            arguments[release] += 1
    environment = [0] * count
    for variable in index.environment:
        for release in variable.releases:
            environment[release] += 1
    by_kind = {kind.value: len({s.text for s in index.templates if s.kind is kind})
               for kind in MessageKind}
    per_release = tuple(ReleaseCount(name, len(templates[i]), arguments[i], environment[i])
                        for i, name in enumerate(index.releases))
    return IndexStats(index.stamp, index.releases, len(index.texts), len(index.templates),
                      by_kind, len({a.flag for a in index.arguments}),
                      len({e.name for e in index.environment}), per_release)
