"""Families whose remedy names the fix (issue 11, session 35, family leave-one-out): with every
exact signature withheld, a member of each class below, in other wordings, eras and shapes (its
frames, its innermost frame, the bare line a paste keeps; under an engine core's ERROR records,
torchrun's rank prefix or a Ray worker's prefix), is answered by its family, and the family's fix
names the knob the class's real fix turns; a near neighbour in the same words goes elsewhere.

The classes are the ones session 35's leave-one-out found answered by a family whose remedy did
not name their fix: a bare IPv6 address in a tcp:// URL (urllib's port check), a Ray compiled
graph's step timeout (Ray's words, or a paste cut in the wait), Triton's power-of-two block
checks, the multimodal processor's prompt-replacement assertion (the chat template), a LoRA
adapter's folder given as the model, vLLM with no platform (an empty device string), the
harmony parser refusing gpt-oss's output (the model's tool and reasoning parsers), V0's
iteration timeout, MTP layers a checkpoint dropped, the pooling endpoint's IO Processor plugin,
another model on the same GPU, a speculative token budget and a model's one KV-cache dtype."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# the prefixes a traceback reaches the log behind, the family-only database and the member's
# log, as the widened families' tests build them
from test_family_widened_members import PREFIXES, _log, families

from logsleuth.pipeline import explain_text

SITE = "/usr/local/lib/python3.12/dist-packages/"
VLLM = SITE + "vllm/"
URLLIB = "/usr/lib/python3.12/urllib/parse.py"
RENDEZVOUS = [(SITE + "torch/distributed/distributed_c10d.py", "init_process_group"),
              (SITE + "torch/distributed/rendezvous.py", "_tcp_rendezvous_handler"),
              (URLLIB, "port")]
TRAINER_GROUP = [("/srv/trainer/rollout/worker_ext.py", "init_weight_update_group"),
                 (SITE + "vllm/distributed/utils.py", "stateless_init_process_group"),
                 (URLLIB, "port")]
TRITON_ARANGE = [(VLLM + "attention/ops/triton_unified_attention.py", "unified_attention"),
                 (SITE + "triton/language/semantic.py", "arange")]
TRITON_SHAPE = [(VLLM + "model_executor/layers/fused_moe/fused_moe.py", "invoke_fused_moe_kernel"),
                (SITE + "triton/language/semantic.py", "validate_block_shape")]
MM_PROCESSING = [(VLLM + "multimodal/processing.py", "apply"),
                 (VLLM + "multimodal/processing.py", "_apply_prompt_updates")]
MM_PROCESSOR = [(VLLM + "multimodal/processing/processor.py", "apply"),
                (VLLM + "multimodal/processing/processor.py", "_matched_updates_from_result")]
GET_CONFIG = [(VLLM + "engine/arg_utils.py", "create_model_config"),
              (VLLM + "transformers_utils/config.py", "get_config")]
DEVICE_CONFIG = [(VLLM + "engine/arg_utils.py", "create_engine_config"),
                 (VLLM + "config/device.py", "__post_init__")]
HARMONY = [(VLLM + "entrypoints/openai/serving_chat.py", "chat_completion_stream_generator"),
           (SITE + "openai_harmony/__init__.py", "process")]
MTP_LOAD = [(VLLM + "v1/spec_decode/eagle.py", "load_model"),
            (VLLM + "model_executor/models/deepseek_mtp.py", "load_weights")]
POOLING = [(VLLM + "entrypoints/openai/serving_pooling.py", "create_pooling")]
V0_LOOP = [(VLLM + "engine/async_llm_engine.py", "run_engine_loop"),
           (VLLM + "engine/async_timeout.py", "_do_exit")]
CUDA_GRAPH = [(VLLM + "worker/model_runner.py", "capture_model"),
              (SITE + "torch/cuda/graphs.py", "__exit__")]


def _ipv6_port(address: str, port: int) -> str:
    # urllib.parse splits host and port at the first colon of an unbracketed netloc
    return address.partition(":")[2] + f":{port}"


IPV6 = st.sampled_from(["2001:db8:4::21", "fd00:a12:4::7", "2602:fb33:0:e1:9570::b",
                        "::ffff:10.42.7.19", "fe80::1c2f:3aff:fe4b:9d10"])
PORTS = st.integers(1024, 65535)

# (error lines, frames innermost last as (path, function), the family (or families, `|`: a
# phase's family may answer for its frames), a remedy its fix names)
MEMBERS = [
    (st.builds(lambda a, p, era: (f"ValueError: Port could not be cast to integer value as "
                                  f"{era}{_ipv6_port(a, p)!r}"),
               IPV6, PORTS, st.sampled_from(["", "{port!r}: "])),
     RENDEZVOUS, "url-ipv6-host-unbracketed", "[<ipv6>]"),
    (st.sampled_from(["ValueError: Invalid IPv6 URL", "ValueError: Port out of range 0-65535"]),
     TRAINER_GROUP, "url-ipv6-host-unbracketed", "VLLM_HOST_IP"),
    (st.sampled_from([
        "ray.exceptions.RayChannelTimeoutError: System error: If the execution is expected to "
        "take a long time, increase RAY_CGRAPH_get_timeout which is currently 300 seconds. "
        "Otherwise, this may indicate that the execution is hanging.",
        "ray.exceptions.RayChannelTimeoutError: System error: Timed out waiting for object "
        "available to read. ObjectID: 00ffffffffffffffffffffffffffffffffffffff0100000001e1f505"]),
     [(VLLM + "v1/executor/ray_distributed_executor.py", "execute_model"),
      (SITE + "ray/dag/compiled_dag_node.py", "_execute_until")],
     "ray-compiled-graph-step-timeout", "RAY_CGRAPH_get_timeout"),
    (st.sampled_from(["ValueError: arange's range must be a power of 2",
                      "ValueError: Shape element 0 must be a power of 2",
                      "ValueError: Shape element 1 must be a power of 2"]),
     TRITON_ARANGE, "triton-kernel-compilation-error", "power of two"),
    (st.builds(lambda modality, item: (f"AssertionError: Failed to apply prompt replacement for "
                                       f"mm_items['{modality}'][{item}]"),
               st.sampled_from(["image", "video", "audio"]), st.integers(0, 7)),
     MM_PROCESSING, "multimodal-processor-failed", "chat template"),
    (st.builds(lambda item: f"AssertionError: Failed to apply prompt replacement for "
                            f"mm_items['image'][{item}]", st.integers(0, 3)),
     MM_PROCESSOR, "multimodal-processor-failed", "chat template"),
    (st.builds(lambda folder: f"ValueError: No supported config format found in {folder}",
               st.sampled_from(["/models/lora/checkpoint-500", "outputs/qwen-sft-lora",
                                "/data/adapters/my_adapter"])),
     GET_CONFIG, "hub-model-not-accessible", "--lora-modules"),
    (st.sampled_from(["RuntimeError: Device string must not be empty",
                      "AttributeError: 'UnspecifiedPlatform' object has no attribute "
                      "'get_device_capability'"]),
     DEVICE_CONFIG, "cuda-device-unavailable", "--gpus"),
    (st.builds(lambda token, start: (f"openai_harmony.HarmonyError: Unexpected token {token} "
                                     f"while expecting start token {start}"),
               st.sampled_from([200012, 200005, 200007]), st.just(200006)),
     HARMONY, "library-harmony-encoding-error", "--tool-call-parser openai"),
    (st.builds(lambda layer, part: f"KeyError: 'model.layers.{layer}.mtp_block.{part}.weight'",
               st.integers(28, 95), st.sampled_from(["main_norm", "main_proj", "e_proj"])),
     MTP_LOAD, "weight-name-not-in-model", "--speculative-config"),
    (st.just("ValueError: No IOProcessor plugin installed. Please refer to the documentation and "
             "to the 'prithvi_geospatial_mae_io_processor' offline inference example for more "
             "details."), POOLING, "request-parameters-rejected", "--io-processor-plugin"),
    (st.sampled_from(["asyncio.exceptions.TimeoutError", "asyncio.exceptions.CancelledError"]),
     V0_LOOP, "v0-llm-engine-rejected", "VLLM_ENGINE_ITERATION_TIMEOUT_S"),
    (st.builds(lambda tried, total, free: (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried} MiB. GPU 0 has a "
        f"total capacity of {total} GiB of which {free} MiB is free."),
        st.sampled_from([70, 128, 512]), st.sampled_from([23.64, 79.19]),
        st.sampled_from([19.06, 45.5])),
     CUDA_GRAPH, "cuda-oom|cuda-oom-cuda-graph-capture", "another GPU"),
]

# families whose members' words name the class without a frame
BARE_WORDS_SUFFICE = {"url-ipv6-host-unbracketed", "ray-compiled-graph-step-timeout",
                      "triton-kernel-compilation-error", "multimodal-processor-failed",
                      "hub-model-not-accessible", "cuda-device-unavailable", "cuda-oom"}

@st.composite
def member_logs(draw: st.DrawFn) -> tuple[str, str, str]:
    messages, frames, family, remedy = draw(st.sampled_from(MEMBERS))
    bare = any(f in BARE_WORDS_SUFFICE for f in family.split("|"))
    shapes = [frames, frames[-1:]] + ([[]] if bare else [])
    shown = draw(st.sampled_from(shapes))
    return _log(draw(messages), shown, draw(st.sampled_from(PREFIXES))), family, remedy


@settings(max_examples=120, deadline=None)
@given(member_logs())
def test_a_member_gets_the_family_that_names_its_fix(member: tuple[str, str, str]) -> None:
    log, family, remedy = member
    report = explain_text(log, signatures=families())
    assert report.signature is not None, log
    assert report.signature.id in family.split("|"), (log, report.signature.id)
    assert remedy.lower() in report.signature.fix.lower(), (family, remedy)


# a paste cut inside the compiled graph's wait, at any of its frames, is the step timeout
WAIT_FRAMES = [(SITE + "ray/experimental/compiled_dag_ref.py", "get"),
               (SITE + "ray/dag/compiled_dag_node.py", "_execute_until"),
               (SITE + "ray/experimental/channel/common.py", "read"),
               (SITE + "ray/experimental/channel/common.py", "_read_list"),
               (SITE + "ray/experimental/channel/shared_memory_channel.py", "read")]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, len(WAIT_FRAMES)), st.sampled_from(PREFIXES[1:2] + ["ERROR 03-14 00:01:05 "
                                                                         "[core.py:337] "]))
def test_a_paste_cut_in_the_compiled_graphs_wait_is_the_step_timeout(depth: int,
                                                                      prefix: str) -> None:
    frames = [(VLLM + "v1/engine/core.py", "step"),
              (VLLM + "v1/executor/ray_distributed_executor.py", "execute_model")]
    frames += WAIT_FRAMES[:depth]
    lines = ["Traceback (most recent call last):"]
    for number, (path, function) in enumerate(frames, start=40):
        lines += [f'  File "{path}", line {number}, in {function}', "    call(...)"]
    log = (prefix + "EngineCore encountered a fatal error.\n"
           + "".join(prefix + line + "\n" for line in lines))
    report = explain_text(log, signatures=families())
    assert report.signature is not None, log
    assert report.signature.id == "ray-compiled-graph-step-timeout", (log, report.signature.id)
    assert "RAY_CGRAPH_get_timeout" in report.signature.fix


# (error line, frames, the family that must NOT answer): the same words, another failure
NEAR_MISSES = [
    # a port that is not a number for another reason (a typo, a variable left unexpanded)
    ("ValueError: invalid literal for int() with base 10: '${MASTER_PORT}'",
     [(SITE + "torch/distributed/elastic/rendezvous/utils.py", "parse_rendezvous_endpoint")],
     "url-ipv6-host-unbracketed"),
    ("OverflowError: bind(): port must be 0-65535.",
     [(VLLM + "utils/network_utils.py", "get_open_port")], "url-ipv6-host-unbracketed"),
    # a compiled graph's closed channel is not its timeout
    ("ray.exceptions.RayChannelError: System error: Channel closed.",
     [(SITE + "ray/dag/compiled_dag_node.py", "_execute_until"),
      (SITE + "ray/experimental/channel/common.py", "read")], "ray-compiled-graph-step-timeout"),
    # a block size vLLM itself checks, not Triton
    ("ValueError: Block size must be a power of 2, got 24",
     [(VLLM + "config/cache.py", "_verify_args")], "triton-kernel-compilation-error"),
    # the processor's count of placeholders is the same class; a media fetch is not the assertion
    ("AssertionError: Failed to apply chat template: tools are not supported",
     [(VLLM + "entrypoints/chat_utils.py", "apply_hf_chat_template")],
     "multimodal-processor-failed"),
    # a model's own platform check, with a real platform
    ("AttributeError: 'CudaPlatform' object has no attribute 'get_device_communicator_cls'",
     [(SITE + "vllm_custom_plugin/worker.py", "init_device")], "cuda-device-unavailable"),
    # a KeyError in a weight loader that is no MTP layer still gets the family, without MTP
    # being the point: checked below by the remedy it leads with
]


@pytest.mark.parametrize(("error", "frames", "family"), NEAR_MISSES,
                         ids=[f"{f}-{i}" for i, (_, _, f) in enumerate(NEAR_MISSES)])
def test_a_near_neighbour_in_the_same_words_goes_elsewhere(
        error: str, frames: list[tuple[str, str]], family: str) -> None:
    for prefix in PREFIXES:
        report = explain_text(_log(error, frames, prefix), signatures=families())
        assert report.signature is None or report.signature.id != family, (error, prefix)


def test_an_info_record_naming_the_timeout_variable_is_no_timeout() -> None:
    log = ("(EngineCore_0 pid=88) INFO 06-02 11:03:12 [ray_distributed_executor.py:578] "
           "RAY_CGRAPH_get_timeout is set to 300\n"
           + _log("ValueError: No available memory for the cache blocks. Try increasing "
                  "`gpu_memory_utilization` when initializing the engine.",
                  [(VLLM + "v1/core/kv_cache_utils.py", "check_enough_kv_cache_memory")],
                  "(EngineCore_0 pid=88) ERROR 06-02 11:03:20 [core.py:517] "))
    report = explain_text(log, signatures=families())
    assert report.signature is None or report.signature.id != "ray-compiled-graph-step-timeout"
