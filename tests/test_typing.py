"""The package is mypy --strict clean (pyproject.toml [tool.mypy]); a typing regression fails CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.long
def test_mypy_strict_is_clean() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy", "logsleuth"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
