"""The signature database: load, validate, match, lint and test YAML signatures."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from logsleuth.errors import SignatureError
from logsleuth.resources import data_dir
from logsleuth.signatures.loadcache import cached_load
from logsleuth.signatures.load import (Signature, load_directory, load_signature_file,
                                       signature_files, user_directories)
from logsleuth.signatures.match import THRESHOLD, SignatureSet, Target

__all__ = ["Signature", "SignatureSet", "Target", "THRESHOLD", "load_signatures",
           "default_signatures", "shipped_directory", "load_signature_file", "set_version"]


def shipped_directory() -> Path:
    """The signatures that come with logsleuth."""
    return data_dir("signatures")


def load_signatures(*directories: str | Path, shipped: bool = True,
                    strict: bool = False) -> SignatureSet:
    """Load the shipped signatures, then each directory given, then LOGSLEUTH_SIGNATURES.

    A later directory's signature replaces a shipped one with the same id. A broken file is
    skipped with a notice (a run is never stopped by one bad contributed file); with
    `strict=True` it raises SignatureError instead.
    """
    sources = ([shipped_directory()] if shipped else []) + [Path(d) for d in directories]
    sources += user_directories()
    signatures: list[Signature] = []
    notices: list[str] = []
    for directory in sources:
        if not directory.is_dir():
            raise SignatureError("signature directory not found", location=str(directory))
        if not signature_files(directory):
            notices.append(f"the signature directory {directory} holds no signature files "
                           "(<category>/<id>.yaml, or <id>.yaml in a flat folder)")
            continue
        if strict:
            signatures += load_directory(directory)
            continue
        found, skipped = cached_load(directory)
        signatures += found
        notices += [f"signature skipped: {p}" for p in skipped]
    return SignatureSet(signatures, notices=notices)


@cache
def default_signatures() -> SignatureSet:
    """The shipped signatures plus LOGSLEUTH_SIGNATURES, loaded once per process."""
    return load_signatures()


def set_version(database: SignatureSet) -> str:
    """A short digest naming this exact set of signatures and fixes (for a pasted report)."""
    import hashlib

    digest = hashlib.sha256()
    for signature in sorted(database, key=lambda s: s.id):
        digest.update(f"{signature.id}\0{signature.fix}\0".encode())
    return digest.hexdigest()[:10]
