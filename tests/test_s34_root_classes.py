"""Classes of issue 10 (root cause) and issue 11 (fix) that session 34's development split showed,
each over generated logs of its class, with the near misses that must read otherwise.

- **An optional kernel package's failed trial import, and the failure after it.** vLLM probes
  its optional kernel packages by importing them (vllm/utils/import_utils.py `_has_module`, 0.23
  on: deep_gemm, deep_ep, pplx_kernels, triton_kernels, tilelang, ...), logs a failure at WARNING
  with its traceback and goes on without the package. A grep of `Error: ` lines, or a paste of
  the exception line alone, keeps only `ImportError: .../deep_gemm/_C...so: undefined symbol:
  ...` (or `Error: ...`, the class cut). When the run completes its start-up or serves after it,
  or a later error that names no spelling of the package is a cause of the run, vLLM went on past
  the import (and failed on that error: it is the root), the import failure survived (causality.yaml `optional_imports`; tests/fixtures/tuning: zz-dgx-
  spark-gb10-dsv4-flash-0731-mtp2-...-harness-summary). A later error that names the package
  (`DeepGEMM backend is not available`) follows from the import; with no later cause the import
  failure stays the root; a package vLLM imports outright (flash_attn, vllm._C) or the same
  import raised through code of its own (its frames) is not the probe's. And issue 10's property
  (errors survived before a failure change nothing) for this class: such a line grepped above any
  failing corpus log leaves its root where it was, a few lines down.
- **MTP layers the checkpoint does not have.** `"method": "mtp"` loads the model's own extra
  layers from the checkpoint, renamed into the MTP block (`model.layers.<L>.mtp_block.*`): a
  checkpoint whose extra layers are another drafter's (DSpark's `main_norm`) fails the lookup with
  a KeyError on the renamed name, one without them vLLM's completeness check (`MTP speculative
  decoding layer N weights missing from checkpoint`). Signature spec-decode-mtp-layers-not-in-
  checkpoint, whatever prefix, era or cut class name; a KeyError on a decoder layer's own weight
  is the weight-name family's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import Server
from test_run_properties import Answer, answer, lines_of, subjects

SOME = settings(max_examples=20, deadline=None)

SITES = st.sampled_from([
    "/usr/local/lib/python3.12/dist-packages",
    "/opt/conda/lib/python3.10/site-packages",
    "/home/user/ds4/vllm/.venv/lib/python3.12/site-packages",
    "/opt/vllm/lib64/python3.11/site-packages",
])
WRAPS = st.sampled_from(["plain", "docker", "compose", "engine"])
PROBED = st.sampled_from(["deep_gemm", "deep_ep", "pplx_kernels", "triton_kernels", "tilelang",
                          "fbgemm_gpu", "nixl_ep"])
# how a grep or a paste keeps the exception's class: whole, dotted, or its last word alone
CLASSES = st.sampled_from(["ImportError", "Error", "ModuleNotFoundError", "OSError"])


def wrapped(lines: list[str], wrap: str) -> list[str]:
    """Each line as a collector keeps it: as printed, behind docker's time, compose's service
    column, or under the engine core's prefix."""
    if wrap == "docker":
        return [f"2026-08-01T15:01:{i % 60:02d}.123456789Z {line}" for i, line in enumerate(lines)]
    if wrap == "compose":
        return [f"vllm-1  | {line}" for line in lines]
    if wrap == "engine":
        return [f"(EngineCore pid=219911) {line}" for line in lines]
    return lines


def explain(lines: list[str]) -> Report:
    return explain_text("".join(f"{line}\n" for line in lines), signatures=default_signatures())


def import_failure(cls: str, site: str, package: str, how: int) -> str:
    """The exception line of a failed import of `package`, as its last line reads."""
    if how == 0:
        return (f"{cls}: {site}/{package}/_C.cpython-312-x86_64-linux-gnu.so: undefined symbol: "
                "_ZN3c104impl3cow23materialize_cow_storageERNS_11StorageImplE")
    if how == 1:
        return (f"{cls}: libcudart.so.13: cannot open shared object file: No such file or "
                f"directory (needed by {site}/{package}/_C.so)")
    if how == 2:
        return f"{cls}: No module named '{package}.jit_kernels'"
    return f"{cls}: cannot import name 'Buffer' from '{package}' ({site}/{package}/__init__.py)"


def api_server_tail(site: str) -> list[str]:
    return [
        "(APIServer pid=219801) Traceback (most recent call last):",
        f'(APIServer pid=219801)   File "{site}/vllm/v1/engine/utils.py", line 1254, in '
        "wait_for_engine_startup",
        "(APIServer pid=219801)     raise RuntimeError(",
        "(APIServer pid=219801) RuntimeError: Engine core initialization failed. See root cause "
        "above. Failed core proc(s): {}",
    ]


LATER = [
    "KeyError: 'model.layers.43.mtp_block.main_norm.weight'",
    "ValueError: The model's max seq len (262144) is larger than the maximum number of tokens "
    "that can be stored in KV cache (81920). Try increasing `gpu_memory_utilization` or "
    "decreasing `max_model_len` when initializing the engine.",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 119.70 GiB of which 1.02 GiB is free.",
]


@SOME
@given(SITES, PROBED, CLASSES, st.integers(0, 3), st.sampled_from(range(len(LATER))), WRAPS,
       st.integers(0, 3))
def test_a_later_cause_is_the_root_past_a_probed_import(site: str, package: str, cls: str,
                                                        how: int, later: int, wrap: str,
                                                        between: int) -> None:
    lines = wrapped([import_failure(cls, site, package, how),
                     *[f"INFO 08-01 15:01:0{i} [loader.py:61] loading shard {i}"
                       for i in range(between)],
                     LATER[later]], wrap) + api_server_tail(site)
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 2 + between, report
    assert [e.line for e in report.survived][:1] == [1]
    assert any(f"optional package(s) {package} (line 1)" in reason for reason in report.reasons)


@SOME
@given(SITES, PROBED, CLASSES, st.integers(0, 3), WRAPS)
def test_a_probed_import_alone_stays_the_root(site: str, package: str, cls: str, how: int,
                                              wrap: str) -> None:
    # nothing else failed: the import is the likeliest reason the start stopped (an older
    # vLLM imported the package outright)
    report = explain(wrapped([import_failure(cls, site, package, how)], wrap)
                     + api_server_tail(site))
    assert report.root_cause is not None and report.root_cause.line == 1


@SOME
@given(SITES, PROBED, CLASSES, st.integers(0, 3), st.sampled_from(["plain", "docker", "compose"]),
       st.integers(0, 8), st.integers(1, 40))
def test_a_probed_import_before_a_run_that_serves_is_survived(site: str, package: str, cls: str,
                                                              how: int, wrap: str, at: int,
                                                              answered: int) -> None:
    # vLLM goes on without the package by design: a start-up that completes, or output served,
    # after the bare line shows the run went past it, whichever process printed it
    server = Server()
    host = server.startup() + server.requests(answered)
    lines = wrapped(host[:at] + [import_failure(cls, site, package, how)] + host[at:], wrap)
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause
    assert [e.line for e in report.survived] == [at + 1]


@SOME
@given(SITES, PROBED, CLASSES, st.integers(0, 3), st.sampled_from(["plain", "docker", "compose"]),
       st.integers(1, 4))
def test_a_probed_import_then_a_start_up_that_stops_stays_the_failure(
        site: str, package: str, cls: str, how: int, wrap: str, steps: int) -> None:
    # no start-up completed and no other error: the import is the likeliest reason it stopped
    server = Server()
    lines = wrapped([import_failure(cls, site, package, how), *server.startup()[:steps]], wrap)
    report = explain(lines)
    assert report.root_cause is not None and report.root_cause.line == 1, report.verdict


def failed_start(run: int, site: str, import_line: str) -> list[str]:
    """One start of a server that probes a broken optional package, then fails to load the
    MTP layers: its API server's and engine core's own pids."""
    api, engine = f"(APIServer pid={4000 + run})", f"(EngineCore pid={5000 + run})"
    day = f"08-0{run + 1} 22:3{run}:0"
    return [
        f"{api} INFO {day}1 [utils.py:253] vLLM API server version 0.27.1",
        f"{api} INFO {day}1 [utils.py:254] non-default args: {{'model_tag': 'x', "
        "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 2}}",
        import_line,
        f"{engine} INFO {day}5 [gpu_model_runner.py:4210] Starting to load model x...",
        f"{engine} ERROR {day}8 [core.py:1101] EngineCore failed to start.",
        f"{engine} ERROR {day}8 [core.py:1101] Traceback (most recent call last):",
        f'{engine} ERROR {day}8 [core.py:1101]   File "{site}/vllm/models/deepseek_v4/nvidia/'
        'mtp.py", line 476, in load_weights',
        f"{engine} ERROR {day}8 [core.py:1101]     param = params_dict[name]",
        f"{engine} ERROR {day}8 [core.py:1101] KeyError: "
        "'model.layers.43.mtp_block.main_norm.weight'",
        f"{api} RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {}",
    ]


@SOME
@given(SITES, PROBED, CLASSES, st.integers(0, 3), st.integers(2, 4))
def test_a_crash_loop_past_a_probed_import_fails_the_same_way_in_every_run(
        site: str, package: str, cls: str, how: int, runs: int) -> None:
    # issue 10's runs: each start prints the import failure and fails on the MTP weight; the
    # report explains the last run, whose root is its KeyError, the same failure in every run
    lines = [line for run in range(runs)
             for line in failed_start(run, site, import_failure(cls, site, package, how))]
    report = explain(lines)
    assert report.root_cause is not None and report.root_cause.exception == "KeyError"
    assert report.root_cause.line == 10 * (runs - 1) + 9
    assert len(report.runs) == runs
    assert all(run.same_failure == runs and run.exception == "KeyError" for run in report.runs)


NAMED = {"deep_gemm": "RuntimeError: DeepGEMM backend is not available. Please install the "
                      "`deep_gemm` package to enable FP8 kernels.",
         "deep_ep": "ValueError: all2all backend deepep_low_latency needs DeepEP installed",
         "triton_kernels": "RuntimeError: triton_kernels is required for the mxfp4 MoE backend"}


@SOME
@given(SITES, st.sampled_from(sorted(NAMED)), CLASSES, st.integers(0, 3), WRAPS)
def test_a_later_error_naming_the_package_follows_from_its_import(site: str, package: str,
                                                                  cls: str, how: int,
                                                                  wrap: str) -> None:
    report = explain(wrapped([import_failure(cls, site, package, how), NAMED[package]], wrap)
                     + api_server_tail(site))
    assert report.root_cause is not None and report.root_cause.line == 1, report
    assert not report.survived


@SOME
@given(SITES, st.sampled_from(["flash_attn", "vllm", "xformers", "aiter"]), st.integers(0, 3),
       WRAPS)
def test_an_import_vllm_does_not_probe_stays_before_what_follows(site: str, package: str,
                                                                 how: int, wrap: str) -> None:
    # a package vLLM imports outright (flash_attn, its own `_C`, aiter's many call sites): the
    # import may be what stopped it, and the later error its consequence
    report = explain(wrapped([import_failure("ImportError", site, package, how), LATER[0]], wrap)
                     + api_server_tail(site))
    assert report.root_cause is not None and report.root_cause.line == 1, report


@SOME
@given(SITES, PROBED, WRAPS)
def test_the_import_through_code_of_its_own_is_not_the_probes(site: str, package: str,
                                                              wrap: str) -> None:
    # the same ImportError raised by a module that imports the package outright (a backend the
    # user forced): its traceback says so, and it stopped that process
    lines = wrapped([
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/model_executor/layers/fused_moe/prepare_finalize/deepep_ll.py", '
        "line 5, in <module>",
        f"    import {package}",
        import_failure("ImportError", site, package, 0),
        LATER[0],
    ], wrap) + api_server_tail(site)
    report = explain(lines)
    assert report.root_cause is not None and report.root_cause.line == 4, report


@SOME
@given(SITES, PROBED, WRAPS)
def test_the_probes_own_traceback_is_gone_past_too(site: str, package: str, wrap: str) -> None:
    # the probe's traceback pasted without the WARNING record around it
    lines = wrapped([
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/utils/import_utils.py", line 406, in _has_module',
        "    importlib.import_module(module_name)",
        import_failure("ImportError", site, package, 0),
        LATER[0],
    ], wrap) + api_server_tail(site)
    report = explain(lines)
    assert report.root_cause is not None and report.root_cause.line == 5, report


HARNESS = st.sampled_from([[], ["--- first error signature ---"],
                           ["=== serve mode=mtp2 ===", "SERVE_FAILED", "--- first error ---"]])
SUBJECT = st.sampled_from(range(64)).map(lambda i: subjects()[i % len(subjects())])


@pytest.mark.long
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(SUBJECT, SITES, PROBED, CLASSES, st.integers(0, 3), HARNESS)
def test_a_probed_import_above_any_failing_log_changes_nothing(
        subject: tuple[Path, Answer, bool], site: str, package: str, cls: str, how: int,
        harness: list[str]) -> None:
    # issue 10's property (an error survived before the failure changes nothing) for this class:
    # every failing corpus log under a harness's grep of an optional package's failed import
    log, reference, _ = subject
    above = [*harness, import_failure(cls, site, package, how)]
    report = explain(above + lines_of(log))
    assert answer(report) == Answer(reference.exception, reference.message,
                                    reference.line + len(above)), report.root_cause


# --- MTP layers the checkpoint does not have --------------------------------------------------

MTP_NAMES = st.sampled_from([
    "model.layers.{n}.mtp_block.main_norm.weight",
    "model.layers.{n}.mtp_block.main_proj.weight",
    "model.layers.{n}.mtp_block.attn.wq_b.weight",
    "layers.{n}.mtp_block.ffn.gate.bias",
    "model.mtp_layers.0.fc.weight",
    "mtp.0.main_norm.weight",
])
PREFIXES = st.sampled_from(["", "(EngineCore pid=4122) ", "(EngineCore_DP0 pid=77) ERROR 09-02 "
                            "10:14:07 [core.py:1101] ", "[rank0]: "])


def loader_traceback(prefix: str, site: str, model_file: str, last: list[str]) -> list[str]:
    return [f"{prefix}{line}" for line in [
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/v1/worker/gpu_model_runner.py", line 4265, in load_model',
        "    self.drafter.load_model(self.model)",
        f'  File "{site}/vllm/model_executor/model_loader/default_loader.py", line 301, in '
        "load_weights",
        "    loaded_weights = model.load_weights(self.get_all_weights(model_config, model))",
        f'  File "{site}/vllm/{model_file}", line 476, in load_weights',
        *last]]


@SOME
@given(SITES, PREFIXES, MTP_NAMES, st.integers(27, 93), st.booleans())
def test_an_mtp_weight_the_block_lacks_is_named(site: str, prefix: str, name: str, layer: int,
                                                cut: bool) -> None:
    key = name.format(n=layer)
    last = ["    param = params_dict[name]", f"{'Error' if cut else 'KeyError'}: '{key}'"]
    report = explain(loader_traceback(prefix, site, "models/deepseek_v4/nvidia/mtp.py", last))
    assert report.signature is not None
    assert report.signature.id == "spec-decode-mtp-layers-not-in-checkpoint", report.signature


@SOME
@given(SITES, PREFIXES, st.integers(27, 93))
def test_the_completeness_check_is_named(site: str, prefix: str, layer: int) -> None:
    last = ["    raise ValueError(",
            f"ValueError: MTP speculative decoding layer {layer} weights missing from "
            "checkpoint. The checkpoint may have been quantized without including the MTP "
            "layers. Use a checkpoint that includes MTP layer weights, or disable speculative "
            "decoding."]
    report = explain(loader_traceback(prefix, site, "models/deepseek_v4/nvidia/mtp.py", last))
    assert report.signature is not None
    assert report.signature.id == "spec-decode-mtp-layers-not-in-checkpoint", report.signature


@SOME
@given(SITES, PREFIXES, st.sampled_from([
    "model.layers.{n}.mlp.experts.w13_weight_scale", "model.layers.{n}.self_attn.qkv_proj.bias",
    "lm_head.weight", "model.layers.{n}.mtp_gate", "model.mtp_norm.weight"]),
    st.integers(0, 60))
def test_a_decoder_layers_own_weight_is_not_named_so(site: str, prefix: str, name: str,
                                                     layer: int) -> None:
    key = name.format(n=layer)
    last = ["    param = params_dict[name]", f"KeyError: '{key}'"]
    report = explain(loader_traceback(prefix, site, "model_executor/models/deepseek_v2.py", last))
    assert report.signature is None \
        or report.signature.id != "spec-decode-mtp-layers-not-in-checkpoint", report.signature
