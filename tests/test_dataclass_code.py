"""The table of compiled dataclass functions (``subagents/_dataclass_code.py``) is current and
holds exactly what ``exec`` would make of each text; a text not in it is compiled as always."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from subagents import _dataclass, _dataclass_code, _dataclass_codegen
from subagents.diagnostics import Diagnostic

SAME_PYTHON = sys.version_info[:2] == _dataclass_code.PYTHON


@pytest.mark.skipif(not SAME_PYTHON, reason="the table is written by another Python version")
def test_the_table_is_current() -> None:
    """Regenerate (a fresh ``subagents validate`` run records the texts) and compare: a class
    added, removed or changed on the path of ``validate FILE`` makes this fail until
    ``python -m subagents._dataclass_codegen`` is run."""
    fresh = _dataclass_codegen.table_source(_dataclass_codegen.recorded_texts())
    assert fresh == Path(_dataclass_code.__file__).read_text(encoding="utf-8"), (
        "stale: run python -m subagents._dataclass_codegen")


def _same_code(stored: CodeType, fresh: CodeType) -> None:
    """Equal but for where the code was written (file name and line numbers)."""
    for attr in ("co_name", "co_qualname", "co_code", "co_names", "co_varnames", "co_freevars",
                 "co_cellvars", "co_argcount", "co_posonlyargcount", "co_kwonlyargcount",
                 "co_flags", "co_stacksize", "co_exceptiontable"):
        assert getattr(stored, attr) == getattr(fresh, attr), (stored.co_qualname, attr)
    assert len(stored.co_consts) == len(fresh.co_consts)
    for a, b in zip(stored.co_consts, fresh.co_consts, strict=True):
        if isinstance(a, CodeType):
            assert isinstance(b, CodeType)
            _same_code(a, b)
        else:
            assert type(a) is type(b) and a == b


@pytest.mark.parametrize("text", list(_dataclass_code.CODE), ids=range(len(_dataclass_code.CODE)))
def test_each_stored_function_is_its_text_compiled(text: str) -> None:
    namespace: dict[str, Any] = {}
    # as the dataclasses module compiles it: no ``from __future__`` (this module's would apply)
    exec(compile(text, "<string>", "exec", dont_inherit=True),
         {"__builtins__": __builtins__}, namespace)
    (fresh,) = namespace.values()
    _same_code(_dataclass_code.CODE[text], fresh.__code__)


def test_the_table_is_not_empty_and_is_used() -> None:
    """The package's classes got their functions from the table (when written by this Python)
    and the standard module is left as it was."""
    assert len(_dataclass_code.CODE) > 50
    init_file = Diagnostic.__init__.__code__.co_filename
    assert init_file.endswith("_dataclass_code.py") == SAME_PYTHON
    assert "exec" not in vars(dataclasses)


def test_a_text_not_in_the_table_is_compiled_as_usual() -> None:
    cls = _dataclass.dataclass(frozen=True)(type("Fresh", (), {
        "__annotations__": {"zzz_not_in_any_table": "int"}, "__module__": __name__,
        "__doc__": "Fresh."}))
    assert cls(zzz_not_in_any_table=3).zzz_not_in_any_table == 3
    assert cls.__init__.__code__.co_filename == "<string>"
    # compiled as the standard decorator compiles it, not under this package's
    # ``from __future__ import annotations``: the annotations are the objects, not strings
    assert cls.__init__.__annotations__ == {"zzz_not_in_any_table": "int", "return": None}
    std = dataclasses.dataclass(frozen=True)(type("Fresh", (), {
        "__annotations__": {"zzz_not_in_any_table": "int"}, "__module__": __name__}))
    assert cls.__init__.__annotations__ == std.__init__.__annotations__
    with pytest.raises(dataclasses.FrozenInstanceError):
        cls(zzz_not_in_any_table=3).zzz_not_in_any_table = 4  # type: ignore[attr-defined]
    assert "exec" not in vars(dataclasses)


def test_exec_falls_back_without_builtins_in_globals() -> None:
    """``exec`` adds ``__builtins__`` to globals that lack it; the table is used only where it
    need not, so such globals go to ``exec`` itself."""
    text = next(iter(_dataclass_code.CODE))
    bare: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    _dataclass._exec(text, bare, namespace)
    assert "__builtins__" in bare
    (made,) = namespace.values()
    assert made.__code__.co_filename == "<string>"
    with_builtins: dict[str, Any] = {"__builtins__": __builtins__}
    _dataclass._exec(text, with_builtins, namespace)
    (made,) = namespace.values()
    assert made.__code__ is _dataclass_code.CODE[text]
    assert made.__globals__ is with_builtins


def _slot_init_classes() -> list[type]:
    """Every class of the package whose ``__init__`` sets its fields through its slots."""
    import gc

    import subagents.cli.main  # noqa: F401  (the command's modules, as the table records)
    from subagents.lint import validate  # noqa: F401

    return sorted((c for c in gc.get_objects() if isinstance(c, type)
                   and "standard" in getattr(c.__dict__.get("__init__"), "__dict__", {})),
                  key=lambda c: f"{c.__module__}.{c.__qualname__}")


def test_classes_on_the_validate_path_set_fields_through_their_slots() -> None:
    from subagents.definition import AgentDefinition, SourceLocation
    from subagents.diagnostics import Diagnostic

    found = _slot_init_classes()
    for cls in (AgentDefinition, SourceLocation, Diagnostic):
        assert cls in found, cls


def _arguments(cls: type, given: bool) -> dict[str, Any]:
    """A fresh object for every field (``given``), else only for those without a default."""
    return {f.name: object() for f in dataclasses.fields(cls)
            if f.init and (given or (f.default is dataclasses.MISSING
                                     and f.default_factory is dataclasses.MISSING))}


def _assert_same_slots(cls: type, names: list[str], kwargs: dict[str, object],
                       ours: object, theirs: object) -> None:
    """Every slot of ``ours`` holds what the standard ``__init__`` put in ``theirs``: the very
    object given, an equal default of the same type, a fresh object of each default factory."""
    for name in names:
        a, b = getattr(ours, name), getattr(theirs, name)
        if name in kwargs:
            assert a is kwargs[name], (cls, name)
        assert a == b and type(a) is type(b), (cls, name)
        if isinstance(a, (dict, list, set)):
            assert a is not b, (cls, name)  # each call its own default


def test_a_slot_init_builds_what_the_standard_init_builds() -> None:
    """Each such class built both ways, with every field given and with the defaults: the
    same value in every slot (the very object given, an equal default, a fresh object from
    each default factory), the same signature, and still frozen."""
    import inspect

    classes = _slot_init_classes()
    assert len(classes) > 10
    for cls in classes:
        init = cls.__init__  # type: ignore[misc]
        standard = init.__dict__["standard"]
        assert inspect.signature(init) == inspect.signature(standard)
        assert init.__annotations__ == standard.__annotations__
        names = [f.name for f in dataclasses.fields(cls)]
        for given in (True, False):
            kwargs = _arguments(cls, given)
            ours, theirs = cls.__new__(cls), cls.__new__(cls)
            init(ours, **kwargs)
            standard(theirs, **kwargs)
            _assert_same_slots(cls, names, kwargs, ours, theirs)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(ours, names[0], 1)


@pytest.mark.parametrize("text", list(_dataclass_code.SLOT_INIT),
                         ids=range(len(_dataclass_code.SLOT_INIT)))
def test_each_slot_init_is_its_rewritten_text_compiled(text: str) -> None:
    rewritten = _dataclass_codegen.slot_init_text(text)
    assert rewritten is not None
    namespace: dict[str, Any] = {}
    exec(compile(rewritten, "<string>", "exec", dont_inherit=True),
         {"__builtins__": __builtins__}, namespace)
    (fresh,) = namespace.values()
    _same_code(_dataclass_code.SLOT_INIT[text], fresh.__code__)


def test_an_init_doing_more_than_setting_fields_is_not_rewritten() -> None:
    text = next(t for t in _dataclass_code.SLOT_INIT)
    lines = text.split("\n")
    assert _dataclass_codegen.slot_init_text(
        "\n".join([*lines[:-1], "  self.__post_init__()", lines[-1]])) is None
    assert _dataclass_codegen.slot_init_text("def f():\n pass") is None


def test_another_class_text_is_never_given_to_a_class() -> None:
    """(Two classes built at once in two threads could see each other's texts.)  A class
    whose ``__init__`` was not made from the text keeps its own, even when the text's fields
    are all slots of it."""
    from subagents.definition import SourceLocation

    text = next(t for t in _dataclass_code.SLOT_INIT
                if SourceLocation.__init__.__dict__["standard"].__code__
                in _dataclass_code.CODE[t].co_consts)
    cls = _dataclass.dataclass(frozen=True, slots=True)(type("Swapped", (), {
        "__annotations__": {"column": "int", "line": "int"}, "__module__": __name__,
        "__doc__": "Swapped."}))
    before = cls.__init__
    _dataclass._use_slot_init(cls, text)
    assert cls.__init__ is before
    assert cls(1, 2).column == 1  # type: ignore[call-arg,attr-defined]


def _open_init_classes() -> list[type]:
    """The classes whose ``__init__`` can build through their unfrozen twin."""
    return [c for c in _slot_init_classes()
            if "__dataclass_open" in c.__init__.__code__.co_freevars]  # type: ignore[misc]


def _cells(cls: type) -> dict[str, Any]:
    init = cls.__init__  # type: ignore[misc]
    return dict(zip(init.__code__.co_freevars, init.__closure__, strict=True))


def _open(cls: type) -> None:
    """Make ``cls`` build through its twin from now on, as its countdown would."""
    cells = _cells(cls)
    if cells["__dataclass_shut"].cell_contents is None:
        cells["__dataclass_wake"].cell_contents()
    assert cells["__dataclass_shut"].cell_contents is cls


def test_big_classes_can_build_through_their_unfrozen_twin() -> None:
    from subagents.definition import AgentDefinition, SourceLocation
    from subagents.diagnostics import Diagnostic

    found = _open_init_classes()
    assert AgentDefinition in found and Diagnostic in found
    assert SourceLocation not in found  # (two fields: the setters cost less)
    assert all(len(dataclasses.fields(c)) >= _dataclass_codegen.OPEN_INIT_FIELDS
               for c in found)


def test_an_object_built_through_the_twin_is_the_standard_one() -> None:
    """Through the twin, every slot holds what the standard ``__init__`` puts there (the
    object given, an equal default, a fresh object of each default factory), the object is of
    exactly the class, and it is frozen."""
    classes = _open_init_classes()
    assert len(classes) >= 5
    for cls in classes:
        _open(cls)
        standard = cls.__init__.__dict__["standard"]  # type: ignore[misc]
        names = [f.name for f in dataclasses.fields(cls)]
        for given in (True, False):
            kwargs = _arguments(cls, given)
            ours = cls(**kwargs)
            theirs = cls.__new__(cls)
            standard(theirs, **kwargs)
            assert type(ours) is cls
            _assert_same_slots(cls, names, kwargs, ours, theirs)
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(ours, names[0], 1)
            assert ours == theirs


def test_a_subclass_object_is_built_through_the_setters() -> None:
    """An object of a subclass keeps its class (it is never made the twin)."""
    from subagents.definition import AgentDefinition

    _open(AgentDefinition)
    sub = type("Sub", (AgentDefinition,), {"__slots__": ()})
    made = sub(name="a", description="b")
    assert type(made) is sub and made.name == "a" and made.description == "b"
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "c"  # type: ignore[misc]


def test_a_failed_build_leaves_the_object_of_its_class() -> None:
    """A default factory that raises: the object being built is of its class again (it is
    never left as the twin, whose fields could be changed)."""
    from subagents.definition import AgentDefinition

    _open(AgentDefinition)
    cells = _cells(AgentDefinition)
    factory_cell = cells["_dflt_hooks"]
    saved = factory_cell.cell_contents

    def broken() -> dict[str, Any]:
        raise RuntimeError("no default today")

    target = AgentDefinition.__new__(AgentDefinition)
    factory_cell.cell_contents = broken
    try:
        with pytest.raises(RuntimeError):
            AgentDefinition.__init__(target, name="a")
    finally:
        factory_cell.cell_contents = saved
    assert type(target) is AgentDefinition
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.name = "b"  # type: ignore[misc]


def test_the_twin_is_made_after_so_many_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class builds through its setters until ``OPEN_AFTER`` objects are built, then makes
    its twin (a fresh class, its texts put in the table for the test, so the count starts at
    the top)."""
    fields = {f"f{i}": "int" for i in range(_dataclass_codegen.OPEN_INIT_FIELDS)}

    def build() -> type:
        return _dataclass.dataclass(frozen=True, slots=True)(type("Counted", (), {
            "__annotations__": fields, "__module__": __name__, "__doc__": "Counted."}))

    texts: list[str] = []
    real_exec = _dataclass._exec

    def record(source: Any, globals: Any = None, locals: Any = None, /) -> None:
        texts.append(source)
        real_exec(source, globals, locals)

    monkeypatch.setattr(_dataclass, "_exec", record)
    build()
    (text,) = (t for t in texts if "def __init__(" in t)
    for table, source in ((_dataclass_code.CODE, text),
                          (_dataclass_code.SLOT_INIT, _dataclass_codegen.slot_init_text(text))):
        namespace: dict[str, Any] = {}
        assert source is not None
        exec(compile(source, "<string>", "exec", dont_inherit=True),
             {"__builtins__": __builtins__}, namespace)
        monkeypatch.setitem(table, text, namespace["__create_fn__"].__code__)
    cls = build()
    cells = _cells(cls)
    for _ in range(_dataclass.OPEN_AFTER - 1):
        cls(*range(len(fields)))
    assert cells["__dataclass_shut"].cell_contents is None
    made = cls(*range(len(fields)))
    assert cells["__dataclass_shut"].cell_contents is cls
    assert cells["__dataclass_open"].cell_contents is _dataclass.unfrozen_twin(cls)
    later = cls(*range(len(fields)))
    assert type(made) is type(later) is cls and made == later
    assert [getattr(later, name) for name in fields] == list(range(len(fields)))
