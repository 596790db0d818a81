"""Families added from the fallback probe's largest clusters (session 28): classes of library
errors that got only a class's fallback when printed without the library's frames. Each test
draws members of the class with their variable parts generated, in the shapes a log prints
them (a bare ERROR record of the engine core, a worker traceback cut above the library's frames,
a client script's traceback), and a near miss of the same form that the family must not claim."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, worker_failure

SIGNATURES = default_signatures()
NAMES = st.from_regex(r"[a-z][a-z0-9_]{2,12}", fullmatch=True)
SIZES = st.integers(1, 65536)


def engine_record(error: str, *, starting: bool) -> str:
    """The engine core's ERROR record of `error` alone (an excerpt without its traceback)."""
    title = "EngineCore failed to start." if starting else "EngineCore encountered a fatal error."
    core = "(EngineCore_DP0 pid=3200) "
    lines = [
        "(APIServer pid=3100) INFO 03-11 09:19:40 [api_server.py:1880] vLLM API server version 0.12.0",
        f"{core}INFO 03-11 09:19:52 [core.py:77] Initializing a V1 LLM engine (v0.12.0) with "
        "config: model='/models/m', tensor_parallel_size=1",
        f"{core}ERROR 03-11 09:23:15 [core.py:844] {title}",
        f"{core}ERROR 03-11 09:23:15 [core.py:844] {error}",
    ]
    lines.append("(APIServer pid=3100) RuntimeError: Engine core initialization failed. See root "
                 "cause above. Failed core proc(s): {}" if starting else
                 "(APIServer pid=3100) vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
                 "encountered an issue. See stack trace (above) for the root cause.")
    return "\n".join(lines) + "\n"


def client_traceback(error: str, call: str) -> str:
    """A client script's traceback cut above the openai package (its own line innermost)."""
    return ("Traceback (most recent call last):\n"
            '  File "/home/user/bench/client.py", line 71, in <module>\n'
            f"    result = {call}\n{error}\n")


# FlashInfer's own checks, each with the part of FlashInfer it names (flashinfer's source).
FLASHINFER = st.one_of(
    st.builds("ValueError: The length of kv_indptr_buf ({}) should be the same as qo_indptr_buf "
              "({}).".format, SIZES, SIZES),
    st.builds("ValueError: The dtype of v torch.{} does not match the kv_data_type torch.{} "
              "specified in plan function.".format, st.sampled_from(["bfloat16", "float16"]),
              st.sampled_from(["float8_e4m3fn", "uint8"])),
    st.builds("ValueError: cutedsl_low_latency mm_fp8 requires M <= 8 and K divisible by {}"
              .format, st.sampled_from([64, 128, 256])),
    st.builds("NotImplementedError: cuTile ragged prefill does not support {}.".format,
              st.sampled_from(["FP8 scale parameters", "sliding windows", "logits soft cap"])),
    st.builds("ValueError: scale_out is required for MNNVL dynamic FP8 patterns{}".format,
              st.sampled_from(["", " (rank {})".format(3)])),
    st.builds("RuntimeError: the Cake backend needs a CUDA device, got {}".format,
              st.sampled_from(["cpu", "meta"])),
    st.builds("ValueError: nvfp4_4over6 applies to NVFP4 only (sf_vec_size={}, sf_use_ue8m0="
              "False); got sf_vec_size={}, sf_use_ue8m0=True.".format, SIZES, SIZES),
)
# The same forms with FlashInfer's part named generically: any library (or vLLM) says these.
NOT_FLASHINFER = st.one_of(
    st.builds("ValueError: The length of token_ids ({}) should be the same as positions ({})."
              .format, SIZES, SIZES),
    st.builds("ValueError: The dtype of v torch.{} does not match the kv cache dtype torch.{}."
              .format, st.sampled_from(["bfloat16", "float16"]),
              st.sampled_from(["float8_e4m3fn", "uint8"])),
    st.builds("NotImplementedError: ragged prefill does not support {}.".format,
              st.sampled_from(["FP8 scale parameters", "sliding windows"])),
)


@settings(max_examples=20, deadline=None)
@given(error=FLASHINFER, starting=st.booleans())
def test_flashinfer_check_printed_alone_gets_the_flashinfer_family(error: str,
                                                                   starting: bool) -> None:
    report = explain_text(engine_record(error, starting=starting), signatures=SIGNATURES)
    assert report.verdict is Verdict.FAILURE
    assert report.signature is not None and report.signature.id == "flashinfer-library-check-failed"
    for knob in ("flashinfer-python==", "--attention-backend", "VLLM_USE_FLASHINFER_SAMPLER=0",
                 "--moe-backend", "VLLM_ALLREDUCE_USE_FLASHINFER=0"):
        assert knob in report.signature.fix


# vLLM's caller innermost (a traceback cut above FlashInfer's frames): the family of the vLLM
# subsystem that called it answers (its module outranks words the module contradicts); never a
# class's fallback.
CALLERS = st.sampled_from([("v1/attention/backends/flashinfer.py", "forward"),
                           ("model_executor/layers/quantization/utils/flashinfer_utils.py",
                            "flashinfer_scaled_fp8_mm"),
                           ("distributed/device_communicators/flashinfer_all_reduce.py",
                            "all_reduce")])


@settings(max_examples=12, deadline=None)
@given(error=FLASHINFER, era=st.sampled_from(ERAS[:2]), caller=CALLERS,
       phase=st.sampled_from([Phase.PROFILE, Phase.SERVING]))
def test_flashinfer_check_cut_above_its_frames_gets_family_advice(
        error: str, era: object, caller: tuple[str, str], phase: Phase) -> None:
    report = explain_text(worker_failure(error, phase=phase, era=era,  # type: ignore[arg-type]
                                         inner=(caller,)), signatures=SIGNATURES)
    assert report.signature is not None and report.signature.kind.value == "family"


@settings(max_examples=12, deadline=None)
@given(error=NOT_FLASHINFER, starting=st.booleans())
def test_same_form_without_flashinfer_words_is_not_the_flashinfer_family(error: str,
                                                                        starting: bool) -> None:
    report = explain_text(engine_record(error, starting=starting), signatures=SIGNATURES)
    assert report.signature is None or report.signature.id != "flashinfer-library-check-failed"


# The OpenAI client's empty-identifier check, from any call that names a resource by its id.
IDENTIFIERS = st.sampled_from(["file_id", "batch_id", "response_id", "model", "fine_tuning_job_id",
                               "vector_store_id", "completion_id", "input_item_id"])
EMPTY = st.sampled_from(["''", "None"])


@settings(max_examples=20, deadline=None)
@given(name=IDENTIFIERS, value=EMPTY, call=NAMES, framed=st.booleans())
def test_openai_empty_identifier_gets_its_family(name: str, value: str, call: str,
                                                 framed: bool) -> None:
    error = f"ValueError: Expected a non-empty value for `{name}` but received {value}"
    log = client_traceback(error, f"client.{call}.retrieve({name})")
    if framed:
        frame = ('  File "/opt/venv/lib/python3.11/site-packages/openai/resources/files.py", '
                 "line 281, in content\n    raise ValueError(msg)\n")
        log = log.replace(error, frame + error)
    report = explain_text(log, signatures=SIGNATURES)
    assert report.signature is not None and report.signature.id == "openai-client-empty-identifier"
    for knob in ("VLLM_ENABLE_RESPONSES_API_STORE=1", "--served-model-name", "output_file_id"):
        assert knob in report.signature.fix


@settings(max_examples=10, deadline=None)
@given(name=NAMES)
def test_openai_non_empty_string_check_is_not_the_empty_identifier_family(name: str) -> None:
    # A near miss: the client's other "non-empty" check (a token provider's return value).
    error = f"ValueError: Expected `{name}` argument to return a non-empty string."
    report = explain_text(client_traceback(error, f"OpenAI({name}=provider)"),
                          signatures=SIGNATURES)
    assert report.signature is None or report.signature.id != "openai-client-empty-identifier"


# torch.distributed's checks of groups, ranks, meshes and stores (torch's distributed_c10d.py,
# device_mesh.py, rendezvous; torch 2.14 source), and the same forms without its parts.
TORCH_DISTRIBUTED = st.one_of(
    st.builds("ValueError: Cannot specify both '{0}' and 'group_{0}' args as per eager impl".format,
              st.sampled_from(["src", "dst"])),
    st.just("ValueError: Default process group has not been initialized, please make sure to "
            "call init_process_group."),
    st.builds("RuntimeError: Unable to perform re-rendezvous using {}:// method".format,
              st.sampled_from(["env", "tcp", "file"])),
    st.builds("ValueError: Invalid type for group, must be one of List, Processgroup, "
              "DeviceMesh or (DeviceMesh, int), got {}.".format, NAMES),
    st.just("ValueError: Only 1D mesh is supported, pass in (DeviceMesh, int) together if "
            "mesh > 1D"),
)
NOT_TORCH_DISTRIBUTED = st.one_of(
    st.builds("ValueError: Cannot specify both '{0}' and '{0}_path' args".format,
              st.sampled_from(["src", "dst"])),
    st.builds("ValueError: Invalid type for {}, must be one of List or Tuple.".format, NAMES),
)


@settings(max_examples=15, deadline=None)
@given(error=TORCH_DISTRIBUTED, starting=st.booleans())
def test_torch_distributed_check_printed_alone_gets_its_family(error: str, starting: bool) -> None:
    report = explain_text(engine_record(error, starting=starting), signatures=SIGNATURES)
    assert report.signature is not None and report.signature.id == "torch-distributed-check-failed"
    for knob in ("external_launcher", "VLLM_ALLREDUCE_USE_SYMM_MEM=0", "MASTER_ADDR", "pip check"):
        assert knob in report.signature.fix


@settings(max_examples=10, deadline=None)
@given(error=NOT_TORCH_DISTRIBUTED, starting=st.booleans())
def test_same_form_without_torch_distributed_words_is_not_its_family(error: str,
                                                                    starting: bool) -> None:
    report = explain_text(engine_record(error, starting=starting), signatures=SIGNATURES)
    assert report.signature is None or report.signature.id != "torch-distributed-check-failed"
