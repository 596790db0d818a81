"""A log copied from a terminal that cut its long lines at its width (logsleuth/hardwrap.py): the
report of the copy is the report of the log (issue 10: consoles we did not see).

Generated over the deployment's failure (a worker's CUDA error quoted by the engine, a start-up
check, a token out of vocabulary), how long it served first, the launcher's prefix before every
line and the terminal's width; the copy is tests/metamorphic.py's `hard_wrap`, which the sweep
(tools/metamorphic/sweep.py) runs over every real log we may read. And the other way: a log no
terminal cut, whose longest lines are many and of one length (the engine's stats), is read as it
is.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from metamorphic import TRANSFORMS, Anchor, anchor_of, answer_of, differences, hard_wrap
from scenario_logs import ILLEGAL_ACCESS, OUT_OF_VOCAB, Server

from logsleuth.hardwrap import wrap_width
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures


def _report(lines: list[str]) -> dict[str, Any]:
    return report_to_dict(explain_text("\n".join(lines) + "\n", signatures=default_signatures()))


def _failure(server: Server, kind: str) -> list[str]:
    if kind == "illegal access":
        return (server.worker_runtime_error(1, ILLEGAL_ACCESS)
                + server.engine_wrapper(ILLEGAL_ACCESS) + server.engine_dead())
    if kind == "free memory":
        return server.free_memory_startup_failure()
    return server.engine_error(OUT_OF_VOCAB) + server.engine_dead()


PREFIXES = {"none": lambda n: "", "compose": lambda n: "vllm-1  | ",
            "docker": lambda n: f"2025-03-14T09:26:{n % 60:02d}.{n:06d}123Z "}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["illegal access", "free memory", "out of vocabulary"]),
       st.integers(0, 40), st.sampled_from(sorted(PREFIXES)), st.integers(90, 230),
       st.randoms(use_true_random=False))
def test_a_terminal_copy_cut_at_its_width_reads_as_the_log(
        kind: str, served: int, prefix: str, width: int, rng: random.Random) -> None:
    server = Server(api=rng.randrange(100, 90000), engine=rng.randrange(100, 90000))
    lines = server.startup()
    if kind != "free memory":
        lines += server.requests(served)
    lines += _failure(server, kind)
    lines = [PREFIXES[prefix](n) + line for n, line in enumerate(lines)]
    original = _report(lines)
    assert original["verdict"] == "failure"
    moved = hard_wrap(width)(lines, rng, anchor_of(original))
    assume(moved is not None)
    assert moved is not None
    got = _report(moved.lines)
    assert differences(answer_of(original), answer_of(got), moved) == []
    assert any("cut at" in notice for notice in got["notices"])


@settings(max_examples=30, deadline=None)
@given(st.integers(20, 200), st.sampled_from(sorted(PREFIXES)), st.randoms(use_true_random=False))
def test_a_log_no_terminal_cut_is_read_as_it_is(served: int, prefix: str,
                                                rng: random.Random) -> None:
    """The engine's stats lines, one length each time and the longest of a serving excerpt,
    are each followed by a record that begins as they do: no width is read."""
    server = Server(api=rng.randrange(100, 90000), engine=rng.randrange(100, 90000))
    lines = server.requests(served)
    lines = [PREFIXES[prefix](0) + line for line in lines]
    assert wrap_width(("\n".join(lines) + "\n").encode()) is None


def test_the_sweep_holds_the_widths_it_names() -> None:
    assert {"hard-wrap-120", "hard-wrap-200"} <= set(TRANSFORMS)
    # a cut inside the root's exception name is a different word: not a copy to hold it to
    line = "x" * 115 + "RuntimeError: boom"
    assert hard_wrap(120)([line] * 4, random.Random(0), Anchor(1, 1)) is None
