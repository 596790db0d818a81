"""Workers stopped by a signal, generated (vllm#14452: eight workers' `SystemExit` raised by
vLLM's signal handler, interleaved, the first one's frame cut off, then the shell's `Killed`).

vLLM's signal handlers turn SIGTERM/SIGINT into a bare `raise SystemExit()`: the process was told
to stop, and why is elsewhere (causality.yaml `symptoms`, `raised_at`). A copy of that exception
whose frames were cut is the same event in another process (causal.py `_placeless_copies`). So
the root is what stopped them (the kill, an earlier error), or not in the log. A program's own
`sys.exit(...)` stays an exit over whatever it reported.
"""

from __future__ import annotations

import itertools

import pytest

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

HANDLER = "/workspace/vllm/vllm/v1/executor/multiproc_executor.py"


def _worker(rank: int, prefix: str, cut: bool) -> list[str]:
    head = f"{prefix.format(rank=rank, pid=900 + rank)}"
    frames = [] if cut else [f'  File "{HANDLER}", line 303, in signal_handler']
    return [head + line for line in frames + ["    raise SystemExit()", "SystemExit: "]]


def _interleave(blocks: list[list[str]]) -> list[str]:
    out: list[str] = []
    for row in itertools.zip_longest(*blocks):
        out += [line for line in row if line is not None]
    return out


PREFIXES = ["(VllmWorker rank={rank} pid={pid}) ", "(Worker_TP{rank} pid={pid}) "]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("workers", [1, 2, 4])
@pytest.mark.parametrize("first_cut", [False, True])
@pytest.mark.parametrize("ending", ["Killed", ""])
def test_signal_exits_are_not_the_root(prefix: str, workers: int, first_cut: bool,
                                       ending: str) -> None:
    if first_cut and workers == 1:
        return  # a lone SystemExit with no frame says nothing of where it was raised
    blocks = [_worker(rank, prefix, cut=first_cut and rank == 0) for rank in range(workers)]
    lines = _interleave(blocks) + ([ending] if ending else [])
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    if ending:
        root = report.root_cause
        assert report.verdict is Verdict.FAILURE and root is not None
        assert root.exception == "Killed", root
    else:
        assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause


@pytest.mark.parametrize("prefix", PREFIXES)
def test_an_error_before_the_signal_exits_is_the_root(prefix: str) -> None:
    lines = [prefix.format(rank=3, pid=903) + "ERROR 03-06 06:49:30 [multiproc_executor.py:375] "
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB."]
    lines += _interleave([_worker(rank, prefix, cut=False) for rank in range(3)])
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.exception == "torch.OutOfMemoryError" and root.line == 1


@pytest.mark.parametrize("prefix", ["", "(APIServer pid=1) "])
def test_a_programs_own_exit_stays_an_error(prefix: str) -> None:
    lines = [prefix + line for line in [
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/vllm", line 10, in <module>', "    sys.exit(main())",
        "SystemExit: 1"]]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    root = report.root_cause
    assert root is not None and root.exception == "SystemExit"
