"""Origins: the place in vLLM's source that prints an error, and what later releases did to it."""

from __future__ import annotations

from functools import cache

from rapidfuzz import fuzz, process

from logsleuth.index.data import (MessageKind, MessageTemplate, VllmIndex, default_index,
                                  module_functions, site_records)
from logsleuth.index.lookup import Fit, TemplateMatcher, TextMatch, literal_of
from logsleuth.index.versions import release_of, version_key
from logsleuth.knowledge import default_causality
from logsleuth.model import ErrorEvent, Origin, OriginSite

MAX_SITES = 3  # a message printed in more places than this is named by its three best sites
REWORDED_SIMILARITY = 60  # rapidfuzz ratio of fixed texts: above it, the same message reworded
MOVED_SIMILARITY = 80  # the same, for a message another function prints in the later release


@cache
def default_matcher() -> TemplateMatcher:
    """The matcher over the shipped index, built on first use."""
    return TemplateMatcher(default_index())


def origin_of(event: ErrorEvent, matcher: TemplateMatcher, version: str | None = None) \
        -> Origin | None:
    """Where vLLM prints this error's message; `version` is the log's vLLM version, if known."""
    found = matcher.find(event.message) if event.message else None
    if found is None:
        return None
    index = matcher.index
    short = event.exception.rsplit(".", 1)[-1]
    in_frames = frame_sites(event)
    if (found.weak or default_causality().pythons_own(event.message)) and not any(
            (s.module, s.function.rsplit(".", 1)[-1]) in in_frames for s in found.sites):
        # Python's own words (the interpreter's `python3: No module named vllm`, any import's),
        # or a few plain words around words vLLM never prints (lookup.py, `weak`): a vLLM
        # template that holds them is not who printed them, without its frames
        return None
    # the site the traceback passes through, then the class the log names, then the newest
    ranked = sorted(found.sites, key=lambda s: (
        (s.module, s.function.rsplit(".", 1)[-1]) not in in_frames, s.cls != short,
        -max(s.releases), s.module, s.function))
    sites = tuple(OriginSite(s.module, s.function, s.cls, s.kind.value,
                             index.release_names(s.releases), span(index, s.releases))
                  for s in ranked[:MAX_SITES])
    return Origin(found.text, sites, change_since(found, ranked[0], index, version))


def raising_modules(event: ErrorEvent) -> tuple[str, ...]:
    """The vLLM modules that raise or log this error, best first.

    A traceback names it: its innermost frame, when that frame is vLLM's (when it is torch's or
    another library's, vLLM did not raise it: none). Without frames (an ERROR record, a cut
    traceback), the modules vLLM's index files the message under, those raising the event's
    exception class first. A message printed by several modules keeps them all: any may be it.
    """
    if event.frames:
        innermost = frame_module(event.frames[-1].file, event.frames[-1].function)
        return (innermost,) if innermost else cut_above_vllm(event)
    origin = origin_of(event, default_matcher())
    if origin is None:
        return ()
    short = event.exception.rsplit(".", 1)[-1]
    same = [site.module for site in origin.sites if site.exception == short]
    return tuple(dict.fromkeys(same or [site.module for site in origin.sites]))


def library_modules(event: ErrorEvent) -> tuple[str, ...]:
    """The installed library module that raised this error, when vLLM did not: the innermost
    traceback frame inside site-packages (Python's own modules after it are how the library
    raised it), unless a vLLM frame lies further in. `transformers.models.auto.configuration_auto`
    for a config transformers cannot read. With no such frame, the module of a qualified
    exception class (`_class_module`); with no frame at all and a builtin class, the plugin
    module that alone prints the message (`_plugin_module`)."""
    for frame in reversed(event.frames):
        if frame_module(frame.file, frame.function) is not None:
            return ()
        library = _installed_module(frame.file) or _checkout_module(frame.file)
        if library is not None:
            return () if cut_above_vllm(event) else (library,)
    return _class_module(event.exception) or (() if event.frames else _plugin_module(event))


def cut_above_vllm(event: ErrorEvent) -> tuple[str, ...]:
    """A framework's traceback cut above vLLM's raise site: the innermost frame that is not
    Python's own lies in a program that runs vLLM through its Python API (a framework of
    framework-knobs.yaml: verl, TRL, OpenRLHF, ms-swift, LLaMA-Factory, ...), and the message is,
    whole, one that vLLM's index files under this exception class (`top_p must be in (0, 1], got
    1.5.` for a `SamplingParams(...)` the framework built). An excerpt that kept the framework's
    frames and the exception line, or a wrapper that re-raised the error in the framework, leaves
    this; vLLM raised it, so the modules the index names answer, not the framework's glue. A
    framework's own message (its check, in its words) is no vLLM template and stays its own."""
    frame = next((f for f in reversed(event.frames) if not _standard_library(f.file)), None)
    if frame is None or not event.message or frame_module(frame.file, frame.function):
        return ()
    from logsleuth.frameworks import default_frameworks  # it reads the signature files

    if not any(p.search(frame.file) for f in default_frameworks() for p in f.frames):
        return ()
    found = default_matcher().find(event.message)
    if found is None or found.fit is not Fit.WHOLE or found.weak:
        return ()
    short = event.exception.rsplit(".", 1)[-1]
    return tuple(dict.fromkeys(s.module for s in found.sites if s.cls == short
                               and s.kind is MessageKind.RAISE))


def raising_package_module(event: ErrorEvent, packages: frozenset[str]) -> str | None:
    """The module of `packages` (import names) whose frame raised `event`: the innermost frame
    that is neither Python's own nor torch's operator dispatcher (`op_dispatcher`), when it lies
    in one of `packages`, installed, in a checkout or on the path as a bare directory
    (`package_module`); frames of no package (a user's script) are passed over as
    library_modules does. None when vLLM's frame or another library's is further in."""
    for frame in reversed(event.frames):
        if _standard_library(frame.file) or op_dispatcher(frame.file):
            continue
        if frame_module(frame.file, frame.function) is not None:
            return None
        module = _installed_module(frame.file) or package_module(frame.file, packages)
        if module is not None:
            return module if module.split(".", 1)[0] in packages else None
    return None


def _plugin_module(event: ErrorEvent) -> tuple[str, ...]:
    """A bare error line (an excerpt's last line, an ERROR record) whose message vLLM never
    prints and a plugin's index does (`vllm_ascend.ops.fused_moe`, `lmcache.v1.storage_backend`):
    the plugin raised it, so its library families answer. A message vLLM prints too stays
    vLLM's (plugins copy vLLM's code), and so do Python's own words (plugin_origin)."""
    if not event.message or origin_of(event, default_matcher()) is not None:
        return ()
    from logsleuth.index.plugin import plugin_origin  # plugin.py reads this module
    found = plugin_origin(event)
    if found is None or not found[0].sites:
        return ()
    return (found[0].sites[0].module,)


def _class_module(exception: str) -> tuple[str, ...]:
    """Without a frame of vLLM's or a library's, the module a qualified exception class names:
    Python prints a library's class with its module (`huggingface_hub.errors.GatedRepoError`,
    `ray.exceptions.RayTaskError`, `openai.APIConnectionError`), so a pasted last line or an
    ERROR record still says which library raised it. Never vLLM's own classes (vLLM is no
    library here) nor a script's (`__main__`)."""
    module = exception.rsplit(".", 1)[0] if "." in exception else ""
    if not module or module.startswith(("vllm", "_")) or not all(
            part.isidentifier() for part in module.split(".")):
        return ()
    return (module,)


def raised_by_vllm(event: ErrorEvent) -> bool | None:
    """Whether vLLM's code raised this error: the innermost traceback frame that is not
    Python's own (a `for` over a bad object fails in vLLM's frame, a `json.dumps` of one in
    the standard library's, called by whoever passed it) is vLLM's, or another file with a
    path (an installed library, the user's script). None without frames, or when that frame
    is a bare file name the index does not know."""
    for frame in reversed(event.frames):
        if _standard_library(frame.file):
            continue
        if frame_module(frame.file, frame.function) is not None:
            return True
        if "/" in frame.file or "\\" in frame.file:
            return False
        return None
    return None


def package_boundary(event: ErrorEvent, forwarding: frozenset[str] = frozenset()) \
        -> tuple[str, str] | None:
    """(caller, callee): the installed packages on either side of the innermost call from one
    package into another, `("unsloth", "vllm")` for unsloth calling vLLM with a keyword this
    vLLM does not take. The callee holds the innermost package frame; Python's own modules
    between frames are how a call travels, not a side of it; code outside any package (the
    user's script) ends the search: a call from it is no mismatch of two releases. Frames of
    `forwarding` functions (remedy.yaml `forwarding`: decorators, a module's `__call__`) only
    pass the call on and are no side of it."""
    callee: str | None = None
    for frame in reversed(event.frames):
        if frame.function in forwarding:
            continue
        module = vllm_module(frame.file) or _installed_module(frame.file)
        if module is None:
            if _standard_library(frame.file):
                continue
            return None
        package = module.split(".", 1)[0]
        if callee is None:
            callee = package
        elif package != callee:
            return package, callee
    return None


def package_of_frame(file: str) -> str | None:
    """The module of a traceback frame's file: vLLM's, or an installed package's."""
    return vllm_module(file) or _installed_module(file)


def caller_of(event: ErrorEvent, forwarding: frozenset[str] = frozenset()) \
        -> tuple[str | None, str] | None:
    """(package, file) of the innermost frame that is not vLLM's, Python's own, or a function
    that only passes a call on (remedy.yaml `forwarding`): the code that called vLLM with what
    this release does not have, or imported it. The package is the installed one
    (`.../site-packages/lm_eval/models/x.py` -> `lm_eval`), or for a file outside site-packages
    the first folder of a relative path (`openrlhf/trainer/x.py` -> `openrlhf`); None for a
    script known by its absolute path or bare name."""
    for frame in reversed(event.frames):
        if frame.function in forwarding:
            continue
        caller = caller_at(frame.file)
        if caller is not None:
            return caller
    return None


def caller_at(file: str) -> tuple[str | None, str] | None:
    """(package, file) for one file that made a call, as `caller_of` names it; None for vLLM's
    own files and Python's."""
    parts = file.replace("\\", "/").split("/")
    if file.startswith(("/", "<")) or len(parts) < 2:
        vllms = vllm_module(file) is not None
    else:  # relative: vLLM's own only under its package (`vllm/utils.py`, as some print it), not
        vllms = parts[0] == "vllm"  # a harness's `lighteval/models/vllm/vllm.py`
    if _standard_library(file) or vllms:
        return None
    installed = _installed_module(file)
    if installed is not None:
        return installed.split(".", 1)[0], file
    first = parts[0] if len(parts) > 1 and parts[0].isidentifier() else None
    return first, file


def _standard_library(file: str) -> bool:
    """Python's own modules and generated code (`<frozen runpy>`, `<string>`)."""
    path = file.replace("\\", "/")
    return file.startswith("<") or ("/lib/python3" in path and "-packages/" not in path)


def op_dispatcher(file: str) -> bool:
    """torch's operator dispatcher (`torch/_ops.py`): a call of `torch.ops.<namespace>.<op>` enters
    the compiled operator through its `__call__`, so a custom operator's error (torch_npu's, a
    plugin's, vLLM's own `_C` ops) is raised under this frame. The caller above it passed the
    arguments, as it does for an operator torch binds directly (`torch.matmul`), whose error
    shows no frame of torch's at all."""
    return file.replace("\\", "/").endswith("/torch/_ops.py")


def package_module(file: str, packages: frozenset[str]) -> str | None:
    """`/home/u/vllm_ascend/models/x.py` -> `vllm_ascend.models.x` when `vllm_ascend` is one of
    `packages`: a known package's directory put on the path as it is (`PYTHONPATH`, a copied
    tree), neither installed nor in a checkout named after it. The innermost such directory."""
    path = file.replace("\\", "/")
    parts = path.split("/")
    for index in range(len(parts) - 2, 0, -1):
        if parts[index] in packages:
            return _dotted(path, len("/".join(parts[:index])))
    return None


def _installed_module(file: str) -> str | None:
    """`.../site-packages/transformers/x.py` -> `transformers.x`; None outside site-packages."""
    path = file.replace("\\", "/")
    start = max(path.rfind("/site-packages/"), path.rfind("/dist-packages/"))
    return _dotted(path, path.find("/", start + 1)) if start >= 0 else None


def _checkout_module(file: str) -> str | None:
    """`/root/lmcache/lmcache/v1/cache_engine.py` -> `lmcache.v1.cache_engine`: a library run from
    its source checkout (`pip install -e .`), the package directory inside the repository named
    after it (`vllm-ascend/vllm_ascend/...` too, a dash for the underscore); None otherwise. Only
    where a library's family is looked for: a user's project laid out the same way names no
    library any family knows."""
    parts = file.replace("\\", "/").split("/")
    for index in range(len(parts) - 2, 0, -1):
        repository, package = parts[index - 1], parts[index]
        if package.isidentifier() and repository.replace("-", "_").lower() == package:
            return _dotted("/".join(parts), len("/".join(parts[:index])))
    return None


def vllm_module(file: str) -> str | None:
    """`.../site-packages/vllm/config/model.py` -> `vllm.config.model`; None outside vLLM.

    A directory named `vllm` above an installed library's file is not vLLM's package: a virtual
    environment created inside a vLLM source checkout puts torch at
    `~/vllm/.venv/lib/python3.12/site-packages/torch/...` (vllm#26678's log). Nor is a folder
    named `vllm` inside another installed package: a plugin's or a framework's vLLM glue
    (`site-packages/tpu_inference/layers/vllm/`, `lmcache/integration/vllm/`,
    `verl/utils/vllm/`) is that package's code. A path relative to site-packages
    (`vllm/v1/sample/sampler.py`: a plugin's pull request, a logger that shortens its paths) is
    vLLM's package too."""
    path = file.replace("\\", "/")
    if path.startswith("vllm/"):
        path = "/" + path
    start = path.rfind("/vllm/")
    installed = max(path.rfind("/site-packages/"), path.rfind("/dist-packages/"))
    if start < 0 or start < installed:
        return None
    if installed >= 0:  # the package right after site-packages (an egg's folder passed over)
        start = path.find("/", installed + 1)
        while path.rfind(".egg", 0, path.find("/", start + 1)) > start:
            start = path.find("/", start + 1)
        if not path.startswith("/vllm/", start):
            return None
    if path[path.rfind("/", 0, start) + 1:start].startswith("."):
        return None  # a hidden directory's `vllm` is vLLM's cache (`~/.cache/vllm/`), not its code
    return _dotted(path, start)


def frame_module(file: str, function: str) -> str | None:
    """The vLLM module of a traceback frame: from its path, or, when the reporter cut the paths
    to bare file names (`File "weight_utils.py", line 243, in hf_model_weights_iterator`, vllm
    issue 1733's log), from the index: a module of that name in which a function of that name
    prints or raises a message. A file name alone would not do (`utils.py`, `worker.py` and
    `main.py` are everyone's); with the function it names vLLM's code."""
    found = vllm_module(file)
    if found is not None or "/" in file or "\\" in file or not file.endswith(".py"):
        return found
    return _bare_functions().get((file[:-3], function.rsplit(".", 1)[-1]))


# functions every code base has: with a file name several vLLM modules share (`utils.py`,
# `config.py`, `main.py`) they say nothing of whose code it is
_GENERIC_FUNCTIONS = frozenset({"__init__", "__call__", "__post_init__", "forward", "main", "run",
                                "<module>", "wrapper", "inner", "_call_impl"})


@cache
def _bare_functions() -> dict[tuple[str, str], str]:
    """(file name without `.py`, function) -> the vLLM module defining that function; a pair
    several modules share names the first in sorted order (any of them is vLLM's)."""
    sites = sorted({(module, function.rsplit(".", 1)[-1])
                    for module, function in module_functions(default_index())})
    homes: dict[str, set[str]] = {}
    for module, _ in sites:
        homes.setdefault(module.rsplit(".", 1)[-1], set()).add(module)
    pairs: dict[tuple[str, str], str] = {}
    for module, function in sites:
        name = module.rsplit(".", 1)[-1]
        if function in _GENERIC_FUNCTIONS and len(homes[name]) > 1:
            continue
        pairs.setdefault((name, function), module)
    return pairs


def _dotted(path: str, start: int) -> str | None:
    """The module of the `.py` file `path` whose package path begins after the `/` at `start`."""
    if not path.endswith(".py"):
        return None
    dotted = path[start + 1:-3].replace("/", ".").removesuffix(".__init__")
    # every part of an importable module is an identifier: vLLM's cache directory
    # (`~/.cache/vllm/torch_compile_cache/58e26f075c/rank_0_0/...`) holds generated code, no module
    return dotted if all(part.isidentifier() for part in dotted.split(".")) else None


def plugin_frames(event: ErrorEvent) -> frozenset[tuple[str, str]]:
    """(module, function) of each traceback frame inside an installed (or checked-out)
    package other than vLLM: where a plugin's site shows itself (index/plugin.py)."""
    sites: set[tuple[str, str]] = set()
    for frame in event.frames:
        module = _installed_module(frame.file) or _checkout_module(frame.file)
        if module is not None:
            sites.add((module, frame.function))
    return frozenset(sites)


def frame_sites(event: ErrorEvent) -> frozenset[tuple[str, str]]:
    """(module, function) of each traceback frame inside a vllm package."""
    sites: set[tuple[str, str]] = set()
    for frame in event.frames:
        module = frame_module(frame.file, frame.function)
        if module is not None:
            sites.add((module, frame.function))
    return frozenset(sites)


def span(index: VllmIndex, releases: tuple[int, ...]) -> str:
    """Release indexes as runs of consecutive indexed releases: `0.9.2-0.13.0, 0.15.0`."""
    runs: list[list[int]] = []
    for i in sorted(releases):
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(index.releases[a] if a == b else f"{index.releases[a]}-{index.releases[b]}"
                     for a, b in runs)


def release_position(index: VllmIndex, version: str | None) -> int | None:
    """The newest indexed release not newer than the log's version."""
    release = release_of(version) if version else None
    if release is None:
        return None
    key = version_key(release)
    older = [i for i, name in enumerate(index.releases) if version_key(name) <= key]
    return older[-1] if older else None


def change_since(found: TextMatch, site: MessageTemplate, index: VllmIndex,
                 version: str | None, package: str = "vllm") -> str | None:
    """"reworded in X" / "no longer raised since X" when a release after the log's changed it;
    a plugin's release is named with the plugin ("no longer raised since vllm-ascend 0.11.0")."""
    position = release_position(index, version)
    if position is None:
        return None
    present = {r for s in found.sites for r in s.releases}
    if position not in present and not (min(present) <= position <= max(present)):
        return None
    last = max(present)
    if last >= len(index.releases) - 1:
        return None
    following = last + 1
    name = index.releases[following] if package == "vllm" else \
        f"{package} {index.releases[following]}"
    reworded = _reworded(found.text, site, index, following)
    if reworded is not None:
        return f"reworded in {name}: \u201c{reworded}\u201d"
    verb = "raised" if site.kind.value == "raise" else "printed"
    return f"no longer {verb} since {name}"


def _reworded(text: str, site: MessageTemplate, index: VllmIndex, release: int) -> str | None:
    """The template of `release` that reads most like `text`: printed by the same function, or
    anywhere with the same class when the wording is closer (the message moved with its code)."""
    fixed = literal_of(text)
    same_function: dict[str, str] = {}
    elsewhere: dict[str, str] = {}
    # (each site's fields as the index holds them: making the MessageTemplate of every one of
    # its ~23,000 sites cost more than the rest of a report's annotation)
    for other, _, cls, _, function, releases in site_records(index):
        if release in releases and cls == site.cls and other != text:
            target = same_function if function == site.function else elsewhere
            target[other] = literal_of(other)
    for choices, cutoff in ((same_function, REWORDED_SIMILARITY), (elsewhere, MOVED_SIMILARITY)):
        best = process.extractOne(fixed, choices, scorer=fuzz.ratio, score_cutoff=cutoff)
        if best is not None:
            return str(best[2])
    return None
