"""A knob that changed its name between releases (issue 11): advice for a log nobody has seen must
hold for the release that wrote it, so a family whose fix names one name of a renamed or replaced
setting names the other too, each with the releases that read it (`eras:` in
signatures/family-knobs.yaml). The releases are not written by hand twice: each name's first and
last release come from vLLM's engine arguments and vllm/envs.py across releases (the index), and
the fix must carry them next to the name.

Generated logs then check the pipeline end to end: a flag refused as unrecognized (a release too
old for the new name, or too new for the old one) is answered with the other name, and failures
of the classes whose knobs were renamed (CUDA-graph memory, attention backends, structured output,
engine step timeouts, the multimodal processor cache) name both spellings, in every era's log
shape."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.data import default_index
from logsleuth.model import Phase, SignatureKind
from logsleuth.resources import data_dir
from logsleuth.signatures import default_signatures
from logsleuth.signatures.load import Signature
from logsleuth.yamlload import load_yaml
from v1log import ERAS, signature_advice, worker_failure

WINDOW = 90  # characters after a name within which its releases must be written


@cache
def eras() -> tuple[dict[str, Any], ...]:
    data: Any = load_yaml(data_dir("signatures") / "family-knobs.yaml")[0]
    return tuple(data["eras"])


@cache
def signatures() -> dict[str, Signature]:
    return {s.id: s for s in default_signatures()}


@cache
def indexed() -> tuple[tuple[str, ...], dict[str, tuple[int, ...]]]:
    """The indexed releases (oldest first) and, per flag or variable, the releases that read it."""
    index = default_index()
    found: dict[str, set[int]] = {}
    for argument in index.arguments:
        found.setdefault(argument.flag, set()).update(argument.releases)
    for variable in index.environment:
        found.setdefault(variable.name, set()).update(variable.releases)
    return index.releases, {name: tuple(sorted(at)) for name, at in found.items()}


def _plain(release: str) -> str:
    return re.sub(r"\.post\d+$", "", release)


def _minor(release: str) -> str:
    return ".".join(release.split(".")[:2])


def first_release(name: str) -> set[str]:
    """How a fix may write the first release that reads `name`: that release, or its minor
    version when the indexed release before it is of another minor (so the minor's first release
    already had it, as far as the index tells)."""
    releases, at = indexed()
    first = at[name][0]
    ways = {_plain(releases[first])}
    if first == 0 or _minor(releases[first - 1]) != _minor(releases[first]):
        ways.add(_minor(releases[first]))
    return ways


def last_release(name: str) -> set[str]:
    """How a fix may write the last release that reads `name`: that release, or its minor
    version when the indexed release after it is of another minor."""
    releases, at = indexed()
    last = at[name][-1]
    ways = {_plain(releases[last])}
    if last + 1 == len(releases) or _minor(releases[last + 1]) != _minor(releases[last]):
        ways.add(_minor(releases[last]))
    return ways


def written_with(fix: str, name: str, releases: set[str]) -> bool:
    """`name` occurs in `fix` with one of `releases` written within WINDOW characters after it."""
    for found in re.finditer(re.escape(name) + r"(?![\w-])", fix):
        after = fix[found.end():found.end() + WINDOW]
        if any(re.search(r"(?<![\d.])" + re.escape(r) + r"(?!\d)", after) for r in releases):
            return True
    return False


def era_problems(pair: dict[str, Any], fix: str) -> list[str]:
    problems = []
    for side, releases in (("old", last_release(pair["old"])), ("new", first_release(pair["new"]))):
        name = pair[side]
        if name not in fix:
            problems.append(f"does not name {name}")
        elif not written_with(fix, name, releases):
            problems.append(f"names {name} without its release ({' or '.join(sorted(releases))})")
    return problems


def _pairs() -> list[tuple[int, str]]:
    return [(number, family) for number, pair in enumerate(eras()) for family in pair["families"]]


def test_each_pair_is_an_older_and_a_newer_name_of_vllm_releases() -> None:
    releases, at = indexed()
    assert len(eras()) >= 10
    for pair in eras():
        old, new = pair["old"], pair["new"]
        assert old in at and new in at, f"{old} or {new} is in no indexed release"
        assert pair["how"] in {"renamed", "replaced"}, pair
        assert pair["docs"].startswith("https://") and "/issues/" not in pair["docs"], pair
        assert at[old][0] < at[new][0], f"{old} is not the older name of {new}"
        assert at[old][-1] < len(releases) - 1, f"{old} is still read by the newest release"
        assert at[new][-1] == len(releases) - 1, f"{new} is not read by the newest release"


@pytest.mark.parametrize(("number", "family"), _pairs(),
                         ids=[f"{eras()[n]['new']}:{f}" for n, f in _pairs()])
def test_a_family_names_both_names_with_their_releases(number: int, family: str) -> None:
    pair = eras()[number]
    signature = signatures().get(family)
    assert signature is not None, f"{family} is listed under {pair['new']} but no signature has it"
    assert signature.kind is SignatureKind.FAMILY, f"{family} is not a family"
    problems = era_problems(pair, signature.fix)
    assert not problems, f"{family}: {problems}"


def _everywhere() -> list[tuple[int, str]]:
    """(pair, family) for every family whose fix names either name of an `everywhere` pair."""
    found = []
    for number, pair in enumerate(eras()):
        if not pair.get("everywhere"):
            continue
        names = [re.compile(re.escape(pair[side]) + r"(?![\w-])") for side in ("old", "new")]
        for signature in signatures().values():
            if signature.kind is SignatureKind.FAMILY and any(n.search(signature.fix)
                                                              for n in names):
                found.append((number, signature.id))
    return found


def test_every_family_naming_a_current_pair_names_both_with_their_releases() -> None:
    """A pair whose old name logs of current releases still show: any family that names one
    name names the other, each with its releases, wherever in its fix."""
    pairs = _everywhere()
    assert len(pairs) >= 60
    problems = {f"{eras()[n]['new']}:{family}": era_problems(eras()[n], signatures()[family].fix)
                for n, family in pairs}
    assert not {k: v for k, v in problems.items() if v}


def test_a_fix_without_a_release_fails_the_check() -> None:
    """The check can fail: the same fix with the old name's release taken out is caught."""
    pair = next(p for p in eras() if p["old"] == "VLLM_ATTENTION_BACKEND")
    fix = signatures()["engine-config-invalid"].fix
    assert not era_problems(pair, fix)
    cut = fix.replace("`VLLM_ATTENTION_BACKEND` (through 0.14)", "`VLLM_ATTENTION_BACKEND`")
    assert era_problems(pair, cut) == ["names VLLM_ATTENTION_BACKEND without its release (0.14 or "
                                       "0.14.1)"]
    assert era_problems(pair, fix.replace("--attention-backend", "the flag")) == [
        "does not name --attention-backend"]


# ---- generated logs: a flag one release does not know ---------------------------------------

# (old flag with a value, new flag with a value): flags whose release refuses the other name
_FLAGS = [("--cuda-graph-sizes 1 2 4", "--cudagraph-capture-sizes 1 2 4"),
          ("--guided-decoding-backend xgrammar",
           '--structured-outputs-config {"backend":"xgrammar"}'),
          ("--task embed", "--runner pooling"),
          ("--speculative-model /models/draft", '--speculative-config {"model":"/models/draft"}'),
          ("--disable-log-requests", "--enable-log-requests"),
          ("--worker-use-ray", "--distributed-executor-backend ray"),
          ("--disable-mm-preprocessor-cache", "--mm-processor-cache-gb 0"),
          ("--override-pooler-config {}", '--pooler-config {"pooling_type":"MEAN"}')]
_PROGRAMS = st.sampled_from(["vllm serve", "api_server.py", "vllm"])
_LAUNCHERS = st.sampled_from(["", "vllm-1  | ", "vllm-server-1  | ",
                              "2025-06-01T10:00:00.000000Z stderr F "])


@settings(max_examples=60, deadline=None)
@given(flags=st.sampled_from(_FLAGS), newer=st.booleans(), program=_PROGRAMS,
       launcher=_LAUNCHERS)
def test_a_flag_the_release_does_not_know_is_answered_with_its_other_name(
        flags: tuple[str, str], newer: bool, program: str, launcher: str) -> None:
    refused, other = (flags[1], flags[0]) if newer else flags
    log = (f"{launcher}usage: {program} [-h] [--model MODEL] [--port PORT]\n"
           f"{launcher}{program}: error: unrecognized arguments: {refused}\n")
    _, fix = signature_advice(log)
    assert other.split()[0] in fix, (refused, fix[:300])


# ---- generated logs: failures of the classes whose knobs were renamed ------------------------

_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {mib}.00 MiB. GPU {gpu} has "
        "a total capacity of 79.19 GiB of which {free}.56 MiB is free. Including non-PyTorch "
        "memory, this process has 79.08 GiB memory in use.")
_STEP_TIMEOUTS = ["TimeoutError: RPC call to execute_model timed out.",
                  "TimeoutError: RPC call to sample_tokens timed out."]
_GRAMMARS = [f"RuntimeError: {backend} failed to compile the grammar: unsupported JSON schema "
             f"keyword '{keyword}'" for backend in ("xgrammar", "guidance")
             for keyword in ("patternProperties", "if", "dependentSchemas")]


def _answer(error: str, phase: Phase, era: int) -> tuple[str, str]:
    return signature_advice(worker_failure(error, phase=phase, era=ERAS[era]))


def _pair(new: str) -> dict[str, Any]:
    return next(p for p in eras() if p["new"] == new)


@settings(max_examples=30, deadline=None)
@given(mib=st.integers(2, 4096), gpu=st.integers(0, 7), free=st.integers(1, 900),
       era=st.integers(0, len(ERAS) - 1))
def test_graph_capture_memory_names_the_capture_sizes_of_every_era(
        mib: int, gpu: int, free: int, era: int) -> None:
    signature, fix = _answer(_OOM.format(mib=mib, gpu=gpu, free=free), Phase.GRAPH_CAPTURE, era)
    assert signature in _pair("--cudagraph-capture-sizes")["families"]
    assert not era_problems(_pair("--cudagraph-capture-sizes"), fix)
    assert "--max-cudagraph-capture-size" in fix and "--enforce-eager" in fix


@settings(max_examples=20, deadline=None)
@given(error=st.sampled_from(_STEP_TIMEOUTS), era=st.integers(0, len(ERAS) - 1))
def test_a_step_timeout_names_the_limit_of_both_engines(error: str, era: int) -> None:
    signature, fix = _answer(error, Phase.SERVING, era)
    pair = _pair("VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS")
    # (since session 35 the engine core's `Worker failed with error '...'` quoting the timeout is
    # the symptom it restates, and the exact signature of the timeout answers it)
    assert signature in [*pair["families"], "rpc-execute-model-timeout"]
    assert not era_problems(pair, fix)


@settings(max_examples=20, deadline=None)
@given(error=st.sampled_from(_GRAMMARS), era=st.integers(0, len(ERAS) - 1))
def test_a_grammar_backend_failure_names_both_backend_flags(error: str, era: int) -> None:
    signature, fix = _answer(error, Phase.SERVING, era)
    pair = _pair("--structured-outputs-config")
    assert signature in pair["families"]
    assert not era_problems(pair, fix)


@settings(max_examples=20, deadline=None)
@given(processor=st.sampled_from(["Qwen2VLProcessor", "LlavaProcessor", "Gemma3Processor"]),
       era=st.integers(0, len(ERAS) - 1), phase=st.sampled_from([Phase.PROFILE, Phase.SERVING]))
def test_a_multimodal_processor_failure_names_both_cache_switches(
        processor: str, era: int, phase: Phase) -> None:
    error = (f"RuntimeError: Failed to apply {processor} on data={{'text': '<image>', "
             "'images': [...]}} with kwargs={}")
    signature, fix = _answer(error, phase, era)
    pair = _pair("--mm-processor-cache-gb")
    assert signature in pair["families"]
    assert not era_problems(pair, fix)


@settings(max_examples=20, deadline=None)
@given(error=st.sampled_from([
    "ValueError: No valid attention backend found for cuda with head_size: 80, dtype: "
    "torch.float32, kv_cache_dtype: auto, block_size: 16, use_mla: False",
    "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    "RuntimeError: CUDA error: an illegal memory access was encountered"]),
    era=st.integers(0, len(ERAS) - 1), phase=st.sampled_from([Phase.PROFILE, Phase.SERVING]))
def test_an_attention_failure_names_the_flag_and_the_variable(error: str, era: int,
                                                              phase: Phase) -> None:
    _, fix = _answer(error, phase, era)
    assert "--attention-backend" in fix and "VLLM_ATTENTION_BACKEND" in fix
