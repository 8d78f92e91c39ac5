"""``_judge``'s bookkeeping.  The scope rules' slim copy of a definition (``judge._slim``)
is the definition its ``__init__`` makes of the kept fields, every other field at its
default: made by ``fields_setter`` once the class has its unfrozen twin, by ``__init__``
before.  The rule context is built by position, in the order of its fields."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from subagents import _dataclass
from subagents.definition import AgentDefinition, Dialect, HookMatcher, Scope
from subagents.harnesses.loader import read_agent_file
from subagents.lint import judge


def _plain(defn: AgentDefinition) -> AgentDefinition:
    """The slim copy as it was made before: the class's ``__init__``."""
    return AgentDefinition(name=defn.name, description=defn.description, dialect=defn.dialect,
                           path=defn.path, source=defn.source, skills=defn.skills)


def _every_field(defn: AgentDefinition) -> list[object]:
    return [type(defn), *(getattr(defn, f.name) for f in dataclasses.fields(defn))]


def _long(**fields: object) -> AgentDefinition:
    return AgentDefinition(name="x", system_prompt="p" * 2001, **fields)  # type: ignore[arg-type]


_DEFINITIONS = [
    _long(),
    _long(description="Reviews diffs", model="opus", tools=("Read",), skills=("a", "b"),
          hooks={"Stop": (HookMatcher(matcher=None, hooks=()),)}, extra={"foo": 1},
          dialect=Dialect.CODEX_MD, source=Scope.PROJECT, path=Path("/x/a.md"), plugin="p",
          locations={}, body_line=7, max_turns=3, tags=("t",), keywords=("k",)),
]


@pytest.mark.parametrize("twin", [True, False])
def test_the_slim_copy_is_the_plain_one(twin: bool, monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    if twin:
        for _ in range(_dataclass.OPEN_AFTER + 1):  # (the class gets its twin)
            _long()
        assert AgentDefinition in _dataclass.TWINS
    else:
        monkeypatch.delitem(_dataclass.TWINS, AgentDefinition, raising=False)
    monkeypatch.setattr(judge, "_SLIM", [])
    f = tmp_path / "a.md"
    f.write_text("---\nname: a\ndescription: d\ntools: Read\nskills: s1, s2\nhooks:\n  Stop: []\n"
                 "foo: 1\n---\n" + "prompt " * 400, encoding="utf-8")
    read = read_agent_file(f).definitions
    for defn in [*_DEFINITIONS, *read]:
        slim, plain = judge._slim(defn), _plain(defn)
        assert _every_field(slim) == _every_field(plain)
        assert slim == plain and slim.system_prompt == ""
        # each default dictionary its own, as the class's default factory makes them
        for name in ("hooks", "extra", "locations"):
            assert getattr(slim, name) == {}
            assert getattr(slim, name) is not getattr(judge._slim(defn), name)
            assert getattr(slim, name) is not getattr(defn, name)
    if twin:
        assert judge._SLIM and judge._SLIM[0] is not None, "the setter was not used"
    else:
        assert not judge._SLIM  # (one file: the class's own ``__init__``, nothing compiled)


def test_a_short_prompt_is_kept_as_it_is() -> None:
    defn = AgentDefinition(name="x", system_prompt="p" * 2000)
    assert judge._slim(defn) is defn


def test_the_rule_context_fields_judge_passes_by_position() -> None:
    """``_judge`` builds each ``RuleContext`` with its first nine fields by position."""
    from subagents.lint.rules.base import RuleContext

    assert [f.name for f in dataclasses.fields(RuleContext)][:9] == [
        "path", "config", "dialect", "document", "text", "reader_findings", "claude_code",
        "wants", "checks"]


def test_the_file_context_fields_read_file_passes_by_position(tmp_path: Path) -> None:
    """``_read_file`` builds the ``FileContext`` with its first seven fields by position: the
    context it makes holds each value in the field it names."""
    from subagents.lint.config import Config
    from subagents.lint.judge import _Filter, _read_file
    from subagents.lint.rules.base import FileContext
    from subagents.lint.rules.catalog import Profile
    from subagents.lint.targets import _Target

    assert [f.name for f in dataclasses.fields(FileContext)][:7] == [
        "path", "file_path", "dialect", "config", "text", "document", "agents_root"]
    file = tmp_path / "a.md"
    file.write_text("---\nname: a\ndescription: d\n---\nbody\n")
    config = Config()
    target = _Target(file, "shown/a.md", Dialect.CLAUDE, tmp_path, "scope", False, str(file))
    fctx, result, early = _read_file(target, config, _Filter(Profile.DEFAULT, (), ()))
    assert (fctx.path, fctx.file_path, fctx.dialect, fctx.config, fctx.agents_root) == (
        "shown/a.md", file, Dialect.CLAUDE, config, tmp_path)
    assert result is not None and early == []
    assert fctx.document is None and fctx.text == "---\nname: a\ndescription: d\n---\nbody\n"
