"""Load signature YAML files into frozen Signature records, validating them against the schema.

Like pySigma's rule loading: every file becomes a typed record that knows where it came from;
with `collect_errors=True` every problem of every file is gathered instead of stopping at the
first, which is what `logsleuth signatures lint` reports.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import Path

import regex

from logsleuth.errors import SignatureError
from logsleuth.model import Phase, Role, SignatureKind
from logsleuth.resources import data_dir
from logsleuth.signatures.needle import Needle, needle_of
from logsleuth.signatures.template import Template
from logsleuth.yamlload import KeyPath, load_yaml

ENV_VAR = "LOGSLEUTH_SIGNATURES"  # extra signature directories, separated by os.pathsep
# Files in the signatures directory that are not signatures: its data files (causality, facts,
# the phrasing of a message's remedy, the line shapes of API drift, the knobs each class of
# families must name, a plugin's switches between its implementations, the programs that
# drive vLLM, which package of two to move when their releases do not fit).
NOT_SIGNATURES = frozenset({"causality.yaml", "facts.yaml", "remedy.yaml", "drift.yaml",
                            "alignment.yaml",
                            "framework-knobs.yaml", "platform-knobs.yaml",
                            "family-knobs.yaml", "documented-remedies.yaml",
                            "confirmed-remedies.yaml", "plugin-switches.yaml",
                            "drivers.yaml"})


class Severity(Enum):
    CRITICAL = "critical"
    ERROR = "error"
    WARNING = "warning"


class Status(Enum):
    STABLE = "stable"
    EXPERIMENTAL = "experimental"


class MessageOrigin(Enum):
    """The program that prints a signature's message (`match.origin`): only vLLM's own
    messages are linted against the index mined from vLLM's releases."""

    VLLM = "vllm"
    TORCH = "torch"
    NCCL = "nccl"
    RAY = "ray"
    CUDA = "cuda"
    TRITON = "triton"
    TRANSFORMERS = "transformers"
    PYTHON = "python"
    SYSTEM = "system"
    OTHER = "other"


class Required(Enum):
    """A part of `match` that gates instead of weighing (`match.require`): a log that does not
    show it gets no match. Frames and module weigh for every signature that does not ask."""

    FRAMES = "frames"
    MODULE = "module"


@dataclass(frozen=True, slots=True)
class FactCondition:
    """`name: '>=0.11,<0.17'` (a version range) or `name: 'fp8*'` (a glob); judged in match.py."""

    name: str
    expression: str


@dataclass(frozen=True, slots=True)
class Signature:
    """One known failure with its fix."""

    id: str
    title: str
    category: str
    description: str
    severity: Severity
    status: Status
    exceptions: tuple[str, ...]
    templates: tuple[Template, ...]
    patterns: tuple[regex.Pattern[str], ...]
    frames: tuple[regex.Pattern[str], ...]
    process: Role | None
    facts: tuple[FactCondition, ...]
    fix: str
    references: tuple[str, ...]
    related: tuple[str, ...]
    path: Path
    line: int = 1
    kind: SignatureKind = SignatureKind.EXACT
    example_sources: tuple[tuple[str, str], ...] = ()  # (log file name, public source)
    phases: tuple[Phase, ...] = ()  # match.phase: any of these lifecycle phases
    origin: MessageOrigin = MessageOrigin.VLLM  # match.origin: who prints the message
    modules: tuple[regex.Pattern[str], ...] = ()  # match.module: the vLLM module raising it
    # match.keywords: words every message of the class carries (any-of, case-insensitive); a
    # message without one of them is another failure of the same module (match.py KEYWORDS_MISSED)
    keywords: tuple[regex.Pattern[str], ...] = ()
    # per pattern, a literal any match contains (needle.py): a text without it is not searched
    needles: tuple[Needle | None, ...] = ()
    # match.require: the parts that must be seen (an interpreter's message whose fix holds on one
    # call path only: `No module named X` through vLLM's plugin loader, not a bare `python -m`)
    required: frozenset[Required] = frozenset()

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def examples(self) -> tuple[tuple[Path, bool], ...]:
        """Example logs beside the file: (path, is_positive), positives first."""
        stem = self.id
        found: list[tuple[Path, bool]] = []
        for candidate in sorted(self.path.parent.glob(f"{stem}*.log")):
            rest = candidate.name[len(stem):-len(".log")]
            if rest == "" or regex.fullmatch(r"\.\d+", rest):
                found.append((candidate, True))
            elif regex.fullmatch(r"\.negative(?:\.\d+)?", rest):
                found.append((candidate, False))
        return tuple(sorted(found, key=lambda item: (not item[1], str(item[0]))))


@cache
def _validator():  # type: ignore[no-untyped-def]
    import jsonschema  # only when files are validated, not when the load cache answers

    schema_path = data_dir("signatures") / "signature.schema.json"
    return jsonschema.Draft202012Validator(json.loads(schema_path.read_text(encoding="utf-8")))


def _line_for(lines: dict[KeyPath, int], path: tuple[str | int, ...]) -> int:
    while path and path not in lines:
        path = path[:-1]
    return lines.get(path, 1)


def load_signature_file(path: Path) -> Signature:
    """Load and validate one file; raise SignatureError listing all its problems."""
    problems: list[SignatureError] = []
    signature = _load(path, problems)
    if problems or signature is None:
        first = problems[0]
        raise SignatureError(first.detail, location=first.location, hint=first.hint,
                             problems=tuple(problems))
    return signature


def _load(path: Path, problems: list[SignatureError], *, probe: bool = True) -> Signature | None:
    """Load one file, appending every problem found; `probe` also rejects patterns that
    backtrack catastrophically (shipped files are probed by the test suite instead)."""
    try:
        data, lines = load_yaml(path)
    except SignatureError as exc:
        problems.append(exc)
        return None
    where = str(path)
    if not isinstance(data, dict):
        problems.append(SignatureError("a signature file must hold a mapping",
                                       location=f"{where}:1"))
        return None
    for error in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.path))):
        key_path = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            problems += _unknown_keys(error, key_path, where, lines)
            continue
        line = _line_for(lines, key_path)
        field = ".".join(str(p) for p in key_path) or "(top level)"
        problems.append(SignatureError(f"{field}: {_friendly(error)}", location=f"{where}:{line}",
                                       hint=_hint(error)))
    if problems:
        return None
    if data["id"] != path.stem:
        problems.append(SignatureError(
            f"id '{data['id']}' does not match the file name '{path.stem}'",
            location=f"{where}:{lines.get(('id',), 1)}", hint=f"rename the file to {data['id']}.yaml"))
    if data["category"] != path.parent.name and not _in_flat_directory(path):
        problems.append(SignatureError(
            f"category '{data['category']}' does not match the directory '{path.parent.name}'",
            location=f"{where}:{lines.get(('category',), 1)}",
            hint=f"move the file to {data['category']}/, or write category: {path.parent.name}"))
    match = data["match"]
    templates: list[Template] = []
    for index, text in enumerate(match.get("message", [])):
        try:
            templates.append(Template.parse(text))
        except ValueError as exc:
            problems.append(SignatureError(f"match.message.{index}: {exc}",
                                           location=f"{where}:{_line_for(lines, ('match', 'message', index))}"))
    patterns = _compile_all(match.get("regex", []), ("match", "regex"), where, lines, problems,
                            probe)
    frames = _compile_all(match.get("frames", []), ("match", "frames"), where, lines, problems,
                          probe)
    modules = _compile_all(match.get("module", []), ("match", "module"), where, lines, problems,
                           probe)
    keywords = _compile_all([f"(?i){k}" for k in match.get("keywords", [])],
                            ("match", "keywords"), where, lines, problems, probe)
    required = frozenset(Required(r) for r in match.get("require", []))
    named_parts = {Required.FRAMES: frames, Required.MODULE: modules}
    for part in sorted(required, key=lambda r: r.value):
        if not named_parts[part]:
            problems.append(SignatureError(
                f"match.require: '{part.value}' is required but match.{part.value} names nothing",
                location=f"{where}:{_line_for(lines, ('match', 'require'))}",
                hint=f"add match.{part.value}, or drop '{part.value}' from match.require"))
    if problems:
        return None
    return Signature(
        id=data["id"], title=data["title"], category=data["category"],
        description=data["description"].strip(), severity=Severity(data["severity"]),
        status=Status(data["status"]), exceptions=tuple(match.get("exception", [])),
        templates=tuple(templates), patterns=patterns, frames=frames,
        process=Role(match["process"]) if "process" in match else None,
        facts=tuple(FactCondition(k, str(v)) for k, v in match.get("facts", {}).items()),
        fix=data["fix"].strip(), references=tuple(data["references"]),
        related=tuple(data.get("related", [])), path=path, line=1,
        kind=SignatureKind(data.get("kind", "exact")),
        example_sources=tuple(sorted(data.get("examples", {}).items())),
        origin=MessageOrigin(match.get("origin", "vllm")), modules=modules, keywords=keywords,
        needles=tuple(needle_of(p.pattern) for p in patterns),
        phases=tuple(Phase(p) for p in _as_list(match.get("phase", []))), required=required)


def _as_list(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _compile_all(texts: list[str], key: tuple[str, str], where: str,
                 lines: dict[KeyPath, int], problems: list[SignatureError],
                 probe: bool) -> tuple[regex.Pattern[str], ...]:
    compiled: list[regex.Pattern[str]] = []
    for index, text in enumerate(texts):
        location = f"{where}:{_line_for(lines, (*key, index))}"
        try:
            pattern = regex.compile(text)
        except (regex.error, RecursionError, OverflowError, ValueError) as exc:
            # RecursionError: thousands of nested groups; the others are regex's own complaints
            problems.append(SignatureError(
                f"{'.'.join(key)}.{index}: invalid regex: {str(exc)[:160]}", location=location,
                hint="the pattern is a Python `regex`-module expression; escape ( ) [ ] . * + ?"))
            continue
        if probe and backtracks(pattern):
            problems.append(SignatureError(
                f"{'.'.join(key)}.{index}: pattern {text[:80]!r} takes over {PROBE_TIMEOUT}s on "
                "a 20 KB probe: catastrophic backtracking", location=location,
                hint="avoid nested quantifiers such as (a+)+ or (.*)*"))
            continue
        compiled.append(pattern)
    return tuple(compiled)


# Strings on which a sane pattern finishes at once and a catastrophic one does not.
_PROBES = ("a" * 20000 + "!", "a " * 10000 + "!", "1" * 20000 + "x", "/" * 20000 + "\n",
           "x" * 5000 + " " * 5000 + "y" * 5000, "Error: " * 3000)
PROBE_TIMEOUT = 0.25


def backtracks(pattern: regex.Pattern[str]) -> bool:
    """Whether a pattern backtracks catastrophically on one of a few probe strings.

    Each probe is tried alone and after the pattern's own literal start, so that
    `^RuntimeError: (\\w+\\s?)+$` reaches its bad group. A sane pattern finishes each probe in
    well under a millisecond (the shipped patterns take 50 ms together); a bad one costs
    PROBE_TIMEOUT once, here, instead of a timeout on every error of every log.
    """
    prefix = _literal_start(pattern.pattern)
    for probe in _PROBES:
        for text in ((probe, prefix + probe) if prefix else (probe,)):
            try:
                pattern.search(text, timeout=PROBE_TIMEOUT)
            except TimeoutError:
                return True
    return False


def _literal_start(text: str) -> str:
    """The fixed text a pattern starts with (`^Foo: (x+)+` -> `Foo: `), '' when unknown.

    Read with the standard library's regex parser; `regex`-only syntax simply gives ''.
    """
    from re import _parser

    try:
        parsed = _parser.parse(text)
    except Exception:  # noqa: BLE001 - any syntax the stdlib parser rejects: no prefix known
        return ""
    out: list[str] = []
    for op, value in parsed:
        name = str(op)
        if name == "AT":
            continue
        if name != "LITERAL":
            break
        out.append(chr(value))
    return "".join(out)


def _unknown_keys(error, key_path: tuple[str | int, ...], where: str,  # type: ignore[no-untyped-def]
                  lines: dict[KeyPath, int]) -> list[SignatureError]:
    """One problem per unknown key, at the key's own line, with the likeliest intended key."""
    known = list(error.schema.get("properties", {}))
    out: list[SignatureError] = []
    for key in error.instance:
        if key in known:
            continue
        field = ".".join(str(p) for p in (*key_path, key))
        close = difflib.get_close_matches(str(key), known, n=1)
        hint = f"did you mean '{close[0]}'?" if close else \
            f"known keys here: {', '.join(known)}; see signatures/README.md"
        out.append(SignatureError(f"{field}: unknown key",
                                  location=f"{where}:{_line_for(lines, (*key_path, key))}",
                                  hint=hint))
    return out


def _friendly(error) -> str:  # type: ignore[no-untyped-def]
    message = str(error.message)
    if error.validator == "additionalProperties":
        return message.replace("Additional properties are not allowed", "unknown key")
    if error.validator == "required":
        return message.replace("is a required property", "is required")
    if error.validator == "enum":
        return f"{error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
    if error.validator == "anyOf" and list(error.absolute_path) == ["match"]:
        return "needs at least one of `message` or `regex`"
    return message


def _hint(error) -> str | None:  # type: ignore[no-untyped-def]
    if error.validator == "additionalProperties":
        return "see signatures/README.md for the keys a signature may have"
    if error.validator == "pattern" and "id" in error.absolute_path:
        return "ids are lowercase words joined by hyphens, like cuda-fork-reinit"
    return None


def signature_files(directory: Path) -> list[Path]:
    """Every signature file under a directory: `<category>/<id>.yaml`, or `<id>.yaml` in a flat
    directory (one with no category folders: a contributor's few signatures, or one category
    folder named on its own)."""
    nested = sorted(p for p in directory.glob("*/*.yaml") if p.name not in NOT_SIGNATURES
                    and not p.parent.name.startswith(("_", ".")))
    if nested:
        return nested
    return sorted(p for p in directory.glob("*.yaml") if p.name not in NOT_SIGNATURES)


def _in_flat_directory(path: Path) -> bool:
    """A file of a flat directory (`<id>.yaml`: a contributor's few signatures): its category
    need not be its folder's name. A file is in a category folder (`<category>/<id>.yaml`)
    when its folder is named after a shipped category, or sits beside one that holds
    signatures (a new category of the shipped tree or of a copy laid out like it)."""
    known = _shipped_categories()
    folder = path.parent
    if folder.name in known:
        return False
    try:
        return not any(p.name in known and p.is_dir() and any(p.glob("*.yaml"))
                       for p in folder.parent.iterdir())
    except OSError:
        return True


@cache
def _shipped_categories() -> frozenset[str]:
    """The category folders of the shipped signatures."""
    root = data_dir("signatures")
    return frozenset(p.name for p in root.iterdir()
                     if p.is_dir() and not p.name.startswith(("_", ".")))


def load_directory(directory: Path, *, collect_errors: bool = False,
                   problems: list[SignatureError] | None = None) -> list[Signature]:
    """Load every signature of a directory. Broken files raise, or with `collect_errors`
    are skipped and their problems appended to `problems`. Outside the shipped directory a
    pattern that backtracks catastrophically makes its file broken too."""
    out: list[Signature] = []
    probe = not _is_shipped(directory)
    for path in signature_files(directory):
        found: list[SignatureError] = []
        signature = _load(path, found, probe=probe)
        if found:
            if not collect_errors:
                raise SignatureError(found[0].detail, location=found[0].location,
                                     hint=found[0].hint, problems=tuple(found))
            if problems is not None:
                problems.extend(found)
            continue
        if signature is not None:
            out.append(signature)
    return out


def _is_shipped(directory: Path) -> bool:
    try:
        return directory.resolve() == data_dir("signatures").resolve()
    except OSError:
        return False


def user_directories() -> list[Path]:
    """Signature directories named in LOGSLEUTH_SIGNATURES, in order."""
    raw = os.environ.get(ENV_VAR, "")
    return [Path(p) for p in raw.split(os.pathsep) if p.strip()]
