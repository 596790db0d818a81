"""A worker's record that heads a traceback and quotes its exception's message (vllm issue 8660).

V0's multiprocessing worker (0.5-0.6) logs a failed method as one record:
`Exception in worker VllmWorkerProcess while processing method load_model: <str(e)>, Traceback
(most recent call last):` and then the traceback's frames behind the same header. The record
heads that traceback (assemble.py `_heads_traceback`), and when the excerpt ends before the
exception line, the quote is the exception's message (causality.yaml `quoting_titles`): the
failure is known, of the class vLLM raises the message with. Generated over processes, wrappers,
call sites, how far the traceback was cut, and messages vLLM raises or not.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict

SOME = settings(max_examples=30, deadline=None)
SITE = "/usr/local/lib/python3.10/dist-packages/vllm/"
# (message, the class vLLM raises it with, the signature that knows it)
RAISED = [
    ("Torch SPDA does not support logits soft cap.", "ValueError",
     "torch-sdpa-logits-soft-cap-unsupported"),
    ("XFormers does not support attention logits soft capping.", "ValueError",
     "xformers-logits-soft-cap-unsupported"),
    ("Model Qwen2ForCausalLM does not support BitsAndBytes quantization yet.", "AttributeError",
     "bitsandbytes-model-unsupported"),
]
FRAMES = [("executor/multiproc_worker_utils.py", 223, "_run_worker_process",
           "output = executor(*args, **kwargs)"),
          ("worker/cpu_worker.py", 217, "load_model", "self.model_runner.load_model()"),
          ("worker/cpu_model_runner.py", 418, "load_model", "self.model = get_model("),
          ("model_executor/models/gemma2.py", 87, "__init__", "self.attn = Attention(")]
WRAPPERS = ["", "> ", "vllm-1  | "]
METHODS = ["load_model", "init_device", "determine_num_available_blocks"]


def _worker(pid: int, site: str) -> str:
    return f"(VllmWorkerProcess pid={pid}) ERROR 09-20 08:05:48 {site}] "


def _log(message: str, pid: int, method: str, frames: int, wrapper: str, site: str,
         exception: str | None = None) -> list[str]:
    head = _worker(pid, site)
    lines = [f"(VllmWorkerProcess pid={pid}) INFO 09-20 08:05:47 multiproc_worker_utils.py:215] "
             "Worker ready; awaiting tasks",
             f"{head}Exception in worker VllmWorkerProcess while processing method {method}: "
             f"{message}, Traceback (most recent call last):"]
    for file, number, function, code in FRAMES[:frames]:
        lines.append(f'{head}  File "{SITE}{file}", line {number}, in {function}')
        lines.append(f"{head}    {code}")
    if exception is not None:
        lines.append(f"{head}{exception}: {message}")
    return [wrapper + line for line in lines]


def _report(lines: list[str]) -> dict[str, object]:
    return report_to_dict(explain_text("\n".join(lines) + "\n"))


@SOME
@given(st.sampled_from(RAISED), st.integers(100, 99_999), st.sampled_from(METHODS),
       st.integers(1, len(FRAMES)), st.sampled_from(WRAPPERS),
       st.sampled_from(["multiproc_worker_utils.py:226", "[multiproc_worker_utils.py:242]"]))
def test_a_cut_traceback_under_a_quoting_record_is_the_quoted_exception(
        raised: tuple[str, str, str], pid: int, method: str, frames: int, wrapper: str,
        site: str) -> None:
    message, cls, signature = raised
    got = _report(_log(message, pid, method, frames, wrapper, site.strip("[]")))
    assert got["verdict"] == "failure", got["verdict"]
    root = got["root_cause"]
    assert isinstance(root, dict)
    assert (root["exception"], root["message"]) == (cls, message)
    assert root["line"] == 2  # the record that quotes it
    assert root["process"]["name"] == "VllmWorkerProcess"
    assert (got["signature"] or {}).get("id") == signature


@SOME
@given(st.sampled_from(RAISED), st.integers(100, 99_999), st.sampled_from(METHODS),
       st.integers(1, len(FRAMES)), st.sampled_from(WRAPPERS))
def test_a_whole_traceback_under_a_quoting_record_is_one_error(
        raised: tuple[str, str, str], pid: int, method: str, frames: int, wrapper: str) -> None:
    """With its exception line printed, the record heads the traceback: one error, the
    exception, not a record beside a traceback cut above its header."""
    message, cls, _ = raised
    lines = _log(message, pid, method, frames, wrapper, "multiproc_worker_utils.py:226", cls)
    got = _report(lines)
    root = got["root_cause"]
    assert isinstance(root, dict)
    assert (root["exception"], root["message"]) == (cls, message)
    assert root["line"] == len(lines)
    assert not got["symptoms"], got["symptoms"]


@SOME
@given(st.integers(100, 99_999), st.sampled_from(METHODS), st.integers(1, len(FRAMES)),
       st.sampled_from(WRAPPERS),
       st.sampled_from(["the custom op blew up in an unusual way (code 7)",
                        "worker pipe closed while sending the batch"]))
def test_a_quote_vllm_does_not_raise_is_the_record_s_error(
        pid: int, method: str, frames: int, wrapper: str, message: str) -> None:
    """A message the index does not know is still the failure the record states, untyped."""
    got = _report(_log(message, pid, method, frames, wrapper, "multiproc_worker_utils.py:226"))
    assert got["verdict"] == "failure"
    root = got["root_cause"]
    assert isinstance(root, dict)
    assert message in str(root["message"])
    assert root["exception"] == "ERROR"


@SOME
@given(st.integers(100, 99_999), st.sampled_from(METHODS), st.integers(1, len(FRAMES)),
       st.sampled_from(WRAPPERS))
def test_a_record_that_quotes_nothing_leaves_the_cause_missing(
        pid: int, method: str, frames: int, wrapper: str) -> None:
    """Later V0 releases log `... while processing method M.` and the traceback after it: cut
    before its exception line, nothing says what failed."""
    head = _worker(pid, "multiproc_worker_utils.py:242")
    lines = [f"{head}Exception in worker VllmWorkerProcess while processing method {method}.",
             f"{head}Traceback (most recent call last):"]
    for file, number, function, code in FRAMES[:frames]:
        lines += [f'{head}  File "{SITE}{file}", line {number}, in {function}', f"{head}    {code}"]
    got = _report([wrapper + line for line in lines])
    assert got["verdict"] == "root_cause_missing", got["root_cause"]
