"""Generic messages need corroboration (issue 11): an exact signature whose matched text could come
from any call path (signatures/generic.py) is offered only when a frame, the raising module, the
phase or a deployment fact it names is seen; otherwise the family of the class, or of the module
that raised the error, gives the advice.

The variations are generated: the same message from other call paths (every era of worker
prefixes, every lifecycle phase, unrelated inner frames), and the bare message line."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.data import MessageKind, MessageTemplate
from logsleuth.model import Phase, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.signatures.generic import (GENERIC_PACKAGES, generic_reason, max_packages,
                                          names_nothing, operation_error)
from logsleuth.signatures.match import needs_corroboration
from v1log import ERAS, worker_failure

# long (tests/conftest.py runs them first): the whole module, so that its tests stay together
# on one worker and share what its functools.cache helpers computed once
pytestmark = pytest.mark.long

# frames of vLLM code that no signature of these messages names: another call path
UNRELATED = (
    (("v1/sample/sampler.py", "forward"),),
    (("model_executor/layers/quantization/awq.py", "apply"),),
    (("v1/worker/gpu_input_batch.py", "add_request"),),
    (),
)
PHASES = (Phase.LOAD, Phase.PROFILE, Phase.SERVING)


@pytest.mark.parametrize(("part", "regex", "generic"), [
    ("integer division or modulo by zero", False, True),
    (r"index \d+ is out of bounds for dimension \d+ with size \d+", True, True),
    (r"start \(\d+\) \+ length \(\d+\) exceeds dimension size \(\d+\)", True, True),
    (r"^AssertionError: expected size \d+==\d+, stride \d+==\d+ at dim=", True, True),
    ("shape '{any}' is invalid for input of size {int}", False, True),
    # a program entity: an identifier, an acronym, a flag, a file, a word with digits
    (r"^(?:\w+\.)*KeyError: '(?:[\w.]+\.)?lm_head\.weight'$", True, False),
    ("Unexpected keyword argument 'use_beam_search'", False, False),
    ("CUDA error: an illegal memory access was encountered", False, False),
    ("argument --guided-decoding-backend: invalid choice", False, False),
    ("libcudart.so.12: cannot open shared object file", False, False),
    (r"(?:cannot|can't) run fp8 kernels", True, False),
    ("name 'ncclGetVersion' is not defined", False, False),
])
def test_a_message_part_is_generic_when_it_names_no_program_entity(part: str, regex: bool,
                                                                   generic: bool) -> None:
    assert names_nothing(part, regex=regex) is generic


@pytest.mark.parametrize(("exception", "operation"), [
    ("ZeroDivisionError", True), ("IndexError", True), ("KeyError", True),
    ("RayTaskError(KeyError)", True), ("builtins.AttributeError", True),
    ("UnicodeDecodeError", True),
    # torch's and numpy's general checks and a thousand specific failures: a family decides
    ("RuntimeError", None), ("ValueError", None), ("ERROR", None), ("Fatal Python error", None),
    ("OSError", False), ("torch.OutOfMemoryError", False),
    ("openai.NotFoundError", False), ("pynvml.NVMLError_Unknown", False),
])
def test_operation_errors_are_read_from_pythons_exception_hierarchy(exception: str,
                                                                     operation: bool | None
                                                                     ) -> None:
    assert operation_error(exception) is operation


def test_a_runtime_error_is_generic_only_when_a_family_holds_its_words_for_a_general_check(
        ) -> None:
    view = r"shape '\[\d+, \d+\]' is invalid for input of size \d+"
    assert generic_reason(None, view, "RuntimeError", regex=True) is None
    assert generic_reason(None, view, "RuntimeError", regex=True,
                          class_family="tensor-shape-mismatch-in-forward") is not None
    database = default_signatures()
    assert database.class_family(["shape '[4096, 512]' is invalid for input of size 1"]) \
        is not None
    assert database.class_family(["This flash attention build does not support headdim not "
                                  "being a multiple of 32."]) is None


def _site(module: str, releases: tuple[int, ...]) -> MessageTemplate:
    return MessageTemplate(0, "x", MessageKind.RAISE, "ValueError", module, "f", releases)


def test_a_vllm_message_that_moved_with_its_code_is_still_printed_in_one_place() -> None:
    moved = (_site("vllm.config", (0, 1)), _site("vllm.config.model", (2, 3)),
             _site("vllm.engine.arg_utils", (0, 1, 2, 3)))
    assert max_packages(moved) == 2
    spread = (_site("vllm.v1.worker.gpu_worker", (5,)), _site("vllm.config.model", (5,)),
              _site("vllm.model_executor.layers.linear", (5,)))
    assert max_packages(spread) == GENERIC_PACKAGES
    assert generic_reason(max_packages(spread), "anything at all", "ValueError",
                          regex=False) is not None
    # a vLLM message printed in one place is specific whatever its words
    assert generic_reason(1, "integer division or modulo by zero", "ZeroDivisionError",
                          regex=False) is None


@cache
def generic_exacts() -> tuple[tuple[str, str], ...]:
    """(signature id, `Type: message` of its positive example's matched error) for every exact
    signature that names corroborating parts and whose example's message is generic."""
    out = []
    database = default_signatures()
    for signature in database:
        if not needs_corroboration(signature):
            continue
        positives = [path for path, positive in signature.examples() if positive]
        if not positives:
            continue
        report = explain_text(positives[0].read_text(encoding="utf-8", errors="replace"),
                              signatures=database)
        event = report.root_cause
        if event is None or not event.message or report.signature is None \
                or report.signature.id != signature.id:
            continue
        bare = explain_text(f"{event.exception}: {event.message}\n", signatures=database)
        alternatives = {m.id: m for m in bare.alternatives}
        own = alternatives.get(signature.id)
        if own is not None and any(e.part == "corroboration" for e in own.evidence):
            out.append((signature.id, f"{event.exception}: {event.message}"))
    return tuple(out)


def test_the_known_offenders_are_found_generic() -> None:
    found = {name for name, _ in generic_exacts()}
    for name in ("tpu-ray-pipeline-parallel-zero-division", "logit-bias-out-of-vocab",
                 "ascend-moe-expert-parallel-shape-mismatch", "awq-marlin-format-checkpoint"):
        assert name in found, f"{name} is not found generic"


def test_a_generic_exact_signature_is_no_answer_on_the_bare_message() -> None:
    database = default_signatures()
    assert generic_exacts()
    for name, error in generic_exacts():
        report = explain_text(error + "\n", signatures=database)
        assert report.signature is None or report.signature.id != name, error


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_a_generic_exact_signature_does_not_answer_for_another_call_path(
        data: st.DataObject) -> None:
    name, error = data.draw(st.sampled_from(generic_exacts()), label="signature")
    signature = default_signatures().get(name)
    assert signature is not None
    phase = data.draw(st.sampled_from([p for p in PHASES if p not in signature.phases]
                                      or [Phase.SERVING]), label="phase")
    era = data.draw(st.sampled_from(ERAS), label="era")
    inner = data.draw(st.sampled_from(UNRELATED), label="inner frames")
    log = worker_failure(error.split("\n", 1)[0], phase=phase, era=era, inner=inner)
    report = explain_text(log, signatures=default_signatures())
    got = report.signature
    if got is not None and got.id == name:  # only when a frame it names is on this path
        assert any(e.part == "frames" and e.score == 1.0 for e in got.evidence), \
            f"{name} answered {error!r} from {phase.value} without corroboration"


@pytest.mark.parametrize(("error", "knob"), [
    ("ZeroDivisionError: integer division or modulo by zero", None),
    ("IndexError: index 151936 is out of bounds for dimension 0 with size 151665", None),
    ("RuntimeError: start (0) + length (4096) exceeds dimension size (2048).",
     "--tensor-parallel-size"),
    ("RuntimeError: shape '[4096, 512]' is invalid for input of size 1048576",
     "--tensor-parallel-size"),
])
@pytest.mark.parametrize("phase", [Phase.PROFILE, Phase.SERVING])
def test_a_family_takes_a_generic_message_from_another_call_path(error: str, knob: str | None,
                                                                  phase: Phase) -> None:
    log = worker_failure(error, phase=phase, inner=UNRELATED[0])
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is SignatureKind.FAMILY
    if knob is not None:
        assert knob in report.signature.fix


def test_a_specific_exact_signature_still_answers_from_another_call_path() -> None:
    # the message names what failed: no frame is needed to trust it
    log = worker_failure("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use "
                         "CUDA with multiprocessing, you must use the 'spawn' start method",
                         phase=Phase.INIT, inner=UNRELATED[2])
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.id == "cuda-fork-reinit"


LINTED = """id: {id}
title: A division by zero somewhere
category: runtime
description: constructed for the lint test
severity: error
status: stable
match:
  exception: [ZeroDivisionError]
  message:
    - 'integer division or modulo by zero'
{extra}fix: |
  Something specific to one call path: set `--pipeline-parallel-size 1` and run one engine per
  host, because this fix was written for one place that divides by a group's size.
references: ['https://docs.vllm.ai/en/latest/usage/troubleshooting.html']
examples:
  {id}.log: 'constructed'
"""


@pytest.mark.parametrize(("extra", "warned"), [
    ("", True),  # nothing to corroborate it: any division by zero would get its fix
    ("  frames: ['gpu_input_batch\\\\.py']\n", False),  # a frame that must be seen: the rule acts
])
def test_lint_warns_about_a_generic_message_with_nothing_to_corroborate_it(
        tmp_path: Path, extra: str, warned: bool) -> None:
    from logsleuth.signatures.lint import lint

    name = "division-somewhere"
    (tmp_path / f"{name}.yaml").write_text(LINTED.format(id=name, extra=extra), encoding="utf-8")
    (tmp_path / f"{name}.log").write_text(
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.12/site-packages/vllm/v1/worker/gpu_input_batch.py", '
        'line 3, in add_request\n'
        "    local_rank = global_rank % local_world_size\n"
        "ZeroDivisionError: integer division or modulo by zero\n", encoding="utf-8")
    found = [p for p in lint([tmp_path]) if "is generic" in p.message]
    assert bool(found) is warned, [p.message for p in lint([tmp_path])]
