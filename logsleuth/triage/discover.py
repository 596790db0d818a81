"""Which files a triage reads: the paths given, and the logs found under directories."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch

from logsleuth.triage.model import FileId

# vLLM logs are saved as `vllm.log`, `server.log.1`, `log.txt`, `job-123.out`, `*.err`, gzipped
# or not. Configuration files and notes (case.yaml, README.md) beside them are not logs.
DEFAULT_GLOBS: tuple[str, ...] = ("*.log", "*.log.*", "*.txt", "*.out", "*.err", "*.gz")


@dataclass(frozen=True, slots=True)
class Listing:
    """The files to read, each with its identity when it could be listed, and why not."""

    paths: tuple[str, ...]  # absolute, in order, without duplicates
    files: dict[str, FileId]  # path -> identity; missing for a path that cannot be stat'ed
    notices: tuple[str, ...]


def discover(roots: Sequence[str | os.PathLike[str]], *, recursive: bool = False,
             globs: Sequence[str] = DEFAULT_GLOBS) -> Listing:
    """Files named directly are always taken (whatever their name); a directory gives its files
    whose name matches one of `globs`, and with `recursive` those of its subdirectories
    (hidden ones skipped, symbolic links to directories not followed). A path that does not
    exist is kept: reading it fails, and that failure is reported like any other."""
    paths: list[str] = []
    seen: set[str] = set()
    notices: list[str] = []
    for root in roots:
        root = os.path.abspath(os.fspath(root))
        if os.path.isdir(root):
            found = sorted(_walk(root, recursive, globs))
            if not found:
                hint = "" if recursive else " (add --recursive to look in subdirectories)"
                notices.append(f"{root}: no file matching {' '.join(globs)}{hint}")
        else:
            found = [root]
        for path in found:
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                paths.append(path)
    return Listing(tuple(paths), _identities(paths), tuple(notices))


def identify(path: str) -> FileId | None:
    """The file's identity now, or None when it cannot be stat'ed."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return FileId(path, stat.st_size, stat.st_mtime_ns, stat.st_ino)


def _identities(paths: Iterable[str]) -> dict[str, FileId]:
    found = {path: identify(path) for path in paths}
    return {path: file for path, file in found.items() if file is not None}


def _walk(root: str, recursive: bool, globs: Sequence[str]) -> Iterable[str]:
    for directory, subdirectories, names in os.walk(root):
        if recursive:
            subdirectories[:] = [d for d in subdirectories if not d.startswith(".")]
        else:
            subdirectories[:] = []
        for name in names:
            if not name.startswith(".") and any(fnmatch(name, pattern) for pattern in globs):
                yield os.path.join(directory, name)
