"""Reports of logs already read, so a nightly triage of a growing directory reads only what is new.

One sqlite3 database, `reports.sqlite3` in the cache directory (default
`$XDG_CACHE_HOME/logsleuth/triage`, or `$LOGSLEUTH_CACHE_DIR/triage`). A row holds a file's
identity (path, size, mtime_ns, inode), the analyser version it was read with, and its report
as the JSON contract. A row is used only when all of these are unchanged; the analyser version
is a hash over the names, sizes and modification times of logsleuth's code, grammars and
signature directories (the idea of signatures/loadcache.py), so editing a signature or
upgrading logsleuth re-reads everything. Only reports are stored: an input that could not be
read or that crashed logsleuth is tried again on the next run. A cache that cannot be opened or
written is left aside with a notice; the run goes on without it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from logsleuth.triage.model import Explained, FileId, Status

_FORMAT = 1  # bump when the table or the stored JSON changes shape
_FILE = "reports.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS reports (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    analyser TEXT NOT NULL,
    report TEXT NOT NULL
)
"""


def default_cache_dir() -> Path | None:
    """`$LOGSLEUTH_CACHE_DIR/triage` or `$XDG_CACHE_HOME/logsleuth/triage`; None when
    LOGSLEUTH_NO_CACHE is set."""
    from logsleuth.signatures.loadcache import cache_dir

    base = cache_dir()
    return base / "triage" if base is not None else None


def analyser_version(signature_dirs: Sequence[str | Path]) -> str:
    """A key that changes whenever logsleuth could explain a log differently."""
    from logsleuth import __version__
    from logsleuth.resources import data_dir
    from logsleuth.signatures import shipped_directory
    from logsleuth.signatures.load import user_directories

    digest = hashlib.sha256(f"{_FORMAT}:{__version__}\n".encode())
    package = Path(__file__).resolve().parent.parent
    trees = [(package, "*.py"), (data_dir("grammars"), "*"), (shipped_directory(), "*")]
    trees += [(Path(d), "*") for d in [*signature_dirs, *user_directories()]]
    for tree, pattern in trees:
        digest.update(f"{tree.resolve()}\n".encode())
        for path in sorted(tree.rglob(pattern)):
            try:
                stat = path.stat()
            except OSError:
                continue
            if path.is_file():
                digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:32]


class ReportCache:
    """The report of each file as last read, keyed by its identity and the analyser version."""

    def __init__(self, directory: Path, analyser: str):
        self.path = directory / _FILE
        self.analyser = analyser
        directory.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30)
        try:
            self._db.execute(_SCHEMA)
            self._db.commit()
        except sqlite3.Error:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ReportCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lookup(self, files: Iterable[FileId]) -> dict[str, Explained]:
        """The stored reports of the files that have not changed."""
        found: dict[str, Explained] = {}
        query = ("SELECT report FROM reports WHERE path = ? AND size = ? AND mtime_ns = ? "
                 "AND inode = ? AND analyser = ?")
        for file in files:
            row = self._db.execute(query, (file.path, file.size, file.mtime_ns, file.inode,
                                           self.analyser)).fetchone()
            if row is not None:
                found[file.path] = Explained(file.path, Status.REPORTED, row[0])
        return found

    def store(self, results: Iterable[tuple[FileId, Explained]]) -> int:
        """Keep the reports (not the failures) of these files; how many were stored."""
        rows = [(file.path, file.size, file.mtime_ns, file.inode, self.analyser,
                 explained.report_json) for file, explained in results
                if explained.status is Status.REPORTED and explained.report_json is not None]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO reports VALUES (?, ?, ?, ?, ?, ?)", rows)
        return len(rows)


def open_cache(directory: Path | None, analyser: str) -> tuple[ReportCache | None, str | None]:
    """The cache in `directory`, or None and a notice saying why it is not used."""
    if directory is None:
        return None, None
    try:
        return ReportCache(directory, analyser), None
    except (OSError, sqlite3.Error) as exc:
        return None, f"cache {directory / _FILE} not used: {exc}"
