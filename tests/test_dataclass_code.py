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
            for name in names:
                a, b = getattr(ours, name), getattr(theirs, name)
                if name in kwargs:
                    assert a is kwargs[name], (cls, name)
                assert a == b and type(a) is type(b), (cls, name)
                if isinstance(a, (dict, list, set)):
                    assert a is not b, (cls, name)  # each call its own default
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
