"""Matching that generalises: the lifecycle phase as evidence, frames and process that weigh but
do not gate, exact signatures before families, and ties broken by evidence, never by id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import logsleuth
from logsleuth.knowledge import default_causality
from logsleuth.model import Phase, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import THRESHOLD, load_signatures
from logsleuth.tokenize import anchor_patterns

# ---- phase from lifecycle lines ------------------------------------------------------------
# Real line texts by era (shared/research/vllm-log-format.md section 4), each with the phase it
# begins.
LIFECYCLE = [
    ("Initializing a V1 LLM engine (v0.10.1) with config: model='m'", Phase.INIT),
    ("Initializing an LLM engine (v0.6.3) with config: model='m'", Phase.INIT),
    ("world_size=2 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:1 backend=nccl",
     Phase.INIT),
    ("Starting to load model Qwen/Qwen3-8B...", Phase.LOAD),
    ("Loading safetensors checkpoint shards:  53% Completed | 46/86 [1:31:04<1:26:49]",
     Phase.LOAD),
    ("Loading weights took 64.57 seconds", Phase.PROFILE),
    ("Model loading took 15.2 GiB and 12.3 seconds", Phase.PROFILE),
    ("Loading model weights took 14.9595 GB", Phase.PROFILE),
    ("Dynamo bytecode transform time: 6.12 s", Phase.PROFILE),
    ("Memory profiling takes 5.12 seconds", Phase.KV_CACHE),
    ("Available KV cache memory: 18.38 GiB", Phase.KV_CACHE),
    ("# GPU blocks: 185231, # CPU blocks: 18724", Phase.KV_CACHE),
    ("GPU KV cache size: 1,745,264 tokens", Phase.KV_CACHE),
    ("Maximum concurrency for 32768 tokens per request: 53.26x", Phase.KV_CACHE),
    ("Capturing CUDA graph shapes:  45%|████▌     | 30/67 [00:10<00:12,  2.95it/s]",
     Phase.GRAPH_CAPTURE),
    ("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67",
     Phase.GRAPH_CAPTURE),
    ("Graph capturing finished in 5 secs, took 0.52 GiB", Phase.GRAPH_CAPTURE),
    ("init engine (profile, create kv cache, warmup model) took 37.37 seconds", Phase.SERVING),
]
PREFIXES = ["", "(Worker_TP0 pid=207853) INFO 05-05 07:35:18 [gpu_worker.py:276] ",
            "(VllmWorkerProcess pid=4121) INFO 10-08 13:07:26 [model_runner.py:1025] ",
            "INFO 06-19 16:59:22 [core.py:171] ",
            "\x1b[1;36m(EngineCore_DP0 pid=77)\x1b[0;0m INFO 05-05 07:35:18 [core.py:1] "]


@pytest.mark.parametrize("text,phase", LIFECYCLE, ids=[t[:30] for t, _ in LIFECYCLE])
def test_lifecycle_line_is_anchored_and_marks_its_phase(text: str, phase: Phase) -> None:
    assert anchor_patterns()[0].search(text.encode()), "the prefilter would never read it"
    assert default_causality().phase_of_line(text) is phase


OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
       "total capacity of 79.19 GiB of which 1.06 GiB is free.")


def _log(prefix: str, lines: list[str], error: str = OOM) -> str:
    body = [f"{prefix}{line}" for line in lines]
    return "\n".join(body + [f"{prefix.replace('INFO', 'ERROR')}{error}"]) + "\n"


@given(prefix=st.sampled_from(PREFIXES), upto=st.integers(min_value=0,
                                                          max_value=len(LIFECYCLE) - 1))
def test_the_most_advanced_phase_before_the_error_is_its_phase(prefix: str, upto: int) -> None:
    report = explain_text(_log(prefix, [text for text, _ in LIFECYCLE[:upto + 1]]))
    assert report.phase is not None and report.phase.source == "log"
    assert report.phase.phase is LIFECYCLE[upto][1]


def test_a_start_up_line_after_serving_is_a_restart() -> None:
    lines = ["Loading weights took 3.0 seconds", "Application startup complete.",
             "Starting to load model m..."]
    report = explain_text(_log("INFO 06-19 16:59:22 [x.py:1] ", lines))
    assert report.phase is not None and report.phase.phase is Phase.LOAD


def test_a_late_worker_start_does_not_move_the_phase_back() -> None:
    lines = ["(Worker_TP0 pid=1) INFO 01-01 00:00:00 [x.py:1] Loading weights took 3.0 seconds",
             "(Worker_TP1 pid=2) INFO 01-01 00:00:00 [x.py:1] Starting to load model m..."]
    report = explain_text("\n".join(lines) + f"\n(Worker_TP0 pid=1) ERROR 01-01 00:00:01 "
                          f"[x.py:1] {OOM}\n")
    assert report.phase is not None and report.phase.phase is Phase.PROFILE


# ---- phase from frames ---------------------------------------------------------------------
FRAMES = [  # (outer to inner functions, phase): real V0/V1 call paths
    (["run_engine_core", "__init__", "_initialize_kv_caches", "determine_available_memory",
      "collective_rpc", "profile_run", "_dummy_run", "forward"], Phase.PROFILE),
    (["worker_main", "__init__", "determine_num_available_blocks", "profile_run",
      "execute_model", "forward"], Phase.PROFILE),  # V0: profiling runs execute_model
    (["run_engine_core", "_initialize_kv_caches", "compile_or_warm_up_model", "capture_model",
      "_capture_cudagraphs", "_dummy_run"], Phase.GRAPH_CAPTURE),
    (["__call__", "graph", "__enter__", "capture_begin"], Phase.GRAPH_CAPTURE),  # torch's graph API
    (["run_engine_core", "_initialize_kv_caches", "initialize_from_config",
      "initialize_kv_cache", "_allocate_kv_cache_tensors"], Phase.KV_CACHE),
    (["__init__", "_init_executor", "load_model", "get_model", "load_weights",
      "safetensors_weights_iterator"], Phase.LOAD),
    (["__init__", "_init_executor", "init_device", "init_worker_distributed_environment",
      "init_distributed_environment"], Phase.INIT),
    (["run_engine_core", "run_busy_loop", "_process_engine_step", "step", "execute_model",
      "forward"], Phase.SERVING),
]
ROOTS = ["/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/",
         "/home/u/.venv/lib/python3.10/site-packages/vllm/worker/",
         "/vllm-workspace/vllm-ascend/vllm_ascend/worker/"]
PROCESS_PREFIXES = ["", "(VllmWorker rank=1 pid=2445156) ", "(Worker_TP3 pid=207853) ",
                    "(RayWorkerWrapper pid=1, ip=10.0.0.2) ", "(EngineCore_DP0 pid=207811) "]


def _traceback(prefix: str, root: str, functions: list[str], error: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for number, function in enumerate(functions, 10):
        lines += [f'  File "{root}mod_{number}.py", line {number}, in {function}',
                  "    do_it()"]
    lines.append(error)
    return "".join(f"{prefix}{line}\n" for line in lines)


@given(case=st.sampled_from(FRAMES), prefix=st.sampled_from(PROCESS_PREFIXES),
       root=st.sampled_from(ROOTS))
def test_frames_name_the_phase(case: tuple[list[str], Phase], prefix: str, root: str) -> None:
    functions, phase = case
    report = explain_text(_traceback(prefix, root, functions, OOM))
    assert report.phase is not None
    assert (report.phase.phase, report.phase.source) == (phase, "frames")


# ---- matching that weighs instead of gating ------------------------------------------------
SIGNATURE = """\
id: {id}
title: A signature written by the test suite
category: misc
description: A signature written by the test suite to exercise ranking.
severity: error
status: experimental
kind: {kind}
match:
  exception: [OutOfMemoryError]
  regex: ['{regex}']
{extra}
fix: |
  Written by the test suite; this text only needs to be long enough for the schema.
references:
  - https://github.com/vllm-project/vllm/issues/2
"""


def _database(tmp_path: Path, *specs: dict[str, str]) -> logsleuth.signatures.SignatureSet:
    for spec in specs:
        path = tmp_path / "misc" / f"{spec['id']}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        extra = "\n".join(f"  {line}" for line in spec.get("extra", "").splitlines())
        path.write_text(SIGNATURE.format(id=spec["id"], kind=spec.get("kind", "exact"),
                                         regex=spec.get("regex", "CUDA out of memory"),
                                         extra=extra), encoding="utf-8")
    return load_signatures(tmp_path, shipped=False, strict=True)


PROFILE_OOM = _traceback("(Worker_TP0 pid=1) ", ROOTS[0], FRAMES[0][0], OOM)
SERVING_OOM = _traceback("(Worker_TP0 pid=1) ", ROOTS[0], FRAMES[-1][0], OOM)


def test_frames_weigh_but_do_not_gate(tmp_path: Path) -> None:
    database = _database(tmp_path, {"id": "oom-in-capture", "extra": "frames: ['capture_model']"})
    report = explain_text(SERVING_OOM, signatures=database)
    assert report.signature is not None and report.signature.id == "oom-in-capture"
    assert THRESHOLD <= report.signature.score < 1.0


def test_an_exact_signature_wins_over_the_family_that_contains_it(tmp_path: Path) -> None:
    database = _database(tmp_path, {"id": "a-family", "kind": "family", "regex": "out of memory"},
                         {"id": "z-exact", "extra": "phase: profile"})
    report = explain_text(PROFILE_OOM, signatures=database)
    assert report.signature is not None
    assert (report.signature.id, report.signature.kind) == ("z-exact", SignatureKind.EXACT)
    assert [m.id for m in report.alternatives] == ["a-family"]


def test_a_family_that_fits_wins_over_a_contradicted_exact_signature(tmp_path: Path) -> None:
    database = _database(tmp_path, {"id": "a-exact-capture", "extra": "phase: graph_capture"},
                         {"id": "z-family", "kind": "family", "regex": "out of memory"})
    report = explain_text(PROFILE_OOM, signatures=database)
    assert report.signature is not None
    assert (report.signature.id, report.signature.kind) == ("z-family", SignatureKind.FAMILY)
    assert report.alternatives[0].id == "a-exact-capture"  # still offered, ranked by evidence


@pytest.mark.parametrize("log,expected", [(PROFILE_OOM, "z-profile"),
                                          (SERVING_OOM, "a-serving")])
def test_ties_are_broken_by_phase_not_by_id(tmp_path: Path, log: str, expected: str) -> None:
    database = _database(tmp_path, {"id": "a-serving", "kind": "family", "extra": "phase: serving"},
                         {"id": "m-plain", "kind": "family"},
                         {"id": "z-profile", "kind": "family",
                          "extra": "phase: [profile, kv_cache]"})
    report = explain_text(log, signatures=database)
    assert report.signature is not None and report.signature.id == expected
    phases = [e for e in report.signature.evidence if e.part == "phase"]
    assert phases and phases[0].score == 1.0


def test_the_report_says_which_kind_matched_and_the_phase(tmp_path: Path) -> None:
    database = _database(tmp_path, {"id": "oom-family", "kind": "family"})
    data = report_to_dict(explain_text(PROFILE_OOM, signatures=database))
    assert data["signature"]["kind"] == "family"
    assert data["phase"]["name"] == "profile" and data["phase"]["source"] == "frames"
    json.dumps(data)


def test_kinds_are_ordered_by_strength() -> None:
    strengths = [kind.strength for kind in SignatureKind]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == len(strengths)
    assert SignatureKind.EXACT.strength > SignatureKind.FAMILY.strength
