"""Both spellings of an engine argument (logsleuth/index/spellings.py).

A user types `--max-model-len` on a `vllm serve` line or `max_model_len=` in `LLM(...)`; a fix
that names one gains the other, for every engine argument of vLLM's own table (the index), and
for nothing else (pip's, Docker's or another tool's flags)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.spellings import (
    default_server_flags, default_spellings, missing_spellings, with_spellings)
from logsleuth.model import Match, SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

TABLE = default_spellings()
FLAGS = sorted(TABLE.flags)


def _match(fix: str) -> Match:
    return Match("some-family", "t", 0.9, fix, (), (), "root_cause", None, SignatureKind.FAMILY)


def test_the_table_holds_the_common_arguments() -> None:
    assert TABLE.flags["max-model-len"] == ("max_model_len", False)
    assert TABLE.flags["enforce-eager"] == ("enforce_eager", True)
    assert TABLE.fields["gpu_memory_utilization"] == "gpu-memory-utilization"
    assert len(TABLE.flags) > 200


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(FLAGS), st.sampled_from(["Set `--{}`.", "pass --{} 2", "(--{})"]))
def test_a_flag_gains_its_keyword(flag: str, shape: str) -> None:
    field, switch = TABLE.flags[flag]
    fix = shape.format(flag)
    assert missing_spellings(fix) == (f"{field}=True" if switch else field,)
    assert missing_spellings(f"{fix} In Python: `{field}`.") == ()
    if switch:
        assert missing_spellings(f"Use --no-{flag}.") == (f"{field}=False",)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(FLAGS), st.sampled_from(["LLM(m, {}=1)", "pass `{}=0.8`", "{}=True"]))
def test_a_keyword_given_a_value_gains_its_flag(flag: str, shape: str) -> None:
    field, _ = TABLE.flags[flag]
    fix = shape.format(field)
    assert missing_spellings(fix) == (f"--{flag}",)
    assert missing_spellings(f"{fix} or --{flag}") == ()
    assert missing_spellings(f"the model's `{field}` in config.json") == ()  # no value: no flag


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(FLAGS), min_size=1, max_size=5))
def test_once_added_nothing_more_is_added(flags: list[str]) -> None:
    fix = "1. Try " + ", ".join(f"`--{f}`" for f in flags) + "."
    once = with_spellings(_match(fix))
    assert once is not None and once.fix.startswith(fix)
    assert missing_spellings(once.fix) == ()
    assert with_spellings(once) == once


def test_other_tools_flags_and_plain_words_are_left_alone() -> None:
    fix = ("pip install --force-reinstall --no-build-isolation vllm; docker run --shm-size 16g; "
           "huggingface-cli download m --local-dir d; the max_model_len of config.json.")
    assert missing_spellings(fix) == ()
    assert with_spellings(_match(fix)) == _match(fix)
    assert with_spellings(None) is None


SERVER_FLAGS = sorted(default_server_flags())


def test_the_server_flags_are_the_api_servers_own() -> None:
    # mined from the releases' cli_args.py: the common ones are there, no engine argument is
    assert {"--tool-call-parser", "--lora-modules", "--chat-template", "--port"} <= set(SERVER_FLAGS)
    assert not {"--max-model-len", "--enforce-eager", "--reasoning-parser"} & set(SERVER_FLAGS)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SERVER_FLAGS), st.sampled_from(FLAGS),
       st.sampled_from(["Set `--{}` and `--{}`.", "pass --{} x --{} 2"]))
def test_a_flag_only_the_server_reads_gains_no_keyword(server: str, engine: str,
                                                       shape: str) -> None:
    # `LLM(...)` has no `tool_call_parser=`: the keyword line names only the engine's arguments
    field, switch = TABLE.flags[engine]
    spelled = missing_spellings(shape.format(server.removeprefix("--"), engine))
    assert spelled == (f"{field}=True" if switch else field,)
    assert server.removeprefix("--") not in TABLE.flags


def test_every_shipped_fix_reads_in_both_spellings() -> None:
    for signature in default_signatures():
        spelled = with_spellings(_match(signature.fix))
        assert spelled is not None and missing_spellings(spelled.fix) == (), signature.id


def test_a_report_names_both() -> None:
    log = ("(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:30 [core.py:321] ValueError: Bfloat16 is "
           "only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
           "has compute capability 7.5.\n")
    fix = explain_text(log).signature
    assert fix is not None and missing_spellings(fix.fix) == ()
