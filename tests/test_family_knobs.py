"""A family's fix names every standard remedy of its class (issue 11): the classes, their families
and the knobs each must name are data (`signatures/family-knobs.yaml`, each knob with the page
that documents it); the tests are generated from it, one per family and class.

A family answers failures no exact signature knows, so its fix must carry the remedies that hold
for the whole class (an OOM: `--gpu-memory-utilization`, `--max-model-len`, `--max-num-seqs`,
`--enforce-eager`, TP; NCCL: `NCCL_P2P_DISABLE`, `NCCL_SOCKET_IFNAME`, shm size; ...), not only
the one its first example needed. On unseen logs most fix misses were a family that matched and
whose fix lacked the remedy the report's thread confirmed."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.data import default_index
from logsleuth.model import SignatureKind
from logsleuth.resources import data_dir
from logsleuth.signatures import default_signatures
from logsleuth.signatures.load import Signature
from logsleuth.yamlload import load_yaml
from tool_import import import_tool
from v1log import python_traceback, signature_advice

KINDS = {"vllm-flag", "vllm-env", "env", "flag", "package", "word"}


@cache
def declared() -> dict[str, Any]:
    data, _ = load_yaml(data_dir("signatures") / "family-knobs.yaml")
    return data


@cache
def signatures() -> dict[str, Signature]:
    return {s.id: s for s in default_signatures()}


def missing_knobs(name: str, fix: str) -> list[str]:
    """The knobs of class `name` that a fix does not name (case-insensitive, as the scorers read
    a fix)."""
    lowered = fix.lower()
    return [k for k in declared()["classes"][name]["knobs"] if k.lower() not in lowered]


def _pairs() -> list[tuple[str, str]]:
    return [(name, family) for name, spec in sorted(declared()["classes"].items())
            for family in spec["families"]]


def _exact_pairs() -> list[tuple[str, str]]:
    return [(name, exact) for name, spec in sorted(declared()["classes"].items())
            for exact in spec.get("exact", [])]


@pytest.mark.parametrize(("name", "family"), _pairs(), ids=[f"{n}:{f}" for n, f in _pairs()])
def test_a_family_names_every_standard_knob_of_its_class(name: str, family: str) -> None:
    signature = signatures().get(family)
    assert signature is not None, f"{family} is declared in class {name} but no signature has its id"
    assert signature.kind is SignatureKind.FAMILY, f"{family} is not a family"
    missing = missing_knobs(name, signature.fix)
    assert not missing, f"{family}'s fix does not name {missing}, standard remedies of {name}"


@pytest.mark.parametrize(("name", "exact"), _exact_pairs(),
                         ids=[f"{n}:{e}" for n, e in _exact_pairs()])
def test_an_exact_signature_of_a_class_names_its_standard_knobs_too(name: str, exact: str) -> None:
    """An exact signature matches one message, but the thread behind an unseen log with that
    message may have needed another of the class's remedies: its fix keeps its own remedy first
    and names the class's after it (`exact:` in a class)."""
    signature = signatures().get(exact)
    assert signature is not None, f"{exact} is declared in class {name} but no signature has its id"
    assert signature.kind is SignatureKind.EXACT, f"{exact} is not an exact signature"
    missing = missing_knobs(name, signature.fix)
    assert not missing, f"{exact}'s fix does not name {missing}, standard remedies of {name}"


def test_every_class_knob_is_declared_with_its_kind_and_documentation() -> None:
    knobs = declared()["knobs"]
    for name, spec in declared()["classes"].items():
        assert spec["about"] and spec["families"] and spec["knobs"], name
        assert len(set(spec["families"])) == len(spec["families"]), name
        assert not set(spec["families"]) & set(spec.get("exact", [])), name
        undeclared = [k for k in spec["knobs"] if k not in knobs]
        assert not undeclared, f"class {name} asks for undeclared knobs {undeclared}"
    for knob, spec in knobs.items():
        assert spec["kind"] in KINDS, knob
        assert spec["docs"].startswith("https://"), knob
        assert "/issues/" not in spec["docs"], f"{knob}: cite documentation, not a report"
    used = {k for spec in declared()["classes"].values() for k in spec["knobs"]}
    assert set(knobs) == used, f"declared but asked by no class: {sorted(set(knobs) - used)}"


def test_vllm_knobs_are_real_flags_and_variables_of_some_release() -> None:
    index = default_index()
    flags = {a.flag for a in index.arguments}
    variables = {v.name for v in index.environment}
    for knob, spec in declared()["knobs"].items():
        if spec["kind"] == "vllm-flag":
            assert knob in flags, f"{knob} is no engine argument of any indexed vLLM release"
        elif spec["kind"] == "vllm-env":
            assert knob in variables, f"{knob} is in no indexed release's vllm/envs.py"


def test_the_leave_one_out_measure_reads_each_flag_and_variable_as_a_knob() -> None:
    """The knobs are what tools/family_loo counts a family right by: a flag or a variable it
    could not read in a fix would not count there."""
    loo = import_tool("family_loo", "loo")
    for knob, spec in declared()["knobs"].items():
        if spec["kind"] in {"vllm-flag", "vllm-env", "env"}:
            sentence = f"Try `{knob}` (or {knob}=1) before starting again."
            assert any(k == knob or k.startswith(knob) for k in loo.knobs(sentence)), knob


@pytest.mark.parametrize("knob", ["--gpu-memory-utilization", "NCCL_P2P_DISABLE"])
def test_a_fix_without_a_standard_knob_fails_the_check(knob: str) -> None:
    """The check can fail: the same family with the knob taken out of its fix is caught."""
    name, family = next((n, f) for n, f in _pairs() if knob in declared()["classes"][n]["knobs"])
    fix = signatures()[family].fix
    assert knob not in missing_knobs(name, fix)
    assert missing_knobs(name, fix.replace(knob, "the setting")) == [knob]


# ---- a family's members whose knob is not in their message ---------------------------------

# (module a program imports, the package that provides it): `pip install <module>` fails or
# installs something else, so the missing-package family's fix must say the package's name
_IMPORT_NAMES = [("cv2", "opencv-python-headless"), ("PIL", "pillow"), ("yaml", "pyyaml"),
                 ("sklearn", "scikit-learn"), ("fastchat", "fschat"),
                 ("flash_attn", "flash-attn")]


@settings(max_examples=30, deadline=None)
@given(member=st.sampled_from(_IMPORT_NAMES), sub=st.sampled_from(["", ".model", ".utils.io"]),
       caller=st.sampled_from(["entrypoints/openai/api_server.py", "multimodal/image.py",
                               "model_executor/models/llava.py"]),
       how=st.sampled_from(["ModuleNotFoundError: No module named '{m}'",
                            "ImportError: No module named '{m}'"]))
def test_a_module_whose_package_has_another_name_gets_the_package_name(
        member: tuple[str, str], sub: str, caller: str, how: str) -> None:
    module, package = member
    site = "/usr/local/lib/python3.10/dist-packages/vllm/"
    log = python_traceback([(site + caller, "<module>", f"from {module}{sub} import thing")],
                           how.format(m=module + sub))
    signature, fix = signature_advice(log)
    assert package in fix, (signature, fix[:200])
