"""A remedy read from any root message (issue 11): when the root cause's message states its fix
in any package's words ("please upgrade X", "set --flag", "try ...", "pip install ...", "use ...
instead"), the report carries it: as the fix (kind `message`) when no signature knows the
failure, or after a family's fix that lacks the setting it names. A message that states no
remedy gives none. What reads as a remedy is data: signatures/remedy.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.errors import SignatureError
from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.remedy import knobs, load_phrasing, remedy_of
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures

SCHEMA = json.loads((Path(__file__).parent / "report.schema.json").read_text(encoding="utf-8"))

# packages whose messages reach a vLLM log, with a module of each to raise from
PACKAGES = {"torch": "torch/cuda/memory.py", "transformers": "transformers/modeling_utils.py",
            "triton": "triton/runtime/jit.py", "ray": "ray/_private/worker.py",
            "flashinfer": "flashinfer/jit/core.py", "optimum": "optimum/intel/openvino/modeling.py",
            "xformers": "xformers/ops/fmha/dispatch.py", "acme_plugin": "acme_plugin/runner.py",
            "safetensors": "safetensors/torch.py",
            "huggingface_hub": "huggingface_hub/utils/_errors.py"}
CLASSES = ["ValueError", "RuntimeError", "TypeError", "ImportError", "OSError", "KeyError",
           "NotImplementedError", "AssertionError"]
NAMES = st.from_regex(r"[a-z]{3,8}(?:_[a-z]{2,6}){0,2}", fullmatch=True)
NUMBERS = st.integers(min_value=2, max_value=99999).map(str)
# problem statements: what happened, in words no remedy uses
PROBLEMS = [
    "{pkg} could not load the layer '{name}'",
    "the tensor {name} has shape ({num},) but ({num2},) was expected",
    "expected {name} to be on cuda:0 but found it on cpu",
    "the operator {name} is not supported on this device",
    "unable to initialise {name} after {num} attempts",
    "{name} failed with status {num}",
    "Set of tensors for {name} is empty",
    "Use of {name} is deprecated and will be removed",
    "Check failed: {name} == {num}",
    "Tried to allocate {num} MiB for {name}",
    "block {num} of {name} is out of range",
    "{pkg} returned no result for {name}",
]
# sentences that look like advice but only ask for a report or more output
NOT_REMEDIES = [
    "Please check the stack trace above for the root cause.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
    "Please report a bug to {pkg}.",
    "See the logs above for the original error.",
    "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace.",
]
# remedy clauses, each with the knob it names (the setting a fix must carry)
REMEDIES = [
    ("Please upgrade {pkg} to {num}.0 or later.", "{pkg}"),
    ("Please set --{flag} to a smaller value.", "--{flag}"),
    ("Try setting {ENV}=1 before starting the server.", "{ENV}"),
    ("Consider passing `{name}=True` when loading the model.", "{name}"),
    ("You can install it with `pip install {pkg}`.", "{pkg}"),
    ("Use `{name}` instead.", "{name}"),
    ("Make sure {ENV} points at the library directory.", "{ENV}"),
    ("Increase `{name}` or decrease --{flag}.", "{name}"),
    ("To fix this, pass --{flag}.", "--{flag}"),
    ("Install it with: pip install {pkg}", "{pkg}"),
]


@st.composite
def problems(draw: st.DrawFn) -> tuple[str, str]:
    """(package, a problem of one or two sentences with no remedy in it)."""
    pkg = draw(st.sampled_from(sorted(PACKAGES)))
    fill = {"pkg": pkg, "name": draw(NAMES), "num": draw(NUMBERS), "num2": draw(NUMBERS)}
    parts = [draw(st.sampled_from(PROBLEMS)).format(**fill)]
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(PROBLEMS)).format(**fill))
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(NOT_REMEDIES)).format(**fill))
    return pkg, ". ".join(p.rstrip(".") for p in parts) + "."


@st.composite
def remedies(draw: st.DrawFn, pkg: str) -> tuple[str, str]:
    """(a remedy clause, the knob it names)."""
    fill = {"pkg": pkg, "name": draw(NAMES), "num": draw(NUMBERS),
            "flag": draw(NAMES).replace("_", "-"),
            "ENV": "ACME_" + draw(NAMES).upper()}
    text, knob = draw(st.sampled_from(REMEDIES))
    return text.format(**fill), knob.format(**fill)


def _traceback(pkg: str, cls: str, message: str) -> str:
    return ("INFO 12-04 10:00:03 [api_server.py:1090] vLLM API server version 0.9.1\n"
            "Traceback (most recent call last):\n"
            '  File "/home/user/serve.py", line 12, in <module>\n'
            "    main()\n"
            f'  File "/opt/venv/lib/python3.12/site-packages/{PACKAGES[pkg]}", line 88, in step\n'
            f"    raise {cls}(msg)\n"
            f"{cls}: {message}\n")


@settings(max_examples=150, deadline=None)
@given(problems())
def test_a_message_without_a_remedy_gives_none(problem: tuple[str, str]) -> None:
    assert remedy_of(problem[1]) is None, problem[1]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_remedy_clause_is_read_from_any_package(data: st.DataObject) -> None:
    pkg, problem = data.draw(problems())
    remedy, knob = data.draw(remedies(pkg))
    joined = data.draw(st.sampled_from([" ", "\n", " "]))
    found = remedy_of(f"{problem}{joined}{remedy}")
    assert found is not None and knob in found, (problem, remedy)
    assert problem.split(".")[0] not in found  # the problem is not advice


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_the_report_carries_the_roots_own_remedy(data: st.DataObject) -> None:
    pkg, problem = data.draw(problems())
    remedy, knob = data.draw(remedies(pkg))
    cls = data.draw(st.sampled_from(CLASSES))
    report = explain_text(_traceback(pkg, cls, f"{problem} {remedy}"),
                          signatures=default_signatures())
    assert report.root_cause is not None and report.signature is not None
    out = report_to_dict(report)
    jsonschema.validate(out, SCHEMA)
    if report.signature.kind is not SignatureKind.EXACT:
        # a message remedy beats a fallback; a family's fix gains the knob it lacked
        assert report.signature.kind in (SignatureKind.MESSAGE, SignatureKind.FAMILY)
        assert knob in report.signature.fix, (problem, remedy, report.signature.id)
    if report.signature.kind is SignatureKind.MESSAGE:
        assert out["advice"]["text"] in report.signature.fix
        assert report.signature.title.startswith("The error's own advice: ")


@settings(max_examples=25, deadline=None)
@given(problems(), st.sampled_from(CLASSES))
def test_a_root_without_a_remedy_gets_no_message_advice(problem: tuple[str, str],
                                                       cls: str) -> None:
    report = explain_text(_traceback(problem[0], cls, problem[1]),
                          signatures=default_signatures())
    assert report.signature is None or report.signature.kind is not SignatureKind.MESSAGE


def test_a_symptoms_hint_is_not_the_roots_remedy() -> None:
    # the root's message states nothing; the wrapper's "please check the stack trace" is a pointer
    log = ("Traceback (most recent call last):\n"
           '  File "/opt/venv/lib/python3.12/site-packages/acme_plugin/runner.py", line 3, in go\n'
           "    raise RuntimeError('x')\n"
           "RuntimeError: acme pool exploded\n"
           "ERROR 02-05 10:11:31 [core.py:946] RuntimeError: Worker failed with error 'acme pool "
           "exploded', please check the stack trace above for the root cause\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is not SignatureKind.MESSAGE


def test_a_family_whose_fix_names_the_knob_is_not_repeated() -> None:
    # torch's OOM message says "try setting PYTORCH_CUDA_ALLOC_CONF": the OOM families name it
    message = ("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
               "79.15 GiB of which 1.00 MiB is free. If reserved but unallocated memory is large "
               "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
               "fragmentation.")
    report = explain_text(_traceback("torch", "torch.OutOfMemoryError", message),
                          signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.kind is not SignatureKind.MESSAGE
    assert report.signature.fix.count("PYTORCH_CUDA_ALLOC_CONF") >= 1
    assert "own message advises: If reserved" not in report.signature.fix \
        or "PYTORCH_CUDA_ALLOC_CONF" not in report.signature.fix.split("own message advises")[0]


def test_knobs_are_the_settings_a_remedy_names() -> None:
    assert knobs("Please set --max-model-len or VLLM_USE_V1=0 and `use_cache=False`; "
                 "pip install flash-attn") == ("--max-model-len", "VLLM_USE_V1", "use_cache",
                                               "flash-attn")


def test_the_phrasing_file_is_checked(tmp_path: Path) -> None:
    bad = tmp_path / "remedy.yaml"
    bad.write_text("opens: [please]\nanywhere: [please]\nnot_opening: [x]\nnot_remedy: ['(']\n")
    with pytest.raises(SignatureError, match="not_remedy"):
        load_phrasing(bad)
    bad.write_text("opens: [please]\nanywhere: [please]\nnot_opening: [x]\nnot_remedy: [y]\n"
                   "extra: [z]\n")
    with pytest.raises(SignatureError, match="unknown keys"):
        load_phrasing(bad)


HINTED = """\
INFO 12-04 10:00:03 [api_server.py:1090] vLLM API server version 0.9.1
{warning}
INFO 12-04 10:00:06 [acme.py:30] starting acme
Traceback (most recent call last):
  File "/opt/venv/lib/python3.12/site-packages/acme_plugin/runner.py", line 88, in prepare
    raise error
RuntimeError: acme pool exhausted
"""


def _explain_file(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    from logsleuth.pipeline import explain

    log = tmp_path / "vllm.log"
    log.write_text(text, encoding="utf-8")
    return explain(log, signatures=default_signatures())


def test_a_warning_right_before_the_root_gives_its_remedy(tmp_path: Path) -> None:
    warning = ("WARNING 12-04 10:00:05 [acme.py:20] acme kernels were not found; please set "
               "ACME_KERNEL_PATH to their directory")
    report = _explain_file(tmp_path, HINTED.format(warning=warning))
    assert report.signature is not None and report.signature.kind is SignatureKind.FALLBACK
    assert "(line 2) advises: please set ACME_KERNEL_PATH" in report.signature.fix
    assert report.advice is not None and report.advice.event_line == 2
    jsonschema.validate(report_to_dict(report), SCHEMA)


@pytest.mark.parametrize("warning", [
    # a deprecation advises about something else
    "WARNING 12-04 10:00:04 [acme.py:10] `torch_dtype` is deprecated! Use `dtype` instead!",
    # a performance note advises about something else
    "WARNING 12-04 10:00:04 [tokenizer.py:9] Using a slow tokenizer. This might cause a "
    "significant slowdown. Consider using a fast tokenizer instead.",
    # another process's warning
    "(VllmWorker rank=1 pid=77) WARNING 12-04 10:00:05 [acme.py:20] please set ACME_KERNEL_PATH",
    # a warning that states no remedy
    "WARNING 12-04 10:00:05 [acme.py:20] acme kernels were not found in the default path",
])
def test_a_warning_that_is_no_hint_adds_nothing(tmp_path: Path, warning: str) -> None:
    report = _explain_file(tmp_path, HINTED.format(warning=warning))
    assert report.signature is not None and "advises:" not in report.signature.fix
    assert report.advice is None


def test_lint_checks_the_phrasing_file(tmp_path: Path) -> None:
    from logsleuth.signatures.lint import lint

    phrasing = tmp_path / "remedy.yaml"
    phrasing.write_text("opens: [please]\nanywhere: ['(']\nnot_opening: [x]\nnot_remedy: [y]\n")
    problems = lint([phrasing], examples=False)
    assert any("invalid pattern in `anywhere`" in p.message for p in problems if p.is_error)
    assert not [p for p in lint([], examples=False) if "remedy.yaml" in p.location]


# ---- a warning's hint arrives with the lines, whatever way they arrive (hint.py) ----------------

WORDS = st.sampled_from(["pool", "arena", "cache", "ring", "slab", "queue", "shard", "lane"])
KNOBS = st.from_regex(r"ACME_[A-Z]{3,8}", fullmatch=True)
OTHER = "(VllmWorker rank=1 pid=77) "


def _hinted_log(warning: str, fillers: list[str], word: str) -> str:
    """A start, the warning, `fillers` lines, then a plugin's traceback only a fallback knows."""
    lines = ["INFO 12-04 10:00:03 [api_server.py:1090] vLLM API server version 0.9.1", warning,
             *fillers,
             "Traceback (most recent call last):",
             '  File "/opt/venv/lib/python3.12/site-packages/acme_plugin/runner.py", line 88, '
             "in prepare",
             "    raise error",
             f"RuntimeError: acme {word} exhausted"]
    return "\n".join(lines) + "\n"


def _fillers(count: int, other: list[bool]) -> list[str]:
    # lines of the failing process and of another, as they interleave in one stream
    return [(OTHER if other[i % len(other)] else "") +
            f"INFO 12-04 10:00:06 [acme.py:30] step {i} of the acme start"
            for i in range(count)]


def _every_way(tmp_path: Path, text: str) -> list[dict[str, object]]:
    """The report of one log as a plain file, on stdin, gzip'd and followed, its source name
    left out."""
    import gzip
    import io

    from logsleuth.follow import follow
    from logsleuth.pipeline import explain

    ticks = iter(range(10**6))  # a clock that moves a second each time it is read

    plain = tmp_path / "vllm.log"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / "vllm.log.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    reports = [explain(plain), explain(io.BytesIO(text.encode("utf-8")), name="<stdin>"),
               explain(packed), follow(plain, timeout=60, settle=0.5,
                                       clock=lambda: float(next(ticks)), sleep=lambda _: None)]
    out = []
    for report in reports:
        found = report_to_dict(report)
        found.pop("source")
        out.append(found)
    return out


@settings(max_examples=20, deadline=None)
@given(knob=KNOBS, word=WORDS, gap=st.integers(min_value=1, max_value=8),
       other=st.lists(st.booleans(), min_size=1, max_size=4))
def test_a_warnings_hint_is_the_same_from_a_file_stdin_gzip_or_follow(
        tmp_path_factory: pytest.TempPathFactory, knob: str, word: str, gap: int,
        other: list[bool]) -> None:
    warning = (f"WARNING 12-04 10:00:05 [acme.py:20] acme kernels were not found; please set "
               f"{knob} to their directory")
    text = _hinted_log(warning, _fillers(gap - 1, other), word)
    reports = _every_way(tmp_path_factory.mktemp("hint"), text)
    assert reports[0] == reports[1] == reports[2] == reports[3]
    signature, advice = reports[0]["signature"], reports[0]["advice"]
    assert isinstance(signature, dict) and signature["kind"] == "fallback"
    assert f"(line 2) advises: please set {knob}" in signature["fix"]
    assert isinstance(advice, dict) and advice["line"] == 2


@settings(max_examples=20, deadline=None)
@given(knob=KNOBS, word=WORDS, other=st.lists(st.booleans(), min_size=1, max_size=4),
       case=st.sampled_from(["another process", "too far", "deprecation"]),
       far=st.integers(min_value=9, max_value=20))
def test_a_warning_that_gives_no_hint_gives_none_whatever_way_it_arrives(
        tmp_path_factory: pytest.TempPathFactory, knob: str, word: str, other: list[bool],
        case: str, far: int) -> None:
    warning = f"WARNING 12-04 10:00:05 [acme.py:20] acme kernels were not found; please set {knob}"
    gap = far if case == "too far" else 3
    if case == "another process":
        warning = OTHER + warning
    elif case == "deprecation":
        warning += " (this default is deprecated and will be removed in v0.12)"
    reports = _every_way(tmp_path_factory.mktemp("nohint"),
                          _hinted_log(warning, _fillers(gap - 1, other), word))
    assert reports[0] == reports[1] == reports[2] == reports[3]
    signature = reports[0]["signature"]
    assert isinstance(signature, dict) and "advises:" not in str(signature["fix"])
    assert reports[0]["advice"] is None


def test_lint_checks_that_the_phrasing_makes_an_re2_warning_anchor(tmp_path: Path) -> None:
    from logsleuth.signatures.lint import lint

    phrasing = tmp_path / "remedy.yaml"
    # a look-ahead is a `regex` pattern, not an RE2 one: the warning anchor could not be made
    phrasing.write_text("opens: [please]\nanywhere: ['try(?= it)']\nnot_opening: [x]\n"
                        "not_remedy: [y]\n")
    problems = lint([phrasing], examples=False)
    assert any("RE2" in p.message for p in problems if p.is_error)


def test_a_warning_that_states_a_remedy_is_anchored() -> None:
    from logsleuth.tokenize import anchor_patterns

    anchor = anchor_patterns()[0]
    assert anchor.search(b"WARNING 12-04 10:00:05 [acme.py:20] acme kernels were not found; "
                         b"please set ACME_KERNEL_PATH")
    assert anchor.search(b"WARNING 12-04 10:00:05 [acme.py:20] No kernels. Set ACME_PATH.")
    # one sentence that opens with a remedy word is the problem, not its fix (remedy_of)
    assert not anchor.search(b"WARNING 12-04 10:00:05 [cpu.py:72] Pin memory is not supported "
                             b"on CPU.\nINFO 12-04 10:00:05 [x.py:1] Set up.")
    assert not anchor.search(b"INFO 12-04 10:00:05 [acme.py:20] please set ACME_KERNEL_PATH")
