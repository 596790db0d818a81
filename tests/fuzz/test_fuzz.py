"""The fuzz harness: mutated real log lines through the whole pipeline, many thousand times.

hypothesis draws a seed per case and `fuzz.logs.random_log` builds the log from it (drawing the
log's structure through hypothesis costs ten times more; tests/test_properties.py does that, on
fewer cases, for shrinking). A failure names its seed, which rebuilds the same log.

`FUZZ_EXAMPLES` sets the number of cases (10,000 by default, about 20 s on two cores);
`FUZZ_EXAMPLES=500000 pytest tests/fuzz` runs longer. Every case goes through read, tokenize,
assemble and the causal inference, and must not raise; every FULL_EVERY-th case also goes through
signature matching and the JSON report, which must validate against tests/report.schema.json.
The count of cases run is printed in pytest's summary (the hooks in tests/conftest.py).
"""

from __future__ import annotations

import io
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.logs import check_report, line_count, random_log
from logsleuth.assemble import assemble
from logsleuth.causal import CausalGraph
from logsleuth.model import ErrorEvent
from logsleuth.pipeline import explain
from logsleuth.read import open_input
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import TokenizeStats, tokenize

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "10000"))
FULL_EVERY = 20
COUNT = {"cases": 0, "full": 0}


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**64 - 1))
def test_fuzz_pipeline(seed: int) -> None:
    COUNT["cases"] += 1
    data = random_log(random.Random(seed), max_lines=15)
    log = open_input(io.BytesIO(data))
    stats = TokenizeStats()
    events = list(assemble(tokenize(log.blocks(), stats)))
    for event in events:
        if isinstance(event, ErrorEvent):
            assert 1 <= event.first_line <= event.line <= event.last_line <= stats.lines
    CausalGraph.build(events, last_line=stats.last_line_text, line_count=stats.lines).infer()
    if COUNT["cases"] % FULL_EVERY == 0:
        COUNT["full"] += 1
        report = explain(io.BytesIO(data), signatures=default_signatures(), name="fuzz")
        decoded = b"".join(open_input(io.BytesIO(data)).blocks())
        check_report(report_to_dict(report), line_count(decoded))
