"""pytest's short test summary: the first failed test is the failure explained (issue 10).

The summary lists the failed tests one line each (`FAILED tests/x.py::test - <error>`, `ERROR
tests/x.py::test - <error>` for a fixture's), in the order they ran; each test is set up and
torn down on its own, so a later test's error is no cause of an earlier test's failure. When the
first failed test failed only with a report of a failure elsewhere (the engine core's `Engine core
initialization failed. See root cause above`, bare or carried by Ray's RayTaskError with its
remote traceback), its cause is not in the log, whatever the later tests failed of: an
assertion of their own, another fixture's error (causal.py `_first_test`; tests/fixtures/tuning,
launchers/ff-skyrl-anyscale-gpu-ci-pytest-pd-nixl-package-engine-core-init-failed-summary-symptom:
five tests' engine cores died of NIXL missing, their cause outside the paste, and a later test's
`assert 0 == 1` was named the root). When the first failed test's own error is there, it stays
the root, whatever later tests report (launchers/k-ci-pooling-tests-pytest-short-summary-pydantic-
max-model-len-above-derived).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

SITE = "/home/ray/.venv/lib/python3.12/site-packages/vllm"
INIT_FAILED = ("RuntimeError: Engine core initialization failed. See root cause above. "
               "Failed core proc(s): {}")
TESTS = ["tests/gpu/test_engine_generation.py::test_pd_generation",
         "tests/gpu/test_weight_sync.py::test_update_weights_flow[pd_1P1D]",
         "tests/entrypoints/test_server.py::test_chat[Qwen/Qwen3-0.6B]",
         "tests/gpu/test_generator.py::test_generator_formatting[unsloth/Llama-3.2-1B-Instruct]"]
OWN_ERRORS = ["assert 0 == 1", "assert 80 != 80",
              "RuntimeError: There is no current event loop in thread 'MainThread'.",
              "ValueError: max_model_len (512) is greater than the derived max_model_len (256)",
              "KeyError: 'choices'"]


def _symptom(test: str, ray: bool, pid: int) -> list[str]:
    if not ray:
        return [f"FAILED {test} - {INIT_FAILED}"]
    return [f"FAILED {test} - ray.exceptions.RayTaskError(RuntimeError): ray::VLLMServerActor."
            f"start() (pid={pid}, ip=10.1.137.178, actor_id=5be14503010a8f7d42ae78fe1d000000)",
            f'  File "{SITE}/v1/engine/async_llm.py", line 146, in __init__',
            "    self.engine_core = EngineCoreClient.make_async_mp_client(",
            f'  File "{SITE}/v1/engine/utils.py", line 1178, in wait_for_engine_startup',
            "    raise RuntimeError(",
            INIT_FAILED]


def _own(test: str, error: str, fixture: bool) -> list[str]:
    return [f"{'ERROR' if fixture else 'FAILED'} {test} - {error}"]


SUMMARY_HEAD = "=========================== short test summary info ============================"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.lists(st.booleans(), min_size=3, max_size=3),
       st.lists(st.sampled_from(OWN_ERRORS), min_size=1, max_size=3), st.booleans(),
       st.booleans(), st.booleans())
def test_a_first_failed_test_with_only_a_symptom_has_no_root_whatever_later_tests_failed_of(
        symptoms: int, rays: list[bool], own: list[str], fixture: bool, headed: bool,
        interleaved: bool) -> None:
    lines = [SUMMARY_HEAD] if headed else []
    lines += _symptom(TESTS[0], rays[0], 42443)
    later = [_own(TESTS[3], error, fixture) for error in own]
    more = [_symptom(TESTS[1 + i % 2], rays[i], 59962 + i) for i in range(1, symptoms)]
    for i, block in enumerate(later):
        lines += block
        if interleaved and i < len(more):
            lines += more[i]
    if not interleaved:
        lines += [line for block in more for line in block]
    lines.append(f"= {symptoms + len(own)} failed, 98 passed, 20 skipped in 7228.81s (2:00:28) =")
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.root_cause, lines)
    # the later tests' own errors are theirs: no symptoms of the first test's failure
    assert report.symptoms and not any(s.message in error for s in report.symptoms
                                       for error in own)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(OWN_ERRORS), st.integers(0, 3), st.booleans(), st.booleans())
def test_a_first_failed_test_with_its_own_error_keeps_it_as_the_root(
        error: str, symptoms: int, ray: bool, headed: bool) -> None:
    lines = [SUMMARY_HEAD] if headed else []
    lines += _own(TESTS[3], error, False)
    for i in range(symptoms):
        lines += _symptom(TESTS[i % 3], ray, 59962 + i)
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE, lines
    root = report.root_cause
    assert root is not None and root.line == (2 if headed else 1)
    assert root.message in error
