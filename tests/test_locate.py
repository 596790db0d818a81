"""Locating (logsleuth/locate.py): the last activity line before a line that matters is found by
searching a small window first and widening it; it must be the line `finditer` over the whole
window ends on, wherever the window starts (mid-line too) and whatever the lines hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lark import Lark

from logsleuth.locate import (_EXCEPTION_LINE, _FRAME_LINE, _FROM_START, _anchored_spans,
                               _not_message, _last_line_matching, _last_line_within,
                               _last_match_line, _raw_search, line_spans)
from logsleuth.read import open_input
from logsleuth.tokenize import anchor_patterns
from logsleuth.tokenize.scan import located_by

_LINES = [
    b'(APIServer pid=41) INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    b'(APIServer pid=41) INFO:     127.0.0.1:5001 - "GET /metrics HTTP/1.1" 200 OK',
    b'(APIServer pid=41) INFO:     127.0.0.1:5002 - "POST /v1/completions HTTP/1.1" 400 Bad Request',
    b"(APIServer pid=41) INFO 01-05 09:00:10 [loggers.py:259] Engine 000: Avg prompt throughput: "
    b"12.5 tokens/s, Avg generation throughput: 80.1 tokens/s, Running: 3 reqs",
    b"(APIServer pid=41) INFO 01-05 09:00:20 [loggers.py:259] Engine 000: Avg prompt throughput: "
    b"0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs",
    b"(EngineCore_DP0 pid=42) DEBUG 01-05 09:00:20 [core.py:1034] EngineCore loop active.",
    b'HTTP/1.1" 200 HTTP/1.1" 404 twice on one line',
    b"x" * 300,
    b"",
]


def _reference(block: bytes, pattern: object, low: int, high: int) -> tuple[int, int] | None:
    hits = list(pattern.finditer(block, low, high))  # type: ignore[attr-defined]
    if not hits:
        return None
    where = hits[-1].start()
    start = block.rfind(b"\n", 0, where) + 1
    end = block.find(b"\n", where)
    return (start, end if end >= 0 else len(block))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=120), st.data())
def test_last_activity_line_is_the_one_finditer_ends_on(lines: list[bytes],
                                                         data: st.DataObject) -> None:
    block = b"\n".join(lines) + b"\n"
    high = data.draw(st.sampled_from([i + 1 for i, byte in enumerate(block) if byte == 10]))
    low = data.draw(st.integers(0, high))
    for pattern in anchor_patterns()[1:]:  # SERVING, ALIVE, STATS
        assert _last_line_matching(block, _raw_search(pattern), low, high) \
            == _reference(block, pattern, low, high)
        assert _last_match_line(block, pattern) == _reference(block, pattern, 0, len(block))
    # and in one search of the sampler behind `\C*`, any bytes (a short gap's way)
    for pattern, last_of in zip(anchor_patterns()[1:], located_by().lasts):
        assert last_of is not None
        assert _last_line_within(block, last_of, low, high) == _reference(block, pattern, low, high)


def test_kept_anchor_texts_are_the_grammars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    """The anchors' patterns kept in the cache directory are what Lark makes of anchors.lark
    (ANCHOR joined by the warnings in remedy.yaml's words); a damaged copy is made again, never
    used."""
    import logsleuth.locate as locate
    from logsleuth.remedy import warning_anchor
    from logsleuth.resources import data_dir

    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    grammar = Lark.open(str(data_dir("grammars") / "anchors.lark"), parser="lalr")
    anchor, *samplers = (grammar.get_terminal(name).pattern.to_regexp()
                         for name in ("ANCHOR", "SERVING", "ALIVE", "STATS"))
    made = (f"(?:{anchor})|{warning_anchor()}", *samplers)
    for damage in (None, "", "[1, 2, 3]", '["a"]', "{"):
        locate.anchor_texts.cache_clear()
        if damage is not None:
            for kept in tmp_path.glob("anchors-*.json"):
                kept.write_text(damage)
        assert locate.anchor_texts() == made  # made by Lark, or read back
        locate.anchor_texts.cache_clear()
        assert locate.anchor_texts() == made  # read back
    assert len(list(tmp_path.glob("anchors-*.json"))) == 1
    locate.anchor_texts.cache_clear()


def _lines_of(block: bytes, spans: list[tuple[int, int]]) -> list[int]:
    """The 0-based numbers of the lines the spans cover."""
    numbers: list[int] = []
    for start, end in spans:
        first = block.count(b"\n", 0, start)
        numbers += range(first, first + block.count(b"\n", start, end) + 1)
    return numbers


def _anchored_one_by_one(block: bytes) -> list[int]:
    """The lines the anchor alone finds, asked of each line on its own (the reference), and
    under a run of anchored lines with an unanchored line below it, the lines down to a blank
    one or a prompt's: twelve at most under a last line that ends in a colon, and under a line
    among the run's last twelve that names an exception, twelve less the lines after it (an
    exception's message printed under it, or going on below); under a last line that is a
    Python frame, the non-blank line below (its source line, printed at the margin)."""
    anchor = anchor_patterns()[0]
    lines = block.split(b"\n")
    anchored = [bool(line) and anchor.search(line) is not None for line in lines]
    # the last line at or above each that names an exception (-1: none), each line asked once:
    # asking every line of the run again at each of its lines was quadratic in a long run
    named_at: list[int] = []
    last = -1
    for number, line in enumerate(lines):
        last = number if _EXCEPTION_LINE.search(line) else last
        named_at.append(last)
    numbers: list[int] = []
    number = run = 0
    while number < len(lines):
        if not anchored[number]:
            number += 1
            run = number
            continue
        numbers.append(number)
        below = number + 1
        named = named_at[number] if named_at[number] >= run else None  # the run's last
        # (twelve lines or more below the name leave none: the prompts between them are not
        # asked, which was quadratic in a long run under one name)
        left = 12 if lines[number].rstrip().endswith(b":") else 0 if named is None \
            or number - named >= 12 \
            or any(_prompt(lines[e]) for e in range(named + 1, number + 1)) \
            else 12 - (number - named)
        source = below < len(lines) and not anchored[below] and lines[below].strip() \
            and _FRAME_LINE.search(lines[number]) is not None
        if left and below < len(lines) and not anchored[below]:
            while below < len(lines) and below - number <= left and lines[below].strip() \
                    and not _prompt(lines[below]):
                numbers.append(below)
                below += 1
            if below == number + 1 and source:  # no message below: the frame's source line
                numbers.append(below)
                below += 1
            number = run = below
        elif source:  # a frame at the margin: the line under it is its source line
            numbers.append(below)
            number = run = below + 1
        else:
            number += 1
    return numbers


def _prompt(line: bytes) -> bool:
    return bool(_not_message(_FROM_START, line, 0, len(line))[0][0] >= 0)


_STRETCH_LINES = [*_LINES,
                  b"(APIServer pid=41) ERROR 01-05 09:00:21 [serving.py:296] Error in preprocessing",
                  b"(APIServer pid=41) ERROR 01-05 09:00:21 [serving.py:296] Traceback (most "
                  b"recent call last):\r",
                  b'  File "/x/serving.py", line 12, in f',
                  b"    raise ValueError(msg)",
                  b"ValueError: too long", b"Killed", b"goes on below", b"$ ls",
                  b"2025-01-02T03:04:05.123456789Z Killed", b"vllm-1  | Killed",
                  b"Process EngineCore_DP0:",
                  b"   ^^^^^", b"NCCL WARN x", b"\r", b"  indented",
                  # a frame at the margin (a paste that lost its indentation) and its source
                  b'File "/x/serving.py", line 12, in f', b"raise ValueError(msg)",
                  # bytes that are not UTF-8 (a damaged log), in an anchored line and in another
                  b"ValueError: rob\xff\xfe\xc3(ustness probe failed",
                  b"INFO 01-05 09:00:21 caf\xe9 \x80 served",
                  "RuntimeError: caf\u00e9 \u2014 valid UTF-8".encode()]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_STRETCH_LINES), min_size=1, max_size=80), st.booleans())
def test_stretches_hold_the_lines_one_search_per_line_finds(lines: list[bytes],
                                                            ended: bool) -> None:
    """Anchored lines are found a stretch of consecutive ones at a time: the same lines as the
    anchor asked of every line, the last line with or without its line break."""
    block = b"\n".join(lines) + (b"\n" if ended else b"")
    spans = _anchored_spans(block, located_by())
    assert _lines_of(block, spans) == _anchored_one_by_one(block)
    assert all(not block[start:end].endswith(b"\n") for start, end in spans)


@pytest.mark.long
def test_stretches_on_every_corpus_and_mix_log(tmp_path: Path) -> None:
    """The same on every block of the corpus logs, of the tuning logs reference_logs.py chooses
    (every line shape the tuning set holds; LOGSLEUTH_REFERENCE=all: every one) and of the
    benchmark mix logs."""
    from mix_logs import MIXES, mix_log
    from reference_logs import reference_logs

    paths = [*reference_logs(), *(mix_log(mix, 3000, str(tmp_path))[0] for mix in MIXES)]
    for path in paths:
        for block in open_input(path).blocks():
            assert _lines_of(block, _anchored_spans(block, located_by())) \
                == _anchored_one_by_one(block), path


def _activity_one_by_one(block: bytes, spans: list[tuple[int, int]]) -> set[int]:
    """The activity lines line_spans adds to the anchored stretches (the reference: each line
    asked on its own): of each kind, the first line after each stretch and before the next
    (or the block's end), the block's last, and the last line ending within the 4 KiB before
    each stretch that is not right after the one before it (a line may start before them)."""
    lines = block.split(b"\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    stretch_lines = set(_lines_of(block, spans))
    found: set[int] = set()
    for pattern in anchor_patterns()[1:]:  # SERVING, ALIVE, STATS
        hits = [pattern.search(line) is not None for line in lines]
        # a line's match must also end before the gap does: the gap ends where the next
        # stretch starts, after the line break, so a line's whole text lies in it
        hit_lines = [n for n, hit in enumerate(hits) if hit]
        if hit_lines:
            found.add(hit_lines[-1])
        previous = 0  # where the gap before each stretch starts (its first byte)
        gaps = []
        for index, (start, end) in enumerate(spans):
            gaps.append((previous, start, index))
            previous = end
        gaps.append((previous, len(block) + 1, len(spans)))
        for low, high, index in gaps:
            if high - low < 2:
                continue
            inside = [n for n in hit_lines if low <= starts[n] and starts[n] + len(lines[n]) < high]
            if index and inside:  # the first after the stretch before the gap
                found.add(inside[0])
            if index < len(spans):  # the last before the stretch after it, within 4 KiB
                near = max(low, high - (1 << 12))
                # a match may start anywhere in the window, so a line that starts before it
                # counts when its match does not; asked of the bytes, as the search does
                last = _reference(block, pattern, near, high)
                if last is not None:
                    found.add(block.count(b"\n", 0, last[0]))
    return found - stretch_lines


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_STRETCH_LINES), min_size=1, max_size=80))
# (the last activity line before a stretch, with bytes that are not UTF-8 above it: `(?s:.*)`
# in front of the sampler stopped at them and found none)
@example([_STRETCH_LINES[-2], _LINES[0], _STRETCH_LINES[len(_LINES)], _LINES[0]])
def test_activity_lines_are_those_each_line_asked_finds(lines: list[bytes]) -> None:
    """The activity lines located around the anchored stretches are the ones the samplers
    find line by line (the last before a stretch is searched from the first after the one
    before it: the same line)."""
    block = b"\n".join(lines) + b"\n"
    anchors = located_by()
    stretches = _anchored_spans(block, anchors)
    found = set(_lines_of(block, line_spans(block, anchors))) - set(_lines_of(block, stretches))
    assert found == _activity_one_by_one(block, stretches)



# Lines of a block with no activity (a crash loop's start-ups: records, frames, messages, blank
# and unanchored lines), and the activity lines one of which may be planted among them.
_QUIET_LINES = [line for line in _STRETCH_LINES
                if not any(pattern.search(line) for pattern in anchor_patterns()[1:])]
_ACTIVE_LINES = [line for line in _LINES
                 if any(pattern.search(line) for pattern in anchor_patterns()[1:])]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_QUIET_LINES), min_size=1, max_size=60),
       st.lists(st.tuples(st.integers(0, 60), st.sampled_from(_ACTIVE_LINES)), max_size=2),
       st.booleans(), st.booleans())
def test_a_block_told_quiet_by_the_anchors_pass_has_no_activity_outside(
        lines: list[bytes], planted: list[tuple[int, bytes]], after_a_stretch: bool,
        ended: bool) -> None:
    """The anchor's pass tells a block with no activity outside its stretches (the search for
    an anchor or activity until the first activity line): planted anywhere, at the line that
    ends a stretch (read by the stretch pattern, then by that search again), inside one, last,
    or nowhere, the activity lines found are the ones each line asked finds."""
    anchors = located_by()
    for where, line in planted:
        if after_a_stretch:  # the line right after an anchored line
            anchored = [n for n, text in enumerate(lines) if anchor_patterns()[0].search(text)]
            where = anchored[where % len(anchored)] + 1 if anchored else where
        lines.insert(min(where, len(lines)), line)
    block = b"\n".join(lines) + (b"\n" if ended else b"")
    stretches = _anchored_spans(block, anchors)
    assert _lines_of(block, stretches) == _anchored_one_by_one(block)
    found = set(_lines_of(block, line_spans(block, anchors))) - set(_lines_of(block, stretches))
    assert found == _activity_one_by_one(block, stretches)


# The shell's report that it killed the job, after the workers' exceptions and before the
# reporter's own words, behind any launcher's wrapper (tests/fixtures/tuning, y-v1-tp8-workers-
# signal-systemexit-then-killed read through docker --timestamps): the report ends the exception's
# message below, as it does unwrapped, and the prose after it is no message of it.
_WRAPPERS = st.sampled_from(["", "2025-01-02T03:04:05.123456789Z ", "vllm-1  | ",
                             "[pod/vllm-0/vllm] ", "  0: ", "Jan 02 03:04:05 node-3 vllm[812]: "])
_KILLS = st.sampled_from(["Killed", "Segmentation fault (core dumped)", "Aborted (core dumped)",
                          "[1]+  Killed"])


@settings(max_examples=40, deadline=None)
@given(_WRAPPERS, _KILLS, st.sampled_from(["when i run 32B on 8 GPUs i got this error, any idea",
                                           "what should I do now", "the same happens with TP=4"]))
def test_a_kill_report_behind_a_wrapper_ends_the_message_above_it(wrapper: str, kill: str,
                                                                  prose: str) -> None:
    from logsleuth.pipeline import explain_text

    lines = ["(VllmWorker rank=0 pid=754) Traceback (most recent call last):",
             '(VllmWorker rank=0 pid=754)   File "/x/vllm/executor/multiproc_executor.py", '
             "line 436, in signal_handler",
             "(VllmWorker rank=0 pid=754)     raise SystemExit()",
             "(VllmWorker rank=0 pid=754) SystemExit: ", kill, prose]
    plain = explain_text("\n".join(lines) + "\n")
    wrapped = explain_text("".join(wrapper + line + "\n" for line in lines))
    assert plain.root_cause is not None and wrapped.root_cause is not None
    assert (wrapped.root_cause.exception, wrapped.root_cause.line,
            wrapped.root_cause.message) == (plain.root_cause.exception, plain.root_cause.line,
                                            plain.root_cause.message)
    assert prose not in wrapped.root_cause.message
