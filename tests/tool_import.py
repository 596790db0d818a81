"""Import a script of `tools/` (a folder of scripts, not a package) into a test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).parent.parent / "tools"


def import_tool(folder: str, name: str) -> ModuleType:
    """`tools/<folder>/<name>.py` as a module (its own folder on the path while it imports, so
    it finds the modules beside it). Registered under a name of its folder's: several tools name
    their script `probe.py`, and one test process imports more than one of them."""
    unique = f"_tool_{folder}_{name}"
    if unique in sys.modules:
        return sys.modules[unique]
    path = str(TOOLS / folder)
    spec = importlib.util.spec_from_file_location(unique, TOOLS / folder / f"{name}.py")
    assert spec is not None and spec.loader is not None, f"no tool tools/{folder}/{name}.py"
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    sys.path.insert(0, path)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[unique]
        raise
    finally:
        sys.path.remove(path)
    return module
