"""Release alignment across a package boundary: which of two packages to move, and which way.

A root cause in words that say two installed releases do not fit (a call that does not fit its
callee, a name imported from a library that is not there, a name a library now registers
itself, an extension built against another torch) is answered by a class's fix that says
"versions". `signatures/alignment.yaml` says which words those are (`shapes`), what role each
package plays (vLLM, torch, transformers, a platform plugin, a framework that drives vLLM, a
compiled library, a web framework) and, for each pair of roles, which package to move and which
way (`pairs`). `with_alignment` adds that sentence after a family's, a fallback's, a message's or
a release's fix; an exact signature's fix is its own failure's and gets none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import regex

from logsleuth.errors import SignatureError
from logsleuth.model import ErrorEvent, Match, SignatureKind
from logsleuth.resources import data_dir
from logsleuth.yamlload import load_yaml

FILE = "alignment.yaml"
ANY = "any"
_ROLE_FIELDS = ("caller", "callee")


@dataclass(frozen=True, slots=True)
class Shape:
    """Words that say two releases do not fit."""

    says: str
    when: regex.Pattern[str]
    callee_newer: bool  # the words show the callee to be the newer side
    frames: bool  # the packages are the traceback's, either side of the innermost crossing call
    caller: str | None  # a package the shape names itself
    callee: str | None
    owner: str | None  # `vllm`: the callee is vLLM when vLLM defines the `object` group's class


@dataclass(frozen=True, slots=True)
class Pair:
    """Which package of a pair of roles to move, and which way."""

    callers: frozenset[str]
    callees: frozenset[str]
    text: str
    newer_callee: str | None  # when the shape shows the callee to be the newer side
    source: str

    def fits(self, caller: str, callee: str) -> bool:
        return (ANY in self.callers or caller in self.callers) \
            and (ANY in self.callees or callee in self.callees)


@dataclass(frozen=True, slots=True)
class Alignment:
    """The knowledge of alignment.yaml."""

    shapes: tuple[Shape, ...]
    roles: Mapping[str, str]  # import name -> role
    pip_names: Mapping[str, str]  # import name -> pip name
    pairs: tuple[Pair, ...]

    def pip(self, package: str) -> str:
        return self.pip_names.get(package, package.replace("_", "-").lower())


@dataclass(frozen=True, slots=True)
class Boundary:
    """The two packages of a root cause whose releases do not fit, and what says so."""

    caller: str  # import names
    callee: str
    shape: Shape
    name: str | None


def _strings(value: object, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SignatureError(f"{where}: a list of role names")
    return frozenset(value)


def _mapping(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in value.items()):
        raise SignatureError(f"{where}: a mapping of names to names")
    return dict(value)


def load_alignment(path: Path | None = None) -> Alignment:
    """Read an alignment file (the shipped signatures/alignment.yaml by default)."""
    path = path or data_dir("signatures") / FILE
    data, _ = load_yaml(path)
    if not isinstance(data, dict):
        raise SignatureError(f"{path}: a mapping")
    shapes = []
    for number, item in enumerate(data.get("shapes") or []):
        where = f"{path}: shapes[{number}]"
        if not isinstance(item, dict) or not isinstance(item.get("when"), str) \
                or item.get("newer") not in ("callee", "either"):
            raise SignatureError(f"{where}: needs `when` and `newer` (callee | either)")
        try:
            when = regex.compile(item["when"])
        except regex.error as exc:
            raise SignatureError(f"{where}.when: {exc}") from None
        shapes.append(Shape(str(item.get("says", "")), when, item["newer"] == "callee",
                            bool(item.get("frames", False)), item.get("caller"),
                            item.get("callee"), item.get("owner")))
    roles = _mapping(data.get("roles") or {}, f"{path}: roles")
    pairs = []
    for number, item in enumerate(data.get("pairs") or []):
        where = f"{path}: pairs[{number}]"
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) \
                or not isinstance(item.get("source"), str):
            raise SignatureError(f"{where}: needs `text` and `source`")
        callers, callees = (_strings(item.get(f), f"{where}.{f}") for f in _ROLE_FIELDS)
        unknown = (callers | callees) - set(roles.values()) - {ANY}
        if unknown:
            raise SignatureError(f"{where}: roles no package has: {sorted(unknown)}")
        newer = item.get("newer_callee")
        pairs.append(Pair(callers, callees, " ".join(item["text"].split()),
                          " ".join(newer.split()) if isinstance(newer, str) else None,
                          item["source"]))
    return Alignment(tuple(shapes), roles,
                     _mapping(data.get("pip_names") or {}, f"{path}: pip_names"), tuple(pairs))


@cache
def default_alignment() -> Alignment:
    """The shipped file, loaded once."""
    return load_alignment()


def _frame_package(file: str) -> str | None:
    """The top-level package of a traceback frame (vLLM's, or one installed in site-packages)."""
    from logsleuth.index.origin import package_of_frame

    module = package_of_frame(file)
    return module.split(".", 1)[0] if module else None


# the roles of the packages vLLM itself imports: a frameless line naming one was vLLM's call
_VLLM_DEPENDS_ON = frozenset({"torch", "transformers", "compiled", "web"})


def _caller_around(event: ErrorEvent, callee: str, alignment: Alignment) -> str | None:
    """The innermost package of the traceback other than `callee` (the code that called or
    imported it). With no package frame at all, vLLM's when the callee is a package vLLM
    imports itself (a pasted line of a vLLM log); otherwise unknown (a framework's own
    import of its own module says nothing of vLLM)."""
    seen = False
    for frame in reversed(event.frames):
        package = _frame_package(frame.file)
        # torch's `Module.__getattr__` raises for the code that asked: it is no side of the call
        if package is None or frame.function.rsplit(".", 1)[-1] == "__getattr__":
            continue
        seen = True
        if package.lower() != callee.lower():
            return package
    return "vllm" if not seen and alignment.roles.get(callee) in _VLLM_DEPENDS_ON else None


def _innermost_package(event: ErrorEvent) -> str | None:
    """The package of the innermost frame that is not torch's `Module.__getattr__` nor a
    function that only passes a call on (remedy.yaml `forwarding`): the code that reached for
    the attribute."""
    from logsleuth.remedy import default_phrasing

    forwarding = default_phrasing().forwarding
    for frame in reversed(event.frames):
        function = frame.function.rsplit(".", 1)[-1]
        package = _frame_package(frame.file)
        if package is not None and function != "__getattr__" and function not in forwarding:
            return package
    return None


def _vllm_defines(name: str) -> bool:
    """Whether vLLM's source defines a class or function of this name (the index of names)."""
    from logsleuth.index.symbols import default_symbols

    return any(home.defines for home in default_symbols().names.get(name, ()))


def _owned_callee(shape: Shape, groups: Mapping[str, str | None]) -> str | None:
    """The callee an `owner` shape names: vLLM, when its index of names defines the object's
    class."""
    owned = groups.get("object")
    return "vllm" if shape.owner == "vllm" and owned and _vllm_defines(owned) else None


def boundary_of(event: ErrorEvent, alignment: Alignment | None = None) -> Boundary | None:
    """The two packages the root cause's words say are of releases not made for each other."""
    from logsleuth.index.origin import package_boundary
    from logsleuth.remedy import default_phrasing

    alignment = alignment or default_alignment()
    text = f"{event.exception}: {event.message}"
    for shape in alignment.shapes:
        found = shape.when.search(text, timeout=0.05)
        if found is None:
            continue
        groups = found.groupdict()
        name = groups.get("name")
        callee = shape.callee or groups.get("callee") or _owned_callee(shape, groups)
        caller = shape.caller or groups.get("caller")
        if shape.owner is not None:
            caller = caller or _innermost_package(event)
            if callee is None:
                continue
        if shape.frames and (callee is None or caller is None):
            crossing = package_boundary(event, default_phrasing().forwarding)
            if crossing is None:
                continue
            caller, callee = caller or crossing[0], callee or crossing[1]
        if callee is not None and caller is None:
            caller = _caller_around(event, callee, alignment)
        if caller is None or callee is None or caller.lower() == callee.lower():
            continue
        return Boundary(caller, callee, shape, name)
    return None


def alignment_text(boundary: Boundary, facts: Mapping[str, object],
                   alignment: Alignment | None = None) -> str | None:
    """The pair's rule for the boundary, filled in; None when no rule knows the two roles."""
    alignment = alignment or default_alignment()
    caller_role = alignment.roles.get(boundary.caller, ANY)
    callee_role = alignment.roles.get(boundary.callee, ANY)
    pair = next((p for p in alignment.pairs if p.fits(caller_role, callee_role)), None)
    if pair is None or (caller_role == ANY and callee_role == ANY):
        return None
    template = pair.newer_callee if boundary.shape.callee_newer and pair.newer_callee \
        else pair.text
    version = facts.get("vllm_version")
    plugin = next((p for p in (boundary.caller, boundary.callee)
                   if alignment.roles.get(p) == "plugin"), None)
    plugin_version = facts.get(f"{plugin}_version") if plugin else None
    plugin_name = alignment.pip(plugin) if plugin else "the plugin"
    text = template.format(
        caller=alignment.pip(boundary.caller), callee=alignment.pip(boundary.callee),
        name=boundary.name or "", says=boundary.shape.says,
        vllm=f"vLLM {version}" if isinstance(version, str) else "the installed vLLM",
        plugin=f"{plugin_name} {plugin_version}" if isinstance(plugin_version, str)
        else f"the installed {plugin_name}")
    return text.replace(": ``", "")  # a shape that names nothing (a call's arguments) quotes none


def with_alignment(match: Match | None, root: ErrorEvent | None, facts: Mapping[str, object],
                   alignment: Alignment | None = None, *, drifted: bool = False) -> Match | None:
    """The match with the package to move and the way, when the root cause says two releases
    do not fit; an exact signature's match as it is, and so when API drift (index/drift.py)
    already dates the vLLM name the call wanted (it knows the way from vLLM's releases)."""
    if match is None or root is None or match.kind is SignatureKind.EXACT or drifted:
        return match
    boundary = boundary_of(root, alignment)
    text = alignment_text(boundary, facts, alignment) if boundary is not None else None
    if text is None:
        return match
    return match.with_paragraph(f"**Release alignment** {text}")
