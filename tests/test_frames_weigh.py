"""Frames weigh, they never gate (issue 11): an interpreter's generic message (`'NoneType' object
is not callable`, `cannot unpack non-iterable ...`) says nothing of where it came from, so the
family that knows the subsystem the traceback's frames name (the attention backends, the fused-MoE
layers, the quantization methods, the V1 worker) answers before the family that knows only that
the words are Python's and that vLLM raised them. Raised where no subsystem family looks, the
generic family still answers; and the words of a message vLLM writes itself still rank before
any module.

Generated over the generic messages, the subsystems and the shapes a log gives the traceback,
with the families alone (as an unseen failure meets them) and with the whole database."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures
from tool_import import import_tool
from v1log import python_traceback

VLLM = "/usr/local/lib/python3.10/dist-packages/vllm/"

# the interpreter's own words, as vllm-internal-type-error knows them
GENERIC = ["TypeError: 'NoneType' object is not callable",
           "TypeError: 'NoneType' object is not subscriptable",
           "TypeError: cannot unpack non-iterable NoneType object",
           "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'",
           "TypeError: 'int' object is not iterable"]

# (innermost vLLM file, its function, the family of that subsystem)
SUBSYSTEMS = [("attention/backends/flashinfer.py", "begin_forward", "attention-kernel-rejected"),
              ("v1/attention/backends/flash_attn.py", "forward", "attention-kernel-rejected"),
              ("model_executor/layers/fused_moe/layer.py", "forward_impl", "moe-kernel-rejected"),
              ("model_executor/layers/quantization/fp8.py", "process_weights_after_loading",
               "quantization-method-rejected"),
              ("v1/worker/gpu_model_runner.py", "_dummy_run", "gpu-model-runner-rejected")]

# how the traceback reaches the log
PREFIXES = ["", "ERROR 08-19 16:42:05 async_llm_engine.py:56] ",
            "(EngineCore_DP0 pid=4100) ERROR 11-03 14:02:16 [core.py:708] ", "[rank0]: "]


@cache
def families() -> SignatureSet:
    return import_tool("family_loo", "loo").families_only(default_signatures())


def _log(error: str, path: str, function: str, prefix: str) -> str:
    frames = [(VLLM + "worker/model_runner.py", "execute_model", "output = self.model(...)"),
              (VLLM + path, function, "x = self.thing(y)")]
    return python_traceback(frames, error, prefix)


@settings(max_examples=50, deadline=None)
@given(error=st.sampled_from(GENERIC), where=st.sampled_from(SUBSYSTEMS),
       prefix=st.sampled_from(PREFIXES))
def test_a_generic_message_goes_to_the_family_its_frames_name(
        error: str, where: tuple[str, str, str], prefix: str) -> None:
    path, function, family = where
    log = _log(error, path, function, prefix)
    report = explain_text(log, signatures=families())
    assert report.signature is not None and report.signature.id == family, \
        (error, path, report.signature and report.signature.id)
    whole = explain_text(log, signatures=default_signatures())
    assert whole.signature is not None and whole.signature.id != "vllm-internal-type-error", \
        (error, path)


@settings(max_examples=20, deadline=None)
@given(error=st.sampled_from(GENERIC), prefix=st.sampled_from(PREFIXES),
       where=st.sampled_from([("utils.py", "flatten_2d_lists"),
                              ("sequence.py", "get_token_ids"),
                              ("outputs.py", "from_seq_group")]))
def test_where_no_subsystem_family_looks_the_generic_family_answers(
        error: str, prefix: str, where: tuple[str, str]) -> None:
    report = explain_text(_log(error, *where, prefix), signatures=families())
    assert report.signature is not None and report.signature.id == "vllm-internal-type-error"


@settings(max_examples=20, deadline=None)
@given(where=st.sampled_from(SUBSYSTEMS), prefix=st.sampled_from(PREFIXES))
def test_a_family_that_knows_the_words_still_ranks_before_the_module(
        where: tuple[str, str, str], prefix: str) -> None:
    """The change is for the interpreter's words only: a family that knows what the message
    says (an attention backend's refusal by name) keeps answering from any subsystem."""
    path, function, _ = where
    error = "ValueError: Selected backend FLASHINFER is not valid for this configuration."
    report = explain_text(_log(error, path, function, prefix), signatures=families())
    assert report.signature is not None and report.signature.id == "attention-backend-unavailable"
