"""How much of the space of errors a vLLM log can hold gets only a class's fallback, or nothing.

The space: every error vLLM raises or logs (the message index, every indexed release) and the
raise sites of the libraries it runs on (`library_messages.jsonl.gz`, mined from their source by
`extract.py`: transformers, tokenizers, huggingface_hub, safetensors, xgrammar, outlines, ray,
pydantic, fastapi/starlette/uvicorn, openai, aiohttp, flashinfer). Each message becomes the log
event of the process and phase where it occurs:

- a vLLM message by its module: the API server (entry points, engine arguments and configs:
  vLLM builds the config there before it starts an engine), a GPU worker (model loading,
  quantization, layers and kernels, distributed set-up; loading, profiling or serving by the
  module), or the engine core (start-up, or a fatal error while serving, then the API server's
  `EngineDeadError`); a logged error as its ERROR record;
- a library's message where vLLM meets that library (a tokenizer in the API server, weights in a
  worker's loader, a grammar in the engine core's structured-output manager, Ray in the
  executor's start-up, an HTTP client in a benchmark client), with the library's frames
  innermost (`frames`), and with the traceback cut above them (`tail`: what a pasted excerpt
  or a re-raise leaves: the innermost frame is vLLM's caller), and
- each message, vLLM's or a library's, once more as its exception line alone (`bare`: an excerpt
  that kept only the last line, or an ERROR record of the message without its traceback), where
  only the message's words and the message index can answer.

Each rendered log goes through `logsleuth.explain_text` in process and is counted by the kind of
the report's advice: `exact`, `family`, `message` (the error's own remedy), `release`, `fallback`
(only a class's last resort, `signatures/fallback/`) or `none`. The fallback and none events are
clustered by library, exception class and message shape (the first fixed words), largest first:
where a new family pays most.

    PYTHONPATH=. .venv/bin/python tools/fallback_probe/probe.py --jobs 2 --results /tmp/fp.jsonl
    PYTHONPATH=. .venv/bin/python tools/fallback_probe/probe.py --vllm-sample 0 --clusters 40

Not run-time code: nothing in `logsleuth/` imports it. `tests/test_fallback_probe.py` measures
`sample.jsonl` (a fixed sample of the events) against a ceiling on the fallback/none share.
"""

from __future__ import annotations

import argparse
import builtins
import hashlib
import json
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "index_coverage"))
from coverage import SITE, error_templates, fill, holes  # noqa: E402  (one filler for both tools)
from extract import LibraryMessage, read  # noqa: E402

from logsleuth.index.data import MessageKind, default_index  # noqa: E402
from logsleuth.index.plugin import default_plugins  # noqa: E402
from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures  # noqa: E402

SAMPLE = HERE / "sample.jsonl"
API = "(APIServer pid=4000) "
CORE = "(EngineCore_DP0 pid=4100) "
WORKER = "(Worker_TP0 pid=4201) "
STAMP = "02-05 10:11:30"


class Advice(Enum):
    """What the report offers for one event, strongest first."""

    EXACT = "exact"
    FAMILY = "family"
    MESSAGE = "message"
    RELEASE = "release"
    FALLBACK = "fallback"
    NONE = "none"

    @property
    def missed(self) -> bool:
        """Only a class's last resort, or nothing: the space this probe measures."""
        return self in (Advice.FALLBACK, Advice.NONE)


class Shape(Enum):
    """The process and moment an error is printed in."""

    API_START = "api_start"  # the API server fails before or while starting an engine
    API_SERVING = "api_serving"  # the API server's request handling, then its death
    ENGINE_START = "engine_start"  # EngineCore failed to start
    ENGINE_SERVING = "engine_serving"  # EngineCore encountered a fatal error
    WORKER_LOAD = "worker_load"  # a worker fails loading the model
    WORKER_PROFILE = "worker_profile"  # a worker fails in the profiling run
    WORKER_SERVING = "worker_serving"  # a worker fails executing a batch
    WORKER_INIT = "worker_init"  # a worker fails setting up its device and groups
    CLIENT = "client"  # a client script (benchmark, OpenAI client) of the server
    FRAMEWORK = "framework"  # a training or serving framework calling vLLM's Python API


# The vLLM frames above the raise site, outermost first: (file under vllm/, function).
OUTER: dict[Shape, tuple[tuple[str, str], ...]] = {
    Shape.API_START: (("entrypoints/openai/api_server.py", "run_server"),
                      ("entrypoints/openai/api_server.py", "build_async_engine_client"),
                      ("engine/arg_utils.py", "create_engine_config")),
    Shape.API_SERVING: (("entrypoints/openai/serving_chat.py", "create_chat_completion"),
                        ("entrypoints/openai/serving_engine.py", "_preprocess_chat")),
    Shape.ENGINE_START: (("v1/engine/core.py", "run_engine_core"),
                         ("v1/engine/core.py", "__init__")),
    Shape.ENGINE_SERVING: (("v1/engine/core.py", "run_busy_loop"),
                           ("v1/engine/core.py", "step")),
    Shape.WORKER_LOAD: (("v1/executor/multiproc_executor.py", "worker_main"),
                        ("v1/worker/gpu_worker.py", "load_model"),
                        ("v1/worker/gpu_model_runner.py", "load_model"),
                        ("model_executor/model_loader/default_loader.py", "load_weights")),
    Shape.WORKER_PROFILE: (("v1/executor/multiproc_executor.py", "worker_busy_loop"),
                           ("v1/worker/gpu_worker.py", "determine_available_memory"),
                           ("v1/worker/gpu_model_runner.py", "profile_run"),
                           ("v1/worker/gpu_model_runner.py", "_dummy_run")),
    Shape.WORKER_SERVING: (("v1/executor/multiproc_executor.py", "worker_busy_loop"),
                           ("v1/worker/gpu_worker.py", "execute_model"),
                           ("v1/worker/gpu_model_runner.py", "execute_model")),
    Shape.WORKER_INIT: (("v1/executor/multiproc_executor.py", "worker_main"),
                        ("v1/worker/gpu_worker.py", "init_device"),
                        ("distributed/parallel_state.py", "init_distributed_environment")),
    Shape.CLIENT: (),  # the client script's own frame: CLIENT_FRAME
    Shape.FRAMEWORK: (),  # the framework's frames, then the API surface's: FRAMEWORKS, SURFACES
}
CLIENT_FRAME = ("/home/user/bench/run_benchmark.py", "send_request")

# A vLLM module's shapes, first match wins; two shapes alternate by the message's digest.
VLLM_SHAPES: tuple[tuple[re.Pattern[str], tuple[Shape, ...]], ...] = tuple(
    (re.compile(pattern), shapes) for pattern, shapes in (
        (r"^vllm\.entrypoints\.(?:openai\.serving|serve|chat_utils|openai\.protocol|"
         r"openai\.tool_parsers|openai\.(?:chat_completion|completion|responses|embed))",
         (Shape.API_SERVING,)),
        (r"^vllm\.(?:entrypoints|engine\.arg_utils|config|transformers_utils|usage|"
         r"tokenizers?\b|utils\.argparse)", (Shape.API_START,)),
        (r"^vllm\.model_executor\.(?:model_loader|models)|^vllm\.lora|"
         r"\.quantization\.", (Shape.WORKER_LOAD, Shape.WORKER_PROFILE)),
        (r"^vllm\.(?:distributed|platforms|device_allocator)", (Shape.WORKER_INIT,
                                                              Shape.WORKER_SERVING)),
        (r"^vllm\.(?:model_executor|v1\.attention|attention|v1\.worker|v1\.sample|"
         r"compilation|_custom_ops|third_party|kernels)", (Shape.WORKER_PROFILE,
                                                          Shape.WORKER_SERVING)),
        (r"^vllm\.v1\.(?:core|structured_output|engine\.core|request|spec_decode)",
         (Shape.ENGINE_SERVING, Shape.ENGINE_START)),
        (r"", (Shape.ENGINE_START,)),
    ))

# Programs around vLLM that call its Python API (since session 30): how each prints a failure (the
# process prefix its launcher puts on every line, or a Ray task error the driver re-raises) and
# its own frames, outermost first, down to the call into vLLM; the surface's frames follow.
@dataclass(frozen=True, slots=True)
class Framework:
    name: str
    prefix: str  # "(WorkerDict pid=3101) " for a Ray actor's lines, "" for a script
    ray_task: str  # the Ray method whose RayTaskError the driver prints, "" for none
    frames: tuple[tuple[str, str], ...]  # (path under site-packages or absolute, function)


FRAMEWORKS = (
    Framework("verl", "", "WorkerDict.actor_rollout_init_model",
              (("verl/single_controller/ray/base.py", "func"),
               ("verl/workers/fsdp_workers.py", "init_model"),
               ("verl/workers/fsdp_workers.py", "_build_rollout"),
               ("verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py", "__init__"))),
    Framework("trl", "", "", (("/home/user/train_grpo.py", "<module>"),
                              ("trl/trainer/grpo_trainer.py", "__init__"))),
    Framework("openrlhf", "(LLMRayActor pid=5120) ", "",
              (("ray/_private/worker.py", "main_loop"),
               ("openrlhf/trainer/ray/vllm_engine.py", "__init__"))),
    Framework("llamafactory", "", "", (("/app/src/llamafactory/cli.py", "main"),
                                       ("llamafactory/chat/vllm_engine.py", "__init__"))),
    Framework("ms-swift", "", "", (("swift/cli/infer.py", "<module>"),
                                   ("swift/infer_engine/vllm_engine.py", "_prepare_engine"))),
    Framework("pipelinerl", "", "", (("/workspace/PipelineRL/pipelinerl/launch.py", "main"),
                                     ("pipelinerl/vllm1.py", "run_llm"))),
    Framework("lmcache", "", "", (("/home/user/offline_kv_sharing.py", "main"),
                                  ("lmcache/integration/vllm/vllm_v1_adapter.py",
                                   "start_load_kv"))),
)
# vLLM's public API surfaces the frameworks call, by the raising module (first match wins): the
# vLLM frames between the framework's call and the raise site, outermost first.
_CONSTRUCT = (("entrypoints/llm.py", "__init__"), ("v1/engine/llm_engine.py", "from_engine_args"))
_WORKER = (*_CONSTRUCT, ("v1/engine/llm_engine.py", "__init__"),
           ("v1/executor/uniproc_executor.py", "_init_executor"),
           ("v1/worker/worker_base.py", "init_device"), ("v1/worker/gpu_worker.py", "init_device"))
_GENERATE = (("entrypoints/llm.py", "generate"), ("entrypoints/llm.py", "_validate_and_add_requests"),
             ("v1/engine/llm_engine.py", "add_request"))
_RPC = (("entrypoints/llm.py", "collective_rpc"), ("v1/engine/llm_engine.py", "collective_rpc"),
        ("v1/executor/uniproc_executor.py", "collective_rpc"), ("v1/serial_utils.py", "run_method"),
        ("v1/worker/gpu_worker.py", "update_weights"))
SURFACES: tuple[tuple[re.Pattern[str], tuple[tuple[str, str], ...]], ...] = tuple(
    (re.compile(pattern), frames) for pattern, frames in (
        (r"^vllm\.(?:engine\.arg_utils|config\b)", (*_CONSTRUCT,
                                                     ("engine/arg_utils.py",
                                                      "create_engine_config"))),
        (r"^vllm\.(?:v1\.engine\.async_llm|engine\.async_llm_engine)",
         (("v1/engine/async_llm.py", "from_engine_args"),)),
        (r"^vllm\.(?:sampling_params|pooling_params)", ()),  # SamplingParams(...) built directly
        (r"^vllm\.(?:v1\.engine\.(?:processor|input_processor)|inputs|lora\.request)",
         _GENERATE),
        (r"^vllm\.distributed\.weight_transfer\.\w*(?:engine|factory)", _RPC),
        (r"^vllm\.distributed\.weight_transfer", ()),  # the trainer side, in the trainer
        (r"^vllm\.(?:distributed\.(?:parallel_state|utils)|utils\.network_utils|"
         r"v1\.worker\.worker_base|worker\.worker_base)", _WORKER),
        (r"^vllm\.distributed\.kv_transfer\.(?:kv_transfer_state|kv_connector\.(?:v1\.)?"
         r"(?:base|factory|utils|lmcache_connector|lmcache_integration\.\w+))\b",
         (("v1/worker/gpu_model_runner.py",
                                                "maybe_setup_kv_connector"),)),
        (r"^vllm\.(?:v1\.engine\.core_client|v1\.executor|executor|v1\.engine\.llm_engine|"
         r"engine\.llm_engine|entrypoints\.llm)", _CONSTRUCT[:1]),
    ))


# Where vLLM meets each library: the shapes, the vLLM frame that calls into it, and for a library
# whose messages come from compiled code (Rust), the Python frame that made the call.
LIBRARY_SHAPES: dict[str, tuple[tuple[Shape, tuple[str, str]], ...]] = {
    "transformers": ((Shape.API_START, ("transformers_utils/config.py", "get_config")),
                     (Shape.API_START, ("transformers_utils/tokenizer.py", "get_tokenizer")),
                     (Shape.API_SERVING, ("entrypoints/chat_utils.py", "apply_hf_chat_template")),
                     (Shape.WORKER_LOAD, ("model_executor/models/transformers.py", "__init__"))),
    "tokenizers": ((Shape.API_START, ("transformers_utils/tokenizer.py", "get_tokenizer")),
                   (Shape.API_SERVING, ("entrypoints/openai/serving_engine.py",
                                        "_tokenize_prompt_input"))),
    "huggingface_hub": ((Shape.API_START, ("transformers_utils/config.py", "get_config")),
                        (Shape.WORKER_LOAD, ("model_executor/model_loader/weight_utils.py",
                                             "download_weights_from_hf"))),
    "safetensors": ((Shape.WORKER_LOAD, ("model_executor/model_loader/weight_utils.py",
                                         "safetensors_weights_iterator")),),
    "xgrammar": ((Shape.ENGINE_SERVING, ("v1/structured_output/backend_xgrammar.py",
                                         "compile_grammar")),
                 (Shape.API_SERVING, ("v1/structured_output/backend_xgrammar.py",
                                      "validate_xgrammar_grammar"))),
    "outlines": ((Shape.ENGINE_SERVING, ("v1/structured_output/backend_outlines.py",
                                         "compile_grammar")),),
    "ray": ((Shape.API_START, ("v1/executor/ray_utils.py", "initialize_ray_cluster")),
            (Shape.ENGINE_START, ("v1/executor/ray_distributed_executor.py",
                                  "_init_workers_ray"))),
    "pydantic": ((Shape.API_START, ("engine/arg_utils.py", "create_model_config")),
                 (Shape.API_SERVING, ("entrypoints/openai/api_server.py",
                                      "create_chat_completion"))),
    "fastapi": ((Shape.API_SERVING, ("entrypoints/openai/api_server.py",
                                     "create_chat_completion")),
                (Shape.API_START, ("entrypoints/openai/api_server.py", "serve_http"))),
    "openai": ((Shape.CLIENT, ("", "")),),
    "aiohttp": ((Shape.CLIENT, ("", "")),
                (Shape.API_SERVING, ("multimodal/utils.py", "fetch_image_async"))),
    "flashinfer": ((Shape.WORKER_PROFILE, ("v1/attention/backends/flashinfer.py", "build")),
                   (Shape.WORKER_SERVING, ("model_executor/layers/sampler.py", "forward")),
                   (Shape.ENGINE_START, ("v1/worker/gpu_worker.py", "compile_or_warm_up_model"))),
    "torch.distributed": ((Shape.WORKER_INIT, ("distributed/parallel_state.py",
                                               "init_distributed_environment")),
                          (Shape.WORKER_SERVING, ("distributed/communication_op.py",
                                                  "tensor_model_parallel_all_reduce"))),
    "torch.cuda": ((Shape.WORKER_INIT, ("platforms/cuda.py", "get_device_capability")),
                   (Shape.WORKER_PROFILE, ("utils/mem_utils.py", "memory_profiling"))),
    "torch.compile": ((Shape.WORKER_PROFILE, ("compilation/backends.py", "__call__")),
                      (Shape.WORKER_PROFILE, ("compilation/compiler_interface.py", "compile")),
                      (Shape.WORKER_PROFILE, ("compilation/decorators.py", "__call__"))),
    "torch.library": ((Shape.WORKER_LOAD, ("utils/torch_utils.py", "direct_register_custom_op")),
                      (Shape.WORKER_PROFILE, ("model_executor/layers/fused_moe/fused_moe.py",
                                              "fused_experts"))),
    "torch": ((Shape.WORKER_LOAD, ("model_executor/model_loader/weight_utils.py",
                                   "pt_weights_iterator")),
              (Shape.WORKER_PROFILE, ("compilation/backends.py", "__call__"))),
    "triton": ((Shape.WORKER_PROFILE, ("model_executor/layers/fused_moe/fused_moe.py",
                                       "invoke_fused_moe_kernel")),
               (Shape.WORKER_SERVING, ("v1/attention/ops/triton_unified_attention.py",
                                       "unified_attention"))),
    "flash_attn": ((Shape.WORKER_PROFILE, ("v1/attention/backends/flash_attn.py", "forward")),
                   (Shape.WORKER_SERVING, ("v1/attention/backends/flash_attn.py", "forward"))),
    "xformers": ((Shape.WORKER_PROFILE, ("v1/attention/backends/xformers.py", "forward")),
                 (Shape.WORKER_PROFILE, ("attention/layers/mm_encoder_attention.py",
                                         "forward"))),
    "bitsandbytes": ((Shape.WORKER_LOAD, ("model_executor/model_loader/bitsandbytes_loader.py",
                                          "_load_weights")),
                     (Shape.WORKER_SERVING, ("model_executor/layers/quantization/"
                                             "bitsandbytes.py", "apply"))),
    "compressed_tensors": ((Shape.API_START, ("model_executor/layers/quantization/"
                                              "compressed_tensors/compressed_tensors.py",
                                              "from_config")),
                           (Shape.WORKER_LOAD, ("model_executor/layers/quantization/"
                                                "compressed_tensors/compressed_tensors.py",
                                                "get_scheme"))),
    "mistral_common": ((Shape.API_START, ("tokenizers/mistral.py", "from_pretrained")),
                       (Shape.API_SERVING, ("tokenizers/mistral.py", "apply_chat_template"))),
    "PIL": ((Shape.API_SERVING, ("multimodal/image.py", "load_bytes")),
            (Shape.API_SERVING, ("multimodal/utils.py", "fetch_image"))),
    "numpy": ((Shape.API_SERVING, ("multimodal/processing.py", "_apply_hf_processor")),
              (Shape.API_SERVING, ("multimodal/video.py", "load_bytes"))),
    "zmq": ((Shape.ENGINE_START, ("v1/engine/core.py", "startup_handshake")),
            (Shape.API_START, ("v1/engine/core_client.py", "__init__")),
            (Shape.ENGINE_SERVING, ("v1/engine/core.py", "process_output_sockets"))),
    "msgspec": ((Shape.ENGINE_SERVING, ("v1/serial_utils.py", "decode")),
                (Shape.ENGINE_SERVING, ("v1/engine/core.py", "process_input_sockets"))),
    "prometheus_client": ((Shape.API_START, ("v1/metrics/loggers.py", "__init__")),
                          (Shape.API_SERVING, ("v1/metrics/loggers.py", "record"))),
    "llguidance": ((Shape.ENGINE_SERVING, ("v1/structured_output/backend_guidance.py",
                                           "compile_grammar")),
                   (Shape.API_SERVING, ("v1/structured_output/backend_guidance.py",
                                        "validate_guidance_grammar"))),
    # projects that run vLLM inside them: their own script's traceback
    "trl": ((Shape.CLIENT, ("", "")),),
    "verl": ((Shape.CLIENT, ("", "")),),
    "ms-swift": ((Shape.CLIENT, ("", "")),),
    "lm_format_enforcer": ((Shape.ENGINE_SERVING, ("v1/structured_output/"
                                                   "backend_lm_format_enforcer.py",
                                                   "compile_grammar")),
                           (Shape.API_SERVING, ("v1/structured_output/"
                                                "backend_lm_format_enforcer.py",
                                                "validate_structured_output_request_lm_format_"
                                                "enforcer"))),
}
# The Python caller of a compiled library's raise, and its exception's printed module.
COMPILED_CALLER = {"tokenizers": ("transformers/tokenization_utils_fast.py", "__init__"),
                   "safetensors": ("safetensors/torch.py", "load_file")}
# A class is printed under the module that defines it, often not the one that raises it.
QUALIFIED = {"SafetensorError": "safetensors_rust.SafetensorError",
             "DistBackendError": "torch.distributed.DistBackendError",
             "DistStoreError": "torch.distributed.DistStoreError",
             "DistNetworkError": "torch.distributed.DistNetworkError",
             "OutOfMemoryError": "torch.OutOfMemoryError",
             "AcceleratorError": "torch.AcceleratorError",
             "UnpicklingError": "_pickle.UnpicklingError",
             "DeferredCudaCallError": "torch.cuda.DeferredCudaCallError",
             "BackendCompilerFailed": "torch._dynamo.exc.BackendCompilerFailed",
             "Unsupported": "torch._dynamo.exc.Unsupported",
             "TorchRuntimeError": "torch._dynamo.exc.TorchRuntimeError",
             "InternalTorchDynamoError": "torch._dynamo.exc.InternalTorchDynamoError",
             "RecompileError": "torch._dynamo.exc.RecompileError",
             "FailOnRecompileLimitHit": "torch._dynamo.exc.FailOnRecompileLimitHit",
             "InductorError": "torch._inductor.exc.InductorError",
             "OutOfResources": "triton.runtime.errors.OutOfResources",
             "PTXASError": "triton.runtime.errors.PTXASError",
             "CompilationError": "triton.compiler.errors.CompilationError",
             "ZMQError": "zmq.error.ZMQError",
             "ZMQBindError": "zmq.error.ZMQBindError",
             "UnidentifiedImageError": "PIL.UnidentifiedImageError",
             "DecompressionBombError": "PIL.Image.DecompressionBombError",
             "LinAlgError": "numpy.linalg.LinAlgError"}
# Libraries whose own classes print under their defining module: the raising module stands in
# for it (a class raised where it is defined)
FULL_MODULE = ("torch", "triton", "flash_attn", "xformers")
CLASS_HOME = {"mistral_common": "mistral_common.exceptions",
              "lmformatenforcer": "lmformatenforcer.exceptions"}
# Raise sites mined from a plugin's or KV-connector package's own source (extract.py, since
# session 29): the vLLM module each stands for (`vllm_gaudi.v1.worker.` as `vllm.v1.worker.`;
# a connector package's sites as the KV-transfer connector that calls it, in the worker)
PLUGIN_SOURCES = {"vllm-ascend": "vllm_ascend", "vllm-gaudi": "vllm_gaudi",
                  "vllm-spyre": "vllm_spyre", "vllm-kunlun": "vllm_kunlun",
                  "vllm-rbln": "vllm_rbln", "tpu-inference": "tpu_inference"}
CONNECTOR_SOURCES = frozenset({"lmcache", "nixl", "mooncake"})
# Sources printed the way vLLM prints its own errors: vLLM and its plugins (their indexes)
VLLM_LIKE = frozenset({"vllm", *(plugin.package for plugin, _ in default_plugins()),
                       *PLUGIN_SOURCES, *CONNECTOR_SOURCES})
BUILTIN = frozenset(name for name in dir(builtins) if name.endswith(("Error", "Exception")))


@dataclass(frozen=True, slots=True)
class Event:
    """One error of the space, as a process prints it."""

    source: str  # "vllm" or the library's name
    module: str
    function: str
    cls: str
    template: str
    shape: str
    variant: str  # "frames" (the raise site's frames innermost), "tail" (cut above them) or
    # "bare" (the exception line alone)
    kind: str = "raise"  # or the log level of a logged error
    caller: str = ""  # the framework of a FRAMEWORK event (FRAMEWORKS)

    @property
    def digest(self) -> int:
        return int(hashlib.sha1(f"{self.source}\0{self.template}".encode()).hexdigest()[:8], 16)


def _frame(path: str, function: str) -> list[str]:
    return [f'  File "{path}", line 321, in {function}', f"    {function}(...)"]


def _printed_class(event: Event) -> str:
    if event.cls in QUALIFIED:
        return QUALIFIED[event.cls]
    if event.source in VLLM_LIKE or event.cls in BUILTIN or "." in event.cls:
        return event.cls
    if event.module.split(".")[0] in FULL_MODULE:
        return f"{event.module}.{event.cls}"
    if event.module.split(".")[0] in CLASS_HOME:
        return f"{CLASS_HOME[event.module.split('.')[0]]}.{event.cls}"
    return f"{event.module.split('.')[0]}.{event.cls}"


def render(event: Event) -> str:
    """The log lines of this event: the process's traceback, then what the others print."""
    message = fill(event.template, holes().get(event.template)
                   if event.source in ("vllm", "vllm-api") else None)
    shape = Shape(event.shape)
    if shape is Shape.FRAMEWORK:
        return render_framework(event, message)
    if event.kind != "raise":
        prefix = {Shape.API_START: API, Shape.API_SERVING: API}.get(
            shape, WORKER if shape.name.startswith("WORKER") else CORE)
        first, *rest = message.split("\n")
        name = event.module.rsplit(".", 1)[-1] + ".py"
        return "".join(f"{prefix}ERROR {STAMP} [{name}:321] {line}\n" for line in (first, *rest))
    frames: list[str] = _frame(*CLIENT_FRAME) if shape is Shape.CLIENT else []
    for file, function in OUTER[shape]:
        frames += _frame(SITE + "vllm/" + file, function)
    if event.source not in VLLM_LIKE:
        caller = dict(LIBRARY_SHAPES[event.source]).get(shape, ("", ""))
        if caller[0]:
            frames += _frame(SITE + "vllm/" + caller[0], caller[1])
        if event.variant == "frames":
            if event.source in COMPILED_CALLER:
                frames += _frame(SITE + COMPILED_CALLER[event.source][0],
                                 COMPILED_CALLER[event.source][1])
            else:
                frames += _frame(SITE + event.module.replace(".", "/") + ".py",
                                 event.function.rsplit(".", 1)[-1] or "<module>")
    elif event.variant == "frames":
        frames += _frame(SITE + event.module.replace(".", "/") + ".py",
                         event.function.rsplit(".", 1)[-1] or "<module>")
    first, *rest = message.split("\n")
    body = ["Traceback (most recent call last):", *frames, f"{_printed_class(event)}: {first}",
            *rest] if event.variant != "bare" else [f"{_printed_class(event)}: {first}", *rest]
    if shape is Shape.CLIENT:
        return "".join(line + "\n" for line in body)
    if shape is Shape.API_START:
        return "".join(f"{API}{line}\n" for line in body)
    if shape is Shape.API_SERVING:
        head = f"{API}ERROR {STAMP} [serving_chat.py:250] "
        return ("".join(f"{head}{line}\n" for line in ["Error in preprocessing prompt inputs",
                                                        *body]))
    if shape in (Shape.ENGINE_START, Shape.ENGINE_SERVING):
        head = f"{CORE}ERROR {STAMP} [core.py:708] "
        opening = ("EngineCore failed to start." if shape is Shape.ENGINE_START
                   else "EngineCore encountered a fatal error.")
        after = (f"{API}RuntimeError: Engine core initialization failed. See root cause above. "
                 "Failed core proc(s): {}\n" if shape is Shape.ENGINE_START else
                 f"{API}ERROR {STAMP} [async_llm.py:480] AsyncLLM output_handler failed.\n"
                 f"{API}vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an "
                 "issue. See stack trace (above) for the root cause.\n")
        return "".join(f"{head}{line}\n" for line in [opening, *body]) + after
    head = f"{WORKER}ERROR {STAMP} [multiproc_executor.py:671] "
    starting = shape in (Shape.WORKER_LOAD, Shape.WORKER_INIT)
    opening = "WorkerProc failed to start." if starting else "WorkerProc hit an exception."
    core = f"{CORE}ERROR {STAMP} [core.py:708] "
    after = ("".join(core + line + "\n" for line in (
        "EngineCore failed to start.", "Traceback (most recent call last):",
        *_frame(SITE + "vllm/v1/executor/multiproc_executor.py", "wait_for_ready"),
        "Exception: WorkerProc initialization failed due to an exception in a background "
        "process. See stack trace for root cause.")) +
        f"{API}RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {}\n") if starting else (
        f"{CORE}ERROR {STAMP} [core.py:894] EngineCore encountered a fatal error.\n"
        f"{API}vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. "
        "See stack trace (above) for the root cause.\n")
    return "".join(f"{head}{line}\n" for line in [opening, *body]) + after


def render_framework(event: Event, message: str) -> str:
    """A framework's traceback that ends in vLLM: the framework's frames, the API surface's, the
    raise site's (`frames`), or cut above the raise site (`tail`), or the line alone (`bare`);
    a Ray actor's lines under its prefix, a Ray task's error as the driver re-raises it."""
    framework = next(f for f in FRAMEWORKS if f.name == event.caller)
    surface = next(frames for pattern, frames in SURFACES if pattern.search(event.module))
    frames: list[str] = []
    for path, function in framework.frames:
        frames += _frame(path if path.startswith("/") else SITE + path, function)
    for file, function in surface:
        frames += _frame(SITE + "vllm/" + file, function)
    if event.variant == "frames":
        frames += _frame(SITE + event.module.replace(".", "/") + ".py",
                         event.function.rsplit(".", 1)[-1] or "<module>")
    first, *rest = message.split("\n")
    line = f"{event.cls}: {first}"
    if event.variant == "bare":
        body = [line, *rest]
    elif framework.ray_task:
        body = ["Traceback (most recent call last):",
                *_frame("/opt/train/verl/trainer/main_ppo.py", "run"),
                *_frame(SITE + "ray/_private/worker.py", "get"),
                f"ray.exceptions.RayTaskError({event.cls}): ray::{framework.ray_task}() "
                "(pid=3101, ip=10.0.0.2, actor_id=5f0c2a, repr=<verl.single_controller.ray.base."
                "WorkerDict object at 0x7f3a2c1b9e40>)", *frames, line, *rest]
    else:
        body = ["Traceback (most recent call last):", *frames, line, *rest]
    return "".join(f"{framework.prefix}{text}\n" for text in body)


def framework_events(sample: int, seed: int) -> list[Event]:
    """vLLM's error templates raised on the public API surfaces frameworks call (SURFACES: the
    LLM / LLMEngine / AsyncLLM constructors and generate / collective_rpc, SamplingParams and
    PoolingParams validation, the weight-transfer engines and their trainer side, the distributed
    set-up an in-process engine runs, the KV-transfer connectors), each in one framework's
    traceback (FRAMEWORKS, by the message's digest; the KV connectors' in LMCache's), with frames,
    cut and bare; `sample` of them (0: all)."""
    templates = [t for t in error_templates(default_index()) if t.kind is MessageKind.RAISE
                 and any(p.search(t.module) for p, _ in SURFACES)]
    if sample:
        templates = random.Random(seed).sample(templates, min(sample, len(templates)))
    runners = [f for f in FRAMEWORKS if f.name != "lmcache"]
    out = []
    for template in templates:
        digest = int(hashlib.sha1(template.text.encode()).hexdigest()[:8], 16)
        caller = ("lmcache" if template.module.startswith("vllm.distributed.kv_transfer")
                  else runners[digest % len(runners)].name)
        for variant in VARIANTS:
            out.append(Event("vllm-api", template.module, template.function, template.cls,
                             template.text, Shape.FRAMEWORK.value, variant, caller=caller))
    return out


VARIANTS = ("frames", "tail", "bare")


def vllm_events(sample: int, seed: int) -> list[Event]:
    """vLLM's error templates (every release), each in the shape its module fails in; `sample`
    of them (0: all)."""
    templates = error_templates(default_index())
    if sample:
        templates = random.Random(seed).sample(templates, min(sample, len(templates)))
    out = []
    for template in templates:
        shapes = next(s for pattern, s in VLLM_SHAPES if pattern.search(template.module))
        digest = int(hashlib.sha1(template.text.encode()).hexdigest()[:8], 16)
        kind = "raise" if template.kind is MessageKind.RAISE else template.cls
        for variant in ("frames", "bare") if kind == "raise" else ("frames",):
            out.append(Event("vllm", template.module, template.function, template.cls,
                             template.text, shapes[digest % len(shapes)].value, variant, kind))
    return out


def plugin_events(sample: int, seed: int) -> list[Event]:
    """The error templates of vLLM's platform and connector plugins (their message indexes,
    `logsleuth/index/plugin_*.json.gz`: every indexed release), each in the shape its module
    would fail in as vLLM's (`vllm_ascend.worker.` as `vllm.worker.`), with the plugin's frame
    innermost and bare; `sample` of each plugin's (0: all)."""
    out = []
    for plugin, _ in default_plugins():
        templates = error_templates(plugin.index)
        if sample:
            templates = random.Random(seed).sample(templates, min(sample, len(templates)))
        for template in templates:
            as_vllm = "vllm" + template.module.removeprefix(plugin.module)
            shapes = next(s for pattern, s in VLLM_SHAPES if pattern.search(as_vllm))
            digest = int(hashlib.sha1(template.text.encode()).hexdigest()[:8], 16)
            kind = "raise" if template.kind is MessageKind.RAISE else template.cls
            for variant in ("frames", "bare") if kind == "raise" else ("frames",):
                out.append(Event(plugin.package, template.module, template.function,
                                 template.cls, template.text, shapes[digest % len(shapes)].value,
                                 variant, kind))
    return out


def plugin_source_events(messages: Iterable[LibraryMessage]) -> list[Event]:
    """The raise sites mined from the plugins' and connector packages' source, each in the shape
    of the vLLM module it stands for, with the plugin's frame innermost and bare."""
    out = []
    for message in messages:
        if message.library in CONNECTOR_SOURCES:
            as_vllm = "vllm.distributed.kv_transfer"
        else:
            as_vllm = "vllm" + message.module.removeprefix(PLUGIN_SOURCES[message.library])
        shapes = next(s for pattern, s in VLLM_SHAPES if pattern.search(as_vllm))
        digest = int(hashlib.sha1(message.template.encode()).hexdigest()[:8], 16)
        for variant in ("frames", "bare"):
            out.append(Event(message.library, message.module, message.function, message.cls,
                             message.template, shapes[digest % len(shapes)].value, variant))
    return out


def library_events(messages: Iterable[LibraryMessage]) -> list[Event]:
    """Each library message where vLLM meets the library, with its frames and cut above them;
    the plugins' and connector packages' sites as `plugin_source_events`."""
    out = []
    messages = list(messages)
    mined = [m for m in messages if m.library in PLUGIN_SOURCES or m.library in CONNECTOR_SOURCES]
    out += plugin_source_events(mined)
    for message in messages:
        if message.library in PLUGIN_SOURCES or message.library in CONNECTOR_SOURCES:
            continue
        shapes = LIBRARY_SHAPES[message.library]
        digest = int(hashlib.sha1(message.template.encode()).hexdigest()[:8], 16)
        shape = shapes[digest % len(shapes)][0]
        for variant in VARIANTS:
            out.append(Event(message.library, message.module, message.function, message.cls,
                             message.template, shape.value, variant))
    return out


@dataclass(frozen=True, slots=True)
class Result:
    event: Event
    advice: Advice
    signature: str | None


def measure_one(event: Event, signatures: SignatureSet) -> Result:
    report = explain_text(render(event), signatures=signatures)
    if report.signature is not None:
        return Result(event, Advice(report.signature.kind.value), report.signature.id)
    return Result(event, Advice.NONE, None)


_SIGNATURES: SignatureSet | None = None


def _measure_chunk(events: list[Event]) -> list[Result]:
    global _SIGNATURES  # one database per worker process
    if _SIGNATURES is None:
        _SIGNATURES = default_signatures()
    return [measure_one(e, _SIGNATURES) for e in events]


def measure(events: Sequence[Event], jobs: int = 1) -> list[Result]:
    """Every event measured, in order."""
    if jobs <= 1:
        return _measure_chunk(list(events))
    size = max(1, len(events) // (jobs * 8))
    chunks = [list(events[i:i + size]) for i in range(0, len(events), size)]
    with ProcessPoolExecutor(jobs) as pool:
        return [r for chunk in pool.map(_measure_chunk, chunks) for r in chunk]


_WORD = re.compile(r"[A-Za-z][A-Za-z'`-]+")


def shape_of(template: str, words: int = 3) -> str:
    """A message's shape: its first few fixed words, lower case."""
    fixed = re.sub(r"\{\w+\}", " ", template)
    return " ".join(w.lower() for w in _WORD.findall(fixed)[:words])


@dataclass(frozen=True, slots=True)
class Cluster:
    source: str
    cls: str
    shape: str
    events: int
    example: str


def clusters(results: Iterable[Result]) -> list[Cluster]:
    """The fallback/none events by source, class and message shape, largest first."""
    grouped: dict[tuple[str, str, str], list[Event]] = defaultdict(list)
    for result in results:
        if result.advice.missed:
            event = result.event
            grouped[(event.source, event.cls, shape_of(event.template, 2))].append(event)
    out = [Cluster(s, c, shape, len(es), es[0].template) for (s, c, shape), es in grouped.items()]
    return sorted(out, key=lambda c: (-c.events, c.source, c.cls, c.shape))


def counts(results: Iterable[Result]) -> dict[str, Counter[Advice]]:
    """Per source (and `all`, and per library variant), how many events got each advice."""
    out: dict[str, Counter[Advice]] = defaultdict(Counter)
    for result in results:
        out["all"][result.advice] += 1
        out[result.event.source][result.advice] += 1
        if result.event.caller:
            out[f"frameworks/{result.event.caller}"][result.advice] += 1
        side = ("vllm" if result.event.source == "vllm" else "frameworks"
                if result.event.source == "vllm-api" else "plugins"
                if result.event.source in VLLM_LIKE else "libraries")
        out[f"{side}/{result.event.variant}"][result.advice] += 1
    return out


def missed_share(results: Sequence[Result]) -> float:
    """The share of events that got only a fallback or nothing."""
    return sum(r.advice.missed for r in results) / max(1, len(results))


def summary(results: Sequence[Result], top: int) -> str:
    table = counts(results)
    lines = ["source            events  " + "  ".join(f"{a.value:>8}" for a in Advice)
             + "  missed"]
    for source in sorted(table, key=lambda s: (s != "all", s)):
        row = table[source]
        total = sum(row.values())
        missed = row[Advice.FALLBACK] + row[Advice.NONE]
        lines.append(f"{source:<17} {total:6d}  " + "  ".join(f"{row[a]:8d}" for a in Advice)
                     + f"  {100 * missed / max(1, total):5.1f}%")
    lines += ["", f"largest fallback/none clusters (source, class, first words):"]
    for cluster in clusters(results)[:top]:
        lines.append(f"{cluster.events:5d}  {cluster.source:<16} {cluster.cls:<22} "
                     f"{cluster.shape:<28} {cluster.example[:70]!r}")
    return "\n".join(lines) + "\n"


def read_events(path: Path) -> list[Event]:
    with path.open(encoding="utf-8") as lines:
        return [Event(**json.loads(line)) for line in lines if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm-sample", type=int, default=1000,
                        help="vLLM templates to draw (0: every one, ~14k)")
    parser.add_argument("--plugin-sample", type=int, default=250,
                        help="error templates to draw from each plugin's index (0: every one)")
    parser.add_argument("--source", help="measure only the sources this regex finds")
    parser.add_argument("--api-sample", type=int, default=0,
                        help="vLLM API-surface templates in frameworks' tracebacks (0: all)")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--clusters", type=int, default=30)
    parser.add_argument("--events", type=Path, help="measure these events (JSON lines) only")
    parser.add_argument("--results", type=Path, help="write each event's result as JSON lines")
    parser.add_argument("--write-sample", type=int, metavar="N",
                        help="write N events drawn from the space to sample.jsonl")
    args = parser.parse_args(argv)
    if args.events:
        events = read_events(args.events)
    else:
        events = (vllm_events(args.vllm_sample, args.seed) + library_events(read())
                  + plugin_events(args.plugin_sample, args.seed)
                  + framework_events(args.api_sample, args.seed))
        if args.source:
            events = [e for e in events if re.search(args.source, e.source)]
    if args.write_sample:
        chosen = random.Random(args.seed).sample(events, min(args.write_sample, len(events)))
        SAMPLE.write_text("".join(json.dumps(asdict(e), sort_keys=True) + "\n"
                                  for e in sorted(chosen, key=lambda e: (e.source, e.template,
                                                                         e.variant))))
        return 0
    results = measure(events, args.jobs)
    sys.stdout.write(summary(results, args.clusters))
    if args.results:
        with args.results.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps({**asdict(r.event), "advice": r.advice.value,
                                       "signature": r.signature}) + "\n" for r in results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
