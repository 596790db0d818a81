"""A family's fix names every setting the matched message itself recommends (issue 11): vLLM's
messages often say what to do ("set CUTLASS_ROOT", "use --enforce-eager", "must set
--seed-token"); a family that answers such a message and leaves that setting out gives advice the
log already beat.

The settings a message recommends are read mechanically: a flag (`--x-y`) or an environment
variable (`X_Y`) right after a verb of doing (set, pass, add, export, try, enable, disable,
increase, lower, reduce, raise, specify, install, adjust, unset, use; not after "not", not in a
"when using" condition). The report's fix is what is checked: for a family it lists after the
family's text the engine arguments and variables the message names that vLLM's index knows
(match.py), so what a family must write itself is what the index does not know (other programs'
variables, subcommand flags). Two sources of messages:

- every family's positive example logs (signatures/<category>/<id>[.N].log) that the family
  answers;
- every `raise` template of vLLM's message index that recommends a setting, written as a worker
  traceback raised in its module, when a family answers it.

Diagnostic knobs (family-knobs.yaml `diagnostic:`, such as the `CUDA_LAUNCH_BLOCKING=1` torch
appends to every CUDA error) only make a failure say more and are not asked for."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from logsleuth.index.data import MessageKind, default_index
from logsleuth.model import Phase, SignatureKind
from logsleuth.pipeline import explain, explain_text
from logsleuth.resources import data_dir
from logsleuth.signatures import default_signatures
from logsleuth.yamlload import load_yaml
from v1log import worker_failure

_VERBS = ("set|setting|pass|passing|add|adding|export|try|enable|disable|increase|decrease|lower|"
          "reduce|raise|specify|install|adjust|unset|use")
_RECOMMENDED = re.compile(
    r"(?<!\bnot )(?<!\bwhen )(?<!\bWhen )\b(?i:" + _VERBS + r")\s+(?i:the\s+)?"
    r"(?i:env(?:ironment)?\s+var(?:iable)?\s+|flag\s+|argument\s+|option\s+)?[`'\"]?"
    r"(--[a-z][a-z0-9-]+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)")


def recommended(message: str) -> set[str]:
    """The flags and environment variables a message tells the user to set."""
    return set(_RECOMMENDED.findall(message)) - _diagnostic()


@cache
def _diagnostic() -> frozenset[str]:
    data, _ = load_yaml(data_dir("signatures") / "family-knobs.yaml")
    return frozenset(data["diagnostic"])


def _named(knob: str, fix: str) -> bool:
    lowered = fix.lower()
    return knob.lower() in lowered or knob.lstrip("-").replace("-", "_").lower() in lowered


@cache
def _signatures():  # type: ignore[no-untyped-def]
    return default_signatures()


_NUMBERED = re.compile(r"(.+)\.\d+")


@cache
def _family_examples() -> list[tuple[str, str]]:
    """(family, path) of each family's example logs, `<id>.log` and `<id>.<n>.log`, in the
    families' order: the signatures tree is walked once (walked once a family, twice at every
    import, it was 3 s of each xdist worker's collection)."""
    families = [s.id for s in _signatures() if s.kind is SignatureKind.FAMILY]
    logs: dict[str, list[Path]] = {family: [] for family in families}
    for path in data_dir("signatures").rglob("*.log"):
        stem = path.name[:-len(".log")]
        numbered = _NUMBERED.fullmatch(stem)
        for family in {stem, numbered.group(1) if numbered else stem}:
            if family in logs:
                logs[family].append(path)
    return [(family, str(path)) for family in families for path in sorted(logs[family])]


@pytest.mark.parametrize(("family", "log"), _family_examples(),
                         ids=[f"{f}:{l.rsplit('/', 1)[-1]}" for f, l in _family_examples()])
def test_a_familys_example_gets_every_setting_its_message_recommends(family: str, log: str) -> None:
    report = explain(Path(log), signatures=_signatures())
    if report.signature is None or report.signature.id != family or report.root_cause is None:
        pytest.skip("another signature answers this example (test_signatures checks which)")
    missing = [k for k in recommended(report.root_cause.message)
               if not _named(k, report.signature.fix)]
    assert not missing, f"{family}'s fix leaves out {missing}, which the message recommends"


@cache
def _index_recommendations() -> list[tuple[str, str, str, str]]:
    """(exception class, module, function, message) of every raise template that recommends."""
    return [(t.cls, t.module, t.function, t.text) for t in default_index().templates
            if t.kind is MessageKind.RAISE and recommended(t.text)]


@pytest.mark.long
def test_families_answering_vllms_own_recommendations_name_them() -> None:
    missing = []
    for exception, module, function, text in _index_recommendations():
        message = text.replace("{any}", "x").replace("{int}", "4")
        log = worker_failure(f"{exception}: {message}", phase=Phase.LOAD,
                             inner=((module.replace(".", "/") + ".py",
                                     function.rsplit(".", 1)[-1]),))
        report = explain_text(log, signatures=_signatures())
        if report.signature is None or report.signature.kind is not SignatureKind.FAMILY:
            continue
        missing += [(report.signature.id, k, message[:100]) for k in recommended(message)
                    if not _named(k, report.signature.fix)]
    assert not missing, missing


@pytest.mark.parametrize(("message", "wanted"), [
    ("CUTLASS headers were not found. Initialize the submodule or set CUTLASS_ROOT.", {"CUTLASS_ROOT"}),
    ("Preload daemons must set --seed-token to enable D2D transfer", {"--seed-token"}),
    ("Please use --enforce-eager or set VLLM_USE_V1=0.", {"--enforce-eager", "VLLM_USE_V1"}),
    ("--decode already uses paged KV; do not pass --paged", set()),
    ("When using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be given",
     set()),
    ("For debugging consider passing CUDA_LAUNCH_BLOCKING=1", set()),
])
def test_recommended_settings_are_read_from_the_message(message: str, wanted: set[str]) -> None:
    assert recommended(message) == wanted
