"""The vLLM message index shipped with logsleuth: typed records over the mined data file.

`tools/vllm_index/` mines it from every vLLM release's source (see its README); this module
only reads it. Nothing is read at import: `default_index()` loads it once, on first use.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import marshal
import os
import re
import tempfile
from dataclasses import dataclass
from enum import Enum
from functools import cache
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, overload

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


class Templates(Sequence[MessageTemplate]):
    """The index's sites as MessageTemplates, each made when it is first asked for: a run looks
    at the few sites of the messages it names, and making all 23,000 at start-up cost 35 ms of
    every run. Equal to any sequence of the same templates."""

    __slots__ = ("_records", "_made", "_texts")

    def __init__(self, records: Sequence[tuple[str, str, str, str, str, tuple[int, ...]]]):
        self._records = records  # (text, kind, cls, module, function, releases) per site
        self._made: dict[int, MessageTemplate] = {}
        self._texts: dict[str, tuple[int, ...]] | None = None

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> MessageTemplate: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[MessageTemplate, ...]: ...

    def __getitem__(self, index: int | slice) -> MessageTemplate | tuple[MessageTemplate, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        made = self._made.get(index)
        if made is None:
            text, kind, klass, module, function, releases = self._records[index]
            made = self._made[index] = MessageTemplate(index, text, _KINDS[kind], klass, module,
                                                       function, releases)
        return made

    def __iter__(self) -> Iterator[MessageTemplate]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def of_text(self, text: str) -> tuple[MessageTemplate, ...]:
        """The sites printing `text` (one pass over the records' texts, on first use)."""
        if self._texts is None:
            found: dict[str, list[int]] = {}
            for i, record in enumerate(self._records):
                found.setdefault(record[0], []).append(i)
            self._texts = {key: tuple(ids) for key, ids in found.items()}
        return tuple(self[i] for i in self._texts.get(text, ()))


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
    templates: Sequence[MessageTemplate]  # every site printing a text (Templates when read
    # from the cached records)
    arguments: tuple[EngineArgument, ...]
    environment: tuple[EnvironmentVariable, ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VllmIndex:
        texts, keys = filed_texts(data, SCHEMA)
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


    def records(self) -> tuple[Any, ...]:
        """The index as plain tuples, strings and numbers (what `marshal` writes), sharing
        what the records share."""
        return (self.stamp, self.releases, self.texts, self.keys,
                tuple((t.text, t.kind.value, t.cls, t.module, t.function, t.releases)
                      for t in self.templates),
                tuple((a.flag, a.field, a.type, a.default, a.help, a.releases)
                      for a in self.arguments),
                tuple((e.name, e.default, e.help, e.releases) for e in self.environment))

    @classmethod
    def from_records(cls, records: tuple[Any, ...]) -> VllmIndex:
        """The index from `records()`."""
        stamp, releases, texts, keys, sites, arguments, environment = records
        return cls(stamp, releases, texts, keys, Templates(sites),
                   tuple(EngineArgument(*argument) for argument in arguments),
                   tuple(EnvironmentVariable(*variable) for variable in environment))

    @classmethod
    def from_json(cls, text: str) -> VllmIndex:
        """The index from the miner's JSON text, read one array item at a time.

        json.loads would build every section's lists and dicts at once (about twice the
        records' own size, and a process keeps the memory it peaked at); item by item, only
        the typed records are held. Identical release lists and names are shared.
        """
        shared: dict[object, Any] = {}

        def one(value: Any) -> Any:
            return shared.setdefault(value, value)

        def runs(value: list[list[int]]) -> tuple[int, ...]:
            key = tuple(map(tuple, value))
            found = shared.get(key)
            if found is None:
                found = shared[key] = _expand(value)
            return found

        kinds = {kind.value: kind for kind in MessageKind}
        fields: dict[str, Any] = {}
        texts: list[str] = []
        keys: list[str] = []
        sites: list[tuple[int, MessageKind, str, str, str, tuple[int, ...]]] = []
        arguments: list[EngineArgument] = []
        environment: list[EnvironmentVariable] = []
        for name, items in _top_level(text):
            if name == "texts":
                for entry, key in items:
                    texts.append(entry)
                    keys.append(one(key))
            elif name == "sites":  # before `texts` (the miner sorts keys): numbered for now
                sites.extend((entry, kinds[kind], one(klass), one(module), function, runs(span))
                             for entry, kind, klass, module, function, span in items)
            elif name == "arguments":
                arguments.extend(EngineArgument(a["flag"], a["field"], a["type"], a["default"],
                                                a["help"], runs(a["r"])) for a in items)
            elif name == "env":
                environment.extend(EnvironmentVariable(e["name"], e["default"], e["help"],
                                                       runs(e["r"])) for e in items)
            else:
                fields[name] = list(items) if name == "releases" else next(iter(items))
        if fields.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} file: {fields.get('schema')!r}")
        templates = tuple(MessageTemplate(i, texts[entry], kind, klass, module, function, span)
                          for i, (entry, kind, klass, module, function, span) in enumerate(sites))
        return cls(fields["stamp"], tuple(fields["releases"]), tuple(texts), tuple(keys),
                   templates, tuple(arguments), tuple(environment))


_KINDS = {kind.value: kind for kind in MessageKind}


def filed_texts(data: dict[str, Any], schema: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A message index's texts and the word each is filed under (`texts`: [text, word] pairs),
    once its `schema` is the one expected: the vLLM index's and every plugin index's."""
    if data.get("schema") != schema:
        raise ValueError(f"not a {schema} file: {data.get('schema')!r}")
    return (tuple(text for text, _ in data["texts"]), tuple(key for _, key in data["texts"]))


def sites_of(index: VllmIndex, text: str) -> tuple[MessageTemplate, ...]:
    """Every site of the index printing `text`."""
    if isinstance(index.templates, Templates):
        return index.templates.of_text(text)
    return tuple(site for site in index.templates if site.text == text)


def module_functions(index: VllmIndex) -> Iterator[tuple[str, str]]:
    """(module, function) of every site of the index, without making its MessageTemplates."""
    if isinstance(index.templates, Templates):
        return ((record[3], record[4]) for record in index.templates._records)
    return ((site.module, site.function) for site in index.templates)


def site_records(index: VllmIndex) \
        -> Iterator[tuple[str, MessageKind, str, str, str, tuple[int, ...]]]:
    """(text, kind, class, module, function, releases) of every site of the index, without
    making its MessageTemplates."""
    if isinstance(index.templates, Templates):
        return ((text, _KINDS[kind], klass, module, function, releases)
                for text, kind, klass, module, function, releases in index.templates._records)
    return ((site.text, site.kind, site.cls, site.module, site.function, site.releases)
            for site in index.templates)


def _expand(runs: list[list[int]]) -> tuple[int, ...]:
    return tuple(i for start, end in runs for i in range(start, end + 1))


_DECODER = json.JSONDecoder()
_BLANK = " \t\n\r"


def _top_level(text: str) -> Iterator[tuple[str, Iterator[Any]]]:
    """(key, its value's items) of a JSON object, in file order: an array's items one by one,
    any other value as one item.
    Each key's items must be consumed before the next key is asked for."""
    position = _expect(text, 0, "{")
    while text[position] != "}":
        key, position = _DECODER.raw_decode(text, position)
        position = _expect(text, _skip(text, position), ":")
        place = [position]
        if text[position] == "[":
            yield key, _array(text, place)
        else:
            value, place[0] = _DECODER.raw_decode(text, position)
            yield key, iter((value,))
        position = _skip(text, place[0])
        if text[position] == ",":
            position = _skip(text, position + 1)


def _array(text: str, place: list[int]) -> Iterator[Any]:
    position = _expect(text, place[0], "[")
    while text[position] != "]":
        value, position = _DECODER.raw_decode(text, position)
        yield value
        position = _skip(text, position)
        if text[position] == ",":
            position = _skip(text, position + 1)
    place[0] = position + 1


def _skip(text: str, position: int) -> int:
    while text[position] in _BLANK:
        position += 1
    return position


def _expect(text: str, position: int, char: str) -> int:
    position = _skip(text, position)
    if text[position] != char:
        raise ValueError(f"expected {char!r} at offset {position} of the index")
    return _skip(text, position + 1)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CHUNK = 1 << 18


def ascii_json(data: bytes) -> str:
    """UTF-8 JSON as text with every non-ASCII character written as a JSON escape: the same
    JSON, held at one byte a character (Python holds a whole str at the width of its widest
    character, and one emoji in one help text made the index's 4.5 MB text take 18 MB)."""
    parts: list[str] = []
    start = 0
    while start < len(data):
        end = min(start + _CHUNK, len(data))
        while end < len(data) and data[end] & 0xC0 == 0x80:
            end += 1  # not inside a character's bytes
        parts.append(_NON_ASCII.sub(_escape, data[start:end].decode("utf-8")))
        start = end
    return "".join(parts)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


@cache
def default_index() -> VllmIndex:
    """The index shipped inside the package, loaded on first use: from a marshal copy of its
    records in logsleuth's cache directory when one was written for the same data file and code
    (about a third of a second less on every run that names an error's origin), else from the
    JSON, which then writes that copy."""
    raw = resources.files("logsleuth.index").joinpath(DATA_FILE).read_bytes()
    return marshal_copy("vllm-index", raw, Path(__file__),
                        lambda: VllmIndex.from_json(ascii_json(gzip.decompress(raw))),
                        VllmIndex.records, VllmIndex.from_records)


_FORMAT = 1  # bump when the records' fields change
_T = TypeVar("_T")


def marshal_copy(name: str, raw: bytes, code: Path, build: Callable[[], _T],
                 to_records: Callable[[_T], Any], from_records: Callable[[Any], _T]) -> _T:
    """`build()`, or `from_records` of the marshal copy `to_records` gave for the same data file
    bytes `raw` and the same `code` (the module that reads it), kept in logsleuth's cache
    directory (none when caching is off, `LOGSLEUTH_NO_CACHE`). The copy's name changes with the
    data, the code and the format; one that cannot be read is built again, one that cannot be
    written is no copy."""
    target = _cached_copy(name, raw, code)
    if target is not None:
        try:
            return from_records(marshal.loads(target.read_bytes()))
        except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError):
            pass  # absent, or not what this code wrote: build it
    value = build()
    if target is not None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=target.parent, delete=False) as out:
                out.write(marshal.dumps(to_records(value)))
            os.replace(out.name, target)
        except OSError:
            pass  # a cache that cannot be written is no cache
    return value


def _cached_copy(name: str, raw: bytes, code: Path) -> Path | None:
    from logsleuth.signatures.loadcache import cache_dir

    where = cache_dir()
    if where is None:
        return None
    digest = hashlib.sha256(f"{_FORMAT}:{marshal.version}:".encode())
    digest.update(raw)
    stat = code.stat()
    digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
    return where / f"{name}-{digest.hexdigest()[:32]}.marshal"
