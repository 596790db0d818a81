"""Every family's fix names concrete remedies (issue 11): flags, environment variables, config
keys and packages pinned to versions, beyond the knobs that only make a failure say more
(`diagnostic:` in signatures/family-knobs.yaml) and beyond the triage the last resort
(fallback/fallback-any-error) gives any failure.

On unseen logs the largest kind of fix miss was a family that matched and whose advice was
generic: steps such as "upgrade", "match the stack", "report it upstream", with no setting the
user can turn. A family stands in for every member of its class that no exact signature knows,
so its fix must name at least MIN_CONCRETE settings of its own subsystem. The knobs are read
mechanically, by kind:

- a flag (`--max-model-len`, `--no-build-isolation`, Docker's `--shm-size`);
- an environment variable (`VLLM_USE_DEEP_GEMM`, `NCCL_P2P_DISABLE`);
- a config key given a value or named alone in backticks (`"fuse_allreduce_rms": false`,
  `max_num_seqs=16`, `quantization_config`);
- a package pinned to a version (`transformers<4.54`, `numpy==1.26.4`, `flashinfer-python>=0.2.3`).

A flag and its `LLM()` keyword are one knob."""

from __future__ import annotations

import re
from functools import cache

import pytest

from logsleuth.model import SignatureKind
from logsleuth.resources import data_dir
from logsleuth.signatures import default_signatures
from logsleuth.signatures.load import Signature
from logsleuth.yamlload import load_yaml

MIN_CONCRETE = 3

_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:[-.][a-z0-9_]+)*")
_ENV = re.compile(r"(?<![\w.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w.])")
_KEY = re.compile(r"""(?<![\w.-])["'`]?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)["'`]?\s?[:=]\s?[\w"'\[{.-]""")
# a key alone in backticks, or the last part of a dotted path to it
# (`quantization_config.quant_method`, `actor_rollout_ref.rollout.free_cache_engine`)
_TICKED_KEY = re.compile(r"`(?:[a-z][a-z0-9_]*\.)*([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`")
# a JSON key given a value (`{"publisher": "zmq"}`): a config key whatever its spelling
_JSON_KEY = re.compile(r'"([a-z][a-z0-9_]*)"\s?:\s?[\w"\[{.-]')
_PINNED = re.compile(r"(?<![\w-])([A-Za-z][\w.-]*[A-Za-z0-9])\s?(?:[<>=!~]=|[<>])\s?v?\d+(?:\.\d+)*")


def _one(knob: str) -> str:
    """One spelling per knob: `--max-model-len`, `max_model_len` and `MAX_MODEL_LEN` meet."""
    return knob.lstrip("-").split("=")[0].replace("-", "_").lower()


def concrete_knobs(fix: str) -> set[str]:
    """The concrete knobs a fix names, each in one spelling (see the module's docstring)."""
    found = set(_FLAG.findall(fix)) | {e for e in _ENV.findall(fix) if len(e) >= 5}
    found |= set(_KEY.findall(fix)) | set(_TICKED_KEY.findall(fix)) | set(_JSON_KEY.findall(fix))
    found |= set(_PINNED.findall(fix))
    return {_one(knob) for knob in found}


@cache
def _signatures() -> dict[str, Signature]:
    return {s.id: s for s in default_signatures()}


@cache
def generic_knobs() -> frozenset[str]:
    """Diagnostic knobs and the last resort's triage: what no family's own remedy is."""
    data, _ = load_yaml(data_dir("signatures") / "family-knobs.yaml")
    last_resort = _signatures()["fallback-any-error"].fix
    return frozenset({_one(k) for k in data["diagnostic"]} | concrete_knobs(last_resort))


def own_remedies(signature: Signature) -> set[str]:
    return concrete_knobs(signature.fix) - generic_knobs()


def _families() -> list[str]:
    return sorted(i for i, s in _signatures().items() if s.kind is SignatureKind.FAMILY)


# Families whose fix names fewer own remedies than MIN_CONCRETE, each with why (strict: an entry
# leaves when its fix names more). Session 23 improved eight that failed the first run from vLLM's
# source and docs (custom-kernel-op-rejected: --linear-backend, --moe-backend,
# VLLM_DISABLED_KERNELS; native-assert-aborted: the triton pins of torch 2.5 and 2.6,
# TRITON_CACHE_DIR; pip-dependency-conflict: the torch pins of vLLM releases, --constraint,
# PIP_CONSTRAINT; sparse-attention-indexer-rejected: --sparse-indexer-topk-backend,
# VLLM_SPARSE_INDEXER_MAX_LOGITS_MB; library-numpy-abi-error: a rebuild with --force-reinstall
# --no-deps; ray-exception-not-deserializable: VLLM_DISABLE_COMPILE_CACHE, VLLM_CACHE_ROOT;
# library-compressed-tensors-error: quant_method, config_groups, ignore;
# library-model-support-package-error: --model-impl vllm, MAX_JOBS; kv-events-publisher-rejected
# passes once JSON keys are read as config keys, quantization-scheme-unknown and
# verl-rollout-settings-rejected once dotted keys are). Session 24 improved two more from vLLM's
# source and requirements: vllm-logging-config-rejected (VLLM_LOGGING_STREAM, VLLM_LOGGING_PREFIX,
# dictConfig's disable_existing_loggers), library-harmony-encoding-error (HTTPS_PROXY, vLLM's
# openai-harmony>=0.0.3 pin).
KNOWN_GENERIC: dict[str, str] = {
    "engine-started-off-main-thread":
        "Why not improved: the remedy is where the engine is created (on the main thread, vLLM "
        "serve as its own process) or a release past 0.10.2; the one setting that bears on it is "
        "VLLM_USE_V1, and vLLM has no flag that lifts the main-thread requirement",
    "feature-requires-eager-mode":
        "Why not improved: the class's whole remedy is to run without CUDA graphs: --enforce-eager "
        "(also the last resort's triage) or cudagraph_mode in --compilation-config; a third "
        "setting would be padding",
    "framework-refuses-vllm-version":
        "Why not improved: the remedy is a vLLM release inside the framework's range, which each "
        "message states (remedy.yaml's implies turn it into the pin), or the framework's own "
        "bypass (DISABLE_VERSION_CHECK); no other setting holds for every framework",
    "launcher-command-not-runnable":
        "Why not improved: the remedies are shell and container commands (the PATH, chmod +x, "
        "docker's --platform, pip's --force-reinstall, dos2unix), not settings; the check reads "
        "PATH, without an underscore, as no variable",
    "library-cutlass-dsl-error":
        "Why not improved: the remedy is the nvidia-cutlass-dsl and quack-kernels versions each "
        "vLLM release pins (not indexed here, so no pin can be named for every release) or another "
        "attention backend, which the last resort names too",
}


@pytest.mark.parametrize("family", [
    pytest.param(f, marks=pytest.mark.xfail(reason=KNOWN_GENERIC[f], strict=True))
    if f in KNOWN_GENERIC else f for f in _families()])
def test_a_family_fix_names_concrete_remedies_of_its_own(family: str) -> None:
    remedies = own_remedies(_signatures()[family])
    assert len(remedies) >= MIN_CONCRETE, (
        f"{family}'s fix names {len(remedies)} concrete remedies of its own ({sorted(remedies)}); "
        f"a family needs {MIN_CONCRETE}: flags, environment variables, config keys, pinned "
        "packages beyond the diagnostic knobs and the last resort's triage")


@pytest.mark.parametrize(("fix", "wanted"), [
    ("Turn it off: `--compilation-config '{\"pass_config\": {\"fuse_allreduce_rms\": false}}'`.",
     {"compilation_config", "pass_config", "fuse_allreduce_rms"}),
    ("`export VLLM_FLASHINFER_ALLREDUCE_BACKEND=trtllm`, or `LLM(..., max_num_seqs=16)`.",
     {"vllm_flashinfer_allreduce_backend", "max_num_seqs"}),
    ("Pin `pip install 'transformers<4.54'` or numpy==1.26.4.", {"transformers", "numpy"}),
    ("Upgrade vLLM, match the stack and report it upstream.", set()),
    ("Set `--max-model-len` (Python `max_model_len=8192`).", {"max_model_len"}),
    ("Check `quantization_config.quant_method` in config.json.", {"quant_method"}),
    ("""`--kv-events-config '{"publisher": "zmq", "topic": "kv"}'`""",
     {"kv_events_config", "publisher", "topic"}),
])
def test_concrete_knobs_are_read_by_kind(fix: str, wanted: set[str]) -> None:
    assert concrete_knobs(fix) == wanted


def test_diagnostic_and_triage_knobs_are_no_family_remedy() -> None:
    generic = generic_knobs()
    assert {"cuda_launch_blocking", "vllm_logging_level", "enforce_eager"} <= generic
    assert "gpu_memory_utilization" not in generic


def test_a_generic_fix_fails_the_check() -> None:
    fix = ("1. Rerun with `CUDA_LAUNCH_BLOCKING=1` and `VLLM_LOGGING_LEVEL=DEBUG`.\n"
           "2. Upgrade vLLM; try `--enforce-eager`.\n3. Report it upstream.")
    assert not concrete_knobs(fix) - generic_knobs()
