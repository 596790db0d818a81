"""Memory per mix (benchmarks/mixes.py), measured by tracemalloc and never by time: what a run
holds grows with the events it keeps (errors and lifecycle milestones, capped per process), not
with the lines it reads. A tenfold longer log of any mix may cost at most 2.5 times the peak of
the shorter one, plus a bounded size per extra event held and the read buffers (a small log is
read in one block smaller than the reader's)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

import logsleuth.runfold as runfold
from logsleuth.index import default_index
from logsleuth.model import Report
from logsleuth.pipeline import EventsRead, build_report, read_events
from logsleuth.read import BLOCK_SIZE, open_input
from mix_logs import MIXES, mix_log

LINES = 2_000
GROWTH = 10
PEAK_RATIO = 2.5  # bounded caches fill up as the log grows (bodies, heads, fingerprints)
BYTES_PER_EVENT = 3_000  # an error with its frames and message, or a milestone with its line


def _traced(path: str) -> tuple[int, EventsRead, Report]:
    """Peak traced bytes of reading and explaining `path`, with what was read and the report."""
    tracemalloc.start()
    try:
        read = read_events(open_input(path))
        report = build_report(path, read.events, read.stats, read.facts, None,
                              folded=read.folded)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, read, report


def _warm(path: str) -> None:
    """Explain `path` once untraced: the grammar tables, signatures and caches a first reading
    fills are then not part of either measure (tracing this run as well only cost time)."""
    read = read_events(open_input(path))
    build_report(path, read.events, read.stats, read.facts, None, folded=read.folded)


def _peak_and_events(path: str) -> tuple[int, int]:
    peak, read, report = _traced(path)
    assert report.lines_read > 0
    return peak, len(read.events)


@pytest.mark.parametrize("mix", MIXES)
def test_memory_grows_with_events_held_not_lines_read(mix: str, mix_dir: str) -> None:
    default_index()  # loaded once per process, whatever the log: not part of either measure
    small, _ = mix_log(mix, LINES, mix_dir)
    big, _ = mix_log(mix, LINES * GROWTH, mix_dir)
    _warm(str(small))
    small_peak, small_events = _peak_and_events(str(small))
    big_peak, big_events = _peak_and_events(str(big))
    allowed = PEAK_RATIO * small_peak + BYTES_PER_EVENT * max(0, big_events - small_events) \
        + 2 * BLOCK_SIZE  # a block and the copy of its last line carried into the next
    assert big_peak <= allowed, (
        f"{mix}: {big_peak:,} bytes at {LINES * GROWTH:,} lines against {small_peak:,} at "
        f"{LINES:,} ({big_events:,} and {small_events:,} events held)")



# A log of many runs (a supervisor's restarts, a crash loop) kept every run's milestones, its
# assembler channels and its activity fold's marks until the log ended: measured 1.39 (restart,
# 18 -> 69 runs, 60k -> 240k lines) and 2.36 (crash loop, 107 -> 428 runs, 6k -> 24k lines) in
# session 12, 1.35 and 2.33 in session 13; runs are folded as they end since session 14
# (runfold.py).
# Issue 13's target is memory bounded by the runs kept, not by the runs before them: four times
# the runs may cost at most RUNS_PEAK_RATIO times the peak (the bounded caches fill up too: the
# small crash loop's 1,070 processes are fewer than the 4,096 interned). The fold waits for FOLD_EVERY events between attempts, more than these
# small logs hold: it is made to try every MANY_RUNS_FOLD_EVERY events here, which bounds what
# the runs before the last ones hold the same way at any size.
RUNS_GROWTH = 4
RUNS_PEAK_RATIO = 1.25
MANY_RUNS = {"restart": 60_000, "crashloop": 6_000}  # lines: ~18 and ~107 runs, then x4
MANY_RUNS_FOLD_EVERY = 256


def _explain_peak(path: str) -> tuple[int, int]:
    """Peak traced bytes of explaining `path`, and how many runs its report lists."""
    peak, _, report = _traced(path)
    assert report.root_cause is not None
    return peak, len(report.runs)


@pytest.mark.parametrize("mix", sorted(MANY_RUNS))
def test_memory_of_many_runs_grows_sublinearly(mix: str, mix_dir: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runfold, "FOLD_EVERY", MANY_RUNS_FOLD_EVERY)
    default_index()
    lines = MANY_RUNS[mix]
    small, _ = mix_log(mix, lines, mix_dir)
    big, _ = mix_log(mix, lines * RUNS_GROWTH, mix_dir)
    _warm(str(small))
    small_peak, small_runs = _explain_peak(str(small))
    big_peak, big_runs = _explain_peak(str(big))
    assert big_runs >= 3 * small_runs  # the test is about runs, not lines
    # a small log (the crash loop's 0.8 MB) is read in one block smaller than the reader's
    blocks = 2 * BLOCK_SIZE if small.stat().st_size < BLOCK_SIZE else 0
    assert big_peak <= RUNS_PEAK_RATIO * small_peak + blocks, (
        f"{mix}: {big_peak:,} bytes for {big_runs} runs at {lines * RUNS_GROWTH:,} lines "
        f"against {small_peak:,} for {small_runs} at {lines:,}")


# What a run folded as it ended keeps (runfold.FoldedRun) is held until the report: a 10M-line
# restart log has ~2,800 of them, and each kept its first timed event (a Milestone with its line's
# text, process and time) and its key beside its span and outcome; the main process grew ~10 MB
# from 1M to 10M lines (benchmarks/README.md, session 24). A folded run now keeps its lines, its
# start time and its outcome: measured here as the traced bytes freed when the folded runs are
# dropped, per run (the outcomes of distinct runs stay in `known` and are not counted).
BYTES_PER_FOLDED_RUN = 400


@pytest.mark.parametrize("mix", sorted(MANY_RUNS))
def test_a_folded_run_holds_a_few_hundred_bytes(mix: str, mix_dir: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runfold, "FOLD_EVERY", MANY_RUNS_FOLD_EVERY)
    default_index()
    path, _ = mix_log(mix, MANY_RUNS[mix] * 2, mix_dir)
    _warm(str(path))
    tracemalloc.start()
    try:
        read = read_events(open_input(str(path)))
        assert read.folded is not None
        runs = len(read.folded.runs)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        read.folded.runs.clear()
        gc.collect()
        freed = held - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert runs >= 20  # the test is about many folded runs
    assert freed <= BYTES_PER_FOLDED_RUN * runs, (
        f"{mix}: {runs} folded runs held {freed:,} bytes ({freed // runs:,} a run)")


def test_a_reading_leaves_no_line_cache_to_the_report(mix_dir: str) -> None:
    """The report's stage (the signature database, vLLM's index) is a run's peak of memory; the
    caches of what lines were read as are full after a long log (at their bound: ~3 MB at 10M
    lines of restarts) and are emptied when the reading is over (grammar.forget_lines). The
    report of a second reading, its caches filled anew, is the first's."""
    from logsleuth.render.json import to_json
    from logsleuth.tokenize import grammar

    path, _ = mix_log("restart", MANY_RUNS["restart"] // 4, mix_dir)
    reports = []
    for _ in range(2):
        read = read_events(open_input(str(path)))
        caches = (grammar._process, grammar._parse_head, grammar._head_part, grammar._head_of,
                  grammar._parse_short_body, grammar._parse_long_body)
        assert [cache.cache_info().currsize for cache in caches] == [0] * len(caches)
        reports.append(to_json(build_report(str(path), read.events, read.stats, read.facts, None,
                                            folded=read.folded)))
    assert reports[0] == reports[1]


# The plugin message indexes (index/plugin.py: vllm-ascend, LMCache and six more) are 8.8 MB of
# RSS held all at once; reading them all whenever vLLM's own index does not print an error (the
# restart mix's torch out-of-memory error) put the restart mix's main process at the 100 MB
# target (benchmarks/README.md, session 27). A report reads their heads (texts without sites,
# ~2.6 MB for all), an index only when a text of its plugin fits a message, one at a time, and
# lets all of it go when the report is made.
REPORT_PEAK_BYTES = 4_500_000  # traced above what the reading holds: 2.8 MB per mix, 7.9 MB all read


@pytest.mark.parametrize("mix", MIXES)
def test_the_report_reads_only_the_plugin_indexes_its_messages_may_come_from(
        mix: str, mix_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from logsleuth.index import plugin

    path, _ = mix_log(mix, LINES, mix_dir)
    _warm(str(path))
    read = read_events(open_input(str(path)))
    loaded: list[str] = []
    real = plugin._load

    def counted(raw: bytes) -> plugin.PluginIndex:
        found = real(raw)
        loaded.append(found.package)
        return found

    monkeypatch.setattr(plugin, "_load", counted)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        report = build_report(str(path), read.events, read.stats, read.facts, None,
                              folded=read.folded)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert report.root_cause is not None
    assert not plugin._held  # the index read is let go (the heads stay: release_plugins)
    errors = [e for e in (report.root_cause, *report.symptoms, *report.survived)
              if e is not None]
    asked = {head.package for head in plugin.plugin_heads() for e in errors
             if head.may_print(e.message)}
    plugin.release_plugins()
    assert set(loaded) <= asked, (mix, loaded, asked)
    assert peak <= REPORT_PEAK_BYTES, f"{mix}: the report peaked {peak:,} bytes above the reading"


def test_a_plugin_message_reads_its_plugin_index_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin's message with its frames: its own index is read, no other, and let go."""
    from logsleuth.index import plugin
    from logsleuth.pipeline import explain_text

    head = next(h for h in plugin.plugin_heads() if h.package == "vllm-ascend")
    text = next(t for t in sorted(head._texts.index.texts)
                if t[:1].isalpha() and t.isprintable() and "{" not in t and 40 < len(t) < 120)
    loaded: list[str] = []
    real = plugin._load
    monkeypatch.setattr(plugin, "_load",
                        lambda raw: loaded.append(real(raw).package) or real(raw))
    report = explain_text("\n".join([
        "ERROR 06-01 10:00:05 [core.py:586] EngineCore failed to start.",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.10/site-packages/vllm_ascend/worker/worker.py", '
        "line 88, in init_device",
        "    raise error",
        f"RuntimeError: {text}", ""]))
    assert report.root_cause is not None
    assert loaded and set(loaded) == {"vllm-ascend"}, loaded
    assert not plugin._held
