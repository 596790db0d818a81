"""A signature answers for its message's words, not for where the error was raised alone.

Two properties over the whole database (signatures/README.md, "Families by module"):

- A family matched by its raising module that names the words of its class (`match.keywords`)
  does not answer for a message vLLM raises in that module without any of them: the scheduler's
  "Invalid request status" is raised beside the KV-cache manager, a logits processor's state check
  beside the sampler's index errors, and neither is the class those families' fixes are for.
- An exact signature does not keep its match at high confidence when its positive example's
  message is swapped for the message of another raise site of the same exception class: an exact
  match needs its message's own words, not the class, the call path or the process around them.
"""

from __future__ import annotations

import random
from functools import cache
from types import ModuleType

import pytest

from logsleuth.index.data import MessageKind, default_index
from logsleuth.model import MATCH_THRESHOLD, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.signatures.load import Signature
from logsleuth.signatures.match import SignatureSet, _words_hit
from logsleuth.signatures.template import mask
from tool_import import import_tool

PER_FAMILY = 12  # raise sites without the family's words tried for each family
# exact signatures whose positive example gets its message swapped: a fixed sample, since each
# costs two explains (~0.3 s); all of them took three minutes of one CPU (CONTRIBUTING.md)
EXACT_SAMPLE = 160


@cache
def coverage() -> ModuleType:
    return import_tool("index_coverage", "coverage")


@cache
def raised() -> tuple[object, ...]:
    """The index's raise sites (one a message text), as the coverage tool renders them."""
    return tuple(t for t in coverage().error_templates(default_index())
                 if t.kind is MessageKind.RAISE)


@cache
def families_only() -> SignatureSet:
    """The database without its exact signatures: what a family does, not what an exact
    signature for the same message hides."""
    return SignatureSet(s for s in default_signatures() if s.kind is not SignatureKind.EXACT)


def keyword_families() -> list[Signature]:
    return [s for s in default_signatures() if s.kind is SignatureKind.FAMILY and s.keywords
            and s.modules and not s.templates and not s.patterns]


def _says_a_keyword(family: Signature, message: str) -> bool:
    return any(k.search(message) for k in family.keywords)


def _in_module(family: Signature, module: str) -> bool:
    return any(p.search(module) or p.search(module + ".") for p in family.modules)


def test_the_known_keyword_families_are_there() -> None:
    ids = {s.id for s in keyword_families()}
    assert {"kv-cache-manager-rejected", "token-id-outside-vocabulary"} <= ids


@pytest.mark.parametrize("family", keyword_families(), ids=lambda s: s.id)
def test_a_module_family_does_not_answer_without_its_words(family: Signature) -> None:
    tool = coverage()
    wanted = set(family.exceptions)
    sites = [t for t in raised() if (not wanted or t.cls in wanted)
             and _in_module(family, t.module)]
    without = [t for t in sites if not _says_a_keyword(family, tool.fill(t.text))]
    if not without:
        pytest.skip("every message vLLM raises in its modules says one of its words")
    database = families_only()
    wrong = []
    for site in random.Random(family.id).sample(without, min(PER_FAMILY, len(without))):
        report = explain_text(tool.render(site), signatures=database)
        if report.signature is not None and report.signature.id == family.id:
            wrong.append(f"{site.module}: {site.text[:90]}")
    assert not wrong, f"{family.id} answers for messages without its words: {wrong}"


@pytest.mark.parametrize("message,family", [
    ("RuntimeError: Invalid request status: WAITING_FOR_FSM", "kv-cache-manager-rejected"),
    ("RuntimeError: Cannot register new removed request after self.removed has been read.",
     "token-id-outside-vocabulary"),
])
def test_the_two_wrong_matches_found_in_session_23(message: str, family: str) -> None:
    """Worker/engine tracebacks of vLLM 0.11.0's raise sites (scheduler.py, logits_processor/
    state.py): the family of the module is at most an alternative, the exact signature answers."""
    from v1log import worker_failure

    from logsleuth.model import Phase

    inner = ((("v1/core/sched/scheduler.py", "schedule"),) if "status" in message else
             (("v1/worker/gpu_model_runner.py", "_update_states"),
              ("v1/worker/gpu_input_batch.py", "remove_request"),
              ("v1/sample/logits_processor/state.py", "removed_append")))
    log = worker_failure(message, phase=Phase.SERVING, inner=inner)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.kind is SignatureKind.EXACT and report.signature.id != family
    alone = explain_text(log, signatures=families_only())
    assert alone.signature is None or alone.signature.id != family


# ---- exact signatures: the message's own words carry the match


def _positive(signature: Signature) -> str | None:
    for path, positive in signature.examples():
        if positive:
            return path.read_text(encoding="utf-8", errors="replace")
    return None


def exact_cases() -> list[Signature]:
    cases = [s for s in default_signatures() if s.kind is SignatureKind.EXACT
             and (s.templates or s.patterns) and any(p for _, p in s.examples())]
    chosen = {s.id for s in random.Random(24).sample(cases, min(EXACT_SAMPLE, len(cases)))}
    # the two written for the session-23 wrong matches are always in
    chosen |= {"scheduler-invalid-request-status", "logits-processor-removal-after-read"}
    return [s for s in cases if s.id in chosen]


@cache
def _by_class() -> dict[str, tuple[str, ...]]:
    """Per exception class, the filled messages vLLM raises with it (one line each)."""
    tool = coverage()
    out: dict[str, list[str]] = {}
    for site in raised():
        text = tool.fill(site.text)
        if "\n" not in text and 20 <= len(text) <= 200:
            out.setdefault(site.cls, []).append(text)
    return {cls: tuple(texts) for cls, texts in out.items()}


def _swapped(signature: Signature, log: str) -> tuple[str, str] | None:
    """The positive example with its root cause's message replaced by another raise site's
    message of the same class that the signature's message part does not match, or None."""
    report = explain_text(log, signatures=default_signatures())
    cause = report.root_cause
    if cause is None or report.signature is None or report.signature.id != signature.id:
        return None
    lines = [line.strip() for line in cause.message.split("\n") if len(line.strip()) >= 8]
    if not lines or lines[0] not in log:
        return None
    others = [t for t in _by_class().get(cause.exception, ())
              if not _words_hit(signature, f"{cause.exception}: {t}", mask(f"{cause.exception}: {t}"))]
    if not others:
        return None
    other = random.Random(signature.id).choice(others)
    # the whole message goes: its first line becomes the other message, its continuation lines
    # (an error code, a hint) are emptied
    for index, line in enumerate(lines):
        log = log.replace(line, other if index == 0 else "")
    return log, other


@pytest.mark.parametrize("signature", exact_cases(), ids=lambda s: s.id)
def test_an_exact_match_needs_its_message(signature: Signature) -> None:
    log = _positive(signature)
    assert log is not None
    swapped = _swapped(signature, log)
    if swapped is None:
        pytest.skip("the example's root cause is not this signature's, or no other message of "
                    "its class is known")
    text, other = swapped
    if any(_words_hit(signature, line, mask(line)) for line in text.splitlines()):
        pytest.skip("its words are still in the log: another error of the chain says them")
    report = explain_text(text, signatures=default_signatures())
    kept = report.signature is not None and report.signature.id == signature.id \
        and report.signature.score >= MATCH_THRESHOLD
    assert not kept, f"{signature.id} still matches with the message {other!r}"
