"""The tuning logs the per-line reference checks read (tests/reference_logs.py): the rule on
generated manifests, the chosen logs on the real one, the manifest against what the code finds
now, and the line shapes the rule counts."""

from __future__ import annotations

import math
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference_logs
from reference_logs import (EVERY, RARE, STRIDE, case_name, choose, chosen_tuning_logs,
                            line_shapes, manifest, tuning_logs)

# ---- the rule, on generated manifests ------------------------------------------------------


def _logs(tmp: Path, count: int) -> list[Path]:
    logs = []
    for index in range(count):
        log = tmp / ("healthy" if index % 2 else "runtime") / f"case-{index:03d}" / "log.txt"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("x" * (index + 1))
        logs.append(log)
    return logs


def _known(logs: list[Path], shapes: list[set[str]]) -> dict[str, tuple[int, frozenset[str]]]:
    return {case_name(log): (log.stat().st_size, frozenset(held))
            for log, held in zip(logs, shapes)}


_SHAPES = st.sampled_from([f"shape{i}" for i in range(12)])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sets(_SHAPES, max_size=5), min_size=1, max_size=40), st.randoms())
def test_the_rule_keeps_every_shape_and_every_log_of_a_rare_one(shapes: list[set[str]],
                                                                rng: random.Random) -> None:
    with tempfile.TemporaryDirectory() as folder:
        logs = _logs(Path(folder), len(shapes))
        known = _known(logs, shapes)
        shuffled = list(logs)
        rng.shuffle(shuffled)
        chosen = choose(shuffled, known)
        assert chosen == choose(logs, known)  # by sorted path, whatever order it is handed
        held = [known[case_name(log)][1] for log in chosen]
        assert set().union(*held) == set().union(*shapes)
        holders = {shape: [log for log, has in zip(logs, shapes) if shape in has]
                   for shape in set().union(*shapes)}
        rare = {log for holding in holders.values() if len(holding) < RARE for log in holding}
        assert rare <= set(chosen)
        # no more than: those, a stride of the others, and one log for each shape left unread
        assert len(chosen) <= len(rare) + math.ceil((len(logs) - len(rare)) / STRIDE) + \
            len(holders)


def test_a_shape_many_logs_hold_keeps_a_stride_of_them(tmp_path: Path) -> None:
    logs = _logs(tmp_path, 5 * STRIDE)
    chosen = choose(logs, _known(logs, [{"common"}] * len(logs)))
    assert chosen == sorted(logs)[::STRIDE]
    # one log more with a shape of its own: it is read too, and the stride goes on over the rest
    odd = _known(logs, [{"common"}] * (len(logs) - 1) + [{"common", "odd"}])
    assert logs[-1] in choose(logs, odd)


def test_a_shape_the_stride_misses_is_read_in_its_first_log(tmp_path: Path) -> None:
    """RARE logs or more hold it, none of them on the stride: the first of them is read."""
    logs = _logs(tmp_path, 4 * STRIDE)
    misses = [log for index, log in enumerate(sorted(logs)) if index % STRIDE][:RARE + 1]
    shapes = [{"common", "mid"} if log in misses else {"common"} for log in logs]
    chosen = choose(logs, _known(logs, shapes))
    assert [log for log in chosen if log in misses] == misses[:1]


@pytest.mark.parametrize("holders", range(1, RARE + 2))
def test_a_shape_fewer_than_rare_logs_hold_keeps_them_all(tmp_path: Path, holders: int) -> None:
    logs = _logs(tmp_path, 4 * STRIDE)
    shapes = [{"common", "rare"} if index % 7 == 3 and index // 7 < holders else {"common"}
              for index in range(len(logs))]
    chosen = set(choose(logs, _known(logs, shapes)))
    holding = {log for log, held in zip(logs, shapes) if "rare" in held}
    assert len(holding) == holders
    if holders < RARE:
        assert holding <= chosen
    else:  # (a near miss: as many logs as RARE hold it, and they are not all kept)
        assert not holding <= chosen


def test_a_log_the_manifest_does_not_know_is_read(tmp_path: Path) -> None:
    logs = _logs(tmp_path, 3 * STRIDE)
    known = _known(logs, [{"common"}] * len(logs))
    new, changed = sorted(logs)[1], sorted(logs)[2]
    del known[case_name(new)]
    changed.write_text(changed.read_text() + "more")  # another size: its shapes may be others
    chosen = choose(logs, known)
    assert new in chosen and changed in chosen
    assert choose(logs, {}) == sorted(logs)  # no manifest: every log


def test_every_tuning_log_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EVERY, "all")
    assert chosen_tuning_logs() == tuning_logs()
    monkeypatch.delenv(EVERY)
    assert len(chosen_tuning_logs()) < len(tuning_logs())


# ---- the real manifest -----------------------------------------------------------------------


def _current() -> dict[Path, frozenset[str]]:
    """The tuning logs the manifest knows at their present size, with its shapes."""
    known = manifest()
    return {log: known[case_name(log)][1] for log in tuning_logs()
            if case_name(log) in known and known[case_name(log)][0] == log.stat().st_size}


def test_the_chosen_tuning_logs_hold_every_shape_of_the_tuning_set() -> None:
    current = _current()
    assert len(current) > len(tuning_logs()) / 2  # (the manifest is not far behind the set)
    chosen = set(chosen_tuning_logs())
    assert set(tuning_logs()) - set(current) <= chosen  # what it does not know is read
    every = set().union(*current.values())
    read = set().union(*(shapes for log, shapes in current.items() if log in chosen))
    assert every - read == set()
    for shape in every:
        holders = {log for log, shapes in current.items() if shape in shapes}
        assert len(holders) >= RARE or holders <= chosen, shape


def _sample() -> list[Path]:
    """Every 40th tuning log the manifest knows (every one with LOGSLEUTH_REFERENCE=all)."""
    logs = sorted(_current())
    return logs if chosen_tuning_logs() == tuning_logs() else logs[::40]


@pytest.mark.parametrize("log", _sample(), ids=case_name)
def test_the_manifest_holds_the_shapes_the_code_finds(log: Path) -> None:
    """A change to the grammar or to line_shape makes the manifest stale: run
    tools/reference_logs/manifest.py again."""
    assert line_shapes(log) == manifest()[case_name(log)][1]


# ---- line shapes -----------------------------------------------------------------------------

_HEADS = ["(APIServer pid={pid}) ERROR 01-24 01:52:{s} [serving.py:{n}] ",
          "(EngineCore_DP0 pid={pid}) ERROR 01-24 01:52:{s} [core.py:{n}] ",
          "2025-07-09T23:17:{s}.{n}Z (Worker_TP1 pid={pid}) ERROR 01-24 01:52:{s} [x.py:{n}] ",
          "[2025-07-09 23:17:{s}] ", "ERROR 01-24 01:52:{s} [core.py:{n}] ", ""]
_BODIES = ["ValueError: you requested {n} tokens", "Traceback (most recent call last):",
           '  File "/v/x.py", line {n}, in f', "RuntimeError: CUDA error {n}"]


def _shapes(tmp: Path, lines: list[str]) -> frozenset[str]:
    log = tmp / f"{abs(hash(tuple(lines)))}.log"
    log.write_text("\n".join(lines) + "\n")
    return line_shapes(log)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_HEADS), st.sampled_from(_BODIES)), min_size=1,
                max_size=6), st.lists(st.integers(1, 99999), min_size=3, max_size=3))
def test_other_digits_are_the_same_shapes(tmp_path_factory: pytest.TempPathFactory,
                                          lines: list[tuple[str, str]],
                                          numbers: list[int]) -> None:
    tmp = tmp_path_factory.mktemp("shapes")
    first = [(head + body).format(pid=11, s="18", n=296) for head, body in lines]
    pid, second, n = numbers
    other = [(head + body).format(pid=pid, s=f"{second % 60:02d}", n=n) for head, body in lines]
    assert _shapes(tmp, first) == _shapes(tmp, other)


@pytest.mark.parametrize(("one", "other"), [
    ("(APIServer pid=1) ERROR 01-24 01:52:18 [a.py:1] ValueError: x",
     "(APIServer pid=1) INFO 01-24 01:52:18 [a.py:1] ValueError: x"),  # another level
    ("(APIServer pid=1) ERROR 01-24 01:52:18 [a.py:1] ValueError: x",
     "ERROR 01-24 01:52:18 [a.py:1] ValueError: x"),  # no process prefix
    ("(APIServer pid=1) ERROR 01-24 01:52:18 [a.py:1] ValueError: x",
     "2025-07-09T23:17:11.1Z (APIServer pid=1) ERROR 01-24 01:52:18 [a.py:1] ValueError: x"),
    ("ERROR 01-24 01:52:18 [a.py:1] ValueError: x",
     "ERROR 2025-01-24 01:52:18,123 [a.py:1] ValueError: x"),  # another era's header time
    ("Traceback (most recent call last):", '  File "/v/x.py", line 1, in f'),
])
def test_another_path_is_another_shape(tmp_path: Path, one: str, other: str) -> None:
    assert _shapes(tmp_path, [one]) != _shapes(tmp_path, [other])


def test_a_repeated_record_is_a_shape_of_its_own(tmp_path: Path) -> None:
    record = ["Error in preprocessing prompt inputs", "Traceback (most recent call last):",
              '  File "/x/serving.py", line 1, in f', "    f()", "ValueError: too long"]
    lines = []
    for second in range(4):
        head = f"(APIServer pid=11) ERROR 01-24 01:52:1{second} [serving.py:296] "
        lines += [head + body for body in record]
    assert {"run", "record"} & _shapes(tmp_path, lines)
    assert not {"run", "record"} & _shapes(tmp_path, lines[:5])


def test_the_module_names_its_manifest() -> None:
    assert reference_logs.MANIFEST.name == "reference_shapes.json"


def test_the_manifest_tool_writes_what_the_module_reads(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tool_import import import_tool

    tool = import_tool("reference_logs", "manifest")
    entries = [("runtime/b", 12, ["x|1", "run"]), ("healthy/a", 7, []),
               ("startup/c", 3, ["run", "z\"quoted\\"])]
    path = tmp_path / "shapes.json"
    path.write_text(tool.render(entries), encoding="utf-8")
    monkeypatch.setattr(reference_logs, "MANIFEST", path)
    reference_logs.manifest.cache_clear()
    try:
        assert reference_logs.manifest() == {name: (size, frozenset(shapes))
                                             for name, size, shapes in entries}
    finally:
        reference_logs.manifest.cache_clear()
