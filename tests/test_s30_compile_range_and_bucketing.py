"""Classes behind session 30's twenty-first split's cold fix misses, each generated over its
wordings and the ways a log shows it, with a near miss:

- a forward pass longer than the token budget that ends the compiled graph ranges (vLLM's
  piecewise backend in both of its wordings, on any platform's graph wrapper, in a profiling
  dummy run, a warm-up or a step; a platform plugin's graph buffers sized by the capture size and
  the budget): compile-range-exceeded-by-batch, whose fix names `--max-num-batched-tokens`, the
  drafter's `max_num_seqs * (1 + num_speculative_tokens)` and `--enforce-eager`; the piecewise
  backend's other assertions and shape mismatches elsewhere do not get it;
- a warm-up bucket grid with an empty or inverted range, raised in a shape-compiling plugin's
  bucketing package (Gaudi's exponential strategy taking the logarithm of zero blocks, a division
  by a zero step, RBLN's range checks): warmup-bucketing-range-degenerate, whose fix names
  `--max-model-len` against `--block-size` and `VLLM_SKIP_WARMUP`; the same math error elsewhere
  does not get it;
- a worker's log pasted wrapped at word boundaries (an editor's or a form's width, the record's
  head cut before or inside its time and call site, ESC colour codes written out or not): read
  joined (hardwrap.py SOFT), its root cause is the printed log's, with its process and frames."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- a forward pass beyond the compiled ranges -----------------------------------------------------

# (runner file, the method that formed the pass) of each platform's model runner
_PASSES = st.sampled_from([
    ("vllm/v1/worker/gpu_model_runner.py", "_dummy_run"),
    ("vllm/v1/worker/gpu_model_runner.py", "profile_run"),
    ("vllm/v1/worker/gpu_model_runner.py", "execute_model"),
    ("vllm_ascend/worker/model_runner_v1.py", "_dummy_run"),
    ("vllm_ascend/spec_decode/dflash_proposer.py", "dummy_run"),
    ("vllm/v1/worker/xpu_model_runner.py", "_dummy_run"),
])
# the graph wrapper between the runner and the piecewise backend
_WRAPPERS = st.sampled_from([
    ("vllm/compilation/cuda_graph.py", "__call__"),
    ("vllm_ascend/compilation/acl_graph.py", "__call__"),
    ("vllm/compilation/caching.py", "__call__"),
])


def _ranges(budget: int, splits: list[int]) -> str:
    points = sorted({s for s in splits if 1 < s < budget}) + [budget]
    starts = [1] + [p + 1 for p in points[:-1]]
    return "[" + ", ".join(f"({a}, {b})" for a, b in zip(starts, points)) + "]"


@settings(max_examples=80, deadline=None)
@given(runner=_PASSES, wrapper=_WRAPPERS, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       budget=st.sampled_from([512, 2048, 4096, 8192, 16384]), over=st.integers(1, 30000),
       splits=st.lists(st.integers(2, 16384), max_size=3),
       wording=st.sampled_from(["ranges", "range"]))
def test_a_pass_beyond_the_compiled_ranges_gets_the_token_budget_advice(
        runner: tuple[str, str], wrapper: tuple[str, str], py: str, site: str, prefix: str,
        budget: int, over: int, splits: list[int], wording: str) -> None:
    root = site.format(py=py)
    shape = budget + over
    frames = [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
               "output = func(*args, **kwargs)"),
              (f"{root}{runner[0]}", runner[1], "outputs = self.model(input_ids=input_ids)"),
              (f"{root}{wrapper[0]}", wrapper[1], "return self.runnable(*args, **kwargs)"),
              (f"{root}vllm/compilation/piecewise_backend.py", "__call__",
               "assert range_entry is not None, (")]
    error = (f"AssertionError: Shape: {shape} out of considered ranges: {_ranges(budget, splits)}"
             if wording == "ranges" else
             f"AssertionError: Shape out of considered range: {shape} [1, max_num_batched_tokens]")
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "compile-range-exceeded-by-batch"
    assert "--max-num-batched-tokens" in fix and "num_speculative_tokens" in fix, fix
    assert "--enforce-eager" in fix, fix


@settings(max_examples=30, deadline=None)
@given(prefix=TRACEBACK_PREFIXES, tokens=st.integers(2049, 65536), capacity=st.integers(1, 2048),
       bucket=st.integers(1, 256), buffers=st.integers(64, 8192), k=st.integers(1, 16),
       plugin=st.sampled_from(["ascend", "rbln"]))
def test_a_plugin_graph_buffer_below_the_pass_gets_the_token_budget_advice(
        prefix: str, tokens: int, capacity: int, bucket: int, buffers: int, k: int,
        plugin: str) -> None:
    error = (f"ValueError: embedding_tp static capacity {capacity} < num_tokens {tokens}; increase "
             "max_cudagraph_capture_size or max_num_batched_tokens." if plugin == "ascend" else
             f"ValueError: the {bucket}-request decode bucket needs {bucket * (k + 1)} draft query "
             f"tokens, more than the {buffers}-token buffers: every decode bucket times {k + 1} "
             "has to fit max_num_batched_tokens")
    sid, fix = signature_advice(prefix + error + "\n")
    assert sid == "compile-range-exceeded-by-batch", error
    assert "--max-num-batched-tokens" in fix and "--max-cudagraph-capture-size" in fix, fix


@pytest.mark.parametrize("error", [
    "AssertionError: Expected exactly one compiled range_entry for static shape compilation, but "
    "found 2",
    "AssertionError: All ranges should be compiled or loaded up front in PiecewiseBackend.__init__. "
    "range_entry=(1, 2048)",
    "RuntimeError: Shape mismatch: torch.Size([2304, 4096]) vs torch.Size([2048, 4096])",
])
def test_the_backend_s_other_assertions_are_not_the_token_budget(error: str) -> None:
    site = "/usr/local/lib/python3.12/dist-packages/"
    frames = [(f"{site}vllm/v1/worker/gpu_model_runner.py", "_dummy_run",
               "outputs = self.model(input_ids=input_ids)"),
              (f"{site}vllm/compilation/piecewise_backend.py", "__call__",
               "assert len(compiled_entries) == 1, (")]
    from logsleuth.pipeline import explain_text

    report = explain_text(python_traceback(frames, error))
    assert report.signature is None or report.signature.id != "compile-range-exceeded-by-batch"


# ---- a warm-up bucket grid with an empty range ------------------------------------------------------
# (the twenty-first split's Gaudi calibration run: max_model_len of one block, the exponential
# strategy's logarithm of a context range of zero blocks)

_BUCKETING_RAISES = st.sampled_from([
    ("vllm_gaudi/extension/bucketing/exponential.py", "get_prompt_cfgs",
     "max_prompt_ctx_limit = 2 if max_ctx == 1 else math.ceil(math.log2(max_ctx)) + 1",
     "ValueError: math domain error"),
    ("vllm_gaudi/extension/bucketing/exponential.py", "get_decode_cfgs",
     "max_decode_block_limit = math.ceil(math.log2(max_blocks)) + 1",
     "ValueError: math domain error"),
    ("vllm_gaudi/extension/bucketing/linear.py", "warmup_range",
     "num_steps = (bmax - bmin) // bstep", "ZeroDivisionError: integer division or modulo by zero"),
    ("vllm_hpu_extension/bucketing/exponential.py", "warmup_range_with_limit",
     "num_buckets_exp = math.floor(math.log(bmax / bmin, base))", "ValueError: math domain error"),
    ("vllm_rbln/v1/worker/bucketing/bucketing_manager.py", "check_config",
     'raise ValueError(f"step must be greater than 0, step: {step}")',
     "ValueError: step must be greater than 0, step: 0"),
    ("vllm_rbln/v1/worker/bucketing/bucketing_manager.py", "check_config",
     "raise ValueError(", "ValueError: max_batch_size must be >= min_batch_size, max_batch_size: 1, "
                         "min_batch_size: 4"),
])


@settings(max_examples=60, deadline=None)
@given(raising=_BUCKETING_RAISES, py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_degenerate_bucket_range_gets_the_engine_limit_advice(
        raising: tuple[str, str, str, str], py: str, site: str, prefix: str) -> None:
    path, function, code, error = raising
    root = site.format(py=py)
    plugin = path.split("/")[0]
    frames = [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
               "output = func(*args, **kwargs)"),
              (f"{root}{plugin}/v1/worker/model_runner.py", "warmup_model",
               "self.bucketing_manager.generate_prompt_buckets()"),
              (f"{root}{path}", function, code)]
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "warmup-bucketing-range-degenerate", error
    assert "--max-model-len" in fix and "--block-size" in fix and "VLLM_SKIP_WARMUP" in fix, fix


@settings(max_examples=30, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES,
       where=st.sampled_from([("vllm_gaudi/v1/worker/hpu_model_runner.py", "_prepare_inputs"),
                              ("vllm_gaudi/ops/hpu_attention.py", "forward"),
                              ("vllm/v1/worker/gpu_model_runner.py", "_dummy_run")]))
def test_the_same_math_error_outside_a_bucketing_module_is_not_the_bucket_grid(
        py: str, site: str, where: tuple[str, str]) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
               "output = func(*args, **kwargs)"),
              (f"{root}{where[0]}", where[1], "scale = math.log2(value)")]
    from logsleuth.pipeline import explain_text

    report = explain_text(python_traceback(frames, "ValueError: math domain error"))
    assert report.signature is None or report.signature.id != "warmup-bucketing-range-degenerate"


# ---- a log pasted wrapped at word boundaries --------------------------------------------------------
# (the same case: every record of a worker's log broken at 72 columns where a word ended, its head
# cut before the call site; read row by row, no frame is a frame and the exception is main's)

_HEADS = st.sampled_from(["(Worker_TP{rank} pid={pid}) ",
                          "ESC[1;36m(Worker_TP{rank} pid={pid})ESC[0;0m ",
                          "\x1b[1;36m(Worker_TP{rank} pid={pid})\x1b[0;0m "])


def _soft_wrapped(lines: list[str], width: int) -> str:
    import textwrap

    rows: list[str] = []
    for line in lines:
        rows += textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(rows) + "\n"


@settings(max_examples=40, deadline=None)
@given(head=_HEADS, rank=st.integers(0, 7), pid=st.integers(100, 99999),
       width=st.integers(48, 68), raising=_BUCKETING_RAISES, py=PYTHONS, site=SITE_PACKAGES)
def test_a_log_wrapped_at_word_boundaries_is_read_as_printed(
        head: str, rank: int, pid: int, width: int, raising: tuple[str, str, str, str], py: str,
        site: str) -> None:
    from logsleuth.pipeline import explain_text

    path, function, code, error = raising
    root = site.format(py=py)
    record = head.format(rank=rank, pid=pid) + "ERROR 10-22 22:53:05 [multiproc_executor.py:703] "
    body = ["WorkerProc hit an exception.", "Traceback (most recent call last):"]
    for file, func, line in [(f"{root}vllm/v1/executor/multiproc_executor.py", "worker_busy_loop",
                              "output = func(*args, **kwargs)"),
                             (f"{root}vllm/v1/worker/worker_base.py", "initialize_from_config",
                              "self.worker.initialize_from_config(kv_cache_config)"),
                             (f"{root}{path}", function, code)]:
        body += [f'  File "{file}", line 42, in {func}', f"    {line}"]
    body.append(error)
    printed = [head.format(rank=rank, pid=pid) + "INFO 10-22 22:53:04 [hpu_worker.py:242] "
               "Initializing cache engine took 74.67 GiB of device memory"]
    printed += [record + text for text in body]
    want = explain_text("\n".join(printed) + "\n").root_cause
    wrapped = _soft_wrapped(printed, width)
    got = explain_text(wrapped).root_cause
    assert want is not None and got is not None, wrapped
    assert (got.exception, got.message, got.process.name) == \
        (want.exception, want.message, f"Worker_TP{rank}"), wrapped
    assert got.frames and got.frames[-1].file.endswith(path), wrapped
    assert got.first_line <= len(wrapped.splitlines()) and got.last_line == len(wrapped.splitlines())
