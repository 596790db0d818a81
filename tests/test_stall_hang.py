"""Hangs that print no error line (issue 10), the shapes a sweep of vLLM hang reports showed
answered `no_failure`: a start-up that ends on the distributed rendezvous record or on the
model load's first lines (causality.yaml `waits`), and a server whose engine holds requests and
processes nothing, stats after stats (causality.yaml milestones `stuck`). Each with what keeps
a working log healthy: the step's next line, an idle server, one quiet interval, output after.

Line shapes as vLLM prints them from v0.5 to v0.15 (parallel_state.py's rendezvous record at
DEBUG and INFO, loggers.py's and metrics.py's stats, V0's `Pending`/`Swapped` and V1's
`Waiting`), with and without a process prefix, a container's timestamp or compose's prefix.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

STARTS = [
    ["INFO 07-22 07:59:44 api_server.py:212] vLLM API server version 0.5.2",
     "INFO 07-22 07:59:45 llm_engine.py:174] Initializing an LLM engine (v0.5.2) with config: "
     "model='m', tensor_parallel_size=4"],
    ["(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version 0.15.1",
     "(EngineCore_DP0 pid=3) INFO 02-05 10:11:20 [core.py:74] Initializing a V1 LLM engine "
     "(v0.15.1) with config: model='m'"],
]
PREFIXES = ["", "(VllmWorkerProcess pid=154784) ", "(VllmWorker rank=3 pid=252) ",
            "(Worker_TP1 pid=6) ", "(EngineCore pid=115) ", "2025-05-16T13:08:58.099318151Z ",
            "vllm-1  | "]
RENDEZVOUS = [
    "DEBUG 07-22 07:59:47 parallel_state.py:803] world_size=4 rank=1 local_rank=1 "
    "distributed_init_method=tcp://127.0.0.1:41595 backend=nccl",
    "DEBUG 05-16 13:08:58 [parallel_state.py:867] world_size=8 rank=5 local_rank=5 "
    "distributed_init_method=tcp://127.0.0.1:39977 backend=nccl",
    "INFO 06-16 10:01:04 [parallel_state.py:1165] world_size=1 rank=0 local_rank=0 "
    "distributed_init_method=tcp://127.0.0.1:40321 backend=nccl",
    "INFO 08-09 21:13:57 [distributed/parallel_state.py:1607] world_size=2 rank=1 local_rank=1 "
    "distributed_init_method=env:// backend=gloo",
]
LOAD_FIRST = [
    "INFO 07-22 07:59:51 model_runner.py:680] Starting to load model meta-llama/Llama-3-70B...",
    "INFO 06-16 10:01:06 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-32B...",
    "INFO 07-22 07:59:52 weight_utils.py:223] Using model weights format ['*.safetensors']",
    "INFO 02-05 10:11:31 [weight_utils.py:450] Using model weights format ['*.safetensors']",
]
# what a start-up prints after those lines: it went on (not a finished bar: a start-up that
# ends on one stopped after it, causal.py _stalled)
NEXT = [
    "INFO 02-05 10:11:40 [gpu_model_runner.py:2338] Model loading took 15.26 GiB and 5.1 seconds",
    "INFO 07-22 08:01:10 model_runner.py:692] Loading model weights took 37.0 GiB",
]


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(STARTS), st.sampled_from(PREFIXES),
       st.lists(st.sampled_from(RENDEZVOUS), min_size=1, max_size=4))
def test_a_start_up_ending_on_the_rendezvous_record_stalls_in_init(
        start: list[str], prefix: str, ranks: list[str]) -> None:
    report = _explain([*start, *(prefix + r for r in ranks)])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert "init phase" in report.symptoms[0].message
    assert report.symptoms[0].line == len(start) + len(ranks)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(STARTS), st.sampled_from(PREFIXES), st.sampled_from(RENDEZVOUS),
       st.lists(st.sampled_from(LOAD_FIRST), min_size=1, max_size=3))
def test_a_start_up_ending_on_the_loads_first_lines_stalls_in_load(
        start: list[str], prefix: str, rank: str, load: list[str]) -> None:
    report = _explain([*start, prefix + rank, *(prefix + line for line in load)])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert "load phase" in report.symptoms[0].message
    assert "never printed its end" in report.symptoms[0].message


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(STARTS), st.sampled_from(PREFIXES), st.sampled_from(RENDEZVOUS),
       st.sampled_from(LOAD_FIRST), st.sampled_from(NEXT))
def test_a_load_that_goes_on_is_no_stall(start: list[str], prefix: str, rank: str, load: str,
                                         after: str) -> None:
    assert _explain([*start, prefix + rank, prefix + load, prefix + after]).verdict \
        is Verdict.NO_FAILURE


@pytest.mark.parametrize("last", LOAD_FIRST)
def test_an_excerpt_without_its_runs_start_is_no_stall(last: str) -> None:
    # a log cut from a working run may begin anywhere: only a log showing its start says where
    # start-up stopped (the rendezvous record is itself a line of the run's start: init)
    assert _explain(["INFO 02-05 10:11:29 [cuda.py:240] Using FlashAttention backend.",
                     last]).verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("last", LOAD_FIRST)
def test_a_later_models_load_after_the_first_loaded_is_no_start_up_stall(last: str) -> None:
    # a draft model or an adapter loads after the main model: start-up went past its load
    lines = [*STARTS[1], NEXT[0], last]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


# ---- a server whose engine holds requests and processes nothing ------------------------------

SERVER = "(APIServer pid=2019320) "


def _v1_stats(prompt: str, generation: str, running: int, waiting: int) -> str:
    return (f"INFO 08-21 14:30:23 [loggers.py:123] Engine 000: Avg prompt throughput: {prompt} "
            f"tokens/s, Avg generation throughput: {generation} tokens/s, Running: {running} "
            f"reqs, Waiting: {waiting} reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: "
            "0.0%")


def _v0_stats(prompt: str, generation: str, running: int, waiting: int) -> str:
    return (f"INFO 10-27 20:44:35 metrics.py:351] Avg prompt throughput: {prompt} tokens/s, Avg "
            f"generation throughput: {generation} tokens/s, Running: {running} reqs, Swapped: 0 "
            f"reqs, Pending: {waiting} reqs, GPU KV cache usage: 3.3%, CPU KV cache usage: 0.0%.")


SERVING = [
    "(APIServer pid=2019320) INFO:     Application startup complete.",
    "(APIServer pid=2019320) INFO:     127.0.0.1:51234 - \"POST /v1/completions HTTP/1.1\" 200 OK",
]
POLL = "(APIServer pid=2019320) INFO:     10.101.56.92:35104 - \"GET /health HTTP/1.1\" 200 OK"
held = st.one_of(st.tuples(st.integers(1, 300), st.integers(0, 40)),
                 st.tuples(st.just(0), st.integers(1, 40)))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([_v1_stats, _v0_stats]), st.sampled_from(["", SERVER]),
       st.lists(held, min_size=2, max_size=6), st.booleans())
def test_stats_holding_requests_at_zero_throughput_repeated_are_a_hang(
        stats, prefix: str, counts: list[tuple[int, int]], polls: bool) -> None:  # noqa: ANN001
    lines = [*SERVING, prefix + stats("25.5", "40.0", 8, 0)]
    for running, waiting in counts:
        lines.append(prefix + stats("0.0", "0.0", running, waiting))
        if polls:  # a health poll is answered without the engine: it is no work
            lines.append(POLL)
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert report.symptoms[0].line == len(SERVING) + 2
    assert f"printed {len(counts)} time(s)" in report.symptoms[0].message


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([_v1_stats, _v0_stats]), st.sampled_from(["", SERVER]), held,
       st.integers(1, 5))
def test_one_quiet_interval_or_an_idle_server_is_no_hang(stats, prefix: str,  # noqa: ANN001
                                                         count: tuple[int, int],
                                                         idle: int) -> None:
    # one interval: a request admitted just before the stats were taken; an idle server holds
    # no requests, however long it prints its stats
    one = [*SERVING, prefix + stats("0.0", "0.0", *count)]
    assert _explain(one).verdict is Verdict.NO_FAILURE
    quiet = [*SERVING, *(prefix + stats("0.0", "0.0", 0, 0) for _ in range(idle))]
    assert _explain(quiet).verdict is Verdict.NO_FAILURE


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([_v1_stats, _v0_stats]), st.sampled_from(["", SERVER]),
       st.lists(held, min_size=2, max_size=4), st.sampled_from(["output", "answer"]))
def test_zero_throughput_stats_before_output_are_no_hang(stats, prefix: str,  # noqa: ANN001
                                                         counts: list[tuple[int, int]],
                                                         after: str) -> None:
    # a slow interval the engine came out of: its output, or an answered request, follows
    lines = [*SERVING, *(prefix + stats("0.0", "0.0", r, w) for r, w in counts),
             prefix + stats("0.0", "181.0", 1, 0) if after == "output" else SERVING[1]]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("polls", [1, 4])
def test_health_polls_after_a_hang_line_do_not_end_the_wait(polls: int) -> None:
    # the API server answers /health without its engine: a worker's hang line followed by answered
    # polls is still the last sign of the engine (vllm#17972's polls between its stats)
    hang = ("(EngineCore_DP0 pid=3) INFO 08-21 14:31:23 [shm_broadcast.py:466] No available shared "
            "memory broadcast block found in 60 seconds. This typically happens when some "
            "processes are hanging or doing some time-consuming work (e.g. compilation)")
    report = _explain([*SERVING, hang, *([POLL] * polls)])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert report.symptoms[0].line == len(SERVING) + 1


# ---- an excerpt that ends on a finished step ----------------------------------------------------
# A finished progress bar before start-up completed is a stall only where the log shows the run
# from its start: the step after it never printed a line (vllm#1282's tokenizer downloads, then
# nothing). An excerpt cut at both ends (a docs page's start-up shown up to its weights loading:
# Gaudi's bucket settings, the HPU bridge's banner, the shard bars at 100%) is a working run's; an
# unfinished bar is a stall wherever it is (causal.py _stalled).

MIDDLES = [
    ["INFO 10-30 19:35:53 habana_model_runner.py:95] VLLM_DECODE_BS_BUCKET_MIN=32 (default:min)",
     "INFO 10-30 19:35:53 habana_model_runner.py:691] Prompt bucket config (min, step, "
     "max_warmup) bs:[1, 32, 64], seq:[128, 128, 1024]",
     "============================= HABANA PT BRIDGE CONFIGURATION ===========================",
     "PT_HPU_LAZY_MODE = 1",
     "INFO 10-30 19:35:56 selector.py:85] Using HabanaAttention backend.",
     "INFO 10-30 19:35:56 loader.py:284] Loading weights on hpu ..."],
    ["(EngineCore_DP0 pid=3) INFO 02-05 10:11:31 [weight_utils.py:450] Using model weights "
     "format ['*.safetensors']"],
    ["INFO 07-22 07:59:52 selector.py:51] Using XFormers backend."],
]


def _bars(prefix: str, total: int, upto: int) -> list[str]:
    return [f"{prefix}Loading safetensors checkpoint shards: {100 * done // total}% Completed | "
            f"{done}/{total} [00:{done * 3:02d}<00:00, 3.1s/it]" for done in range(upto + 1)]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MIDDLES), st.sampled_from(["", "(EngineCore_DP0 pid=3) ",
                                                  "2025-05-16T13:08:58.099318151Z "]),
       st.integers(1, 8), st.booleans())
def test_an_excerpt_cut_on_a_finished_step_is_a_working_run(middle: list[str], prefix: str,
                                                             total: int, closed: bool) -> None:
    bars = _bars(prefix, total, total)
    lines = [*middle, *bars, *(bars[-1:] if closed else [])]
    assert _explain(lines).verdict is Verdict.NO_FAILURE, lines


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(STARTS), st.sampled_from(MIDDLES), st.integers(1, 8))
def test_from_the_runs_start_a_finished_step_with_nothing_after_is_a_stall(
        start: list[str], middle: list[str], total: int) -> None:
    report = _explain([*start, *middle, *_bars("", total, total)])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MIDDLES), st.integers(2, 8), st.data())
def test_an_unfinished_bar_is_a_stall_wherever_the_excerpt_begins(middle: list[str], total: int,
                                                                  data: st.DataObject) -> None:
    upto = data.draw(st.integers(0, total - 1))
    report = _explain([*middle, *_bars("", total, upto)])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
