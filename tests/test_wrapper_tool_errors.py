"""A wrapper's tool printing its own error line into the output vLLM writes to (a SLURM job's .err
file, a container's entrypoint script): `jq: error: writing output failed: Stale file handle` of a
launcher that could not write its status file. The tool is a program of its own: its line is an
error of unnamed output, which the deployment's later work saves as it saves an unnamed record
(causal.py `_Work.evidence`): a start-up that completes after it, engine output. Alone at the end,
it stays the failure the log shows. An error line of vLLM's own CLI or of a Python script
(argparse's `prog: error:`, which exits) is the program that would start vLLM ending there: a
start-up after it is another invocation, and the line stays the root cause (causality.yaml
`exits.programs`). A progress bar printed after an error line is the loop's output, not more of
the error's message. The variations draw the tool's line at each place of a V1 start-up (before
the banner, among the start-up steps, between shard bars, after the ready line) and the start-up
prefixed (V1) or not (V0, one process)."""

from __future__ import annotations

import io
import itertools

import pytest

import logsleuth
from logsleuth.model import ErrorEvent, Verdict

TOOL_ERRORS = (
    "jq: error: writing output failed: Stale file handle",
    "yq: error: open /shared/status.yaml: stale NFS file handle",
    "cluster-status: error: could not write /scratch/job/status",
)
PROGRAM_EXITS = (
    "vllm serve: error: argument --dtype: invalid choice: 'f16'",
    "vllm: error: unrecognized arguments: --tp 2",
    "api_server.py: error: the following arguments are required: --model",
    "/opt/app/launch_vllm.py: error: argument --port: invalid int value: 'x'",
)
V1 = [
    "(APIServer pid=14) INFO 02-10 10:00:00 [api_server.py:1885] vLLM API server version 0.11.0",
    "(APIServer pid=14) INFO 02-10 10:00:00 [utils.py:233] non-default args: {'model': '/m'}",
    "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
    "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:03<00:03,  1.87s/it]",
    "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:07<00:00,  1.87s/it]",
    "(EngineCore_DP0 pid=72) INFO 02-10 10:01:00 [default_loader.py:267] Loading weights took "
    "7.50 seconds",
    "(EngineCore_DP0 pid=72) INFO 02-10 10:01:30 [core.py:210] init engine (profile, create kv "
    "cache, warmup model) took 30.00 seconds",
    "(APIServer pid=14) INFO:     Started server process [14]",
    "(APIServer pid=14) INFO:     Waiting for application startup.",
    "(APIServer pid=14) INFO:     Application startup complete.",
]
V0 = [
    "INFO 02-10 10:00:00 api_server.py:585] vLLM API server version 0.6.3",
    "INFO 02-10 10:00:01 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: ...",
    "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
    "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:03<00:03,  1.87s/it]",
    "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:07<00:00,  1.87s/it]",
    "INFO 02-10 10:01:00 model_runner.py:1067] Loading model weights took 14.99 GB",
    "INFO 02-10 10:01:30 gpu_executor.py:122] # GPU blocks: 2000, # CPU blocks: 512",
    "INFO:     Started server process [14]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
]
PLACES = (0, 2, 4, 7)  # before the banner, before the shard bars, between them, after the load


def _log(start: list[str], line: str, at: int) -> str:
    return "\n".join([*start[:at], line, *start[at:]]) + "\n"


@pytest.mark.parametrize(("line", "start", "at"),
                         list(itertools.product(TOOL_ERRORS, (V1, V0), PLACES)))
def test_a_tool_error_line_before_a_completed_start_up_is_survived(
        line: str, start: list[str], at: int) -> None:
    report = logsleuth.explain_text(_log(start, line, at))
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@pytest.mark.parametrize(("line", "start"), list(itertools.product(TOOL_ERRORS, (V1, V0))))
def test_a_tool_error_line_nothing_saves_is_the_failure(line: str, start: list[str]) -> None:
    # the log ends on the tool's line, the start-up begun and not completed
    report = logsleuth.explain_text(_log(start[:2], line, 2))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 3


@pytest.mark.parametrize(("line", "start", "at"),
                         list(itertools.product(PROGRAM_EXITS, (V1, V0), (0, 2))))
def test_the_launching_program_s_usage_error_is_not_saved_by_a_later_start(
        line: str, start: list[str], at: int) -> None:
    report = logsleuth.explain_text(_log(start, line, at))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == at + 1


@pytest.mark.parametrize("error", [*TOOL_ERRORS[:1], "ValueError: no such file: /m/config.json",
                                   "RuntimeError: CUDA error: out of memory"])
def test_a_progress_bar_after_an_error_line_is_not_its_message(error: str) -> None:
    bars = [line for line in V0 if "checkpoint shards" in line]
    events = [e for e in logsleuth.parse(io.BytesIO(("\n".join([error, *bars]) + "\n").encode()))
              if isinstance(e, ErrorEvent)]
    assert [(e.line, e.last_line) for e in events] == [(1, 1)]
    assert "checkpoint shards" not in events[0].message
