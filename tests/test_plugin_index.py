"""The plugin message index (logsleuth/index/plugin.py, tools/plugin_index/): a plugin's own
messages get an origin naming the plugin's site and releases, `change` dates them by the log's
plugin version, and their own remedy is the advice. Generated over the shipped indexes: templates
of each plugin filled with other values, versions before and after a message went."""

from __future__ import annotations

import json
import random
import re
from functools import cache
from pathlib import Path

import jsonschema
import pytest

from logsleuth.index import origins_of
from logsleuth.index.data import MessageKind, MessageTemplate
from logsleuth.index.lookup import literal_of
from logsleuth.index.origin import default_matcher, origin_of
from logsleuth.index.plugin import PluginIndex, default_plugins, plugin_files, plugin_origin
from logsleuth.index.release import upgrade_for
from logsleuth.model import ErrorEvent, EventKind, Frame, Process
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.render.markdown import render_markdown
from tests.test_facts import facts_of
from tests.tool_import import import_tool

SCHEMA = json.loads((Path(__file__).parent / "report.schema.json").read_text(encoding="utf-8"))
SAMPLES = 12  # templates drawn from each plugin


def _values(seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    return {"int": [str(rng.randint(2, 9999)) for _ in range(4)],
            "float": [f"{rng.uniform(0, 100):.2f}" for _ in range(4)],
            "num": [f"{rng.randint(1000, 99999):,}" for _ in range(4)],
            "hex": [hex(rng.randint(16, 4096)) for _ in range(4)],
            "any": [rng.choice(["qwen3_moe", "Ascend910B", "'kv_both'", "deepseek_v3",
                                "LocalCPUBackend", "128"]) for _ in range(4)]}


def _fill(template: str, seed: int) -> str:
    values = _values(seed)
    counter = iter(range(1000))
    return re.sub(r"\{(\w+)\}",
                  lambda m: values.get(m.group(1), values["any"])[next(counter) % 4], template)


def _event(message: str, exception: str, frames: tuple[Frame, ...] = ()) -> ErrorEvent:
    return ErrorEvent(1, EventKind.EXCEPTION, exception, message, Process("main"), 9, 5, 9,
                      frames)


def _frame(plugin: PluginIndex, site: MessageTemplate) -> Frame:
    path = site.module.replace(".", "/")
    return Frame(f"/usr/local/lib/python3.10/site-packages/{path}.py", 42,
                 site.function.rsplit(".", 1)[-1])


def _raises(plugin: PluginIndex) -> list[MessageTemplate]:
    """The plugin's raise sites with fixed text enough to be told apart, sorted for sampling."""
    return sorted((s for s in plugin.index.templates if s.kind is MessageKind.RAISE
                   and sum(c.isalnum() for c in literal_of(s.text)) >= 30
                   and "\n" not in s.text),
                  key=lambda s: (s.text, s.module, s.function))


@cache
def _plugins() -> dict[str, PluginIndex]:
    return {plugin.package: plugin for plugin, _ in default_plugins()}


def test_every_mined_plugin_ships_its_index() -> None:
    packages = import_tool("plugin_index", "packages")
    shipped = {name: plugin.module for name, plugin in _plugins().items()}
    assert shipped == packages.PACKAGES
    assert len(plugin_files()) == len(packages.PACKAGES)
    for plugin in _plugins().values():
        assert plugin.index.releases and plugin.index.texts
        assert all(s.module.split(".")[0] == plugin.module for s in plugin.index.templates)


def test_release_selection_keeps_first_and_last_of_each_release_number() -> None:
    packages = import_tool("plugin_index", "packages")
    chosen = packages.select_releases(["0.9.0rc1", "0.9.0rc2", "0.9.1rc1", "0.9.1rc2",
                                       "0.9.1rc3", "0.9.1", "0.9.2.dev3", "0.10.0rc1"])
    assert chosen == ["0.9.0rc1", "0.9.0rc2", "0.9.1rc1", "0.9.1", "0.10.0rc1"]
    assert packages.base("0.7.3.post1") == "0.7.3" and packages.base("0.11.0rc3") == "0.11.0"


def _cases() -> list[tuple[str, int]]:
    return [(name, i) for name in sorted(_plugins_names()) for i in range(SAMPLES)]


def _plugins_names() -> list[str]:
    return [name for name in import_tool("plugin_index", "packages").PACKAGES]


@pytest.mark.parametrize("name, i", _cases())
def test_a_plugin_message_with_other_values_is_the_plugins(name: str, i: int) -> None:
    """A template of the plugin, filled with values no source holds, raised through its site:
    the origin names the plugin, a site printing that text, and the plugin's releases."""
    plugin = _plugins()[name]
    raises = _raises(plugin)
    if not raises:
        pytest.skip(f"{name} raises no message long enough to tell apart")
    site = raises[random.Random(f"{name}{i}").randrange(len(raises))]
    message = _fill(site.text, i)
    event = _event(message, site.cls, (_frame(plugin, site),))
    found = origins_of([event], None)
    origin = found.get(event.id)
    assert origin is not None, message
    assert origin.package == name, (message, origin)
    assert origin.site.releases and set(origin.site.releases) <= set(plugin.index.releases)
    assert origin.site.module.split(".")[0] == plugin.module


def test_without_frames_a_message_only_a_plugin_prints_is_the_plugins() -> None:
    """No traceback (an ERROR record, a cut log): a message vLLM's index does not know is still
    the plugin's."""
    checked = 0
    for name, plugin in sorted(_plugins().items()):
        for site in _raises(plugin)[:40]:
            message = _fill(site.text, 3)
            event = _event(message, site.cls)
            if origin_of(event, default_matcher()) is not None:
                continue  # vLLM prints it too: vLLM's origin stands without the plugin's frames
            found = plugin_origin(event)
            assert found is not None and found[0].package == name, message
            checked += 1
    assert checked >= 20


@cache
def _gone() -> list[tuple[PluginIndex, MessageTemplate, str]]:
    """Plugin raise sites whose text no release after some indexed one prints any more:
    (plugin, site, the first release without it)."""
    out = []
    for plugin in _plugins().values():
        releases = plugin.index.releases
        last_by_text: dict[str, int] = {}
        for site in plugin.index.templates:
            last_by_text[site.text] = max(last_by_text.get(site.text, -1), *site.releases)
        for site in _raises(plugin):
            last = last_by_text[site.text]
            if last < len(releases) - 1 and last in site.releases:
                out.append((plugin, site, releases[last + 1]))
    return out


def test_change_names_the_plugin_release_that_dropped_the_message() -> None:
    """Log's plugin version inside the message's releases: `change` names the plugin and the
    first release without it (or a rewording in it); a version after it, or none: no change."""
    cases = _gone()
    assert len(cases) >= 10
    rng = random.Random(7)
    for plugin, site, following in rng.sample(cases, min(25, len(cases))):
        message = _fill(site.text, 5)
        event = _event(message, site.cls, (_frame(plugin, site),))
        inside = plugin.index.releases[site.releases[-1]]
        found = plugin_origin(event, {plugin.version_fact: inside})
        assert found is not None
        origin, through = found
        assert through
        if origin.template != site.text:
            continue  # a longer template of the plugin explains the filled message better
        assert origin.change is not None, (message, inside)
        assert f"{plugin.package} {following}" in origin.change
        later = plugin_origin(event, {plugin.version_fact: plugin.index.releases[-1]})
        assert later is not None and later[0].change is None
        assert plugin_origin(event, {})[0].change is None  # type: ignore[index]


def test_release_evidence_says_upgrade_the_plugin() -> None:
    """Where the plugin's function lives on without the message, the evidence names the plugin
    and its pip command; at least one dropped check of the shipped indexes gives it."""
    given = 0
    for plugin, site, following in _gone():
        message = _fill(site.text, 5)
        event = _event(message, site.cls, (_frame(plugin, site),))
        inside = plugin.index.releases[site.releases[-1]]
        found = plugin_origin(event, {plugin.version_fact: inside})
        if found is None or found[0].template != site.text:
            continue
        evidence = upgrade_for(event, found[0], plugin.index, inside)
        if evidence is None:
            continue
        assert evidence.package == plugin.package and evidence.release == following
        assert evidence.command == f"pip install -U '{plugin.package}>={following}'"
        assert plugin.package in evidence.evidence
        given += 1
        if given >= 3:
            break
    assert given >= 1


@pytest.mark.parametrize("line, fact, value", [
    ("vLLM Ascend Version: 0.11.0rc2", "vllm_ascend_version", "0.11.0rc2"),
    ("vLLM Ascend Version: 0.9.2rc2.dev255+gcf96366.d20250830 (git sha: cf96366, date: 20250830)",
     "vllm_ascend_version", "0.9.2rc2.dev255+gcf96366.d20250830"),
    ("[pip3] vllm_ascend==0.9.1", "vllm_ascend_version", "0.9.1"),
    ("vllm-ascend                       0.10.0rc1", "vllm_ascend_version", "0.10.0rc1"),
    ("docker run quay.io/ascend/vllm-ascend:v0.8.5rc1 bash", "vllm_ascend_version", "0.8.5rc1"),
    ("lmcache                           0.3.9.post2", "lmcache_version", "0.3.9.post2"),
    ("[pip3] lmcache==0.5.6", "lmcache_version", "0.5.6"),
    ("nixl                              0.4.1", "nixl_version", "0.4.1"),
    ("[pip3] vllm_hpu_extension==0.1", "vllm_hpu_extension_version", "0.1"),
    ("tpu-inference                     0.11.1", "tpu_inference_version", "0.11.1"),
    ("[pip3] vllm-spyre==0.5.2", "vllm_spyre_version", "0.5.2"),
])
def test_plugin_versions_are_read_from_the_environment_the_log_shows(line: str, fact: str,
                                                                      value: str) -> None:
    assert facts_of(line).get(fact) == value


def test_a_plugin_path_or_word_is_no_version() -> None:
    found = facts_of("File \"/usr/local/lib/python3.10/site-packages/vllm_ascend/worker.py\", "
                     "line 3, in init", "INFO Loading lmcache connector for 2 workers")
    assert "vllm_ascend_version" not in found and "lmcache_version" not in found


def _log(plugin: PluginIndex, site: MessageTemplate, message: str, version: str | None) -> str:
    path = site.module.replace(".", "/")
    head = [f"vLLM Ascend Version: {version}"] if version else []
    if version and plugin.module != "vllm_ascend":
        head = [f"{plugin.package}                 {version}"]
    short = site.cls.rsplit(".", 1)[-1]
    return "\n".join([
        *head,
        "INFO 06-01 10:00:00 [__init__.py:30] Platform plugin ascend is activated",
        "ERROR 06-01 10:00:05 [core.py:586] EngineCore failed to start.",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.10/site-packages/vllm/v1/engine/core.py", line 577, '
        "in run_engine_core",
        "    engine_core = EngineCoreProc(*args, **kwargs)",
        f'  File "/usr/local/lib/python3.10/site-packages/{path}.py", line 88, '
        f"in {site.function.rsplit('.', 1)[-1]}",
        "    raise error",
        f"{short}: {message}", ""])


def test_the_report_names_the_plugin_origin_and_change() -> None:
    """End to end: a plugin's dropped message raised through its site, the log's plugin version
    printed: the JSON report's origin names the plugin and the change, and validates."""
    shown = 0
    for plugin, site, following in _gone()[:60]:
        if site.cls not in ("ValueError", "RuntimeError", "NotImplementedError", "TypeError",
                            "AssertionError", "KeyError"):
            continue
        message = _fill(site.text, 11)
        inside = plugin.index.releases[site.releases[-1]]
        report = explain_text(_log(plugin, site, message, inside))
        root = report.root_cause
        if root is None or root.message != message:
            continue
        origin = report.origins.get(root.id)
        assert origin is not None and origin.package == plugin.package
        data = report_to_dict(report)
        jsonschema.validate(data, SCHEMA)
        assert data["root_cause"]["origin"]["package"] == plugin.package
        assert f"{plugin.package} source: " in render_markdown(report)
        if origin.template == site.text:
            assert f"{plugin.package} {following}" in (origin.change or "")
        shown += 1
        if shown >= 3:
            break
    assert shown >= 1


def test_a_plugin_message_states_its_own_remedy_as_advice() -> None:
    """A plugin's message that names its remedy ("Please ...", "set ..."): with no exact
    signature, the report's advice is that remedy, and a message fix names the plugin."""
    from logsleuth.remedy import advice_of

    tried = 0
    for name, plugin in sorted(_plugins().items()):
        for site in _raises(plugin):
            message = _fill(site.text, 2)
            remedy = advice_of(message)
            if remedy is None:
                continue
            report = explain_text(_log(plugin, site, message, None))
            root = report.root_cause
            if root is None or root.message != message or report.origins.get(root.id) is None:
                continue
            if report.origins[root.id].package != name:
                continue
            if report.signature is not None and report.signature.kind.value == "exact":
                continue  # an exact signature's fix stands; the message's remedy is not asked
            assert report.advice is not None and report.advice.text == remedy
            if report.signature is not None and report.signature.kind.value == "message":
                assert report.signature.title.startswith(f"{name}'s own advice")
            tried += 1
            break
    assert tried >= 2


def test_the_plugin_indexes_load_from_an_installed_copy(tmp_path: Path) -> None:
    """The wheel carries the plugin data files (pyproject: the package is shipped whole): laid
    out as the wheel lays it out and run from elsewhere, every plugin index loads."""
    import os
    import shutil
    import subprocess
    import sys
    import tomllib

    repo = Path(__file__).parent.parent
    wheel = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["hatch"]["build"][
        "targets"]["wheel"]
    site = tmp_path / "site"
    for package in wheel["packages"]:
        shutil.copytree(repo / package, site / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for source, target in wheel["force-include"].items():
        shutil.copytree(repo / source, site / target)
    code = ("from logsleuth.index.plugin import default_plugins\n"
            "import logsleuth.index.plugin as p\n"
            "assert p.__file__.startswith(%r)\n"
            "print(' '.join(sorted(x.package for x, _ in default_plugins())))\n" % str(site))
    env = {**os.environ, "PYTHONPATH": str(site), "LOGSLEUTH_NO_CACHE": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == sorted(_plugins())


def test_the_cached_copy_reads_as_the_json_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) \
        -> None:
    """The marshal copy a first reading writes gives the same plugin index on the next."""
    from importlib import resources

    from logsleuth.index import plugin

    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    raw = resources.files("logsleuth.index").joinpath(plugin_files()[0]).read_bytes()
    first = plugin._load(raw)
    assert list(tmp_path.glob("plugin-index-*.marshal"))  # written by the first reading
    second = plugin._load(raw)
    assert first.package == second.package and first.index.texts == second.index.texts
    assert tuple(first.index.templates) == tuple(second.index.templates)


def test_the_miner_builds_an_index_the_lookup_reads(tmp_path: Path) -> None:
    """tools/plugin_index/mine.py over two made-up releases of a plugin's source: the message
    the second release dropped is the plugin's, raised up to the first, and `change` names the
    second; a log of the second release gets no change."""
    from logsleuth.index.lookup import TemplateMatcher

    mine = import_tool("plugin_index", "mine")
    kept = 'raise RuntimeError(f"The offload buffer of {size} bytes is smaller than one chunk")'
    dropped = 'raise ValueError(f"Remote backend {name} cannot be combined with local disk cache")'
    for version, body in (("1.0.0", f"{kept}\n    {dropped}"), ("1.1.0rc1", kept)):
        module = tmp_path / "lmcache" / "src" / version / "lmcache" / "v1"
        module.mkdir(parents=True)
        (module / "engine.py").write_text(f"def start(size, name):\n    {body}\n")
        (tmp_path / "lmcache" / "src" / version / ".complete").write_text("test\n")
    data = mine.build(tmp_path, "lmcache", ["1.0.0", "1.1.0rc1"])
    assert data["schema"] == "logsleuth.plugin-index/1" and data["module"] == "lmcache"
    plugin = PluginIndex.from_dict(json.loads(json.dumps(data)))
    plugins = ((plugin, TemplateMatcher(plugin.index)),)
    event = _event("Remote backend redis cannot be combined with local disk cache", "ValueError",
                   (Frame("/opt/venv/lib/python3.12/site-packages/lmcache/v1/engine.py", 3,
                          "start"),))
    found = plugin_origin(event, {"lmcache_version": "1.0.0"}, plugins)
    assert found is not None
    origin, through = found
    assert through and origin.package == "lmcache" and origin.site.module == "lmcache.v1.engine"
    assert origin.site.releases == ("1.0.0",)
    assert origin.change == "no longer raised since lmcache 1.1.0rc1"
    later = plugin_origin(event, {"lmcache_version": "1.1.0rc1"}, plugins)
    assert later is not None and later[0].change is None
    still = _event("The offload buffer of 4096 bytes is smaller than one chunk", "RuntimeError")
    assert plugin_origin(still, {"lmcache_version": "1.0.0"}, plugins)[0].change is None  # type: ignore[index]
