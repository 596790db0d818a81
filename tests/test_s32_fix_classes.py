"""Classes behind session 32's twenty-third split's cold fix misses (dev-fix's four), each generated
over its wordings and the ways a log shows it, with a near miss:

- a speculative draft loaded under another method than the one it was trained for (an EAGLE-3
  draft as "eagle", an EAGLE-1 draft as "eagle3", MTP or Medusa heads under another name): the
  loader's shape check inside the draft model's own `load_weights`, V0's or V1's path:
  spec-decode-draft-method-mismatch, whose fix names `eagle3`; the same check in the target
  model's file stays the weight-shape family's;
- a kernel JIT-compiled and loaded while the engine serves (a shape warmup did not cover): the
  CUDA driver refusing the fresh module ("Triton Error [CUDA]: operation not permitted" from
  Triton's module load under `execute_model`), or vLLM's JIT monitor in its error mode:
  kernel-jit-compiled-during-serving, whose fix names warmup and `do_not_specialize`; the same
  refusal while profiling at start-up, or another Triton status while serving, stays the Triton
  launch family's;
- verl's rollout layout that does not multiply out (workers placed vs local data-parallel size x
  tensor-parallel size, printed cut after `dp_size_local` as verl's source words it, or with its
  sizes; a world size TP does not divide), under a Ray actor's traceback, bare, or cut to the
  assertion: verl-rollout-parallel-layout-mismatch (widened: it demanded the sizes verl's message
  never prints), whose fix names `data_parallel_size` and the verl upgrade; another error from the
  same launch frame does not get it. The other RL frameworks' layout checks have signatures of
  their own (SkyRL, OpenRLHF, TRL).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a draft loaded under another speculative method ----------------------------------------------

_LOAD_FRAMES = [
    ("{site}vllm/model_executor/model_loader/__init__.py", "get_model",
     "return loader.load_model(vllm_config=vllm_config,"),
    ("{site}vllm/model_executor/model_loader/base_loader.py", "load_model",
     "self.load_weights(model, model_config)"),
    ("{site}vllm/model_executor/model_loader/default_loader.py", "load_weights",
     "loaded_weights = model.load_weights("),
]
_DRAFT_FILES = ["eagle.py", "llama_eagle.py", "llama_eagle3.py", "qwen2_eagle3.py",
                "deepseek_eagle.py", "llama4_eagle.py", "medusa.py", "mlp_speculator.py",
                "deepseek_mtp.py", "glm4_moe_mtp.py"]


def _shape_error(kind: str, hidden: int, wide: int, narrow: int) -> str:
    if kind == "assert":
        return (f"AssertionError: Attempted to load weight (torch.Size([{hidden}, {wide * hidden}]))"
                f" into parameter (torch.Size([{hidden}, {narrow * hidden}]))")
    return ("RuntimeError: Error(s) in loading state_dict for Eagle3LlamaForCausalLM:\n"
            f"\tsize mismatch for fc.weight: copying a param with shape torch.Size([{hidden}, "
            f"{wide * hidden}]) from checkpoint, the shape in current model is torch.Size("
            f"[{hidden}, {narrow * hidden}]).")


@settings(max_examples=40, deadline=None)
@given(draft=st.sampled_from(_DRAFT_FILES), hidden=st.sampled_from([2048, 4096, 5120, 7168]),
       widths=st.sampled_from([(3, 2), (2, 3)]), kind=st.sampled_from(["assert", "state_dict"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_draft_under_another_method_gets_the_method_for_its_head(
        draft: str, hidden: int, widths: tuple[int, int], kind: str, py: str, site: str,
        prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root), function, code) for path, function, code in _LOAD_FRAMES]
    frames.append((f"{root}vllm/model_executor/models/{draft}", "load_weights",
                   "weight_loader(self.fc.weight, loaded_weight)"))
    if kind == "assert":
        frames.append((f"{root}vllm/model_executor/model_loader/weight_utils.py",
                       "default_weight_loader", "assert param.size() == loaded_weight.size(), ("))
    sid, fix = signature_advice(python_traceback(frames, _shape_error(kind, hidden, *widths),
                                                 prefix))
    assert sid == "spec-decode-draft-method-mismatch"
    assert '"method": "eagle3"' in fix and "--speculative-config" in fix, fix


@settings(max_examples=20, deadline=None)
@given(model=st.sampled_from(["llama.py", "qwen2.py", "mistral.py", "deepseek_v2.py"]),
       hidden=st.sampled_from([2048, 4096, 5120]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_the_same_check_in_the_target_model_stays_the_shape_family(
        model: str, hidden: int, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root), function, code) for path, function, code in _LOAD_FRAMES]
    frames += [(f"{root}vllm/model_executor/models/{model}", "load_weights",
                "weight_loader(param, loaded_weight)"),
               (f"{root}vllm/model_executor/model_loader/weight_utils.py",
                "default_weight_loader", "assert param.size() == loaded_weight.size(), (")]
    sid, _ = signature_advice(python_traceback(frames, _shape_error("assert", hidden, 3, 2), prefix))
    assert sid != "spec-decode-draft-method-mismatch"


# ---- a kernel compiled and loaded while serving -------------------------------------------------

_SERVING_FRAMES = [
    ("{site}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
     "output = func(*args, **kwargs)"),
    ("{site}vllm/v1/worker/gpu_worker.py", "execute_model",
     "output = self.model_runner.execute_model(scheduler_output,"),
    ("{site}vllm/v1/worker/gpu_model_runner.py", "execute_model",
     "model_output = self._model_forward("),
]
_PROFILE_FRAMES = [
    ("{site}vllm/v1/worker/gpu_worker.py", "determine_available_memory",
     "self.model_runner.profile_run()"),
    ("{site}vllm/v1/worker/gpu_model_runner.py", "profile_run",
     "hidden_states, last_hidden_states = self._dummy_run("),
]
_TRITON_LOAD = [
    ("{site}triton/runtime/jit.py", "run",
     "launch_metadata = kernel.launch_metadata(grid, stream, *bound_args.values())"),
    ("{site}triton/compiler/compiler.py", "launch_metadata", "self._init_handles()"),
    ("{site}triton/compiler/compiler.py", "_init_handles",
     "self.module, self.function, self.n_regs, self.n_spills, self.n_max_threads = "
     "driver.active.utils.load_binary("),
]
_KERNEL_CALLERS = [
    ("vllm/model_executor/layers/fused_moe/moe_align_block_size.py", "moe_align_block_size"),
    ("vllm/v1/attention/ops/triton_unified_attention.py", "unified_attention"),
    ("vllm/v1/sample/rejection_sampler.py", "rejection_sample"),
    ("vllm/model_executor/layers/sparse_attn_indexer.py", "sparse_attn_indexer"),
]


def _kernel_frames(site: str, stack: list[tuple[str, str, str]], caller: tuple[str, str],
                   kernel: str) -> list[tuple[str, str, str]]:
    return ([(path.format(site=site), function, code) for path, function, code in stack]
            + [(f"{site}{caller[0]}", caller[1], f"{kernel}[grid](")]
            + [(path.format(site=site), function, code) for path, function, code in _TRITON_LOAD])


@settings(max_examples=40, deadline=None)
@given(caller=st.sampled_from(_KERNEL_CALLERS),
       kernel=st.sampled_from(["_fp8_mqa_logits_kernel", "_moe_align_block_size_kernel",
                               "kernel_unified_attention_2d", "_rejection_kernel"]),
       status=st.sampled_from(["operation not permitted", "operation not supported"]),
       warned=st.booleans(), py=PYTHONS, site=SITE_PACKAGES,
       prefix=st.sampled_from(["(Worker_TP0_DCP0 pid=232) ERROR 09-07 20:59:45 "
                               "[multiproc_executor.py:990] ",
                               "(Worker_TP3 pid=88) ERROR 01-12 03:14:15 "
                               "[multiproc_executor.py:712] "]))
def test_a_kernel_loaded_while_serving_gets_warmup_advice(
        caller: tuple[str, str], kernel: str, status: str, warned: bool, py: str, site: str,
        prefix: str) -> None:
    root = site.format(py=py)
    frames = _kernel_frames(root, _SERVING_FRAMES, caller, kernel)
    log = python_traceback(frames, f"RuntimeError: Triton Error [CUDA]: {status}", prefix)
    if warned:  # vLLM's JIT monitor said so before the failure
        log = (f"{prefix[:prefix.index(')') + 1]} WARNING 09-07 17:51:31 [jit_monitor.py:106] "
               f"Triton kernel JIT compilation during inference: {kernel}. This causes a latency "
               "spike; consider extending warmup to cover this shape/config.\n") + log
    sid, fix = signature_advice(log)
    assert sid == "kernel-jit-compiled-during-serving"
    assert "warmup" in fix and "do_not_specialize" in fix, fix


@settings(max_examples=20, deadline=None)
@given(kernel=st.sampled_from(["_fp8_mqa_logits_kernel", "_rejection_kernel"]),
       backend=st.sampled_from(["Triton kernel JIT compilation", "Triton autotuning",
                                "CuTeDSL JIT compilation"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_the_jit_monitor_in_error_mode_gets_the_same_advice(
        kernel: str, backend: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root), function, code) for path, function, code in _SERVING_FRAMES]
    frames.append((f"{root}vllm/utils/jit_monitor.py", "_handle_jit_event",
                   "raise RuntimeError(message % args)"))
    error = (f"RuntimeError: {backend} during inference: {kernel}. This causes a latency spike; "
             "consider extending warmup to cover this shape/config.")
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "kernel-jit-compiled-during-serving"
    assert "--jit-monitor-mode" in fix, fix


@settings(max_examples=20, deadline=None)
@given(caller=st.sampled_from(_KERNEL_CALLERS), profile=st.booleans(), py=PYTHONS,
       site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_refusal_at_start_up_or_another_status_stays_the_launch_family(
        caller: tuple[str, str], profile: bool, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    stack, status = ((_PROFILE_FRAMES, "operation not permitted") if profile
                     else (_SERVING_FRAMES, "invalid argument"))
    log = python_traceback(_kernel_frames(root, stack, caller, "_kernel"),
                           f"RuntimeError: Triton Error [CUDA]: {status}", prefix)
    sid, _ = signature_advice(log)
    assert sid == "triton-launch-error"


# ---- an RL framework's rollout layout vs its GPUs ----------------------------------------------

_VERL_ROOTS = st.sampled_from(["/workspace/verl/", "{site}",
                               "/tmp/ray/session_2026-03-02_11-40-12_263690_267/runtime_resources/"
                               "working_dir_files/_ray_pkg_0a1b2c3d4e5f6a7b/"])
_LAYOUT_ERRORS = st.sampled_from([
    "AssertionError: num workers ({n}) should be equal to dp_size_local ",
    "AssertionError: num workers ({n}) should be equal to dp_size_local ({d}) * tp_size ({t})",
    "AssertionError: gpus_per_node should be divisible by tensor_model_parallel_size",
    "AssertionError: rollout world_size: {n} is not divisible by infer_tp: {t}",
    "AssertionError: reward model world_size: {n} is not divisible by infer_tp: {t}",
])


@settings(max_examples=40, deadline=None)
@given(error=_LAYOUT_ERRORS, n=st.integers(1, 16), d=st.integers(2, 8), t=st.sampled_from([2, 4, 8]),
       shape=st.sampled_from(["ray", "bare", "cut"]), py=PYTHONS, site=SITE_PACKAGES,
       verl=_VERL_ROOTS)
def test_a_rollout_layout_that_does_not_fit_gets_the_parallel_sizes(
        error: str, n: int, d: int, t: int, shape: str, py: str, site: str, verl: str) -> None:
    root = verl.format(site=site.format(py=py))
    message = error.format(n=n, d=d, t=t)
    frames = [(f"{root}verl/workers/rollout/vllm_rollout/vllm_async_server.py", "launch_server",
               "assert len(self.workers) == data_parallel_size_local * "
               "self.config.tensor_model_parallel_size, (")]
    if shape == "ray":
        log = python_traceback(frames, "ray.exceptions.RayTaskError(AssertionError): ray::"
                               "vLLMHttpServer.launch_server() (pid=19034, ip=10.0.3.17)\n"
                               + message, "(TaskRunner pid=18211) ")
    elif shape == "bare":
        log = python_traceback(frames, message)
    else:  # a paste cut to the assertion
        log = message + "\n"
    sid, fix = signature_advice(log)
    assert sid == "verl-rollout-parallel-layout-mismatch"
    assert "data_parallel_size" in fix and "verl" in fix, fix


@settings(max_examples=15, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, verl=_VERL_ROOTS)
def test_another_error_of_the_launch_is_no_layout_mismatch(py: str, site: str, verl: str) -> None:
    root = verl.format(site=site.format(py=py))
    frames = [(f"{root}verl/workers/rollout/vllm_rollout/vllm_async_server.py", "launch_server",
               "self.model_config = AutoConfig.from_pretrained(local_path)")]
    log = python_traceback(frames, "OSError: Incorrect path_or_model_id: '/data/ckpt/model'. "
                           "Please provide either the path to a local folder or the repo_id of "
                           "a model on the Hub.")
    sid, _ = signature_advice(log)
    assert sid != "verl-rollout-parallel-layout-mismatch"
