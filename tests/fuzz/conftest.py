"""Print how many fuzz cases ran, so a CI log shows the harness did its work."""

from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from fuzz.test_fuzz import COUNT

    if COUNT["cases"]:
        terminalreporter.write_line(
            f"fuzz: {COUNT['cases']:,} cases through read/tokenize/assemble/infer, "
            f"{COUNT['full']:,} of them through the full report")
