"""vllm-ascend's own refusals (session 24, issue 11), mined from its source (the raise sites of
releases 0.7.3 to 0.18.0) and its documentation (additional_config, env vars, EPLB, P/D
disaggregation tutorials, graph mode, quantization, netloader/rfork pages): each family is
generated over the message texts of its class with the values they carry, where vllm-ascend is
installed (an editable checkout in the official image, or site-packages), and the shapes a log
prints them in (the API server building vLLM's config, a V1 worker's traceback behind its ERROR
records, torchrun's rank prefix); the answer must be the family and its fix must name the knob
the message is about. Near misses, vLLM's own refusals of the same kind in the same shapes
without vllm-ascend's words, keep their own answers.

Beside it, a message that opens with a banner (`ValueError:`, a rule, `ERROR: ModelSlim
Quantization Config Not Found`, a rule: vllm-ascend 0.18's modelslim_config.py) keeps its
headline: the `ERROR: ...` line under a rule is the banner's text, not a logger's next record."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

from v1log import python_traceback, signature_advice

FEW = settings(max_examples=30, deadline=None)

# Where vllm_ascend lives: the official image's editable checkout, or an installed wheel.
_ASCEND_ROOTS = st.sampled_from(["/vllm-workspace/vllm-ascend/vllm_ascend/",
                                 "/usr/local/python3.11.13/lib/python3.11/site-packages/vllm_ascend/",
                                 "/home/u/vllm-ascend/vllm_ascend/"])
_SITE = "/usr/local/python3.11.13/lib/python3.11/site-packages/"
# How a traceback reaches the log: the API server bare or prefixed, a worker's ERROR records,
# torchrun's rank prefix.
_PREFIXES = st.sampled_from(["", "(APIServer pid=3001) ",
                             "(Worker_TP0 pid=4121) ERROR 12-06 10:02:14 [multiproc_executor.py:671] ",
                             "(Worker_DP1_TP3_EP11 pid=88) ERROR 01-02 03:04:05 [multiproc_executor.py:703] ",
                             "[rank0]: "])
_N = st.integers(1, 64)


def _log(root: str, module: str, function: str, error: str, prefix: str) -> str:
    frames = [(_SITE + "vllm/engine/arg_utils.py", "create_engine_config", "config = VllmConfig("),
              (_SITE + "vllm/config/vllm.py", "__post_init__",
               "current_platform.check_and_update_config(self)"),
              (root + module, function, "raise_error(")]
    head = "INFO 12-06 10:01:03 [__init__.py:235] Platform plugin ascend is activated\n"
    return head + python_traceback(frames, error, prefix)


# (family, module, function, message builder over an int, a knob its fix must name)
_CLASSES = [
    ("ascend-additional-config-rejected", "ascend_config.py", "__init__",
     lambda n: "lmhead_tensor_parallel_size is only supported in the pure DP scenario",
     "data-parallel-size"),
    ("ascend-additional-config-rejected", "ascend_config.py", "__init__",
     lambda n: "oproj_tensor_parallel_size is only supported in graph mode", "enforce-eager"),
    ("ascend-additional-config-rejected", "ascend_config.py", "__init__",
     lambda n: "enable_kv_nz is only supported for mla currently.", "enable_kv_nz"),
    ("ascend-additional-config-rejected", "ascend_config.py", "__init__",
     lambda n: "enable_super_kernel is valid only when tensor_parallel_size is 1",
     "multistream_overlap_shared_expert"),
    ("ascend-additional-config-rejected", "platform.py", "check_and_update_config",
     lambda n: "additional_config.layer_sharding is only supported on P nodes "
               "(kv_role='kv_producer') when KV transfer is enabled.", "kv_producer"),
    ("ascend-scheduler-rejected", "core/schedule_config.py", "__post_init__",
     lambda n: "currently AscendScheduler only supports fcfs policy, got priority",
     "ascend_scheduler_config"),
    ("ascend-scheduler-rejected", "core/schedule_config.py", "__post_init__",
     lambda n: f"max_long_partial_prefills must be non-negative, but got -{n}",
     "ascend_scheduler_config"),
    ("ascend-cpu-binding-failed", "cpu_binding.py", "bind_cpus",
     lambda n: f"Cpu num in numa {n % 8} to assign {n} for every device is not enough, please "
               "decrease the value of CPU_BINDING_NUM!", "enable_cpu_binding"),
    ("ascend-cpu-binding-failed", "cpu_binding.py", "bind_cpus",
     lambda n: f"Insufficient CPUs for binding with IRQ/ACL/REL reservations: total_allowed={n}, "
               f"total_npus={n + 8}", "enable_cpu_binding"),
    ("ascend-eplb-config-rejected", "eplb/core/eplb_utils.py", "check_dynamic_eplb",
     lambda n: 'Can not enable dynamic_eplb when not export DYNAMIC_EPLB="true".', "DYNAMIC_EPLB"),
    ("ascend-eplb-config-rejected", "eplb/core/eplb_utils.py", "check_expert_map_record_path",
     lambda n: "The expert_map_record_path is not json.", "EXPERT_MAP_RECORD"),
    ("ascend-pd-connector-config-rejected", "distributed/llmdatadist_c_mgr_connector.py",
     "read_offline_rank_table",
     lambda n: "Please set path of rank_table to env variable DISAGGREGATED_PREFILL_RANK_TABLE_PATH",
     "gen_ranktable.sh"),
    ("ascend-pd-connector-config-rejected", "distributed/mooncake_connector.py", "__init__",
     lambda n: f"prefill_tp_size: {n} must be greater than or equal to the decode_tp_size: {n + 1}",
     "kv_connector_extra_config"),
    ("ascend-env-switch-rejected", "platform.py", "check_and_update_config",
     lambda n: "Flash Comm v1 requires enable_expert_parallel=True for MoE models.",
     "enable-expert-parallel"),
    ("ascend-env-switch-rejected", "worker/worker_v1.py", "_init_profiler",
     lambda n: "MSMONITOR_USE_DAEMON and VLLM_TORCH_PROFILER_DIR cannot be both set at the same "
               "time.", "MSMONITOR_USE_DAEMON=0"),
    ("ascend-aclgraph-config-rejected", "platform.py", "check_and_update_config",
     lambda n: f"cudagraph_capture_sizes [1, 2, {n}] does not containvalues that are multiples of "
               f"tp_size {n + 1}", "cudagraph_capture_sizes"),
    ("ascend-aclgraph-config-rejected", "patch/platform/patch_set_cudagraph_sizes.py",
     "_set_cudagraph_sizes",
     lambda n: "cudagraph_capture_sizes should contain at least one element when using cuda "
               "graph.", "enforce-eager"),
    ("ascend-quantization-rejected", "quantization/utils.py", "get_quant_method",
     lambda n: "Currently, vLLM Ascend only supports following quant types:['W8A8', "
               f"'W8A8_DYNAMIC', 'W4A{n % 16}']", "msmodelslim"),
    ("ascend-feature-unsupported", "platform.py", "check_and_update_config",
     lambda n: "If prefix caching is enabled, block size must be set to 128.", "--block-size 128"),
    ("ascend-remote-weight-loader-failed", "model_loader/rfork/rfork_loader.py", "load_model",
     lambda n: "RFork requires --model-loader-extra-config to be a JSON object.",
     "model-loader-extra-config"),
    # exact signatures of the same sources: one message, one remedy
    ("ascend-aclgraph-with-launch-blocking", "platform.py", "check_and_update_config",
     lambda n: "ACL graph is incompatible with ASCEND_LAUNCH_BLOCKING=1. Please unset "
               "ASCEND_LAUNCH_BLOCKING or set it to 0.", "unset ASCEND_LAUNCH_BLOCKING"),
    ("ascend-torchair-graph-with-enforce-eager", "ascend_config.py", "check_ascend_config",
     lambda n: "Can't enable graph mode and eager mode at the same time. Please set "
               "`enforce_eager=False` if you attempt to enable NPU graph mode.", "--enforce-eager"),
    ("ascend-nz-weights-on-rl-wake-up", "worker/worker_v1.py", "wake_up",
     lambda n: "FRACTAL_NZ mode is enabled. This may cause model parameter precision issues in "
               "the RL scenarios. Please set VLLM_ASCEND_ENABLE_NZ=0.", "VLLM_ASCEND_ENABLE_NZ=0"),
]
_EXCEPTIONS = {"ascend-aclgraph-with-launch-blocking": "ValueError",
               "ascend-torchair-graph-with-enforce-eager": "RuntimeError",
               "ascend-nz-weights-on-rl-wake-up": "ValueError","ascend-cpu-binding-failed": "RuntimeError", "ascend-scheduler-rejected": "ValueError",
               "ascend-feature-unsupported": "ValueError", "ascend-eplb-config-rejected": "ValueError",
               "ascend-quantization-rejected": "NotImplementedError",
               "ascend-remote-weight-loader-failed": "RuntimeError"}


@pytest.mark.parametrize("case", _CLASSES, ids=[f"{c[0]}-{i}" for i, c in enumerate(_CLASSES)])
@settings(max_examples=6, deadline=None)
@given(_ASCEND_ROOTS, _PREFIXES, _N)
def test_vllm_ascend_refusals_get_their_family_and_knob(case, root, prefix, n) -> None:
    family, module, function, message, knob = case
    error = f"{_EXCEPTIONS.get(family, 'AssertionError')}: {message(n)}"
    found, fix = signature_advice(_log(root, module, function, error, prefix))
    assert found == family, (error, found)
    assert knob in fix, (family, knob)


# vLLM's own refusals of the same kinds, in the same shapes, without vllm-ascend's words
_NEAR = [
    "ValueError: World size (8) is larger than the number of available devices (4) in this node.",
    "NotImplementedError: Chunked prefill is not supported with encoder-decoder models yet.",
    "ValueError: num_redundant_experts must be non-negative, but got -1.",
    "ValueError: Expert parallelism requires VLLM_ALL2ALL_BACKEND to be set for data parallel MoE "
    "models.",
    "ValueError: cudagraph_mode=FULL is not supported with use_inductor_graph_partition=True",
    "ValueError: Block size must be a multiple of 16, got 100",
    "RuntimeError: NIXL is not available",
]
_OURS = {case[0] for case in _CLASSES}


@FEW
@given(st.sampled_from(_NEAR), _PREFIXES)
def test_vllms_own_refusals_keep_their_answers(error, prefix) -> None:
    frames = [(_SITE + "vllm/engine/arg_utils.py", "create_engine_config", "config = VllmConfig("),
              (_SITE + "vllm/config/vllm.py", "__post_init__", "self._verify_args()")]
    report = explain_text(python_traceback(frames, error, prefix), signatures=default_signatures())
    assert report.signature is None or report.signature.id not in _OURS, (error, report.signature)


_RULES = st.builds(lambda c, n: c * n, st.sampled_from("=-*#"), st.integers(8, 100))
_HEADLINES = st.sampled_from(["ModelSlim Quantization Config Not Found",
                              "Quantization config file missing", "Unsupported checkpoint layout"])


@FEW
@given(_RULES, _HEADLINES, st.sampled_from(["", "(Worker_TP0 pid=4121) ERROR 12-06 10:02:14 "
                                                "[multiproc_executor.py:671] ", "[rank0]: "]))
def test_a_bannered_message_keeps_its_headline(rule, headline, prefix) -> None:
    error = "\n".join(["ValueError: ", rule, f"ERROR: {headline}", rule])
    frames = [(_SITE + "vllm_ascend/quantization/modelslim_config.py", "maybe_update_config",
               "raise ValueError(")]
    report = explain_text(python_traceback(frames, error, prefix), signatures=default_signatures())
    assert report.root_cause is not None
    assert headline in report.root_cause.message, report.root_cause.message


def test_an_error_record_after_a_plain_message_is_its_own() -> None:
    """Without a rule above it, a raw `ERROR: ...` line after an exception is the next record
    (uvicorn's, the engine's), not the message going on."""
    frames = [(_SITE + "vllm/v1/engine/core.py", "run_engine_core", "raise ValueError(x)")]
    log = python_traceback(frames, "ValueError: bad value") \
        + "ERROR:    Exception in ASGI application\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None
    assert "Exception in ASGI" not in report.root_cause.message
