"""Import a script of `tools/` (a folder of scripts, not a package) into a test."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).parent.parent / "tools"


def import_tool(folder: str, name: str) -> ModuleType:
    """`tools/<folder>/<name>.py` as a module (its own folder on the path while it imports, so
    it finds the modules beside it)."""
    path = str(TOOLS / folder)
    sys.path.insert(0, path)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(path)
