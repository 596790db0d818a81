"""Mine the keys of vLLM's JSON-valued settings: which configuration class fields are set through
which flag (`cudagraph_mode` -> `--compilation-config`, `kv_role` -> `--kv-transfer-config`).

Usage: python tools/vllm_index/config_keys.py --src DIR [DIR ...] [--out PATH]

Each DIR is one release's extracted source (DIR/vllm/..., as fetch.py lays it out); newer
releases first win for a key both have. A configuration class (any class of `vllm/config/*.py`,
or V0's `vllm/config.py`) is a flag's value when another configuration class has a field of
that class (`compilation_config: CompilationConfig`) and the message index knows the flag
`--compilation-config`; that class's public fields are the flag's keys, and the fields of a
class one level below (`pass_config: PassConfig`) its nested keys (`pass_config.fuse_attn_quant`).
vLLM's messages name these keys in their own words ("cudagraph_mode=FULL is not supported",
"Please specify kv_role when kv_connector is set"); the message index's engine arguments name
only the flags. Writes `logsleuth/index/vllm_config_keys.json.gz` deterministically (the same
sources give the same bytes). Not run-time code.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's logsleuth
from logsleuth.index.data import default_index  # noqa: E402
from logsleuth.index.versions import version_key  # noqa: E402

import mine  # noqa: E402  (this folder's index miner, on the path when run as a script)

OUT = Path(__file__).resolve().parents[2] / "logsleuth" / "index" / "vllm_config_keys.json.gz"
SCHEMA = "logsleuth.vllm-config-keys/1"


def classes_of(root: Path) -> dict[str, dict[str, set[str]]]:
    """Per configuration class: each public field and the class names its annotation mentions."""
    found: dict[str, dict[str, set[str]]] = {}
    files = [*sorted((root / "vllm" / "config").glob("*.py")), root / "vllm" / "config.py"]
    for path in files:
        if not path.is_file():
            continue
        for node in ast.walk(ast.parse(path.read_bytes())):
            if not isinstance(node, ast.ClassDef):
                continue
            fields = found.setdefault(node.name, {})
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) \
                        and not item.target.id.startswith("_") and settable(item):
                    fields[item.target.id] = {n.id for n in ast.walk(item.annotation)
                                              if isinstance(n, ast.Name)}
    return found


def settable(item: ast.AnnAssign) -> bool:
    """Not a derived field (`field(init=False)`): a user cannot set it."""
    value = item.value
    return not (isinstance(value, ast.Call) and any(
        k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in value.keywords))


def keys_of(root: Path, flags: set[str]) -> dict[str, list[str]]:
    """Per key, the `flag path` pairs that set it in one release: ["--compilation-config",
    "pass_config.fuse_attn_quant"]."""
    classes = classes_of(root)
    valued: dict[str, str] = {}  # class -> the flag whose value it is
    for fields in classes.values():
        for field, names in fields.items():
            flag = "--" + field.replace("_", "-")
            for name in names:
                if name in classes and name.endswith("Config") and flag in flags:
                    valued.setdefault(name, flag)
    top = {n for names in classes.get("VllmConfig", {}).values() for n in names
           if n in classes and n.endswith("Config")}
    found: dict[str, list[str]] = {}
    for cls, flag in sorted(valued.items()):
        for field, names in sorted(classes[cls].items()):
            if "_" in field and not names & top:  # not a whole engine config (target_model_config)
                found.setdefault(field, [flag, field])
            for inner in sorted(names):
                # a class of its own in the engine's configuration (the draft's ModelConfig in
                # SpeculativeConfig) is not a key set through this flag
                if inner in classes and inner.endswith("Config") and inner not in valued \
                        and inner not in top:
                    for key in sorted(classes[inner]):
                        if "_" in key:
                            found.setdefault(key, [flag, f"{field}.{key}"])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, nargs="+", required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    index = default_index()
    flags = {a.flag for a in index.arguments}
    fields = {a.field for a in index.arguments}
    roots = sorted(args.src, key=lambda p: version_key(p.name), reverse=True)
    keys: dict[str, list[str]] = {}
    for root in roots:
        for key, where in keys_of(root, flags).items():
            if key not in fields:  # an engine argument of its own: the index names its flag
                keys.setdefault(key, where)
        print(f"{root.name}: {len(keys)} keys", file=sys.stderr)
    # the index's own writer: the same keys give the same bytes
    mine.write({"schema": SCHEMA, "sources": [r.name for r in roots], "keys": keys}, args.out)
    print(f"-> {args.out} ({args.out.stat().st_size:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
