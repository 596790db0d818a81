"""Whether a candidate source is already cited, without naming any held-out case.

A collector (or a helper checking a development source) must know if a thread is a held-out
case's source or cited anywhere else in the repository, and must not see which held-out case it
is: a plain `grep -r` prints the case's folder, and a fixed-string URL grep also matches a longer
issue number (`issues/117` inside `issues/1170`). This answers one word per candidate:

    python tools/holdout_sources/check.py https://github.com/owner/repo/issues/N owner/repo#M ...
    python tools/holdout_sources/check.py --text "a distinctive line of the candidate's log"

`held-out` (a held-out case's `source:` cites it, or a held-out log holds the text), `cited` (some
other file of the repository or the shared corpus does), `free` otherwise. Exit status 0 when
every candidate is free, 1 when any is not.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOLDOUT = ROOT / "tests" / "fixtures" / "holdout"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
SKIPPED = {".git", ".venv", "__pycache__", ".mypy_cache", ".hypothesis", "node_modules"}
_THREAD = re.compile(r"(?:https?://)?github\.com/([^/\s]+/[^/\s#]+)/(?:issues|pull|discussions)/"
                     r"(\d+)|^([\w.-]+/[\w.-]+)#(\d+)$")


def citation_pattern(source: str) -> re.Pattern[str]:
    """Every way a file may cite `source`: a GitHub thread by URL (issue, pull and discussion
    share one numbering) or by `owner/repo#N`, never a longer number; any other URL literally."""
    thread = _THREAD.search(source.strip())
    if thread is None:
        literal = source.strip().split("://", 1)[-1]
        return re.compile(re.escape(literal) + r"(?![\w/.-])", re.IGNORECASE)
    repo, number = (thread[1], thread[2]) if thread[1] else (thread[3], thread[4])
    return re.compile(rf"{re.escape(repo)}(?:/(?:issues|pull|discussions)/|#){number}(?!\d)",
                      re.IGNORECASE)


def _files(top: Path) -> Iterator[Path]:
    if not top.is_dir():
        return
    for path in top.rglob("*"):
        if path.is_file() and not SKIPPED & set(path.relative_to(top).parts):
            yield path


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _any(paths: Iterable[Path], found: re.Pattern[str] | str) -> bool:
    for path in paths:
        text = _read(path)
        if (found in text) if isinstance(found, str) else found.search(text):
            return True
    return False


def where(candidate: str, *, text: bool = False) -> str:
    """`held-out`, `cited` or `free` for one candidate (a source, or with `text` a log line)."""
    needle: re.Pattern[str] | str = candidate if text else citation_pattern(candidate)
    held = HOLDOUT.glob("*/*/log.txt" if text else "*/*/case.yaml")
    if _any(held, needle):
        return "held-out"
    rest = (p for p in _files(ROOT) if not p.is_relative_to(HOLDOUT))
    if _any(rest, needle) or _any(_files(SHARED_CORPUS), needle):
        return "cited"
    return "free"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("candidates", nargs="+", help="URLs, owner/repo#N, or with --text lines")
    parser.add_argument("--text", action="store_true", help="the candidates are log text")
    args = parser.parse_args(argv)
    answers = [(c, where(c, text=args.text)) for c in args.candidates]
    for candidate, answer in answers:
        print(f"{answer}\t{candidate}")
    return 0 if all(answer == "free" for _, answer in answers) else 1


if __name__ == "__main__":
    sys.exit(main())
