"""A family under the threshold that still knows the root cause (its words, or the subsystem that
raised it) answers before a fallback keyed by the class alone, with low confidence; exact beats
family beats fallback; a family that knows only the whole package, or only a symptom, does not."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.origin import vllm_module
from logsleuth.model import Confidence, Phase, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet
from logsleuth.signatures.load import load_signature_file
from logsleuth.signatures.match import NEAR_FLOOR, SYMPTOM_WEIGHT, THRESHOLD, Target
from v1log import ERAS, SITE, worker_failure

SUBSYSTEMS = ["vllm.config.model", "vllm.v1.executor.abstract",
              "vllm.model_executor.model_loader.default_loader", "vllm.v1.engine.core"]
# exception classes none of the test families names
OTHER_TYPES = ["TypeError", "KeyError", "IndexError", "AttributeError", "ZeroDivisionError"]
WORDS = ["qzv frobnicator stalled", "blorp table has no slot", "the zqxv plan was refused"]
PHASES = [Phase.INIT, Phase.LOAD, Phase.PROFILE, Phase.SERVING]


def _write(tmp: Path, name: str, kind: str, match: str, category: str = "config") -> Path:
    path = tmp / category / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"id: {name}\ntitle: {name} title\ncategory: {category}\nkind: {kind}\n"
        f"description: A test signature of the matching rules, not a real failure.\nseverity: error\nstatus: stable\nmatch:\n{match}"
        f"fix: Set the {name}-knob to what the message names.\nreferences: [https://docs.vllm.ai/]\n", encoding="utf-8")
    return path


def _database(tmp: Path, module_pattern: str) -> SignatureSet:
    family = _write(tmp, "sub-family", "family",
                    f"  exception: [ValueError]\n  module: ['{module_pattern}']\n")
    words = _write(tmp, "words-family", "family",
                   "  exception: [ValueError]\n  phase: [kv_cache]\n"
                   f"  regex: ['(?:{'|'.join(WORDS)})']\n")
    fallback = _write(tmp, "fallback-class", "fallback",
                      f"  regex: ['^(?:{'|'.join(OTHER_TYPES)})\\b']\n", category="fallback")
    return SignatureSet([load_signature_file(p) for p in (family, words, fallback)])


def _frame(module: str) -> tuple[tuple[str, str], ...]:
    return ((SITE.rsplit("vllm/", 1)[0] + module.replace(".", "/") + ".py", "check"),)


def _subsystem_pattern(module: str) -> str:
    return "^" + module.rsplit(".", 1)[0].replace(".", "\\.") + "\\."


@settings(max_examples=25, deadline=None)
@given(module=st.sampled_from(SUBSYSTEMS), exception=st.sampled_from(OTHER_TYPES),
       phase=st.sampled_from(PHASES), era=st.sampled_from(ERAS))
def test_a_subsystems_family_beats_the_class_fallback_with_low_confidence(
        tmp_path_factory, module: str, exception: str, phase: Phase, era) -> None:  # type: ignore[no-untyped-def]
    signatures = _database(tmp_path_factory.mktemp("db"), _subsystem_pattern(module))
    log = worker_failure(f"{exception}: something odd 'x7'", phase=phase, era=era,
                         inner=_frame(module))
    report = explain_text(log, signatures=signatures)
    assert report.signature is not None and report.signature.id == "sub-family"
    assert NEAR_FLOOR <= report.signature.score < THRESHOLD
    assert report.signature.confidence is Confidence.LOW


@settings(max_examples=15, deadline=None)
@given(module=st.sampled_from(SUBSYSTEMS), exception=st.sampled_from(OTHER_TYPES))
def test_a_family_of_the_whole_package_leaves_it_to_the_fallback(
        tmp_path_factory, module: str, exception: str) -> None:  # type: ignore[no-untyped-def]
    """`^vllm\\.` with another exception class fits any error vLLM raises: the fallback answers
    and the family is not listed as an alternative; with its own class it still answers."""
    signatures = _database(tmp_path_factory.mktemp("db"), "^vllm\\.")
    report = explain_text(worker_failure(f"{exception}: something odd 'x7'", inner=_frame(module)),
                          signatures=signatures)
    assert report.signature is not None and report.signature.kind is SignatureKind.FALLBACK
    assert "sub-family" not in [m.id for m in report.alternatives]
    same_class = explain_text(worker_failure("ValueError: something odd", inner=_frame(module)),
                              signatures=signatures)
    assert same_class.signature is not None and same_class.signature.id == "sub-family"


@settings(max_examples=15, deadline=None)
@given(words=st.sampled_from(WORDS), exception=st.sampled_from(OTHER_TYPES),
       phase=st.sampled_from([Phase.INIT, Phase.LOAD, Phase.SERVING]))
def test_a_family_that_knows_the_words_beats_the_fallback_under_the_threshold(
        tmp_path_factory, words: str, exception: str, phase: Phase) -> None:  # type: ignore[no-untyped-def]
    # another exception class (x0.7) and another phase (x0.85): under the threshold
    signatures = _database(tmp_path_factory.mktemp("db"), "^vllm\\.nowhere\\.")
    report = explain_text(worker_failure(f"{exception}: {words}", phase=phase,
                                         inner=_frame("vllm.utils.misc")), signatures=signatures)
    assert report.signature is not None and report.signature.id == "words-family"
    assert report.signature.score < THRESHOLD
    assert report.signature.confidence is Confidence.LOW


def test_a_family_that_reaches_the_threshold_is_high_confidence_and_ranks_first(
        tmp_path: Path) -> None:
    module = SUBSYSTEMS[0]
    signatures = _database(tmp_path, _subsystem_pattern(module))
    report = explain_text(worker_failure("ValueError: something odd", inner=_frame(module)),
                          signatures=signatures)
    assert report.signature is not None and report.signature.id == "sub-family"
    assert report.signature.score >= THRESHOLD
    assert report.signature.confidence is Confidence.HIGH


def test_an_exact_signature_beats_a_near_family(tmp_path: Path) -> None:
    module = SUBSYSTEMS[1]
    base = _database(tmp_path, _subsystem_pattern(module))
    exact = _write(tmp_path, "exact-one", "exact", "  message: ['TypeError: blorp {word}']\n")
    signatures = SignatureSet([*base, load_signature_file(exact)])
    report = explain_text(worker_failure("TypeError: blorp zz", inner=_frame(module)),
                          signatures=signatures)
    assert report.signature is not None and report.signature.id == "exact-one"
    assert "sub-family" in [m.id for m in report.alternatives]


@settings(max_examples=10, deadline=None)
@given(words=st.sampled_from(WORDS), exception=st.sampled_from(OTHER_TYPES))
def test_a_near_family_never_answers_for_a_symptom(tmp_path_factory, words: str,
                                                   exception: str) -> None:  # type: ignore[no-untyped-def]
    """The same error as a symptom (the root cause not in the log) leaves a family under the
    threshold an alternative: advice for a pointer needs the full match."""
    signatures = _database(tmp_path_factory.mktemp("db"), "^vllm\\.nowhere\\.")
    event = explain_text(worker_failure(f"{exception}: {words}", inner=_frame("vllm.utils.misc")),
                         signatures=signatures).root_cause
    assert event is not None
    best, alternatives = signatures.best([Target(event, SYMPTOM_WEIGHT, "symptom")], {}, None)
    assert best is None and "words-family" in [m.id for m in alternatives]
    best, _ = signatures.best([Target(event, 1.0, "root_cause")], {}, None)
    assert best is not None and best.id == "words-family"


@settings(max_examples=20)
@given(home=st.sampled_from(["/root", "/home/u", "/data/users/x"]),
       digest=st.text("0123456789abcdef", min_size=10, max_size=10),
       rank=st.integers(0, 15))
def test_vllms_cache_directory_holds_no_vllm_module(home: str, digest: str, rank: int) -> None:
    """Generated code under `~/.cache/vllm/` is not a module of vLLM's package."""
    path = f"{home}/.cache/vllm/torch_compile_cache/{digest}/rank_{rank}_0/inductor_cache/ab/c{digest}.py"
    assert vllm_module(path) is None
    assert vllm_module(SITE.rsplit("vllm/", 1)[0] + "vllm/compilation/backends.py") == \
        "vllm.compilation.backends"
