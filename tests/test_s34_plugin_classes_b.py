"""Classes behind four of session 34's twenty-fifth split's cold fix misses (sigs-b's: platform
plugins), each generated over its wordings and the ways a log shows it, with a near miss:

- a multimodal prompt without the model's placeholder in vLLM's later wording (`AssertionError:
  Failed to apply prompt replacement for mm_items['image'][0]`), most often an evaluation harness
  that sends the raw task prompt: mm-prompt-placeholder-tokens-missing, whose fix names the
  harness's `apply_chat_template`; the processor's own item-count check is not it;
- the Gaudi plugin's checks of the values it detects or reads from `VLLM_<NAME>` (`build: '...'
  doesn't match pattern ...!`, `hw: None is not in allowed options: [...]!`, `VLLM_X: failed to
  process environment variable`): hpu-plugin-environment-check-failed; the plugin asking its
  config for a key its release lacks is not it;
- a Gaudi warm-up bucket holding more tokens than `--max-num-batched-tokens`, failing numpy's
  shape check in the dummy batch: hpu-warmup-bucket-exceeds-batched-tokens (its frames say so; the
  same numpy error elsewhere, or alone, is the shape family's), and the warm-up is the
  graph_capture phase, not serving;
- a traceback pasted wrapped at word boundaries before each frame's quoted path (`... File` /
  `"/x.py", line 3, in` / `f`): the rows are joined (hardwrap.soft_wrapped), so the frames and the
  whole message are read;
- CANN's quantized matmul operators refusing a layer's scales, groups or dtypes (error 161002,
  EZ0027/EZ1001): ascend-quantized-matmul-inputs-rejected; the same code from another operator is
  the CANN family's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

from logsleuth.hardwrap import SOFT, wrap_width
from logsleuth.model import Phase
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

# --- a multimodal prompt without its placeholder (vLLM's per-item assertion) --------------------

_MODALITIES = st.sampled_from(["image", "video", "audio", "vision_chunk"])
_PROCESSORS = st.sampled_from([("multimodal/processing.py", "_apply_prompt_updates"),
                               ("multimodal/processing/processor.py",
                                "_matched_updates_from_result"),
                               ("model_executor/models/minicpmv.py", "_apply_prompt_updates")])
_CALLERS = st.sampled_from([
    ("lm_eval/models/vllm_vlms.py", "_multimodal_model_generate", "outputs = self.model.generate("),
    ("lmms_eval/models/chat/vllm.py", "generate_until", "response = self.client.generate("),
    ("vllm/entrypoints/openai/serving_chat.py", "create_chat_completion",
     ") = await self._preprocess_chat("),
])


@settings(max_examples=60, deadline=None)
@given(modality=_MODALITIES, item=st.integers(0, 7), processor=_PROCESSORS, caller=_CALLERS,
       quote=st.sampled_from(["'", '"']), shape=st.sampled_from(["traceback", "bare", "record"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_prompt_without_its_placeholder_gets_the_chat_template_advice(
        modality: str, item: int, processor: tuple[str, str], caller: tuple[str, str, str],
        quote: str, shape: str, py: str, site: str, prefix: str) -> None:
    error = (f"AssertionError: Failed to apply prompt replacement for "
             f"mm_items[{quote}{modality}{quote}][{item}]")
    packages = site.format(py=py)
    if shape == "traceback":
        frames = [(f"{packages}{caller[0]}", caller[1], caller[2]),
                  (f"{packages}vllm/inputs/preprocess.py", "_process_multimodal",
                   "mm_input = mm_processor.apply("),
                  (f"{packages}vllm/{processor[0]}", processor[1],
                   "assert update_idx is not None, (")]
        log = python_traceback(frames, error, prefix)
    elif shape == "record":
        log = (f"(APIServer pid=512) ERROR 02-10 08:16:31 [serving_chat.py:257] Error in "
               f"preprocessing prompt inputs\n(APIServer pid=512) ERROR 02-10 08:16:31 "
               f"[serving_chat.py:257] {error}\n")
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "mm-prompt-placeholder-tokens-missing", log
    assert "--apply_chat_template" in fix and "LLM.chat" in fix


def test_the_processors_own_item_count_check_is_not_a_missing_placeholder() -> None:
    sid, _ = signature_advice(
        "RuntimeError: Expected there to be 2 image items in keyword arguments corresponding to 2 "
        "image data items, but only found 1! There is likely a problem with your implementation "
        "of merged multi-modal processor for this model\n")
    assert sid != "mm-prompt-placeholder-tokens-missing"


# --- the Gaudi plugin's checks of its environment values ---------------------------------------

_BUILDS = st.sampled_from(["1.23.0.post1", "1.22.2.post2", "1.21.0+git3f2a", "1.24.0rc1",
                           "1.20.1.dev7"])
_PATTERN = r"'^\d+\.\d+\.\d+\.\d+$'"
_HINT = "You can override detected build by specifying VLLM_BUILD env variable"


def _environment_error(kind: str, build: str) -> tuple[str, str]:
    """The error line of one check and a knob its advice must name."""
    if kind == "pattern":
        return f"RuntimeError: build: '{build}' doesn't match pattern {_PATTERN}! {_HINT}", \
            "VLLM_BUILD"
    if kind == "pattern-cut":  # the hint left out by whoever pasted it
        return f"RuntimeError: build: '{build}' doesn't match pattern {_PATTERN}!", "VLLM_BUILD"
    if kind == "pep440":
        return f"RuntimeError: build: '{build}-custom' is not a valid PEP 440 version! {_HINT}", \
            "VLLM_BUILD"
    if kind == "hw":
        return "RuntimeError: hw: None is not in allowed options: [cpu, gaudi, gaudi2, gaudi3]!", \
            "VLLM_HW"
    if kind == "bridge":
        return "RuntimeError: bridge_mode: graph is not in allowed options: [eager, lazy]!", \
            "PT_HPU_LAZY_MODE"
    if kind == "strategy":
        return ("RuntimeError: bucketing_strategy: linear is not in allowed options: "
                "[exp, lin, pad]!", "VLLM_BUCKETING_STRATEGY")
    if kind == "env":
        return "RuntimeError: VLLM_DEBUG: failed to process environment variable", "VLLM_<NAME>"
    # vllm-gaudi 0.10's assertion
    return ("AssertionError: gaudi4 is not in allowed options: ('cpu', 'gaudi', 'gaudi2', "
            "'gaudi3')!", "VLLM_HW")


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["pattern", "pattern-cut", "pep440", "hw", "bridge", "strategy",
                             "env", "assert"]),
       build=_BUILDS, package=st.sampled_from(["vllm_gaudi/extension", "vllm_hpu_extension"]),
       shape=st.sampled_from(["traceback", "bare"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_gaudi_environment_value_refused_by_its_check_gets_its_override(
        kind: str, build: str, package: str, shape: str, py: str, site: str,
        prefix: str) -> None:
    error, knob = _environment_error(kind, build)
    packages = site.format(py=py)
    # vllm-gaudi 0.10's bare assertion names no module of its own: only its frames say it is
    # the plugin's check (alone, the Gaudi backend's family answers)
    if shape == "traceback" or kind == "assert":
        frames = [(f"{packages}vllm_gaudi/v1/worker/hpu_model_runner.py", "__init__",
                   "finalize_config()"),
                  (f"{packages}{package}/runtime.py", "finalize_config", "detected.finalize()"),
                  (f"{packages}{package}/config.py", "_validate",
                   "raise RuntimeError(f'{self.name}: {error}')")]
        log = python_traceback(frames, error, prefix)
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "hpu-plugin-environment-check-failed", log
    assert knob in fix and "PEP 440" in fix


@pytest.mark.parametrize("error", [
    "AssertionError: Unknown run-time configuration parameter: unified_attn!",
    "ValueError: 1 validation error for ServeArgs\nserved_model_name\n  String should match "
    "pattern '^[a-z]+$' [type=string_pattern_mismatch, input_value='Qwen3', input_type=str]",
])
def test_another_config_error_is_not_an_environment_check(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "hpu-plugin-environment-check-failed"


# --- a Gaudi warm-up bucket over the step's token budget ----------------------------------------

_NUMPY_ERRORS = st.sampled_from([
    "ValueError: operands could not be broadcast together with shapes ({n},) ({n},) ({b},)",
    "ValueError: could not broadcast input array from shape ({n},) into shape ({b},)",
    "IndexError: index {b} is out of bounds for axis 0 with size {b}",
])
_WARMUPS = st.sampled_from([
    # vllm-gaudi's V1 runner
    (("vllm_gaudi/v1/worker/hpu_model_runner.py", "warmup_model", "self.warmup_graphs("),
     ("vllm_gaudi/v1/worker/hpu_model_runner.py", "warmup_graphs",
      "self._prepare_dummy_scenario(prompt_cfg, decode_cfg)"),
     ("vllm_gaudi/v1/worker/hpu_model_runner.py", "_execute_dummy_scenario",
      "self.execute_model(sched_output, warmup_mode=True)")),
    # vLLM's own HPU runner and HabanaAI's fork
    (("vllm/worker/hpu_model_runner.py", "warmup_model", "self.warmup_all_buckets("),
     ("vllm/worker/hpu_model_runner.py", "warmup_scenario",
      "self.execute_model(inputs, kv_caches, warmup_mode=True)")),
])


@settings(max_examples=60, deadline=None)
@given(error=_NUMPY_ERRORS, budget=st.sampled_from([2048, 4096, 8192]),
       scale=st.integers(2, 8), warmup=_WARMUPS, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_warm_up_bucket_over_the_token_budget_gets_the_bucket_advice(
        error: str, budget: int, scale: int, warmup: tuple[tuple[str, str, str], ...], py: str,
        site: str, prefix: str) -> None:
    packages = site.format(py=py)
    frames = [(f"{packages}{path}", function, code) for path, function, code in warmup]
    frames.append((f"{packages}{warmup[0][0]}", "_prepare_inputs",
                   "np.add(self.input_batch.num_computed_tokens_cpu[req_indices], arange, "
                   "out=positions_np)"))
    log = python_traceback(frames, error.format(n=budget * scale, b=budget), prefix)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and \
        report.signature.id == "hpu-warmup-bucket-exceeds-batched-tokens", log
    assert "VLLM_PROMPT_BS_BUCKET_MAX" in report.signature.fix
    assert "--max-num-batched-tokens" in report.signature.fix
    assert report.phase is not None and report.phase.phase is Phase.GRAPH_CAPTURE


@pytest.mark.parametrize("frames", [
    [],  # the one line: numpy's words say nothing of Gaudi
    [("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py",
      "execute_model", "self._prepare_inputs(scheduler_output)"),
     ("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py",
      "_prepare_inputs", "np.add(self.input_batch.num_computed_tokens_cpu[req_indices], arange)")],
])
def test_the_same_numpy_error_outside_a_gaudi_warm_up_is_the_shape_familys(
        frames: list[tuple[str, str, str]]) -> None:
    error = "ValueError: operands could not be broadcast together with shapes (9000,) (9000,) (8192,)"
    log = python_traceback(frames, error) if frames else error + "\n"
    sid, _ = signature_advice(log)
    assert sid != "hpu-warmup-bucket-exceeds-batched-tokens"
    if not frames:
        assert sid == "tensor-shape-mismatch-in-forward"


# --- a traceback wrapped before each frame's quoted path ---------------------------------------

_FRAMES = (("vllm/v1/engine/core.py", "run_engine_core"),
           ("vllm_gaudi/v1/worker/hpu_worker.py", "compile_or_warm_up_model"),
           ("vllm_gaudi/v1/worker/hpu_model_runner.py", "warmup_graphs"),
           ("torch/utils/_contextlib.py", "decorate_context"),
           ("vllm_gaudi/v1/worker/hpu_model_runner.py", "execute_model"),
           ("vllm_gaudi/extension/bucketing/exponential.py", "find_prompt_bucket"))


def _cut_frames(prefix: str, frames: list[tuple[str, str, str]], error: str,
                cut_message: bool) -> str:
    """A traceback pasted through a form that broke every frame after `File` and before its
    function (each record's prefix kept on its first row only), as a reply wraps long lines."""
    rows: list[str] = []
    # a record's prefix stands where Python's two spaces would (the reporter's paste kept one)
    indent = "" if prefix else "  "
    for path, function, code in frames:
        rows += [f"{prefix}{indent}File", f'"{path}", line 120, in', function,
                 f"{prefix}    {code}"]
    if cut_message:
        head, _, tail = error.partition(" together ")
        rows += [f"{prefix}{head}", f"together {tail}"]
    else:
        rows.append(f"{prefix}{error}")
    return "\n".join(rows) + "\n"


@settings(max_examples=40, deadline=None)
@given(prefix=st.sampled_from(["(EngineCore_DP0 pid=352574) ", "(Worker_TP1 pid=77) ", ""]),
       count=st.integers(3, 6), cut_message=st.booleans(), py=PYTHONS, site=SITE_PACKAGES)
def test_frames_wrapped_before_their_path_are_read_whole(prefix: str, count: int,
                                                         cut_message: bool, py: str,
                                                         site: str) -> None:
    packages = site.format(py=py)
    frames = [(f"{packages}{path}", function, f"self.{function}_next()")
              for path, function in _FRAMES[:count]]
    error = "ValueError: operands could not be broadcast together with shapes (6144,) (2048,)"
    log = _cut_frames(prefix, frames, error, cut_message)
    assert wrap_width(log.encode()) == SOFT
    report = explain_text(log, signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.message.endswith("(6144,) (2048,)"), log
    assert [frame.function for frame in root.frames] == [f for _, f in _FRAMES[:count]]


def test_a_line_ending_in_the_word_file_before_other_text_is_no_wrap() -> None:
    rows = ["INFO 03-02 10:00:01 [loader.py:12] Reading the config File",
            "INFO 03-02 10:00:01 [loader.py:14] Loading weights from the index File",
            "WARNING 03-02 10:00:02 [loader.py:20] Skipping the File",
            '"/models/x/config.json" was not found, using defaults',
            "INFO 03-02 10:00:03 [core.py:90] Model loaded"]
    assert wrap_width(("\n".join(rows) + "\n").encode()) is None


# --- CANN's quantized matmul refusing a layer's layout ------------------------------------------

_OPERATORS = st.sampled_from([("npu_quant_matmul", "aclnnQuantMatmulV5"),
                              ("npu_quant_matmul", "aclnnQuantMatmulV4"),
                              ("npu_quant_matmul", "aclnnQuantMatmulWeightNz"),
                              ("npu_weight_quant_batchmatmul", "aclnnWeightQuantBatchMatmulV2")])
_RULES = st.sampled_from([
    "Invalid_Argument(EZ0027): x1Scale K {k}, x2Scale K {j} ... scale K must equal K ceildivided "
    "by 64.",
    "AclNN_Parameter_Error(EZ1001): when weight's dtype is [int4], weight's format is "
    "[FRACTAL_NZ], antiquantGroupSize should be 128 or 64,",
    "AclNN_Parameter_Error(EZ1001): Tensor scale not implemented for DT_FLOAT16, should be in "
    "dtype support list [DT_UINT64,DT_BFLOAT16,DT_INT64,DT_FLOAT,].",
])


@settings(max_examples=60, deadline=None)
@given(operator=_OPERATORS, rule=_RULES, k=st.integers(20, 200),
       scheme=st.sampled_from(["w8a8_mxfp8", "w4a4_mxfp4", "w8a8_dynamic", "w4a8_dynamic"]),
       prefix=st.sampled_from(["(Worker_TP0 pid=8812) ERROR 05-12 09:31:02 "
                               "[multiproc_executor.py:772] ", "(EngineCore_DP0 pid=2350) ", ""]),
       shape=st.sampled_from(["traceback", "error-line"]))
def test_a_quantized_matmul_refusing_the_layers_layout_gets_the_quantization_advice(
        operator: tuple[str, str], rule: str, k: int, scheme: str, prefix: str,
        shape: str) -> None:
    torch_call, aclnn = operator
    error = (f"RuntimeError: {torch_call}:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:99 "
             f"NPU function error: call {aclnn} failed, error code is 161002")
    tail = [f"[ERROR] 2026-05-12-09:31:02 (PID:8812, Device:0, RankID:-1) ERR00100 PTA call acl "
            f"api failed.", f"[PID: 8812] 2026-05-12-09:31:02.118.004 "
            + rule.format(k=k + 1, j=k)]
    if shape == "traceback":
        frames = [("/vllm-workspace/vllm-ascend/vllm_ascend/quantization/method_adapters.py",
                   "apply", "return self.quant_method.apply(layer, x, bias, tp_rank)"),
                  (f"/vllm-workspace/vllm-ascend/vllm_ascend/quantization/methods/{scheme}.py",
                   "apply", f"output = torch_npu.{torch_call}(")]
        log = python_traceback(frames, "\n".join([error, *tail]), prefix)
    else:
        log = "\n".join(prefix + line for line in [error, *tail]) + "\n"
    sid, fix = signature_advice(log)
    assert sid == "ascend-quantized-matmul-inputs-rejected", log
    assert "msModelSlim" in fix and "--tensor-parallel-size" in fix


def test_the_elided_operator_line_read_as_an_error_gets_the_quantization_advice() -> None:
    # a description's elided excerpt (the operator first, its class and prefix left out), as a
    # detection that reads it as an error hands it on: the words alone say which class it is
    sid, fix = signature_advice(
        "RuntimeError: aclnnQuantMatmulV5 ... error code 161002 Invalid_Argument(EZ0027): "
        "x1Scale K 90, x2Scale K 89 ... scale K must equal K ceildivided by 64.\n")
    assert sid == "ascend-quantized-matmul-inputs-rejected"
    assert "ceiling division" in fix


@pytest.mark.parametrize("error", [
    "RuntimeError: call aclnnFusedInferAttentionScoreV3 failed, error code is 161002",
    "RuntimeError: call aclnnQuantMatmulWeightNz failed, detail:E69999: Inner Error!",
])
def test_another_operator_or_an_inner_error_is_the_cann_familys(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid == "ascend-cann-operator-error"


# --- the same classes at the plugins' other raise sites (their message indexes) -----------------

@pytest.mark.parametrize(("error", "expected"), [
    # vllm-ascend's quant schemes checking the kernels' rules as they build a layer
    ("AssertionError: Expecting `intermediate_size_per_partition` 96 can be divided by "
     "`group_size` 128", "ascend-quantized-matmul-inputs-rejected"),
    ("AssertionError: Expecting `hidden_sizes` 2880 can be divided by `group_size` 256",
     "ascend-quantized-matmul-inputs-rejected"),
    ("ValueError: MXFP8 weight block size must be divisible by the runtime group size, got "
     "block_size=128, group_size=96", "ascend-quantized-matmul-inputs-rejected"),
    ("ValueError: input_size (4097) must be divisible by 2 for fp4 packing",
     "ascend-quantized-matmul-inputs-rejected"),
    ("ValueError: Invalid MXFP8 scale shape: (4096, 67)", "ascend-quantized-matmul-inputs-rejected"),
    # vllm-ascend 0.13's check of the chip the runtime reports (the build's own chip family
    # known, this soc_version not): the same class as its later wordings
    ("RuntimeError: Can not support soc_version: 240.", "ascend-soc-version-mismatch"),
    ("RuntimeError: Cannot support runtime soc_version: 240.", "ascend-soc-version-mismatch"),
])
def test_the_plugins_other_raise_sites_of_the_classes(error: str, expected: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid == expected
