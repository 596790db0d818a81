"""to_json joins the encoder's pieces a few thousand at a time (render/json.py): the text must be
json.dumps's, on reports whose `runs` hold more pieces than one batch and on small ones."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import logsleuth.render.json as render_json
from logsleuth.model import Run, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict, to_json

LOG = """\
INFO 01-24 01:50:35 [api_server.py:1000] vLLM API server version 0.16.0
ERROR 01-24 01:50:40 [core.py:700] EngineCore failed to start.
Traceback (most recent call last):
  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 690, in run
    raise ValueError("No available memory for the cache blocks.")
ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.
"""


def _runs(count: int) -> tuple[Run, ...]:
    return tuple(Run(1 + 10 * i, 10 + 10 * i, Verdict.NO_FAILURE if i % 3 else Verdict.FAILURE,
                     None if i % 3 else "ValueError", None if i % 3 else f"bad \u00e9 {i}",
                     None if i % 3 else 5 + 10 * i, None, i % 7, None, f"01-24 {i:08d}",
                     f"01-24 {i}", i == count - 1) for i in range(count))


@pytest.mark.parametrize("runs", [0, 1, 50, 3_000])
@pytest.mark.parametrize("batch", [1, 7, render_json.JOINED_CHUNKS])
def test_to_json_is_json_dumps(runs: int, batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_json, "JOINED_CHUNKS", batch)
    report = replace(explain_text(LOG), runs=_runs(runs))
    for indent in (2, 4, None):
        expected = json.dumps(report_to_dict(report), indent=indent, ensure_ascii=False)
        assert to_json(report, indent=indent) == expected
