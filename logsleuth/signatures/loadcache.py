"""A cache of loaded signature directories, keyed by their files' names, sizes and times.

Loading means parsing YAML, validating against the schema and compiling patterns: a quarter of
a second for the shipped set, paid on every run. The validated records are pickled under
`$LOGSLEUTH_CACHE_DIR` (default `$XDG_CACHE_HOME/logsleuth`, else `~/.cache/logsleuth`); any
change to a file, the schema, the code that builds the records or logsleuth's version gives a
new key. `LOGSLEUTH_NO_CACHE=1`
turns it off. A cache that cannot be read or written is silently ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from logsleuth.errors import SignatureError
from logsleuth.resources import cache_dir as cache_dir  # where index/ and triage/ look too
from logsleuth.signatures.load import Signature, load_directory

_FORMAT = 6  # bump when Signature's fields change


def _key(directory: Path) -> str:
    from logsleuth import __version__
    from logsleuth.resources import data_dir

    digest = hashlib.sha256(f"{_FORMAT}:{__version__}:{directory.resolve()}".encode())
    schema = data_dir("signatures") / "signature.schema.json"
    # the code that builds the records: a changed dataclass must not meet an old pickle
    code = [Path(__file__).with_name(name) for name in ("load.py", "template.py", "needle.py")]
    code.append(Path(__file__).parent.parent / "model.py")
    for path in [*sorted([*_data_files(str(directory)), str(schema)]), *map(str, code)]:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:32]


def _data_files(directory: str) -> list[str]:
    """Every .yaml and .log file under `directory`, by os.scandir: Path.rglob and the sorting of
    Path objects were half of a cached load (1,500 files, 25 ms on every run)."""
    found: list[str] = []
    folders = [directory]
    while folders:
        try:
            with os.scandir(folders.pop()) as entries:
                for entry in entries:
                    if entry.is_dir():
                        folders.append(entry.path)
                    elif entry.name.endswith((".yaml", ".log")):
                        found.append(entry.path)
        except OSError:
            continue
    return found


def cached_load(directory: Path) -> tuple[list[Signature], list[str]]:
    """Every valid signature of a directory, and a message for each file that was skipped."""
    where = cache_dir()
    target = where / f"signatures-{_key(directory)}.pickle" if where else None
    if target is not None:
        try:
            with open(target, "rb") as handle:
                signatures, skipped = pickle.load(handle)
            return list(signatures), list(skipped)
        except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError, TypeError):
            pass
    problems: list[SignatureError] = []
    signatures = load_directory(directory, collect_errors=True, problems=problems)
    skipped = [str(p) for p in problems]
    if target is not None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=target.parent, delete=False) as out:
                pickle.dump((signatures, skipped), out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(out.name, target)
        except OSError:
            pass
    return signatures, skipped
