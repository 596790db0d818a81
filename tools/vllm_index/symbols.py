"""Mine vLLM's public import surface: which names each `vllm.*` module offers, per release.

Usage: python tools/vllm_index/symbols.py --cache DIR [--out PATH]

Reads the sources fetch.py extracted into DIR/src/<version>/ (parsed with `ast`, never imported
or run). A module offers the names its top level binds: `def`, `class`, assignments, names it
re-exports from another vLLM module (`from vllm.x import Y`, `from .x import Y`), and the strings
of its `__all__` (lazy `__getattr__` exports are listed there). Statements under a top-level
`if`/`try`/`with` count (`if TYPE_CHECKING:`, optional imports). Private names (`_x`) and names
imported from other packages (`from typing import List`) are left out: nobody imports them from
vLLM on purpose. The result is stored as changes only: each (name, module) pair and each module
with the runs of releases that hold it, written as deterministic gzipped JSON (the same releases
give the same bytes).
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

from mine import _cached, cache_and_releases, runs, write

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's logsleuth

SCHEMA = "logsleuth.vllm-symbols/1"


def _module_name(root: Path, path: Path) -> str:
    relative = path.relative_to(root).with_suffix("")
    module = ".".join(relative.parts)
    return module[: -len(".__init__")] if module.endswith(".__init__") else module


def _from_vllm(node: ast.ImportFrom) -> bool:
    """Whether an import reads from vLLM itself (relative, or `vllm...`)."""
    return node.level > 0 or (node.module or "").split(".", 1)[0] == "vllm"


def _targets(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from _targets(element)


def _strings(node: ast.expr | None) -> Iterator[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        for element in node.elts:
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                yield element.value


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements, into top-level `if`/`try`/`with` blocks (not functions)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(stmt.orelse)
            yield from _top_level(stmt.finalbody)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _top_level(stmt.body)


def _logger(value: ast.expr | None) -> bool:
    """`init_logger(__name__)`: every module's own logger, never imported from it."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id == "init_logger"


def names_of(tree: ast.Module, package: bool) -> tuple[set[str], set[str]]:
    """The public names a module's top level defines or exports. A re-export counts in a
    package's `__init__` (its public face) and when `__all__` lists it; an ordinary module's
    imports of vLLM names (every model file imports `VllmConfig`) are its own business, and
    would be most of the data. Returns (names, those defined by `def`/`class` here): the
    definition is where a moved name is best imported from, not a stub (`X = object` under
    `if TYPE_CHECKING:`) or a re-export."""
    found: set[str] = set()
    defined: set[str] = set()
    imported: set[str] = set()
    for stmt in _top_level(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(stmt.name)
            defined.add(stmt.name)
        elif isinstance(stmt, ast.Assign) and not _logger(stmt.value):
            for target in stmt.targets:
                found.update(_targets(target))
                if isinstance(target, ast.Name) and target.id == "__all__":
                    found.update(_strings(stmt.value))
        elif isinstance(stmt, ast.AnnAssign) and not _logger(stmt.value):
            found.update(_targets(stmt.target))
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id == "__all__":
            found.update(_strings(stmt.value))
        elif isinstance(stmt, ast.ImportFrom) and _from_vllm(stmt):
            imported.update(alias.asname or alias.name for alias in stmt.names
                            if alias.name != "*")
    if package:
        found |= imported
    public = {name for name in found if name.isidentifier() and not name.startswith("_")}
    return public, defined & public


def surface_of(root: Path) -> dict[str, list[list[str]]]:
    """One release's modules, each with its public names and those it defines (sorted)."""
    out: dict[str, list[list[str]]] = {}
    for path in sorted(root.rglob("*.py")):
        module = _module_name(root, path)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_bytes(), filename=str(path.relative_to(root)))
        except (SyntaxError, ValueError):
            out[module] = [[], []]  # the module exists; what it offers is unknown
            continue
        names, defined = names_of(tree, path.name == "__init__.py")
        out[module] = [sorted(names), sorted(defined)]
    return out


def _digest() -> str:
    """Changes whenever this file does: each release's surface is cached under it."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


def build(cache: Path, releases: list[str]) -> dict[str, object]:
    modules: dict[str, list[int]] = {}
    pairs: dict[tuple[str, str], list[int]] = {}
    defines: set[tuple[str, str]] = set()
    for index, version in enumerate(releases):
        surface = _cached(cache / "mined" / f"{version}.symbols-{_digest()}.json",
                          lambda v=version: surface_of(cache / "src" / v))
        for module, (names, defined) in surface.items():
            modules.setdefault(module, []).append(index)
            for name in names:
                pairs.setdefault((name, module), []).append(index)
            defines.update((name, module) for name in defined)
        print(f"{version}: {len(surface)} modules, {sum(len(n) for n, _ in surface.values())} names",
              file=sys.stderr)
    order = sorted(modules)
    position = {module: i for i, module in enumerate(order)}
    names: dict[str, list[list[object]]] = {}
    for (name, module), indices in sorted(pairs.items()):
        # a third element, 1: a `def` or `class` of that name lives there in some release
        home: list[object] = [position[module], runs(indices)]
        names.setdefault(name, []).append(home + [1] if (name, module) in defines else home)
    body: dict[str, object] = {
        "releases": releases,
        "modules": [[module, runs(modules[module])] for module in order],
        "names": [[name, homes] for name, homes in sorted(names.items())]}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    return {"schema": SCHEMA, "stamp": f"{releases[-1]}+{digest}", **body}


def main() -> None:
    args, releases = cache_and_releases(__doc__.splitlines()[0], "vllm_symbols.json.gz")
    index = build(args.cache, releases)
    write(index, args.out)
    print(f"{len(releases)} releases, {len(index['modules'])} modules, "  # type: ignore[arg-type]
          f"{len(index['names'])} names -> {args.out} ({args.out.stat().st_size:,} bytes)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
