"""Classes of session 20's cold sweep of even vLLM threads (sigs-a, the s20a-* tuning cases),
each generated over the shapes a log gives it:

- apache-tvm-ffi's SIGSEGV handler (xgrammar brings it into every vLLM process) prints
  `!!!!!!! Segfault encountered !!!!!!!` and the native stack, one symbol a line or as
  `  File "<unknown>", line 0, in symbol`: a segmentation fault at the banner, its frames the
  stack (vllm#52386); frames in oneCCL name the XPU collective's crash and its fix (upgrade past
  past 0.27.1 for one device), another library's frames do not;
- V0's engine loop logs `ValueError('...')` (the exception's repr) and then its traceback: an
  excerpt cut inside that traceback still names its exception, at the record (vllm#18414), and
  the signature's frames it could not show do not count against it;
- `Worker failed with error '<str(e)>'` quotes its cause without the class: a signature that
  names the cause's class still answers, with or without the tail a paste may cut (vllm
  PR#29036), and the spec-decode capture-size check names the fixed false assertion;
- a structured-output backend package whose API differs from vLLM's call into it (a TypeError
  in vLLM's backend modules) names the package pin, not the schema;
- the V0 engine's multimodal chunked-prefill split names the V1 engine and the batch size.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import python_traceback, signature_advice

_SIGS = default_signatures()


def _report(log: str):  # type: ignore[no-untyped-def]
    return explain_text(log, signatures=_SIGS)


# how a process's stderr reaches the log: bare, behind vLLM's process prefix, behind docker's
# timestamps, behind journald's
_RAW_PREFIX = st.sampled_from(["", "(EngineCore_DP0 pid=4121) ", "(Worker_TP0 pid=530) ",
                               "2026-08-14T10:02:11.412003Z ",
                               "Aug 14 10:02:11 host vllm[4121]: "])
_BEFORE = ["INFO 08-14 10:02:09 [parallel_state.py:1165] world_size=1 rank=0 local_rank=0 "
           "backend=xccl",
           "INFO 08-14 10:02:10 [xpu_worker.py:101] warming up oneCCL"]
_ONECCL_STACK = ["ccl_comm::post_coll(ccl::coll_param&)", "ccl_comm::allreduce_impl(...)",
                 "c10d::ProcessGroupXCCL::allreduce_impl(at::Tensor&, c10d::AllreduceOptions)",
                 "c10d::ProcessGroupXCCL::allreduce(std::vector<at::Tensor>&)"]
_NCCL_STACK = ["ncclNetPluginInit", "ncclCommInitRank", "ncclCommInitRankConfig"]
_TORCH_STACK = ["c10::cuda::CUDACachingAllocator::malloc()", "at::native::empty_cuda(...)"]


def _banner_log(prefix: str, stack: list[str], framed: bool, depth: int) -> str:
    lines = [*_BEFORE, "!!!!!!! Segfault encountered !!!!!!!"]
    for symbol in stack[:depth]:
        lines.append(f'  File "<unknown>", line 0, in {symbol}' if framed else f"  {symbol}")
    return "".join(prefix + line + "\n" for line in lines)


@settings(max_examples=40, deadline=None)
@given(prefix=_RAW_PREFIX, framed=st.booleans(), depth=st.integers(1, 4))
def test_segfault_banner_is_a_segmentation_fault_with_its_native_stack(
        prefix: str, framed: bool, depth: int) -> None:
    report = _report(_banner_log(prefix, _ONECCL_STACK, framed, depth))
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "Segmentation fault"
    assert root.message == "Segfault encountered" and root.line == 3
    assert root.frames and len(root.frames) == depth
    # innermost first, as the handler prints it: the innermost frame is the first symbol
    assert root.frames[-1].function.startswith("ccl_comm::post_coll")


@settings(max_examples=30, deadline=None)
@given(prefix=_RAW_PREFIX, framed=st.booleans(), depth=st.integers(1, 4))
def test_oneccl_frames_name_the_xpu_collective_crash(prefix: str, framed: bool,
                                                     depth: int) -> None:
    signature, fix = signature_advice(_banner_log(prefix, _ONECCL_STACK, framed, depth))
    assert signature == "xpu-oneccl-native-crash"
    assert "52386" in fix and "world_size" in fix and "CCL_" in fix


@pytest.mark.parametrize("stack", [_NCCL_STACK, _TORCH_STACK])
@pytest.mark.parametrize("framed", [True, False])
def test_other_libraries_segfault_is_not_oneccls(stack: list[str], framed: bool) -> None:
    report = _report(_banner_log("", stack, framed, len(stack)))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "Segmentation fault"
    assert report.signature is not None and report.signature.id != "xpu-oneccl-native-crash"


@pytest.mark.parametrize("line", [
    "!!!!!!! Segfault encountered !!!!!!! (not here)",  # not the banner alone on its line
    "INFO 08-14 10:02:09 [x.py:1] no Segfault encountered in this run",
])
def test_words_of_the_banner_in_other_text_are_no_crash(line: str) -> None:
    assert _report(f"INFO 08-14 10:02:08 [x.py:1] start\n{line}\n").verdict is Verdict.NO_FAILURE


# ---- V0's repr record heading a traceback cut before its exception line -------------------

_V0_ENGINE = "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py"
_V0_FRAMES = [(_V0_ENGINE, "start", "self.run_engine_loop()"),
              (_V0_ENGINE, "run_engine_loop", "request_outputs = self.engine_step()"),
              (_V0_ENGINE, "engine_step", "raise e")]
_RECORD_PREFIX = st.sampled_from(["", "May 20 14:20:23 ip-172-26-1-54 vllm[32308]: ",
                                  "2025-05-20T14:20:23.190118292Z ", "vllm-1  | "])
_REPRS = st.sampled_from([
    ("ValueError", "Attempted to assign 1705 = 1705 multimodal tokens to 0 placeholders"),
    ("RuntimeError", "CUDA error: an illegal memory access was encountered"),
    ("KeyError", "model.layers.0.mlp.experts.w2_weight"),
])


def _repr_then_cut(prefix: str, name: str, message: str, depth: int) -> str:
    header = f"{prefix}ERROR 05-20 14:20:23 [engine.py:160] "
    lines = [f"{header}{name}({message!r})"]
    trace = python_traceback(_V0_FRAMES[:depth], "").rstrip("\n").split("\n")
    return "\n".join(lines + [header + line for line in trace if line]) + "\n"


@settings(max_examples=40, deadline=None)
@given(prefix=_RECORD_PREFIX, printed=_REPRS, depth=st.integers(1, 3))
def test_repr_record_names_the_exception_of_a_traceback_cut_before_it(
        prefix: str, printed: tuple[str, str], depth: int) -> None:
    name, message = printed
    report = _report(_repr_then_cut(prefix, name, message, depth))
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == name and root.line == 1
    assert message in root.message


@settings(max_examples=20, deadline=None)
@given(prefix=_RECORD_PREFIX, printed=_REPRS)
def test_repr_record_with_whole_traceback_keeps_the_exception_line(
        prefix: str, printed: tuple[str, str]) -> None:
    name, message = printed
    log = _repr_then_cut(prefix, name, message, 3)
    log += f"{prefix}ERROR 05-20 14:20:23 [engine.py:160] {name}: {message}\n"
    report = _report(log)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE and root is not None
    assert root.exception == name and root.line == len(log.splitlines())


def test_repr_record_at_info_level_is_no_error() -> None:
    log = "INFO 05-20 14:20:23 [engine.py:160] ValueError('not raised')\n"
    assert _report(log).verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None)
@given(prefix=_RECORD_PREFIX, depth=st.integers(1, 3))
def test_v0_multimodal_chunk_without_placeholders_names_v1_and_the_batch(
        prefix: str, depth: int) -> None:
    log = _repr_then_cut(prefix, "ValueError",
                         "Attempted to assign 1705 = 1705 multimodal tokens to 0 placeholders",
                         depth)
    _, fix = signature_advice(log)
    assert "VLLM_USE_V1" in fix and "--max-num-batched-tokens" in fix
    assert "chunked-prefill" in fix


# ---- a wrapper that quotes its cause's str(e) ---------------------------------------------

_SPEC_SP = ("Can't determine cudagraph shapes that are both a multiple of {step} "
            "(num_speculative_tokens + 1) required by spec-decode and {tp} (tensor_parallel_size)"
            " required by sequence parallelism please adjust num_speculative_tokens or disable "
            "sequence parallelism")
_WRAPPED = [
    (_SPEC_SP.format(step=3, tp=4), "spec-decode-cudagraph-sizes-unresolvable"),
    (_SPEC_SP.format(step=6, tp=4), "spec-decode-cudagraph-sizes-unresolvable"),
    ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
     "initializing the engine.", "no-memory-for-kv-cache"),
    ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 "
     "GPU has compute capability 7.5. You can use float16 instead by explicitly setting the "
     "`dtype` flag in CLI, for example: --dtype=half.", "bfloat16-unsupported-compute-capability"),
]


@settings(max_examples=40, deadline=None)
@given(wrapped=st.sampled_from(_WRAPPED),
       tail=st.sampled_from(["", ", please check the stack trace above for the root cause"]),
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=8495) ERROR 11-19 10:00:01 [core.py:866] "]))
def test_worker_failed_wrapper_is_answered_by_its_causes_signature(
        wrapped: tuple[str, str], tail: str, prefix: str) -> None:
    cause, expected = wrapped
    log = f"{prefix}RuntimeError: Worker failed with error '{cause}'{tail}\n"
    signature, _ = signature_advice(log)
    assert signature == expected


def test_spec_decode_capture_size_check_names_its_false_assertion_fix() -> None:
    log = f"RuntimeError: Worker failed with error '{_SPEC_SP.format(step=3, tp=4)}'\n"
    _, fix = signature_advice(log)
    assert "29036" in fix and "enable_sp" in fix and "num_speculative_tokens" in fix


def test_a_wrappers_class_still_counts_for_a_class_it_is() -> None:
    # a RuntimeError that is no wrapper still contradicts a signature that names ValueError
    from logsleuth.knowledge import default_causality
    know = default_causality()
    assert know.wrapped_cause("Worker failed with error 'x y z'") == "x y z"
    assert know.wrapped_cause("Worker failed with error 'x', please check the stack trace above "
                              "for the root cause") == "x"
    assert know.wrapped_cause("Worker failed with error 'x' and then more") is None


# ---- a structured-output package whose API differs from vLLM's call ------------------------

_SO_SITE = "/usr/local/lib/python3.12/dist-packages/vllm/"
_SO_CALLS = [
    ("v1/structured_output/backend_xgrammar.py", "__post_init__", "self.compiler = xgr.GrammarCompiler(",
     "TypeError: GrammarCompiler.__init__() got an unexpected keyword argument 'cache_limit_bytes'"),
    ("v1/structured_output/backend_guidance.py", "validate_guidance_grammar",
     "err = llguidance.LLMatcher.validate_grammar(guidance_grm,",
     "TypeError: LLMatcher.validate_grammar() got some positional-only arguments passed as "
     "keyword arguments: 'tokenizer'"),
    ("v1/structured_output/backend_xgrammar.py", "compile_grammar",
     "ctx = self.compiler.compile_json_schema(",
     "TypeError: GrammarCompiler.compile_json_schema() takes 2 positional arguments but 3 were "
     "given"),
    ("model_executor/guided_decoding/xgrammar_decoding.py", "from_guided_params",
     "tokenizer_info = xgr.TokenizerInfo.from_huggingface(",
     "TypeError: TokenizerInfo.from_huggingface() missing 1 required positional argument: "
     "'vocab_size'"),
]


@settings(max_examples=30, deadline=None)
@given(call=st.sampled_from(_SO_CALLS), prefix=st.sampled_from(
    ["", "(EngineCore_DP0 pid=12) ERROR 07-14 09:31:05 [core.py:710] ", "[rank0]: "]))
def test_backend_package_api_mismatch_names_the_pin(call: tuple[str, str, str, str],
                                                    prefix: str) -> None:
    module, function, code, error = call
    frames = [(_SO_SITE + "v1/engine/core.py", "run_engine_core", "engine_core = EngineCoreProc()"),
              (_SO_SITE + module, function, code)]
    signature, fix = signature_advice(python_traceback(frames, error, prefix))
    assert signature == "structured-output-backend-package-api-mismatch"
    assert "requirements/common.txt" in fix and "pip check" in fix


@pytest.mark.parametrize("error", [
    # vLLM's own callees: a bug or a plugin's model of another release, not a package pin
    "TypeError: LlamaModel.__init__() got an unexpected keyword argument 'layer_type'",
    "TypeError: StructuredOutputManager.grammar_init() takes 2 positional arguments but 3 were "
    "given",
])
def test_a_call_into_vllms_own_code_is_not_the_package_mismatch(error: str) -> None:
    frames = [(_SO_SITE + "v1/structured_output/__init__.py", "grammar_init",
               "self.backend = XgrammarBackend(")]
    report = _report(python_traceback(frames, error))
    assert report.signature is None \
        or report.signature.id != "structured-output-backend-package-api-mismatch"
