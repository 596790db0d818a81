"""Classes behind the session-36 cases a collector's greps moved from the held-out set to tuning
(dev-seen's), each generated over the ways a log shows it, with near misses:

- a start-up that ends inside custom all-reduce's P2P capability check (`generating GPU P2P
  access cache in <path>`, logged by the first rank before it tests every GPU pair while the
  others wait at a barrier; a working check logs `reading GPU P2P access cache from <path>`
  seconds later): a stall in the init phase (causality.yaml `waits`), not a healthy log; the
  check that finished, and an excerpt that does not show the run from its start, are not it;
- a JIT kernel build whose link step cannot find libcuda (`ld: cannot find -lcuda`, Triton's,
  FlashInfer's ninja build behind a worker's records): triton-jit-toolchain-missing, whose fix
  now names WSL2's `/usr/lib/wsl/lib` (LIBRARY_PATH) and the FlashInfer sampler's switch; a
  link step missing another library is not it;
- a traceback shortened by hand in IPython's style, each frame `file.py:N, in function` without
  its `File ` lead (and often without the directories and the call's arguments), `...` between
  the frames kept: read as frames (grammars/vllm.lark FRAME), so the V1 runner's per-step
  bookkeeping (`_bookkeeping_sync`, `_get_prompt_logprobs_dict`, serving only: causality.yaml
  `phases`) places an OOM there in serving and cuda-oom-computing-logprobs answers it; the same
  shortened traceback through the model's forward is not that class, and prose that names a
  file's line is no frame;
- a message that states its own remedy in words that refer back to a setting it named before
  ("... --num-gpu-blocks-override exceeds the profiled capacity ... Lower or remove the
  override."): the advice lists that setting (index `own_advice`, `advice_for`); a remedy that
  names a setting of its own lists that one alone.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import parse_line
from v1log import signature_advice

# ---- a start-up that ends inside the custom all-reduce P2P check ------------------------------------

# (the start lines of a run, the prefix of a worker's lines) by era and launcher
_P2P_ERAS = [
    (["INFO 07-29 08:28:17 api_server.py:219] vLLM API server version 0.5.3.post1",
      "INFO 07-29 08:28:17 llm_engine.py:176] Initializing an LLM engine (v0.5.3.post1) with config: "
      "model='/models/llama', tensor_parallel_size=2"],
     "INFO 07-29 08:28:19 custom_all_reduce_utils.py:212] ",
     "(VllmWorkerProcess pid=730991) INFO 07-29 08:28:18 "),
    (["INFO 11-02 10:01:00 api_server.py:585] vLLM API server version 0.6.3.post1",
      "INFO 11-02 10:01:01 llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config: "
      "model='/models/qwen', tensor_parallel_size=4"],
     "INFO 11-02 10:01:09 custom_all_reduce_utils.py:242] ",
     "(VllmWorkerProcess pid=4411) INFO 11-02 10:01:08 "),
    (["(APIServer pid=81) INFO 05-02 14:20:00 [api_server.py:1043] vLLM API server version 0.9.1",
      "(EngineCore_0 pid=120) INFO 05-02 14:20:03 [core.py:69] Initializing a V1 LLM engine (v0.9.1) "
      "with config: model='/models/m', tensor_parallel_size=2"],
     "(VllmWorker rank=0 pid=140) INFO 05-02 14:20:11 [custom_all_reduce_utils.py:244] ",
     "(VllmWorker rank=1 pid=141) INFO 05-02 14:20:10 "),
]
_STAMPS = ["", "2024-07-29T08:28:19.123456789Z "]


def _p2p_log(era: int, gpus: str, stamp: str, finished: bool, from_start: bool) -> str:
    starts, p2p, worker = _P2P_ERAS[era]
    path = f"/root/.cache/vllm/gpu_p2p_access_cache_for_{gpus}.json"
    lines = (starts if from_start else []) + [
        f"{worker}[pynccl.py:63] vLLM is using nccl==2.20.5",
        f"{p2p}generating GPU P2P access cache in {path}"]
    if finished:
        lines += [f"{p2p}reading GPU P2P access cache from {path}",
                  f"{worker}[model_runner.py:1008] Starting to load model /models/m...",
                  f"{worker}[model_runner.py:1019] Loading model weights took 7.1 GB"]
    return "".join(f"{stamp}{line}\n" for line in lines)


@settings(max_examples=24, deadline=None)
@given(era=st.integers(0, len(_P2P_ERAS) - 1), gpus=st.sampled_from(["0,1", "0,1,2,3", "4,5,6,7"]),
       stamp=st.sampled_from(_STAMPS))
def test_a_start_up_that_ends_in_the_p2p_check_stalled_there(era: int, gpus: str, stamp: str) -> None:
    report = explain_text(_p2p_log(era, gpus, stamp, finished=False, from_start=True))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.verdict


@settings(max_examples=12, deadline=None)
@given(era=st.integers(0, len(_P2P_ERAS) - 1), stamp=st.sampled_from(_STAMPS))
def test_a_p2p_check_that_finished_is_no_stall(era: int, stamp: str) -> None:
    report = explain_text(_p2p_log(era, "0,1", stamp, finished=True, from_start=True))
    assert report.verdict is Verdict.NO_FAILURE, report.verdict


@settings(max_examples=12, deadline=None)
@given(era=st.integers(0, len(_P2P_ERAS) - 1), stamp=st.sampled_from(_STAMPS))
def test_an_excerpt_without_the_run_start_may_end_in_the_check(era: int, stamp: str) -> None:
    # an excerpt of a working run may end anywhere: only a log that shows the run from its start
    # stalled where it ends (causality.yaml `waits`)
    report = explain_text(_p2p_log(era, "0,1", stamp, finished=False, from_start=False))
    assert report.verdict is Verdict.NO_FAILURE, report.verdict


# ---- a JIT build's link step that cannot find libcuda ------------------------------------------------

_BUILD_PREFIXES = ["", "(Worker_TP0 pid=5917) ERROR 10-10 12:22:46 [multiproc_executor.py:671] ",
                   "(EngineCore_DP0 pid=311) ERROR 10-10 12:22:46 [core.py:708] ",
                   "(VllmWorker rank=1 pid=902) ERROR 06-01 09:00:00 [multiproc_executor.py:522] "]
_LINKERS = ["/root/miniconda3/bin/../lib/gcc/x86_64-conda-linux-gnu/11.2.0/../../../../x86_64-conda-linux-gnu/bin/ld",
            "/usr/bin/ld", "/opt/conda/compiler_compat/ld"]
_OBJECTS = [("sampling", "sampling/sampling.cuda.o sampling/renorm.cuda.o"),
            ("batch_decode", "batch_decode/batch_decode.cuda.o"),
            ("cuda_utils", "cuda_utils.o")]


def _link_log(prefix: str, linker: str, target: tuple[str, str], library: str) -> str:
    name, objects = target
    lines = [f"[3/3] c++ {objects} -shared -L/usr/local/cuda/lib64 -lcudart {library} -o {name}/{name}.so",
             f"FAILED: [code=1] {name}/{name}.so",
             f"{linker}: cannot find {library}: No such file or directory",
             "collect2: error: ld returned 1 exit status"]
    return "".join(f"{prefix}{line}\n" for line in lines)


@settings(max_examples=30, deadline=None)
@given(prefix=st.sampled_from(_BUILD_PREFIXES), linker=st.sampled_from(_LINKERS),
       target=st.sampled_from(_OBJECTS))
def test_a_link_step_without_libcuda_names_wsl_and_the_library_path(
        prefix: str, linker: str, target: tuple[str, str]) -> None:
    sid, fix = signature_advice(_link_log(prefix, linker, target, "-lcuda"))
    assert sid == "triton-jit-toolchain-missing", sid
    assert "/usr/lib/wsl/lib" in fix and "LIBRARY_PATH" in fix, fix


@settings(max_examples=12, deadline=None)
@given(prefix=st.sampled_from(_BUILD_PREFIXES), linker=st.sampled_from(_LINKERS),
       library=st.sampled_from(["-lnuma", "-libverbs", "-lmpi"]))
def test_a_link_step_missing_another_library_is_not_the_libcuda_class(
        prefix: str, linker: str, library: str) -> None:
    report = explain_text(_link_log(prefix, linker, _OBJECTS[0], library))
    chosen = report.signature.id if report.signature else None
    assert chosen != "triton-jit-toolchain-missing", chosen


# ---- a traceback shortened by hand, IPython's frame lines without `File ` -------------------------

_RUNNER = "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py"
_LOGPROBS_FRAMES = [(_RUNNER, 3471, "_bookkeeping_sync", "prompt_logprobs_dict = self._get_prompt_logprobs_dict("),
                    (_RUNNER, 5121, "_get_prompt_logprobs_dict",
                     "logits = self.model.compute_logits(prompt_hidden_states)"),
                    ("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/logits_processor.py", 83,
                     "_gather_logits", "logits = tensor_model_parallel_all_gather(logits)")]
_FORWARD_FRAMES = [(_RUNNER, 2930, "_model_forward", "return self.model("),
                   ("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/llama.py", 391,
                    "forward", "hidden_states = self.mlp(hidden_states)"),
                   ("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/activation.py", 95,
                    "forward_cuda", "out = torch.empty(output_shape, dtype=x.dtype, device=x.device)")]
_OOMS = ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.82 GiB.\n"
         "GPU has total 178.35 GiB, 3.22 GiB free, 175.11 GiB in use.",
         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 1 has a total capacity "
         "of 79.19 GiB of which 1.06 GiB is free. Of the allocated memory 75.02 GiB is allocated by PyTorch."]


def _shortened(frames: list[tuple[str, int, str, str]], oom: str, short_path: bool, args: bool,
               elide: bool, prefix: str) -> str:
    lines: list[str] = []
    for path, number, function, code in frames:
        place = path.rsplit("/", 1)[1] if short_path else path
        call = "(self, scheduler_output)" if args else ""
        lines += [f"{place}:{number}, in {function}{call}", f"    {code}"]
        if elide:
            lines.append("...")
    lines += oom.split("\n")
    return "".join(f"{prefix}{line}\n" for line in lines)


_SHORT_PREFIXES = ["", "[rank0]: ", "(Worker_TP2 pid=4411) "]


@settings(max_examples=30, deadline=None)
@given(oom=st.sampled_from(_OOMS), short_path=st.booleans(), args=st.booleans(), elide=st.booleans(),
       prefix=st.sampled_from(_SHORT_PREFIXES))
def test_a_shortened_prompt_logprobs_traceback_is_read_by_its_frames(
        oom: str, short_path: bool, args: bool, elide: bool, prefix: str) -> None:
    sid, fix = signature_advice(_shortened(_LOGPROBS_FRAMES, oom, short_path, args, elide, prefix))
    assert sid == "cuda-oom-computing-logprobs", sid
    assert "prompt_logprobs" in fix, fix


@settings(max_examples=16, deadline=None)
@given(oom=st.sampled_from(_OOMS), short_path=st.booleans(), elide=st.booleans(),
       prefix=st.sampled_from(_SHORT_PREFIXES))
def test_a_shortened_forward_pass_oom_is_not_the_logprobs_class(
        oom: str, short_path: bool, elide: bool, prefix: str) -> None:
    sid, _ = signature_advice(_shortened(_FORWARD_FRAMES, oom, short_path, False, elide, prefix))
    assert sid != "cuda-oom-computing-logprobs", sid


def test_a_shortened_frame_line_is_a_frame_and_prose_is_not() -> None:
    frame = parse_line("gpu_model_runner.py:5121, in _get_prompt_logprobs_dict")
    assert frame.kind is LineKind.FRAME and frame.frame is not None
    assert (frame.frame.file, frame.frame.line, frame.frame.function) == \
        ("gpu_model_runner.py", 5121, "_get_prompt_logprobs_dict")
    for prose in ["The bug is at gpu_model_runner.py:5121, in _get_prompt_logprobs_dict",
                  "gpu_model_runner.py:5121, in the prompt logprobs path"]:
        assert parse_line(prose).kind is not LineKind.FRAME, prose


# ---- a message's remedy that refers back to the setting it named ------------------------------------

_REFERRING = [("--num-gpu-blocks-override", "Lower or remove the override."),
              ("--max-num-batched-tokens", "Lower it or remove it."),
              ("--kv-cache-memory-bytes", "Lower or remove this setting.")]
_PLATFORMS = ["Metal paged pool", "accelerator's paged pool", "device block pool"]


@settings(max_examples=24, deadline=None)
@given(pair=st.sampled_from(_REFERRING), pool=st.sampled_from(_PLATFORMS),
       wrapped=st.booleans(), prefix=st.sampled_from(["", "(EngineCore_DP0 pid=77) "]))
def test_a_remedy_that_refers_back_lists_the_setting_the_message_named(
        pair: tuple[str, str], pool: str, wrapped: bool, prefix: str) -> None:
    flag, remedy = pair
    parts = [f"ValueError: Engine KV cache config requests 999999 blocks but the {pool}",
             f"was allocated with 1846. This usually means {flag} exceeds the",
             f"profiled capacity; the plugin sizes its pool once and cannot grow it. {remedy}"]
    log = "".join(f"{prefix}{line}\n" for line in (parts if wrapped else [" ".join(parts)]))
    report = explain_text(log)
    assert report.signature is not None and flag in report.signature.fix, report.signature


def test_a_remedy_that_names_its_own_setting_lists_that_one() -> None:
    log = ("ValueError: The pool was allocated with 1846 blocks because --num-gpu-blocks-override "
           "was set to 1846. Try increasing --gpu-memory-utilization.\n")
    report = explain_text(log)
    assert report.signature is not None
    assert "--gpu-memory-utilization" in report.signature.fix, report.signature.fix
    assert "--num-gpu-blocks-override" not in report.signature.fix, report.signature.fix
