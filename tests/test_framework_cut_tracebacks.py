"""A framework's traceback cut above vLLM's raise site (index/origin.py `cut_above_vllm`): the
innermost frame is a framework's call into vLLM's Python API (verl building `SamplingParams`,
TRL's trainer pushing weights through the weight-transfer API), the exception line is vLLM's own
message. vLLM raised it: the report is the one the whole traceback (vLLM's raise-site frame
innermost) gets, not the framework's glue nor a class's fallback. Members are generated: vLLM's templates of those surfaces (every indexed
release), each framework of framework-knobs.yaml, any installation prefix, the process prefix a
launcher puts on the lines; near misses: the framework's own words, and a vLLM message under a
frame of a library that is no framework running vLLM."""

from __future__ import annotations

from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.frameworks import default_frameworks
from logsleuth.index.lookup import Fit
from logsleuth.index.origin import (cut_above_vllm, default_matcher, library_modules,
                                   raising_modules)
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from tool_import import import_tool

SITES = ("/usr/local/lib/python3.11/site-packages/", "/opt/conda/lib/python3.10/dist-packages/",
         "/home/u/.venv/lib/python3.12/site-packages/")
# a file each framework calls vLLM from, under its installed package
CALLERS = {"verl": "verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py",
           "trl": "trl/trainer/grpo_trainer.py", "openrlhf": "openrlhf/trainer/ray/vllm_engine.py",
           "skyrl": "skyrl_train/inference_engines/vllm/vllm_engine.py",
           "ms-swift": "swift/infer_engine/vllm_engine.py",
           "llamafactory": "llamafactory/chat/vllm_engine.py", "pipelinerl": "pipelinerl/vllm1.py",
           "kserve": "huggingfaceserver/vllm/vllm_model.py",
           "lighteval": "lighteval/models/vllm/vllm_model.py"}
# the surfaces a framework calls straight into (no vLLM frame between it and the raise site)
SURFACES = ("vllm.sampling_params", "vllm.pooling_params", "vllm.distributed.weight_transfer.")
BUILTIN = ("ValueError", "TypeError", "RuntimeError", "AssertionError", "NotImplementedError",
           "KeyError")


@cache
def members() -> tuple[tuple[str, str, str], ...]:
    """(class, filled message, raise site's file and function) of each vLLM template these
    surfaces raise and the index tells apart by its words (`{any} has no owner` has too few
    fixed words to be any one module's)."""
    probe = import_tool("fallback_probe", "probe")
    out = []
    for event in probe.framework_events(0, 26):
        if not event.module.startswith(SURFACES) or event.variant != "tail" \
                or event.cls not in BUILTIN:
            continue
        message = probe.fill(event.template, probe.holes().get(event.template))
        site = (event.module.replace(".", "/") + ".py", event.function.rsplit(".", 1)[-1])
        found = default_matcher().find(message)
        if "\n" not in message and found is not None and found.fit is Fit.WHOLE:
            out.append((event.cls, message, "\0".join(site)))
    return tuple(sorted(set(out)))


def _log(prefix: str, site: str, caller: str, cls: str, message: str, raised: str = "") -> str:
    lines = ["Traceback (most recent call last):",
             '  File "/home/u/train.py", line 12, in <module>', "    main()",
             f'  File "{site}{caller}", line 321, in __init__', "    self.run()"]
    if raised:
        file, function = raised.split("\0")
        lines += [f'  File "{site}{file}", line 88, in {function}', "    raise Error(msg)"]
    lines.append(f"{cls}: {message}")
    return "".join(f"{prefix}{line}\n" for line in lines)


def test_the_generated_space_holds_every_surface_and_every_framework() -> None:
    assert {next(s for s in SURFACES if site.replace("/", ".").startswith(s))
            for _, _, site in members()} == set(SURFACES)
    assert len(members()) >= 100
    assert set(CALLERS) == {f.name for f in default_frameworks()}


_PREFIX = st.sampled_from(("", "(WorkerDict pid=3101) ", "(LLMRayActor pid=5120) ",
                           "[rank0]: "))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), framework=st.sampled_from(sorted(CALLERS)), site=st.sampled_from(SITES),
       prefix=_PREFIX)
def test_a_vllm_message_under_a_frameworks_frame_gets_what_the_whole_traceback_gets(
        data: st.DataObject, framework: str, site: str, prefix: str) -> None:
    cls, message, raised = data.draw(st.sampled_from(members()))
    cut = explain_text(_log(prefix, site, CALLERS[framework], cls, message),
                       signatures=default_signatures())
    whole = explain_text(_log(prefix, site, CALLERS[framework], cls, message, raised),
                         signatures=default_signatures())
    assert cut.signature is not None and whole.signature is not None, message
    assert cut.signature.kind.value in ("exact", "family"), (message, cut.signature.id)
    assert cut.signature.id != "library-rl-framework-vllm-glue-error"
    assert cut.signature.id == whole.signature.id, (message, cut.signature.id)
    assert cut.root_cause is not None
    module = raised.split("\0")[0].removesuffix(".py").replace("/", ".")
    assert module in raising_modules(cut.root_cause) and not library_modules(cut.root_cause)


# words of no vocabulary: consonants only, so that no draw spells a failure's own word (hypothesis
# also draws the string constants of the code under test, such as a signal's name `sigfpe`, which
# a native crash's signature rightly claims)
_WORDS = st.lists(st.text("bcdfghjklmnpqrstvwxz", min_size=3, max_size=9), min_size=4,
                  max_size=8).map(" ".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=_WORDS, site=st.sampled_from(SITES), prefix=_PREFIX,
       cls=st.sampled_from(("ValueError", "RuntimeError", "TypeError")))
def test_near_miss_the_frameworks_own_words_stay_the_frameworks(
        words: str, site: str, prefix: str, cls: str) -> None:
    # verl's rollout glue raising its own check: no vLLM template, so the glue family answers
    log = _log(prefix, site, CALLERS["verl"], cls, words)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.root_cause is not None
    assert report.signature.id == "library-rl-framework-vllm-glue-error", report.signature.id
    assert cut_above_vllm(report.root_cause) == ()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), site=st.sampled_from(SITES),
       library=st.sampled_from(("transformers/generation/utils.py", "ray/_private/worker.py",
                                "accelerate/accelerator.py")))
def test_near_miss_a_vllm_message_under_a_library_that_runs_no_vllm(
        data: st.DataObject, site: str, library: str) -> None:
    # the same words raised in a library that is no framework of vLLM's: not vLLM's module
    cls, message, raised = data.draw(st.sampled_from(members()))
    event = explain_text(_log("", site, library, cls, message),
                         signatures=default_signatures()).root_cause
    assert event is not None
    assert cut_above_vllm(event) == ()
    assert raising_modules(event) == ()
    assert library_modules(event) == (library.removesuffix(".py").replace("/", "."),)
