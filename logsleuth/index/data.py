"""The vLLM message index shipped with logsleuth: typed records over the mined data file.

`tools/vllm_index/` mines it from every vLLM release's source (see its README); this module
only reads it. Nothing is read at import: `default_index()` loads it once, on first use.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from enum import Enum
from functools import cache
from importlib import resources
from typing import Any

DATA_FILE = "vllm_index.json.gz"
SCHEMA = "logsleuth.vllm-index/1"


class MessageKind(Enum):
    """How vLLM prints a message."""

    RAISE = "raise"  # raise SomeError(message)
    LOG = "log"  # logger.error / warning / exception / critical(message, ...)
    WARN = "warn"  # warnings.warn(message, Category)


@dataclass(frozen=True, slots=True)
class MessageTemplate:
    """One message as vLLM's source writes it, and the releases whose source holds it."""

    id: int
    text: str  # literal text with typed placeholders ({int}, {float}, {num}, {hex}, {any})
    kind: MessageKind
    cls: str  # exception class, log level, or warning category
    module: str
    function: str
    releases: tuple[int, ...]  # indexes into VllmIndex.releases


@dataclass(frozen=True, slots=True)
class EngineArgument:
    """One CLI flag of `vllm serve` / EngineArgs in some releases."""

    flag: str
    field: str
    type: str | None
    default: str | None
    help: str | None
    releases: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EnvironmentVariable:
    """One variable of vllm/envs.py in some releases."""

    name: str
    default: str | None
    help: str | None
    releases: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class VllmIndex:
    """Every message, engine argument and environment variable of the indexed vLLM releases."""

    stamp: str  # newest release + content digest: changes whenever the data does
    releases: tuple[str, ...]  # oldest first
    texts: tuple[str, ...]  # every distinct template text, sorted
    keys: tuple[str, ...]  # per text: the literal word it is filed under (see lookup.py)
    templates: tuple[MessageTemplate, ...]  # every site printing a text
    arguments: tuple[EngineArgument, ...]
    environment: tuple[EnvironmentVariable, ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VllmIndex:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} file: {data.get('schema')!r}")
        texts = tuple(text for text, _ in data["texts"])
        keys = tuple(key for _, key in data["texts"])
        kinds = {kind.value: kind for kind in MessageKind}
        templates = tuple(
            MessageTemplate(i, texts[text], kinds[kind], cls, module, function, _expand(runs))
            for i, (text, kind, cls, module, function, runs) in enumerate(data["sites"]))
        arguments = tuple(EngineArgument(a["flag"], a["field"], a["type"], a["default"],
                                         a["help"], _expand(a["r"]))
                          for a in data["arguments"])
        environment = tuple(EnvironmentVariable(e["name"], e["default"], e["help"],
                                                _expand(e["r"])) for e in data["env"])
        return cls(data["stamp"], tuple(data["releases"]), texts, keys, templates, arguments,
                   environment)

    def release_names(self, indexes: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(self.releases[i] for i in indexes)


def _expand(runs: list[list[int]]) -> tuple[int, ...]:
    return tuple(i for start, end in runs for i in range(start, end + 1))


@cache
def default_index() -> VllmIndex:
    """The index shipped inside the package, loaded on first use."""
    raw = resources.files("logsleuth.index").joinpath(DATA_FILE).read_bytes()
    return VllmIndex.from_dict(json.loads(gzip.decompress(raw)))
