"""Classes behind session 36's fresh sample of even vLLM threads (sigs-d), each generated over its
wordings and the ways a log shows it, with near misses:

- vLLM's gpt-oss Triton MoE module failing to import `triton_kernels` in either direction: a
  stand-alone `triton_kernels` older Triton lacks (`constexpr_function`, `triton_key`,
  `target_info`), or one newer than the vLLM release (0.11.x imports `triton_kernels.routing`,
  which later `triton_kernels` dropped): triton-kernels-needs-newer-triton, whose fix names the
  release-tagged install and the uninstall; `triton_kernels` or Triton simply missing is not it;
- vLLM's Ray executor started inside a placement group it did not create whose bundles do not
  give every rank one GPU ("... in the placement group"): not-enough-gpus-for-parallelism, whose
  fix now names the bundle shape and `placement_group_capture_child_tasks`; the cluster-wide
  wording keeps its own advice;
- an architecture that refuses pipeline stages, in each release's words (the list of capable
  architectures, the `SupportsPP` interface, a missing `make_empty_intermediate_tensors`):
  pipeline-parallel-unsupported-by-model, whose fix now also says how a model class adds them (the
  maintainers' pointer); the executor's own refusals are not it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# a message as a traceback, its last line alone or behind a prefix, as session 34's classes show it
from test_s34_fix_classes import SHAPES, _shaped
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- vLLM's gpt-oss MoE kernels and a stand-alone triton_kernels that does not fit ---------------

# What the import raised, in each direction of the mismatch.
_IMPORT_ERRORS = [
    "No module named 'triton_kernels.routing'",
    "module 'triton.language' has no attribute 'constexpr_function'",
    "cannot import name 'triton_key' from 'triton.compiler.compiler' "
    "(/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py)",
    "No module named 'triton.language.target_info'",
]
# Who logs the guarded import's failure, by release.
_LOGGERS = ["[gpt_oss_triton_kernels_moe.py:27]", "[gpt_oss_triton_kernels_moe.py:40]",
            "[config.py:61]", "gpt_oss_triton_kernels_moe.py:34]"]
_PROCESS_PREFIXES = ["", "(APIServer pid=41873) ", "(EngineCore_DP0 pid=2819) ",
                     "vllm-1  | (APIServer pid=7) ", "2025-10-10T09:14:05.121Z "]


@settings(max_examples=60, deadline=None)
@given(error=st.sampled_from(_IMPORT_ERRORS), logger=st.sampled_from(_LOGGERS),
       prefix=st.sampled_from(_PROCESS_PREFIXES),
       tail=st.sampled_from(["", "INFO 10-10 09:14:06 [api_server.py:1839] vLLM API server version 0.11.0\n"]))
def test_the_guarded_import_record_names_the_release_tagged_triton_kernels(
        error: str, logger: str, prefix: str, tail: str) -> None:
    log = (f"{prefix}INFO 10-10 09:14:02 [__init__.py:216] Automatically detected platform cuda.\n"
           f"{prefix}ERROR 10-10 09:14:05 {logger} Failed to import Triton kernels. Please make sure "
           f"your triton version is compatible. Error: {error}\n{prefix}{tail}")
    sid, fix = signature_advice(log)
    assert sid == "triton-kernels-needs-newer-triton", log
    assert "pip uninstall triton_kernels" in fix and "@v3.5.0#subdirectory=python/triton_kernels" in fix, fix
    assert "triton_kernels.routing" in fix, fix


@settings(max_examples=40, deadline=None)
@given(shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       cls=st.sampled_from(["ModuleNotFoundError", "ImportError"]))
def test_an_unguarded_routing_import_is_the_same_class(
        shape: str, py: str, site: str, prefix: str, cls: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/model_executor/layers/quantization/mxfp4.py", "<module>",
               "from vllm.model_executor.layers.fused_moe.gpt_oss_triton_kernels_moe import ("),
              (f"{root}vllm/model_executor/layers/fused_moe/gpt_oss_triton_kernels_moe.py", "<module>",
               "from triton_kernels.routing import (RoutingData, routing,")]
    log = _shaped(f"{cls}: No module named 'triton_kernels.routing'", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "triton-kernels-needs-newer-triton", log
    assert "@v3.5.0#subdirectory=python/triton_kernels" in fix, fix


@pytest.mark.parametrize("error, not_it", [
    ("ModuleNotFoundError: No module named 'triton_kernels'", "not installed at all: an optional package"),
    ("ModuleNotFoundError: No module named 'triton'", "Triton itself missing"),
    ("ModuleNotFoundError: No module named 'triton_kernels_extra.routing'", "another package"),
    ("ImportError: cannot import name 'routing' from 'vllm.model_executor.layers.fused_moe'", "vLLM's own module"),
])
def test_other_import_failures_are_not_a_triton_kernels_mismatch(error: str, not_it: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/layer.py",
               "<module>", "from vllm.model_executor.layers.fused_moe.fused_moe import fused_experts")]
    sid, _ = signature_advice(python_traceback(frames, error))
    assert sid != "triton-kernels-needs-newer-triton", not_it


# ---- vLLM inside a Ray placement group whose bundles do not give each rank one GPU ---------------

_DEVICES = ["GPU", "GPU", "TPU"]


@settings(max_examples=40, deadline=None)
@given(device=st.sampled_from(_DEVICES), required=st.sampled_from([2, 4, 8, 16]),
       total=st.sampled_from([0, 1, 2, 4]), detailed=st.booleans(), shape=SHAPES, py=PYTHONS,
       site=SITE_PACKAGES, prefix=st.sampled_from(["", "(ServeReplica:llm:VLLMDeployment pid=812) ",
                                                   "(LLMRayActor pid=20770) ", "ERROR 01-11 10:02:11 [engine.py:387] "]))
def test_a_placement_group_too_small_for_the_ranks_names_the_bundle_shape(
        device: str, required: int, total: int, detailed: bool, shape: str, py: str, site: str,
        prefix: str) -> None:
    message = (f"ValueError: The number of required {device}s exceeds the total number of available "
               f"{device}s in the placement group.")
    if detailed:  # later releases add the two counts
        message += f" Required number of devices: {required}. Total number of devices: {total}."
    root = site.format(py=py)
    frames = [(f"{root}vllm/executor/ray_distributed_executor.py", "_init_executor",
               "initialize_ray_cluster(self.parallel_config)"),
              (f"{root}vllm/executor/ray_utils.py", "initialize_ray_cluster", "raise ValueError(")]
    log = _shaped(message, frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "not-enough-gpus-for-parallelism", log
    assert "placement_group_capture_child_tasks" in fix and '{"GPU": 1, "CPU": 1}' in fix, fix


def test_the_cluster_wording_keeps_the_device_count_advice() -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.10/dist-packages/vllm/executor/ray_utils.py", "initialize_ray_cluster",
          "raise ValueError(")],
        "ValueError: The number of required GPUs exceeds the total number of available GPUs in the cluster.")
    sid, fix = signature_advice(log)
    assert sid == "not-enough-gpus-for-parallelism"
    assert "--tensor-parallel-size" in fix and "ray status" in fix, fix


# ---- an architecture without pipeline-parallel support: the remedy that adds it -------------------

_PP_REFUSALS = [
    "NotImplementedError: Pipeline parallelism is only supported for the following  architectures: "
    "['LlamaForCausalLM', 'MistralForCausalLM', 'Qwen2ForCausalLM'].",
    "NotImplementedError: Pipeline parallelism is only supported for the following architectures: "
    "['AquilaForCausalLM', 'DeepseekV2ForCausalLM', 'InternVLChatModel', 'Qwen2VLForConditionalGeneration'].",
    "NotImplementedError: Pipeline parallelism is not supported for this model. Supported models "
    "implement the `SupportsPP` interface.",
    "AttributeError: 'MllamaForConditionalGeneration' object has no attribute 'make_empty_intermediate_tensors'",
]


@settings(max_examples=40, deadline=None)
@given(refusal=st.sampled_from(_PP_REFUSALS), shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_an_architecture_without_pipeline_stages_names_supportspp_and_tensor_parallelism(
        refusal: str, shape: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/engine/arg_utils.py", "create_engine_config", "model_config.verify_with_parallel_config("),
              (f"{root}vllm/config.py", "verify_with_parallel_config", "raise NotImplementedError(")]
    log = _shaped(refusal, frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "pipeline-parallel-unsupported-by-model", log
    assert "SupportsPP" in fix and "make_layers" in fix and "--tensor-parallel-size" in fix, fix


@pytest.mark.parametrize("error", [
    "NotImplementedError: Pipeline parallelism is not supported yet with multiprocessing.",
    "NotImplementedError: Pipeline parallelism is not supported yet.",
    "NotImplementedError: Prefix caching is not supported with sliding window.",
])
def test_executor_and_other_refusals_are_not_a_model_without_pipeline_support(error: str) -> None:
    frames = [("/usr/local/lib/python3.10/dist-packages/vllm/config.py", "_verify_args", "raise NotImplementedError(")]
    sid, _ = signature_advice(python_traceback(frames, error))
    assert sid != "pipeline-parallel-unsupported-by-model", error
