"""Engine arguments (flag, field, type, default, help) and environment variables of one release.

Read from the source with `ast`: EngineArgs' dataclass fields, every `add_argument` call in the
argument modules, the docstrings of the config dataclasses' fields (vLLM's `--help` text since
the configs moved to dataclasses), and the `environment_variables` table of `vllm/envs.py`.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

HELP_CHARS = 240  # the first sentence or two: enough to say what a flag does
ARGUMENT_MODULES = ("vllm/engine/arg_utils.py", "vllm/entrypoints/openai/cli_args.py")


def _parse(path: Path) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None


def _text(node: ast.expr | None) -> str | None:
    """A literal string (concatenations included), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    return None


def _short(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= HELP_CHARS else text[:HELP_CHARS - 3].rstrip() + "..."


def _unparse(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    text = ast.unparse(node)
    return text if len(text) <= 120 else text[:117] + "..."


def config_fields(root: Path) -> dict[tuple[str, str], tuple[str | None, str | None, str | None]]:
    """(config class, field) -> (type, default, docstring) for every dataclass-like config."""
    paths = [root / "vllm" / "config.py", *sorted((root / "vllm" / "config").glob("*.py"))]
    fields: dict[tuple[str, str], tuple[str | None, str | None, str | None]] = {}
    for path in paths:
        tree = _parse(path)
        if tree is None:
            continue
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            body = cls.body
            for i, stmt in enumerate(body):
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    doc = None
                    if i + 1 < len(body) and isinstance(body[i + 1], ast.Expr):
                        doc = _text(body[i + 1].value)  # type: ignore[attr-defined]
                    default = stmt.value
                    if isinstance(default, ast.Call) and _callee(default) in ("field", "Field"):
                        # dataclasses.field(default=...) and pydantic Field(default, ...)
                        default = next((k.value for k in default.keywords
                                        if k.arg in ("default", "default_factory")),
                                       default.args[0] if default.args else None)
                    fields[(cls.name, stmt.target.id)] = (
                        _unparse(stmt.annotation), _unparse(default), _short(doc))
    return fields


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None


def _config_ref(text: str | None) -> tuple[str, str] | None:
    """`CacheConfig.gpu_memory_utilization` or `get_field(CacheConfig, "x")` -> (class, field)."""
    if not text:
        return None
    if text.startswith("get_field("):
        inner = text[len("get_field("):].rstrip(")").split(",")
        if len(inner) == 2:
            return inner[0].strip(), inner[1].strip().strip("'\"")
        return None
    head, _, field = text.partition(".")
    if field and head.endswith("Config") and field.isidentifier():
        return head, field
    return None


def engine_arguments(root: Path) -> list[dict[str, object]]:
    """One record per CLI flag: flag, field, type, default, help."""
    configs = config_fields(root)
    records: dict[str, dict[str, object]] = {}
    engine_fields: dict[str, tuple[str | None, str | None]] = {}
    for relative in ARGUMENT_MODULES:
        tree = _parse(root / relative)
        if tree is None:
            continue
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
                    and n.name in ("EngineArgs", "AsyncEngineArgs")):
            for stmt in cls.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    engine_fields[stmt.target.id] = (_unparse(stmt.annotation),
                                                     _unparse(stmt.value))
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and _callee(n) == "add_argument"):
            flags = [a.value for a in call.args
                     if isinstance(a, ast.Constant) and isinstance(a.value, str)
                     and a.value.startswith("--") and not a.value.startswith("---")]
            if not flags:
                continue
            flag = flags[0]
            keywords = {k.arg: k.value for k in call.keywords if k.arg}
            field = _text(keywords.get("dest")) or flag[2:].replace("-", "_")
            action = _text(keywords.get("action"))
            default = _unparse(keywords["default"]) if "default" in keywords else None
            records[flag] = {
                "flag": flag, "field": field,
                "type": _unparse(keywords.get("type")) or ("bool" if action and "store" in action
                                                           and "const" not in action else None),
                "default": default, "help": _short(_text(keywords.get("help")))}
    # EngineArgs fields whose flag is generated from the field name (no literal add_argument)
    for field in sorted(engine_fields):
        flag = "--" + field.replace("_", "-")
        if flag not in records:
            records[flag] = {"flag": flag, "field": field, "type": None, "default": None,
                             "help": None}
    for record in records.values():
        _complete(record, engine_fields, configs)
    return sorted(records.values(), key=lambda r: str(r["flag"]))


def _complete(record: dict[str, object], engine_fields: dict[str, tuple[str | None, str | None]],
              configs: dict[tuple[str, str], tuple[str | None, str | None, str | None]]) -> None:
    """Fill type, default and help from EngineArgs and the config field they refer to."""
    field = str(record["field"])
    annotation, engine_default = engine_fields.get(field, (None, None))
    default = record["default"]
    if default is None or (isinstance(default, str) and default.startswith(
            ("EngineArgs.", "AsyncEngineArgs."))):
        default = engine_default
    ref = _config_ref(default if isinstance(default, str) else None)
    config = configs.get(ref) if ref else None
    if config is not None:
        default = config[1]
    record["default"] = default
    record["type"] = record["type"] or annotation or (config[0] if config else None)
    record["help"] = record["help"] or (config[2] if config else None)


def _is_engine_ref(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
        and node.value.id in ("EngineArgs", "AsyncEngineArgs")


def environment_variables(root: Path) -> list[dict[str, object]]:
    """vllm/envs.py's `environment_variables` table: name, default, the comment above it."""
    path = root / "vllm" / "envs.py"
    tree = _parse(path)
    if tree is None:
        return []
    lines = path.read_text(errors="replace").splitlines()
    table: ast.Dict | None = None
    for node in ast.walk(tree):
        target = node.target if isinstance(node, ast.AnnAssign) else \
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id == "environment_variables" \
                and isinstance(node.value, ast.Dict):  # type: ignore[union-attr]
            table = node.value  # type: ignore[union-attr]
    if table is None:
        return []
    out: list[dict[str, object]] = []
    previous_end = table.lineno
    for key, value in zip(table.keys, table.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        comment = [line.strip().lstrip("#").strip() for line in lines[previous_end:key.lineno - 1]
                   if line.strip().startswith("#")]
        previous_end = (value.end_lineno or value.lineno)
        out.append({"name": key.value, "default": _env_default(key.value, value),
                    "help": _short(" ".join(comment))})
    return sorted(out, key=lambda r: str(r["name"]))


def _env_default(name: str, value: ast.expr) -> str | None:
    """The default of the os.getenv / os.environ.get call that reads this variable."""
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and _callee(node) in ("getenv", "get") \
                and len(node.args) >= 2 and _text(node.args[0]) == name:
            return _unparse(node.args[1])
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and _callee(node) in ("getenv", "get") \
                and len(node.args) >= 2:
            return _unparse(node.args[1])
    return None
