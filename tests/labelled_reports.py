"""The JSON report of a labelled log (corpus, tuning, held-out), explained once per test session.

test_tuning's verdict test and fix test of a case judge one report, and test_corpus's tests of a
case and its scores judge one report each; under pytest-xdist they run on whichever worker is
free, and the functools.cache each module kept explained a log again on every worker that asked
(a tuning case's two tests are some 900 items apart in the collection: more often than not on
different workers). `report_of(log)` keeps the report in the worker's memory and writes it, as
JSON, to a directory all the workers of the session share (the parent of a worker's pytest
temporary directory, the session's own: pytest-xdist's documented way to share session data);
a worker that finds a log's report there reads it instead of explaining the log again.

What a test judges is the same: `report_to_dict` gives JSON's types only (strings, numbers,
booleans, None, lists, dicts), so the dict read back equals the one written
(tests/test_labelled_reports.py), and it was explained by the same code in the same session. A
report is written whole (a temporary file renamed), so a reader never sees half of one; two
workers asking for the same log at once both explain it and write the same report.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import logsleuth
from logsleuth.render.json import report_to_dict

_KEPT: dict[Path, dict[str, Any]] = {}
SHARED: Path | None = None  # set for the session by tests/conftest.py (None: this process only)


def _stored(log: Path) -> Path | None:
    if SHARED is None:
        return None
    return SHARED / (hashlib.sha256(str(log).encode()).hexdigest()[:32] + ".json")


def report_of(log: Path) -> dict[str, Any]:
    """report_to_dict(logsleuth.explain(log)), explained once in the session."""
    log = log.resolve()
    kept = _KEPT.get(log)
    if kept is not None:
        return kept
    stored = _stored(log)
    if stored is not None and stored.exists():
        report: dict[str, Any] = json.loads(stored.read_text(encoding="utf-8"))
    else:
        report = report_to_dict(logsleuth.explain(log))
        check_contract(report)
        if stored is not None:
            _write(stored, report)
    _KEPT[log] = report
    return report


@functools.cache
def _validator() -> Any:
    import jsonschema

    schema = json.loads((Path(__file__).parent / "report.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def check_contract(report: dict[str, Any]) -> None:
    """Every labelled log's report (corpus, tuning, held-out) is held to the JSON contract,
    tests/report.schema.json (shared/REPORT_SCHEMA.md and the fields README.md documents),
    once, when it is explained: the contract is checked on every real log the suite reads."""
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}"
                for e in _validator().iter_errors(report)]
    assert not problems, f"{report.get('source')}: the report breaks its contract: {problems}"


def _write(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(report, out)
    os.replace(name, path)
