"""A log pasted through something that hard-wrapped its lines (issue 10: error evidence in every
form).

A terminal's copy of its screen or scrollback (tmux's and screen's copy mode, a console's text
selection), `fold -w`, or a web form that breaks lines at its width turns each row of a long line
into a line of its own, exactly that many characters wide. Read one row a line, an exception's
message is cut where the row ended, its type may be cut in two, and a frame's path is two lines
neither of which is a frame.

The width is inferred only from strict evidence in the head of the log (`wrap_width`): no line
is longer than it, and at least `_MIN_EVIDENCE` rows with different texts (each with the line
after it, digits masked: a stats line repeated is one) are exactly that wide, cut mid-token (the
row ends inside a word, number or path and the next line goes on with one, or with the comma or
closing bracket that ends it, whatever shape the rest has) or where two words
meet (the next line begins with the one space the cut left, or the row ends with it before a
word: a short excerpt's few cut lines seldom all fall inside a word) or inside a record's head
at a seam no space marks (`... E 812 812] logging.cc` + `:447: ...`), and followed by a
line without the shape of a line of its own, as the grammar reads it (no record header, process
prefix, wrapper, frame or traceback shape: `_goes_on`); and most rows that wide are followed that
way. A log whose longest lines are padded table rows (many spaces at their end) or repeated
stats lines has none of that evidence.

A paste wrapped at word boundaries (an editor's or a tracker's soft wrap, a reporter who broke
lines by hand) has no one width: each row ends where a word did, and the space between the rows is
gone. Its strict evidence is the record head cut before its call site (`soft_wrapped`): at least
`_MIN_EVIDENCE` rows with different text after them are a record's head with no call site
(`(Worker_TP1 pid=7) ERROR 10-22 22:53:05`), the row after begins with a call site (the time
before it, when the cut came earlier) and no process or level of its own
(`[multiproc_executor.py:703] File`), and the two read as one are one record's head with its call
site. vLLM prints a record's call site on its head's line, so nothing but a wrap puts it
on the next. A traceback's frame cut right after its `File` word is such evidence too (the row is
`File` alone, behind a process prefix or not, and the rows after it begin with the quoted path and
read with it as the frame: tests/fixtures/tuning ss-gaudi-plugin-v1-warmup-...-wrapped, a pull
request's description wrapped before every path): Python never ends a line with the word.
`wrap_width` then says `SOFT` (0): every row may go on its line, as `_goes_on` decides, and rows
are joined with the space the wrap took (tests/fixtures/tuning: ii-gaudi-inc-calibration-...-esc-
text-wrapped, a plugin's worker log pasted wrapped at 72 columns).

Each cut line's rows are joined into one line (`HardWrapped`), so every later stage reads the
log as it was printed; `Rows` keeps where each line read lies in the file, and the report's line
numbers are mapped back to the file's own rows (inputorder.py: a line at the first row it
began on, a span to the last row of its last line).
"""

from __future__ import annotations

import io
from bisect import bisect_left
from functools import cache
from typing import TYPE_CHECKING

from logsleuth.wholelines import JoinedRows

if TYPE_CHECKING:
    from logsleuth.model import LogLine

HEAD_BYTES = 64 << 10  # the head the width is inferred from
_MIN_WIDTH = 60  # narrower panes are rare, and short lines of one length are common
_MIN_EVIDENCE = 3  # different rows cut mid-token that say a width
# a row that begins with its line's first characters (not a word alone) is a line of its own: a
# wrapper's prefix before every row (`vllm-1  | `, `0: `, a year), not a cut mid-text
_SAME_START = 3
_HEAD_ROWS = 4  # a record's head never takes more rows than this
_JOINED_BYTES = 1 << 20  # a runaway chain of rows (never a real line) keeps only its start
_DIGITS = str.maketrans("0123456789", "0000000000")
SOFT = 0  # the width `wrap_width` says for rows wrapped at word boundaries (no one width)
# a soft wrap is looked for only in a head whose rows are all this narrow (an editor's or a
# form's width; a log as printed has longer lines: a frame under a record's head, the config
# line), and in its first rows only: the grammar reads each row it looks at
_SOFT_MAX_WIDTH = 160
_SOFT_ROWS = 400
_QUOTE = "> "  # a markdown quote's border, before every row of a quoted paste
_CLOSERS = frozenset(",;)]}")  # what ends a token and never begins a line


def _width(row: bytes) -> int:
    """A row's width in characters (its `\\r` end not counted)."""
    row = row.rstrip(b"\r")
    return len(row) if row.isascii() else len(row.decode("utf-8", "replace"))


def _in_token(char: str) -> bool:
    """A character a word, a number or a path is made of."""
    return char.isalnum() or char in "_./-"


@cache
def _shapes() -> tuple[object, frozenset[object]]:
    """The plain kind, and the kinds of a line of its own (lazily: the grammar loads once)."""
    from logsleuth.model import LineKind

    return LineKind.PLAIN, frozenset({
        LineKind.TRACEBACK_HEADER, LineKind.GROUP_HEADER, LineKind.GROUP_BOX, LineKind.CHAIN,
        LineKind.PROCESS_HEADER, LineKind.FAULT_THREAD, LineKind.FRAME_LIST,
        LineKind.EXTENSION_MODULES, LineKind.BLANK, LineKind.INDENTED})


def _goes_on(first: str, row: str, after: str, so_far: str | None = None) -> tuple[bool, bool]:
    """Whether `after` goes on the line whose rows are `first` ... `row` (`row` as wide as the
    wrap; `so_far` the rows joined, when more than `first`, empty past `_HEAD_ROWS`), and whether
    it does mid-token with no shape at all (evidence of a width).

    It does not when it is blank, begins as the line's first row did (a launcher's prefix before
    every row), repeats a border the first row began with (a box; inside a markdown quote's
    `> ` on both rows, the rows are judged without it), or has the shape of
    a line of its own to the grammar: a record header, a process prefix or a wrapper (unless the
    row cut the line's head), a traceback's, chain's or process's header, an indented line. A
    call site alone is the rest of a cut head. Another shape (an error line, a frame the grammar
    reads in a cut path) goes on only when the row cut a token (`Runtime` + `Error: ...`)."""
    from logsleuth.model import MAIN
    from logsleuth.tokenize import clean, parse_line

    if first.startswith(_QUOTE) and after.startswith(_QUOTE):
        # a quote of a terminal's copy (a reply or an issue quoting a wrapped paste: `> ` before
        # every row): the rows inside the quote are judged as the terminal showed them (a row
        # joined already lost its border)
        cut = len(_QUOTE)
        return _goes_on(first[cut:], row[cut:] if row.startswith(_QUOTE) else row, after[cut:],
                        None if so_far is None else so_far[cut:])
    if not after.strip() or _same_start(first, after):
        return False, False
    head = first if so_far is None else so_far
    border = first[:1]
    if border and not border.isalnum() and not border.isspace() and after[:1] == border:
        return False, False
    if row[-1:] == "^" and after[:1] == "^":
        return True, False  # a caret line under a long source line, cut
    # a cut before a space leaves the space at the start of the next row: one space is not an
    # indentation (a line of its own indents by two or more)
    spaced = after[:1] == " " and after[1:2] not in ("", " ", "\t") and not row[-1:].isspace()
    text = clean(after[1:] if spaced else after)
    line = parse_line(text)
    # a cut inside a token, or before the comma or closing bracket that ends one (a line of its
    # own never begins with one: `(pid=60914` + `, name=...`, `line 6209` + `,in f`)
    mid_token = _in_token(row[-1:]) and (_in_token(after[:1]) or after[:1] in _CLOSERS) \
        and not spaced
    outer = _wrapper(line.outer)
    if line.site is not None and line.time is None and not outer \
            and (line.process is MAIN or text.lstrip()[:1].isdigit()) and not line.depth:
        # a call site with no time or wrapper before it is the rest of a head the row cut
        # (`... [multiproc_` + `executor.py:654] WorkerProc hit an exception.`)
        return True, mid_token
    # a process prefix read off a row that begins with a digit is a cut one's rest (`1072) is
    # larger ...`), not a prefix
    process = line.process is not MAIN and not text.lstrip()[:1].isdigit()
    if line.time is not None or outer or process \
            or line.depth or line.site is not None \
            or (line.level is not None and line.text.strip() != text.strip()):
        # a record's head (a level read off the line, not one its words imply): the line's
        # own, unless the row cut the line's head (`(EngineCore_DP0 pid=5) ERROR ` +
        # `08-01 20:00:09 [core.py:710] ...`, `... [core.py` + `:710] ...`); a cut inside the
        # head, before a row with no time of its own, is evidence of the width (`... E 812 812]
        # logging.cc` + `:447: *** SIGSEGV received ...`)
        cut = _cut_in_head(head, after)
        return cut, cut and line.time is None and _sealed(row, after)
    plain, own = _shapes()
    if line.kind is plain:
        # a cut at a space between two words is evidence too: the space begins the next row,
        # or ends this one before a word (a line's own text seldom ends in one space)
        at_space = spaced or (row[-1:] == " " and not row[-2:-1].isspace()
                              and after[:1].isalnum())
        return True, mid_token or at_space or (_sealed(row, after) and _cut_in_head(head, after))
    # another kind (a frame's shape the grammar reads in a cut path, an error line): the line's
    # own unless the row cut a token it goes on (`.../site-` + `packages/...", line 3, in f`,
    # `Runtime` + `Error: ...`), the line and the row are not indented (`Worker failed ` +
    # `with error 'torch.AcceleratorError: ...`) or the row cut the line's head, and never a
    # traceback's, chain's or process's header
    # a line that ends a raw traceback (its exception after a code line) never follows a row of a
    # line that was not indented, and a frame or code line of one begins with spaces
    unindented = not first[:1].isspace() and not after[:1].isspace()
    goes_on = ((mid_token or unindented) and line.kind not in own) \
        or _cut_in_head(head, after) or _message_cut(head)
    # a token cut in two says a width whatever shape its rest has (`... fd limit err` + `ors
    # like `OSError: [Errno 24] ...`)
    return goes_on, goes_on and mid_token and line.kind not in own


def _unquoted(first: str, row: str) -> str:
    """`row` as it goes on the line `first` began: without the quote's border both carry."""
    return row[len(_QUOTE):] if first.startswith(_QUOTE) and row.startswith(_QUOTE) else row


def _sealed(row: str, after: str) -> bool:
    """Neither side of the seam is a space: a cut inside a token or a record's head."""
    return bool(row[-1:]) and not row[-1:].isspace() and bool(after[:1]) \
        and not after[:1].isspace()


def _message_cut(so_far: str) -> bool:
    """The rows end at an error's `Type: ` before its message: the message follows, whatever
    shape it has (`RuntimeError: ` + `HIP error: invalid device ordinal`)."""
    from logsleuth.tokenize import clean, parse_line

    if not so_far.rstrip().endswith(":"):
        return False
    line = parse_line(clean(so_far))
    return line.exception is not None and not (line.message or "").strip()


def _cut_in_head(so_far: str, after: str) -> bool:
    """The rows cut the line's record head, or right after it: read with `after`, the line's
    head reaches the cut."""
    from logsleuth.tokenize import clean, parse_line

    if not so_far:
        return False  # a line of many rows: its head was read long before
    joined = clean(so_far + after)
    body = parse_line(joined).text.strip()
    # where the body begins (a frame's text is the grammar's, from its `File` on)
    head = joined.find(body[:16]) if body else len(joined)
    return head >= len(clean(so_far).rstrip())


def _wrapper(outer: str | None) -> bool:
    """A wrapper the grammar read off a line's start is one (a time, a tag, a launcher's label),
    not a number the line's text began with (`3.6 GiB). ...`, read as a version's wrapper)."""
    return outer is not None and any(c.isalpha() or c in "[]|:" for c in outer)


def _same_start(first: str, after: str) -> bool:
    """`after` begins as the line's first row did with more than a word: a wrapper's prefix
    before every row (`vllm-1  | `, `[pod/x] `, a year), not a cut mid-text (`vllm` + `/v1/`)."""
    common = 0
    for a, b in zip(first[:_SAME_START * 4], after):
        if a != b:
            break
        common += 1
    return common >= _SAME_START and not first[:common].isalnum()


def wrap_width(head: bytes) -> int | None:
    """The width the log's lines were hard-wrapped at, `SOFT` when they were wrapped at word
    boundaries, or None when the head shows no wrap (see above). `head` is the input's first
    bytes; a last line it cuts is not read."""
    rows = head.split(b"\n")
    rows.pop()  # after the last newline: empty, or a row the head cut
    texts = [row.rstrip(b"\r").decode("utf-8", "replace") for row in rows]
    if len(texts) < 2:
        return None
    width = max(len(text) for text in texts)
    hard = _hard_width(texts, width)
    if hard is None and width <= _SOFT_MAX_WIDTH and soft_wrapped(texts[:_SOFT_ROWS]):
        return SOFT
    return hard


def _hard_width(texts: list[str], width: int) -> int | None:
    """`width` when the rows `texts` (`width` the widest) were hard-wrapped at it."""
    if width < _MIN_WIDTH:
        return None
    wide = cut = 0
    evidence: set[str] = set()
    first: str | None = None  # the first row of the line the row before went on
    so_far = ""  # that line's rows up to the row before
    for text, after in zip(texts, texts[1:]):
        if len(text) != width:
            first = None
            continue
        wide += 1
        if first is None:
            so_far = text
        elif so_far and len(so_far) < _HEAD_ROWS * width:
            so_far += _unquoted(so_far, text)
        else:
            so_far = ""
        goes_on, mid_token = _goes_on(first or text, text, after, so_far)
        if goes_on:
            cut += 1
            if mid_token:
                evidence.add(f"{text}\n{after}".translate(_DIGITS))
            first = first or text
        else:
            first = None
    return width if len(evidence) >= _MIN_EVIDENCE and 2 * cut >= wide else None


def soft_wrapped(texts: list[str]) -> bool:
    """Whether `texts` (a head's rows) were wrapped at word boundaries: record heads cut before
    their call site (see above)."""
    from logsleuth.model import MAIN
    from logsleuth.tokenize import clean, parse_line

    evidence: set[str] = set()
    head = None  # the row before, when it begins with a process's prefix
    for at, text in enumerate(texts):
        line = parse_line(clean(text))
        if head is not None and line.site is not None and line.level is None \
                and line.process is MAIN and not line.depth:
            # the row begins with the rest of a record's head (its call site, the time before it
            # when the cut came earlier) and no process or level of its own: read after the
            # head, it is that record's call site (not one the head's own line already had)
            joined = parse_line(clean(f"{head} {text}"))
            if joined.site == line.site and joined.level is not None \
                    and joined.process is not MAIN:
                # told apart by the text that follows (a head cut right before its message
                # leaves the same rest on every record)
                evidence.add(f"{text}\n{texts[at + 1] if at + 1 < len(texts) else ''}"
                             .translate(_DIGITS))
                if len(evidence) >= _MIN_EVIDENCE:
                    return True
        elif _frame_cut(line, texts[at + 1:at + 3]):
            # a frame cut right after its `File` (a paste wrapped before the quoted path):
            # Python never ends a line with the word alone
            evidence.add("\n".join(texts[at:at + 3]).translate(_DIGITS))
            if len(evidence) >= _MIN_EVIDENCE:
                return True
        head = text if line.process is not MAIN else None  # a process's record, perhaps cut
    return False


def _frame_cut(line: LogLine, after: list[str]) -> bool:
    """`line` is a traceback frame's `File` alone (a process's prefix before it or not), and the
    rows `after` it begin with the frame's quoted path and read with it as the frame."""
    from logsleuth.model import LineKind
    from logsleuth.tokenize import clean, parse_line

    if line.text.strip() != "File" or not after or not after[0].lstrip().startswith('"'):
        return False
    return any(parse_line(clean(" ".join(["File", *after[:rows]]))).kind is LineKind.FRAME
               for rows in (1, 2))


def notice(width: int) -> str:
    """What the report says of a log read joined."""
    if width == SOFT:
        return ("the log's lines were wrapped at word boundaries (an editor's or a form's paste); "
                "the rows of each wrapped line were read as one line, and line numbers are the "
                "file's own rows")
    return (f"the log's lines were hard-wrapped at {width} characters (a terminal's copy, a "
            "form's paste); the rows of each cut line were read as one line, and line numbers "
            "are the file's own rows")


class Rows:
    """Where the lines read lie in the file: the lines whose rows were joined, each with how
    many rows it took after its first. Filled as the log is read."""

    def __init__(self) -> None:
        self._lines: list[int] = []  # joined lines, ascending
        self._before: list[int] = [0]  # rows joined into the lines before each (and all)

    def add(self, line: int, extra: int) -> None:
        self._lines.append(line)
        self._before.append(self._before[-1] + extra)

    def first(self, line: int) -> int:
        """The file's row that line `line` (as read) begins on."""
        return line + self._before[bisect_left(self._lines, line)]

    def last(self, line: int) -> int:
        """The file's row that line `line` (as read) ends on."""
        at = bisect_left(self._lines, line)
        return line + self._before[at + 1 if at < len(self._lines)
                                   and self._lines[at] == line else at]

    def count(self, lines: int) -> int:
        """The file's rows, for `lines` lines read."""
        return lines + self._before[-1]

    def __bool__(self) -> bool:
        return bool(self._lines)


class HardWrapped(JoinedRows):
    """The lines of a log hard-wrapped at `width` characters, each cut line's rows joined into
    one line (see above); `rows` says where each line lies in the file. A row as wide as the
    wrap waits for the next line, so what is handed on is final."""

    def __init__(self, stream: io.RawIOBase, width: int):
        super().__init__(stream)
        self._width = width
        self.rows = Rows()
        self._open: list[bytes] = []  # the rows of the line being joined
        self._first = ""  # its first row, decoded
        self._kept = 0  # bytes kept of it
        self._short: bytes | None = None  # a row narrower than the wrap, before the next
        self._lines = 0  # lines handed on

    def feed(self, chunk: bytes) -> bytes:
        """The lines `chunk` (the next bytes of the rows) completes, each cut line's rows joined
        (a growing log is fed as it grows: follow.py)."""
        data = self._rest + chunk
        end = data.rfind(b"\n") + 1
        self._rest = data[end:]
        return b"".join(line + b"\n" for line in self._take(data[:end].split(b"\n")[:-1]))

    def finish(self) -> bytes:
        """The lines left at the end of the rows: a line still open, the last row."""
        data, self._end, self._rest = self._rest, True, b""
        out = self._take(data.split(b"\n") if data else [])
        if self._short is not None:  # a short row still waiting for a wide one: the last
            self._lines += 1
            out.append(self._short)
            self._short = None
        if self._open:
            out.append(self._close())
        return b"".join(line + b"\n" for line in out)

    def _wide(self, row: bytes) -> bool:
        """Whether `row` may go on in the next (a soft wrap's rows all may)."""
        if self._width == SOFT:
            return True
        return len(row) >= self._width and _width(row) == self._width

    def _take(self, rows: list[bytes]) -> list[bytes]:
        out: list[bytes] = []
        for row in rows:
            if self._short is not None:
                short, self._short = self._short, None
                if self._edited(short, row):
                    self._open = [short]
                    self._first = short.rstrip(b"\r").decode("utf-8", "replace")
                    self._kept = len(short)
                    self._join(row)
                    continue  # as wide as the wrap: the line may go on
                self._lines += 1
                out.append(short)
            if self._open:
                last = self._open[-1].rstrip(b"\r").decode("utf-8", "replace")
                after = row.decode("utf-8", "replace")
                so_far = b"".join(self._open).decode("utf-8", "replace") \
                    if len(self._open) <= _HEAD_ROWS else ""
                if _goes_on(self._first, last, after, so_far)[0]:
                    self._join(row)
                    if not self._wide(row):
                        out.append(self._close())
                    continue  # a row as wide as the wrap: the line may go on
                out.append(self._close())
            if self._wide(row):
                self._open = [row]
                self._first = row.rstrip(b"\r").decode("utf-8", "replace")
                self._kept = len(row)
            else:
                self._short = row  # a row the reporter edited, if the next says so
        return out

    def _edited(self, short: bytes, row: bytes) -> bool:
        """`short`, narrower than the wrap, is the first row of a line the reporter edited
        after the wrap (a date or a name redacted: `[DATE]`), which `row` goes on: `row` is as
        wide as the wrap and begins with the one space a cut before a space leaves, then text
        of no shape of its own; `short` is most of the wrap's width and ends mid-text."""
        if not self._wide(row) or row[:1] != b" " or row[1:2].isspace() or not row[1:2]:
            return False
        first = short.rstrip(b"\r").decode("utf-8", "replace")
        if 2 * _width(short) < self._width or not first.strip() or first[-1:].isspace():
            return False
        return _goes_on(first, first, row.decode("utf-8", "replace"))[0]

    def _join(self, row: bytes) -> None:
        self._open[-1] = self._open[-1].rstrip(b"\r")
        if self._first.startswith(_QUOTE) and row.startswith(_QUOTE.encode()):
            row = row[len(_QUOTE):]  # a quoted row's border is the quote's, not the line's
        if self._width == SOFT and not row[:1].isspace():
            row = b" " + row  # the space the wrap took
        if self._kept < _JOINED_BYTES:
            self._kept += len(row)
        else:
            row = b""  # the rows of a runaway chain count, their text is not kept
        self._open.append(row)

    def _close(self) -> bytes:
        self._lines += 1
        if len(self._open) > 1:
            self.rows.add(self._lines, len(self._open) - 1)
        joined, self._open = b"".join(self._open), []
        return joined
