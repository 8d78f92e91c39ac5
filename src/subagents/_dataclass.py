"""``dataclass`` as the standard library's, at a fraction of its import-time cost.

Design notes
------------
* ``subagents validate one.md`` (what a pre-commit hook runs) builds about forty dataclasses
  before it reads the file.  The standard decorator writes the source of each generated method
  (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, the frozen ``__setattr__`` and
  ``__delattr__``) and compiles it with ``exec``, one method at a time: about a fifth of that
  command's CPU time.
* This decorator lets the standard one build the class (fields, ``__init__``, slots, the
  frozen guards, ``__match_args__``, ``__dataclass_fields__``) and supplies ``__repr__``,
  ``__eq__`` and ``__hash__`` itself, as closures over the field names: nothing compiled.  They
  behave as the generated ones do -- same text (recursion shown as ``...``), equality only
  between instances of the same class over the ``compare`` fields in order, the same hash
  value (``hash`` of the same tuple), ``__hash__`` set to ``None`` for a mutable class with
  ``eq`` -- and a method written in the class body is kept, as the standard decorator keeps
  it.  ``__dataclass_params__`` records what was asked for.  ``order`` and ``unsafe_hash``
  are passed to the standard decorator unchanged (nothing here uses them).
  ``tests/test_dataclass.py`` compares the two on the same classes.
* Type checkers see :func:`dataclasses.dataclass` itself (the name is re-exported under
  ``TYPE_CHECKING``), so mypy checks these classes exactly as before.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

__all__ = ["dataclass"]

_standard = dataclasses.dataclass  # bound once: the standard decorator builds the class


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function returning the tuple of ``names``' values (what the generated methods build)."""
    if len(names) >= 2:
        return attrgetter(*names)  # a tuple for two names or more
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _set_qualname(cls: type, fn: Any) -> Any:
    fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
    return fn


def _add_methods(cls: type, repr_: bool, eq: bool, hash_: str) -> None:
    fields = dataclasses.fields(cls)
    if repr_:
        shown = tuple(f.name for f in fields if f.repr)

        def __repr__(self: Any) -> str:
            qualname: str = self.__class__.__qualname__
            return (qualname + "("
                    + ", ".join([f"{n}={getattr(self, n)!r}" for n in shown]) + ")")

        cls.__repr__ = _set_qualname(cls, reprlib.recursive_repr()(__repr__))  # type: ignore[method-assign]
    if eq:
        compared = _getter(tuple(f.name for f in fields if f.compare))

        def __eq__(self: Any, other: object) -> Any:
            if other.__class__ is self.__class__:
                return compared(self) == compared(other)
            return NotImplemented

        cls.__eq__ = _set_qualname(cls, __eq__)  # type: ignore[method-assign]
    if hash_ == "add":
        hashed = _getter(tuple(f.name for f in fields
                               if (f.compare if f.hash is None else f.hash)))

        def __hash__(self: Any) -> int:
            return hash(hashed(self))

        cls.__hash__ = _set_qualname(cls, __hash__)  # type: ignore[method-assign]
    elif hash_ == "none":
        cls.__hash__ = None  # type: ignore[assignment]


def _dataclass(cls: type | None = None, /, *, init: bool = True, repr: bool = True,
               eq: bool = True, order: bool = False, unsafe_hash: bool = False,
               frozen: bool = False, match_args: bool = True, kw_only: bool = False,
               slots: bool = False, weakref_slot: bool = False) -> Any:
    """:func:`dataclasses.dataclass` with ``__repr__``, ``__eq__`` and ``__hash__`` as
    closures instead of compiled source (see the module's notes)."""

    def wrap(cls: type) -> type:
        if order or unsafe_hash:
            return _standard(
                cls, init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash,
                frozen=frozen, match_args=match_args, kw_only=kw_only, slots=slots,
                weakref_slot=weakref_slot)
        body = cls.__dict__
        own_repr = repr and "__repr__" not in body
        own_eq = eq and "__eq__" not in body
        # the standard decorator's rule for __hash__ (its table for order=unsafe_hash=False)
        class_hash = body.get("__hash__", dataclasses.MISSING)
        explicit_hash = not (class_hash is dataclasses.MISSING
                             or (class_hash is None and "__eq__" in body))
        hash_ = "" if not eq or explicit_hash else "add" if frozen else "none"
        made: type = _standard(
            cls, init=init, repr=False, eq=False, frozen=frozen, match_args=match_args,
            kw_only=kw_only, slots=slots, weakref_slot=weakref_slot)
        _add_methods(made, own_repr, own_eq, hash_)
        params = made.__dataclass_params__  # type: ignore[attr-defined]
        params.repr = repr
        params.eq = eq
        return made

    return wrap if cls is None else wrap(cls)


if TYPE_CHECKING:
    from dataclasses import dataclass
else:
    dataclass = _dataclass
