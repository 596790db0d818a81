"""A cheaper `__init__` for the frozen dataclasses made once per line read.

A frozen dataclass's generated `__init__` stores each field with `object.__setattr__` looked up
anew for every field (its own `__setattr__` refuses): ~3.5 us for a LogLine's 13 fields, and a
log of handled errors makes half a dozen such objects per located line (the line, how its head
and body were split, its milestone, the activity fold's entry). With slots, each field's member
descriptor can store the value directly: the same object for half the cost. The class stays
frozen (its `__setattr__` still refuses), its signature and defaults stay those of the
generated `__init__` (a default factory still makes a new value per object), and a class whose
`__init__` does more than that (`init=False`, keyword-only fields, `__post_init__`) keeps the
generated one.
`tests/test_quickinit.py` checks every class decorated here against its generated `__init__`.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword
from typing import Any, TypeVar

_T = TypeVar("_T", bound=type)


def quick_init(cls: _T) -> _T:
    """`cls` (a frozen dataclass with slots) with an `__init__` that stores through its slots."""
    params = getattr(cls, "__dataclass_params__", None)
    fields = dataclasses.fields(cls)
    if (params is None or not params.frozen or "__slots__" not in vars(cls)
            or hasattr(cls, "__post_init__")
            or any(not f.init or f.kw_only or not f.name.isidentifier() or keyword.iskeyword(f.name)
                   or f.name.startswith("_") for f in fields)):
        return cls
    space: dict[str, object] = {}
    generated = vars(cls)["__init__"]
    given = inspect.signature(generated).parameters
    if list(given)[1:] != [f.name for f in fields]:  # an InitVar: more than stores
        return cls
    heads: list[str] = []
    stores: list[str] = []
    for f in fields:
        slot = next(vars(k)[f.name] for k in cls.__mro__ if f.name in vars(k))
        space[f"_set_{f.name}"] = slot.__set__  # the slot's member descriptor
        value = f.name
        if f.default_factory is not dataclasses.MISSING:  # a new value per object, as generated
            space[f"_factory_{f.name}"] = f.default_factory
            space[f"_unset_{f.name}"] = given[f.name].default  # the generated one's marker
            heads.append(f"{f.name}=_unset_{f.name}")
            value = f"_factory_{f.name}() if {f.name} is _unset_{f.name} else {f.name}"
        elif f.default is dataclasses.MISSING:
            heads.append(f.name)
        else:
            space[f"_default_{f.name}"] = f.default
            heads.append(f"{f.name}=_default_{f.name}")
        stores.append(f"    _set_{f.name}(self, {value})\n")
    body = "".join(stores) or "    pass\n"
    exec(f"def __init__(self, {', '.join(heads)}):\n{body}", space)  # noqa: S102 (our own text)
    init: Any = space["__init__"]
    init.__qualname__ = generated.__qualname__
    init.__annotations__ = generated.__annotations__
    init.__generated__ = generated  # for the test
    setattr(cls, "__init__", init)
    return cls
