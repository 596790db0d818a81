"""A failing log whose only sign of the failure is a launcher's, the kernel's or a shell's line
(issue 10: most wrong-way answers on unseen logs are failing logs called `no_failure`, some of
them hangs with no error line at all). Every such line is an error event, whatever wraps it:

- a kill (KILL_REPORT, SHELL_SIGNAL): the OOM killer in dmesg, in a pod's events, systemd's
  `status=9/KILL` and its OOM-killer unit record, a pod evicted for memory, Ray's memory monitor,
  exit code 137 or -9 as docker, compose, an IDE or Python report it: `failure`, the kill is
  the root;
- a crash the kernel or a launcher reports (a `traps:` record, `Segmentation fault`, a GPU Xid),
  or a launcher that could not run the process (the scheduler found no node): `failure`;
- a report that the process exited non-zero for a reason printed elsewhere (EXIT_REPORT: compose,
  `kubectl describe`'s `Exit Code`/`Reason`, systemd, srun, torch elastic's `failed (exitcode:
  N)` for any N (-9 too: its agent reports a rank it supervised), a negative code, `docker ps`,
  a Ray job, a core dump, a liveness probe): at least `root_cause_missing`, the line a symptom;
- a stall: a known wait printed after the last progress (causality.yaml `hang`), or a start-up
  that ends on one record printed again and again over time (logsleuth/repeats.py):
  `root_cause_missing`, the stall named.

Each shape is tried at the end of a serving log and of a start-up, with every line wrapped the
same way (docker's and CRI's timestamps, compose's service, journald, `kubectl logs --prefix`,
`srun -l`, a colour code) and with the launcher's line unwrapped among wrapped lines. The
controls: the same launchers reporting a clean or an asked-for end stay `no_failure`. Every
shape is anchored (the prefilter must not drop it before the grammar sees it) and parsed as an
error line, under every wrapper.
"""

from __future__ import annotations

import pytest

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line

SERVING = [
    "(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version 0.15.1",
    "(APIServer pid=1) INFO 02-05 10:11:15 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B'}",
    "(EngineCore_DP0 pid=3) INFO 02-05 10:11:20 [core.py:74] Initializing a V1 LLM engine (v0.15.1) "
    "with config: model='Qwen/Qwen3-8B'",
    "(EngineCore_DP0 pid=3) INFO 02-05 10:11:31 [gpu_model_runner.py:2602] Starting to load model "
    "Qwen/Qwen3-8B...",
    "(EngineCore_DP0 pid=3) INFO 02-05 10:11:40 [gpu_model_runner.py:2338] Model loading took "
    "15.26 GiB and 5.1 seconds",
    "(EngineCore_DP0 pid=3) INFO 02-05 10:11:50 [gpu_worker.py:298] Available KV cache memory: "
    "50.1 GiB",
    "(EngineCore_DP0 pid=3) INFO 02-05 10:12:01 [core.py:210] init engine (profile, create kv "
    "cache, warmup model) took 30.0 seconds",
    "(APIServer pid=1) INFO 02-05 10:12:02 [api_server.py:1971] Starting vLLM API server 0 on "
    "http://0.0.0.0:8000",
    "(APIServer pid=1) INFO:     Application startup complete.",
    '(APIServer pid=1) INFO:     10.0.0.5:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "(APIServer pid=1) INFO 02-05 10:12:20 [loggers.py:123] Engine 000: Avg prompt throughput: "
    "120.0 tokens/s, Avg generation throughput: 30.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs",
    '(APIServer pid=1) INFO:     10.0.0.5:40002 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
]
STARTING = SERVING[:4]
BASES = {"serving": SERVING, "starting": STARTING}
WRAPPERS = {
    "bare": "{}",
    "docker": "2025-02-05T10:13:00.123456789Z {}",
    "compose": "vllm-1  | {}",
    "cri": "2025-02-05T10:13:00.123456789Z stderr F {}",
    "journald": "Feb 05 10:13:00 gpu-host bash[1234]: {}",
    "kube": "[pod/vllm-0/vllm] {}",
    "srun": "0: {}",
    "colour": "\x1b[0;31m{}\x1b[0m",
}

KILLS = [
    "vllm-1 exited with code 137",
    "Killed",
    "/bin/bash: line 1:  1234 Killed                  vllm serve Qwen/Qwen3-8B",
    "[ 2448.628970] Out of memory: Killed process 16014 (python3) total-vm:3069420kB, "
    "anon-rss:2111980kB",
    "vllm.service: Main process exited, code=killed, status=9/KILL",
    "vllm.service: Failed with result 'oom-kill'.",
    "vllm.service: A process of this unit has been killed by the OOM killer.",
    "    Reason:       OOMKilled",
    "    Exit Code:    137",
    "  Warning  OOMKilling 1m    kernel-monitor  Memory cgroup out of memory: Killed process 1234 "
    "(python3)",
    "  Warning  Evicted    1m    kubelet  The node was low on resource: memory. Threshold "
    "quantity: 100Mi, available: 50Mi.",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=4412.batch. Some of your processes "
    "may have been killed by the cgroup out-of-memory handler.",
    "Task was killed due to the node running low on memory.",
    "(raylet) [2024-05-14 08:31:02,447 E 6120 6120] node_manager.cc:3007: 2 Workers (tasks / "
    "actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons.",
    "Process finished with exit code -9",
    "Process exited with exit code -9",
    '3f2a9c1b7d4e   vllm/vllm-openai   "vllm serve"   9 minutes ago   Exited (137) 2 minutes ago   vllm',
    '        "OOMKilled": true,',
]
CRASHES = [
    "Segmentation fault (core dumped)",
    "Aborted",
    "Bus error",
    'Error response from daemon: could not select device driver "" with capabilities: [[gpu]]',
    "./serve.sh: line 12: 812 Segmentation fault (core dumped) python -m vllm.entrypoints.api_server",
    "python3[1234]: segfault at 0 ip 00007f0000000000 sp 00007ffc00000000 error 4 in "
    "libc.so.6[7f0000000000+195000]",
    "[ 2448.600000] traps: python3[1234] general protection fault ip:7f0000000000 "
    "sp:7ffc00000000 error:0 in libcuda.so.1[7f0000000000+1000000]",
    "[ 2448.600000] traps: python3[1234] trap invalid opcode ip:7f0000000000 sp:7ffc00000000 "
    "error:0 in libtorch_cpu.so[7f0000000000+1000000]",
    "[ 2448.600000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off "
    "the bus.",
    "[ 2448.600000] NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, name=python3, An uncorrectable "
    "double bit error (DBE) has been detected on GPU in the framebuffer.",
    "  Warning  FailedScheduling  1m  default-scheduler  0/3 nodes are available: 3 Insufficient "
    "nvidia.com/gpu.",
    "The node with node id: 8a3f and address: 10.0.0.2 and node name: 10.0.0.2 has been marked "
    "dead because the detector has missed too many heartbeats from it.",
]
EXITS = [
    "vllm-1 exited with code 1",
    "vllm_server_1 exited with code 139",
    "vllm-0   0/1   CrashLoopBackOff   5 (2m ago)   10m",
    "vllm-0   0/1   ImagePullBackOff   0   10m",
    "  Warning  BackOff    2m (x10 over 5m)  kubelet  Back-off restarting failed container vllm "
    "in pod vllm-0_default(abc)",
    "    Reason:       Error",
    "    Exit Code:    1",
    "vllm.service: Main process exited, code=dumped, status=11/SEGV",
    "vllm.service: Main process exited, code=exited, status=1/FAILURE",
    "vllm.service: Failed with result 'exit-code'.",
    "vllm.service: Failed with result 'timeout'.",
    "vllm.service: Start operation timed out. Terminating.",
    "vllm.service: Watchdog timeout (limit 1min)!",
    "srun: error: gpu-node-3: task 0: Exited with exit code 1",
    "srun: error: gpu-node-3: task 0: Killed",  # by whom srun does not say (a time limit too)
    "Process exited with exit code -11",
    "command terminated with exit code 1",
    "[2024-06-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
    "(exitcode: 1) local_rank: 0 (pid: 1234) of binary: /usr/bin/python",
    "  traceback : Signal 11 (SIGSEGV) received by PID 1234",
    # torch elastic's report of a rank SIGKILL ended: its supervisor does not know who killed it
    # (tests/test_rank_kills.py)
    "[2024-06-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
    "(exitcode: -9) local_rank: 0 (pid: 1234) of binary: /usr/bin/python",
    "  traceback : Signal 9 (SIGKILL) received by PID 1234",
    '3f2a9c1b7d4e   vllm/vllm-openai   "vllm serve"   9 minutes ago   Restarting (1) 5 seconds ago   vllm',
    "Job 'raysubmit_8Hq2' failed",
    "Status message: Job entrypoint command failed with exit code 1, last available logs "
    "(truncated to 20,000 chars):",
    "timeout: the monitored command dumped core",
    "Process 5678 (python3) of user 0 dumped core.",
    "  Warning  Unhealthy  1m (x3 over 2m)  kubelet  Liveness probe failed: Get "
    '"http://10.0.0.2:8000/health": dial tcp 10.0.0.2:8000: connect: connection refused',
    "##[error]Process completed with exit code 137.",
    # a harness's or an orchestrator's report of a crashed container (tests/test_crash_reports.py)
    "Crashed container in pod: vllm-standalone-0",
    'Container vllm in pod vllm-0 crashed',
    "    Reason:       CrashLoopBackOff",
    "      Message:      back-off 5m0s restarting failed container=vllm pod=vllm-0_default(abc)",
]
# The same launchers reporting a clean end, or the stop an operator asked for
CLEAN = [
    "vllm-1 exited with code 0",
    "vllm-1 exited with code 143",
    "Process finished with exit code 0",
    "Process finished with exit code -15",
    "    Exit Code:    0",
    "    Exit Code:    143",
    "    Reason:       Completed",
    "vllm.service: Deactivated successfully.",
    "vllm.service: Main process exited, code=exited, status=0/SUCCESS",
    "  traceback : Signal 15 (SIGTERM) received by PID 1234",
    "[2024-06-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending "
    "process 1234 closing signal SIGTERM",
    "  Warning  Unhealthy  1m (x3 over 2m)  kubelet  Readiness probe failed: Get "
    '"http://10.0.0.2:8000/health": dial tcp 10.0.0.2:8000: connect: connection refused',
    "Job 'raysubmit_8Hq2' succeeded",
    "[   12.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14",
    '3f2a9c1b7d4e   vllm/vllm-openai   "vllm serve"   9 minutes ago   Exited (0) 2 minutes ago   vllm',
    "vllm-0   1/1   Running   0   10m",
    '        "OOMKilled": false,',
    "No container crashed",
    "(EngineCore_DP0 pid=3) INFO 02-05 10:12:30 [block_pool.py:100] Evicted 12 blocks",
]
EVIDENCE = [(line, "kill") for line in KILLS] + [(line, "crash") for line in CRASHES] + \
    [(line, "exit") for line in EXITS]


def _log(base: list[str], wrapper: str, last: str, *, wrap_last: bool = True) -> str:
    lines = [wrapper.format(line) for line in base]
    return "\n".join([*lines, wrapper.format(last) if wrap_last else last]) + "\n"


def _ids(item: tuple[str, str]) -> str:
    return f"{item[1]}:{item[0].strip()[:48]}"


def _pairs() -> list[tuple[tuple[str, str], str, str]]:
    """Every line of evidence behind every wrapper, after each base in turn (the base moves with
    the wrapper's place, so each line is read after both bases and each wrapper's lines after
    both): every pair of the three is met, half the items of their whole product (992 -> 496,
    each explained twice; session 34, to keep CI under its 10 minutes)."""
    bases, wrappers = sorted(BASES), sorted(WRAPPERS)
    return [(evidence, bases[(index + place) % len(bases)], wrapper)
            for index, evidence in enumerate(EVIDENCE) for place, wrapper in enumerate(wrappers)]


def test_the_pairs_meet_every_line_base_and_wrapper_two_by_two() -> None:
    pairs = _pairs()
    assert {(e, w) for e, _, w in pairs} == {(e, w) for e in EVIDENCE for w in WRAPPERS}
    assert {(e, b) for e, b, _ in pairs} == {(e, b) for e in EVIDENCE for b in BASES}
    assert {(b, w) for _, b, w in pairs} == {(b, w) for b in BASES for w in WRAPPERS}


@pytest.mark.parametrize(("evidence", "base", "wrapper"), _pairs(),
                         ids=lambda item: _ids(item) if isinstance(item, tuple) else item)
def test_a_launcher_sign_of_a_failure_is_never_no_failure(
        evidence: tuple[str, str], base: str, wrapper: str) -> None:
    line, kind = evidence
    for wrap_last in (True, False):
        report = explain_text(_log(BASES[base], WRAPPERS[wrapper], line, wrap_last=wrap_last))
        at = len(BASES[base]) + 1
        if kind == "exit":  # the process exited for a reason printed elsewhere: a symptom
            assert report.verdict is not Verdict.NO_FAILURE, wrap_last
            assert report.root_cause is not None or at in {s.line for s in report.symptoms}
        else:  # the kill or the crash is what ended the run
            assert report.verdict is Verdict.FAILURE, wrap_last
            assert report.root_cause is not None and report.root_cause.line == at, wrap_last
            if kind == "kill":
                assert report.root_cause.exception == "Killed"


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("line", CLEAN, ids=lambda line: line.strip()[:48])
def test_a_launcher_report_of_a_clean_or_asked_for_end_stays_healthy(
        line: str, wrapper: str) -> None:
    report = explain_text(_log(SERVING, WRAPPERS[wrapper], line))
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("evidence", EVIDENCE, ids=_ids)
def test_every_shape_is_anchored_and_read_as_an_error_line(
        evidence: tuple[str, str], wrapper: str) -> None:
    raw = WRAPPERS[wrapper].format(evidence[0])
    assert anchor_patterns()[0].search(raw.encode()), raw
    assert parse_line(clean(raw)).kind in (LineKind.FATAL, LineKind.DIAGNOSTIC) or \
        parse_line(clean(raw)).level is not None, raw


# ---- stalls ------------------------------------------------------------------------------------

HANGS = [
    "INFO 02-05 10:11:45 [distributed_c10d.py:300] Waiting in store based barrier to initialize "
    "process group for rank: 1, key: store_based_barrier_key:1 (world_size=2, "
    "num_workers_joined=1, timeout=0:30:00)",
    "(autoscaler +1m5s) Warning: The following resource request cannot be scheduled right now: "
    "{'GPU': 1.0, 'CPU': 1.0}. This is likely due to all cluster resources being claimed by actors.",
    "(EngineCore_DP0 pid=3) INFO 02-05 10:15:00 [shm_broadcast.py:466] No available shared memory "
    "broadcast block found in 60 seconds.",
]


def _repeated(message: str, times: int, *, every: int = 10,
              prefix: str = "(EngineCore_DP0 pid=3) ") -> list[str]:
    """One process's record printed `times` times, `every` seconds apart."""
    lines = []
    for i in range(times):
        second = 40 + i * every
        lines.append(f"{prefix}INFO 02-05 10:{11 + second // 60:02d}:{second % 60:02d} "
                     f"[utils.py:12] {message}")
    return lines


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("hang", HANGS, ids=lambda line: line[:40])
def test_a_known_wait_at_the_end_is_a_stall_and_progress_after_it_saves_it(
        hang: str, wrapper: str) -> None:
    w = WRAPPERS[wrapper]
    stalled = explain_text("\n".join(w.format(x) for x in [*STARTING[:3], hang, hang]) + "\n")
    assert stalled.verdict is Verdict.ROOT_CAUSE_MISSING
    assert [s.exception for s in stalled.symptoms] == ["Stalled"]
    went_on = explain_text("\n".join(w.format(x) for x in [*SERVING[:3], hang, *SERVING[3:]])
                           + "\n")
    assert went_on.verdict is Verdict.NO_FAILURE


WAITS = ["Waiting for the DP coordinator to be ready (attempt 3)",
         "Still waiting to acquire lock on /root/.cache/huggingface/hub/.locks/x/1a2b.lock "
         "(elapsed: 10.0 seconds)",
         "Waiting for 2 remote engines to connect"]


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("wait", WAITS, ids=lambda line: line[:30])
def test_a_start_up_that_ends_on_one_record_repeated_over_time_is_a_stall(
        wait: str, wrapper: str) -> None:
    w = WRAPPERS[wrapper]
    report = explain_text("\n".join(w.format(x) for x in [*STARTING, *_repeated(wait, 4)]) + "\n")
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert report.symptoms and report.symptoms[0].line == len(STARTING) + 1
    assert wait[:20] in report.symptoms[0].message


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("how", ["twice", "within seconds", "ranks", "after ready", "no start"])
def test_repeated_records_that_are_no_wait_stay_healthy(how: str, wrapper: str) -> None:
    wait = WAITS[0]
    if how == "twice":  # two prints: a wait that may have ended
        lines = [*STARTING, *_repeated(wait, 2)]
    elif how == "within seconds":  # one step's records of one process, one a second
        lines = [*STARTING, *_repeated(wait, 6, every=1)]
    elif how == "ranks":  # each rank's record of one step, at once
        lines = [*STARTING, *(f"(Worker_TP{r} pid={10 + r}) INFO 02-05 10:11:41 "
                              f"[parallel_state.py:1] rank {r} in world size 8 is assigned as "
                              f"TP rank {r}" for r in range(8))]
    elif how == "after ready":  # an idle server's periodic DEBUG record
        lines = [*SERVING, *_repeated("Waiting for output from MQLLMEngine.", 5,
                                      prefix="(APIServer pid=1) ")]
    else:  # an excerpt that does not show the run's start
        lines = _repeated(wait, 5)
    w = WRAPPERS[wrapper]
    report = explain_text("\n".join(w.format(x) for x in lines) + "\n")
    assert report.verdict is Verdict.NO_FAILURE, how
