"""The signature database: every shipped signature's examples (the meta-test: a new signature
needs no new test code), lint on the shipped set and on broken files, matching, user layers,
the contributor commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from click.testing import CliRunner

import logsleuth
from logsleuth.cli import main
from logsleuth.errors import SignatureError
from logsleuth.signatures import default_signatures, load_signatures, shipped_directory
from logsleuth.signatures.examples import run_examples
from logsleuth.signatures.lint import Problem, lint
from logsleuth.signatures.load import load_signature_file, signature_files
from logsleuth.signatures.template import Template, mask

SHIPPED = shipped_directory()
SIGNATURE_FILES = signature_files(SHIPPED)
CORPUS = Path(__file__).parent / "fixtures" / "corpus"
HEALTHY = [case.parent for case in CORPUS.rglob("case.yaml")
           if "healthy: true" in case.read_text(encoding="utf-8")]


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize("path", SIGNATURE_FILES, ids=_id)
def test_signature_examples(path: Path) -> None:
    """Positives are matched best by their signature, near misses are not."""
    signature = load_signature_file(path)
    examples = signature.examples()
    assert any(positive for _, positive in examples), f"{path}: no positive example"
    assert any(not positive for _, positive in examples), f"{path}: no negative example"
    # the shipped set, loaded once per process (run_examples would load it again for each file)
    for result in run_examples([path], database=default_signatures()):
        assert result.passed, result.format()


def test_at_least_forty_signatures_over_every_corpus_category_group() -> None:
    assert len(SIGNATURE_FILES) >= 40
    database = load_signatures()
    assert {s.id for s in database} >= {s.stem for s in SIGNATURE_FILES}


def test_shipped_set_lints_clean() -> None:
    problems = lint([], examples=False)
    errors = [p.format() for p in problems if p.is_error]
    assert errors == []


@pytest.mark.parametrize("case", HEALTHY, ids=lambda p: p.name)
def test_healthy_logs_match_no_signature(case: Path) -> None:
    report = logsleuth.explain(case / "log.txt")
    assert report.signature is None
    assert report.verdict is logsleuth.Verdict.NO_FAILURE


def test_founding_fix_names_the_checkpoint_override() -> None:
    report = logsleuth.explain(CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt")
    assert report.signature is not None
    assert "kv_cache_quant_algo" in report.signature.fix
    assert "hf_quant_config.json" in report.signature.fix
    assert any(e.part == "message" for e in report.signature.evidence)


# ---- templates and masking ---------------------------------------------------------------
@pytest.mark.parametrize("template,message,exact", [
    ("Free memory on device ({float}/{float} GiB) on startup is less than desired GPU memory "
     "utilization ({float}, {size})",
     "Free memory on device (3.22/4.0 GiB) on startup is less than desired GPU memory "
     "utilization (0.9, 3.6 GiB). Decrease GPU memory utilization or reduce GPU memory used",
     True),
    ("Total number of attention heads ({int}) must be divisible by tensor parallel size ({int})",
     "Total number of attention heads (64) must be divisible by tensor parallel size (6).", True),
    ("Cannot find any model weights with {path}",
     "Cannot find any model weights with `/models/llama`", True),
    ("KeyError {quoted}", "KeyError 'layers.35.mlp.gate.g_idx'", True),
])
def test_templates_match_other_runs_exactly(template: str, message: str, exact: bool) -> None:
    parsed = Template.parse(template)
    assert (parsed.score(message, mask(message)) == 1.0) is exact


def test_fuzzy_template_tolerates_drifted_wording_but_not_another_error() -> None:
    parsed = Template.parse("The model's max seq len ({int}) is larger than the maximum number "
                            "of tokens that can be stored in KV cache ({int}).")
    drifted = ("The model's max seq len (8192) is larger than the maximum number of tokens "
               "that could be stored in KV cache (6048)")
    assert 0.85 <= parsed.score(drifted, mask(drifted)) < 1.0
    other = "CUDA out of memory. Tried to allocate 2.00 GiB"
    assert parsed.score(other, mask(other)) == 0.0


def test_unknown_placeholder_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown placeholder"):
        Template.parse("Tried to allocate {bytes}")


def test_mask_replaces_variable_parts() -> None:
    assert mask("Tried to allocate 80.00 MiB on /dev/shm/nccl-1 at 0x7fcf597eb640, rank 3") == \
        "Tried to allocate <size> on <path> at <hex>, rank <num>"


# ---- broken files fail lint with path:line, and a run skips them with a notice -------------
GOOD = """\
id: {id}
title: A deliberately small test signature
category: misc
description: A signature written by the test suite to exercise loading and lint.
severity: error
status: experimental
match:
  exception: [ValueError]
  regex: ['{regex}']
fix: |
  Do the thing that fixes it; this text only needs to be long enough for the schema.
references:
  - https://github.com/vllm-project/vllm/issues/1
"""


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / "misc" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name,text,line,words", [
    ("dup-key", GOOD.format(id="dup-key", regex="xyz+") + "severity: warning\n", 14,
     "duplicate key 'severity'"),
    ("bad-regex", GOOD.format(id="bad-regex", regex="(unclosed"), 9, "invalid regex"),
    ("slow-regex", GOOD.format(id="slow-regex", regex="(a+)+$"), 9, "catastrophic"),
    ("unknown-key", GOOD.format(id="unknown-key", regex="xyz") + "colour: red\n", 14,
     "unknown key"),
    ("wrong-id", GOOD.format(id="another-id", regex="xyz"), 1, "does not match the file name"),
    ("bad-yaml", "id: [unclosed\n", 2, "invalid YAML"),
])
def test_lint_reports_broken_files_with_path_and_line(tmp_path: Path, name: str, text: str,
                                                      line: int, words: str) -> None:
    path = _write(tmp_path, name, text)
    problems = [p for p in lint([tmp_path], examples=False) if p.is_error]
    assert any(words in p.message and p.location == f"{path}:{line}" for p in problems), \
        [p.format() for p in problems]


@pytest.mark.parametrize("folder,beside", [
    ("memory", None),       # a shipped category's folder
    ("new-category", "cuda"),  # a new category folder beside a shipped one (a copied tree)
])
def test_a_signature_in_another_categorys_folder_fails_lint(tmp_path: Path, folder: str,
                                                            beside: str | None) -> None:
    # categories are folders: a file in memory/ that says `category: attention` is misfiled
    text = GOOD.format(id="misfiled", regex="xyz").replace("category: misc",
                                                            "category: attention")
    path = tmp_path / folder / "misfiled.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    if beside:
        (tmp_path / beside).mkdir()
        (tmp_path / beside / "other.yaml").write_text(
            GOOD.format(id="other", regex="abc").replace("category: misc", f"category: {beside}"),
            encoding="utf-8")
    for given in ([path], [tmp_path]):  # the file named alone, or its tree
        problems = [p for p in lint(given, examples=False) if p.is_error]
        assert any(f"does not match the directory '{folder}'" in p.message
                   and p.location == f"{path}:3" and "attention/" in (p.hint or "")
                   for p in problems), [p.format() for p in problems]


def test_a_flat_folders_signature_keeps_its_own_category(tmp_path: Path) -> None:
    # `my-sigs/<id>.yaml` (README: a directory may be flat), even in a checkout beside build/
    (tmp_path / "build").mkdir()
    path = tmp_path / "my-sigs" / "flat-one.yaml"
    path.parent.mkdir()
    path.write_text(GOOD.format(id="flat-one", regex="xyz"), encoding="utf-8")
    for given in ([path], [path.parent]):
        assert not [p for p in lint(given, examples=False) if "category" in p.message]


@pytest.mark.parametrize("expression", [">=0.10.0,<0.11.1", "<0.6.4", ">0.8 # newer only",
                                        "!=0.9.0"])
def test_an_unquoted_comparison_gets_a_hint_to_quote_it(tmp_path: Path, expression: str) -> None:
    # YAML reads a leading `>` as a folded block scalar: its own error does not say to quote
    text = GOOD.format(id="unquoted", regex="xyz").replace(
        "  regex: ['xyz']\n", f"  regex: ['xyz']\n  facts:\n    vllm_version: {expression}\n")
    path = _write(tmp_path, "unquoted", text)
    problems = [p for p in lint([tmp_path], examples=False) if p.is_error]
    bare = expression.split("#")[0].strip()
    assert any("invalid YAML" in p.message and f"'{bare}'" in (p.hint or "")
               and p.location.startswith(f"{path}:") for p in problems) \
        or not any("invalid YAML" in p.message for p in problems), [p.format() for p in problems]


def test_lint_reports_every_problem_at_once(tmp_path: Path) -> None:
    _write(tmp_path, "dup-key", GOOD.format(id="dup-key", regex="xyz") + "severity: warning\n")
    _write(tmp_path, "bad-regex", GOOD.format(id="bad-regex", regex="(unclosed"))
    problems = [p for p in lint([tmp_path], examples=False) if p.is_error]
    assert {Path(p.location.rsplit(":", 1)[0]).stem for p in problems} >= {"dup-key", "bad-regex"}


def test_a_broken_user_signature_is_skipped_with_a_notice(tmp_path: Path) -> None:
    _write(tmp_path, "bad-regex", GOOD.format(id="bad-regex", regex="(unclosed"))
    database = load_signatures(tmp_path)
    assert "bad-regex" not in {s.id for s in database}
    assert any("bad-regex.yaml:9" in notice for notice in database.notices)
    with pytest.raises(SignatureError):
        load_signatures(tmp_path, strict=True)


def test_user_signatures_layer_over_the_shipped_ones(tmp_path: Path) -> None:
    shipped = load_signature_file(next(p for p in SIGNATURE_FILES
                                       if p.stem == "cuda-fork-reinit"))
    override = GOOD.format(id="cuda-fork-reinit", regex="Cannot re-initialize CUDA") \
        .replace("category: misc", "category: cuda")
    path = tmp_path / "cuda" / "cuda-fork-reinit.yaml"
    path.parent.mkdir()
    path.write_text(override, encoding="utf-8")
    log = CORPUS / "startup" / "fork-cuda-reinit-multiproc" / "log.txt"
    report = logsleuth.explain(log, signatures=load_signatures(tmp_path))
    assert report.signature is not None and report.signature.id == shipped.id
    assert report.signature.title == "A deliberately small test signature"


# ---- contributor commands ----------------------------------------------------------------
def test_signatures_list_json() -> None:
    result = CliRunner().invoke(main, ["signatures", "list", "--format", "json"])
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert len(rows) >= 40
    assert {"id", "title", "category", "status", "file"} <= set(rows[0])


def test_signatures_lint_command_fails_on_a_broken_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "dup-key", GOOD.format(id="dup-key", regex="xyz") + "status: stable\n")
    result = CliRunner().invoke(main, ["signatures", "lint", str(tmp_path)])
    assert result.exit_code == 1
    assert f"{path}:14: error: duplicate key 'status'" in result.output


def test_lint_points_at_the_line_of_each_unedited_or_unsourced_key(tmp_path: Path) -> None:
    # the skeleton's TODOs and the examples' sources are errors at their own lines, not line 1
    log = CORPUS / "startup" / "tp-size-not-dividing-heads-32-by-3" / "log.txt"
    made = CliRunner().invoke(main, ["signatures", "new", "--from", str(log), "--dir",
                                     str(tmp_path), "--category", "config", "--id", "heads"])
    assert made.exit_code == 0, made.output
    path = tmp_path / "config" / "heads.yaml"
    (tmp_path / "config" / "heads.negative.log").write_text("ValueError: other\n")
    text = path.read_text(encoding="utf-8")
    line_of = {key: number for number, row in enumerate(text.splitlines(), 1)
               for key in ("description", "fix", "references", "examples")
               if row.startswith(f"{key}:")}
    problems = [p for p in lint([path], examples=False) if p.is_error]

    def at(problem: Problem, key: str) -> bool:  # the key's line, or its block's first
        line = int(problem.location.rpartition(":")[2])
        return line_of[key] <= line <= line_of[key] + 1

    for key in ("description", "fix", "references", "examples"):
        assert any(p.message.startswith(f"{key} still holds") and at(p, key) for p in problems), \
            (key, [p.format() for p in problems])
    unsourced = [p for p in problems if "heads.negative.log has no source" in p.message]
    assert unsourced and at(unsourced[0], "examples"), [p.format() for p in problems]


def test_lint_of_an_example_log_says_it_is_not_a_signature_file(tmp_path: Path) -> None:
    # not "invalid YAML: mapping values are not allowed" about a log's third line
    log = tmp_path / "misc" / "some-id.log"
    log.parent.mkdir()
    log.write_text("INFO 03-01 10:00:01 [core.py:1] a: b\nValueError: x: y\n", encoding="utf-8")
    problems = lint([log], examples=False)
    assert [(p.location, p.message) for p in problems] == \
        [(f"{log}:1", "not a signature file (<id>.yaml)")]


def test_lint_warnings_about_a_message_or_a_related_id_point_at_its_line(tmp_path: Path) -> None:
    text = GOOD.format(id="paraphrase", regex="xyz").replace(
        "  regex: ['xyz']\n", "  message: ['Zorblax quux fizzled beyond all repair']\n") \
        + "related: [no-such-signature-anywhere]\n"
    path = _write(tmp_path, "paraphrase", text)
    warnings = [p for p in lint([path], examples=False) if not p.is_error]
    assert any(p.message.startswith("match.message.0:") and p.location == f"{path}:9"
               for p in warnings), [p.format() for p in warnings]
    assert any("related id" in p.message and p.location == f"{path}:14"
               for p in warnings), [p.format() for p in warnings]


def test_signatures_new_writes_a_skeleton_that_matches_its_log(tmp_path: Path) -> None:
    log = CORPUS / "startup" / "tp-size-not-dividing-heads-32-by-3" / "log.txt"
    result = CliRunner().invoke(main, ["signatures", "new", "--from", str(log), "--dir",
                                       str(tmp_path), "--category", "config", "--id", "heads"])
    assert result.exit_code == 0, result.output
    written = load_signature_file(tmp_path / "config" / "heads.yaml")
    # typed placeholders, from the masking or from vLLM's own template typed by the log's values
    assert written.templates and re.search(r"\{(num|int)\}", written.templates[0].text)
    examples = run_examples([tmp_path / "config" / "heads.yaml"],
                            load_signatures(tmp_path, shipped=False))
    assert [r.passed for r in examples] == [True]


def test_load_cache_sees_a_changed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path / "cache"))
    sigs = tmp_path / "sigs"
    path = _write(sigs, "cached", GOOD.format(id="cached", regex="xyz"))
    first = load_signatures(sigs, shipped=False)
    assert list((tmp_path / "cache").glob("signatures-*.pickle"))
    path.write_text(GOOD.format(id="cached", regex="xyz").replace(
        "A deliberately small test signature", "A changed title for the same signature"))
    second = load_signatures(sigs, shipped=False)
    assert first.get("cached").title != second.get("cached").title  # type: ignore[union-attr]


def test_load_cache_key_follows_every_signature_and_example_file(tmp_path: Path) -> None:
    """The key names every .yaml and .log file under the directory, nested ones too: a change
    to any of them gives a new key; other files do not."""
    import os

    from logsleuth.signatures.loadcache import _key

    sigs = tmp_path / "sigs"
    nested = _write(sigs / "config", "nested", GOOD.format(id="nested", regex="xyz"))
    keys = [_key(sigs)]
    (sigs / "config" / "NOTES.md").write_text("not a signature")
    assert _key(sigs) == keys[-1]
    (sigs / "config" / "deep").mkdir()
    (sigs / "config" / "deep" / "nested.log").write_text("an example")
    keys.append(_key(sigs))
    stat = nested.stat()
    os.utime(nested, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    keys.append(_key(sigs))
    assert len(set(keys)) == 3


def test_fuzzy_match_may_not_lose_a_key_word() -> None:
    parsed = Template.parse("NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for "
                            "details)")
    other = "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
    assert parsed.score(other, mask(other)) == 0.0


@given(st.sampled_from(["Unsupported OS", "Not Supported", "Unknown Error", "Already borrowed",
                        "Segmentation fault"]),
       st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40))
def test_a_phrase_of_two_words_is_there_or_not_never_similar(phrase: str, rest: str) -> None:
    """`Unsupported OS` read `Unsupported spec type: DiskSpec` as 0.9 similar: a two-word
    template answered for another failure."""
    parsed = Template.parse(phrase)
    for message in (f"{phrase.split()[0]} {rest}", f"ValueError: {phrase.split()[0]} {rest}"):
        score = parsed.score(message, mask(message))
        assert score in (0.0, 1.0), (message, score)
        assert score == 1.0 or phrase not in message


def test_a_terminal_wrapped_message_is_also_read_unwrapped() -> None:
    from logsleuth.model import ErrorEvent, EventKind, Process
    from logsleuth.signatures.match import _readings

    event = ErrorEvent(1, EventKind.EXCEPTION, "ValueError", "Please pass the argument "
                       "`trust_remote_code=True` to allow custom code to be run. conf        "
                       "iguration file", Process("main"), 3, 1, 3)
    assert any("configuration file" in text for text in _readings(event))


def test_a_bare_assert_is_read_with_its_source_line() -> None:
    from logsleuth.model import ErrorEvent, EventKind, Frame, Process
    from logsleuth.signatures.match import _readings

    frame = Frame("/x/vllm/worker/multi_step_model_runner.py", 499, "_advance_step",
                  "assert isinstance(attn_metadata, FlashAttentionMetadata)")
    event = ErrorEvent(1, EventKind.EXCEPTION, "AssertionError", "", Process("main"), 7, 1, 7,
                       (frame,))
    assert "AssertionError: assert isinstance(attn_metadata, FlashAttentionMetadata)" in \
        _readings(event)
