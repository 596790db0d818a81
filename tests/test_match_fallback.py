"""No failure goes without advice (issue 11): a failure whose root cause was found always gets a
fix. The last resort is a fallback family (`kind: fallback`, signatures/fallback/), keyed by the
exception class and the message's words, ranked below every exact signature, family and the
message's own remedy, never listed as an alternative, and marked `fallback` in the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures
from logsleuth.signatures.match import _quoting

SCHEMA = json.loads((Path(__file__).parent / "report.schema.json").read_text(encoding="utf-8"))
# a concrete knob: a flag, an environment variable, a package command
KNOB = re.compile(r"--[a-z][a-z-]+|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|pip install|ulimit|`[^`]+`")
PHASES = {
    "init": "INFO 12-04 10:00:04 [config.py:600] This model supports multiple tasks.\n",
    "load": "INFO 12-04 10:00:05 [gpu_model_runner.py:1200] Starting to load model acme/m...\n",
    "profile": "INFO 12-04 10:00:09 [default_loader.py:262] Loading weights took 4.10 seconds\n",
    "graph_capture": "INFO 12-04 10:00:12 [gpu_model_runner.py:2000] Capturing CUDA graphs\n",
    "none": "",
}
# (exception line, the fallback that answers it when nothing more specific does)
CLASSES = [
    ("FileNotFoundError: [Errno 2] No such file or directory: '/srv/{name}/conf.json'",
     "fallback-file-not-found"),
    ("PermissionError: [Errno 13] Permission denied: '/srv/{name}/queue.lock'",
     "fallback-permission-denied"),
    ("OSError: [Errno 36] File name too long: '/tmp/{name}'", "fallback-os-error"),
    ("TypeError: {Name}.forward() missing 1 required positional argument: 'pos'",
     "fallback-call-signature-mismatch"),
    ("AttributeError: '{Name}Scheduler' object has no attribute '{name}'",
     "fallback-attribute-missing"),
    ("KeyError: '{name}_policy'", "fallback-key-error"),
    ("AssertionError: {name} must be a multiple of 16", "fallback-assertion-failed"),
    ("NotImplementedError: {name} on this device", "fallback-not-implemented"),
    ("ValueError: {name}: unsupported mode 'fast'", "fallback-value-error"),
    ("RuntimeError: NCCL communicator {name} could not be created", "fallback-nccl-error"),
    ("RuntimeError: {name} pool exhausted", "fallback-runtime-error"),
    # (a name that does not resolve is host-name-resolution-failed's since session 34)
    ("ssl.SSLError: [SSL: WRONG_VERSION_NUMBER] wrong version number talking to {name}",
     "fallback-connection-error"),
    ("TimeoutError: no reply from {name} after 600 s", "fallback-timeout"),
    ("RuntimeError: can't start new thread", "fallback-resource-limit"),
    ("ImportError: {name} needs its compiled core", "fallback-import-error"),
    ("{name}.errors.{Name}Error: the plan was refused", "fallback-any-error"),
]
NAMES = st.from_regex(r"acme[a-z]{2,6}", fullmatch=True)


def _log(phase: str, exception_line: str) -> str:
    return ("INFO 12-04 10:00:03 [api_server.py:1090] vLLM API server version 0.9.1\n"
            + PHASES[phase] + "Traceback (most recent call last):\n"
            '  File "/home/user/serve.py", line 12, in <module>\n'
            "    main()\n"
            '  File "/opt/venv/lib/python3.12/site-packages/acme_plugin/runner.py", line 8, in go\n'
            "    raise error\n"
            f"{exception_line}\n")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CLASSES), st.sampled_from(sorted(PHASES)), NAMES)
def test_every_class_of_failure_gets_concrete_advice(case: tuple[str, str], phase: str,
                                                     name: str) -> None:
    line, fallback = case
    report = explain_text(_log(phase, line.format(name=name, Name=name.title())),
                          signatures=default_signatures())
    assert report.root_cause is not None
    assert report.signature is not None, line
    assert report.signature.id == fallback and report.signature.kind is SignatureKind.FALLBACK
    assert KNOB.search(report.signature.fix), report.signature.id
    assert "{" + "path}" not in report.signature.fix  # a group it quotes is filled in
    out = report_to_dict(report)
    jsonschema.validate(out, SCHEMA)
    assert out["signature"]["kind"] == "fallback"
    assert all(a["kind"] != "fallback" for a in out["alternatives"])


def test_a_fallback_ranks_below_a_family_and_is_no_alternative() -> None:
    # a CUDA OOM is a family's; RuntimeError's fallback matches too, and must not show
    line = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
            "total capacity of 79.15 GiB of which 1.00 GiB is free.")
    report = explain_text(_log("profile", line), signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is not SignatureKind.FALLBACK
    assert all(a.kind is not SignatureKind.FALLBACK for a in report.alternatives)


def test_the_messages_own_remedy_beats_a_fallback_which_stays_in_sight() -> None:
    line = "ValueError: acme mode 'fast' is unknown. Please set --acme-mode to safe."
    report = explain_text(_log("init", line), signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is SignatureKind.MESSAGE
    assert "--acme-mode" in report.signature.fix
    assert report.alternatives and report.alternatives[0].kind is SignatureKind.FALLBACK
    jsonschema.validate(report_to_dict(report), SCHEMA)


def test_words_beat_the_class_alone() -> None:
    # NCCL in a RuntimeError's message: the NCCL fallback, not RuntimeError's
    line = "RuntimeError: NCCL communicator acmegroup could not be created"
    report = explain_text(_log("init", line), signatures=default_signatures())
    assert report.signature is not None and report.signature.id == "fallback-nccl-error"


def test_a_symptom_alone_gets_no_fallback() -> None:
    # only the pointer survives (root_cause_missing): a class's last resort is not its advice
    log = ("INFO 12-04 10:00:03 [api_server.py:1090] vLLM API server version 0.9.1\n"
           "ERROR 12-04 10:00:09 [core.py:700] EngineCore failed to start.\n"
           "RuntimeError: Engine core initialization failed. See root cause above. "
           "Failed core proc(s): {}\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or report.signature.kind is not SignatureKind.FALLBACK


def test_a_fix_quotes_the_groups_its_regex_names() -> None:
    fix = "Check `{path}` and `{owner}`; keep {\"pip\": [...]} and {unknown}."
    assert _quoting(fix, {"path": "/srv/x", "owner": None}) == \
        "Check `/srv/x` and `<owner>`; keep {\"pip\": [...]} and {unknown}."
    assert _quoting(fix, {}) == fix


def test_the_fallback_files_are_fallbacks_and_only_they() -> None:
    for signature in default_signatures():
        in_folder = signature.category == "fallback"
        assert in_folder == (signature.kind is SignatureKind.FALLBACK), signature.id


def test_a_fallback_names_the_installed_package_that_raised() -> None:
    report = explain_text(_log("load", "KeyError: 'acmez_policy'"), signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is SignatureKind.FALLBACK
    assert "pip install -U acme_plugin" in report.signature.fix
    # raised by vLLM's own code: no installed package to name
    log = _log("load", "KeyError: 'acmez_policy'").replace(
        "site-packages/acme_plugin/runner.py", "site-packages/vllm/acme/runner.py")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and "raised inside the installed" not in \
        report.signature.fix


def test_the_reports_say_a_fallback_is_the_last_resort() -> None:
    from logsleuth.render.markdown import render_markdown

    report = explain_text(_log("load", "KeyError: 'acmez_policy'"), signatures=default_signatures())
    assert "is the last resort for its class" in render_markdown(report)
