"""Explain many files at once: a local process pool, or Ray tasks across a cluster.

Both take absolute paths and hand back one Explained per path, in the order given; what is in
an Explained does not depend on the engine, so the grouping does not either.
"""

from __future__ import annotations

import importlib
import logging
import math
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from logsleuth.errors import LogsleuthError
from logsleuth.triage.model import Explained, Status
from logsleuth.triage.work import explain_path, explain_paths

Work = Callable[[str, tuple[str, ...]], Explained]
Progress = Callable[[], None]  # called once per file explained

WORKER_DIED = "the worker process died while reading this file (out of memory, or a crash " \
              "in native code)"
RAY_MISSING = "the Ray engine needs Ray: pip install 'logsleuth[ray]'"
TASKS_PER_CPU = 4  # Ray: enough tasks per CPU to even out file sizes, few enough to stay cheap
MAX_FILES_PER_TASK = 64


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_local(paths: Sequence[str], signature_dirs: tuple[str, ...] = (), *,
              jobs: int | None = None, work: Work = explain_path,
              progress: Progress | None = None) -> list[Explained]:
    """Explain `paths` with a pool of `jobs` processes (default: every core).

    With one job, or one path, the work runs in this process. A worker that dies (the kernel's
    out-of-memory killer, a segfault in native code) breaks the whole pool; the paths not yet
    done then go to a fresh pool, and when a round finishes nothing, one at a time, each in a
    pool of its own, so the file that kills its worker is the one reported as crashed.
    """
    jobs = jobs or default_jobs()
    tick = progress or (lambda: None)
    if jobs == 1 or len(paths) <= 1:
        out = []
        for path in paths:
            out.append(work(path, signature_dirs))
            tick()
        return out
    done: dict[str, Explained] = {}
    pending = list(paths)
    while pending:
        finished, broken = _pool_round(pending, signature_dirs, min(jobs, len(pending)), work,
                                       tick)
        done.update(finished)
        if broken and not finished:
            for path in broken:
                alone, failed = _pool_round([path], signature_dirs, 1, work, tick)
                done.update(alone)
                done.update({p: Explained(p, Status.CRASHED, error=WORKER_DIED) for p in failed})
            broken = []
        pending = broken
    return [done[path] for path in paths]


def _pool_round(paths: Sequence[str], signature_dirs: tuple[str, ...], jobs: int,
                work: Work, tick: Progress) -> tuple[dict[str, Explained], list[str]]:
    finished: dict[str, Explained] = {}
    broken: list[str] = []
    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        futures: dict[Future[Explained], str] = {
            pool.submit(work, path, signature_dirs): path for path in paths}
        for future in as_completed(futures):
            try:
                finished[futures[future]] = future.result()
            except BrokenProcessPool:
                broken.append(futures[future])
            tick()
    except KeyboardInterrupt:
        # Ctrl-C: stop now, not when the files being read are done (a pool's shutdown waits)
        pool.shutdown(wait=False, cancel_futures=True)
        for child in multiprocessing.active_children():
            child.terminate()
        raise
    pool.shutdown(wait=True)
    return finished, sorted(broken, key=paths.index)


def run_ray(paths: Sequence[str], signature_dirs: tuple[str, ...] = (), *,
            address: str | None = None) -> list[Explained]:
    """Explain `paths` as Ray tasks, each over a share of the list.

    Uses the Ray connection of this process when there is one; else `ray.init(address)`
    (None: RAY_ADDRESS, or a new local instance), shut down again at the end. Every node must
    see the files at the same absolute paths and have logsleuth installed.
    """
    try:  # typed as Any: Ray's own annotations change from release to release
        ray: Any = importlib.import_module("ray")
    except ImportError as exc:
        raise LogsleuthError(RAY_MISSING) from exc
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, min(MAX_FILES_PER_TASK, math.ceil(len(paths) / (cpus * TASKS_PER_CPU))))
        shares = [list(paths[i:i + size]) for i in range(0, len(paths), size)]
        task = ray.remote(explain_paths)
        refs = [task.remote(share, signature_dirs) for share in shares]
        done: list[Explained] = []
        for share, ref in zip(shares, refs):
            try:
                done += ray.get(ref)
            except ray.exceptions.RayError as exc:  # the task failed after Ray's retries
                error = f"{WORKER_DIED}: {type(exc).__name__}"
                done += [Explained(path, Status.CRASHED, error=error) for path in share]
        return done
    finally:
        if started:
            ray.shutdown()
