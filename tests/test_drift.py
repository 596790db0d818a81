"""API drift (logsleuth/index/drift.py, signatures/drift.yaml): code written for one vLLM release
run against another. The lookups are tested on constructed indexes generated across names,
modules and release spans; the advice on lines of every shape built from the shipped indexes
(names that moved, modules that went, engine arguments and flags that were removed), with callers
generated as installed packages, repository folders and scripts; and the shipped data loads from
an installed copy of the package laid out as pyproject's wheel target lays it out."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.data import EngineArgument, VllmIndex, default_index
from logsleuth.errors import SignatureError
from logsleuth.index.drift import (FINDINGS, argument_drift, default_wording, drift_for,
                                   load_wording, module_drift, name_drift)
from logsleuth.index.symbols import Home, SymbolIndex, default_symbols
from logsleuth.model import ErrorEvent, EventKind, Frame, Process
from logsleuth.pipeline import explain_text
from logsleuth.resources import data_dir

REPO = Path(__file__).resolve().parents[1]
IDENT = st.from_regex(r"[A-Za-z][a-z]{2,8}(?:_?[A-Z]?[a-z]{2,6})?", fullmatch=True)
MODULE = st.lists(st.from_regex(r"[a-z]{2,7}", fullmatch=True), min_size=1, max_size=3).map(
    lambda parts: ".".join(["vllm", *parts]))


def _symbols(n: int, homes: dict[str, list[tuple[str, range, bool]]]) -> SymbolIndex:
    releases = tuple(f"0.{i}.0" for i in range(n))
    modules: dict[str, set[int]] = {}
    for places in homes.values():
        for module, span, _ in places:
            modules.setdefault(module, set()).update(span)
    return SymbolIndex("test", releases, {m: tuple(sorted(r)) for m, r in modules.items()},
                       {name: tuple(Home(m, tuple(span), defines) for m, span, defines in places)
                        for name, places in homes.items()})


@st.composite
def _moves(draw: st.DrawFn) -> tuple[int, int, str, str, str]:
    n = draw(st.integers(3, 12))
    cut = draw(st.integers(0, n - 2))  # the last release the old module offers the name in
    old, new = draw(MODULE), draw(MODULE)
    if old == new:
        new = f"{old}.moved"
    return n, cut, old, new, draw(IDENT)


@settings(max_examples=80, deadline=None)
@given(_moves())
def test_a_name_that_moved_is_found_in_its_new_home_from_the_release_after(
        move: tuple[int, int, str, str, str]) -> None:
    n, cut, old, new, name = move
    # the old module offers it up to `cut`; a stub elsewhere never counts before a definition
    symbols = _symbols(n, {name: [(old, range(cut + 1), True), (new, range(cut + 1, n), True),
                                  ("vllm.aaa", range(n), False)]})
    finding, values = name_drift(symbols, old, name, None) or ("", {})
    assert finding == "moved"
    assert (values["last"], values["gone"], values["home"]) == \
        (f"0.{cut}.0", f"0.{cut + 1}.0", new)
    assert name_drift(symbols, old, name, cut) is None  # the log's release still has it there
    # the reverse: code written for the new home, run on a release before it
    finding, values = name_drift(symbols, new, name, cut) or ("", {})
    assert (finding, values.get("first"), values.get("log")) == \
        ("not_yet", f"0.{cut + 1}.0", f"0.{cut}.0")


@settings(max_examples=40, deadline=None)
@given(_moves())
def test_a_name_no_module_offers_any_more_is_removed_and_a_misplaced_one_is_elsewhere(
        move: tuple[int, int, str, str, str]) -> None:
    n, cut, old, new, name = move
    gone = _symbols(n, {name: [(old, range(cut + 1), True)], "Other": [(new, range(n), True)]})
    assert (name_drift(gone, old, name, None) or ("",))[0] == "removed"
    assert name_drift(gone, old, "NeverThere", None) is None  # nothing known: no advice
    misplaced = _symbols(n, {name: [(new, range(n), True)], "Other": [(old, range(n), True)]})
    finding, values = name_drift(misplaced, old, name, None) or ("", {})
    assert (finding, values.get("home")) == ("elsewhere", new)


@settings(max_examples=40, deadline=None)
@given(_moves(), st.lists(IDENT, min_size=1, max_size=5, unique=True))
def test_a_module_that_went_names_where_its_definitions_went(
        move: tuple[int, int, str, str, str], names: list[str]) -> None:
    n, cut, old, new, _ = move
    symbols = _symbols(n, {name: [(old, range(cut + 1), True), (new, range(cut + 1, n), True)]
                           for name in names})
    finding, values = module_drift(symbols, old, None) or ("", {})
    assert (finding, values["gone"], values["homes"]) == ("module_gone", f"0.{cut + 1}.0",
                                                          f"`{new}`")
    assert module_drift(symbols, new, n - 1) is None
    assert (module_drift(symbols, new, cut) or ("",))[0] == "module_not_yet"
    # no version in the log, yet every release from the module's first on has it: vLLM is older
    assert (module_drift(symbols, new, None) or ("",))[0] == "module_not_yet"
    dropped = _symbols(n, {name: [(old, range(cut + 1), True)] for name in names})
    assert (module_drift(dropped, old, None) or ("",))[0] == "module_removed"


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 2))),
       st.from_regex(r"[a-z]{3,8}_[a-z]{2,6}", fullmatch=True))
def test_an_engine_argument_removed_is_dated(span: tuple[int, int], field: str) -> None:
    n, cut = span
    index = VllmIndex("test", tuple(f"0.{i}.0" for i in range(n)), (), (), (),
                      (EngineArgument(f"--{field.replace('_', '-')}", field, None, None, None,
                                      tuple(range(cut + 1))),), ())
    finding, values = argument_drift(index, field, None) or ("", {})
    assert (finding, values["gone"], values["last"]) == \
        ("argument_removed", f"0.{cut + 1}.0", f"0.{cut}.0")
    assert argument_drift(index, field, cut) is None


# --- the advice on lines built from the shipped indexes -------------------------------------

def _spread(items: list[object], count: int) -> list[object]:
    """`count` items spread over a sorted list (not its first few)."""
    step = max(1, len(items) // count)
    return items[::step][:count]


def _shaped(line: str) -> bool:
    """Whether a drift.yaml shape reads the line (vLLM's bundled FlashAttention is no drift)."""
    return any(shape.when.search(line) for shape in default_wording().shapes)


def _moved_names() -> list[tuple[str, str]]:
    """(name, old module): names a module offered in some release and no longer does in the
    newest, while the module lives on and a module defines the name in the newest."""
    symbols = default_symbols()
    newest = len(symbols.releases) - 1
    out = []
    for name, homes in sorted(symbols.names.items()):
        for home in homes:
            if home.defines and home.releases[-1] < newest \
                    and newest in symbols.modules.get(home.module, ()) \
                    and any(h.defines and newest in h.releases for h in homes) \
                    and _shaped(f"ImportError: cannot import name '{name}' from '{home.module}'"):
                out.append((name, home.module))
                break
    return out


def _removed_arguments() -> list[str]:
    index = default_index()
    newest = len(index.releases) - 1
    fields: dict[str, int] = {}
    for argument in index.arguments:
        if argument.field.isidentifier():
            fields[argument.field] = max(fields.get(argument.field, -1), *argument.releases)
    return sorted(f for f, last in fields.items() if last < newest)


@pytest.mark.parametrize("name,module", _spread(_moved_names(), 8))  # type: ignore[arg-type]
def test_a_moved_name_is_imported_from_where_the_newest_release_keeps_it(name: str,
                                                                           module: str) -> None:
    report = explain_text(f"ImportError: cannot import name '{name}' from '{module}'\n")
    symbols = default_symbols()
    home = symbols.homes_in(name, len(symbols.releases) - 1)[0]
    assert report.signature is not None
    fix = report.signature.fix
    assert f"from {home} import {name}" in fix and f"`{module}`" in fix
    last = symbols.releases[symbols.offers(module, name)[-1]]
    assert f"pin `vllm=={last}`" in fix


@pytest.mark.parametrize("field", _spread(_removed_arguments(), 6))  # type: ignore[arg-type]
@pytest.mark.parametrize("caller,root", [
    ("lm_eval", "/opt/conda/envs/rl/lib/python3.10/site-packages"),
    ("trlx_fork", "/usr/local/lib/python3.11/dist-packages"),
    ("skyrl", "")])
def test_a_removed_engine_argument_names_the_release_and_the_caller(field: str, caller: str,
                                                                    root: str) -> None:
    where = f"{root}/{caller}" if root else caller
    log = ("Traceback (most recent call last):\n"
           f'  File "{where}/models/engine.py", line 58, in build\n    llm = LLM(**kwargs)\n'
           '  File "/x/site-packages/vllm/utils.py", line 1039, in inner\n'
           "    return fn(*args, **kwargs)\n"
           '  File "/x/site-packages/vllm/entrypoints/llm.py", line 210, in __init__\n'
           "    engine_args = EngineArgs(\n"
           f"TypeError: EngineArgs.__init__() got an unexpected keyword argument '{field}'\n")
    report = explain_text(log)
    assert report.signature is not None
    fix = report.signature.fix
    index = default_index()
    last = max(r for a in index.arguments if a.field == field for r in a.releases)
    assert f"`{field}` was removed in vLLM {index.releases[last + 1]}" in fix or \
        f"was removed after vLLM {index.releases[last]}" in fix
    assert f"`{caller}` makes the call" in fix
    assert (f"pip install -U {caller}" in fix) == bool(root)


def _gone_modules() -> list[str]:
    symbols = default_symbols()
    newest = len(symbols.releases) - 1
    # the releases in which each module defines a name (symbols.defined_in is not empty), in
    # one pass: asking defined_in of each module read every name each time (2 s at collection)
    defining: dict[str, set[int]] = {}
    for homes in symbols.names.values():
        for home in homes:
            if home.defines:
                defining.setdefault(home.module, set()).update(home.releases)
    return sorted(m for m, releases in symbols.modules.items()
                  if releases[-1] < newest and len(releases) > 2 and "._" not in m
                  and releases[-1] in defining.get(m, ())
                  and _shaped(f"ModuleNotFoundError: No module named '{m}'"))


@pytest.mark.parametrize("module", _spread(_gone_modules(), 6))  # type: ignore[arg-type]
def test_a_gone_module_is_dated_and_its_pieces_located(module: str) -> None:
    report = explain_text(f"ModuleNotFoundError: No module named '{module}'\n")
    assert report.signature is not None
    symbols = default_symbols()
    gone = symbols.releases[symbols.modules[module][-1] + 1]
    assert f"The module `{module}` is gone from vLLM {gone} on" in report.signature.fix
    assert ("its definitions now live in" in report.signature.fix) != \
        ("no module defines its names since" in report.signature.fix)


def test_a_script_caller_and_no_traceback_still_get_the_finding() -> None:
    name, module = _moved_names()[0]
    event = ErrorEvent(1, EventKind.EXCEPTION, "ImportError",
                       f"cannot import name '{name}' from '{module}'", Process("main"), 3, 1, 3,
                       (Frame("/home/me/run.py", 2, "<module>"),))
    drift = drift_for(event, None)
    assert drift is not None and (drift.caller, drift.file) == (None, "/home/me/run.py")
    assert drift_for(event, default_symbols().releases[-1]) is not None
    bare = ErrorEvent(1, EventKind.EXCEPTION, "ImportError",
                      f"cannot import name '{name}' from 'vllm.nowhere_{name.lower()}'",
                      Process("main"), 1, 1, 1)
    assert drift_for(bare, None) is None or drift_for(bare, None).finding == "elsewhere"


def test_the_wording_covers_every_lookup_and_finding(tmp_path: Path) -> None:
    wording = default_wording()
    assert {s.lookup for s in wording.shapes} == {"name", "module", "argument", "flags"}
    assert FINDINGS <= set(wording.advice)
    assert {side: set(texts) for side, texts in wording.caller.items()} == \
        {side: {"package", "code", "script"} for side in ("older", "newer")}
    shipped = (data_dir("signatures") / "drift.yaml").read_text()
    broken = tmp_path / "drift.yaml"
    broken.write_text(shipped.replace("  argument_removed:", "  argument_gone:"))
    with pytest.raises(SignatureError, match="argument_removed"):
        load_wording(broken)


# --- the shipped data, from an installed copy ---------------------------------------------

def test_the_shipped_data_loads_from_an_installed_copy(tmp_path: Path) -> None:
    """Lay the package out as the wheel does (pyproject: the package, plus force-include), run
    from elsewhere, and load both indexes and the drift wording from it."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    wheel = config["targets"]["wheel"]
    site = tmp_path / "site"
    for package in wheel["packages"]:
        shutil.copytree(REPO / package, site / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for source, target in wheel["force-include"].items():
        shutil.copytree(REPO / source, site / target)
    code = ("from logsleuth.index.symbols import default_symbols\n"
            "from logsleuth.index.data import default_index\n"
            "from logsleuth.index.drift import default_wording\n"
            "import logsleuth.index.symbols as s\n"
            "assert s.__file__.startswith(%r)\n"
            "assert default_symbols().releases == default_index().releases\n"
            "print(len(default_wording().shapes), len(default_symbols().names))\n" % str(site))
    env = {**os.environ, "PYTHONPATH": str(site), "LOGSLEUTH_NO_CACHE": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    shapes, names = map(int, done.stdout.split())
    assert shapes >= 5 and names > 1000


def _added_arguments() -> list[str]:
    """Engine arguments every indexed release from some release after the first on takes."""
    index = default_index()
    present: dict[str, set[int]] = {}
    for argument in index.arguments:
        if argument.field.isidentifier():
            present.setdefault(argument.field, set()).update(argument.releases)
    newest = len(index.releases) - 1
    return sorted(f for f, r in present.items()
                  if min(r) > 0 and r == set(range(min(r), newest + 1)))


@pytest.mark.parametrize("field", _spread(_added_arguments(), 5))  # type: ignore[arg-type]
@pytest.mark.parametrize("caller", ["trl", "verl_ext"])
def test_a_caller_newer_than_the_vllm_is_told_to_upgrade_vllm_not_itself(field: str,
                                                                          caller: str) -> None:
    log = ("Traceback (most recent call last):\n"
           f'  File "/usr/lib/python3/dist-packages/{caller}/serve.py", line 9, in main\n'
           "    llm = LLM(**kwargs)\n"
           '  File "/usr/lib/python3/dist-packages/vllm/entrypoints/llm.py", line 210, in __init__\n'
           "    engine_args = EngineArgs(\n"
           f"TypeError: EngineArgs.__init__() got an unexpected keyword argument '{field}'\n")
    report = explain_text(log)
    assert report.signature is not None
    fix = report.signature.fix.split("**API drift**", 1)[1]  # the family's own text is generic
    index = default_index()
    first = index.releases[min(r for a in index.arguments if a.field == field for r in a.releases)]
    assert f"arrived in vLLM {first}" in fix and f'pip install "vllm>={first}"' in fix
    assert f"`{caller}` makes the call" in fix and f"pip install -U {caller}" not in fix
