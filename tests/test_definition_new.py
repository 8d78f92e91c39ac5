"""``new_definition`` (every definition the strict reader builds) is the class call.

Once ``AgentDefinition`` has its unfrozen twin, a function compiled for the names of the
values builds the definition by position; it must give exactly what
``AgentDefinition(**values, extra=..., dialect=..., path=..., locations=..., body_line=...)``
gives: every field (compared or not), the repr, an object as frozen, a new dictionary for each
field whose default is one; and refuse what the call refuses.  Checked with and without the
twin, on any subset of the fields in any order, and on the definitions read from files."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents import _dataclass, definition
from subagents.definition import (
    AgentDefinition,
    Dialect,
    HookMatcher,
    SourceLocation,
    _compiled_maker,
    new_definition,
)
from subagents.harnesses.loader import read_agent_file

_VALUES: dict[str, Any] = {
    "description": st.text(max_size=4), "system_prompt": st.text(max_size=6),
    "model": st.none() | st.text(max_size=3), "tools": st.none() | st.tuples(st.text(max_size=3)),
    "disallowed_tools": st.none() | st.tuples(st.text(max_size=3)),
    "permission_mode": st.none() | st.text(max_size=3), "color": st.none() | st.just("red"),
    "max_turns": st.none() | st.integers(),
    "hooks": st.dictionaries(st.text(max_size=2), st.just((HookMatcher(),))),
    "skills": st.tuples(st.text(max_size=3)), "memory": st.none() | st.just("user"),
    "background": st.none() | st.booleans(), "effort": st.none() | st.just("high"),
    "isolation": st.none() | st.just("worktree"), "initial_prompt": st.none() | st.text(max_size=3),
    "version": st.none() | st.just("1.0"), "author": st.none() | st.just("me"),
    "tags": st.none() | st.tuples(st.text(max_size=2)), "created": st.none() | st.just("2024"),
    "modified": st.none() | st.just("2025"), "keywords": st.tuples(st.text(max_size=4)),
    "source": st.none(), "plugin": st.none() | st.just("p"),
}
_ALL = [f.name for f in dataclasses.fields(AgentDefinition)]


def _every_field(d: AgentDefinition) -> list[object]:
    return [getattr(d, name) for name in _ALL]


def _check(values: dict[str, Any], tail: tuple[Any, ...]) -> AgentDefinition:
    extra, dialect, path, locations, body_line = tail
    plain = AgentDefinition(**values, extra=extra, dialect=dialect, path=path,
                            locations=locations, body_line=body_line)
    ours = new_definition(dict(values), *tail)
    twin = _dataclass.TWINS.get(AgentDefinition)
    compiled = (None if twin is None
                else _compiled_maker(tuple(values), twin)(*values.values(), *tail))
    for made in (ours, compiled):
        if made is None:
            continue
        assert type(made) is AgentDefinition
        assert _every_field(made) == _every_field(plain)
        assert made == plain and repr(made) == repr(plain)
        for name in ("extra", "locations"):
            assert getattr(made, name) is getattr(plain, name)  # given: the object itself
        if "hooks" not in values:  # a default factory's dictionary: each its own
            assert made.hooks == {} and made.hooks is not plain.hooks
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.name = "x"  # type: ignore[misc]
    return ours


def _wake_twin() -> None:
    for _ in range(_dataclass.OPEN_AFTER + 1):
        AgentDefinition(name="w")
    assert AgentDefinition in _dataclass.TWINS


@settings(max_examples=examples(300))
@given(st.fixed_dictionaries({}, optional=_VALUES), st.text(max_size=4), st.randoms(),
       st.booleans())
def test_new_definition_is_the_class_call(values: dict[str, Any], name: str,
                                          rnd: random.Random, twin: bool) -> None:
    names = [*values, "name"]
    rnd.shuffle(names)  # (any order of the names)
    ordered = {n: ({**values, "name": name})[n] for n in names}
    tail = ({"k": 1}, Dialect.CODEX_MD, Path("/x/a.md"), {"name": SourceLocation(2, 1)}, 7)
    if twin:
        _wake_twin()
        _check(ordered, tail)
    else:
        with pytest.MonkeyPatch.context() as mp:
            mp.delitem(_dataclass.TWINS, AgentDefinition, raising=False)
            mp.setattr(definition, "_MAKERS", {})
            _check(ordered, tail)
            assert not definition._MAKERS  # (one file: the class call, nothing compiled)


def test_new_definition_refuses_what_the_call_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    _wake_twin()
    monkeypatch.setattr(definition, "_MAKERS", {})
    tail = ({}, Dialect.CLAUDE, None, {}, None)
    for values in ({"description": "d"}, {"name": "a", "nonsense": 1},
                   {"name": "a", "extra": {}}, {"name": "a", "body_line": 3}):
        with pytest.raises(TypeError):
            new_definition(values, *tail)
    assert not definition._MAKERS
    new_definition({"name": "a"}, *tail)
    assert list(definition._MAKERS) == [("name",)]


def test_definitions_read_from_files_are_the_class_calls(tmp_path: Path) -> None:
    _wake_twin()
    f = tmp_path / "a.md"
    f.write_text("---\nname: a\ndescription: d\ntools: Read\nskills: s1, s2\nhooks:\n  Stop: []\n"
                 "maxTurns: 3\nfoo: 1\n---\nprompt\n", encoding="utf-8")
    (d,) = read_agent_file(f).definitions
    plain = AgentDefinition(**{n: getattr(d, n) for n in _ALL})
    assert _every_field(d) == _every_field(plain) and d.max_turns == 3 and d.extra == {"foo": 1}
