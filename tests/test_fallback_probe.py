"""The fallback probe (tools/fallback_probe): the share of the error space that gets only a class's
fallback or nothing stays under the figure measured when it was last cut, and the mechanisms that
cut it hold for generated members of their classes, not only for the probe's sample."""

from __future__ import annotations

import string
from functools import cache
from types import ModuleType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from tool_import import import_tool

# sample.jsonl (320 events drawn with seed 26 from the space as session 27 widened it: torch's
# parts, triton, the attention, quantization, multimodal, IPC, metrics and grammar libraries,
# and the plugins' indexes) measured: 91 fallback/none (28.4%) with the session's base code, 72
# (22.5%) after the plugin-only-message rule and the session's families. (Session 26's sample of
# 240 from the narrower space: 66 -> 55.) The ceiling is that count: a change that makes more of
# the space fall back fails here.
# Session 29 (families and the plugin-folder rule only added): 64 with its base code, 63 after.
MAX_MISSED = 63


@cache
def tool() -> ModuleType:
    return import_tool("fallback_probe", "probe")


@cache
def results() -> tuple[object, ...]:
    return tuple(tool().measure(tool().read_events(tool().SAMPLE)))


def test_the_samples_fallback_share_stays_under_the_measured_ceiling() -> None:
    missed = [(r.event.source, r.event.variant, r.event.template[:60]) for r in results()
              if r.advice.missed]
    assert len(missed) <= MAX_MISSED, missed
    assert tool().missed_share(results()) == len(missed) / len(results())


def test_the_sample_spans_the_space() -> None:
    events = tool().read_events(tool().SAMPLE)
    assert {e.source for e in events} >= {"vllm", "transformers", "ray", "flashinfer", "openai",
                                          "torch.compile", "torch.distributed", "triton", "numpy",
                                          "vllm-ascend", "tpu-inference"}
    assert {e.variant for e in events} == {"frames", "tail", "bare"}
    assert len({e.shape for e in events}) >= 6


def test_every_rendered_event_is_read_back_as_its_own_error() -> None:
    for result in results()[::12]:
        event = result.event
        report = explain_text(tool().render(event), signatures=default_signatures())
        assert report.root_cause is not None, tool().render(event)
        if event.kind == "raise":
            assert report.root_cause.exception.rsplit(".", 1)[-1] == event.cls


_WORDS = st.lists(st.text(string.ascii_lowercase, min_size=3, max_size=9), min_size=3,
                  max_size=8).map(" ".join)
_CLASS = st.text(string.ascii_uppercase, min_size=1, max_size=1).flatmap(
    lambda first: st.text(string.ascii_lowercase, min_size=3, max_size=8).map(
        lambda rest: f"{first}{rest}Error"))
# qualified class modules of libraries a library family names, and the family
_LIBRARIES = (("huggingface_hub.errors", "library-huggingface-hub-error"),
              ("ray.exceptions", "library-ray-error"),
              ("openai", "library-openai-client-error"),
              ("pydantic_core._pydantic_core", "library-pydantic-validation-error"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(library=st.sampled_from(_LIBRARIES), cls=_CLASS, words=_WORDS,
       prefix=st.sampled_from(("", "(APIServer pid=4000) ", "(EngineCore_DP0 pid=4100) ")))
def test_a_bare_line_of_a_librarys_class_gets_that_librarys_family(
        library: tuple[str, str], cls: str, words: str, prefix: str) -> None:
    module, family = library
    report = explain_text(f"{prefix}{module}.{cls}: {words}\n", signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.kind.value != "fallback", report.signature.id
    if report.signature.kind.value == "family" and report.signature.id.startswith("library-"):
        assert report.signature.id == family


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=_CLASS, words=_WORDS, owner=st.sampled_from(("vllm.v1.engine.exceptions", "__main__")))
def test_vllms_own_and_a_scripts_classes_name_no_library(cls: str, words: str,
                                                          owner: str) -> None:
    report = explain_text(f"{owner}.{cls}: {words}\n", signatures=default_signatures())
    assert report.signature is None or not report.signature.id.startswith("library-")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=st.sampled_from(("ValueError", "TypeError", "RuntimeError", "openai.OpenAIError")),
       words=_WORDS,
       where=st.sampled_from(("_client.py", "_base_client.py", "resources/files.py",
                              "resources/chat/completions/completions.py", "lib/azure.py")))
def test_an_error_inside_the_openai_client_gets_the_client_family(cls: str, words: str,
                                                                   where: str) -> None:
    log = ("Traceback (most recent call last):\n"
           '  File "/home/u/eval/run.py", line 40, in main\n    client.call()\n'
           f'  File "/opt/venv/lib/python3.11/site-packages/openai/{where}", line 9, in call\n'
           "    raise Error(msg)\n"
           f"{cls}: {words}\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.kind.value in ("exact", "family"), report.signature.id
    if report.signature.kind.value == "family":
        assert report.signature.id == "library-openai-client-error"


# word families for a library's checks printed without its frames: a word each names, and a
# vLLM module that raises messages with such words (where vLLM's own families answer instead)
_WORD_FAMILIES = (
    ("tokenizer-library-check-failed", ("pad_token", "pre_tokenizer", "WordPiece", "merges",
                                        "added tokens", "normalizer"),
     "vllm/transformers_utils/tokenizer.py"),
    ("ray-runtime-check-failed", ("runtime_env", "raylet", "placement group", "ObjectRef",
                                  "GCS"), "vllm/v1/executor/ray_utils.py"),
    ("asgi-protocol-violated", ("ASGI message", "http.response.body", "websocket.send",
                                "http.response.start"), "vllm/entrypoints/openai/api_server.py"),
    ("structural-tag-or-tool-format-rejected", ("structural tag", "token markers", "tools list",
                                                "builtin tools"),
     "vllm/v1/structured_output/backend_xgrammar.py"),
    ("torch-custom-op-registration-failed", ("register_fake", "DispatchKey", "torch.Tag",
                                             "fake impl", "opaque object", "register_kernel"),
     "vllm/utils/torch_utils.py"),
    ("torch-compile-internal-check-failed", ("FakeTensorMode", "shape_env", "GraphModule",
                                             "SymInt", "AOTAutograd", "output_graph"),
     "vllm/compilation/backends.py"),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(_WORD_FAMILIES), data=st.data(), before=_WORDS, after=_WORDS,
       cls=st.sampled_from(("ValueError", "RuntimeError", "TypeError")),
       prefix=st.sampled_from(("", "(APIServer pid=4000) ", "(EngineCore_DP0 pid=4100) ")))
def test_a_bare_library_check_gets_a_family_and_vllms_own_weighs_less(
        family: tuple[str, tuple[str, ...], str], data: st.DataObject, before: str, after: str,
        cls: str, prefix: str) -> None:
    name, words, vllm_file = family
    word = data.draw(st.sampled_from(words))
    message = f"{before} {word} {after}"
    bare = explain_text(f"{prefix}{cls}: {message}\n", signatures=default_signatures())
    assert bare.signature is not None
    # this family, or another that knows the words (Ray's placement groups have their own)
    assert bare.signature.kind.value in ("exact", "family"), (message, bare.signature.id)
    raised = ("Traceback (most recent call last):\n"
              f'  File "/usr/local/lib/python3.12/dist-packages/{vllm_file}", line 9, in check\n'
              "    raise Error(msg)\n"
              f"{cls}: {message}\n")
    report = explain_text(raised, signatures=default_signatures())
    # raised by vLLM, the library's words are weaker evidence: the family scores lower
    scores = {m.id: m.score for m in (bare.signature, *bare.alternatives)}
    if report.signature is not None and report.signature.id == name and name in scores:
        assert report.signature.score < scores[name], message


# module families of libraries the probe added in session 27: an error raised inside any module
# of the library (a generated file and function under its package) gets the library's family
_MODULE_FAMILIES = (
    ("torch/_library", "library-torch-custom-op-error"),
    ("torch/_custom_op", "library-torch-custom-op-error"),
    ("torch/utils/cpp_extension", "library-torch-extension-build-error"),
    ("torch/xpu", "library-torch-xpu-error"),
    ("torch/_subclasses", "library-torch-compile-error"),
    ("prometheus_client", "library-prometheus-client-error"),
    ("msgspec", "library-msgspec-error"),
    ("vllm_metal", "library-platform-plugin-error"),
)
_NAME = st.text(string.ascii_lowercase, min_size=3, max_size=9)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(_MODULE_FAMILIES), file=_NAME, function=_NAME, words=_WORDS,
       cls=st.sampled_from(("ValueError", "RuntimeError", "TypeError", "AssertionError")),
       caller=st.sampled_from(("v1/worker/gpu_worker.py", "v1/engine/core.py",
                               "v1/metrics/loggers.py")))
def test_an_error_inside_a_probed_librarys_module_gets_its_family(
        family: tuple[str, str], file: str, function: str, words: str, cls: str,
        caller: str) -> None:
    package, name = family
    path = package + (".py" if package.endswith("cpp_extension") else f"/{file}.py")
    site = "/usr/local/lib/python3.12/dist-packages/"
    log = ("Traceback (most recent call last):\n"
           f'  File "{site}vllm/{caller}", line 40, in run\n    run()\n'
           f'  File "{site}{path}", line 9, in {function}\n    raise Error(msg)\n'
           f"{cls}: {words}\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    assert report.signature.kind.value != "fallback", (log, report.signature.id)
    if report.signature.kind.value == "family" and report.signature.id.startswith("library-"):
        assert report.signature.id == name, log


@cache
def plugin_only_messages() -> tuple[tuple[str, str, str], ...]:
    """(plugin, class, filled message) of plugin raise sites that vLLM's index does not know
    and the plugin's does (once filled), a few per plugin (the probe's own draw)."""
    from logsleuth.index.origin import default_matcher
    from logsleuth.index.plugin import default_plugins
    matchers = {plugin.package: matcher for plugin, matcher in default_plugins()}
    out = []
    for event in tool().plugin_events(12, 27):
        if event.variant != "bare" or event.cls not in ("ValueError", "RuntimeError",
                                                        "NotImplementedError", "TypeError"):
            continue
        message = tool().fill(event.template)
        if "\n" not in message and default_matcher().find(message) is None \
                and matchers[event.source].find(message) is not None:
            out.append((event.source, event.cls, message))
    return tuple(out)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), prefix=st.sampled_from(("", "(Worker_TP0 pid=4201) ",
                                                "(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:30 "
                                                "[core.py:708] ")))
def test_a_bare_line_only_a_plugin_prints_gets_the_plugins_family(data: st.DataObject,
                                                                  prefix: str) -> None:
    plugin, cls, message = data.draw(st.sampled_from(plugin_only_messages()))
    report = explain_text(f"{prefix}{cls}: {message}\n", signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.kind.value != "fallback", (plugin, message, report.signature.id)


# Session 30: vLLM's API surfaces in the tracebacks of the frameworks that call them
# (probe.framework_events: 80 templates drawn with seed 26, each with frames, cut and bare).
# With the session's base code 7 of the 240 got a fallback or nothing and 8 more the framework's
# glue family for vLLM's own message (a traceback cut above vLLM's raise site); after
# origin.py's cut_above_vllm, 2 and 0. A change that makes more of them fall back fails here.
MAX_FRAMEWORK_MISSED = 2


def test_vllms_api_surfaces_in_frameworks_tracebacks_stay_under_the_ceiling() -> None:
    events = tool().framework_events(80, 26)
    assert {e.variant for e in events} == {"frames", "tail", "bare"}
    assert len({e.caller for e in events}) >= 5
    measured = tool().measure(events)
    missed = [(r.event.caller, r.event.variant, r.event.template[:60]) for r in measured
              if r.advice.missed]
    assert len(missed) <= MAX_FRAMEWORK_MISSED, missed
    glue = [r.event.template[:60] for r in measured
            if r.signature == "library-rl-framework-vllm-glue-error"]
    assert not glue, glue
