"""Classes whose advice must name the knob to change, from session 20's random development split
(each generated over its members, eras and call paths, with a near miss that keeps its own
advice):

- transformers taking a model_type vLLM registers itself ("'aimv2' is already used by a
  Transformers config"): pin transformers below the release that took it, or upgrade vLLM;
- torch_npu's device init failing in CANN's compile options (AclSetCompileopt, 500001): numpy 2
  or CANN's Python environment (`numpy<2.0`, `set_env.sh`);
- xformers refusing a misaligned custom attention bias (ALiBi models on old vLLM): upgrade vLLM,
  or pad the bias to a multiple of 8;
- attention heads not divisible by the TP size, in pydantic's wrapping too (`Value error, ...`);
- a tool-call parser a release's argparse does not list: a newer vLLM or the nightly build;
- an import name whose pip name differs (`fastchat` is `fschat`): the message's advice names
  the pip name;
- pip finding no file of a pinned requirement for the interpreter: a Python the release supports;
- a refused request seen only in the server's access line (`" 400 Bad Request`): the family of
  refused requests, with tool calling's server flags among its knobs."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import EventKind
from logsleuth.pipeline import explain_text
from logsleuth.remedy import default_phrasing
from logsleuth.signatures import default_signatures
from logsleuth.signatures.match import SYMPTOM_WEIGHT, Target
from v1log import python_traceback, signature_advice

from v1log import PYTHONS as _PY, SITE_PACKAGES as _SITE, TRACEBACK_PREFIXES as _PREFIX


# ---- a model_type vLLM registers that transformers now ships ----------------------------------

@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["aimv2", "ovis", "kimi_vl", "deepseek_vl_v2", "step3_vl",
                             "mlp_speculator"]),
       kind=st.sampled_from(["config", "model"]), py=_PY, site=_SITE,
       registrar=st.sampled_from(["vllm/transformers_utils/configs/ovis.py",
                                  "vllm/transformers_utils/configs/__init__.py",
                                  "acme_vllm_plugin/configs.py"]),
       entry=st.sampled_from([("/home/u/serve.py", "<module>", "from vllm import LLM"),
                              ("/usr/local/bin/vllm", "<module>",
                               "from vllm.entrypoints.cli.main import main")]))
def test_a_model_type_transformers_took_names_the_transformers_pin(
        name: str, kind: str, py: str, site: str, registrar: str,
        entry: tuple[str, str, str]) -> None:
    root = site.format(py=py)
    auto = "configuration_auto.py" if kind == "config" else "auto_factory.py"
    message = (f"ValueError: '{name}' is already used by a Transformers config, pick another "
               "name." if kind == "config"
               else f"ValueError: '{name}' is already used by a Transformers model.")
    frames = [entry,
              (root + "vllm/__init__.py", "<module>",
               "from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs"),
              (root + registrar, "<module>", f'AutoConfig.register("{name}", SomeConfig)'),
              (root + f"transformers/models/auto/{auto}", "register",
               "raise ValueError(msg)")]
    signature, fix = signature_advice(python_traceback(frames, message))
    assert signature == "transformers-config-name-already-registered"
    assert 'pip install "transformers<' in fix and "upgrade vLLM" in fix
    assert "exist_ok=True" in fix  # a plugin or remote code that registers the name


def test_transformers_too_old_for_the_model_type_keeps_its_own_advice() -> None:
    message = ("ValueError: The checkpoint you are trying to load has model type `aimv2` but "
               "Transformers does not recognize this architecture. This could be because of an "
               "issue with the checkpoint, or because your version of Transformers is out of date.")
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/config.py",
               "get_config", "config = AutoConfig.from_pretrained("),
              ("/usr/local/lib/python3.12/dist-packages/transformers/models/auto/"
               "configuration_auto.py", "from_pretrained", "raise ValueError(")]
    signature, _ = signature_advice(python_traceback(frames, message))
    assert signature != "transformers-config-name-already-registered"


# ---- torch_npu's init failing in CANN's compile options ----------------------------------------

_NPU_PREFIX = st.sampled_from(["", "E           ", "ERROR 04-07 01:39:08 [core.py:387] ",
                               "(VllmWorker rank=1 pid=2090) ERROR 04-07 01:39:08 "
                               "[multiproc_executor.py:470] "])


@settings(max_examples=25, deadline=None)
@given(option=st.sampled_from(["ACL_PRECISION_MODE", "ACL_OP_JIT_COMPILE",
                               "ACL_OP_COMPILER_CACHE_MODE"]),
       code=st.sampled_from(["500001", "500002", "100000"]),
       build=st.sampled_from(["build/CMakeFiles/torch_npu.dir/compiler_depend.ts:155",
                              "torch_npu/csrc/core/npu/NpuVariables.cpp:90"]),
       prefix=_NPU_PREFIX, py=_PY)
def test_npu_init_in_the_compile_options_names_numpy_and_the_cann_environment(
        option: str, code: str, build: str, prefix: str, py: str) -> None:
    site = f"/usr/local/python{py}/lib/python{py}/site-packages/"
    frames = [("/vllm-workspace/vllm-ascend/vllm_ascend/worker/worker_v1.py", "init_device",
               "NPUPlatform.set_device(self.device)"),
              (site + "torch_npu/npu/utils.py", "set_device",
               "torch_npu._C._npu_setDevice(device_id)"),
              (site + "torch_npu/npu/__init__.py", "_lazy_init", "torch_npu._C._npu_init()")]
    error = (f"RuntimeError: SetPrecisionMode:{build} NPU function error: "
             f"at_npu::native::AclSetCompileopt(aclCompileOpt::{option}, precision_mode), "
             f"error code is {code}\n"
             "[ERROR] 2025-04-07-01:39:08 (PID:2090, Device:0, RankID:-1) ERR00100 PTA call acl "
             "api failed")
    signature, fix = signature_advice(python_traceback(frames, error, prefix))
    assert signature == "ascend-npu-init-compile-options-failed"
    assert 'pip install "numpy<2.0"' in fix and "set_env.sh" in fix


def test_another_npu_call_at_init_keeps_the_runtime_code_advice() -> None:
    frames = [("/vllm-workspace/vllm-ascend/vllm_ascend/worker/worker_v1.py", "init_device",
               "NPUPlatform.set_device(self.device)")]
    error = ("RuntimeError: SetDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:68 NPU "
             "function error: c10_npu::SetDevice(device_id), error code is 507033")
    signature, _ = signature_advice(python_traceback(frames, error))
    assert signature == "ascend-npu-runtime-error-code"


# ---- xformers refusing a misaligned attention bias ---------------------------------------------

@settings(max_examples=25, deadline=None)
@given(model=st.sampled_from(["mpt.py", "bloom.py", "baichuan.py", "falcon.py"]), py=_PY,
       site=_SITE, prefix=_PREFIX,
       layer=st.sampled_from([("vllm/model_executor/layers/attention.py",
                               "multi_query_kv_attention"),
                              ("vllm/attention/backends/xformers.py",
                               "_run_memory_efficient_xformers_forward")]))
def test_a_misaligned_attention_bias_names_the_vllm_upgrade_and_the_padding(
        model: str, py: str, site: str, prefix: str, layer: tuple[str, str]) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/worker/worker.py", "execute_model", "output = self.model("),
              (root + "vllm/model_executor/models/" + model, "forward",
               "attn_output = self.attn(q, k, v, k_cache, v_cache, input_metadata,"),
              (root + layer[0], layer[1], "out = xops.memory_efficient_attention_forward("),
              (root + "xformers/ops/fmha/cutlass.py", "apply",
               "out, lse, rng_seed, rng_offset = cls.OPERATOR("),
              (root + "torch/_ops.py", "__call__", "return self._op(*args, **kwargs or {})")]
    signature, fix = signature_advice(
        python_traceback(frames, "RuntimeError: attn_bias is not correctly aligned", prefix))
    assert signature == "xformers-attn-bias-misaligned"
    assert "pip install -U vllm" in fix and "(N + 7) // 8 * 8" in fix and "ALiBi" in fix


def test_xformers_without_its_kernels_keeps_its_own_advice() -> None:
    frames = [("/opt/conda/lib/python3.10/site-packages/xformers/ops/fmha/__init__.py",
               "_memory_efficient_attention_forward", "op = _dispatch_fw(inp, False)")]
    error = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with "
             "inputs:\n     query       : shape=(1, 13, 32, 128) (torch.bfloat16)\n"
             "`cutlassF` is not supported because:\n    xFormers wasn't build with CUDA support")
    signature, _ = signature_advice(python_traceback(frames, error))
    assert signature == "xformers-no-operator-found"


# ---- attention heads not divisible by the TP size, in every wrapping --------------------------

_NOT_DIVIDING = [(heads, tp) for heads in (12, 28, 32, 40, 52, 64, 96) for tp in (3, 5, 6, 7, 8)
                 if heads % tp]


@settings(max_examples=30, deadline=None)
@given(pair=st.sampled_from(_NOT_DIVIDING),
       config=st.sampled_from(["VllmConfig", "ModelConfig", "ParallelConfig"]),
       form=st.sampled_from(["pydantic", "value-error-line", "plain"]),
       prefix=st.sampled_from(["", "(APIServer pid=1) "]))
def test_heads_not_divisible_by_tp_names_the_parallel_sizes_in_every_wrapping(
        pair: tuple[int, int], config: str, form: str, prefix: str) -> None:
    heads, tp = pair
    words = (f"Total number of attention heads ({heads}) must be divisible by tensor parallel "
             f"size ({tp}).")
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py",
               "create_engine_config", "config = VllmConfig(")]
    if form == "pydantic":
        error = (f"pydantic_core._pydantic_core.ValidationError: 1 validation error for {config}\n"
                 f"  Value error, {words} [type=value_error, input_value=ArgsKwargs((), {{}}), "
                 "input_type=ArgsKwargs]\n"
                 "    For further information visit https://errors.pydantic.dev/2.11/v/value_error")
    else:
        error = f"ValueError: {words}"
    log = python_traceback(frames, error, prefix) if form != "value-error-line" else \
        f"{prefix}ERROR 08-15 14:56:20 [core.py:700] ValueError: {words}\n"
    signature, fix = signature_advice(log)
    assert signature == "tp-size-not-dividing-heads"
    assert "--tensor-parallel-size" in fix and "--pipeline-parallel-size" in fix


# (a config check pydantic wraps, the signature that knows it): ValueError-only signatures too
_PYDANTIC_WRAPPED = [
    ("Total number of attention heads (64) must be divisible by tensor parallel size (3).",
     "tp-size-not-dividing-heads"),
    ("User-specified max_model_len (262144) is greater than the derived max_model_len "
     "(max_position_embeddings=131072 or model_max_length=None in model's config.json). To allow "
     "overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_"
     "MAX_MODEL_LEN must be used with extreme caution.", "max-model-len-exceeds-model-limit"),
]


@pytest.mark.parametrize("exception", ["Value error", "ValidationError", "ValueError"])
@pytest.mark.parametrize("words,wanted", _PYDANTIC_WRAPPED)
def test_pydantic_s_value_error_label_alone_is_the_wrapped_check(exception: str, words: str,
                                                                  wanted: str) -> None:
    """A paste that keeps only pydantic's `Value error, ...` line: whatever reads it as the error
    (its label as the exception), the check's signature answers."""
    root = explain_text(f"ValueError: {words}\n", signatures=default_signatures()).root_cause
    assert root is not None
    event = dataclasses.replace(root, exception=exception, message=words)
    best, _ = default_signatures().best([Target(event, 1.0, "root_cause")], {}, None)
    assert best is not None and best.id == wanted and best.score == 1.0


def test_another_label_is_no_value_error() -> None:
    words = "Total number of attention heads (64) must be divisible by tensor parallel size (3)."
    root = explain_text(f"ValueError: {words}\n", signatures=default_signatures()).root_cause
    assert root is not None
    event = dataclasses.replace(root, exception="Type error", message=words)
    best, _ = default_signatures().best([Target(event, 1.0, "root_cause")], {}, None)
    assert best is None or best.score < 1.0


def _pydantic_labels() -> list[str]:
    """The labels pydantic prints for a validator's exception, as the grammar's terminals read
    them (grammars/vllm.lark PYDANTIC_*: `/\\s*Value error, \\S.*/`)."""
    grammar = (Path(__file__).parent.parent / "grammars" / "vllm.lark").read_text("utf-8")
    labels = re.findall(r"^PYDANTIC_\w+(?:\.\d+)?: /\\s\*([^,/]+), ", grammar, re.M)
    assert len(labels) >= 2
    return labels


@pytest.mark.parametrize("label", _pydantic_labels())
@given(other=st.sampled_from(["TypeError", "KeyError", "RuntimeError", "OSError"]))
@settings(max_examples=10, deadline=None)
def test_a_label_is_the_class_the_grammar_reads_and_its_validation_error(label: str,
                                                                         other: str) -> None:
    """An event that carries a pydantic label as its exception (a reader that kept the label)
    is the class the grammar reads off the label's line and the ValidationError that holds such
    lines (causality.yaml indented_messages); no other class, and no label the grammar does not
    know."""
    from logsleuth.knowledge import default_causality
    from logsleuth.signatures.match import EXCEPTION_MISSED, _exception_factor

    causality = default_causality()
    named = parsed_exception(f"{label}, a check failed")
    root = explain_text("ValueError: a check failed\n").root_cause
    assert root is not None and named is not None
    event = dataclasses.replace(root, exception=label, kind=EventKind.EXCEPTION)
    for names in [(named,), ("pydantic_core._pydantic_core.ValidationError",),
                  ("ValidationError", other)]:
        assert _exception_factor(names, event, causality) == 1.0, names
    assert _exception_factor((other,), event, causality) == EXCEPTION_MISSED
    unknown = dataclasses.replace(event, exception=label.split()[0] + " mistake")
    assert _exception_factor((named, "ValidationError"), unknown, causality) == EXCEPTION_MISSED


def parsed_exception(text: str) -> str | None:
    from logsleuth.tokenize.grammar import parse_line

    return parse_line(text).exception


def test_layers_not_divisible_by_pp_is_not_the_heads_check() -> None:
    error = ("ValueError: Total number of hidden layers (61) must be divisible by pipeline "
             "parallel size (4).")
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/config.py",
               "verify_with_parallel_config", "raise ValueError(")]
    signature, _ = signature_advice(python_traceback(frames, error))
    assert signature != "tp-size-not-dividing-heads"


# ---- a tool-call parser the release's argparse does not list -----------------------------------

@settings(max_examples=25, deadline=None)
@given(parser=st.sampled_from(["glm45", "llama3_json", "qwen3_coder", "kimi_k2", "deepseek_v31"]),
       program=st.sampled_from(["api_server.py", "vllm serve", "vllm"]),
       listed=st.sampled_from(["'mistral', 'hermes'",
                               "'deepseek_v3', 'glm4_moe', 'hermes', 'pythonic', 'xlam'"]),
       usage=st.booleans())
def test_an_unlisted_tool_call_parser_names_a_newer_vllm_and_the_nightly_build(
        parser: str, program: str, listed: str, usage: bool) -> None:
    lines = [f"usage: {program} [-h] [--tool-call-parser TOOL_CALL_PARSER]"] if usage else []
    lines.append(f"{program}: error: argument --tool-call-parser: invalid choice: '{parser}' "
                 f"(choose from {listed})")
    signature, fix = signature_advice("\n".join(lines) + "\n")
    assert signature == "tool-call-parser-unknown"
    assert "upgrade vLLM" in fix and "https://wheels.vllm.ai/nightly" in fix


def test_another_flag_s_invalid_choice_keeps_the_argparse_family() -> None:
    signature, _ = signature_advice(
        "vllm serve: error: argument --dtype: invalid choice: 'fp16' (choose from 'auto', "
        "'half', 'float16', 'bfloat16', 'float', 'float32')\n")
    assert signature != "tool-call-parser-unknown"


# ---- an import name whose pip name differs -----------------------------------------------------

_RENAMED = {"fastchat": "fschat", "cv2": "opencv-python-headless", "yaml": "pyyaml",
            "PIL": "pillow", "sklearn": "scikit-learn", "awq": "autoawq", "pynvml": "nvidia-ml-py"}


@settings(max_examples=40, deadline=None)
@given(module=st.sampled_from(sorted(_RENAMED)),
       sub=st.sampled_from(["", ".model.model_adapter", ".conversation", ".utils"]),
       quote=st.sampled_from(["'", '"']))
def test_a_missing_module_is_installed_by_its_pip_name(module: str, sub: str, quote: str) -> None:
    advice = default_phrasing().implied_by(f"No module named {quote}{module}{sub}{quote}")
    assert advice is not None
    wanted = f"pip install -U {_RENAMED[module]}" if sub else f"pip install {_RENAMED[module]}"
    assert wanted in advice, advice
    assert f"`{module}`" in advice  # the module is still named as imported


@settings(max_examples=20, deadline=None)
@given(module=st.from_regex(r"[a-z]{3,8}_[a-z]{2,6}", fullmatch=True), sub=st.booleans())
def test_a_module_whose_pip_name_is_its_own_keeps_it(module: str, sub: bool) -> None:
    name = f"{module}.layers" if sub else module
    advice = default_phrasing().implied_by(f"No module named '{name}'")
    assert advice is not None and (f"pip install -U {module}" if sub
                                   else f"pip install {module}") in advice


@settings(max_examples=15, deadline=None)
@given(py=_PY, site=_SITE, module=st.sampled_from(sorted(_RENAMED)))
def test_the_report_of_a_missing_module_names_its_pip_name(py: str, site: str,
                                                           module: str) -> None:
    root = site.format(py=py)
    frames = [("/usr/lib/python3.10/runpy.py", "_run_code", "exec(code, run_globals)"),
              (root + "vllm/entrypoints/openai/api_server.py", "<module>",
               f"from {module}.model.model_adapter import get_conversation_template")]
    _, fix = signature_advice(python_traceback(
        frames, f"ModuleNotFoundError: No module named '{module}.model.model_adapter'"))
    assert _RENAMED[module] in fix


# ---- pip finding no file of a pin for the interpreter -----------------------------------------

@settings(max_examples=20, deadline=None)
@given(pin=st.sampled_from(["torch==2.1.2", "torch==2.4.0", "xformers==0.0.23.post1"]),
       offered=st.sampled_from(["2.2.0", "2.6.0, 2.7.0, 2.7.1", "none"]),
       build_deps=st.booleans(), vllm=st.sampled_from(["0.3.0", "0.6.3", "0.2.7"]))
def test_a_pin_without_a_file_for_the_interpreter_names_a_supported_python(
        pin: str, offered: str, build_deps: bool, vllm: str) -> None:
    indent = "      " if build_deps else ""
    lines = [f"Collecting vllm=={vllm}", f"  Using cached vllm-{vllm}.tar.gz (264 kB)"]
    if build_deps:
        lines += ["  Installing build dependencies ... error",
                  "  error: subprocess-exited-with-error", "  ",
                  "  × pip subprocess to install build dependencies did not run successfully.",
                  "  │ exit code: 1", "  ╰─> [4 lines of output]"]
    lines += [f"{indent}ERROR: Could not find a version that satisfies the requirement {pin} "
              f"(from versions: {offered})",
              f"{indent}ERROR: No matching distribution found for {pin}"]
    if build_deps:
        lines += ["      [end of output]"]
    signature, fix = signature_advice("\n".join(lines) + "\n")
    assert signature == "pip-install-failed"
    assert "python=3.10" in fix and "Python 3.10" in fix


# ---- a refused request seen only in the access log --------------------------------------------

def _access_symptom(line: str) -> Target:
    """The symptom event the pipeline makes of a failed answer's access line, carrying `line`."""
    report = explain_text('INFO:     10.0.0.4:33706 - "POST /v1/chat/completions HTTP/1.1" 500 '
                          "Internal Server Error\n", signatures=default_signatures())
    event = report.symptoms[0]
    found = re.search(r'/v1/\S+(?: HTTP/[\d.]+"?)? (\d{3})\b', line)
    assert found is not None
    code = found.group(1)
    return Target(dataclasses.replace(event, exception=f"HTTP {code}", message=line),
                  SYMPTOM_WEIGHT, "symptom")


@pytest.mark.parametrize("route", ["/v1/chat/completions", "/v1/completions", "/v1/responses"])
@pytest.mark.parametrize("code", ["400 Bad Request", "404 Not Found", "422 Unprocessable Entity"])
@pytest.mark.parametrize("shape", ['INFO:     172.30.0.4:34146 - "POST {route} HTTP/1.1" {code}',
                                   "2025-02-20 10:01:02 POST {route} {code}"])
def test_a_refused_request_in_the_access_log_is_the_refused_request_family(route: str,
                                                                           code: str,
                                                                           shape: str) -> None:
    line = shape.format(route=route, code=code)
    best, _ = default_signatures().best([_access_symptom(line)], {}, None)
    assert best is not None and best.id == "openai-request-rejected"
    assert "--enable-auto-tool-choice" in best.fix and "`hermes`" in best.fix


def test_a_failed_answer_in_the_access_log_is_not_a_refused_request() -> None:
    line = ('INFO:     172.30.0.4:34146 - "POST /v1/chat/completions HTTP/1.1" 500 Internal '
            "Server Error")
    best, _ = default_signatures().best([_access_symptom(line)], {}, None)
    assert best is None or best.id != "openai-request-rejected"


# ---- a flag and its value handed to argparse as one argument ----------------------------------
# `unrecognized arguments: --port 8000` for a flag the release has: a launcher (Python's
# subprocess list, Kubernetes `args:`, a compose `command:` list) passed "--port 8000" as one item.
# The advice says to give each its own item or join them with `=` (engine-config-invalid, step 10).

@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["vllm serve", "vllm", "api_server.py", "python -m vllm.entrypoints.openai"
                        ".api_server"]),
       st.sampled_from([("--config", "config.yaml"), ("--port", "8000"), ("--host", "0.0.0.0"),
                        ("--max-model-len", "4096"), ("--tensor-parallel-size", "2")]),
       st.booleans())
def test_a_known_flag_called_unrecognized_names_one_argument_per_item(
        program: str, flag: tuple[str, str], with_value: bool) -> None:
    name, value = flag
    shown = f"{name} {value}" if with_value else name
    report = explain_text(f"{program}: error: unrecognized arguments: {shown}\n",
                          signatures=default_signatures())
    assert report.signature is not None, shown
    # with the value shown, the exact signature cli-flag-and-value-in-one-argument; the flag
    # alone, the family's step 10: both say one item each, or joined with `=`
    fix = report.signature.fix
    assert "its own" in fix and "with `=`" in fix, (report.signature.id, shown)
