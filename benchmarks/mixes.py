"""Log mixes for the benchmarks: the same vLLM server written under different conditions.

    python benchmarks/generate.py --mix errors --lines 1000000 --out /tmp/errors.log

Every mix is deterministic (same arguments, same bytes), streams in chunks (constant memory) and
plants one known root cause, whose line is written to PATH.truth.json. The mixes stress what
makes a log expensive to read, not one particular log:

| mix | what dominates the file |
|---|---|
| healthy | serving lines (access, metrics), a handled error every few thousand lines |
| restart | start-up lines: the server is stopped and started again every few thousand lines |
| errors | handled errors: an API server rejecting over-long prompts (an ERROR record with a short traceback each, and a 400) about every fourth request, while it serves |
| crashloop | journald of a systemd service whose start fails the same way 1,000 times (NCCL INFO set-up lines fill each run) |
| debug | `VLLM_LOGGING_LEVEL=DEBUG` and `NCCL_DEBUG=INFO`: DEBUG records and NCCL INFO lines |
| procs64 | data parallel 8 x tensor parallel 8: 64 workers and 8 engine cores writing to one file |
| longlines | `--enable-log-requests`: some requests logged with their prompt, lines of 2-90 KB |

The failure planted in every mix but `crashloop` is `generate.py`'s worker OOM (see there), at
about 98% of the file, followed by a restarted healthy server. In `crashloop` every run fails
the same way (the KV cache cannot hold max_model_len); the report explains the last run.
"""
from __future__ import annotations

import random
import time

from generate import (CTX_BODY, HOST, MAX_LEN, Clock, Server, Writer, failure_len, generate,
                      startup_len)

CRASH_RUNS = 1000  # runs in a crash loop, whatever the size of the file
MIXES = ("healthy", "restart", "errors", "crashloop", "debug", "procs64", "longlines")

_WORDS = ("the model answers every question about the weather in a friendly tone while the user "
          "asks for a summary of the error budget report and the deployment backend version notes "
          "for the dead letter queue and then continues with more ordinary text about cooking "
          "travel music history science sports and gardening").split()


def _start_clock(rng: random.Random) -> Clock:
    return Clock(1767571200 + rng.randrange(0, 86400 * 30) + 9 * 3600)


class _MixServer(Server):
    """A Server whose serving loop can be given extra lines per 10 s step."""

    error_rate = 0.0009  # handled over-long prompt errors per step (generate.py's rate)

    def extra(self, ts: str) -> list[str]:
        """Lines this mix adds to each 10 s serving step."""
        return []

    def serve(self, until: int) -> None:
        """Serving steps until exactly `until` lines have been written (generate.py's loop,
        with the mix's extra lines and its own handled-error rate)."""
        rng, w, clock = self.rng, self.w, self.clock
        rand, bits = rng.random, rng.getrandbits
        api = self.api
        acc = api + 'INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK'
        bad = api + 'INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request'
        met = (api + "INFO %s [loggers.py:259] Engine 000: Avg prompt throughput: %.1f tokens/s, "
               "Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, "
               "GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%")
        buf: list[str] = []
        n = w.n
        while True:
            clock.t += 10.0 + rand() * 0.02
            ts = clock.ts()
            for _ in range(int(rand() * rand() * 8)):
                buf.append(acc % (32768 + bits(15)))
            run = 1 + int(rand() * 14)
            buf.append(met % (ts, rand() * 3000.0, 60.0 + rand() * 900.0, run, run * 0.7,
                              rand() * 90))
            buf.extend(self.extra(ts))
            if rand() < self.error_rate:
                req = 4097 + int(rand() * 60000)
                comp = 16 + int(rand() * 4096)
                body = CTX_BODY + [
                    f"ValueError: This model's maximum context length is {MAX_LEN} tokens. However, "
                    f"you requested {req + comp} tokens ({req} in the messages, {comp} in the "
                    "completion). Please reduce the length of the messages or completion."]
                buf.extend(self.mrec(api, "ERROR", "serving.py:296", body))
                buf.append(bad % (32768 + bits(15)))
            if n + len(buf) >= until:
                break
            if len(buf) >= 4096:
                n += len(buf)
                w.add(buf)
                buf = []
        _pad_to(buf, until - n, acc, rng)
        w.add(buf)

    def stop(self) -> None:
        """A requested shutdown (SIGTERM from the supervisor), as vLLM logs it."""
        api, eng = self.api, self.eng
        self.tick(0.5, 2)
        self.w.add([
            f"{api}INFO {self.clock.ts()} [launcher.py:110] Shutting down FastAPI HTTP server.",
            f"{api}INFO:     Shutting down",
            f"{api}INFO:     Waiting for application shutdown.",
            f"{api}INFO:     Application shutdown complete.",
            f"{eng}INFO {self.clock.ts()} [core.py:1080] Received SIGTERM, shutting down engine core.",
            f"{api}INFO:     Finished server process [{self.api_pid}]"])


def _pad_to(buf: list[str], keep: int, filler: str, rng: random.Random) -> None:
    """Cut `buf` to `keep` lines at a record boundary, then pad with access lines."""
    if len(buf) > keep:
        cut = keep
        while cut > 0 and buf[cut - 1].endswith("\r"):
            cut -= 1
        del buf[cut:]
    while len(buf) < keep:
        buf.append(filler % (32768 + rng.getrandbits(15)))


def _with_failure(n_lines: int, out, seed: int, server: type[_MixServer],
                  restart_every: int = 0) -> dict:
    """Serve (restarting every `restart_every` lines if set), fail at ~98%, restart, serve."""
    rng = random.Random(seed)
    flen, foom = failure_len()
    slen = startup_len()
    fail_start = max(int(n_lines * 0.98) - foom, slen + 10)
    end_room = flen - foom + slen + 10
    if fail_start + end_room > n_lines:
        fail_start = max(slen + 10, n_lines - end_room)
    clock = _start_clock(rng)
    w = Writer(out)
    s = server(rng, clock, w)
    s.startup()
    if restart_every:
        while w.n + restart_every + slen + 20 < fail_start:
            s.serve(w.n + restart_every)
            s.stop()
            clock.t += rng.uniform(5, 20)
            s = server(rng, clock, w)
            s.startup()
    s.serve(fail_start)
    oom_line = s.failure()
    clock.t += rng.uniform(20, 40)
    s2 = server(rng, clock, w)
    s2.startup()
    if w.n < n_lines:
        s2.serve(n_lines)
    w.flush()
    return {"line": oom_line, "exception": "torch.OutOfMemoryError", "lines": w.n}


# ---- the mixes -----------------------------------------------------------------------------------

def healthy(n_lines: int, path: str, seed: int) -> dict:
    """generate.py's log: serving, rare handled errors, one OOM, a restart."""
    oom_line, total, _ = generate(n_lines, path, seed)
    return {"line": oom_line, "exception": "torch.OutOfMemoryError", "lines": total}


def restart(n_lines: int, out, seed: int) -> dict:
    """A supervisor restarts the server every ~3,000 lines (start-up lines recur)."""
    return _with_failure(n_lines, out, seed, _MixServer, restart_every=3000)


class _Rejecting(_MixServer):
    error_rate = 0.45  # about one request in four is an over-long prompt


def errors(n_lines: int, out, seed: int) -> dict:
    """An API server rejecting tens of thousands of over-long prompts while it serves."""
    return _with_failure(n_lines, out, seed, _Rejecting)


class _Debug(_MixServer):
    def extra(self, ts: str) -> list[str]:
        rng, eng = self.rng, self.eng
        rank = rng.randrange(8)
        p = self.wk_pid[rank]
        lines = [
            f"{eng}DEBUG {ts} [core.py:1034] EngineCore loop active.",
            f"{eng}DEBUG {ts} [scheduler.py:812] Scheduled {rng.randrange(1, 40)} requests, "
            f"{rng.randrange(1, 9000)} tokens, {rng.randrange(0, 5)} preempted.",
            f"{self.wk[rank]}DEBUG {ts} [shm_broadcast.py:612] Reader {rank} acquired block "
            f"{rng.randrange(10)} of the message queue.",
            f"{self.api}DEBUG {ts} [async_llm.py:512] Called check_health.",
            f"{self.wk[rank]}DEBUG {ts} [backends.py:168] Compiled graph for shape "
            f"{rng.randrange(1, 8192)} is cached, dispatching to the piecewise backend.",
            # not the API server's "Waiting for N core engine proc(s) to start": vLLM prints it
            # only until the engine is up, and a serving log that ends on it is a start-up hang
            f"{self.api}DEBUG {ts} [async_llm.py:520] Added request cmpl-{rng.getrandbits(32):08x}.",
            f"{HOST}:{p}:{p + 97} [{rank}] NCCL INFO comm 0x{rng.getrandbits(40):x} rank {rank} "
            f"nranks 8 cudaDev {rank} busId {0x18 + 0x11 * rank:x}000 - Init COMPLETE",
            f"{HOST}:{p}:{p + 97} [{rank}] NCCL INFO Channel {rng.randrange(24):02d}/0 : "
            f"{rank}[{rank}] -> {(rank + 1) % 8}[{(rank + 1) % 8}] via P2P/CUMEM/read",
            f"{HOST}:{p}:{p + 97} [{rank}] NCCL INFO Using network Socket",
        ]
        return lines[: 3 + rng.randrange(len(lines) - 2)]


def debug(n_lines: int, out, seed: int) -> dict:
    """DEBUG records and NCCL INFO lines make up most of the file."""
    return _with_failure(n_lines, out, seed, _Debug)


class _SixtyFour(_MixServer):
    """Eight engines of eight workers: the workers' periodic lines interleave in one file."""

    def __init__(self, rng: random.Random, clock: Clock, w: Writer):
        super().__init__(rng, clock, w)
        base = self.wk_pid[-1] + 10
        self.all_workers = [f"(Worker_DP{d}_TP{t} pid={base + 8 * d + t}) "
                            for d in range(8) for t in range(8)]
        self.engines = [f"(EngineCore_DP{d} pid={self.eng_pid + d}) " for d in range(8)]

    def extra(self, ts: str) -> list[str]:
        rng = self.rng
        lines = []
        for _ in range(rng.randrange(2, 6)):
            worker = rng.choice(self.all_workers)
            lines.append(rng.choice((
                f"{worker}INFO {ts} [gpu_model_runner.py:3380] Updated expert load balance "
                f"in {rng.uniform(0.1, 2):.2f} ms.",
                f"{worker}INFO {ts} [eplb_state.py:512] Rearranged experts: "
                f"{rng.randrange(0, 20)} moved.",
                f"{worker}WARNING {ts} [fused_moe.py:881] Using default MoE config. Performance "
                "might be sub-optimal!")))
        engine = rng.randrange(8)
        lines.append(f"{self.engines[engine]}INFO {ts} [loggers.py:259] Engine {engine:03d}: Avg "
                     f"prompt throughput: {rng.uniform(0, 3000):.1f} tokens/s, Running: "
                     f"{rng.randrange(1, 20)} reqs")
        return lines


def procs64(n_lines: int, out, seed: int) -> dict:
    """Sixty-four worker processes, eight engine cores and an API server in one file."""
    return _with_failure(n_lines, out, seed, _SixtyFour)


class _LoggedRequests(_MixServer):
    def extra(self, ts: str) -> list[str]:
        rng = self.rng
        if rng.random() >= 0.02:
            return []
        size = rng.randrange(2000, 90000)
        start = rng.randrange(len(_TEXT) - size)
        prompt = _TEXT[start:start + size]
        return [f"{self.api}INFO {ts} [logger.py:43] Received request chatcmpl-"
                f"{rng.getrandbits(64):016x}: prompt: '<|begin_of_text|>{prompt}', params: "
                f"SamplingParams(n=1, temperature=0.6, top_p=0.9, max_tokens="
                f"{rng.randrange(16, 4096)}), prompt_token_ids: None, lora_request: None."]


_TEXT = " ".join(random.Random(7).choices(_WORDS, k=40000))


def longlines(n_lines: int, out, seed: int) -> dict:
    """Requests logged with their whole prompt: lines of 2-90 KB among short ones."""
    return _with_failure(n_lines, out, seed, _LoggedRequests)


def crashloop(n_lines: int, out, seed: int) -> dict:
    """journald of a systemd unit whose vLLM fails to start the same way, run after run."""
    rng = random.Random(seed)
    clock = _start_clock(rng)
    sink = _Journald(out, clock)
    w = Writer(sink)
    runs = 0
    truth = 0
    run_len = max(n_lines // CRASH_RUNS, 60)
    while w.n + run_len <= n_lines:
        s = _MixServer(rng, clock, w)
        s.startup_failing(w.n + run_len - 4)  # type: ignore[attr-defined]
        truth = s.root_line  # type: ignore[attr-defined]
        runs += 1
        w.add([f"systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE",
               "systemd[1]: vllm.service: Failed with result 'exit-code'.",
               f"systemd[1]: vllm.service: Scheduled restart job, restart counter is at {runs}.",
               "systemd[1]: Started vllm.service - vLLM OpenAI server."])
        clock.t += 5
    w.flush()
    sink.finish()
    return {"line": truth, "exception": "ValueError", "lines": w.n, "runs": runs}


def _startup_failing(self: _MixServer, end: int) -> None:
    """A start-up that fails at the KV cache check in the engine, its last line at `end`
    (the NCCL_DEBUG=INFO set-up of the eight workers pads it)."""
    rng, w, api, eng = self.rng, self.w, self.api, self.eng
    R = self.rec
    w.add([R(api, "INFO", "utils.py:223", "non-default args: {'model': '/models/Llama-3.3-70B-"
             "Instruct', 'tensor_parallel_size': 8, 'max_model_len': 131072}")])
    w.add([R(self.wk[r], "INFO", "parallel_state.py:1234", f"world_size=8 rank={r} local_rank={r} "
             "distributed_init_method=tcp://127.0.0.1:41233 backend=nccl") for r in range(8)])
    self.tick(20, 40)
    w.add([R(self.wk[r], "INFO", "gpu_model_runner.py:4221", "Model loading took 16.43 GiB memory "
             f"and {rng.uniform(20, 30):.6f} seconds") for r in range(8)])
    w.add([R(self.wk[r], "INFO", "gpu_worker.py:373", "Available KV cache memory: 2.71 GiB")
           for r in range(8)])
    pad = end - w.n - 16
    w.add([self.nccl(i % 8, f"Channel {i % 32:02d}/0 : {i % 8}[{i % 8}] -> {(i + 1) % 8}"
                     f"[{(i + 1) % 8}] via P2P/CUMEM/read") for i in range(max(pad, 0))])
    body = ["EngineCore failed to start.", "Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 833, '
            "in run_engine_core",
            "    engine_core = EngineCoreProc(*args, **kwargs)",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", '
            "line 699, in check_enough_kv_cache_memory",
            "    raise ValueError(",
            "ValueError: To serve at least one request with the models's max seq len (131072), "
            "(16.00 GiB KV cache is needed, which is larger than the available KV cache memory "
            "(2.71 GiB). Based on the available memory, the estimated maximum model length is "
            "22176. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
            "initializing the engine."]
    lines = self.mrec(eng, "ERROR", "core.py:842", body)
    self.root_line = w.n + len(lines)  # type: ignore[attr-defined]
    w.add([line.rstrip("\r") for line in lines])  # journald stores each line on its own
    w.add([f"{api}ERROR {self.clock.ts()} [core_client.py:581] Engine core proc EngineCore_DP0 "
           "died unexpectedly, shutting down client.",
           "Traceback (most recent call last):",
           '  File "/usr/local/bin/vllm", line 10, in <module>',
           "    sys.exit(main())",
           "RuntimeError: Engine core initialization failed. See root cause above. Failed core "
           "proc(s): {}"])


_MixServer.startup_failing = _startup_failing  # type: ignore[attr-defined]


class _Journald:
    """Wraps every line as `journalctl -u vllm` prints it (the Writer hands whole chunks)."""

    def __init__(self, out, clock: Clock):
        self.out, self.clock = out, clock
        self.pid = 41000

    def write(self, data: bytes) -> None:
        stamp = _journal_time(self.clock)
        lines = data.decode("utf-8").split("\n")
        head = f"{stamp} {HOST} vllm[{self.pid}]: "
        wrapped = [f"{stamp} {HOST} {line}" if line.startswith("systemd[1]: ") else head + line
                   for line in lines[:-1]]
        self.out.write(("\n".join(wrapped) + "\n").encode("utf-8"))

    def finish(self) -> None:
        pass


def _journal_time(clock: Clock) -> str:
    return time.strftime("%b %d %H:%M:%S", time.gmtime(int(clock.t)))


def generate_mix(mix: str, n_lines: int, path: str, seed: int = 0) -> dict:
    """Write the mix to `path`; return its truth (the root cause's line and exception)."""
    if mix == "healthy":
        return dict(healthy(n_lines, path, seed), mix=mix, seed=seed)
    with open(path, "wb") as out:
        return dict(globals()[mix](n_lines, out, seed), mix=mix, seed=seed)
