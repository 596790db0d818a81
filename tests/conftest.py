"""Suite-wide settings.

Hypothesis runs derandomized by default, so CI explores the same examples on every run and a
failure can be replayed: `HYPOTHESIS_PROFILE=explore` draws fresh examples (and
`FUZZ_EXAMPLES=N` lengthens the fuzz run) when hunting for new bugs on purpose.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def mix_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A directory for the benchmark mixes the tests generate (tests/mix_logs.py)."""
    return str(tmp_path_factory.mktemp("mixes"))
