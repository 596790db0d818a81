"""Environment facts from the log: vLLM version, GPU, TP size, kv-cache dtype, model ...

What to read lives in `signatures/facts.yaml`; this module runs it over the lines that pass by.
Two sides are kept apart: what the command line asked for (`non-default args: {...}`, older
`args: Namespace(...)`) and what the engine used (its `with config: ...` line, and lines such as
`Using FLASH_ATTN attention backend`). When they disagree the report says so: that is how a
checkpoint that silently overrides `--kv-cache-dtype auto` shows itself.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import regex

from logsleuth.compiledcopy import kept
from logsleuth.knowledge import KEPT_LONG_CHARS, UNTIMED_CHARS
from logsleuth.literal import (SCREEN_CHARS, Needles, Screen, required_literal,
                               required_literals)
from logsleuth.model import (ConfigDifference, FactOrigin, Level, LineKind, LineRun, LogLine,
                             RecordRun)
from logsleuth.resources import data_dir
from logsleuth.tokenize.shape import shape_key
from logsleuth.yamlload import load_yaml

_TIMEOUT = 0.05
_DEFAULT_KINDS = frozenset({LineKind.PLAIN, LineKind.INDENTED})
ARGS_FACT = "non_default_args"  # the whole `non-default args` dict, as the command line gave it
REQUESTED_SUFFIX = ".requested"  # `kv_cache_dtype.requested`: what the command line asked for


class Side(Enum):
    """Whether a record says what was asked for or what the engine used."""

    REQUESTED = "requested"
    EFFECTIVE = "effective"


class RecordFormat(Enum):
    """How a structured record is written."""

    DICT = "dict"  # a Python dict literal: {'model': '/m', 'tensor_parallel_size': 8}
    KEYVALUE = "keyvalue"  # key=value, key=value ... (Namespace(...), the engine config line)


@dataclass(frozen=True, slots=True)
class Record:
    """A structured line: the text after `marker` holds many settings."""

    marker: str
    side: Side
    format: RecordFormat


@dataclass(frozen=True, slots=True)
class LinePattern:
    """One pattern of a fact, with the line kinds it is tried on."""

    pattern: regex.Pattern[str]
    kinds: frozenset[LineKind] = _DEFAULT_KINDS
    template: str | None = None  # builds the value from named groups: '{major}.{minor}'
    needle: str = ""  # text every match contains: a substring test spares most searches
    # of a pattern that ignores case (`(?i)` at its start, no other flag): text every match
    # holds ignoring ASCII case, lower-cased; an ASCII line without it is not searched
    folded: str = ""


@dataclass(frozen=True, slots=True)
class FactSpec:
    """How to read one fact (an entry of facts.yaml)."""

    name: str
    kind: str = "str"  # str | int | float
    requested: tuple[str, ...] = ()  # keys in the command-line record
    effective: tuple[str, ...] = ()  # keys in the engine config record
    patterns: tuple[LinePattern, ...] = ()
    compare: bool = False
    auto_resolves: bool = False
    strip: str = ""
    aliases: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FactTable:
    """Everything facts.yaml says."""

    records: tuple[Record, ...]
    specs: tuple[FactSpec, ...]

    @property
    def kinds(self) -> frozenset[LineKind]:
        found = {LineKind.PLAIN}
        for spec in self.specs:
            for pattern in spec.patterns:
                found |= pattern.kinds
        return frozenset(found)


@cache
def fact_table() -> FactTable:
    """facts.yaml, loaded once: from its compiled copy when one was kept for these bytes and
    this code (compiledcopy.py), else read and kept."""
    here = Path(__file__)
    return kept("facts", data_dir("signatures") / "facts.yaml",  # a pattern's needle: literal.py
                (here, here.with_name("model.py"), here.with_name("literal.py")), _load_table,
                FactTable)


def _load_table(path: Path) -> FactTable:
    data, _ = load_yaml(path)
    table: dict[str, Any] = data if isinstance(data, dict) else {}
    records = tuple(Record(r["marker"], Side(r["side"]), RecordFormat(r["format"]))
                    for r in table.get("records", ()))
    specs = tuple(_spec(name, body or {}) for name, body in table.get("facts", {}).items())
    return FactTable(records, specs)


def folded_literal(pattern: str) -> str:
    """For a pattern that ignores case by a leading `(?i)` and has no other inline flag: the
    text every match holds ignoring case (required_literal of the rest), lower-cased; "" for any
    other pattern, or one whose text is not ASCII. On an ASCII line, ignoring case compares
    ASCII letters only, so a line whose lower-cased text lacks it holds no match."""
    if not pattern.startswith("(?i)"):
        return ""
    needle = required_literal(pattern[len("(?i)"):])  # "" if the rest sets a flag of its own
    return needle.lower() if needle.isascii() else ""


def _spec(name: str, body: dict[str, Any]) -> FactSpec:
    patterns: list[LinePattern] = []
    for item in body.get("patterns", ()):
        if isinstance(item, str):
            patterns.append(LinePattern(regex.compile(item), needle=required_literal(item),
                                        folded=folded_literal(item)))
        else:
            kinds = frozenset(LineKind(k) for k in item.get("kinds", ())) or _DEFAULT_KINDS
            patterns.append(LinePattern(regex.compile(item["regex"]), kinds, item.get("template"),
                                        required_literal(item["regex"]),
                                        folded_literal(item["regex"])))
    return FactSpec(name, str(body.get("type", "str")), tuple(body.get("requested", ())),
                    tuple(body.get("effective", ())), tuple(patterns),
                    bool(body.get("compare", False)), bool(body.get("auto_resolves", False)),
                    str(body.get("strip", "")), dict(body.get("aliases", {})))


# The record scanner ----------------------------------------------------------------------------

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(")]}")
_QUOTE_AFTER = frozenset("=:,([{ ")


def split_top_level(text: str) -> list[str]:
    """Split at the commas that are outside brackets and quotes, up to the first closing bracket
    that has no opening one (the end of `Namespace(...)` or of a dict) or the end of the text.

    A quote opens a string only where a value can start (after `=`, `:`, `,`, a bracket or a
    space), so an apostrophe inside a bare word cannot swallow the rest of the line; a line cut
    short ends whatever is open.
    """
    parts: list[str] = []
    stack: list[str] = []
    quote = ""
    begin = 0
    previous = ","
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char in "'\"" and previous in _QUOTE_AFTER:
            quote = char
        elif char in _OPEN:
            stack.append(_OPEN[char])
        elif char in _CLOSERS:
            if not stack:
                break
            if char in stack:  # tolerate a stray closer: unwind to its opener
                while stack.pop() != char:
                    pass
        elif char == "," and not stack:
            parts.append(text[begin:i])
            begin = i + 1
        if not char.isspace() or char == " ":
            previous = char
        i += 1
    parts.append(text[begin:i])
    return [p for p in (part.strip() for part in parts) if p]


def parse_record(text: str, fmt: RecordFormat) -> dict[str, object]:
    """The settings of one record, values as Python literals where they are literals (numbers,
    quoted strings, None, True, lists, dicts) and as their text otherwise (`torch.bfloat16`)."""
    if fmt is RecordFormat.DICT:
        body = text.strip()
        if body.startswith("{"):
            try:
                value = ast.literal_eval(body)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                value = None
            if isinstance(value, dict):
                return {str(k): v for k, v in value.items()}
            body = body[1:]
        separator = ":"
    else:
        body, separator = text, "="
    out: dict[str, object] = {}
    for part in split_top_level(body):
        key, found, raw = part.partition(separator)
        key = key.strip().strip("'\"")
        if found and key.isidentifier():
            out.setdefault(key, _literal(raw.strip()))
    return out


def setting_at(settings: Mapping[str, object], key: str) -> tuple[bool, object]:
    """Whether a record holds `key`, and its value. A dotted key (`compilation_config.
    cudagraph_mode`) reads a field of a setting that is itself a mapping: a dict literal, or the
    text of one the record printed as JSON (`{"cudagraph_mode":[2,0],"use_inductor":false}`,
    which is no Python literal) or with reprs in it (`'mode': <CompilationMode.X: 3>`), read
    by the same top-level split as a command line's dict."""
    head, dot, rest = key.partition(".")
    if head not in settings:
        return False, None
    value = settings[head]
    if not dot:
        return True, value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        value = parse_record(value, RecordFormat.DICT)
    if not isinstance(value, Mapping):
        return False, None
    return setting_at({str(k): v for k, v in value.items()}, rest)


def _literal(raw: str) -> object:
    if not raw:
        return ""
    if raw[0] in "'\"[{(-0123456789" or raw in ("None", "True", "False"):
        try:
            return ast.literal_eval(raw)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            pass
    return raw


# The collector ---------------------------------------------------------------------------------

@dataclass(slots=True)
class _Found:
    value: object
    origin: FactOrigin


_ERROR_LEVELS = (Level.ERROR, Level.CRITICAL)
_SILENT_RUNS = 4096
_SHAPES = 1024  # shapes of line whose candidate patterns are kept (a bound: shapes recur)
_Item = TypeVar("_Item", LogLine, LogLine | LineRun | RecordRun)


class FactCollector:
    """Watches a LogLine stream and keeps the first value found for each fact, per side."""

    def __init__(self, table: FactTable | None = None) -> None:
        self._table = table or fact_table()
        self._kinds = self._table.kinds
        self._requested: dict[str, _Found] = {}
        self._effective: dict[str, _Found] = {}  # from the engine's config record
        self._observed: dict[str, _Found] = {}  # from line patterns
        self._sides_seen: set[Side] = set()
        self._args: _Found | None = None
        self._pending = [s for s in self._table.specs if s.patterns]
        self._screen: Screen | None = None  # rules out lines no pending pattern can match
        # the pending patterns tried on each line kind, in the table's order: a traceback's
        # frame lines need not walk every pattern to learn that none is for frames
        self._for_kind: dict[LineKind, list[tuple[FactSpec, LinePattern]]] | None = None
        self._silent_runs: set[object] = set()  # keys of LineRuns that found no fact
        # lines whose every search, none cut short by the time budget, found no fact: by kind,
        # level and their text (a digest of a long one). What is looked for only shrinks, so
        # such a line finds nothing again: a restart-heavy log prints the same start-up lines
        # at every start (the 3 KB engine config line cost 2.6 ms each time), from new pids at
        # new times, and each start searched them again
        self._silent: set[tuple[LineKind, Level | None, str | bytes]] = set()
        self._long: Needles | None = None  # every text `look` tests, for a long line's one pass
        # the candidates of `_for_kind` a short line of each kind and shape may match (`_shaped`)
        self._by_shape: dict[tuple[LineKind, bytes], list[tuple[FactSpec, LinePattern]]] = {}

    def watch(self, lines: Iterable[_Item]) -> Iterator[_Item]:
        """Pass the lines on unchanged, reading facts from them on the way. A LineRun whose
        lines once told nothing tells nothing again (see `_read_run`) and is not read."""
        kinds = self._kinds
        for line in lines:
            if isinstance(line, LineRun):
                if line.key not in self._silent_runs:
                    self._read_run(line)
            elif isinstance(line, RecordRun):
                if line.first.kind in kinds:
                    self.look(line.first)
                if line.run.key not in self._silent_runs:
                    self._read_run(line.run)
                if line.last.kind in kinds:
                    self.look(line.last)
            elif line.kind in kinds:
                self.look(line)
            yield line

    def _read_run(self, run: LineRun) -> None:
        """Read a run's lines; remember its key if they found nothing. What is looked for only
        shrinks (a fact found, a record side taken), and a run's lines are short enough to be
        searched without a time budget (knowledge.UNTIMED_CHARS), so lines that found nothing
        once, with the same kinds, texts and levels, find nothing later either."""
        before = (len(self._observed), len(self._sides_seen))
        kinds = self._kinds
        for line in run.lines():
            if line.kind in kinds:
                self.look(line)
        if (len(self._observed), len(self._sides_seen)) == before:
            if len(self._silent_runs) >= _SILENT_RUNS:
                self._silent_runs.clear()  # a bound; runs that recur come back
            self._silent_runs.add(run.key)

    def look(self, line: LogLine) -> None:
        """Read the facts of one line."""
        text = line.text
        # a long line (a logged prompt) is read once for all the texts tested below
        long = len(text) >= SCREEN_CHARS
        present: frozenset[str] | None = None
        if line.kind is LineKind.PLAIN and len(self._sides_seen) < 2:
            present = self._present(text) if long else None
            for record in self._table.records:
                if record.side in self._sides_seen \
                        or present is not None and record.marker not in present:
                    continue
                at = text.find(record.marker)
                if at >= 0:
                    self._take_record(record, text[at + len(record.marker):], line)
        if not self._pending:
            return
        if line.level in _ERROR_LEVELS and line.kind in (LineKind.PLAIN, LineKind.INDENTED):
            return  # facts are announced in INFO records, not in traceback text: keeps it cheap
        # what is looked for only shrinks, so a text that found nothing (no search timed out)
        # finds nothing again
        silent: tuple[LineKind, Level | None, str | bytes] | None = None
        if len(text) <= UNTIMED_CHARS:
            silent = (line.kind, line.level, text)
        elif len(text) <= KEPT_LONG_CHARS:
            silent = (line.kind, line.level,
                      hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                      digest_size=16).digest())
        if silent is not None and silent in self._silent:
            return
        if self._screen is None or self._for_kind is None:
            self._screen = Screen(p.pattern.pattern for s in self._pending for p in s.patterns)
            self._for_kind = {}
            for spec in self._pending:
                for pattern in spec.patterns:
                    for kind in pattern.kinds:
                        self._for_kind.setdefault(kind, []).append((spec, pattern))
        candidates = self._for_kind.get(line.kind)
        if not candidates:
            return
        if long:
            present = present if present is not None else self._present(text)
            if self._screen.rules_out_given(present):
                return
        else:
            candidates = self._shaped(line.kind, candidates, text)
        found = cut = searched = False
        for spec, pattern in candidates:
            if (pattern.needle not in text if present is None
                    else pattern.needle and pattern.needle not in present) \
                    or spec.name in self._observed:
                continue
            searched = True
            try:  # (no keyword when there is no budget: parsing one costs ~1 us a search)
                hit = pattern.pattern.search(text, timeout=_TIMEOUT) \
                    if len(text) > UNTIMED_CHARS else pattern.pattern.search(text)
            except TimeoutError:
                cut = True
                continue
            if hit:
                raw = pattern.template.format(**hit.groupdict()) if pattern.template \
                    else hit.group("value")
                value = _normalize(spec, raw)
                if value is not None:
                    self._observed[spec.name] = _Found(value, FactOrigin(line.number,
                                                                         line.process))
                    found = True
        if found:
            self._pending = [s for s in self._pending if s.name not in self._observed]
            self._screen = self._for_kind = None
            self._by_shape.clear()
        elif silent is not None and not cut and (searched or len(text) > UNTIMED_CHARS):
            # (a short line that no search read was cheap: a day of metrics lines, whose
            # texts never recur, would only churn the set)
            if len(self._silent) >= _SILENT_RUNS:
                self._silent.clear()  # a bound; lines that recur come back
            self._silent.add(silent)

    def _shaped(self, kind: LineKind, candidates: list[tuple[FactSpec, LinePattern]],
                text: str) -> list[tuple[FactSpec, LinePattern]]:
        """The candidates whose needle a line of `text`'s shape (digits masked, shape_key) may
        hold, in their order: a needle without a digit is in a line exactly when it is in the
        line's shape, so those left out would fail the needle's test on this line, and lines of
        one shape (a day of metrics lines, every start's set-up lines) test a few needles
        instead of every pattern's (~50 for a record's text). A pattern that ignores case has
        no needle but may have a folded one (`folded_literal`): an ASCII line whose shape,
        lower-cased, lacks it (without a digit) holds no match, and is not searched (three
        such patterns were searched on every record line)."""
        shape = shape_key(text)
        kept = self._by_shape.get((kind, shape))
        if kept is None:
            if len(self._by_shape) >= _SHAPES:
                self._by_shape.clear()  # a bound: shapes that recur come back
            # an ASCII line's shape, lower-cased, for the needles of patterns that ignore case
            folded = shape.lower() if shape.isascii() else None
            kept = self._by_shape[(kind, shape)] = [
                (spec, pattern) for spec, pattern in candidates
                if (not pattern.needle or _has_digit(pattern.needle)
                    or pattern.needle.encode("utf-8", "surrogatepass") in shape)
                and (folded is None or not pattern.folded or _has_digit(pattern.folded)
                     or pattern.folded.encode("ascii") in folded)]
        return kept

    def _present(self, text: str) -> frozenset[str]:
        if self._long is None:
            table = self._table
            self._long = Needles([*(record.marker for record in table.records),
                                  *(needle for spec in table.specs for pattern in spec.patterns
                                    for needle in (pattern.needle,
                                                   *required_literals(pattern.pattern.pattern)))])
        return self._long.present(text)

    def _take_record(self, record: Record, text: str, line: LogLine) -> None:
        settings = parse_record(text, record.format)
        if not settings:
            return
        self._sides_seen.add(record.side)
        origin = FactOrigin(line.number, line.process)
        if record.side is Side.REQUESTED and record.format is RecordFormat.DICT:
            self._args = _Found({k: _plain(v) for k, v in settings.items()}, origin)
        target = self._requested if record.side is Side.REQUESTED else self._effective
        for spec in self._table.specs:
            keys = spec.requested if record.side is Side.REQUESTED else spec.effective
            for key in keys:
                found, raw = setting_at(settings, key)
                if found:
                    value = _normalize(spec, raw)
                    if value is not None:
                        target.setdefault(spec.name, _Found(value, origin))
                    break

    def _effective_of(self, spec: FactSpec) -> _Found | None:
        return self._effective.get(spec.name) or self._observed.get(spec.name)

    def _values(self) -> dict[str, _Found]:
        out: dict[str, _Found] = {}
        for spec in self._table.specs:
            effective = self._effective_of(spec)
            requested = self._requested.get(spec.name)
            # A setting the engine may override (compare: true) is only known from the engine;
            # the others fall back to what the command line said.
            chosen = effective or (None if spec.compare else requested)
            if chosen is not None:
                out[spec.name] = chosen
            if requested is not None:
                out[spec.name + REQUESTED_SUFFIX] = requested
        if self._args is not None:
            out[ARGS_FACT] = self._args
        return out

    def result(self) -> dict[str, object]:
        """Every fact found: effective values by name, `<name>.requested`, `non_default_args`."""
        return {name: found.value for name, found in sorted(self._values().items())}

    def origins(self) -> dict[str, FactOrigin]:
        """The line (and process) each fact of `result()` was read from."""
        return {name: found.origin for name, found in sorted(self._values().items())}

    def differences(self) -> tuple[ConfigDifference, ...]:
        """Settings the command line asked for that the engine did not use."""
        out: list[ConfigDifference] = []
        for spec in self._table.specs:
            requested = self._requested.get(spec.name)
            effective = self._effective_of(spec)
            if not spec.compare or requested is None or effective is None:
                continue
            wanted, used = str(requested.value).lower(), str(effective.value).lower()
            if wanted == used or (spec.auto_resolves and wanted == "auto"):
                continue
            out.append(ConfigDifference(spec.name, requested.value, effective.value,
                                        requested.origin.line, effective.origin.line))
        return tuple(out)


def _normalize(spec: FactSpec, value: object) -> object:
    """One spelling per value: `torch.bfloat16` -> `bfloat16`, `half` -> `float16`, `['x']` ->
    `x`, numbers typed; None (the setting is unset) stays None."""
    if isinstance(value, (list, tuple)):
        if not value:
            return None
        value = value[0] if len(value) == 1 else ", ".join(str(v) for v in value)
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip()
    if not text or text == "None":
        return None
    if spec.strip and text.startswith(spec.strip):
        text = text[len(spec.strip):]
    text = spec.aliases.get(text, text)
    try:
        if spec.kind == "int":
            return int(text.replace(",", ""))
        if spec.kind == "float":
            return float(text)
    except ValueError:
        return text
    return text


def _plain(value: object) -> object:
    """A record value as JSON can hold it."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _has_digit(text: str) -> bool:
    """Whether `text` holds an ASCII digit (which shape_key masks)."""
    return any("0" <= character <= "9" for character in text)
