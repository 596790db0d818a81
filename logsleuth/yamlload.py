"""Safe YAML loading for data files: duplicate keys and aliases rejected, line numbers kept."""

from __future__ import annotations

from pathlib import Path

import yaml

from logsleuth.errors import SignatureError

# libyaml's parser when present: ten times faster than the pure-Python one, same node tree.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_FILE_BYTES = 512 * 1024  # a signature is a page of text; anything far larger is a mistake

KeyPath = tuple[str | int, ...]


def load_yaml(path: Path) -> tuple[object, dict[KeyPath, int]]:
    """Load one YAML document; return it with the 1-based line of every key and item.

    Raises SignatureError (with `path:line`) for unreadable files, syntax errors, duplicate
    keys, aliases (no data file needs them, and they allow "billion laughs" bombs) and files
    over MAX_FILE_BYTES.
    """
    where = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SignatureError(f"file is {size:,} bytes, more than the {MAX_FILE_BYTES:,} allowed",
                                 location=where)
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SignatureError("not UTF-8 text", location=where) from None
    except OSError as exc:
        raise SignatureError(f"cannot read: {exc.strerror or exc}", location=where) from None
    return load_yaml_text(text, where)


def load_yaml_text(text: str, where: str) -> tuple[object, dict[KeyPath, int]]:
    """As load_yaml, for text already read; `where` names it in errors."""
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 1
        raise SignatureError(f"invalid YAML: {exc.problem}", location=f"{where}:{line}") from None
    except yaml.YAMLError as exc:
        raise SignatureError(f"invalid YAML: {exc}", location=where) from None
    if node is None:
        return None, {}
    lines: dict[KeyPath, int] = {}
    _walk(node, (), lines, set(), where)
    loader = yaml.SafeLoader("")
    try:
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise SignatureError(f"invalid YAML value: {exc}", location=where) from None
    finally:
        loader.dispose()
    return data, lines


def _walk(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int], seen: set[int],
          where: str) -> None:
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
            if key in keys:
                raise SignatureError(f"duplicate key '{key}' (first on line {keys[key]})",
                                     location=f"{where}:{line}")
            keys[key] = line
            lines[(*path, key)] = line
            _walk(value_node, (*path, key), lines, seen, where)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines, seen, where)
