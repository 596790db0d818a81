"""Environment facts from the log: vLLM version, TP size, kv-cache dtype, model, GPU ...

The patterns live in `signatures/facts.yaml`; this module only runs them over the lines that
pass by, keeping the first value of each fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import regex

from logsleuth.model import LineKind, LogLine
from logsleuth.resources import data_dir
from logsleuth.yamlload import load_yaml

_TIMEOUT = 0.05


@dataclass(frozen=True, slots=True)
class FactPattern:
    name: str
    pattern: regex.Pattern[str]
    kind: str  # str | int | float


@cache
def fact_patterns() -> tuple[FactPattern, ...]:
    data, _ = load_yaml(data_dir("signatures") / "facts.yaml")
    out: list[FactPattern] = []
    for name, spec in (data or {}).items():  # type: ignore[union-attr]
        for text in spec["patterns"]:
            out.append(FactPattern(name, regex.compile(text), spec.get("type", "str")))
    return tuple(out)


class FactCollector:
    """Watches a LogLine stream and keeps the first value found for each fact."""

    def __init__(self) -> None:
        self._facts: dict[str, object] = {}
        self._patterns = fact_patterns()

    def watch(self, lines: Iterable[LogLine]) -> Iterator[LogLine]:
        for line in lines:
            if line.kind is LineKind.PLAIN and len(self._facts) < len(self._patterns):
                self._look(line.text)
            yield line

    def _look(self, text: str) -> None:
        for fact in self._patterns:
            if fact.name in self._facts:
                continue
            try:
                found = fact.pattern.search(text, timeout=_TIMEOUT)
            except TimeoutError:
                continue
            if found:
                value = found.group("value").strip()
                self._facts[fact.name] = _convert(value, fact.kind)

    def result(self) -> dict[str, object]:
        return dict(sorted(self._facts.items()))


def _convert(value: str, kind: str) -> object:
    try:
        if kind == "int":
            return int(value.replace(",", ""))
        if kind == "float":
            return float(value)
    except ValueError:
        return value
    return value
