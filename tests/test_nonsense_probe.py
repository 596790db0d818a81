"""The nonsense probe (issue 11): a message made of words no vLLM subsystem uses gets its class's
fallback or nothing, never a family's or an exact signature's advice, in every process shape (a
bare line, a worker's traceback through a neutral frame in each lifecycle phase and era, an
engine core's record). A family answering such a message gives advice for words it does not hold.

Session 30 measured the probe below on 1,440 logs: 72 (all bare lines) answered by a family before
the short-generic-template rule (logsleuth/index/lookup.py, MIN_LITERAL_CHARS: "{any} must be
positive" named a KV connector's module, "{any} is not supported" a platform plugin's, "{any}
object has no attribute '{any}'" the LoRA manager's), none after."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.origin import default_matcher
from logsleuth.model import Phase, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, worker_failure

pytestmark = pytest.mark.long

CLASSES = ("ValueError", "RuntimeError", "AssertionError", "KeyError", "TypeError",
           "AttributeError", "ImportError", "OSError")
# plain-word frames any program's checks print; the nouns and attributes fill them
FRAMES = ("{n} {a} must be positive", "{n} {a} is not valid", "{n} cannot be None",
          "expected {n} {a} to be {m}, got {k}", "{n} {a} not found", "failed to {v} {n}",
          "{n} is not supported", "unknown {n}: {m}", "'{n}'", "{n} {a} out of range",
          "invalid {n} {a}", "{n} has no {a}", "could not {v} {n}",
          "'{n}' object has no attribute '{m}'", "{n} and {m} disagree on {a}",
          "{n} {a} exceeds {k}", "{n} failed", "no {n} available", "{n} {a} mismatch",
          "the {a} of {n} should be {k}")
NEUTRAL = (("/home/user/widgets/spinner.py", "spin_widget"),)
ANSWERED = (SignatureKind.EXACT, SignatureKind.FAMILY)
_CONSONANTS, _VOWELS = "bdfgklmnprstvwz", "aeiou"


@cache
def vllm_words() -> frozenset[str]:
    """Every word of vLLM's message templates (lower case)."""
    return default_matcher().vocabulary()


def made_up(draw: random.Random, capital: bool = False) -> str:
    """A pronounceable word of three or four syllables that no vLLM template holds."""
    while True:
        word = "".join(draw.choice(_CONSONANTS) + draw.choice(_VOWELS)
                       for _ in range(draw.randint(3, 4))) + draw.choice(_CONSONANTS)
        if word not in vllm_words():
            return word.capitalize() if capital else word


def message(frame: str, seed: int) -> str:
    draw = random.Random(seed)
    return frame.format(n=made_up(draw, capital=draw.random() < 0.5), m=made_up(draw),
                        a=made_up(draw), v=made_up(draw), k=draw.randint(2, 999))


def bare(cls: str, text: str) -> str:
    return f"{cls}: {text}\n"


def engine_record(cls: str, text: str) -> str:
    head = "(EngineCore_DP0 pid=4242) ERROR 12-07 10:00:00 [core.py:708] "
    lines = ["EngineCore failed to start.", "Traceback (most recent call last):",
             f'  File "{NEUTRAL[0][0]}", line 12, in {NEUTRAL[0][1]}', "    raise error",
             f"{cls}: {text}"]
    return "".join(f"{head}{line}\n" for line in lines)


def answer(log: str) -> tuple[str, str] | None:
    """(kind, id) when an exact signature or a family answers the log."""
    found = explain_text(log, signatures=default_signatures()).signature
    return None if found is None or found.kind not in ANSWERED else (found.kind.value, found.id)


@pytest.mark.parametrize("cls", CLASSES)
def test_made_up_messages_get_no_familys_advice_on_a_bare_line(cls: str) -> None:
    answered = {(text, answer(bare(cls, text))) for frame in FRAMES
                for text in (message(frame, seed) for seed in range(3))}
    assert {(text, got) for text, got in answered if got is not None} == set()


@pytest.mark.parametrize("cls", CLASSES)
def test_made_up_messages_get_no_familys_advice_in_an_engine_core_record(cls: str) -> None:
    answered = {(text, answer(engine_record(cls, text))) for frame in FRAMES
                for text in (message(frame, seed) for seed in range(2))}
    assert {(text, got) for text, got in answered if got is not None} == set()


@settings(max_examples=60, deadline=None)
@given(cls=st.sampled_from(CLASSES), frame=st.sampled_from(FRAMES),
       seed=st.integers(0, 10_000), era=st.sampled_from(ERAS),
       phase=st.sampled_from((Phase.LOAD, Phase.PROFILE, Phase.KV_CACHE, Phase.SERVING)))
def test_made_up_messages_get_no_familys_advice_from_a_worker(cls: str, frame: str, seed: int,
                                                              era: object, phase: Phase) -> None:
    text = message(frame, seed)
    log = worker_failure(f"{cls}: {text}", phase=phase, era=era, inner=NEUTRAL)  # type: ignore[arg-type]
    assert answer(log) is None, (cls, text, phase)


@pytest.mark.parametrize(("text", "found"), [
    ("block_size must be positive", True),  # an identifier fills the placeholder
    ("num_frobs must be positive", True),
    ("Frobnicator height must be positive", False),  # plain words, one no template holds
    ("Trundlewick zest must be positive", False),
])
def test_a_short_generic_template_names_vllm_only_through_what_its_placeholder_holds(
        text: str, found: bool) -> None:
    match = default_matcher().find(text)
    assert match is not None  # the template fits: only what the fit says changes
    assert (not match.weak) is found
