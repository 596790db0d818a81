"""A data file's compiled form, kept between runs for the file's bytes and the code that builds it.

causality.yaml, facts.yaml and remedy.yaml are read with YAML and their patterns compiled with
`regex` (a parser written in Python) at every start: ~120 ms of CPU before the first line, with
the YAML library's import. `regex` pickles a pattern with its compiled program, so a pickled copy
loads in a few milliseconds. A copy is named by a digest of the file's bytes, the code files
that build and hold its objects, Python, `regex` and logsleuth's version: any change makes a new
one. The lexers' texts read off the grammar (tokenize/grammar.py) are kept the same way, so a
run whose bodies all take the fast path never loads Lark's tables, with the programs `re` compiles
the lexers' alternations into (re_program: `re`'s pattern parser and compiler are Python, ~0.1 s
for the lexers' texts at every start). `LOGSLEUTH_NO_CACHE` turns it
off (resources.cache_dir); a copy that cannot be read (damaged, written by other code) is built
again, and one that cannot be written is no copy.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import regex

from logsleuth.resources import cache_dir

_T = TypeVar("_T")

FORMAT = 1  # bump when what a copy holds changes in a way the key misses

# what reading a copy this code cannot use may raise (an unpickled value is then checked by
# `restore`, which raises one of these too)
_UNREADABLE = (OSError, pickle.PickleError, EOFError, AttributeError, ValueError, TypeError,
               ImportError, IndexError, KeyError)


def kept(name: str, source: Path, code: Iterable[Path], build: Callable[[Path], _T],
         kind: type[_T], save: Callable[[_T], Any] = lambda value: value,
         restore: Callable[[Any], object] = lambda value: value) -> _T:
    """`build(source)`, or what `restore` makes of the copy `save` gave for the same bytes of
    `source` and the same `code` (default: the object itself, pickled), when that is a `kind`."""
    try:
        copy = where(name, source.read_bytes(), code)
    except OSError:
        copy = None  # `build` says what is wrong with the file
    if copy is not None:
        try:
            with open(copy, "rb") as handle:
                found = restore(pickle.load(handle))
            if isinstance(found, kind):
                return found
        except _UNREADABLE:
            pass  # no copy yet, or one this code cannot read: build it
    value = build(source)
    if copy is not None:
        try:
            copy.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=copy.parent, delete=False) as out:
                pickle.dump(save(value), out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(out.name, copy)
        except (OSError, pickle.PickleError, TypeError, AttributeError):
            pass  # a cache that cannot be written is no cache (a read-only home, say)
    return value


def where(name: str, raw: bytes, code: Iterable[Path]) -> Path | None:
    """Where the copy of `name` made from the bytes `raw` by `code` is kept (None: caching is
    off, or a code file cannot be read). `code` names every module whose code decides what the
    copy holds: the one that builds it, those whose classes it holds, and those that derive
    values kept in it (a pattern's required text, literal.py)."""
    from logsleuth import __version__

    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(f"{FORMAT}:{name}:{__version__}:{sys.version}:{regex.__version__}:"
                            .encode())
    digest.update(raw)
    here = Path(__file__)  # and how YAML is read, for every data file
    for path in (here, here.with_name("yamlload.py"), *code):
        try:
            stat = path.stat()
        except OSError:
            return None
        digest.update(f"\0{path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return folder / f"{name}-{digest.hexdigest()[:32]}.pickle"


def re_program(text: str) -> tuple[Any, ...]:
    """What `re.compile(text)` hands CPython's `_sre.compile` (its pattern, flags, compiled code
    and groups), as `re._compiler.compile` makes it: kept beside the texts it is made from, under
    a key that names this Python (`where`), and made a pattern again by `re_from`."""
    import importlib  # CPython's own modules: re_from falls back on re.compile

    parser, compiler = (importlib.import_module(f"re._{name}") for name in ("parser", "compiler"))
    parsed = parser.parse(text, 0)
    code = compiler._code(parsed, 0)
    state = parsed.state
    indexgroup: list[str | None] = [None] * state.groups
    for name, index in state.groupdict.items():
        indexgroup[index] = name
    return (text, int(state.flags), [int(c) for c in code], state.groups - 1,
            dict(state.groupdict), tuple(indexgroup))


def re_from(text: str, programs: dict[str, tuple[Any, ...]] | None) -> re.Pattern[str]:
    """`re.compile(text)`, from its kept program when `programs` holds one (the same pattern
    object: the same code handed to `_sre.compile`), else compiled."""
    program = programs.get(text) if programs else None
    if program and program[0] == text:
        try:
            import importlib

            compiled: re.Pattern[str] = importlib.import_module("_sre").compile(*program)
            return compiled
        except (ImportError, TypeError, ValueError, RuntimeError):
            pass  # another Python's program: compile it
    return re.compile(text)
