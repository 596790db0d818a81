"""Replaying repeated record lines (LineRun, Assembler.feed_run) changes nothing: the same
events and the same JSON report as reading every line, on every corpus log and the tuning logs
reference_logs.py chooses (every line shape the tuning set holds), every benchmark mix and
generated interleavings of repeated multi-line records. A record whose lines the tokenizer
recognises whole (Tokenizer.parse_runs over stretches of lines) is grouped as the line-by-line
loop groups it, near-identical records included."""

from __future__ import annotations

import io
from unittest.mock import patch
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_judge import log_id
from logsleuth.assemble import MAX_EVENTS_PER_PROCESS, Assembler
from logsleuth.facts import FactCollector
from logsleuth.model import ErrorEvent, Event, Hint, LineRun, RecordRun
from logsleuth.pipeline import assemble_folded, build_report
from logsleuth.read import open_input
from logsleuth.render.json import to_json
from logsleuth.tokenize import TokenizeStats, tokenize, tokenize_runs
from logsleuth.tokenize.scan import Tokenizer
from match_memo import matched_once  # noqa: F401 (the fixture)
from mix_logs import MIXES, mix_log
from reference_logs import reference_logs
from scenario_logs import ILLEGAL_ACCESS, Server

# matching done once for a log's two readings when they hand it the same inputs (match_memo.py)
pytestmark = pytest.mark.usefixtures("matched_once")


def _read(data: bytes | Path, replay: bool, cap: int) -> tuple[list[Event], str, int]:
    """(events, JSON report, lines replayed) of a log read with or without LineRuns."""
    source = open_input(data) if isinstance(data, Path) else open_input(io.BytesIO(data))
    stats, facts = TokenizeStats(), FactCollector()
    assembler = Assembler(max_events_per_process=cap)
    grouped = 0
    if replay:
        def counted(items):  # type: ignore[no-untyped-def]
            nonlocal grouped
            for item in items:
                if isinstance(item, LineRun):
                    grouped += item.count
                elif isinstance(item, RecordRun):
                    grouped += item.run.count + 2
                yield item
        lines = facts.watch(counted(tokenize_runs(source.blocks(), stats)))
    else:
        lines = facts.watch(tokenize(source.blocks(), stats))
    events = assemble_folded(lines, assembler)  # type: ignore[arg-type]
    report = build_report("log", events, stats, facts, None, tuple(assembler.notices()))
    return events, to_json(report), grouped


def _assert_same(data: bytes | Path, cap: int = MAX_EVENTS_PER_PROCESS) -> int:
    events, report, grouped = _read(data, True, cap)
    plain_events, plain_report, _ = _read(data, False, cap)
    assert events == plain_events
    assert report == plain_report
    return grouped


# every corpus log and the tuning logs reference_logs.py chooses (every line shape the
# tuning set holds; LOGSLEUTH_REFERENCE=all: every tuning log)
@pytest.mark.parametrize("log", reference_logs(), ids=log_id)
def test_replaying_changes_no_corpus_report(log: Path) -> None:
    _assert_same(log)


@pytest.mark.parametrize("mix", MIXES)
def test_replaying_changes_no_mix_report(mix: str, mix_dir: str) -> None:
    path, _ = mix_log(mix, 5_000, mix_dir)
    grouped = _assert_same(path, cap=20)
    if mix == "errors":
        assert grouped > 1_000  # the rejected requests' tracebacks are replayed, not read


# ---- generated interleavings of repeated records ------------------------------------------

_PROCESSES = ("(APIServer pid=11) ", "(APIServer pid=12) ", "(EngineCore_DP0 pid=21) ",
              "(Worker_TP0 pid=31) ", "")
_LEVELS = ("ERROR", "ERROR", "WARNING", "INFO", "CRITICAL")
_SITES = ("serving.py:296", "core.py:842", "multiproc_executor.py:876")
_TIMES = ("01-24 01:52:18", "01-24 01:52:28", "01-24 02:00:00")
_BODIES = (
    "Error in preprocessing prompt inputs",
    "EngineCore failed to start.",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.12/site-packages/vllm/entrypoints/serving.py", line 281, in create',
    "    conversation, engine_prompts = await self._preprocess_chat(",
    "                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    '  File "/usr/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils.py", line 699, in check',
    "    raise ValueError(",
    "ValueError: This model's maximum context length is 4096 tokens.",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "  Please reduce the length of the messages or completion.",
    "",
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
    "Process EngineCore_DP0:",
    "Exception ignored in: <function Foo.__del__>",
    "Killed",
    "At:",
    "Engine 000: Avg prompt throughput: 1.0 tokens/s, Running: 1 reqs",
    "Starting vLLM API server 0 on http://0.0.0.0:8000",
    "  please set ACME_KERNEL_PATH to their directory",  # a warning's remedy: an error's hint
)
_OTHERS = (
    '(APIServer pid=11) INFO:     127.0.0.1:5 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    '(APIServer pid=11) INFO:     127.0.0.1:6 - "POST /v1/chat/completions HTTP/1.1" 400 Bad '
    "Request",
    "(APIServer pid=12) INFO 01-24 01:52:19 [loggers.py:259] Engine 000: Avg prompt throughput: "
    "5.0 tokens/s, Running: 3 reqs",
    "Traceback (most recent call last):",
    "RuntimeError: Engine core initialization failed. See root cause above.",
    "(EngineCore_DP0 pid=21) INFO 01-24 01:52:20 [core.py:90] Initializing a V1 LLM engine",
    "gpu-node:31:31 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
)

# logged tracebacks as vLLM prints them (indexes into _BODIES), and any sequence of bodies
_TRACEBACKS = ([0, 2, 3, 4, 5, 6, 7, 8], [1, 2, 6, 7, 8, 10], [2, 3, 4, 9], [0, 2, 3, 8, 11],
               [2, 3, 8, 12, 2, 6, 7, 9], [14, 2, 3, 8], [15, 2, 3, 8], [9, 17, 3], [16],
               [0, 18], [19, 2, 6, 7])
_record = st.tuples(st.sampled_from(_PROCESSES), st.sampled_from(_LEVELS),
                    st.sampled_from(_SITES),
                    st.sampled_from(_TRACEBACKS)
                    | st.lists(st.integers(0, len(_BODIES) - 1), min_size=1, max_size=8))


def _printed(draw: st.DrawFn, head: str, bodies: list[str], *, odds: int,
             first: int) -> list[str]:
    """A multi-line record as vLLM prints it (the header on every line, `\r` between them);
    one time in `odds + 1` another process's line lands inside it, at or after `first`."""
    printed = [head + body + "\r" for body in bodies]
    printed[-1] = printed[-1][:-1]
    if draw(st.integers(0, odds)) == 0:
        printed.insert(draw(st.integers(first, len(printed))), draw(st.sampled_from(_OTHERS)))
    return printed


@st.composite
def _logs(draw: st.DrawFn) -> bytes:
    """A few distinct records printed many times at different times, interleaved with other
    processes' lines (between records and inside them)."""
    records = draw(st.lists(_record, min_size=1, max_size=3))
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 24))):
        prefix, level, site, bodies = records[draw(st.integers(0, len(records) - 1))]
        head = f"{prefix}{level} {draw(st.sampled_from(_TIMES))} [{site}] "
        lines += _printed(draw, head, [_BODIES[b] for b in bodies], odds=3, first=0)
        lines += draw(st.lists(st.sampled_from(_OTHERS), max_size=2))
    return ("\n".join(lines) + "\n").encode("utf-8")


@pytest.mark.long
@settings(max_examples=150, deadline=None)
@given(_logs(), st.sampled_from([2, MAX_EVENTS_PER_PROCESS]))
def test_replaying_changes_nothing_on_generated_records(data: bytes, cap: int) -> None:
    _assert_same(data, cap)


def test_a_repeated_traceback_is_replayed() -> None:
    """The second and later copies of one logged traceback are grouped into runs (the
    generated test above would also pass if nothing were ever replayed)."""
    record = ["Error in preprocessing prompt inputs", "Traceback (most recent call last):",
              '  File "/x/serving.py", line 1, in f', "    f()",
              "ValueError: This model's maximum context length is 4096 tokens."]
    text = ""
    for second in range(5):
        head = f"(APIServer pid=11) ERROR 01-24 01:52:1{second} [serving.py:296] "
        text += "\r\n".join(head + body for body in record) + "\n"
        text += '(APIServer pid=11) INFO:     127.0.0.1:5 - "POST /v1/x HTTP/1.1" 400 Bad Request\n'
    grouped = _assert_same(text.encode("utf-8"))
    assert grouped >= 4 * 4  # from the second copy on, all but the title (its head is new)


def test_a_replayed_warning_still_gives_its_hint() -> None:
    """A warning record whose repeated lines state a remedy is read, not replayed: the error
    right after it takes the hint either way (hint.py)."""
    text = ""
    for second in range(4):
        head = f"(APIServer pid=11) WARNING 01-24 01:52:1{second} [acme.py:20] "
        text += "\r\n".join(head + body for body in ("Using acme backend, no kernels:",
                                                      "  please set ACME_KERNEL_PATH",
                                                      "  or try ACME_FALLBACK=1")) + "\n"
    text += ("(APIServer pid=11) ERROR 01-24 01:52:19 [acme.py:30] acme pool exhausted\n"
             "(APIServer pid=11) INFO 01-24 01:52:20 [acme.py:31] going on\n")
    for replay in (True, False):
        events, _, grouped = _read(text.encode("utf-8"), replay, MAX_EVENTS_PER_PROCESS)
        errors = [e for e in events if isinstance(e, ErrorEvent)]
        assert [e.hint for e in errors] == [Hint(12, "or try ACME_FALLBACK=1")]
        assert grouped >= 6 or not replay  # the later copies' remedy lines came as runs


# ---- records that differ in their digits (RecordRun, Assembler.feed_record) -----------------

_TITLES = ("Error in preprocessing prompt inputs", "Error in request 17", "")
_MIDDLES = ([2, 3, 4, 5], [2, 3, 8], [2, 6, 7, 3, 8], [3, 4], [13, 2, 3], [2, 16, 3])
_LASTS = ("ValueError: This model's maximum context length is {0} tokens. However, you requested "
          "{1} tokens ({2} in the messages, {3} in the completion).",
          "RuntimeWarning: {0} leaked semaphores", "ValueError: {0}", "    raise ValueError({1})",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {0}.{1} GiB.",
          "Error code: 503 - {0}")


@st.composite
def _digit_logs(draw: st.DrawFn) -> bytes:
    """Records with one title, run and exception type, logged again and again with other
    numbers in their exception (and other pids, times and sites), other lines between them
    and sometimes inside them, or after them in the same channel."""
    kinds = draw(st.lists(st.tuples(st.sampled_from(_TITLES), st.sampled_from(_MIDDLES),
                                    st.sampled_from(_LASTS), st.sampled_from(_LEVELS),
                                    st.sampled_from(_SITES)), min_size=1, max_size=3))
    numbers = st.integers(0, 99999)
    lines: list[str] = []
    for second in range(draw(st.integers(1, 20))):
        title, middle, last, level, site = kinds[draw(st.integers(0, len(kinds) - 1))]
        prefix = draw(st.sampled_from(_PROCESSES[:3]))
        head = f"{prefix}{level} 01-24 01:{second // 60:02d}:{second % 60:02d} [{site}] "
        values = [draw(numbers) for _ in range(4)]
        bodies = [title, *(_BODIES[b] for b in middle), last.format(*values)]
        printed = _printed(draw, head, bodies, odds=4, first=1)
        if draw(st.integers(0, 4)) == 0:  # the same channel goes on after the exception
            printed.append(head + draw(st.sampled_from(("  Please reduce the length.", "",
                                                        _BODIES[3]))))
        lines += printed
        lines += draw(st.lists(st.sampled_from(_OTHERS), max_size=2))
    return ("\n".join(lines) + "\n").encode("utf-8")


@pytest.mark.long
@settings(max_examples=200, deadline=None)
@given(_digit_logs(), st.sampled_from([2, MAX_EVENTS_PER_PROCESS]))
def test_replaying_records_changes_nothing_on_generated_records(data: bytes, cap: int) -> None:
    _assert_same(data, cap)


def _records_replayed(data: bytes | Path) -> tuple[int, int]:
    """(RecordRuns read, RecordRuns replayed without reading their lines)."""
    import logsleuth.assemble as assemble

    source = open_input(data) if isinstance(data, Path) else open_input(io.BytesIO(data))
    assembler = Assembler()
    records = replayed = 0
    restore = assemble._restore

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal replayed
        replayed += len(args) > 5 or "message" in kwargs
        return restore(*args, **kwargs)

    assemble._restore = counting  # type: ignore[assignment]
    try:
        for item in tokenize_runs(source.blocks()):
            if isinstance(item, RecordRun):
                records += 1
                list(assembler.feed_record(item))
            elif isinstance(item, LineRun):
                list(assembler.feed_run(item))
            else:
                assembler.feed(item)
    finally:
        assemble._restore = restore  # type: ignore[assignment]
    return records, replayed


def test_records_of_a_request_error_are_replayed(mix_dir: str) -> None:
    """The errors mix's rejected requests (a title, a traceback and a ValueError with the
    request's token counts) are RecordRuns, and all but the first are replayed: the equality
    tests above would also pass if none were."""
    path, _ = mix_log("errors", 5_000, mix_dir)
    records, replayed = _records_replayed(path)
    assert records > 150
    assert replayed >= records - 2


def test_a_chain_line_replayed_links_to_the_event_before_it() -> None:
    """A record holding `The above exception was the direct cause`, first read where no event
    came before it in its channel, is not replayed where one did: the traceback after it is
    raised from that event (the replay once dropped the link: the channel's state left out
    whether an event came before)."""
    record = ["", "The above exception was the direct cause of the following exception:",
              "Traceback (most recent call last):", '  File "/x/serving.py", line 1, in f']
    text = ""
    for second, pid in enumerate((11, 12, 11)):  # the second copy is the first run read
        head = f"(APIServer pid={pid}) ERROR 01-24 01:52:1{second} [serving.py:296] "
        text += "\r\n".join(head + body for body in [*record, f"ValueError: {second}"]) + "\n"
        text += f'(APIServer pid={pid}) INFO:     127.0.0.1:5 - "POST /v1/x HTTP/1.1" 400 Bad' \
            " Request\n"
    events, _, _ = _read(text.encode("utf-8"), True, MAX_EVENTS_PER_PROCESS)
    _assert_same(text.encode("utf-8"))
    raised = [e.cause_id is not None for e in events if getattr(e, "exception", "") == "ValueError"]
    assert raised == [False, False, True]


def test_a_record_is_replayed_with_its_own_message() -> None:
    """Each copy's event carries its own numbers, not the first copy's."""
    text = ""
    for second in range(4):
        head = f"(APIServer pid=11) ERROR 01-24 01:52:1{second} [serving.py:296] "
        record = ["Error in preprocessing prompt inputs", "Traceback (most recent call last):",
                  '  File "/x/serving.py", line 1, in f', "    f()",
                  f"ValueError: you requested {4100 + second} tokens"]
        text += "\r\n".join(head + body for body in record) + "\n"
        text += '(APIServer pid=11) INFO:     127.0.0.1:5 - "POST /v1/x HTTP/1.1" 400 Bad Request\n'
    data = text.encode("utf-8")
    events, _, _ = _read(data, True, MAX_EVENTS_PER_PROCESS)
    messages = [e.message for e in events if getattr(e, "exception", None) == "ValueError"]
    assert messages == [f"you requested {4100 + second} tokens" for second in range(4)]
    assert _records_replayed(data) == (3, 2)


@pytest.mark.parametrize("ending", ["survived", "worker_fails", "sigterm"])
def test_replaying_records_changes_no_scenario_report(ending: str) -> None:
    """A served day of rejected requests (scenario_logs.Server) whose token counts differ, with
    a worker's retried KV fetch errors among them, then an ending: the same events and report
    with and without replaying its records, most of which are replayed."""
    server = Server()
    lines = server.startup()
    for index in range(60):
        lines += server.requests(3, port=41000 + index)
        lines += [line.replace("5000 tokens", f"{4097 + 37 * index} tokens")
                  for line in server.request_error()]
        if index % 15 == 7:
            lines += [line.replace("30 s", f"{10 + index} s")
                      for line in server.worker_kv_fetch_error()]
    if ending == "worker_fails":
        lines += server.worker_runtime_error(1, ILLEGAL_ACCESS) + server.engine_dead()
    elif ending == "sigterm":
        lines += server.sigterm()
    data = ("\n".join(lines) + "\n").encode("utf-8")
    _assert_same(data)
    records, replayed = _records_replayed(data)
    assert replayed >= 50 and replayed >= records - 4


# ---- records recognised whole (Tokenizer.parse_runs over stretches of lines) ----------------

def _plain(item: object) -> object:
    """An item of parse_runs as something `==` compares by content (a LineRun's lines are made
    by a function)."""
    if isinstance(item, LineRun):
        return ("run", item.first, item.count, item.process, item.level, item.time, item.site,
                item.key, item.lines())
    if isinstance(item, RecordRun):
        return ("record", item.first, _plain(item.run), item.last)
    return item


def _items(data: bytes, cuts: list[int], whole: bool) -> tuple[list[object], int, int]:
    """(parse_runs' items, records recognised whole, lines parsed) of `data` cut into blocks
    after the lines `cuts` says; `whole`: located as stretches (the lines of a record may be
    recognised whole), else one line an entry (every line stepped through)."""
    lines = data.split(b"\n")[:-1]
    marks = sorted({0, len(lines), *(cut % (len(lines) + 1) for cut in cuts)})
    tokenizer = Tokenizer()
    items: list[object] = []
    for low, high in zip(marks, marks[1:]):
        block = b"".join(line + b"\n" for line in lines[low:high])
        located = tokenizer.locate_stretches(block) if whole else tokenizer.locate(block)
        items += [_plain(item) for item in tokenizer.parse_runs(located)]
    return items, tokenizer.whole, tokenizer.stats.parsed


def _assert_grouped_alike(data: bytes, cuts: list[int]) -> int:
    items, whole, parsed = _items(data, cuts, True)
    plain_items, none, plain_parsed = _items(data, cuts, False)
    assert none == 0  # (one line an entry: nothing to recognise whole)
    assert items == plain_items
    assert parsed == plain_parsed
    return whole


@settings(max_examples=150, deadline=None)
@given(_logs() | _digit_logs(), st.lists(st.integers(0, 400), max_size=3))
def test_records_recognised_whole_are_grouped_as_line_by_line(data: bytes,
                                                             cuts: list[int]) -> None:
    _assert_grouped_alike(data, cuts)


@settings(max_examples=100, deadline=None)
@given(_logs() | _digit_logs(), st.integers(2, 12))
def test_records_recognised_whole_with_a_small_bodies_cache(data: bytes, bound: int) -> None:
    """The bodies cache cleared again and again (a bound of a few bodies): a run kept from
    before a clearing is not recognised whole, since the loop would read its lines anew."""
    from logsleuth.tokenize import scan

    with patch.object(scan, "_BODIES", bound):
        _assert_grouped_alike(data, [])


# one record (a title, a logged traceback, an exception with the request's numbers) and the
# ways a later copy may differ from it by a little: each must be read as it is, never as the
# record before it
_NEAR_BODIES = [_BODIES[0], *(_BODIES[b] for b in (2, 3, 4, 5, 6, 7))]
_CHANGES = ("none", "body", "dropped", "doubled", "time", "pid", "inside", "no_cr", "title",
            "longer", "shorter_body", "cut_last")


def _near_copy(second: int, change: str, where: int, value: int) -> list[str]:
    head = f"(APIServer pid=11) ERROR 01-24 01:{second // 60:02d}:{second % 60:02d} " \
        "[serving.py:296] "
    bodies = list(_NEAR_BODIES)
    where = 1 + where % (len(bodies) - 1)  # a line of its run
    heads = [head] * (len(bodies) + 1)
    if change == "body":
        bodies[where] = bodies[where].replace("e", "a", 1)
    elif change == "dropped":
        del bodies[where]
    elif change == "doubled":
        bodies.insert(where, bodies[where])
    elif change == "title":
        bodies[0] += " again"
    elif change == "longer":
        bodies.insert(where, _BODIES[10])
    elif change == "shorter_body":
        bodies[where] = bodies[where][:-1]
    elif change == "time":
        heads[where] = head.replace("01-24", "01-25")
    elif change == "pid":
        heads[where] = head.replace("pid=11", "pid=12")
    exception = f"ValueError: This model's maximum context length is 4096 tokens. However, " \
        f"you requested {4097 + value} tokens."
    printed = [heads[index] + body + "\r" for index, body in enumerate(bodies)]
    printed.append(head + exception)
    if change == "inside":
        printed.insert(where, _OTHERS[0])
    elif change == "no_cr":
        printed[where] = printed[where][:-1]
    elif change == "cut_last":
        printed = printed[:where + 1]
        printed[-1] = printed[-1].rstrip("\r")
    return printed


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_CHANGES), st.integers(0, 20), st.integers(0, 999),
                          st.lists(st.sampled_from(_OTHERS), max_size=2)),
                min_size=2, max_size=12),
       st.lists(st.integers(0, 400), max_size=3))
def test_near_identical_records_are_not_taken_for_the_one_before(
        copies: list[tuple[str, int, int, list[str]]], cuts: list[int]) -> None:
    """Copies of one record, some changed by a line, a byte, a head or a line inside them:
    items equal to the line-by-line loop's, and in each streak of unchanged copies every one
    after its first two recognised whole (the first teaches the bodies, the second is grouped
    and kept; the equality alone would also hold if none were)."""
    lines: list[str] = []
    for second, (change, where, value, others) in enumerate(copies):
        lines += _near_copy(second, change, where, value) + others
    data = ("\n".join(lines) + "\n").encode("utf-8")
    whole = _assert_grouped_alike(data, cuts)
    if not cuts:  # (a cut may part a record from its run)
        streaks = "".join("u" if change == "none" else " " for change, _, _, _ in copies)
        assert whole >= sum(max(0, len(streak) - 2) for streak in streaks.split())


@pytest.mark.parametrize("extra", ["\r", "0", " again"])
def test_a_run_that_goes_on_past_the_one_before_is_not_recognised_whole(extra: str) -> None:
    """A record's run is compared in place, by its bytes: a copy whose run's last line holds the
    earlier copy's whole and more after it (a `\r`, a digit, text) is not that run again, and
    is read line by line. (Its bytes start as the earlier run's do: a comparison that did not
    ask for the line's end would take it for that run.)"""
    lines = _near_copy(0, "none", 0, 1) + _near_copy(1, "none", 0, 2)
    changed = _near_copy(2, "none", 0, 3)
    changed[-2] += extra  # (the run's last line; the exception line comes after it)
    lines += changed + _near_copy(3, "none", 0, 4)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    assert _assert_grouped_alike(data, []) == 1  # (the second copy only)


def test_the_errors_mix_records_are_recognised_whole(mix_dir: str) -> None:
    """The errors mix's rejected requests: all records but the first are recognised whole,
    and parse_runs gives what it gives stepping through every line."""
    path, _ = mix_log("errors", 5_000, mix_dir)
    data = path.read_bytes()
    whole = _assert_grouped_alike(data, [])
    records = sum(1 for item in _items(data, [], True)[0]
                  if isinstance(item, tuple) and item[0] == "record")
    assert records > 150
    assert whole >= records - 2
