"""The vLLM index read from its marshal copy (logsleuth/index/data.py) is the index read from
the shipped JSON: same records, the copy written once and read after, a damaged copy ignored."""

from __future__ import annotations

import gzip
import marshal
from importlib import resources
from pathlib import Path

import pytest

from logsleuth.index import data


def _from_json() -> data.VllmIndex:
    raw = resources.files("logsleuth.index").joinpath(data.DATA_FILE).read_bytes()
    return data.VllmIndex.from_json(data.ascii_json(gzip.decompress(raw)))


def test_records_round_trip_through_marshal() -> None:
    index = _from_json()
    assert data.VllmIndex.from_records(marshal.loads(marshal.dumps(index.records()))) == index


def _load(cache: Path, monkeypatch: pytest.MonkeyPatch) -> data.VllmIndex:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(cache))
    monkeypatch.delenv("LOGSLEUTH_NO_CACHE", raising=False)
    data.default_index.cache_clear()
    try:
        return data.default_index()
    finally:
        data.default_index.cache_clear()


def test_copy_is_written_then_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _from_json()
    assert _load(tmp_path, monkeypatch) == expected  # from the JSON, writing the copy
    copies = list(tmp_path.glob("vllm-index-*.marshal"))
    assert len(copies) == 1
    copies[0].write_bytes(marshal.dumps(expected.records()[:-1] + ((),)))  # no variables
    assert _load(tmp_path, monkeypatch).environment == ()  # the copy is what is read


@pytest.mark.parametrize("damage", [b"", b"not marshal", marshal.dumps((1, 2))])
def test_damaged_copy_is_ignored(damage: bytes, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _load(tmp_path, monkeypatch)
    for copy in tmp_path.glob("vllm-index-*.marshal"):
        copy.write_bytes(damage)
    assert _load(tmp_path, monkeypatch) == _from_json()


def test_templates_made_on_demand_are_the_eager_ones() -> None:
    """From the cached records, sites become MessageTemplates when asked for (data.Templates):
    the same records in the same order, found by text as a filter finds them."""
    eager = _from_json()
    lazy = data.VllmIndex.from_records(marshal.loads(marshal.dumps(eager.records())))
    assert isinstance(lazy.templates, data.Templates)
    assert lazy.templates[-1] == eager.templates[-1]
    assert lazy.templates[5:9] == tuple(eager.templates[5:9])
    for position in (0, 1, len(eager.templates) // 2, len(eager.templates) - 1):
        text = eager.templates[position].text
        assert data.sites_of(lazy, text) == tuple(s for s in eager.templates if s.text == text)
        assert data.sites_of(lazy, text) == data.sites_of(eager, text)
    assert data.sites_of(lazy, "not a message of vLLM") == ()
    assert list(lazy.templates) == list(eager.templates)
