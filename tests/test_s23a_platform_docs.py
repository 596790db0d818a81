"""Platform plugins' documented failure classes (session 23, issue 11), mined from the plugins'
own documentation pages, each generated over its wordings, the values its message carries, the
prefixes an engine core or a launcher gives it and the Python environment, with near misses that
keep their own answers:

- vllm-metal (Apple silicon): the paged-attention planner finds no room for the KV cache in the
  Metal memory limit, or refuses VLLM_METAL_MEMORY_FRACTION (not `auto`/(0, 1], or numeric with
  the MLX KV path): metal-memory-budget (docs: vllm-metal's configuration page);
- vllm-metal refusing at config time what Metal has not implemented (tensor parallelism,
  pipeline or data parallelism under the wrong executor or with speculative decoding / LoRA,
  speculative decoding's constraints, hybrid GDN models' state cache, per-layer KV dtypes):
  metal-feature-unsupported (docs: vllm-metal's configuration and distributed pages);
- Gaudi (vllm-gaudi): the HPU's device-memory allocator exhausted (PT_DEVMEM), answered with the
  plugin troubleshooting page's remedies (batch tokens, tensor parallelism, the HPU-graph share,
  another execution mode): hpu-device-memory-allocation-failed;
- IBM Spyre (vllm-spyre): VLLM_SPYRE_REQUIRE_PRECOMPILED_DECODERS=1 with the torch_sendnn cache
  unset, empty, its catalog broken, or no artifact fitting the launch ("Compilation disabled"):
  spyre-precompiled-decoders-required (docs: vllm-spyre's configuration page)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import python_traceback, signature_advice

# Where vllm-metal's install script or a user's venv puts the packages on a Mac.
_MAC_SITES = st.sampled_from(["/Users/{user}/.venv-vllm-metal/lib/python{py}/site-packages/",
                              "/opt/homebrew/lib/python{py}/site-packages/",
                              "/Users/{user}/proj/.venv/lib/python{py}/site-packages/"])
_USERS = st.from_regex(r"[a-z][a-z0-9]{1,8}", fullmatch=True)
_MAC_PYTHONS = st.sampled_from(["3.10", "3.11", "3.12", "3.13"])
# A V1 engine core's ERROR record (its process label across releases), or bare (offline LLM()).
_ENGINE_PREFIXES = st.sampled_from([
    "", "(EngineCore pid=84245) ERROR 04-25 17:51:26 [core.py:1049] ",
    "(EngineCore_DP0 pid=2101) ERROR 11-02 08:14:40 [core.py:866] ",
    "ERROR 04-25 17:51:26 [core.py:1049] "])
_GB = st.floats(min_value=0.5, max_value=190.0, allow_nan=False).map(lambda v: f"{v:.2f}GB")
_FRACTIONS = st.sampled_from(["0.5", "0.75", "0.9", "0.95", "1.0"])


def _metal_frames(site: str) -> list[tuple[str, str, str]]:
    return [
        (site + "vllm/v1/engine/core.py", "_initialize_kv_caches",
         "available_gpu_memory = self.model_executor.determine_available_memory()"),
        (site + "vllm_metal/v1/worker.py", "determine_available_memory",
         "return WorkerCachePlanner(self).determine_available_memory()"),
        (site + "vllm_metal/v1/cache_policy.py", "_validate_paged_attention_plan",
         "raise ValueError(")]


@settings(max_examples=40, deadline=None)
@given(site=_MAC_SITES, user=_USERS, py=_MAC_PYTHONS, prefix=_ENGINE_PREFIXES,
       limit=_GB, model=_GB, overhead=_GB, fraction=_FRACTIONS,
       too_few=st.booleans(), hybrid=st.booleans())
def test_a_metal_kv_budget_with_no_room_gets_the_memory_knobs(
        site: str, user: str, py: str, prefix: str, limit: str, model: str, overhead: str,
        fraction: str, too_few: bool, hybrid: bool) -> None:
    breakdown = (f"metal_limit={limit}, fraction={fraction}, usable_metal={limit}, "
                 f"model_memory={model}, overhead={overhead}, kv_budget=-0.54GB")
    mitigations = ("Mitigations: increase VLLM_METAL_MEMORY_FRACTION; "
                   "use a smaller or more quantized model"
                   + ("; lower --max-num-seqs (for single-user serving, try --max-num-seqs 1)"
                      if hybrid else "") + ".")
    if too_few:
        message = (f"Paged attention: computed num_blocks too low (3 < minimum 16). {breakdown}, "
                   f"per_block_bytes=3604480. {mitigations}")
    else:
        message = f"Paged attention: not enough Metal memory for KV cache. {breakdown}. {mitigations}"
    log = python_traceback(_metal_frames(site.format(user=user, py=py)),
                           f"ValueError: {message}", prefix)
    signature, fix = signature_advice(log)
    assert signature == "metal-memory-budget"
    for knob in ("VLLM_METAL_MEMORY_FRACTION", "--gpu-memory-utilization", "--max-model-len"):
        assert knob in fix


@settings(max_examples=30, deadline=None)
@given(site=_MAC_SITES, user=_USERS, py=_MAC_PYTHONS, prefix=_ENGINE_PREFIXES,
       value=st.sampled_from(["0.7", "0.85", "80", "1.5", "-1", "half", "nan"]),
       paged=st.booleans())
def test_a_refused_memory_fraction_gets_the_variable_matrix(
        site: str, user: str, py: str, prefix: str, value: str, paged: bool) -> None:
    if not paged and value in {"0.7", "0.85"}:
        message = (f"VLLM_METAL_MEMORY_FRACTION={value} is only supported with paged attention "
                   "(the default). The MLX KV cache path (VLLM_METAL_USE_PAGED_ATTENTION=0) "
                   "requires VLLM_METAL_MEMORY_FRACTION=auto.")
    elif value in {"half"}:
        message = (f"Invalid VLLM_METAL_MEMORY_FRACTION={value!r}. "
                   "Must be 'auto' or a numeric value in (0, 1].")
    else:
        message = (f"Invalid VLLM_METAL_MEMORY_FRACTION={value}. "
                   "Must be a finite value in (0, 1] when paged attention is enabled.")
    root = site.format(user=user, py=py)
    frames = [(root + "vllm_metal/platform.py", "check_and_update_config", "config = get_config()"),
              (root + "vllm_metal/config.py", "__post_init__", "raise ValueError(")]
    signature, fix = signature_advice(python_traceback(frames, f"ValueError: {message}", prefix))
    assert signature == "metal-memory-budget"
    assert "VLLM_METAL_USE_PAGED_ATTENTION=0" in fix and "(0, 1]" in fix


@settings(max_examples=15, deadline=None)
@given(site=_MAC_SITES, user=_USERS, py=_MAC_PYTHONS, prefix=_ENGINE_PREFIXES)
def test_vllms_own_kv_check_on_a_mac_keeps_its_answer(
        site: str, user: str, py: str, prefix: str) -> None:
    # vLLM's check of one max-length request against the cache, on the same Mac: not the plugin's
    # budget (near miss)
    root = site.format(user=user, py=py)
    frames = [(root + "vllm/v1/engine/core.py", "_initialize_kv_caches",
               "kv_cache_configs = get_kv_cache_configs(vllm_config, kv_cache_specs, mem)"),
              (root + "vllm/v1/core/kv_cache_utils.py", "check_enough_kv_cache_memory",
               "raise ValueError(")]
    error = ("ValueError: To serve at least one request with the models's max seq len (131072), "
             "(27.5 GiB KV cache is needed, which is larger than the available KV cache memory "
             "(21.01 GiB). Based on the available memory, the estimated maximum model length is "
             "100160. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
             "initializing the engine.")
    signature, _ = signature_advice(python_traceback(frames, error, prefix))
    assert signature != "metal-memory-budget"


# vllm-metal's refusals in check_and_update_config (vllm_metal/platform.py), with the knob its
# family's fix must name for each.
_METAL_REFUSALS = st.sampled_from([
    ("NotImplementedError", "Metal/MLX does not support tensor parallelism yet "
     "(tensor_parallel_size > 1), alone or combined with pipeline parallelism; only TP=1 is "
     "validated.", "--tensor-parallel-size 1"),
    ("NotImplementedError", "Pipeline parallelism on Metal requires synchronous scheduling. "
     "Async scheduling delivers each sampled token to the first stage through a GPU broadcast "
     "that is not implemented, so the stage would starve. Re-run with --no-async-scheduling.",
     "--no-async-scheduling"),
    ("NotImplementedError", "Pipeline parallelism on Metal does not support LoRA; remove "
     "--enable-lora or run with pipeline_parallel_size=1.", "--enable-lora"),
    ("NotImplementedError", "Metal supports data parallelism for dense models only; MoE data "
     "parallelism (expert-parallel all-to-all) is not supported.", "--data-parallel-backend ray"),
    ("NotImplementedError", "Metal allows exactly one data-parallel replica per node (one Apple "
     "GPU per Mac); set --data-parallel-size-local 1 (the external-DP sentinel 0 and values > 1 "
     "are not supported).", "--data-parallel-size-local 1"),
    ("NotImplementedError", "Metal does not support data parallelism with LoRA; remove "
     "--enable-lora or use --data-parallel-size 1.", "--enable-lora"),
    ("NotImplementedError", "vllm-metal does not support speculative decoding with a "
     "heterogeneous draft vocabulary (use_heterogeneous_vocab). Use a draft model that shares "
     "the target vocabulary.", "vocabulary"),
    ("NotImplementedError", "Hybrid GDN models on Metal require --mamba-ssm-cache-dtype float32 "
     "because recurrent state is stored in fp32.", "--mamba-ssm-cache-dtype float32"),
    ("NotImplementedError", "Prefix caching for hybrid GDN models on Metal does not support "
     "speculative decoding yet: draft-state rollback across mamba state blocks "
     "(num_speculative_blocks) is not implemented.", "--no-enable-prefix-caching"),
    ("NotImplementedError", "vllm-metal does not support heterogeneous KV cache dtypes "
     "(--kv-cache-dtype-skip-layers, or --kv-cache-dtype turboquant_*, which populates skip "
     "layers upstream). Enable TurboQuant with --additional-config '{\"turboquant\": true}' "
     "instead.", "turboquant"),
])
# Where the refusal is printed: the API server building the config, or an offline LLM() script.
_CONFIG_PREFIXES = st.sampled_from(["", "(APIServer pid=51220) ",
                                    "ERROR 05-12 09:14:03 [engine.py:1812] "])


@settings(max_examples=40, deadline=None)
@given(site=_MAC_SITES, user=_USERS, py=_MAC_PYTHONS, prefix=_CONFIG_PREFIXES,
       refusal=_METAL_REFUSALS)
def test_a_metal_refusal_gets_the_setting_to_change(
        site: str, user: str, py: str, prefix: str, refusal: tuple[str, str, str]) -> None:
    exception, message, knob = refusal
    root = site.format(user=user, py=py)
    frames = [(root + "vllm/engine/arg_utils.py", "create_engine_config",
               "config = VllmConfig("),
              (root + "vllm/config/vllm.py", "__post_init__",
               "current_platform.check_and_update_config(self)"),
              (root + "vllm_metal/platform.py", "check_and_update_config",
               f"raise {exception}(")]
    signature, fix = signature_advice(python_traceback(frames, f"{exception}: {message}", prefix))
    assert signature == "metal-feature-unsupported"
    assert knob in fix


@settings(max_examples=15, deadline=None)
@given(prefix=_CONFIG_PREFIXES, platform=st.sampled_from(["XPU", "ROCm", "TPU", "CPU"]))
def test_another_platforms_refusal_is_not_metals(prefix: str, platform: str) -> None:
    # the same shape of refusal, another platform's name (near miss)
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/config/vllm.py", "__post_init__",
               "current_platform.check_and_update_config(self)")]
    error = f"NotImplementedError: FlashAttnMLA on {platform} does not support decode context parallelism"
    signature, _ = signature_advice(python_traceback(frames, error, prefix))
    assert signature != "metal-feature-unsupported"


# Where an HPU worker's error reaches the log: a V1 worker's or engine core's ERROR record, or
# a torchrun rank prefix.
_HPU_PREFIXES = st.sampled_from([
    "", "(VllmWorker TP0 pid=4242) ERROR 12-01 10:00:01 [multiproc_executor.py:546] ",
    "(EngineCore_DP0 pid=311) ERROR 10-13 06:03:56 [core.py:710] ", "[rank3]: "])


@settings(max_examples=30, deadline=None)
@given(prefix=_HPU_PREFIXES, mib=st.integers(min_value=1, max_value=65536),
       rank=st.integers(min_value=0, max_value=7),
       site=st.sampled_from(["vllm/v1/worker/hpu_model_runner.py", "vllm_gaudi/v1/worker/hpu_model_runner.py"]),
       function=st.sampled_from(["execute_model", "warmup_model", "_execute_model_generic"]))
def test_an_hpu_allocation_failure_gets_the_troubleshooting_remedies(
        prefix: str, mib: int, rank: int, site: str, function: str) -> None:
    frames = [("/usr/local/lib/python3.10/dist-packages/" + site, function,
               "hidden_states = self.model.forward(")]
    error = (f"RuntimeError: [Rank:{rank}] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for "
             f"size::{mib * 1048576} ({mib})MB")
    signature, fix = signature_advice(python_traceback(frames, error, prefix))
    assert signature == "hpu-device-memory-allocation-failed"
    for knob in ("--max-num-batched-tokens", "--tensor-parallel-size", "VLLM_GRAPH_RESERVED_MEM",
                 "PT_HPU_LAZY_MODE", "--gpu-memory-utilization"):
        assert knob in fix


_SPYRE_CACHES = st.sampled_from(["/cache/sendnn", "/mnt/precompiled/granite", "/data/torch_sendnn"])
_SPYRE_ERRORS = st.sampled_from([
    ("compilation_utils.py", "handle_disable_compilation",
     "ValueError: VLLM_SPYRE_REQUIRE_PRECOMPILED_DECODERS=1 requires setting "
     "TORCH_SENDNN_CACHE_DIR to a valid path and setting TORCH_SENDNN_CACHE_ENABLE=1"),
    ("compilation_utils.py", "handle_disable_compilation",
     "ValueError: VLLM_SPYRE_REQUIRE_PRECOMPILED_DECODERS=1 was set, but no pre-compiled model "
     "config was found in the TORCH_SENDNN_CACHE_DIR: {cache}/model_compile.log.json or"
     "{cache}/pre_compiled_cache_catalog.json does not exist"),
    ("compilation_utils.py", "handle_disable_compilation",
     "ValueError: Precompiled catalog {cache}/pre_compiled_cache_catalog.json is not a valid "
     "JSON file"),
    ("v1/worker/spyre_model_runner.py", "_warmup_model", "RuntimeError: Compilation disabled"),
])


@settings(max_examples=30, deadline=None)
@given(prefix=st.sampled_from(["", "(APIServer pid=1) ", "(EngineCore_DP0 pid=88) ERROR 03-18 "
                               "14:02:40 [core.py:708] "]),
       cache=_SPYRE_CACHES, error=_SPYRE_ERRORS,
       py=st.sampled_from(["3.11", "3.12"]), lib=st.sampled_from(["lib", "lib64"]))
def test_a_spyre_launch_without_a_fitting_precompiled_decoder_gets_the_cache_setup(
        prefix: str, cache: str, error: tuple[str, str, str], py: str, lib: str) -> None:
    module, function, text = error
    frames = [(f"/opt/vllm/{lib}/python{py}/site-packages/vllm_spyre/{module}", function,
               "raise")]
    signature, fix = signature_advice(python_traceback(frames, text.format(cache=cache), prefix))
    assert signature == "spyre-precompiled-decoders-required"
    for knob in ("TORCH_SENDNN_CACHE_DIR", "TORCH_SENDNN_CACHE_ENABLE=1",
                 "pre_compiled_cache_catalog.json", "VLLM_SPYRE_REQUIRE_PRECOMPILED_DECODERS"):
        assert knob in fix


@settings(max_examples=10, deadline=None)
@given(word=st.sampled_from(["Compilation disabled for this graph; enable it", "Compilation failed"]))
def test_other_compilation_words_are_not_spyres(word: str) -> None:
    # "Compilation disabled" only as the whole message opens it; a compiler's other words are not
    # this class (near miss)
    frames = [("/usr/local/lib/python3.12/dist-packages/torch/_dynamo/eval_frame.py", "_fn",
               "return fn(*args, **kwargs)")]
    signature, _ = signature_advice(python_traceback(
        frames, f"RuntimeError: Some op failed. {word}", ""))
    assert signature != "spyre-precompiled-decoders-required"
