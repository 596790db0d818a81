"""The confirmed-remedy census: do the families name the remedies vLLM's tracker confirms?

`signatures/confirmed-remedies.yaml` holds, per family, the remedies that threads of vLLM's own
tracker confirmed for that family's failures (a maintainer's answer, a merged fix, a reporter's
confirmed workaround), each with the threads that confirm it, the vLLM documentation pages that
state it too, the releases it depends on, and the words advice must carry to name it. A remedy is
*held* when two threads confirm it, or one thread and a documentation page; a held remedy must be
named by the family's fix. This tool reads the census and says, per family:

- `named`: the family's fix names every held remedy, and the record's error (written as a minimal
  log of its process, as `tools/docs_remedy_probe` writes it) is answered by the family, or by an
  exact signature that knows that case, with a report whose advice names them too;
- `lacking`: the family's fix, or the report's advice, misses a held remedy;
- `other`: the record's error is answered by another family (or by nothing but a fallback):
  the census says which family a user with that error reads, so the matcher is wrong or the
  record is;
- the same for an exact signature (`signature:` in place of `family:`): its fix must name the
  held remedies of its own case, and the record's error must be answered by it;
- and which remedies are recorded but not yet held (one thread, no page): candidates, not rules.

    PYTHONPATH=. .venv/bin/python tools/confirmed_remedies/census.py            # what is not named
    PYTHONPATH=. .venv/bin/python tools/confirmed_remedies/census.py --show all
    PYTHONPATH=. .venv/bin/python tools/confirmed_remedies/census.py --order
    PYTHONPATH=. .venv/bin/python tools/confirmed_remedies/census.py --members --jobs 2
    git archive <commit> signatures | tar -x -C /tmp/base
    PYTHONPATH=. .venv/bin/python tools/confirmed_remedies/census.py --signatures /tmp/base/signatures

Not run-time code: tests/test_confirmed_remedies.py holds the whole census to `named`.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # the repository's logsleuth

from logsleuth.index.data import default_index  # noqa: E402
from logsleuth.model import Match, SignatureKind, Verdict  # noqa: E402
from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures, load_signatures  # noqa: E402
from logsleuth.signatures.match import fact_holds  # noqa: E402
from logsleuth.yamlload import load_yaml  # noqa: E402

CATALOGUE = ROOT / "signatures" / "confirmed-remedies.yaml"
# The source partition: only even-numbered threads of vLLM's own tracker may be cited.
THREAD = re.compile(r"^https://github\.com/vllm-project/vllm/(?:issues|pull)/(\d+)$")
DOCS = ("https://docs.vllm.ai/", "https://github.com/vllm-project/vllm/blob/")


def _tool(folder: str, script: str) -> ModuleType:
    """tools/<folder>/<script>.py, registered under the name tests/tool_import.py gives it
    (several tools name their script `probe.py`)."""
    name = f"_tool_{folder}_{script}"
    if name in sys.modules:
        return sys.modules[name]
    path = HERE.parent / folder / f"{script}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


PROBE = _tool("docs_remedy_probe", "probe")


def _loo() -> ModuleType:
    """tools/family_loo/loo.py, loaded when first needed (only `--members` reads it)."""
    return _tool("family_loo", "loo")


class Status(Enum):
    NAMED = "named"
    LACKING = "lacking"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Remedy:
    """One remedy the tracker confirmed for a family's failures."""

    remedy: str  # in our words
    keywords: tuple[tuple[str, ...], ...]  # every entry named by the advice; "a | b": either
    threads: tuple[str, ...]  # even-numbered vLLM issues and pull requests that confirm it
    docs: tuple[str, ...] = ()  # vLLM documentation pages that state it too
    releases: str | None = None  # the releases it holds for, when it depends on the release

    @property
    def held(self) -> bool:
        """Two threads, or one thread and a documentation page: the family's fix must name it."""
        return len(self.threads) >= 2 or (len(self.threads) == 1 and bool(self.docs))

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Remedy:
        keywords = data["keywords"]
        assert isinstance(keywords, list) and keywords, data
        releases = data.get("releases")
        return cls(str(data["remedy"]).strip(),
                   tuple(tuple(a.strip() for a in str(k).split(" | ")) for k in keywords),
                   tuple(str(t) for t in _list(data.get("threads"))),
                   tuple(str(d) for d in _list(data.get("docs"))),
                   None if releases is None else str(releases))


@dataclass(frozen=True, slots=True)
class Entry:
    """One family (or one exact signature), one error of its class as vLLM prints it, and the
    remedies confirmed for it."""

    family: str  # the family's id, or the exact signature's (`signature:` in the census)
    error: str  # "Class: message" (or, with process `line`, the logged message)
    remedies: tuple[Remedy, ...]
    process: str = "engine_core"
    frames: tuple[str, ...] = ()
    kind: SignatureKind = SignatureKind.FAMILY

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Entry:
        remedies = data["remedies"]
        assert isinstance(remedies, list) and remedies, data
        exact = "signature" in data
        assert exact != ("family" in data), data  # one of the two
        return cls(str(data["signature"] if exact else data["family"]),
                   str(data["error"]).rstrip("\n"),
                   tuple(Remedy.from_dict(r) for r in remedies),
                   str(data.get("process", "engine_core")),
                   tuple(str(f) for f in _list(data.get("frames"))),
                   SignatureKind.EXACT if exact else SignatureKind.FAMILY)

    @property
    def held(self) -> tuple[Remedy, ...]:
        return tuple(r for r in self.remedies if r.held)


def _list(value: object) -> list[object]:
    if value is None:
        return []
    assert isinstance(value, list), value
    return value


def census(path: Path = CATALOGUE) -> list[Entry]:
    """The census's entries, in file order."""
    data, _ = load_yaml(path)
    assert isinstance(data, list), path
    return [Entry.from_dict(d) for d in data]


def thread_number(url: str) -> int | None:
    found = THREAD.match(url)
    return int(found.group(1)) if found else None


def problems(entries: Sequence[Entry], signatures: SignatureSet) -> list[str]:
    """What is wrong with the census itself: a family that does not exist or is not a family, a
    thread outside the partition (vLLM's even-numbered issues and pull requests), a page that is
    not vLLM's documentation, a remedy no thread confirms, an error no process of the probe's
    writes."""
    found = []
    ids = {s.id: s for s in signatures}
    for entry in entries:
        signature = ids.get(entry.family)
        if signature is None or signature.kind is not entry.kind:
            what = "a family" if entry.kind is SignatureKind.FAMILY else "an exact signature"
            found.append(f"{entry.family}: not {what} of the signature set")
        if entry.process not in PROBE.PROCESSES:
            found.append(f"{entry.family}: unknown process {entry.process!r}")
        for remedy in entry.remedies:
            if not remedy.threads:
                found.append(f"{entry.family}: {remedy.remedy[:40]!r} cites no thread")
            for url in remedy.threads:
                number = thread_number(url)
                if number is None or number % 2:
                    found.append(f"{entry.family}: {url} is not an even-numbered vLLM thread")
            found += [f"{entry.family}: {url} is not a vLLM documentation page"
                      for url in remedy.docs if not url.startswith(DOCS)]
    return found


def names(fix: str, remedy: Remedy) -> bool:
    """Whether a fix names the remedy: each of its keywords (one of an entry's alternatives), as
    `tools/remedy_probe` finds a knob (flags and settings by their words)."""
    holds, normal = PROBE.remedy_probe.holds, PROBE.remedy_probe.normal
    return all(holds(fix, [normal(k) for k in entry]) for entry in remedy.keywords)


@dataclass(frozen=True, slots=True)
class Result:
    entry: Entry
    status: Status
    answered: str | None  # the signature the record's log is answered by
    missing: tuple[str, ...]  # the held remedies the family's fix or the report's advice lacks


def release_in(releases: str) -> str | None:
    """The newest indexed vLLM release a version condition holds for."""
    inside = [r for r in default_index().releases if fact_holds(r, releases)]
    return inside[-1] if inside else None


def _explain(entry: Entry, signatures: SignatureSet, release: str | None = None) -> Match | None:
    record = PROBE.Record(entry.family, entry.error, (("-",),), entry.process, entry.frames)
    log = PROBE.render(record)
    if release is not None:  # the engine's first line, which says the release
        log = (f"(EngineCore_DP0 pid=4100) INFO 02-05 10:11:00 [core.py:70] Initializing a V1 "
               f"LLM engine (v{release}) with config: model='m'\n") + log
    report = explain_text(log, signatures=signatures)
    return None if report.verdict is Verdict.NO_FAILURE else report.signature


def measure_one(entry: Entry, signatures: SignatureSet) -> Result:
    """The family's own fix, and the advice a report gives on the record's error. A held remedy
    of some releases only is not the family's for every log: it must be named by the advice on
    the error of a release it holds for (logsleuth/confirmed.py adds it there)."""
    family = {s.id: s for s in signatures}.get(entry.family)
    fix = family.fix if family is not None else ""
    signature = _explain(entry, signatures)
    answered = signature.id if signature is not None else None
    # an exact signature of the census is answered by itself: another one is `other`
    exact = (signature is not None and signature.kind is SignatureKind.EXACT
             and entry.kind is SignatureKind.FAMILY)
    if signature is None or not (answered == entry.family or exact):
        return Result(entry, Status.OTHER, answered, ())
    # An exact signature that knows the error's own case answers before its family; the
    # family's fix is what every other member of the class reads, and the exact signature's is
    # what this case reads: both name the held remedies.
    missing = []
    for remedy in entry.held:
        if remedy.releases is None:
            named = names(fix, remedy) and names(signature.fix, remedy)
        else:
            release = release_in(remedy.releases)
            advice = _explain(entry, signatures, release) if release else None
            named = advice is not None and (advice.id != entry.family or names(advice.fix, remedy))
        if not named:
            missing.append(remedy.remedy)
    return Result(entry, Status.LACKING if missing else Status.NAMED, answered, tuple(missing))


def measure(entries: Sequence[Entry], signatures: SignatureSet) -> list[Result]:
    return [measure_one(e, signatures) for e in entries]


def summary(results: Sequence[Result]) -> str:
    counts = Counter(r.status for r in results)
    remedies = [m for r in results for m in r.entry.remedies]
    exact = {r.entry.family for r in results if r.entry.kind is SignatureKind.EXACT}
    return (f"families {len({r.entry.family for r in results} - exact)}, exact signatures "
            + f"{len(exact)}, records {len(results)}: "
            + ", ".join(f"{s.value} {counts[s]}" for s in Status)
            + f"; remedies {len(remedies)}, held {sum(m.held for m in remedies)}, threads "
            + f"{len({t for m in remedies for t in m.threads})}")


def first_step(fix: str, remedy: Remedy) -> int | None:
    """The number of the fix's first numbered step whose text alone names the remedy (0: the
    text before step 1), or None when no one step does (its keywords spread over several, or it
    is added at run time)."""
    for chunk in re.split(r"\n\s*(?=\d+\.\s)", "\n" + fix):
        if names(chunk, remedy):
            number = re.match(r"\s*(\d+)\.\s", chunk)
            return int(number.group(1)) if number else 0
    return None


def order(entries: Sequence[Entry], signatures: SignatureSet) -> list[str]:
    """Per record with held remedies: where its most-confirmed held remedy (most sources)
    stands in its fix."""
    fixes = {s.id: s.fix for s in signatures}
    lines = []
    for entry in entries:
        if entry.held:
            top = max(entry.held, key=lambda r: len(r.threads) + len(r.docs))
            step = first_step(fixes.get(entry.family, ""), top)
            lines.append(f"{entry.family:42} step {'-' if step is None else step:>2}  "
                         f"{len(top.threads)}t{len(top.docs)}d {top.remedy[:60]}")
    return lines


def _with_release(text: str, release: str) -> str:
    """A log whose vLLM release the engine's first line says (as `_explain` writes it)."""
    return (f"(EngineCore_DP0 pid=4100) INFO 02-05 10:11:00 [core.py:70] Initializing a V1 LLM "
            f"engine (v{release}) with config: model='m'\n") + text


def members_without(entries: Sequence[Entry], signatures: SignatureSet, jobs: int = 1,
                    probes: Sequence[object] | None = None) -> list[str]:
    """The exact signatures of a family's class that do not carry its release-scoped remedies.

    A family's release-scoped remedy reaches the logs the family answers (logsleuth/confirmed.py);
    a member of the family's class that an exact signature knows reads that signature's fix
    instead. The members are found as tools/family_loo finds them: every exact signature whose
    positive example, with all exact signatures withheld, that family answers. Each member's
    example is then read as a log of the newest release the remedy holds for, with the whole
    database: a member whose advice does not name the remedy is listed (census it with
    `signature:` and the same remedy, as rpc-execute-model-timeout is)."""
    scoped = {e.family: [r for r in e.remedies if r.releases is not None] for e in entries
              if e.kind is SignatureKind.FAMILY}
    scoped = {family: remedies for family, remedies in scoped.items() if remedies}
    loo = _loo()
    results = loo.run(loo.signature_probes(signatures) if probes is None else probes, jobs=jobs)
    kinds = {s.id: s.kind for s in signatures}
    lines = []
    for result in results:
        if result.family not in scoped:
            continue
        member = result.probe.name.split(":")[0]
        for remedy in scoped[result.family]:
            release = release_in(remedy.releases or "")
            if release is None:
                continue
            text = result.probe.log.read_text(encoding="utf-8", errors="replace")
            report = explain_text(_with_release(text, release), signatures=signatures)
            advice = report.signature
            if advice is None or kinds.get(advice.id) is not SignatureKind.EXACT \
                    or names(advice.fix, remedy):
                continue
            lines.append(f"{result.family} {remedy.releases} ({release}): {advice.id} "
                         f"({result.probe.log.name}) lacks {remedy.remedy[:60]!r}")
    return sorted(set(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE)
    parser.add_argument("--signatures", type=Path, help="another signature tree to measure")
    parser.add_argument("--show", choices=("lacking", "all", "none"), default="lacking")
    parser.add_argument("--order", action="store_true",
                        help="where each record's most-confirmed held remedy stands in its fix")
    parser.add_argument("--members", action="store_true",
                        help="the exact signatures of a family's class without its "
                        "release-scoped remedies (minutes: every exact example, families alone)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    signatures = (load_signatures(args.signatures, shipped=False) if args.signatures
                  else default_signatures())
    entries = census(args.catalogue)
    if args.order:
        print("\n".join(order(entries, signatures)))
        return 0
    if args.members:
        print("\n".join(members_without(entries, signatures, args.jobs)) or "none")
        return 0
    for problem in problems(entries, signatures):
        print(f"census: {problem}")
    results = measure(entries, signatures)
    for r in results:
        if args.show == "all" or (args.show == "lacking" and r.status is not Status.NAMED):
            print(f"{r.status.value:8} {r.entry.family:40} answered {r.answered or '-'} "
                  f"missing {list(r.missing)}")
        if args.show == "all":
            for m in r.entry.remedies:
                print(f"         {'held' if m.held else 'one ':4} {len(m.threads)}t "
                      f"{len(m.docs)}d {m.remedy[:90]}")
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
