"""A process's death reported on the line before it, its line end never written: the kill cut a
progress bar short (`... 2/4 [00:05<00:05,  2.5s/it]Killed`) or a record was printed without its
line end. Read as a terminal shows a `\\r` overwrite: the death under the line's wrappers and
process prefix (grammars/vllm.lark GLUED_TAIL, tokenize/grammar.py clean()).

The class comes from the failure probe (tools/failure_probe): every death statement of the
shells, libstdc++ and faulthandler glued to the line before it was read as no error at all, and
the failing run as healthy (58 of 497 failing logs).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

MODEL = "Qwen/Qwen2.5-7B-Instruct"
# (a worker's prefix, a record head) per era
ERAS = {
    "v1": ("(Worker_TP0 pid=4201) ", "INFO 02-05 10:11:35 [default_loader.py:262] "),
    "v1early": ("(VllmWorker rank=0 pid=4201) ", "INFO 02-05 10:11:35 [default_loader.py:262] "),
    "v0": ("", "INFO 02-05 10:11:35 model_runner.py:1072] "),
}
WRAPPERS = st.sampled_from(["", "2025-06-01T10:11:35.123456789Z ", "vllm-1  | ",
                            "Jun 01 10:11:35 gpu-node-3 vllm[4000]: "])
# what a run's last line can say before its end came
BEFORE = st.sampled_from([
    "bar:Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:05<00:05,  2.51s/it]",
    "bar:Loading checkpoint shards:  67%|######6   | 2/3 [00:12<00:06,  6.43s/it]",
    "record:Loading weights took 3.21 seconds",
    "record:Model loading took 14.25 GiB and 4.02 seconds",
])
DEATHS = st.sampled_from([
    "Killed", "Segmentation fault (core dumped)", "Segmentation fault", "Aborted (core dumped)",
    "Aborted", "Bus error (core dumped)", "Illegal instruction (core dumped)",
    "Floating point exception (core dumped)",
    "terminate called after throwing an instance of 'c10::Error'",
    "terminate called after throwing an instance of 'std::runtime_error'",
    "Fatal Python error: Segmentation fault",
    "Fatal Python error: Aborted",
])


def _log(era: str, wrapper: str, before: str, tail: str) -> str:
    worker, head = ERAS[era]
    kind, _, text = before.partition(":")
    last = worker + (head + text if kind == "record" else text)
    lines = [f"{wrapper}INFO 02-05 10:11:31 [core.py:100] Initializing a V1 LLM engine (v0.9.2) "
             f"with config: model='{MODEL}', tokenizer='{MODEL}', seed=0",
             f"{wrapper}{worker}INFO 02-05 10:11:32 [gpu_model_runner.py:1750] Starting to load "
             f"model {MODEL}...",
             wrapper + last + tail]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ERAS)), WRAPPERS, BEFORE, DEATHS)
def test_a_death_glued_to_the_last_line_is_the_failure(era: str, wrapper: str, before: str,
                                                      death: str) -> None:
    report = explain_text(_log(era, wrapper, before, death))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.line == 3
    assert death.split()[0] in report.root_cause.text  # `terminate` reads as `terminate: ...`


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ERAS)), WRAPPERS, BEFORE, st.sampled_from([
    " Killed",  # a word of the line, after a space: no death run on
    " was Killed", " Aborted", " and the request was Aborted",
]))
def test_a_word_of_the_line_is_no_glued_death(era: str, wrapper: str, before: str,
                                             tail: str) -> None:
    if not before.startswith("record:"):
        return  # a bar's text ends in its rate: words after it are not a bar's
    report = explain_text(_log(era, wrapper, before, tail))
    assert report.verdict is Verdict.NO_FAILURE


def test_a_capital_before_the_word_is_a_name_not_a_glued_death() -> None:
    # Kubernetes' `Reason: OOMKilled` stays the OOM kill it reports (KILL_REPORT), not a bare kill
    report = explain_text(_log("v1", "", "record:Loading weights took 3.21 seconds", "") +
                          "    Last State:     Terminated\n      Reason:       OOMKilled\n")
    assert report.root_cause is not None
    assert "OOMKilled" in report.root_cause.text
