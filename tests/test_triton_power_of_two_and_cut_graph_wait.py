"""Two serving-time classes from the s19b cold sweep (tests/fixtures/tuning/README.md).

1. Triton's `arange's range must be a power of 2`, raised while a vLLM Triton kernel compiles
   (the V1 unified-attention kernel for a model whose query heads per KV head are not a power of
   two, vllm#18088; a fused-MoE config with such a block): known by its words in every era and
   launcher, with or without the kernel's frames or the CompilationError that follows.
2. A Ray compiled-graph wait pasted up to the channel read and cut before its exception line
   (vllm#15102): the excerpt's last frame is in the compiled graph's output channel, which is the
   wait RayChannelTimeoutError ends, so the advice is that signature's even though the error
   itself is not in the log.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, python_traceback, worker_failure

TRITON = "/usr/local/lib/python3.{minor}/dist-packages/triton/language/"
ARANGE = ("ValueError: arange's range must be a power of 2\n"
          "\nThe above exception was the direct cause of the following exception:\n")
KERNELS = [  # (vLLM file, function, Triton kernel's source line)
    ("attention/ops/triton_unified_attention.py", "unified_attention",
     "offs_m = tl.arange(0, BLOCK_Q * num_queries_per_kv)"),
    ("model_executor/layers/fused_moe/fused_moe.py", "invoke_fused_moe_kernel",
     "offs_k = tl.arange(0, BLOCK_SIZE_K)"),
]


def _triton_frames(minor: int) -> tuple[tuple[str, str], ...]:
    return ((f"{TRITON.format(minor=minor)}core.py", "arange"),
            (f"{TRITON.format(minor=minor)}semantic.py", "arange"))


@settings(max_examples=25, deadline=None)
@given(era=st.sampled_from(ERAS), phase=st.sampled_from([Phase.SERVING, Phase.PROFILE]),
       minor=st.sampled_from([10, 11, 12]), kernel=st.sampled_from(KERNELS),
       chained=st.booleans())
def test_a_kernel_block_that_is_not_a_power_of_two_is_known_by_its_words(
        era, phase, minor, kernel, chained) -> None:  # type: ignore[no-untyped-def]
    error = "ValueError: arange's range must be a power of 2"
    if chained:
        error = (ARANGE + "\nTraceback (most recent call last):\n"
                 f'  File "/usr/local/lib/python3.{minor}/dist-packages/vllm/{kernel[0]}", '
                 f"line 294, in {kernel[1]}\n    kernel[(\n"
                 "triton.compiler.errors.CompilationError: at 33:13:\n"
                 f"    {kernel[2]}\n             ^")
    log = worker_failure(error, phase=phase, era=era, inner=_triton_frames(minor))
    report = explain_text(log, signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    assert report.signature is not None
    assert report.signature.id == "triton-arange-block-not-power-of-two", report.signature.id
    assert "power-of-two" in report.signature.fix and "18088" in report.signature.fix


@settings(max_examples=10, deadline=None)
@given(prefix=st.sampled_from(["", "(VllmWorker rank=0 pid=239570) ERROR 05-13 16:11:49 "
                                   "[multiproc_executor.py:522] "]),
       minor=st.sampled_from([10, 12]))
def test_an_excerpt_with_only_the_triton_frames_is_known_too(prefix: str, minor: int) -> None:
    # the issue index's excerpt of vllm#18088 kept Triton's frames and the error, nothing of vLLM
    frames = [(f"{TRITON.format(minor=minor)}core.py", "arange",
               "return semantic.arange(start, end, _builder)"),
              (f"{TRITON.format(minor=minor)}semantic.py", "arange",
               'raise ValueError("arange\'s range must be a power of 2")')]
    log = python_traceback(frames, "ValueError: arange's range must be a power of 2", prefix)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.id == "triton-arange-block-not-power-of-two"


def test_the_other_arange_check_is_not_this_class() -> None:
    frames = [(f"{TRITON.format(minor=12)}semantic.py", "arange",
               'raise ValueError("arange\'s end argument must be greater than the start argument")')]
    log = python_traceback(frames, "ValueError: arange's end argument must be greater than the "
                                   "start argument")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.id != "triton-arange-block-not-power-of-two"


RAY = "/usr/local/lib/python3.12/dist-packages/ray/"
WAIT = [  # the compiled graph's wait, outermost first, as Ray 2.43-2.48 prints it
    (f"{RAY}dag/compiled_dag_node.py", "_execute_until", "result = self._dag_output_fetcher.read(timeout)"),
    (f"{RAY}experimental/channel/common.py", "read", "outputs = self._read_list(timeout)"),
    (f"{RAY}experimental/channel/common.py", "_read_list", "raise e"),
    (f"{RAY}experimental/channel/shared_memory_channel.py", "read",
     "return self._channel_dict[self._resolve_actor_id()].read(timeout)"),
]
ENGINES = ["ERROR 03-14 00:01:05 [core.py:337] ",
           "(EngineCore_0 pid=52311) ERROR 05-21 09:19:05 [core.py:517] ",
           "(EngineCore_DP0 pid=610) ERROR 10-07 12:51:42 [core.py:720] "]
HEADERS = ["EngineCore hit an exception: Traceback (most recent call last):",
           "EngineCore encountered a fatal error.\nTraceback (most recent call last):"]


def _cut_wait(prefix: str, header: str, depth: int) -> str:
    lines = header.split("\n")
    for number, (path, function, code) in enumerate(WAIT[:depth], start=309):
        lines += [f'  File "{path}", line {number}, in {function}', f"    {code}"]
    serving = ("INFO 03-14 00:00:59 [loggers.py:80] Avg prompt throughput: 102.5 tokens/s, Avg "
               "generation throughput: 0.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs\n")
    return serving + "".join(f"{prefix}{line}\n" for line in lines)


@settings(max_examples=25, deadline=None)
@given(prefix=st.sampled_from(ENGINES), header=st.sampled_from(HEADERS),
       depth=st.integers(min_value=1, max_value=len(WAIT)))
def test_a_compiled_graph_wait_cut_before_its_exception_gets_the_timeout_advice(
        prefix: str, header: str, depth: int) -> None:
    report = explain_text(_cut_wait(prefix, header, depth), signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert report.signature is not None
    assert report.signature.id == "ray-compiled-graph-channel-timeout", report.signature.id
    assert "RAY_CGRAPH_get_timeout" in report.signature.fix


def test_a_cut_traceback_elsewhere_is_not_a_compiled_graph_wait() -> None:
    log = ("ERROR 03-14 00:01:05 [core.py:337] EngineCore hit an exception: Traceback (most "
           "recent call last):\n"
           'ERROR 03-14 00:01:05 [core.py:337]   File "/usr/local/lib/python3.12/dist-packages/'
           'vllm/v1/worker/gpu_model_runner.py", line 1210, in execute_model\n'
           "ERROR 03-14 00:01:05 [core.py:337]     raise e\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.id != "ray-compiled-graph-channel-timeout"
