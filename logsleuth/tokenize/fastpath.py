"""The common body shapes without the LALR parse, from the grammar's own terminals.

Most anchored lines are a record's plain message, a traceback frame, its source line or a caret
line: bodies that are one terminal of `grammars/vllm.lark` from start to end. Lark lexes the start
of a body by trying the terminals its parser accepts there, in its lexer's order (priority, then
width), and the first that matches wins. This module builds that same ordered alternation from the
grammar (the terminals `body` accepts first, as Lark's own interactive parser reports them) and
asks it one question: which terminal starts this body, and does it take the whole text? When that
terminal is a whole body on its own (`body: FRAME -> frame`, `| PLAIN -> plain`, ...), the body is
built by the transformer method of its rule, as Lark would call it; anything else (an exception
line, a uvicorn line, NCCL, a fatal label: several tokens) goes to Lark. Nothing about line shapes
is written here: change the grammar and this follows. tests/test_fastpath.py checks that both
give the same LogLine on every corpus line and every generated shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from lark import Lark, Token

# Rules of `body` that are one terminal (`TERMINAL -> rule`, or a rule whose only item is the
# terminal): the name of the transformer method that builds the body from that one token.
SINGLE_TOKEN_BODIES = {
    "TRACEBACK_HEADER": "traceback_header", "GROUP_HEADER": "group_header",
    "GROUP_BOX": "group_box", "FRAME": "frame", "CARET": "caret", "ELIDED": "elided",
    "REPEAT": "repeat", "CHAIN_CAUSE": "chain_cause", "CHAIN_CONTEXT": "chain_context",
    "FAULT_THREAD": "fault_thread", "EXTENSION_MODULES": "extension_modules",
    "NO_EXCEPTION": "no_exception",
    "PY_WARNING": "py_warning", "PROGRESS": "progress", "BLANK": "blank",
    "INDENTED": "indented", "PLAIN": "plain",
}


class BodyLexer:
    """The first token of a body, as Lark's contextual lexer would take it."""

    def __init__(self, parser: Lark, transformer: object):
        start = parser.parse_interactive("", start="body")
        accepted = start.accepts() - {"$END"}  # type: ignore[no-untyped-call]
        terminals = [parser.get_terminal(name) for name in accepted]
        # the order of lark.lexer.BasicLexer: priority, then the widest pattern first
        terminals.sort(key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value),
                                      t.name))
        self._regex = re.compile("|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})"
                                          for t in terminals))
        self._build: dict[str, Callable[[list[Token]], object]] = {
            name: getattr(transformer, method) for name, method in SINGLE_TOKEN_BODIES.items()
            if name in accepted}
        self._separator = re.compile(parser.get_terminal("_EXC_SEP").pattern.to_regexp())
        self._message = re.compile(parser.get_terminal("EXC_MESSAGE").pattern.to_regexp())
        self._exc_line: Callable[[list[Token]], object] = getattr(transformer, "exc_line")

    def body(self, text: str) -> object | None:
        """The transformed body when it is a single whole terminal or an exception line, else
        None (ask Lark)."""
        found = self._regex.match(text)
        if found is None:
            return None
        name = found.lastgroup or ""
        if found.end() != len(text):
            return self._exception(found.group(), text[found.end():]) \
                if name == "EXC_TYPE" else None
        build = self._build.get(name)
        return None if build is None else build([Token(name, text)])

    def _exception(self, name: str, rest: str) -> object | None:
        # `exc_line: EXC_TYPE (_EXC_SEP EXC_MESSAGE?)?`: after the type the parser accepts only
        # the separator, then only the message (which takes the rest of the line)
        separator = self._separator.match(rest)
        if separator is None:
            return None
        message = rest[separator.end():]
        if message and not self._message.fullmatch(message):
            return None
        tokens = [Token("EXC_TYPE", name)] + ([Token("EXC_MESSAGE", message)] if message else [])
        return self._exc_line(tokens)


@cache
def body_lexer(parser: Lark, transformer: object) -> BodyLexer:
    """One BodyLexer per parser (built once: a few milliseconds)."""
    return BodyLexer(parser, transformer)
