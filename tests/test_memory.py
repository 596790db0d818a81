"""Memory per mix (benchmarks/mixes.py), measured by tracemalloc and never by time: what a run
holds grows with the events it keeps (errors and lifecycle milestones, capped per process), not
with the lines it reads. A tenfold longer log of any mix may cost at most 2.5 times the peak of
the shorter one, plus a bounded size per extra event held and the read buffers (a small log is
read in one block smaller than the reader's)."""

from __future__ import annotations

import tracemalloc

import pytest

from logsleuth.index import default_index
from logsleuth.pipeline import build_report, read_events
from logsleuth.read import BLOCK_SIZE, open_input
from mix_logs import MIXES, mix_log

LINES = 2_000
GROWTH = 10
PEAK_RATIO = 2.5  # bounded caches fill up as the log grows (bodies, heads, fingerprints)
BYTES_PER_EVENT = 3_000  # an error with its frames and message, or a milestone with its line


def _peak_and_events(path: str) -> tuple[int, int]:
    tracemalloc.start()
    try:
        read = read_events(open_input(path))
        report = build_report(path, read.events, read.stats, read.facts, None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.lines_read > 0
    return peak, len(read.events)


@pytest.mark.parametrize("mix", MIXES)
def test_memory_grows_with_events_held_not_lines_read(mix: str, mix_dir: str) -> None:
    default_index()  # loaded once per process, whatever the log: not part of either measure
    small, _ = mix_log(mix, LINES, mix_dir)
    big, _ = mix_log(mix, LINES * GROWTH, mix_dir)
    _peak_and_events(str(small))  # grammar tables and signatures, once
    small_peak, small_events = _peak_and_events(str(small))
    big_peak, big_events = _peak_and_events(str(big))
    allowed = PEAK_RATIO * small_peak + BYTES_PER_EVENT * max(0, big_events - small_events) \
        + 2 * BLOCK_SIZE  # a block and the copy of its last line carried into the next
    assert big_peak <= allowed, (
        f"{mix}: {big_peak:,} bytes at {LINES * GROWTH:,} lines against {small_peak:,} at "
        f"{LINES:,} ({big_events:,} and {small_events:,} events held)")
