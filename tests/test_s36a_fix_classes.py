"""Classes behind the cold fix misses of sigs-a's session-36 sample of projects that embed or
launch vLLM (s36a-* tuning cases), each generated over its wordings and the ways a log shows it,
with near misses:

- a weight-name KeyError that vLLM's engine core restates for a framework's collective_rpc
  ("Call to collective_rpc method failed: 'visual.patch_embed.proj.weight'", RL weight sync):
  weight-name-not-in-model, whose fix names the transformers release that renamed the weights;
  other collective_rpc failures stay worker-rpc-method-failed's;
- LLaMA-Factory refusing its vLLM backend outside API, CLI and Web, in both releases' words
  ("vLLM backend ..." and "vLLM/SGLang backend ..."): the LLaMA-Factory family, whose fix names
  scripts/vllm_infer.py for batch prediction;
- a framework's own Ray task or actor that reserved no GPU ("Current node has no GPU available"
  under lighteval's or OpenRLHF's process): ray-no-gpu-on-driver-node, whose fix says the task
  must reserve `num_gpus`;
- a prompt exactly as long as max_model_len under the V1 engine (an evaluation harness's window):
  decoder-prompt-exceeds-max-model-len, whose fix names the harness's `max_length` and
  VLLM_USE_V1=0; transformers' own generate check is not it;
- a module missing from a framework's per-worker virtualenv (NeMo-RL): missing-optional-package,
  whose fix names NRL_FORCE_REBUILD_VENVS; a vLLM module a framework imports is not it;
- KServe's huggingfaceserver and lighteval in the framework knob table: the Hub family's
  `--model` becomes KServe's `--model_dir` only when the traceback runs through huggingfaceserver.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_s34_fix_classes import SHAPES, _shaped
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice


# ---- a weight-name KeyError restated for a framework's collective_rpc ----------------------------

_WEIGHT_NAMES = ["visual.patch_embed.proj.weight", "visual.blocks.0.attn.qkv.bias",
                 "model.language_model.layers.3.mlp.down_proj.weight",
                 "language_model.model.embed_tokens.weight",
                 "model.layers.11.self_attn.qkv_proj.weight_scale", "lm_head.weight"]
# Who prints the restatement: the caller's own line, a Ray actor's, an RL trainer's rank.
_RPC_PREFIXES = ["", "(LLMRayActor pid=585804) ", "(WorkerDict pid=23161) ",
                 "(ActorWorker(actor_infer-0) pid=14820, ip=33.108.200.75) ", "[rank0]: "]


@settings(max_examples=50, deadline=None)
@given(name=st.sampled_from(_WEIGHT_NAMES), cls=st.sampled_from(["Exception", "RuntimeError"]),
       quote=st.sampled_from(["'", '"']), prefix=st.sampled_from(_RPC_PREFIXES))
def test_a_weight_name_restated_by_collective_rpc_names_the_transformers_release(
        name: str, cls: str, quote: str, prefix: str) -> None:
    log = f"{prefix}{cls}: Call to collective_rpc method failed: {quote}{name}{quote}\n"
    sid, fix = signature_advice(log)
    assert sid == "weight-name-not-in-model", log
    assert "transformers<4.52" in fix and "collective_rpc" in fix, fix


@pytest.mark.parametrize("error, not_it", [
    ("Exception: Call to collective_rpc method failed: 'Worker' object has no attribute "
     "'update_weight'", "the method is missing: no worker extension"),
    ("Exception: Call to collective_rpc method failed: 'NoneType' object is not subscriptable",
     "another failure inside the method"),
    ("Exception: Call to collective_rpc method failed: 'cuda'", "a quoted word, no parameter"),
    ("Exception: Call to collective_rpc method failed: 'model.layers'", "a module, no parameter"),
])
def test_other_collective_rpc_failures_are_not_a_weight_name(error: str, not_it: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "weight-name-not-in-model", not_it


# ---- LLaMA-Factory refusing its vLLM backend for a training or eval run ---------------------------

_LF_REFUSALS = ["vLLM backend is only available for API, CLI and Web.",
                "vLLM/SGLang backend is only available for API, CLI and Web."]
_LF_FRAMES = [("{site}llamafactory/train/tuner.py", "_training_function",
               "model_args, data_args, training_args, finetuning_args, generating_args = "
               "get_train_args(args)"),
              ("{site}llamafactory/hparams/parser.py", "get_train_args",
               'raise ValueError("vLLM/SGLang backend is only available for API, CLI and Web.")')]


@settings(max_examples=30, deadline=None)
@given(refusal=st.sampled_from(_LF_REFUSALS), shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES,
       prefix=st.sampled_from(["", "[rank0]: "]))
def test_llamafactory_backend_refusal_in_either_wording_names_vllm_infer_script(
        refusal: str, shape: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root), function, code) for path, function, code in _LF_FRAMES]
    log = _shaped(f"ValueError: {refusal}", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "llamafactory-vllm-backend-arguments-rejected", log
    assert "scripts/vllm_infer.py" in fix, fix


@pytest.mark.parametrize("error", [
    "ValueError: vLLM backend is not available on this platform.",
    "ValueError: Backend is only available for API, CLI and Web.",
])
def test_other_backend_messages_are_not_llamafactory_refusals(error: str) -> None:
    sid, _ = signature_advice(error + "\n")
    assert sid != "llamafactory-vllm-backend-arguments-rejected"


# ---- a framework's Ray task that reserved no GPU ---------------------------------------------------

_NO_GPU = ("ValueError: Current node has no GPU available. current_node_resource={{'CPU': 96.0, "
           "'node:__internal_head__': 1.0, 'node:{ip}': 1.0, 'memory': 1824080048128.0, "
           "'object_store_memory': 200000000000.0}}. vLLM engine cannot start without GPU. Make "
           "sure you have at least 1 GPU available in a node ")
# Ray's prefix for the framework's task or actor, its colour codes whole, without ESC, or gone.
_TASKS = ["run_inference_one_model pid=2816485", "LLMRayActor pid=433508",
          "run_inference_one_model pid=77, ip=10.0.0.3"]
_COLOURS = [("", ""), ("\x1b[36m", "\x1b[0m"), ("[36m", "[0m")]


@settings(max_examples=30, deadline=None)
@given(task=st.sampled_from(_TASKS), colour=st.sampled_from(_COLOURS),
       ip=st.sampled_from(["26.0.174.186", "10.1.2.3"]),
       tail=st.sampled_from(["", "current_node_id='ab12' current_ip='10.1.2.3'."]))
def test_a_framework_task_without_gpus_names_num_gpus(
        task: str, colour: tuple[str, str], ip: str, tail: str) -> None:
    log = f"{colour[0]}({task}){colour[1]} {_NO_GPU.format(ip=ip)}{tail}\n"
    sid, fix = signature_advice(log)
    assert sid == "ray-no-gpu-on-driver-node", log
    assert "num_gpus" in fix and "lighteval" in fix, fix


def test_no_visible_gpu_in_the_process_is_not_the_ray_node_check() -> None:
    sid, _ = signature_advice("(run_inference_one_model pid=5) RuntimeError: No CUDA GPUs are "
                              "available\n")
    assert sid != "ray-no-gpu-on-driver-node"


# ---- a prompt exactly max_model_len long under V1 --------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(n=st.sampled_from([512, 2048, 4096, 32768]), shape=SHAPES, py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_prompt_filling_max_model_len_names_harness_window_and_v0(
        n: int, shape: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}lm_eval/models/vllm_causallms.py", "_model_generate",
               "outputs = self.model.generate("),
              (f"{root}vllm/v1/engine/processor.py", "_validate_model_input", "raise ValueError(")]
    log = _shaped(f"ValueError: Prompt length of {n} is longer than the maximum model length of "
                  f"{n}.", frames, shape, prefix)
    sid, fix = signature_advice(log)
    assert sid == "decoder-prompt-exceeds-max-model-len", log
    assert "max_length" in fix and "VLLM_USE_V1=0" in fix, fix


def test_transformers_generate_length_check_is_not_vllms_prompt_check() -> None:
    sid, _ = signature_advice("ValueError: Input length of input_ids is 2048, but `max_length` is "
                              "set to 2048. This can lead to unexpected behavior.\n")
    assert sid != "decoder-prompt-exceeds-max-model-len"


# ---- a module missing from a framework's per-worker virtualenv -------------------------------------

@settings(max_examples=30, deadline=None)
@given(module=st.sampled_from(["nemo_gym", "math_verify", "qwen_vl_utils"]),
       note=st.sampled_from(["", "RuntimeError: token_capture.enabled requires {m} inside the vLLM "
                                 "worker venv, but the cached worker venv predates it.\n"]),
       prefix=st.sampled_from(["", "(VllmAsyncGenerationWorker pid=4411) "]))
def test_a_module_missing_from_worker_venvs_names_the_venv_rebuild(
        module: str, note: str, prefix: str) -> None:
    log = f"{prefix}ModuleNotFoundError: No module named '{module}'\n" + note.format(m=module)
    sid, fix = signature_advice(log)
    assert sid == "missing-optional-package", log
    assert "NRL_FORCE_REBUILD_VENVS" in fix and "runtime_env" in fix, fix


def test_a_vllm_module_a_framework_imports_is_not_a_missing_package() -> None:
    sid, _ = signature_advice("ModuleNotFoundError: No module named "
                              "'vllm.entrypoints.openai.engine'\n")
    assert sid != "missing-optional-package"


# ---- KServe's huggingfaceserver in the knob table --------------------------------------------------

_HUB_ERROR = ("huggingface_hub.utils._errors.LocalEntryNotFoundError: An error happened while "
              "trying to locate the file on the Hub and we cannot find the requested files in the "
              "local cache. Please check your connection and try again or make sure your Internet "
              "connection is on.")


@settings(max_examples=20, deadline=None)
@given(root=st.sampled_from(["/huggingfaceserver/", "/prod_venv/lib/python3.11/site-packages/"]),
       prefix=st.sampled_from(["", "2024-07-01 07:28:04.488 1 kserve ERROR "]))
def test_kserve_frames_turn_the_hub_fix_into_model_dir(root: str, prefix: str) -> None:
    frames = [(f"{root}huggingfaceserver/__main__.py", "<module>", "model.load()"),
              (f"{root}huggingfaceserver/model.py", "load",
               "if self.infer_vllm_supported_from_model_architecture(self.model_id) is not None:"),
              ("/prod_venv/lib/python3.10/site-packages/huggingface_hub/file_download.py",
               "hf_hub_download", "raise LocalEntryNotFoundError(")]
    sid, fix = signature_advice(python_traceback(frames, _HUB_ERROR, prefix))
    assert sid == "hf-hub-unreachable"
    assert "--model_dir" in fix and "KServe" in fix, fix


def test_the_hub_fix_without_kserve_frames_names_no_kserve_option() -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/config.py",
               "get_config", "config_dict, _ = PretrainedConfig.get_config_dict("),
              ("/usr/local/lib/python3.12/dist-packages/huggingface_hub/file_download.py",
               "hf_hub_download", "raise LocalEntryNotFoundError(")]
    sid, fix = signature_advice(python_traceback(frames, _HUB_ERROR))
    assert sid == "hf-hub-unreachable"
    assert "--model_dir" not in fix
