"""PEP 654 exception groups, as Python 3.11+ prints them: every bordered sub-traceback is a
traceback of its own, linked to the group it was printed in, and the first exception printed
inside the borders (not the group's own line) is the root cause.

The logs are made by Python itself: hypothesis draws a tree of exceptions (leaves raised or not,
some raised from a cause, groups nested or not, raised or not, wider than `max_group_width`), the
tree is raised and formatted by `traceback.format_exception`, and the lines are then wrapped
(a vLLM process prefix, a container runtime's time, a viewer's margin) and interleaved with
another process's lines. Nothing here is keyed to one log."""

from __future__ import annotations

import traceback
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import logsleuth
from logsleuth.assemble import assemble
from logsleuth.model import ErrorEvent, LineKind, Verdict
from logsleuth.tokenize import clean, parse_line, tokenize

_LEAF_TYPES = (ValueError, KeyError, OSError, RuntimeError, AssertionError, TypeError,
               ZeroDivisionError, LookupError)
_WIDTH = 15  # traceback's max_group_width: sub-exceptions past it are counted, not printed


@dataclass(frozen=True)
class Leaf:
    kind: type[BaseException]
    raised: bool  # raised (a traceback of its own) or only constructed (its line alone)
    chain: str  # "": none; "cause": raised from one (`raise ... from`); "context": raised while
    # handling one (`During handling of the above exception`); either is printed before it


@dataclass(frozen=True)
class Group:
    children: tuple[Leaf | Group, ...]
    raised: bool  # a nested group raised has a header of its own (`| Exception Group ...`)


leaves = st.builds(Leaf, st.sampled_from(_LEAF_TYPES), st.booleans(),
                   st.sampled_from(["", "cause", "context"]))
trees = st.recursive(
    leaves, lambda inner: st.builds(Group, st.lists(inner, min_size=1, max_size=4).map(tuple),
                                    st.booleans()),
    max_leaves=8)
# the top-level group is raised (that is what prints it); sometimes wider than max_group_width
tops = st.builds(Group, st.one_of(st.lists(trees, min_size=1, max_size=4),
                                  st.lists(leaves, min_size=_WIDTH + 1, max_size=_WIDTH + 4))
                 .map(tuple), st.just(True))


class _Names:
    def __init__(self) -> None:
        self.count = 0

    def next(self, what: str) -> str:
        self.count += 1
        return f"{what} number {self.count} failed"


def _raise(exc: BaseException, cause: BaseException | None = None) -> BaseException:
    try:
        if cause is not None:
            raise exc from cause
        raise exc
    except BaseException as caught:  # noqa: BLE001 - the point is to give it a traceback
        return caught


def _raise_handling(exc: BaseException, context: BaseException) -> BaseException:
    try:
        try:
            raise context
        except BaseException:  # noqa: BLE001
            raise exc  # noqa: B904 - the implicit context is the point
    except BaseException as caught:  # noqa: BLE001
        return caught


def _build(node: Leaf | Group, names: _Names) -> BaseException:
    if isinstance(node, Leaf):
        exc = node.kind(names.next("leaf"))
        if node.chain == "cause":
            return _raise(exc, _raise(RuntimeError(names.next("cause"))))
        if node.chain == "context":
            return _raise_handling(exc, RuntimeError(names.next("context")))
        return _raise(exc) if node.raised else exc
    children = [_build(child, names) for child in node.children]
    group = ExceptionGroup(names.next("group"), children)  # type: ignore[type-var]
    return _raise(group) if node.raised else group


def _printed(exc: BaseException) -> list[tuple[BaseException, BaseException | None]]:
    """Every exception Python prints inside the top group's borders, in order, with the group
    it belongs to (its cause first, for one raised from a cause)."""
    out: list[tuple[BaseException, BaseException | None]] = []

    def walk(node: BaseException, parent: BaseException | None) -> None:
        earlier = node.__cause__ or (None if node.__suppress_context__ else node.__context__)
        if earlier is not None:
            out.append((earlier, parent))
        out.append((node, parent))
        if isinstance(node, BaseExceptionGroup):
            for child in node.exceptions[:_WIDTH]:
                walk(child, node)

    walk(exc, None)
    return out


def _text(exc: BaseException) -> str:
    return str(exc) if not isinstance(exc, KeyError) else repr(exc.args[0])


_PREFIXES = ["", "(APIServer pid=12) ", "2025-01-02T03:04:05.123456789Z ",
             "[pod/vllm-0/vllm] (APIServer pid=12) ",
             "(APIServer pid=12) ERROR 01-02 03:04:05 [launcher.py:116] ",  # logger.exception
             "2025-01-02T03:04:05.123456789Z stderr F ", "> "]
_OTHER = "(Worker_TP1 pid=99) INFO 01-02 03:04:05 [gpu_worker.py:12] idle tick 7"


def _log(top: BaseException, prefix: str, interleave: list[int]) -> str:
    lines = "".join(traceback.format_exception(top)).splitlines()
    lines = [prefix + line for line in lines]
    for at in sorted(interleave, reverse=True):  # another process's lines between them
        lines.insert(at % (len(lines) + 1), _OTHER)
    return "\n".join(lines) + "\n"


def _errors(text: str) -> list[ErrorEvent]:
    events = assemble(tokenize([text.encode()]))
    return sorted((e for e in events if isinstance(e, ErrorEvent)), key=lambda e: (e.line, e.id))


@settings(max_examples=60)
@given(tops, st.sampled_from(_PREFIXES), st.lists(st.integers(0, 400), max_size=6))
def test_every_sub_exception_is_an_event_of_its_group(tree: Group, prefix: str,
                                                      interleave: list[int]) -> None:
    top = _build(tree, _Names())
    text = _log(top, prefix, interleave)
    errors = _errors(text)
    printed = _printed(top)
    assert [(type(e).__name__, _text(e)) for e, _ in printed] == \
        [(e.exception, e.message) for e in errors], text
    ids = {id(exc): event.id for (exc, _), event in zip(printed, errors)}
    for (exc, parent), event in zip(printed, errors):
        assert event.group_id == (ids[id(parent)] if parent is not None else None), text
    # the borders, notes and blank margins are nobody's message
    assert not any("|" in e.message or "more exception" in e.message for e in errors)


@settings(max_examples=40)
@given(tops, st.sampled_from(_PREFIXES), st.lists(st.integers(0, 400), max_size=4))
def test_the_first_exception_inside_the_borders_is_the_root(tree: Group, prefix: str,
                                                           interleave: list[int]) -> None:
    top = _build(tree, _Names())
    text = _log(top, prefix, interleave)
    first = next(exc for exc, _ in _printed(top) if not isinstance(exc, BaseExceptionGroup))
    report = logsleuth.explain_text(text)
    assert report.verdict is Verdict.FAILURE, text
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.message) == \
        (type(first).__name__, _text(first)), text
    # the group's own line is reported as following from it, never as the cause
    assert str(top).split(" (")[0] in " ".join(s.message for s in report.symptoms), text


def test_a_group_line_alone_is_no_root_cause() -> None:
    # the sub-exceptions were cut from the paste: the group only says that something failed
    report = logsleuth.explain_text(
        "exceptiongroup.ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n")
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


def test_chained_before_the_group_stays_the_root() -> None:
    # an exception the group was raised while handling is printed first, outside the borders
    try:
        try:
            raise KeyError("outer cause")
        except KeyError:
            raise ExceptionGroup("during handling", [ValueError("inside")])
    except ExceptionGroup as group:
        text = "".join(traceback.format_exception(group))
    report = logsleuth.explain_text(text)
    assert report.root_cause is not None and report.root_cause.exception == "KeyError"


GROUP_LINES = [
    # (raw line, kind, depth): the shapes traceback.TracebackException.format prints
    ("  + Exception Group Traceback (most recent call last):", LineKind.GROUP_HEADER, 1),
    ("    | Exception Group Traceback (most recent call last):", LineKind.GROUP_HEADER, 2),
    ("  | ExceptionGroup: outer (2 sub-exceptions)", LineKind.EXCEPTION, 1),
    ("  +-+---------------- 1 ----------------", LineKind.GROUP_BOX, 1),
    ("    +---------------- 2 ----------------", LineKind.GROUP_BOX, 2),
    ("    +---------------- ... ----------------", LineKind.GROUP_BOX, 2),
    ("    | and 4 more exceptions", LineKind.GROUP_BOX, 2),
    ("    | ... (max_group_depth is 10)", LineKind.GROUP_BOX, 2),
    ("    | ", LineKind.BLANK, 2),
    ("      |", LineKind.BLANK, 3),
    ("      | The above exception was the direct cause of the following exception:",
     LineKind.CHAIN, 3),
    ('      |   File "/x/y.py", line 3, in f', LineKind.FRAME, 3),
    ("            | ValueError: deep", LineKind.EXCEPTION, 6),
    ("(APIServer pid=12)     | Traceback (most recent call last):", LineKind.TRACEBACK_HEADER, 2),
    ("(APIServer pid=12)   +-+---------------- 1 ----------------", LineKind.GROUP_BOX, 1),
    # outside any group
    ("Traceback (most recent call last):", LineKind.TRACEBACK_HEADER, 0),
    ("    x = f(y)", LineKind.INDENTED, 0),
    ("ValueError: plain", LineKind.EXCEPTION, 0),
]


@pytest.mark.parametrize(("raw", "kind", "depth"), GROUP_LINES)
def test_group_line_shapes(raw: str, kind: LineKind, depth: int) -> None:
    line = parse_line(clean(raw))
    assert (line.kind, line.depth) == (kind, depth)
