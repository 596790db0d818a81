"""Classes whose advice must name the remedy that holds for the whole class, from session 22's
known fix misses (each generated over its members, eras and launchers, with a near miss that
keeps its own advice):

- vLLM not installed in the environment that runs it: the interpreter a launcher or an
  application uses (`<venv>/bin/python -m vllm.entrypoints...`, runpy's one-line "Error while
  finding module specification ... (ModuleNotFoundError: No module named 'vllm')"), a script's
  `import vllm`, or a shell that finds no `vllm` program: install vLLM into that environment
  (the application's own dependencies) or launch with the Python that has it (vllm#9624);
- a quantization method a platform plugin registers refused by vLLM's command line or config
  (`--quantization ascend`: "invalid choice: 'ascend'", "Unknown quantization method: ascend"):
  the plugin's release that registers it (upgrade vllm-ascend, v0.9.0rc1 on; vllm-ascend's
  release notes), the plugin installed and active (`VLLM_PLUGINS`), or from v0.17.0rc1 no flag;
- a platform plugin's patch or subclass calling vLLM with another release's arguments (a
  TypeError of a call's arguments with the plugin's frames in the traceback): a matched pair from
  the plugin's compatibility matrix, or for a source build the exact vLLM commit the plugin's
  branch is verified against (vllm-ascend's versioning policy and installation docs);
- a launch the shell or the container runtime could not start (command not found, Permission
  denied, bad interpreter, exec format error): the launcher-command-not-runnable family names the
  remedy of each shape (the environment's PATH or full path, `chmod +x`, a recreated virtualenv,
  the image for the machine's architecture), for every program an exact signature does not know;
- with every exact signature withheld, argparse's refusal of a plugin's quantization method still
  names the plugin's release (cli-argument-value-rejected), and the server's LoRA settings
  refusing an adapter (the registry without `--enable-lora`, a malformed `--lora-modules`, every
  slot pinned) get the LoRA family's remedies (lora-limits);
- a framework refusing the installed vLLM by its own version check, in any framework's words
  ("only supports vllm >= X", "vllm version X not supported", "requires vllm>=X"): the pair the
  framework pins (its extra), or the framework upgraded (framework-refuses-vllm-version);
- a quantization method, algorithm or scheme this vLLM does not know, in the words of each code
  path that looks one up (vLLM's message index: "Unknown quantization method/scheme/strategy",
  "Unknown ModelOpt quant algo", "unknown quantization name"): upgrade vLLM, or the name the
  checkpoint was made with (quantization-scheme-unknown);
- the container engine refusing to give a container its accelerator (no GPU device driver, an
  unregistered runtime, a device node the host lacks): the vendor's container toolkit or runtime
  registered with the daemon, or the device nodes each platform needs
  (container-accelerator-not-provided);
- a version string packaging cannot parse (`Invalid version: 'dev'`, a tagless source build of
  vLLM read by a plugin): a clone with its tags or a release, and vllm-ascend's `VLLM_VERSION`
  (package-version-string-unparsable)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures
from v1log import PYTHONS as _PY, SITE_PACKAGES as _SITE, python_traceback, signature_advice

# ---- vLLM not installed where it runs -------------------------------------------------------------

_INTERPRETERS = st.sampled_from([
    "/home/azureuser/app/backend/.venv/bin/python", "/usr/bin/python3",
    "/opt/conda/envs/serve/bin/python", "/root/miniconda3/envs/app/bin/python3.11",
    "C:\\Users\\me\\proj\\.venv\\Scripts\\python.exe", "python3"])
_ENTRYPOINTS = st.sampled_from([
    "vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server",
    "vllm.entrypoints.cli.main", "vllm.scripts"])
_STAMPS = st.sampled_from(["", "[14:41:59] ", "2025-08-03 10:11:12,345 - backend - ERROR - ",
                           "stderr: "])


@settings(max_examples=30, deadline=None)
@given(python=_INTERPRETERS, entry=_ENTRYPOINTS, stamp=_STAMPS)
def test_runpy_finding_no_vllm_names_installing_it_where_it_runs(
        python: str, entry: str, stamp: str) -> None:
    log = (f"{stamp}{python}: Error while finding module specification for '{entry}' "
           "(ModuleNotFoundError: No module named 'vllm')\n")
    signature, fix = signature_advice(log)
    assert signature == "vllm-not-installed-in-environment"
    assert "install vllm" in fix.lower() and "dependencies" in fix


@settings(max_examples=20, deadline=None)
@given(script=st.sampled_from(["/home/u/app/run.py", "serve.py", "/workspace/eval/gen.py"]),
       line=st.sampled_from(["from vllm import LLM, SamplingParams", "import vllm",
                             "from vllm.entrypoints.openai.api_server import run_server"]),
       error=st.sampled_from(["ModuleNotFoundError: No module named 'vllm'",
                              "ImportError: No module named vllm"]))
def test_a_script_importing_no_vllm_names_installing_it(script: str, line: str, error: str) -> None:
    signature, fix = signature_advice(python_traceback([(script, "<module>", line)], error))
    assert signature == "vllm-not-installed-in-environment"
    assert "install vllm" in fix.lower()


@settings(max_examples=20, deadline=None)
@given(line=st.sampled_from([
    "bash: vllm: command not found", "./serve.sh: line 4: vllm: command not found",
    "/bin/sh: 1: vllm: not found", "sh: 1: exec: vllm: not found", "zsh: command not found: vllm",
    "fish: Unknown command: vllm",
    "Error: failed to create containerd task: failed to create shim task: OCI runtime create "
    "failed: runc create failed: unable to start container process: exec: \"vllm\": executable "
    "file not found in $PATH: unknown"]),
       echo=st.sampled_from(["", "+ vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000\n"]))
def test_a_shell_finding_no_vllm_program_names_installing_it(line: str, echo: str) -> None:
    signature, fix = signature_advice(echo + line + "\n")
    assert signature == "vllm-not-installed-in-environment"
    assert "install vllm" in fix.lower()


@settings(max_examples=10, deadline=None)
@given(module=st.sampled_from(["vllm.entrypoints", "vllm.engine.arg_utils", "vllm._C",
                               "vllm_ascend", "vllm_flash_attn"]))
def test_a_missing_part_or_sibling_of_an_installed_vllm_is_another_failure(module: str) -> None:
    log = ("/home/u/env/bin/python: Error while finding module specification for "
           f"'vllm.entrypoints.openai_server' (ModuleNotFoundError: No module named '{module}')\n")
    signature, _ = signature_advice(log)
    assert signature != "vllm-not-installed-in-environment"


def test_a_ray_worker_without_vllm_keeps_the_ray_advice() -> None:
    site = "/opt/ray-env/lib/python3.12/site-packages/ray/_private/serialization.py"
    frames = [(site, "deserialize_objects", "obj = self._deserialize_object(data, metadata)"),
              (site, "_deserialize_pickle5_data", "obj = pickle.loads(in_band)")]
    log = python_traceback(frames, "ModuleNotFoundError: No module named 'vllm'",
                           "(TemporaryActor pid=1495807) ")
    signature, _ = signature_advice(log)
    assert signature == "ray-worker-environment-lacks-package"


# ---- a quantization method only a platform plugin registers -------------------------------------

# vLLM's built-in methods as --quantization lists them, in releases of three eras (its
# quantization package's QUANTIZATION_METHODS / QuantizationMethods)
_BUILT_IN = st.sampled_from([
    "'aqlm', 'awq', 'deepspeedfp', 'tpu_int8', 'fp8', 'fbgemm_fp8', 'modelopt', 'marlin', "
    "'gguf', 'gptq_marlin_24', 'gptq_marlin', 'awq_marlin', 'gptq', 'compressed-tensors', "
    "'bitsandbytes', 'qqq', 'hqq', 'experts_int8', 'neuron_quant', 'ipex', None",
    "'aqlm', 'awq', 'deepspeedfp', 'tpu_int8', 'fp8', 'ptpc_fp8', 'fbgemm_fp8', 'modelopt', "
    "'nvfp4', 'marlin', 'gguf', 'gptq_marlin_24', 'gptq_marlin', 'awq_marlin', 'gptq', "
    "'compressed-tensors', 'bitsandbytes', 'qqq', 'hqq', 'experts_int8', 'neuron_quant', 'ipex', "
    "'quark', 'moe_wna16', None",
    "'awq', 'deepspeedfp', 'tpu_int8', 'fp8', 'ptpc_fp8', 'fbgemm_fp8', 'modelopt', "
    "'modelopt_fp4', 'bitblas', 'gguf', 'gptq_marlin_24', 'gptq_marlin', 'gptq_bitblas', "
    "'awq_marlin', 'gptq', 'compressed-tensors', 'bitsandbytes', 'hqq', 'experts_int8', 'ipex', "
    "'quark', 'moe_wna16', 'torchao', 'auto-round', 'rtn', 'inc', 'mxfp4', None"])
_PLUGIN_LINES = st.sampled_from([
    "",
    "INFO 05-20 08:12:40 [__init__.py:30] Available plugins for group vllm.platform_plugins:\n"
    "INFO 05-20 08:12:40 [__init__.py:32] name=ascend, value=vllm_ascend:register\n"
    "INFO 05-20 08:12:40 [__init__.py:198] Platform plugin ascend is activated\n",
    "INFO 09-09 13:13:55 __init__.py:44] plugin ascend loaded.\n"
    "INFO 09-09 13:13:55 __init__.py:198] Platform plugin ascend is activated\n"])


@settings(max_examples=30, deadline=None)
@given(built_in=_BUILT_IN, plugin=_PLUGIN_LINES,
       usage=st.sampled_from([("usage: vllm serve [model_tag] [options]", "vllm serve"),
                              ("usage: vllm serve <model_tag> [options]", "vllm serve"),
                              ("usage: api_server.py [-h] [--host HOST] [--port PORT]",
                               "api_server.py")]))
def test_a_plugin_quantization_choice_refused_names_the_plugin_release(
        built_in: str, plugin: str, usage: tuple[str, str]) -> None:
    log = (plugin + usage[0] + "\n" + f"{usage[1]}: error: argument --quantization/-q: invalid "
           f"choice: 'ascend' (choose from {built_in})\n")
    signature, fix = signature_advice(log)
    assert signature == "platform-plugin-quantization-choice-missing"
    assert "upgrade vllm-ascend" in fix and "v0.9.0rc1" in fix
    assert "VLLM_PLUGINS" in fix and "v0.17.0rc1" in fix


@settings(max_examples=10, deadline=None)
@given(py=st.sampled_from(["3.9", "3.10", "3.11"]),
       error=st.sampled_from([
           "ValueError: Unknown quantization method: ascend. Must be one of ['aqlm', 'awq', "
           "'fp8', 'gptq', 'compressed-tensors', 'bitsandbytes'].",
           "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
           "  Value error, Unknown quantization method: ascend. Must be one of ['awq', 'fp8', "
           "'gptq']. [type=value_error, input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]"]))
def test_the_python_path_of_the_same_method_names_the_plugin_release(py: str, error: str) -> None:
    site = f"/usr/local/python{py}/lib/python{py}/site-packages/vllm/"
    frames = [("/home/u/run_w8a8.py", "<module>", 'llm = LLM(model=path, quantization="ascend")'),
              (site + "engine/arg_utils.py", "create_engine_config",
               "model_config = self.create_model_config()"),
              (site + "config.py", "_verify_quantization", "raise ValueError(")]
    signature, fix = signature_advice(python_traceback(frames, error))
    assert signature == "platform-plugin-quantization-choice-missing"
    assert "upgrade vllm-ascend" in fix


@settings(max_examples=10, deadline=None)
@given(value=st.sampled_from(["fp16", "int8", "ascend_w8a8", "w8a8", "AWQ"]), built_in=_BUILT_IN)
def test_another_refused_quantization_value_keeps_the_family(value: str, built_in: str) -> None:
    log = ("usage: vllm serve [model_tag] [options]\n"
           f"vllm serve: error: argument --quantization/-q: invalid choice: '{value}' "
           f"(choose from {built_in})\n")
    signature, _ = signature_advice(log)
    assert signature == "cli-argument-value-rejected"


# ---- a platform plugin and vLLM that are not a matched pair --------------------------------------

_PLUGIN_ROOTS = st.sampled_from([
    "/usr/local/python3.11.13/lib/python3.11/site-packages/", "/vllm-workspace/vllm-ascend/",
    "/usr/local/lib/python3.10/dist-packages/", "/workspace/vllm-gaudi/"])
_PLUGIN_FILES = st.sampled_from([
    ("vllm_ascend/patch/platform/patch_kv_cache_coordinator.py", "get_kv_cache_coordinator"),
    ("vllm_ascend/patch/worker/patch_distributed.py", "init_model_parallel_group"),
    ("vllm_ascend/worker/model_runner_v1.py", "initialize_kv_cache"),
    ("vllm_gaudi/v1/worker/hpu_model_runner.py", "load_model"),
    ("vllm_spyre/v1/worker/spyre_worker.py", "compile_or_warm_up_model"),
    ("tpu_inference/runner/tpu_runner.py", "capture_model")])
_CROSSINGS = st.sampled_from([
    "{fn}() got an unexpected keyword argument 'max_num_batched_tokens'",
    "{fn}() got an unexpected keyword argument 'enable_caching'",
    "{fn}() missing 1 required positional argument: 'kv_cache_config'",
    "{fn}() takes 3 positional arguments but 4 were given"])


@settings(max_examples=40, deadline=None)
@given(plugin_root=_PLUGIN_ROOTS, plugin=_PLUGIN_FILES, crossing=_CROSSINGS, site=_SITE, py=_PY,
       prefix=st.sampled_from(["", "(EngineCore pid=403) ERROR 07-30 17:17:29 [core.py:1231] ",
                               "ERROR 03-28 09:41:15 [core.py:291] "]))
def test_a_plugin_calling_vllm_with_another_releases_arguments_names_the_matched_pair(
        plugin_root: str, plugin: tuple[str, str], crossing: str, site: str, py: str,
        prefix: str) -> None:
    root = site.format(py=py)
    path, function = plugin
    frames = [(root + "vllm/v1/engine/core.py", "__init__", "self.scheduler = Scheduler("),
              (root + "vllm/v1/core/kv_cache_manager.py", "__init__",
               "self.coordinator = get_kv_cache_coordinator("),
              (plugin_root + path, function, f"return _orig_{function}(**orig_kwargs)")]
    log = python_traceback(frames, "TypeError: " + crossing.format(fn=function), prefix)
    signature, fix = signature_advice(log)
    assert signature == "platform-plugin-vllm-call-mismatch"
    assert "vllm-main-verified.commit" in fix and "compatibility matrix" in fix
    assert "inspect.signature" in fix


@settings(max_examples=10, deadline=None)
@given(crossing=_CROSSINGS, site=_SITE, py=_PY)
def test_the_same_call_error_without_a_plugin_frame_is_another_failure(
        crossing: str, site: str, py: str) -> None:
    root = site.format(py=py)
    frames = [("/home/u/bench.py", "<module>", "llm = LLM(model=path, enable_caching=True)"),
              (root + "vllm/entrypoints/llm.py", "__init__", "engine_args = EngineArgs(")]
    signature, _ = signature_advice(
        python_traceback(frames, "TypeError: " + crossing.format(fn="EngineArgs.__init__")))
    assert signature != "platform-plugin-vllm-call-mismatch"


# ---- a launch the shell or the container runtime could not start -------------------------------

_PROGRAMS = st.sampled_from(["huggingface-cli", "nvidia-smi", "ray", "python3.11", "lmcache_server"])


@settings(max_examples=30, deadline=None)
@given(program=_PROGRAMS, shape=st.sampled_from([
    ("bash: {p}: command not found", "not found"), ("/bin/sh: 1: {p}: not found", "not found"),
    ("./start.sh: line 7: {p}: command not found", "not found"),
    ("bash: ./serve.sh: Permission denied", "chmod +x"),
    ("/bin/sh: 1: ./start.sh: Permission denied", "chmod +x"),
    ("bash: /opt/venv/bin/{p}: /opt/venv/bin/python3: bad interpreter: No such file or directory",
     "--force-reinstall"),
    ("/usr/bin/env: 'python3': No such file or directory", "#!"),
    ("exec /usr/local/bin/{p}: exec format error", "--platform")]),
       echo=st.sampled_from(["", "+ ./start.sh --port 8000\n"]))
def test_a_launch_the_shell_could_not_start_names_the_remedy_of_its_shape(
        program: str, shape: tuple[str, str], echo: str) -> None:
    line, remedy = shape
    signature, fix = signature_advice(echo + line.format(p=program) + "\n")
    assert signature == "launcher-command-not-runnable"
    assert remedy in fix and "PATH" in fix


@settings(max_examples=10, deadline=None)
@given(path=st.sampled_from(["/tmp/tmpa1b2c3.json", "/root/.triton/cache/x/kernel.json",
                             "/models/llama/config.json"]))
def test_a_programs_own_missing_file_is_not_a_launch_that_failed(path: str) -> None:
    frames = [("/usr/local/lib/python3.10/dist-packages/triton/runtime/cache.py", "put",
               "os.replace(temp_path, filepath)")]
    report = explain_text(python_traceback(
        frames, f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'"),
        signatures=default_signatures())
    assert report.signature is None or report.signature.id != "launcher-command-not-runnable"


# ---- families alone: a plugin's quantization method refused -------------------------------------

@settings(max_examples=10, deadline=None)
@given(built_in=_BUILT_IN, plugin=_PLUGIN_LINES)
def test_without_exact_signatures_a_plugin_choice_refused_still_names_the_plugin_release(
        built_in: str, plugin: str) -> None:
    families = SignatureSet([s for s in default_signatures() if s.kind is SignatureKind.FAMILY])
    log = (plugin + "usage: vllm serve [model_tag] [options]\nvllm serve: error: argument "
           f"--quantization/-q: invalid choice: 'ascend' (choose from {built_in})\n")
    report = explain_text(log, signatures=families)
    assert report.signature is not None and report.signature.id == "cli-argument-value-rejected"
    assert "upgrade vllm-ascend" in report.signature.fix and "VLLM_PLUGINS" in report.signature.fix


# ---- families alone: the server's LoRA settings refuse an adapter ------------------------------

def _families() -> SignatureSet:
    return SignatureSet([s for s in default_signatures() if s.kind is SignatureKind.FAMILY])


@settings(max_examples=20, deadline=None)
@given(case=st.sampled_from([
    ("RuntimeError: The OpenAIModelRegistry has no LoRA support.", "--enable-lora"),
    ("RuntimeError: All items are pinned, cannot remove oldest from the cache.", "--max-cpu-loras"),
    ("RuntimeError: All items are pinned, cannot remove oldest from the cache.", "remove_lora")]),
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:31 [core.py:708] ",
                               "(APIServer pid=4000) ERROR 02-05 10:12:00 [serving_chat.py:257] "]),
       site=_SITE, py=_PY)
def test_without_exact_signatures_lora_settings_name_their_knobs(
        case: tuple[str, str], prefix: str, site: str, py: str) -> None:
    error, knob = case
    root = site.format(py=py)
    frames = [(root + "vllm/lora/worker_manager.py", "add_adapter",
               "self._adapter_manager.activate_adapter(lora_request.lora_int_id)"),
              (root + "vllm/utils/cache.py", "popitem", "return popitem(*args, **kwargs)")]
    report = explain_text(python_traceback(frames, error, prefix), signatures=_families())
    assert report.signature is not None and report.signature.id == "lora-limits"
    assert knob in report.signature.fix


@settings(max_examples=10, deadline=None)
@given(value=st.sampled_from(["sql-adapter", "sql=/a/sql,chat=/a/chat", "'{name: sql}'"]))
def test_without_exact_signatures_a_malformed_lora_modules_names_its_format(value: str) -> None:
    log = (f"usage: vllm serve <model_tag> [options]\n"
           f"vllm serve: error: Invalid JSON format for --lora-modules: {value}\n")
    report = explain_text(log, signatures=_families())
    assert report.signature is not None and report.signature.id == "lora-limits"
    assert "name=path" in report.signature.fix and "base_model_name" in report.signature.fix


# ---- a framework refusing the installed vLLM ----------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(framework=st.sampled_from(["openrlhf", "verl", "skyrl_train", "nemo_rl", "areal"]),
       words=st.sampled_from([
           "AssertionError: {F} only supports vllm >= 0.8.5, got 0.7.3",
           "ValueError: vllm version 0.6.1 not supported. Currently supported versions are 0.8.2",
           "ImportError: {F} requires vllm>=0.10.2, but 0.9.2 is installed",
           "RuntimeError: Unsupported vLLM version 0.5.4 for {F}"]),
       site=_SITE, py=_PY, withheld=st.booleans())
def test_a_framework_refusing_the_installed_vllm_names_the_pair_it_pins(
        framework: str, words: str, site: str, py: str, withheld: bool) -> None:
    root = site.format(py=py)
    frames = [("/workspace/train.py", "<module>", "engines = create_vllm_engines(cfg)"),
              (root + f"{framework}/rollout/vllm_engine.py", "create_vllm_engines",
               "assert_vllm_version(vllm.__version__)")]
    database = _families() if withheld else default_signatures()
    report = explain_text(python_traceback(frames, words.format(F=framework)),
                          signatures=database)
    assert report.signature is not None
    assert report.signature.id in {"framework-refuses-vllm-version",
                                   "framework-vllm-version-check-failed"}
    assert "upgrade" in report.signature.fix.lower()
    assert "DISABLE_VERSION_CHECK" in report.signature.fix


@settings(max_examples=10, deadline=None)
@given(package=st.sampled_from(["transformers", "torch", "flashinfer-python"]))
def test_vllm_refusing_its_own_dependency_is_not_a_framework_refusing_vllm(package: str) -> None:
    log = python_traceback(
        [("/usr/local/lib/python3.12/dist-packages/vllm/platforms/cuda.py", "<module>",
          "check_version()")], f"ImportError: vLLM requires {package}>=4.56.0, found 4.51.3")
    report = explain_text(log, signatures=_families())
    assert report.signature is None or report.signature.id != "framework-refuses-vllm-version"


# ---- a quantization name this vLLM does not know -------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(words=st.sampled_from([
    "Unknown quantization method: {n}. Must be one of ['awq', 'fp8', 'gptq'].",
    "Unknown quantization: {n}. Must be one of ['awq', 'fp8'].", "Unknown quantization scheme {n}",
    "Unknown quantization strategy {n}", "Unknown ModelOpt quant algo: {n}",
    "unknown quantization name {n}; expected one of ['fp8', 'nvfp4']"]),
       name=st.sampled_from(["W4A8_MXFP4_FP8", "mxfp6", "nvfp4_block", "int3"]),
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=812) ERROR 11-02 09:14:21 [core.py:843] "]),
       site=_SITE, py=_PY)
def test_without_exact_signatures_an_unknown_quantization_name_names_upgrading(
        words: str, name: str, prefix: str, site: str, py: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/engine/arg_utils.py", "create_engine_config",
               "model_config = self.create_model_config()"),
              (root + "vllm/config/model.py", "_verify_quantization",
               "quant_cfg = self._parse_quant_hf_config(hf_config)")]
    report = explain_text(python_traceback(frames, "ValueError: " + words.format(n=name), prefix),
                          signatures=_families())
    assert report.signature is not None and report.signature.id == "quantization-scheme-unknown"
    assert "pip install -U vllm" in report.signature.fix
    assert "--quantization" in report.signature.fix


@settings(max_examples=10, deadline=None)
@given(error=st.sampled_from(["ValueError: Unknown quantization format: mixed-precision-v2",
                              "ValueError: Unknown unquantized MoE backend: triton_v2",
                              "ValueError: Unknown TurboQuant cache dtype: q3. Valid presets: q4"]))
def test_other_unknown_names_are_not_an_unknown_quantization_scheme(error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/compressed_tensors/config/base.py",
               "__init__", "raise ValueError(msg)")]
    report = explain_text(python_traceback(frames, error), signatures=default_signatures())
    assert report.signature is None or report.signature.id != "quantization-scheme-unknown"


# ---- the container engine refusing the accelerator ----------------------------------------------

@settings(max_examples=20, deadline=None)
@given(refusal=st.sampled_from([
    'could not select device driver "" with capabilities: [[gpu]].',
    "Unknown runtime specified habana.", "unknown or invalid runtime name: nvidia",
    'error gathering device information while adding custom device "/dev/davinci3": no such '
    "file or directory",
    "failed to create task for container: failed to create shim task: OCI runtime create failed: "
    "runc create failed: unable to start container process: error during container init: error "
    "running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as "
    "'legacy' nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown"]),
       withheld=st.booleans(), see=st.sampled_from(["", "See 'docker run --help'.\n"]))
def test_a_container_refused_its_accelerator_names_the_runtime_to_register(
        refusal: str, withheld: bool, see: str) -> None:
    log = f"docker: Error response from daemon: {refusal}\n{see}"
    report = explain_text(log, signatures=_families() if withheld else default_signatures())
    assert report.signature is not None
    assert report.signature.id in {"container-accelerator-not-provided",
                                   "container-runtime-not-registered"}
    assert "nvidia-container-toolkit" in report.signature.fix
    assert "daemon.json" in report.signature.fix


def test_a_port_taken_on_the_host_is_not_a_missing_accelerator() -> None:
    log = ("docker: Error response from daemon: driver failed programming external connectivity "
           "on endpoint vllm: Bind for 0.0.0.0:8000 failed: port is already allocated.\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.id != "container-accelerator-not-provided"


# ---- a version string that does not parse -------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(value=st.sampled_from(["dev", "", "unknown", "0.1.dev1+g54503ecec.d20260730 (local)",
                              "main"]),
       caller=st.sampled_from(["vllm_ascend/utils.py", "vllm_gaudi/utils.py",
                               "verl/utils/import_utils.py"]),
       site=_SITE, py=_PY, withheld=st.booleans())
def test_an_unparsable_version_names_a_tagged_build_and_vllm_version(
        value: str, caller: str, site: str, py: str, withheld: bool) -> None:
    root = site.format(py=py)
    frames = [(root + caller, "vllm_version_is", "return Version(vllm.__version__) == Version(v)"),
              (root + "packaging/version.py", "__init__",
               'raise InvalidVersion(f"Invalid version: {version!r}")')]
    log = python_traceback(frames, f"packaging.version.InvalidVersion: Invalid version: '{value}'")
    report = explain_text(log, signatures=_families() if withheld else default_signatures())
    assert report.signature is not None
    assert report.signature.id == "package-version-string-unparsable"
    assert "VLLM_VERSION" in report.signature.fix and "git fetch --tags" in report.signature.fix
