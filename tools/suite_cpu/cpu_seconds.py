"""A pytest plugin that writes each test's CPU seconds, for measuring the suite on a shared
machine (where wall time says more about the other jobs than about the suite).

    SUITE_CPU_DIR=/tmp/m PYTHONPATH=.:tools/suite_cpu python -m pytest -n 2 -p cpu_seconds
    python tools/suite_cpu/table.py /tmp/m            # per-file totals, heaviest first

Every process of the run (the controller and each xdist worker) writes `<its name>.tsv` in
SUITE_CPU_DIR: a line per test (node id, CPU seconds of this process, wall seconds, time ended),
`#collect` (CPU and wall seconds from start-up to the end of collection) and `#total` (CPU and
wall seconds of the process, and CPU seconds of the subprocesses it waited for: mypy, the CLI,
fresh interpreters). CPU seconds of a test exclude its subprocesses'.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

_START = (time.process_time(), time.time())
_OUT: list[IO[str]] = []


def _out() -> IO[str] | None:
    folder = os.environ.get("SUITE_CPU_DIR")
    if not folder:
        return None
    if not _OUT:
        name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
        Path(folder).mkdir(parents=True, exist_ok=True)
        _OUT.append(open(Path(folder) / f"{name}.tsv", "w", encoding="utf-8"))
    return _OUT[0]


def _since_start() -> str:
    return f"{time.process_time() - _START[0]:.3f}\t{time.time() - _START[1]:.3f}"


def pytest_collection_finish(session: pytest.Session) -> None:
    out = _out()
    if out is not None:
        out.write(f"#collect\t{_since_start()}\n")
        out.flush()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    cpu, wall = time.process_time(), time.time()
    yield
    out = _out()
    if out is not None:
        now = time.time()
        out.write(f"{item.nodeid}\t{time.process_time() - cpu:.4f}\t{now - wall:.4f}\t{now:.2f}\n")
        out.flush()


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = _out()
    if out is not None:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.write(f"#total\t{_since_start()}\t{children.ru_utime + children.ru_stime:.3f}\n")
        out.close()
