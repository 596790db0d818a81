"""Release alignment across a package boundary (logsleuth/alignment.py, signatures/alignment.yaml):
when the root cause's words say two installed releases do not fit, the fix that answers (a family,
a fallback, a message's remedy; never an exact signature) names the package to move and the way.
Generated over the pairs (a platform plugin and vLLM, vLLM and transformers, vLLM's extension and
torch, a framework and vLLM), the ways a traceback reaches the log and where site-packages is,
with near misses that must get nothing: a user's own class, a frameless import inside a
framework's own package, vLLM's own code on its own object, an exact signature's failure, and a
call API drift already dates."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.alignment import alignment_text, boundary_of, load_alignment
from logsleuth.errors import SignatureError
from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback

MARK = "**Release alignment**"
PLUGINS = [("vllm_ascend", "vllm-ascend", "vllm_ascend/worker/model_runner_v1.py"),
           ("vllm_gaudi", "vllm-gaudi", "vllm_gaudi/v1/worker/hpu_model_runner.py"),
           ("vllm_spyre", "vllm-spyre", "vllm_spyre/v1/worker/spyre_model_runner.py"),
           ("vllm_rbln", "vllm-rbln", "vllm_rbln/v1/worker/rbln_model_runner.py")]


@cache
def _families() -> SignatureSet:
    """The database without its exact signatures: an unseen failure meets only the classes."""
    return SignatureSet([s for s in default_signatures() if s.kind is not SignatureKind.EXACT])


def _fix(log: str, signatures: SignatureSet | None = None) -> str:
    report = explain_text(log, signatures=signatures or _families())
    assert report.signature is not None, log
    return report.signature.fix


def _paragraph(fix: str) -> str:
    assert MARK in fix, fix
    return fix.split(MARK, 1)[1]


# ---- a platform plugin reaching for what the installed vLLM's objects lack -------------------------

@settings(max_examples=30, deadline=None)
@given(plugin=st.sampled_from(PLUGINS),
       owner=st.sampled_from([("FusedMoE", "w13_weight_scale"), ("ColumnParallelLinear", "input_size"),
                              ("RotaryEmbedding", "cos_sin_cache")]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_plugin_reaching_into_a_vllm_object_moves_the_plugin(
        plugin: tuple[str, str, str], owner: tuple[str, str], py: str, site: str,
        prefix: str) -> None:
    root = site.format(py=py)
    cls, attribute = owner
    frames = [(f"{root}vllm/model_executor/model_loader/base_loader.py", "load_model",
               "process_weights_after_loading(model, model_config, target_device)"),
              (f"{root}{plugin[2]}", "process_weights_after_loading", f"layer.{attribute}"),
              (f"{root}torch/nn/modules/module.py", "__getattr__", "raise AttributeError(")]
    log = python_traceback(frames, f"AttributeError: '{cls}' object has no attribute '{attribute}'",
                           prefix)
    text = _paragraph(_fix(log))
    assert f"{plugin[1]} is the package to move" in text and attribute in text, text


@settings(max_examples=20, deadline=None)
@given(plugin=st.sampled_from(PLUGINS), keyword=st.sampled_from(["max_num_batched_tokens", "use_cache"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_plugin_calling_vllm_with_a_keyword_it_lacks_moves_the_plugin(
        plugin: tuple[str, str, str], keyword: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}{plugin[2]}", "initialize_kv_cache", "self.coordinator = get_kv_cache_coordinator("),
              (f"{root}vllm/v1/core/kv_cache_coordinator.py", "get_kv_cache_coordinator",
               "return HybridKVCacheCoordinator(")]
    error = f"TypeError: HybridKVCacheCoordinator.__init__() got an unexpected keyword argument '{keyword}'"
    report = explain_text(python_traceback(frames, error, prefix), signatures=_families())
    assert report.signature is not None
    text = _paragraph(report.signature.fix)
    assert f"{plugin[1]} is the package to move" in text, text
    # the older sentence of the same boundary is not said twice
    assert "The failing call runs from the installed package" not in report.signature.fix


# ---- vLLM and a newer transformers -------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(["aimv2", "ovis", "deepseek_vl_v2", "step3_vl"]),
       what=st.sampled_from(["config", "model"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_name_transformers_now_registers_moves_transformers_down(
        name: str, what: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/transformers_utils/configs/__init__.py", "<module>",
               f"AutoConfig.register(\"{name}\", Config)"),
              (f"{root}transformers/models/auto/configuration_auto.py", "register",
               "CONFIG_MAPPING.register(model_type, config, exist_ok=exist_ok)")]
    error = f"ValueError: '{name}' is already used by a Transformers {what}, pick another name."
    text = _paragraph(_fix(python_traceback(frames, error, prefix)))
    assert "transformers is the package to move, down" in text and "transformers<" in text, text
    assert name in text


# ---- vLLM's compiled extension and another torch ---------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(symbol=st.sampled_from(["_ZN3c104cuda9SetDeviceEi", "_ZN2at4_ops5zeros4callEN3c108ArrayRefIlEE",
                               "_ZNK3c1010TensorImpl4sizeEl"]),
       so=st.sampled_from(["_C.abi3.so", "_moe_C.abi3.so"]), py=PYTHONS, site=SITE_PACKAGES)
def test_vllms_extension_against_another_torch_moves_torch(symbol: str, so: str, py: str,
                                                          site: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/_custom_ops.py", "<module>", "import vllm._C")]
    error = f"ImportError: {root}vllm/{so}: undefined symbol: {symbol}"
    text = _paragraph(_fix(python_traceback(frames, error)))
    assert "torch is the package to move" in text and "pins torch exactly" in text, text


# ---- near misses ---------------------------------------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_users_own_class_or_vllms_own_code_is_no_boundary(py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    own = python_traceback([("/home/u/train.py", "main", "model.generate(prompts)")],
                           "AttributeError: 'MyPolicyModel' object has no attribute 'generate'", prefix)
    inside = python_traceback(
        [(f"{root}vllm/model_executor/layers/fused_moe/layer.py", "forward", "self.w13_weight_scale"),
         (f"{root}torch/nn/modules/module.py", "__getattr__", "raise AttributeError(")],
        "AttributeError: 'FusedMoE' object has no attribute 'w13_weight_scale'", prefix)
    for log in (own, inside):
        report = explain_text(log, signatures=_families())
        assert report.signature is None or MARK not in report.signature.fix, log


def test_a_frameless_import_inside_a_framework_says_nothing_of_vllm() -> None:
    report = explain_text("ImportError: cannot import name 'get_vllm_engine' from 'swift.llm' "
                          "(/usr/local/lib/python3.10/site-packages/swift/llm/__init__.py)\n",
                          signatures=_families())
    assert report.signature is None or MARK not in report.signature.fix


def test_an_exact_signatures_fix_gets_no_paragraph() -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/configs/__init__.py",
               "<module>", 'AutoConfig.register("aimv2", AIMv2Config)'),
              ("/usr/local/lib/python3.12/dist-packages/transformers/models/auto/configuration_auto.py",
               "register", "CONFIG_MAPPING.register(model_type, config, exist_ok=exist_ok)")]
    log = python_traceback(frames, "ValueError: 'aimv2' is already used by a Transformers config, "
                                   "pick another name.")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is SignatureKind.EXACT
    assert MARK not in report.signature.fix


def test_a_call_api_drift_dates_gets_no_second_answer() -> None:
    frames = [("/usr/local/lib/python3.10/site-packages/lm_eval/models/vllm_causallms.py", "__init__",
               "self.model = LLM(**self.model_args)"),
              ("/usr/local/lib/python3.10/site-packages/vllm/entrypoints/llm.py", "__init__",
               "engine_args = EngineArgs(")]
    log = ("INFO 03-01 10:00:00 llm_engine.py:232] Initializing an LLM engine (v0.7.3) with config: "
           "model='m'\n" + python_traceback(
               frames, "TypeError: EngineArgs.__init__() got an unexpected keyword argument "
                       "'worker_use_ray'"))
    report = explain_text(log, signatures=_families())
    assert report.signature is not None
    assert "API drift" in report.signature.fix and MARK not in report.signature.fix


# ---- the data file -------------------------------------------------------------------------------

def test_every_pairs_roles_exist_and_every_pair_cites_its_source() -> None:
    alignment = load_alignment()
    roles = set(alignment.roles.values()) | {"any"}
    for pair in alignment.pairs:
        assert pair.callers <= roles and pair.callees <= roles
        assert pair.source.startswith("https://")


def test_a_pair_with_an_unknown_role_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "alignment.yaml"
    path.write_text("shapes: []\nroles: {vllm: vllm}\npairs:\n  - caller: [plugin]\n    "
                    "callee: [vllm]\n    source: https://example.org/\n    text: x\n", encoding="utf-8")
    with pytest.raises(SignatureError):
        load_alignment(path)


def test_a_boundary_without_a_known_pair_says_nothing() -> None:
    from logsleuth.model import ErrorEvent

    report = explain_text("ImportError: cannot import name 'Foo' from 'somelib' (x.py)\n",
                          signatures=_families())
    root = report.root_cause
    assert isinstance(root, ErrorEvent)
    found = boundary_of(root)
    assert found is None or alignment_text(found, report.facts) is None
