"""vLLM's public import surface per release: which module offers which name, which modules exist.

Mined by `tools/vllm_index/symbols.py` from the same releases as the message index and shipped as
`vllm_symbols.json.gz` (changes only: each (name, module) pair and each module with the runs of
releases holding it). Read on first use, never at import. `drift.py` asks it where a name a
caller imports went, and since when.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

DATA_FILE = "vllm_symbols.json.gz"
SCHEMA = "logsleuth.vllm-symbols/1"


@dataclass(frozen=True, slots=True)
class Home:
    """One module offering a name, in some releases."""

    module: str
    releases: tuple[int, ...]  # indexes into SymbolIndex.releases
    defines: bool  # a `def`/`class` of the name lives there (not only a re-export or a stub)


@dataclass(frozen=True, slots=True)
class SymbolIndex:
    """Every indexed release's modules and the public names each offers."""

    stamp: str
    releases: tuple[str, ...]  # oldest first
    modules: dict[str, tuple[int, ...]]  # module -> releases holding it
    names: dict[str, tuple[Home, ...]]  # name -> the modules offering it

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SymbolIndex:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} file: {data.get('schema')!r}")
        order = [module for module, _ in data["modules"]]
        modules = {module: _expand(runs) for module, runs in data["modules"]}
        names = {name: tuple(Home(order[home[0]], _expand(home[1]), len(home) > 2)
                             for home in homes) for name, homes in data["names"]}
        return cls(data["stamp"], tuple(data["releases"]), modules, names)

    def offers(self, module: str, name: str) -> tuple[int, ...]:
        """The releases in which `module` offers `name` (none: never)."""
        return next((h.releases for h in self.names.get(name, ()) if h.module == module), ())

    def homes_in(self, name: str, release: int) -> tuple[str, ...]:
        """The modules offering `name` in `release`, best import path first: where a `def` or
        `class` of it lives, then re-exports; shorter paths first within each."""
        found = [h for h in self.names.get(name, ()) if release in h.releases]
        found.sort(key=lambda h: (not h.defines, h.module.count("."), h.module))
        return tuple(h.module for h in found)

    def defined_in(self, module: str, release: int) -> tuple[str, ...]:
        """The names a `def`/`class` of `module` binds in `release` (what moving it moves)."""
        return tuple(sorted(name for name, homes in self.names.items() for h in homes
                            if h.module == module and h.defines and release in h.releases))


def _expand(runs: Sequence[Sequence[int]]) -> tuple[int, ...]:
    return tuple(i for start, end in runs for i in range(start, end + 1))


@cache
def default_symbols() -> SymbolIndex:
    """The surface shipped inside the package, loaded on first use."""
    raw = resources.files("logsleuth.index").joinpath(DATA_FILE).read_bytes()
    return SymbolIndex.from_dict(json.loads(gzip.decompress(raw)))
