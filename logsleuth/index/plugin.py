"""What a vLLM plugin's own source says about a message: its site, its releases, when it went.

Plugins run inside vLLM's processes and print their own errors there (vllm-ascend, LMCache,
NIXL's Python layer, vllm-hpu-extension). `tools/plugin_index/` mines each one's releases with
the vLLM index's own walker and ships `plugin_<import package>.json.gz` beside vLLM's index:
the same texts and sites, numbered by the plugin's own releases. An error that vLLM's index does
not know, or whose traceback runs through a plugin site that prints it, gets its origin here;
the log's plugin version (fact `<import package>_version`, signatures/facts.yaml) dates it.
Nothing is read at import. A report reads only the plugin indexes a message may come from (a
text of its templates fits the message, by the texts alone: PluginHead),
one at a time, and lets them go when it is made (release_plugins): all of them held are 8.8 MB.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import regex

from logsleuth.index.data import (MessageKind, MessageTemplate, Templates, VllmIndex,
                                  filed_texts, marshal_copy)
from logsleuth.index.lookup import TemplateMatcher, TextMatch
from logsleuth.index.origin import (MAX_SITES, change_since, library_modules, plugin_frames,
                                    raising_package_module, span)
from logsleuth.errors import SignatureError
from logsleuth.knowledge import default_causality
from logsleuth.model import ErrorEvent, Match, Origin, OriginSite, SignatureKind
from logsleuth.resources import data_dir
from logsleuth.yamlload import load_yaml

SCHEMA = "logsleuth.plugin-index/1"
PREFIX = "plugin_"
SUFFIX = ".json.gz"


@dataclass(frozen=True, slots=True)
class PluginIndex:
    """The messages of one plugin's indexed releases."""

    package: str  # its pip name: vllm-ascend
    module: str  # its import package: vllm_ascend (how frames and facts name it)
    index: VllmIndex  # its texts and sites by its own releases; no arguments or variables

    @property
    def version_fact(self) -> str:
        """The fact holding the log's release of this plugin (signatures/facts.yaml)."""
        return f"{self.module}_version"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PluginIndex:
        texts, keys = filed_texts(data, SCHEMA)
        expanded: dict[str, tuple[int, ...]] = {}  # most sites share a few release runs

        def releases(runs: list[list[int]]) -> tuple[int, ...]:
            key = repr(runs)
            found = expanded.get(key)
            if found is None:
                found = expanded[key] = tuple(i for start, end in runs
                                              for i in range(start, end + 1))
            return found

        records = tuple((texts[text], kind, klass, module, function, releases(runs))
                        for text, kind, klass, module, function, runs in data["sites"])
        index = VllmIndex(data["stamp"], tuple(data["releases"]), texts, keys,
                          Templates(records), (), ())
        return cls(data["package"], data["module"], index)


@cache
def plugin_files() -> tuple[str, ...]:
    """The plugin data files shipped in the package, sorted."""
    root = resources.files("logsleuth.index")
    return tuple(sorted(entry.name for entry in root.iterdir()
                        if entry.name.startswith(PREFIX) and entry.name.endswith(SUFFIX)))


class PluginHead:
    """What a report asks of one plugin index before reading it: its names and its template
    texts with the words they are filed under, without their sites and releases (a tenth of the
    index held). A message no text of the plugin fits (TemplateMatcher.find over the texts
    alone: the same texts, words and patterns as the index's own matcher) leaves the index
    unread."""

    __slots__ = ("file", "package", "module", "_texts")

    def __init__(self, file: str, package: str, module: str,
                 texts: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
        self.file = file  # plugin_<module>.json.gz
        self.package = package
        self.module = module
        self._texts = TemplateMatcher(VllmIndex("", (), texts[0], texts[1], Templates(()),
                                                (), ()))

    def may_print(self, message: str) -> bool:
        """Whether a template of the plugin fits `message`: False exactly when the index's
        matcher would find none."""
        return self._texts.find(message) is not None


@cache
def plugin_heads() -> tuple[PluginHead, ...]:
    """Every shipped plugin's head, read from its data file (or from a marshal copy of the head
    in logsleuth's cache directory, written for the same data file and code)."""
    root = resources.files("logsleuth.index")
    out = []
    for name in plugin_files():
        raw = root.joinpath(name).read_bytes()
        package, module, texts, keys = marshal_copy(
            "plugin-head", raw, Path(__file__),
            lambda: _head_of(json.loads(gzip.decompress(raw))),
            lambda head: head, lambda records: tuple(records))
        out.append(PluginHead(name, package, module, (texts, keys)))
    return tuple(out)


def _head_of(data: dict[str, Any]) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
    texts, keys = filed_texts(data, SCHEMA)
    words: dict[str, str] = {}  # one string per word (marshal writes a shared one once)
    return (data["package"], data["module"], texts, tuple(words.setdefault(k, k) for k in keys))


# The one plugin index read and held (by data file name): a report asks one plugin at a time,
# and the indexes are a few MB each (lmcache 3.6, vllm-ascend 2.9): reading another lets the held
# one go first, and the report's end lets it go (release_plugins).
_held: dict[str, tuple[PluginIndex, TemplateMatcher]] = {}


def _plugin(head: PluginHead) -> tuple[PluginIndex, TemplateMatcher]:
    found = _held.get(head.file)
    if found is None:
        _held.clear()  # before reading the next: never two at once
        plugin = _load(resources.files("logsleuth.index").joinpath(head.file).read_bytes())
        found = _held[head.file] = (plugin, TemplateMatcher(plugin.index))
    return found


def release_plugins() -> None:
    """Let the plugin index read for a report go (the next report reads what it asks again).
    The heads stay (2.6 MB for all, like the vLLM index): reading them again for every report
    made each small report five times slower (2 -> 11 ms), which a caller explaining many logs,
    and the test suite, pays per report."""
    _held.clear()


def default_plugins() -> tuple[tuple[PluginIndex, TemplateMatcher], ...]:
    """Every shipped plugin index with its matcher, all read at once and not kept: for tools
    and tests that walk them all (a report reads only those its messages may come from)."""
    root = resources.files("logsleuth.index")
    out = []
    for name in plugin_files():
        plugin = _load(root.joinpath(name).read_bytes())
        out.append((plugin, TemplateMatcher(plugin.index)))
    return tuple(out)


def _load(raw: bytes) -> PluginIndex:
    return marshal_copy("plugin-index", raw, Path(__file__),
                        lambda: PluginIndex.from_dict(json.loads(gzip.decompress(raw))),
                        lambda plugin: (plugin.package, plugin.module, plugin.index.records()),
                        lambda records: PluginIndex(records[0], records[1],
                                                    VllmIndex.from_records(records[2])))


def _in_frames(site: MessageTemplate, frames: frozenset[tuple[str, str]]) -> bool:
    return (site.module, site.function.rsplit(".", 1)[-1]) in frames


def plugin_origin(event: ErrorEvent, facts: Mapping[str, object] | None = None,
                  plugins: tuple[tuple[PluginIndex, TemplateMatcher], ...] | None = None) \
        -> tuple[Origin, bool] | None:
    """The plugin site printing this error's message, and whether the traceback runs through
    it; `facts` give the log's plugin versions (`vllm_ascend_version`). Among plugins whose
    templates fit, the one whose site the traceback passes through wins, then the closer fit."""
    if not event.message:
        return None
    frames = plugin_frames(event)
    best: tuple[tuple[bool, int, int], PluginIndex, TextMatch] | None = None
    for plugin, matcher in plugins if plugins is not None else _asked(event.message):
        found = matcher.find(event.message)
        if found is None:
            continue
        through = any(_in_frames(s, frames) for s in found.sites)
        if found.weak and not through:
            continue  # plain words around words no template holds (lookup.py, `weak`)
        rank = (through, int(found.fit), found.literal_chars)
        if best is None or rank > best[0]:
            best = (rank, plugin, found)
    if best is None:
        return None
    (through, _, _), plugin, found = best
    if default_causality().pythons_own(event.message) and not through:
        return None  # Python's own words a plugin copies are not the plugin's, without its frames
    index = plugin.index
    short = event.exception.rsplit(".", 1)[-1]
    ranked = sorted(found.sites, key=lambda s: (not _in_frames(s, frames), s.cls != short,
                                                -max(s.releases), s.module, s.function))
    sites = tuple(OriginSite(s.module, s.function, s.cls, s.kind.value,
                             index.release_names(s.releases), span(index, s.releases))
                  for s in ranked[:MAX_SITES])
    version = (facts or {}).get(plugin.version_fact)
    change = change_since(found, ranked[0], index, version if isinstance(version, str) else None,
                          plugin.package)
    return Origin(found.text, sites, change, plugin.package), through


def _asked(message: str) -> Iterator[tuple[PluginIndex, TemplateMatcher]]:
    """The plugin indexes whose templates may fit `message`, read one at a time."""
    for head in plugin_heads():
        if head.may_print(message):
            yield _plugin(head)


def plugin_named(package: str) -> PluginIndex | None:
    """The shipped plugin index of a pip name (read, and held until release_plugins)."""
    head = next((h for h in plugin_heads() if h.package == package), None)
    return _plugin(head)[0] if head is not None else None


def plugin_modules(event: ErrorEvent) -> Iterator[str]:
    """The import packages of the event's frames that a shipped plugin index covers (without
    reading any index: by the data files' names)."""
    names = {name[len(PREFIX):-len(SUFFIX)] for name in plugin_files()}
    for module, _ in plugin_frames(event):
        top = module.split(".", 1)[0]
        if top in names:
            yield top


@dataclass(frozen=True, slots=True)
class PluginCode:
    """A root cause raised inside a plugin's own code: the plugin, where, and its releases."""

    package: str  # pip name: vllm-ascend
    module: str  # the plugin module that raised it: vllm_ascend.attention.attention_v1
    version: str | None  # the log's release of the plugin (fact `<import package>_version`)
    newest: str  # the newest release the shipped index holds


def plugin_code(event: ErrorEvent, facts: Mapping[str, object] | None = None) -> PluginCode | None:
    """The plugin whose own code raised `event`: the innermost traceback frame outside Python's
    own modules is in a package a shipped plugin index covers (installed, checked out, or its
    directory on the path), with no vLLM or other library frame further in (a torch or CANN error
    the plugin only called into is the device's, not the plugin's; torch's operator dispatcher
    under a `torch.ops` call is no library frame: the plugin made the call, as it makes those
    torch binds directly). Which packages are plugins is the shipped indexes' business, not a
    list here."""
    names = frozenset(name[len(PREFIX):-len(SUFFIX)] for name in plugin_files())
    raiser = raising_package_module(event, names) if event.frames else None
    if raiser is None:
        return None
    top = raiser.split(".", 1)[0]
    found = next((h for h in plugin_heads() if h.module == top), None)
    plugin = _plugin(found)[0] if found is not None else None  # that plugin's index alone
    if plugin is None or not plugin.index.releases:
        return None
    version = (facts or {}).get(plugin.version_fact)
    return PluginCode(plugin.package, raiser, version if isinstance(version, str) else None,
                      plugin.index.releases[-1])


PLUGIN_CODE_LABEL = "**Plugin code**"
SWITCHES_FILE = "plugin-switches.yaml"


@dataclass(frozen=True, slots=True)
class PluginSwitch:
    """One switch of signatures/plugin-switches.yaml: a plugin's choice between its own
    implementations of the modules `modules` matches, and what to say about it."""

    package: str  # the plugin's pip name
    modules: regex.Pattern[str]  # searched in the dotted module that raised
    text: str


def load_switches(path: Path | None = None) -> tuple[PluginSwitch, ...]:
    """Read a plugin-switches file (the shipped signatures/plugin-switches.yaml by default)."""
    path = path or data_dir("signatures") / SWITCHES_FILE
    data, _ = load_yaml(path)
    entries = data.get("switches") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise SignatureError(f"{path}: `switches` must be a list")
    out = []
    for number, entry in enumerate(entries):
        where = f"{path}: switches[{number}]"
        if not isinstance(entry, dict) or not all(
                isinstance(entry.get(key), str) and entry.get(key) for key in
                ("package", "modules", "text")):
            raise SignatureError(f"{where}: needs `package`, `modules` and `text` (text)")
        source = entry.get("source")
        if not isinstance(source, list) or not source or not all(
                isinstance(url, str) and url.startswith("https://") for url in source):
            raise SignatureError(f"{where}: `source` must list the https pages it was read from")
        try:
            modules = regex.compile(entry["modules"])
        except regex.error as exc:
            raise SignatureError(f"{where}.modules: {exc}") from None
        out.append(PluginSwitch(entry["package"], modules, " ".join(entry["text"].split())))
    return tuple(out)


@cache
def default_switches() -> tuple[PluginSwitch, ...]:
    """The shipped switches, read once."""
    return load_switches()


def plugin_switches(code: PluginCode) -> tuple[PluginSwitch, ...]:
    """The switches of the plugin that raised whose modules include the one that raised."""
    return tuple(s for s in default_switches()
                 if s.package == code.package and s.modules.search(code.module))


def plugin_code_section(code: PluginCode, vllm_version: str | None) -> str:
    """The paragraph naming the plugin whose code raised the root cause, its release in the log,
    how to upgrade or pin it, and where to report it."""
    package = code.package
    shown = f" The log shows {package} {code.version}" + (
        f" with vLLM {vllm_version}." if vllm_version else ".") if code.version else \
        f" The log does not print {package}'s release: `pip show {package}` says it."
    pair = f"vLLM {vllm_version}" if vllm_version else "the installed vLLM"
    return (f"{PLUGIN_CODE_LABEL} The error was raised in {package}'s own code "
            f"(`{code.module}`), below every vLLM frame: a bug in the plugin, or a plugin release "
            f"made for another vLLM.{shown} Pin {package} to the release made for {pair} (its "
            f"installation page pairs them), or upgrade both together (`pip install -U "
            f"'{package}'`; the newest release indexed here is {code.newest}). If the matching "
            f"release still fails, report it to {package}'s issue tracker (its repository is "
            f"linked from https://pypi.org/project/{package}/) with this traceback and "
            f"`pip show vllm {package}`."
            + "".join(f" {switch.text}" for switch in plugin_switches(code)))


def with_plugin_code(match: Match | None, root: ErrorEvent | None,
                     facts: Mapping[str, object], origin: Origin | None = None) -> Match | None:
    """The fix with the plugin whose own code raised the root cause (`plugin_code`), added to
    any answer but an exact signature's (which knows the failure and its fix already). A message
    the plugin's own source prints (`origin`, from its index) is a check the plugin makes on
    purpose, answered by its words and releases; the paragraph is for the rest: Python's own
    errors (an attribute, a key, an operand) raised in the plugin's code, its bugs."""
    if match is None or root is None or match.kind is SignatureKind.EXACT \
            or match.target == "symptom" or PLUGIN_CODE_LABEL in match.fix:
        return match
    code = plugin_code(root, facts)
    if code is None or (origin is not None and origin.package == code.package):
        return match
    version = facts.get("vllm_version")
    section = plugin_code_section(code, version if isinstance(version, str) else None)
    return match.with_paragraph(section)


__all__ = ["PluginIndex", "PluginHead", "PluginCode", "PluginSwitch", "load_switches",
           "default_switches", "plugin_switches", "default_plugins", "plugin_heads",
           "release_plugins", "plugin_origin", "plugin_named", "plugin_frames", "plugin_code",
           "with_plugin_code", "MessageKind"]
