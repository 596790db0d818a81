"""Triage many logs at once: explain each, group them by root-cause fingerprint.

    >>> from logsleuth.triage import triage
    >>> result = triage(["/var/log/vllm"], recursive=True, cache=None)
    >>> [(g.fingerprint, g.count) for g in result.groups]

The stages are the modules: discover (which files) -> cache (which are new or changed) ->
engines (explain those, locally or with Ray) -> work (report JSON -> Case) -> group -> render.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from logsleuth.triage.discover import DEFAULT_GLOBS, discover
from logsleuth.triage.model import (Case, Cause, CauseSource, Engine, Explained, FileId, Group,
                                    GroupKind, SignatureRef, Status, TriageResult)

if TYPE_CHECKING:
    from logsleuth.triage.cache import ReportCache

__all__ = ["triage", "DEFAULT_GLOBS", "Engine", "Status", "GroupKind", "CauseSource", "Case",
           "Cause", "Group", "SignatureRef", "FileId", "Explained", "TriageResult"]


def triage(roots: Sequence[str | os.PathLike[str]], *, recursive: bool = False,
           globs: Sequence[str] = DEFAULT_GLOBS, engine: Engine = Engine.LOCAL,
           jobs: int | None = None, cache: Path | None = None,
           signature_dirs: Sequence[str | Path] = (), ray_address: str | None = None,
           progress: Callable[[int, int], None] | None = None) -> TriageResult:
    """Explain every log under `roots` and group them.

    `cache` is a directory for the report cache (see `logsleuth.triage.cache`), None for none.
    Never raises for one bad log: it becomes a case with status UNREADABLE or CRASHED. Raises
    LogsleuthError only when the engine cannot run (Ray asked for but not installed).
    `progress(done, total)`, if given, is called as the local engine finishes each file.
    """
    from logsleuth.triage.cache import analyser_version, open_cache
    from logsleuth.triage.engines import run_local, run_ray
    from logsleuth.triage.group import group_cases
    from logsleuth.triage.work import case_from, signature_dirs_of

    listing = discover(roots, recursive=recursive, globs=globs)
    notices = list(listing.notices)
    directories = signature_dirs_of(signature_dirs)
    store, notice = open_cache(cache, analyser_version(directories)) if cache else (None, None)
    notices += [notice] if notice else []
    try:
        known = _lookup(store, listing.files.values(), notices)
        todo = [path for path in listing.paths if path not in known]
        if engine is Engine.RAY:
            fresh = run_ray(todo, directories, address=ray_address)
        else:
            counter = iter(range(1, len(todo) + 1))
            tick = (lambda: progress(next(counter), len(todo))) if progress else None
            fresh = run_local(todo, directories, jobs=jobs, progress=tick)
        if store is not None:
            try:
                store.store((listing.files[e.path], e) for e in fresh if e.path in listing.files)
            except sqlite3.Error as exc:
                notices.append(f"cache {store.path} not updated: {exc}")
    finally:
        if store is not None:
            store.close()
    by_path = {e.path: case_from(e, listing.files.get(e.path)) for e in fresh}
    by_path.update({path: case_from(e, listing.files.get(path), from_cache=True)
                    for path, e in known.items()})
    cases = tuple(sorted(by_path.values(), key=lambda case: case.path))
    roots_given = tuple(os.fspath(root) for root in roots)
    return TriageResult(roots_given, cases, group_cases(cases), tuple(notices))


def _lookup(store: ReportCache | None, files: Iterable[FileId],
            notices: list[str]) -> dict[str, Explained]:
    if store is None:
        return {}
    try:
        return store.lookup(files)
    except sqlite3.Error as exc:  # a damaged database: read everything, say so
        notices.append(f"cache {store.path} not read: {exc}")
        return {}
