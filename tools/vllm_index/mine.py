"""Mine every message vLLM can print, its engine arguments and environment variables.

Usage: python tools/vllm_index/mine.py --cache DIR [--out PATH]

Reads the sources fetch.py extracted into DIR/src/<version>/ (parsed with `ast`, never
imported or run), and writes the merged index as deterministic gzipped JSON: the same
releases give the same bytes.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import io
import json
import re
import string
import sys
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from args import engine_arguments, environment_variables

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's logsleuth
from logsleuth.index.lookup import TOKEN, literal_of  # noqa: E402  (one tokenizer for both)
from logsleuth.index.versions import version_key  # noqa: E402

SCHEMA = "logsleuth.vllm-index/1"
LOG_METHODS = {"error", "warning", "warn", "exception", "critical", "fatal", "warning_once",
               "error_once"}
MIN_LITERAL = 10  # a template with less fixed text than this matches anything: dropped
_PERCENT = re.compile(r"%(?:\((\w+)\))?[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")
_HAS_WORD = re.compile(r"[A-Za-z]{4,}")


# --- templates --------------------------------------------------------------------------------

Part = str | tuple[str]  # literal text, or (placeholder type,)


def _spec_type(spec: str) -> str:
    """The placeholder a format spec prints: `.2f` -> float, `d` -> int, `,` -> num."""
    if not spec:
        return "any"
    if "," in spec or "_" in spec:
        return "num"
    last = spec[-1]
    if last in "di":
        return "int"
    if last in "eEfFgG%":
        return "float"
    if last in "xX":
        return "hex" if "#" in spec else "any"
    return "any"


def _percent_type(conversion: str) -> str:
    return {"d": "int", "i": "int", "u": "int"}.get(conversion, "float" if conversion in "eEfFgG"
                                                    else "any")


class Renderer:
    """Turns a message expression into template parts, resolving local string variables."""

    def __init__(self, assigns: dict[str, list[tuple[int, ast.expr, bool]]]) -> None:
        self.assigns = assigns  # name -> [(line, value, is_augmented)]

    def render(self, node: ast.expr, line: int, depth: int = 0) -> list[Part]:
        if isinstance(node, ast.Constant):
            return [node.value] if isinstance(node.value, str) else \
                [str(node.value)] if isinstance(node.value, (int, float)) else [("any",)]
        if isinstance(node, ast.JoinedStr):
            parts: list[Part] = []
            for value in node.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    parts.append(value.value)
                elif isinstance(value, ast.FormattedValue):
                    parts.append((self._formatted_type(value),))
            return parts
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.render(node.left, line, depth) + self.render(node.right, line, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            left = self.render(node.left, line, depth)
            if all(isinstance(p, str) for p in left):
                return percent_parts("".join(p for p in left if isinstance(p, str)))
            return [("any",)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "format":
            base = self.render(node.func.value, line, depth)
            if all(isinstance(p, str) for p in base):
                return format_parts("".join(p for p in base if isinstance(p, str)))
            return [("any",)]
        if isinstance(node, ast.Name) and depth < 3:
            return self._resolve(node.id, line, depth)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "len":
            return [("int",)]
        return [("any",)]

    def _formatted_type(self, value: ast.FormattedValue) -> str:
        if value.conversion not in (-1, None) and value.conversion != ord("s"):
            return "any"
        spec = ""
        if isinstance(value.format_spec, ast.JoinedStr):
            spec = "".join(v.value for v in value.format_spec.values
                           if isinstance(v, ast.Constant) and isinstance(v.value, str))
        kind = _spec_type(spec)
        if kind == "any" and isinstance(value.value, ast.Call) \
                and isinstance(value.value.func, ast.Name) and value.value.func.id == "len":
            return "int"
        return kind

    def _resolve(self, name: str, line: int, depth: int) -> list[Part]:
        history = [entry for entry in self.assigns.get(name, ()) if entry[0] < line]
        if not history:
            return [("any",)]
        # the last plain assignment before the use, then every `+=` after it
        start = max((i for i, entry in enumerate(history) if not entry[2]), default=None)
        if start is None:
            return [("any",)]
        parts: list[Part] = []
        for at, value, _ in history[start:]:
            parts += self.render(value, at, depth + 1)
        if not any(isinstance(p, str) and p.strip() for p in parts):
            return [("any",)]
        return parts


def percent_parts(text: str) -> list[Part]:
    parts: list[Part] = []
    position = 0
    for found in _PERCENT.finditer(text):
        parts.append(text[position:found.start()])
        parts.append("%" if found.group(2) == "%" else (_percent_type(found.group(2)),))
        position = found.end()
    parts.append(text[position:])
    return parts


def format_parts(text: str) -> list[Part]:
    parts: list[Part] = []
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return [text]
    for literal, field, spec, conversion in fields:
        parts.append(literal)
        if field is not None:
            parts.append(("any",) if conversion == "r" else (_spec_type(spec or ""),))
    return parts


def join_parts(parts: list[Part]) -> str:
    """Parts to the template text; consecutive placeholders merge (`{any}{any}` -> `{any}`)."""
    out: list[str] = []
    previous_placeholder: str | None = None
    for part in parts:
        if isinstance(part, str):
            if part:
                out.append(part)
                previous_placeholder = None
            continue
        kind = part[0]
        if previous_placeholder is not None:
            if previous_placeholder != kind:
                out[-1] = "{any}"
                previous_placeholder = "any"
            continue
        out.append("{" + kind + "}")
        previous_placeholder = kind
    return " ".join("".join(out).split())  # whitespace as the log shows it: one space


def useful(template: str) -> bool:
    fixed = literal_of(template)
    return sum(c.isalnum() for c in fixed) >= MIN_LITERAL and bool(_HAS_WORD.search(fixed))


# --- the walk over one file -------------------------------------------------------------------

@dataclass(frozen=True, order=True)
class Message:
    template: str
    kind: str  # raise | log | warn
    cls: str  # exception class, log level, or warning category
    module: str
    function: str


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_logger(node: ast.expr) -> bool:
    name = _name(node)
    return name is not None and "log" in name.lower()


class _Walker(ast.NodeVisitor):
    renderer: type[Renderer] = Renderer  # tools/index_coverage/holes.py renders with hole names

    def __init__(self, module: str) -> None:
        self.module = module
        self.scope: list[str] = []
        self.renderers: list[Renderer] = [self.renderer({})]
        self.found: list[Message] = []

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        assigns: dict[str, list[tuple[int, ast.expr, bool]]] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1 \
                    and isinstance(sub.targets[0], ast.Name):
                assigns.setdefault(sub.targets[0].id, []).append((sub.lineno, sub.value, False))
            elif isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Add) \
                    and isinstance(sub.target, ast.Name):
                assigns.setdefault(sub.target.id, []).append((sub.lineno, sub.value, True))
        for entries in assigns.values():
            entries.sort(key=lambda e: e[0])
        self.scope.append(node.name)
        self.renderers.append(self.renderer(assigns))
        self.generic_visit(node)
        self.renderers.pop()
        self.scope.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def _add(self, message: ast.expr, line: int, kind: str, cls: str,
             percent_args: bool = False) -> None:
        parts = self.renderers[-1].render(message, line)
        if percent_args and all(isinstance(p, str) for p in parts):
            parts = percent_parts("".join(p for p in parts if isinstance(p, str)))
        template = join_parts(parts)
        if useful(template):
            function = ".".join(self.scope) or "<module>"
            self.found.append(Message(template, kind, cls, self.module, function))

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            cls = _name(exc.func)
            if cls is not None:
                self._add(exc.args[0], node.lineno, "raise", cls)
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        # `assert cond, msg` is how vLLM checks many preconditions; it prints as AssertionError: msg
        if node.msg is not None:
            self._add(node.msg, node.lineno, "raise", "AssertionError")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and node.args:
            if func.attr in LOG_METHODS and _is_logger(func.value):
                level = {"warn": "WARNING", "warning_once": "WARNING", "error_once": "ERROR",
                         "exception": "ERROR", "fatal": "CRITICAL"}.get(func.attr,
                                                                       func.attr.upper())
                self._add(node.args[0], node.lineno, "log", level, len(node.args) > 1)
            elif func.attr == "warn" and _name(func.value) == "warnings":
                category = _name(node.args[1]) if len(node.args) > 1 else None
                for keyword in node.keywords:
                    if keyword.arg == "category":
                        category = _name(keyword.value)
                self._add(node.args[0], node.lineno, "warn", category or "UserWarning")
        self.generic_visit(node)


def messages_of(root: Path) -> Iterator[Message]:
    """Every message in one release's extracted source tree (root/vllm/...)."""
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).with_suffix("")
        module = ".".join(relative.parts)
        if module.endswith(".__init__"):
            module = module[: -len(".__init__")]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_bytes(), filename=str(relative))
        except (SyntaxError, ValueError):
            print(f"  unparsable: {relative}", file=sys.stderr)
            continue
        walker = _Walker(module)
        walker.visit(tree)
        yield from walker.found


# --- merging ----------------------------------------------------------------------------------

def runs(indices: list[int]) -> list[list[int]]:
    """[0,1,2,5] -> [[0,2],[5,5]]: release sets as inclusive index ranges."""
    out: list[list[int]] = []
    for i in sorted(indices):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def merge_records(per_release: list[list[dict[str, object]]], key: str) -> list[dict[str, object]]:
    """Identical records across releases become one record with its release runs."""
    seen: dict[str, tuple[dict[str, object], list[int]]] = {}
    for index, records in enumerate(per_release):
        for record in records:
            identity = json.dumps(record, sort_keys=True)
            seen.setdefault(identity, (record, []))[1].append(index)
    merged = [dict(record, r=runs(indices)) for record, indices in seen.values()]
    merged.sort(key=lambda r: (str(r[key]), json.dumps(r, sort_keys=True)))
    return merged


# Bump when the message extraction changes: each release's messages are cached under it.
MESSAGES_VERSION = "messages-2"  # 2: assert messages


def _args_digest() -> str:
    """Changes whenever args.py does: each release's arguments are cached under it."""
    return hashlib.sha256((Path(__file__).parent / "args.py").read_bytes()).hexdigest()[:12]


def _cached(path: Path, compute):  # type: ignore[no-untyped-def]
    if path.exists():
        return json.loads(path.read_text())
    result = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, sort_keys=True))
    return result


def mine_release(cache: Path, version: str) -> dict[str, list[dict[str, object]]]:
    """One release's messages, arguments and variables (cached in cache/mined/)."""
    root = cache / "src" / version
    mined = cache / "mined"
    messages = _cached(mined / f"{version}.{MESSAGES_VERSION}.json", lambda: [
        {"t": m.template, "k": m.kind, "c": m.cls, "m": m.module, "f": m.function}
        for m in sorted(set(messages_of(root)))])
    settings = _cached(mined / f"{version}.args-{_args_digest()}.json", lambda: {
        "arguments": engine_arguments(root), "env": environment_variables(root)})
    return {"messages": messages, **settings}


def texts_and_sites(mined: list[list[dict[str, object]]]) -> dict[str, object]:
    """The index's `texts` (each with its lookup key) and `sites` (each naming its text by
    position) of every release's mined messages."""
    sites = merge_records(mined, "t")
    texts = sorted({str(site["t"]) for site in sites})
    position = {text: i for i, text in enumerate(texts)}
    tokens = {text: set(TOKEN.findall(literal_of(text))) for text in texts}
    frequency = Counter(token for found in tokens.values() for token in found)
    # each text is filed under its literal word that the fewest texts share (lookup.py)
    keys = [min(tokens[t], key=lambda w: (frequency[w], -len(w), w)) if tokens[t] else ""
            for t in texts]
    return {"texts": [[text, key] for text, key in zip(texts, keys)],
            "sites": [[position[str(s["t"])], s["k"], s["c"], s["m"], s["f"], s["r"]]
                      for s in sites]}


def build(cache: Path, releases: list[str]) -> dict[str, object]:
    mined = []
    for version in releases:
        mined.append(mine_release(cache, version))
        print(f"{version}: {len(mined[-1]['messages'])} messages, "
              f"{len(mined[-1]['arguments'])} arguments, {len(mined[-1]['env'])} env vars",
              file=sys.stderr)
    body: dict[str, object] = {
        "releases": releases,
        **texts_and_sites([m["messages"] for m in mined]),
        "arguments": merge_records([m["arguments"] for m in mined], "flag"),
        "env": merge_records([m["env"] for m in mined], "name")}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    return {"schema": SCHEMA, "stamp": f"{releases[-1]}+{digest}", **body}


def write(index: dict[str, object], out: Path) -> None:
    raw = json.dumps(index, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    buffer = io.BytesIO()
    # mtime=0 and no file name: the same index gives the same bytes
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(raw)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buffer.getvalue())


def cache_and_releases(description: str, data_file: str) -> tuple[argparse.Namespace, list[str]]:
    """The command line of a miner (`--cache`, `--out` defaulting to the shipped `data_file`) and
    the releases whose source fetch.py finished extracting into the cache, oldest first."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parents[2] / "logsleuth" / "index" / data_file)
    args = parser.parse_args()
    releases = sorted((p.name for p in (args.cache / "src").iterdir()
                       if (p / ".complete").exists()), key=version_key)
    return args, releases


def main() -> None:
    args, releases = cache_and_releases(__doc__.splitlines()[0], "vllm_index.json.gz")
    index = build(args.cache, releases)
    write(index, args.out)
    print(f"{len(releases)} releases, {len(index['texts'])} templates "  # type: ignore[arg-type]
          f"-> {args.out} ({args.out.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
