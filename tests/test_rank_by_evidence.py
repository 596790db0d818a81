"""Which signature wins is decided by evidence (issue 11, "matching that generalises"): what
tools/rank_probe found putting a wrong fix first on logs no exact signature was written for.

- An exact signature's message template that matched only in part (some of the words it requires
  are not in the message) and that the log contradicts says no more than a family's words the log
  contradicts as well: between them the score decides, not the kind. Before, the exact signature
  ranked first whatever its similarity (a `CUDA Error: out of memory` from another allocator
  went to WSL's pinned-memory advice instead of the out-of-memory family).
- An exact signature whose words matched in full but whose call path (frames and raising module)
  the log shows to be another weighs by its score against the family of the subsystem that raised
  the error: another call path and another module (0.68) rank after the subsystem (0.75), frames
  alone renamed by a refactoring (0.8) before it, and the whole package's family never before it.
  Before, any exact words outranked every module family.

Generated: the same failure from each era of vLLM's worker prefixes, in each phase, with noise
in the message and other call paths."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet
from logsleuth.signatures.load import Signature, load_signature_file
from logsleuth.signatures.match import THRESHOLD
from v1log import ERAS, SITE, Era, worker_failure

PHASES = [Phase.INIT, Phase.LOAD, Phase.PROFILE, Phase.KV_CACHE, Phase.SERVING]
_HEAD = ("title: a probe of the rank order\ncategory: {category}\nkind: {kind}\n"
         "description: A signature made for a test of the rank order.\nseverity: error\n"
         "status: stable\nfix: {fix}\nreferences: [https://docs.vllm.ai/]\nmatch:\n")


def _signature(folder: Path, name: str, kind: str, fix: str, match: str) -> Signature:
    path = folder / "probe" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    fix = f"{fix} This advice is made up for a test of the rank order and fixes nothing real."
    path.write_text(f"id: {name}\n" + _HEAD.format(category="probe", kind=kind, fix=fix) + match,
                    encoding="utf-8")
    return load_signature_file(path)


# ---- an exact template matched in part, contradicted ---------------------------------------

# words the message holds beside the template's (the template requires none of them)
INSERTED = ["device", "pinned", "host", "unified", "managed"]
TAILS = ["", " (tried to allocate 2.00 GiB)", " at /src/alloc.cu:212", "; retrying once"]


def _partial_words(tmp: Path) -> SignatureSet:
    exact = _signature(tmp, "probe-exact-quux", "exact", "Turn off the zorbit swap space.",
                       "  exception: [RuntimeError]\n"
                       "  message: ['Zorbit allocator error: ran out of quux memory while "
                       "swapping blocks']\n")
    family = _signature(tmp, "probe-family-quux", "family", "Lower the zorbit memory use.",
                        "  exception: [RuntimeError]\n"
                        "  regex: ['(?i)zorbit allocator error: ran out of quux']\n")
    return SignatureSet([exact, family])


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(word=st.sampled_from(INSERTED), tail=st.sampled_from(TAILS),
       era=st.sampled_from(ERAS), phase=st.sampled_from(PHASES))
def test_an_exact_template_matched_in_part_and_contradicted_is_weighed_by_its_score(
        tmp_path: Path, word: str, tail: str, era: Era, phase: Phase) -> None:
    # another exception class than both name (0.7 each): the family's words all occur, the
    # exact template's only in part
    error = (f"torch.AcceleratorError: Zorbit allocator error: ran out of quux {word} memory "
             f"while swapping blocks{tail}")
    report = explain_text(worker_failure(error, phase=phase, era=era),
                          signatures=_partial_words(tmp_path))
    assert report.signature is not None and report.signature.id == "probe-family-quux", \
        (error, report.signature)
    exact = next(m for m in report.alternatives if m.id == "probe-exact-quux")
    assert exact.score < report.signature.score
    # the same template matched in full: the exact words win, contradicted or not
    whole = explain_text(worker_failure(
        f"torch.AcceleratorError: Zorbit allocator error: ran out of quux memory while swapping "
        f"blocks{tail}", phase=phase, era=era), signatures=_partial_words(tmp_path))
    assert whole.signature is not None and whole.signature.id == "probe-exact-quux"


# ---- an exact signature's words from another call path ------------------------------------

FUNCTIONS = ["reserve_blocks", "grow_table", "_prepare_inputs", "allocate_slots"]
SUBSYSTEM_FILES = ["zorbit/engine.py", "zorbit/engine/core.py", "zorbit/engine/slots.py"]


def _off_path(tmp: Path, module: bool) -> SignatureSet:
    exact = _signature(tmp, "probe-exact-table", "exact", "Raise --zorbit-table-size.",
                       "  exception: [ValueError]\n"
                       "  message: ['Zorbit block table cannot hold {num} entries']\n"
                       "  frames: ['build_zorbit_table']\n"
                       + ("  module: ['^vllm\\.zorbit\\.tables']\n" if module else ""))
    subsystem = _signature(tmp, "probe-subsystem", "family", "Check the zorbit engine's settings.",
                           "  exception: [ValueError]\n  module: ['^vllm\\.zorbit\\.engine']\n")
    package = _signature(tmp, "probe-package", "family", "Report it to vLLM.",
                         "  exception: [ValueError]\n  module: ['^vllm\\.']\n")
    return SignatureSet([exact, subsystem, package])


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(function=st.sampled_from(FUNCTIONS), file=st.sampled_from(SUBSYSTEM_FILES),
       entries=st.integers(1, 10**6), era=st.sampled_from(ERAS), phase=st.sampled_from(PHASES))
def test_an_exact_signatures_words_from_another_call_path_weigh_against_the_subsystem(
        tmp_path: Path, function: str, file: str, entries: int, era: Era, phase: Phase
) -> None:
    error = f"ValueError: Zorbit block table cannot hold {entries} entries"
    log = worker_failure(error, phase=phase, era=era, inner=((SITE + file, function),))
    # another call path and another raising module than the exact signature names
    report = explain_text(log, signatures=_off_path(tmp_path, module=True))
    assert report.signature is not None and report.signature.id == "probe-subsystem", \
        (file, function, report.signature)
    assert report.signature.score >= THRESHOLD
    # frames alone differ (a refactoring renamed them): the exact words still win
    renamed = explain_text(log, signatures=_off_path(tmp_path, module=False))
    assert renamed.signature is not None and renamed.signature.kind is SignatureKind.EXACT
    # and the whole package's family, that says only that vLLM raised it, never beats them
    package_only = SignatureSet([s for s in _off_path(tmp_path, module=True)
                                 if s.id != "probe-subsystem"])
    wide = explain_text(log, signatures=package_only)
    assert wide.signature is not None and wide.signature.id == "probe-exact-table"
