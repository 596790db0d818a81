"""Survived or fatal: does the verdict follow the evidence for every record vLLM can log?

Every WARNING, ERROR and CRITICAL logger template of the message index (every release; a sample
with `--sample`) gets its placeholders filled (`tools/index_coverage/coverage.py`'s filler) and is
rendered as the record of the process its module runs in (API server, engine core, worker), in the
record shape of a release era that prints it:

- `v0`      (<= 0.7.3): unprefixed `ERROR 10-17 12:43:16 engine.py:160] ...`; a worker's record
  from the multiprocessing executor's `(VllmWorkerProcess pid=N)` or Ray's `(RayWorkerWrapper pid=N)`;
- `v1early` (0.8 - 0.10.1): `[file.py:N]` records; unprefixed but a worker's `(VllmWorker rank=0 pid=N)`
  (Ray's `(RayWorkerWrapper pid=N)` under the Ray executor, in this era and the next);
- `v1`      (0.10.2 on): `(APIServer pid=N)`, `(EngineCore_DP0 pid=N)`, `(Worker_TP0 pid=N)`.

Each record goes into generated contexts:

- `healthy`: a serving run where the record sits mid-run (during start-up after the weights load,
  or between served requests) and its process, or its engine, goes on with normal work after it:
  start-up milestones, requests answered 200, throughput lines with tokens produced. A report of
  `failure` or `root_cause_missing` is a healthy log called failing.
- `healthy_short`: the same with a short tail: four requests answered and four stats lines with
  tokens produced after the record (eight lines, the length of an excerpt a user pastes).
- `healthy_offline`: an offline `LLM` (no API server): the record during start-up or during a
  batch, then that batch's bar and the next one's to 100%.
- `fatal_end`: a start-up or serving run where the record (ERROR/CRITICAL only) is the last thing
  its process says and the run ends there with no further progress.
- `fatal_exit`: the same, then the exit vLLM prints for that process's death (an engine core that
  failed to start, a dead engine, a worker that died);
- `fatal_teardown`: a start-up whose record (ERROR/CRITICAL) is followed only by the noise a
  program's exit prints (torch's process group left, leaked semaphores). A report of
  `no_failure` for any fatal context is a failing log called healthy.

Misses are ranked by class: level, module (the subsystem), era and context, and by the template's
first words (its family), largest first.

    PYTHONPATH=. .venv/bin/python tools/verdict_probe/probe.py --jobs 2 --results /tmp/vp.jsonl
    PYTHONPATH=. .venv/bin/python tools/verdict_probe/probe.py --sample 300 --levels ERROR

Not run-time code: nothing in `logsleuth/` imports it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "index_coverage"))
from coverage import fill, holes  # noqa: E402  (one filler for every probe)

from logsleuth.knowledge import default_causality  # noqa: E402
from logsleuth.index.data import MessageKind, MessageTemplate, default_index  # noqa: E402
from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures  # noqa: E402

LEVELS = ("WARNING", "ERROR", "CRITICAL")
CONTEXTS = ("healthy", "healthy_short", "healthy_offline", "fatal_end", "fatal_exit",
            "fatal_teardown")
HEALTHY = ("healthy", "healthy_short", "healthy_offline")
ERAS = ("v0", "v1early", "v1")
MODEL = "Qwen/Qwen2.5-7B-Instruct"

# The process a module's records come from. First match wins; the rest is the API server's
# (entry points, configs and engine arguments: vLLM builds its config there).
ROLE_OF = (
    (r"^vllm\.(?:v1\.)?(?:worker|model_executor|attention|distributed|lora|spec_decode|"
     r"compilation|v1\.attention|v1\.sample|v1\.spec_decode|v1\.kv_offload|_custom_ops|"
     r"kernels|platforms|device_allocator|multimodal\.cache)\b", "worker"),
    (r"^vllm\.(?:v1\.(?:engine\.core|core|structured_output|executor|metrics\.stats)|"
     r"core|engine\.llm_engine|executor|model_executor\.guided_decoding)\b", "core"),
)


@dataclass(frozen=True, slots=True)
class Event:
    """One template rendered in one context."""

    text: str
    level: str
    module: str
    era: str
    role: str  # api, core, worker
    ray: bool
    context: str
    serving: bool  # the record sits in serving (else in start-up)
    wrapper: str = "plain"  # a failure probe wrapper around every line (`--wrappers`)
    source: str = "vllm"  # the index the template comes from: vllm's, or a plugin's package

    @property
    def digest(self) -> int:
        return int(hashlib.sha1(f"{self.text}|{self.context}".encode()).hexdigest()[:8], 16)


@dataclass(frozen=True, slots=True)
class Result:
    event: Event
    verdict: str
    root: str | None  # the root cause's line text (cut)

    @property
    def wrong(self) -> bool:
        if self.event.context in HEALTHY:
            return self.verdict != "no_failure"
        return self.verdict == "no_failure"


def role_of(module: str) -> str:
    for pattern, role in ROLE_OF:
        if re.search(pattern, module):
            return role
    return "api"


def era_of(template: MessageTemplate, releases: Sequence[str], rng: random.Random) -> str:
    """An era whose releases print the template (drawn among them)."""
    def era(version: str) -> str:
        minor = tuple(int(p) for p in re.findall(r"\d+", version)[:3])
        if minor <= (0, 7, 3):
            return "v0"
        return "v1early" if minor < (0, 10, 2) else "v1"
    eras = sorted({era(releases[i]) for i in template.releases}, key=ERAS.index)
    if template.module.startswith("vllm.v1.") and "v0" in eras and len(eras) > 1:
        eras.remove("v0")
    return rng.choice(eras)


class Shape:
    """The record heads of one era: `line(role, level, file, text)`."""

    def __init__(self, era: str, ray: bool, offline: bool = False) -> None:
        self.era, self.ray, self.offline = era, ray, offline
        self.clock = 0
        self.served = 0

    def stamp(self) -> str:
        self.clock += 1
        seconds = 30 + self.clock
        return f"02-05 10:{11 + seconds // 60:02d}:{seconds % 60:02d}"

    def prefix(self, role: str) -> str:
        if role == "api" and self.offline:
            return ""  # an offline `LLM`: the program's own process, unprefixed
        if self.era == "v0":
            if role == "worker":
                return "(RayWorkerWrapper pid=4201) " if self.ray else "(VllmWorkerProcess pid=4201) "
            return ""
        if role == "worker" and self.ray:  # the Ray executor's actors, as Ray relays their lines
            return "(RayWorkerWrapper pid=4201) "
        if self.era == "v1early":
            return "(VllmWorker rank=0 pid=4201) " if role == "worker" else ""
        return {"api": "(APIServer pid=4000) ", "core": "(EngineCore_DP0 pid=4100) ",
                "worker": "(Worker_TP0 pid=4201) "}[role]

    def record(self, role: str, level: str, file: str, text: str, line: int = 321) -> list[str]:
        site = f"{file}:{line}]" if self.era == "v0" else f"[{file}:{line}]"
        head = f"{self.prefix(role)}{level} {self.stamp()} {site} "
        return [head + part for part in text.split("\n")]

    def info(self, role: str, file: str, text: str) -> list[str]:
        return self.record(role, "INFO", file, text, 100)

    def plain(self, role: str, text: str) -> list[str]:
        return [self.prefix(role) + text]

    # -- the run's phases -------------------------------------------------------------------
    def banner(self) -> list[str]:
        version = {"v0": "0.6.3", "v1early": "0.9.2", "v1": "0.11.0"}[self.era]
        out = [] if self.offline else self.info("api", "api_server.py",
                                                 f"vLLM API server version {version}")
        out += self.info("api", "model.py", "Resolved architecture: Qwen2ForCausalLM")
        if self.era == "v0":
            out += self.info("core", "llm_engine.py", f"Initializing an LLM engine (v{version}) "
                             f"with config: model='{MODEL}', tokenizer='{MODEL}', seed=0")
        else:
            out += self.info("core", "core.py", f"Initializing a V1 LLM engine (v{version}) with "
                             f"config: model='{MODEL}', tokenizer='{MODEL}', seed=0")
        out += self.info("worker", "gpu_model_runner.py", f"Starting to load model {MODEL}...")
        return out

    def loaded(self) -> list[str]:
        out = self.info("worker", "default_loader.py", "Loading weights took 3.21 seconds")
        out += self.info("worker", "gpu_model_runner.py",
                         "Model loading took 14.25 GiB and 4.02 seconds")
        return out

    def ready(self) -> list[str]:
        if self.era == "v0":
            out = self.info("core", "gpu_executor.py", "# GPU blocks: 10786, # CPU blocks: 2048")
            out += self.info("worker", "model_runner.py", "Graph capturing finished in 15 secs.")
        else:
            out = self.info("core", "kv_cache_utils.py", "GPU KV cache size: 940,176 tokens")
            out += self.info("core", "core.py", "init engine (profile, create kv cache, warmup "
                             "model) took 31.20 seconds")
        out += self.info("api", "api_server.py", "Starting vLLM API server on http://0.0.0.0:8000")
        out += self.plain("api", "INFO:     Started server process [4000]")
        out += self.plain("api", "INFO:     Waiting for application startup.")
        out += self.plain("api", "INFO:     Application startup complete.")
        return out

    def serve(self, n: int) -> list[str]:
        out: list[str] = []
        for i in range(self.served, self.served + n):
            out += self.plain("api", f'INFO:     127.0.0.1:{50100 + i} - "POST /v1/chat/'
                              'completions HTTP/1.1" 200 OK')
            stats = (f"Avg prompt throughput: {120 + i}.4 tokens/s, Avg generation throughput: "
                     f"{300 + i}.2 tokens/s, Running: 2 reqs, ")
            if self.era == "v0":
                out += self.info("core", "metrics.py", stats + "Swapped: 0 reqs, Pending: 0 reqs, "
                                 "GPU KV cache usage: 1.2%, CPU KV cache usage: 0.0%.")
            else:
                out += self.info("api", "loggers.py", "Engine 000: " + stats + "Waiting: 0 reqs, "
                                 "GPU KV cache usage: 1.2%, Prefix cache hit rate: 0.0%")
        self.served += n
        return out

    def batch(self, size: int) -> list[str]:
        """An offline `LLM.generate` batch: its bars, to 100%."""
        bar = "Processed prompts: {:3d}%|{}| {}/{} [00:0{}<00:00, 15.2it/s, est. speed input: " \
            "1500.00 toks/s, output: {} toks/s]"
        return [f"Adding requests: 100%|##########| {size}/{size} [00:00<00:00, 1500.2it/s]",
                bar.format(0, "          ", 0, size, 0, "0.00"),
                bar.format(50, "#####     ", size // 2, size, 2, "410.00"),
                bar.format(100, "##########", size, size, 4, "800.00")]

    def teardown(self) -> list[str]:
        """The noise a program's exit prints with no error of its own (torch's process group
        left, multiprocessing's leaked semaphores)."""
        return [
            "[rank0]:[W205 10:12:40.123456 ProcessGroupNCCL.cpp:1538] Warning: WARNING: "
            "destroy_process_group() was not called before program exit, which can leak "
            "resources. For more info, please see https://pytorch.org/docs/stable/distributed."
            "html#shutdown (function operator())",
            "/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: "
            "resource_tracker: There appear to be 1 leaked semaphore objects to clean up at "
            "shutdown",
            "  warnings.warn('resource_tracker: There appear to be %d '"]

    def death(self, role: str, serving: bool) -> list[str]:
        """What vLLM prints when the record's process dies there."""
        if self.era == "v0":
            if role == "worker":
                return self.record("core", "ERROR", "multiproc_worker_utils.py",
                                   "Worker VllmWorkerProcess pid 4201 died, exit code: -9", 120)
            if serving:
                return self.record("api", "ERROR", "async_llm_engine.py", "Engine background "
                                   "task failed", 64) + [
                    "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has "
                    "errored already."]
            return ["Traceback (most recent call last):",
                    '  File "/usr/local/bin/vllm", line 8, in <module>',
                    "    sys.exit(main())",
                    "RuntimeError: Engine process failed to start. See stack trace for the "
                    "root cause."]
        out: list[str] = []
        if role == "worker" and self.ray:
            out += self.record("core", "ERROR", "core.py", "EngineCore encountered a fatal "
                               "error.", 719)
            out += self.plain("core", "ray.exceptions.ActorDiedError: The actor died "
                              "unexpectedly before finishing this task.")
        elif role == "worker":
            out += self.record("core", "ERROR", "multiproc_executor.py", "Worker proc "
                               "VllmWorker-0 died unexpectedly, shutting down executor.", 149)
        if serving:
            out += self.record("api", "ERROR", "async_llm.py", "AsyncLLM output_handler "
                               "failed.", 480)
            out += self.plain("api", "vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
                              "encountered an issue. See stack trace (above) for the root cause.")
        elif role != "api":
            out += self.plain("api", "RuntimeError: Engine core initialization failed. See root "
                              "cause above. Failed core proc(s): {}")
        else:
            out += self.plain("api", "Traceback (most recent call last):")
            out += self.plain("api", '  File "/usr/local/bin/vllm", line 10, in <module>')
            out += self.plain("api", "    sys.exit(main())")
            out += self.plain("api", "SystemExit: 1")
        return out


def render(event: Event, message: str, file: str) -> str:
    """The event's log, inside its wrapper."""
    text = _render(event, message, file)
    if event.wrapper == "plain":
        return text
    lines = text.rstrip("\n").split("\n")
    # the record's first line (glued: run on from the line before it, its line end lost)
    first = message.split("\n")[0]
    at = max((i for i, line in enumerate(lines) if line.endswith(first)), default=len(lines) - 1)
    return "\n".join(_failure_probe().wrap(lines, event.wrapper, random.Random(event.digest),
                                           at)) + "\n"


@cache
def _failure_probe() -> Any:
    """The failure probe's module, for its wrappers (one set of wrappers for every probe)."""
    spec = importlib.util.spec_from_file_location("failure_probe",
                                                  HERE.parent / "failure_probe" / "probe.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["failure_probe"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _render(event: Event, message: str, file: str) -> str:
    shape = Shape(event.era, event.ray, event.context == "healthy_offline")
    lines = shape.banner()

    def record() -> list[str]:
        return shape.record(event.role, event.level, file, message)
    if event.context == "healthy_offline":
        ready = (shape.info("core", "kv_cache_utils.py", "GPU KV cache size: 940,176 tokens")
                 if event.era != "v0" else shape.info("core", "gpu_executor.py",
                                                       "# GPU blocks: 10786, # CPU blocks: 2048"))
        if not event.serving:  # during start-up, then two batches
            lines += shape.loaded() + record() + ready + shape.batch(64) + shape.batch(32)
        else:  # during a batch, then the next
            batch = shape.batch(64)
            lines += shape.loaded() + ready + batch[:2] + record() + batch[2:] + shape.batch(32)
        return "\n".join(lines) + "\n"
    if event.context in HEALTHY:
        after = 20 if event.context == "healthy" else 4
        if not event.serving:  # during start-up, which then completes and serves
            lines += shape.loaded() + record() + shape.ready() + shape.serve(after)
        else:  # between served requests
            lines += shape.loaded() + shape.ready() + shape.serve(2) + record() + shape.serve(after)
        return "\n".join(lines) + "\n"
    serving = event.serving
    lines += shape.loaded()
    if serving:
        lines += shape.ready() + shape.serve(2)
    lines += record()
    if event.context == "fatal_exit":
        lines += shape.death(event.role, serving)
    elif event.context == "fatal_teardown":
        lines += shape.teardown()
    return "\n".join(lines) + "\n"


def _templates(source: str) -> list[tuple[MessageTemplate, str, Sequence[str]]]:
    """(template, its source, its index's releases) of vLLM's index, the plugins' or both. A
    plugin's module is read as vLLM's of the same path (`vllm_ascend.worker.x` runs where
    `vllm.worker.x` does: ROLE_OF)."""
    out: list[tuple[MessageTemplate, str, Sequence[str]]] = []
    if source in ("vllm", "all"):
        index = default_index()
        out += [(t, "vllm", index.releases) for t in index.templates]
    if source in ("plugins", "all"):
        from logsleuth.index.plugin import default_plugins
        for plugin, _ in default_plugins():
            out += [(t, plugin.package, plugin.index.releases) for t in plugin.index.templates]
    return out


def events(levels: Sequence[str], sample: int, seed: int, source: str = "vllm",
           wrappers: Sequence[str] = ("plain",)) -> list[tuple[Event, str, str]]:
    """(event, filled message, file) for the index's logger templates of these levels, each
    in a wrapper drawn among `wrappers`."""
    rng = random.Random(seed)
    by_text: dict[str, MessageTemplate] = {}
    origin: dict[str, tuple[str, Sequence[str]]] = {}
    for template, package, releases in _templates(source):
        if template.kind is MessageKind.LOG and template.cls in levels:
            old = by_text.get(template.text)
            if old is None or len(template.releases) > len(old.releases):
                by_text[template.text] = template
                origin[template.text] = (package, releases)
    texts = sorted(by_text)
    if sample:
        per_level: dict[str, list[str]] = defaultdict(list)
        for text in texts:
            per_level[by_text[text].cls].append(text)
        texts = sorted(t for level, group in per_level.items()
                       for t in rng.sample(group, min(sample, len(group))))
    filled_holes = holes()
    causality = default_causality()
    out = []
    for text in texts:
        template = by_text[text]
        message = fill(text, filled_holes.get(text))
        file = template.module.rsplit(".", 1)[-1] + ".py"
        package, releases = origin[text]
        # a plugin's release numbers are its own: its records are V1's (plugins are V1's)
        era = era_of(template, releases, rng) if package == "vllm" \
            else rng.choice(("v1early", "v1"))
        role = role_of(re.sub(r"^vllm_\w+?\.|^\w+\.", "vllm.", template.module)
                       if package != "vllm" else template.module)
        ray = rng.random() < 0.4
        # a record that itself reports a process's death (`AsyncLLMEngine has failed, terminating
        # server process`) is never followed by normal work
        dies = causality.symptom_of(f"{template.cls}: {message}") is not None
        for context in CONTEXTS:
            if context in ("fatal_end", "fatal_teardown") and template.cls == "WARNING":
                continue  # a warning with nothing after it says nothing of a failure
            if context in HEALTHY and dies:
                continue
            # the exit's noise alone after serving may be a clean stop: start-up only
            serving = rng.random() < 0.5 and context != "fatal_teardown"
            out.append((Event(text, template.cls, template.module, era, role, ray, context,
                              serving, rng.choice(wrappers), package), message, file))
    return out


_SIGNATURES: SignatureSet | None = None
T = TypeVar("T")
R = TypeVar("R")


def explain_verdict(text: str) -> tuple[str, str | None]:
    """A generated log's verdict and the start of its root cause's text (every probe's measure),
    with one signature database per worker process."""
    global _SIGNATURES
    if _SIGNATURES is None:
        _SIGNATURES = default_signatures()
    report = explain_text(text, signatures=_SIGNATURES)
    return report.verdict.value, (report.root_cause.text[:100]
                                  if report.root_cause is not None else None)


def measure_all(measure: Callable[[T], R], items: Sequence[T], jobs: int,
                chunksize: int) -> list[R]:
    """`measure` of every item, in `jobs` worker processes when more than one."""
    if jobs <= 1:
        return [measure(item) for item in items]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(measure, items, chunksize=chunksize))


def measure_one(item: tuple[Event, str, str]) -> Result:
    return Result(item[0], *explain_verdict(render(*item)))


def subsystem(module: str) -> str:
    return ".".join(module.split(".")[:3])


def family(text: str, words: int = 3) -> str:
    found = re.findall(r"[A-Za-z][A-Za-z'`-]+", text)
    return " ".join(found[:words])


def summary(results: Sequence[Result], top: int) -> str:
    out = []
    for context in CONTEXTS:
        group = [r for r in results if r.event.context == context]
        if not group:
            continue
        wrong = sum(r.wrong for r in group)
        out.append(f"{context:10} {wrong:5} / {len(group):5} wrong ({100 * wrong / len(group):.1f}%)")
        by_level = Counter((r.event.level, r.wrong) for r in group)
        out.append("   " + ", ".join(f"{lvl} {by_level[(lvl, True)]}/"
                                      f"{by_level[(lvl, True)] + by_level[(lvl, False)]}"
                                      for lvl in LEVELS
                                      if by_level[(lvl, True)] + by_level[(lvl, False)]))
    missed = [r for r in results if r.wrong]
    out += misses_by(missed, (
        ("class (context, level, era, role, phase)",
         lambda r: (r.event.context, r.event.level, r.event.era, r.event.role,
                    "serving" if r.event.serving else "startup")),
        ("wrapper", lambda r: (r.event.context, r.event.wrapper)),
        ("source", lambda r: (r.event.context, r.event.source)),
        ("module", lambda r: (r.event.context, subsystem(r.event.module))),
        ("family (first words)", lambda r: (r.event.context, family(r.event.text)))), top)
    return "\n".join(out)


def misses_by(missed: Sequence[Any], keys: Sequence[tuple[str, Callable[[Any], object]]],
              top: int) -> list[str]:
    """The misses counted by each named key, the `top` largest classes of each (the failure
    probe ranks its misses the same way)."""
    out: list[str] = []
    for name, key in keys:
        out.append(f"\nmisses by {name}:")
        for cls, n in Counter(map(key, missed)).most_common(top):
            out.append(f"  {n:4}  {cls}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), choices=LEVELS)
    parser.add_argument("--sample", type=int, default=0, help="templates drawn per level (0: all)")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--results", type=Path, help="write one JSON line per event")
    parser.add_argument("--show", type=int, default=0, help="print N missed logs")
    parser.add_argument("--show-context", choices=CONTEXTS, help="only misses of this context")
    parser.add_argument("--index", choices=("vllm", "plugins", "all"), default="vllm",
                        help="whose templates: vLLM's, the plugins' (logsleuth/index/plugin_*)")
    parser.add_argument("--wrappers", nargs="+", default=["plain"],
                        help="failure probe wrappers, one drawn per event (`all`: every one)")
    args = parser.parse_args(argv)
    wrappers = list(_failure_probe().WRAPPERS) if args.wrappers == ["all"] else args.wrappers
    items = events(args.levels, args.sample, args.seed, args.index, wrappers)
    results = measure_all(measure_one, items, args.jobs, 16)
    print(summary(results, args.top))
    if args.results:
        with args.results.open("w") as out:
            for result in results:
                out.write(json.dumps({**asdict(result.event), "verdict": result.verdict,
                                      "root": result.root, "wrong": result.wrong}) + "\n")
    shown = 0
    for item, result in zip(items, results):
        if result.wrong and shown < args.show \
                and args.show_context in (None, result.event.context):
            shown += 1
            print(f"\n--- {result.event.context} -> {result.verdict} (root: {result.root})")
            print(render(*item), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
