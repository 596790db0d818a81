"""Mine the flags of `vllm serve` that only the API server reads (`--tool-call-parser`,
`--lora-modules`, `--port`): they have no Python keyword in `LLM(...)` or `EngineArgs`.

Usage: python tools/vllm_index/server_flags.py --src DIR [DIR ...] [--out PATH]

Each DIR is one release's extracted source (DIR/vllm/..., as fetch.py lays it out). A flag is the
server's when some release declares it in a `cli_args.py` of `vllm/entrypoints` (a literal
`add_argument`, or a field of a `*FrontendArgs` class whose flags are generated from its fields)
and no release makes it an engine argument (a field of `EngineArgs`/`AsyncEngineArgs`, or a
literal `add_argument` of `vllm/engine/arg_utils.py`): a flag that moved into the engine
(`--reasoning-parser`) has its keyword in the releases that moved it. Writes
`logsleuth/index/vllm_server_flags.json.gz` deterministically. Not run-time code.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's logsleuth
from logsleuth.index.versions import version_key  # noqa: E402

import mine  # noqa: E402  (this folder's index miner, on the path when run as a script)

OUT = Path(__file__).resolve().parents[2] / "logsleuth" / "index" / "vllm_server_flags.json.gz"
SCHEMA = "logsleuth.vllm-server-flags/1"


def _trees(paths: Iterable[Path]) -> Iterable[ast.Module]:
    for path in paths:
        if path.is_file():
            yield ast.parse(path.read_bytes())


def _literal_flags(tree: ast.Module) -> set[str]:
    """Every `--flag` an `add_argument` call names literally."""
    found: set[str] = set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        callee = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if callee == "add_argument":
            found |= {a.value for a in call.args if isinstance(a, ast.Constant)
                      and isinstance(a.value, str) and a.value.startswith("--")
                      and not a.value.startswith("---")}
    return found


def _field_flags(tree: ast.Module, classes: Iterable[str] = (), suffix: str = "") -> set[str]:
    """The flags generated from the public fields of the classes named (or ending in suffix)."""
    found: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        if cls.name in classes or (suffix and cls.name.endswith(suffix)):
            found |= {"--" + s.target.id.replace("_", "-") for s in cls.body
                      if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                      and not s.target.id.startswith("_")}
    return found


def flags_of(root: Path) -> tuple[set[str], set[str]]:
    """(the API server's flags, the engine's flags) of one release."""
    server: set[str] = set()
    for tree in _trees(sorted((root / "vllm" / "entrypoints").rglob("cli_args.py"))):
        server |= _literal_flags(tree) | _field_flags(tree, suffix="FrontendArgs")
    engine: set[str] = set()
    for tree in _trees([root / "vllm" / "engine" / "arg_utils.py"]):
        engine |= _literal_flags(tree) | _field_flags(tree, ("EngineArgs", "AsyncEngineArgs"))
    return server, engine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, nargs="+", required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    roots = sorted(args.src, key=lambda p: version_key(p.name))
    server: set[str] = set()
    engine: set[str] = set()
    for root in roots:
        ours, theirs = flags_of(root)
        server |= ours
        engine |= theirs
        print(f"{root.name}: {len(ours)} server flags, {len(theirs)} engine flags", file=sys.stderr)
    flags = sorted(server - engine)
    # the index's own writer: the same flags give the same bytes
    mine.write({"schema": SCHEMA, "sources": [r.name for r in roots], "flags": flags}, args.out)
    print(f"-> {args.out}: {len(flags)} flags ({args.out.stat().st_size:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
