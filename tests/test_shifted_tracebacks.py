"""Tracebacks a build tool relays shifted right: pip prints a failed setup.py's output inside
its box (`╰─> [N lines of output]` ... `[end of output]`), every line indented six columns
(vllm#1060, #602: a `pip install vllm` build whose torch extension builder raised `RuntimeError:`
with its message on the lines after it). The exception line sits at the traceback's column, so
the grammar reads it as indented text; the assembler finds it from the column of the header, or,
in a paste cut above the header, from the column of the first source line. Its message goes on
while lines stay at that column or deeper, and ends at pip's `[end of output]` or at pip's own
lines after the box."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import anchor_patterns

SOME = settings(max_examples=30, deadline=None)
FRAMES = [
    ("/tmp/pip-build-env-x/overlay/lib/python3.10/site-packages/setuptools/command/build_ext.py",
     88, "run", "_build_ext.run(self)"),
    ("/tmp/pip-build-env-x/overlay/lib/python3.10/site-packages/torch/utils/cpp_extension.py",
     499, "build_extensions", "_check_cuda_version(compiler_name, compiler_version)"),
    ("/tmp/pip-build-env-x/overlay/lib/python3.10/site-packages/torch/utils/cpp_extension.py",
     387, "_check_cuda_version",
     "raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))"),
]
MESSAGE = ["The detected CUDA version (12.2) mismatches the version that was used to compile",
           "PyTorch (11.7). Please make sure to use the same CUDA versions."]
BOX_HEAD = ["  error: subprocess-exited-with-error", "  ",
            "  × Building wheel for vllm (pyproject.toml) did not run successfully.",
            "  │ exit code: 1", "  ╰─> [120 lines of output]", "      running bdist_wheel"]
BOX_TAIL = ["      [end of output]", "  ",
            "  note: This error originates from a subprocess, and is likely not a problem with "
            "pip.",
            "  ERROR: Failed building wheel for vllm", "Failed to build vllm",
            "ERROR: Could not build wheels for vllm, which is required to install "
            "pyproject.toml-based projects"]


def shifted(shift: int, header: bool, frames: int, inline: int, blank: bool) -> list[str]:
    """The traceback shifted `shift` columns; the message's first `inline` lines on the exception
    line (0: `RuntimeError:` alone, the message below it, as torch prints it)."""
    pad = " " * shift
    lines = [pad + "Traceback (most recent call last):"] if header else []
    for path, number, function, code in FRAMES[-frames:]:
        lines += [f'{pad}  File "{path}", line {number}, in {function}', f"{pad}    {code}"]
    first = " ".join(MESSAGE[:inline])
    lines.append(f"{pad}RuntimeError: {first}" if first else f"{pad}RuntimeError:")
    lines += [pad + text for text in MESSAGE[inline:]]
    return lines + ([pad] if blank else [])


@SOME
@given(st.integers(2, 12), st.booleans(), st.integers(1, len(FRAMES)), st.integers(0, 2),
       st.booleans(), st.booleans())
def test_a_shifted_traceback_gives_its_exception_and_only_its_message(
        shift: int, header: bool, frames: int, inline: int, blank: bool, box: bool) -> None:
    body = shifted(shift, header, frames, inline, blank)
    lines = BOX_HEAD + body + BOX_TAIL if box else body
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "RuntimeError"
    assert " ".join(root.message.split()) == " ".join(MESSAGE)
    exception_at = next(i for i, x in enumerate(lines) if x.strip().startswith("RuntimeError"))
    assert root.line == exception_at + 1
    assert len(root.frames) == frames



# ---- pip's own errors relayed in the box -------------------------------------------------------
# A child pip (the one that installs a build's dependencies) that cannot resolve a requirement
# prints its resolver's `ERROR: ` records, which the parent relays indented in its box: they say
# why the step failed, and `error: subprocess-exited-with-error` above them only reports it
# (grammars/vllm.lark PIP_ERROR).

STEPS = ["installing build dependencies", "install build dependencies",
         "Getting requirements to build wheel"]
REQUIREMENTS = ["torch==2.1.2", "torch==2.3.0", "setuptools>=77.0.3", "ninja", "cmake>=3.26.1"]
RESOLVER = [
    "ERROR: Could not find a version that satisfies the requirement {req} (from versions: 2.2.0, "
    "2.2.1)",
    "ERROR: Could not find a version that satisfies the requirement {req} (from versions: none)",
    "ERROR: Cannot install {req} because these package versions have conflicting dependencies.",
    "ERROR: Package 'vllm' requires a different Python: 3.12.1 not in '<3.12,>=3.8'",
    "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
]


@SOME
@given(st.sampled_from(STEPS), st.sampled_from(REQUIREMENTS), st.sampled_from(RESOLVER),
       st.integers(0, 3), st.sampled_from([4, 6, 8]), st.booleans(), st.booleans())
def test_a_child_pips_resolver_error_in_the_box_is_the_root(
        step: str, requirement: str, error: str, collected: int, shift: int, restated: bool,
        tail: bool) -> None:
    pad = " " * shift
    head = ["Collecting vllm", "  Using cached vllm-0.3.0.tar.gz (264 kB)",
            "  Installing build dependencies ... error", "  error: subprocess-exited-with-error",
            "  ", f"  × pip subprocess to {step} did not run successfully.", "  │ exit code: 1",
            "  ╰─> [8 lines of output]"]
    child = [f"{pad}Collecting {name}" for name in ["ninja", "packaging", "wheel"][:collected]]
    cause = error.format(req=requirement)
    lines = [*head, *child, pad + cause,
             *([f"{pad}ERROR: No matching distribution found for {requirement}"] if restated
               else []),
             *(BOX_TAIL[:3] if tail else [])]
    assert anchor_patterns()[0].search((pad + cause).encode())
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    root = report.root_cause
    assert root is not None and root.line == len(head) + len(child) + 1, lines
    assert cause.removeprefix("ERROR: ") in root.message


def test_a_child_pips_exception_record_heads_its_traceback() -> None:
    # `ERROR: Exception:` introduces the traceback that says why: not a resolver's error
    lines = [*BOX_HEAD[:5], "      ERROR: Exception:", "      Traceback (most recent call last):",
             *(f'        File "{f}", line {n}, in {fn}' for f, n, fn, _ in FRAMES[:1]),
             "      OSError: [Errno 28] No space left on device", BOX_TAIL[0]]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.root_cause is not None and report.root_cause.exception == "OSError", lines
