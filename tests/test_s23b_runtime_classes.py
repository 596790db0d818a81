"""Runtime classes from the s23b cold sweep (tests/fixtures/tuning/README.md), generated over the
forms a log gives them, each with a near miss that keeps other advice:

1. the P2pNcclConnector's producer-side chunked-prefill bookkeeping (vllm#33092, PR #33117): its
   `build_connector_meta` asserts that a scheduled cached request was chunked (`assert req_id in
   self.chunked_prefill`) or that a later chunk allocated blocks (`assert new_block_ids is not
   None`), bare asserts read by their failing source line, under the engine core's fatal-error
   records, behind a `(EngineCore_DP0 pid=N)` prefix, or bare; another connector's bookkeeping
   assertion, or another assertion of this one, is not this class;
2. flash-attention's CHECK_CUDA line with its source place before the colon (vllm PR#27128's
   paste), read as a fatal CUDA error bare or behind a prefix (below);
3. the V1 detokenizer's invalid token id (vllm/v1/engine/detokenizer.py), whose advice names PR #24351 and #26445.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import python_traceback, signature_advice

_SITE = st.sampled_from(["/usr/local/lib/python3.{m}/dist-packages/vllm/",
                         "/opt/conda/lib/python3.{m}/site-packages/vllm/", "vllm/"])
_MINOR = st.sampled_from([10, 11, 12, 13])
_P2P = "distributed/kv_transfer/kv_connector/v1/p2p/p2p_nccl_connector.py"
_CORE_PREFIXES = st.sampled_from([
    "", "ERROR 01-26 09:12:44 [core.py:710] ",
    "(EngineCore_DP0 pid={pid}) ERROR 01-26 09:12:44 [core.py:866] ",
    "(EngineCore_DP1 pid={pid}) "])


def _connector_failure(root: str, connector: str, condition: str, prefix: str) -> str:
    frames = [(f"{root}v1/engine/core.py", "step", "scheduler_output = self.scheduler.schedule()"),
              (f"{root}v1/core/sched/scheduler.py", "schedule",
               "meta: KVConnectorMetadata = self.connector.build_connector_meta("),
              (f"{root}{connector}", "build_connector_meta", condition)]
    return python_traceback(frames, "AssertionError", prefix)


@settings(max_examples=30, deadline=None)
@given(site=_SITE, minor=_MINOR, prefix=_CORE_PREFIXES, pid=st.integers(100, 99999),
       condition=st.sampled_from(["assert req_id in self.chunked_prefill",
                                  "assert new_block_ids is not None"]))
def test_the_p2p_nccl_producer_chunked_prefill_assertion_is_known(
        site: str, minor: int, prefix: str, pid: int, condition: str) -> None:
    log = _connector_failure(site.format(m=minor), _P2P, condition, prefix.format(pid=pid))
    sig, fix = signature_advice(log)
    assert sig == "p2p-nccl-connector-unchunked-request-assert"
    assert "--no-enable-chunked-prefill" in fix and "33117" in fix


@settings(max_examples=20, deadline=None)
@given(site=_SITE, minor=_MINOR, prefix=_CORE_PREFIXES, pid=st.integers(100, 99999),
       near=st.sampled_from([
           # another connector's metadata builder asserting its own bookkeeping
           ("distributed/kv_transfer/kv_connector/v1/example_connector.py",
            "assert len(token_ids) >= num_tokens_to_check"),
           ("distributed/kv_transfer/kv_connector/v1/nixl_connector.py",
            "assert req_id not in self._reqs_need_send"),
           # another assertion of the P2P connector
           (_P2P, "assert len(block_ids) > 0")]))
def test_other_connector_assertions_are_not_this_class(
        site: str, minor: int, prefix: str, pid: int, near: tuple[str, str]) -> None:
    connector, condition = near
    log = _connector_failure(site.format(m=minor), connector, condition, prefix.format(pid=pid))
    sig, _ = signature_advice(log)
    assert sig != "p2p-nccl-connector-unchunked-request-assert"


# 2. flash-attention's CHECK_CUDA line, `CUDA error (<file>:<N>): <cudaGetErrorString>`, printed to
#    stderr before the process exits (vllm PR#27128's paste): the source place sits between the label
#    and its colon. Read as the fatal CUDA error it is, bare, behind a rank's or a worker's prefix,
#    and behind another program's logger that relays it at INFO (`INFO:/path/x.py:`), with the
#    error string as the message the CUDA signatures know; a parenthesis that is no source place
#    (`(core dumped)`, `(see above)`) keeps its old reading.
_CHECK_FILES = st.sampled_from([
    "../../.deps/vllm-flash-attn-src/hopper/flash_fwd_combine_launch_template.h",
    "csrc/flash_attn/src/flash_fwd_launch_template.h", "hopper/flash_bwd_launch_template.h"])
_CHECK_ERRORS = st.sampled_from([
    ("an illegal memory access was encountered", "cuda-illegal-memory-access"),
    ("an illegal memory access was encountered", "cuda-illegal-memory-access"),
    ("misaligned address", None), ("invalid argument", None)])
_CHECK_PREFIXES = st.sampled_from(["", "[rank0]: ", "(VllmWorker TP1 pid={pid}) ",
                                   "INFO:/scripts/serve/utils.py:", "2025-10-17 08:12:01 | "])


@settings(max_examples=40, deadline=None)
@given(path=_CHECK_FILES, line=st.integers(1, 2000), error=_CHECK_ERRORS, prefix=_CHECK_PREFIXES,
       pid=st.integers(100, 99999), repeats=st.integers(1, 4))
def test_a_check_macro_cuda_error_with_its_source_place_is_fatal(
        path: str, line: int, error: tuple[str, str | None], prefix: str, pid: int,
        repeats: int) -> None:
    text, signature = error
    log = (prefix.format(pid=pid) + f"CUDA error ({path}:{line}): {text}\n") * repeats
    report = explain_text(log, signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, log
    assert report.root_cause is not None and report.root_cause.line == 1
    assert report.root_cause.exception == "CUDA error"
    assert report.root_cause.message == text
    if signature is not None:
        assert report.signature is not None and report.signature.id == signature


@settings(max_examples=15, deadline=None)
@given(words=st.sampled_from(["(see above)", "(core dumped)", "(x86_64)"]),
       prefix=st.sampled_from(["", "INFO:/scripts/serve/utils.py:"]))
def test_a_parenthesis_that_is_no_source_place_is_not_a_check_line(words: str, prefix: str) -> None:
    log = f"{prefix}CUDA error {words}: nothing failed here, the build notes say so\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


# 3. the V1 detokenizer's invalid token id (vllm/v1/engine/detokenizer.py): the full error, under the API server's
#    output-handler records or bare, gets detokenize-out-of-vocab-token, which names the PRs that
#    made the detokenizer log and skip the id (#24351 for OverflowError, #26445 for tokenizers
#    0.22.1's TypeError); the "Invalid prefix" of the same step keeps its own advice.
_INVALID_ID = st.sampled_from([
    "OverflowError: out of range integral type conversion attempted",
    "TypeError: argument 'id': StreamInput must be either an integer or a list of integers"])


@settings(max_examples=25, deadline=None)
@given(site=_SITE, minor=_MINOR, error=_INVALID_ID,
       prefix=st.sampled_from(["", "ERROR 08-20 23:41:35 [async_llm.py:408] ",
                               "(APIServer pid=7) ERROR 10-09 02:11:54 [async_llm.py:480] "]))
def test_an_invalid_token_id_in_the_v1_detokenizer_names_its_fixes(
        site: str, minor: int, error: str, prefix: str) -> None:
    root = site.format(m=minor)
    frames = [(f"{root}v1/engine/async_llm.py", "output_handler",
               "processed_outputs = output_processor.process_outputs("),
              (f"{root}v1/engine/output_processor.py", "process_outputs",
               "stop_string = req_state.detokenizer.update("),
              (f"{root}v1/engine/detokenizer.py", "decode_next",
               "token = self.stream.step(self.tokenizer, next_token_id)")]
    sig, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sig == "detokenize-out-of-vocab-token"
    assert "#24351" in fix and "#26445" in fix


def test_an_invalid_prefix_in_the_same_step_keeps_its_own_advice() -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/detokenizer.py",
               "_protected_step", "token = self.stream.step(self.tokenizer, next_token_id)")]
    sig, _ = signature_advice(python_traceback(frames, "Exception: Invalid prefix encountered"))
    assert sig == "detokenizer-decode-stream-invalid-prefix"
