"""The root cause's matches and those of the error raised from it (issue 11; session 28).

A chained error (`raise X(...) from e`) is the root's failure restated by its caller: its matches
weigh CHAIN_WEIGHT, which decides only where the tier and the kind do not (the matcher's
docstring, "The root cause and the errors raised from it"). So, whatever wraps the log:

- an exact signature that the root fits in full ranks before a family matched on the chain;
- a family's words on the root rank before a family's words on the chain (the weight);
- an exact signature's words on the chain rank before a family's words on the root (the kind);
- a family's words on the chain rank before a family that knows the root by its raising module
  alone (words say what failed, a module only where).

Generated: a script's chained traceback (the root raised in a vLLM subsystem, the caller's
error naming the backend), its messages with drawn words, behind any launcher's wrapper (the
blank lines around "The above exception ..." wrapped too) or none.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet
from logsleuth.signatures.load import Signature, load_signature_file
from metamorphic import LINE_WRAPPERS, Anchor

SITE = "/opt/venv/lib/python3.11/site-packages/vllm"
_HEAD = ("title: a probe of root and chain\ncategory: probe\nkind: {kind}\n"
         "description: A signature made for a test of the rank order.\nseverity: error\n"
         "status: stable\nfix: {fix} This advice is made up for a test of the rank order and "
         "fixes nothing real.\nreferences: [https://docs.vllm.ai/]\nmatch:\n")
PROBES = {
    "probe-root-exact": ("exact", "Define every zorbit rule.",
                         "  exception: [ValueError]\n"
                         "  message: ['Zorbit rules are not defined: {any}']\n"),
    "probe-root-words": ("family", "Check the zorbit rules.",
                         "  exception: [ValueError]\n  regex: ['(?i)zorbit rules']\n"),
    "probe-root-module": ("family", "Check the zorbit subsystem.",
                          "  exception: [ValueError]\n  module: ['^vllm\\.v1\\.zorbit\\.']\n"),
    "probe-chain-words": ("family", "Use another quux backend.",
                          "  regex: ['(?i)\\bquuxgrammar\\b']\n"),
    "probe-chain-exact": ("exact", "Pin quuxgrammar.",
                          "  exception: [ValueError]\n"
                          "  message: ['Failed to compile the quuxgrammar constraint{any}']\n"),
}


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Signature]:
    folder = tmp_path_factory.mktemp("probes") / "probe"
    folder.mkdir()
    out = {}
    for name, (kind, fix, match) in PROBES.items():
        path = folder / f"{name}.yaml"
        path.write_text(f"id: {name}\n" + _HEAD.format(kind=kind, fix=fix) + match,
                        encoding="utf-8")
        out[name] = load_signature_file(path)
    return out


WORDS = ["Z0", "Z_", "zA", "rule_1", "digit", "ws", "a", "item"]


@cache
def _wrapper_names() -> tuple[str, ...]:
    return ("", *sorted(LINE_WRAPPERS))


def chained_log(undefined: list[str], tail: str, wrapper: str, seed: int) -> list[str]:
    lines = [
        "Traceback (most recent call last):",
        f'  File "{SITE}/v1/zorbit/utils.py", line 285, in validate_zorbit_request',
        "    params.grammar = convert_zorbit(params.grammar)",
        f'  File "{SITE}/v1/zorbit/utils.py", line 220, in convert_zorbit',
        '    raise ValueError("Zorbit rules are not defined: "',
        f"ValueError: Zorbit rules are not defined: {', '.join(undefined)}",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/home/user/offline.py", line 78, in <module>',
        "    outputs = llm.generate(prompts, params)",
        f'  File "{SITE}/v1/engine/processor.py", line 146, in _validate_structured_output',
        "    validate_zorbit_request(params)",
        f'  File "{SITE}/v1/zorbit/utils.py", line 287, in validate_zorbit_request',
        "    raise ValueError(",
        f"ValueError: Failed to compile the quuxgrammar constraint{tail}",
    ]
    if not wrapper:
        return lines
    moved = LINE_WRAPPERS[wrapper](lines, random.Random(seed), Anchor(6, 6))
    assert moved is not None
    return moved.lines


def best(lines: list[str], database: SignatureSet) -> tuple[str | None, str | None]:
    report = explain_text("\n".join(lines) + "\n", signatures=database)
    assert report.root_cause is not None
    assert report.root_cause.message.startswith("Zorbit rules are not defined"), report.root_cause
    match = report.signature
    return (match.id, match.target) if match else (None, None)


@pytest.mark.long
@settings(max_examples=20, deadline=None)
@given(undefined=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True),
       tail=st.sampled_from(["", ".", ". ", " for request 3.", ": rules missing"]),
       wrapper=st.sampled_from(_wrapper_names()), seed=st.integers(0, 2**16))
def test_the_root_and_the_error_raised_from_it_rank_by_tier_then_kind_then_weight(
        probes: dict[str, Signature], undefined: list[str], tail: str, wrapper: str,
        seed: int) -> None:
    lines = chained_log(undefined, tail, wrapper, seed)

    def pair(*names: str) -> SignatureSet:
        return SignatureSet([probes[name] for name in names])

    # an exact signature the root fits in full, before a family's words on the chain
    assert best(lines, pair("probe-chain-words", "probe-root-exact")) == \
        ("probe-root-exact", "root_cause")
    # a family's words on the root, before a family's words on the chain (the weight)
    assert best(lines, pair("probe-chain-words", "probe-root-words")) == \
        ("probe-root-words", "root_cause")
    # an exact signature's words on the chain, before a family's words on the root (the kind)
    assert best(lines, pair("probe-root-words", "probe-chain-exact")) == \
        ("probe-chain-exact", "chain")
    # a family's words on the chain, before a family that knows the root's raising module alone
    assert best(lines, pair("probe-root-module", "probe-chain-words")) == \
        ("probe-chain-words", "chain")
    # and the module family answers when no words are known
    assert best(lines, pair("probe-root-module")) == ("probe-root-module", "root_cause")


# What the chain's text holds is the assembler's to get right: session 27's break was a chain
# message that, behind a launcher's prefix on every line, ran on into torch_npu's exit record and
# xgrammar's leak report after it (which name the backend), handing a backend family words the
# failure never said. The exception line and the record after it both carry the launcher's
# wrapper; only the record carries a relay's level (LogLine.relayed).
EXIT_AND_LEAKS = ["[ERROR] 2025-04-03-06:53:18 (PID:74050, Device:-1, RankID:-1) ERR99999 UNKNOWN "
                  "applicaiton exception",
                  "nanobind: leaked 1 instances!",
                  ' - leaked instance 0xfffd00288708 of type "quuxgrammar.bindings.Compiler"',
                  "nanobind: leaked 1 types!",
                  ' - leaked type "quuxgrammar.bindings.Compiler"']


@settings(max_examples=30, deadline=None)
@given(undefined=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True),
       wrapper=st.sampled_from(_wrapper_names()), seed=st.integers(0, 2**16),
       leaks=st.integers(0, len(EXIT_AND_LEAKS) - 1))
def test_a_relayed_exit_record_after_the_chain_is_not_its_message_behind_any_wrapper(
        probes: dict[str, Signature], undefined: list[str], wrapper: str, seed: int,
        leaks: int) -> None:
    plain = chained_log(undefined, "", "", seed)
    plain[-1] = "ValueError: Failed to convert the zorbit grammar."
    plain += EXIT_AND_LEAKS[:leaks + 1]
    lines = plain
    if wrapper:
        moved = LINE_WRAPPERS[wrapper](plain, random.Random(seed), Anchor(6, 6))
        assert moved is not None
        lines = moved.lines
    database = SignatureSet([probes["probe-root-module"], probes["probe-chain-words"]])
    report = explain_text("\n".join(lines) + "\n", signatures=database)
    chain = [s for s in report.symptoms if s.message.startswith("Failed to convert")]
    assert chain and chain[0].message == "Failed to convert the zorbit grammar.", chain
    assert report.signature is not None and report.signature.id == "probe-root-module"
