"""A package installer's failure is the error of the set-up step that ran it (issue 10).

uv reports in miette's form: `  × No solution found when resolving dependencies:` and its reasons
after `╰─▶` (grammars/vllm.lark INSTALLER_ERROR, the reasons its message); pip in its `ERROR: `
records (`Could not find a version that satisfies the requirement`, `No matching distribution
found`, `ResolutionImpossible`, `is not a supported wheel on this platform`, `requires a different
Python`) and `error: subprocess-exited-with-error`. None of them is ever `no_failure`. When the
reason is that no wheel fits the interpreter (a platform tag, a Python ABI or version tag, a
Requires-Python the interpreter does not satisfy) the fix is signatures/install/
no-wheel-for-platform-or-python (use an arm64 Python on Apple silicon, a supported Python); a
conflict of pins is the pip-install-failed family's. Tried bare and behind the wrappers a
launcher or a build adds, with or without the installer's own lines before it. pip's boxes drawn
with the same `×` (`× Building wheel ... did not run successfully.`) only report a step: not
installer errors of their own.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line

SOME = settings(max_examples=40, deadline=None)
NO_WHEEL = "no-wheel-for-platform-or-python"

TAGS = ["macosx_15_0_x86_64", "macosx_26_0_x86_64", "macosx_14_0_arm64", "win_amd64",
        "manylinux_2_17_i686", "musllinux_1_2_x86_64"]
PACKAGES = ["torch==2.11.0+cpu", "torch{platform_machine == 'x86_64'}==2.6.0+cpu",
            "vllm==0.11.0", "xformers==0.0.29"]


def _platform_reason(package: str, tag: str) -> list[str]:
    return [f"  ╰─▶ Because {package} has no wheels with a matching platform tag (e.g., `{tag}`) "
            f"and you require {package}, we can conclude that your requirements are",
            "      unsatisfiable."]


def _abi_reason(package: str, tag: str) -> list[str]:
    return [f"  ╰─▶ Because {package} has no wheels with a matching Python ABI tag (e.g., "
            f"`cp313`) and you require {package}, we can conclude that your requirements are "
            "unsatisfiable."]


def _python_reason(package: str, tag: str) -> list[str]:
    return [f"  ╰─▶ Because the current Python version (3.8.18) does not satisfy Python>=3.9 and "
            f"{package} depends on Python>=3.9, we can conclude that {package} cannot be used.",
            f"      And because you require {package}, we can conclude that your requirements "
            "are unsatisfiable."]


REASONS = {"platform": _platform_reason, "abi": _abi_reason, "python": _python_reason}
CONFLICT = ["  ╰─▶ Because xformers==0.0.29 depends on torch==2.6.0 and you require "
            "torch==2.5.1, we can conclude that your requirements and xformers==0.0.29 are "
            "incompatible."]
BEFORE = [[], ["$ uv pip install -r requirements.txt"],
          ["curl -fsSL https://example.org/install.sh | bash",
           "Using Python 3.12.9 environment at: /Users/me/.venv-x"]]
WRAPPERS = ["{}", "2025-05-01T10:00:00.123Z {}", "vllm-1  | {}", "#12 3.412 {}",
            "[pod/setup-0/install] {}"]
HEADER = "  × No solution found when resolving dependencies:"


def _report(lines: list[str], wrapper: str):  # noqa: ANN202 - a Report
    return explain_text("\n".join(wrapper.format(line) for line in lines) + "\n")


@SOME
@given(st.sampled_from(sorted(REASONS)), st.sampled_from(PACKAGES), st.sampled_from(TAGS),
       st.sampled_from(BEFORE), st.sampled_from(WRAPPERS), st.booleans(), st.booleans())
def test_a_resolver_failure_for_the_interpreter_is_the_no_wheel_failure(
        reason: str, package: str, tag: str, before: list[str], wrapper: str, hint: bool,
        flush: bool) -> None:
    header = HEADER.lstrip() if flush else HEADER
    said = REASONS[reason](package, tag)
    lines = [*before, header, *said] + (["", f"      hint: Wheels are available for `{package}` "
                                         "on the following platforms: `win_amd64`"] if hint
                                        else [])
    report = _report(lines, wrapper)
    assert report.verdict is Verdict.FAILURE, lines
    root = report.root_cause
    assert root is not None and root.line == len(before) + 1, lines
    assert said[0].split("Because ")[1][:40] in root.message, root.message
    assert report.signature is not None and report.signature.id == NO_WHEEL, lines


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_a_conflict_of_pins_is_a_failure_of_the_pip_family(wrapper: str) -> None:
    report = _report([*BEFORE[1], HEADER, *CONFLICT], wrapper)
    assert report.verdict is Verdict.FAILURE and report.root_cause is not None
    assert report.signature is not None and report.signature.id == "pip-install-failed"


PIP = [
    ["ERROR: Could not find a version that satisfies the requirement vllm==9.9.9 (from versions: "
     "0.10.0, 0.11.0)", "ERROR: No matching distribution found for vllm==9.9.9"],
    ["ERROR: Cannot install vllm==0.11.0 and torch==2.5.1 because these package versions have "
     "conflicting dependencies.", "ERROR: ResolutionImpossible: for help visit "
     "https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts"],
    ["  error: subprocess-exited-with-error", "",
     "  × Getting requirements to build wheel did not run successfully.", "  │ exit code: 1",
     "  ╰─> [3 lines of output]", "      RuntimeError: CUDA_HOME is not set", "      [end of output]"],
]
PIP_NO_WHEEL = [
    ["ERROR: torch-2.5.1-cp312-none-macosx_11_0_arm64.whl is not a supported wheel on this "
     "platform."],
    ["ERROR: Package 'vllm' requires a different Python: 3.8.10 not in '>=3.9'"],
]


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("lines", PIP + PIP_NO_WHEEL, ids=lambda lines: lines[0][:40])
def test_a_pip_failure_is_never_no_failure(lines: list[str], wrapper: str) -> None:
    report = _report(["$ pip install vllm", "Collecting vllm", *lines], wrapper)
    assert report.verdict is not Verdict.NO_FAILURE, lines


@pytest.mark.parametrize("lines", PIP_NO_WHEEL, ids=lambda lines: lines[0][:40])
def test_pips_words_for_no_wheel_get_the_no_wheel_fix(lines: list[str]) -> None:
    report = _report(["$ pip install vllm", *lines], "{}")
    assert report.signature is not None and report.signature.id == NO_WHEEL


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("header", [HEADER, "  × Failed to build `vllm @ file:///src/vllm`",
                                    "× failed to solve the environment"])
def test_the_header_is_an_anchored_installer_error(header: str, wrapper: str) -> None:
    raw = wrapper.format(header)
    line = parse_line(clean(raw))
    assert line.kind is LineKind.DIAGNOSTIC and line.exception == "installer error", raw
    assert anchor_patterns()[0].search(raw.encode()), raw


@pytest.mark.parametrize("box", ["  × Building wheel for vllm (pyproject.toml) did not run "
                                 "successfully.",
                                 "  × Encountered error while generating package metadata.",
                                 "  × This environment is externally managed"])
def test_pips_boxes_are_no_installer_error(box: str) -> None:
    assert parse_line(clean(box)).kind is not LineKind.DIAGNOSTIC
