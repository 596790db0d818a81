"""Settings probe: would "the settings the raising code reads" name the fix's knob?

Mechanism 1 of signatures/NOTES-dev-fix.md ("Session 32: why cold fix misses happen"): when a
family or a fallback answers, the report could list the settings the code that raised the root
cause reads. This measures it before anything is built. For each probe log

- every tuning case with `fix_keywords` whose fix the report misses, or that a family, a fallback
  or nothing answers (the full database);
- every positive example of an exact signature whose fix names a knob, explained with every
  exact signature withheld (tools/family_loo's probes and knobs), unless `--no-exact`;

it finds the raise site of the root cause (the site the message index names, else the innermost
traceback frame in vLLM's or a plugin's code), reads that function in the extracted source of a
release (the one nearest the log's vLLM version among those given with `--src`), collects the
settings the function reads (and, for a method, its class's `__init__`): attribute chains off a
`*_config` object or `envs`, `os.environ[...]`, `os.environ.get`/`os.getenv`, `getattr(cfg,
"x")`, a plugin's `get_*_config().x`, string keys read from `additional_config`-like dicts), and
asks whether a knob of the confirmed fix is among them, and how long such a list is.

    .venv/bin/python tools/settings_probe/probe.py --src SRC/0.11.2 --src SRC/0.34.0 \
        --src SRC/vllm_ascend-git -v  (SRC: where the wheels were extracted)

Each `--src` is a folder holding the top package (`vllm/`, `vllm_ascend/`, ...); a folder named
like a release (`0.11.2`) is that release of vLLM. The held-out set is never read. Not run-time
code: nothing in `logsleuth/` imports it.
"""

from __future__ import annotations

import argparse
import ast
import re
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools" / "family_loo")]

import loo  # noqa: E402  (tools/family_loo: probes, knobs, the families-only database)
from corpus_judge import judge, load_cases  # noqa: E402

from logsleuth.index.data import default_index  # noqa: E402
from logsleuth.index.keys import default_config_keys  # noqa: E402
from logsleuth.index.origin import frame_module  # noqa: E402
from logsleuth.index.versions import version_key  # noqa: E402
from logsleuth.model import Report, SignatureKind  # noqa: E402
from logsleuth.pipeline import explain  # noqa: E402
from logsleuth.render.json import report_to_dict  # noqa: E402
from logsleuth.signatures import default_signatures  # noqa: E402

ENV_BASES = {"envs", "environ"}
CONFIG_BASE = re.compile(r"(?:^|_)(?:config|cfg|args|engine_args|options)$")
GETTER = re.compile(r"^get_\w*config$")


@dataclass(frozen=True, slots=True)
class Site:
    module: str  # vllm.worker.worker
    function: str  # Class.method or function
    how: str  # origin | frame


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    group: str
    knobs: tuple[str, ...]
    site: Site | None
    source: str | None  # the release (or plugin folder) read
    settings: tuple[str, ...]  # what the site reads; () when the site was not found in the source
    found: bool  # the function was found in a source given
    hit: tuple[str, ...]  # the knobs among the settings
    path: tuple[str, ...] = ()  # the site's settings and those of every vLLM/plugin frame
    path_hit: tuple[str, ...] = ()
    known: tuple[str, ...] = ()  # the site's settings (and parameters) that vLLM's index knows
    known_hit: tuple[str, ...] = ()
    path_known: tuple[str, ...] = ()  # the same along the call path
    path_known_hit: tuple[str, ...] = ()
    in_message: tuple[str, ...] = ()  # the knobs the root message itself already names


def norm(word: str) -> str:
    return word.strip().lstrip("-").lower().replace("-", "_").replace(".", "_")


# ---------------------------------------------------------------- settings read by a function

def _chain(node: ast.AST) -> list[str]:
    """`self.vllm_config.model_config.max_model_len` -> its names, outermost first."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        func = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        names.append(f"{func}()")
    return names[::-1]


def settings_read(function: ast.AST) -> list[str]:
    """The settings one function body reads, in source order, each once."""
    found: dict[str, None] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
            names = _chain(node)
            # the name right after a config-like object or envs
            for base, attr in zip(names, names[1:]):
                base = base.rstrip("()")
                if base in ENV_BASES and attr.isupper():
                    found.setdefault(attr, None)
                elif (CONFIG_BASE.search(base) or GETTER.match(base)) and not attr.startswith("_") \
                        and not CONFIG_BASE.search(attr) and attr not in {"get", "items", "keys"}:
                    found.setdefault(attr, None)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            first = node.args[0] if node.args else None
            literal = first.value if isinstance(first, ast.Constant) and \
                isinstance(first.value, str) else None
            second = node.args[1] if len(node.args) > 1 else None
            if name == "getenv" and literal:
                found.setdefault(literal, None)
            elif name == "get" and literal and isinstance(func, ast.Attribute):
                owner = _chain(func.value)
                last = owner[-1].rstrip("()") if owner else ""
                if last in ENV_BASES or CONFIG_BASE.search(last) or last.endswith("_config") \
                        or last == "additional_config":
                    found.setdefault(literal, None)
            elif name in {"getattr", "hasattr"} and first is not None and \
                    isinstance(second, ast.Constant) and isinstance(second.value, str):
                owner = _chain(first)
                if owner and CONFIG_BASE.search(owner[-1].rstrip("()")):
                    found.setdefault(second.value, None)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                isinstance(node.slice.value, str):
            owner = _chain(node.value)
            last = owner[-1].rstrip("()") if owner else ""
            if last in ENV_BASES or CONFIG_BASE.search(last) or last == "additional_config":
                found.setdefault(node.slice.value, None)
    return list(found)


@cache
def _tree(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError, OSError):
        return None


def _find(tree: ast.Module, qualname: str) -> tuple[ast.AST | None, ast.ClassDef | None]:
    parts = qualname.split(".")
    scope: list[ast.stmt] = tree.body
    cls: ast.ClassDef | None = None
    node: ast.AST | None = None
    for part in parts:
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                          ast.ClassDef)) and n.name == part), None)
        if node is None:
            # a nested function or a method the index names without its class
            node = next((n for n in ast.walk(tree) if isinstance(
                n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == parts[-1]), None)
            if node is not None:
                cls = next((c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                            and node in c.body), None)
            return node, cls
        if isinstance(node, ast.ClassDef):
            cls = node
        scope = getattr(node, "body", [])
    return node, cls


def site_settings(site: Site, sources: Sequence[Path]) -> tuple[str | None, list[str]] | None:
    """The release read and the settings its function (and class __init__) reads."""
    relative = Path(*site.module.split("."))
    for src in sources:
        for path in (src / relative.with_suffix(".py"), src / relative / "__init__.py"):
            tree = _tree(path) if path.exists() else None
            if tree is None:
                continue
            node, cls = _find(tree, site.function) if site.function else (tree, None)
            if node is None:
                continue
            read = settings_read(node)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                read += [f"param:{a.arg}" for a in node.args.args + node.args.kwonlyargs
                         if a.arg not in {"self", "cls"}]
            if cls is not None and node is not cls:
                init = next((n for n in cls.body if isinstance(n, ast.FunctionDef)
                             and n.name == "__init__"), None)
                if init is not None:
                    read += [s for s in settings_read(init) if s not in read]
            return src.name, read
    return None


# ---------------------------------------------------------------- the site of the root cause

def root_site(report: Report) -> Site | None:
    root = report.root_cause
    if root is None:
        return None
    origin = report.origins.get(root.id)
    if origin is not None and origin.sites:
        best = origin.sites[0]
        return Site(best.module, best.function, "origin")
    for frame in reversed(root.frames):  # innermost first
        module = frame_module(frame.file, frame.function)
        if module and module.split(".")[0].startswith("vllm"):
            return Site(module, frame.function, "frame")
    return None


@cache
def known_settings() -> frozenset[str]:
    """Every engine argument (field and flag), environment variable and JSON key vLLM's index
    knows, normalised."""
    index = default_index()
    names = {norm(a.field) for a in index.arguments} | {norm(a.flag) for a in index.arguments}
    names |= {norm(v.name) for v in index.environment}
    names |= {norm(k) for k in default_config_keys()}
    return frozenset(names)


def known_of(settings: Sequence[str]) -> tuple[str, ...]:
    """The settings a user can set: index names; a parameter only when it is one."""
    out: dict[str, None] = {}
    for setting in settings:
        name = setting.removeprefix("param:")
        if norm(name) in known_settings() or (not setting.startswith("param:")
                                               and name.startswith(("VLLM_", "NCCL_"))):
            out.setdefault(name, None)
    return tuple(out)


def path_sites(report: Report) -> list[Site]:
    """Every frame of the root cause's traceback in vLLM's or a plugin's code, innermost first."""
    root = report.root_cause
    sites = []
    for frame in reversed(root.frames if root else ()):
        module = frame_module(frame.file, frame.function) or _plugin_module(frame.file)
        if module and module.split(".")[0].startswith(("vllm", "lmcache", "tpu_inference")):
            sites.append(Site(module, frame.function, "frame"))
    return sites


def _plugin_module(file: str) -> str | None:
    """`.../site-packages/vllm_ascend/worker/model_runner_v1.py` -> vllm_ascend.worker...."""
    parts = file.replace("\\", "/").split("/")
    for i, part in enumerate(parts):
        if part.startswith(("vllm_", "lmcache", "tpu_inference")) and file.endswith(".py"):
            return ".".join(parts[i:])[:-3]
    return None


def ordered_sources(sources: Sequence[Path], version: object) -> list[Path]:
    """vLLM releases nearest the log's version first (by name on a tie), then the rest."""
    releases = [s for s in sources if re.fullmatch(r"\d+\.\d+\.\d+\S*", s.name)]
    others = [s for s in sources if s not in releases]
    if isinstance(version, str) and re.match(r"\d+\.\d+", version):
        want = version_key(version)
        releases.sort(key=lambda s: (_distance(version_key(s.name), want), s.name))
    else:
        releases.sort(key=lambda s: version_key(s.name), reverse=True)
    return releases + others


def _distance(a: tuple[tuple[int, str], ...], b: tuple[tuple[int, str], ...]) -> tuple[int, ...]:
    """How far two releases are, minor first (0.11.2 is nearer 0.11.0 than 0.10.2 is)."""
    left = [n for n, _ in a][:3] + [0] * 3
    right = [n for n, _ in b][:3] + [0] * 3
    return tuple(abs(x - y) for x, y in zip(left[:3], right[:3]))


def outcome(name: str, group: str, knobs: Sequence[str], report: Report,
            sources: Sequence[Path]) -> Outcome:
    site = root_site(report)
    read = site_settings(site, ordered_sources(sources, report.facts.get("vllm_version"))) \
        if site else None
    settings = tuple(x for x in read[1] if not x.startswith("param:")) if read else ()
    have = {norm(s) for s in settings}
    hit = tuple(k for k in knobs if norm(k) in have)
    known = known_of(read[1]) if read else ()
    path_all = list(read[1]) if read else []
    for frame_site in path_sites(report):
        more = site_settings(frame_site, ordered_sources(sources, report.facts.get("vllm_version")))
        path_all += [s for s in (more[1] if more else ()) if s not in path_all]
    path = [x for x in path_all if not x.startswith("param:")]
    path_known = known_of(path_all)
    message = norm(report.root_cause.message) if report.root_cause else ""

    def among(names: Sequence[str]) -> tuple[str, ...]:
        have = {norm(n) for n in names}
        return tuple(k for k in knobs if norm(k) in have)

    return Outcome(name, group, tuple(knobs), site, read[0] if read else None, settings,
                   read is not None, hit, tuple(path), among(path), known, among(known),
                   path_known, among(path_known),
                   tuple(k for k in knobs if len(norm(k)) > 3 and norm(k) in message))


FAMILYISH = {"family", "fallback", None}


def tuning_outcomes(sources: Sequence[Path]) -> list[Outcome]:
    out = []
    for case in load_cases(ROOT / "tests" / "fixtures" / "tuning"):
        keywords = [str(k) for k in case.label.get("fix_keywords") or ()]
        if not keywords or case.label.get("healthy"):
            continue
        report = explain(case.log)
        data = report_to_dict(report)
        kind = (data.get("signature") or {}).get("kind")
        right = judge(case.label, data).fix
        # "tuning-miss": the report misses the fix; "tuning-right": a family, fallback or nothing
        # answered and the fix is right all the same; "tuning-exact": an exact signature answered
        # right (the settings list reads the root cause only, so it is what a cold meeting of
        # that failure would show)
        group = "tuning-miss" if not right else "tuning-right" if kind in FAMILYISH \
            else "tuning-exact"
        out.append(outcome(f"{case.group}/{case.name}", group, keywords, report, sources))
    return out


def exact_outcomes(sources: Sequence[Path]) -> list[Outcome]:
    loo.KINDS.add(SignatureKind.FALLBACK)
    database = default_signatures()
    withheld = loo.families_only(database)
    out = []
    for probe in loo.signature_probes(database):
        knobs = [k for k in probe.knobs if k not in loo.VERSION_WORDS]
        if not knobs:
            continue
        report = explain(probe.log, signatures=withheld)
        out.append(outcome(probe.name, probe.group.value, knobs, report, sources))
    return out


def _sizes(lists: Sequence[Sequence[str]]) -> str:
    sizes = sorted(len(x) for x in lists) or [0]
    return f"{statistics.median(sizes):g}/{statistics.mean(sizes):.1f}/{max(sizes)}"


def render(results: list[Outcome], verbose: bool) -> str:
    """Per group: probes, a site located, its function read; then per list (hits and the list's
    size median/mean/max over the probes whose site was read): the site's raw reads, the site's
    settings vLLM's index knows (parameters included), the same along the call path; the knobs
    the root message already names, and the known-settings hits that the message does not name
    (all, and those whose list holds at most ten settings)."""
    lines = [f"{'group':<13} {'probes':>6} {'site':>5} {'read':>5}  {'raw: hit':>9} {'size':>10}"
             f"  {'known: hit':>10} {'size':>10}  {'path known: hit':>15} {'size':>10}"
             f"  {'in msg':>6} {'new':>4} {'new<=10':>7}"]
    groups = list(Counter(r.group for r in results)) + ["all"]
    for group in groups:
        rows = [r for r in results if group in ("all", r.group)]
        read = [r for r in rows if r.found]
        lines.append(
            f"{group:<13} {len(rows):>6} {sum(1 for r in rows if r.site):>5} {len(read):>5}  "
            f"{sum(1 for r in rows if r.hit):>9} {_sizes([r.settings for r in read]):>10}  "
            f"{sum(1 for r in rows if r.known_hit):>10} {_sizes([r.known for r in read]):>10}  "
            f"{sum(1 for r in rows if r.path_known_hit):>15} "
            f"{_sizes([r.path_known for r in read]):>10}  "
            f"{sum(1 for r in rows if r.in_message):>6} "
            f"{sum(1 for r in rows if r.known_hit and not r.in_message):>4} "
            f"{sum(1 for r in rows if r.known_hit and not r.in_message and len(r.known) <= 10):>7}")
    how = Counter((r.site.how if r.site else "none", r.found) for r in results)
    lines.append("sites: " + ", ".join(f"{h}{'' if f else ' (not in the sources)'} {n}"
                                       for (h, f), n in sorted(how.items())))
    if verbose:
        for r in results:
            mark = "HIT " if r.known_hit else "PATH" if r.path_known_hit else "    "
            where = f"{r.site.module}:{r.site.function} [{r.site.how}, {r.source}]" \
                if r.site else "-"
            lines.append(f"{mark} {r.group:<12} {r.name}  {where}  knobs: "
                         f"{', '.join(r.knobs[:6])}  known({len(r.known)}): "
                         f"{', '.join(r.known[:12])}  path({len(r.path_known)})"
                         + (f"  in message: {', '.join(r.in_message)}" if r.in_message else ""))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", action="append", type=Path, default=[],
                        help="an extracted source folder (repeatable)")
    parser.add_argument("--no-exact", action="store_true", help="the tuning cases only")
    parser.add_argument("--no-tuning", action="store_true", help="the exact signatures only")
    parser.add_argument("-v", "--verbose", action="store_true", help="every probe")
    args = parser.parse_args(argv)
    results = [] if args.no_tuning else tuning_outcomes(args.src)
    if not args.no_exact:
        results += exact_outcomes(args.src)
    print(render(results, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
