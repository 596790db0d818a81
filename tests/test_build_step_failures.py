"""A `docker build` whose step failed (BuildKit): its progress line for the step
(` => ERROR [build 15/15] RUN ...`, `#15 ERROR: process ... did not complete successfully`), the
summary block that repeats the step's last output lines behind their seconds, the Dockerfile
excerpt, and `ERROR: failed to solve: ...` (older releases: `executor failed running [...]`,
`failed to solve with frontend dockerfile.v0: ...`), any of them cut off by a paste. The reports
are exit reports, whole on their line; the step's own error line (a check's refusal in its own
words, as vLLM's check-wheel-size.py prints `Not allowed: Wheel ... is larger ... than the
limit`, a tool's `error:`/`FATAL:` line, a Python exception) is the root, where it first shows.
Docker's builder reference (BuildKit's progress output); vLLM's Dockerfile and check-wheel-size.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

STEPS = [("build 15/15", 'RUN python3 check-wheel-size.py dist'),
         ("base 7/12", "RUN pip install -r requirements-build.txt"),
         ("stage-1 3/9", 'RUN if [ "$RUN_WHEEL_CHECK" = "true" ]; then python3 check-wheel-size.py '
          'dist; fi')]
REFUSALS = ["Not allowed", "Not permitted", "Refused", "Rejected", "Forbidden", "Disallowed"]
CAUSES = [
    "{refusal}: Wheel dist/vllm-0.6.3-cp38-abi3-linux_x86_64.whl is larger (291.37 MB) than the "
    "limit (250 MB).",
    "{refusal}: the image would exceed the registry's layer size limit",
    "error: could not find a version that satisfies torch==2.9.0",
    "FATAL: CUDA_HOME is not set",
    "ValueError: Unsupported CUDA architecture 12.0a",
]
NOISE = ["vllm/_C.abi3.so: 530.03 MBs uncompressed.",
         "vllm/_moe_C.abi3.so: 94.64 MBs uncompressed.", "vllm/config.py: 0.08 MBs uncompressed."]


def _progress(style: int, step: tuple[str, str]) -> str:
    name, command = step
    return [f" => ERROR [{name}] {command}  0.4s",
            f"#15 ERROR: process \"/bin/sh -c {command}\" did not complete successfully: exit "
            "code: 1",
            f"=> ERROR [{name}] {command}"][style]


def _end(style: int, step: tuple[str, str]) -> list[str]:
    command = step[1]
    return [[],
            [f'ERROR: failed to solve: process "/bin/sh -c {command}" did not complete '
             "successfully: exit code: 1"],
            [f"ERROR: failed to build: failed to solve: process \"/bin/sh -c {command}\" did not "
             "complete successfully: exit code: 1"],
            [f"executor failed running [/bin/sh -c {command}]: exit code: 1"],
            ["failed to solve with frontend dockerfile.v0: failed to build LLB: executor failed "
             f"running [/bin/sh -c {command}]: runc did not terminate successfully"]][style]


def _build_log(step: tuple[str, str], cause: str | None, progress: int, noise: int, live: bool,
               end: int) -> tuple[list[str], int | None]:
    """The lines, and the number of the line where the cause first shows."""
    lines = ["#14 [build 14/15] RUN --mount=type=cache,target=/root/.cache/pip python3 setup.py "
             "bdist_wheel --dist-dir=dist", "#14 DONE 2210.4s"]
    first = None
    if live:  # plain progress: the step's output as it ran, then the summary repeats it
        lines.append(f"#15 [{step[0]}] {step[1]}")
        if cause is not None:
            lines.append(f"#15 0.354 {cause}")
            first = len(lines)
        lines += [f"#15 0.354 {n}" for n in NOISE[:noise]]
    lines += [_progress(progress, step), "------", f" > [{step[0]}] {step[1]}:"]
    if cause is not None:
        lines.append(f"0.354 {cause}")
        first = first or len(lines)
    lines += [f"0.354 {n}" for n in NOISE[:noise]]
    lines += ["------", "Dockerfile:128", "--------------------",
              " 127 |     ARG RUN_WHEEL_CHECK=true", f" 128 | >>> {step[1]}",
              "--------------------", *_end(end, step)]
    return lines, first


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(STEPS), st.sampled_from(CAUSES), st.sampled_from(REFUSALS),
       st.integers(0, 2), st.integers(0, 3), st.booleans(), st.integers(0, 4))
def test_the_failed_steps_own_error_is_the_root(step: tuple[str, str], cause: str, refusal: str,
                                                progress: int, noise: int, live: bool,
                                                end: int) -> None:
    lines, first = _build_log(step, cause.format(refusal=refusal), progress, noise, live, end)
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None
    assert report.root_cause.line == first, (report.root_cause, lines)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(STEPS), st.integers(0, 2), st.integers(0, 3), st.integers(0, 4))
def test_a_failed_step_without_its_reason_is_never_no_failure(step: tuple[str, str],
                                                              progress: int, noise: int,
                                                              end: int) -> None:
    """Only the reports (the step's output shows no error line): the build failed, its cause
    is not in the log."""
    lines, _ = _build_log(step, None, progress, noise, False, end)
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is not Verdict.NO_FAILURE, lines


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(NOISE), st.sampled_from(["Allowed: ", "Permitted: ", "Not allowed "]))
def test_a_build_that_passed_its_check_is_no_failure(noise: str, word: str) -> None:
    lines = ["#15 [build 15/15] RUN python3 check-wheel-size.py dist",
             f"#15 0.354 {word}Wheel dist/vllm-0.6.3-cp38-abi3-linux_x86_64.whl is 180.02 MB",
             f"#15 0.354 {noise}", "#15 DONE 0.4s", "#16 exporting to image",
             "#16 exporting layers 41.2s done", "#16 DONE 41.3s"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, lines
