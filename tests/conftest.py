"""Suite-wide settings.

Hypothesis runs derandomized by default, so CI explores the same examples on every run and a
failure can be replayed: `HYPOTHESIS_PROFILE=explore` draws fresh examples (and
`FUZZ_EXAMPLES=N` lengthens the fuzz run) when hunting for new bugs on purpose.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

# No per-example deadline: it is a wall-clock threshold, and on a loaded CI machine it fails
# tests that are right (the suite's rule: speed is measured in benchmarks/, never asserted).
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, **_UNTIMED)
settings.register_profile("explore", derandomize=False, **_UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session", autouse=True)
def labelled_reports_shared(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The directory where tests/labelled_reports.py keeps the labelled logs' reports for every
    worker of the session: the session's base temporary directory (a pytest-xdist worker's is a
    folder inside it)."""
    import labelled_reports

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    labelled_reports.SHARED = base / "labelled-reports"


@pytest.fixture(scope="session")
def mix_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A directory for the benchmark mixes the tests generate (tests/mix_logs.py)."""
    return str(tmp_path_factory.mktemp("mixes"))


# The long tests (`pytest.mark.long`, several seconds each) run first. pytest-xdist hands the
# tests out in the collection's order: a long test met near the end kept one worker busy while
# the other had nothing left to take; sent first, the short tests that follow even the workers
# out. Otherwise the order is the collection's (a stable sort).
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


# Print how many fuzz cases ran, so a CI log shows the harness did its work. The counts travel
# on the test's report (its `user_properties`), not through a module global: under pytest-xdist
# the fuzz test runs in a worker and the summary prints in the controller, which loads only this
# top-level conftest (not tests/fuzz/'s).
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
