"""Matching generalises (issue 11, item 2): every exact signature's positive example, varied in
what does not change the failure, is still matched best by the same signature.

What varies, drawn by hypothesis for each signature:
- the process prefix's numbers: pids, ranks' pids, Ray workers' IPs;
- the era of the record header: `ERROR 02-05 10:11:30 [file.py:123]` (V1) and
  `ERROR 02-05 10:11:30 file.py:123]` (V0), each into the other;
- a wrapper around every line (docker, journald, kubectl, srun, CI runners: the wrappers of
  test_run_properties.py);
- where Python is installed (the frames' site-packages root) and the frames' line numbers;
- the numbers in the root cause's message that vary from run to run, each replaced by another of
  the same shape: for a message vLLM prints, those in the parts its index template marks as
  variable; for any other, sizes, separated counts and layer indexes (a status code, an error
  number or a hardware limit the message states is the failure, not the run);
- the count Ray's log deduplication appends to a line other Ray workers printed too
  (`[repeated 7x across cluster]`, vllm#16450), after the root cause's message of a Ray worker.

A signature that only matches its own example's numbers or paths has an incident in it; a matcher
that ranks differently under a wrapper reads evidence it should not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from logsleuth.index.lookup import PLACEHOLDER, Fit
from logsleuth.index.origin import default_matcher
from logsleuth.model import Report, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from test_run_properties import WRAPPERS

PID = re.compile(r"\bpid=(\d+)")
IP = re.compile(r"\bip=(\d+)\.(\d+)\.(\d+)\.(\d+)")
_LEVEL_AND_TIME = r"\b(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d) "
V1_HEADER = re.compile(_LEVEL_AND_TIME + r"\[([\w.-]+:\d+)\] ")  # the call site in brackets
V0_HEADER = re.compile(_LEVEL_AND_TIME + r"([\w.-]+\.py:\d+)\] ")  # before v0.8: without
SITE_ROOT = re.compile(r'File "(?:/[^"]*?)/(?:site|dist)-packages/')
FRAME_LINE = re.compile(r'(File "[^"]+", line )(\d+)')
# a number standing alone or as an index inside a dotted name (`layers.35.mlp`), not a part of
# a word (`fp8`, `sm120`, `Qwen2`) nor of a version or hex value
NUMBER = re.compile(r"(?<![\w.\-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w\-]|\.\d)"
                    r"|(?<=\.)(\d+)(?=\.[A-Za-z_])")
# outside vLLM's own messages: what a run changes (a size with its unit, a count printed with
# thousands separators, an index inside a dotted name). A bare number may be the failure itself:
# a status code, an error number, a hardware limit (`Hardware limit: 65536`).
RUN_NUMBER = re.compile(r"\d[\d,.]*\s?(?:[KMGT]i?B|bytes)\b|\b\d{1,3}(?:,\d{3})+\b"
                        r"|(?<=\.)\d+(?=\.[A-Za-z_])")
ROOTS = ("/usr/local/lib/python3.12/dist-packages/", "/opt/conda/lib/python3.10/site-packages/",
         "/home/user/.venv/lib/python3.11/site-packages/",
         "/root/miniconda3/envs/vllm/lib/python3.12/site-packages/")


def exact_ids() -> list[str]:
    """Every exact signature with a positive example beside it."""
    return [s.id for s in default_signatures() if s.kind is SignatureKind.EXACT
            and any(positive for _, positive in s.examples())]


@cache
def subject(signature_id: str) -> tuple[Path, int]:
    """The signature's first positive example and the line of the error it matched."""
    signature = default_signatures().get(signature_id)
    assert signature is not None
    example = next(path for path, positive in signature.examples() if positive)
    report = _explain(example.read_text(encoding="utf-8", errors="replace"))
    assert report.signature is not None and report.signature.id == signature_id, \
        "the example itself is not matched (signatures test says why)"
    # the matched error: the root cause, or the first symptom when the log lacks the root cause
    matched = report.root_cause or (report.symptoms[0] if report.symptoms else None)
    return example, matched.line if matched is not None else 0


def _explain(text: str) -> Report:
    return explain_text(text, signatures=default_signatures())


def _renumber(text: str, draw: Callable[[int], int]) -> str:
    """Each number replaced by another of the same shape (digits, separators, decimals)."""
    def other(found: re.Match[str]) -> str:
        whole, decimals, index = found.group(1), found.group(2), found.group(3)
        if index is not None:
            return str(draw(max(1, int(index) * 2)))
        digits = whole.replace(",", "")
        value = draw(10 ** len(digits) - 1)
        value = max(value, 10 ** (len(digits) - 1)) if len(digits) > 1 else value
        shown = f"{value:,}" if "," in whole else str(value)
        if decimals:
            shown += "." + str(draw(10 ** (len(decimals) - 1) - 1)).zfill(len(decimals) - 1)
        return shown
    return NUMBER.sub(other, text)


def _variable_spans(message: str) -> list[tuple[int, int]]:
    """Where a message varies from run to run: its index template's placeholders when vLLM
    prints it, else the sizes, large counts and indexes in it."""
    found = default_matcher().find(message)
    if found is not None:
        parts, position = [], 0
        for placeholder in PLACEHOLDER.finditer(found.text):
            parts.append(re.escape(found.text[position:placeholder.start()]))
            parts.append("(.*?)")
            position = placeholder.end()
        parts.append(re.escape(found.text[position:]))
        spaced = "".join(parts).replace(r"\ ", r"\s+")
        matched = re.match(spaced + ("$" if found.fit is Fit.WHOLE else ""), message, re.DOTALL)
        if matched is not None:
            return [matched.span(i) for i in range(1, len(parts) // 2 + 1)]
    return [m.span() for m in RUN_NUMBER.finditer(message)]


def _renumber_message(line: str, at: int, draw: Callable[[int], int]) -> str:
    """The numbers in the variable parts of the message that starts at `at`."""
    message = line[at:]
    out, position = [], 0
    for start, end in _variable_spans(message):
        out += [message[position:start], _renumber(message[start:end], draw)]
        position = end
    return line[:at] + "".join(out) + message[position:]


def _vary(text: str, root_line: int, data: st.DataObject) -> str:
    lines = text.splitlines()
    def draw(top: int) -> int:
        return data.draw(st.integers(min(1, top), top))
    # the root cause's message: its numbers (only after its `Type:`)
    line = lines[root_line - 1] if root_line else ""
    at = line.find(": ", max(0, line.find("] ") + 1))
    if root_line and at >= 0 and data.draw(st.booleans(), label="renumber the message"):
        lines[root_line - 1] = _renumber_message(line, at + 2, draw)
    # Ray deduplicates only what its workers print (a `(Actor pid=N, ip=A)` prefix)
    if root_line and at >= 0 and "ip=" in line and data.draw(st.booleans(),
                                                               label="Ray's repeat count"):
        lines[root_line - 1] += f" [repeated {draw(31) + 1}x across cluster]"
    shift = data.draw(st.integers(1, 60000), label="pid shift")
    host = data.draw(st.integers(1, 250), label="ip")
    era = data.draw(st.sampled_from(["keep", "to-v0", "to-v1"]), label="header era")
    root = data.draw(st.sampled_from(ROOTS), label="site-packages root")
    wrapper = data.draw(st.sampled_from(["none", *sorted(WRAPPERS)]), label="wrapper")
    out = []
    for line in lines:
        line = PID.sub(lambda m: f"pid={int(m.group(1)) + shift}", line)
        line = IP.sub(lambda m: f"ip=10.{host}.{m.group(3)}.{m.group(4)}", line)
        if era == "to-v0":
            line = V1_HEADER.sub(lambda m: f"{m.group(1)} {m.group(2)} {m.group(3)}] ", line)
        elif era == "to-v1":
            line = V0_HEADER.sub(lambda m: f"{m.group(1)} {m.group(2)} [{m.group(3)}] ", line)
        line = SITE_ROOT.sub(f'File "{root}', line)
        line = FRAME_LINE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) * 3 + 7}", line)
        out.append(WRAPPERS[wrapper](line) if wrapper != "none" else line)
    return "\n".join(out) + "\n"


def test_the_renumbering_keeps_words_and_shapes() -> None:
    text = ("ValueError: layer model.layers.35.mlp at 1,745,264 tokens with fp8 on sm120 "
            "needs 0.90 of 80.00 GiB (v0.11.2, 0x7f3a)")
    varied = _renumber(text, lambda top: top // 3)
    assert "model.layers.23.mlp" in varied and "fp8" in varied and "sm120" in varied
    assert "v0.11.2" in varied and "0x7f3a" in varied
    assert re.search(r" \d,\d{3},\d{3} tokens", varied)
    assert re.search(r"needs \d\.\d\d of \d\d\.\d\d GiB", varied)


# Why not fixed: this example is one line a terminal wrapped mid-word into two rows (`...should b` /
# `e a 1-D embedding vector`). The draw (derandomized; it moved when WRAPPERS grew in session 12)
# puts a relaying logger's prefix on each row, which no real log does (a logger relays whole lines,
# the terminal wraps after): the second row becomes a record of its own, the message stops at
# `should b`, and the pooling family answers. Nothing tells a wrapped row from a new record then.
TERMINAL_WRAPPED = {"reward-model-pooled-data-not-1d":
                    "a terminal-wrapped example given a relaying logger's prefix on each row"}
# Without shrinking: shrinking changes no verdict, only which failing variation is shown (the
# assertion names the example and what answered instead), and the strict known miss above, whose
# failure is expected, spent 23 s of every run shrinking it.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


@pytest.mark.parametrize("signature_id", [
    pytest.param(sig, marks=pytest.mark.xfail(strict=True, reason=TERMINAL_WRAPPED[sig]))
    if sig in TERMINAL_WRAPPED else sig for sig in exact_ids()])
@settings(max_examples=2, phases=NO_SHRINK)
@given(data=st.data())
def test_an_exact_signature_survives_what_does_not_change_its_failure(
        signature_id: str, data: st.DataObject) -> None:
    example, root_line = subject(signature_id)
    text = example.read_text(encoding="utf-8", errors="replace")
    report = _explain(_vary(text, root_line, data))
    got = report.signature.id if report.signature else None
    assert got == signature_id, f"{example.name}: {got} instead of {signature_id}"
