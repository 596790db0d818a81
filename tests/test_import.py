"""`import logsleuth` stays light: no heavy dependency and no data file is loaded on import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("networkx", "lark", "jsonschema", "rich")

PROBE = """
import json, sys
opened = []
def audit(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].endswith((".lark", ".yaml", ".yml",
                                                                          ".json", ".log", ".gz")):
        opened.append(args[0])
sys.addaudithook(audit)
import logsleuth
print(json.dumps({"modules": sorted(sys.modules), "opened": opened,
                  "all": list(logsleuth.__all__)}))
"""


@pytest.fixture(scope="module")
def probe() -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=60, check=True)
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("module", HEAVY)
def test_import_does_not_load(probe: dict[str, list[str]], module: str) -> None:
    loaded = [name for name in probe["modules"] if name == module or name.startswith(module + ".")]
    assert loaded == []


def test_import_reads_no_data_files(probe: dict[str, list[str]]) -> None:
    assert probe["opened"] == []


def test_public_names_resolve() -> None:
    import logsleuth

    for name in logsleuth.__all__:
        assert getattr(logsleuth, name) is not None, name
