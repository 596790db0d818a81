"""API drift: a caller written for one vLLM release run against another.

A framework or script imports a name from where an older vLLM kept it, imports a module a later
release removed, passes an engine argument a release dropped, or the reverse (code newer than
the installed vLLM). The failing line names the thing (`cannot import name 'X' from 'vllm.a'`);
the indexes of vLLM's source say in which releases it was where, and where it lives now; the
traceback says who called. `signatures/drift.yaml` holds the line shapes and the advice's
wording; this module only looks things up and fills the placeholders.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import regex

from logsleuth.compiledcopy import kept
from logsleuth.errors import SignatureError
from logsleuth.index.data import VllmIndex, default_index
from logsleuth.index.origin import caller_at, caller_of
from logsleuth.index.symbols import SymbolIndex, default_symbols
from logsleuth.index.versions import release_of, version_key
from logsleuth.model import ErrorEvent, Evidence, Match, SignatureKind
from logsleuth.remedy import default_phrasing
from logsleuth.resources import data_dir
from logsleuth.yamlload import load_yaml

DRIFT_SCORE = 0.75  # the source's evidence for what changed, not a diagnosis of every cause
MAX_HOMES = 3  # a moved module's definitions are named by the three modules taking most of them
_PLACE = regex.compile(r"\{(\w+)\}")
_LOOKUPS = ("name", "module", "argument", "flags")
# every finding the lookups give: drift.yaml `advice` words each one
FINDINGS = frozenset({"moved", "removed", "not_yet", "elsewhere", "module_gone", "module_removed",
                      "module_not_yet", "argument_removed", "argument_not_yet", "flag_removed"})
CALLERS = frozenset({"package", "code", "script"})  # drift.yaml `caller`: older, newer


@dataclass(frozen=True, slots=True)
class Shape:
    """One failing line's shape (drift.yaml `shapes`) and what its groups are looked up as."""

    when: regex.Pattern[str]
    lookup: str


@dataclass(frozen=True, slots=True)
class DriftWording:
    """drift.yaml: the shapes, the advice per finding, the sentences naming the caller."""

    shapes: tuple[Shape, ...]
    advice: Mapping[str, str]
    caller: Mapping[str, Mapping[str, str]]  # older | newer -> package | code | script


@dataclass(frozen=True, slots=True)
class Drift:
    """What the indexes say about the thing a failing line names: the finding (a key of
    drift.yaml `advice`), its placeholders' values, and who called."""

    finding: str
    values: Mapping[str, str]
    caller: str | None  # the caller's package (or a file's first folder), when known
    file: str | None  # the caller's file, when the traceback shows it
    event_line: int

    @property
    def subject(self) -> str:
        """What drifted, for the match id: `vllm.utils.FlexibleArgumentParser`,
        `argument:worker_use_ray`."""
        values = self.values
        if "name" in values:
            return f"{values['module']}.{values['name']}"
        if "module" in values:
            return values["module"]
        return f"argument:{values.get('argument') or values.get('flag')}"


def load_wording(path: Path | None = None) -> DriftWording:
    """Compile a drift file (the shipped `signatures/drift.yaml` by default)."""
    path = path or data_dir("signatures") / "drift.yaml"
    data, _ = load_yaml(path)
    if not isinstance(data, dict) or set(data) != {"shapes", "advice", "caller"}:
        raise SignatureError("expected exactly `shapes`, `advice`, `caller`", location=str(path))
    shapes = []
    for i, item in enumerate(data["shapes"]):
        if not isinstance(item, dict) or set(item) != {"when", "lookup"} \
                or item["lookup"] not in _LOOKUPS:
            raise SignatureError(f"shape {i + 1}: `when` and a `lookup` of {', '.join(_LOOKUPS)}",
                                 location=str(path))
        try:
            when = regex.compile(item["when"])
        except regex.error as exc:
            raise SignatureError(f"shape {i + 1}: {exc}", location=str(path)) from None
        shapes.append(Shape(when, item["lookup"]))
    callers = data["caller"]
    texts = [*data["advice"].values(), *(t for side in ("older", "newer")
                                        for t in (callers.get(side) or {}).values())]
    if not all(isinstance(v, str) for v in texts):
        raise SignatureError("`advice` and `caller` must map names to text", location=str(path))
    missing = (FINDINGS - set(data["advice"])) \
        | {f"caller {side} {kind}" for side in ("older", "newer") for kind in CALLERS
           if kind not in (callers.get(side) or {})}
    if missing:
        raise SignatureError(f"no wording for {', '.join(sorted(missing))}", location=str(path))
    return DriftWording(tuple(shapes), dict(data["advice"]),
                        {side: dict(callers[side]) for side in ("older", "newer")})


@cache
def default_wording() -> DriftWording:
    """The shipped drift.yaml, loaded once: from its compiled copy when one was kept for these
    bytes and this code (compiledcopy.py: no YAML read, no pattern compiled), else read and kept."""
    return kept("drift", data_dir("signatures") / "drift.yaml", (Path(__file__),), load_wording,
                DriftWording)


def position(releases: tuple[str, ...], version: str | None) -> int | None:
    """The newest indexed release not newer than the log's version (None: unknown)."""
    release = release_of(version) if version else None
    if release is None:
        return None
    key = version_key(release)
    older = [i for i, name in enumerate(releases) if version_key(name) <= key]
    return older[-1] if older else None


Finding = tuple[str, dict[str, str]]


def _span(present: tuple[int, ...], releases: tuple[str, ...], at: int | None,
          values: dict[str, str], gone: str, not_yet: str) -> Finding | None:
    """Whether something present in `present` releases is missing at `at` (the log's release,
    else the newest): gone after its last, or not yet there; None when `at` has it."""
    newest = len(releases) - 1
    where = newest if at is None else at
    if not present:
        return None
    if at is None and present == tuple(range(present[0], newest + 1)) and present[0] > 0:
        # every release from its first on has it, yet the log's vLLM did not: that vLLM is older
        return not_yet, {**values, "first": releases[present[0]], "log": f"older than "
                         f"{releases[present[0]]}, as every indexed release since has it"}
    if where in present:
        return None
    if present[-1] < where:
        return gone, {**values, "last": releases[present[-1]], "gone": releases[present[-1] + 1]}
    if at is not None and present[0] > at:
        return not_yet, {**values, "first": releases[present[0]], "log": releases[at]}
    return None  # a gap in the middle: a release the index reads oddly, nothing to say


def name_drift(symbols: SymbolIndex, module: str, name: str, at: int | None) -> Finding | None:
    """A name a caller asked of a vLLM module, in the release `at` (None: the newest)."""
    values = {"name": name, "module": module}
    where = len(symbols.releases) - 1 if at is None else at
    homes = [h for h in symbols.homes_in(name, where) if h != module]
    found = _span(symbols.offers(module, name), symbols.releases, at, values, "moved", "not_yet")
    if found is None:
        if symbols.offers(module, name) or not homes:
            return None
        return "elsewhere", {**values, "home": homes[0]}
    finding, filled = found
    if finding == "moved":
        if not homes:
            return "removed", filled
        filled["home"] = homes[0]
    return finding, filled


def module_drift(symbols: SymbolIndex, module: str, at: int | None) -> Finding | None:
    """A vLLM module a caller imported, in the release `at` (None: the newest)."""
    found = _span(symbols.modules.get(module, ()), symbols.releases, at, {"module": module},
                  "module_gone", "module_not_yet")
    if found is None or found[0] != "module_gone":
        return found
    finding, values = found
    where = len(symbols.releases) - 1 if at is None else at
    last = symbols.releases.index(values["last"])
    # where the module's own definitions went: the modules that define most of them now
    moved: Counter[str] = Counter()
    for name in symbols.defined_in(module, last):
        homes = symbols.homes_in(name, where)
        if homes:
            moved[homes[0]] += 1
    if not moved:
        return "module_removed", values
    values["homes"] = ", ".join(f"`{m}`" for m, _ in moved.most_common(MAX_HOMES))
    return finding, values


def argument_drift(index: VllmIndex, field: str, at: int | None) -> Finding | None:
    """An engine-argument keyword a caller passed, in the release `at` (None: the newest)."""
    present = tuple(sorted({r for a in index.arguments if a.field == field for r in a.releases}))
    return _span(present, index.releases, at, {"argument": field}, "argument_removed",
                 "argument_not_yet")


def flag_drift(index: VllmIndex, flags: str, at: int | None) -> Finding | None:
    """The first of the unrecognised command-line flags that an indexed release had."""
    for flag in regex.findall(r"--[\w-]+", flags):
        present = tuple(sorted({r for a in index.arguments if a.flag == flag
                                for r in a.releases}))
        found = _span(present, index.releases, at, {"flag": flag}, "flag_removed", "flag_removed")
        if found is not None and found[0] == "flag_removed" and "gone" in found[1]:
            return found
    return None


def _lookups(symbols: SymbolIndex, index: VllmIndex, version: str | None) \
        -> Mapping[str, Callable[[Mapping[str, str]], Finding | None]]:
    at_symbols = position(symbols.releases, version)
    at_index = position(index.releases, version)
    return {
        "name": lambda g: name_drift(symbols, g["module"], g["name"], at_symbols),
        "module": lambda g: module_drift(symbols, g["module"], at_symbols),
        "argument": lambda g: argument_drift(index, g["argument"], at_index),
        "flags": lambda g: flag_drift(index, g["flags"], at_index),
    }


def drift_for(event: ErrorEvent, version: str | None, *, wording: DriftWording | None = None,
              symbols: SymbolIndex | None = None, index: VllmIndex | None = None) -> Drift | None:
    """The drift a failing line shows, by the first shape of drift.yaml that both matches it
    and finds a change in the indexes; None when none does."""
    wording = wording or default_wording()
    text = f"{event.exception.rsplit('.', 1)[-1]}: {event.message}"
    if event.frames and event.frames[-1].code:  # the call a bare `__init__()` message made
        text += f"\n{event.frames[-1].code}"
    lookups = None
    for shape in wording.shapes:
        found = shape.when.search(text, timeout=0.05)
        if found is None:
            continue
        if lookups is None:
            lookups = _lookups(symbols or default_symbols(), index or default_index(), version)
        groups = {k: v for k, v in found.groupdict().items() if v}
        finding = lookups[shape.lookup](groups)
        if finding is not None:
            who = caller_of(event, default_phrasing().forwarding) \
                or (caller_at(groups["at"]) if "at" in groups else None)
            return Drift(finding[0], finding[1], who[0] if who else None,
                         who[1] if who else None, event.line)
    return None


def _fill(text: str, values: Mapping[str, str]) -> str:
    return _PLACE.sub(lambda m: values.get(m.group(1), m.group(0)), " ".join(text.split()))


def drift_section(drift: Drift, wording: DriftWording | None = None) -> str:
    """The labelled part of a fix that the drift adds (Markdown): what changed, and who calls."""
    wording = wording or default_wording()
    values = dict(drift.values)
    lines = [_fill(wording.advice[drift.finding], values)]
    if drift.file is not None:
        side = "newer" if "first" in values else "older"
        target = f"vLLM {values['gone']} and later" if "gone" in values else "the installed vLLM"
        kind = "script" if drift.caller is None else \
            "package" if "-packages/" in drift.file.replace("\\", "/") else "code"
        lines.append(_fill(wording.caller[side][kind], {**values, "caller": drift.caller or "",
                                                        "file": drift.file, "target": target}))
    return "**API drift** (logsleuth's index of vLLM's releases): " + " ".join(lines)


def with_drift(match: Match | None, drift: Drift | None, root: ErrorEvent | None) -> Match | None:
    """The report's fix with the drift: added to a fix matched on the root cause (unless it
    already says it), or on its own when nothing matched."""
    if drift is None or root is None or root.line != drift.event_line:
        return match
    section = drift_section(drift)
    if match is None:
        return drift_match(drift, section)
    key = drift.values.get("flag") or drift.values.get("argument")
    if match.target == "symptom" or section in match.fix \
            or (key is not None and f"`{key}` was removed" in match.fix):
        return match  # the family's fix already dates it (index/__init__.py _release_note)
    return match.with_paragraph(section)


def drift_match(drift: Drift, section: str) -> Match:
    """The drift as the report's fix when nothing else answers: `drift:<what changed>`."""
    title = f"Code written for another vLLM release: `{drift.subject}` ({drift.finding})"
    return Match(f"drift:{drift.subject}", title, DRIFT_SCORE, section + "\n", (),
                 (Evidence("origin", DRIFT_SCORE, drift.finding),), "root_cause", None,
                 SignatureKind.RELEASE)
