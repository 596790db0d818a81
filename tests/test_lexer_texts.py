"""The head and body lexers are compiled from texts read off the grammar's terminals and kept
between runs (tokenize/grammar.py `_lexer_texts`): the kept texts are the ones Lark's grammar
gives, a damaged copy is derived again, and a run whose bodies all take the fast path never
loads Lark's tables."""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from logsleuth.tokenize import grammar
from logsleuth.compiledcopy import re_from, re_program
from logsleuth.tokenize.fastpath import BodyLexer, lexer_patterns, lexer_texts
from logsleuth.resources import data_dir


def _fresh() -> dict[str, object]:
    parser = grammar._record_parser()
    head = [grammar._head_text(parser, phase) for phase in range(grammar._HEAD_PHASES)]
    body = lexer_texts(parser)
    terminals = {t.name: t.pattern.to_regexp() for t in parser.terminals}
    texts = {*head, *lexer_patterns(body), *terminals.values()}
    return {"body": body, "head": head, "head_blind": grammar.digit_blind(head[0]),
            "terminals": terminals, "programs": {text: re_program(text) for text in texts}}


def _load(cache: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(cache))
    monkeypatch.delenv("LOGSLEUTH_NO_CACHE", raising=False)
    grammar._lexer_texts.cache_clear()
    try:
        return grammar._lexer_texts()
    finally:
        grammar._lexer_texts.cache_clear()


def test_kept_texts_are_the_grammars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = _fresh()
    assert _load(tmp_path, monkeypatch) == fresh  # derived, and written
    copies = list(tmp_path.glob("lexers-*.pickle"))
    assert len(copies) == 1
    assert _load(tmp_path, monkeypatch) == fresh  # read
    marked = {**fresh, "head": ["(?P<MARK>x)"] * grammar._HEAD_PHASES}
    copies[0].write_bytes(pickle.dumps(marked))
    assert _load(tmp_path, monkeypatch) == marked  # the copy is what is read


@pytest.mark.parametrize("damage", ["", "not json", "[1, 2]", json.dumps({"format": -1})])
def test_damaged_copy_is_derived_again(damage: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _load(tmp_path, monkeypatch)
    for copy in tmp_path.glob("lexers-*.pickle"):
        copy.write_text(damage)
    assert _load(tmp_path, monkeypatch) == _fresh()


def test_kept_programs_are_res() -> None:
    """A pattern made from its kept program is the one `re.compile` makes (patterns compare
    equal by their text, flags and compiled code), for every pattern the lexers compile."""
    texts = grammar._lexer_texts()
    programs = texts["programs"]
    body = texts["body"]
    assert {*texts["head"], *lexer_patterns(body)} <= programs.keys()
    for text in programs:
        made = re_from(text, programs)
        assert made == re.compile(text), text
        assert (made.groups, made.groupindex) == (re.compile(text).groups,
                                                  re.compile(text).groupindex)


@pytest.mark.parametrize("program", [("other text", 0, [1], 0, {}, ()), ("x", "bad"), ()])
def test_foreign_program_is_compiled(program: tuple[object, ...]) -> None:
    """A program for another text, or one this Python cannot take, is compiled instead."""
    assert re_from("x", {"x": program}) == re.compile("x")
    assert re_from("(?P<a>b)c", None) == re.compile("(?P<a>b)c")


def test_lexer_from_texts_reads_as_from_the_parser() -> None:
    """A lexer made from the texts decides every body as one made from Lark's parser."""
    made = BodyLexer.from_texts(json.loads(json.dumps(lexer_texts(grammar._record_parser()))),
                                grammar._TRANSFORMER)
    direct = BodyLexer(grammar._record_parser(), grammar._TRANSFORMER)
    bodies = []
    for example in sorted(data_dir("signatures").rglob("*.log"))[:150]:
        for line in example.read_text(encoding="utf-8", errors="replace").splitlines()[:30]:
            clean = grammar.clean(line)
            bodies.append(clean[grammar._head_end(clean):])
    assert len(bodies) > 1000
    for body in bodies:
        assert made._decide(body) == direct._decide(body), body
        assert made.unsighted(body) == direct.unsighted(body), body
        assert made.blind(body) == direct.blind(body), body


@pytest.mark.long
def test_no_lark_tables_for_fast_bodies(tmp_path: Path) -> None:
    """With the texts kept, lines whose bodies the fast path takes are read without Lark's
    parser; a body it leaves to Lark loads it then."""
    log = tmp_path / "serving.log"
    log.write_text("".join(
        f"(APIServer pid=12) INFO 08-01 21:21:{n % 60:02d} [loggers.py:123] Engine 000: "
        f"Avg prompt throughput: {n}.0 tokens/s, Running: 1 reqs\n" for n in range(50)))
    script = ("import sys; from logsleuth import explain; from logsleuth.tokenize import "
              "grammar; explain(sys.argv[1]); print(grammar._record_parser.cache_info()"
              ".currsize)")
    env = {"LOGSLEUTH_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    root = str(Path(grammar.__file__).parents[2])
    run = [sys.executable, "-c", script, str(log)]
    first = subprocess.run(run, env={**env, "PYTHONPATH": root}, capture_output=True,
                           text=True, check=True)
    assert first.stdout.strip() == "1"  # the texts derived from Lark's grammar, and kept
    again = subprocess.run(run, env={**env, "PYTHONPATH": root}, capture_output=True,
                           text=True, check=True)
    assert again.stdout.strip() == "0"  # read from the copy: no Lark tables loaded
