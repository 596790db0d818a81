"""A log that holds the same output twice (a reporter who pasted it twice, a collector that
shipped the file twice, the second copy often spliced onto the first's last line): its start
lines are printed again whole, time and all, which no restart does (a restart prints its own
time). The copy begins no run (runs.py), so the report reads one run and names the first copy's
root cause, not a second run's. A restart, its start at a later time, is a run of its own, and so
is one whose single start line repeats (too little to tell a copy).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def _v0_run(second: int, prefix: str) -> list[str]:
    """A V0 server with a Ray worker that fails in init_device: the driver's logged traceback."""
    t = f"04-26 01:58:{second:02d}"
    head = f"{prefix}ERROR {t} worker_base.py:157] "
    return [
        f"{prefix}INFO {t} api_server.py:151] vLLM API server version 0.4.1",
        f"{prefix}INFO {t} api_server.py:152] args: Namespace(host=None, port=8000, model='m')",
        f"{prefix}INFO {t} llm_engine.py:98] Initializing an LLM engine (v0.4.1) with config: "
        "model='m', tensor_parallel_size=2",
        f"(RayWorkerWrapper pid=5280) {prefix}INFO {t} selector.py:28] Using FlashAttention "
        "backend.",
        head + "Error executing method init_device. This might cause deadlock in distributed "
        "execution.",
        head + "Traceback (most recent call last):",
        head + '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 110,'
        " in init_device",
        head + "    init_worker_distributed_environment(self.parallel_config, self.rank,",
        head + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1691, unhandled system error",
    ]


def _v1_run(second: int, prefix: str) -> list[str]:
    t = f"08-01 20:00:{second:02d}"
    return [
        f"{prefix}(APIServer pid=2800) INFO {t} [api_server.py:1805] vLLM API server version "
        "0.10.1",
        f"{prefix}(APIServer pid=2800) INFO {t} [utils.py:326] non-default args: "
        "{'model': 'm', 'max_model_len': 131072}",
        f"{prefix}(EngineCore_0 pid=2900) INFO {t} [core.py:74] Initializing a V1 LLM engine "
        "(v0.10.1) with config: model='m'",
        f"{prefix}(EngineCore_0 pid=2900) ERROR {t} [core.py:700] EngineCore failed to start.",
        f"{prefix}(EngineCore_0 pid=2900) ERROR {t} [core.py:700] Traceback (most recent call "
        "last):",
        f'{prefix}(EngineCore_0 pid=2900) ERROR {t} [core.py:700]   File "/usr/lib/python3/vllm/'
        'v1/core/kv_cache_utils.py", line 700, in check_enough_kv_cache_memory',
        f"{prefix}(EngineCore_0 pid=2900) ERROR {t} [core.py:700]     raise ValueError(",
        f"{prefix}(EngineCore_0 pid=2900) ERROR {t} [core.py:700] ValueError: To serve at least "
        "one request with the models's max seq len (131072), (16.0 GiB KV cache is needed, which "
        "is larger than the available KV cache memory (8.0 GiB).",
    ]


RUNS = {"v0": _v0_run, "v1": _v1_run}
# what the driver prints after the error: the same exception raised to the top, cut anywhere in a
# paste (the first copy ends where the reporter's selection ended)
TAIL = ["Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
        "    return _run_code(code, main_globals, None,"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(RUNS)), st.sampled_from(["", "2024-04-26T01:58:56.1Z "]),
       st.integers(0, 4), st.booleans())
def test_the_same_output_pasted_twice_is_one_run_named_by_its_first_copy(
        era: str, prefix: str, cut: int, spliced: bool) -> None:
    run = RUNS[era](10, prefix)
    first = [*run, *TAIL[:len(TAIL) - cut]] if cut <= len(TAIL) else run
    copy = [*run, *TAIL]
    if spliced:  # the copy begins on the first copy's last line
        lines = [*first[:-1], first[-1] + copy[0], *copy[1:]]
    else:
        lines = [*first, *copy]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert len(report.runs) <= 1, [(r.start_line, r.line) for r in report.runs]
    root = report.root_cause
    assert root is not None and root.line <= len(run), (lines, root.line)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(RUNS)), st.sampled_from(["", "2024-04-26T01:58:56.1Z "]))
def test_a_restart_at_a_later_time_is_a_run_of_its_own(era: str, prefix: str) -> None:
    first, second = RUNS[era](10, prefix), RUNS[era](40, prefix)
    report = _explain([*first, *second])
    assert len(report.runs) == 2
    assert report.root_cause is not None and report.root_cause.line > len(first)


def test_one_start_line_alike_is_too_little_to_tell_a_copy() -> None:
    # an offline run prints one start line; the same second twice may be a fast crash loop
    run = ["INFO 04-26 01:58:10 llm_engine.py:98] Initializing an LLM engine (v0.4.1) with "
           "config: model='m'",
           "ValueError: The model's max seq len (32768) is larger than the maximum number of "
           "tokens that can be stored in KV cache (20000)."]
    report = _explain([*run, *run])
    assert len(report.runs) == 2
