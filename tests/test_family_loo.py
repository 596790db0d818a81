"""Families generalise (issue 11): with every exact signature withheld, the family that matches a
known failure names the knobs of its real fix (tools/family_loo/loo.py, leave-one-out).

The floors are the measure after the family work of session 8 minus a margin of two: a change to matching or
to a family that loses what families knew fails here. Raise them when the figures rise."""

from __future__ import annotations

from functools import cache
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from logsleuth.model import SignatureKind
from logsleuth.signatures import default_signatures
from tool_import import import_tool

# long (tests/conftest.py runs them first): the whole module, so that its tests stay together
# on one worker and share what its functools.cache helpers computed once
pytestmark = pytest.mark.long

# least number of probes the families alone get right, per set of groups. Cited and uncited
# count together: a probe moves from one to the other when an exact signature's example gains its
# public source in `examples` (the lead's merge with sigs-b moved three). Session 22's measure
# (match branch: renamed knobs with their releases, seven more classes, ROCm's attention and
# quantization, the CPU backend's IPEX) less two in every set: cited+uncited 233 of 244,
# constructed 455 of 505, tuning 244 of 263, corpus 36 of 36.
# public source in `examples` (the lead's merge with sigs-b moved three). Session 21's measure
# (match branch, family fixes widened to their classes' remedies) less two in every set:
# cited+uncited 228 of 239, constructed 443 of 492, tuning 231 of 245, corpus 36 of 36.
# Session 22 (dev-fix: the shell's launch errors get their family, argparse's refusal of a
# plugin's quantization method names the plugin's release, the LoRA family knows the server's
# other LoRA settings, a framework's refusal of the installed vLLM and an unknown quantization
# name, a container refused its accelerator, an unparsable version get their families) less
# two: cited+uncited 234 of 245, constructed 468 of 510, tuning 242 of 263, corpus 36 of 36.
# The lead's merge of both (with sigs-a's and sigs-b's new tuning cases and signatures) less two:
# cited+uncited 237 of 248, constructed 474 of 519, tuning 251 of 276, corpus 36 of 36.
# Session 23 (dev-fix: the fourteenth split's classes, the kernel-fault families' fused
# all-reduce pass, families' concrete remedies) less two: cited+uncited 237 of 248, constructed
# 479 of 525, tuning 261 of 284, corpus 36 of 36.
# Session 24 (partition): the example logs of 27 signatures gained `examples` keys, most of them
# source-built (`constructed`), and six examples taken from held-out threads were dropped; the
# probes moved groups, none was lost to a miss (65 misses before and after): cited+uncited 205 of
# 218, constructed 509 of 561, tuning 274 of 305, corpus 36 of 36. Floors less two.
# Session 31 (sigs-a): the last 13 uncited examples gained sources, most rebuilt from vLLM's source
# as `constructed` (held-out or unrecorded shapes replaced), so 22 probes left cited+uncited; the
# misses there went 12 -> 11: cited+uncited 199 of 210 (was 208 of 220), constructed 606 of 682,
# tuning 344 of 409, corpus 36 of 36. Cited+uncited floor that less two.
# Session 32 (sigs-a): families widened with the remedies their exact members share (HCCL's link
# variables, the Ascend runtime's CANN environment, Gaudi's visible modules, the host's amdgpu
# driver, parsers and scripts of another release, full CUDA graphs, AITER, warm-up shapes, ...):
# cited+uncited 199 of 210, constructed 606 -> 615 of 682, tuning 350 -> 363 of 423, corpus 36 of
# 36. Every floor that less two.
# Session 33 (sigs-a): families for Mooncake's transfers and torch.accelerator's device-generic
# calls, argparse's missing required argument in cli-argument-value-rejected: cited 201 of 213,
# constructed 625 -> 629 of 691, tuning 369 -> 372 of 436, corpus 36 of 36. Floors less two.
# Session 34 (sigs-a): families for a process user with no name or home, torch.accelerator's
# words, FastAPI/Starlette route objects, vLLM's Dockerfile steps and vLLM's compiled extensions;
# widened for Ascend launch grids, KV connector keys, multi-step parallel sampling, a shadowing
# vllm.py, the engines' start-up wait, the TCP store's port, the Gaudi bridge and INC: cited
# 201 -> 203 of 213, constructed 641 -> 651 of 703, tuning 382 -> 395 of 451, corpus 36 of 36.
# Floors less two.
# Session 35 (sigs-a): families whose remedy names the fix (cuda-oom's other model on the same
# GPU, a LoRA adapter's folder as the model, the prompt-replacement assertion, harmony parse
# errors, Triton's power-of-two blocks, V0's iteration timeout, dropped MTP layers, no platform,
# the IO Processor plugin) and two new families (url-ipv6-host-unbracketed,
# ray-compiled-graph-step-timeout): cited 204 -> 205 of 213, constructed 677 -> 681 of 731,
# tuning 415 -> 422 of 468, corpus 36 of 36. Floors less two.
FLOORS = {("cited", "uncited"): 203, ("constructed",): 679, ("tuning",): 420, ("corpus",): 34}


@cache
def tool() -> ModuleType:
    return import_tool("family_loo", "loo")


@cache
def results() -> tuple[object, ...]:
    loo = tool()
    return tuple(loo.run(loo.all_probes(default_signatures())))


@pytest.mark.parametrize(("fix", "wanted"), [
    ("Start with `--max-model-len 8192` or lower --gpu-memory-utilization.",
     {"--max-model-len", "--gpu-memory-utilization"}),
    ("Set NCCL_P2P_DISABLE=1 (or `CUDA_VISIBLE_DEVICES`).", {"NCCL_P2P_DISABLE",
                                                             "CUDA_VISIBLE_DEVICES"}),
    ("In Python: `LLM(model=..., enforce_eager=True, max_num_seqs=16)`.",
     {"enforce_eager", "max_num_seqs"}),
    ("`pip install -U flashinfer-python`, or install `librosa`.", {"flashinfer-python",
                                                                   "librosa", "upgrade"}),
    ("Upgrade vLLM: `pip install -U vllm`.", {"vllm", "upgrade"}),
    ("Use `--dtype half`; `auto` and `true` are values, not knobs.", {"--dtype"}),
])
def test_knobs_are_read_from_a_fix(fix: str, wanted: set[str]) -> None:
    assert set(tool().knobs(fix)) == wanted


FLAG_WORD = st.from_regex(r"[a-z]{2,8}(-[a-z0-9]{1,6}){0,3}", fullmatch=True)
ENV_WORD = st.from_regex(r"[A-Z]{2,6}(_[A-Z0-9]{1,6}){1,3}", fullmatch=True)


@given(FLAG_WORD, ENV_WORD, st.sampled_from(["", "`", "("]), st.sampled_from(["", ".", ",", "`"]))
def test_any_flag_and_env_var_in_prose_is_a_knob(flag: str, env: str, before: str,
                                                  after: str) -> None:
    fix = f"Try {before}--{flag}{after} and set {before}{env}=1{after} before starting vLLM."
    found = tool().knobs(fix)
    assert f"--{flag}" in found and (len(env) < 5 or env in found)


def test_the_measure_withholds_every_exact_signature_and_never_reads_the_held_out_set() -> None:
    loo = tool()
    families = loo.families_only(default_signatures())
    assert len(families) and all(s.kind is SignatureKind.FAMILY for s in families)
    assert all("holdout" not in path.parts for path in loo.CASE_SETS.values())
    assert all("holdout" not in probe.log.parts for probe in loo.all_probes(default_signatures()))


def test_every_outcome_is_judged_by_the_knobs_the_family_names() -> None:
    loo = tool()
    for result in results():
        assert (result.outcome is loo.Outcome.NONE) == (result.family is None)
        assert (result.outcome is loo.Outcome.RIGHT) == bool(result.shared)
        assert set(result.shared) <= set(result.probe.knobs)


@pytest.mark.parametrize("groups", sorted(FLOORS), ids="+".join)
def test_families_alone_name_the_knobs_of_known_failures(groups: tuple[str, ...]) -> None:
    loo = tool()
    right = sum(1 for r in results() if r.probe.group.value in groups
                and r.outcome is loo.Outcome.RIGHT)
    missed = [f"{r.probe.name} -> {r.family}" for r in results()
              if r.probe.group.value in groups and r.outcome is not loo.Outcome.RIGHT]
    assert right >= FLOORS[groups], f"{right} right, floor {FLOORS[groups]}; misses: {missed[:20]}"
