"""Safe YAML loading for data files: duplicate keys and aliases rejected, line numbers kept."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from logsleuth.errors import SignatureError

if TYPE_CHECKING:
    import yaml


@cache
def _loader() -> Any:
    """libyaml's parser when present: ten times faster than the pure-Python one, same node
    tree. (The YAML library is imported here, when a file is read: a run whose data files'
    compiled copies are kept, compiledcopy.py, reads none.)"""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_FILE_BYTES = 512 * 1024  # a signature is a page of text; anything far larger is a mistake

KeyPath = tuple[str | int, ...]
_STR_TAG = "tag:yaml.org,2002:str"
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_MAX_NUMBER_CHARS = 1000  # Python refuses to convert integers of more than 4300 digits


def load_yaml(path: Path) -> tuple[object, dict[KeyPath, int]]:
    """Load one YAML document; return it with the 1-based line of every key and item.

    Raises SignatureError (with `path:line`) for unreadable files, syntax errors, duplicate
    keys, keys that are not text (`yes:`, `1:`), aliases (no data file needs them, and they
    allow "billion laughs" bombs), values Python cannot hold, deep nesting and files over
    MAX_FILE_BYTES. Never raises anything else.
    """
    where = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SignatureError(f"file is {size:,} bytes, more than the {MAX_FILE_BYTES:,} allowed",
                                 location=f"{where}:1")
        raw = path.read_bytes()
    except OSError as exc:
        raise SignatureError(f"cannot read: {exc.strerror or exc}", location=f"{where}:1") from None
    if len(raw) > MAX_FILE_BYTES:  # grew after stat, or a device/pipe that reports no size
        raise SignatureError(f"file is more than the {MAX_FILE_BYTES:,} bytes allowed",
                             location=f"{where}:1")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SignatureError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x})",
                             location=f"{where}:{line}") from None
    return load_yaml_text(text, where)


def knob_tables(path: Path, key: str, meaning: str
                ) -> list[tuple[str, dict[str, Any], str, dict[str, str]]]:
    """The entries of a knob-table file (framework-knobs.yaml, platform-knobs.yaml): `key` maps
    each name to an entry whose `knobs` map strings to strings (`meaning` says what to what, for
    the error). Each entry comes with where it is, for the caller's own checks."""
    data, _ = load_yaml(path)
    table = data.get(key) if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise SignatureError(f"{path}: a `{key}` mapping")
    out = []
    for name, entry in table.items():
        where = f"{path}: {key}.{name}"
        if not isinstance(entry, dict) or not isinstance(entry.get("knobs"), dict):
            raise SignatureError(f"{where}: needs `knobs`")
        knobs = entry["knobs"]
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in knobs.items()):
            raise SignatureError(f"{where}.knobs: {meaning}")
        out.append((str(name), entry, where, dict(knobs)))
    return out


def load_yaml_text(text: str, where: str) -> tuple[object, dict[KeyPath, int]]:
    """As load_yaml, for text already read; `where` names it in errors."""
    import yaml

    try:
        node = yaml.compose(text, Loader=_loader())
    except yaml.YAMLError as exc:
        line = _error_line(exc, text)
        raise SignatureError(f"invalid YAML: {_problem(exc)}", location=f"{where}:{line}",
                             hint=_unquoted_comparison(text, line)) from None
    except RecursionError:  # the pure-Python composer on deeply nested flow collections
        raise SignatureError("invalid YAML: nested too deeply", location=f"{where}:1") from None
    if node is None:
        return None, {}
    lines: dict[KeyPath, int] = {}
    try:
        _walk(node, (), lines, set(), where)
    except RecursionError:
        raise SignatureError("invalid YAML: nested too deeply", location=f"{where}:1") from None
    loader = yaml.SafeLoader("")
    try:
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        line = _error_line(exc, text)
        raise SignatureError(f"invalid YAML value: {_problem(exc)}", location=f"{where}:{line}",
                             hint=_unquoted_comparison(text, line)) from None
    except (ValueError, OverflowError, RecursionError) as exc:
        # an integer of thousands of digits (Python's int-conversion limit), a nesting bomb
        raise SignatureError(f"invalid YAML value: {str(exc)[:120]}", location=f"{where}:1") \
            from None
    finally:
        loader.dispose()
    return data, lines


def _problem(exc: yaml.YAMLError) -> str:
    """The one-line reason of a PyYAML error, without its multi-line context dump."""
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError):
        context = exc.context
        if context and exc.context_mark is not None and exc.problem_mark is not None \
                and exc.context_mark.line != exc.problem_mark.line:
            context = f"{context} (from line {exc.context_mark.line + 1})"
        parts = [p for p in (context, exc.problem) if p]
        return "; ".join(parts) or "syntax error"
    if isinstance(exc, yaml.reader.ReaderError):
        return f"unacceptable character #x{exc.character:04x}: control characters are not allowed" \
            if isinstance(exc.character, int) else "not valid text"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


# `vllm_version: >=0.10.0,<0.11.1` unquoted: YAML reads `>` as a folded block scalar and `<`/`!`
# as other syntax, and its error ("while scanning a block scalar") does not say so
_COMPARISON = re.compile(r"^\s*[\w.?-]+:\s*(?P<value>[<>!][^'\"#\n]*?)\s*(?:#.*)?$")


def _unquoted_comparison(text: str, line: int) -> str | None:
    """A hint when the failing line (or the one before it) holds an unquoted comparison."""
    lines = text.splitlines()
    for number in (line, line - 1):
        if 1 <= number <= len(lines):
            found = _COMPARISON.match(lines[number - 1])
            if found:
                return f"quote the expression on line {number}: '{found.group('value')}'"
    return None


def _error_line(exc: yaml.YAMLError, text: str) -> int:
    """The 1-based line of a PyYAML error: its mark, or its character position."""
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        return mark.line + 1 if mark is not None else 1
    position = getattr(exc, "position", None)
    if isinstance(position, int):
        return text.count("\n", 0, position) + 1
    return 1


def _walk(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int], seen: set[int],
          where: str) -> None:
    import yaml

    if id(node) in seen:
        raise SignatureError("YAML aliases (*name) are not allowed in data files",
                             location=f"{where}:{node.start_mark.line + 1}")
    seen.add(id(node))
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        keys: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key == "<<":
                raise SignatureError("YAML merge keys (<<) are not allowed in data files",
                                     location=f"{where}:{line}")
            if not isinstance(key_node, yaml.ScalarNode):
                raise SignatureError("a key must be text, not a list or mapping",
                                     location=f"{where}:{line}")
            if key_node.tag != _STR_TAG:
                # `yes:`, `null:` or `1:` would become True, None, 1
                raise SignatureError(f"key {key!r} is not text; quote it", location=f"{where}:{line}")
            if key in keys:
                raise SignatureError(f"duplicate key '{key}' (first on line {keys[key]})",
                                     location=f"{where}:{line}")
            keys[key] = line
            lines[(*path, key)] = line
            _walk(value_node, (*path, key), lines, seen, where)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines, seen, where)
    elif node.tag in _NUMBER_TAGS and len(node.value) > _MAX_NUMBER_CHARS:
        raise SignatureError(f"a number of {len(node.value):,} characters; quote it if it is text",
                             location=f"{where}:{lines[path]}")
