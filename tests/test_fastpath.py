"""The fast path (logsleuth/tokenize/fastpath.py) gives what the full LALR parse gives, on every
line of the corpus, of every benchmark mix and of generated body shapes."""

from __future__ import annotations

import copy
import functools
import re
import re._constants as sre  # the regex parser's opcodes (Python 3.11)
import re._parser as sre_parse
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lark.exceptions import LarkError

from corpus_judge import iter_logs
from logsleuth.tokenize import clean, parse_line, parse_line_whole
from logsleuth.tokenize.fastpath import LONG_BODY_CHARS, body_lexer
from logsleuth.tokenize.grammar import (_TRANSFORMER, _lex_head, _record_parser,
                                        unsighted_ascii_body, unsighted_body)
from mix_logs import MIXES, mix_log
from reference_logs import reference_logs
from test_evidence import generated_line


def _lark_body(text: str) -> object:
    try:
        return _record_parser().parse(text, start="body")
    except LarkError:
        return None


def _check(raw: bytes) -> None:
    text = clean(raw.decode("utf-8", "replace"))
    body = text[_lex_head(text)[0]:]
    fast = body_lexer(_record_parser(), _TRANSFORMER).body(body) if body else None
    if fast is not None:
        assert fast == _lark_body(body), body
    assert parse_line(text) == parse_line_whole(text), text


# (test_shape leaves the comparison of parse_line with parse_line_whole on these lines, the
# corpus's and the mixes' at 5,000 lines cut at 4 KiB, to these two tests: keep them alike)
@pytest.mark.parametrize("log", list(iter_logs()),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_fast_path_agrees_with_lark_on_corpus_lines(log: Path) -> None:
    for raw in log.read_bytes().split(b"\n"):
        _check(raw)


@pytest.mark.parametrize("mix", MIXES)
def test_fast_path_agrees_with_lark_on_generated_lines(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    for raw in dict.fromkeys(path.read_bytes().split(b"\n")):  # each distinct line once
        _check(raw[:4096])


_WORD = st.text(alphabet="abcXYZ_.:0123 ()'\"|^~-", min_size=0, max_size=12)
_BODIES = st.one_of(
    st.builds(lambda p, n, f: f'  File "{p}", line {n}, in {f}', _WORD, st.integers(0, 9999),
              _WORD),
    st.builds(lambda p, n, f: f'File "{p}", line {n} in {f}', _WORD, st.integers(0, 99), _WORD),
    st.builds(lambda n, m: f"{n}: {m}", st.sampled_from(
        ["ValueError", "torch.OutOfMemoryError", "KeyboardInterrupt", "Error", "x.YError(Z)",
         "UserWarning", "ExceptionGroup", "  | RuntimeError", "StopIteration"]), _WORD),
    st.builds(lambda n: n, st.sampled_from(["ValueError", "SystemExit", "RuntimeError:"])),
    st.builds(lambda s, c: " " * s + c, st.integers(0, 8), st.sampled_from(
        ["^^^^", "~~~^^^~", "| ^^", "Traceback (most recent call last):", "...<3 lines>...",
         "[Previous line repeated 2 more times]", "+---------------- 1 ----------------",
         "The above exception was the direct cause of the following exception:"])),
    st.builds(lambda lv, sp, ip, m, path, code, rest: f'{lv}:{sp}{ip} - "{m} {path} HTTP/1.1" '
              f"{code}{rest}", st.sampled_from(["INFO", "ERROR", "WARNING", "DEBUG", "Info"]),
              st.sampled_from(["", " ", "     ", "\t"]), _WORD, st.sampled_from(["GET", "POST", "x"]),
              _WORD, st.sampled_from(["200", "400", "5", "2000"]), _WORD),
    st.builds(lambda a, b: a + b, st.sampled_from(
        ["", " ", "  ", "INFO:  ", "Process ", "Fatal Python error", "*** SIG", "Loading 50%|"]),
        _WORD),
    # pydantic's validator line, pip's relayed resolver errors, argparse's after a label
    st.builds(lambda s, lead, w: " " * s + lead + w, st.integers(0, 8), st.sampled_from(
        ["Value error, ", "Assertion failed, ", "ERROR: No matching distribution found for ",
         "ERROR: Could not find a version that satisfies the requirement ",
         "vllm serve: error: argument --x: invalid choice: ",
         "报错：vllm serve: error: unrecognized arguments: ", "$ x.py: error: argument -m: "]),
        _WORD),
)


@given(_BODIES)
def test_fast_path_agrees_with_lark_on_generated_bodies(body: str) -> None:
    fast = body_lexer(_record_parser(), _TRANSFORMER).body(body)
    if fast is not None:
        assert fast == _lark_body(body)
    _check(body.encode())


# A process's or a launcher's last words, each a body of one terminal (EXIT_REPORT,
# KILL_REPORT, ...): systemd's reports of a crash loop come back at every restart with a new
# count, and the fast path reads them as Lark does; beside them the near misses the terminals
# leave to others (a clean exit, a stop, an OOM kill's result, exit codes 0, 137 and 143).
_SERVICES = st.sampled_from(["vllm.service", "vllm-serve@7.service", "x.service"])
_CODES = st.sampled_from(["0", "1", "2", "9", "13", "137", "143", "-9", "-15", "255", "01"])
_LAST_WORDS = st.one_of(
    st.builds(lambda s, how, st_: f"{s}: Main process exited, code={how}, status={st_}",
              _SERVICES, st.sampled_from(["exited", "dumped", "killed"]), st.sampled_from(
                  ["1/FAILURE", "0/SUCCESS", "9/KILL", "6/ABRT", "11/SEGV", "15/TERM",
                   "203/EXEC"])),
    st.builds(lambda s, r: f"{s}: Failed with result '{r}'.", _SERVICES,
              st.sampled_from(["exit-code", "signal", "oom-kill", "core-dump", "timeout"])),
    st.builds(lambda s, n: f"{s}: Scheduled restart job, restart counter is at {n}.", _SERVICES,
              st.integers(0, 100_000)),
    st.builds(lambda s: f"{s}: Start operation timed out. Terminating.", _SERVICES),
    st.builds(lambda n, c: f"{n} exited with code {c}", st.sampled_from(
        ["vllm-1", "api", "engine_core"]), _CODES),
    st.builds(lambda c: f"command terminated with exit code {c}", _CODES),
    st.builds(lambda n, c: f"srun: error: node-{n}: task {n}: Exited with exit code {c}",
              st.integers(0, 99), _CODES),
    st.sampled_from(["Some Ray subprocesses exited unexpectedly:", "Killed", "Aborted (core dumped)",
                     "Segmentation fault (core dumped)", "Fatal Python error: Aborted",
                     "EngineCore failed to start.", "Started vllm.service - vLLM server."]),
)


@settings(max_examples=60, deadline=None)
@given(_LAST_WORDS)
@example("vllm.service: Scheduled restart job, restart counter is at 12.")
def test_fast_path_reads_last_words_as_lark(body: str) -> None:
    fast = body_lexer(_record_parser(), _TRANSFORMER).body(body)
    lark = _lark_body(body)
    if fast is not None:
        assert fast == lark, body
    if re.fullmatch(r"\S+\.service: (?:Main process exited, code=\w+, status=[1-8]\d*/\w+|Scheduled"
                    r" restart job, .*|Failed with result '(?:exit-code|signal|core-dump)'\.)",
                    body):
        # an exit report systemd writes at every restart: read without the LALR parse
        assert fast is not None and lark is not None, body
    _check(body.encode())


# A tool that numbers lines puts the number before everything else on the line: grep -n's `N:`
# (a context line's `N-`, a file's name before either with several files), cat -n's and nl's
# right-aligned number and tab. Behind any of them a line reads as it does alone, by the fast
# path as by Lark (the lines: every wrapper, prefix, header and error body test_evidence makes).
LINE_NUMBERS = st.one_of(
    st.builds(lambda n, sep: f"{n}{sep}", st.integers(1, 9_999_999), st.sampled_from([":", "-"])),
    st.builds(lambda f, n, sep: f"{f}{sep}{n}{sep}", st.sampled_from(
        ["vllm.log", "logs/serve.out", "/var/log/vllm/server.log.1", "run-3.txt"]),
        st.integers(1, 99_999), st.sampled_from([":", "-"])),
    st.builds(lambda n: f"{n:6d}\t", st.integers(1, 999_999)))


@settings(max_examples=300, deadline=None)
@given(LINE_NUMBERS, generated_line)
def test_a_line_number_before_a_line_changes_nothing_of_its_reading(number: str,
                                                                    raw: str) -> None:
    if number.endswith("-") and raw[:1].isdigit() and not re.match(r"\d{4}-\d\d-\d\d", raw):
        number = number[:-1] + ":"  # a context line's `N-` before a digit is a number's dash
    if number.endswith(":") and raw[:1].isspace():
        number = number[:-1] + "-"  # `N: ` is srun's task label's (TASK_LABEL), a space its own
    alone, numbered = clean(raw), clean(number + raw)
    if parse_line(alone) != parse_line_whole(alone):
        return  # (a disagreement of the line itself, not of its number)
    _check((number + raw).encode())
    read, plain = parse_line(numbered), parse_line(alone)
    assert (read.kind, read.level, read.exception, read.message, read.process) == \
        (plain.kind, plain.level, plain.exception, plain.message, plain.process), numbered


# NCCL's lines, a sequence of terminals (fastpath.SEQUENCE_BODIES), stamped or not, with or
# without a source, a level and a text. (Only the body is compared: a whole line that starts
# with NCCL's stamp is read with the stamp as its outer wrapper by parse_line and as the NCCL
# line's own by parse_line_whole, with or without the fast path.)
_NCCL_BODIES = st.builds(
    lambda stamp, host, pid, tid, dev, source, level, sp, text:
    f"{stamp}{host}:{pid}:{tid} [{dev}] {source}NCCL {level}{sp}{text}",
    st.sampled_from(["", "[2025-01-02 03:04:05] ", "[2025-01-02 03:04:05.123] ", "[2025-01-02] "]),
    _WORD, st.integers(0, 99999), st.sampled_from(["1", "22", "x"]), st.integers(0, 9),
    st.sampled_from(["", "misc/shmutils.cc:72 ", "x "]),
    st.sampled_from(["INFO", "WARN", "ERROR", "TRACE", "DEBUG", "INFOx"]),
    st.sampled_from(["", " ", "  "]), _WORD)


@given(_NCCL_BODIES)
@example("gpu-node-12:1784272:1784272 [0] NCCL INFO NCCL version 2.27.5+cuda12.9")
def test_fast_path_reads_nccl_bodies_as_lark(body: str) -> None:
    fast = body_lexer(_record_parser(), _TRANSFORMER).body(body)
    lark = _lark_body(body)
    assert fast == lark
    if lark is None:
        return
    # and a body of its shape read by a kept decision (digits changed) as Lark reads it
    other = re.sub(r"\d", lambda d: str((int(d.group()) + 7) % 10), body)
    assert body_lexer(_record_parser(), _TRANSFORMER).body(other) == _lark_body(other)


# A long body (a prompt logged with its request) is lexed with only the terminals whose required
# text it holds: the same first terminal as the whole alternation, with or without that text.
_LONG_TAIL = st.text(alphabet="ab XYZ%|()_.:'\"0123\u00e9", min_size=LONG_BODY_CHARS,
                     max_size=LONG_BODY_CHARS + 64)


@pytest.mark.long
@given(_BODIES, _LONG_TAIL)
def test_fast_path_agrees_with_lark_on_long_bodies(body: str, tail: str) -> None:
    lexer = body_lexer(_record_parser(), _TRANSFORMER)
    for text in (body + tail, tail + body, tail.replace("%", "") + " 50%| done",
                 tail + " failed liveness probe, will be restarted"):
        fast = lexer.body(text)
        if fast is not None:
            assert fast == _lark_body(text)


def _starts_with_long_scan(items: list[Any], lead: int = 1) -> bool:
    """Whether a parsed pattern (re._parser) may begin, after at most `lead` single characters,
    by repeating a broad class more than 32 times (`\\S[^\\n]{0,240}?`, also inside a leading
    group or one of its alternatives): such a pattern reads a body far before it fails."""
    for index, (op, value) in enumerate(items):
        rest = items[index + 1:]
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            low, high, repeated = value
            if high > 32 and _broad(repeated):
                return True
            if low > 0:
                return _starts_with_long_scan(list(repeated) + rest, lead)
            continue  # optional: what follows may begin the match
        if op is sre.SUBPATTERN:
            return _starts_with_long_scan(list(value[-1]) + rest, lead)
        if op is sre.BRANCH:
            return any(_starts_with_long_scan(list(branch) + rest, lead) for branch in value[1])
        if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue
        if lead == 0:
            return False
        lead -= 1
    return False


def _broad(items: Any) -> bool:
    """One item that takes most characters, line breaks aside: `.`, `[^\\n]` (not `\\S`, which
    stops at the first space)."""
    if len(items) != 1:
        return False
    op, value = items[0]
    return op in (sre.ANY, sre.NOT_LITERAL) or op is sre.IN and value[:1] == [(sre.NEGATE, None)]

def test_terminals_asked_of_every_body_do_not_scan_it() -> None:
    # a digit-sighted terminal that starts by reading up to hundreds of characters
    # (PHRASE_LEAD's look-behind of an `NCCL error: `) is asked only of bodies holding the texts
    # it needs: asked of every body, it read each to its end before failing
    lexer = body_lexer(_record_parser(), _TRANSFORMER)
    assert lexer._sighted is not None
    assert not _starts_with_long_scan(list(sre_parse.parse(lexer._sighted.pattern))), \
        lexer._sighted.pattern[:200]
    assert lexer._needed  # the screened ones are asked when a body holds their texts


class _AskedOnce:
    """A compiled pattern whose `match` keeps its last text's answer: the test's own question
    (`_sighted_match`) and the slow lexer's (the same pattern asked of the same text right
    after) are one `re` match; a third of the corpus check's time was asking it twice."""

    def __init__(self, pattern: re.Pattern[str]):
        self.pattern = pattern
        self._last: tuple[str, re.Match[str] | None] | None = None

    def match(self, text: str) -> re.Match[str] | None:
        last = self._last
        if last is not None and last[0] == text:
            return last[1]
        found = self.pattern.match(text)
        self._last = (text, found)
        return found


def _sighted_match(body: str) -> bool:
    """Whether a digit-sighted terminal may take the body (BodyLexer.unsighted's question),
    asked of the `re` alternation alone, without RE2's screen."""
    sighted = _slow_lexer()._sighted
    assert sighted is not None
    return sighted.match(body) is not None


def _assert_screen_agrees(body: str) -> bool:
    """The screen's checks on one body; whether a digit-sighted terminal may take it."""
    lexer = body_lexer(_record_parser(), _TRANSFORMER)
    sighted, unsighted = _sighted_match(body), lexer.unsighted(body)
    if sighted:
        assert not unsighted, body
    # the one-pass screen (fastpath._quick) answers as the questions it stands for
    assert unsighted == _slow_lexer().unsighted(body), body
    if body.isascii():  # and asked of an ASCII body's bytes (a quick reading's), the same
        assert unsighted_ascii_body(body.encode("ascii"), body) == unsighted_body(body), body
    return sighted


@functools.cache
def _slow_lexer() -> Any:
    """The body lexer without its one-pass screen: `unsighted` asks each question apart."""
    lexer = copy.copy(body_lexer(_record_parser(), _TRANSFORMER))
    lexer._quick = None
    lexer._answers = {}  # its own answers kept (a copy would share the shipped lexer's)
    assert lexer._sighted is not None
    lexer._sighted = _AskedOnce(lexer._sighted)  # type: ignore[assignment]
    return lexer


@pytest.mark.long
def test_relaxed_screen_is_built_and_never_rules_out_a_sighted_body_on_corpus_lines() -> None:
    """RE2 screens the bodies before `re` asks the digit-sighted terminals (fastpath._quick):
    it must never say no where they match (every line of the corpus and of the tuning logs
    reference_logs.py chooses, each of its suffixes after a space: bodies start anywhere a head
    may end)."""
    assert body_lexer(_record_parser(), _TRANSFORMER)._quick is not None
    matched = 0
    asked: set[str] = set()  # a body met again (in another log, or as another's suffix) is
    for log in reference_logs():  # answered the same: each distinct one is asked once
        for raw in dict.fromkeys(log.read_bytes().split(b"\n")):
            text = clean(raw.decode("utf-8", "replace"))[:2048]
            for start in _starts(text):
                if text[start:] not in asked:
                    asked.add(text[start:])
                    matched += _assert_screen_agrees(text[start:])
    assert matched > 50  # the logs hold bodies these terminals take


def _starts(text: str, count: int = 24) -> list[int]:
    """Where a body may start in a line: at 0 and after each of its first spaces, `count` in
    all (found by `str.find`, not a walk over every character of a 2 KB line). The widest head
    the corpus holds ends within its first ~20 spaces (journald's host and unit, compose's
    service, a container's time, a process prefix, vLLM's header); 24, not 40, since the
    test reads every tuning log and grows with the set (it was CI's slowest test, 48 s)."""
    starts = [0]
    at = text.find(" ")
    while at >= 0 and len(starts) < count:
        starts.append(at + 1)
        at = text.find(" ", at + 1)
    return starts


@given(st.text(alphabet=" ab", max_size=120))
def test_starts_are_zero_and_after_the_first_spaces(text: str) -> None:
    assert _starts(text) == [0, *(i + 1 for i, c in enumerate(text) if c == " ")][:24]


_SIGHTED_PARTS = st.sampled_from([
    "exited with code ", "137", "143", "1", "0", "9", "command terminated with exit code ",
    "x.service: ", "Main process exited, code=killed, status=", "9/KILL", "0/SUCCESS",
    "Failed with result '", "oom-kill", "exit-code", "'", "Error code: ", "503", " - ",
    "[Errno ", "2", "] ", "NCCL error", " in: ", ": ", "CUDA error", "HIP error", "hipErrorX",
    "HSA_STATUS_ERROR_OOM", '{"object": "error", "code": ', "400", "}", "\t", " ", "\x1c",
    "\v", "é", "Killed process ", "Exit Code:", "ld: ", "collect2: ", "warning", "srun: error: ",
    "node1: task 3: ", "Exited with exit code 2", "*** JOB 5 ON n1 CANCELLED AT 2026 ",
    "DUE TO TIME LIMIT", "Reason:", "OOMKilled", "CrashLoopBackOff", "pod-1 0/1 ", " 3",
    "Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ", "Thread 0x7f ",
    "(most recent call first):", "a", "Z", "_", "-", ".", "(", ")", "[", "]", "\n",
    "127.0.0.1:5 - \"POST /v1/completions HTTP/1.1\" 200 OK", "Engine 000: Avg prompt throughput: ",
    "tokens/s", "%", "\x1f",
])


@given(st.lists(_SIGHTED_PARTS, max_size=12).map("".join))
@example("\x1cReason: OOMKilled")  # Python's `\s` takes \x1c-\x1f and \v, RE2's does not
@example("\vExit Code:\x1f137")
@example("x.service: Main process exited, code=killed, status=9/KILL")
@example("a NCCL error: x")  # a screened terminal's text: asked of them all
@example("see Error code: 503 - x")
def test_relaxed_screen_never_rules_out_a_sighted_body_on_generated_bodies(body: str) -> None:
    _assert_screen_agrees(body)


class _Forgetful(dict[str, bool]):
    """A lexer's kept answers that keep nothing: every body is asked afresh."""

    def __setitem__(self, key: str, value: bool) -> None:
        pass


@given(st.lists(st.lists(_SIGHTED_PARTS, max_size=8).map("".join), min_size=1, max_size=6))
@example(["\u2584 version 0.16.0", "a NCCL error: x", "\u2584 version 0.16.0"])
@example(["a NCCL error", "a NCCL error: x"])  # one answered yes, one no: kept apart
@example(["\xe9 exited with code 137", "\xe9"])
def test_answers_kept_by_text_are_the_answers_asked(bodies: list[str]) -> None:
    """`unsighted` keeps what `re` answered about a body the quick screen does not answer (a
    banner's or a progress bar's, printed again at every start) by its text: asked again, in
    any order among others, each body gets what a lexer that keeps nothing answers."""
    lexer = body_lexer(_record_parser(), _TRANSFORMER)
    fresh = copy.copy(lexer)
    fresh._answers = _Forgetful()
    for body in [*bodies, *reversed(bodies), *bodies]:
        assert lexer.unsighted(body) == fresh.unsighted(body), body


def test_quick_screen_is_one_pass_of_the_three_questions() -> None:
    from logsleuth.tokenize.fastpath import _FROM_START, _quick
    match = _quick(r"ab(?!c)\d", ("N e", "x.y"))
    assert match is not None
    for text, hit in (("ab5", True), ("abc", False), ("zab5", False), ("zz N e", True),
                      ("N  e", False), ("x.y", True), ("xzy", False), ("q\x1cq", True),
                      ("q\vq", True), ("q\nq", True), ("", False)):
        data = text.encode("ascii")
        assert (match(_FROM_START, data, 0, len(data))[0][0] >= 0) is hit, text
    assert _quick("a{,3}b", ()) is None  # no relaxed pattern: no screen


def test_relaxed_screen_drops_look_arounds_only() -> None:
    from logsleuth.tokenize.fastpath import _FROM_START, _quick
    match = _quick(r"a(?!b[)(])c[(?!]d\(?!e(?<=x)f(?=g)", ())
    assert match is not None
    assert match(_FROM_START, b"ac!d(!efg", 0, 9)[0] == (0, 8)
    assert match(_FROM_START, b"ac!d(!ef", 0, 8)[0] == (0, 8)
    assert match(_FROM_START, b"abc!d(!ef", 0, 9)[0][0] < 0
    assert _quick("a{,3}b", ()) is None  # a repeat in Python, text in RE2: no screen
    assert _quick("(?>a)b", ()) is None  # RE2 cannot take it: no screen
