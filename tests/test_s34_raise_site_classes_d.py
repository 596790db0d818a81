"""Session 34's raise-site classes (sigs-d): user-facing refusals of vLLM's own code that only a
broad family answered (vllm-internal-assertion, kv-cache-manager-rejected, multimodal-processor-
failed, vllm-feature-not-implemented, lora-adapter-rejected), each generated over its wordings
across releases and the ways a log shows it (a worker's traceback of every era, the engine core's
record, a bare paste, a client's error), with a near miss:

- a prompt that fills max_model_len tripping the model runner's sampled-token assertion
  (0.9.2-0.11.1): prompt-fills-max-model-len-sampled-overflow; the later up-front refusal is not it;
- KV cache specs a run without the hybrid KV cache manager cannot unify (both wordings):
  kv-cache-specs-not-unifiable-without-hybrid-manager; the explicit-enable refusal is not it;
- chat text holding more multimodal placeholders than media parts (the ValueError, the
  VLLMValidationError, the 'Placeholder count is negative!' record): mm-text-placeholders-exceed-
  items; the processor's own prompt-update count is not it;
- the speech-to-text routes on a model without the transcription task: speech-to-text-api-model-
  unsupported; other audio refusals are not it;
- a batch over the --max-loras GPU slots (both wordings): lora-gpu-slots-exhausted; pinned
  adapters filling the CPU cache are not it;
- requests failed under kv_load_failure_policy=fail: kv-load-failure-requests-failed; the
  recompute policy's warning is not it;
- prefix caching asked of a Mamba/hybrid model in a mode it cannot cache (0.7.3-0.11.0's
  refusals, the models' 'all' refusals, 0.33's align assertions): mamba-prefix-caching-mode-
  unsupported; --mamba-block-size without prefix caching is not it;
- a request's tool_choice without tools, naming a tool its list lacks, or malformed:
  tool-choice-does-not-match-tools; a tool_choice value the release does not accept is not it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tool_import import import_tool
from v1log import ERAS, PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, \
    signature_advice, worker_failure

from logsleuth.model import Phase
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

_ERAS = st.sampled_from(ERAS)
_ENGINE_PREFIXES = st.sampled_from(["(EngineCore_DP0 pid=2291) ", "(EngineCore_0 pid=77) ",
                                    "(EngineCore pid=412) ", ""])
_STAMPS = st.sampled_from(["10-06 14:05:17", "03-02 11:43:02", "12-31 23:59:59"])


def _engine_record(prefix: str, stamp: str, title: str, frames: list[tuple[str, str, str]],
                   error: str) -> str:
    """An engine core's ERROR record holding a traceback, as V1's core.py logs it."""
    header = f"{prefix}ERROR {stamp} [core.py:710] "
    return python_traceback(frames, error, header).replace(
        f"{header}Traceback", f"{header}{title}\n{header}Traceback", 1)


# --- a prompt that fills max_model_len: the runner's sampled-token assertion -------------------

_LENGTHS = st.sampled_from([2048, 4096, 8192, 32768, 131072])


@settings(max_examples=40, deadline=None)
@given(length=_LENGTHS, extra=st.integers(1, 5), era=_ERAS, py=PYTHONS, site=SITE_PACKAGES,
       function=st.sampled_from(["_bookkeeping_sync", "execute_model"]),
       shape=st.sampled_from(["engine", "worker", "bare"]), prefix=_ENGINE_PREFIXES,
       stamp=_STAMPS)
def test_a_prompt_filling_the_context_gets_the_truncation_advice(
        length: int, extra: int, era: object, py: str, site: str, function: str, shape: str,
        prefix: str, stamp: str) -> None:
    error = (f"AssertionError: Sampled token IDs exceed the max model length. Total number of "
             f"tokens: {length + extra} > max_model_len: {length}")
    runner = f"{site.format(py=py)}vllm/v1/worker/gpu_model_runner.py"
    if shape == "engine":
        frames = [(f"{site.format(py=py)}vllm/v1/engine/core.py", "run_busy_loop",
                   "self._process_engine_step()"),
                  (runner, function, "assert end_idx <= self.max_model_len, (")]
        log = _engine_record(prefix, stamp, "EngineCore encountered a fatal error.", frames,
                             error)
    elif shape == "worker":  # tensor parallelism: the worker raises, the engine core wraps it
        log = worker_failure(error, phase=Phase.SERVING, era=era,  # type: ignore[arg-type]
                             inner=((runner, function),))
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "prompt-fills-max-model-len-sampled-overflow", log
    assert "truncate_prompt_tokens" in fix and "--max-model-len" in fix and "0.11.2" in fix


@pytest.mark.parametrize("error", [
    # 0.11.2+'s up-front refusal of the same prompt: the request's own length class
    "ValueError: The decoder prompt (length 8192) plus the number of requested output tokens (at "
    "least 1) is longer than the maximum model length of 8192. Make sure that `max_model_len` is "
    "no smaller than the number of text tokens (prompt + requested output tokens).",
    "AssertionError: Encoder input should be processed at the beginning of the sequence when "
    "encoder-decoder models are used.",
])
def test_other_length_refusals_are_not_the_sampled_token_assertion(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "prompt-fills-max-model-len-sampled-overflow"


# --- the hybrid KV cache manager off and KV cache specs that cannot share one layout ------------

_UNIFY = st.sampled_from([
    ("Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one "
     "unified type.", "vllm/v1/core/kv_cache_utils.py", "unify_hybrid_kv_cache_specs"),
    ("Failed to promote local KV cache specs to one unified type.",
     "vllm/v1/core/kv_cache_utils.py", "_promote_local_kv_cache_specs"),
    ("Failed to promote local KV cache specs to one unified type.",
     "vllm/v1/core/kv_cache_planning.py", "_promote_local_kv_cache_specs"),
])
_HMA_WARNINGS = st.sampled_from([
    "",
    "WARNING 03-02 11:40:18 [vllm.py:1649] Turning off hybrid kv cache manager because "
    "`--kv-transfer-config` selects a KV connector that does not support it.\n",
    "WARNING 10-14 03:14:40 [kv_cache_utils.py:1111] Hybrid KV cache manager is disabled for "
    "this hybrid model, This means we do not enable any optimizations for saving KV cache "
    "memory (e.g., dropping the KV cache outside the sliding window).\n",
])


@settings(max_examples=40, deadline=None)
@given(unify=_UNIFY, warning=_HMA_WARNINGS, py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["engine", "bare", "traceback"]), prefix=_ENGINE_PREFIXES,
       stamp=_STAMPS, tb_prefix=TRACEBACK_PREFIXES)
def test_kv_cache_specs_without_the_hybrid_manager_get_the_hma_advice(
        unify: tuple[str, str, str], warning: str, py: str, site: str, shape: str, prefix: str,
        stamp: str, tb_prefix: str) -> None:
    message, module, function = unify
    error = f"ValueError: {message}"
    packages = site.format(py=py)
    frames = [(f"{packages}vllm/v1/engine/core.py", "_initialize_kv_caches",
               "kv_cache_configs = get_kv_cache_configs(vllm_config, kv_cache_specs,"),
              (f"{packages}{module}", function, "raise ValueError(")]
    if shape == "engine":
        log = _engine_record(prefix, stamp, "EngineCore failed to start.", frames, error)
    elif shape == "traceback":
        log = python_traceback(frames, error, tb_prefix)
    else:
        log = error + "\n"
    sid, fix = signature_advice(prefix + warning + log if warning else log)
    assert sid == "kv-cache-specs-not-unifiable-without-hybrid-manager", log
    assert "--disable-hybrid-kv-cache-manager" in fix and "--kv-transfer-config" in fix
    assert "SupportsHMA" in fix


@pytest.mark.parametrize("error", [
    "ValueError: Hybrid KV cache manager was explicitly enabled but is not supported in this "
    "configuration. Consider omitting the --no-disable-hybrid-kv-cache-manager flag to let vLLM "
    "decide automatically.",
    "AssertionError: UnitaryKVCacheCoordinator assumes only one kv cache group",
])
def test_other_hybrid_kv_cache_messages_are_not_the_unify_failure(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "kv-cache-specs-not-unifiable-without-hybrid-manager"


# --- chat text holding more multimodal placeholders than media parts -------------------------

_PLACEHOLDERS = st.sampled_from(["<image>", "<|image_pad|>", "<|image|>", "<|audio|>",
                                 "<|video_pad|>", "<image_placeholder>", "[IMG]"])


@settings(max_examples=40, deadline=None)
@given(placeholder=_PLACEHOLDERS,
       cls=st.sampled_from(["ValueError", "VLLMValidationError",
                            "vllm.exceptions.VLLMValidationError"]),
       module=st.sampled_from(["vllm/entrypoints/chat_utils.py", "vllm/renderers/chat_utils.py",
                               "vllm/renderers/chat_utils/chat_message.py"]),
       record=st.booleans(), interleave=st.booleans(), py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["server", "traceback", "bare"]), prefix=TRACEBACK_PREFIXES)
def test_hand_written_placeholders_over_the_media_parts_get_the_placeholder_advice(
        placeholder: str, cls: str, module: str, record: bool, interleave: bool, py: str,
        site: str, shape: str, prefix: str) -> None:
    error = (f"{cls}: Found more '{placeholder}' placeholders in input prompt than actual "
             "multimodal data items.")
    head = (f"(APIServer pid=8) ERROR 10-20 16:40:11 [chat_utils.py:1135] Placeholder count is "
            f"negative! Ensure that the 'interleave_strings' flag is disabled (current value: "
            f"{interleave}) when manually placing image placeholders.\n") if record else ""
    frames = [(f"{site.format(py=py)}{module}", "_get_full_multimodal_text_prompt",
               f"raise {cls.rsplit('.', 1)[-1]}(")]
    if shape == "server":
        body = python_traceback(frames, error, "(APIServer pid=8) ERROR 10-20 16:40:11 "
                                               "[serving_chat.py:259] ")
        body = ("(APIServer pid=8) ERROR 10-20 16:40:11 [serving_chat.py:259] Error in "
                "preprocessing prompt inputs\n" + body)
    elif shape == "traceback":
        body = python_traceback(frames, error, prefix)
    else:
        body = error + "\n"
    sid, fix = signature_advice(head + body)
    assert sid == "mm-text-placeholders-exceed-items", head + body
    assert "--interleave-mm-strings" in fix and "image_url" in fix


@pytest.mark.parametrize("placeholder", ["<image>", "<|image_pad|>", "<|audio|>"])
def test_with_exact_signatures_withheld_the_multimodal_family_names_the_placeholder_knob(
        placeholder: str) -> None:
    # a wording nobody has seen meets only the families (tools/family_loo): the processor
    # family names the hand-written placeholders and --interleave-mm-strings
    families = import_tool("family_loo", "loo").families_only(default_signatures())
    log = (f"ValueError: Found more '{placeholder}' placeholders in input prompt than actual "
           "multimodal data items.\n")
    report = explain_text(log, signatures=families)
    assert report.signature is not None and report.signature.id == "multimodal-processor-failed"
    assert "--interleave-mm-strings" in report.signature.fix


def test_the_negative_count_record_alone_gets_the_placeholder_advice() -> None:
    log = ("ERROR 10-20 16:40:11 [chat_utils.py:1135] Placeholder count is negative! Ensure that "
           "the 'interleave_strings' flag is disabled (current value: True) when manually "
           "placing image placeholders.\n")
    assert signature_advice(log)[0] == "mm-text-placeholders-exceed-items"


@pytest.mark.parametrize("error", [
    "RuntimeError: Expected there to be 1 prompt updates corresponding to 1 image items, but "
    "instead found 0 prompt updates! This is likely because you forgot to include input "
    "placeholder tokens (e.g., `<image>`, `<|image_pad|>`) in the prompt.",
    "ValueError: Attempted to assign 1 x 1200 = 1200 multimodal tokens to 1024 placeholders",
    "ValueError: At most 1 image(s) may be provided in one request.",
])
def test_other_placeholder_mismatches_are_not_the_chat_text_class(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "mm-text-placeholders-exceed-items"


# --- the speech-to-text routes on a model without the transcription task -----------------------

_ROUTES = st.sampled_from([
    ("Transcriptions", "vllm/entrypoints/speech_to_text/transcription/api_router.py",
     "create_transcriptions"),
    ("Translations", "vllm/entrypoints/speech_to_text/translation/api_router.py",
     "create_translations"),
    ("Transcriptions", "vllm/entrypoints/openai/speech_to_text/api_router.py",
     "create_transcriptions"),
])


@settings(max_examples=30, deadline=None)
@given(route=_ROUTES, py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["server", "client", "bare"]),
       prefix=st.sampled_from(["(APIServer pid=1) ", "", "api-1  | "]))
def test_the_speech_routes_on_another_model_get_the_asr_model_advice(
        route: tuple[str, str, str], py: str, site: str, shape: str, prefix: str) -> None:
    api, module, function = route
    message = f"The model does not support {api} API"
    if shape == "server":
        frames = [(f"{site.format(py=py)}{module}", function,
                   f'raise NotImplementedError("{message}")')]
        log = (f"{prefix}ERROR:    Exception in ASGI application\n"
               + python_traceback(frames, f"NotImplementedError: {message}", prefix))
    elif shape == "client":  # the OpenAI client's view of the error response
        log = (f"openai.BadRequestError: Error code: 400 - {{'object': 'error', 'message': "
               f"'{message}', 'type': 'BadRequestError', 'param': None, 'code': 400}}\n")
    else:
        log = f"NotImplementedError: {message}\n"
    sid, fix = signature_advice(log)
    assert sid == "speech-to-text-api-model-unsupported", log
    assert "/v1/chat/completions" in fix and "input_audio" in fix and "--runner pooling" in fix


@pytest.mark.parametrize("error", [
    "ValueError: Maximum file size exceeded.",
    "ValueError: Maximum clip duration (30s) exceeded.",
    "NotImplementedError: The model does not support the Generative Scoring API",
])
def test_other_audio_and_api_refusals_are_not_the_speech_route_class(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "speech-to-text-api-model-unsupported"


# --- a batch over the --max-loras GPU slots -----------------------------------------------------

_SLOTS = st.tuples(st.integers(1, 16), st.integers(1, 8)).filter(lambda pair: pair[0] > pair[1])


@settings(max_examples=40, deadline=None)
@given(slots=_SLOTS, wording=st.sampled_from(["count", "free"]), era=_ERAS, py=PYTHONS,
       site=SITE_PACKAGES, shape=st.sampled_from(["worker", "traceback", "bare"]),
       prefix=TRACEBACK_PREFIXES,
       manager=st.sampled_from(["vllm/lora/models.py", "vllm/lora/model_manager.py"]))
def test_a_batch_over_the_gpu_lora_slots_gets_the_max_loras_advice(
        slots: tuple[int, int], wording: str, era: object, py: str, site: str, shape: str,
        prefix: str, manager: str) -> None:
    requested, available = slots
    packages = site.format(py=py)
    if wording == "count":
        error = (f"RuntimeError: Number of requested LoRAs ({requested}) is greater than the "
                 f"number of GPU LoRA slots ({available}).")
        inner = ((f"{packages}vllm/lora/worker_manager.py", "_apply_adapters"),)
    else:
        error = "ValueError: No free lora slots"
        inner = ((f"{packages}vllm/lora/worker_manager.py", "add_adapter"),
                 (f"{packages}{manager}", "activate_adapter"))
    if shape == "worker":
        log = worker_failure(error, phase=Phase.SERVING, era=era,  # type: ignore[arg-type]
                             inner=inner)
    elif shape == "traceback":
        log = python_traceback([(path, function, "raise") for path, function in inner], error,
                               prefix)
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "lora-gpu-slots-exhausted", log
    assert "--max-loras" in fix and "lora_int_id" in fix and "pin_lora" in fix


@pytest.mark.parametrize("error", [
    "RuntimeError: All items are pinned, cannot remove oldest from the cache.",
    "ValueError: LoRA rank 64 is greater than max_lora_rank 16.",
    "ValueError: max_cpu_loras (2) must be >= max_loras (4).",
])
def test_other_lora_limits_are_not_the_gpu_slots_class(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "lora-gpu-slots-exhausted"


# --- requests failed under kv_load_failure_policy=fail ------------------------------------------


@settings(max_examples=30, deadline=None)
@given(count=st.integers(1, 64), tokens=st.integers(16, 200000), prefix=_ENGINE_PREFIXES,
       stamp=_STAMPS, ids=st.sampled_from(["{'cmpl-3f2a9c1e7b-0'}", "['chatcmpl-8c1f0e2a', "
                                            "'chatcmpl-91d0a4c2']", "{'0', '1', '2'}"]),
       before=st.sampled_from([
           "",
           "INFO 04-09 18:31:47 [loggers.py:257] Engine 000: Avg prompt throughput: 1402.1 "
           "tokens/s, Running: 41 reqs, Waiting: 3 reqs, GPU KV cache usage: 38.2%\n",
       ]))
def test_requests_failed_for_kv_loads_get_the_recompute_advice(
        count: int, tokens: int, prefix: str, stamp: str, ids: str, before: str) -> None:
    log = (f"{prefix}{before}" if before else "") + (
        f"{prefix}ERROR {stamp} [scheduler.py:2896] Failing {count} request(s) due to KV load "
        f"failure (failure_policy=fail, {tokens} tokens affected). Request IDs: {ids}\n")
    sid, fix = signature_advice(log)
    assert sid == "kv-load-failure-requests-failed", log
    assert '"kv_load_failure_policy": "recompute"' in fix and "--kv-transfer-config" in fix


def test_the_recompute_policys_warning_is_not_a_failure_of_requests() -> None:
    log = ("(EngineCore_DP0 pid=388) WARNING 04-09 18:31:52 [scheduler.py:2910] Recovered from "
           "KV load failure: 2 request(s) rescheduled (6144 tokens affected).\n"
           "ValueError: Please specify kv_role when kv_connector is set, supported roles are "
           "['kv_producer', 'kv_consumer', 'kv_both']\n")
    sid, _ = signature_advice(log)
    assert sid != "kv-load-failure-requests-failed"


# --- prefix caching asked of a Mamba or hybrid model in a mode it cannot cache -----------------

_MAMBA_REFUSALS = st.sampled_from([
    ("NotImplementedError", "{model} currently does not support 'all' prefix caching, please use "
     "'--mamba-cache-mode=align' instead", "vllm/model_executor/models/{module}.py", "__init__"),
    ("NotImplementedError", "Intern-S2-Mobius does not support 'all' prefix caching; use "
     "'--mamba-cache-mode=align' instead.", "vllm/model_executor/models/interns2_mobius.py",
     "__init__"),
    ("AssertionError", "Mamba does not support prefix caching",
     "vllm/model_executor/models/mamba2.py", "__init__"),
    ("NotImplementedError", "Prefix caching is not supported for Mamba yet.",
     "vllm/v1/worker/gpu_model_runner.py", "may_reinitialize_input_batch"),
    ("AssertionError", "Mamba prefix caching requires mamba_cache_mode='align'",
     "vllm/v1/core/single_type_kv_cache_manager.py", "__init__"),
    ("AssertionError", "Chunked prefill is required for Mamba prefix caching.",
     "vllm/model_executor/models/config.py", "verify_and_update_config"),
])
_HYBRIDS = st.sampled_from([("Qwen3Next", "qwen3_next"), ("Qwen3.5", "qwen3_5"),
                            ("Lfm2", "lfm2"), ("Lfm2Moe", "lfm2_moe"),
                            ("Qwen3NextMTP", "qwen3_next_mtp")])


@settings(max_examples=40, deadline=None)
@given(refusal=_MAMBA_REFUSALS, hybrid=_HYBRIDS, era=_ERAS, py=PYTHONS, site=SITE_PACKAGES,
       shape=st.sampled_from(["worker", "traceback", "bare"]), prefix=TRACEBACK_PREFIXES)
def test_mamba_prefix_caching_in_a_mode_it_lacks_gets_the_cache_mode_advice(
        refusal: tuple[str, str, str, str], hybrid: tuple[str, str], era: object, py: str,
        site: str, shape: str, prefix: str) -> None:
    cls, message, module, function = refusal
    error = f"{cls}: {message.format(model=hybrid[0])}"
    path = f"{site.format(py=py)}{module.format(module=hybrid[1])}"
    if shape == "worker":
        log = worker_failure(error, phase=Phase.LOAD, era=era,  # type: ignore[arg-type]
                             inner=((path, function),))
    elif shape == "traceback":
        log = python_traceback([(path, function, f"raise {cls}(")], error, prefix)
    else:
        log = error + "\n"
    sid, fix = signature_advice(log)
    assert sid == "mamba-prefix-caching-mode-unsupported", log
    assert "--mamba-cache-mode align" in fix and "--no-enable-prefix-caching" in fix


@pytest.mark.parametrize("error", [
    "ValueError: --mamba-block-size can only be set with --enable-prefix-caching",
    "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128). Each decode "
    "sequence requires one Mamba cache block, so CUDA graph capture cannot proceed.",
    "NotImplementedError: Mamba with speculative decoding is not supported yet.",
])
def test_other_mamba_cache_settings_are_not_the_prefix_caching_class(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "mamba-prefix-caching-mode-unsupported"


# --- a request's tool_choice against its own tools -----------------------------------------------

_TOOL_CHOICE_ERRORS = st.sampled_from([
    "When using `tool_choice`, `tools` must be set.",
    "The tool specified in `tool_choice` does not match any of the specified `tools`",
    "The tool `{name}` specified in `tool_choice` does not match any of the specified `tools`",
    "Expected field `name` in `function` in `tool_choice`! Correct usage: `{{\"type\": "
    "\"function\", \"function\": {{\"name\": \"my_function\"}}}}`",
    "Invalid `name` in `function`: `` in `tool_choice`! Correct usage: `{{\"type\": "
    "\"function\", \"function\": {{\"name\": \"my_function\"}}}}`",
    "Invalid value for `function`: `None` in `tool_choice`! Correct usage: ...",
    "Expected field `function` in `tool_choice`. Correct usage: `{{\"type\": \"function\", "
    "\"function\": {{\"name\": \"my_function\"}}}}`",
    "tool_choice.name is required when type is 'tool'",
])


@settings(max_examples=40, deadline=None)
@given(message=_TOOL_CHOICE_ERRORS, name=st.sampled_from(["search_web", "get_weather",
                                                         "mcp__fs__read_file"]),
       cls=st.sampled_from(["ValueError", "vllm.exceptions.VLLMValidationError"]),
       shape=st.sampled_from(["client", "server", "bare"]), py=PYTHONS, site=SITE_PACKAGES)
def test_a_tool_choice_its_tools_do_not_back_gets_the_tools_advice(
        message: str, name: str, cls: str, shape: str, py: str, site: str) -> None:
    text = message.format(name=name)
    if shape == "client":
        log = (f"openai.BadRequestError: Error code: 400 - {{'object': 'error', 'message': "
               f"{text!r}, 'type': 'BadRequestError', 'param': 'tool_choice', 'code': 400}}\n")
    elif shape == "server":
        frames = [(f"{site.format(py=py)}vllm/entrypoints/openai/chat_completion/protocol.py",
                   "check_tool_usage", "raise VLLMValidationError(")]
        log = python_traceback(frames, f"{cls}: {text}", "(APIServer pid=1) ")
    else:
        log = f"{cls}: {text}\n"
    sid, fix = signature_advice(log)
    assert sid == "tool-choice-does-not-match-tools", log
    assert "tools[i].function.name" in fix and '"none"' in fix


@pytest.mark.parametrize("error", [
    'ValueError: Invalid value for `tool_choice`: any! Only named tools, "none", "auto" or '
    '"required" are supported.',
    'ValueError: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to '
    'be set',
    "ValueError: Only 'auto' tool_choice is supported in response API with Harmony",
])
def test_other_tool_choice_refusals_are_not_the_tools_list_class(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "tool-choice-does-not-match-tools"
