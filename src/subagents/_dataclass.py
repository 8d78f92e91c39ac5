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
  ``__eq__`` and ``__hash__`` itself.  ``__repr__`` is a closure over the field names (its
  speed does not matter); ``__eq__`` and ``__hash__`` are the standard decorator's source,
  compiled when first called, which then replaces itself on the class: a class nobody compares
  or hashes in a run compiles nothing, and one that is compared keeps the generated method's
  speed (a closure over ``operator.attrgetter`` measured 2.5-3.5x slower per call).  They
  behave as the generated ones do -- same text (recursion shown as ``...``), equality only
  between instances of the same class over the ``compare`` fields in order, the same hash
  value (``hash`` of the same tuple), ``__hash__`` set to ``None`` for a mutable class with
  ``eq`` -- and a method written in the class body is kept, as the standard decorator keeps
  it.  ``__dataclass_params__`` records what was asked for.  ``order`` and ``unsafe_hash``
  are passed to the standard decorator unchanged (nothing here uses them).
  ``tests/test_dataclass.py`` compares the two on the same classes.
* The standard decorator still compiles each class's ``__init__`` and, for a frozen class,
  ``__setattr__`` and ``__delattr__``: about a sixth of ``validate one.md`` (parsing and
  compiling 84 small functions).  :mod:`subagents._dataclass_code` holds those functions,
  already compiled (Python loads them from the ``.pyc`` as it loads any module), keyed by
  their exact source text.  While the standard decorator runs under this one, its ``exec``
  looks the text up there: found, the function is made from the stored code exactly as
  ``exec`` would make it from the text (same globals, same code but for the file name and
  line numbers); not found (another Python writes other text, or a class changed), ``exec``
  compiles it as always.  So a stale table costs time, never correctness.  The table is
  written by ``python -m subagents._dataclass_codegen``; ``tests/test_dataclass_code.py``
  fails when it is stale and checks every stored function against a fresh compile.
* A frozen class with slots gets an ``__init__`` that sets each field through its slot
  descriptor's ``__set__`` (bound once, a free variable of the function) instead of
  ``object.__setattr__(self, 'name', value)``, which looks the name up in the class to reach
  that same descriptor: the standard function's text with only those calls changed, compiled
  ahead in :data:`subagents._dataclass_code.SLOT_INIT` (about half the cost of building a
  thirty-field definition).  Its other free variables (the default factories) are the
  standard function's own cells, and its defaults, keyword defaults and annotations are
  copied from it; a class whose text is not in the table, or whose field is not a slot of
  its own, keeps the standard ``__init__``.  (A subclass that shadowed an inherited field's
  slot with a descriptor of its own would be set through the base class's slot: nothing here
  does that, and the dataclasses of this package never re-declare a slot.)
  ``tests/test_dataclass_code.py`` builds every such class both ways and compares.
* A frozen class with slots and nine fields or more (:data:`subagents._dataclass_codegen.
  OPEN_INIT_FIELDS`) can do better once it has been built :data:`OPEN_AFTER` times: its
  ``__init__`` then makes the object, for the time it sets the fields, an object of the
  class's *unfrozen twin* (:func:`unfrozen_twin`: a subclass adding no slots, whose
  ``__setattr__`` is ``object``'s, so the two have the same layout and ``__class__`` can be
  assigned), and sets each field by a plain attribute store, a store into the slot that
  Python's specialising interpreter does without a call; then it makes the object an
  object of the class again (also when a default factory raises).  A thirty-field
  definition costs half as much to build.  Only objects of exactly the class go that way (a
  subclass's object keeps its class), and only once the class has been built that many
  times: making the twin costs about what forty objects save, and most classes are built
  a few times a process.
* Type checkers see :func:`dataclasses.dataclass` itself (the name is re-exported under
  ``TYPE_CHECKING``), so mypy checks these classes exactly as before.
"""

from __future__ import annotations

import dataclasses
import functools
import reprlib
import sys
from collections.abc import Callable
from types import CellType, CodeType, FunctionType, MemberDescriptorType

from subagents._dataclass_code import CODE, SLOT_INIT

__all__ = ["TWINS", "dataclass", "unfrozen_twin"]

_standard = dataclasses.dataclass  # bound once: the standard decorator builds the class


#: The texts the standard decorator compiled for the class being built (while it runs).
_texts: list[object] = []


def _exec(source: object, globals: dict[str, Any] | None = None,
          locals: dict[str, Any] | None = None, /) -> None:
    """``exec`` as the standard decorator calls it, taking the compiled function from
    :data:`CODE` when ``source`` is one of its texts (each a single ``def``)."""
    _texts.append(source)
    code = CODE.get(source) if type(source) is str else None
    if (code is None or type(globals) is not dict or "__builtins__" not in globals
            or type(locals) is not dict):
        # compiled as in the dataclasses module: without this module's ``from __future__``
        # (``exec`` of a text inherits the caller's, and would turn annotations into strings)
        exec(compile(source, "<string>", "exec", dont_inherit=True),  # type: ignore[call-overload]
             globals, locals)
        return
    # what running the text's one ``def`` statement does: a function of the code and globals
    locals[code.co_name] = FunctionType(code, globals)


def _inner_init(create: CodeType | None) -> CodeType | None:
    """The ``__init__`` code a ``__create_fn__`` code defines."""
    if create is None:
        return None
    return next((c for c in create.co_consts
                 if type(c) is CodeType and c.co_name == "__init__"), None)


def _use_slot_init(cls: type, text: str) -> None:
    """Give ``cls`` the ``__init__`` of ``SLOT_INIT[text]`` (the standard ``__init__``
    compiled from ``text``, setting each field through its slot descriptor), when the class's
    ``__init__`` is the one ``text`` made (not another class's, built at the same time in
    another thread) and every free variable it has can be given: a setter, the ``__set__`` of
    the class's own slot of that field; any other, the standard ``__init__``'s own cell of
    that name.  Otherwise nothing changes."""
    old = cls.__dict__.get("__init__")
    code = _inner_init(SLOT_INIT.get(text))
    if (type(old) is not FunctionType or code is None
            or old.__code__ is not _inner_init(CODE.get(text))):
        return
    cells = dict(zip(old.__code__.co_freevars, old.__closure__ or (), strict=True))
    closure: list[CellType] = []
    for name in code.co_freevars:
        if name.startswith("__dataclass_set_"):
            slot = cls.__dict__.get(name[16:])
            if type(slot) is not MemberDescriptorType:
                return
            closure.append(CellType(slot.__set__))
        elif name in _OPEN_INIT:  # (see _open_init: given their values there)
            closure.append(CellType())
        elif name in cells:
            closure.append(cells[name])
        else:
            return
    new = FunctionType(code, old.__globals__, old.__name__, old.__defaults__, tuple(closure))
    cells = dict(zip(code.co_freevars, closure, strict=True))
    if _OPEN_INIT.issubset(cells):
        cells["__dataclass_shut"].cell_contents = None
        cells["__dataclass_left"].cell_contents = [OPEN_AFTER]
        cells["__dataclass_wake"].cell_contents = functools.partial(
            _open_init, cls, cells["__dataclass_open"], cells["__dataclass_shut"])
    new.__kwdefaults__ = old.__kwdefaults__
    new.__annotations__ = old.__annotations__
    new.__qualname__ = old.__qualname__
    new.__doc__ = old.__doc__
    new.__dict__["standard"] = old  # (for tests/test_dataclass_code.py to compare with)
    cls.__init__ = new  # type: ignore[misc]


#: Each frozen class's unfrozen twin (:func:`unfrozen_twin`), made when first asked for.
TWINS: dict[type, type] = {}


def unfrozen_twin(cls: type) -> type:
    """A subclass of the frozen class ``cls`` with no slots of its own and ``object``'s
    ``__setattr__``: an object of ``cls`` that is made one of it for a moment (its
    ``__class__`` set to it, then back) has its fields set by plain attribute stores, each a
    store into the slot, where going through a slot descriptor's ``__set__`` is a call.  Only
    for objects being built, which nothing else sees yet; ``cls`` must have slots and no
    ``__dict__`` (the two then have the same layout, which ``__class__`` assignment needs)."""
    twin = TWINS.get(cls)
    if twin is None:
        twin = TWINS[cls] = type(cls.__name__, (cls,), {
            "__slots__": (), "__module__": cls.__module__,
            "__qualname__": f"{cls.__qualname__}.unfrozen",
            "__doc__": f"{cls.__qualname__} while it is built (see unfrozen_twin).",
            # both: a class whose __delattr__ is its own goes through Python for __setattr__
            "__setattr__": object.__setattr__, "__delattr__": object.__delattr__})
    return twin


#: The free variables of an ``__init__`` that can set fields through the class's unfrozen
#: twin (:func:`subagents._dataclass_codegen.slot_init_text`).
_OPEN_INIT = frozenset({"__dataclass_shut", "__dataclass_open", "__dataclass_left",
                        "__dataclass_wake"})
#: How many objects of a class are built through its slots' setters before its unfrozen twin
#: is made and the rest are built through it (making a class costs about what forty objects
#: of ten fields save; a class built fewer times, as most are, never pays for one).
OPEN_AFTER = 32


def _open_init(cls: type, open_cell: CellType, shut_cell: CellType) -> None:
    """From now on, objects of exactly ``cls`` are built through its unfrozen twin: the twin
    is given to its ``__init__`` before the class is, so that the ``__init__`` never sees
    the one without the other."""
    open_cell.cell_contents = unfrozen_twin(cls)
    shut_cell.cell_contents = cls


def _values(obj: str, names: tuple[str, ...]) -> str:
    """The tuple the generated methods build: ``(self.a,self.b,)``."""
    return "(" + "".join(f"{obj}.{name}," for name in names) + ")"


def _on_first_call(cls: type, name: str, source: str) -> Callable[..., Any]:
    """A method that compiles ``source`` (defining ``name``) when first called, puts it on
    ``cls`` in its own place and returns what it returns: a process that never compares or
    hashes these objects compiles nothing, one that does gets the generated method's speed."""

    def first_call(self: Any, *args: Any) -> Any:
        module = sys.modules.get(cls.__module__)
        namespace: dict[str, Any] = {}
        # the module's globals, as the standard decorator compiles its methods
        exec(source, module.__dict__ if module is not None else {}, namespace)
        method = namespace[name]
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
        return method(self, *args)

    first_call.__name__ = name
    first_call.__qualname__ = f"{cls.__qualname__}.{name}"
    return first_call


def _add_methods(cls: type, repr_: bool, eq: bool, hash_: str) -> None:
    fields = dataclasses.fields(cls)
    if repr_:
        shown = tuple(f.name for f in fields if f.repr)

        def __repr__(self: Any) -> str:
            qualname: str = self.__class__.__qualname__
            return (qualname + "("
                    + ", ".join([f"{n}={getattr(self, n)!r}" for n in shown]) + ")")

        __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
        cls.__repr__ = reprlib.recursive_repr()(__repr__)  # type: ignore[method-assign,assignment]
    if eq:
        compared = tuple(f.name for f in fields if f.compare)
        cls.__eq__ = _on_first_call(cls, "__eq__", (  # type: ignore[method-assign]
            "def __eq__(self, other):\n"
            " if other.__class__ is self.__class__:\n"
            f"  return {_values('self', compared)} == {_values('other', compared)}\n"
            " return NotImplemented\n"))
    if hash_ == "add":
        hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        cls.__hash__ = _on_first_call(cls, "__hash__", (  # type: ignore[method-assign]
            f"def __hash__(self):\n return hash({_values('self', hashed)})\n"))
    elif hash_ == "none":
        cls.__hash__ = None  # type: ignore[assignment]


def _dataclass(cls: type | None = None, /, *, init: bool = True, repr: bool = True,
               eq: bool = True, order: bool = False, unsafe_hash: bool = False,
               frozen: bool = False, match_args: bool = True, kw_only: bool = False,
               slots: bool = False, weakref_slot: bool = False) -> Any:
    """:func:`dataclasses.dataclass` with ``__repr__`` a closure and ``__eq__`` and
    ``__hash__`` compiled when first called (see the module's notes)."""

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
        # a global named ``exec`` in the dataclasses module is what its functions call
        # instead of the builtin, for as long as it is there
        vars(dataclasses)["exec"] = _exec
        _texts.clear()
        try:
            made: type = _standard(
                cls, init=init, repr=False, eq=False, frozen=frozen, match_args=match_args,
                kw_only=kw_only, slots=slots, weakref_slot=weakref_slot)
        finally:
            vars(dataclasses).pop("exec", None)
        if frozen and slots and init:
            for text in _texts:
                if type(text) is str and text in SLOT_INIT:
                    _use_slot_init(made, text)
                    break
        _texts.clear()
        _add_methods(made, own_repr, own_eq, hash_)
        params = made.__dataclass_params__  # type: ignore[attr-defined]
        params.repr = repr
        params.eq = eq
        return made

    return wrap if cls is None else wrap(cls)


TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any
else:
    dataclass = _dataclass
