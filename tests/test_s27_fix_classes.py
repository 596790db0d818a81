"""Classes behind session 27's eighteenth split's cold fix misses (and two moved in from the
held-out set), each generated over its wordings and the ways a log shows it, with a near miss:

- an OpenAI request field (`max_completion_tokens`, `response_format`, `top_logprobs`,
  `guided_json`, ...) given to the offline `SamplingParams`: sampling-options-not-sampling-params,
  whose fix gives each field's offline name; a keyword that is neither an OpenAI nor a Hugging
  Face name keeps the Python-API family;
- a line under a relay's level (`[ERROR] <time> (PID:N, ...) ERR99999 ...`, torch_npu's exit
  report) after an exception line printed bare is another writer's record, not the exception's
  message (assemble.py); a torch_npu message that goes on in such records (`error code is N`)
  keeps them;
- vLLM's CUDA-graph dispatcher asserting that a padded uniform-decode batch is a multiple of
  `num_speculative_tokens + 1`: spec-decode-full-cudagraph-padded-batch-not-uniform, whose fix
  names the capture sizes and graph modes; another assertion of the dispatcher does not get it;
- an unbracketed IPv6 address in a `tcp://` rendezvous URL (urllib's port error on the rest of
  the address): ipv6-address-unbracketed-in-tcp-url; a port that is no address keeps other advice;
- Gaudi's HABANA_VISIBLE_MODULES range check: hpu-visible-modules-out-of-range, whose fix names
  the variable and the local rank; a device-acquire failure keeps hpu-synapse-error;
- a quantized layer lacking the scale or packed weight its kernel path reads:
  quantized-layer-parameter-name-mismatch, naming platform plugins and the schemes; an attribute
  that is no quantization parameter does not get it;
- ROCm's GPU-hang abort: the family rocm-gpu-hang (sigs-c's, written the same session; the exact
  signature written here for it was folded into it), whose fix names `amdgpu.cwsr_enable=0` and
  eager mode; a memory-access fault keeps its own signature;
- a `pathlib.Path` in LoRARequest.lora_path, and the mid-2024 loader's UnboundLocalError that
  hid such failures: lora-request-path-not-string and lora-load-error-hidden-by-unbound-lora-path;
  an UnboundLocalError on another variable does not get the LoRA advice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- OpenAI request fields in SamplingParams -----------------------------------------------------

_OPENAI_FIELDS = st.sampled_from(["max_completion_tokens", "response_format", "top_logprobs",
                                  "stream", "stream_options", "tools", "tool_choice",
                                  "guided_json", "guided_regex", "guided_choice",
                                  "guided_grammar", "chat_template_kwargs"])
_EXIT_RECORDS = st.sampled_from([
    "",
    "[ERROR] 2025-06-01-12:00:01 (PID:{pid}, Device:-1, RankID:-1) ERR99999 UNKNOWN applicaiton "
    "exception",
    "[ERROR] 2026-01-17-03:14:15 (PID:{pid}, Device:0, RankID:-1) ERR99999 UNKNOWN application "
    "exception",
])


@settings(max_examples=40, deadline=None)
@given(field=_OPENAI_FIELDS, exit_record=_EXIT_RECORDS, pid=st.integers(10, 99999),
       script=st.sampled_from(["/root/offline.py", "/workspace/qwen_infer.py", "run.py"]))
def test_an_openai_request_field_in_sampling_params_gets_its_offline_name(
        field: str, exit_record: str, pid: int, script: str) -> None:
    log = python_traceback(
        [(script, "<module>", f"params = SamplingParams(temperature=0.7, {field}=32)")],
        f"TypeError: Unexpected keyword argument '{field}'")
    if exit_record:
        log += exit_record.format(pid=pid) + "\n"
    signature, fix = signature_advice(log)
    assert signature == "sampling-options-not-sampling-params"
    for knob in ("max_completion_tokens", "max_tokens", "structured_outputs", "logprobs"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(name=st.sampled_from(["num_gpu_blocks", "quantisation", "swap_space_gb", "lora_rank"]))
def test_a_keyword_of_no_other_api_keeps_the_python_api_family(name: str) -> None:
    log = python_traceback([("/root/run.py", "<module>", f"p = PoolingParams({name}=1)")],
                           f"TypeError: Unexpected keyword argument '{name}'")
    signature, _ = signature_advice(log)
    assert signature == "vllm-python-api-keyword-rejected"


# ---- a relay-level record after a bare exception line is not its message -------------------------

_BARE_ERRORS = st.sampled_from([
    ("TypeError", "Unexpected keyword argument 'max_completion_tokens'"),
    ("ValueError", "The checkpoint you are trying to load has model type `foo` but Transformers "
                   "does not recognize this architecture."),
    ("KeyError", "'model.layers.0.mlp.gate.weight'"),
    ("AttributeError", "'Qwen2Config' object has no attribute 'rope_scaling'"),
])


@settings(max_examples=30, deadline=None)
@given(error=_BARE_ERRORS, code=st.sampled_from(["ERR99999", "ERR00100", "ERR02200"]),
       pid=st.integers(10, 99999), level=st.sampled_from(["[ERROR]", "[Error]"]))
def test_a_relayed_record_after_a_bare_exception_is_not_its_message(
        error: tuple[str, str], code: str, pid: int, level: str) -> None:
    from logsleuth.pipeline import explain_text

    kind, message = error
    log = python_traceback([("/workspace/run.py", "<module>", "main()")], f"{kind}: {message}")
    log += f"{level} 2026-03-17-09:57:40 (PID:{pid}, Device:-1, RankID:-1) {code} UNKNOWN " \
           "applicaiton exception\n"
    report = explain_text(log)
    assert report.root_cause is not None
    assert report.root_cause.exception.endswith(kind)
    assert code not in report.root_cause.message, report.root_cause.message


@settings(max_examples=15, deadline=None)
@given(number=st.integers(100000, 599999), pid=st.integers(10, 99999))
def test_a_message_that_goes_on_in_records_keeps_them(number: int, pid: int) -> None:
    from logsleuth.pipeline import explain_text

    log = python_traceback(
        [("/usr/local/lib/python3.10/site-packages/torch_npu/npu/utils.py", "set_device",
          "torch_npu._C._npu_setDevice(device_id)")],
        f"RuntimeError: SetDevice:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:123 NPU "
        f"function error: aclrtSetDevice(device_id), error code is {number}")
    log += f"[ERROR] 2026-03-17-09:57:40 (PID:{pid}, Device:0, RankID:-1) ERR00100 PTA call acl " \
           "api failed\n"
    report = explain_text(log)
    assert report.root_cause is not None
    assert "ERR00100" in report.root_cause.message


# ---- the dispatcher's divisibility assertion under full CUDA graphs ------------------------------

_DISPATCH_CALLERS = st.sampled_from([
    ("vllm/v1/worker/gpu_model_runner.py", "_check_and_update_cudagraph_mode",
     "self.cudagraph_dispatcher.initialize_cudagraph_keys(", "vllm/v1/cudagraph_dispatcher.py",
     "initialize_cudagraph_keys"),
    ("vllm/v1/worker/gpu_model_runner.py", "execute_model",
     "cudagraph_mode, batch_descriptor = self.cudagraph_dispatcher.dispatch(",
     "vllm/v1/cudagraph_dispatcher.py", "dispatch"),
    ("vllm_ascend/worker/model_runner_v1.py", "_dummy_run",
     "self.cudagraph_dispatcher.dispatch(", "vllm/v1/cudagraph_dispatcher.py", "dispatch"),
])


@settings(max_examples=30, deadline=None)
@given(caller=_DISPATCH_CALLERS, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_the_dispatcher_divisibility_assertion_names_capture_sizes(
        caller: tuple[str, str, str, str, str], py: str, site: str, prefix: str) -> None:
    path, function, code, dispatcher, entry = caller
    base = site.format(py=py)
    log = python_traceback(
        [(base + path, function, code),
         (base + dispatcher, entry, "batch_desc = self._create_padded_batch_descriptor("),
         (base + dispatcher, "_create_padded_batch_descriptor",
          "assert num_tokens_padded % uniform_decode_query_len == 0")],
        "AssertionError", prefix)
    signature, fix = signature_advice(log)
    assert signature == "spec-decode-full-cudagraph-padded-batch-not-uniform"
    for knob in ("cudagraph_capture_sizes", "num_speculative_tokens", "PIECEWISE",
                 "FULL_DECODE_ONLY"):
        assert knob in fix, knob


def test_another_dispatcher_assertion_is_not_the_padding_one() -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/vllm/v1/cudagraph_dispatcher.py",
          "add_cudagraph_key", "assert runtime_mode in [CUDAGraphMode.PIECEWISE, "
          "CUDAGraphMode.FULL], (")],
        "AssertionError: Invalid cudagraph runtime mode for keys: CUDAGraphMode.NONE")
    signature, _ = signature_advice(log)
    assert signature != "spec-decode-full-cudagraph-padded-batch-not-uniform"


# ---- an unbracketed IPv6 address in a tcp:// URL ------------------------------------------------

_HEX_GROUPS = st.lists(st.integers(0, 0xFFFF).map(lambda n: f"{n:x}"), min_size=2, max_size=7)


@settings(max_examples=40, deadline=None)
@given(groups=_HEX_GROUPS, compressed=st.booleans(), port=st.integers(1024, 65535),
       py312=st.booleans(), prefix=TRACEBACK_PREFIXES)
def test_the_rest_of_a_bare_ipv6_address_as_a_port_says_bracket_it(
        groups: list[str], compressed: bool, port: int, py312: bool, prefix: str) -> None:
    rest = ":".join(groups[:1] + ([""] if compressed else []) + groups[1:])
    label = "{port!r}: " if py312 else ""
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py",
          "init_process_group", "store, rank, world_size = next(rendezvous_iterator)"),
         ("/usr/local/lib/python3.12/dist-packages/torch/distributed/rendezvous.py",
          "_tcp_rendezvous_handler", "if not result.port:"),
         ("/usr/lib/python3.12/urllib/parse.py", "port",
          'raise ValueError(f"Port could not be cast to integer value as {port!r}")')],
        f"ValueError: Port could not be cast to integer value as {label}'{rest}:{port}'", prefix)
    signature, fix = signature_advice(log)
    assert signature == "ipv6-address-unbracketed-in-tcp-url"
    for knob in ("tcp://[", "IPv6", "VLLM_HOST_IP", "--data-parallel-address"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(value=st.sampled_from(["<function get_open_port at 0x7fc97190a7a0>", "None", "http",
                              "${MASTER_PORT}"]))
def test_a_port_that_is_no_address_is_not_the_ipv6_failure(value: str) -> None:
    log = python_traceback(
        [("/usr/lib/python3.10/urllib/parse.py", "port",
          'raise ValueError(f"Port could not be cast to integer value as {port!r}")')],
        f"ValueError: Port could not be cast to integer value as '{value}'")
    signature, _ = signature_advice(log)
    assert signature != "ipv6-address-unbracketed-in-tcp-url"


# ---- Gaudi's HABANA_VISIBLE_MODULES range check --------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(ids=st.lists(st.integers(0, 7), min_size=1, max_size=4, unique=True),
       visible=st.integers(1, 8), wrapped=st.booleans(), prefix=TRACEBACK_PREFIXES)
def test_a_visible_modules_list_past_the_cards_names_the_local_rank(
        ids: list[int], visible: int, wrapped: bool, prefix: str) -> None:
    value = ",".join(map(str, ids))
    text = f"Invalid HABANA_VISIBLE_MODULES={value}. Module IDs should be" + \
        ("\n" if wrapped else " ") + f"between 0 and {visible - 1}."
    log = "".join(prefix + line + "\n" for line in f"RuntimeError: {text}".split("\n"))
    signature, fix = signature_advice(log)
    assert signature == "hpu-visible-modules-out-of-range"
    for knob in ("HABANA_VISIBLE_MODULES", "local rank", "hl-smi", "HABANA_VISIBLE_DEVICES"):
        assert knob in fix, knob


def test_a_gaudi_device_acquire_failure_keeps_its_own_advice() -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/vllm_gaudi/v1/worker/hpu_worker.py",
          "init_device", "torch.hpu.set_device(self.local_rank)")],
        "RuntimeError: synStatus=26 [Generic failure] Device acquire failed.")
    signature, _ = signature_advice(log)
    assert signature == "hpu-synapse-error"


# ---- a quantized layer lacking a parameter its kernel path reads ---------------------------------

_LAYERS = st.sampled_from(["FusedMoE", "SharedFusedMoE", "QKVParallelLinear",
                           "MergedColumnParallelLinear", "RowParallelLinear", "ReplicatedLinear"])
_PARAMS = st.sampled_from([("w13_weight_scale", "w13_weight_scale_inv"),
                           ("w2_weight_scale", "w2_weight_scale_inv"),
                           ("weight_scale", "weight_scale_inv"), ("input_scale", None),
                           ("weight_packed", "weight"), ("qweight", None), ("g_idx", None),
                           ("w13_weight_scale_2", None)])


@settings(max_examples=40, deadline=None)
@given(layer=_LAYERS, param=_PARAMS, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_missing_quantization_parameter_names_the_scheme_and_the_plugin(
        layer: str, param: tuple[str, str | None], py: str, site: str, prefix: str) -> None:
    missing, suggested = param
    base = site.format(py=py)
    hint = f". Did you mean: '{suggested}'?" if suggested else ""
    log = python_traceback(
        [(base + "vllm/model_executor/layers/quantization/fp8.py", "process_weights_after_loading",
          f"w = layer.{missing}"),
         (base + "torch/nn/modules/module.py", "__getattr__", "raise AttributeError(")],
        f"AttributeError: '{layer}' object has no attribute '{missing}'{hint}", prefix)
    signature, fix = signature_advice(log)
    assert signature == "quantized-layer-parameter-name-mismatch"
    for knob in ("vllm-gaudi", "vllm-ascend", "--quantization", "weight_block_size"):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(layer=_LAYERS, attribute=st.sampled_from(["routing_method_type", "weight_loader", "tp_size",
                                                 "quant_method", "experts"]))
def test_an_attribute_that_is_no_quantization_parameter_is_not_this_class(
        layer: str, attribute: str) -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py", "__getattr__",
          "raise AttributeError(")],
        f"AttributeError: '{layer}' object has no attribute '{attribute}'")
    signature, _ = signature_advice(log)
    assert signature != "quantized-layer-parameter-name-mismatch"


# ---- ROCm's GPU-hang abort -----------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(node=st.integers(0, 16), handles=st.lists(st.integers(0x1000000, 0x7FFFFFFFFFFF),
                                                   min_size=1, max_size=4),
       tail=st.sampled_from(["Aborted (core dumped)", "Aborted", ""]))
def test_a_gpu_hang_abort_names_the_driver_knobs(node: int, handles: list[int], tail: str) -> None:
    lines = ["(EngineCore_DP0 pid=809) INFO 11-14 21:03:26 [monitor.py:34] torch.compile takes "
             "18.85 s in total"]
    lines += [f"HW Exception by GPU node-{node} (Agent handle: {h:#x}) reason :GPU Hang"
              for h in handles]
    lines += [tail] if tail else []
    signature, fix = signature_advice("\n".join(lines) + "\n")
    assert signature == "rocm-gpu-hang"
    for knob in ("amdgpu.cwsr_enable=0", "dmesg", "--enforce-eager"):
        assert knob in fix, knob


def test_a_memory_access_fault_is_not_a_hang() -> None:
    log = ("Memory access fault by GPU node-1 (Agent handle: 0x5615d0a43b20) on address "
           "0x7f2a31c00000. Reason: Page not present or supervisor privilege.\n"
           "Aborted (core dumped)\n")
    signature, _ = signature_advice(log)
    assert signature == "rocm-gpu-memory-access-fault"


# ---- a Path in LoRARequest.lora_path, and the handler that hid it -------------------------------

@settings(max_examples=20, deadline=None)
@given(path_class=st.sampled_from(["PosixPath", "WindowsPath"]),
       method=st.sampled_from(["startswith", "endswith", "split"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_path_object_as_lora_path_says_pass_a_string(
        path_class: str, method: str, py: str, site: str, prefix: str) -> None:
    base = site.format(py=py)
    log = python_traceback(
        [(base + "vllm/lora/worker_manager.py", "_load_adapter",
          "lora_path = get_adapter_absolute_path(lora_request.lora_path)"),
         (base + "vllm/lora/utils.py", "get_adapter_absolute_path",
          f"if lora_path.{method}('~'):")],
        f"AttributeError: '{path_class}' object has no attribute '{method}'", prefix)
    signature, fix = signature_advice(log)
    assert signature == "lora-request-path-not-string"
    for knob in ("LoRARequest", "lora_path", "str("):
        assert knob in fix, knob


@settings(max_examples=20, deadline=None)
@given(new_wording=st.booleans(), name=st.sampled_from(["lora_path", "lora_local_path"]),
       record=st.sampled_from(["", "ERROR 07-31 22:37:30 async_llm_engine.py:56] "]))
def test_the_loader_handler_unbound_lora_path_points_at_the_adapter_error(
        new_wording: bool, name: str, record: str) -> None:
    text = (f"cannot access local variable '{name}' where it is not associated with a value"
            if new_wording else f"local variable '{name}' referenced before assignment")
    signature, fix = signature_advice(f"{record}UnboundLocalError: {text}\n")
    assert signature == "lora-load-error-hidden-by-unbound-lora-path"
    for knob in ("LoRARequest", "lora_path", "adapter_config.json"):
        assert knob in fix, knob


def test_an_unbound_variable_elsewhere_gets_no_lora_advice() -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.11/site-packages/vllm/model_executor/models/qwen2_vl.py",
          "forward", "inputs_embeds = merge(input_ids, inputs_embeds, image_embeds)")],
        "UnboundLocalError: cannot access local variable 'image_embeds' where it is not "
        "associated with a value")
    signature, _ = signature_advice(log)
    assert not signature.startswith("lora-")


@settings(max_examples=15, deadline=None)
@given(script=st.sampled_from(["/home/u/collect_env.py", "/workspace/run.py"]),
       pid=st.integers(10, 99999))
def test_an_exit_report_right_after_a_bare_exception_is_its_symptom(script: str, pid: int) -> None:
    from logsleuth.pipeline import explain_text

    log = python_traceback([(script, "get_vllm_version", "from vllm import __version__")],
                           "ImportError: cannot import name '__version__' from 'vllm' "
                           "(unknown location)")
    log += f"[ERROR] 2025-12-30-01:54:14 (PID:{pid}, Device:-1, RankID:-1) ERR99999 UNKNOWN " \
           "applicaiton exception\n"
    report = explain_text(log)
    assert report.root_cause is not None and report.root_cause.exception == "ImportError"
    assert any("ERR99999" in s.message for s in report.symptoms)


def test_a_doubled_port_is_not_an_ipv6_address() -> None:
    log = python_traceback(
        [("/usr/lib/python3.10/urllib/parse.py", "port",
          'raise ValueError(f"Port could not be cast to integer value as {port!r}")')],
        "ValueError: Port could not be cast to integer value as '8000:8000'")
    signature, _ = signature_advice(log)
    assert signature != "ipv6-address-unbracketed-in-tcp-url"
