"""An error whose own words are missing is read by its failing source line: a bare `assert` (no
message) and a traceback cut before its exception line (a pasted excerpt ending at the `File`
line's code). A signature can then know the failure by that line; an exception with a message of
its own is read by its message only."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet
from logsleuth.signatures.load import load_signature_file

FRAME = "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/{model}.py"
PREFIXES = ["", "(Worker_PP1_TP0 pid=3312) ERROR 08-19 09:14:02 [multiproc_executor.py:559] ",
            "(RayWorkerWrapper pid=8841, ip=10.1.0.12) ERROR 05-02 14:20:11 worker_base.py:572] "]
SHAPES = ["bare", "cut", "message"]


def _signatures(tmp_path: Path) -> SignatureSet:
    path = tmp_path / "model" / "layer-walk.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "id: layer-walk\ntitle: a layer-type assertion known by its source line\n"
        "category: model\ndescription: A test signature matched on a failing source line.\n"
        "severity: error\nstatus: stable\nmatch:\n  exception: [AssertionError]\n"
        "  regex: [': assert isinstance\\(layer, \\w+DecoderLayer\\)\\s*$']\n"
        "fix: Serve without --pipeline-parallel-size, or upgrade vLLM to a release that skips placeholders.\nreferences: [https://docs.vllm.ai/]\n",
        encoding="utf-8")
    return SignatureSet([load_signature_file(path)])


def _log(prefix: str, model: str, layer: str, shape: str) -> str:
    lines = ["Traceback (most recent call last):",
             f'  File "{FRAME.format(model=model)}", line 761, in __init__',
             f"    assert isinstance(layer, {layer})"]
    if shape == "bare":
        lines.append("AssertionError")
    elif shape == "message":
        lines.append("AssertionError: expected a decoder layer")
    return "".join(f"{prefix}{line}\n" for line in lines)


@pytest.fixture(scope="module")
def signatures(tmp_path_factory: pytest.TempPathFactory) -> SignatureSet:
    return _signatures(tmp_path_factory.mktemp("sigs"))


@settings(max_examples=30, deadline=None)
@given(prefix=st.sampled_from(PREFIXES), shape=st.sampled_from(SHAPES),
       model=st.sampled_from(["deepseek_v2", "qwen3_moe", "llama4"]),
       layer=st.sampled_from(["DeepseekV2DecoderLayer", "Qwen3MoeDecoderLayer", "Llama4DecoderLayer"]))
def test_a_missing_message_is_read_by_the_failing_source_line(
        signatures: SignatureSet, prefix: str, shape: str, model: str, layer: str) -> None:
    report = explain_text(_log(prefix, model, layer, shape), signatures=signatures)
    chosen = report.signature.id if report.signature else None
    assert (chosen == "layer-walk") is (shape != "message"), (shape, report.signature)
