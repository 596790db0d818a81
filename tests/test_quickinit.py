"""quick_init: the same objects as the dataclass's generated __init__, still frozen."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from logsleuth import assemble, model
from logsleuth.quickinit import quick_init
from logsleuth.tokenize import grammar

DECORATED = [model.LogLine, model.LineRun, model.RecordRun, model.ErrorEvent, model.Milestone,
             grammar._Header, grammar._Body, grammar._Head, grammar.Split, assemble._TraceAt,
             assemble._State]


def _sample(index: int, f: dataclasses.Field[object]) -> object:
    return f"{f.name}-{index}"  # any value: the slots take what they are given


@pytest.mark.parametrize("cls", DECORATED, ids=lambda c: c.__name__)
def test_quick_init_builds_what_the_generated_one_builds(cls: type) -> None:
    generated = getattr(cls.__init__, "__generated__", None)
    assert generated is not None, "quick_init fell back to the generated __init__"
    assert inspect.signature(cls.__init__) == inspect.signature(generated)
    fields = dataclasses.fields(cls)
    required = [f for f in fields if f.default is dataclasses.MISSING]
    for given in (required, fields):  # defaults taken, then every field given
        args = [_sample(i, f) for i, f in enumerate(given)]
        quick = cls(*args)
        slow = object.__new__(cls)
        generated(slow, *args)
        assert quick == slow
        assert [getattr(quick, f.name) for f in fields] == [getattr(slow, f.name) for f in fields]
        assert cls(**{f.name: a for f, a in zip(given, args)}) == slow
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(quick, fields[0].name, None)
    with pytest.raises(TypeError):
        cls(*[_sample(i, f) for i, f in enumerate(fields)], "one too many")
    if required:
        with pytest.raises(TypeError):
            cls()


def test_a_class_whose_init_does_more_keeps_the_generated_one() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Posted:
        a: int

        def __post_init__(self) -> None:
            object.__setattr__(self, "a", self.a + 1)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived:
        a: int
        b: int = dataclasses.field(init=False, default=0)

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Named:
        a: int

    @dataclasses.dataclass(slots=True)
    class Unfrozen:
        a: int

    for cls in (Posted, Derived, Named, Unfrozen):
        generated = cls.__init__
        assert quick_init(cls).__init__ is generated
    assert Posted(1).a == 2


def test_a_default_is_shared_not_copied() -> None:
    shared = ("x",)

    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Defaulted:
        a: int
        b: tuple[str, ...] = shared

    assert hasattr(Defaulted.__init__, "__generated__")
    assert Defaulted(1).b is shared
    assert Defaulted(1, ()).b == ()


def test_a_default_factory_makes_a_new_value_per_object() -> None:
    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Listed:
        a: int
        b: list[int] = dataclasses.field(default_factory=list)

    assert hasattr(Listed.__init__, "__generated__")
    one, two = Listed(1), Listed(2)
    assert one.b == [] and one.b is not two.b
    given = [3]
    assert Listed(1, given).b is given
