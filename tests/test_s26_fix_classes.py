"""Classes behind session 26's seventeenth split's cold fix misses, each generated over its
wordings and the ways a log shows it, with a near miss:

- a local file named like a package (`vllm.py`, `torch.py`) imported instead of the package
  (`No module named 'vllm.engine'; 'vllm' is not a package`, or a script importing itself: `cannot
  import name 'LLM' from partially initialized module 'vllm' (...) (/path/vllm.py)`):
  local-module-shadows-package, whose fix says to rename the file and drop its byte code; a
  submodule an installed release lacks keeps the version advice;
- FastAPI 0.137's `_IncludedRouter` nodes, which have no `.path`, under middleware that walks
  `app.routes` (prometheus-fastapi-instrumentator, OpenTelemetry), every request a 500:
  fastapi-included-router-no-path, whose fix pins `fastapi<0.137` or upgrades the instrumentator;
  an AttributeError on the app's state keeps its own advice;
- token ids sent as a tokenizer's output dict (transformers 5's `apply_chat_template` returns a
  `BatchEncoding` by default), so a token-id field receives the keys `input_ids` and
  `attention_mask`: token-ids-are-tokenizer-output-keys, whose fix names `return_dict=False`; an
  int_parsing error on another field does not get it;
- ROCm's first free-memory query (`torch.cuda.mem_get_info` in a worker's start-up) failing with
  `HIP error: invalid argument` because the host's amdgpu kernel driver lacks the query:
  rocm-free-memory-query-unsupported-by-driver, whose fix names `amdgpu-dkms` and the host
  driver; the same HIP error from a kernel, or with no frames, keeps the HIP family;
- a KeyboardInterrupt only an engine core or worker got while it started (loading weights, in
  torch.compile, profiling), which its parent reports as its failure (`Engine core initialization
  failed`, `Worker proc ... died unexpectedly`): engine-startup-interrupted, whose fix names the
  launchers' start-up limits, `VLLM_ENGINE_READY_TIMEOUT_S`, the compile cache and `-O0`; an error
  Dynamo or Inductor raised in the same place keeps library-torch-compile-error."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a local file shadowing a package ------------------------------------------------------------

_SHADOWED = st.sampled_from([
    ("vllm", "vllm.engine.arg_utils", "AsyncEngineArgs"),
    ("vllm", "vllm.entrypoints.openai.api_server", "run_server"),
    ("vllm", "vllm.sampling_params", "SamplingParams"),
    ("torch", "torch.cuda", "amp"),
    ("transformers", "transformers.models.llama", "LlamaConfig"),
    ("ray", "ray.util.placement_group", "placement_group"),
])
_SCRIPT_DIRS = st.sampled_from(["/root/", "/home/user/project/", "/workspace/app/",
                                "C:\\Users\\me\\proj\\"])
_LAUNCH_PREFIXES = st.sampled_from(["", "[rank0]: ", "(pid=4411) ",
                                    "2024-01-12T10:01:02.123Z "])


@settings(max_examples=40, deadline=None)
@given(shadowed=_SHADOWED, where=_SCRIPT_DIRS, prefix=_LAUNCH_PREFIXES)
def test_a_submodule_of_a_shadowing_file_says_rename_the_file(
        shadowed: tuple[str, str, str], where: str, prefix: str) -> None:
    package, module, name = shadowed
    parent = module.rsplit(".", 1)[0]
    log = python_traceback(
        [(f"{where}{package}.py", "<module>", f"from {module} import {name}")],
        f"ModuleNotFoundError: No module named '{parent if parent != package else module}'; "
        f"'{package}' is not a package", prefix)
    signature, fix = signature_advice(log)
    assert signature == "local-module-shadows-package"
    for knob in ("Rename", "__pycache__", "__file__"):
        assert knob in fix, knob


@settings(max_examples=30, deadline=None)
@given(shadowed=_SHADOWED, where=_SCRIPT_DIRS, prefix=_LAUNCH_PREFIXES)
def test_a_script_importing_itself_under_a_package_name_says_rename_the_file(
        shadowed: tuple[str, str, str], where: str, prefix: str) -> None:
    package, _, name = shadowed
    sep = "\\" if where.startswith("C:") else ""
    path = f"{where}{sep}{package}.py" if sep and not where.endswith("\\") else f"{where}{package}.py"
    log = python_traceback(
        [(path, "<module>", f"from {package} import {name}")],
        f"ImportError: cannot import name '{name}' from partially initialized module "
        f"'{package}' (most likely due to a circular import) ({path})", prefix)
    signature, _ = signature_advice(log)
    assert signature == "local-module-shadows-package"


@settings(max_examples=15, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES,
       missing=st.sampled_from(["vllm.engine.ray_utils", "vllm.model_executor.input_metadata",
                                "vllm.worker.cache_engine"]))
def test_a_submodule_an_installed_release_lacks_is_not_a_shadow(py: str, site: str,
                                                                 missing: str) -> None:
    log = python_traceback(
        [("/home/user/project/train.py", "<module>", f"from {missing} import x"),
         (site.format(py=py) + "somelib/patch.py", "<module>", f"import {missing}")],
        f"ModuleNotFoundError: No module named '{missing}'")
    signature, _ = signature_advice(log)
    assert signature != "local-module-shadows-package"


@settings(max_examples=15, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, moved=st.sampled_from([
    ("vllm.transformers_utils.tokenizer_group.tokenizer_group",
     "vllm.transformers_utils.tokenizer_group"),
    ("vllm.model_executor.models.utils.weights", "vllm.model_executor.models.utils"),
    ("triton.compiler", "triton"), ("triton.runtime.jit", "triton")]))
def test_a_module_that_is_a_package_elsewhere_or_a_placeholder_is_not_a_local_file(
        py: str, site: str, moved: tuple[str, str]) -> None:
    """A dotted parent that is a module is a package whose layout changed between releases;
    `triton` not being a package is vLLM 0.8's placeholder module in sys.modules."""
    log = python_traceback(
        [(site.format(py=py) + "unsloth_zoo/vllm_utils.py", "<module>", f"import {moved[0]}")],
        f"ModuleNotFoundError: No module named '{moved[0]}'; '{moved[1]}' is not a package")
    signature, _ = signature_advice(log)
    assert signature != "local-module-shadows-package"


# ---- FastAPI 0.137's included routers under route-walking middleware ------------------------------

_ROUTE_WALKERS = st.sampled_from([
    ("prometheus_fastapi_instrumentator/routing.py", "_get_route_name", "route_name = route.path"),
    ("prometheus_fastapi_instrumentator/middleware.py", "_get_handler",
     "route_name = routing.get_route_name(request)"),
    ("opentelemetry/instrumentation/fastapi/__init__.py", "_get_route_details",
     "route = starlette_route.path"),
    ("ray/llm/_internal/serve/observability/metrics/middleware.py", "_get_route_details",
     "route = starlette_route.path"),
])
_ROUTE_ATTRIBUTES = st.sampled_from(["path", "path_format", "name"])
_PATHS = st.sampled_from(["/health", "/v1/models", "/v1/chat/completions", "/metrics",
                          "/inference/v1/generate"])
_API_PREFIXES = st.sampled_from(["", "(APIServer pid=5959) ", "(ServeReplica:default pid=77) "])


@settings(max_examples=40, deadline=None)
@given(walker=_ROUTE_WALKERS, attribute=_ROUTE_ATTRIBUTES, path=_PATHS, prefix=_API_PREFIXES,
       py=PYTHONS, site=SITE_PACKAGES)
def test_an_included_router_without_path_says_pin_fastapi(
        walker: tuple[str, str, str], attribute: str, path: str, prefix: str, py: str,
        site: str) -> None:
    root = site.format(py=py)
    access = f'{prefix}INFO:     10.0.0.7:39396 - "GET {path} HTTP/1.1" 500 Internal Server Error\n'
    log = access + python_traceback(
        [(root + "uvicorn/protocols/http/httptools_impl.py", "run_asgi",
          "result = await app(  # type: ignore[func-returns-value]"),
         (root + "starlette/applications.py", "__call__",
          "await self.middleware_stack(scope, receive, send)"),
         (root + walker[0], walker[1], walker[2])],
        f"AttributeError: '_IncludedRouter' object has no attribute '{attribute}'", prefix)
    signature, fix = signature_advice(log)
    assert signature == "fastapi-included-router-no-path"
    for knob in ("fastapi<0.137", "prometheus-fastapi-instrumentator>=8.0.1"):
        assert knob in fix, knob


def test_the_excerpt_form_without_a_traceback_header_gets_the_pin() -> None:
    log = ('GET /health HTTP/1.1" 500 Internal Server Error\n'
           "AttributeError: '_IncludedRouter' object has no attribute 'path'\n"
           "  prometheus_fastapi_instrumentator/routing.py:55 in _get_route_name -> route.path\n")
    signature, _ = signature_advice(log)
    assert signature == "fastapi-included-router-no-path"


@settings(max_examples=10, deadline=None)
@given(prefix=_API_PREFIXES, py=PYTHONS, site=SITE_PACKAGES,
       attribute=st.sampled_from(["openai_serving_chat", "engine_client", "openai_serving_models"]))
def test_a_missing_app_state_attribute_is_not_the_router_tree(prefix: str, py: str, site: str,
                                                              attribute: str) -> None:
    root = site.format(py=py)
    log = python_traceback(
        [(root + "starlette/applications.py", "__call__",
          "await self.middleware_stack(scope, receive, send)"),
         (root + "vllm/entrypoints/openai/api_server.py", "chat",
          f"return request.app.state.{attribute}"),
         (root + "starlette/datastructures.py", "__getattr__",
          "raise AttributeError(message.format(self.__class__.__name__, key))")],
        f"AttributeError: 'State' object has no attribute '{attribute}'", prefix)
    signature, _ = signature_advice(log)
    assert signature != "fastapi-included-router-no-path"


# ---- token ids sent as a tokenizer's output dict -------------------------------------------------

_TOKEN_FIELDS = st.sampled_from([("token_ids", "/inference/v1/generate"),
                                 ("prompt", "/v1/completions"),
                                 ("prompt_token_ids", "/v1/completions/render")])
_ENCODING_KEYS = st.sampled_from([("input_ids", "attention_mask"),
                                  ("input_ids", "token_type_ids", "attention_mask"),
                                  ("input_ids",)])


def _pydantic_errors(field: str, keys: tuple[str, ...], as_json: bool) -> str:
    if as_json:
        return "[" + ",".join(
            f'{{"type":"int_parsing","loc":["body","{field}",{i}],"msg":"Input should be a valid '
            f'integer, unable to parse string as an integer","input":"{key}"}}'
            for i, key in enumerate(keys)) + "]"
    return f"{len(keys)} validation errors:\\n" + "\\n".join(
        f"  {{'type': 'int_parsing', 'loc': ('body', '{field}', {i}), 'msg': 'Input should be a "
        f"valid integer, unable to parse string as an integer', 'input': '{key}'}}"
        for i, key in enumerate(keys))


@settings(max_examples=40, deadline=None)
@given(field=_TOKEN_FIELDS, keys=_ENCODING_KEYS, client=st.sampled_from(["aiohttp", "openai",
                                                                         "pytest", "escaped"]),
       py=PYTHONS, site=SITE_PACKAGES)
def test_token_ids_that_are_encoding_keys_say_return_dict_false(
        field: tuple[str, str], keys: tuple[str, ...], client: str, py: str, site: str) -> None:
    name, endpoint = field
    root = site.format(py=py)
    if client == "aiohttp":
        log = python_traceback(
            [("/workspace/rollout/client.py", "sample", "resp.raise_for_status()"),
             (root + "aiohttp/client_reqrep.py", "raise_for_status", "raise ClientResponseError(")],
            f"aiohttp.client_exceptions.ClientResponseError: 400, message=\"{_pydantic_errors(name, keys, False)}\", "
            f"url='http://127.0.0.1:8000{endpoint}'")
    elif client == "openai":
        log = python_traceback(
            [("/home/u/eval.py", "<module>", "client.completions.create(model=M, prompt=enc)"),
             (root + "openai/_base_client.py", "request",
              "raise self._make_status_error_from_response(err.response) from None")],
            f"openai.BadRequestError: Error code: 400 - {{'error': {{'message': "
            f"'{_pydantic_errors(name, keys, True)}', 'type': 'BadRequestError', 'code': 400}}}}")
    else:
        message = _pydantic_errors(name, keys, False)
        if client == "escaped":
            message = message.replace("'", "\\'")
        log = ("=========================== short test summary info ============================\n"
               f"FAILED tests/test_sample.py::test_client_sample - "
               f"aiohttp.client_exceptions.ClientResponseError: 400, message='{message}', "
               f"url='http://10.0.0.2:8080{endpoint}'\n"
               "==== 1 failed, 12 passed in 310.20s ====\n")
    signature, fix = signature_advice(log)
    assert signature == "token-ids-are-tokenizer-output-keys"
    for knob in ("return_dict=False", "apply_chat_template", '["input_ids"]'):
        assert knob in fix, knob


@settings(max_examples=10, deadline=None)
@given(field=st.sampled_from(["max_tokens", "n", "seed", "top_k"]),
       value=st.sampled_from(["many", "ten", "auto"]))
def test_an_int_parsing_error_of_another_field_is_not_the_encoding(field: str,
                                                                   value: str) -> None:
    log = python_traceback(
        [("/workspace/rollout/client.py", "sample", "resp.raise_for_status()")],
        "aiohttp.client_exceptions.ClientResponseError: 400, message=\"1 validation error:\\n  "
        f"{{'type': 'int_parsing', 'loc': ('body', 'sampling_params', '{field}'), 'msg': 'Input "
        f"should be a valid integer, unable to parse string as an integer', 'input': '{value}'}}\", "
        "url='http://127.0.0.1:8000/inference/v1/generate'")
    signature, _ = signature_advice(log)
    assert signature != "token-ids-are-tokenizer-output-keys"


# ---- ROCm's free-memory query refused by an old host driver ---------------------------------------

_MEMORY_CALLERS = st.sampled_from([
    # V0's worker (0.4-0.6), V1's worker snapshot (0.7+), a platform helper
    [("vllm/worker/worker.py", "init_device",
      "self.init_gpu_memory = torch.cuda.mem_get_info()[0]")],
    [("vllm/v1/worker/gpu_worker.py", "init_device", "self.init_snapshot = MemorySnapshot()"),
     ("vllm/utils/__init__.py", "measure",
      "self.free_memory, self.total_memory = torch.cuda.mem_get_info()")],
    [("vllm/platforms/rocm.py", "get_current_memory_usage", "torch.cuda.mem_get_info(device)")],
])
_HIP_CLASSES = st.sampled_from(["RuntimeError", "torch.AcceleratorError"])
_HIP_HINTS = st.sampled_from([
    "\nHIP kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3",
    "\nHIP kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\nFor debugging consider passing HIP_LAUNCH_BLOCKING=1.",
    ""])


@settings(max_examples=40, deadline=None)
@given(callers=_MEMORY_CALLERS, cls=_HIP_CLASSES, hint=_HIP_HINTS, prefix=TRACEBACK_PREFIXES,
       py=PYTHONS, site=SITE_PACKAGES)
def test_hip_invalid_argument_from_the_free_memory_query_says_host_driver(
        callers: list[tuple[str, str, str]], cls: str, hint: str, prefix: str, py: str,
        site: str) -> None:
    root = site.format(py=py)
    frames = [(root + path, function, code) for path, function, code in callers]
    frames.append((root + "torch/cuda/memory.py", "mem_get_info",
                   "return torch.cuda.cudart().cudaMemGetInfo(device)"))
    log = python_traceback(frames, f"{cls}: HIP error: invalid argument{hint}", prefix)
    signature, fix = signature_advice(log)
    assert signature == "rocm-free-memory-query-unsupported-by-driver"
    for knob in ("amdgpu-dkms", "dkms status", "AMD_LOG_LEVEL=3"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(kernel=st.sampled_from([
    ("vllm/_custom_ops.py", "gptq_gemm", "return torch.ops._C.gptq_gemm(a, b_q_weight)"),
    ("vllm/attention/ops/paged_attn.py", "forward_decode", "ops.paged_attention_v1("),
    ("torch/nn/modules/module.py", "convert", "return t.to(")]),
       prefix=TRACEBACK_PREFIXES, py=PYTHONS, site=SITE_PACKAGES)
def test_hip_invalid_argument_elsewhere_keeps_the_hip_family(
        kernel: tuple[str, str, str], prefix: str, py: str, site: str) -> None:
    root = site.format(py=py)
    log = python_traceback([(root + kernel[0], kernel[1], kernel[2])],
                           "RuntimeError: HIP error: invalid argument", prefix)
    signature, _ = signature_advice(log)
    assert signature == "hip-runtime-error"


def test_a_frameless_hip_invalid_argument_keeps_the_hip_family() -> None:
    signature, _ = signature_advice("RuntimeError: HIP error: invalid argument\n"
                                    "For debugging consider passing AMD_SERIALIZE_KERNEL=3\n")
    assert signature == "hip-runtime-error"


# ---- a start-up interrupted from outside, reported as the child's failure -------------------------

# What an engine core or worker logs before the interrupt and the frames it was in, by phase: the
# weight load, torch.compile (Dynamo, then Inductor's cache keys and codegen), the memory profile.
_PHASES = {
    "load": (["Starting to load model Qwen/Qwen3-8B...",
              "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:41<00:41, 20.5s/it]"],
             [("vllm/v1/worker/gpu_model_runner.py", "load_model",
               "self.model = model_loader.load_model("),
              ("vllm/model_executor/model_loader/default_loader.py", "load_weights",
               "loaded_weights = model.load_weights(self.get_all_weights(model_config, model))"),
              ("safetensors/torch.py", "load_file", "result[k] = f.get_tensor(k)")]),
    "compile": (["Dynamo bytecode transform time: 7.92 s",
                 "Cache the graph of compile range (1, 2048) for later use"],
                [("vllm/v1/worker/gpu_worker.py", "compile_or_warm_up_model",
                  "self.model_runner.capture_model()"),
                 ("vllm/compilation/backends.py", "compile",
                  "compiled_graph = self.compiler.compile(graph, example_inputs)"),
                 ("torch/_inductor/codecache.py", "dumps", "self.dump(obj)")]),
    "profile": (["Model loading took 15.27 GiB memory and 6.402 seconds"],
                [("vllm/v1/executor/abstract.py", "determine_available_memory",
                  'return self.collective_rpc("determine_available_memory")'),
                 ("vllm/v1/worker/gpu_worker.py", "determine_available_memory",
                  "self.model_runner.profile_run()"),
                 ("torch/_dynamo/eval_frame.py", "_fn", "return fn(*args, **kwargs)")]),
}
# (child's log prefix, its process title in multiprocessing's `Process X:`, the reporter's lines):
# V1 engine cores reported by the API server or by an offline script's process (unprefixed), a
# multiprocessing executor's worker reported by its engine core
_API_REPORT = ["Traceback (most recent call last):",
               '  File "{site}vllm/v1/engine/utils.py", line 1249, in wait_for_engine_startup',
               "    raise RuntimeError(",
               "RuntimeError: Engine core initialization failed. See root cause above. Failed "
               "core proc(s): {{}}"]
_CHILDREN = st.sampled_from([
    ("(EngineCore pid=3408798) ", "EngineCore", "(APIServer pid=3407862) ", _API_REPORT),
    ("(EngineCore_DP0 pid=51207) ", "EngineCore_DP0", "(APIServer pid=51012) ", _API_REPORT),
    ("(EngineCore_0 pid=7714) ", "EngineCore_0", "", _API_REPORT),
    ("(VllmWorker rank=1 pid=9120) ", "VllmWorker-1", "(EngineCore pid=9001) ",
     ["ERROR 06-22 01:26:22 [multiproc_executor.py:140] Worker proc VllmWorker-1 died "
      "unexpectedly, shutting down executor."]),
])
# a bare SIGINT; a SIGTERM in a forked child that inherited the API server's start-up handler
# (api_server.py run_server: `raise KeyboardInterrupt("terminated")`)
_INTERRUPTS = st.sampled_from(["KeyboardInterrupt", "KeyboardInterrupt: terminated"])


def _interrupted_start(phase: str, child: tuple[str, str, str, list[str]], error: str,
                       site: str) -> str:
    prefix, title, reporter, report = child
    steps, frames = _PHASES[phase]
    lines = [f"{prefix}INFO 06-22 01:25:56 [gpu_model_runner.py:5092] {step}" for step in steps]
    lines += [f"{prefix}Process {title}:"]
    lines += [prefix + line for line in python_traceback(
        [("/usr/lib/python3.12/multiprocessing/process.py", "_bootstrap", "self.run()"),
         *((site + path, function, code) for path, function, code in frames)],
        error).splitlines()]
    lines += [reporter + line.format(site=site) for line in report]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(phase=st.sampled_from(sorted(_PHASES)), child=_CHILDREN, error=_INTERRUPTS,
       py=PYTHONS, site=SITE_PACKAGES)
def test_a_start_up_interrupted_from_outside_says_who_and_how_long(
        phase: str, child: tuple[str, str, str, list[str]], error: str, py: str,
        site: str) -> None:
    signature, fix = signature_advice(_interrupted_start(phase, child, error,
                                                         site.format(py=py)))
    assert signature == "engine-startup-interrupted"
    for knob in ("startupProbe", "--time", "VLLM_ENGINE_READY_TIMEOUT_S", "VLLM_CACHE_ROOT",
                 "-O0", "--enforce-eager"):
        assert knob in fix, knob


@settings(max_examples=30, deadline=None)
@given(phase=st.sampled_from(["compile", "profile"]), child=_CHILDREN,
       error=st.sampled_from([
           "AssertionError", "IndexError: list index out of range",
           "KeyError: 'arg0_1'",
           "TypeError: unsupported operand type(s) for *: 'SymInt' and 'NoneType'"]),
       py=PYTHONS, site=SITE_PACKAGES)
def test_an_error_raised_inside_torch_compile_keeps_the_compile_advice(
        phase: str, child: tuple[str, str, str, list[str]], error: str, py: str,
        site: str) -> None:
    # the same start-up and report, where Dynamo or Inductor raised: something failed to compile
    # (torch's module family, or, when the message names compiler internals such as SymInt, the
    # compile-internal-check family session 27 added); either way the compile advice
    signature, fix = signature_advice(_interrupted_start(phase, child, error, site.format(py=py)))
    assert signature in {"library-torch-compile-error", "torch-compile-internal-check-failed"}
    for knob in ("-O0", "--enforce-eager", "VLLM_CACHE_ROOT"):
        assert knob in fix, knob


@settings(max_examples=15, deadline=None)
@given(phase=st.sampled_from(sorted(_PHASES)), py=PYTHONS, site=SITE_PACKAGES)
def test_ctrl_c_that_stopped_the_server_too_is_no_interrupted_start(phase: str, py: str,
                                                                    site: str) -> None:
    from logsleuth.model import Verdict
    from logsleuth.pipeline import explain_text

    child = ("(EngineCore pid=3408798) ", "EngineCore", "(APIServer pid=3407862) ",
             ["Traceback (most recent call last):",
              '  File "/usr/lib/python3.12/asyncio/runners.py", line 157, in _on_sigint',
              "    raise KeyboardInterrupt()", "KeyboardInterrupt"])
    report = explain_text(_interrupted_start(phase, child, "KeyboardInterrupt",
                                             site.format(py=py)))
    assert report.verdict is Verdict.NO_FAILURE
