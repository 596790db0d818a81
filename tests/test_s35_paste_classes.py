"""Session 35's paste classes (issues 10, 11): the same failure, pasted any way, gets the same answer.

- The executor's wrapper that quotes a worker's str(e) (`RuntimeError: Worker failed with error
  '...', please check the stack trace above for the root cause`, causality.yaml `wrappers`)
  restating an error that only reports a failure elsewhere (a peer's aborted NCCL communicator, a
  dead process, the engine's own start-up report) reports it too: it is a symptom, whatever era's
  prefix the worker and the engine print, and the log's verdict stays root_cause_missing. A
  wrapper that quotes a cause stays that cause's restatement (the near miss).
- tests/paste_perturbations.py's frames cut keeps a traceback's exception line wherever its
  header's column is (pip's box shifts a setup.py's traceback by six) and applies only where the
  traceback printed one (a paste cut before it has nothing left to keep).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from paste_perturbations import frames_cut
from v1log import ERAS, SITE

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

# errors that only report a failure elsewhere (causality.yaml `symptoms`), as a worker raises them
SYMPTOMS = [
    ("torch.distributed.DistBackendError", "NCCL communicator was aborted on rank {rank}."),
    ("RuntimeError", "Connection closed by peer [10.0.0.{rank}]:29500"),
    ("RuntimeError", "Engine core initialization failed. See root cause above. Failed core "
                     "proc(s): {{}}"),
    ("RuntimeError", "Process Worker_TP{rank} (PID: 2078{rank}1) died with exit code -9"),
]
# causes a worker raises, which its wrapper restates (the near miss)
CAUSES = [
    ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB. GPU {rank} has a "
                               "total capacity of 79.10 GiB of which 1.06 GiB is free."),
    ("ValueError", "The model's max seq len (32768) is larger than the maximum number of tokens "
                   "that can be stored in KV cache (20480)."),
]


def _log(era_index: int, rank: int, error: tuple[str, str], *, wrapped: bool) -> str:
    era = ERAS[era_index]
    worker = era.worker.format(rank=rank, pid=207850 + rank)
    engine = era.engine or "(EngineCore_0 pid=4100) "
    head = f"ERROR 02-05 10:11:30 [{era.site}] "
    cls, message = error[0], error[1].format(rank=rank)
    lines = [f"{worker}INFO 02-05 10:11:01 [gpu_model_runner.py:3861] Starting to load model m...",
             f"{worker}{head}{era.title_busy.format(method='execute_model')}",
             f"{worker}{head}Traceback (most recent call last):",
             f'{worker}{head}  File "{SITE}{era.loop[0]}", line 101, in {era.loop[1]}',
             f"{worker}{head}    output = func(*args, **kwargs)",
             f"{worker}{head}{cls}: {message}"]
    if wrapped:
        lines.append(f"{engine}ERROR 02-05 10:11:31 [core.py:946] RuntimeError: Worker failed "
                     f"with error '{message}', please check the stack trace above for the root "
                     "cause")
    return "\n".join(lines) + "\n"


def _report(text: str):  # type: ignore[no-untyped-def]
    return explain_text(text, signatures=default_signatures())


@settings(max_examples=30, deadline=None)
@given(era=st.integers(0, len(ERAS) - 1), rank=st.integers(0, 7),
       error=st.sampled_from(SYMPTOMS))
def test_a_wrapper_that_restates_a_symptom_is_a_symptom(era: int, rank: int,
                                                        error: tuple[str, str]) -> None:
    bare = _report(_log(era, rank, error, wrapped=False))
    wrapped = _report(_log(era, rank, error, wrapped=True))
    assert str(bare.verdict) == "root_cause_missing"
    assert str(wrapped.verdict) == "root_cause_missing", wrapped.root_cause
    assert (wrapped.signature and wrapped.signature.id) == (bare.signature and bare.signature.id)


@settings(max_examples=20, deadline=None)
@given(era=st.integers(0, len(ERAS) - 1), rank=st.integers(0, 7), error=st.sampled_from(CAUSES))
def test_a_wrapper_that_restates_a_cause_keeps_the_workers_error_the_root(
        era: int, rank: int, error: tuple[str, str]) -> None:
    report = _report(_log(era, rank, error, wrapped=True))
    assert str(report.verdict) == "failure"
    assert report.root_cause is not None and report.root_cause.exception == error[0]


def test_frames_cut_keeps_the_exception_line_of_a_traceback_inside_pips_box() -> None:
    box = ["  ╰─> [6 lines of output]", "      Traceback (most recent call last):",
           '        File "<string>", line 98, in <module>', "          raise RuntimeError(x)",
           "      RuntimeError: GPUs with compute capability below 7.0 are not supported.",
           "      [end of output]"]
    assert frames_cut(box, random.Random(0)) == [
        box[0], "      RuntimeError: GPUs with compute capability below 7.0 are not supported.",
        box[-1]]


def test_frames_cut_does_not_apply_to_a_traceback_cut_before_its_exception_line() -> None:
    head = "(EngineCore_0 pid=1) ERROR 05-21 09:19:05 [core.py:517] "
    tailless = [f"{head}EngineCore encountered a fatal error.",
                f"{head}Traceback (most recent call last):",
                f'{head}  File "/x/ray/dag/compiled_dag_node.py", line 2515, in _execute_until',
                f"{head}    result = self._dag_output_fetcher.read(timeout)"]
    assert frames_cut(tailless, random.Random(0)) is None
    assert frames_cut(tailless + [f"{head}", "INFO next"], random.Random(0)) is None
    ended = tailless + [f"{head}ray.exceptions.RayChannelTimeoutError: System error: timed out"]
    assert frames_cut(ended, random.Random(0)) == [ended[0], ended[-1]]


# pip's report of a build step it ran in a child, and the child's traceback in its box
_STEPS = ["Getting requirements to build wheel", "Preparing metadata (pyproject.toml)",
          "python setup.py egg_info", "Building wheel for vllm (pyproject.toml)"]
_CHILD_ERRORS = [("RuntimeError", "GPUs with compute capability below 7.0 are not supported."),
                 ("RuntimeError", "Unknown runtime environment"),
                 ("OSError", "CUDA_HOME environment variable is not set. Please set it to your "
                             "CUDA install root."),
                 ("AssertionError", "CUDA_HOME is not set")]


def _pip_box(step: str, error: tuple[str, str], kept: int, *, frames: bool) -> str:
    """`pip install` of a source package whose build step raised: the child's traceback in the
    box, all of it (`frames`) or only its last `kept` source lines and its exception line."""
    trace = ['      Traceback (most recent call last):',
             '        File "/tmp/pip-build-env-x/overlay/setuptools/build_meta.py", line 341, in '
             'run_setup', '          exec(code, locals())',
             '        File "<string>", line 98, in <module>',
             f'          raise {error[0]}("...")']
    if not frames:
        trace = [line for line in trace[1:] if not line.lstrip().startswith("File ")][-kept:] \
            if kept else []
    lines = ["$ pip install vllm==0.6.3", "Collecting vllm==0.6.3",
             "  Downloading vllm-0.6.3.tar.gz (2.7 MB)",
             f"  {step} ... error", "  error: subprocess-exited-with-error", "",
             f"  × {step} did not run successfully.", "  │ exit code: 1",
             f"  ╰─> [{len(trace) + 1} lines of output]", *trace,
             f"      {error[0]}: {error[1]}", "      [end of output]", "",
             "  note: This error originates from a subprocess, and is likely not a problem with pip.",
             "error: subprocess-exited-with-error"]
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None)
@given(step=st.sampled_from(_STEPS), error=st.sampled_from(_CHILD_ERRORS), kept=st.integers(0, 2))
def test_a_childs_exception_in_pips_box_is_read_the_same_without_its_frames(
        step: str, error: tuple[str, str], kept: int) -> None:
    whole = _report(_pip_box(step, error, kept, frames=True))
    cut = _report(_pip_box(step, error, kept, frames=False))
    assert whole.root_cause is not None and whole.root_cause.exception == error[0]
    assert cut.root_cause is not None, _pip_box(step, error, kept, frames=False)
    assert (cut.root_cause.exception, cut.root_cause.message) == (error[0], error[1])
    assert str(cut.verdict) == str(whole.verdict)
    assert (cut.signature and cut.signature.id) == (whole.signature and whole.signature.id)


def test_a_box_without_an_exception_line_stays_the_build_steps_report() -> None:
    # the near miss: the child printed words, not an exception
    text = _pip_box(_STEPS[0], ("RuntimeError", "x"), 0, frames=False)
    report = _report(text.replace("      RuntimeError: x\n", "      CUDA_HOME is not set\n"))
    assert report.root_cause is None or report.root_cause.exception != "RuntimeError"
