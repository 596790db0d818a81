"""Classes behind session 33's split's cold fix misses (dev-fix's five), each generated over its
wordings and the ways a log shows it, with a near miss:

- a logits processor (min_tokens, logit_bias) writing into logits with no rows (a partial
  prefill step sampled by a platform plugin's runner): logits-processor-empty-logits, whose fix
  names `min_tokens` and the plugin upgrade; an index past the vocabulary stays
  token-id-outside-vocabulary. Tracebacks whose paths are relative to site-packages
  (`vllm/v1/sample/sampler.py`) name vLLM's modules too (index/origin.py vllm_module);
- Llama-3.2-Vision's V0 profile run whose dummy encoder sequences outgrow an image's vision tokens
  (`assert actual_len >= last_group_len`, bare or cut at the source line):
  mllama-profile-encoder-length-assert, whose fix names `--max-num-seqs`; mllama's other assert
  does not get it;
- "UVA is not available" on a machine that is not WSL at all: vLLM's WSL test reads the host
  name, so the fix names the hostname;
- a V0 engine process that died right after sizing its caches (the CPU swap space is host memory
  taken then): the ZMQ symptom's and the memory family's fixes name `--swap-space`;
- the sampler warm-up's OOM names the other process on the same GPU, as every OOM fix does.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.origin import vllm_module
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a logits processor meets logits with no rows ----------------------------------------------

_PROCESSORS = [("apply", "logits.index_put_(self.logits_slice, self.neg_inf_tensor)"),
               ("apply", "logits[self.logits_slice] += self.bias_tensor")]
_RUNNERS = ["{site}vllm/v1/worker/gpu_model_runner.py", "{site}vllm_ascend/worker/model_runner_v1.py",
            "{site}vllm_rbln/v1/worker/rbln_model_runner.py", "{site}vllm_gaudi/v1/worker/hpu_model_runner.py"]


def _sampling_frames(site: str, runner: str, processor: tuple[str, str]) -> list[tuple[str, str, str]]:
    return [(runner.format(site=site), "_sample", "sampler_output = self.sampler("),
            (f"{site}vllm/v1/sample/sampler.py", "forward", "logits = self.apply_logits_processors("),
            (f"{site}vllm/v1/sample/sampler.py", "apply_logits_processors",
             "logits = processor.apply(logits)"),
            (f"{site}vllm/v1/sample/logits_processor/builtin.py", *processor)]


@settings(max_examples=40, deadline=None)
@given(processor=st.sampled_from(_PROCESSORS), runner=st.sampled_from(_RUNNERS),
       relative=st.booleans(), index=st.sampled_from(["index", "index 3", "index 17"]),
       dimension=st.sampled_from(["", " 0"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_logits_processor_on_empty_logits_names_min_tokens(
        processor: tuple[str, str], runner: str, relative: bool, index: str, dimension: str,
        py: str, site: str, prefix: str) -> None:
    root = "" if relative else site.format(py=py)
    error = f"IndexError: {index} is out of bounds for dimension{dimension} with size 0"
    sid, fix = signature_advice(python_traceback(_sampling_frames(root, runner, processor),
                                                 error, prefix))
    assert sid == "logits-processor-empty-logits"
    assert "min_tokens" in fix and "plugin" in fix, fix


@settings(max_examples=20, deadline=None)
@given(processor=st.sampled_from(_PROCESSORS), relative=st.booleans(),
       token=st.sampled_from([151665, 128256, 32001]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_an_index_past_the_vocabulary_stays_the_vocabulary_family(
        processor: tuple[str, str], relative: bool, token: int, py: str, site: str,
        prefix: str) -> None:
    root = "" if relative else site.format(py=py)
    error = f"IndexError: index {token} is out of bounds for dimension 1 with size {token - 113}"
    sid, _ = signature_advice(python_traceback(_sampling_frames(root, _RUNNERS[0], processor),
                                               error, prefix))
    assert sid == "token-id-outside-vocabulary"


def test_a_path_relative_to_site_packages_is_vllms_module() -> None:
    assert vllm_module("vllm/v1/sample/sampler.py") == "vllm.v1.sample.sampler"
    assert vllm_module("vllm\\v1\\worker\\gpu_model_runner.py") == "vllm.v1.worker.gpu_model_runner"
    # a plugin's relative path is not vLLM's, nor a file merely named like it
    assert vllm_module("vllm_rbln/v1/worker/rbln_model_runner.py") is None
    assert vllm_module("vllm.py") is None


# ---- mllama's profile run: encoder sequences longer than an image's tokens ---------------------

_PROFILE_FRAMES = [
    ("{site}vllm/worker/worker.py", "determine_num_available_blocks", "self.model_runner.profile_run()"),
    ("{site}vllm/worker/enc_dec_model_runner.py", "profile_run",
     "self.execute_model(model_input, kv_caches, intermediate_tensors)"),
    ("{site}vllm/worker/enc_dec_model_runner.py", "execute_model",
     "hidden_or_intermediate_states = model_executable("),
]


def _mllama_log(site: str, function: str, assertion: str, shape: str, prefix: str) -> str:
    frames = [(path.format(site=site), name, code) for path, name, code in _PROFILE_FRAMES]
    if function != "forward":
        frames.append((f"{site}vllm/model_executor/models/mllama.py", "forward",
                       "actual_encoder_seq_lens = self._get_and_validate_encoder_lens("))
    frames.append((f"{site}vllm/model_executor/models/mllama.py", function, assertion))
    log = python_traceback(frames, "AssertionError", prefix)
    return log.rsplit("\n", 2)[0] + "\n" if shape == "cut" else log


@settings(max_examples=30, deadline=None)
@given(function=st.sampled_from(["forward", "_get_and_validate_encoder_lens"]),
       shape=st.sampled_from(["bare", "cut"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_mllamas_profile_assert_names_max_num_seqs(function: str, shape: str, py: str, site: str,
                                                   prefix: str) -> None:
    sid, fix = signature_advice(_mllama_log(site.format(py=py), function,
                                            "assert actual_len >= last_group_len", shape, prefix))
    assert sid == "mllama-profile-encoder-length-assert"
    assert "--max-num-seqs" in fix and "--max-model-len" in fix, fix


@settings(max_examples=10, deadline=None)
@given(shape=st.sampled_from(["bare", "cut"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_mllamas_other_assert_is_not_the_profile_length(shape: str, py: str, site: str,
                                                       prefix: str) -> None:
    from logsleuth.pipeline import explain_text
    from logsleuth.signatures import default_signatures

    log = _mllama_log(site.format(py=py), "forward",
                      "assert len(actual_encoder_seq_lens) == len(attn_metadata_lens)", shape, prefix)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.id != "mllama-profile-encoder-length-assert"


# ---- UVA refused off WSL: the host name ----------------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(shape=st.sampled_from(["oneline", "record", "traceback"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_uva_unavailable_names_the_hostname(shape: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    if shape == "oneline":
        log = "RuntimeError: UVA is not available\n"
    elif shape == "record":
        log = f"{prefix}RuntimeError: UVA is not available\n"
    else:
        log = python_traceback(
            [(f"{root}vllm/v1/worker/gpu/states.py", "__init__",
              "self.all_token_ids = StagedWriteTensor("),
             (f"{root}vllm/v1/worker/gpu/buffer_utils.py", "__init__",
              'raise RuntimeError("UVA is not available")')],
            "RuntimeError: UVA is not available", prefix)
    sid, fix = signature_advice(log)
    assert sid == "wsl2-uva-unavailable-model-runner-v2"
    assert "hostname" in fix and "uname" in fix, fix


# ---- a V0 engine that died right after sizing its caches ---------------------------------------

_CLIENT = "{site}vllm/engine/multiprocessing/client.py"


def _engine_died_log(site: str, gpu_blocks: int, cpu_blocks: int, tasks: int) -> str:
    lines = ["INFO 01-16 18:10:46 api_server.py:194] Started engine process with PID 38",
             "INFO 01-16 18:11:58 model_runner.py:1077] Loading model weights took 2.0512 GB",
             f"INFO 01-16 18:11:59 gpu_executor.py:113] # GPU blocks: {gpu_blocks}, "
             f"# CPU blocks: {cpu_blocks}"]
    for task in range(2, 2 + tasks):
        lines += ["Task exception was never retrieved",
                  f"future: <Task finished name='Task-{task}' coro=<MQLLMEngineClient."
                  f"run_output_handler_loop() done, defined at {_CLIENT.format(site=site)}:178> "
                  "exception=ZMQError('Operation not supported')>"]
        lines += python_traceback(
            [(_CLIENT.format(site=site), "run_output_handler_loop",
              "while await self.output_socket.poll(timeout=VLLM_RPC_TIMEOUT"),
             (f"{site}zmq/_future.py", "poll", "raise _zmq.ZMQError(_zmq.ENOTSUP)")],
            "zmq.error.ZMQError: Operation not supported").splitlines()
    lines += python_traceback(
        [(f"{site}vllm/entrypoints/openai/api_server.py", "build_async_engine_client_from_engine_args",
          "raise RuntimeError(")],
        "RuntimeError: Engine process failed to start. See stack trace for the root cause."
    ).splitlines()
    return "\n".join(lines) + "\n"


@settings(max_examples=15, deadline=None)
@given(gpu=st.integers(1000, 60000), cpu=st.integers(512, 20000), tasks=st.integers(1, 4),
       py=PYTHONS, site=SITE_PACKAGES)
def test_an_engine_dead_after_sizing_its_caches_names_the_swap_space(
        gpu: int, cpu: int, tasks: int, py: str, site: str) -> None:
    _, fix = signature_advice(_engine_died_log(site.format(py=py), gpu, cpu, tasks))
    assert "--swap-space" in fix, fix


def test_the_memory_familys_fix_names_the_swap_space_too() -> None:
    from logsleuth.signatures import default_signatures

    for sid in ("startup-cause-not-in-log-memory", "mq-engine-zmq-enotsup-engine-died"):
        signature = default_signatures().get(sid)
        assert signature is not None and "--swap-space" in signature.fix


# ---- the sampler warm-up's OOM: another process on the same GPU --------------------------------

@settings(max_examples=10, deadline=None)
@given(seqs=st.sampled_from([8, 64, 256, 1024]), prefix=TRACEBACK_PREFIXES)
def test_the_sampler_warmup_oom_names_the_other_process(seqs: int, prefix: str) -> None:
    log = (f"{prefix}RuntimeError: CUDA out of memory occurred when warming up sampler with {seqs} "
           "dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when "
           "initializing the engine.\n")
    sid, fix = signature_advice(log)
    assert sid == "cuda-oom-sampler-warmup"
    assert "same GPU" in fix and "another GPU" in fix, fix
