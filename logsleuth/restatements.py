"""Lines that restate an error the log reports in full elsewhere (causality.yaml `restatements`).

pytest's short test summary repeats, after every test report, the first line of each failed
test's exception (`FAILED tests/x.py::test - Type: message`, cut to the terminal's width with
`...`). It is printed last, but a reporter may paste it first; either way it is a copy of the
report's `E   Type: message` lines, not an earlier failure. The assembler titles such a line by
its wrapper; here it leaves the run's errors when another error of the run is the same exception
(its type and the start of its message). Alone, it stays: it is then the only word of the failure.
"""

from __future__ import annotations

from logsleuth.knowledge import Causality
from logsleuth.model import ErrorEvent

_CUT = "..."  # pytest's mark of a summary cut to the terminal's width


def fold_restatements(errors: list[ErrorEvent], know: Causality) -> list[ErrorEvent]:
    """The errors without the restatements of another error of the same list."""
    restating = [e for e in errors if know.restates(e.title)]
    if not restating:
        return errors
    reported = [e for e in errors if not know.restates(e.title)]
    copies = {e.id for e in restating if any(_restates(e, other) for other in reported)}
    return [e for e in errors if e.id not in copies]


def _restates(summary: ErrorEvent, report: ErrorEvent) -> bool:
    if _short(summary.exception) != _short(report.exception):
        return False
    said = " ".join(summary.message.split("\n", 1)[0].split())
    if said.endswith(_CUT):
        said = said[: -len(_CUT)].rstrip()
    return " ".join(report.message.split()).startswith(said)


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]
