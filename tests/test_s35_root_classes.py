"""Session 35's verdict and root misses, as classes (issue 10: no failing log called healthy, no
healthy log called failing).

1. A start-up that stops on the last line of vLLM's distributed set-up: the rank assignment each
   rank prints once every parallel group it belongs to was built (parallel_state.py, 0.8.5 on:
   `rank 2 in world size 4 is assigned as DP rank 0, PP rank 0, TP rank 2, EP rank 2`). A working
   start-up goes on within seconds (the sampler's, the backend's, the model runner's lines), so a
   log that shows its run from its start and ends there stalled in the step after it
   (tests/fixtures/tuning/startup/vv-committed-notes-ascend-a2-...-four-lines-symptom). An init
   phase line too: four such lines are a run shown from its start. Near misses: the next step
   printed, start-up completed before, Ray's summary of the line (item 6).
2. vLLM's `vLLM is using nccl==X` (pynccl.py), printed before the communicator's id is shared and
   NCCL builds it, both waits on every rank: where NCCL's own debug output shows in the log, a
   working set-up prints NCCL's `Init START` right after it, so a log ending on it stalled there
   (tests/fixtures/tuning/launchers/mm-v064post1-...-hang-after-pynccl-wrapped-symptom: the
   pipeline group across two nodes). Without NCCL's output it is where an excerpt of a working run
   may end (healthy/v054-ray-terminal-wrapped-config-working-run). The NCCL lines may be in an
   earlier block of the reader than the last line: the tail a stall is judged with spans blocks.
3. vLLM 0.8.0-0.8.4's engine client kills its own process tree with SIGKILL after a worker's
   fatal signal (`Got fatal signal from worker processes, shutting down. See stack trace above
   for root cause issue.`, then kill_process_tree(os.getpid())): the shell's `Killed` after it is
   that kill, a symptom, and where the kill cut the worker's traceback before its exception the
   cause is not in the log (tuning startup/uu-arctic-inference-...-traceback-cut-killed-symptom).
   Near misses: a `Killed` with no such record before it, or far after it, is a kill from
   outside; a worker's exception before the records stays the root.
4. Ray's ActorHandleNotFoundError, raised only by ray.kill (an actor handle of another Ray
   session), which vLLM calls only as its Ray executor shuts down: a teardown after a failure, a
   symptom; and `RuntimeError: Engine core initialization failed` cut after its first words is the
   engine client's report as in full (tuning launchers/bbb-k8s-lws-...-gloo-cause-cut-symptom).
   Near misses: another Ray error (ActorDiedError) and another component's `... initialization
   failed.` stay causes; the cause printed before them stays the root.
5. An unfinished bar of a download under way (huggingface_hub's per-file bars and `Fetching N
   files`, ModelScope's `Downloading`): a stalled transfer times out and says so, so a log ending
   inside one was read while it downloaded (healthy/vv-v022-modelscope-...-downloading-zero-
   percent-args-namespace). Near misses: a generate bar at 0 (the corpus's tp2-hang-acs-iommu-
   p2p) and a loader's bar stay stalls; so does a finished download with nothing after it.
6. Ray's summary of a line its actors printed alike (`... [repeated 6x across cluster]`) is printed
   when its aggregation window closes, after later lines: a log ending on one shows no stall
   (the shared corpus's eaddrinuse-distributed-init-ray-nested, whose last run's rank assignment
   and model load are such summaries).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize.scan import TokenizeStats, tokenize


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def _stalled_in_init(report: Report, last: int) -> None:
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.root_cause, report.symptoms)
    assert report.root_cause is None
    assert [s.line for s in report.symptoms] == [last]
    assert "set-up step that waits on other processes" in report.symptoms[0].message
    assert report.phase is not None and report.phase.phase is Phase.INIT


# wrappers a worker's line may stand behind
PREFIXES = st.sampled_from(["", "(Worker_TP1 pid=3441) ", "(VllmWorker rank=2 pid=2480) ",
                            "(EngineCore_DP0 pid=165) ", "2025-10-25T02:18:40.123456789Z ",
                            "vllm-ascend-1  | ", "\x1b[1;36m(Worker_TP3 pid=22)\x1b[0;0m "])
STAMPS = st.sampled_from(["INFO 10-25 02:18:40 [parallel_state.py:1208] ",
                          "INFO 05-12 02:45:31 [parallel_state.py:1005] ",
                          "DEBUG 06-25 10:03:26 [parallel_state.py:1134] "])

# ---- 1. the rank assignment, the last line of distributed set-up -----------------------------------


def _assignment(rank: int, world: int, ep: bool, dp: bool) -> str:
    parts = ([f"DP rank {0}"] if dp else []) + ["PP rank 0", f"TP rank {rank}"] \
        + ([f"EP rank {rank}"] if ep else [])
    return f"rank {rank} in world size {world} is assigned as {', '.join(parts)}"


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8), st.booleans(), st.booleans(), PREFIXES, STAMPS, st.randoms())
def test_a_start_up_ending_on_the_rank_assignment_stalled_in_init(
        world: int, ep: bool, dp: bool, prefix: str, stamp: str, rnd: object) -> None:
    ranks = list(range(world))
    rnd.shuffle(ranks)  # type: ignore[attr-defined]
    lines = [prefix + stamp + _assignment(r, world, ep, dp) for r in ranks]
    _stalled_in_init(_explain(lines), len(lines))


# what a working start-up prints after its rank assignment
NEXT_STEPS = st.sampled_from([
    "INFO 10-25 02:18:41 [topk_topp_sampler.py:66] Using FlashInfer for top-p & top-k sampling.",
    "INFO 10-25 02:18:42 [gpu_model_runner.py:2338] Model loading took 15.26 GiB and 5.1 seconds",
    "INFO 10-25 02:18:41 [base.py:106] Offloader set to NoopOffloader",
])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), PREFIXES, STAMPS, NEXT_STEPS)
def test_the_rank_assignment_followed_by_the_next_step_is_no_stall(world: int, prefix: str,
                                                                   stamp: str, after: str) -> None:
    lines = [prefix + stamp + _assignment(r, world, True, True) for r in range(world)]
    assert _explain([*lines, prefix + after]).verdict is Verdict.NO_FAILURE


def test_a_rank_assignment_after_start_up_completed_is_no_stall() -> None:
    # a group built again later (a new engine in the same log, a sleep-mode wake-up) after the KV
    # cache was sized: start-up went past set-up
    lines = ["INFO 10-25 02:18:40 [parallel_state.py:1208] " + _assignment(0, 1, False, True),
             "INFO 10-25 02:19:10 [gpu_worker.py:276] Available KV cache memory: 30.1 GiB",
             "INFO 10-25 02:19:40 [parallel_state.py:1208] " + _assignment(0, 1, False, True)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


# ---- 2. pynccl's announcement where NCCL's debug output shows --------------------------------------

V0_START = ["INFO 12-12 05:27:59 api_server.py:585] vLLM API server version 0.6.4.post1",
            "INFO 12-12 05:28:04 llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) "
            "with config: model='m', tensor_parallel_size=4, pipeline_parallel_size=2"]
V1_START = ["(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version "
            "0.15.1",
            "(EngineCore_DP0 pid=3) INFO 02-05 10:11:20 [core.py:74] Initializing a V1 LLM engine "
            "(v0.15.1) with config: model='m'"]
NCCL_LINES = ["vllm-0:936:936 [0] NCCL INFO Bootstrap : Using eth0:10.0.143.175<0>",
              "vllm-0:936:936 [0] NCCL INFO ncclCommInitRank comm 0x31f8ebd0 rank 0 nranks 4 "
              "cudaDev 0 nvmlDev 0 busId 38000 commId 0x9419ffc51c422e05 - Init START",
              "gpu-3:24153:24290 [2] NCCL INFO comm 0x5581b0e0 rank 2 nRanks 4 nNodes 1 "
              "localRanks 4 localRank 2 MNNVL 0",
              "NCCL version 2.21.5+cuda12.4",
              "[2025-06-05 10:45:19] paula09:2528103:2528103 [0] NCCL INFO Connected all rings"]
# vLLM's lines between one communicator and the next (the custom all-reduce check, the message
# queue of the tensor-parallel group)
BETWEEN = ["WARNING 12-12 05:28:31 custom_all_reduce.py:134] Custom allreduce is disabled because "
           "it's not supported on more than two PCIe-only GPUs.",
           "INFO 12-12 05:28:31 shm_broadcast.py:236] vLLM message queue communication handle: "
           "Handle(connect_ip='127.0.0.1', local_reader_ranks=[1, 2, 3])",
           "INFO 12-12 05:28:31 utils.py:961] Found nccl from library libnccl.so.2"]
ANNOUNCEMENTS = st.sampled_from(["INFO 12-12 05:28:31 pynccl.py:69] vLLM is using nccl==2.21.5",
                                 "(Worker_TP0 pid=5) INFO 02-05 10:11:25 [pynccl.py:103] vLLM is "
                                 "using nccl==2.27.3",
                                 "(RayWorkerWrapper pid=194, ip=10.0.130.237) INFO 12-12 05:28:31 "
                                 "pynccl.py:69] vLLM is using nccl==2.21.5"])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([V0_START, V1_START]),
       st.lists(st.sampled_from(NCCL_LINES), min_size=1, max_size=5),
       st.lists(st.sampled_from(BETWEEN), max_size=3), ANNOUNCEMENTS)
def test_pyncc_announcement_with_nccl_debug_output_is_a_stall(
        start: list[str], nccl: list[str], between: list[str], last: str) -> None:
    lines = [*start, last, *nccl, *between, last]
    _stalled_in_init(_explain(lines), len(lines))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([V0_START, V1_START]), st.lists(st.sampled_from(BETWEEN), max_size=3),
       ANNOUNCEMENTS)
def test_pyncc_announcement_without_nccl_output_is_no_stall(start: list[str], between: list[str],
                                                            last: str) -> None:
    # v054-ray-terminal-wrapped-config-working-run: an excerpt of a working run may end there
    assert _explain([*start, *between, last]).verdict is Verdict.NO_FAILURE


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([V0_START, V1_START]),
       st.lists(st.sampled_from(NCCL_LINES), min_size=1, max_size=4), ANNOUNCEMENTS,
       st.sampled_from(BETWEEN[:2]))
def test_pyncc_announcement_then_the_next_step_is_no_stall(
        start: list[str], nccl: list[str], last: str, after: str) -> None:
    assert _explain([*start, *nccl, last, after]).verdict is Verdict.NO_FAILURE


def test_pyncc_announcement_after_start_up_completed_is_no_stall() -> None:
    lines = [*V0_START, NCCL_LINES[0],
             "INFO 12-12 05:30:01 distributed_gpu_executor.py:57] # GPU blocks: 18523, # CPU "
             "blocks: 8192", "INFO 12-12 05:30:02 pynccl.py:69] vLLM is using nccl==2.21.5"]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6))
def test_the_tail_spans_the_readers_blocks(earlier_blocks: int) -> None:
    # a reader that hands the input's last line over alone (hardwrap.py after rows it joined):
    # the lines before it are still the tail's
    lines = [*V0_START, *NCCL_LINES, *BETWEEN, "INFO 12-12 05:28:31 pynccl.py:69] vLLM is using "
             "nccl==2.21.5"]
    head = [line.encode() + b"\n" for line in lines[:-1]]
    step = max(1, len(head) // earlier_blocks)
    blocks = [b"".join(head[i:i + step]) for i in range(0, len(head), step)]
    stats = TokenizeStats()
    for _ in tokenize([*blocks, lines[-1].encode() + b"\n"], stats):
        pass
    assert stats.tail_text.split("\n") == lines
    assert stats.last_line_text == lines[-1]


# ---- 3. vLLM 0.8's own kill of its process tree -----------------------------------------------------

WORKERS = st.sampled_from(["(VllmWorker rank=0 pid=2480291) ", "(VllmWorker rank=3 pid=77) "])
FATAL_RECORDS = [
    "CRITICAL 05-07 19:18:17 [ulysses.py:230] MulitprocExecutor got fatal signal from worker "
    "processes, shutting down. See stack trace above for root cause issue.",
    "CRITICAL 05-07 19:18:17 [multiproc_executor.py:49] MulitprocExecutor got fatal signal from "
    "worker processes, shutting down. See stack trace above for root cause issue.",
    "CRITICAL 05-07 19:18:17 [core_client.py:359] Got fatal signal from worker processes, shutting "
    "down. See stack trace above for root cause issue.",
]
KILL_REPORTS = st.sampled_from(["Killed", "[1]+  Killed                  vllm serve m "
                                "--tensor-parallel-size 4", "run.sh: line 7: 2480210 Killed"
                                "                  vllm serve m"])


@settings(max_examples=60, deadline=None)
@given(WORKERS, st.booleans(), st.lists(st.sampled_from(FATAL_RECORDS), min_size=1, max_size=3),
       st.booleans(), KILL_REPORTS)
def test_the_shells_kill_after_vllms_fatal_signal_is_a_symptom(
        worker: str, spawn: bool, records: list[str], header_after: bool, kill: str) -> None:
    # the worker's traceback cut by the kill: only its header, before or among the records
    lines = [worker + "INFO 05-07 19:18:17 [loader.py:458] Loading weights took 3.07 seconds"]
    header = [worker + "Process SpawnProcess-1:1:"] * spawn \
        + [worker + "Traceback (most recent call last):"]
    lines += [*records, *header] if header_after else [*header, *records]
    lines.append(kill)
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause
    assert len(lines) in [s.line for s in report.symptoms]
    # the kill is vLLM's own: it is no evidence for a host's OOM killer
    assert report.signature is None or report.signature.id != "host-oom-killed"


@settings(max_examples=30, deadline=None)
@given(WORKERS, st.sampled_from(FATAL_RECORDS), KILL_REPORTS)
def test_the_workers_own_error_stays_the_root(worker: str, record: str, kill: str) -> None:
    lines = [worker + "ERROR 05-07 19:18:17 [multiproc_executor.py:470] WorkerProc hit an "
             "exception.", worker + "Traceback (most recent call last):",
             worker + '  File "/v/vllm/v1/worker/gpu_worker.py", line 157, in load_model',
             worker + "    self.model_runner.load_model()",
             worker + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
             record, kill]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 5


@settings(max_examples=30, deadline=None)
@given(WORKERS, KILL_REPORTS, st.sampled_from([0, 30]))
def test_a_kill_with_no_fatal_signal_record_close_before_it_is_the_root(
        worker: str, kill: str, gap: int) -> None:
    # no record, or the record far before it (30 lines of the run's output between): a kill
    # from outside, the failure the log shows
    lines = [worker + "INFO 05-07 19:18:17 [loader.py:458] Loading weights took 3.07 seconds"]
    if gap:
        lines.append(FATAL_RECORDS[2])
        lines += [worker + f"INFO 05-07 19:18:{18 + n % 40:02d} [gpu_worker.py:200] step {n}"
                  for n in range(gap)]
    lines.append(kill)
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == len(lines)


# ---- 4. Ray's ActorHandleNotFoundError: the executor's teardown ------------------------------------

ACTOR_HANDLES = st.sampled_from([
    "ray.exceptions.ActorHandleNotFoundError: ActorHandle objects are not valid across Ray "
    "sessions. The actor handle was created in job 01000000, but the current job is 02000000. "
    "This typically happens when you try to use an actor handle from a previous session after "
    "calling ray.shutdown() and ray.init(). Please create a new actor handle in the current "
    "session.",
    "ray.exceptions.ActorHandleNotFoundError: ... created in job 01000000,\n"
    "    but the current job is 02000000",
    "ActorHandleNotFoundError: The actor handle was created in job 03000000, but the current job "
    "is 04000000.",
])
ENGINE_REPORTS = st.sampled_from([
    "RuntimeError: Engine core initialization failed",
    "RuntimeError: Engine core initialization failed.",
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core "
    "proc(s): {}",
])
INDENTS = st.sampled_from(["", "  ", "(APIServer pid=1) ", "2026-08-20T10:00:00.000Z "])


@settings(max_examples=60, deadline=None)
@given(ACTOR_HANDLES, st.booleans(), ENGINE_REPORTS, INDENTS)
def test_a_lost_actor_handle_and_the_engine_report_are_symptoms(
        handle: str, reported: bool, engine: str, indent: str) -> None:
    lines = [indent + line for line in handle.split("\n")]
    if reported:
        lines.append(indent + engine)
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause
    assert report.root_cause is None


@settings(max_examples=30, deadline=None)
@given(ACTOR_HANDLES, ENGINE_REPORTS, INDENTS)
def test_the_cause_before_the_teardown_stays_the_root(handle: str, engine: str,
                                                      indent: str) -> None:
    cause = ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error: "
             "connectFullMesh failed with 127.0.1.1:35147")
    lines = [indent + cause, *(indent + line for line in handle.split("\n")), indent + engine]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1


def test_another_ray_error_or_components_initialization_stays_a_cause() -> None:
    for line in ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing "
                 "this task.",
                 "RuntimeError: Mooncake Transfer Engine initialization failed."]:
        report = _explain([line])
        assert report.verdict is Verdict.FAILURE, line
        assert report.root_cause is not None and report.root_cause.line == 1


# ---- 5. a download under way is no stall ------------------------------------------------------------

ARGS = ("INFO 11-22 22:04:27 api_server.py:638] args: Namespace(host='0.0.0.0', port=8000, "
        "model='01ai/Yi-34B-200K', download_dir='/data/models/', tensor_parallel_size=1)")
V1_ARGS = ("(APIServer pid=1) INFO 02-05 10:11:15 [utils.py:253] non-default args: "
           "{'model': 'Qwen/Qwen3-8B'}")
DOWNLOADS = st.sampled_from([
    "Downloading:   {p}%|{bar}| 0.00/9.29G [00:00<?, ?B/s]",
    "Downloading [model-00001-of-00004.safetensors]:  {p}%|{bar}| 1.20G/3.67G [00:31<01:02, "
    "41.0MB/s]",
    "model-00002-of-00004.safetensors:  {p}%|{bar}| 600M/4.98G [00:10<01:10, 62.1MB/s]",
    "Fetching 4 files:  {p}%|{bar}| 1/4 [00:12<00:36, 12.01s/it]",
    "Downloading (…)lve/main/config.json:  {p}%|{bar}| 120/1.17k [00:00<?, ?B/s]",
])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([ARGS, V1_ARGS]), DOWNLOADS, st.integers(0, 99),
       st.sampled_from(["", "          ", "█▏        "]))
def test_a_log_ending_inside_a_download_is_no_stall(start: str, bar: str, percent: int,
                                                    drawn: str) -> None:
    lines = [start, bar.format(p=percent, bar=drawn)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE


def test_a_generate_or_loader_bar_at_its_first_draw_is_still_a_stall() -> None:
    for bar in ["Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: "
                "0.00 toks/s, output: 0.00 toks/s]",
                "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10, "
                "5.01s/it]"]:
        report = _explain([ARGS, bar])
        assert report.verdict is Verdict.ROOT_CAUSE_MISSING, bar
        assert "unfinished progress bar" in report.symptoms[0].message


def test_a_finished_download_with_nothing_after_it_is_still_a_stall() -> None:
    # the step after the download never printed (vllm#1282's shape)
    report = _explain(["INFO 09-27 08:34:06 llm_engine.py:72] Initializing an LLM engine with "
                       "config: model='m', tokenizer='m'",
                       "Downloading (…)okenizer_config.json: 100%|██████| 825/825 [00:00<00:00, "
                       "5.92MB/s]"])
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


# ---- 6. Ray's summary of lines its actors printed alike ---------------------------------------------

RAY_LEAD = "(AsyncVLLMInferenceEngine pid=891625) (EngineCore_0 pid=892764) "
WAIT_LINES = st.sampled_from([
    "INFO 09-10 23:09:11 [gpu_model_runner.py:1953] Starting to load model /home/ray/m...",
    "INFO 09-10 23:09:10 [parallel_state.py:1134] " + _assignment(0, 1, True, True),
])


@settings(max_examples=30, deadline=None)
@given(WAIT_LINES, st.integers(2, 16))
def test_a_log_ending_on_rays_summary_shows_no_stall(wait: str, copies: int) -> None:
    start = RAY_LEAD + ("INFO 09-10 23:09:05 [core.py:74] Initializing a V1 LLM engine (v0.10.1) "
                        "with config: model='m'")
    summary = RAY_LEAD + wait + f" [repeated {copies}x across cluster]"
    assert _explain([start, summary]).verdict is Verdict.NO_FAILURE
    # the same line as the process printed it is where its start-up stopped
    assert _explain([start, RAY_LEAD + wait]).verdict is Verdict.ROOT_CAUSE_MISSING
