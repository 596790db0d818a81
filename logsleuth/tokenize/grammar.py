"""One line -> a typed LogLine, through the Lark grammar `grammars/vllm.lark`.

The only place (with scan.py's anchor loading) that touches Lark: no other module sees a Tree
or a Token. `clean()` does the pre-lexing (ANSI colours, terminal overwrites, pane borders),
`parse_line()` the rest; a line the grammar cannot place is PLAIN, never an error.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import LarkError

from logsleuth.literal import SCREEN_CHARS, Needles
from logsleuth.model import MAIN, ChainReason, Frame, Level, LineKind, LogLine, Process
from logsleuth.compiledcopy import kept, re_from, re_program
from logsleuth.resources import data_dir
from logsleuth.tokenize.fastpath import BodyLexer, lexer_patterns, lexer_texts
from logsleuth.tokenize.shape import ShapeCache, digit_blind, shape_key
from logsleuth.quickinit import quick_init

# Pre-lexing (research notes section 6.1): colour codes and their pasted forms go before any
# parsing (grammars/vllm.lark `pre_lexing`); they are byte noise, not line structure.
BOX_BORDERS = "│┃║"  # a terminal UI's pane borders around each copied line

# Unicode's space separators (Zs) other than the ASCII space. A log copied from a web view (a CI
# runner's log page, a log viewer) may carry a no-break space where the page laid out a margin:
# Buildkite's copied `\u00a0 | [2024-06-25T12:58:33Z] E  AssertionError: ...` (vllm issue 5848).
# No line shape tells them from spaces, so they are read as spaces.
_WIDE_SPACES = {ord(c): " " for c in
                "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                "\u200a\u202f\u205f\u3000"}
# found by one scan in C first: translating a non-ASCII line a character at a time through the
# table cost 0.2 ms for a tqdm bar's 1.5 KB of block characters, at every start of a restart loop
_HAS_WIDE_SPACE = re.compile("[" + "".join(map(chr, _WIDE_SPACES)) + "]").search

START_SYMBOLS = ("line", "head", "body", "proc_prefix", "record", "glog", "ray_core", "frame",
                 "exc_line", "fatal", "nccl", "process_header", "glog_short", "pylog", "ray_py",
                 "pybasic", "cut_record", "loguru", "ci_command", "ray_serve",
                 "kserve", "neuron", "bracket_fields", "spdlog", "level_word", "cann_code",
                 "client_answer", "client_status_code", "pasted_line", "ray_repeated",
                 "annotated_source", "pre_lexing", "glued_head", "pip_box")
# Start symbols of the parts of a line that another stage takes off a line's text by the
# grammar's own terminals (terminal_regex): a client's print of an error answer, a line pasted
# on its own (index/bare.py), Ray's repeat count (signatures/match.py), a source line that is an
# annotated assignment and pip's box around a child's output (assemble.py), the colour codes and
# closing HTML clean() takes off
PART_SYMBOLS = ("client_answer", "client_status_code", "pasted_line", "ray_repeated",
                "annotated_source", "pre_lexing", "glued_head", "pip_box")


@cache
def line_parser() -> Lark:
    """The full line grammar, built once (LALR with the contextual lexer)."""
    return Lark.open(str(data_dir("grammars") / "vllm.lark"), parser="lalr",
                     lexer="contextual", start=list(START_SYMBOLS), maybe_placeholders=False,
                     cache=True)  # Lark keeps the built tables in the temp dir: 10x faster start


def clean(raw: str) -> str:
    """One physical line as the grammar expects it.

    vLLM ends continuation lines of a record with `\\r\\n`, so one trailing `\\r` is a line
    break, not an overwrite. Any other `\\r` is a terminal overwrite (tqdm): keep the last
    non-empty segment, which is what a terminal showed, under the process prefix that vLLM
    wrote once at the start of the physical line (research notes, section 2.1). A no-break or
    other Unicode space is a space.
    """
    if not raw.isascii() and _HAS_WIDE_SPACE(raw):
        raw = raw.translate(_WIDE_SPACES)
    if raw.endswith("\r"):
        raw = raw[:-1]  # and a caret form before it is a paste saved again with CRLF ends
    if raw.endswith("^M"):
        raw = raw[:-2]  # the same `\r`, pasted in its caret form (as `^[[` stands for ESC)
    elif raw.endswith("#015"):
        raw = raw[:-4]  # the same `\r` as rsyslog and CloudWatch write it (`#033` is ESC)
    if may_hold_colour(raw):
        raw = terminal_regex("COLOUR_CODE").sub("", raw)
    if raw[:1] == "\t" or raw[:1] == " " and "\t" in raw[:_INDENT_CHARS]:
        raw = _expand_indent(raw)
    if raw[:1] in BOX_BORDERS:
        raw = raw.rstrip()
        raw = raw[:-1].rstrip() if raw[-1:] in BOX_BORDERS and len(raw) > 1 else raw
    if raw[-1:] == ">" or raw[-2:] == "> ":
        raw = terminal_regex("CLOSING_TAGS").sub("", raw)  # GitHub's HTML closing a pasted line
    if raw[-2:] == "**" or raw.rstrip()[-2:] == "**":
        bold = terminal_regex("BOLD_SPAN").search(raw)
        if bold is not None:  # markdown bold around the text (grammars/vllm.lark BOLD_SPAN)
            raw = raw[:bold.start()] + bold.group().rstrip()[2:-2]
    if raw.endswith("across cluster]"):
        # Ray's log deduplication: the driver prints a line its workers logged alike once, with
        # how many copies it held back (Ray's docs, Configuring Logging: Log deduplication). The
        # count is Ray's, not the line's: the same message, frame or record printed bare elsewhere.
        raw = terminal_regex("RAY_REPEATED").sub("", raw)
    cut = _glued_record(raw)
    if cut is not None:  # records run on from a line whose end was lost: the last one
        before, own = raw[:cut[1]], raw[cut[1]:]
        if _outer_end(before) < len(before) and not _loses_an_error(before, own):  # not the line's own wrappers (RunPod's `...[info]`)
            raw = raw[:_outer_end(before, prefix=not own.startswith("("))] + own
    if raw[-48:].rstrip().endswith(_GLUED_ENDS) or "terminate called" in raw \
            or "Fatal Python error: " in raw:
        glued = terminal_regex("GLUED_TAIL").search(raw)
        if glued is not None:  # a death run on from a line its end never came to
            raw = raw[:_outer_end(raw[:glued.start()])] + glued.group()
    if "\r" in raw:
        segments = raw.split("\r")
        shown = [s for s in segments if s.strip()]
        last = shown[-1] if shown else ""
        head_end = _head_end(segments[0])
        if head_end and last is not segments[0] and not _head_end(last):
            last = segments[0][:head_end] + last
        raw = last
    return raw


_INDENT_CHARS = 64  # indentation deeper than this holds no tab worth reading
# how a line with a death glued to its end ends (grammars/vllm.lark GLUED_TAIL): a cheap screen
_GLUED_ENDS = ("Killed", "fault", "Aborted", "error", "instruction", "exception", "dumped)")
# where a record glued inside a line may begin (grammars/vllm.lark GLUED_RECORD), found with
# str.find (Python's regex engine took 20-60 us a serving line to search the terminal or any
# alternation of these texts, str.find a fraction of one each): a process prefix's `pid=`, the
# level words of vLLM's header and a CI runner's `##[` (the glue is the character before them),
# the stats record's last fields, and glog's header after a progress bar's end (`... 2.51s/it]`)
# (the terminal decides at each place)
_GLUED_HEAD_TEXTS = ("INFO ", "WARNING ", "ERROR ", "CRITICAL ", "DEBUG ", "##[")
_GLUED_STATS_TEXTS = ("cache hit rate: ", "KV cache usage: ")
_BAR_ENDS = ("/s]", "/it]")
_GLOG_START = re.compile(r"[IWEF]\d{4,8} \d\d:")


@cache
def _glued_record_regex() -> re.Pattern[str]:
    return terminal_regex("GLUED_RECORD")  # (built from its program on each call)


def _glued_record(raw: str) -> tuple[int, int] | None:
    """Where the last record glued inside `raw` begins (the text before it: up to the first
    position; the record: from the second), or None (grammars/vllm.lark GLUED_RECORD)."""
    places = []
    at = raw.find("pid=", 1)
    while at != -1:  # a process prefix glued on: `...0.0%(Worker_TP0 pid=4201) `
        start = raw.rfind("(", 0, at)
        if start > 0 and not raw[start - 1].isspace():
            places.append(start - 1)
        at = raw.find("pid=", at + 4)
    for text in _GLUED_HEAD_TEXTS:
        at = raw.find(text, 1)
        while at != -1:
            if not raw[at - 1].isspace():  # glued: no space between
                places.append(at - 1)
            at = raw.find(text, at + 1)
    for text in _GLUED_STATS_TEXTS:
        at = raw.rfind(text)  # the stats record's last field
        if at != -1:
            end = raw.find("%", at) + 1
            if 0 < end < len(raw) - 1 and raw[end] not in " ,":  # and text run on from it
                places.append(at)
    if any(end in raw for end in _BAR_ENDS):  # glog's header run on after a bar's end
        places += [found.start() - 1 for found in _GLOG_START.finditer(raw, 1)
                   if not raw[found.start() - 1].isspace()]
    if not places:
        return None
    regex = _glued_record_regex()
    best: tuple[int, int] | None = None
    for place in places:
        found = regex.match(raw, place)
        if found is None or raw.count('"', 0, place) % 2:  # not inside a string the line opened
            continue
        cut = (found.start(), found.end())
        best = cut if best is None or cut[1] > best[1] else best
    return best


# an error's words: an ERROR/CRITICAL record's level or an exception's `Name: ` (a cheap screen)
_ERROR_WORDS = re.compile(r"\b(?:ERROR|CRITICAL)\b|[a-z\d_](?:Error|Exception)\w*: ")


def _loses_an_error(before: str, own: str) -> bool:
    """Whether reading only the glued record `own` would drop an error the line's own text
    `before` holds for a record that holds none (a second paste of a log spliced onto the
    first's last line, an exception: the error is the evidence, the glued record the lesser
    loss)."""
    return _ERROR_WORDS.search(before) is not None and _ERROR_WORDS.search(own) is None


def _outer_end(text: str, prefix: bool = True) -> int:
    """Where the wrappers and (with `prefix`) the process prefix of a line end (not its record
    header: the text glued after a record is not that record's)."""
    end = 0
    for name, token in _lex_head(text)[1]:
        if _HEAD_RULES[name][0] >= (2 if prefix else 1):
            break
        end += len(token)
    return end


def _expand_indent(raw: str) -> str:
    """Leading tabs as the spaces a terminal shows (stops of 8): a traceback pasted through an
    editor that tabified it keeps its relative indentation, which is what tells a frame's code
    line from its `File` line and an exception from its frames."""
    body = raw.lstrip(" \t")
    return raw[:len(raw) - len(body)].expandtabs(8) + body


def may_hold_colour(raw: str) -> bool:
    """Whether clean() looks for colour codes in this text (a cheap test before the pattern)."""
    if len(raw) >= SCREEN_CHARS:  # a logged prompt: one pass instead of six
        return _COLOUR_TEXTS.any_in(raw) or raw[:1] == "[" and "m" in raw[2:12]
    return "\x1b" in raw or "[[" in raw or "ESC[" in raw or "#033[" in raw or "m(" in raw \
        or ")[" in raw or raw[:1] == "[" and "m" in raw[2:12]


_COLOUR_TEXTS = Needles(("\x1b", "[[", "ESC[", "#033[", "m(", ")["))


@quick_init
@dataclass(frozen=True, slots=True)
class _Header:
    level: Level | None
    time: str | None
    site: str | None


@quick_init
@dataclass(frozen=True, slots=True)
class _Body:
    kind: LineKind
    text: str
    exception: str | None = None
    message: str | None = None
    frame: Frame | None = None
    chain: ChainReason | None = None
    level: Level | None = None  # uvicorn writes its level in the body: `ERROR:    ...`
    # the call site a body names itself where its head names none: CANN's error code of a
    # record whose head was elided (`... Invalid_Argument(EZ0027): ...`, cann_inline)
    site: str | None = None
    depth: int = 0  # an exception group's margin at the body's start (`_margin`)
    # the head of a record a paste glued inside the line, whose exception the body is
    # (embedded_exception): its process and its header
    glued: tuple[Process, _Header] | None = None


@dataclass(frozen=True, slots=True)
class _Outer:
    text: str
    level: Level | None = None  # a relaying logger's own level (`- INFO - vLLM: `)
    depth: int = 0  # a `  | ` margin taken as a wrapper: an exception group's (`_margin`)
    # a test runner's summary of a failed test (`FAILED x.py::t - `): the line's `outer`, however
    # deep, since it says the line restates a report (causality.yaml `restatements`)
    summary: bool = False
    # pytest's margin (`E   `) or summary before an `assert`: the failed assertion's explanation,
    # the AssertionError's message (grammars/vllm.lark PYTEST_ASSERT)
    asserts: bool = False
    # a bracketed level word (`[INFO] `): the writer's own level for the whole line
    tagged: bool = False
    # a relaying logger's wrapper (its level, its time: `[ERROR] `, `- INFO - vLLM: `), not a
    # launcher's or a viewer's that wraps every line of the log
    relay: bool = False


@quick_init
@dataclass(frozen=True, slots=True)
class _Head:
    outer: str | None
    process: Process
    header: _Header
    relay_level: Level | None = None
    depth: int = 0
    asserts: bool = False  # behind pytest's margin or summary, before an `assert` (_Outer)
    tagged: bool = False  # the relay level is a bracketed level word (_Outer.tagged)
    relayed: bool = False  # a relaying logger's wrapper among its outer ones (_Outer.relay)


_NO_HEADER = _Header(None, None, None)
_EMPTY_HEAD = _Head(None, MAIN, _NO_HEADER)
_BLANK = _Body(LineKind.BLANK, "")
_RELAYED_KINDS = (LineKind.PLAIN, LineKind.REQUEST)  # messages: a relaying logger's level is theirs


_ASSERTION = "AssertionError"


def _combine(head: _Head, body: _Body, number: int = 0) -> LogLine:
    header = head.header
    process = head.process
    if body.glued is not None:
        # the exception of a record glued inside the line: its own process and level, not those
        # of the record the line began with (an INFO record's, say)
        process, header = body.glued
    if head.asserts and body.kind is LineKind.PLAIN:
        # pytest's explanation of a plain `assert` that failed: the AssertionError it raised
        body = _Body(LineKind.EXCEPTION, f"{_ASSERTION}: {body.text}", exception=_ASSERTION,
                     message=body.text)
    level = header.level or body.level
    if head.tagged and header.level is None and body.kind is LineKind.PLAIN \
            and head.relay_level is not None:
        # `[INFO] Task failed.`: the writer's bracketed level word says what the line is; a
        # level guessed from the words of a plain message (LEVEL_LINE's sentences) does not
        level = head.relay_level
    if level is None and body.kind in _RELAYED_KINDS:
        # A relaying logger's level speaks for a plain message only: the exceptions, frames
        # and fatal lines it relays are what they are, at whatever level it relays them
        level = head.relay_level
    return LogLine(number, body.kind, body.text, process, level,
                   header.time, header.site if header.site is not None else body.site,
                   body.exception, body.message, body.frame,
                   body.chain, head.outer, body.depth or head.depth, head.relayed)


def _margin(raw: str, marks: str = "|") -> int:
    """The exception-group depth of a line Python printed inside a group's borders: the column
    of its margin character (`|`; `+` for a group's header and boxes) over two, as
    traceback.TracebackException.format indents each level (`  | ` 1, `    | ` 2). 0: none."""
    column = len(raw) - len(raw.lstrip(" "))
    return max(1, column // 2) if column < len(raw) and raw[column] in marks else 0


_GLOG_LEVELS = {"D": Level.DEBUG, "I": Level.INFO, "W": Level.WARNING, "E": Level.ERROR,
                "F": Level.CRITICAL, "C": Level.CRITICAL}  # C: tornado's `[C 2024-...]`
# Short labels for fatal lines: `*** SIGSEGV received ...` is `SIGSEGV`, C++'s
# `terminate called after throwing an instance of 'c10::Error'` is `terminate`.
_SOURCE_PLACE = re.compile(r"^ \([^()\s]+:\d+\)(?=:)")
# The escaped line break an embedded exception's lead ends with (grammars/vllm.lark EXC_LEAD:
# a message logged as one escaped string, `\n` or `\r\n`, doubled when escaped twice).
_ESCAPED_BREAK = re.compile(r"\\+(?:r\\+)?n$")
_FATAL_LABELS = {"*** SIG": "SIG", "terminate called": "terminate", "what()": "terminate",
                 "Unhandled exception": "terminate"}
# A shell's words for the signal that ended a child (bash's and zsh's job reports, fish's signal
# name), as the label the shell prints for a foreground crash (`Segmentation fault (core dumped)`)
# and the signatures name: zsh's `illegal hardware instruction` is bash's `Illegal instruction`.
# The kernel's `traps:` record of a fault it turned into a signal, by the label of that signal.
_KERNEL_TRAPS = {"general protection fault": "Segmentation fault",
                 "trap invalid opcode": "Illegal instruction",
                 "trap divide error": "Floating point exception"}
_SHELL_SIGNALS = {"killed": "Killed", "sigkill": "Killed",
                  "segmentation fault": "Segmentation fault", "sigsegv": "Segmentation fault",
                  "illegal hardware instruction": "Illegal instruction",
                  "illegal instruction": "Illegal instruction", "sigill": "Illegal instruction",
                  "abort": "Aborted", "aborted": "Aborted", "sigabrt": "Aborted",
                  "bus error": "Bus error", "sigbus": "Bus error",
                  "floating point exception": "Floating point exception",
                  "sigfpe": "Floating point exception"}
# Ray's Python logger has a SUCCESS level of its own, loguru SUCCESS and TRACE
_PY_LEVELS = {"SUCC": Level.INFO, "SUCCESS": Level.INFO, "TRACE": Level.DEBUG,
              "WARN": Level.WARNING, "FATAL": Level.CRITICAL}
_CANN_CODE = re.compile(r"E[A-Z0-9]\d{4}")  # an Ascend CANN error code in its header
_CANN_TRACE_SITE = re.compile(r"\[FILE:(?P<file>[\w.\-]+)\] ?\[LINE:(?P<line>\d+)\][ \t\r]*$")  # CANN trace source
_LEVEL_IN_HEADER = re.compile(r"TRACE|DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL")
_JSON_LEVEL = re.compile(r'"(?:level|severity|levelname|lvl)": ?"(\w+)"', re.IGNORECASE)
_CI_LEVELS = {"error": Level.ERROR, "warning": Level.WARNING, "debug": Level.DEBUG}


@lru_cache(maxsize=4096)
def _process(name: str, pid: int | None, ip: str | None = None) -> Process:
    """One Process object per process: the lines of a log name a few processes over and over,
    and every later stage keys dicts by them (an identical object is found without comparing)."""
    return Process(name, pid, ip)


class _ToRecords(Transformer[Token, object]):
    """Lark trees -> the private parts of a LogLine; `line` puts them together."""

    def line(self, items: list[object]) -> LogLine:
        head = items[0] if items and isinstance(items[0], _Head) else _EMPTY_HEAD
        body = items[-1] if items and isinstance(items[-1], _Body) else _BLANK
        return _combine(head, body)

    def head(self, items: list[object]) -> _Head:
        process = MAIN
        header = _NO_HEADER
        outer: str | None = None
        relay_level: Level | None = None
        depth = 0
        asserts = tagged = relayed = False
        for item in items:
            if isinstance(item, Process):
                process = item  # prefixes nest: the innermost names the process
            elif isinstance(item, _Header):
                header = item
            elif isinstance(item, _Outer):
                outer = item.text if outer is None or item.summary else outer
                relay_level = item.level or relay_level  # the innermost relay's
                depth = item.depth or depth
                asserts = item.asserts or asserts
                tagged = item.tagged if item.level else tagged
                relayed = item.relay or relayed
        return _Head(outer, process, header, relay_level, depth, asserts, tagged, relayed)

    # outer wrappers
    def docker(self, items: list[Token]) -> _Outer:
        return _Outer(str(items[0]).strip())

    journald = compose = launcher = docker

    def summary(self, items: list[Token]) -> _Outer:
        return _Outer(str(items[0]).strip(), summary=True,
                      asserts=items[0].type == "PYTEST_FAILED_ASSERT")

    def quote(self, items: list[Token]) -> _Outer:
        # a `  | ` margin (MARGIN) is a log viewer's gutter or an exception group's border
        raw = str(items[0])
        return _Outer(raw.strip(), depth=_margin(raw) if items[0].type == "MARGIN" else 0,
                      asserts=items[0].type == "PYTEST_ASSERT")

    def relay(self, items: list[Token]) -> _Outer:
        # `2024-01-02 03:04:05,123 - INFO - vLLM: `, `[2024-01-02 03:04:05] ERROR: `
        text = str(items[0]).strip()
        if items[0].type == "LOGFMT":  # `time="..." level=error msg="`: Go's loggers, lower case
            return _Outer(text, _level_word(text.partition(" level=")[2].partition(" ")[0].upper()),
                          relay=True)
        if items[0].type == "LEVEL_TAG":  # `[ERROR] `, a wrapper's capitalised `[Error] `
            return _Outer(text, _level_word(text.strip("[] ").upper()), tagged=True, relay=True)
        level = next((_level_word(w) for w in re.split(r"[\s\[\]:-]+", text)
                      if _level_word(w) is not None), None)
        return _Outer(text, level, relay=True)

    # prefixes
    def prefix(self, items: list[object]) -> object:
        return items[0]

    def proc_prefix(self, items: list[Token]) -> Process:
        # `(VllmWorker rank=2 pid=808339, ip=10.0.0.1) `: the grammar fixed the separators
        inner = str(items[0]).strip()[1:-1]
        inner, _, ip = inner.partition(", ip=")
        name, _, pid = inner.rpartition("pid=")
        return _process(name.strip() or "pid", int(pid), ip or None)

    def cut_prefix(self, items: list[Token]) -> Process:
        # `ker_TP5 pid=207855) `: what is left of the name, and the pid when it is still there
        inner = str(items[0]).strip()[:-1]
        inner = inner.partition(", ip=")[0]
        name, _, pid = inner.rpartition("pid=")
        return _process(name.strip() or "pid", int(pid) if pid.isdigit() else None)

    def ray_daemon(self, items: list[Token]) -> Process:
        inner = str(items[0]).strip()[1:-1]
        name, _, ip = inner.partition(", ip=")
        return _process(name, None, ip or None)

    # headers
    def header(self, items: list[_Header]) -> _Header:
        return items[0]

    def record(self, items: list[Token]) -> _Header:
        # `ERROR 02-05 10:11:13 [multiproc_executor.py:870] `
        level, date, clock, site = str(items[0]).split(" ", 3)
        return _Header(Level(level), f"{date} {clock}", site.strip().strip("[]"))

    def ray_core(self, items: list[Token]) -> _Header:
        # `[2024-02-27 16:09:19,106 E 19394 19394] logging.cc:361: `; its bracket redacted
        # (`[DATE] (raylet) node_manager.cc:3007: `): level and time unknown
        bracket, site = str(items[0])[1:].split("] ", 1)
        site = site.strip().rstrip(":")
        fields = bracket.split()
        if len(fields) != 5 or fields[2] not in _GLOG_LEVELS:
            return _Header(None, None, site)
        date, clock, letter = fields[0], fields[1].split(",")[0], fields[2]
        return _Header(_GLOG_LEVELS[letter], f"{date[5:]} {clock}", site)

    def glog_short(self, items: list[Token]) -> _Header:
        # `[E ProcessGroupNCCL.cpp:474] `
        letter, site = str(items[0]).strip().strip("[]").split(" ", 1)
        return _Header(_GLOG_LEVELS[letter], None, site)

    def cut_record(self, items: list[Token]) -> _Header:
        # `10:11:14 [multiproc_executor.py:492] `: the level went with the cut; behind a wrapper
        # nobody taught the grammar (`  | ERROR 07-01 13:54:43 x.py:120] `, a custom format's
        # `2024-12-19 21:40:35 ERROR 56542 [x.py:64] `) its level word is still there
        words = str(items[0]).rstrip().rstrip("]").replace("[", " ").split()
        level = next((_level_word(w) for w in reversed(words[:-1]) if _level_word(w)), None)
        return _Header(level, None, words[-1])

    def pylog(self, items: list[Token]) -> _Header:
        # `2025-01-01 10:00:00,000 - vllm - ERROR - x.py:12 - `
        parts = str(items[0]).split(" - ")
        level = next(_level_word(p) for p in parts[1:] if _level_word(p) is not None)
        return _Header(level, parts[0][5:].split(",")[0], parts[1] if len(parts) > 3 else "-")

    def ray_py(self, items: list[Token]) -> _Header:
        # `2024-05-08 14:22:55,484\tINFO worker.py:1740 -- ` (a pasted copy: a space for the TAB)
        day, clock, level, site = str(items[0]).split(None, 4)[:4]
        return _Header(_level_word(level), f"{day[5:]} {clock.split(',')[0]}", site)

    def ray_serve(self, items: list[Token]) -> _Header:
        # `ERROR 2025-02-27 23:48:16,631 controller 770463 -- ` (older: `... replica.py:893 - `)
        fields = str(items[0]).split()
        site = fields[5] if len(fields) > 6 and ":" in fields[5] else fields[3]
        return _Header(_level_word(fields[0]), f"{fields[1][5:]} {fields[2].split(',')[0]}", site)

    def kserve(self, items: list[Token]) -> _Header:
        # `2024-06-13 12:52:58.123 1 kserve ERROR [model_server.py:start():200] `
        text = str(items[0])
        fields = text.split()
        level = next(_level_word(f.rstrip(":")) for f in fields[2:]
                     if _level_word(f.rstrip(":")) is not None)
        logger = fields[3] if fields[2].isdigit() else fields[2]
        site = text.partition("[")[2].rpartition("]")[0] or logger
        return _Header(level, f"{fields[0][5:]} {fields[1].split('.')[0]}", site)

    def neuron(self, items: list[Token]) -> _Header:
        # `2026-Jun-25 14:34:26.362810   275:2040  ERROR  TDRV:exec_process_custom_notification `
        date, clock, _, level, site = str(items[0]).split()[:5]
        return _Header(_level_word(level), f"{date[5:]} {clock.split('.')[0]}", site)

    def bracket_fields(self, items: list[Token]) -> _Header:
        # `[2025-03-05 14:28:45,820] [ERROR] [MainThread] [vllm.worker.worker_base] >>> `: the
        # call site is the field that names a file's line, else the last (the logger's name)
        fields = re.findall(r"\[([^\[\]]*)\]", str(items[0]))
        stamp, level, rest = fields[0], fields[1], fields[2:]
        site = next((f for f in rest if re.search(r"\.py:\d+$", f)), rest[-1])
        return _Header(_level_word(level), stamp[5:19].replace("T", " "), site)

    def spdlog(self, items: list[Token]) -> _Header:
        # `[2025-05-05 01:56:15.842742] [error] [1408] [operation_base.cpp:338] `: the level is
        # the field that is a level word (spdlog's `err` is ERROR), the call site the field after
        # it naming a source line, else the last field after it (`-` when there is none)
        stamp, *fields = re.findall(r"\[([^\[\]]*)\]", str(items[0]))
        words = [_level_word("ERROR" if f.upper() == "ERR" else f.upper()) for f in fields]
        at = next(i for i, level in enumerate(words) if level is not None)
        rest = fields[at + 1:]
        site = next((f for f in rest if re.search(r"\.\w+:\d+$", f)), rest[-1] if rest else "-")
        return _Header(words[at], stamp[5:19].replace("T", " "), site)

    def pybasic(self, items: list[Token]) -> _Header:
        # `ERROR:root:`, or `ERROR:2026-03-26 21:59:41,526:` (its time, and no logger named)
        level, rest = str(items[0]).split(":", 1)
        if rest[:4].isdigit():
            return _Header(_level_word(level), rest[5:19], "-")
        return _Header(_level_word(level), None, rest.split(":", 1)[0])

    def loguru(self, items: list[Token]) -> _Header:
        # `2024-01-02 03:04:05.123 | INFO     | module:func:12 - ` or `... | ERROR | worker | `
        stamp, level, site = (part.strip() for part in str(items[0]).split("|")[:3])
        site = site.removesuffix("-").strip()
        day = 3 if stamp[2] == "-" else 5  # GuideLLM's two-digit year
        return _Header(_level_word(level), stamp[day:day + 14], site)

    def level_word(self, items: list[Token]) -> _Header:
        # `ERROR `, `- ERROR - `, `[ERROR] `, `[ERROR|2024-06-26 10:00:00] `, `[E 2024-... x:12] `:
        # the level is the first level word, or the bracket's letter; the logger named no call
        # site this header keeps, but a logger wrote it (not a raw stream's line)
        text = str(items[0])
        found = _LEVEL_IN_HEADER.search(text.upper())  # `[Error] ` as `[ERROR] `
        if found is not None:
            return _Header(_level_word(found.group()), None, "-")
        return _Header(_GLOG_LEVELS.get(text.strip(" -|[")[:1]), None, "-")

    def cann_code(self, items: list[Token]) -> _Header:
        # `EZ9999: `, `EZ9999[PID: 4] 2025-... AclNN_Inner_Error(EZ9999): `, `[PID: 4] ...
        # Memory_Allocation_Failure(EL0004): `: an error record, its code (the last one the header
        # names) for its site (native code's: causality `native`)
        return _Header(Level.ERROR, None, _CANN_CODE.findall(str(items[0]))[-1])

    def habana(self, items: list[Token]) -> _Header:
        # `[Rank:0] FATAL ERROR :: `: Gaudi's bridge; its module begins the body (habana_module)
        return _Header(Level.CRITICAL, None, None)

    def ci_command(self, items: list[Token]) -> _Header:
        # `##[error]`: GitHub Actions' annotation; a group marker is an ordinary line
        return _Header(_CI_LEVELS.get(str(items[0])[3:-1], Level.INFO), None, None)

    def glog(self, items: list[Token]) -> _Header:
        # `E0731 16:03:52.115000 116603 torch/x.py:539] [1/0] ` or `[W301 17:37:32.70 F.cpp:15] `
        fields = str(items[0]).lstrip("[").split()
        letter, month_day = fields[0][0], fields[0][1:][-4:].zfill(4)  # YYYYMMDD: its MMDD
        site = next(f for f in fields[2:] if f.endswith("]")).rstrip("]")
        time = f"{month_day[:2]}-{month_day[2:]} {fields[1].split('.')[0]}"
        return _Header(_GLOG_LEVELS[letter], time, site)

    # bodies
    def body(self, items: list[_Body]) -> _Body:
        return items[0]

    def _simple(kind: LineKind, marks: str = "|") -> object:  # type: ignore[misc]
        def build(self: _ToRecords, items: list[Token]) -> _Body:
            text = "".join(str(t) for t in items)
            return _Body(kind, text, depth=_margin(text, marks))
        return build

    traceback_header = _simple(LineKind.TRACEBACK_HEADER)

    def wrapped_traceback(self, items: list[Token]) -> _Body:
        # `RuntimeError: Traceback (most recent call last):`: a traceback header (its exception
        # is the one the traceback ends with); the wrapper's name is kept as the exception (a
        # record's words before it, `EngineCore hit an exception`, likewise: its title)
        text = str(items[0]).strip()
        return _Body(LineKind.TRACEBACK_HEADER, text, exception=text.partition(": ")[0])

    def ray_unhandled(self, items: list[Token]) -> _Body:
        # Ray's `Unhandled error (suppress with ...): ray::W.m() (pid=...)`: the header of the
        # remote traceback that follows, the title of its error
        text = str(items[0]).strip()
        return _Body(LineKind.TRACEBACK_HEADER, text, exception=text.partition(" (")[0])

    group_header = _simple(LineKind.GROUP_HEADER, "|+")
    group_box = _simple(LineKind.GROUP_BOX, "|+")
    group_blank = _simple(LineKind.BLANK)  # a blank line inside a group's borders
    caret = _simple(LineKind.CARET)
    elided = _simple(LineKind.ELIDED)
    repeat = _simple(LineKind.REPEAT)
    fault_thread = _simple(LineKind.FAULT_THREAD)
    extension_modules = _simple(LineKind.EXTENSION_MODULES)
    no_exception = _simple(LineKind.NO_EXCEPTION)
    ignored = _simple(LineKind.IGNORED)
    def _leveled(kind: LineKind) -> object:  # type: ignore[misc]
        """uvicorn's shapes: the body starts with its own level, `ERROR:    ...`."""
        def build(self: _ToRecords, items: list[Token]) -> _Body:
            return _Body(kind, "".join(str(t) for t in items),
                         level=Level(str(items[0]).rstrip(":")))
        return build

    def json_record(self, items: list[Token]) -> _Body:
        # `{"level":"error","ts":...,"msg":"..."}`: a structured logger's record, its level a field
        text = str(items[0])
        found = _JSON_LEVEL.search(text)
        level = _level_word(found.group(1).upper()) if found is not None else None
        return _Body(LineKind.PLAIN, text, level=level)

    def level_line(self, items: list[Token]) -> _Body:
        # `FATAL: ...`, `error: ...`, `Fatal error: ...`, `Failed to start x: ...`: the line says
        # what it is at its start
        text = str(items[0])
        fatal = text[:5].lower() == "fatal"
        return _Body(LineKind.PLAIN, text, level=Level.CRITICAL if fatal else Level.ERROR)

    def habana_module(self, items: list[Token]) -> _Body:
        # `MODULE:PT_DEVMEM Allocation failed ...` after Gaudi's header: the module its site
        text = str(items[0])
        return _Body(LineKind.PLAIN, text, site=text.partition(" ")[0])

    def cann_inline(self, items: list[Token]) -> _Body:
        # `aclnnX ... error code 161002 Invalid_Argument(EZ0027):`: CANN's error record whose
        # head was elided, the whole line its message, its last code its site (as cann_code's)
        text = str(items[0])
        return _Body(LineKind.PLAIN, text, level=Level.ERROR, site=_CANN_CODE.findall(text)[-1])

    def cann_trace(self, items: list[Token]) -> _Body:
        # `Kernel task happen error, retCode=0x31.[FUNC:X][FILE:stream.cc][LINE:1183]`: a line of
        # CANN's error trace, its reporting source its site (native code's, as a glog record's)
        text = str(items[0])
        found = _CANN_TRACE_SITE.search(text)
        site = f"{found['file']}:{found['line']}" if found else None
        return _Body(LineKind.PLAIN, text.strip(), level=Level.ERROR, site=site)

    cann_trace_heading = _simple(LineKind.BLANK)  # CANN's `TraceBack ...:`: a separator
    uvicorn = _leveled(LineKind.UVICORN)

    def leveled_exception(self, items: list[object]) -> _Body:
        # `ERROR:    ValueError: x`: the exception the level line names, weighed as a one-line
        # exception (a repr) at the line's own level
        level, lead, line = items
        assert isinstance(line, _Body)
        return _Body(LineKind.EXCEPTION_REPR, f"{level}{lead}{line.text}",
                     exception=line.exception, message=line.message,
                     level=Level(str(level).rstrip(":")))
    access = _leveled(LineKind.ACCESS)

    py_warning = _simple(LineKind.PY_WARNING)
    progress = _simple(LineKind.PROGRESS)
    request_logged = _simple(LineKind.REQUEST)
    blank = _simple(LineKind.BLANK)
    indented = _simple(LineKind.INDENTED)
    plain = _simple(LineKind.PLAIN)

    def chain_cause(self, items: list[Token]) -> _Body:
        return _Body(LineKind.CHAIN, str(items[0]).strip(), chain=ChainReason.DIRECT_CAUSE,
                     depth=_margin(str(items[0])))

    def chain_context(self, items: list[Token]) -> _Body:
        return _Body(LineKind.CHAIN, str(items[0]).strip(), chain=ChainReason.DURING_HANDLING,
                     depth=_margin(str(items[0])))

    def frame(self, items: list[Token]) -> _Body:
        # `  File "/p/x.py", line 12, in f` (faulthandler: `line 12 in f`)
        glued = _glued_exception(str(items[0]))
        if glued is not None:  # the rest of a traceback a paste glued onto its frame's line
            return glued
        if 'File "' not in str(items[0]):
            return self._ipython_frame(str(items[0]))
        rest = str(items[0]).split('File "', 1)[1]
        if '", line ' not in rest or " in " not in rest:
            return self._cut_frame(rest)
        file, _, rest = rest.rpartition('", line ')
        number, _, function = rest.partition(" in ")
        if not number.rstrip(",").isdigit():  # the last of two frames a wrap joined, cut at `line`
            return self._cut_frame(f'{file}", line {rest}')
        text = f'File "{file}", line {number.rstrip(",")}, in {function}'
        return _Body(LineKind.FRAME, text,
                     frame=Frame(file, int(number.rstrip(",")), function.strip()),
                     depth=_margin(str(items[0])))

    @staticmethod
    def _cut_frame(rest: str) -> _Body:
        # a frame a terminal's wrap cut after `File "`: its path (whole or cut) is all there is;
        # line 0 and no function say they are unknown
        file = rest.partition('"')[0].strip()
        number = rest.partition('", line ')[2].partition(",")[0].strip()
        line = int(number) if number.isdigit() else 0
        return _Body(LineKind.FRAME, f'File "{file}", line {line}, in ?',
                     frame=Frame(file, line, "?"))

    @staticmethod
    def _ipython_frame(token: str) -> _Body:
        # IPython's `File ~/env/x.py:12, in Class.f(self, x)`: the call's arguments are dropped so
        # that the function reads as in a plain traceback; a hand-shortened one has no `File `
        body = token.strip().lstrip("|").strip()
        place, _, call = body.removeprefix("File ").partition(", in ")
        file, _, number = place.rpartition(":")
        function = call.partition("(")[0].strip()
        return _Body(LineKind.FRAME, f'File "{file}", line {number}, in {function}',
                     frame=Frame(file, int(number), function))

    def exc_line(self, items: list[Token]) -> _Body:
        name = str(items[0]).strip().lstrip("|").strip()
        message = str(items[1]).strip() if len(items) > 1 else ""
        glued = _next_record(message) if " " in message else None
        if glued is not None:  # the next record, glued on by a paste, is not the message
            message = message[:glued]
        text = f"{name}: {message}" if message else name
        if name.endswith(":"):  # `Name:` and nothing after: the text keeps the colon (EXC_TYPE)
            name = name[:-1].rstrip()
            text = f"{name}:"
        return _Body(LineKind.EXCEPTION, text, exception=name, message=message,
                     depth=_margin(str(items[0])))

    def indented_exception(self, items: list[object]) -> _Body:
        # `    RuntimeError: ...` pasted indented: an indented line (a traceback's source slot or a
        # message going on may hold it) that names its exception; assemble.py decides which
        lead, line = items
        assert isinstance(line, _Body)
        return _Body(LineKind.INDENTED, f"{lead}{line.text}", exception=line.exception,
                     message=line.message)

    def pytest_crash(self, items: list[Token]) -> _Body:
        # `../vllm/x.py:363: RuntimeError`: pytest names the exception's type after its place
        name = str(items[0]).strip().rpartition(": ")[2]
        return _Body(LineKind.EXCEPTION, name, exception=name, message="")

    def process_header(self, items: list[Token]) -> _Body:
        return _Body(LineKind.PROCESS_HEADER, f"Process {items[0]}:", message=str(items[0]))

    def _labelled(label: str, kind: LineKind = LineKind.DIAGNOSTIC) -> object:  # type: ignore[misc]
        """Whole-line shapes whose text is their message: a kill, a compiler or usage error."""
        def build(self: _ToRecords, items: list[Token]) -> _Body:
            text = str(items[0]).strip()
            return _Body(kind, text, exception=label, message=text)
        return build

    killed = _labelled("Killed", LineKind.FATAL)
    compiler_error = _labelled("compiler error")
    linker_error = _labelled("linker error")

    def loader_error(self, items: list[Token]) -> _Body:
        # the loader's text is the message Python raises it with: an extension module's import
        # (CPython's `.cpython-310-...so`, the stable ABI's `.abi3.so`) fails with ImportError,
        # ctypes' load of any other library with OSError
        text = str(items[0]).strip()
        library = text.partition(": ")[0].rsplit("/", 1)[-1]
        extension = ".cpython-" in library or ".abi3.so" in library
        return _Body(LineKind.EXCEPTION_REPR, text,
                     exception="ImportError" if extension else "OSError", message=text)
    def usage_error(self, items: list[Token]) -> _Body:
        # `vllm serve: error: argument ...`, after a label or a prompt (USAGE_LEAD) too: the
        # text is argparse's, from the program's name
        text = str(items[-1]).strip()
        return _Body(LineKind.DIAGNOSTIC, text, exception="usage error", message=text)

    def pydantic_value_error(self, items: list[Token]) -> _Body:
        # `  Value error, <message> [type=value_error, input_value=..., input_type=...]`: the
        # ValueError a validator raised, as pydantic prints it (grammars/vllm.lark)
        return _validator_error(str(items[0]), "ValueError")

    def pydantic_assertion(self, items: list[Token]) -> _Body:
        # `  Assertion failed, <message> [type=assertion_error, ...]`: a validator's assert
        return _validator_error(str(items[0]), "AssertionError")

    def pip_error(self, items: list[Token]) -> _Body:
        # `      ERROR: Could not find a version ...` in pip's box: the child pip's error, a line
        # of its own (a DIAGNOSTIC ends the box's `subprocess-exited-with-error` message)
        text = str(items[0]).strip()
        return _Body(LineKind.DIAGNOSTIC, text, exception="ERROR",
                     message=text.removeprefix("ERROR: "))
    exit_report = _labelled("exited")

    def installer_error(self, items: list[Token]) -> _Body:
        # `  × No solution found when resolving dependencies:`: a package manager's error (uv,
        # pixi), its causes (`╰─▶ Because ...`) on the indented lines under it
        text = str(items[0]).strip()
        return _Body(LineKind.DIAGNOSTIC, text, exception="installer error",
                     message=text.removeprefix("×").strip())

    def shell_error(self, items: list[Token]) -> _Body:
        # `bash: vllm: command not found`, `zsh: permission denied: ./serve.sh`: what the shell
        # could not do, as bash's exit status says it (127 not found, 126 not executable)
        text = str(items[0]).strip()
        lowered = text.lower()
        unrunnable = any(w in lowered for w in _UNRUNNABLE) and "not found" not in lowered
        return _Body(LineKind.DIAGNOSTIC, text,
                     exception="cannot execute" if unrunnable else "command not found",
                     message=text)

    def python_error(self, items: list[Token]) -> _Body:
        # `/usr/bin/python3: No module named vllm`, `python3: Error while finding module
        # specification for 'vllm.x' (ModuleNotFoundError: No module named 'vllm')`: the
        # interpreter could not find the module `-m` named; the exception is the one in brackets
        # (the one Python met on the way), else the ImportError runpy reports (a missing module:
        # ModuleNotFoundError). The text keeps the interpreter, which says where it ran.
        text = str(items[0]).strip()
        said = text.partition(": ")[2]
        found = _MODULE_SPEC.fullmatch(said)
        if found is not None:
            return _Body(LineKind.EXCEPTION_REPR, text, exception=found["name"],
                         message=found["message"])
        missing = said.startswith("No module named ") and "; " not in said
        return _Body(LineKind.EXCEPTION_REPR, text,
                     exception="ModuleNotFoundError" if missing else "ImportError", message=said)

    launcher_error = _labelled("launcher error")
    ray_worker_died = _labelled("worker died")
    gpu_xid = _labelled("NVRM Xid")
    build_error = _labelled("build error")
    device_assert = _labelled("device-side assertion")
    host_assert = _labelled("assertion failure")

    def request_refused(self, items: list[Token]) -> _Body:
        # an error body with a 4xx code: the server answered, it refused one request (an access
        # line's answer), and the client printed why: the request's error, named by its type;
        # a lead before the client's `Error code: 4xx - ` stays in the text
        text = "".join(str(t) for t in items).strip()
        name, message = _error_body(str(items[-1]))
        return _Body(LineKind.ACCESS, text, exception=name, message=message)

    def http_status(self, items: list[Token]) -> _Body:
        # `HTTP/1.1 500 Internal Server Error` as curl prints the answer it got
        return _Body(LineKind.ACCESS, str(items[0]).strip())

    def client_status(self, items: list[Token]) -> _Body:
        # `HTTP 500: Internal Server Error`, `Request failed with status code 400`: a client's
        # error for the status it names (the first three digits of 4xx or 5xx the shape holds)
        text = str(items[0]).strip()
        found = terminal_regex("CLIENT_STATUS_CODE").search(text)
        code = found.group() if found is not None else "error"
        return _Body(LineKind.EXCEPTION_REPR, text, exception=f"HTTP {code}", message=text)

    def detail_body(self, items: list[Token]) -> _Body:
        # `{"detail": "Not Found"}`: FastAPI's HTTPException's answer, its detail the message;
        # a list of failed checks (`[{"loc": [...], "msg": "Field required", ...}]`) is its
        # RequestValidationError's, the checks' messages its own
        text = str(items[0]).strip()
        body = _braced(text)
        found = _literal(body)
        detail = found.get("detail") if isinstance(found, dict) else None
        if isinstance(detail, list):
            checks = [f"{'.'.join(map(str, d.get('loc', ())))}: {d.get('msg', '')}"
                      for d in detail if isinstance(d, dict)]
            return _Body(LineKind.EXCEPTION_REPR, text, exception="RequestValidationError",
                         message="; ".join(checks) or body)
        return _Body(LineKind.EXCEPTION_REPR, text, exception="HTTPException",
                     message=str(detail) if detail is not None else body)

    def request_failed(self, items: list[Token]) -> _Body:
        # `{"object":"error","message":"...","type":"InternalServerError","code":500}`, after
        # whatever lead a client's logger put before it
        text = "".join(str(t) for t in items).strip()
        name, message = _error_body(str(items[-1]))
        return _Body(LineKind.EXCEPTION_REPR, text, exception=name, message=message)

    def stub_exception(self, items: list[object]) -> _Body:
        # Triton's `Failed to initialize Python stub: ValueError: ...`: the exception it logs
        body = items[-1]
        assert isinstance(body, _Body)
        return body

    def embedded_exception(self, items: list[object]) -> _Body:
        # `Error in model execution: ValueError: ...`: the exception the line names, weighed as a
        # one-line exception (a repr), not as a traceback's last line; the text keeps its lead
        body = items[-1]
        assert isinstance(body, _Body)
        lead = str(items[0])
        message = body.message
        escape = _ESCAPED_BREAK.search(lead)
        if escape is not None and message is not None:
            # a message that holds its lines as escapes (`"...\\nValueError: x"`: a JSON or
            # repr string logged on one line): the exception's message ends with its own line,
            # and the quote the string opened in the lead closes it
            message = message.split(escape[0], 1)[0]
            if message[-1:] in ("'", '"') and lead.count(message[-1]) % 2:
                message = message[:-1]
        # records a paste glued into one line: the exception is the glued record's, read as that
        # record alone would be (its message ends where the next record's head begins: exc_line)
        glued = _glued_head(lead) if escape is None else None
        header = _ERROR_HEADER_END.search(lead) if escape is None else None
        if header is not None and (_mid_string(lead[:header.start()]) or _CONTENT_KEY.search(lead)) \
                or glued is None and escape is None and header is None \
                and _quoted_head(lead, body.text) \
                and (_CONTENT_KEY.search(lead) or len(lead) > _SHORT_LEAD):
            # a record's text that quotes another record, its head and exception, far into a
            # long line (a logged prompt, a retry's message): plain text, not an error it raised;
            # an error record's head, however short the lead, where a string the line opened
            # holds words before it (a JSON line's request body or field: `{"msg": "ticket: ERROR
            # 05-01 ... ValueError: ..."}`): a string's value that begins with the record is a
            # relay of its line (a collector's `{"log": "ERROR 05-01 ... ValueError: ..."}`)
            return _Body(LineKind.PLAIN, f"{lead}{body.text}")
        return _Body(LineKind.EXCEPTION if glued else LineKind.EXCEPTION_REPR,
                     f"{lead}{body.text}", exception=body.exception, message=message,
                     glued=glued)

    def embedded_repr(self, items: list[Token]) -> _Body:
        # `... err=ValueError('message'), type(err)=...`: the class, and the quoted message up to
        # its closing quote (the whole rest when a paste cut it)
        text = "".join(str(t) for t in items)
        name, _, rest = str(items[-1]).partition("(")
        quote, rest = rest[0], rest[1:]
        message = rest.partition(quote + ")")[0]
        return _Body(LineKind.EXCEPTION_REPR, text, exception=name, message=message)

    def uncaught_class(self, items: list[Token]) -> _Body:
        # `Uncaught exception | <class 'ValueError'>; message; <traceback object at 0x...>;`
        text = str(items[0]).strip()
        name = text.partition("<class '")[2].partition("'>")[0]
        message = text.partition("'>; ")[2].rpartition("; <traceback object")[0]
        return _Body(LineKind.EXCEPTION_REPR, text, exception=name, message=message or text)

    def error_phrase(self, items: list[Token]) -> _Body:
        # `NCCL error in: x.cpp:12, unhandled cuda error`, `[Errno 98] error while ...`: the phrase
        # names the error; an errno's text is what OSError prints, so it is that exception
        label = str(items[-2])
        # a CHECK macro's source place between the label and its colon (`CUDA error (x.h:60): ...`)
        message = _SOURCE_PLACE.sub("", str(items[-1]), count=1)
        message = message.removeprefix(" in").removeprefix(":").removeprefix(" ")
        message = message.removeprefix("- ")
        text = "".join(str(t) for t in items)
        if label.startswith(("[Errno", "[WinError")):
            return _Body(LineKind.EXCEPTION_REPR, text, exception="OSError",
                         message=f"{label} {message}")
        if label.startswith('"'):
            # a kernel dispatch's `"op" not implemented for 'Half'` without its class: torch
            # raises it as a RuntimeError (its NotImplementedError subclass in later releases)
            return _Body(LineKind.EXCEPTION_REPR, text, exception="RuntimeError",
                         message=f"{label} {message}")
        return _Body(LineKind.EXCEPTION_REPR, text, exception=label, message=message)

    frame_list = _simple(LineKind.FRAME_LIST)

    def stub_frame(self, items: list[Token]) -> _Body:
        # `  /usr/lib/python3.12/signal.py(58): signal`
        text = str(items[0]).strip().rstrip('"')
        place, _, function = text.partition("): ")
        file, _, number = place.rpartition("(")
        return _Body(LineKind.FRAME, f'File "{file}", line {number}, in {function}',
                     frame=Frame(file, int(number), function.strip()))

    def exc_repr(self, items: list[Token]) -> _Body:
        # `RuntimeError('CUDA error: ...')`: the type, and the message without its quotes
        text = str(items[0]).strip()
        name, _, rest = text.partition("(")
        message = rest[:-1].strip()[1:-1] if len(rest) > 1 else ""
        return _Body(LineKind.EXCEPTION_REPR, text, exception=name, message=message)

    def terminate_frame(self, items: list[Token]) -> _Body:
        text = str(items[0])
        return _Body(LineKind.FATAL, text, exception="terminate", message=text.strip())

    def fatal(self, items: list[Token]) -> _Body:
        text = "".join(str(t) for t in items)
        label = str(items[0])
        message = str(items[-1]).strip() if items[-1].type == "FATAL_TEXT" else ""
        separated = any(t.type == "FATAL_SEP" and ":" in str(t) for t in items)
        for start, short in _FATAL_LABELS.items():
            if label.startswith(start):
                message = f"{label[len(start):]} {message}".strip()
                label = short + (label[len(start):] if short == "SIG" else "")
                if short == "SIG":
                    message = str(items[-1]).strip() if items[-1].type == "FATAL_TEXT" else ""
                break
        else:
            if message and not separated:
                # the label is the start of a sentence that runs on without a colon (`Memory
                # access fault by GPU node-6 (Agent handle: ...) on address ...`, `Segmentation
                # fault (core dumped)`): its message is the whole sentence, as printed
                message = text.strip()
        return _Body(LineKind.FATAL, text, exception=label, message=message)

    def shell_signal(self, items: list[Token]) -> _Body:
        # `zsh: illegal hardware instruction  vllm serve m`: the signal as the shell's label for
        # it, the whole report (the command that died) as the message
        text = str(items[0]).strip()
        # the first signal word: the command after it (before it in fish's report) may hold any
        lowered = text.rpartition(" by signal ")[2].lower()
        found = [(lowered.find(w), -len(w), w) for w in _SHELL_SIGNALS if w in lowered]
        label = _SHELL_SIGNALS[min(found)[2]] if found else "Killed"
        return _Body(LineKind.FATAL, text, exception=label, message=text)

    def native_abort(self, items: list[Token]) -> _Body:
        # `crypto/fips/fips.c:154: OpenSSL internal error: FATAL FIPS SELFTEST FAILURE`: the
        # library's label (its words before the message, the source place dropped), the rest
        text = str(items[0]).strip()
        if text.startswith("FATAL "):
            return _Body(LineKind.FATAL, text, exception="FATAL", message=text[6:].strip())
        if text.startswith("***"):
            return _Body(LineKind.FATAL, text, exception="stack smashing detected",
                         message=text)
        if " segfault at " in f" {text}":  # the kernel's record of a process it ended (dmesg)
            return _Body(LineKind.FATAL, text, exception="Segmentation fault", message=text)
        for trap, signal in _KERNEL_TRAPS.items():  # `traps: python3[12] general protection ...`
            if f"] {trap}" in text:
                return _Body(LineKind.FATAL, text, exception=signal, message=text)
        label, sep, message = text.partition(": ")
        if "internal error" in text and sep:
            before, _, message = text.partition(" internal error: ")
            label = before.rpartition(": ")[2] + " internal error"
        if not sep:  # `double free or corruption (out)`
            label, _, message = text.partition(" (")
            message = f"({message}" if message else ""
        return _Body(LineKind.FATAL, text, exception=label, message=message)

    def crash_banner(self, items: list[Token]) -> _Body:
        # a native crash handler's banner (apache-tvm-ffi's SIGSEGV handler's): a segmentation
        # fault whose message is the banner's words; its native stack follows (assemble.py,
        # causality.yaml `native_stacks`)
        text = str(items[0]).strip()
        return _Body(LineKind.FATAL, text, exception="Segmentation fault",
                     message=text.strip("! \t"))

    def runtime_abort(self, items: list[Token]) -> _Body:
        # `LLVM ERROR: ...`, `thread 'main' panicked at ...`, `panic: ...`: the runtime's label
        text = str(items[0]).strip()
        if text.startswith("thread "):
            return _Body(LineKind.FATAL, text, exception="panic", message=text)
        if text.startswith("[libprotobuf"):
            return _Body(LineKind.FATAL, text, exception="libprotobuf FATAL",
                         message=text.partition("] ")[2])
        if text.startswith("***"):  # glibc: `*** Error in `python3': double free or ...`
            message = text.partition("': ")[2]
            return _Body(LineKind.FATAL, text, exception=message.partition(": 0x")[0],
                         message=message)
        label, _, message = text.partition(": ")
        return _Body(LineKind.FATAL, text, exception=label, message=message)

    def nccl(self, items: list[Token]) -> _Body:
        level = next(str(t) for t in items if t.type == "NCCL_LEVEL")
        message = next((str(t) for t in items if t.type == "NCCL_TEXT"), "")
        return _Body(LineKind.NCCL, f"NCCL {level} {message}".rstrip(),
                     exception=f"NCCL {level}", message=message)


def _validator_error(raw: str, name: str) -> _Body:
    """pydantic's line for a check a validator failed (`  <label>, <message> [type=...]`): the
    exception `name` the validator raised, without pydantic's bracketed tail (the input's repr,
    often long). Indented, it is a line a ValidationError's message may go on with
    (assemble.py)."""
    text = raw.strip()
    message = text.partition(", ")[2].partition(" [type=")[0].strip()
    kind = LineKind.INDENTED if raw[:1].isspace() else LineKind.EXCEPTION_REPR
    return _Body(kind, raw if kind is LineKind.INDENTED else text, exception=name,
                 message=message)


def _braced(text: str) -> str:
    """The text from its first `{` on, a quote around it dropped."""
    return text[text.find("{"):].rstrip().rstrip("\"'")


def _literal(body: str) -> object:
    """The body read as JSON or as the Python literal a client printed, or None when it is
    neither."""
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(body)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _error_body(text: str) -> tuple[str, str]:
    """The type and message of an OpenAI-style error body (vLLM's `ErrorResponse`, flat before
    0.10, under `error` since), as JSON or as the Python dict a client printed, with or without
    the lead before it (`Error code: 400 - `) and a quote around it."""
    body = _braced(text)
    found = _literal(body)
    fields = found.get("error", found) if isinstance(found, dict) else {}
    if isinstance(fields, dict) and (fields.get("type") or fields.get("message")):
        return str(fields.get("type") or "error"), str(fields.get("message") or "")
    # not a literal a parser reads (a message that ran past the end of a cut line): its fields
    kind = _BODY_FIELD.search(body.replace("'type'", '"type"'))
    message = _BODY_MESSAGE.search(body)
    return (kind.group(1) if kind else "error",
            message.group(2) if message else "")


_BODY_FIELD = re.compile(r'"type": ?["\']([^"\'\n]+)["\']')
_BODY_MESSAGE = re.compile(r'["\']message["\']: ?(["\'])(.*?)\1(?=, ["\']|\})')


# a shell's words for a command it found but could not run (bash's status 126)
# runpy's `Error while finding module specification for 'x' (<Name>: <message>)`
_MODULE_SPEC = re.compile(r"Error while finding module specification for \S+ "
                          r"\((?P<name>[A-Za-z_][\w.]*): (?P<message>.*)\)\s*")
_UNRUNNABLE = ("permission denied", "cannot execute", "exec format error", "not an executable")


def _level_word(word: str) -> Level | None:
    word = word.strip()
    if word in _PY_LEVELS:
        return _PY_LEVELS[word]
    return Level(word) if word in Level.__members__ else None


_TRANSFORMER = _ToRecords()


# what a record's head glued inside a line holds (GLUED_HEAD), asked first of a frame's line
_GLUED_HINTS = (" pid=", " [rank", " ERROR ", " CRITICAL ", "Z ", "Z] ", ":00 ", ":00] ")


def _glued_exception(text: str) -> _Body | None:
    """The first exception line a paste glued inside `text` behind a record's head (the line
    breaks of a traceback turned into spaces: grammars/vllm.lark GLUED_HEAD), read as that
    record alone would be, with its head; None when `text` holds none."""
    if not any(hint in text for hint in _GLUED_HINTS):
        return None
    exception = terminal_regex("EXC_TYPE")
    after = 0
    for glued in terminal_regex("GLUED_HEAD").finditer(text):
        quoted, after = _quoted(text[after:glued.start()]), glued.end()
        if quoted:
            continue
        start = glued.start() + 1
        end, tokens = _lex_head(text[start:])
        if tokens and exception.match(text, start + end):
            body = _parse_body(text[start + end:])
            if body.kind is LineKind.EXCEPTION and body.exception:
                head = _parse_head(tokens)
                return _Body(LineKind.EXCEPTION, text, exception=body.exception,
                             message=body.message, glued=(head.process, head.header))
    return None


def _glued_head(lead: str) -> tuple[Process, _Header] | None:
    """The head of the record a paste glued at the end of `lead` (an exception's lead: grammars/
    vllm.lark EXC_LEAD), as its process and header; None when the lead ends in no glued head."""
    if not lead.endswith(" "):
        return None
    after = 0
    for glued in terminal_regex("GLUED_HEAD").finditer(lead):
        quoted, after = _quoted(lead[after:glued.start()]), glued.end()
        start = glued.start() + 1
        end, tokens = _lex_head(lead[start:])
        if tokens and start + end == len(lead) and not quoted:
            head = _parse_head(tokens)  # (no prefix: an unprefixed record, main's)
            return head.process, head.header
    return None


def _quoted_head(lead: str, rest: str) -> bool:
    """Whether `lead` ends in a record's head that the text before it quotes (`_quoted`);
    `rest` is what follows the lead (a glued time is a head only before a record)."""
    after = 0
    for glued in terminal_regex("GLUED_HEAD").finditer(lead + rest[:200]):
        if glued.start() >= len(lead):
            break
        start = glued.start() + 1
        if start + _lex_head(lead[start:])[0] == len(lead):
            return _quoted(lead[after:glued.start()])
        after = glued.end()
    return False


# an exception's lead no longer than this is read as a line that names it (EXC_LEAD's short
# lead, grammars/vllm.lark); a longer one only where a record's head or an escaped break ends it
_SHORT_LEAD = 241
# a chat message's text in a JSON or repr value (EXC_LEAD's short lead reads no exception there)
_CONTENT_KEY = re.compile(r"[\"'](?:content|text|reasoning_content|reasoning)[\"']: ?[\"']")
# vLLM's header of an error record at the end of a lead (EXC_LEAD's first form: a line that
# names the exception such a record logged, however long, is read so however the head is quoted)
_ERROR_HEADER_END = re.compile(r"(?<![\w.])(?:ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w.]+:\d+\] $")
# a quote that opens or closes a string: not an apostrophe between two letters (`don't`)
_QUOTE_MARK = re.compile(r"\"|(?<![A-Za-z])'|'(?![A-Za-z])")


def _mid_string(text: str) -> bool:
    """Whether `text` (what comes before a record's head) leaves a string open (`_quoted`'s
    second sense) that holds words before the head: the head is that string's text, not the
    line a relay put in it whole."""
    marks = [m.end() for m in _OUTER_QUOTE.finditer(text)]
    if len(marks) % 2 == 0:
        return False
    said = _RELAYED_PREFIX.sub("", text[marks[-1]:])  # the record's own prefix is the record's
    return _WORDS.search(said) is not None


# a quote mark that opens or closes a string of the line itself (`_QUOTE_MARK` not escaped: a
# `\"` is a quote inside that string, a JSON body held in a JSON field)
_OUTER_QUOTE = re.compile(r"(?<!\\)(?:\"|(?<![A-Za-z])'|'(?![A-Za-z]))")
# process prefixes that end a text before a record's header (vLLM's, Ray's, torch's rank)
_RELAYED_PREFIX = re.compile(r"(?:\((?:[^()\n]*? )?pid=\d+(?:, ip=[\w.:\-]+)?\) ?|\[rank\d+\]: ?)+$")
# a word in a string's value (not an escape's letter: `\n`, `\"`)
_WORDS = re.compile(r"(?<!\\)[A-Za-z0-9]{2,}")


def _quoted(text: str) -> bool:
    """Whether a record's head that follows `text` (the text since the line's head or the
    last record glued in it) is text that quotes a record, not a record a paste glued on: the
    text introduces it (`Request failed, retrying: (EngineCore_DP0 pid=7) ERROR ...`, `said: `)
    (a word and a colon: not triton's `CompilationError: at 106:17:` before its glued source)
    or holds a string it opened and did not close (a JSON value, a repr, a logged prompt:
    `"content": "my server printed (EngineCore_DP0 pid=7) ...`). A record glued on follows a
    whole record: a frame, its source line, a caret line, a message."""
    text = text.rstrip()
    return text[-2:-1].isalpha() and text.endswith(":") \
        or len(_QUOTE_MARK.findall(text)) % 2 == 1


# what a record glued after an exception's message begins with: the next head, a header's level,
# a traceback's header, a frame or source line (indented), a caret line, an exception's name;
# not a word of the message that quoted a head (`Worker (EngineCore_DP0 pid=7) stopped ...`)
_RECORD_START = re.compile(r"\s|[A-Z\[(^]|(?:[a-z_]\w*\.)+_?[A-Z]\w*(?:\([\w.]*\))?:")


def _next_record(message: str) -> int | None:
    """Where the next record a paste glued onto an exception's message begins (GLUED_HEAD),
    its head neither quoted by the message (`_quoted`) nor followed by more of its words; None
    when the message holds none."""
    after = 0
    for glued in terminal_regex("GLUED_HEAD").finditer(message):
        quoted, after = _quoted(message[after:glued.start()]), glued.end()
        start = glued.start() + 1  # the whole head (a time, a prefix, a header after it)
        if not quoted and _RECORD_START.match(message, start + _lex_head(message[start:])[0]):
            return glued.start()
    return None


@cache
def _record_parser() -> Lark:
    """The line grammar with the transformer applied during the parse (no tree is built)."""
    return Lark.open(str(data_dir("grammars") / "vllm.lark"), parser="lalr", lexer="contextual",
                     start=["line", "head", "body", *PART_SYMBOLS], maybe_placeholders=False,
                     transformer=_TRANSFORMER, cache=True)


@cache
def terminal_regex(name: str) -> re.Pattern[str]:
    """One terminal of grammars/vllm.lark, compiled: for a stage that reads a part of a line
    the grammar names (a start symbol of PART_SYMBOLS holds it) out of a line's text. Read
    from the kept lexer texts, so that asking for one loads no Lark tables."""
    texts = _lexer_texts()
    return re_from(texts["terminals"][name], texts.get("programs"))


# The rule `head: outer* prefix* header?` is regular and each of its parts is one terminal, so
# the head is lexed with the grammar's own terminals (in the lexer's priority order) and each
# token handed to the transformer method of its rule, without the LALR machinery: a head costs a
# few microseconds, where a Lark parse costs about a hundred (and every record header differs,
# by its time). tests/test_tokenize.py checks on every corpus line that this gives what the
# whole-line parse gives.
_HEAD_RULES = {  # terminal -> (phase in `head`, transformer method)
    "CRI_TIME": (0, "docker"), "DOCKER_TIME": (0, "docker"), "JOURNALD": (0, "journald"), "COMPOSE": (0, "compose"),
    "QUOTE": (0, "quote"), "BOX": (0, "quote"), "MARGIN": (0, "quote"), "HTML_TAG": (0, "quote"),
    "PROC_PREFIX": (1, "proc_prefix"), "RAY_DAEMON": (1, "ray_daemon"),
    "CUT_PREFIX": (1, "cut_prefix"),
    "RANK": (1, ""), "RECORD_HEADER": (2, "record"), "GLOG_HEADER": (2, "glog"),
    "RAY_CORE_HEADER": (2, "ray_core"), "GLOG_SHORT_HEADER": (2, "glog_short"),
    "PYLOG_HEADER": (2, "pylog"), "RAY_PY_HEADER": (2, "ray_py"),
    "PYBASIC_HEADER": (2, "pybasic"), "CUT_RECORD_HEADER": (2, "cut_record"),
    "CI_TIME": (0, "docker"), "ELLIPSIS": (0, "quote"), "KUBE_PREFIX": (0, "launcher"),
    "TASK_LABEL": (0, "launcher"), "MPI_TAG": (0, "launcher"),
    "TORCHRUN_TAG": (0, "launcher"), "MODAL_TIME": (0, "launcher"),
    "PDSH_HOST": (0, "launcher"), "STREAM_RELAY": (0, "launcher"), "RUNPOD_TAG": (0, "launcher"),
    "PM2_TAG": (0, "launcher"), "STERN_TAG": (0, "launcher"),
    "PYLOG_RELAY": (0, "relay"), "BRACKET_LOG": (0, "relay"), "VIEW_TIME": (0, "docker"),
    "BUILDKIT_STEP": (0, "launcher"), "EMPHASIS": (0, "quote"), "STATUS_MARK": (0, "quote"),
    "PYTEST_E": (0, "quote"), "PYTEST_FAILED": (0, "summary"),
    "PYTEST_ASSERT": (0, "quote"), "PYTEST_FAILED_ASSERT": (0, "summary"),
    "ANY_TIME": (0, "docker"), "BRACKET_TAG": (0, "launcher"), "LEVEL_TAG": (0, "relay"),
    "STREAM_TAG": (0, "launcher"), "LOGFMT": (0, "relay"), "GREP_FILE": (0, "launcher"),
    "LINE_NUMBER": (0, "launcher"), "JOURNALD_ISO": (0, "journald"),
    "LOGURU_HEADER": (2, "loguru"), "CI_COMMAND": (2, "ci_command"),
    "RAY_SERVE_HEADER": (2, "ray_serve"), "KSERVE_HEADER": (2, "kserve"),
    "NEURON_HEADER": (2, "neuron"), "BRACKET_FIELDS_HEADER": (2, "bracket_fields"),
    "BRACKET_FIELDS": (0, "relay"), "LEVEL_WORD_HEADER": (2, "level_word"),
    "SPDLOG_HEADER": (2, "spdlog"),
    "CANN_CODE_HEADER": (2, "cann_code"),
    "HABANA_HEADER": (2, "habana"),
}


@cache
def _head_lexer(phase: int) -> re.Pattern[str]:
    """The head terminals the grammar accepts from `phase` on, in the lexer's order: like Lark's
    contextual lexer, an outer wrapper is not tried after a prefix (where a header of the same
    text may stand, `(EngineCore pid=1) 2026-08-01 21:21:48,181 - INFO - `)."""
    texts = _lexer_texts()
    return re_from(texts["head"][phase], texts.get("programs"))


def _head_text(parser: Lark, phase: int) -> str:
    terminals = sorted((parser.get_terminal(name) for name, (rule_phase, _) in _HEAD_RULES.items()
                        if rule_phase >= phase), key=lambda t: -t.priority)
    return "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals)


_HEAD_PHASES = 3  # `head: outer* prefix* header?`


@cache
def _lexer_texts() -> dict[str, Any]:
    """The texts the head and body lexers are compiled from, read off the grammar's terminals
    (Lark is the definition): kept between runs for these grammar bytes, this Lark and this
    code (compiledcopy.py), so that a run whose bodies all take the fast path never loads Lark's
    tables, and none derives the texts again (parsing every terminal for what it tells apart
    and needs: ~50 ms of every start)."""
    here = Path(__file__)
    code = [here, here.with_name("fastpath.py"), here.with_name("shape.py"),
            here.parent.parent / "literal.py"]
    lark_spec = importlib.util.find_spec("lark")
    if lark_spec is not None and lark_spec.origin is not None:
        code.append(Path(lark_spec.origin))
    return kept("lexers", data_dir("grammars") / "vllm.lark", code, _derived_texts, dict)


def _derived_texts(_grammar: Path) -> dict[str, Any]:
    parser = _record_parser()
    head = [_head_text(parser, phase) for phase in range(_HEAD_PHASES)]
    body = lexer_texts(parser)
    terminals = {t.name: t.pattern.to_regexp() for t in parser.terminals}
    # and what `re` compiles each pattern into (each a few ms of Python at every start)
    programs = {text: re_program(text) for text in {*head, *lexer_patterns(body),
                                                    *terminals.values()}}
    # head_blind: whether every head terminal is digit-blind (later phases hold fewer terminals)
    return {"body": body, "head": head, "head_blind": digit_blind(head[0]),
            "terminals": terminals, "programs": programs}


@cache
def _body_lexer() -> BodyLexer:
    """The body lexer (fastpath.py), made from the kept texts."""
    texts = _lexer_texts()
    return BodyLexer.from_texts(texts["body"], _TRANSFORMER, texts.get("programs"))


# No wrapper, prefix or record header is this long; each head token is lexed within this many
# characters of where it starts. Unbounded, a cut-prefix terminal (`[^()\n]*? pid=`) searched the
# whole of a 90 KB line for `pid=` (a prompt logged with its request), 4 ms a line.
HEAD_TOKEN_CHARS = 512


def _lex_head(text: str) -> tuple[int, tuple[tuple[str, str], ...]]:
    """Where the head of a line ends, and its (terminal, text) tokens."""
    tokens: list[tuple[str, str]] = []
    position, phase = 0, 0
    while phase < 3:
        found = _head_lexer(phase).match(text, position, position + HEAD_TOKEN_CHARS)
        if found is None or found.end() == position:
            break
        name = found.lastgroup or ""
        rule_phase = _HEAD_RULES[name][0]
        tokens.append((name, found.group()))
        position, phase = found.end(), (3 if rule_phase == 2 else rule_phase)
    return position, tuple(tokens)


def _head_end(text: str) -> int:
    """Where the wrappers, prefixes and record header of a line end."""
    return _lex_head(text)[0]


@lru_cache(maxsize=2048)
def _parse_head(tokens: tuple[tuple[str, str], ...]) -> _Head:
    if not tokens:
        return _EMPTY_HEAD
    # each part on its own: a record header's time changes every second, its process prefix
    # and wrappers do not
    return _head_of(tuple(_head_part(name, text) for name, text in tokens
                          if _HEAD_RULES[name][1]))


@lru_cache(maxsize=2048)
def _head_part(name: str, text: str) -> object:
    return getattr(_TRANSFORMER, _HEAD_RULES[name][1])([Token(name, text)])


@lru_cache(maxsize=2048)
def _head_of(items: tuple[object, ...]) -> _Head:
    return _TRANSFORMER.head(list(items))


CACHED_BODY_CHARS = 1024  # longer bodies rarely repeat: caching them would only hold memory


def _parse_body(text: str) -> _Body:
    if len(text) <= CACHED_BODY_CHARS:
        return _parse_short_body(text)
    return _parse_long_body(text) if len(text) <= _KEPT_LONG_BODY_CHARS else _parse_any_body(text)


# A few long bodies are kept too: a start-up prints the same ~3 KB engine config line every time
# vLLM starts (a restart-heavy log reads it again at every start). Up to 8 KiB: longer ones are
# logged prompts, which never repeat, and hashing them for the lookup would cost a pass each.
_KEPT_LONG_BODY_CHARS = 8 << 10


@lru_cache(maxsize=8)
def _parse_long_body(text: str) -> _Body:
    return _parse_any_body(text)


@lru_cache(maxsize=4096)  # frames, source and caret lines of tracebacks repeat
def _parse_short_body(text: str) -> _Body:
    return _parse_any_body(text)


def _parse_any_body(text: str) -> _Body:
    if not text:
        return _BLANK
    # one terminal from start to end (a plain message, a frame, a caret line) or an exception
    # line: no LALR parse
    body = _body_lexer().body(text)
    if body is None:
        body = _record_parser().parse(text, start="body")
    return body if isinstance(body, _Body) else _BLANK


def parse_line(text: str, number: int = 0) -> LogLine:
    """Tokenize one cleaned line. Never raises: a line the grammar cannot place is PLAIN."""
    return parse_split(text, number)[0]


@quick_init
@dataclass(frozen=True, slots=True)
class Split:
    """How parse_line read a line: where its head ends, the head and the body it parsed, and
    whether the head ends in vLLM's record header with its one space (the lexer looks for no
    more head after a record header, and that terminal ends in `] ?`: whatever body follows
    such a head, the head lexes the same)."""

    end: int
    head: _Head
    body: _Body
    repeatable: bool


_REPEATED_HEADER = "RECORD_HEADER"  # NewLineFormatter writes it on every line of a record


SHAPED_CHARS = 1024  # longer lines (prompts logged with a request) rarely share a shape
_HEAD_SHAPES: ShapeCache[tuple[tuple[str, int], ...]] = ShapeCache()


@cache
def _head_blind() -> bool:
    """Whether the head terminals never tell one digit from another (shape.py): then a line's
    head lexes the same as any line of its shape, and is lexed once per shape."""
    return bool(_lexer_texts()["head_blind"])


def _lex_head_shaped(text: str) -> tuple[int, tuple[tuple[str, str], ...]]:
    """_lex_head, the tokens' terminals and ends kept per digit-masked line."""
    if len(text) > SHAPED_CHARS or not _head_blind():
        return _lex_head(text)
    key = shape_key(text)
    kept = _HEAD_SHAPES.get(key)
    if kept is None:
        end, tokens = _lex_head(text)
        ends, at = [], 0
        for name, token in tokens:
            at += len(token)
            ends.append((name, at))
        _HEAD_SHAPES.put(key, tuple(ends))
        return end, tokens
    cut: list[tuple[str, str]] = []
    start = 0
    for name, stop in kept:
        cut.append((name, text[start:stop]))
        start = stop
    return start, tuple(cut)


def parse_split(text: str, number: int = 0) -> tuple[LogLine, Split | None]:
    """parse_line, also saying how the line was split (None: the whole-line parse was needed)."""
    end, tokens = _lex_head_shaped(text)
    try:
        head, body = _parse_head(tokens), _parse_body(text[end:])
    except LarkError:
        record = parse_line_whole(text)
        return (record if number == 0 else _renumber(record, number)), None
    repeatable = bool(tokens) and tokens[-1][0] == _REPEATED_HEADER and tokens[-1][1][-1:] == " "
    return _combine(head, body, number), Split(end, head, body, repeatable)


def head_blind() -> bool:
    """Whether every head terminal is blind to digits (shape.py): a line's head then lexes the
    same as any line of its shape."""
    return _head_blind()


def blind_body(text: str) -> bool:
    """Whether parse_split reads this body the same way as every body of its shape (the fast
    path's decision kept per shape, no digit-sighted terminal able to take it)."""
    return not text or _body_lexer().blind(text)


def unsighted_body(text: str) -> bool:
    """Whether no digit-sighted body terminal could take this body: a body of a shape whose
    reading `blind_body` found shape-wide is then read alike."""
    return not text or _body_lexer().unsighted(text)


def unsighted_ascii_body(data: bytes, text: str) -> bool:
    """`unsighted_body(text)` of an ASCII body given with its bytes (`text`'s encoding): a
    quick reading's body (scan.py), asked of nearly every answer and activity line read."""
    return not text or _body_lexer().unsighted_ascii(data, text)


def forget_lines() -> None:
    """Empty the caches of what lines were read as (processes, heads, bodies): a reading that is
    over leaves them full (at their bound after a long log: ~3 MB at 10M lines of restarts), and
    the report's stage, which loads the signature database and vLLM's index, is the peak of a
    run's memory. Lines read later are read as before, into new objects of equal value."""
    for cached in (_process, _parse_head, _head_part, _head_of, _parse_short_body,
                   _parse_long_body):
        cached.cache_clear()


def interned(name: str, pid: int | None, ip: str | None = None) -> Process:
    """The one Process object of this name, pid and ip (as the transformer makes them)."""
    return _process(name, pid, ip)


def continuation(head: _Head, body: _Body, number: int) -> LogLine:
    """The LogLine of a line made of a head and a body parse_split gave for other lines."""
    return _combine(head, body, number)


def continued(head: _Head, bodies: tuple[_Body, ...], first: int) -> tuple[LogLine, ...]:
    """The LogLines of consecutive lines from `first` on, each made of `head` and one body."""
    return tuple(_combine(head, body, first + index) for index, body in enumerate(bodies))


def parse_line_whole(text: str) -> LogLine:
    """parse_line without the head/body split (the reference the split is tested against)."""
    try:
        parsed: object = _record_parser().parse(text, start="line")
    except LarkError:
        parsed = _fallback(text)
    return parsed if isinstance(parsed, LogLine) else LogLine(0, LineKind.BLANK, "")


def _fallback(text: str) -> LogLine:
    """The plain-line fallback: keep the prefixes and header the grammar recognised, call the rest
    plain. Reached when a body shape started to match and then did not (a cut frame line)."""
    parser = line_parser()
    interactive = parser.parse_interactive(text, start="line")
    consumed = 0
    try:
        for token in interactive.iter_parse():
            if token.type == "$END":
                continue
            if token.type not in _HEAD_RULES:
                consumed = token.start_pos or 0
                break
    except LarkError:
        pass
    head = text[:consumed]
    try:
        tree = parser.parse(head, start="line") if head else None
        prefix_record = _TRANSFORMER.transform(tree) if tree is not None else None
    except LarkError:
        prefix_record = None
    rest = text[consumed:]
    base = prefix_record if isinstance(prefix_record, LogLine) else LogLine(0, LineKind.PLAIN, "")
    return LogLine(0, LineKind.PLAIN if rest.strip() else LineKind.BLANK, rest, base.process,
                   base.level, base.time, base.site, outer=base.outer, depth=base.depth,
                   relayed=base.relayed)


def _renumber(record: LogLine, number: int) -> LogLine:
    return LogLine(number, record.kind, record.text, record.process, record.level, record.time,
                   record.site, record.exception, record.message, record.frame, record.chain,
                   record.outer, record.depth, record.relayed)


def tree_of(text: str, start: str = "line") -> Tree[Token]:
    """The raw parse tree of one line for one start symbol (grammar tests only)."""
    return line_parser().parse(text, start=start)
