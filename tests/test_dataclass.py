"""``subagents._dataclass.dataclass`` behaves as ``dataclasses.dataclass`` on the same classes.

Each case declares one class body twice, once under each decorator, and compares what a user
of the class can see: ``repr`` text (recursion included), equality and its refusal across
classes, the hash value, which methods exist and which are the class body's own, the frozen
guard, ``fields``, ``replace``, ``__match_args__``, pickling and ``__dataclass_params__``.
"""

from __future__ import annotations

import dataclasses
import pickle
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagents import _dataclass
from subagents.diagnostics import Diagnostic, Severity

OPTIONS: list[dict[str, Any]] = [
    {},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"frozen": True, "slots": True, "kw_only": True},
    {"slots": True},
    {"slots": True, "eq": False},
    {"eq": False, "slots": True},
    {"repr": False},
    {"frozen": True, "eq": False},
]


def _build(decorator: Any, options: dict[str, Any], extra: dict[str, Any] | None = None) -> Any:
    namespace: dict[str, Any] = {
        "__annotations__": {"a": "int", "b": "str", "c": "list[int]", "d": "int",
                            "e": "float"},
        "__module__": __name__, "__qualname__": "Point", "__doc__": "A point.",
        "b": "b", "c": dataclasses.field(default_factory=list, hash=False),
        "d": dataclasses.field(default=4, compare=False),
        "e": dataclasses.field(default=0.5, repr=False, hash=False),
        **(extra or {}),
    }
    cls = type("Point", (), namespace)
    return decorator(**options)(cls)


PAIRS = [(dataclasses.dataclass, _dataclass._dataclass)]


def _args(_options: dict[str, Any], a: Any, b: Any) -> dict[str, Any]:
    return {"a": a, "b": b}


def _text(obj: object) -> str:
    """``repr`` without the address ``object.__repr__`` shows."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(obj))


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    """What calling ``fn`` gives: its value, or the type of the exception it raises."""
    try:
        return ("value", fn(*args))
    except Exception as exc:  # the type is what is compared
        return ("raised", type(exc))


@pytest.mark.parametrize("options", OPTIONS, ids=[repr(o) for o in OPTIONS])
@given(a=st.integers(), b=st.text(max_size=5), a2=st.integers(), b2=st.text(max_size=5))
def test_same_behaviour(options: dict[str, Any], a: int, b: str, a2: int, b2: str) -> None:
    std = _build(dataclasses.dataclass, options)
    ours = _build(_dataclass._dataclass, options)
    x_std, y_std = std(**_args(options, a, b)), std(**_args(options, a2, b2))
    x_ours, y_ours = ours(**_args(options, a, b)), ours(**_args(options, a2, b2))
    assert _text(x_std) == _text(x_ours)
    assert (x_std == y_std) == (x_ours == y_ours)
    assert (x_std != y_std) == (x_ours != y_ours)
    assert (x_std == std(**_args(options, a, b))) == (x_ours == ours(**_args(options, a, b)))
    assert x_ours.__eq__(x_std) is NotImplemented  # another class, even with the same fields
    assert (x_ours == (a, b)) is False
    assert (std.__hash__ is None) == (ours.__hash__ is None)
    if std.__hash__ is not None and std.__hash__ is not object.__hash__:
        assert _outcome(hash, x_std) == _outcome(hash, x_ours)
    assert (std.__hash__ is object.__hash__) == (ours.__hash__ is object.__hash__)
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
                 "__match_args__", "__slots__", "__getstate__", "__setstate__", "__doc__"):
        assert (name in vars(std)) == (name in vars(ours)), name
    assert std.__match_args__ == ours.__match_args__
    assert [f.name for f in dataclasses.fields(std)] == [f.name for f in dataclasses.fields(ours)]
    for attr in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert (getattr(std.__dataclass_params__, attr)
                == getattr(ours.__dataclass_params__, attr)), attr
    assert ((dataclasses.replace(x_ours, a=a2) == ours(**_args(options, a2, b)))
            == (dataclasses.replace(x_std, a=a2) == std(**_args(options, a2, b))))
    assert _text(dataclasses.replace(x_ours, a=a2)) == _text(dataclasses.replace(x_std, a=a2))
    if options.get("frozen"):
        for obj in (x_std, x_ours):
            with pytest.raises(dataclasses.FrozenInstanceError):
                obj.a = 1
            with pytest.raises(dataclasses.FrozenInstanceError):
                del obj.a
    assert re.sub(r" at 0x[0-9a-f]+", "", str(x_std)) == _text(x_ours)


@pytest.mark.parametrize("options", OPTIONS, ids=[repr(o) for o in OPTIONS])
def test_methods_of_the_class_body_are_kept(options: dict[str, Any]) -> None:
    extra = {"__repr__": lambda self: "mine", "__eq__": lambda self, other: True,
             "__hash__": lambda self: 7}
    for decorator in (dataclasses.dataclass, _dataclass._dataclass):
        cls = _build(decorator, options, extra)
        obj = cls(a=1)
        assert repr(obj) == "mine"
        assert obj == cls(a=2)
        assert hash(obj) == 7
    # an __eq__ of its own without __hash__: the decorator decides the hash, as the standard does
    only_eq = {"__eq__": lambda self, other: True, "__hash__": None}
    std = _build(dataclasses.dataclass, options, only_eq)
    ours = _build(_dataclass._dataclass, options, only_eq)
    assert (std.__hash__ is None) == (ours.__hash__ is None)
    if std.__hash__ is not None and std.__hash__ is not object.__hash__:
        assert _outcome(hash, std(a=3)) == _outcome(hash, ours(a=3))


@pytest.mark.parametrize("names", [(), ("a",), ("a", "b", "c")])
def test_few_fields(names: tuple[str, ...]) -> None:
    """No field, one field (a tuple of one is hashed and compared, not the bare value), three."""
    nan = float("nan")
    made = []
    for decorator in (dataclasses.dataclass, _dataclass._dataclass):
        cls = decorator(frozen=True)(type("Few", (), {
            "__annotations__": dict.fromkeys(names, "float"), "__module__": __name__,
            "__doc__": "Few."}))
        made.append((cls(*[nan] * len(names)), cls(*[1.5] * len(names))))
    (nan_std, one_std), (nan_ours, one_ours) = made
    assert hash(nan_std) == hash(nan_ours) and hash(one_std) == hash(one_ours)
    assert (nan_std == nan_std) == (nan_ours == nan_ours)  # the same nan object: equal in tuples
    assert repr(one_std) == repr(one_ours)


def test_recursive_repr_and_pickle() -> None:
    std = _build(dataclasses.dataclass, {})
    ours = _build(_dataclass._dataclass, {})
    a_std, a_ours = std(a=1), ours(a=1)
    a_std.c.append(a_std)  # type: ignore[arg-type]
    a_ours.c.append(a_ours)  # type: ignore[arg-type]
    assert repr(a_std) == repr(a_ours) == "Point(a=1, b='b', c=[...], d=4)"
    assert ours.__repr__.__qualname__ == "Point.__repr__"
    assert ours.__eq__.__qualname__ == "Point.__eq__"


def test_a_class_of_the_package_pickles_and_compares() -> None:
    diag = Diagnostic(path="a.md", line=2, column=1, rule="SA001", severity=Severity.ERROR,
                      message="m")
    assert pickle.loads(pickle.dumps(diag)) == diag
    assert hash(pickle.loads(pickle.dumps(diag))) == hash(diag)
    assert repr(diag).startswith("Diagnostic(path='a.md', line=2, column=1, rule='SA001'")
    assert dataclasses.replace(diag, line=3) != diag
    with pytest.raises(dataclasses.FrozenInstanceError):
        diag.line = 5  # type: ignore[misc]


def test_order_and_unsafe_hash_go_to_the_standard_decorator() -> None:
    std = _build(dataclasses.dataclass, {"order": True, "unsafe_hash": True})
    ours = _build(_dataclass._dataclass, {"order": True, "unsafe_hash": True})
    assert (ours(a=1) < ours(a=2)) and (std(a=1) < std(a=2))
    assert _outcome(hash, ours(a=1)) == _outcome(hash, std(a=1))


def test_eq_and_hash_are_compiled_on_first_call_and_stay_the_same() -> None:
    """The first comparison compiles ``__eq__`` (the first hash ``__hash__``) and puts it on the
    class; answers before and after, and through a plain subclass, are the standard ones."""
    std = _build(dataclasses.dataclass, {"frozen": True, "slots": True})
    ours = _build(_dataclass._dataclass, {"frozen": True, "slots": True})
    first_eq, first_hash = vars(ours)["__eq__"], vars(ours)["__hash__"]
    sub = type("Sub", (ours,), {"__slots__": ()})
    for _ in range(2):  # before and after the compiled methods replace the first ones
        assert (sub(a=1) == sub(a=1)) is True
        assert (sub(a=1) == ours(a=1)) is False  # another class
        assert (ours(a=1) == ours(a=2)) == (std(a=1) == std(a=2))
        assert hash(ours(a=1, b="x")) == hash(std(a=1, b="x"))
        assert hash(sub(a=5)) == hash(std(a=5))
    assert vars(ours)["__eq__"] is not first_eq and vars(ours)["__hash__"] is not first_hash
    assert ours.__eq__.__qualname__ == "Point.__eq__" == ours.__hash__.__qualname__[:-8] + "__eq__"
