"""Print how many fuzz cases ran, so a CI log shows the harness did its work.

The counts travel on the test's report (its `user_properties`), not through a module global:
under pytest-xdist the fuzz test runs in a worker and the summary prints in the controller.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

FUZZ_TEST = "test_fuzz_pipeline"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    if call.when == "call" and item.name == FUZZ_TEST:
        from fuzz.test_fuzz import COUNT

        outcome.get_result().user_properties.append(("fuzz_counts", dict(COUNT)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    reports = [report for outcome in ("passed", "failed")
               for report in terminalreporter.stats.get(outcome, [])]
    for report in reports:
        for name, counts in getattr(report, "user_properties", []):
            if name == "fuzz_counts" and counts["cases"]:
                terminalreporter.write_line(
                    f"fuzz: {counts['cases']:,} cases through read/tokenize/assemble/infer, "
                    f"{counts['full']:,} of them through the full report")
