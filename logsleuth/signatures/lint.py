"""`logsleuth signatures lint`: every problem of every signature file at once, `path:line: ...`.

Checks, in order: YAML (syntax, duplicate keys, aliases, keys that are not text, size), the
schema, id = file name, category = directory, patterns that do not compile or that backtrack
catastrophically (both found by the loader, which skips such a file in a run), unknown
`related` ids, duplicate ids, missing examples, and overlaps found by running each signature's
positive examples through every other signature (lnav orders its formats the same way).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import regex
from typing import TYPE_CHECKING

from logsleuth.errors import SignatureError
from logsleuth.model import SignatureKind
from logsleuth.signatures.load import NOT_SIGNATURES, Signature, _load, signature_files

if TYPE_CHECKING:
    from logsleuth.model import Match, Report
    from logsleuth.signatures import SignatureSet
    from logsleuth.signatures.examples import ExampleResult


@dataclass(frozen=True, slots=True)
class Problem:
    location: str  # path:line
    message: str
    hint: str | None = None
    is_error: bool = True

    def format(self) -> str:
        level = "error" if self.is_error else "warning"
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"{self.location}: {level}: {self.message}{hint}"


def lint_files(paths: list[Path]) -> list[Path]:
    """The signature files `lint` checks for these paths (the shipped set when none)."""
    from logsleuth.signatures import shipped_directory

    if not paths:
        return signature_files(shipped_directory())
    files: list[Path] = []
    for path in paths:
        if path.is_file():
            files.append(path)
        else:
            files += signature_files(path) or sorted(path.glob("*.yaml"))
    return [f for f in files if f.name not in NOT_SIGNATURES]


def lint(paths: list[Path], *, examples: bool = True) -> list[Problem]:
    """Lint the given files or directories (the shipped set when none is given)."""
    problems: list[Problem] = _phrasing_problems(paths)
    loaded: list[Signature] = []
    for path in lint_files(paths):
        if path.suffix != ".yaml":  # an example log named on its own: not YAML to parse
            problems.append(Problem(f"{path}:1", "not a signature file (<id>.yaml)",
                                    "lint the signature's .yaml or its folder: its example "
                                    "logs are checked with it"))
            continue
        found: list[SignatureError] = []
        signature = _load(path, found)
        problems += [Problem(p.location or str(path), p.detail, p.hint) for p in found]
        if signature is not None:
            loaded.append(signature)

    seen: dict[str, Signature] = {}
    for signature in loaded:
        if signature.id in seen:
            problems.append(Problem(signature.location,
                                    f"duplicate id '{signature.id}' (also {seen[signature.id].path})"))
        seen[signature.id] = signature
        if not any(positive for _, positive in signature.examples()):
            problems.append(Problem(signature.location, "no positive example log",
                                    f"add {signature.id}.log beside the file: a real excerpt"))
        if not any(not positive for _, positive in signature.examples()):
            problems.append(Problem(signature.location, "no negative (near-miss) example log",
                                    f"add {signature.id}.negative.log", is_error=False))
        problems += _source_problems(signature)
        problems += _placeholder_problems(signature)

    if examples and loaded:
        problems += _example_problems(paths, loaded)
    problems += _index_problems(loaded)
    known = _all_ids(paths) | set(seen)
    for signature in loaded:
        for related in signature.related:
            if related not in known:
                problems.append(Problem(_at(signature, "related"),
                                        f"related id '{related}' is unknown",
                                        is_error=False))
    return sorted(problems, key=_order)


def _phrasing_problems(paths: list[Path]) -> list[Problem]:
    """The remedy phrasing (remedy.yaml, logsleuth/remedy.py) of the shipped set, or of a
    directory given, must load: a pattern that does not compile breaks every report."""
    from logsleuth.remedy import load_phrasing, warning_anchor
    from logsleuth.signatures import shipped_directory

    files = [p / "remedy.yaml" if p.is_dir() else p for p in paths] if paths else \
        [shipped_directory() / "remedy.yaml"]
    problems = []
    for file in files:
        if file.name != "remedy.yaml" or not file.is_file():
            continue
        try:
            load_phrasing(file)
            warning_anchor(file)  # its words also find the warnings that give a hint
        except SignatureError as exc:
            problems.append(Problem(exc.location or str(file), exc.detail, exc.hint))
    return problems


def _index_problems(loaded: list[Signature]) -> list[Problem]:
    """Warnings where vLLM's own source does not bear a signature's message out."""
    from logsleuth.index import default_index
    from logsleuth.index.lint import VERSION_FACT, IndexLinter
    from logsleuth.signatures.load import MessageOrigin

    linter = IndexLinter(default_index())
    problems: list[Problem] = []
    for signature in loaded:
        if signature.origin is not MessageOrigin.VLLM or not signature.templates:
            continue
        versions = next((f.expression for f in signature.facts if f.name == VERSION_FACT), None)
        for finding in linter.check(tuple(t.text for t in signature.templates), versions):
            about = ("match", "facts", VERSION_FACT) if VERSION_FACT in finding.message \
                else ("match", "message", finding.template_number)
            problems.append(Problem(_at(signature, *about),
                                    f"match.message.{finding.template_number}: "
                                    f"{finding.message}", finding.hint, is_error=False))
    return problems


# vLLM issues are split by number (CONTRIBUTING.md): odd ones belong to the held-out set.
_VLLM_ISSUE = regex.compile(r"github\.com/vllm-project/vllm/issues/(\d+)")
_PUBLIC = regex.compile(r"^(?:https?://\S+|constructed: \S.*)", regex.DOTALL)
_PLACEHOLDER = regex.compile(r"\bTODO\b")


def _at(signature: Signature, *key: str | int) -> str:
    """`path:line` of a key of the signature's file (its first line when the key is not
    there): a problem found after loading points at the text to change."""
    from logsleuth.signatures.load import _line_for
    from logsleuth.yamlload import load_yaml

    try:
        _, lines = load_yaml(signature.path)
    except (SignatureError, OSError):
        return signature.location
    return f"{signature.path}:{_line_for(lines, key)}"


def _source_problems(signature: Signature) -> list[Problem]:
    """Every example log beside the file has a public source in `examples`, and only those."""
    where = signature.location
    beside = {path.name: positive for path, positive in signature.examples()}
    sources = dict(signature.example_sources)
    if not sources:  # CONTRIBUTING.md: an example without a declared source is an error
        return [Problem(where, "no `examples` key: give each example log's public source",
                        "examples: {<id>.log: <URL>, <id>.negative.log: 'constructed: ...'}")
                ] if beside else []
    problems: list[Problem] = []
    for name in sorted(set(beside) - set(sources)):
        problems.append(Problem(_at(signature, "examples"),
                                f"example {name} has no source in `examples`",
                                f"add `{name}: <URL or 'constructed: why'>` under examples"))
    for name in sorted(set(sources) - set(beside)):
        problems.append(Problem(_at(signature, "examples", name),
                                f"`examples` lists {name}, which is not beside the file"))
    for name, source in sorted(sources.items()):
        if not _PUBLIC.match(source.strip()):
            problems.append(Problem(_at(signature, "examples", name),
                                    f"example {name}: source {source[:60]!r} is neither a "
                                    "URL nor 'constructed: ...'"))
        issue = _VLLM_ISSUE.search(source)
        if beside.get(name) and issue and int(issue.group(1)) % 2 == 1:
            problems.append(Problem(_at(signature, "examples", name),
                                    f"example {name} comes from odd-numbered vLLM issue "
                                    f"#{issue.group(1)}, which belongs to the held-out set",
                                    "take examples from even-numbered issues or vLLM's source"))
    return problems


def _placeholder_problems(signature: Signature) -> list[Problem]:
    """A skeleton from `signatures new` is not a signature until its TODOs are written."""
    texts = {"title": signature.title, "description": signature.description,
             "fix": signature.fix, "references": " ".join(signature.references),
             "examples": " ".join(source for _, source in signature.example_sources)}
    return [Problem(_at(signature, field), f"{field} still holds a skeleton placeholder (TODO)",
                    "write it, or delete the line")
            for field, text in texts.items() if _PLACEHOLDER.search(text)]


def _order(problem: Problem) -> tuple[str, bool, int]:
    """By file, errors before warnings, then by line."""
    file, _, line = problem.location.rpartition(":")
    if not line.isdigit():
        file, line = problem.location, "0"
    return file, not problem.is_error, int(line)


def _all_ids(paths: list[Path]) -> set[str]:
    from logsleuth.signatures.examples import database_for

    try:
        return {s.id for s in database_for(paths)}
    except SignatureError:
        return set()


def _example_problems(paths: list[Path], loaded: list[Signature]) -> list[Problem]:
    from logsleuth.signatures.examples import database_for, run_examples

    problems: list[Problem] = []
    database = database_for(paths)
    for result in run_examples([s.path for s in loaded], database):
        location = f"{result.example}:1"
        if not result.passed:
            what = ("is not matched by its signature" if result.best is None else
                    f"is matched best by {result.best} ({result.score:.2f})")
            if not result.positive:
                what = f"(a negative example) is matched by {result.signature} itself"
            problems.append(Problem(location, f"example of {result.signature} {what}",
                                    "make the patterns more specific, or add match.frames"))
        elif result.positive and result.best is not None:
            own = database.get(result.signature)
            report = _report(result, database)
            # a family under an exact signature is a fallback layer, by design: only rivals of
            # the signature's own kind compete for its logs
            rivals = [m.id for m in _rivals(report)
                      if m.id != result.signature and (own is None or m.kind is own.kind)]
            generic = _uncorroborable(own, report, database)
            if generic is not None:
                problems.append(Problem(location, f"example of {result.signature}: {generic}",
                                        "name what tells this failure apart (match.frames, "
                                        "match.phase, match.module), or make it a family",
                                        is_error=False))
            for rival in rivals:
                problems.append(Problem(location, f"example of {result.signature} also matches "
                                        f"{rival} above the threshold (overlap)", is_error=False))
    return problems


def _report(result: ExampleResult, database: SignatureSet) -> Report:
    from logsleuth.pipeline import explain

    return explain(result.example, signatures=database)


def _rivals(report: Report) -> list[Match]:
    from logsleuth.signatures import THRESHOLD

    return [m for m in report.alternatives if m.score >= THRESHOLD]


def _uncorroborable(signature: Signature | None, report: Report,
                    database: SignatureSet) -> str | None:
    """Why an exact signature's message is generic while it names nothing that could
    corroborate it (match.py GENERIC_UNCORROBORATED spares it, so any error with that text gets
    its fix); None otherwise."""
    from logsleuth.signatures.match import generic_evidence, needs_corroboration

    if signature is None or signature.kind is not SignatureKind.EXACT \
            or needs_corroboration(signature) or report.root_cause is None:
        return None
    reason = generic_evidence(signature, report.root_cause, database)
    if reason is None:
        return None
    return f"its message is generic ({reason}) and it names no frame, module, phase or " \
           "deployment fact to corroborate it"
