"""A warning that reports an exception its process went on from is the root cause of a later
error that knowledge says follows from it (causality.yaml `latent`), and no error at all when none
follows. vLLM imports its compiled kernels inside a try/except and only warns why the import
failed; the first kernel call then fails on a missing op (vllm#5804, #6478, #6562: a glibc older
than the wheel's, a torch the wheel was not built for, a source checkout without `_C.abi3.so`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SOME = settings(max_examples=30, deadline=None)
# the warning as vLLM's eras print it (0.4-0.6 `_custom_ops.py:14]`, 0.8 bracketed, and
# platforms/interface.py's `Failed to import from vllm._C: <repr>`)
WARNINGS = [
    "WARNING 07-18 15:12:42 _custom_ops.py:14] Failed to import from vllm._C with ImportError("
    "\"/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found (required by "
    "/envs/a/lib/python3.10/site-packages/vllm/_C.abi3.so)\")",
    "WARNING 03-06 13:44:18 [_custom_ops.py:21] Failed to import from vllm._C with "
    "ModuleNotFoundError(\"No module named 'vllm._C'\")",
    "WARNING 11-12 15:27:46 [interface.py:197] Failed to import from vllm._C: ImportError("
    "'/usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: "
    "_ZN3c104cuda9SetDeviceEi')",
]
EXCEPTIONS = ["ImportError", "ModuleNotFoundError", "ImportError"]
# what the first kernel call raises then
EFFECTS = [
    "AttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'",
    "NotImplementedError: Could not run '_C::rotary_embedding' with arguments from the 'CUDA' "
    "backend.",
    "NameError: name 'vllm_ops' is not defined",
]
STARTUP = [
    "INFO 07-18 15:13:05 llm_engine.py:174] Initializing an LLM engine (v0.5.2) with config: "
    "model='Qwen/Qwen2-7B-Instruct', dtype=torch.bfloat16",
    "INFO 07-18 15:13:20 model_runner.py:266] Loading model weights took 14.2 GB",
]
TRACE = [
    "Traceback (most recent call last):",
    '  File "/envs/a/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 844, in '
    "profile_run", "    self.execute_model(seqs, kv_caches)",
    '  File "/envs/a/lib/python3.10/site-packages/vllm/_custom_ops.py", line 106, in rms_norm',
    "    torch.ops._C.rms_norm(out, input, weight, epsilon)",
]


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@SOME
@given(st.integers(0, len(WARNINGS) - 1), st.integers(0, len(EFFECTS) - 1),
       st.integers(0, len(STARTUP)))
def test_the_warning_is_the_root_of_the_missing_op(which: int, effect: int, gap: int) -> None:
    lines = [WARNINGS[which], *STARTUP[:gap], *TRACE, EFFECTS[effect]]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line == 1 and root.exception == EXCEPTIONS[which]
    assert [s.exception for s in report.symptoms] == [EFFECTS[effect].split(":")[0]]
    assert any("follows from it" in reason for reason in report.reasons)


@SOME
@given(st.integers(0, len(WARNINGS) - 1), st.integers(0, len(STARTUP)))
def test_the_warning_alone_is_no_error(which: int, gap: int) -> None:
    # platforms without the kernels (Ascend, TPU, CPU builds) print it and work
    report = explain([WARNINGS[which], *STARTUP[:gap],
                      "INFO 07-18 15:13:30 gpu_executor.py:84] # GPU blocks: 12760, "
                      "# CPU blocks: 728",
                      "Processed prompts: 100%|##########| 4/4 [00:01<00:00, 3.1it/s]"])
    assert report.verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(0, len(WARNINGS) - 1), st.integers(0, len(STARTUP)))
def test_an_error_it_does_not_explain_keeps_its_place(which: int, gap: int) -> None:
    lines = [WARNINGS[which], *STARTUP[:gap], *TRACE[:3],
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    report = explain(lines)
    assert report.root_cause is not None
    assert report.root_cause.exception == "torch.OutOfMemoryError"


@SOME
@given(st.integers(0, len(EFFECTS) - 1), st.integers(1, 3))
def test_each_process_warns_and_the_failing_ones_own_warning_is_the_root(effect: int,
                                                                          workers: int) -> None:
    # V0 multiprocessing: every process imports the kernels and warns; a worker fails
    warn = WARNINGS[0]
    lines = [warn] + [f"(VllmWorkerProcess pid={100 + i}) {warn}" for i in range(workers)]
    failing = f"(VllmWorkerProcess pid={100 + workers - 1}) "
    lines += [failing + "ERROR 07-18 15:14:00 multiproc_worker_utils.py:226] " + text
              for text in [*TRACE, EFFECTS[effect]]]
    report = explain(lines)
    root = report.root_cause
    assert root is not None and root.exception == "ImportError"
    assert root.process.pid == 100 + workers - 1 and root.line == workers + 1
