"""A log that ends on an offline run's generate bar under way (issue 10): the bar counts the
prompts the engine finished, so a bar past 0 shows a run that worked when the log was read (a
paste made to show its speed, a `tail` of a running job), not a hang; a bar at 0 after start-up
(`0/16 [00:00<?, ?it/s ...]`) is the shape of a run hung before its first answer and stays a
stall. The bar's shapes as vLLM's `LLM.generate` prints them in every era (tqdm, with and without
the speed estimate), after a launcher's command, a start-up or nothing, with the prefixes a
container or a process adds.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

HEADS = [
    [],
    ["$ python run_batch.py --model meta-llama/Llama-3.1-8B-Instruct"],
    ["lm_eval --model vllm \\", "    --model_args pretrained=m,dtype=auto \\", "    --tasks gsm8k"],
    ["INFO 10-02 11:00:01 llm_engine.py:223] Initializing an LLM engine (v0.6.2) with config: "
     "model='m'",
     "INFO 10-02 11:00:09 gpu_executor.py:122] # GPU blocks: 2000, # CPU blocks: 512"],
    ["INFO 05-01 09:00:00 [core.py:74] Initializing a V1 LLM engine (v0.9.0) with config: "
     "model='m'",
     "INFO 05-01 09:00:30 [kv_cache_utils.py:716] GPU KV cache size: 500,000 tokens"],
]
PREFIXES = ["", "2024-10-02T11:00:10.123456Z ", "worker-1  | "]
SPEED = ["", ", est. speed input: {i:.2f} toks/s, output: {o:.2f} toks/s"]


def _bar(done: int, total: int, rate: str, speed: str) -> str:
    percent = done * 100 // total
    filled = "█" * (percent // 10)
    return (f"Processed prompts:  {percent}%|{filled:<10}| {done}/{total} "
            f"[01:02<03:04, {rate}{speed}]")


@settings(max_examples=60, deadline=None)
@given(head=st.sampled_from(HEADS), prefix=st.sampled_from(PREFIXES),
       total=st.integers(2, 200_000), share=st.floats(0.0, 0.99),
       speed=st.sampled_from(SPEED), rate=st.floats(0.01, 500.0))
def test_a_bar_under_way_that_counts_answers_is_a_working_run(
        head: list[str], prefix: str, total: int, share: float, speed: str,
        rate: float) -> None:
    done = min(total - 1, max(1, int(total * share)))
    bar = _bar(done, total, f"{rate:.2f}it/s", speed.format(i=rate * 900, o=rate * 20))
    report = explain_text("\n".join([*head, prefix + bar]) + "\n",
                          signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, (bar, report.verdict)


@settings(max_examples=30, deadline=None)
@given(head=st.sampled_from(HEADS[1:]), prefix=st.sampled_from(PREFIXES),
       total=st.integers(2, 200_000), speed=st.sampled_from(SPEED))
def test_a_bar_at_zero_is_still_a_stall(head: list[str], prefix: str, total: int,
                                        speed: str) -> None:
    bar = (f"Processed prompts:   0%|          | 0/{total} [00:00<?, ?it/s"
           f"{speed.format(i=0.0, o=0.0)}]")
    report = explain_text("\n".join([*head, prefix + bar]) + "\n",
                          signatures=default_signatures())
    assert report.verdict is not Verdict.NO_FAILURE, bar
