"""Raw byte blocks -> where the lines that can matter are: RE2 only, no parsing.

Kept apart from the tokenizer (and from Lark, which only `anchor_texts` loads, when it is asked
for) so that the process that reads the far end of a big file (halves.py, halfread.py) starts
small: it locates lines, and the other one parses them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import tempfile
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import re2

from logsleuth.resources import cache_dir, data_dir


_ANCHOR_TERMINALS = ("ANCHOR", "SERVING", "ALIVE", "STATS")


@cache
def anchor_texts() -> tuple[str, str, str, str]:
    """(ANCHOR, SERVING, ALIVE, STATS): the regular expressions of anchors.lark's terminals, ANCHOR
    joined by the warning lines that state a remedy (remedy.warning_anchor).

    Lark makes them; a copy is kept in the cache directory under a digest of the grammar's
    bytes (and remedy.yaml's and remedy.py's) and of the installed Lark, so that the reader of
    a big file's far end, which starts before anything else is loaded, does not import Lark
    for three strings (35 ms).
    """
    grammar = data_dir("grammars") / "anchors.lark"
    phrasing = data_dir("signatures") / "remedy.yaml"
    text = grammar.read_bytes()
    # the warning anchor is made from remedy.yaml by remedy.py: both are part of what it is
    # made from
    kept = _kept_anchor_texts(b"\0".join((text, phrasing.read_bytes(),
                                           Path(__file__).with_name("remedy.py").read_bytes())))
    try:
        found = json.loads(kept.read_text()) if kept is not None else None
    except (OSError, ValueError):
        found = None  # absent or unreadable: Lark makes them
    if isinstance(found, list) and len(found) == len(_ANCHOR_TERMINALS) \
            and all(isinstance(item, str) for item in found):
        return found[0], found[1], found[2], found[3]
    from lark import Lark

    from logsleuth.remedy import warning_anchor

    parser = Lark.open(str(grammar), parser="lalr", cache=True)
    made = tuple(parser.get_terminal(name).pattern.to_regexp() for name in _ANCHOR_TERMINALS)
    # and a warning that states a remedy (an error's hint: hint.py), in remedy.yaml's words
    made = (f"(?:{made[0]})|{warning_anchor(phrasing)}", *made[1:])
    if kept is not None:
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=kept.parent, delete=False) as out:
                json.dump(made, out)
            os.replace(out.name, kept)
        except OSError:
            pass  # a cache that cannot be written is no cache (a read-only home, say)
    return made[0], made[1], made[2], made[3]


def _kept_anchor_texts(grammar: bytes) -> Path | None:
    """Where the patterns made from these grammar bytes by the installed Lark are kept."""
    where = cache_dir()
    spec = importlib.util.find_spec("lark")
    if where is None or spec is None or spec.origin is None:
        return None
    try:
        installed = os.stat(spec.origin)
    except OSError:
        return None
    digest = hashlib.sha256(grammar)
    digest.update(f"\0{spec.origin}:{installed.st_size}:{installed.st_mtime_ns}".encode())
    return where / f"anchors-{digest.hexdigest()[:32]}.json"


def compile_bytes(pattern: str) -> re2._Regexp:
    """A pattern of anchors.lark compiled with RE2 for bytes, quietly."""
    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern.encode("utf-8"), options)


@dataclass(frozen=True, slots=True)
class Anchors:
    """The patterns that say which lines can matter (anchors.lark), compiled for bytes."""

    anchor: re2._Regexp
    samplers: tuple[re2._Regexp, ...]  # kinds of activity (SERVING, ALIVE, STATS)
    activity: re2._Regexp  # any kind: a block without one needs no sampler's search
    either: re2._Regexp  # the anchor or any kind of activity: both told by one pass
    # the anchor's lines, a whole stretch of consecutive ones at a time: a logged traceback is
    # found by one search instead of one search (and a line's worth of Python) per line
    stretch: re2._Regexp
    # each sampler behind `\C*` (any bytes: `(?s:.*)` stops at bytes that are not UTF-8, a
    # damaged line), matched from the start of a range: its match ends where
    # the range's last match of the sampler does (`_last_line_within`); None for a sampler that
    # matches an empty text (its end would not tell the line)
    lasts: tuple[re2._Regexp | None, ...] = ()
    # each sampler, then optionally anything and the sampler again: searched over a range, its
    # match starts where the range's first match of the sampler does and ends where its last
    # does (`line_spans`' short gaps); None where `lasts` is
    spreads: tuple[re2._Regexp | None, ...] = ()

    @classmethod
    def compile(cls, anchor: str, *samplers: str) -> Anchors:
        """From the terminals' regular expressions."""
        compiled = tuple(compile_bytes(text) for text in samplers)
        activity = "|".join(f"(?:{text})" for text in samplers)
        return cls(compile_bytes(anchor), compiled, compile_bytes(activity),
                   compile_bytes(f"(?:{anchor})|{activity}"),
                   compile_bytes(anchor.join(_STRETCH)),
                   tuple(None if sampler.search(b"") is not None
                         else compile_bytes(f"\\C*(?:{text})")
                         for sampler, text in zip(compiled, samplers)),
                   tuple(None if sampler.search(b"") is not None
                         else compile_bytes(f"(?:{text})(?:\\C*(?:{text}))?")
                         for sampler, text in zip(compiled, samplers)))


# Whole lines, one or more in a row, each holding a match of the anchor, matched from the start
# of the first (found by the anchor itself: an unanchored search of this would also run the DFA
# backwards for where it starts). No anchor alternative matches a line break, so a match lies
# within its line: tests/test_locate.py checks the lines found equal to one search per line.
_STRETCH = (r"(?:[^\n]*(?:", r")[^\n]*(?:\n|\z))+")


def line_spans(block: bytes, anchors: Anchors) -> list[tuple[int, int]]:
    """Where the anchored lines of a block are (byte offsets; a span may hold several lines in
    a row, without the line break after the last), with the activity lines that tell whether
    work went on: of each kind (SERVING, ALIVE, STATS), the first after each stretch of anchored
    lines (did the process that just logged an error keep working?) and the block's last."""
    spans, quiet = _spans_and_quiet(block, anchors)
    if quiet:
        # no activity outside the anchored stretches (a crash loop's set-up lines, a DEBUG
        # flood): none to add, and no kind's searches after every stretch and back from the end
        return spans
    found = set(spans)
    # lines that may lie in a stretch: each kind's last in the block, and what a sampler that
    # matches an empty text finds (at a stretch's line break, its last line). The others lie in
    # the gaps between stretches, as the searches that found them
    unsure: list[tuple[int, int]] = []
    lasts = anchors.lasts or (None,) * len(anchors.samplers)
    spreads = anchors.spreads or (None,) * len(anchors.samplers)
    for sampler, last_of, spreading in zip(anchors.samplers, lasts, spreads):  # of each kind
        search = _raw_search(sampler)  # of activity: the first after each anchored stretch,
        spread = spreading._regexp.Match if spreading is not None else None
        add = found.add if spread is not None else unsure.append
        last = _last_line_matching(block, search, 0, len(block))  # the block's last,
        if last is not None:
            unsure.append(last)
        # and the last one just before each line that matters: whether a server was working
        # between two errors decides whether the later one reports the earlier. Between two
        # stretches it lies at or after the first one (no match starts before that one in
        # the gap, so the search from either place meets the same matches), and there is
        # none where the gap holds none: the first's search is where the last's starts
        previous = 0
        for index, (start, end) in enumerate(spans):
            if start - previous > 1:
                if not index:  # (before the first stretch: the last one only)
                    first = low = max(0, start - _NEAR)
                elif spread is not None and start - previous <= _SHORT_GAP:
                    # a short gap (a rejected request's answer and the activity around it
                    # between two records): its first match and its last in one search
                    first, after = spread(_UNANCHORED, block, previous, start)[0]
                    if first >= 0:
                        add(_line_around(block, first))
                        add(_line_around(block, after - 1))
                    previous = end
                    continue
                else:
                    first = search(block, previous, start)[0]
                    if first >= 0:
                        add(_line_around(block, first))
                    low = max(previous, start - _NEAR)
                if first >= 0:
                    low = max(low, first)
                    # (one search of it all, not one per line asked)
                    line = _last_line_within(block, last_of, low, start) \
                        if last_of is not None and start - low <= _SHORT_GAP \
                        else _last_line_matching(block, search, low, start)
                    if line is not None:
                        add(line)
            previous = end
        if spans and len(block) - previous > 1:  # the first after the last stretch
            first = search(block, previous, len(block))[0]
            if first >= 0:
                add(_line_around(block, first))
    if unsure:
        # an activity line that is also anchored lies in a stretch already
        starts = [start for start, _ in spans]
        found.update(span for span in unsure
                     if span in found or not _inside(span[0], starts, spans))
    return spans if len(found) == len(spans) else sorted(found)


def _inside(position: int, starts: list[int], spans: list[tuple[int, int]]) -> bool:
    index = bisect_right(starts, position) - 1
    return index >= 0 and position <= spans[index][1]


def locate(block: bytes, base: int, anchors: Anchors) -> tuple[list[tuple[int, bytes]], int]:
    """(the lines that can matter, with 1-based numbers, lines counted to the block's end) of
    a block after `base` lines."""
    stretches, counted = locate_stretches(block, base, anchors)
    found: list[tuple[int, bytes]] = []
    for first, text in stretches:
        lines = text.split(b"\n")
        found += zip(range(first, first + len(lines)), lines)
    return found, counted


def locate_stretches(block: bytes, base: int, anchors: Anchors
                     ) -> tuple[list[tuple[int, bytes]], int]:
    """`locate`, each stretch of consecutive lines that can matter given as one: (the 1-based
    number of its first line, its lines as the block holds them, `\n` between them). A logged
    traceback's lines are most of an error-heavy log's located lines: kept whole, they are
    neither split nor sent between processes one by one, and the tokenizer can recognise a
    record's repeated lines in one comparison (scan.Tokenizer.parse_runs)."""
    found: list[tuple[int, bytes]] = []
    counted_to, line_no = 0, base
    count = block.count
    for start, end in line_spans(block, anchors):
        line_no += count(b"\n", counted_to, start)
        found.append((line_no + 1, block[start:end]))
        line_no += count(b"\n", start, end)
        counted_to = end
    return found, line_no + count(b"\n", counted_to)  # one counting pass per block


def _anchored_spans(block: bytes, anchors: Anchors) -> list[tuple[int, int]]:
    """The stretches of anchored lines, each without the line break after its last line."""
    return _spans_and_quiet(block, anchors)[0]


def _spans_and_quiet(block: bytes, anchors: Anchors) -> tuple[list[tuple[int, int]], bool]:
    """(the stretches of anchored lines, each without the line break after its last line,
    whether no activity line lies outside them).

    Every byte is read by a DFA once: the anchor's search up to a hit, then, from the line after
    the hit's, the stretch pattern over the anchored lines that follow and the one line that
    ends them (which holds no match, so the next search starts after it). Until the first
    activity line the search is for an anchor or activity (`Anchors.either`), and the line that
    ends a stretch is read again by it: a block with no activity outside its stretches (a crash
    loop's start-ups) is told so by this one pass, not by a second one of the whole block.
    """
    spans: list[tuple[int, int]] = []
    position, size = 0, len(block)
    anchored = _raw_search(anchors.anchor)
    quiet = True  # no activity line met yet outside the stretches
    search = _raw_search(anchors.either)
    active = _raw_search(anchors.activity)
    stretch = anchors.stretch._regexp.Match
    find = block.find
    while position < size:
        hit, _ = search(block, position, size)
        if hit < 0:
            return spans, quiet
        start = block.rfind(b"\n", 0, hit) + 1
        end = find(b"\n", hit)
        if quiet and active(block, start, end if end >= 0 else size)[0] >= 0:
            # the first activity line: the anchor's own search from its line on, as without
            quiet, search, position = False, anchored, start
            continue
        if end < 0:
            spans.append((start, size))
            return spans, quiet
        following = end + 1  # where the next line starts: anchored too?
        more = stretch(_FROM_START, block, following, size)[0][1]
        if more > following:
            end = more - 1 if block[more - 1] == 10 else more
            following = more
        left = _MESSAGE_LINES_BELOW if _ends_in_colon(block, start, end) \
            else 0 if _record_next(block, end, size) else _message_lines_left(block, start, end)
        if left and not _anchored_next(block, end, size, anchored):
            # `ImportError: ` with its text on the lines below (transformers' missing backends,
            # a message that starts with a line break), or an exception's message that goes on
            # over more lines (Python prints it verbatim): those lines are the message,
            # unindented and unanchored (the assembler decides where it ends)
            below = _message_below(block, end, size, left)
            if below > end:
                spans.append((start, below))
                position = below + 1  # the anchor's search reads on from the next line
                continue
        source = _source_line_below(block, start, end, size)
        if source == end:
            source = _stack_below(block, start, end, size)
        if source > end:
            # a frame printed at the margin ends the stretch: the line under it is its source
            # line, unanchored once a paste lost the indentation Python gave it (a crash
            # handler's banner: the symbols under it, the same way)
            spans.append((start, source))
            position = source + 1
            continue
        spans.append((start, end))
        # the line at `following` was read to its end and holds no match, unless it holds bytes
        # that are not UTF-8 (a damaged log): `[^\n]` matches none, so the stretch stopped there
        # whatever the line holds, and the anchor's own search must read it
        # (and while no activity is met, the search for either reads that line again: it
        # may be an activity line)
        after = find(b"\n", following)
        line_end = after if after >= 0 else size
        if quiet or not block[following:line_end].isascii():  # (a copy of one line: cheaper
            position = following  # than a search call, which costs ~2 us whatever it reads)
        else:
            position = line_end + 1
    return spans, quiet


def _source_line_below(block: bytes, start: int, end: int, size: int) -> int:
    """Where the line under the stretch block[start:end] ends when the stretch's last line is a
    Python frame (`File "x.py", line 3, in f`) and that line is not blank: the frame's source
    line, which a traceback pasted without its indentation prints at the margin; else `end`."""
    if end >= size:
        return end
    last = max(start, block.rfind(b"\n", start, end) + 1)
    # (every match holds `File "`: a line without it, most stretches' last, is answered by a
    # byte search instead of an RE2 call, which costs ~2 us whatever it reads)
    if block.find(_FRAME_TEXT, last, end) < 0 \
            or _frame_line(_UNANCHORED, block, last, end)[0][1] < 0:
        return end
    after = block.find(b"\n", end + 1)
    below = after if after >= 0 else size
    return below if block[end + 1:below].strip() else end


def _stack_below(block: bytes, start: int, end: int, size: int) -> int:
    """Where the lines under the stretch block[start:end] end when the stretch's last line is a
    native crash handler's banner (grammars/vllm.lark CRASH_BANNER): the handler's stack, one
    symbol a line, which a paste that lost its indentation prints at the margin, unanchored:
    the lines under it up to a blank one, at most _MESSAGE_LINES_BELOW (the assembler reads
    which are symbols); else `end`."""
    if end >= size:
        return end
    last = max(start, block.rfind(b"\n", start, end) + 1)
    if b"!!!" not in block[last:end] \
            or _crash_banner().search(block[last:end].decode("utf-8", "replace")) is None:
        return end
    below = end
    for _ in range(_MESSAGE_LINES_BELOW):
        if below >= size:
            break
        after = block.find(b"\n", below + 1)
        stop = after if after >= 0 else size
        if not block[below + 1:stop].strip():
            break
        below = stop
    return below


@cache
def _crash_banner() -> re.Pattern[str]:
    from logsleuth.tokenize.grammar import terminal_regex  # (tokenize imports this module)

    return terminal_regex("CRASH_BANNER")


# A Python frame's line (`File "/x/y.py", line 12, in f`), behind any wrapper.
_FRAME_LINE = re2.compile(rb'File "[^"\n]+", line \d+,? in \S', re2.Options())
_frame_line = _FRAME_LINE._regexp.Match
_FRAME_TEXT = b'File "'  # the literal every match of _FRAME_LINE holds


def _ends_in_colon(block: bytes, start: int, end: int) -> bool:
    """Whether the stretch's last line ends in a colon, trailing blanks aside: read back from
    `end` (a stretch may hold thousands of lines; copying it to strip its end did, per stretch)."""
    while end > start and block[end - 1] in _BLANKS:
        end -= 1
    return end > start and block[end - 1] == _COLON


_BLANKS = frozenset(b" \t\r\n\x0b\x0c")  # what bytes.rstrip() strips
_COLON = ord(":")


def _anchored_next(block: bytes, end: int, size: int,
                   search: Callable[[bytes, int, int], tuple[int, int]]) -> bool:
    """Whether the line after the one ending at `end` holds an anchor."""
    if end >= size:
        return False
    after = block.find(b"\n", end + 1)
    return search(block, end + 1, after if after >= 0 else size)[0] >= 0


def _record_next(block: bytes, end: int, size: int) -> bool:
    """Whether the line after the one ending at `end` is a record or a prompt, not a message
    line (`_not_message`): the common case after a logged exception, asked first."""
    if end >= size:
        return True
    after = block.find(b"\n", end + 1)
    found: int = _not_message(_FROM_START, block, end + 1, after if after >= 0 else size)[0][0]
    return found >= 0


# as many as the assembler keeps of an exception's message (assemble.MAX_MESSAGE_LINES)
_MESSAGE_LINES_BELOW = 12


def _message_below(block: bytes, end: int, size: int, lines: int) -> int:
    """The end of the `lines` lines under the one ending at `end`, up to a blank line (the
    assembler decides what they are)."""
    for _ in range(lines):
        if end >= size:
            return size
        after = block.find(b"\n", end + 1)
        line_end = after if after >= 0 else size
        if not block[end + 1:line_end].strip() \
                or _not_message(_FROM_START, block, end + 1, line_end)[0][0] >= 0:
            return end
        end = line_end
    return end


# What ends a message below at once (and, after an exception line inside a stretch, keeps the lines
# below it from being its message): a record of a level the anchor does not
# take, behind its wrapper (`(APIServer pid=1) INFO:     127.0.0.1 ...`, `INFO 01-24 ...`: the
# next record; a record's own continuation repeats its header, ERROR, which is anchored), a
# shell's prompt (`$ ls`, `root@abc:/workspace# `, `(venv) user@host:~/x$ `), an interpreter's
# (`>>> `) or PowerShell's (`PS D:\\x>`), a tool's lower-case label (pip's `note: `,
# `[notice] `), the shell's report of a killed job (`Killed`, behind its wrapper as a record is:
# `2025-01-02T03:04:05.1Z Killed`, `vllm-1  | Killed`), and wrappers with nothing behind
# them (a blank line, timestamped or prefixed, one wrapper or nested: docker's timestamp and
# CRI's `... stderr F `, compose's `vllm-1  | `, a process prefix `(VllmWorker pid=1) `, Ray's
# `(pid=1, ip=A) `, `[rank0]: `, journald's `unit[pid]: `, kubectl's `[pod/name/container] `,
# srun's `0: `, a line's number (grep -n's `12:`, a context line's `12-`, cat -n's `    12\t`), a
# quote's `>`): not the message, as the blank line it wraps is not (issue 10;
# grammars/vllm.lark reads each as a BLANK line behind its wrapper)
_not_message = re2.compile(
    rb"(?m)[^\n]{0,100}?(?:^|[\s\]|(:])(?:DEBUG|INFO|WARNING|WARN|NOTICE)(?:[\s:]|$)"
    rb"|(?:\([\w.-]+\) )?(?:[\w.-]+@[\w.-]+(?::\S*)?)?[$#%] |(?:\([\w.-]+\) )?PS [^\n>]*>"
    rb"|>>> |\[[a-z]+\] |[a-z]+: "
    rb"|(?:[^\n]{0,100}?[\s\]|>:])?(?:zsh: |\[\d+\] *[+\-]? +(?:\d+ +)?)?"
    rb"(?:Killed|Segmentation fault|Aborted|Bus error"
    rb"|Illegal instruction|Floating point exception)(?: +\(core dumped\))?\s*$"
    rb"|(?:\s*(?:\[?\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?\]?(?: std(?:out|err) [FP])?"
    rb"|[\w.-]+ +\||\([^)\n]{1,80}\)|[^\n]{0,80}\]:|\[pod/[^\]\n]{1,80}\]|\d{1,7}[:\-]|\d{1,7}\t"
    rb"|[\w./-]+\.(?:log|txt|out|err)(?:\.\d+)?[:\-]\d+[:\-]|>[> ]*))+\s*$",
    re2.Options())._regexp.Match


# A line that names an exception followed by its message (or by nothing: the message is below),
# behind any wrapper: `RuntimeError: The detected ...`, `torch.OutOfMemoryError:`,
# `[rank0]: ValueError: ...`; its message goes on below when it is among a stretch's last lines.
_EXCEPTION_LINE = re2.compile(
    rb"(?m)(?:^|[^\w.])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Iteration"
    rb"|Failure):(?:[ \t]|\r?$)", re2.Options())
_exception_line = _EXCEPTION_LINE._regexp.Match


def _message_lines_left(block: bytes, start: int, end: int) -> int:
    """How many lines below the stretch block[start:end] may still continue the message of an
    exception line among its last lines (MAX_MESSAGE_LINES less the message lines already in
    the stretch after it); 0 when none of them is one."""
    last, position = -1, start  # the last exception line of the stretch
    while True:
        hit = _exception_line(_UNANCHORED, block, position, end)[0][1]
        if hit < 0:
            break
        last = position = hit
    line = block.find(b"\n", last, end) + 1  # the stretch's lines after it: message lines?
    while 0 < line <= end:
        after = block.find(b"\n", line, end)
        if _not_message(_FROM_START, block, line, after if after >= 0 else end)[0][0] >= 0:
            return 0
        line = after + 1
    return max(0, _MESSAGE_LINES_BELOW - block.count(b"\n", last, end)) if last >= 0 else 0


_UNANCHORED = re2._Anchor.UNANCHORED
_FROM_START = re2._Anchor.ANCHOR_START


def _raw_search(pattern: re2._Regexp) -> Callable[[bytes, int, int], tuple[int, int]]:
    """`pattern.search` without the wrapper's Match objects: (start, end), or (-1, -1).

    In an error-heavy log nearly every line is anchored and the module's pure-Python match
    wrapper (a generator, offsets, a Match object per call) cost more than the DFA itself.
    """
    match = pattern._regexp.Match

    def search(data: bytes, position: int, end: int) -> tuple[int, int]:
        return match(_UNANCHORED, data, position, end)[0]  # type: ignore[no-any-return]
    return search


_NEAR = 1 << 12  # bytes before a line that matters searched for the last sign of activity
_LINES_BACK = 3  # lines before it asked one by one first (_last_line_matching)


def _line_around(block: bytes, where: int) -> tuple[int, int]:
    start = block.rfind(b"\n", 0, where) + 1
    end = block.find(b"\n", where)
    return (start, end if end >= 0 else len(block))


def _last_match_line(block: bytes, pattern: re2._Regexp) -> tuple[int, int] | None:
    return _last_line_matching(block, _raw_search(pattern), 0, len(block))


_SHORT_GAP = 1 << 10  # bytes a `\C*` search reads at about the cost of one call


def _last_line_within(block: bytes, last_of: re2._Regexp, low: int, high: int
                      ) -> tuple[int, int] | None:
    """`_last_line_matching(block, <the sampler's search>, low, high)` in one search, `last_of`
    being the sampler behind `\\C*` (any bytes): matched from `low`, the greedy part takes all
    it can, so the sampler's part starts at the last place in block[low:high] where it matches,
    and ends in that place's line (a sampler matches within one line, and not an empty text)."""
    end = last_of._regexp.Match(_FROM_START, block, low, high)[0][1]
    return None if end < 0 else _line_around(block, end - 1)


def _last_line_matching(block: bytes, search: Callable[[bytes, int, int], tuple[int, int]],
                        low: int, high: int, width: int = 1 << 8) -> tuple[int, int] | None:
    """The line of the last match in block[low:high]: the window's last `width` bytes first,
    widened eightfold until a match or `low`. The samplers match within one line (they are
    line texts), so the line of the last match is the last line holding a match that starts in
    the window, whatever the window's start: a smaller window that holds one gives the same
    line. A serving log has activity in nearly every line, so one or two searches of a few
    lines answer where a walk over all matches of 4 KiB (the Match objects of `finditer`) cost
    more than the rest of locating.

    The last few lines before `high` are asked first, one search each from the line's start:
    the line before a line that matters is most often an activity line itself (an access or
    metrics line before a rejected request's record), found by one search instead of the
    window's walk over its two or three matches; a line none of whose matches starts in it
    leaves the window's search the bytes before it."""
    cursor = high
    for _ in range(_LINES_BACK):
        if cursor <= low:
            return None
        line_start = max(low, block.rfind(b"\n", 0, cursor - 1) + 1)
        hit_start = search(block, line_start, high)[0]
        if 0 <= hit_start < cursor:  # (a match lies within its line: none after `cursor`)
            return _line_around(block, hit_start)
        cursor = line_start
    high = cursor
    while True:
        start = max(low, high - width)
        last, position = -1, start
        while True:
            hit_start, hit_end = search(block, position, high)
            if hit_start < 0:
                break
            last = hit_start
            position = hit_end if hit_end > hit_start else hit_start + 1
        if last >= 0:
            return _line_around(block, last)
        if start <= low:
            return None
        width *= 8
