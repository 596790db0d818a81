"""The data files read from their compiled copies (compiledcopy.py: causality.yaml, facts.yaml,
remedy.yaml, framework-knobs.yaml, platform-knobs.yaml, drift.yaml) are the ones compiled from the YAML: same fields, patterns that match alike, the
copy written once and read after, a damaged copy ignored, a new copy for other bytes."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import regex

from logsleuth import compiledcopy, facts, frameworks, knowledge, platform_knobs, remedy
from logsleuth.index import drift
from logsleuth.resources import data_dir

_CAUSALITY = data_dir("signatures") / "causality.yaml"


def _load(cache: Path, monkeypatch: pytest.MonkeyPatch) -> knowledge.Causality:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(cache))
    monkeypatch.delenv("LOGSLEUTH_NO_CACHE", raising=False)
    knowledge.default_causality.cache_clear()
    try:
        return knowledge.default_causality()
    finally:
        knowledge.default_causality.cache_clear()


def _plain(value: object) -> object:
    """A value with each pattern as its text and flags (two compiles of one text are unequal)."""
    if isinstance(value, regex.Pattern):
        return ("pattern", value.pattern, value.flags)
    if isinstance(value, (tuple, list)):
        return tuple(_plain(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,
                tuple(_plain(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return value


def _patterns(value: object) -> Iterator[regex.Pattern[str]]:
    if isinstance(value, regex.Pattern):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _patterns(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            if item.init:
                yield from _patterns(getattr(value, item.name))


def _texts() -> list[str]:
    """Lines the patterns are asked about: every line of the signatures' example logs."""
    lines: list[str] = []
    for example in sorted(data_dir("signatures").rglob("*.log"))[:200]:
        lines += example.read_text(encoding="utf-8", errors="replace").splitlines()[:15]
    return lines


def _same(kept: knowledge.Causality, fresh: knowledge.Causality) -> None:
    for item in dataclasses.fields(knowledge.Causality):
        if item.init or item.name in ("_milestone_table", "_phase_table", "_needs", "_reading",
                                      "_starts", "_symptom_blind", "_milestone_split",
                                      "_phase_split"):
            assert _plain(getattr(kept, item.name)) == _plain(getattr(fresh, item.name)), \
                item.name
    pairs = list(zip(_patterns(kept), _patterns(fresh), strict=True))
    texts = _texts()
    assert len(pairs) > 100 and len(texts) > 1000
    for one, two in pairs:
        for text in texts:
            first, second = one.search(text), two.search(text)
            assert (first and (first.span(), first.groupdict())) \
                == (second and (second.span(), second.groupdict())), (one.pattern, text)


def test_copy_is_written_then_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = knowledge.load_causality()
    _same(_load(tmp_path, monkeypatch), fresh)  # compiled, writing the copy
    copies = list(tmp_path.glob("causality-*.pickle"))
    assert len(copies) == 1
    _same(_load(tmp_path, monkeypatch), fresh)  # read from the copy
    values = pickle.loads(copies[0].read_bytes())
    copies[0].write_bytes(pickle.dumps({**values, "refused_advice": ("marked",)}))
    assert _load(tmp_path, monkeypatch).refused_advice == ("marked",)  # the copy is what is read


@pytest.mark.parametrize("damage", [b"", b"not a pickle", pickle.dumps((1, 2)),
                                    pickle.dumps({"roles": ()})])
def test_damaged_copy_is_ignored(damage: bytes, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _load(tmp_path, monkeypatch)
    for copy in tmp_path.glob("causality-*.pickle"):
        copy.write_bytes(damage)
    _same(_load(tmp_path, monkeypatch), knowledge.load_causality())


def test_other_bytes_other_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LOGSLEUTH_NO_CACHE", raising=False)
    raw = _CAUSALITY.read_bytes()
    code = [Path(knowledge.__file__)]
    assert compiledcopy.where("causality", raw, code) == compiledcopy.where("causality", raw, code)
    assert compiledcopy.where("causality", raw, code) \
        != compiledcopy.where("causality", raw + b"\n", code)
    assert compiledcopy.where("causality", raw, code) != compiledcopy.where("facts", raw, code)
    assert compiledcopy.where("causality", raw, code) \
        != compiledcopy.where("causality", raw, [*code, Path(facts.__file__)])
    monkeypatch.setenv("LOGSLEUTH_NO_CACHE", "1")
    assert compiledcopy.where("causality", raw, code) is None
    knowledge.default_causality.cache_clear()
    try:
        assert knowledge.default_causality().refused_advice \
            == knowledge.load_causality().refused_advice
        assert not list(tmp_path.glob("causality-*.pickle"))  # nothing written with caching off
    finally:
        knowledge.default_causality.cache_clear()


_TABLES = [(facts.fact_table, lambda: facts._load_table(data_dir("signatures") / "facts.yaml"),
            "facts"),
           (remedy.default_phrasing, remedy.load_phrasing, "remedy"),
           (frameworks.default_frameworks, frameworks.load_frameworks, "frameworks"),
           (platform_knobs.default_platforms, platform_knobs.load_platforms, "platform-knobs"),
           (drift.default_wording, drift.load_wording, "drift")]


@pytest.mark.parametrize(("default", "fresh", "name"), _TABLES)
def test_tables_from_copies(default: Any, fresh: Any, name: str, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    """facts.yaml and remedy.yaml: the copy is written, read, and equal to a fresh load; a
    damaged one is built again."""
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LOGSLEUTH_NO_CACHE", raising=False)
    expected = _plain(fresh())
    try:
        for damage in (None, None, b"garbage", pickle.dumps((1, 2))):
            for copy in tmp_path.glob(f"{name}-*.pickle"):
                copy.write_bytes(damage) if damage is not None else None
            default.cache_clear()
            assert _plain(default()) == expected
            assert len(list(tmp_path.glob(f"{name}-*.pickle"))) == 1
        copy = next(tmp_path.glob(f"{name}-*.pickle"))
        kept = pickle.loads(copy.read_bytes())
        for one, two in zip(_patterns(kept), _patterns(fresh()), strict=True):
            for text in _texts()[:300]:
                first, second = one.search(text), two.search(text)
                assert (first and first.span()) == (second and second.span())
    finally:
        default.cache_clear()
