"""Classes behind session 25's sixteenth split's cold fix misses, each generated over its wordings
and the ways a log shows it, with a near miss:

- a reasoning or tool-call parser whose constructor does not take what the server passes it
  (`<Name>ReasoningParser.__init__() got an unexpected keyword argument 'chat_template_kwargs'`,
  a plugin tool parser given `tools`): parser-constructor-rejects-server-arguments, whose fix
  names the parser flags and the base class's `*args, **kwargs`; a TypeError of vLLM's own
  engine call in the same path keeps its signature;
- a kernel launched on an Ascend NPU with a grid outside coreDim's 1..65535 (`KernelLaunch failed
  because value N for parameter coreDim is invalid`): ascend-kernel-launch-grid-out-of-range,
  whose fix names the batch knobs (`--max-num-seqs`) and the penalties behind the bincount kernel;
- vllm-ascend's fused-MoE layer finding no MoE communication method in its forward context
  (`'NoneType' object has no attribute 'prepare'` under vllm_ascend/ops/fused_moe): ascend-moe-
  comm-method-missing, whose fix names vllm-ascend's MoE detection (`is_moe_model`); the same
  layer missing another attribute does not get it;
- an engine that failed to start with a KV connector configured (`Creating v1 connector with
  name: NixlConnector`, a `kv_transfer_config`) and its cause outside the excerpt:
  startup-cause-not-in-log-kv-transfer, whose fix names the connector's library (`pip install
  nixl`, the `nixl._api` module vLLM imports, LMCache), its transport and the side channel; the
  same pointers without a connector keep the other families of a cause not in the log;
- a Triton kernel that triton-ascend cannot fit in an NPU core's Unified Buffer (`ub overflow,
  requires N bits while M bits available`): ascend-triton-kernel-ub-overflow, whose fix names the
  chip's build and the versions vllm-ascend lists, not the GPU Triton advice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase
from v1log import ERAS, python_traceback, signature_advice, worker_failure

# ---- a parser's constructor refusing the server's arguments -------------------------------------

_PARSER_NAMES = st.sampled_from(["Ernie45", "DeepSeekR1", "Qwen3", "Glm4Moe", "MyThink", "Acme",
                                 "Hunyuan", "Olmo3", "Hermes2Pro", "Llama3Json"])
_PARSER_KINDS = st.sampled_from(["ReasoningParser", "ToolParser"])
_PARSER_WORDINGS = st.sampled_from([
    "got an unexpected keyword argument 'chat_template_kwargs'",
    "got an unexpected keyword argument 'model_config'",
    "got an unexpected keyword argument 'tools'",
    "takes 2 positional arguments but 3 were given",
])
_SERVER_CALLS = st.sampled_from([
    ("vllm/entrypoints/openai/serving_chat.py", "chat_completion_stream_generator",
     "reasoning_parser = self.reasoning_parser("),
    ("vllm/entrypoints/openai/serving_chat.py", "chat_completion_full_generator",
     "reasoning_parser = self.reasoning_parser("),
    ("vllm/parser/abstract_parser.py", "__init__",
     "self._tool_parser = self.__class__.tool_parser_cls(tokenizer, tools)"),
])
_API_PREFIXES = st.sampled_from(["(APIServer pid=1533) ", "",
                                 "(APIServer pid=88) ERROR 11-04 09:12:41 [serving.py:412] "])
_SITES = st.sampled_from(["/usr/local/lib/python3.12/site-packages/", "/root/src/vllm/",
                          "/opt/venv/lib/python3.11/site-packages/"])


@settings(max_examples=40, deadline=None)
@given(name=_PARSER_NAMES, kind=_PARSER_KINDS, wording=_PARSER_WORDINGS, call=_SERVER_CALLS,
       prefix=_API_PREFIXES, site=_SITES)
def test_a_parser_refusing_the_servers_arguments_names_the_parser_flags(
        name: str, kind: str, wording: str, call: tuple[str, str, str], prefix: str,
        site: str) -> None:
    path, function, code = call
    log = python_traceback([(site + path, function, code)],
                           f"TypeError: {name}{kind}.__init__() {wording}", prefix)
    signature, fix = signature_advice(log)
    assert signature == "parser-constructor-rejects-server-arguments"
    for knob in ("--reasoning-parser", "--tool-call-parser", "--reasoning-parser-plugin",
                 "**kwargs"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(prefix=_API_PREFIXES, site=_SITES,
       argument=st.sampled_from(["prompt_adapter_request", "lora_request", "trace_headers"]))
def test_an_engine_call_refusing_an_argument_is_not_a_parser(prefix: str, site: str,
                                                             argument: str) -> None:
    log = python_traceback(
        [(site + "vllm/entrypoints/openai/serving_chat.py", "create_chat_completion",
          "generator = self.engine_client.generate(")],
        f"TypeError: AsyncLLM.generate() got an unexpected keyword argument '{argument}'", prefix)
    signature, _ = signature_advice(log)
    assert signature != "parser-constructor-rejects-server-arguments"


# ---- a kernel launch grid outside the NPU's coreDim range ---------------------------------------

_KERNELS = st.sampled_from(["token_bin_counts_and_mask_kernel", "_bincount_kernel",
                            "apply_all_penalties_kernel", "_triton_rope",
                            "_compute_slot_mapping_kernel", "rotate_input_ids_kernel"])
_ASCEND_ROOT = "/vllm-workspace/vllm-ascend/vllm_ascend/"
_BINCOUNT_PATH = ((_ASCEND_ROOT + "sample/sampler.py", "forward"),
                  (_ASCEND_ROOT + "ops/triton/bincount.py",
                   "get_token_bin_counts_and_mask_triton"))


@settings(max_examples=40, deadline=None)
@given(kernel=_KERNELS, value=st.integers(65536, 2_000_000), era=st.sampled_from(ERAS),
       phase=st.sampled_from([Phase.PROFILE, Phase.SERVING]), split=st.booleans(),
       coded=st.booleans())
def test_a_grid_above_coredim_names_the_batch_knobs_and_the_penalties(
        kernel: str, value: int, era: object, phase: Phase, split: bool, coded: bool) -> None:
    code = "Invalid_Argument(EE1003) " if coded else ""
    sep = "\n" if split else " "
    error = (f"RuntimeError: operator name is {kernel}.{sep}{code}KernelLaunch failed because "
             f"value {value} for parameter coreDim is invalid.{sep}Expected value: less than or "
             "equal to 65535.")
    log = worker_failure(error, phase=phase, era=era, inner=_BINCOUNT_PATH)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "ascend-kernel-launch-grid-out-of-range"
    for knob in ("--max-num-seqs", "--max-num-batched-tokens", "repetition_penalty",
                 "token_bin_counts_and_mask_kernel", "coreDim", "65535"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(value=st.integers(65536, 2_000_000), era=st.sampled_from(ERAS))
def test_triton_ascends_own_grid_check_gets_the_same_advice(value: int, era: object) -> None:
    error = f"RuntimeError: coreDim={value} can't be greater than UINT16_MAX"
    log = worker_failure(error, phase=Phase.SERVING, era=era,  # type: ignore[arg-type]
                         inner=_BINCOUNT_PATH)
    signature, fix = signature_advice(log)
    assert signature == "ascend-kernel-launch-grid-out-of-range"
    assert "--max-num-seqs" in fix


@settings(max_examples=10, deadline=None)
@given(kernel=_KERNELS, era=st.sampled_from(ERAS))
def test_an_empty_grid_gets_the_same_advice(kernel: str, era: object) -> None:
    error = (f"RuntimeError: operator name is {kernel}. KernelLaunch failed because value 0 for "
             "parameter coreDim is invalid. Expected value: not equal to 0.")
    log = worker_failure(error, phase=Phase.SERVING, era=era)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "ascend-kernel-launch-grid-out-of-range"
    assert "not equal to 0" in fix


# ---- vllm-ascend's MoE layer without an MoE communication method --------------------------------

_MOE_METHODS = st.sampled_from(["prepare", "finalize", "fused_experts"])
_MOE_DIRS = st.sampled_from(["ops/fused_moe/fused_moe.py", "ops/moe/fused_moe.py",
                             "ops/fused_moe/moe_comm_method.py"])
_MOE_MODELS = st.sampled_from(["qwen3_vl_moe.py", "qwen3_omni_moe_thinker.py", "qwen3_moe.py",
                               "deepseek_v2.py", "glm4_moe.py"])


@settings(max_examples=40, deadline=None)
@given(method=_MOE_METHODS, where=_MOE_DIRS, model=_MOE_MODELS, era=st.sampled_from(ERAS),
       phase=st.sampled_from([Phase.PROFILE, Phase.GRAPH_CAPTURE, Phase.SERVING]))
def test_a_missing_moe_comm_method_names_vllm_ascends_moe_detection(
        method: str, where: str, model: str, era: object, phase: Phase) -> None:
    inner = (("model_executor/models/" + model, "forward"),
             ("model_executor/layers/fused_moe/layer.py", "moe_forward"),
             (_ASCEND_ROOT + where, "forward_impl"))
    log = worker_failure(f"AttributeError: 'NoneType' object has no attribute '{method}'",
                         phase=phase, era=era, inner=inner)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "ascend-moe-comm-method-missing"
    for knob in ("is_moe_model", "text_config", "--speculative-config"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(attribute=st.sampled_from(["apply", "w13_weight_scale", "weight_loader", "quant_config"]),
       owner=st.sampled_from(["NoneType", "AscendFusedMoE", "AscendUnquantizedFusedMoEMethod"]),
       where=_MOE_DIRS, era=st.sampled_from(ERAS))
def test_the_same_moe_layer_missing_another_attribute_is_not_it(attribute: str, owner: str,
                                                                where: str, era: object) -> None:
    inner = (("model_executor/layers/fused_moe/layer.py", "moe_forward"),
             (_ASCEND_ROOT + where, "forward_impl"))
    log = worker_failure(f"AttributeError: '{owner}' object has no attribute '{attribute}'",
                         phase=Phase.PROFILE, era=era, inner=inner)  # type: ignore[arg-type]
    signature, _ = signature_advice(log)
    assert signature != "ascend-moe-comm-method-missing"


# ---- an engine with a KV connector that failed to start, its cause not in the excerpt ------------

_CONNECTORS = st.sampled_from(["NixlConnector", "LMCacheConnectorV1", "MooncakeConnector",
                               "P2pNcclConnector", "MultiConnector"])
_CONNECTOR_LINES = st.sampled_from([
    "(EngineCore_DP0 pid=7312) INFO 03-02 08:14:44 [factory.py:65] Creating v1 connector with "
    "name: {c} and engine_id: 6f0c2d7e-1b1f-4c55-9d0e-4a3c1b2f8e11",
    "(APIServer pid=52110) INFO 03-02 08:14:31 [utils.py:253] non-default args: {{'model': "
    "'Qwen/Qwen3-8B', 'kv_transfer_config': {{'kv_connector': '{c}', 'kv_role': 'kv_both'}}}}",
])
_POINTERS = st.sampled_from([
    "(APIServer pid=52110) RuntimeError: Engine core initialization failed. See root cause "
    "above. Failed core proc(s): {}",
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core "
    "proc(s): {'EngineCore_DP0': 1}",
    "(EngineCore_DP0 pid=7312) ERROR 03-02 08:14:45 [core.py:708] EngineCore failed to start.",
])
_STARTUP = ("(EngineCore_DP0 pid=7312) INFO 03-02 08:14:40 [core.py:77] Initializing a V1 LLM "
            "engine (v0.11.2) with config: model='Qwen/Qwen3-8B', tensor_parallel_size=1")


@settings(max_examples=30, deadline=None)
@given(connector=_CONNECTORS, line=_CONNECTOR_LINES, pointer=_POINTERS)
def test_a_start_up_failure_with_a_kv_connector_names_its_library_and_transport(
        connector: str, line: str, pointer: str) -> None:
    log = "\n".join([_STARTUP, line.format(c=connector), pointer]) + "\n"
    signature, fix = signature_advice(log)
    assert signature == "startup-cause-not-in-log-kv-transfer"
    for knob in ("pip install nixl", "nixl._api", "pip install lmcache",
                 "VLLM_NIXL_SIDE_CHANNEL_PORT", "--kv-transfer-config",
                 "/tmp/ray/session_latest/logs/worker-*.err"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(pointer=_POINTERS)
def test_the_same_failure_without_a_connector_is_not_it(pointer: str) -> None:
    signature, _ = signature_advice("\n".join([_STARTUP, pointer]) + "\n")
    assert signature.startswith("startup-cause-not-in-log")
    assert signature != "startup-cause-not-in-log-kv-transfer"


# ---- a Triton kernel that does not fit an Ascend core's Unified Buffer ---------------------------

_ASCEND_TRITON_KERNELS = st.sampled_from(["ops/triton/layernorm_gated.py", "ops/triton/bincount.py",
                                          "ops/triton/fla/chunk.py", "ops/triton/rope.py"])


@settings(max_examples=30, deadline=None)
@given(kernel=_ASCEND_TRITON_KERNELS, requires=st.integers(1_572_865, 9_000_000),
       available=st.sampled_from([1_572_864, 2_031_616, 786_432]), era=st.sampled_from(ERAS),
       phase=st.sampled_from([Phase.PROFILE, Phase.SERVING]))
def test_a_ub_overflow_names_the_chip_build_and_the_versions(
        kernel: str, requires: int, available: int, era: object, phase: Phase) -> None:
    error = ("triton.compiler.errors.MLIRCompilationError:\n"
             "[ConvertLinalgRToBinary] encounters error:\n"
             'loc("/tmp/tmpq/kernel.ttadapter.mlir":3:3): error: ub overflow, requires '
             f"{requires} bits while {available} bits available! (possible reason: tiling basic "
             "block is too large)")
    inner = ((_ASCEND_ROOT + kernel, "forward"),
             ("/usr/local/lib/python3.11/site-packages/triton/compiler/compiler.py", "compile"))
    log = worker_failure(error, phase=phase, era=era, inner=inner)  # type: ignore[arg-type]
    signature, fix = signature_advice(log)
    assert signature == "ascend-triton-kernel-ub-overflow"
    for knob in ("triton-ascend", "Atlas A2", "BLOCK_SIZE"):
        assert knob in fix, knob
