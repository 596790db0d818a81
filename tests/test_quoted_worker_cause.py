"""The engine core's restatement of a worker's failure is matched as the failure it quotes.

vLLM's multiprocess executor (vllm/v1/executor/multiproc_executor.py, `get_response` under
`collective_rpc`) raises `RuntimeError: Worker failed with error '<str(e)>', please check the
stack trace above for the root cause` in the engine core for a worker's exception, and the API
server then reports `EngineCore encountered an issue`. The engine core's traceback ends in the
executor's module; the worker's own traceback comes above it, unless the excerpt starts after it
or the worker's output went elsewhere. Then the quoted text is the only evidence of the cause:

- a quoted error a family knows gets that family, with or without the worker's traceback;
- one no family knows gets the fallback of its class (the interpreter's words name the class:
  `'NoneType' object has no attribute ...` is an AttributeError), never the executor's family by
  the restating module alone;
- a quoted error the executor itself raises (vLLM's index files it under vllm.v1.executor) keeps
  the executor's family (the counter-test).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, SITE, worker_failure

_SIGS = default_signatures()
_EXECUTOR = "executor-backend-rejected"

# (the worker's exception as Python prints it, the family of the quoted message alone); None: no
# family knows it, the fallback of its class answers
_KNOWN = [
    ("OSError: [Errno 24] Too many open files", "too-many-open-files"),
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x4096 and 2048x4096)",
     "tensor-shape-mismatch-in-forward"),
    ("RuntimeError: The size of tensor a (4096) must match the size of tensor b (2048) at "
     "non-singleton dimension 1", "tensor-shape-mismatch-in-forward"),
]
_INTERPRETER = [
    ("AttributeError: 'NoneType' object has no attribute 'shape'", "fallback-attribute-missing"),
    ("AttributeError: 'dict' object has no attribute 'to'",
     "fallback-attribute-missing"),
]
_UNKNOWN = [
    "RuntimeError: the frobnicator could not settle the widget queue",
    "ValueError: expected a zorblat table of width 7, got 9",
    "KeyError: 'request_id'",
    "IndexError: list index out of range",
]
# messages the executor raises itself (vllm/v1/executor/ray_distributed_executor.py)
_EXECUTORS_OWN = [
    "ValueError: Invalid value for VLLM_USE_RAY_COMPILED_DAG_CHANNEL_TYPE: tcp. Valid values "
    "are: 'auto', 'nccl', or 'shm'.",
    "ValueError: cupy is not installed but required since VLLM_USE_RAY_COMPILED_DAG_CHANNEL_TYPE "
    "is set to 'nccl'. Run `pip install ray[cgraph]` and check cupy installation.",
]

_V1 = [era for era in ERAS if era.name.startswith("v1")]
_TITLES = ["EngineCore encountered a fatal error.", "EngineCore hit an exception."]
_TAILS = [", please check the stack trace above for the root cause", ""]


def _engine_only(error: str, engine: str, title: str, tail: str) -> str:
    """The engine core's report of worker `error` with no worker output above it: its traceback
    through the executor's collective_rpc to the raise, then the API server's symptom."""
    message = error.partition(": ")[2]
    head = f"{engine}ERROR 02-05 10:11:31 [core.py:946] "
    frames = [("v1/engine/core.py", "run_engine_core", "engine_core.run_busy_loop()"),
              ("v1/engine/core.py", "run_busy_loop", "self._process_engine_step()"),
              ("v1/engine/core.py", "step", "model_output = self.execute_model(scheduler_output)"),
              ("v1/executor/multiproc_executor.py", "execute_model",
               "(output, ) = self.collective_rpc("),
              ("v1/executor/multiproc_executor.py", "collective_rpc",
               "result = get_response(w, dequeue_timeout)"),
              ("v1/executor/multiproc_executor.py", "get_response", "raise RuntimeError(")]
    lines = [f"{engine}INFO 02-05 10:11:05 [core.py:171] init engine (profile, create kv cache, "
             "warmup model) took 37.37 seconds", f"{head}{title}",
             f"{head}Traceback (most recent call last):"]
    for number, (file, function, code) in enumerate(frames, start=201):
        lines += [f'{head}  File "{SITE}{file}", line {number}, in {function}', f"{head}    {code}"]
    lines += [f"{head}RuntimeError: Worker failed with error '{message}'{tail}",
              "(APIServer pid=4000) ERROR 02-05 10:11:31 [async_llm.py:485] AsyncLLM "
              "output_handler failed.",
              "(APIServer pid=4000) vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
              "encountered an issue. See stack trace (above) for the root cause."]
    return "\n".join(lines) + "\n"


_SHAPES = dict(era=st.sampled_from(_V1), title=st.sampled_from(_TITLES),
               tail=st.sampled_from(_TAILS))


@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from(_KNOWN + _INTERPRETER), **_SHAPES)
def test_quoted_cause_alone_gets_its_own_family(case: tuple[str, str], era, title: str,
                                                tail: str) -> None:  # type: ignore[no-untyped-def]
    error, family = case
    report = explain_text(_engine_only(error, era.engine, title, tail), signatures=_SIGS)
    assert report.signature is not None and report.signature.id == family


@settings(max_examples=30, deadline=None)
@given(error=st.sampled_from(_UNKNOWN), **_SHAPES)
def test_unknown_quoted_cause_gets_a_fallback_not_the_executors_family(
        error: str, era, title: str, tail: str) -> None:  # type: ignore[no-untyped-def]
    report = explain_text(_engine_only(error, era.engine, title, tail), signatures=_SIGS)
    assert report.signature is not None
    assert report.signature.id != _EXECUTOR
    assert report.signature.id.startswith("fallback-")
    assert all(m.id != _EXECUTOR for m in report.alternatives)


@settings(max_examples=20, deadline=None)
@given(case=st.sampled_from(_KNOWN), era=st.sampled_from(_V1))
def test_with_the_workers_traceback_the_workers_error_is_the_root(
        case: tuple[str, str], era) -> None:  # type: ignore[no-untyped-def]
    error, family = case
    log = worker_failure(error, phase=Phase.SERVING, era=era)
    report = explain_text(log, signatures=_SIGS)
    assert report.root_cause is not None
    assert report.root_cause.exception == error.partition(":")[0]
    assert "Worker failed" not in report.root_cause.message
    assert report.signature is not None and report.signature.id == family


@settings(max_examples=20, deadline=None)
@given(error=st.sampled_from(_UNKNOWN[:2]), era=st.sampled_from(_V1))
def test_with_the_workers_traceback_an_unknown_error_is_no_executor_failure(
        error: str, era) -> None:  # type: ignore[no-untyped-def]
    report = explain_text(worker_failure(error, phase=Phase.SERVING, era=era), signatures=_SIGS)
    assert report.root_cause is not None and "Worker failed" not in report.root_cause.message
    assert report.signature is None or report.signature.id != _EXECUTOR


@settings(max_examples=20, deadline=None)
@given(error=st.sampled_from(_EXECUTORS_OWN), **_SHAPES)
def test_a_quoted_error_of_the_executor_itself_keeps_the_executors_family(
        error: str, era, title: str, tail: str) -> None:  # type: ignore[no-untyped-def]
    report = explain_text(_engine_only(error, era.engine, title, tail), signatures=_SIGS)
    assert report.signature is not None and report.signature.id == _EXECUTOR
