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
from lark.lexer import TerminalDef

from logsleuth.literal import required_literals

# Rules of `body` that are two terminals, the second taking the rest of the line: uvicorn's
# `INFO:     127.0.0.1:5 - "POST /v1/completions HTTP/1.1" 200 OK` (an access line after each
# rejected request is read to tell that the server kept serving: Lark cost 100 us for each).
TWO_TOKEN_BODIES = {("UVICORN_LEVEL", "ACCESS_TEXT"): "access",
                    ("UVICORN_LEVEL", "UVICORN_TEXT"): "uvicorn"}

LONG_BODY_CHARS = 2048  # bodies this long are lexed with only the terminals they can hold

# Rules of `body` that are one terminal (`TERMINAL -> rule`, or a rule whose only item is the
# terminal): the name of the transformer method that builds the body from that one token.
SINGLE_TOKEN_BODIES = {
    "TRACEBACK_HEADER": "traceback_header", "GROUP_HEADER": "group_header",
    "WRAPPED_TRACEBACK": "wrapped_traceback",
    "GROUP_BOX": "group_box", "FRAME": "frame", "CARET": "caret", "ELIDED": "elided",
    "REPEAT": "repeat", "CHAIN_CAUSE": "chain_cause", "CHAIN_CONTEXT": "chain_context",
    "FAULT_THREAD": "fault_thread", "EXTENSION_MODULES": "extension_modules",
    "NO_EXCEPTION": "no_exception", "IGNORED_HEADER": "ignored",
    "TERMINATE_FRAME": "terminate_frame",
    "PY_WARNING": "py_warning", "PROGRESS": "progress", "BLANK": "blank",
    "INDENTED": "indented", "PLAIN": "plain",
}


class BodyLexer:
    """The first token of a body, as Lark's contextual lexer would take it."""

    def __init__(self, parser: Lark, transformer: object):
        start = parser.parse_interactive("", start="body")
        accepted = start.accepts() - {"$END"}  # type: ignore[no-untyped-call]
        terminals = [parser.get_terminal(name) for name in accepted]
        terminals.sort(key=_lexer_order)
        self._alternatives = [f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals]
        self._regex = re.compile("|".join(self._alternatives))
        # what every match of a terminal that starts by skipping any text (`.*?\d+%` of a
        # progress bar) contains, to leave it out of a long body's alternation when the body
        # lacks it: such a terminal reads the whole body before it fails. (The others fail at
        # the body's first characters; testing their texts would cost more than it spares.)
        self._needles = [required_literals(t.pattern.to_regexp(), 1)
                         if t.pattern.to_regexp().startswith(".*") else ()
                         for t in terminals]
        self._narrowed: dict[tuple[bool, ...], re.Pattern[str]] = {}
        self._build: dict[str, Callable[[list[Token]], object]] = {
            name: getattr(transformer, method) for name, method in SINGLE_TOKEN_BODIES.items()
            if name in accepted}
        # the terminals the parser accepts after the first of a two-terminal body, in lexer order
        self._second: dict[str, re.Pattern[str]] = {}
        for first in {first for first, _ in TWO_TOKEN_BODIES} & accepted:
            state = parser.parse_interactive("", start="body")
            state.feed_token(Token(first, ""))
            after = state.accepts() - {"$END"}  # type: ignore[no-untyped-call]
            follow = [parser.get_terminal(name) for name in after]
            follow.sort(key=_lexer_order)
            self._second[first] = re.compile("|".join(
                f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in follow))
        self._pair: dict[tuple[str, str], Callable[[list[Token]], object]] = {
            pair: getattr(transformer, method) for pair, method in TWO_TOKEN_BODIES.items()}
        self._separator = re.compile(parser.get_terminal("_EXC_SEP").pattern.to_regexp())
        self._message = re.compile(parser.get_terminal("EXC_MESSAGE").pattern.to_regexp())
        self._exc_line: Callable[[list[Token]], object] = getattr(transformer, "exc_line")

    def body(self, text: str) -> object | None:
        """The transformed body when it is a single whole terminal or an exception line, else
        None (ask Lark)."""
        found = (self._regex if len(text) < LONG_BODY_CHARS else self._narrow(text)).match(text)
        if found is None:
            return None
        name = found.lastgroup or ""
        if found.end() != len(text):
            if name == "EXC_TYPE":
                return self._exception(found.group(), text[found.end():])
            return self._two_tokens(name, found.group(), text, found.end())
        build = self._build.get(name)
        return None if build is None else build([Token(name, text)])

    def _narrow(self, text: str) -> re.Pattern[str]:
        """The alternation without the terminals whose required text `text` lacks: the same
        first match (a terminal left out could not match), without the terminals that would
        scan the whole body to fail (`.*?\\d+%` over a 90 KB prompt: 3 ms)."""
        keep = tuple(not needles or any(needle in text for needle in needles)
                     for needles in self._needles)
        regex = self._narrowed.get(keep)
        if regex is None:
            regex = self._narrowed[keep] = re.compile("|".join(
                alternative for alternative, kept in zip(self._alternatives, keep) if kept))
        return regex

    def _two_tokens(self, name: str, first: str, text: str, at: int) -> object | None:
        follow = self._second.get(name)
        second = follow.match(text, at) if follow is not None else None
        if second is None or second.end() != len(text):
            return None
        kind = second.lastgroup or ""
        build = self._pair.get((name, kind))
        return None if build is None else build([Token(name, first), Token(kind, second.group())])

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


def _lexer_order(terminal: TerminalDef) -> tuple[int, int, int, str]:
    """The order of lark.lexer.BasicLexer: priority, then the widest pattern first."""
    return (-terminal.priority, -terminal.pattern.max_width, -len(terminal.pattern.value),
            terminal.name)


@cache
def body_lexer(parser: Lark, transformer: object) -> BodyLexer:
    """One BodyLexer per parser (built once: a few milliseconds)."""
    return BodyLexer(parser, transformer)
