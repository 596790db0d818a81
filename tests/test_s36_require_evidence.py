"""`match.require`: a signature that asks for frames or the raising module gets no match from a log
that does not show them; every other signature's frames and module still weigh, not gate.

The mechanism is tested on a small database written here (a signature with `require: [frames]`
and its twin without), over generated messages, call paths, prefixes and traceback cuts; then
on the shipped signature that needs it: `plugin-imports-missing-optional-package`, whose words
(`No module named 'X'`) are the interpreter's own, is the plugin loader's class only when the
loader's frames or its "Failed to load plugin" record are in the log. A bare interpreter line
(`python: No module named vllm_ascend`) shows no loader (session 35's revert).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.errors import SignatureError
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, load_signature_file, load_signatures
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback

_SIGNATURE = """\
id: {id}
title: 'A widget library missing, imported through the gadget loader'
category: build
kind: exact
description: >-
  A test signature: the interpreter's words, whose fix holds on one call path.
severity: error
status: stable
match:
  origin: python
  exception: [ModuleNotFoundError, ImportError]
  regex: ['\\bNo module named [''"]?(?P<module>widget[\\w.]*)']
  frames: ['gadget/loader\\.py:load_gadgets', 'Failed to load gadget']
{require}fix: |
  Install `{{module}}` or keep the gadget out.
references:
  - https://docs.vllm.ai/en/latest/design/plugin_system.html
"""


def _database(tmp: Path, *, required: bool, module_required: bool = False) -> SignatureSet:
    folder = tmp / "build"
    folder.mkdir(parents=True, exist_ok=True)
    parts = ["frames"] * required + ["module"] * module_required
    require = f"  require: [{', '.join(parts)}]\n" if parts else ""
    sid = "gated-widget" if parts else "weighed-widget"
    if module_required:
        require += "  module: ['^vllm\\.gadget\\.']\n"
    (folder / f"{sid}.yaml").write_text(_SIGNATURE.format(id=sid, require=require),
                                        encoding="utf-8")
    return load_signatures(tmp, shipped=False, strict=True)


def _answer(log: str, database: SignatureSet) -> list[str]:
    report = explain_text(log, signatures=database)
    found = [report.signature] if report.signature is not None else []
    # the database's own ids (a report may add its own generic entries beside them)
    return [m.id for m in [*found, *report.alternatives] if m.id.endswith("-widget")]


_MODULES = st.sampled_from(["widget", "widgets", "widget_core", "widgetlib.ext"])
_CLASSES = st.sampled_from(["ModuleNotFoundError", "ImportError"])
_OUTER = st.sampled_from([
    [("{site}vllm/engine/arg_utils.py", "add_cli_args", "load_gadgets()")],
    [("/home/u/serve.py", "<module>", "main()"), ("/home/u/serve.py", "main", "load_gadgets()")],
    []])
_LOADER = ("{site}gadget/loader.py", "load_gadgets", "func = entry.load()")
_ELSEWHERE = [("{site}vllm/v1/engine/core.py", "run_engine_core", "engine = EngineCoreProc()"),
              ("{site}vllm/model_executor/model_loader.py", "get_model", "import widget")]
_SETTINGS = settings(max_examples=30, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


def _frames(outer: list[tuple[str, str, str]], root: str, *, loader: bool,
            module: str) -> list[tuple[str, str, str]]:
    path = [(p.format(site=root), f, c) for p, f, c in outer]
    if loader:
        path.append((_LOADER[0].format(site=root), _LOADER[1], _LOADER[2]))
    else:
        path += [(p.format(site=root), f, c) for p, f, c in _ELSEWHERE]
    return path + [(f"{root}gadget_x/__init__.py", "<module>", f"import {module}")]


@_SETTINGS
@given(module=_MODULES, cls=_CLASSES, outer=_OUTER, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES, required=st.booleans())
def test_frames_seen_match_with_or_without_require(
        tmp_path: Path, module: str, cls: str, outer: list[tuple[str, str, str]], py: str,
        site: str, prefix: str, required: bool) -> None:
    root = site.format(py=py)
    log = python_traceback(_frames(outer, root, loader=True, module=module),
                           f"{cls}: No module named '{module}'", prefix)
    database = _database(tmp_path / str(required), required=required)
    report = explain_text(log, signatures=database)
    assert report.signature is not None, log
    assert f"`{module}`" in report.signature.fix


@_SETTINGS
@given(module=_MODULES, cls=_CLASSES, outer=_OUTER, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_another_call_path_weighs_without_require_and_gates_with_it(
        tmp_path: Path, module: str, cls: str, outer: list[tuple[str, str, str]], py: str,
        site: str, prefix: str) -> None:
    root = site.format(py=py)
    log = python_traceback(_frames(outer, root, loader=False, module=module),
                           f"{cls}: No module named '{module}'", prefix)
    # frames weigh: the words from another call path still match, as before
    assert _answer(log, _database(tmp_path / "weighed", required=False)) == ["weighed-widget"], log
    # asked for, they gate: not even an alternative
    assert _answer(log, _database(tmp_path / "gated", required=True)) == [], log


_INTERPRETERS = st.sampled_from(["python", "python3", "/usr/bin/python3.12",
                                 "/opt/conda/envs/serve/bin/python3.11"])
_LINE_PREFIXES = st.sampled_from(["", "[14:41:59] ", "stderr: ", "(pid=4242) ", "vllm-1  | ",
                                  "2025-08-03T10:11:12.123456789Z "])


@_SETTINGS
@given(module=_MODULES, python=_INTERPRETERS, prefix=_LINE_PREFIXES,
       cut=st.sampled_from(["bare", "spec", "tailless"]))
def test_no_frames_printed_weighs_without_require_and_gates_with_it(
        tmp_path: Path, module: str, python: str, prefix: str, cut: str) -> None:
    """A bare interpreter line, runpy's module-specification line and a traceback whose frames
    were cut show no frames at all: not a contradiction (0.9), but not the evidence asked for."""
    if cut == "bare":
        log = f"{prefix}{python}: No module named {module}\n"
    elif cut == "spec":
        log = (f"{prefix}{python}: Error while finding module specification for '{module}.x' "
               f"(ModuleNotFoundError: No module named '{module}')\n")
    else:
        log = (f"{prefix}Traceback (most recent call last):\n{prefix}  [... 40 lines elided]\n"
               f"{prefix}ModuleNotFoundError: No module named '{module}'\n")
    assert "weighed-widget" in _answer(log, _database(tmp_path / "weighed", required=False)), log
    assert _answer(log, _database(tmp_path / "gated", required=True)) == [], log


@_SETTINGS
@given(module=_MODULES, py=PYTHONS, site=SITE_PACKAGES,
       stamp=st.sampled_from(["ERROR 03-20 06:11:02 [loader.py:44] ",
                              "(APIServer pid=81) ERROR 11-02 09:14:50 [loader.py:60] "]))
def test_the_record_that_introduces_the_traceback_is_evidence_the_gate_accepts(
        tmp_path: Path, module: str, py: str, site: str, stamp: str) -> None:
    """A caught exception logged under its own record (logger.exception): the record is a log
    line of the same process, and the frames part searches it beside the traceback's frames."""
    root = site.format(py=py)
    frames = [(f"{root}importlib/metadata/__init__.py", "load", "module = import_module(name)"),
              (f"{root}gadget_x/__init__.py", "<module>", f"import {module}")]
    log = f"{stamp}Failed to load gadget acme\n" + python_traceback(
        frames, f"ModuleNotFoundError: No module named '{module}'", stamp)
    assert _answer(log, _database(tmp_path, required=True))[:1] == ["gated-widget"], log


def test_require_module_gates_on_the_raising_module(tmp_path: Path) -> None:
    root = "/usr/local/lib/python3.12/site-packages/"
    error = "ModuleNotFoundError: No module named 'widget'"
    inside = [(f"{root}vllm/gadget/loader.py", "load_gadgets", "import widget")]
    outside = [(f"{root}vllm/engine/arg_utils.py", "add_cli_args", "import widget")]
    database = _database(tmp_path, required=False, module_required=True)
    assert _answer(python_traceback(inside, error), database)[:1] == ["gated-widget"]
    assert _answer(python_traceback(outside, error), database) == []


@pytest.mark.parametrize("part", ["frames", "module"])
def test_require_of_a_part_the_signature_does_not_name_is_a_load_error(
        tmp_path: Path, part: str) -> None:
    path = tmp_path / "build" / "broken-widget.yaml"
    path.parent.mkdir()
    text = _SIGNATURE.format(id="broken-widget", require=f"  require: [{part}]\n")
    if part == "frames":
        text = text.replace("  frames: ['gadget/loader\\.py:load_gadgets', 'Failed to load gadget']\n",
                            "")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SignatureError, match=f"match.require: '{part}'"):
        load_signature_file(path)


def test_require_names_only_known_parts(tmp_path: Path) -> None:
    path = tmp_path / "build" / "odd-widget.yaml"
    path.parent.mkdir()
    path.write_text(_SIGNATURE.format(id="odd-widget", require="  require: [phase]\n"),
                    encoding="utf-8")
    with pytest.raises(SignatureError, match="match.require"):
        load_signature_file(path)


# ---- the shipped signature that asks for it ------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(python=_INTERPRETERS, prefix=_LINE_PREFIXES,
       module=st.sampled_from(["vllm_ascend", "nixl", "mooncake", "lmcache", "deep_gemm",
                               "vllm_gaudi", "flashinfer.comm"]),
       spec=st.booleans())
def test_a_bare_interpreter_line_is_not_the_plugin_loader_class(
        python: str, prefix: str, module: str, spec: bool) -> None:
    """`python: No module named vllm_ascend` shows no plugin loader: the plugin signature must
    not answer for it, nor stand among the alternatives (session 35's revert)."""
    log = (f"{prefix}{python}: Error while finding module specification for '{module}.x' "
           f"(ModuleNotFoundError: No module named '{module}')\n" if spec else
           f"{prefix}{python}: No module named {module}\n")
    from logsleuth.signatures import default_signatures

    report = explain_text(log, signatures=default_signatures())
    ids = [m.id for m in [*([report.signature] if report.signature else []), *report.alternatives]]
    assert "plugin-imports-missing-optional-package" not in ids, (log, ids)


def test_the_shipped_plugin_signature_asks_for_its_frames() -> None:
    from logsleuth.signatures import default_signatures
    from logsleuth.signatures.load import Required

    signature = default_signatures().get("plugin-imports-missing-optional-package")
    assert signature is not None and Required.FRAMES in signature.required
    # only the interpreter's words whose fix holds on one call path ask (Inductor reading
    # Triton is the other); frames weigh for every other signature (issue 11, item 2)
    asking = sorted(s.id for s in default_signatures() if s.required)
    assert asking == ["inductor-import-triton-api-changed",
                      "plugin-imports-missing-optional-package"], asking
