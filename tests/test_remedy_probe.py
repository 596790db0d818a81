"""The remedy probe (tools/remedy_probe/probe.py) keeps working: it reads the remedy a vLLM message
names (flags, environment variables, packages, engine settings), finds in a fix text a knob
spelt as a flag, a field or a variable, and every site of its committed sample (start-up raise
sites of vLLM releases whose messages name a remedy) gets advice that names that remedy."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from tool_import import import_tool

SAMPLE = Path(__file__).parent.parent / "tools" / "remedy_probe" / "sample.jsonl"


@cache
def tool() -> ModuleType:
    return import_tool("remedy_probe", "probe")


@cache
def sample() -> tuple[object, ...]:
    return tuple(tool().read_sites(SAMPLE))


KNOBS = [
    ("Please set `--kv-cache-dtype` to auto.", ("kv_cache_dtype",)),
    ("please set the environment variable `VLLM_LOGGING_LEVEL=DEBUG`", ("vllm_logging_level",)),
    ("torchaudio is required for audio. Install with: pip install torchaudio", ("torchaudio",)),
    ("launch independent vLLM instances without --data-parallel-* arguments.",
     ("data_parallel_*",)),
    ("max_num_batched_tokens ({any}) is smaller than max_model_len ({any}).",
     ("max_num_batched_tokens", "max_model_len")),
    ("flashinfer is not installed", ("flashinfer",)),
    ("requires transformers>=4.56.0", ("transformers",)),
    ("Please use torchao version >= 0.15.0 to load it", ("torchao",)),
    ("only when mode is CompilationMode.VLLM_COMPILE", ()),  # an enum member, no variable
    # a comparison with a plain number is no package, a word that is no setting no knob
    ("safetensors prefetch block size must be >= 1", ()),
    ("Aspect ratio > 200 not allowed", ()),
    # a package the message quotes, not the transport's own name alone
    ("MoRIIO is not available. Please ensure the 'mori' package is installed",
     ("moriio", "mori")),
    # a stdlib function is no package, a verb after "update" none either
    ("os.sched_setaffinity is not available on this platform", ()),
    ("Draft model weight update requested, but no draft model is configured.", ()),
    ("ROCM_AITER_FA_BACKEND Only support NHD kv cache layout for now", ()),
]


@pytest.mark.parametrize(("message", "knobs"), KNOBS)
def test_the_remedy_a_message_names(message: str, knobs: tuple[str, ...]) -> None:
    assert tool().knobs(message) == knobs


_SPELLINGS = st.sampled_from(["`--{f}`", "--{f} 4", "`{u}`", "{u}=4", "'{u}'"])
_FIELDS = st.sampled_from(["max-model-len", "kv-cache-dtype", "data-parallel-size",
                           "config-format", "no-async-scheduling"])


@settings(max_examples=60, deadline=None)
@given(field=_FIELDS, spelling=_SPELLINGS, other=_FIELDS, before=st.sampled_from(["", "Set ",
                                                                                   "1. Pass "]))
def test_a_fix_holds_a_knob_in_any_spelling_and_not_a_longer_one(
        field: str, spelling: str, other: str, before: str) -> None:
    fix = before + spelling.format(f=field, u=field.replace("-", "_"))
    assert tool().holds(fix, (tool().normal(field),))
    longer = spelling.format(f=other + "-local", u=(other + "-local").replace("-", "_"))
    assert not tool().holds(longer, (tool().normal(other),))
    assert tool().holds(longer, (tool().normal(other) + "_*",))  # a `--data-parallel-*` family


def _survives(site: object, shape: str) -> bool:
    """A request's error in a log that shows the server serving after it (render_runtime)."""
    return getattr(site, "where") == "request" and shape == "engine"


@pytest.mark.parametrize("position", range(len(SAMPLE.read_text().splitlines())))
def test_each_sampled_site_is_read_back_and_its_advice_names_its_remedy(position: int) -> None:
    site = sample()[position]
    era = tool().era_of(site.release)
    shape = tool().SHAPES[position % len(tool().SHAPES)]  # engine, API server, offline in turn
    if _survives(site, shape):
        shape = "api"  # the same request, the log ending on its refusal: a failure to advise on
    log = tool().render(site, era, shape)
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None, log
    assert report.root_cause.exception.rsplit(".", 1)[-1] == site.cls
    assert tool().message_of(site).split("\n")[0][:60] in report.root_cause.message
    outcome = tool().measure_one(site, era, default_signatures(), shape)
    assert outcome.outcome in ("remedy", "named"), (outcome, log)


REQUESTS = [i for i, line in enumerate(SAMPLE.read_text().splitlines())
            if '"where": "request"' in line]


@pytest.mark.parametrize("shape", ["engine", "api"])
@pytest.mark.parametrize("position", REQUESTS)
def test_a_refused_request_is_the_clients_not_the_servers(position: int, shape: str) -> None:
    """A request's error that the server answered with a 4xx: with the server serving after it
    nothing failed, and the report says the requests were the clients'; with the log ending on
    the refusal the report advises on it and says the request failed, not the server."""
    site = sample()[position]
    outcome = tool().measure_one(site, "v1", default_signatures(), shape)
    assert outcome.client, (outcome, tool().render(site, "v1", shape))
    assert outcome.outcome == ("survived" if shape == "engine" else outcome.outcome)
    assert outcome.outcome in ("survived", "remedy", "named")


def test_runtime_shapes_name_the_process_that_raised() -> None:
    """An engine-core site logs under the engine core, a worker's under a worker of a
    tensor-parallel deployment (and the engine core's "Worker failed" report)."""
    for site in sample():
        if site.where not in ("engine", "worker"):
            continue
        log = tool().render(site, "v1", "api")
        report = explain_text(log, signatures=default_signatures())
        assert report.root_cause is not None
        expected = "Worker_TP0" if site.where == "worker" else "EngineCore_DP0"
        assert report.root_cause.process.name == expected, log


def test_the_counts_add_up() -> None:
    outcomes = [tool().measure_one(s, tool().era_of(s.release), default_signatures())
                for s in sample()]
    counts = tool().counts(outcomes)
    assert tuple(counts) == tool().OUTCOMES
    assert sum(counts.values()) == len(sample())
