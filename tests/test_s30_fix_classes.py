"""Classes behind session 30's twenty-first split's cold fix misses, each generated over its
wordings and the ways a log shows it, with a near miss:

- a forward pass longer than the token budget that ends the compiled graph ranges (vLLM's
  piecewise backend in both of its wordings, on any platform's graph wrapper, in a profiling
  dummy run, a warm-up or a step; a platform plugin's graph buffers sized by the capture size and
  the budget): compile-range-exceeded-by-batch, whose fix names `--max-num-batched-tokens`, the
  drafter's `max_num_seqs * (1 + num_speculative_tokens)` and `--enforce-eager`; the piecewise
  backend's other assertions and shape mismatches elsewhere do not get it."""

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
