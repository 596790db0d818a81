"""The engine core quotes one rank's error; every rank raised it for the same step.

In a tensor-parallel step that fails on every device (an allocation too large for any of them),
each worker logs the same exception, differing only in its device's number and memory figures,
in whatever order the processes reach the log; the engine core then relays the first response it
collects (`RuntimeError: Worker failed with error 'NPU out of memory ... (NPU 0; ...)'`), rank
0's, however late rank 0 printed. The quote names the failure, not which copy came first: the
root is the earliest copy printed (tests/fixtures/tuning, runtime/w-ascend-v0110rc0-qwen3-235b-
tp16-90k-prompt-splitfuse-attn-mask-npu-oom-elided-workers; causal.py `_link`). Not another error
of another rank (its own fingerprint), nor a copy its engine went on working after.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from scenario_logs import Server

ERRORS = [
    lambda rank, used: (f"RuntimeError: NPU out of memory. Tried to allocate 11.50 GiB (NPU {rank};"
                        f" 60.97 GiB total capacity; {used:.2f} GiB already allocated; 4.64 GiB "
                        "free)"),
    lambda rank, used: (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                        f"GPU {rank} has a total capacity of 79.10 GiB of which {80 - used:.2f} "
                        "GiB is free."),
    lambda rank, used: (f"RuntimeError: CUDA error: an illegal memory access was encountered "
                        f"(device {rank})"),
]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8), st.sampled_from(ERRORS), st.randoms(use_true_random=False),
       st.booleans())
def test_the_earliest_copy_of_the_quoted_error_is_the_root(
        workers: int, error, random, dead: bool) -> None:  # noqa: ANN001 - a strategy's function
    server = Server(workers=workers)
    order = list(range(workers))
    random.shuffle(order)
    if order[0] == 0:  # rank 0's copy, the quoted one, not printed first
        order.append(order.pop(0))
    lines = [*server.startup(), *server.requests(2)]
    first = len(lines)
    for rank in order:
        lines += server.worker_runtime_error(rank, [error(rank, 50 + rank / 7)])
    lines += server.engine_wrapper([error(0, 50).split(": ", 1)[1]])
    if dead:
        lines += server.engine_dead()
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.process.name == f"Worker_TP{order[0]}", (order, root)
    assert first < root.line <= first + len(server.worker_runtime_error(0, ["x"]))


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.sampled_from(ERRORS))
def test_another_error_of_another_rank_is_not_a_copy(workers: int, error) -> None:  # noqa: ANN001
    server = Server(workers=workers)
    lines = [*server.startup(), *server.requests(2)]
    lines += server.worker_runtime_error(1, ["ValueError: could not broadcast input array from "
                                             "shape (3,) into shape (4,)"])
    start = len(lines)
    lines += server.worker_runtime_error(0, [error(0, 50)])
    lines += server.engine_wrapper([error(0, 50).split(": ", 1)[1]])
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and root.process.name == "Worker_TP0" and root.line > start
