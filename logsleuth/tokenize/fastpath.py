"""The common body shapes without the LALR parse, from the grammar's own terminals.

Most anchored lines are a record's plain message, a traceback frame, its source line or a caret
line: bodies that are one terminal of `grammars/vllm.lark` from start to end. Lark lexes the start
of a body by trying the terminals its parser accepts there, in its lexer's order (priority, then
width), and the first that matches wins. This module builds that same ordered alternation from the
grammar (the terminals `body` accepts first, as Lark's own interactive parser reports them) and
asks it one question: which terminal starts this body, and does it take the whole text? When that
terminal is a whole body on its own (`body: FRAME -> frame`, `| PLAIN -> plain`, ...), the body is
built by the transformer method of its rule, as Lark would call it. A few shapes of several
tokens are lexed further: an exception line, an access or uvicorn line (two terminals), and a
rule whose terminals follow one another to the line's end (NCCL's lines: SEQUENCE_BODIES), token
by token along the parser's states as Lark's contextual lexer would; anything else (a fatal
label, a phrase with its lead) goes to Lark. Nothing about line shapes
is written here: change the grammar and this follows. tests/test_fastpath.py checks that both
give the same LogLine on every corpus line and every generated shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import copy
from functools import cache, cached_property
from typing import Any

import re2
from lark import Lark, Token
from lark.lexer import TerminalDef

from logsleuth.compiledcopy import re_from
from logsleuth.literal import Needles, looked_ahead_literals, required_literals, skips_any_text
from logsleuth.tokenize.shape import ShapeCache, digit_blind, shape_key

# Rules of `body` that are two terminals, the second taking the rest of the line: uvicorn's
# `INFO:     127.0.0.1:5 - "POST /v1/completions HTTP/1.1" 200 OK` (an access line after each
# rejected request is read to tell that the server kept serving: Lark cost 100 us for each).
TWO_TOKEN_BODIES = {("UVICORN_LEVEL", "ACCESS_TEXT"): "access",
                    ("UVICORN_LEVEL", "UVICORN_TEXT"): "uvicorn"}

# Rules of `body` whose terminals follow one another to the end of the line, each lexed as
# Lark's contextual lexer would in the parser's state after the ones before (the states are
# walked once, off the grammar: `lexer_texts`): the first terminal, and the transformer method
# of the rule the line is, called with the tokens Lark keeps (not the `_` ones). An NCCL line
# (`host:pid:tid [dev] NCCL INFO text`) cost a Lark parse each, and loading Lark's tables and
# building its lexers for the first (~0.3 s of a restart-heavy log's start-ups).
SEQUENCE_BODIES = {"_NCCL_HOST": "nccl", "_NCCL_TIME": "nccl"}
_SEQUENCE_TOKENS = 12  # no such rule is longer: a walk that goes on is left to Lark

LONG_BODY_CHARS = 2048  # bodies this long are lexed with only the terminals they can hold

# Rules of `body` that are one terminal (`TERMINAL -> rule`, or a rule whose only item is the
# terminal): the name of the transformer method that builds the body from that one token.
SINGLE_TOKEN_BODIES = {
    "TRACEBACK_HEADER": "traceback_header", "GROUP_HEADER": "group_header",
    "WRAPPED_TRACEBACK": "wrapped_traceback", "RAY_UNHANDLED": "ray_unhandled",
    "TITLED_TRACEBACK": "wrapped_traceback",
    "GROUP_BOX": "group_box", "GROUP_NOTE": "group_box", "GROUP_BLANK": "group_blank",
    "FRAME": "frame", "CARET": "caret", "ELIDED": "elided",
    "REPEAT": "repeat", "CHAIN_CAUSE": "chain_cause", "CHAIN_CONTEXT": "chain_context",
    "FAULT_THREAD": "fault_thread", "EXTENSION_MODULES": "extension_modules",
    "NO_EXCEPTION": "no_exception", "IGNORED_HEADER": "ignored",
    "TERMINATE_FRAME": "terminate_frame",
    "PY_WARNING": "py_warning", "PYTEST_CRASH": "pytest_crash", "PROGRESS": "progress", "REQUEST_LOGGED": "request_logged",
    "BLANK": "blank", "JSON_RECORD": "json_record", "LEVEL_LINE": "level_line",
    "CANN_INLINE": "cann_inline", "CANN_TRACE": "cann_trace",
    "CANN_TRACE_HEADING": "cann_trace_heading",
    "HABANA_MODULE": "habana_module",
    "INDENTED": "indented", "PLAIN": "plain", "HTTP_STATUS": "http_status",
    "CLIENT_STATUS": "client_status", "DETAIL_BODY": "detail_body",
    "PYDANTIC_VALUE_ERROR": "pydantic_value_error",
    "PYDANTIC_ASSERTION": "pydantic_assertion", "PIP_ERROR": "pip_error",
    "INSTALLER_ERROR": "installer_error",
    # a process's or a launcher's last words (a crash loop's journald exit reports come back
    # with every restart, each with a new count: a Lark parse each, as the body cache missed)
    "KILL_REPORT": "killed", "SHELL_SIGNAL": "shell_signal", "NATIVE_ABORT": "native_abort",
    "CRASH_BANNER": "crash_banner", "RUNTIME_ABORT": "runtime_abort",
    "EXIT_REPORT": "exit_report", "BUILD_STEP_FAILED": "exit_report",
    "LAUNCHER_ERROR": "launcher_error", "RAY_WORKER_DIED": "ray_worker_died",
    "GPU_XID": "gpu_xid", "COMPILER_DIAG": "compiler_error", "LINKER_DIAG": "linker_error",
    "DEVICE_ASSERT": "device_assert", "HOST_ASSERT": "host_assert",
    "BUILD_FAILURE": "build_error", "UNCAUGHT_CLASS": "uncaught_class",
    "FRAME_LIST": "frame_list", "STUB_FRAME": "stub_frame", "LOADER_ERROR": "loader_error",
    "SHELL_ERROR": "shell_error", "PYTHON_ERROR": "python_error", "EXC_REPR": "exc_repr",
}


class BodyLexer:
    """The first token of a body, as Lark's contextual lexer would take it."""

    def __init__(self, parser: Lark, transformer: object):
        self._setup(lexer_texts(parser), transformer)

    @classmethod
    def from_texts(cls, texts: dict[str, Any], transformer: object,
                   programs: dict[str, tuple[Any, ...]] | None = None) -> BodyLexer:
        """The lexer made from what lexer_texts(parser) gave (kept: no Lark needed), its
        patterns from `re`'s kept programs where `programs` holds them (compiledcopy.re_from)."""
        lexer = cls.__new__(cls)
        lexer._setup(texts, transformer, programs)
        return lexer

    def _setup(self, texts: dict[str, Any], transformer: object,
               programs: dict[str, tuple[Any, ...]] | None = None) -> None:
        self._programs = programs
        compiled = self._compiled
        accepted = set(texts["accepted"])
        self._alternatives: list[str] = list(texts["alternatives"])
        self._regex = compiled("|".join(self._alternatives))
        # the alternation without the terminals screened by the texts they look ahead for,
        # asked of a body that holds none of those texts (lexer_texts)
        self._screened: tuple[str, ...] = tuple(texts["screened"])
        self._unscreened = compiled(texts["unscreened"]) if self._screened else self._regex
        self._needles = [tuple(needles) for needles in texts["needles"]]
        self._long = Needles(needle for needles in self._needles for needle in needles)
        self._narrowed: dict[tuple[bool, ...], re.Pattern[str]] = {}
        self._build: dict[str, Callable[[list[Token]], object]] = {
            name: getattr(transformer, method) for name, method in SINGLE_TOKEN_BODIES.items()
            if name in accepted}
        self._second: dict[str, re.Pattern[str]] = {
            first: compiled(text) for first, text in texts["second"].items()}
        self._pair: dict[tuple[str, str], Callable[[list[Token]], object]] = {
            pair: getattr(transformer, method) for pair, method in TWO_TOKEN_BODIES.items()}
        self._steps: dict[str, tuple[re.Pattern[str] | None, bool]] = {
            prefix: (compiled(text) if text else None, ends)
            for prefix, (text, ends) in texts["sequences"].items()}
        self._sequence: dict[str, Callable[[list[Token]], object]] = {
            first: getattr(transformer, method) for first, method in SEQUENCE_BODIES.items()
            if first in self._steps}
        self._separator = compiled(texts["separator"])
        self._message = compiled(texts["message"])
        self._exc_line: Callable[[list[Token]], object] = getattr(transformer, "exc_line")
        self._sighted_text: str | None = texts["sighted_text"]
        self._needed: tuple[str, ...] = tuple(texts["needed"])
        self._quick = _compiled_quick(texts["quick"]) if texts["quick"] is not None else None
        self._all_sighted_text: str = texts["all_sighted_text"]
        self._shapes: ShapeCache[Decision] = ShapeCache()
        self._answers: dict[str, bool] = {}  # `unsighted` of texts asked of `re`, by text

    @cached_property
    def _sighted(self) -> re.Pattern[str] | None:
        """The sighted terminals but the screened ones, compiled when first asked (`re` takes
        ~40 ms to compile them: a log whose bodies all pass the quick screen never asks)."""
        return self._compiled(self._sighted_text) if self._sighted_text is not None else None

    @cached_property
    def _all_sighted(self) -> re.Pattern[str]:
        """Every sighted terminal, compiled when a body holds a screened one's text."""
        return self._compiled(self._all_sighted_text)

    def _compiled(self, text: str) -> re.Pattern[str]:
        return re_from(text, self._programs)

    def body(self, text: str) -> object | None:
        """The transformed body when it is a single whole terminal or an exception line, else
        None (ask Lark)."""
        return self._built(self._decision(text), text)

    def _decision(self, text: str) -> Decision:
        """Which terminals take the body and where each ends: kept per digit-masked body
        (shape.py) when no terminal that tells digits apart could take it."""
        if len(text) > SHAPED_BODY_CHARS or self._sighted_text is None:
            return self._decide(text)
        key = shape_key(text)
        decision = self._shapes.get(key)
        if decision is not None:
            # the body's shape was decided with every digit-sighted terminal failing; the
            # blind ones decide alike on any digits, so the decision holds where they fail too
            if self.unsighted(text):
                return decision
            return self._decide(text)
        decision = self._decide(text)
        if self.unsighted(text):
            self._shapes.put(key, decision)
        return decision

    def blind(self, text: str) -> bool:
        """Whether this body's reading holds for every body of its shape: the fast path takes it
        (not Lark), by a decision kept per shape, and no terminal that tells digits apart could."""
        return len(text) <= SHAPED_BODY_CHARS and self.unsighted(text) \
            and self._decision(text) != _LARK

    def unsighted(self, text: str) -> bool:
        """Whether no terminal that tells digits apart could take this body (then a body of its
        shape whose reading holds for the shape, `blind`, reads this one alike)."""
        if self._sighted_text is None:
            return False
        quick = self._quick
        if quick is not None and text.isascii() \
                and quick(_FROM_START, text.encode("ascii"), 0, len(text))[0][0] < 0:
            return True
        # asked of `re` (a body that is not ASCII, or holds a screened terminal's text: 50-80 us
        # each): kept by the text, as a restart-heavy log prints the same banner and progress
        # bars at every start
        if len(text) > _ASKED_CHARS:
            return self._asked(text)
        asked = self._answers
        known = asked.get(text)
        if known is None:
            if len(asked) >= _ANSWERS:
                asked.clear()  # a bound: texts that recur come back
            known = asked[text] = self._asked(text)
        return known

    def _asked(self, text: str) -> bool:
        """`unsighted` of a text the quick screen does not answer, asked of `re`."""
        sighted = self._sighted
        if sighted is not None and sighted.match(text) is not None:
            return False
        for needle in self._needed:
            if needle in text:
                return self._all_sighted.match(text) is None
        return True

    def unsighted_ascii(self, data: bytes, text: str) -> bool:
        """`unsighted(text)` of an ASCII text given with its bytes `data` (its encoding): the
        quick screen asked of them as they are (a quick reading's body, sliced from its line)."""
        quick = self._quick
        if quick is not None and quick(_FROM_START, data, 0, len(data))[0][0] < 0:
            return True  # (a quick screen is made only where there are sighted terminals)
        return self.unsighted(text)

    def _decide(self, text: str) -> Decision:
        if len(text) >= LONG_BODY_CHARS:
            regex = self._narrow(text)
        else:
            regex = self._regex
            for needle in self._screened:
                if needle in text:
                    break
            else:
                regex = self._unscreened
        found = regex.match(text)
        if found is None:
            return _LARK
        name = found.lastgroup or ""
        if name in self._sequence:
            return self._walk(name, text, found.end())
        if found.end() != len(text):
            if name == "EXC_TYPE":
                return self._exception(found.end(), text)
            return self._two_tokens(name, text, found.end())
        return ("one", name) if name in self._build else _LARK

    def _built(self, decision: Decision, text: str) -> object | None:
        shape = decision[0]
        if shape == "one":
            name = decision[1]
            return self._build[name]([Token(name, text)])
        if shape == "two":
            _, name, at, kind = decision
            return self._pair[(name, kind)]([Token(name, text[:at]), Token(kind, text[at:])])
        if shape == "lark":
            return None
        if shape == "seq":
            _, names, ends = decision
            tokens, start = [], 0
            for name, end in zip(names, ends):
                if name[:1] != "_":  # the tokens Lark's tree keeps
                    tokens.append(Token(name, text[start:end]))
                start = end
            return self._sequence[names[0]](tokens)
        _, type_end, message_start = decision
        tokens = [Token("EXC_TYPE", text[:type_end])]
        if message_start < len(text):
            tokens.append(Token("EXC_MESSAGE", text[message_start:]))
        return self._exc_line(tokens)

    def _narrow(self, text: str) -> re.Pattern[str]:
        """The alternation without the terminals whose required text `text` lacks: the same
        first match (a terminal left out could not match), without the terminals that would
        scan the whole body to fail (`.*?\\d+%` over a 90 KB prompt: 3 ms)."""
        present = self._long.present(text)  # one pass over the body for every terminal's texts
        keep = tuple(not needles or not present.isdisjoint(needles) for needles in self._needles)
        regex = self._narrowed.get(keep)
        if regex is None:
            regex = self._narrowed[keep] = re.compile("|".join(
                alternative for alternative, kept in zip(self._alternatives, keep) if kept))
        return regex

    def _walk(self, first: str, text: str, at: int) -> Decision:
        """The tokens of a SEQUENCE_BODIES body, each lexed with the terminals the parser
        accepts after the ones before, in the lexer's order, to the body's end (which the
        parser must accept there); _LARK at anything else."""
        names, ends, prefix = [first], [at], first
        size = len(text)
        while True:
            step = self._steps.get(prefix)
            if step is None:
                return _LARK
            pattern, ends_here = step
            if at == size:
                return ("seq", tuple(names), tuple(ends)) if ends_here else _LARK
            found = pattern.match(text, at) if pattern is not None else None
            if found is None or found.end() == at:
                return _LARK
            name = found.lastgroup or ""
            at = found.end()
            names.append(name)
            ends.append(at)
            prefix = f"{prefix} {name}"

    def _two_tokens(self, name: str, text: str, at: int) -> Decision:
        follow = self._second.get(name)
        second = follow.match(text, at) if follow is not None else None
        if second is None or second.end() != len(text):
            return _LARK
        kind = second.lastgroup or ""
        return ("two", name, at, kind) if (name, kind) in self._pair else _LARK

    def _exception(self, type_end: int, text: str) -> Decision:
        # `exc_line: EXC_TYPE (_EXC_SEP EXC_MESSAGE?)?`: after the type the parser accepts only
        # the separator, then only the message (which takes the rest of the line)
        rest = text[type_end:]
        separator = self._separator.match(rest)
        if separator is None:
            return _LARK
        message = rest[separator.end():]
        if message and not self._message.fullmatch(message):
            return _LARK
        return ("exc", type_end, type_end + separator.end())


def lexer_texts(parser: Lark) -> dict[str, Any]:
    """What a BodyLexer is made of, read off the grammar's terminals (texts only, so that it can
    be kept between runs: grammar.py keeps it by the grammar's bytes): the terminals Lark's
    contextual lexer accepts at a body's start, in its order, and their texts."""
    start = parser.parse_interactive("", start="body")
    accepted = start.accepts() - {"$END"}  # type: ignore[no-untyped-call]
    terminals = [parser.get_terminal(name) for name in accepted]
    terminals.sort(key=_lexer_order)
    alternatives = [f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals]
    # what every match of a terminal with an alternative that starts by skipping any text
    # (`.*?\d+%` of a progress bar, `.*\bfailed liveness probe`) contains, to leave it out
    # of a long body's alternation when the body lacks it: such a terminal reads the whole
    # body before it fails (2 ms for a logged prompt). (The others fail at the body's first
    # characters; testing their texts would cost more than it spares.)
    # and the terminals that start by reading up to many characters of a line and look ahead,
    # from each place, for a text they need (ERROR_BODY_LEAD's `error` and a quote): failing,
    # they read every place and the rest of the line from it, most of what deciding a new body
    # cost (3 of 3.8 ms for a 3 KB body); a body that holds none of their texts is decided by
    # the alternation without them (none of them could match it: the same first match), a
    # long one by its narrowed alternation (their texts are their needles)
    looking = [looked_ahead_literals(t.pattern.to_regexp(), 4)
               if _SCANS_AHEAD.match(t.pattern.to_regexp()) else () for t in terminals]
    needles = [list(required_literals(t.pattern.to_regexp(), 1))
               if skips_any_text(t.pattern.to_regexp()) else list(found)
               for t, found in zip(terminals, looking)]
    # the terminals the parser accepts after the first of a two-terminal body, in lexer order
    second: dict[str, str] = {}
    for first in sorted({first for first, _ in TWO_TOKEN_BODIES} & accepted):
        state = parser.parse_interactive("", start="body")
        state.feed_token(Token(first, ""))
        after = state.accepts() - {"$END"}  # type: ignore[no-untyped-call]
        follow = [parser.get_terminal(name) for name in after]
        follow.sort(key=_lexer_order)
        second[first] = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in follow)
    sequences = _sequence_steps(parser, accepted)
    separator = parser.get_terminal("_EXC_SEP").pattern.to_regexp()
    message = parser.get_terminal("EXC_MESSAGE").pattern.to_regexp()
    # Decisions are kept per digit-masked body when every pattern after the first token is
    # blind to digits; the first token's terminals that are not (`"code": 4\d\d`, `collect2`)
    # are asked on each body: a kept decision holds only where they all fail.
    sighted = [(a, t) for a, t in zip(alternatives, terminals) if not digit_blind(a)]
    # a sighted terminal that needs a text to match (PHRASE_LEAD's look-ahead for `NCCL
    # error`...) is asked only of bodies holding one: its lazy 240-character scan was most
    # of the cost of asking (the others fail at a body's first characters)
    screened = [(a, looked_ahead_literals(t.pattern.to_regexp(), 4)
                 if _SCANS_AHEAD.match(t.pattern.to_regexp()) else ()) for a, t in sighted]
    sighted_text = "|".join(a for a, found in screened if not found) or "(?!)" \
        if all(digit_blind(p) for p in (separator, message, *second.values(),
                                        *(text for text, _ in sequences.values() if text))) \
        else None
    # the screened ones' texts; a body holding one is asked of them all
    needed = list(dict.fromkeys(n for _, found in screened for n in found))
    # `re` tries the sighted alternatives one by one at a body's start (2-4 us a body);
    # RE2 runs them as one DFA, without their look-arounds (a wider pattern, so a body it
    # cannot match at its start none of them can), and with the other questions `unsighted`
    # asks of an ASCII body (does it hold a character that keeps RE2 from standing for `re`,
    # or a screened one's text) in the same pass: a body none of them holds is unsighted
    # (asked apart they cost 5-10 us a body: an access line's, a metrics line's)
    return {"accepted": sorted(accepted), "alternatives": alternatives, "needles": needles,
            "unscreened": "|".join(a for a, found in zip(alternatives, looking) if not found)
            or "(?!)",
            "screened": sorted({needle for found in looking for needle in found}),
            "second": second, "sequences": sequences, "separator": separator, "message": message,
            "sighted_text": sighted_text, "needed": needed,
            "quick": _quick_text(sighted_text, tuple(needed)) if sighted_text is not None
            else None,
            "all_sighted_text": "|".join(a for a, _ in sighted) or "(?!)"}


def _sequence_steps(parser: Lark, accepted: set[str]) -> dict[str, tuple[str, bool]]:
    """For each run of terminals a SEQUENCE_BODIES body may start with (their names joined by
    spaces), the terminals the parser accepts next, in the lexer's order, as one alternation
    ("" for none), and whether the body may end there: walked with Lark's interactive parser
    from each first terminal."""
    steps: dict[str, tuple[str, bool]] = {}
    start = parser.parse_interactive("", start="body")
    # without the transformer's callbacks (as Lark's own `accepts`): a rule reduced on the
    # way would be handed empty tokens
    silent = copy(start.parser_state.parse_conf)
    silent.callbacks = {}
    start.parser_state.parse_conf = silent
    pending: list[tuple[str, Any, int]] = []
    for first in sorted(set(SEQUENCE_BODIES) & accepted):
        state = start.copy()  # type: ignore[no-untyped-call]
        state.feed_token(Token(first, ""))
        pending.append((first, state, 1))
    while pending:
        prefix, state, length = pending.pop()
        after = state.accepts()
        follow = sorted((parser.get_terminal(name) for name in after - {"$END"}),
                        key=_lexer_order)
        steps[prefix] = ("|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in follow),
                         "$END" in after)
        if length >= _SEQUENCE_TOKENS:
            continue
        for terminal in follow:
            step = state.copy()
            step.feed_token(Token(terminal.name, ""))
            pending.append((f"{prefix} {terminal.name}", step, length + 1))
    return steps


# A pattern that starts by reading up to many characters of any kind (`\S[^\n]{0,240}?`), also
# as the first alternative of a group (`(?:\S[^\n]{0,240}?[:\]]|")`): failing, it reads them
# all, so it is screened by the texts it needs before it is asked
_SCANS_AHEAD = re.compile(r"(?:\(\?:)?(?:\\S|\\s\*)?(?:\.|\[\^[^\]]*\])(?:[*+]|\{\d*,\d+\})")


def _quick(pattern: str, needles: tuple[str, ...]) -> Callable[..., list[tuple[int, int]]] | None:
    """_compiled_quick of _quick_text."""
    text = _quick_text(pattern, needles)
    return _compiled_quick(text) if text is not None else None


def _quick_text(pattern: str, needles: tuple[str, ...]) -> str | None:
    """The text of one RE2 pattern (None: RE2 cannot take it) that matches at the start of a
    text when `pattern` without its look-aheads and look-behinds (each only narrows what
    matches) does there, or when the text holds anywhere one of `needles` or a line break, a vertical tab or
    a separator \\x1c-\\x1f (which Python's `\\s` takes and RE2's does not): on an ASCII text
    it does not match, `pattern` cannot match at the start. Compiled without captures (the
    pattern's groups would make RE2 report each): its groups are made non-capturing in the
    text itself, as `never_capture` leaves their count to the binding, which then asks RE2 for
    each group's place and so for its slower engines (2-3 us a body that does not match, 15
    and more one that does; ~1.3 us by the DFA alone)."""
    wider = _widened(pattern)
    if wider is None:
        return None
    wider = _uncaptured(wider)
    anywhere = ["[\\n\\x0b\\x1c-\\x1f]",
                *("".join(c if c.isalnum() else f"\\x{{{ord(c):x}}}" for c in needle)
                  for needle in needles)]
    return f"(?:{wider})|(?s:.)*?(?:{'|'.join(anywhere)})"


def lexer_patterns(texts: dict[str, Any]) -> list[str]:
    """The patterns a lexer from `texts` compiles with `re` (every one it may: whose programs
    are kept, compiledcopy.re_program)."""
    found = ["|".join(texts["alternatives"]), texts["unscreened"], *texts["second"].values(),
             *(text for text, _ in texts["sequences"].values() if text), texts["separator"],
             texts["message"], texts["all_sighted_text"]]
    if texts["sighted_text"] is not None:
        found.append(texts["sighted_text"])
    return found


def _compiled_quick(text: str) -> Callable[..., list[tuple[int, int]]] | None:
    """The RE2 pattern `text` (_quick_text) compiled without captures (None: RE2 refuses it)."""
    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    try:
        compiled = re2.compile(text.encode("utf-8"), options)
    except re2.error:
        return None
    match: Callable[..., list[tuple[int, int]]] = compiled._regexp.Match
    return match


def _widened(pattern: str) -> str | None:
    """`pattern` without its look-aheads and look-behinds, as RE2 reads it (None: it would
    not be wider in RE2)."""
    kept: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), index):
            index = _group_end(pattern, index)
            continue
        end = _atom_end(pattern, index)
        kept.append(pattern[index:end])
        index = end
    wider = "".join(kept)
    if "{," in wider:  # `{,n}` repeats in Python and is text in RE2: it would not be wider
        return None
    return wider


def _uncaptured(pattern: str) -> str:
    """`pattern` with each capturing group (`(x)`, `(?P<name>x)`) made non-capturing (`(?:x)`):
    it matches the same texts at the same places."""
    kept: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        if pattern.startswith("(?P<", index):
            kept.append("(?:")
            index = pattern.index(">", index) + 1
        elif pattern[index] == "(" and not pattern.startswith("(?", index):
            kept.append("(?:")
            index += 1
        else:
            end = _atom_end(pattern, index)
            kept.append(pattern[index:end])
            index = end
    return "".join(kept)


def _atom_end(pattern: str, index: int) -> int:
    """Where the atom at `index` ends: an escape's two characters, a character class whole (a
    `(` inside either is no group), or one character."""
    if pattern[index] == "\\":
        return index + 2
    if pattern[index] == "[":
        return _class_end(pattern, index)
    return index + 1


def _class_end(pattern: str, start: int) -> int:
    """Where the character class opened at `start` ends (after its `]`)."""
    index = start + 1
    if pattern[index:index + 1] == "^":
        index += 1
    if pattern[index:index + 1] == "]":
        index += 1  # a `]` first is a member
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return index + 1


def _group_end(pattern: str, start: int) -> int:
    """Where the group opened at `start` ends (after its `)`)."""
    depth, index = 0, start
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = _class_end(pattern, index)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return index


_FROM_START = re2._Anchor.ANCHOR_START

# How a body is lexed: ("one", terminal) for one whole token, ("two", first, where it ends,
# second) for two, ("seq", terminals, where each ends) for a SEQUENCE_BODIES body, ("exc",
# where the type ends, where the message starts) for an exception line, or _LARK: a shape the fast path leaves to Lark.
Decision = tuple[Any, ...]
_LARK: Decision = ("lark",)
SHAPED_BODY_CHARS = 1024  # longer bodies (prompts) rarely share a shape
_ASKED_CHARS = 1024  # longer bodies are not kept by their text (prompts rarely repeat)
_ANSWERS = 1024  # texts kept with their answer (a bound)


def _lexer_order(terminal: TerminalDef) -> tuple[int, int, int, str]:
    """The order of lark.lexer.BasicLexer: priority, then the widest pattern first."""
    return (-terminal.priority, -terminal.pattern.max_width, -len(terminal.pattern.value),
            terminal.name)


@cache
def body_lexer(parser: Lark, transformer: object) -> BodyLexer:
    """One BodyLexer per parser (built once: a few milliseconds)."""
    return BodyLexer(parser, transformer)
