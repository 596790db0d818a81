"""Runtime classes from the s22b cold sweep (tests/fixtures/tuning/README.md), generated over the
forms a log gives them, each with a near miss that keeps other advice:

1. a request with `n` > 1 on V0 multi-step scheduling or speculative decoding (vllm#7968, #4934):
   torch's index_put "shape mismatch: value tensor of shape [N] cannot be broadcast to indexing
   result of shape [1, 1]" from the sampler's one-token slot per sequence group, read from an
   MQLLMEngine ERROR record and its traceback, from a torchrun rank prefix, or as the repr in
   asyncio's "Future exception was never retrieved" record when the RPC server is torn down;
2. the other requests V0 multi-step decoding cannot serve (vllm#8016, #8182): logits processors
   (guided decoding, logit_bias) as the runner's assertion or add_request's later ValueError, beam
   search, and a request aborted mid-step ("expected running sequences"), each under the engine's
   ERROR records or bare; the CPU runner's refusal of multi-step stays its own signature;
3. the V1 fast detokenizer's "Invalid prefix encountered" from tokenizers' DecodeStream
   (vllm#17448), in the old bare wording and tokenizers 0.22's longer one, under the API server's
   output-handler records or in an offline traceback; "Already borrowed" keeps its own advice;
4. V0's worker warning "Failed to pickle inputs of failed execution: CUDA error: ..." (vllm
   PR#9532's paste): logged only while a model step's exception is handled, it is the step's
   failure whatever its level (causality.yaml `failing_warnings`); a pickling error of its own
   (an object pickle cannot take) is not read as one.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import python_traceback, signature_advice

_SITE = st.sampled_from(["/usr/local/lib/python3.{m}/dist-packages/vllm/",
                         "/opt/conda/lib/python3.{m}/site-packages/vllm/"])
_MINOR = st.sampled_from([9, 10, 11, 12])


def _mismatch(samples: int) -> str:
    return (f"shape mismatch: value tensor of shape [{samples}] cannot be broadcast to indexing "
            "result of shape [1, 1]")


@settings(max_examples=30, deadline=None)
@given(samples=st.integers(min_value=2, max_value=64), site=_SITE, minor=_MINOR,
       form=st.sampled_from(["record", "rank", "future", "bare"]),
       path=st.sampled_from(["worker/multi_step_model_runner.py", "spec_decode/spec_decode_worker.py"]))
def test_parallel_sampling_on_a_multi_token_path_is_known(samples: int, site: str, minor: int,
                                                          form: str, path: str) -> None:
    root = site.format(m=minor)
    error = f"RuntimeError: {_mismatch(samples)}"
    frames = [(f"{root}{path}", "execute_model", "output = self._base_model_runner.execute_model("),
              (f"{root}model_executor/layers/sampler.py", "_sample_with_torch",
               "sampled_token_ids_tensor[long_sample_indices] = \\")]
    if form == "future":
        log = ("INFO 09-03 08:11:52 server.py:228] vLLM ZMQ RPC Server was interrupted.\n"
               "Future exception was never retrieved\n"
               f"future: <Future finished exception=RuntimeError('{_mismatch(samples)}')>\n")
    elif form == "record":
        prefix = "ERROR 09-12 14:05:40 engine.py:157] "
        log = (f"{prefix}RuntimeError('{_mismatch(samples)}')\n"
               + python_traceback(frames, error, prefix))
    elif form == "rank":
        log = python_traceback(frames, error, "[rank0]: ")
    else:
        log = python_traceback(frames, error)
    sig, fix = signature_advice(log)
    assert sig == "multi-step-parallel-sampling-unsupported"
    assert "--num-scheduler-steps" in fix and "n=1" in fix


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(min_value=2, max_value=4096), width=st.sampled_from([1024, 3584, 4096]),
       site=_SITE, minor=_MINOR)
def test_a_wider_index_put_mismatch_is_another_failure(rows: int, width: int, site: str,
                                                       minor: int) -> None:
    """An embedding merge or a KV copy puts a 2-D tensor into rows of another count: not the
    sampler's one-token slot, whatever else answers it."""
    root = site.format(m=minor)
    error = (f"RuntimeError: shape mismatch: value tensor of shape [{rows}, {width}] cannot be "
             f"broadcast to indexing result of shape [{rows + 1}, {width}]")
    log = python_traceback([(f"{root}model_executor/models/qwen2_audio.py", "forward",
                             "inputs_embeds[mask, :] = masked_audio_features")], error)
    sig, _ = signature_advice(log)
    assert sig != "multi-step-parallel-sampling-unsupported"


_MULTI_STEP_REFUSALS = [
    ("AssertionError", "Logits Processors are not supported in multi-step decoding",
     "worker/multi_step_model_runner.py", "_pythonize_sampler_output"),
    ("ValueError", "Logits processors are not supported in multi-step decoding",
     "engine/llm_engine.py", "add_request"),
    ("AssertionError", "Beam search not supported in multi-step decoding.",
     "engine/output_processor/multi_step.py", "process_outputs"),
    ("AssertionError", "Beam search not supported in block decoding.",
     "engine/output_processor/multi_step.py", "process_outputs"),
    ("AssertionError", "expected running sequences",
     "engine/output_processor/multi_step.py", "process_outputs"),
]


@settings(max_examples=30, deadline=None)
@given(refusal=st.sampled_from(_MULTI_STEP_REFUSALS), site=_SITE, minor=_MINOR,
       prefix=st.sampled_from(["", "ERROR 10-04 16:22:51 engine.py:157] ",
                               "ERROR 08-30 22:11:29 async_llm_engine.py:65] "]))
def test_what_v0_multi_step_decoding_cannot_serve_is_known(
        refusal: tuple[str, str, str, str], site: str, minor: int, prefix: str) -> None:
    kind, message, path, function = refusal
    root = site.format(m=minor)
    log = python_traceback([(f"{root}engine/llm_engine.py", "step", "outputs = self._process()"),
                            (f"{root}{path}", function, "assert ...")],
                           f"{kind}: {message}", prefix)
    sig, fix = signature_advice(log)
    assert sig == "multi-step-request-feature-unsupported"
    assert "--num-scheduler-steps" in fix and "guided" in fix


def test_a_runner_without_multi_step_keeps_its_own_advice() -> None:
    log = python_traceback([("/usr/local/lib/python3.12/dist-packages/vllm/worker/cpu_model_runner.py",
                             "execute_model", "raise ValueError(")],
                           "ValueError: CPU worker does not support multi-step execution.")
    sig, _ = signature_advice(log)
    assert sig == "multi-step-unsupported-by-runner"


@settings(max_examples=25, deadline=None)
@given(site=_SITE, minor=_MINOR, token=st.integers(min_value=0, max_value=262143),
       long_form=st.booleans(),
       prefix=st.sampled_from(["", "ERROR 05-21 09:14:03 [async_llm.py:399] ",
                               "(APIServer pid=4121) ERROR 09-03 11:02:44 [async_llm.py:480] "]))
def test_a_detokenizer_decode_stream_invalid_prefix_is_known(site: str, minor: int, token: int,
                                                             long_form: bool, prefix: str) -> None:
    root = site.format(m=minor)
    message = "Invalid prefix encountered"
    if long_form:
        message += (f" while decoding stream. Token ID: {token}, Expected prefix: ' ', "
                    "Actual string: 'x'")
    frames = [(f"{root}v1/engine/output_processor.py", "process_outputs",
               "stop_string = req_state.detokenizer.update("),
              (f"{root}v1/engine/detokenizer.py", "_protected_step",
               "token = self.stream.step(self.tokenizer, next_token_id)")]
    sig, fix = signature_advice(python_traceback(frames, f"Exception: {message}", prefix))
    assert sig == "detokenizer-decode-stream-invalid-prefix"
    assert "0.9.1" in fix and "tokenizers" in fix


def test_a_borrowed_tokenizer_is_another_failure() -> None:
    log = python_traceback([("/usr/local/lib/python3.12/dist-packages/transformers/"
                             "tokenization_utils_fast.py", "set_truncation_and_padding",
                             "self._tokenizer.enable_truncation(**target)")],
                           "RuntimeError: Already borrowed")
    sig, _ = signature_advice(log)
    assert sig != "detokenizer-decode-stream-invalid-prefix"


_DEVICE_ERRORS = ["CUDA error: an illegal memory access was encountered",
                  "CUDA error: device-side assert triggered",
                  "CUDA error: unspecified launch failure",
                  "HIP error: an illegal memory access was encountered"]


@settings(max_examples=30, deadline=None)
@given(error=st.sampled_from(_DEVICE_ERRORS), pid=st.integers(min_value=100, max_value=99999),
       prefix=st.sampled_from(["(VllmWorkerProcess pid={pid}) ", "", "[rank1]: "]),
       dumped=st.booleans(), after=st.sampled_from(["", "INFO:     Shutting down\n"]))
def test_a_failed_steps_pickling_warning_is_the_failure(error: str, pid: int, prefix: str,
                                                        dumped: bool, after: str) -> None:
    head = prefix.format(pid=pid)
    lines = []
    if dumped:
        lines.append(f"{head}INFO 10-17 12:17:31 model_runner_base.py:120] Writing input of "
                     "failed execution to /tmp/err_execute_model_input_20241017-121731.pkl...")
    lines.append(f"{head}WARNING 10-17 12:17:31 model_runner_base.py:143] Failed to pickle "
                 f"inputs of failed execution: {error}")
    report = explain_text("\n".join(lines) + "\n" + after, signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == len(lines)
    assert error.split(": ", 1)[1] in report.root_cause.message


def test_a_pickling_error_of_its_own_is_no_failure() -> None:
    log = ("(VllmWorkerProcess pid=14578) WARNING 10-17 12:17:31 model_runner_base.py:143] "
           "Failed to pickle inputs of failed execution: Can't pickle local object "
           "'make_sampler.<locals>.fn'\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


@settings(max_examples=15, deadline=None)
@given(error=st.sampled_from(_DEVICE_ERRORS), pid=st.integers(min_value=100, max_value=99999))
def test_the_steps_own_traceback_after_the_warning_says_more(error: str, pid: int) -> None:
    """The same process's traceback of the failed step after the warning is that failure: cut
    before its exception line, the cause is missing (not the warning's quote)."""
    head = f"(VllmWorkerProcess pid={pid}) "
    log = (f"{head}WARNING 10-17 12:17:31 model_runner_base.py:143] Failed to pickle inputs of "
           f"failed execution: {error}\n"
           f"{head}ERROR 10-17 12:17:31 multiproc_worker_utils.py:231] Exception in worker "
           "VllmWorkerProcess while processing method start_worker_execution_loop.\n"
           f"{head}ERROR 10-17 12:17:31 multiproc_worker_utils.py:231] Traceback (most recent "
           "call last):\n"
           f'{head}ERROR 10-17 12:17:31 multiproc_worker_utils.py:231]   File "/usr/local/lib/'
           'python3.10/dist-packages/vllm/worker/model_runner_base.py", line 116, in _wrapper\n'
           f"{head}ERROR 10-17 12:17:31 multiproc_worker_utils.py:231]     return func(*args, "
           "**kwargs)\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
