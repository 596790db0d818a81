"""Four classes of failure raised around vLLM rather than in it, each generated over its
members and the shapes a log gives it:

- an OpenAI-compatible Python client refusing one of vLLM's extra parameters as a keyword
  (openai 1.x resources, Python 3.10+'s qualified name or older Pythons' bare `create()`);
- a command-line program whose release predates a subcommand (argparse's positional
  `invalid choice`, any program, dest or metavar, quoted or unquoted choices);
- a compiled dependency refusing the installed version of a package it was built for (numba's
  NumPy, Python and llvmlite checks, SciPy's and pandas' ranges), in any process;
- an RL trainer placing its vLLM engine on devices the machine does not have (TRL's and
  ms-swift's device check, verl's rollout assertion).

Each asserts the class's advice and one of its knobs, and that near neighbours keep theirs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import python_traceback, signature_advice

_PY = st.sampled_from(["3.9", "3.10", "3.11", "3.12"])
_SITE = st.sampled_from(["/usr/local/lib/python{py}/dist-packages/",
                         "/home/u/.venv/lib/python{py}/site-packages/",
                         "/opt/conda/lib/python{py}/site-packages/"])
_VERSION = st.tuples(st.integers(0, 3), st.integers(0, 30)).map(lambda v: f"{v[0]}.{v[1]}")


# ---- OpenAI client: vLLM's extra parameters as keywords --------------------------------------

_VLLM_EXTRA = ["top_k", "min_p", "repetition_penalty", "min_tokens", "stop_token_ids",
               "skip_special_tokens", "include_stop_str_in_output", "ignore_eos", "guided_json",
               "guided_choice", "structured_outputs", "chat_template_kwargs",
               "add_generation_prompt", "truncate_prompt_tokens", "priority",
               "mm_processor_kwargs"]
_RESOURCES = [("chat.completions", "Completions"), ("completions", "Completions"),
              ("embeddings", "Embeddings"), ("responses", "Responses")]


@settings(max_examples=30, deadline=None)
@given(param=st.sampled_from(_VLLM_EXTRA), resource=st.sampled_from(_RESOURCES),
       asynchronous=st.booleans(), py=_PY, site=_SITE, framed=st.booleans())
def test_openai_client_refusing_vllm_parameters_gets_extra_body(
        param: str, resource: tuple[str, str], asynchronous: bool, py: str, site: str,
        framed: bool) -> None:
    attribute, name = resource
    qualified = f"{'Async' if asynchronous else ''}{name}.create"
    # Python 3.10 began to print the qualified name; before, only the function's own
    callee = qualified if py not in ("3.9",) else "create"
    error = f"TypeError: {callee}() got an unexpected keyword argument '{param}'"
    frames = [("/work/client.py", "<module>", f"out = client.{attribute}.create(model='m', "
               f"{param}=1)")]
    if framed:
        frames.append((site.format(py=py) + "openai/_utils/_utils.py", "wrapper",
                       "return func(*args, **kwargs)"))
    signature, fix = signature_advice(python_traceback(frames, error))
    assert signature == "openai-client-vllm-params-as-keywords"
    assert "extra_body" in fix


@pytest.mark.parametrize("param, name", [("max_new_tokens", "max_tokens"),
                                         ("num_return_sequences", "n"),
                                         ("eos_token_id", "stop_token_ids")])
def test_openai_client_refusing_hugging_face_names_gets_openais_names(param: str,
                                                                     name: str) -> None:
    error = f"TypeError: Completions.create() got an unexpected keyword argument '{param}'"
    frames = [("/work/client.py", "<module>", "client.chat.completions.create(model='m')")]
    signature, fix = signature_advice(python_traceback(frames, error))
    assert signature == "openai-client-vllm-params-as-keywords"
    assert f"`{param}`" in fix and f"`{name}`" in fix


@pytest.mark.parametrize("error, owner", [
    # vLLM's own offline API given Hugging Face's names: SamplingParams, not extra_body
    ("TypeError: LLM.generate() got an unexpected keyword argument 'max_new_tokens'",
     "sampling-options-not-sampling-params"),
    # an unrelated library's create() under an old Python, with no parameter vLLM adds
    ("TypeError: create() got an unexpected keyword argument 'retries'",
     "python-package-version-mismatch"),
])
def test_other_unexpected_keywords_keep_their_advice(error: str, owner: str) -> None:
    frames = [("/work/job.py", "<module>", "run()")]
    assert signature_advice(python_traceback(frames, error))[0] == owner


# ---- a program older than its subcommand ------------------------------------------------------

_PROGRAMS = [("TRL CLI", "trl", "command", ["chat", "dpo", "env", "grpo", "kto", "sft"],
              "vllm-serve"),
             ("vllm", "vllm", "subparser", ["serve", "complete", "chat"], "bench"),
             ("vllm", "vllm", "subparser", ["serve", "complete", "chat", "bench"], "run-batch"),
             ("vllm bench", "vllm bench", None, ["latency", "serve", "throughput"], "sweep"),
             # huggingface_hub's old CLI: prog `huggingface-cli`, subparsers without a dest
             ("huggingface-cli", "huggingface-cli <command> [<args>]", None,
              ["env", "login", "whoami", "logout", "repo", "upload", "scan-cache"], "download")]


@settings(max_examples=30, deadline=None)
@given(program=st.sampled_from(_PROGRAMS), quoted=st.booleans(), platform_line=st.booleans())
def test_an_unknown_subcommand_is_an_old_release(
        program: tuple[str, str, str | None, list[str], str], quoted: bool,
        platform_line: bool) -> None:
    label, command, dest, choices, wanted = program
    listed = ", ".join(f"'{c}'" if quoted else c for c in choices)
    # argparse names a subparser by its dest, or by its `{a,b}` metavar when it has none
    argument = dest or "{" + ",".join(choices) + "}"
    lines = ["INFO 04-02 08:41:19 [__init__.py:239] Automatically detected platform cuda."
             ] if platform_line else []
    lines += [f"usage: {command} [-h] {{{','.join(choices)}}} ...",
              f"{label}: error: argument {argument}: invalid choice: '{wanted}' "
              f"(choose from {listed})"]
    signature, fix = signature_advice("\n".join(lines) + "\n")
    assert signature == "cli-subcommand-unknown"
    assert "--help" in fix and "upgrade" in fix.lower()


@given(flag=st.sampled_from(["--dtype", "--kv-cache-dtype", "--load-format"]))
@settings(max_examples=5, deadline=None)
def test_a_flag_value_refused_is_not_a_subcommand(flag: str) -> None:
    log = ("usage: vllm serve [model_tag] [options]\n"
           f"vllm serve: error: argument {flag}: invalid choice: 'x9' (choose from 'auto', 'y')\n")
    assert signature_advice(log)[0] != "cli-subcommand-unknown"


# ---- a compiled dependency's version window ---------------------------------------------------

def _numba_message(kind: str, need: str, got: str) -> str:
    if kind == "llvmlite":
        return (f"ImportError: Numba requires at least version {need}.0 of llvmlite.\n"
                f"Installed version is {got}.0.\nPlease update llvmlite.")
    package, bound = {"numpy-max": ("NumPy", "less"), "numpy-min": ("NumPy", "greater"),
                      "python": ("Python", "greater")}[kind]
    return f"ImportError: Numba needs {package} {need} or {bound}. Got {package} {got}."


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(["numpy-max", "numpy-min", "python", "llvmlite"]), need=_VERSION,
       got=_VERSION, py=_PY, site=_SITE,
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=311) ERROR 02-20 01:36:08 [core.py:842] ",
                               "(EngineCore_0 pid=90) ERROR 09-03 12:00:16 [core.py:700] ",
                               "[rank0]: "]))
def test_numba_refusing_a_dependency_gets_the_version_window_advice(
        kind: str, need: str, got: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/v1/worker/gpu_model_runner.py", "<module>",
               "from vllm.v1.spec_decode.ngram_proposer import NgramProposer"),
              (root + "vllm/v1/spec_decode/ngram_proposer.py", "<module>", "from numba import jit"),
              (root + "numba/__init__.py", "<module>", "_ensure_critical_deps()")]
    signature, fix = signature_advice(python_traceback(frames, _numba_message(kind, need, got), prefix))
    assert signature == "dependency-version-window-refused"
    assert "numpy<" in fix.lower() and "numba" in fix.lower()


@pytest.mark.parametrize("error", [
    "ImportError: Pandas requires version '2.8.4' or newer of 'numexpr' (version '2.7.3' "
    "currently installed).",
    "ImportError: A NumPy version >=1.22.4 and <2.3.0 is required for this version of SciPy "
    "(detected version 2.3.1)",
])
def test_other_libraries_version_windows(error: str) -> None:
    frames = [("/work/prep.py", "<module>", "import pandas")]
    assert signature_advice(python_traceback(frames, error))[0] == "dependency-version-window-refused"


def test_numba_missing_is_a_missing_package_not_a_window() -> None:
    frames = [("/srv/venv/lib/python3.11/site-packages/vllm/v1/spec_decode/ngram_proposer.py",
               "<module>", "from numba import jit")]
    signature, _ = signature_advice(python_traceback(frames, "ModuleNotFoundError: No module named 'numba'"))
    assert signature != "dependency-version-window-refused"


# ---- an RL trainer's vLLM placement -----------------------------------------------------------

_TRL = ("ValueError: The requested device for vllm ({device}) is not available. You are likely "
        "using vLLM without restricting the number of GPUs for training. Set the `--num_processes` "
        "argument to a value lower than the number of GPUs available on your machine—typically, "
        "reducing it by one is sufficient. In your case: `--num_processes {fewer}`.")


@settings(max_examples=30, deadline=None)
@given(gpus=st.integers(1, 8), device_type=st.sampled_from(["cuda", "npu"]),
       shape=st.sampled_from(["oneline", "rank0", "plain"]), short=st.booleans())
def test_a_trainers_vllm_device_beyond_the_machine_gets_placement_advice(
        gpus: int, device_type: str, shape: str, short: bool) -> None:
    error = _TRL.format(device=f"{device_type}:{gpus}", fewer=gpus - 1)
    if short:  # forks that kept only the first sentence
        error = error.split(" You are")[0]
    if shape == "oneline":
        log = error + "\n"
    else:
        frames = [("/work/train_grpo.py", "<module>", "trainer = GRPOTrainer("),
                  ("/opt/venv/lib/python3.11/site-packages/trl/trainer/grpo_trainer.py",
                   "__init__", "raise ValueError(")]
        log = python_traceback(frames, error, "[rank0]: " if shape == "rank0" else "")
    signature, fix = signature_advice(log)
    assert signature == "trainer-vllm-placement-exceeds-devices"
    assert "vllm_device" in fix and "vllm_gpu_memory_utilization" in fix


def test_verls_rollout_tensor_parallel_assert_gets_placement_advice() -> None:
    frames = [("/opt/verl/verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py", "__init__",
               "assert tensor_parallel_size <= torch.distributed.get_world_size(), (")]
    error = "AssertionError: tensor parallel size should be less than or equal to the world size"
    signature, fix = signature_advice(python_traceback(frames, error, "(WorkerDict pid=77) "))
    assert signature == "trainer-vllm-placement-exceeds-devices"
    assert "tensor_model_parallel_size" in fix
