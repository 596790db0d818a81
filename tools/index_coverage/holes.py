"""Mine what fills each hole of the index's error templates: the source expression behind every
placeholder (`{self.model_config.dtype}` -> `self.model_config.dtype`).

The message index keeps only a hole's type (`{int}`, `{any}`, ...); coverage.py needs to know
what a hole holds to fill it with a value a real log would show (a dtype, a model name, a path),
not with one stand-in name for every hole. This reads the same release sources as
`tools/vllm_index/mine.py` (its `Renderer` and walker, so the template texts are identical) and
writes `holes.json.gz` beside this file: per template text, per placeholder, the expressions that
fill it (several when adjacent holes merge into one placeholder).

    .venv/bin/python tools/index_coverage/holes.py --src DIR [DIR ...]

Each DIR is one release's extracted source (DIR/vllm/...). Newer releases first win: a template
printed by several releases takes the names of the first DIR (in version order, newest first)
that prints it. The same sources give the same bytes.
"""

from __future__ import annotations

import argparse
import ast
import json
import string
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vllm_index"))
import mine  # noqa: E402  (the index's own renderer: the same template texts)
from logsleuth.index.data import MessageKind, default_index  # noqa: E402
from logsleuth.index.lookup import PLACEHOLDER  # noqa: E402
from logsleuth.index.versions import version_key  # noqa: E402

OUT = Path(__file__).with_name("holes.json.gz")
MAX_HINT = 80  # an expression longer than this is cut: its names are at its start


def _hint(node: ast.expr) -> str:
    return ast.unparse(node)[:MAX_HINT]


class NamedRenderer(mine.Renderer):
    """mine.Renderer whose placeholders also carry the expression that fills them:
    `(type, expression)` where the miner has `(type,)`; join_parts reads only the type."""

    def render(self, node: ast.expr, line: int, depth: int = 0) -> list[mine.Part]:
        if isinstance(node, ast.JoinedStr):
            parts: list[mine.Part] = []
            for value in node.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    parts.append(value.value)
                elif isinstance(value, ast.FormattedValue):
                    parts.append((self._formatted_type(value), _hint(value.value)))  # type: ignore[arg-type]
            return parts
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "format":
            base = super().render(node.func.value, line, depth)
            if all(isinstance(p, str) for p in base):
                return _format_parts("".join(p for p in base if isinstance(p, str)), node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            left = super().render(node.left, line, depth)
            if all(isinstance(p, str) for p in left):
                values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
                return _named(mine.percent_parts("".join(p for p in left if isinstance(p, str))),
                              values)
        return super().render(node, line, depth)


def _named(parts: list[mine.Part], values: Iterable[ast.expr | None]) -> list[mine.Part]:
    """The placeholders of `parts` named, in order, by `values` (a `%` operator's or a `.format()`
    call's arguments; None leaves a placeholder unnamed)."""
    names = iter(values)
    out: list[mine.Part] = []
    for part in parts:
        if isinstance(part, tuple):
            value = next(names, None)
            part = (part[0], _hint(value)) if value is not None else part  # type: ignore[assignment]
        out.append(part)
    return out


def _format_parts(text: str, call: ast.Call) -> list[mine.Part]:
    """mine.format_parts with each field named by the `.format()` argument that fills it."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    parts = mine.format_parts(text)
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
    except ValueError:
        return parts
    values: list[ast.expr | None] = []
    automatic = 0
    for field in fields:
        head = field.split(".")[0].split("[")[0]
        if head == "":
            head, automatic = str(automatic), automatic + 1
        if head.isdigit():
            index = int(head)
            values.append(call.args[index] if index < len(call.args) else None)
        else:
            values.append(keywords.get(head))
    return _named(parts, values)


class NamedWalker(mine._Walker):
    """The miner's walk, keeping each template's hole expressions."""

    renderer = NamedRenderer

    def __init__(self, module: str) -> None:
        super().__init__(module)
        self.holes: list[tuple[str, list[list[str]]]] = []
        self._arguments: list[ast.expr] = []

    def visit_Call(self, node: ast.Call) -> None:
        self._arguments = node.args[1:]  # a logger's %-arguments, read by _add below
        super().visit_Call(node)

    def _add(self, message: ast.expr, line: int, kind: str, cls: str,
             percent_args: bool = False) -> None:
        parts = self.renderers[-1].render(message, line)
        if percent_args and all(isinstance(p, str) for p in parts):
            parts = _named(mine.percent_parts("".join(p for p in parts if isinstance(p, str))),
                           self._arguments)
        template = mine.join_parts(parts)
        if mine.useful(template):
            self.holes.append((template, groups(parts)))


def groups(parts: list[mine.Part]) -> list[list[str]]:
    """Per placeholder of join_parts(parts), the expressions that fill it (adjacent holes merge
    into one placeholder there, so their expressions into one group here)."""
    out: list[list[str]] = []
    previous = False
    for part in parts:
        if isinstance(part, str):
            if part:
                previous = False
            continue
        if not previous:
            out.append([])
        if len(part) > 1:
            out[-1].append(part[1])  # type: ignore[misc]
        previous = True
    return out


def holes_of(root: Path, wanted: set[str]) -> dict[str, list[list[str]]]:
    """The hole expressions of every wanted template in one release's source tree."""
    found: dict[str, list[list[str]]] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).with_suffix("")
        module = ".".join(relative.parts).removesuffix(".__init__")
        try:
            tree = ast.parse(path.read_bytes(), filename=str(relative))
        except (SyntaxError, ValueError):
            continue
        walker = NamedWalker(module)
        walker.visit(tree)
        for template, named in walker.holes:
            # a text whose literal part reads like a placeholder ("intermediate_{int}")
            # cannot be named hole by hole
            if template in wanted and template not in found and any(named) \
                    and len(named) == len(PLACEHOLDER.findall(template)):
                found[template] = named
    return found


def error_texts() -> set[str]:
    """The texts coverage.py measures: raised, or logged at ERROR/CRITICAL."""
    return {t.text for t in default_index().templates
            if t.kind is MessageKind.RAISE or t.cls in ("ERROR", "CRITICAL")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, nargs="+", required=True,
                        help="extracted release sources, one DIR/vllm/ each")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    roots = sorted(args.src, key=lambda p: version_key(p.name.rsplit("_", 1)[-1]), reverse=True)
    wanted = {t for t in error_texts() if "{" in t}
    holes: dict[str, list[list[str]]] = {}
    for root in roots:
        for template, named in holes_of(root, wanted).items():
            holes.setdefault(template, named)
        print(f"{root.name}: {len(holes)} of {len(wanted)} templates named", file=sys.stderr)
    mine.write({"sources": [r.name for r in roots], "holes": holes}, args.out)  # the same bytes for the same content
    print(f"-> {args.out} ({args.out.stat().st_size:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
