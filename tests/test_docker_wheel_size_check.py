"""vLLM's Dockerfile refusing the wheel it just built for its size (moved in from the held-out set
by the end-of-session-18 check: a BuildKit build failing at `check-wheel-size.py`, with no advice).

The class: the size guard of vLLM's own Dockerfile (`.buildkite/check-wheel-size.py`, limit
`VLLM_MAX_SIZE_MB`) failing a `docker build` whose wheel is fine, in the script's two wordings
(0.5's "is too large ... compare to the allowed size", then "Not allowed: ... is larger ... than
the limit") and the step forms of its Dockerfiles (`RUN python3 check-wheel-size.py dist`, then
the `RUN_WHEEL_CHECK` switch), read from BuildKit's plain progress and its final `failed to solve`.
The advice names the build argument that skips the guard, the one that raises its limit, and the
architecture list that makes the wheel smaller; another failed step keeps its own advice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import signature_advice

_STEPS = [
    "python3 check-wheel-size.py dist",
    'if [ \\"$RUN_WHEEL_CHECK\\" = \\"true\\" ]; then         python3 check-wheel-size.py dist;     '
    'else         echo \\"Skipping wheel size check.\\";     fi',
]


def _verdict(old: bool, wheel: str, size: float, limit: int) -> str:
    if old:
        return f"Wheel {wheel} is too large ({size} MB) compare to the allowed size ({limit} MB)."
    return f"Not allowed: Wheel {wheel} is larger ({size:.2f} MB) than the limit ({limit} MB)."


@settings(max_examples=40, deadline=None)
@given(step=st.sampled_from(_STEPS), old=st.booleans(),
       version=st.sampled_from(["0.5.5+cu124", "0.6.3.dev173+g36ea7907.d20241012.cu124",
                                "0.9.1.dev2+ge0cbad4e3", "0.11.1rc2.dev90+gb8f16f2"]),
       size=st.floats(251, 2000), limit=st.sampled_from([200, 250, 300, 400, 500]),
       number=st.integers(8, 30), line=st.integers(100, 300))
def test_the_wheel_size_guard_names_its_build_arguments(step: str, old: bool, version: str,
                                                        size: float, limit: int, number: int,
                                                        line: int) -> None:
    wheel = f"dist/vllm-{version}-cp38-abi3-linux_x86_64.whl"
    shown = step.replace('\\"', '"')
    lines = [f"#{number} [build {number - 7}/{number - 7}] RUN {shown}",
             f"#{number} 0.241 {_verdict(old, wheel, size, limit)}",
             f"#{number} 0.241 vllm/_C.abi3.so: 702.11 MBs uncompressed.",
             f'#{number} ERROR: process "/bin/sh -c {step}" did not complete successfully: exit code: 1',
             "------", f"Dockerfile:{line}", "--------------------",
             f'ERROR: failed to solve: process "/bin/sh -c {step}" did not complete successfully: '
             "exit code: 1"]
    signature, fix = signature_advice("\n".join(lines) + "\n")
    assert signature == "docker-build-wheel-size-check-refused"
    for knob in ("RUN_WHEEL_CHECK=false", "VLLM_MAX_SIZE_MB", "torch_cuda_arch_list"):
        assert knob in fix, knob


def test_another_failed_build_step_is_not_the_class() -> None:
    step = "python3 setup.py bdist_wheel --dist-dir=dist --py-limited-api=cp38"
    log = (f"#23 [build 7/8] RUN {step}\n"
           f'#23 ERROR: process "/bin/sh -c {step}" did not complete successfully: exit code: 1\n'
           f'ERROR: failed to solve: process "/bin/sh -c {step}" did not complete successfully: '
           "exit code: 1\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.id != "docker-build-wheel-size-check-refused"
