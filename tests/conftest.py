"""Suite-wide settings.

Hypothesis runs derandomized by default, so CI explores the same examples on every run and a
failure can be replayed: `HYPOTHESIS_PROFILE=explore` draws fresh examples (and
`FUZZ_EXAMPLES=N` lengthens the fuzz run) when hunting for new bugs on purpose.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# No per-example deadline: it is a wall-clock threshold, and on a loaded CI machine it fails
# tests that are right (the suite's rule: speed is measured in benchmarks/, never asserted).
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, **_UNTIMED)
settings.register_profile("explore", derandomize=False, **_UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def mix_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A directory for the benchmark mixes the tests generate (tests/mix_logs.py)."""
    return str(tmp_path_factory.mktemp("mixes"))
