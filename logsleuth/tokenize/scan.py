"""Raw byte blocks -> the LogLines of the lines that can matter, correctly numbered.

`grammars/anchors.lark` says which lines can matter; RE2 finds them in raw blocks at C speed;
only those lines are decoded and parsed (grammar.py). A long healthy stretch of a log costs
little more than reading it. (Scanning in a second thread was tried and measured: no faster,
since the work that remains holds the GIL.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import re2
from lark import Lark

from logsleuth.model import LogLine
from logsleuth.resources import data_dir
from logsleuth.tokenize.grammar import (BOX_BORDERS, Split, clean, continuation, may_hold_colour,
                                        parse_split)


@cache
def anchor_patterns() -> tuple[re2._Regexp, re2._Regexp, re2._Regexp]:
    """(ANCHOR, SERVING, ALIVE) from anchors.lark, compiled with RE2 for bytes.

    RE2 runs the alternation as one DFA pass; Python's backtracking `re` tries every
    alternative at every position and is sixty times slower here.
    """
    grammar = Lark.open(str(data_dir("grammars") / "anchors.lark"), parser="lalr", cache=True)
    anchor = grammar.get_terminal("ANCHOR").pattern.to_regexp()
    serving = grammar.get_terminal("SERVING").pattern.to_regexp()
    alive = grammar.get_terminal("ALIVE").pattern.to_regexp()
    options = re2.Options()
    options.log_errors = False
    return (re2.compile(anchor.encode("utf-8"), options),
            re2.compile(serving.encode("utf-8"), options),
            re2.compile(alive.encode("utf-8"), options))


@dataclass
class TokenizeStats:
    """Counts the tokenizer keeps while it streams."""

    lines: int = 0
    parsed: int = 0
    undecodable: int = 0
    last_line_text: str = ""


class Tokenizer:
    """Push byte blocks of whole lines; get the LogLines of their anchored lines, numbered.

    `tokenize()` drives it over a finished input; `--follow` feeds it as a file grows.
    """

    def __init__(self, stats: TokenizeStats | None = None):
        self.stats = stats if stats is not None else TokenizeStats()
        self._anchor, *self._samplers = anchor_patterns()
        self._base = 0  # lines before the next block
        self._tail = b""
        # vLLM's NewLineFormatter repeats the record header on every line of a multi-line record
        # (a logged traceback): a line that starts with the very head of the line before it,
        # ending in that header, has that head; its body is looked up by its bytes among
        # the bodies already parsed after such heads. Exact for a repeated line; for the rest
        # tests/test_tokenize.py checks it against parse_line on every corpus and mix line.
        self._head_bytes = b""
        self._head: Split | None = None
        self._bodies: dict[bytes, Split] = {}

    def spans(self, block: bytes) -> list[tuple[int, int]]:
        """Where the anchored lines of a block are (byte offsets), with the activity lines that
        tell whether work went on: of each kind (SERVING, ALIVE), the first after each stretch
        of anchored lines (did the process that just logged an error keep working?) and the
        block's last."""
        spans = _anchored_spans(block, self._anchor)
        found = set(spans)
        for sampler in self._samplers:  # of each kind of activity: the first after each
            found.update(_first_match_lines_after(block, spans, sampler))  # anchored stretch,
            last = _last_match_line(block, sampler)  # and the block's last
            if last is not None:
                found.add(last)
        # and the last one just before each line that matters: whether a server was working
        # between two errors decides whether the later one reports the earlier
        previous = 0
        for start, end in spans:
            if start - previous > 1:
                for sampler in self._samplers:
                    hits = list(sampler.finditer(block, max(previous, start - _NEAR), start))
                    if hits:
                        found.add(_line_around(block, hits[-1].start()))
            previous = end
        return sorted(found) if len(found) > len(spans) else spans

    def feed(self, block: bytes) -> Iterator[LogLine]:
        """The LogLines of one block, which must end on a line break (the input's last may not)."""
        for number, raw in self.locate(block):
            yield self.parse(number, raw)

    def locate(self, block: bytes) -> list[tuple[int, bytes]]:
        """The anchored lines of one block, with their 1-based numbers; counts every line."""
        found: list[tuple[int, bytes]] = []
        counted_to, line_no = 0, self._base
        for start, end in self.spans(block):
            line_no += block.count(b"\n", counted_to, start)
            counted_to = start
            found.append((line_no + 1, block[start:end]))
        self._base = line_no + block.count(b"\n", counted_to)  # one counting pass per block
        self.stats.lines = self._base
        if block:
            self._tail = block
            self.stats.last_line_text = ""
        return found

    def parse(self, number: int, raw: bytes) -> LogLine:
        """Decode, clean and parse one located line."""
        self.stats.parsed += 1
        head = self._head_bytes
        if head and raw.startswith(head):
            known = self._bodies.get(raw[len(head):])
            if known is not None and self._head is not None:
                return continuation(self._head.head, known.body, number)
        try:
            text = raw.decode("utf-8")
            decoded = True
        except UnicodeDecodeError:
            self.stats.undecodable += 1
            text = raw.decode("utf-8", "replace")
            decoded = False
        text = clean(text)
        line, split = parse_split(text, number)
        self._learn(raw, text, split, decoded)
        return line

    def _learn(self, raw: bytes, text: str, split: Split | None, decoded: bool) -> None:
        """Remember the line's head for the lines after it, and its body for lines with the
        same bytes after such a head, when cleaning left both as they were in the raw line."""
        if split is None or not split.repeatable or not decoded or text[:1] in BOX_BORDERS:
            self._head_bytes, self._head = b"", None
            return
        head_text = text[:split.end]
        head = head_text.encode("utf-8")
        if not raw.startswith(head) or may_hold_colour(head_text):
            self._head_bytes, self._head = b"", None
            return
        self._head_bytes, self._head = head, split
        rest = raw[len(head):]
        if len(rest) > _BODY_BYTES or b"\r" in rest[:-1] or rest.endswith((b"^M", b"#015")) \
                or may_hold_colour(text[split.end:]) or may_hold_colour(rest.decode("utf-8")):
            return  # long, or cleaning changed it: not worth or not safe to key by its bytes
        if len(self._bodies) >= _BODIES:
            self._bodies.clear()  # a bound: frames and caret lines repeat, bodies come back
        self._bodies[rest] = split

    def skip(self, lines: int, tail: bytes) -> None:
        """Account for `lines` lines located elsewhere (another process), ending with `tail`."""
        self._base += lines
        self.stats.lines = self._base
        if tail:
            self._tail = tail

    def finish(self) -> None:
        """Close the count: a last line without its newline still counts."""
        if self._tail and not self._tail.endswith(b"\n"):
            self.stats.lines = self._base + 1
        self.stats.last_line_text = _last_line(self._tail)


_BODY_BYTES = 1024  # longer bodies rarely repeat (grammar.CACHED_BODY_CHARS)
_BODIES = 4096


def tokenize(blocks: Iterable[bytes], stats: TokenizeStats | None = None) -> Iterator[LogLine]:
    """Yield a LogLine for every anchored line of the blocks, in order, correctly numbered.

    Lines without an anchor are counted, not parsed. The last serving line of each block is
    parsed too, so later stages know how long the server kept serving.
    """
    tokenizer = Tokenizer(stats)
    for block in blocks:
        yield from tokenizer.feed(block)
    tokenizer.finish()


def _anchored_spans(block: bytes, anchor: re2._Regexp) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    position, size = 0, len(block)
    search = _raw_search(anchor)
    find, rfind = block.find, block.rfind
    while position <= size:
        hit_start, hit_end = search(block, position, size)
        if hit_start < 0:
            return spans
        start = rfind(b"\n", 0, hit_start) + 1
        end = find(b"\n", hit_end if hit_end > hit_start else hit_start)
        if end < 0:
            end = size
        spans.append((start, end))
        position = end + 1
    return spans


_UNANCHORED = re2._Anchor.UNANCHORED


def _raw_search(pattern: re2._Regexp) -> Callable[[bytes, int, int], tuple[int, int]]:
    """`pattern.search` without the wrapper's Match objects: (start, end), or (-1, -1).

    In an error-heavy log nearly every line is anchored and the module's pure-Python match
    wrapper (a generator, offsets, a Match object per call) cost more than the DFA itself.
    """
    match = pattern._regexp.Match

    def search(data: bytes, position: int, end: int) -> tuple[int, int]:
        return match(_UNANCHORED, data, position, end)[0]  # type: ignore[no-any-return]
    return search


def _first_match_lines_after(block: bytes, spans: list[tuple[int, int]],
                             pattern: re2._Regexp) -> list[tuple[int, int]]:
    """The first line matching `pattern` in each gap after an anchored line: one bounded search
    per gap, so every byte is searched at most once."""
    search = _raw_search(pattern)
    found: list[tuple[int, int]] = []
    ends = [end for _, end in spans]
    starts = [start for start, _ in spans[1:]] + [len(block)]
    for gap_start, gap_end in zip(ends, starts):
        if gap_end - gap_start < 2:
            continue  # the next anchored line follows at once
        hit_start, _ = search(block, gap_start, gap_end)
        if hit_start >= 0:
            start = block.rfind(b"\n", 0, hit_start) + 1
            end = block.find(b"\n", hit_start)
            found.append((start, end if end >= 0 else len(block)))
    return found


_NEAR = 1 << 12  # bytes before a line that matters searched for the last sign of activity


def _line_around(block: bytes, where: int) -> tuple[int, int]:
    start = block.rfind(b"\n", 0, where) + 1
    end = block.find(b"\n", where)
    return (start, end if end >= 0 else len(block))


def _last_match_line(block: bytes, pattern: re2._Regexp) -> tuple[int, int] | None:
    # Serving lines are frequent: look only in the block's last stretch first, then widen.
    size = 1 << 14
    while True:
        offset = max(0, len(block) - size)
        hits = list(pattern.finditer(block, offset))
        if hits or offset == 0:
            break
        size *= 8
    if not hits:
        return None
    where = hits[-1].start()
    start = block.rfind(b"\n", 0, where) + 1
    end = block.find(b"\n", where)
    return (start, end if end >= 0 else len(block))


def _last_line(block: bytes) -> str:
    stripped = block.rstrip(b"\n")
    start = stripped.rfind(b"\n") + 1
    return clean(stripped[start:][-4096:].decode("utf-8", "replace"))


