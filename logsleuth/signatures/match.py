"""Score every signature against a failure; rank them.

A signature's score for one error is its message score (template or regex, in [0, 1]) times a
factor for each other part it names. The parts beside the message weigh, they do not gate: the
same message from another call path, process or phase still matches, a little lower. The one
exception is asked for by name: `match.require` makes frames or the raising module a gate for a
signature whose words are the interpreter's and whose fix holds on one call path only (a plugin
importing a missing package through vLLM's plugin loader); a log that does not show that part,
seen to differ or not printed at all, gets no match from it.

| part       | matches            | otherwise                                   |
|------------|--------------------|---------------------------------------------|
| exception  | 1.0 (0.9 wrapped)  | 0.7; 0.9 when the type is not known (an     |
|            |                    | ERROR record, a cut traceback)              |
| frames     | 1.0                | 0.8, or 0.9 when the error shows no frames; |
|            |                    | no match when `match.require` names frames  |
| process    | 1.0                | 0.85                                        |
| phase      | 1.0                | 0.85, or 0.95 when the phase is not known   |
| module     | 1.0                | 0.85, or 0.9 when no vLLM module is known;  |
|            |                    | no match when `match.require` names module  |
| keywords   | 1.0                | 0.55: the message holds none of the words   |
|            |                    | of the class (another failure of the module)|
| facts      | 1.0 (0.9 unknown;  | no match: the fix does not apply there;     |
|            | no match when a    | a soft `?expr` condition weighs 0.95        |
|            | `+expr` is unknown)|                                             |

An exact signature whose matched text is generic (signatures/generic.py: it could come from any
call path) and that names frames, a module, a phase or a deployment fact of which none is seen
is multiplied by GENERIC_UNCORROBORATED: below THRESHOLD, an alternative only, so the family of
the class or of the raising module gives the advice.

The module is the vLLM module that raises or logs the error: where vLLM's message index files
the message, else the innermost traceback frame when it is vLLM's. When vLLM did not raise it,
a family with no message part may name the installed library that did (transformers, ray): the
innermost frame inside site-packages. A family that names only a
module (no message, no regex) is matched by it with the message score MODULE_ONLY: weaker than
any message or regex, so every signature that knows the message's words ranks above it.

The error's weight is 1.0 for the root cause, 0.9 for an exception raised from it, 0.75 for a
symptom when the root cause is not in the log, and 0.5 for a symptom beside a known root cause.
A signature is reported when its score reaches THRESHOLD.

The root cause and the errors raised from it. An error raised from the root (`raise X(...) from
e`, read from `The above exception was the direct cause ...`) is the root's failure restated by
its caller: its words are evidence of the failure, one step removed, and its weight (0.9) decides
only where the tier and the kind below do not. So an exact signature that the root fits in full
(its words matched, nothing it names contradicted or unconfirmed) ranks before every family
matched on the chain (both in the first tier; the kind decides), and a family's words on the root
before a family's words on the chain (the weight decides); an exact signature's words on the chain
rank before a family's words on the root (the kind), and a family's words on the chain before a
family that knows the root by its raising module alone (words say what failed, a module only
where; the families of an installed library's errors are below both). Which lines the chain's
message holds is therefore the assembler's to get right, whatever wraps the log: session 27's
docker-timestamped structured-output log read torch_npu's exit record and xgrammar's leak report
after the chain as its message, and the backend family's words in them outranked the raising
module's family on the root (assemble.py, `LogLine.relayed`; tests/test_rank_root_and_chain.py).

Ranking, among the signatures that reach THRESHOLD, first by tiers of evidence (`_Scored.tier`):
signatures whose message part (a template or regex) matched and that the log does not contradict
(a frame, process, phase or exception type that was seen and differs is a contradiction); exact
signatures whose words matched in full that the log contradicts by other than the call path
(another exception class, process or phase); families matched by the raising module alone (the
fallback for vLLM's messages no signature knows by their words, with the families whose words
are the interpreter's own, `match.origin: python`, and whose module part names the whole package:
they know only that vLLM raised it) and, among them, exact signatures whose words matched in full
from another call path (frames or raising module seen to differ): a module pattern that names a
subsystem and those exact signatures first, by score (frames renamed by a refactoring weigh 0.8,
above a module's 0.75; another call path and another raising module, 0.68, below it), then a
module pattern of the whole package, whatever the score (an exact message says more than that
vLLM raised it); words the log contradicts that say no more than a
family's (a family's, an exact template matched only in part, generic words); module families the
log contradicts; last, families known by the installed library that raised the error
(`_Scored.by_library`). Within a tier: those not demoted (a signature that tells its failure
apart by frames or phase, on a log that prints no frames or no phase, ranks after a fitting
family whose message part is at least as specific as its own), then, for what the log does not
contradict, the stronger kind (an exact signature before a family: `SignatureKind.strength`; once
the log contradicts both, the kind says nothing of which fits), then the score, then the evidence
(how many parts matched: phase, frames, facts, exception, and the fixed text of the message). So
a family that fits beats an exact signature whose frames say another call path, an exact
signature that fits beats the family that contains it, an exact signature that holds all its
words beats one that holds some of them, and no family known by its module alone beats a
signature that knows the message unless the log says that signature's call path is not this one
and the subsystem's family scores higher.
Below THRESHOLD, alternatives are ranked by score and evidence. Never by id or name: a full tie
keeps the order of the database. tools/rank_probe tabulates what each part of this order decides.

A family under THRESHOLD still answers (`_Scored.near`, low confidence: `Match.confidence`) when
it matched the root cause or an error raised from it by the message's words, or by the raising
module when that module pattern names a subsystem rather than the whole package, and scores at
least NEAR_FLOOR (another exception class, phase or call path than it names): it knows more than
a fallback keyed by the class. One that knows the words ranks after every signature that reaches
THRESHOLD and before the fallbacks; one that knows the subsystem alone, among the fallbacks after
those that matched the message's words. So no failure whose class a family covers in part goes
with the fallback's general steps, and exact beats family beats fallback.

Fallbacks (`kind: fallback`, signatures/fallback/) are the last resort for a root cause that
nothing else knows: matched on the root cause and the errors raised from it, never on a symptom;
ranked in FALLBACK_TIER, below every other tier; among themselves one whose regex matched the
message's words before one that matched the exception class alone, then the narrowest; never
listed as an alternative. A fix may quote its regex's named groups (`{path}`, `_quoting`).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import regex

from logsleuth.knowledge import Causality, default_causality
from logsleuth.model import (MATCH_THRESHOLD, ErrorEvent, EventKind, Evidence, LineKind, Match,
                             PhaseEvidence, SignatureKind)
from logsleuth.signatures.generic import generic_reason, vllm_spread
from logsleuth.signatures.load import MessageOrigin, Required, Signature
from logsleuth.signatures.needle import lowered_if_ascii, needle_set
from logsleuth.signatures.template import PATTERN_TIMEOUT, mask, message_words

THRESHOLD = MATCH_THRESHOLD
FRAMES_MISSED = 0.8  # another call path: weighs, does not gate
FRAMES_UNKNOWN = 0.9
PROCESS_MISSED = 0.85
PHASE_MISSED = 0.85
PHASE_UNKNOWN = 0.95
EXCEPTION_MISSED = 0.7
MODULE_MISSED = 0.85
MODULE_UNKNOWN = 0.9
# `match.keywords` named and none of them in the message: the module raised another failure than
# the class the fix is for (a scheduler's bookkeeping error in the KV-cache manager's package, a
# logits processor's state error beside the sampler's index errors). Low enough that a module
# family (MODULE_ONLY) falls under NEAR_FLOOR and answers for nothing: where is not what.
KEYWORDS_MISSED = 0.55
# A module alone says where, not what: below a template or regex (1.0), and low enough that a
# symptom (x0.75) or a wrong exception type (x0.7) falls under THRESHOLD.
MODULE_ONLY = 0.75
ROOT_WEIGHT = 1.0
CHAIN_WEIGHT = 0.9  # an exception raised from the root cause (`raise X(...) from e`)
SYMPTOM_WEIGHT = 0.75  # when the root cause is not in the log, the symptoms are all there is
SYMPTOM_WEIGHT_BESIDE_ROOT = 0.5  # below THRESHOLD: a known root cause is not fixed by its
                                  # symptom's fix, so those matches only appear as alternatives
# An exact signature whose message is generic (signatures/generic.py: the text could come from
# any call path) and that nothing else of the log corroborates (no frame, raising module, phase
# or known fact it names): its fix is for another failure as often as not. Below THRESHOLD, so
# it is only an alternative, and the family of the class (by words or by the raising module)
# gives the advice.
GENERIC_UNCORROBORATED = 0.5
VERSION_FACTS = frozenset({"vllm_version", "torch_version", "cuda_version", "driver_version"})
MAX_ALTERNATIVES = 4
# the tier of a fallback family (`kind: fallback`, signatures/fallback/): below every tier an
# exact signature or a family can reach, so it answers only when nothing else does
FALLBACK_TIER = 8
ALTERNATIVE_FLOOR = 0.3
# A family that knows the root cause by its words or by the vLLM subsystem that raised it, but
# scores under THRESHOLD for what else the log shows (another exception class, phase or call
# path), still knows more than a fallback keyed by the class alone: it answers, after every
# signature that reaches THRESHOLD (NEAR_TIER when its words matched; by the subsystem alone,
# among the fallbacks after those that know the message's words), and its score below
# THRESHOLD says the confidence is low. NEAR_FLOOR: a narrow module with another exception
# class (MODULE_ONLY x EXCEPTION_MISSED) reaches it; a symptom's match (x0.5) does not.
NEAR_TIER = 7
NEAR_FLOOR = 0.45
MODULE_TIER = 2  # families known by the module that raised the error, not by its words


@dataclass(frozen=True, slots=True)
class Target:
    """An error to score against, with its weight and what it is to the failure."""

    event: ErrorEvent
    weight: float
    kind: str  # root_cause | chain | symptom


@dataclass(frozen=True, slots=True)
class _Scored:
    match: Match
    specificity: float  # the evidence: fixed message text, plus each part that matched
    contradicted: bool  # a part the signature names was seen and differs
    unconfirmed: bool  # frames or phase it names could not be checked (not printed, not known)
    strength: int  # SignatureKind.strength
    message_specificity: float  # the fixed text of the message part alone
    demoted: bool = False  # unconfirmed, and its message says no more than a family's
    by_module: bool = False  # matched by its raising module alone: no message words known
    by_library: bool = False  # ... and that module is an installed library's, not vLLM's
    words: bool = True  # its message part matched the message's words, not the type alone
    narrow: bool = False  # matched by a raising module inside a subsystem, not the whole package
    # a family whose words are the interpreter's (`match.origin: python`: `'NoneType' object is not
    # callable`) and whose module part names the whole package: it says only that vLLM raised
    # it, no more than a module family of the whole package
    where_only: bool = False
    # its matched words could come from anywhere (signatures/generic.py) and nothing else it
    # names was seen: contradicted as well, it knows less than where the error was raised
    generic: bool = False
    # the frames or the raising module it names were seen and differ: another call path
    off_path: bool = False
    # its message part matched only in part (a template's similarity under 1.0): some of the
    # words it requires are not in the message
    approximate: bool = False

    def order(self) -> tuple[float, ...]:
        """Sort key, best first (see the module docstring)."""
        if self.near():
            if self.by_module:
                # where, not what: after a fallback that knows the message's words (a call's
                # signature mismatch, NCCL), before one that knows the class alone
                return (0, FALLBACK_TIER, 0.5, 0, -self.specificity, -self.match.score)
            return (0, NEAR_TIER, 0, 0, -self.match.score, -self.specificity)
        if self.match.score >= THRESHOLD:
            if self.strength == SignatureKind.FALLBACK.strength:
                # among the last resorts, one that knows the message's words (NCCL, `No such
                # file`) before one that knows the type alone, then the narrowest class
                return (0, FALLBACK_TIER, not self.words, 0, -self.specificity,
                        -self.match.score)
            tier = self.tier()
            # among the matches known by where they were raised, the subsystem the frames name
            # and an exact signature's words from another call path before the whole package,
            # whatever the score: they weigh, they do not gate
            within = 0 if tier != MODULE_TIER or self.narrow or self.off_path_exact() else 1
            # once the log contradicts a match, its kind says nothing of whether it fits: among
            # contradicted words (tier 3: an exact signature's in part or generic, a family's
            # keywords) and between an exact signature's words from another call path and the
            # subsystem that raised the error, the score decides before the kind
            strength = 0 if self.contradicted or tier == MODULE_TIER else -self.strength
            return (0, tier, self.demoted, within, strength, -self.match.score,
                    -self.specificity)
        return (1, 0, 0, 0, -self.match.score, -self.specificity)

    def near(self) -> bool:
        """A family under THRESHOLD that still knows the root cause (or an error raised from
        it) by more than its class: the message's words, or the subsystem that raised it."""
        return (self.strength == SignatureKind.FAMILY.strength
                and NEAR_FLOOR <= self.match.score < THRESHOLD
                and self.match.target in ("root_cause", "chain") and not self.by_library
                and (self.narrow if self.by_module else self.words))

    def vacuous(self) -> bool:
        """Matched under THRESHOLD by a module pattern that names the whole package: it says
        nothing an alternative needs to say."""
        return self.by_module and not self.narrow and self.match.score < THRESHOLD

    def answers(self) -> bool:
        """Whether this match may be the report's advice: it reaches THRESHOLD, or it is a
        family near it (`near`)."""
        return self.match.score >= THRESHOLD or self.near()

    def tier(self) -> int:
        """How far the log's evidence backs this match, 0 best: what the message's words say
        (not contradicted), an exact signature's full words against another exception class,
        process or phase, the raising module alone (and an exact signature's full words from
        another call path), a family's keywords or an exact template's partial words against
        what the log shows, a module match the log contradicts, and last an installed library's
        module (contradicted or not). A family's key words that the log contradicts (another
        phase, type or call path) say less than the module that raised the error; an exact
        message does not."""
        if self.by_library:  # where outside vLLM, not what: below every other kind of match
            return 6 if self.contradicted else 5
        if self.by_module or self.where_only:
            return 4 if self.contradicted else MODULE_TIER
        if not self.contradicted:
            return 0
        if self.generic:
            return 3  # an interpreter's words from another call path: below where it was raised
        if self.strength != SignatureKind.EXACT.strength or self.approximate:
            # an exact message the log contradicts that matched only in part says no more
            # than a family's contradicted words: the words it requires are not all there
            return 3
        # an exact signature's words from another call path (frames, raising module seen to
        # differ): with the fitting module families, weighed against the subsystem's (`order`)
        return MODULE_TIER if self.off_path else 1

    def off_path_exact(self) -> bool:
        """An exact signature whose words matched in full, from another call path than it
        names."""
        return self.strength == SignatureKind.EXACT.strength and self.off_path \
            and not self.by_module and not self.where_only and not self.generic \
            and not self.approximate


class SignatureSet:
    """An ordered collection of signatures; later directories override earlier ids."""

    def __init__(self, signatures: Iterable[Signature], causality: Causality | None = None,
                 notices: Iterable[str] = ()):
        by_id: dict[str, Signature] = {}
        for signature in signatures:
            by_id[signature.id] = signature
        self.signatures: tuple[Signature, ...] = tuple(by_id.values())
        self.notices: tuple[str, ...] = tuple(notices)
        self._causality = causality or default_causality()
        self._declaring = tuple(s for s in self.signatures if s.kind is SignatureKind.FAMILY
                                and s.origin in (MessageOrigin.PYTHON, MessageOrigin.TORCH)
                                and (s.templates or s.patterns))
        self._screen: _Screen | None = None  # built when first asked (rank)

    def __len__(self) -> int:
        return len(self.signatures)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.signatures)

    def get(self, signature_id: str) -> Signature | None:
        return next((s for s in self.signatures if s.id == signature_id), None)

    def rank(self, targets: Iterable[Target], facts: Mapping[str, object],
             phase: PhaseEvidence | None = None) -> list[Match]:
        """Every signature that scores at least ALTERNATIVE_FLOOR, best first."""
        return [s.match for s in self._ranked(targets, facts, phase)]

    def _ranked(self, targets: Iterable[Target], facts: Mapping[str, object],
                phase: PhaseEvidence | None = None) -> list[_Scored]:
        targets = list(targets)
        if self._screen is None:
            self._screen = _Screen(self.signatures)
        screen = self._screen
        modules = {id(t): _raising_modules(t.event, self._causality) if screen.modules
                   else ((), ()) for t in targets}
        prepared = [(t, text, mask(text), lowered_if_ascii(text))
                    for t in targets for text in _readings(t.event, self._causality)]
        spreads: dict[int, int | None] = {}  # vllm_spread of a target, once asked for
        classes = self._class_families(prepared)
        # which signatures each reading may give a message score (the rest score None)
        possible = [screen.possible(text, masked, lowered) for _, text, masked, lowered in prepared]
        scored: list[_Scored] = []
        for index in sorted(frozenset().union(*possible)):  # in the database's order
            signature = self.signatures[index]
            best: _Scored | None = None
            fallback = signature.kind is SignatureKind.FALLBACK
            for (target, text, masked, lowered), allowed in zip(prepared, possible):
                if index not in allowed:
                    continue  # no template, regex or module part of it can match this reading
                if fallback and target.kind == "symptom":
                    continue  # a class's last resort is advice for a root cause, not a pointer
                found = self._score(signature, target, text, masked, facts, phase,
                                    *modules[id(target)], spreads=spreads,
                                    class_family=classes.get(id(target)), lowered=lowered)
                if found is not None and (best is None or found.order() < best.order()):
                    best = found
            if best is not None and best.match.score >= ALTERNATIVE_FLOOR:
                scored.append(best)
        scored = _demote_unconfirmed(scored)
        if any(s.where_only for s in scored):
            # the words are the interpreter's (a `match.origin: python` family knows them): an
            # exact signature for them that the log contradicts knows less than where they were
            # raised (a loader's `'NoneType' object is not iterable` is no runner's M-RoPE bug)
            scored = [replace(s, generic=True) if s.contradicted and not s.where_only
                      and s.strength == SignatureKind.EXACT.strength else s for s in scored]
        scored.sort(key=_Scored.order)  # stable: a full tie keeps the database's order
        return scored

    def best(self, targets: Iterable[Target], facts: Mapping[str, object],
             phase: PhaseEvidence | None = None) -> tuple[Match | None, tuple[Match, ...]]:
        """The best match (None below THRESHOLD) and the ranked alternatives."""
        scored = self._ranked(targets, facts, phase)
        # a fallback is the last resort: an alternative to nothing, so never listed as one; nor
        # is a family of the whole package under THRESHOLD (`^vllm\.` with another exception
        # class): it would fit any error of vLLM, and crowds out alternatives that say more
        rest = [s.match for s in scored if s.strength != SignatureKind.FALLBACK.strength
                and not s.vacuous()]
        if scored and scored[0].answers():
            return scored[0].match, tuple(m for m in rest if m is not scored[0].match
                                          )[:MAX_ALTERNATIVES]
        return None, tuple(rest[:MAX_ALTERNATIVES])

    def class_family(self, texts: Iterable[str]) -> str | None:
        """The first family declaring the interpreter's or torch's own messages (`match.origin:
        python | torch`) whose message part matches one of the texts (signatures/generic.py)."""
        for text in texts:
            masked = mask(text)
            for family in self._declaring:
                if _words_hit(family, text, masked):
                    return family.id
        return None

    def _class_families(self, prepared: list[tuple[Target, str, str, str | None]]
                        ) -> dict[int, str]:
        out: dict[int, str] = {}
        for target, text, _, _ in prepared:
            if id(target) not in out:
                found = self.class_family([text])
                if found is not None:
                    out[id(target)] = found
        return out

    def _score(self, signature: Signature, target: Target, text: str, masked: str,
               facts: Mapping[str, object], phase: PhaseEvidence | None,
               modules: tuple[str, ...] = (), libraries: tuple[str, ...] = (),
               spreads: dict[int, int | None] | None = None,
               class_family: str | None = None, lowered: str | None = None) -> _Scored | None:
        evidence: list[Evidence] = []
        message_score, specificity = 0.0, 0.0
        part, regex_part = "", False
        named: dict[str, str | None] = {}  # a regex's named groups, which a fix may quote
        words = True
        for template in signature.templates:
            score = template.score(text, masked)
            if score > message_score:
                message_score, specificity = score, float(template.literal_chars)
                part, regex_part = template.text, False
                detail = f"template {'matched' if score == 1.0 else f'{score:.2f} similar'}: " \
                         f"{template.text[:80]}"
        needles = signature.needles or (None,) * len(signature.patterns)
        for pattern, needle in zip(signature.patterns, needles):
            if needle is not None and needle.absent(text, lowered):
                continue  # no match can lack its literal (needle.py)
            try:
                hit = pattern.search(text, timeout=PATTERN_TIMEOUT)
            except TimeoutError:
                hit = None
            if not hit:
                continue
            fixed = _fixed_length(pattern.pattern)
            if message_score < 1.0 or fixed > specificity:
                message_score, specificity = 1.0, float(fixed)
                part, regex_part = pattern.pattern, True
                detail = f"regex matched: {hit.group(0)[:80]}"
                named = hit.groupdict()
                # a hit that ends inside `Type` (`^RuntimeError\b`) knows the class alone
                words = hit.end() > len(target.event.exception) + 1
        module_hit, module_fixed = _module_hit(signature.modules, modules)
        by_library = False
        if not signature.templates and not signature.patterns and module_hit is None:
            # a family of an installed library's errors: known by the module that raised it
            module_hit, module_fixed = _module_hit(signature.modules, libraries)
            by_library = module_hit is not None
        if not signature.templates and not signature.patterns and module_hit is not None:
            # the longer the module pattern, the narrower the subsystem it names
            message_score, specificity = MODULE_ONLY, float(module_fixed)
            detail = f"raised in {module_hit}"
        if message_score == 0.0:
            return None
        evidence.append(Evidence("message", message_score, detail))
        score = message_score
        message_specificity = specificity

        contradicted = unconfirmed = corroborated = off_path = False
        if signature.modules and (signature.templates or signature.patterns):
            if module_hit is not None:
                evidence.append(Evidence("module", 1.0, module_hit))
                specificity += 10
                corroborated = True
            elif Required.MODULE in signature.required:
                return None  # `match.require`: the raising module is the claim, not a weight
            elif signature.origin is MessageOrigin.PYTHON and _raised_outside_vllm(target.event):
                # the interpreter's own words say nothing of who raised them, the module part
                # is the whole claim: a library's or the user's frame innermost refutes it
                # (vllm issue 12168's TypeError inside transformers' audio processor)
                return None
            else:
                factor = MODULE_MISSED if modules else MODULE_UNKNOWN
                evidence.append(Evidence("module", factor, ", ".join(modules) or
                                         "no vLLM module known"))
                score *= factor
                contradicted |= bool(modules)
                off_path |= bool(modules)
        if signature.keywords:
            # the reading without its `Type:` (an IndexError's class name says "index")
            head = f"{target.event.exception}:"
            said = _keyword(signature.keywords, text[len(head):] if text.startswith(head)
                            else text)
            if said is not None:
                evidence.append(Evidence("keywords", 1.0, said))
                specificity += 10
            else:
                evidence.append(Evidence("keywords", KEYWORDS_MISSED,
                                         "none of the class's words in the message"))
                score *= KEYWORDS_MISSED
                contradicted = True
        if signature.exceptions:
            factor = _exception_factor(signature.exceptions, target.event, self._causality)
            if factor == EXCEPTION_MISSED \
                    and self._causality.wrapped_cause(target.event.message) is not None:
                # a wrapper that quotes its cause's str(e) alone (causality.yaml `wrappers`,
                # `Worker failed with error '...'`): the cause's class was not printed
                factor = 0.9
            evidence.append(Evidence("exception", factor, f"{target.event.exception}"))
            score *= factor
            specificity += 10 * (factor == 1.0)
            contradicted |= factor == EXCEPTION_MISSED
        if signature.frames:
            where = [f"{f.file}:{f.function}" for f in target.event.frames]
            if target.event.title:  # `Exception in worker ... while processing method load_model`
                where.append(target.event.title)
            hit_frame = _first_hit(signature.frames, where)
            if hit_frame is not None:
                evidence.append(Evidence("frames", 1.0, hit_frame))
                specificity += 20
                corroborated = True
            elif Required.FRAMES in signature.required:
                # `match.require`: the words alone say nothing of the call path its fix holds on
                # (the interpreter's `No module named X` from a bare `python -c`, not the loader)
                return None
            else:
                # a traceback cut before its exception line shows only its outer frames: the
                # inner ones a signature names were not printed, not seen to differ
                seen = bool(where) and not target.event.tailless
                factor = FRAMES_MISSED if seen else FRAMES_UNKNOWN
                evidence.append(Evidence("frames", factor,
                                         "no frame matched" if seen else
                                         "inner frames cut" if where else "no frames printed"))
                score *= factor
                contradicted |= seen
                off_path |= seen
                unconfirmed |= not seen
        if signature.process is not None:
            role = self._causality.role_of(target.event.process.name)
            factor = 1.0 if role is signature.process else PROCESS_MISSED
            evidence.append(Evidence("process", factor, target.event.process.name))
            score *= factor
            contradicted |= factor != 1.0
        if signature.phases:
            if phase is None:
                factor, detail = PHASE_UNKNOWN, "phase not known"
                unconfirmed = True
            elif phase.phase in signature.phases:
                factor, detail = 1.0, f"{phase.phase.value} ({phase.source}: {phase.detail})"
                specificity += 15
                corroborated = True
            else:
                factor, detail = PHASE_MISSED, f"{phase.phase.value}, not " \
                    f"{'|'.join(p.value for p in signature.phases)} ({phase.source}: {phase.detail})"
                contradicted = True
            evidence.append(Evidence("phase", factor, detail))
            score *= factor
        for condition in signature.facts:
            verdict = judge_fact(condition.name, condition.expression, facts)
            if verdict.factor == 0.0:
                return None  # a hard condition that does not hold: the fix does not apply here
            evidence.append(Evidence("facts", verdict.factor, verdict.detail))
            score *= verdict.factor
            specificity += 10 * (verdict.factor == 1.0 and verdict.known)
            # a release range says when a fix applies, not that the failure is this one
            corroborated |= verdict.factor == 1.0 and verdict.known \
                and condition.name not in VERSION_FACTS
        generic = None
        if part and not corroborated and needs_corroboration(signature):
            if spreads is None:
                spreads = {}
            if id(target) not in spreads:
                spreads[id(target)] = vllm_spread(target.event)
            generic = generic_reason(spreads[id(target)], part, target.event.exception,
                                     regex=regex_part, class_family=class_family)
        if generic is not None:
            evidence.append(Evidence("corroboration", GENERIC_UNCORROBORATED,
                                     f"generic message ({generic}); none of the frames, module, "
                                     "phase or facts it names seen"))
            score *= GENERIC_UNCORROBORATED
        score *= target.weight
        match = Match(signature.id, signature.title, round(score, 3),
                      _quoting(signature.fix, named), signature.references, tuple(evidence),
                      target.kind, str(signature.path), signature.kind)
        return _Scored(match, specificity, contradicted, unconfirmed, signature.kind.strength,
                       message_specificity,
                       by_module=not signature.templates and not signature.patterns,
                       by_library=by_library, words=words,
                       narrow=module_hit is not None and not _package_wide(signature.modules,
                                                                           module_hit),
                       where_only=(signature.kind is SignatureKind.FAMILY
                                   and signature.origin is MessageOrigin.PYTHON
                                   and module_hit is not None
                                   and _package_wide(signature.modules, module_hit)),
                       generic=generic is not None, off_path=off_path,
                       approximate=bool(signature.templates or signature.patterns)
                       and message_score < 1.0)


class _Screen:
    """Which signatures a reading may give a message score, by the literals their parts need.

    `_score` returns None when no template, regex or module part matches (a message score of
    0). A template matches exactly only when its longest fixed word (`Template.needle`) is in
    the text, and fuzzily only when enough of its long words (`Template.key_words`) are words of
    the masked text; a regex with a needle (needle.py) only when the needle is in the text. So a
    signature every part of which has such a literal is asked only of the readings that hold one
    of them: a superset of those it matches (a template's needle is looked for in the whole
    text, not the first MAX_COMPARED_CHARS * 2), and the ranking is what scoring every
    signature gives. Signatures with a part without one (a module part alone, a regex whose
    literal is not known, a fuzzy template without long words) are asked of every reading.
    Built once per database: ~1,300 substring tests a reading instead of ~900 scorings."""

    def __init__(self, signatures: tuple[Signature, ...]):
        self.modules = any(s.modules for s in signatures)
        always: set[int] = set()
        texts: dict[str, set[int]] = {}
        folded: dict[str, set[int]] = {}
        words: dict[str, set[int]] = {}
        for index, signature in enumerate(signatures):
            if not signature.templates and not signature.patterns:
                always.add(index)  # known by the raising module
            for template in signature.templates:
                if not template.needle:
                    always.add(index)
                texts.setdefault(template.needle, set()).add(index)
                if template.fuzzy and len(template.masked) >= 12 \
                        and template.masked.count(" ") >= 2:
                    if not template.key_words:
                        always.add(index)
                    # a fuzzy match misses at most len // 8 of them: one of the first
                    # len // 8 + 1 is a word of the masked text
                    allowed = len(template.key_words) // 8
                    for word in template.key_words[:allowed + 1]:
                        words.setdefault(word, set()).add(index)
            needles = signature.needles or (None,) * len(signature.patterns)
            for pattern, needle in zip(signature.patterns, needles):
                if needle is not None:
                    literals, fold = frozenset({needle.text}), needle.folded
                else:  # an alternation: one of its branches' literals (needle.needle_set)
                    found = needle_set(pattern.pattern)
                    if found is None:
                        always.add(index)
                        continue
                    literals, fold = found
                for literal in literals:
                    (folded if fold else texts).setdefault(literal, set()).add(index)
        self._always = frozenset(always)
        self._texts = tuple((text, frozenset(found)) for text, found in texts.items())
        self._folded = tuple((text, frozenset(found)) for text, found in folded.items())
        self._any_folded = frozenset().union(*folded.values())
        self._words = {word: frozenset(found) for word, found in words.items()}

    def possible(self, text: str, masked: str, lowered: str | None) -> frozenset[int]:
        """The indexes of the signatures that may score `text` (masked `masked`; `lowered`: its
        lower case when ASCII, else None: a folded needle does not screen it)."""
        hits = [indexes for needle, indexes in self._texts if needle in text]
        if lowered is None:
            hits.append(self._any_folded)
        else:
            hits += [indexes for needle, indexes in self._folded if needle in lowered]
        words = self._words
        hits += [words[word] for word in message_words(masked) if word in words]
        return self._always.union(*hits)


_PLACE = re.compile(r"\{(\w+)\}")
MAX_QUOTED_CHARS = 120


def _quoting(fix: str, named: Mapping[str, str | None]) -> str:
    """A fix with `{name}` replaced by what the regex's group of that name matched (`the
    package {module}` -> `the package flash_attn`): a class's fix names the one thing at fault.
    A group that did not match reads `<name>`, for the reader to fill in; braces that name no
    group stay as written."""
    if not named or "{" not in fix:
        return fix

    def quoted(found: re.Match[str]) -> str:
        if found.group(1) not in named:
            return found.group(0)
        value = named[found.group(1)]
        if value is None:
            return f"<{found.group(1)}>"
        value = " ".join(value.split())
        return value if len(value) <= MAX_QUOTED_CHARS else value[:MAX_QUOTED_CHARS - 3] + "..."

    return _PLACE.sub(quoted, fix)


def _package_wide(patterns: tuple[regex.Pattern[str], ...], module: str) -> bool:
    """Whether a module pattern that matched names the whole top-level package (`^vllm\\.`)
    rather than a subsystem inside it: it matches any module of that package."""
    anywhere = f"{module.split('.', 1)[0]}._"
    return any(p.search(anywhere) for p in patterns)


def _raised_outside_vllm(event: ErrorEvent) -> bool:
    """Whether the traceback shows code other than vLLM's raising the error."""
    from logsleuth.index.origin import raised_by_vllm

    return raised_by_vllm(event) is False


def _raising_modules(event: ErrorEvent, causality: Causality | None = None
                     ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(vLLM modules, installed library module) that raised the error.

    A wrapper that restates its cause's str(e) (causality.yaml `wrappers`: the executor's
    `Worker failed with error '...'`) was raised by the module that restated it, not by the one
    that failed: the modules are those of the quoted cause, the ones vLLM's index files its
    message under (none when the index does not know it). The restating module alone names
    no subsystem: an executor's family is the answer only for a cause the executor raises."""
    # imported here: the index's lookup uses this package's template vocabulary
    from logsleuth.index.origin import library_modules, raising_modules

    quoted = _quoted_cause(event, causality)
    if quoted is not None:
        cls, message = quoted
        if cls is not None and causality is not None and causality.interpreter_class(message):
            return (), ()  # the interpreter's words: any module's code may have raised them
        cause = replace(event, exception=cls or event.exception, message=message, frames=())
        return raising_modules(cause), ()
    return raising_modules(event), library_modules(event)


def _demote_unconfirmed(scored: list[_Scored]) -> list[_Scored]:
    """A signature that tells its failure apart by frames or phase, on a log that shows neither,
    ranks after a fitting family whose message part is at least as specific: its own message then
    says nothing the family's does not (a frameless OOM is not a graph-capture OOM)."""
    fitting = [s.message_specificity for s in scored if s.match.score >= THRESHOLD
               and s.match.kind is SignatureKind.FAMILY and not s.contradicted
               and not s.unconfirmed]
    if not fitting:
        return scored
    bar = max(fitting)
    return [replace(s, demoted=True) if s.unconfirmed and s.message_specificity <= bar else s
            for s in scored]


@dataclass(frozen=True, slots=True)
class FactVerdict:
    """What one `match.facts` condition says about the facts of a log."""

    factor: float  # 1.0 holds; FACT_UNKNOWN / SOFT_MISS lower the score; 0.0 rules the match out
    detail: str
    known: bool


FACT_UNKNOWN = 0.9  # a hard condition on a fact the log does not print
SOFT_MISS = 0.95  # a soft condition (`?expr`) that does not hold
_OPERATORS = (">=", "<=", "==", "!=", ">", "<")
# PEP 440 order of the pre- and post-release parts vLLM versions carry: 0.16.0.dev1 <
# 0.16.0rc2.dev313 < 0.16.0rc2 < 0.16.0 < 0.16.0.post1
_STAGES = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "rc": 3, "c": 3, "": 4, "post": 5}
_VERSION = regex.compile(r"v?(?P<release>\d+(?:\.\d+)*)(?P<rest>[^+]*)")
_STAGE = regex.compile(r"[.\-_]?(?P<stage>dev|alpha|beta|rc|post|a|b|c)[.\-_]?(?P<n>\d*)")


def judge_fact(name: str, expression: str, facts: Mapping[str, object]) -> FactVerdict:
    """Judge one facts condition (signatures/README.md, `match.facts`).

    `'fp8*'` is a glob (case-insensitive); `'>=0.11,<0.17'` compares versions or numbers, every
    comma-separated clause must hold; `'a|b'` holds when any alternative holds. A leading `?`
    makes the condition soft: it ranks and shows as evidence but never rules a match out. A
    leading `+` makes the fact the failure's evidence, not only the fix's scope: the log must
    print it, so a log that does not rules the match out (a setting that turns a kernel on,
    without which the same CUDA fault is another failure).
    """
    soft = expression.startswith("?")
    seen = expression.startswith("+")
    text = expression[1:].strip() if soft or seen else expression.strip()
    if name not in facts:
        if seen:
            return FactVerdict(0.0, f"{name} unknown (must be seen)", False)
        return FactVerdict(1.0 if soft else FACT_UNKNOWN, f"{name} unknown", False)
    value = facts[name]
    if fact_holds(value, text):
        return FactVerdict(1.0, f"{name}={value} ({text})", True)
    if soft:
        return FactVerdict(SOFT_MISS, f"{name}={value} (not {text})", True)
    return FactVerdict(0.0, f"{name}={value} (not {text})", True)


def fact_holds(value: object, expression: str) -> bool:
    """Whether a fact's value satisfies a condition expression (see judge_fact)."""
    for alternative in expression.split("|"):
        text = alternative.strip()
        if text[:1] in ("<", ">", "=", "!"):
            if all(_compare(value, clause.strip()) for clause in text.split(",") if clause.strip()):
                return True
        elif fnmatch.fnmatchcase(str(value).lower(), text.lower()):
            return True
    return False


def version_key(value: object) -> tuple[tuple[int, ...], int, int, int, int] | None:
    """An ordering key for a version or number: `0.16.0rc2.dev313+g6b3e0f2a1`, `12.0`, `8`.

    The release is padded so that 0.16 == 0.16.0; the local part (`+g6b3e...`, `+torch271`)
    does not count. None when the value holds no number."""
    found = _VERSION.match(str(value).strip())
    if not found:
        return None
    release = tuple(int(p) for p in found.group("release").split("."))
    release += (0,) * (6 - len(release))
    stage, stage_n, dev, post = _STAGES[""], 0, 1 << 30, 0
    for part in _STAGE.finditer(found.group("rest").lower()):
        name, number = part.group("stage"), int(part.group("n") or 0)
        if name == "dev":
            dev = number
            if stage == _STAGES[""]:
                stage = _STAGES["dev"]  # 0.16.0.dev5 comes before 0.16.0a1
        elif name == "post":
            post = number
        else:
            stage, stage_n = _STAGES[name], number
    return release[:6], stage, stage_n, post, dev


def _compare(value: object, clause: str) -> bool:
    for op in _OPERATORS:
        if clause.startswith(op):
            left, right = version_key(value), version_key(clause[len(op):].strip())
            if left is None or right is None:
                return False
            return {">=": left >= right, "<=": left <= right, "==": left == right,
                    "!=": left != right, ">": left > right, "<": left < right}[op]
    return False


_WRAP = re.compile(r"(?<=\w) {6,}(?=\w)")
# a line break inside a message, with the indentation around it: a reporter's or a tracker's wrap
# of one sentence reads as the space it replaced
_LINE_BREAK = re.compile(r"(?<=\S)[ \t]*\n[ \t]*(?=\S)")


def _readings(event: ErrorEvent, causality: Causality | None = None) -> list[str]:
    """The texts a signature's message patterns are tried on.

    `Type: message` as printed; as written when a terminal wrapped it (`conf        iguration`:
    a long run of spaces inside a word is where a pasted line was broken); without the count
    Ray's deduplication appended; with each line break inside the message read as the space it
    replaced (a reporter's, a tracker's or a terminal's wrap of one sentence); and for an exception with no message (a bare `assert`) or a
    traceback cut before its exception line (a pasted excerpt: the source line is all it says),
    `Type: <the failing source line>`. A wrapper that restates its cause's str(e)
    (causality.yaml `wrappers`) is read also as that cause, `Type: message`, where its class is
    known (`_quoted_cause`): the class's own families and fallback may answer it.
    """
    from logsleuth.assemble import CUT_TRACEBACK  # here: assemble imports this module

    text = event.text
    readings = [text]
    unwrapped = _WRAP.sub("", text)
    if unwrapped != text:
        readings.append(unwrapped)
    from logsleuth.tokenize.grammar import terminal_regex  # the grammar's, when first needed

    # Ray's count of the identical lines it dropped, after the line it keeps, is no part of
    # vLLM's message (grammars/vllm.lark RAY_REPEATED)
    deduplicated = terminal_regex("RAY_REPEATED").sub("", unwrapped)
    if deduplicated != unwrapped:
        readings.append(deduplicated)
    joined = _LINE_BREAK.sub(" ", deduplicated)
    if joined != deduplicated:
        readings.append(joined)
    if (not event.message or event.exception == CUT_TRACEBACK) and event.frames \
            and event.frames[-1].code:
        readings.append(f"{event.exception}: {event.frames[-1].code}")
    cause = _quoted_cause(event, causality)
    if cause is not None and cause[0] is not None:
        readings.append(f"{cause[0]}: {cause[1]}")
    return readings


def _quoted_cause(event: ErrorEvent, causality: Causality | None
                  ) -> tuple[str | None, str] | None:
    """For a wrapper that restates its cause's str(e) (causality.yaml `wrappers`): the cause's
    class where it is known (the one vLLM's index raises the whole message with, else the
    built-in exception whose words the message is: `interpreter_messages`; None when neither
    knows it) and its message; None for any other event."""
    quoted = causality.wrapped_cause(event.message) if causality is not None else None
    if causality is None or quoted is None:
        return None
    quoted = quoted.strip()
    builtin = causality.interpreter_class(quoted)
    if builtin is not None:
        return builtin, quoted
    from logsleuth.index.bare import raised_class  # the index loads only when one is met

    return raised_class(quoted), quoted


_SYNTAX = re.compile(r"\\[dDwWsSbB]|\(\?[:i=!<]*|[\[\](){}?*+|^$.\\]|\{\d*,?\d*\}")
# a negative look-around, one level of groups inside: the text it names is what the message must
# NOT say, so it is no evidence of what it does say
_NEGATIVE_LOOK = re.compile(r"\(\?<?!(?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)")


# a group without groups inside that offers alternatives: `(?:400|404|422)`, `(a|b)`
_ALTERNATIVES = re.compile(r"\((\?(?::|i:|<?=)?)?((?:[^()\\]|\\.)*\|(?:[^()\\]|\\.)*)\)")
_TOP_BAR = re.compile(r"(?<!\\)\|")


@functools.lru_cache(maxsize=4096)
def _fixed_length(pattern: str) -> int:
    """Roughly how much fixed text a pattern demands (its syntax and classes removed), so that a
    pattern is not more specific than a template for being written with more punctuation, nor a
    family for the list of names it leaves to others (`CUDA error: (?!out of memory|...)`), nor
    for the alternatives it accepts (`Error code: (?:400|404|422)` demands one status, not three:
    each group of alternatives counts as its shortest).

    Kept per pattern (the database holds about 1,400): a report scores each of its errors
    against every signature, and this cost ~13 us a pattern each time (it was asked of every
    pattern, matched or not: ~0.05-0.09 s a report)."""
    text = _NEGATIVE_LOOK.sub("", pattern)
    while True:
        shorter = _ALTERNATIVES.sub(lambda m: min(_TOP_BAR.split(m.group(2)), key=_bare_length),
                                    text)
        if shorter == text:
            break
        text = shorter
    return min(_bare_length(part) for part in _TOP_BAR.split(text))


def _bare_length(pattern: str) -> int:
    return len(_SYNTAX.sub("", pattern))


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1].strip()


def _exception_factor(names: tuple[str, ...], event: ErrorEvent, causality: Causality) -> float:
    wanted = {_short(n) for n in names} | set(names)
    if event.exception in wanted or _short(event.exception) in wanted:
        return 1.0
    if _label_known(event.exception, names, wanted, causality):
        return 1.0
    # a wrapper such as `InductorError: OutOfMemoryError: ...` or `RayTaskError(TypeError)`
    inner = event.message.split(":", 1)[0].strip()
    if _short(inner) in wanted or any(f"({w})" in event.exception for w in wanted):
        return 0.9
    if event.kind is EventKind.ERROR_RECORD:
        return 0.9  # an ERROR record or a cut traceback: its exception type is not known
    return EXCEPTION_MISSED


def _label_known(label: str, names: tuple[str, ...], wanted: set[str],
                 causality: Causality) -> bool:
    """A label a library prints for an exception class instead of its name is that class's, and
    the exception whose message it is a line of: pydantic renders the ValueError a validator
    raised as `Value error, <message>` inside its ValidationError, and a paste that keeps that
    line alone still holds the same error. The class is the one the grammar reads off the
    label's line (grammars/vllm.lark PYDANTIC_VALUE_ERROR, PYDANTIC_ASSERTION), the exception
    that holds such lines one causality.yaml names (`indented_messages`)."""
    labelled = _labelled(label)
    if labelled is None:
        return False
    return labelled in wanted or any(causality.message_goes_on_indented(n) for n in names)


@functools.cache
def _labelled(label: str) -> str | None:
    """The exception class `label` (`Value error`) stands for, as the grammar reads a line that
    begins with it, or None: a class's own name, a label the grammar does not know."""
    if " " not in label.strip():
        return None
    from logsleuth.tokenize.grammar import parse_line

    line = parse_line(f"{label.strip()}, {_LABEL_PROBE}")
    return line.exception if line.kind is LineKind.EXCEPTION_REPR else None


_LABEL_PROBE = "x"  # any message after a label: the grammar reads the label, not the words


def _module_hit(patterns: tuple[regex.Pattern[str], ...], modules: tuple[str, ...]
                ) -> tuple[str | None, int]:
    r"""The first raising module a pattern matches, and the fixed length of the longest pattern
    that matches it. A package's own `__init__` raises as the package (`vllm.config`): it is
    inside the subsystem a pattern names as `^vllm\.config\.`."""
    for module in modules:
        fixed = [_fixed_length(p.pattern) for p in patterns
                 if p.search(module) or p.search(module + ".")]
        if fixed:
            return module, max(fixed)
    return None, 0


def needs_corroboration(signature: Signature) -> bool:
    """An exact signature that names what tells its failure apart beside the message (frames,
    the raising module, a phase, a fact of the deployment): on a generic message those parts
    must be seen. One that names none claims its message alone is the failure; `signatures
    lint` warns when that message is generic (GENERIC_UNCORROBORATED)."""
    return signature.kind is SignatureKind.EXACT and bool(
        signature.frames or signature.modules or signature.phases
        or any(c.name not in VERSION_FACTS for c in signature.facts))


def generic_evidence(signature: Signature, event: ErrorEvent,
                     database: SignatureSet | None = None) -> str | None:
    """Why the text of `event` that the signature's message part matches is generic
    (signatures/generic.py), or None: not generic, or not matched."""
    family = database.class_family(_readings(event)) if database is not None else None
    for text in _readings(event):
        masked = mask(text)
        for template in signature.templates:
            if template.score(text, masked) == 1.0:
                return generic_reason(vllm_spread(event), template.text, event.exception,
                                      regex=False, class_family=family)
        for pattern in signature.patterns:
            try:
                hit = pattern.search(text, timeout=PATTERN_TIMEOUT)
            except TimeoutError:
                continue
            if hit:
                return generic_reason(vllm_spread(event), pattern.pattern, event.exception,
                                      regex=True, class_family=family)
    return None


def _words_hit(signature: Signature, text: str, masked: str) -> bool:
    """Whether a signature's message part (a template in full, or a regex) matches the text."""
    if any(t.score(text, masked) == 1.0 for t in signature.templates):
        return True
    for pattern in signature.patterns:
        try:
            if pattern.search(text, timeout=PATTERN_TIMEOUT):
                return True
        except TimeoutError:
            continue
    return False


def _keyword(patterns: tuple[regex.Pattern[str], ...], text: str) -> str | None:
    """The first of a signature's keywords the message says, as it says it."""
    for pattern in patterns:
        try:
            hit = pattern.search(text, timeout=PATTERN_TIMEOUT)
        except TimeoutError:
            continue
        if hit:
            return hit.group(0)[:80]
    return None


def _first_hit(patterns: tuple[regex.Pattern[str], ...], texts: list[str]) -> str | None:
    for text in texts:
        for pattern in patterns:
            try:
                if pattern.search(text, timeout=PATTERN_TIMEOUT):
                    return text
            except TimeoutError:
                continue
    return None
