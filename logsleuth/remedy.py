"""The remedy an error message states itself, in any package's words.

vLLM's messages often end in their fix ("Try increasing `gpu_memory_utilization`"), and so do
those of transformers, torch, Triton and plugins ("Please load your current model with
`use_cache=False`", "pip install foo"). What reads as a remedy is data (`signatures/remedy.yaml`):
the words that open a remedy sentence, the phrases that make one wherever they stand, and the
sentences that only look like advice (a request for a bug report, a way to get more output).

A message that states no remedy may still name what to change in the words of its cause ("your
version of Transformers is out of date", "requires flashinfer>=0.2.3", "xformers 0.0.27 is not
supported"): remedy.yaml's `implies` rules turn that wording into the action, filled in with the
package, version and operator the message itself names (`advice_of`). A `package` is written as
its pip name: an import name whose distribution is called otherwise (`cv2`, `fastchat`, `yaml`)
is mapped by remedy.yaml's `pip_names`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import re2
import regex

from logsleuth.compiledcopy import kept
from logsleuth.errors import SignatureError
from logsleuth.locate import compile_bytes
from logsleuth.resources import data_dir
from logsleuth.yamlload import load_yaml

MAX_ADVICE_CHARS = 500
_SENTENCE_END = regex.compile(r"(?<=[.!?;])\s+|\s*\n+\s*")
# where a clause begins inside a sentence: after a comma, colon, dash or opening bracket
_CLAUSE = regex.compile(r"(?:[,:;(]|\s[-–—])\s*")
# the settings a remedy names: a flag, an environment variable, a `quoted` name, a snake_case
# name, `key=value`, and the package of `pip install x`
_KNOBS = regex.compile(r"--[a-z][a-z0-9-]+|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|`([^`\s]{2,60})`"
                       r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"
                       r"|(?:pip|conda|apt(?:-get)?) install (?:-\S+ )*['\"]?([\w.\[\],-]+)")


_PLACE = regex.compile(r"\{(\w+)\}")
MAX_IMPLIED = 2  # lines of implied advice: the first rules that match, in the file's order


@dataclass(frozen=True, slots=True)
class Implied:
    """One `implies` rule: a message's wording (`when`, named groups) and the action it implies
    (`then`, the groups' values in its `{name}`s)."""

    when: regex.Pattern[str]
    then: str
    # import name -> pip name, for a `package` group that captured a module (remedy.yaml
    # `pip_names`)
    pip_names: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def advice(self, message: str) -> str | None:
        found = self.when.search(message, timeout=0.05)
        if found is None:
            return None
        values = found.groupdict()

        def fill(place: regex.Match[str]) -> str:
            value = values.get(place.group(1))
            if value is None:
                return place.group(0)
            value = value.strip("`'\"")
            if place.group(1) != "package":
                return value
            return self.pip_names.get(value, self.pip_names.get(value.lower(), value.lower()))

        return _PLACE.sub(fill, self.then)


@dataclass(frozen=True, slots=True)
class RemedyPhrasing:
    """The compiled phrase lists of remedy.yaml."""

    opens: regex.Pattern[str]
    anywhere: regex.Pattern[str]
    not_opening: regex.Pattern[str]
    not_remedy: regex.Pattern[str]
    not_hint: regex.Pattern[str] | None = None  # warnings whose advice is about something else
    implies: tuple[Implied, ...] = ()  # the action a cause's wording implies
    crossing: regex.Pattern[str] | None = None  # a call that did not fit, between two packages
    forwarding: frozenset[str] = frozenset()  # functions that only pass a call on
    # Python's words for a call's arguments that did not fit (`call_arguments`): parameters
    call_arguments: regex.Pattern[str] | None = None

    def without_call_arguments(self, message: str) -> str:
        """The message with the spans that name a call's arguments blanked (`call_arguments`):
        `f() got an unexpected keyword argument 'max_num_batched_tokens'` names a parameter of
        `f`, not the setting spelled the same."""
        if self.call_arguments is None:
            return message
        return self.call_arguments.sub(lambda m: " " * len(m.group()), message)

    def implied_by(self, message: str) -> str | None:
        """The actions the message's wording implies (remedy.yaml `implies`), or None."""
        lines: list[str] = []
        for rule in self.implies:
            try:
                line = rule.advice(message)
            except TimeoutError:
                continue
            if line is not None and line not in lines:
                lines.append(line)
            if len(lines) == MAX_IMPLIED:
                break
        return " ".join(lines) or None

    def advice_of(self, message: str) -> str | None:
        """The remedy the message states, then what its wording implies that the stated remedy
        does not already name (a remedy of `Use repo_type if needed` does not hide that the
        message named a package as too old)."""
        stated = self.remedy_of(message)
        implied = self.implied_by(message)
        if implied is None:
            return stated
        if stated is None:
            return implied
        named = knobs(implied)
        if named and all(regex.search(rf"(?<![\w-]){regex.escape(k)}(?![\w-])", stated)
                         for k in named):
            return stated
        return f"{stated} {implied}"

    def hint_of(self, warning: str) -> str | None:
        """The remedy a warning states, unless the warning advises about something else (a
        deprecation, a future change, performance): `not_hint`."""
        if self.not_hint is not None and self.not_hint.search(warning):
            return None
        return self.remedy_of(warning)

    def remedy_of(self, message: str) -> str | None:
        """The message's advice: from the first sentence (or clause) that states a remedy to
        the end, without the sentences that only ask for a report or more output; None when
        no sentence states one. A message of one sentence is the problem, not its fix, unless a
        phrase that is advice wherever it stands is in it ("..., please set X")."""
        sentences = [s.strip() for s in _SENTENCE_END.split(message) if s.strip()]
        for i, sentence in enumerate(sentences):
            if self.not_remedy.search(sentence):
                continue
            start = self._start(sentence, opening=len(sentences) > 1)
            if start is None:
                continue
            rest = [s for s in sentences[i + 1:] if not self.not_remedy.search(s)]
            text = " ".join([sentence[start:], *rest])
            return text if len(text) <= MAX_ADVICE_CHARS else \
                text[:MAX_ADVICE_CHARS - 3].rstrip() + "..."
        return None

    def _start(self, sentence: str, *, opening: bool) -> int | None:
        """Where in the sentence its remedy starts, or None."""
        bare = sentence.lstrip("(`'\"*-> ")
        if opening and self.opens.match(bare) and not self.not_opening.match(bare):
            return len(sentence) - len(bare)
        found = self.anywhere.search(sentence)
        if found is None:
            return None
        clauses = [m.end() for m in _CLAUSE.finditer(sentence, 0, found.start())]
        return clauses[-1] if clauses else 0


def knobs(text: str) -> tuple[str, ...]:
    """The settings a remedy names (flags, variables, quoted names, packages to install)."""
    out: list[str] = []
    for found in _KNOBS.finditer(text):
        package = found.group(2)
        # a package keeps its extras (`vllm[grpc]` is not `vllm`); a setting loses its value
        knob = package if package else (found.group(1) or found.group(0)).split("=", 1)[0]
        if knob and knob not in out:
            out.append(knob)
    return tuple(out)


def _words(items: object, key: str, path: Path) -> regex.Pattern[str]:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items) or not items:
        raise SignatureError(f"`{key}` must be a list of patterns", location=str(path))
    try:
        return regex.compile(r"(?i)(?:" + "|".join(f"(?:{i})" for i in items) + r")\b")
    except regex.error as exc:
        raise SignatureError(f"invalid pattern in `{key}`: {exc}", location=str(path)) from None


def load_phrasing(path: Path | None = None) -> RemedyPhrasing:
    """Compile a remedy phrasing file (the shipped `signatures/remedy.yaml` by default)."""
    path = path or data_dir("signatures") / "remedy.yaml"
    data, _ = load_yaml(path)
    if not isinstance(data, dict):
        raise SignatureError("expected a mapping", location=str(path))
    unknown = set(data) - {"opens", "anywhere", "not_opening", "not_remedy", "not_hint",
                           "implies", "pip_names", "crossing", "forwarding", "call_arguments"}
    if unknown:
        raise SignatureError(f"unknown keys: {', '.join(sorted(unknown))}", location=str(path))
    anywhere = _words(data.get("anywhere"), "anywhere", path)
    return RemedyPhrasing(_words(data.get("opens"), "opens", path),
                          regex.compile(r"(?i)\b" + anywhere.pattern[4:]),
                          _words(data.get("not_opening"), "not_opening", path),
                          _words(data.get("not_remedy"), "not_remedy", path),
                          _words(data["not_hint"], "not_hint", path) if "not_hint" in data
                          else None, _implies(data.get("implies", []), path,
                                              _pip_names(data.get("pip_names", {}), path)),
                          _patterns(data["crossing"], "crossing", path) if "crossing" in data
                          else None, _names(data.get("forwarding", []), "forwarding", path),
                          _patterns(data["call_arguments"], "call_arguments", path)
                          if "call_arguments" in data else None)


def _patterns(items: object, key: str, path: Path) -> regex.Pattern[str]:
    """Patterns matched as written (anchored where they say), any of them."""
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items) or not items:
        raise SignatureError(f"`{key}` must be a list of patterns", location=str(path))
    try:
        return regex.compile("|".join(f"(?:{i})" for i in items))
    except regex.error as exc:
        raise SignatureError(f"invalid pattern in `{key}`: {exc}", location=str(path)) from None


def _names(items: object, key: str, path: Path) -> frozenset[str]:
    """Plain names (function names), compared as written."""
    if not isinstance(items, list) or not all(isinstance(i, str) and i.isidentifier()
                                                for i in items):
        raise SignatureError(f"`{key}` must be a list of Python names", location=str(path))
    return frozenset(items)


def _pip_names(items: object, path: Path) -> dict[str, str]:
    """Import names and the pip names of the distributions that provide them."""
    if not isinstance(items, dict) or not all(
            isinstance(k, str) and k.isidentifier() and isinstance(v, str)
            and regex.fullmatch(r"[A-Za-z0-9][\w.\-]*", v) for k, v in items.items()):
        raise SignatureError("`pip_names` must map import names to pip names",
                             location=str(path))
    return {k: v.lower() for k, v in items.items()}


def _implies(items: object, path: Path, pip_names: Mapping[str, str] | None = None
             ) -> tuple[Implied, ...]:
    if not isinstance(items, list):
        raise SignatureError("`implies` must be a list of {when, then}", location=str(path))
    rules = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or set(item) != {"when", "then"} \
                or not all(isinstance(v, str) and v for v in item.values()):
            raise SignatureError(f"`implies` entry {i + 1} must have exactly `when` and `then`",
                                 location=str(path))
        try:
            when = regex.compile(r"(?i)" + item["when"])
        except regex.error as exc:
            raise SignatureError(f"invalid pattern in `implies` entry {i + 1}: {exc}",
                                 location=str(path)) from None
        missing = set(_PLACE.findall(item["then"])) - set(when.groupindex)
        if missing:
            raise SignatureError(f"`implies` entry {i + 1}: `then` names {', '.join(sorted(missing))}"
                                 f", which `when` does not capture", location=str(path))
        rules.append(Implied(when, item["then"], pip_names or {}))
    return tuple(rules)


# A warning record's level as the grammar reads it (`WARNING 12-04 ...`, `WARNING:root:`, `[WARN]`)
_WARNING_MARK = "WARN"
# where a sentence after the first begins, and where the first (the record's message, after its
# header) does: a first sentence is advice by its opening word only when another follows it
_SENTENCE = r"[.!?;][ \t]+"  # a line break ends the line: no sentence of it
_MESSAGE = r"[\]:][ \t]*"


def warning_anchor(path: Path | None = None) -> str:
    """An RE2 pattern for the lines, of all those a log holds, that may be a warning stating a
    remedy (an error's hint: hint.py), from the phrasing file: a warning mark, then a phrase
    that is a remedy wherever it stands, or a sentence that opens with a remedy word (the
    message's first only when another follows, as `remedy_of` reads it). A superset:
    the assembler asks `hint_of` of the lines it finds; lines no other anchor takes reach the
    grammar only when they are warnings in remedy words (tests/test_anchors.py: the share)."""
    path = path or data_dir("signatures") / "remedy.yaml"
    data, _ = load_yaml(path)
    if not isinstance(data, dict):
        raise SignatureError("expected a mapping", location=str(path))
    anywhere = "|".join(f"(?:{i})" for i in data.get("anywhere") or ())
    opens = "|".join(f"(?:{i})" for i in data.get("opens") or ())
    anchor = (rf"{_WARNING_MARK}[^\n]*(?i:\b(?:{anywhere})\b|{_SENTENCE}(?:{opens})\b"
              rf"|{_MESSAGE}(?:{opens})\b[^\n]*{_SENTENCE}\S)")
    try:  # the locating stage runs it with RE2, which has no look-around or back-reference
        compile_bytes(anchor)
    except re2.error as exc:
        raise SignatureError(f"`opens` or `anywhere` is not an RE2 pattern (the warning anchor): "
                             f"{exc}", location=str(path)) from None
    return anchor


@cache
def default_phrasing() -> RemedyPhrasing:
    """The shipped phrasing, loaded once: from its compiled copy when one was kept for these
    bytes of remedy.yaml and this code (compiledcopy.py), else compiled and kept."""
    return kept("remedy", data_dir("signatures") / "remedy.yaml", (Path(__file__),),
                load_phrasing, RemedyPhrasing)


def remedy_of(message: str) -> str | None:
    """The remedy a message states, by the shipped phrasing (RemedyPhrasing.remedy_of)."""
    return default_phrasing().remedy_of(message)


def advice_of(message: str) -> str | None:
    """The remedy a message states or its wording implies (RemedyPhrasing.advice_of)."""
    return default_phrasing().advice_of(message)
