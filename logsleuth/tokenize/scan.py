"""Raw byte blocks -> the LogLines of the lines that can matter, correctly numbered.

`grammars/anchors.lark` says which lines can matter; RE2 finds them in raw blocks at C speed;
only those lines are decoded and parsed (grammar.py). A long healthy stretch of a log costs
little more than reading it. (Scanning in a second thread was tried and measured: no faster,
since the work that remains holds the GIL.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, partial

import re2

from logsleuth.locate import (Anchors, anchor_texts, line_spans, locate,
                              locate_stretches)
from logsleuth.model import Level, LineKind, LineRun, LogLine, RecordRun
from logsleuth.tokenize.grammar import (BOX_BORDERS, Split, clean, continuation, continued,
                                        may_hold_colour, unsighted_ascii_body)
from logsleuth.tokenize.linememo import LineMemo, Plan
from logsleuth.tokenize.shape import MASK, ShapeCache


@cache
def anchor_patterns() -> tuple[re2._Regexp, re2._Regexp, re2._Regexp, re2._Regexp]:
    """(ANCHOR, SERVING, ALIVE, STATS) from anchors.lark, compiled with RE2 for bytes.

    RE2 runs the alternation as one DFA pass; Python's backtracking `re` tries every
    alternative at every position and is sixty times slower here.
    """
    anchors = located_by()
    serving, alive, stats = anchors.samplers
    return anchors.anchor, serving, alive, stats


@cache
def located_by() -> Anchors:
    """The patterns of anchors.lark, as the locating stage uses them."""
    return Anchors.compile(*anchor_texts())


@dataclass
class TokenizeStats:
    """Counts the tokenizer keeps while it streams."""

    lines: int = 0
    parsed: int = 0
    undecodable: int = 0
    last_line_text: str = ""
    # the input's last lines (up to TAIL_BYTES, whole lines): a stall is judged against its own
    # deployment's last line, which another deployment's output may follow (causal.py)
    tail_text: str = ""


class Tokenizer:
    """Push byte blocks of whole lines; get the LogLines of their anchored lines, numbered.

    `tokenize()` drives it over a finished input; `--follow` feeds it as a file grows.
    """

    def __init__(self, stats: TokenizeStats | None = None, *, quick: bool | None = None):
        self.stats = stats if stats is not None else TokenizeStats()
        self._anchors = located_by()
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
        self._generation = 0  # how many times the bodies cache was cleared
        # a record's first line's body -> the run of repeated lines that followed it last (the
        # bodies cache's generation then, their bodies and splits): parse_runs
        self._records: dict[bytes, tuple[int, tuple[bytes, ...], tuple[Split, ...]]] = {}
        self.whole = 0  # records whose run was recognised whole (tests count them)
        self._memo = LineMemo()  # lines that differ only in digits are read once per shape
        # and, by the raw line's shape, the memo's plan with what `_learn` decides: for a shape
        # that decodes, that clean() leaves as it is and that holds no `#0` (rsyslog's octal
        # escapes, the only digits clean() and `_learn` look at), every one of those decisions
        # is the same on every line of the shape (test_tokenize checks the lines equal); and
        # whether cleaning takes the line's last `\r` (a record's line end) and nothing else
        self._shapes: ShapeCache[tuple[Plan, int, bool, bool]] = ShapeCache()
        # and, by the same shape, a request's answer or activity line (an access line, an
        # engine's metrics line) read without the memo's builders: `_Quick` (None: not asked)
        # (by the bytes before the time: one lookup finds the reading of a line's process and
        # call site, or that there is none, among the few kept)
        self._quick: ShapeCache[tuple[int, dict[bytes, _Quick]]] | None = \
            ShapeCache(_QUICK) if (QUICK if quick is None else quick) else None
        self.quick_read = 0  # lines read that way (tests count them)
        self._unlearnt: ShapeCache[int] = ShapeCache(_QUICK)  # memo reads since one was learnt

    def spans(self, block: bytes) -> list[tuple[int, int]]:
        """Where the lines of a block that can matter are (logsleuth/locate.py)."""
        return line_spans(block, self._anchors)

    def feed(self, block: bytes) -> Iterator[LogLine]:
        """The LogLines of one block, which must end on a line break (the input's last may not)."""
        for number, raw in self.locate(block):
            yield self.parse(number, raw)

    def locate(self, block: bytes) -> list[tuple[int, bytes]]:
        """The anchored lines of one block, with their 1-based numbers; counts every line."""
        found, base = locate(block, self._base, self._anchors)
        return self._located(block, found, base)

    def feed_runs(self, block: bytes) -> Iterator[LogLine | LineRun | RecordRun]:
        """`feed`, with the repeated lines of a multi-line record grouped into LineRuns."""
        return self.parse_runs(self.locate_stretches(block))

    def locate_stretches(self, block: bytes) -> list[tuple[int, bytes]]:
        """`locate`, each stretch of consecutive located lines as one (locate.locate_stretches)."""
        found, base = locate_stretches(block, self._base, self._anchors)
        return self._located(block, found, base)

    def _located(self, block: bytes, found: list[tuple[int, bytes]], base: int
                 ) -> list[tuple[int, bytes]]:
        """Count a located block's lines and keep it as the input's tail."""
        self._base = self.stats.lines = base
        if block:
            # the input's last TAIL_BYTES, across blocks: a reader may hand the input's last
            # line over as a block of its own (hardwrap.py after rows it joined), and a stall is
            # judged with the lines before it (causality.yaml `waits`' `shown_with`)
            self._tail = block if len(block) > TAIL_BYTES or not self._tail.endswith(b"\n") \
                else self._tail[-TAIL_BYTES - 1:] + block
            self.stats.last_line_text = ""
            self.stats.tail_text = ""
        return found

    def parse_runs(self, located: Iterable[tuple[int, bytes]], base: int = 0
                   ) -> Iterator[LogLine | LineRun | RecordRun]:
        """`parse` over located lines, grouping into one LineRun each stretch of consecutive
        lines that repeat the head of the line before them and whose bodies are known (the
        lines `parse` would make from the bodies cache without reading them), and into one
        RecordRun an ERROR record's first line, such a run right after it and the exception
        line right after that (a logged traceback: model.RecordRun).

        `located`: (number, text) of stretches of consecutive lines, `\n` between them
        (locate.locate_stretches; one line each is one stretch each). A record whose first
        line's body came before with a run after it (`_records`) is first asked whether its
        next lines are that run again under its own head, in one comparison of bytes: they
        are then the run the line-by-line loop would group (each line that head and a body
        still known), without a step per line."""
        splits: list[Split] = []
        bodies: list[bytes] = []
        first = last = 0
        held: LogLine | None = None  # a record's first line, until what follows it is known
        held_body = b""  # its body's bytes (after its own head)
        # the head the next lines may repeat, and the bodies cache's lookup, held here: a
        # logged traceback's lines are most of an error-heavy log's located lines, and each
        # costs little more than this loop (only `parse` learning a line changes the head)
        get = self._bodies.get
        records = self._records
        head = self._head_bytes if self._head is not None else b""
        size = len(head)
        for start, text in located:
            number = start + base - 1
            # the stretch's lines cut one by one, not split at once: a record's run recognised
            # whole is compared in place and passed over by its bytes (most of an error-heavy
            # log's located lines), never cut into lines
            find = text.find
            position, stop = 0, len(text)
            while position <= stop:
                cut = find(b"\n", position)
                if cut < 0:
                    cut = stop
                raw = text[position:cut]
                position = cut + 1
                number += 1
                if held is not None and not splits and number != held.number + 1:
                    yield held
                    held = None
                if head and raw.startswith(head):
                    body = raw[size:]
                    known = get(body)
                    if known is not None:
                        if number == last + 1 and splits:
                            splits.append(known)
                            bodies.append(body)
                            last = number
                            continue
                        if splits:
                            yield from self._flush(held, first, splits, bodies)
                            held = None
                        splits, bodies, first = [known], [body], number
                        last = number
                        continue
                    if held is not None and splits and number == last + 1:
                        # the line after a record's repeated lines, with their head: its
                        # exception?
                        line = self.parse(number, raw, learn=False)  # (the head stays)
                        if line.kind is LineKind.EXCEPTION:
                            yield RecordRun(held, self._line_run(first, splits, bodies), line)
                            if len(records) >= _RECORDS:
                                records.clear()
                            records[held_body] = (self._generation, tuple(bodies),
                                                  tuple(splits))
                        else:
                            yield from self._flush(held, first, splits, bodies)
                            yield line
                        held, splits, bodies = None, [], []
                        continue
                if held is not None or splits:
                    yield from self._flush(held, first, splits, bodies)
                    held, splits, bodies = None, [], []
                line = self.parse(number, raw)
                head = self._head_bytes if self._head is not None else b""
                size = len(head)
                if line.kind is LineKind.PLAIN and line.level in _RECORD_LEVELS \
                        and self._head is not None:
                    held = line  # its head is the one the next lines may repeat
                    held_body = raw[size:]
                    run = records.get(held_body)
                    if run is not None and run[0] == self._generation:
                        # its run again right after it, each line under its head with a body
                        # still known (the cache was not cleared since): the lines the loop
                        # would group one by one
                        count = len(run[1])
                        again = head + (b"\n" + head).join(run[1])
                        ends = position + len(again)
                        if text.startswith(again, position) \
                                and (ends == stop or text[ends] == 10):  # (10: `\n`)
                            splits, bodies = list(run[2]), list(run[1])
                            first, last = number + 1, number + count
                            position = ends + 1
                            number += count
                            self.whole += 1
                else:
                    yield line
        if held is not None or splits:
            yield from self._flush(held, first, splits, bodies)

    def _flush(self, held: LogLine | None, first: int, splits: list[Split], bodies: list[bytes]
               ) -> Iterator[LogLine | LineRun]:
        """A held first line and a run that did not end up in a RecordRun, as they were."""
        if held is not None:
            yield held
        if splits:
            yield from self._run(first, splits, bodies)

    def _run(self, first: int, splits: list[Split], bodies: list[bytes]
             ) -> Iterator[LogLine | LineRun]:
        """The lines of a stretch found by parse_runs (the head is still the one they follow)."""
        assert self._head is not None
        if len(splits) == 1:
            self.stats.parsed += 1
            yield continuation(self._head.head, splits[0].body, first)
            return
        yield self._line_run(first, splits, bodies)

    def _line_run(self, first: int, splits: list[Split], bodies: list[bytes]) -> LineRun:
        assert self._head is not None
        head = self._head.head
        self.stats.parsed += len(splits)
        header = head.header
        return LineRun(first, len(splits), head.process, header.level, header.time, header.site,
                       (b"\n".join(bodies), header.level, head.relay_level, header.site),
                       partial(continued, head, tuple([s.body for s in splits]), first))

    def parse(self, number: int, raw: bytes, learn: bool = True) -> LogLine:
        """Decode, clean and parse one located line (and learn its head and body, unless
        told not to: a record's exception line, whose body differs every time)."""
        self.stats.parsed += 1
        head = self._head_bytes
        if head and raw.startswith(head):
            known = self._bodies.get(raw[len(head):])
            if known is not None and self._head is not None:
                return continuation(self._head.head, known.body, number)
        key = raw.translate(MASK)
        quick = self._quick
        if quick is not None and learn:
            readings = quick.get(key)
            known_shape = readings[1].get(raw[:readings[0]]) if readings is not None else None
            if known_shape is not None:
                read = known_shape.read(raw, number)
                if read is not None:
                    self.quick_read += 1
                    # its head is not kept for the lines after it (only a cache: a line that
                    # repeats it is parsed instead of continued, to the same LogLine)
                    self._head_bytes, self._head = b"", None
                    return read
        kept = self._shapes.get(key)
        if kept is not None:
            plan, head_bytes, body, cut = kept
            shown = raw.decode("utf-8")  # it decodes: see _shapes
            made = self._memo.read(plan, shown[:-1] if cut else shown, number)
            if made is not None:
                if learn:
                    self._keep(raw, made[1], head_bytes, body)
                    if quick is not None and self._learn_now(key):
                        learned = _Quick.learn(raw, made[0], plan, cut)
                        if learned is not None:
                            _keep_reading(quick, key, learned)
                return made[0]
        try:
            decoded_text = raw.decode("utf-8")
            decoded = True
        except UnicodeDecodeError:
            self.stats.undecodable += 1
            decoded_text = raw.decode("utf-8", "replace")
            decoded = False
        text = clean(decoded_text)
        line, split = self._memo.parse(text, number)
        if learn:
            self._keep(raw, split, *self._learning(
                raw, text, split.end if split is not None and split.repeatable else -1, decoded))
        # cleaning left the line as it was, or only took its record's `\r` line end (vLLM's
        # NewLineFormatter ends every line of a record but the last in `\r\n`): the line
        # without that `\r` is one clean() leaves as it is (clean(x + "\r") is clean(x) for an x
        # that does not end in `\r`), and so is every line of the shape
        cut = text is not decoded_text and decoded_text[-1:] == "\r" \
            and decoded_text[-2:-1] != "\r" and _unchanged(decoded_text[:-1])
        if decoded and (cut or text is decoded_text) and not may_hold_colour(text) \
                and b"#0" not in key:
            # (the cleaned text's shape_key is the raw line's, less its cut `\r`)
            made_plan = self._memo.plan_of(key[:-1] if cut else key)
            if made_plan is not None:
                self._shapes.put(key, (made_plan, *self._learning(
                    raw, text, made_plan.end if made_plan.repeatable else -1, decoded), cut))
        return line

    def _learn_now(self, key: bytes) -> bool:
        """Whether to learn a quick reading from this line of the shape `key`, read by the memo:
        every `_QUICK_AFTER`th such line, so that a shape whose lines come from ever new
        processes (a restart-heavy log's start-up lines, a new pid every run) does not pay for
        learning a reading on each of them that no later line uses."""
        count = self._unlearnt.get(key) or 0
        if count + 1 < _QUICK_AFTER:
            self._unlearnt.put(key, count + 1)
            return False
        self._unlearnt.put(key, 0)
        return True

    @staticmethod
    def _learning(raw: bytes, text: str, end: int, decoded: bool) -> tuple[int, bool]:
        """What `_keep` does with a line whose head, a repeatable one, ends at `end` (-1: not
        repeatable, or none): (the head's length in bytes, -1 to forget the head; whether the
        body is kept by its bytes). The head and body are remembered when cleaning left both
        as they were in the raw line."""
        if end < 0 or not decoded or text[:1] in BOX_BORDERS:
            return -1, False
        head_text = text[:end]
        head = head_text.encode("utf-8")
        if not raw.startswith(head) or may_hold_colour(head_text):
            return -1, False
        rest = raw[len(head):]
        if len(rest) > _BODY_BYTES or b"\r" in rest[:-1] \
                or rest.rstrip(b"\r").endswith((b"^M", b"#015")) \
                or may_hold_colour(text[end:]) or may_hold_colour(rest.decode("utf-8")):
            return len(head), False  # long, or cleaning changed it: not worth or not safe
        return len(head), True  # to key by its bytes

    def _keep(self, raw: bytes, split: Split | None, head_bytes: int, body: bool) -> None:
        """Remember the line's head for the lines after it, and its body for lines with the
        same bytes after such a head (`_learning` decides)."""
        if head_bytes < 0 or split is None:
            self._head_bytes, self._head = b"", None
            return
        self._head_bytes, self._head = raw[:head_bytes], split
        if body:
            if len(self._bodies) >= _BODIES:
                self._bodies.clear()  # a bound: frames and caret lines repeat, bodies come back
                self._generation += 1
            self._bodies[raw[head_bytes:]] = split

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
        self.stats.tail_text = _tail_lines(self._tail)


class _Quick:
    """How a line of one shape (digits masked) that is a request's answer or an activity line
    (an access line, an engine's metrics line: ACCESS or PLAIN, no error level, nothing but its
    text in its body) is read without the memo's builders: its bytes before the text equal to a
    line read by the memo's plan of the shape, but for the record's time, make the same
    process, level and call site (the plan reads the head from the head's text alone,
    `own_head`, at fixed places); the text and the time are the line's own at the plan's
    places. Every body is still asked whether a digit-sighted terminal could take it (the
    plan's `sighted`), as the memo asks. tests/test_quickread.py checks the lines equal to
    the memo's and Lark's on generated lines of every shape."""

    __slots__ = ("prefix", "time_at", "mid", "start", "stop", "sighted", "kind", "process",
                 "level", "time", "site")

    def __init__(self, prefix: bytes, time_at: int, mid: bytes, start: int, stop: int,
                 sighted: bool, line: LogLine):
        self.prefix, self.time_at, self.mid = prefix, time_at, mid
        self.start, self.stop, self.sighted = start, stop, sighted
        self.kind, self.process, self.level = line.kind, line.process, line.level
        self.time, self.site = line.time, line.site

    @classmethod
    def learn(cls, raw: bytes, line: LogLine, plan: Plan, cut: bool) -> _Quick | None:
        """The quick reading of `raw`'s shape, from `line` (the memo's reading of `raw`), or
        None when the shape is not one it reads."""
        if line.kind not in _QUICK_KINDS or line.level in _RECORD_LEVELS \
                or line.level is Level.WARNING or not plan.own_head or not raw.isascii() \
                or line.exception is not None or line.message is not None \
                or line.frame is not None or line.chain is not None \
                or line.outer is not None or line.depth:
            return None
        end = len(raw) - 1 if cut else len(raw)
        start = plan.end  # ASCII: a character's place is its byte's
        if raw[start:end] != line.text.encode("ascii"):
            return None  # its text is not the body as the line holds it
        time = line.time
        if time is None:
            return cls(raw[:start], start, b"", start, end - len(raw), plan.sighted, line)
        at = raw.find(time.encode("ascii"))
        if at < 0 or at + len(time) > start or raw.find(time.encode("ascii"), at + 1) >= 0:
            return None  # the time is not one place of the head: the plan's place unknown
        return cls(raw[:at], at + len(time), raw[at + len(time):start], start, end - len(raw),
                   plan.sighted, line)

    def read(self, raw: bytes, number: int) -> LogLine | None:
        """The LogLine of a line of this shape, or None when it must be read otherwise (another
        process or call site, a body a digit-sighted terminal could take)."""
        prefix, time_at = self.prefix, self.time_at  # (the bytes before `prefix` are its own)
        if self.mid and not raw.startswith(self.mid, time_at):
            return None
        body = raw[self.start:len(raw) + self.stop]
        text = body.decode("ascii")
        if self.sighted and not unsighted_ascii_body(body, text):
            return None
        time = raw[len(prefix):time_at].decode("ascii") if self.mid or time_at > len(prefix) \
            else self.time
        return LogLine(number, self.kind, text, self.process, self.level, time, self.site)


def _keep_reading(quick: ShapeCache[tuple[int, dict[bytes, _Quick]]], key: bytes,
                  learned: _Quick) -> None:
    """Keep a quick reading of the shape `key`, beside the last few of other processes and call
    sites (a shape's readings all cut their bytes before the time at one place)."""
    size = len(learned.prefix)
    kept = quick.get(key)
    if kept is None or kept[0] != size:
        quick.put(key, (size, {learned.prefix: learned}))
        return
    readings = kept[1]
    readings.pop(learned.prefix, None)
    if len(readings) >= _QUICK_EACH:
        del readings[next(iter(readings))]  # the oldest
    readings[learned.prefix] = learned


QUICK = True  # whether tokenizers read such lines by `_Quick` (tests compare both ways)
_QUICK_KINDS = (LineKind.ACCESS, LineKind.PLAIN)
_QUICK = 1024  # shapes read quickly (a bound)
_QUICK_EACH = 4  # readings kept a shape: its lines from so many processes or call sites
_QUICK_AFTER = 8  # a reading is learnt from every so many lines the memo read of a shape


def _unchanged(text: str) -> bool:
    """Whether clean() leaves the text as it is."""
    return clean(text) is text


_RECORD_LEVELS = (Level.ERROR, Level.CRITICAL)  # records that may print a traceback
_BODY_BYTES = 1024  # longer bodies rarely repeat (grammar.CACHED_BODY_CHARS)
_BODIES = 4096
_RECORDS = 256  # records' first lines kept with their runs (a bound)


def parse_every_line(data: bytes) -> list[LogLine]:
    """Every non-blank line of `data` parsed, anchored or not (`tokenize` parses only the lines
    an anchor selects): for an input short enough to read line by line, a paste."""
    tokenizer = Tokenizer()
    return [tokenizer.parse(number, line.rstrip(b"\r"))
            for number, line in enumerate(data.split(b"\n"), 1) if line.strip()]


def tokenize(blocks: Iterable[bytes], stats: TokenizeStats | None = None) -> Iterator[LogLine]:
    """Yield a LogLine for every anchored line of the blocks, in order, correctly numbered.

    Lines without an anchor are counted, not parsed. The last serving line of each block is
    parsed too, so later stages know how long the server kept serving.
    """
    tokenizer = Tokenizer(stats)
    for block in blocks:
        yield from tokenizer.feed(block)
    tokenizer.finish()


def tokenize_runs(blocks: Iterable[bytes], stats: TokenizeStats | None = None
                  ) -> Iterator[LogLine | LineRun | RecordRun]:
    """`tokenize`, with the repeated lines of multi-line records grouped into LineRuns."""
    tokenizer = Tokenizer(stats)
    for block in blocks:
        yield from tokenizer.feed_runs(block)
    tokenizer.finish()


TAIL_BYTES = 64 * 1024


def _tail_lines(block: bytes) -> str:
    """The block's last lines, the last one the input's last (one line break at the end, which
    ends that line, is dropped; a blank line before it is a line, as the count has it)."""
    tail = block[-TAIL_BYTES - 1:]
    if tail.endswith(b"\n"):
        tail = tail[:-1]
    if len(block) >= TAIL_BYTES:  # a cut block (or the split reader's tail) may start mid-line
        tail = tail[tail.find(b"\n") + 1:]  # whole lines only
    return tail.decode("utf-8", "replace")


def _last_line(block: bytes) -> str:
    stripped = block.rstrip(b"\n")
    start = stripped.rfind(b"\n") + 1
    return clean(stripped[start:][-4096:].decode("utf-8", "replace"))


