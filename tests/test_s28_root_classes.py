"""Roots and verdicts in the classes of session 28's cold misses (issue 10, "survived or fatal,
from evidence"; each generated):

- a native record its own process went on from: NCCL's and RCCL's WARN lines at communicator
  set-up (NUMA balancing, topology search, a net plugin not found) that every multi-GPU run
  prints, then the worker loads its model and dies of a signal. A native record right before
  its process's death is what the process died over (causality.yaml `native`), but not when the
  process logged a step of its own in between (causal.py `_link`): the crash is the root;
- an error record whose own text says what the program goes on with: a fallback it takes
  (`falling back to simple order`), a setting it ignores (`Ignoring max_num_batched_tokens at
  risk of out-of-memory errors`), a cost in speed alone (`can lead to variability in the RCCL
  performance`): no cause, whatever follows (causality.yaml `goes_on`); a later failure is its
  own error and the root;
- an exception that restates its cause's first words as what happened while it worked (`CUDA
  out of memory occurred when warming up sampler ...` over `CUDA out of memory.`), in either print
  order: raised from it (causality.yaml `restated`, causal.py `_restated_causes`);
- pytest's listing of a traceback: a bare class name inside a statement left open on the line
  above is code, and `E   assert x` where a frame's source line goes is that source
  (assemble.py), so the exception line under it is the error;
- Gaudi's bucket grid made (`Generated N decode buckets`) is a start-up step: an error record
  its process logged before it was one it went on from (causality.yaml `progress`).

Generated: prefixes (Ray's actor, a multiprocessing worker, none), other processes' lines
interleaved, the noise WARN's words and source, the steps between, the crash's form (absl's
banner with Python's fault handler, the fault handler alone, a Python traceback), Ray's dedup
suffixes, the order of the prints; and what must stay as it was (a WARN that reports a failure
right before the death, with no step between, is still the root; a suggestion or a condition to
fall back is no statement that the program did; a copy or a short headline restates nothing; an
error record after the grid is the failure).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


prefixes = st.sampled_from(["(RayWorkerWrapper pid=233) ",
                            "(EngineCore_DP0 pid=742) (RayWorkerWrapper pid=233, ip=10.0.0.5) ",
                            "(VllmWorker rank=1 pid=233) ", "(Worker_TP1 pid=233) "])
# NCCL's and RCCL's set-up notices at WARN level, which a run that works prints too
_NOISE = [
    "NUMA auto balancing enabled which can lead to variability in the RCCL performance! "
    'Disable by "sudo sysctl kernel.numa_balancing=0"',
    "Could not find a path for pattern 4, falling back to simple order",
    "Could not find a path for pattern 1, falling back to simple order",
]
noise = st.sampled_from(_NOISE)
sources = st.sampled_from(["init.cc:140", "graph/search.cc:1127",
                           "/build/rccl/hipify/src/init.cc:140"])
stamps = st.sampled_from(["", "[2025-11-12 11:11:57] "])
dedup = st.sampled_from(["", " [repeated 2x across cluster]"])
steps = st.sampled_from([
    "INFO 11-12 11:12:10 [default_loader.py:314] Loading weights took 8.59 seconds",
    "INFO 11-12 11:12:10 [gpu_model_runner.py:2904] Model loading took 7.2637 GiB and 9.39 "
    "seconds",
    "INFO 11-12 11:12:01 [rocm.py:298] Using Rocm Attention backend on V1 engine.",
])
_INFO = ["host:233:233 [0] NCCL INFO Channel 00/02 : 0 1",
         "host:233:233 [0] NCCL INFO Connected all rings",
         "INFO 11-12 11:12:00 [gpu_model_runner.py:2843] Starting to load model m...",
         "[aiter] type hints mismatch, override to --> rmsnorm2d_fwd(input: torch.Tensor)"]
info = st.lists(st.sampled_from(_INFO), max_size=4)
_BANNER = ["*** SIGSEGV received at time=1762945937 on cpu 6 ***",
           "PC: @     0x71bd29eb3ab5  (unknown)  (unknown)",
           "    @     0x71d139f9e520  (unknown)  (unknown)",
           "    @ ... and at least 1000 more frames"]
crashes = st.sampled_from([
    (_BANNER + ["Fatal Python error: Segmentation fault"], "Fatal Python error"),
    (["Fatal Python error: Segmentation fault"], "Fatal Python error"),
    (_BANNER, "SIGSEGV"),
    (["Traceback (most recent call last):",
      '  File "/usr/lib/python3.12/site-packages/vllm/worker/worker_base.py", line 9, in run',
      "    raise RuntimeError('HIP error: invalid device function')",
      "RuntimeError: HIP error: invalid device function"], "RuntimeError"),
])


def _warn(prefix: str, stamp: str, source: str, text: str, suffix: str) -> str:
    return f"{prefix}{stamp}host:233:233 [0] {source} NCCL WARN {text}{suffix}"


# ---- a WARN its process went on from, then a crash -------------------------------------------

# another process's output, which interleaves with the worker's anywhere
_OTHERS = ["(EngineCore_DP0 pid=742) INFO 11-12 11:11:56 [ray_env.py:66] "
           "RAY_NON_CARRY_OVER_ENV_VARS from config: set()",
           "(RayWorkerWrapper pid=927) corona:927:927 [0] NCCL INFO Connected all trees",
           "(RayWorkerWrapper pid=927) INFO 11-12 11:12:00 [gpu_model_runner.py:2843] Starting to "
           "load model m...",
           "Loading safetensors checkpoint shards:  33% Completed | 1/3 [00:03<00:06,  3.06s/it]"]


def _interleave(data: st.DataObject, lines: list[str]) -> list[str]:
    """`lines` with other processes' lines put between them at drawn places."""
    out = list(lines)
    for other in data.draw(st.lists(st.sampled_from(_OTHERS), max_size=4)):
        out.insert(data.draw(st.integers(0, len(out))), other)
    return out

@settings(max_examples=60, deadline=None)
@given(prefixes, stamps, sources, dedup, st.sampled_from(
    [*_NOISE, "Some notice this reader has never seen", "Error: bootstrap took 40 s"]),
    info, steps, info, crashes, st.data())
def test_a_warn_its_process_went_on_from_is_not_what_it_died_over(
        prefix: str, stamp: str, source: str, suffix: str, text: str, before: list[str],
        step: str, after: list[str], crash: tuple[list[str], str], data: st.DataObject) -> None:
    crash_lines, name = crash
    lines = _interleave(data, [
        f"{prefix}INFO 11-12 11:11:57 [pynccl.py:111] vLLM is using nccl==2.26.6",
        _warn(prefix, stamp, source, text, suffix),
        *(prefix + line for line in before), prefix + step,
        *(prefix + line for line in after)])
    lines += [prefix + line for line in crash_lines]
    report = explain(lines)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE, lines
    assert root is not None and name in root.exception, (root, lines)
    first = len(lines) - len(crash_lines) + 1
    assert root.first_line >= first, (root, lines)


@settings(max_examples=40, deadline=None)
@given(prefixes, stamps, sources, dedup, noise, info, crashes)
def test_a_warn_that_says_the_run_goes_on_is_no_cause_even_right_before_a_crash(
        prefix: str, stamp: str, source: str, suffix: str, text: str, between: list[str],
        crash: tuple[list[str], str]) -> None:
    crash_lines, name = crash
    lines = [_warn(prefix, stamp, source, text, suffix),
             *(prefix + line for line in between), *(prefix + line for line in crash_lines)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and name in report.root_cause.exception, lines


@settings(max_examples=30, deadline=None)
@given(prefixes, stamps, sources, dedup, noise, info)
def test_set_up_warns_alone_are_no_failure(prefix: str, stamp: str, source: str, suffix: str,
                                           text: str, around: list[str]) -> None:
    lines = [_warn(prefix, stamp, source, text, suffix), *(prefix + line for line in around)]
    assert explain(lines).verdict is Verdict.NO_FAILURE, lines


@settings(max_examples=30, deadline=None)
@given(prefixes, stamps, st.sampled_from([
    ("misc/socket.cc:50", "Call to connect returned Connection refused, retrying"),
    ("misc/shmutils.cc:72", "Error: failed to extend /dev/shm/nccl-vN to 9637892 bytes"),
    ("enqueue.cc:1515", "Cuda failure 'an illegal memory access was encountered'"),
]), crashes)
def test_a_failing_warn_right_before_the_death_is_still_what_it_died_over(
        prefix: str, stamp: str, warn: tuple[str, str], crash: tuple[list[str], str]) -> None:
    source, text = warn
    crash_lines, name = crash
    if name == "RuntimeError":
        return  # a Python exception names its own failure: the native-record rule is for deaths
    lines = [f"{prefix}INFO 11-12 11:12:00 [gpu_model_runner.py:2843] Starting to load model m",
             _warn(prefix, stamp, source, text, ""), *(prefix + line for line in crash_lines)]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.exception == "NCCL WARN", lines
    assert report.root_cause.line == 2


# ---- an error record that says what the program goes on with -------------------------------

_GOES_ON = [
    "The current bucketing configuration (min, step, max_warmup): bs:[128, 128, 256], "
    "seq:[1024, 128, 2048] cannot be used with specified max_num_batched_tokens (2048), as the "
    "smallest bucket (16384) would exceed token budget. Please increase max_num_batched_tokens "
    "or decrease bucket minimum Ignoring max_num_batched_tokens at risk of out-of-memory errors.",
    "Cannot read the topology file; ignoring NCCL_TOPO_FILE and continuing",
    "Custom allreduce is unavailable on this machine, falling back to NCCL.",
    "Failed to query the device's peer access: this may degrade the all-reduce performance",
]
records = st.builds(lambda head, text: head + text, st.sampled_from([
    "ERROR 08-27 21:01:02 habana_model_runner.py:128] ",
    "ERROR 08-27 21:01:02 [model_runner.py:128] ",
    "(VllmWorker rank=0 pid=12) ERROR 08-27 21:01:02 [worker.py:12] ",
    "[ERROR] ", "2024-08-27 21:01:02,000 - ERROR - ",
]), st.sampled_from(_GOES_ON))
_AFTER = ["INFO 08-27 21:01:02 habana_model_runner.py:600] Generated 32 decode buckets",
          "INFO 08-27 21:01:02 habana_model_runner.py:605] Omitted 0 decode buckets due to "
          "exceeded token budget (max_num_batched_tokens=2048)",
          "INFO 08-27 21:01:03 [worker.py:20] Memory profiling takes 4.1 seconds"]
_BEFORE = ["INFO 08-27 21:01:02 profiler.py:62] Profiler enabled for: vllm-instance-51f6",
           "WARNING 08-27 21:01:02 utils.py:566] Pin memory is not supported on HPU.",
           "INFO 08-27 21:01:02 habana_model_runner.py:589] Decode bucket config (min, step, "
           "max_warmup) bs:[128, 128, 256], seq:[1024, 128, 2048]"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_BEFORE), max_size=3), records,
       st.lists(st.sampled_from(_AFTER), max_size=3))
def test_a_record_that_says_what_the_program_goes_on_with_is_no_failure(
        before: list[str], record: str, after: list[str]) -> None:
    lines = [*before, record, *after]
    assert explain(lines).verdict is Verdict.NO_FAILURE, lines


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_BEFORE), max_size=2), records,
       st.lists(st.sampled_from(_AFTER), max_size=2))
def test_a_failure_after_such_a_record_is_the_root(before: list[str], record: str,
                                                   after: list[str]) -> None:
    failure = ["Traceback (most recent call last):",
               '  File "/usr/lib/python3.10/site-packages/vllm/worker/hpu_worker.py", line 9, '
               "in determine_num_available_blocks",
               "    raise RuntimeError(msg)",
               "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed"]
    lines = [*before, record, *after, *failure]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"
    assert report.root_cause.line == len(lines)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([
    "ERROR 08-27 21:01:02 [backends.py:12] Compilation failed. You can suppress this exception "
    "and fall back to eager by setting torch._dynamo.config.suppress_errors = True",
    "ERROR 08-27 21:01:02 [utils.py:12] Custom allreduce failed, falling back to NCCL if the "
    "peers allow it",
    "ERROR 08-27 21:01:02 [loader.py:12] Ignoring this error would corrupt the weights",
    "ERROR 08-27 21:01:02 [model_runner.py:12] Failed to allocate the KV cache: not enough "
    "device memory",
]), st.lists(st.sampled_from(_BEFORE), max_size=2))
def test_a_suggestion_or_a_condition_to_go_on_is_still_a_failure(record: str,
                                                                  before: list[str]) -> None:
    lines = [*before, record]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.line == len(lines)


# ---- an exception that restates its cause as what happened while it worked ------------------

_WRAPPERS = [
    "CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try "
    "lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
    "CUDA out of memory occurred while warming up the pooler with 64 dummy requests.",
]
_CAUSES = [
    ("torch.OutOfMemoryError", ["CUDA out of memory.", "Tried to allocate 252.00 MiB. GPU 0 has "
                                "a total capacity of 10.57 GiB of which 163.12 MiB is free."]),
    ("torch.cuda.OutOfMemoryError", ["CUDA out of memory. Tried to allocate 2.00 GiB."]),
]
_TRACE = ["Traceback (most recent call last):",
          '  File "/usr/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py", '
          "line 2100, in _dummy_sampler_run",
          "    sampler_output = self.sampler(logits=dummy_logits)"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_WRAPPERS), st.sampled_from(_CAUSES), st.booleans(), st.booleans(),
       st.sampled_from(["", "(EngineCore_DP0 pid=7) "]), st.lists(st.sampled_from(
           ["", "Warning: PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead"]),
           max_size=2), st.booleans())
def test_the_exception_a_restatement_names_is_its_cause_in_either_order(
        wrapper: str, cause: tuple[str, list[str]], wrapper_first: bool, traced: bool,
        prefix: str, tail: list[str], gap: bool) -> None:
    name, message = cause
    cause_lines = [*(_TRACE if traced else []), f"{name}: {message[0]}", *message[1:]]
    wrapper_lines = [f"RuntimeError: {wrapper}"]
    blocks = [wrapper_lines, cause_lines] if wrapper_first else [cause_lines, wrapper_lines]
    lines = [prefix + line for line in [*blocks[0], *([""] if gap else []), *blocks[1]]] + tail
    report = explain(lines)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE, lines
    assert root is not None and root.exception == name, (root, lines)
    assert root.message.startswith(message[0])


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([
    ("RuntimeError: CUDA out of memory.", "RuntimeError: CUDA out of memory. Tried to allocate"),
    ("ValueError: bad value", "RuntimeError: bad value occurred when loading the model"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered",
     "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors"),
    ("KeyError: 'model.layers.0.weight'", "RuntimeError: failed while loading the model"),
]))
def test_a_copy_a_short_headline_or_unrelated_words_are_no_restatement(
        pair: tuple[str, str]) -> None:
    first, second = pair
    lines = [first, "", *second.split("\n")]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.line == 1, lines


# ---- a statement's lines and an `assert` in pytest's listing of a traceback ------------------

_NAMES = ["serialization.SerializedRayObject", "torch.Tensor", "typing.Optional",
          "ray_constants.OBJECT_METADATA", "np.ndarray"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_NAMES), st.sampled_from(["List[", "Dict[str, ", "foo(", "cast(", "(",
                                                 "call(x,"]),
       st.sampled_from(["    ", "        ", "            "]))
def test_a_bare_class_name_inside_an_open_statement_is_code(name: str, opener: str,
                                                            indent: str) -> None:
    lines = ["    def get_objects(", "        self,", "    ):",
             f"{indent}values: {opener}", f"{indent}    {name}", f"{indent}] = self.get(refs)",
             "", "tests/test_x.py:12: ", "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _"]
    report = explain(lines)
    assert report.root_cause is None or name not in report.root_cause.exception, lines


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["E   ", "E       ", "E                       "]),
       st.sampled_from(["assert self.stats_update_address is not None", "assert x == 1",
                        "assert len(blocks) > 0, 'no blocks'"]),
       st.booleans())
def test_an_assert_in_a_traceback_behind_pytests_margin_is_its_frames_source(
        margin: str, statement: str, caret: bool) -> None:
    lines = [">           raise value.as_instanceof_cause()",
             f"{margin}ray.exceptions.RayTaskError(AssertionError): ray::Actor.start() "
             "(pid=2304492, ip=10.0.143.202)",
             f'{margin}  File "/home/ray/vllm/v1/engine/core_client.py", line 1091, in '
             "_ensure_stats_update_task",
             f"{margin}    {statement}",
             *([f"{margin}           ^^^^^^^^^^^^^^^^^^^^"] if caret else []),
             f"{margin}AssertionError", ""]
    report = explain(lines)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE, lines
    assert root is not None and root.exception == "AssertionError", (root, lines)
    assert root.first_line <= len(lines) - 1 <= root.last_line, (root, lines)
    assert root.frames and root.frames[-1].code == statement


# ---- an error record its process went on from: Gaudi's bucket grid made after it ------------

_GAUDI_PREFIXES = ["", "(RayWorkerWrapper pid=81) ", "(VllmWorker rank=0 pid=81) "]
_BUCKET_ERRORS = [
    "ERROR 08-27 21:01:02 habana_model_runner.py:128] The current bucketing configuration does "
    "not fit the token budget",
    "ERROR 08-27 21:01:02 [hpu_model_runner.py:128] Bucket minimum above maximum for decode",
    "[ERROR] bucket settings VLLM_DECODE_BS_BUCKET_MIN=128 conflict with max_num_seqs=64",
]
_GRIDS = ["INFO 08-27 21:01:02 habana_model_runner.py:600] Generated 32 decode buckets: "
          "[(128, 128), (128, 256)]",
          "INFO 08-27 21:01:02 [hpu_model_runner.py:576] Generated 23 prompt buckets [bs, seq]: "
          "[(1, 128), (1, 256)]"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_GAUDI_PREFIXES), st.sampled_from(_BUCKET_ERRORS),
       st.lists(st.sampled_from(_BEFORE), max_size=2), st.sampled_from(_GRIDS))
def test_an_error_record_before_the_bucket_grid_is_one_the_runner_went_on_from(
        prefix: str, record: str, before: list[str], grid: str) -> None:
    lines = [prefix + line for line in [*before, record, grid]]
    assert explain(lines).verdict is Verdict.NO_FAILURE, lines


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(_GAUDI_PREFIXES), st.sampled_from(_BUCKET_ERRORS),
       st.sampled_from(_GRIDS))
def test_an_error_record_after_the_bucket_grid_is_still_the_failure(prefix: str, record: str,
                                                                     grid: str) -> None:
    lines = [prefix + grid, prefix + record]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.line == 2
