"""Crashes that print no Python exception (issue 10): a shell's report of the signal that ended a
child, and a native library's last words before it aborted the process. Each is fatal evidence
for the run, whatever shell, signal, command or prefix; the advice comes from what the log shows
(a component's frames), never from the signal's name alone.

Shapes: zsh's and bash's job reports and bash's script report (their man pages' signal names),
fish's signal report, OpenSSL's FIPS self-test abort (vllm PR#33756), glibc's heap checks, the
stack protector.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import clean, parse_line

START = ["INFO 02-05 10:11:14 [__init__.py:239] Automatically detected platform cuda.",
         "(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version "
         "0.11.0",
         "(APIServer pid=1) INFO 02-05 10:11:15 [utils.py:233] non-default args: {'model_tag': "
         "'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B'}"]
SERVING = ['(APIServer pid=1) INFO:     127.0.0.1:36936 - "POST /v1/chat/completions HTTP/1.1" '
           "200 OK",
           "(APIServer pid=1) INFO 02-05 10:12:15 [loggers.py:116] Engine 000: Avg prompt "
           "throughput: 12.5 tokens/s, Avg generation throughput: 40.1 tokens/s"]

# (the shell's words for the signal, the label bash prints for a foreground crash)
SIGNALS = [("killed", "Killed"), ("segmentation fault", "Segmentation fault"),
           ("illegal hardware instruction", "Illegal instruction"), ("abort", "Aborted"),
           ("bus error", "Bus error"), ("floating point exception", "Floating point exception")]
BASH_SIGNALS = [("Killed", "Killed"), ("Segmentation fault", "Segmentation fault"),
                ("Illegal instruction", "Illegal instruction"), ("Aborted", "Aborted"),
                ("Bus error", "Bus error"),
                ("Floating point exception", "Floating point exception")]
FISH_SIGNALS = [("SIGKILL (Forced quit)", "Killed"),
                ("SIGSEGV (Address boundary error)", "Segmentation fault"),
                ("SIGILL (Illegal instruction)", "Illegal instruction"),
                ("SIGABRT (Abort)", "Aborted"), ("SIGBUS (Misaligned address error)", "Bus error"),
                ("SIGFPE (Floating point exception)", "Floating point exception")]
COMMANDS = ["vllm serve Qwen/Qwen3-8B", "python -m vllm.entrypoints.openai.api_server --model m",
            "python offline_inference.py", "nohup vllm serve m --tensor-parallel-size 2",
            "python abort_on_killed_segmentation_fault.py"]  # signal words inside the command
CORE = ["", " (core dumped)"]


def _zsh(word: str, command: str, core: str, gap: str) -> str:
    return f"zsh: {word}{core}{gap}{command}"


def _bash_job(word: str, command: str, core: str, gap: str) -> str:
    return f"[1]+  {word}{gap}{core.strip()}{' ' if core else ''}{command}"


def _zsh_job(word: str, command: str, core: str, gap: str) -> str:
    return f"[2]  + 81234 {word}{core}{gap}{command}"


def _bash_script(word: str, command: str, core: str, gap: str) -> str:
    return f"./serve.sh: line 3: 12345 {word}{gap}{core.strip()}{' ' if core else ''}{command}"


REPORTS = st.one_of(
    st.builds(lambda s, c, k, g: (_zsh(s[0], c, k, g), s[1]), st.sampled_from(SIGNALS),
              st.sampled_from(COMMANDS), st.sampled_from(CORE), st.sampled_from(["  ", "     "])),
    st.builds(lambda s, c, k, g: (_zsh_job(s[0], c, k, g), s[1]), st.sampled_from(SIGNALS),
              st.sampled_from(COMMANDS), st.sampled_from(CORE), st.sampled_from(["  ", "     "])),
    st.builds(lambda s, c, k, g, job: (job(s[0], c, k, g), s[1]), st.sampled_from(BASH_SIGNALS),
              st.sampled_from(COMMANDS), st.sampled_from(CORE),
              st.sampled_from(["  ", "                  "]),
              st.sampled_from([_bash_job, _bash_script])),
    st.builds(lambda s, c: (f"fish: Job 1, '{c}' terminated by signal {s[0]}", s[1]),
              st.sampled_from(FISH_SIGNALS), st.sampled_from(COMMANDS)),
)
PREFIXES = ["", "2025-02-05T10:12:00.123456789Z ", "vllm-1  | ", "Feb 05 10:12:00 gpu1 bash[8052]: "]


@settings(max_examples=120, deadline=None)
@given(REPORTS, st.sampled_from(PREFIXES), st.integers(0, 2))
def test_a_shell_report_of_a_signal_ends_the_run_as_its_root(report: tuple[str, str],
                                                             prefix: str, served: int) -> None:
    """Whatever the shell, signal, command and wrapper: the run failed, and the root is the report,
    labelled as bash labels a foreground crash (so the signal's signatures see it)."""
    line, label = report
    lines = [*START, *SERVING[:served], prefix + line]
    report_ = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report_.verdict is Verdict.FAILURE, line
    assert report_.root_cause is not None
    assert report_.root_cause.exception == label
    assert report_.root_cause.line == len(lines)


# (`zsh: command not found: vllm` left this list: no crash, but the launch failed, the shell's
# own error: tests/test_shell_errors.py)
@pytest.mark.parametrize("line", [
    "[1]+  Done                    vllm serve m",
    "[1]+  Terminated              vllm serve m",  # an operator's SIGTERM: a stop, no crash
    "zsh: terminated  vllm serve m",
    "[1]+  Stopped                 vllm serve m",
    "fish: Job 1, 'vllm serve m' has ended",
])
def test_a_shell_report_of_no_crash_is_no_fatal_line(line: str) -> None:
    assert parse_line(clean(line)).kind is not LineKind.FATAL
    report = explain_text("\n".join([*START, *SERVING, line]) + "\n",
                          signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


NATIVE = [  # (line, label): a native library's last words, before the shell's `Aborted`
    ("crypto/fips/fips.c:154: OpenSSL internal error: FATAL FIPS SELFTEST FAILURE",
     "OpenSSL internal error"),
    ("FATAL FIPS SELFTEST FAILURE", "FATAL"),
    ("Fatal glibc error: CPU does not support x86-64-v2", "Fatal glibc error"),
    ("free(): invalid pointer", "free()"),
    ("munmap_chunk(): invalid pointer", "munmap_chunk()"),
    ("malloc(): corrupted top size", "malloc()"),
    ("double free or corruption (!prev)", "double free or corruption"),
    ("corrupted size vs. prev_size", "corrupted size vs. prev_size"),
    ("*** stack smashing detected ***: terminated", "stack smashing detected"),
]


@pytest.mark.parametrize(("native", "label"), NATIVE)
@pytest.mark.parametrize("abort", ["Aborted (core dumped)", "", "zsh: abort      vllm serve m"])
@pytest.mark.parametrize("prefix", ["", "(EngineCore_DP0 pid=9) ", "vllm-1  | "])
def test_a_native_abort_is_the_root_and_the_abort_its_end(native: str, label: str, abort: str,
                                                          prefix: str) -> None:
    lines = [*START, prefix + native, *([abort] if abort else [])]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (label, len(START) + 1)


@pytest.mark.parametrize("native", [NATIVE[0][0], NATIVE[1][0]])
def test_the_fips_self_test_abort_gets_its_fix(native: str) -> None:
    report = explain_text("\n".join([*START, native, "Aborted (core dumped)"]) + "\n",
                          signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.id == "openssl-fips-selftest-abort"
    assert "opencv-python-headless<=4.12.0.88" in report.signature.fix


# ---- advice from evidence: a crash's component is named by its frames, not by the signal ------

FAULTHANDLER = ["Fatal Python error: Segmentation fault", "",
                "Current thread 0x00007f3e1effd640 (most recent call first):"]
FLASHINFER_FRAMES = [
    '  File "/usr/lib/python3.12/site-packages/flashinfer/decode.py", line 947 in plan',
    '  File "/usr/lib/python3.12/site-packages/vllm/v1/attention/backends/flashinfer.py", line '
    "528 in build"]
OTHER_FRAMES = [
    '  File "/usr/lib/python3.12/site-packages/vllm/v1/sample/sampler.py", line 88 in forward',
    '  File "/usr/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1751 in '
    "_call_impl"]
BARE_SEGFAULTS = ["Segmentation fault", "Segmentation fault (core dumped)",
                  "zsh: segmentation fault  vllm serve m",
                  "[1]+  Segmentation fault      (core dumped) vllm serve m",
                  "fish: Job 1, 'vllm serve m' terminated by signal SIGSEGV (Address boundary "
                  "error)"]
FRAME_SIGNATURES = {"flashinfer-segfault", "segfault-in-attention-kernel",
                    "nccl-allreduce-segfault"}


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.sampled_from([[s] for s in BARE_SEGFAULTS]),
                 st.just(FAULTHANDLER), st.just([*FAULTHANDLER, *OTHER_FRAMES]),
                 st.builds(lambda s: [*FAULTHANDLER, *OTHER_FRAMES, s],
                           st.sampled_from(BARE_SEGFAULTS))),
       st.sampled_from(["", "(EngineCore_DP0 pid=9) "]), st.integers(0, 2))
def test_a_segfault_no_frame_places_gets_the_family(crash: list[str], prefix: str,
                                                    served: int) -> None:
    """A segfault whose log names no component (no frames, or frames of none the exact
    signatures know) gets the native-crash family's advice, never a component's."""
    lines = [*START, *SERVING[:served], *(prefix + c for c in crash)]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.signature is not None
    assert report.signature.id not in FRAME_SIGNATURES, report.signature.id
    assert report.signature.id == "native-crash"


@pytest.mark.parametrize("after", [[], ["Segmentation fault (core dumped)"]])
def test_a_segfault_with_flashinfer_frames_gets_flashinfer_advice(after: list[str]) -> None:
    lines = [*START, *FAULTHANDLER, *FLASHINFER_FRAMES, *after]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.id == "flashinfer-segfault"


# A fatal line whose label is the start of a sentence that runs on without a colon keeps the whole
# sentence as its message (a label's words and the text after them read as printed: ROCm's
# `Memory access fault by GPU node-6 (Agent handle: ...) on address ...`); a label followed by a
# colon keeps the text after it.
RUN_ON = ["Memory access fault by GPU node-{n} (Agent handle: 0x{h}) on address 0x7f{h}. Reason: "
          "{reason}.",
          "HW Exception by GPU node-{n} (Agent handle: 0x{h}) reason :{reason}",
          "Segmentation fault (core dumped)", "Cuda failure '{reason}'"]
AFTER_COLON = ["CUDA error: {reason}", "HIP error: {reason}", "Fatal Python error: {reason}",
               "rocBLAS error: {reason}"]


@settings(max_examples=40)
@given(st.sampled_from(RUN_ON + AFTER_COLON), st.integers(1, 16), st.integers(0x1000, 0xfffff),
       st.sampled_from(["Unknown", "Page not present or supervisor privilege", "GPU Hang",
                        "out of memory"]),
       st.sampled_from(["", "2026-08-31T17:43:36.670334Z stderr F ", "(Worker_TP1 pid=7) "]))
def test_a_fatal_label_that_runs_on_keeps_the_sentence(shape: str, n: int, h: int, reason: str,
                                                       prefix: str) -> None:
    text = shape.format(n=n, h=f"{h:x}", reason=reason)
    line = parse_line(clean(prefix + text))
    assert line.kind is LineKind.FATAL, text
    label = line.exception or ""
    if shape in RUN_ON:
        assert line.message == text and text.startswith(label)
    else:
        assert line.message == text.partition(": ")[2] and text.startswith(f"{label}: ")
