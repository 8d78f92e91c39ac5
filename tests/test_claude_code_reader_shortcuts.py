"""Claude Code's reading: the shortcuts of the fifth speed round give the plain steps' answers.

* a name is folded with NFKC only when it holds a character outside ASCII (NFKC leaves ASCII
  text as it is, so only such a name can fold to ``:``);
* the field notes of a frontmatter whose only judged field is ``model`` are that field's
  check alone (the other checks say nothing without their keys): the same notes as the full
  run of checks, which a valid ``background: true`` (no note of its own) makes it take;
* the hook checks are skipped for a frontmatter with neither ``hooks`` nor a guard event:
  the view is the one the hook checks give.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.claude_code import reader
from subagents.claude_code.profile import get_profile
from subagents.claude_code.reader import read_claude_code

# characters NFKC folds to `:` (fullwidth, small, presentation forms) and others around them
_NAME_CHARS = "ab-_:.\uff1a\ufe55\ufe13\u2236\u00e9\u0301\u00a0\u2028 1"


def _plain_name_problem(name: str) -> bool:
    """Whether the plain steps (NFKC always) find a `:` problem in ``name``."""
    return ":" in name or ":" in unicodedata.normalize("NFKC", name)


@settings(max_examples=examples(1000))
@given(st.text(alphabet=_NAME_CHARS, min_size=1, max_size=12))
def test_a_name_folds_to_a_colon_as_nfkc_says(name: str) -> None:
    profile = get_profile()
    problem = reader._name_problem(name, profile)
    if name.startswith("-") or len(name) > profile.max_name_length:
        assert problem is not None
        return
    assert (problem is not None) == _plain_name_problem(name), repr(name)


def test_folded_colons_are_found() -> None:
    profile = get_profile()
    for name in ("a\uff1ab", "\ufe55", "x\ufe13y", "caf\u00e9\uff1a"):
        problem = reader._name_problem(name, profile)
        assert problem is not None and "folds to `:`" in problem
    for name in ("café", "plain-name", "a_b.c"):
        assert reader._name_problem(name, profile) is None


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False),
    st.text(alphabet=" \t\x1c\x85\ufeffinheritsonetINH", max_size=8),
    st.lists(st.text(max_size=3), max_size=2), st.dictionaries(st.text(max_size=2),
                                                               st.integers(), max_size=2))
_OTHER_KEYS = st.sampled_from(["name", "description", "tools", "foo", "skills", "keywords"])


@settings(max_examples=examples(1000))
@given(st.dictionaries(_OTHER_KEYS, _VALUES, max_size=4), _VALUES, st.booleans())
def test_the_model_alone_is_noted_as_by_every_check(
    others: dict[str, object], model: object, with_model: bool
) -> None:
    profile = get_profile()
    fm = dict(others)
    if with_model:
        fm["model"] = model
    # `background: true` is valid (no note): it sends the same frontmatter through every check
    every_check = {**fm, "background": True}
    assert reader._field_notes(fm, profile) == reader._field_notes(every_check, profile)


@settings(max_examples=examples(500), deadline=None)
@given(st.dictionaries(st.sampled_from(["model", "tools", "foo", "memory", "color"]),
                       st.sampled_from(["sonnet", "Read, Write", "project", "1", "''", "[]"]),
                       max_size=4))
def test_no_hook_keys_reads_as_the_hook_checks_say(fields: dict[str, str]) -> None:
    """A frontmatter without hook keys: the view equals the one read with an empty `hooks`
    mapping (which the hook checks accept without a note), but for the frontmatter itself and
    the unknown keys."""
    lines = "".join(f"{k}: {v}\n" for k, v in fields.items())
    plain = read_claude_code(f"---\nname: a\ndescription: b\n{lines}---\nbody\n")
    hooked = read_claude_code(f"---\nname: a\ndescription: b\n{lines}hooks: {{}}\n---\nbody\n")
    assert plain.loaded and hooked.loaded
    assert plain.essentials() == hooked.essentials()
    assert plain.notes == hooked.notes
    assert reader._hooks_problems(plain.frontmatter, plain.profile) == ([], [])


_FM_LINES = st.lists(st.sampled_from([
    "model: sonnet", "model: ' Inherit '", "tools: Read, Grep", "tools: []", "tools:",
    "disallowedTools: Bash", "foo: 1", "keywords: [a, b]", "max_turns: 3",
    "permission_mode: plan", "initial_prompt: go", "mcp_servers: [x]", "version: '1'"]),
    max_size=5, unique=True)


@settings(max_examples=examples(300), deadline=None)
@given(_FM_LINES, st.booleans())
def test_a_definition_without_judged_keys_is_the_full_judgement(
    lines: list[str], include_body: bool
) -> None:
    """Without any key that ``_judged`` reads beyond the view, its shortcut gives the fields
    the full judgement gives (sent there by an `initialPrompt` of blanks, which sets
    nothing)."""
    import dataclasses

    from subagents.claude_code import definition as ccdef
    from subagents.harnesses.loader import parse_agent_text

    text = "---\nname: a\ndescription: b\n" + "".join(f"{x}\n" for x in lines) + "---\nbody\n"
    result = parse_agent_text(text)
    view, strict = result.claude_code, result.definition
    assert view is not None and view.loaded and strict is not None
    assert ccdef._READ_BY_JUDGED.isdisjoint(view.frontmatter)
    full_view = dataclasses.replace(view, frontmatter={**view.frontmatter, "initialPrompt": " "})
    for shared in (True, False):
        view.shared_parse = full_view.shared_parse = shared
        short = ccdef.definition_from_view(view, path=None, strict=strict,
                                           include_body=include_body)
        full = ccdef.definition_from_view(full_view, path=None, strict=strict,
                                          include_body=include_body)
        assert [getattr(short, f.name) for f in dataclasses.fields(short)] == [
            getattr(full, f.name) for f in dataclasses.fields(full)]


_DEFINITION_VALUES = {
    "name": st.text(max_size=4), "description": st.text(max_size=4),
    "model": st.none() | st.text(max_size=3), "tools": st.none() | st.tuples(st.text(max_size=3)),
    "max_turns": st.none() | st.integers(), "hooks": st.dictionaries(st.text(max_size=2),
                                                                     st.tuples()),
    "extra": st.dictionaries(st.text(max_size=2), st.integers()),
    "background": st.none() | st.booleans(), "keywords": st.tuples(st.text(max_size=4)),
    "body_line": st.none() | st.integers(1, 9),
}


@settings(max_examples=examples(300), deadline=None)
@given(st.fixed_dictionaries({}, optional=_DEFINITION_VALUES),
       st.fixed_dictionaries({}, optional=_DEFINITION_VALUES), st.randoms())
def test_fields_setter_is_dataclasses_replace(
    base: dict[str, object], changes: dict[str, object], rnd: object
) -> None:
    """``fields_setter(names)(d, *values)`` is ``dataclasses.replace(d, **changes)``: every
    field (compared or not) and the repr, an object as frozen; evolve() goes through it.  Both
    of its ways: through the slots' setters (before the class has its unfrozen twin) and the
    function compiled for the names (after)."""
    import dataclasses
    import random

    import pytest

    from subagents._dataclass import unfrozen_twin
    from subagents.definition import (
        _SETTER_OF,
        AgentDefinition,
        _by_setters,
        _compiled_setter,
        fields_setter,
    )

    assert isinstance(rnd, random.Random)
    names = list(changes)
    rnd.shuffle(names)  # (any order of the names)
    original = AgentDefinition(**{"name": "a", **base})  # type: ignore[arg-type]
    plain = dataclasses.replace(original, **changes)  # type: ignore[arg-type]
    values = tuple(changes[n] for n in names)
    kept = tuple(n for n in _SETTER_OF if n not in changes)
    compiled = _compiled_setter(tuple(names), kept, unfrozen_twin(AgentDefinition))
    for ours in (fields_setter(tuple(names))(original, *values), original.evolve(**changes),
                 _by_setters(original, tuple(names), kept, values),
                 compiled(original, *values)):
        assert type(ours) is AgentDefinition
        assert [getattr(ours, f.name) for f in dataclasses.fields(AgentDefinition)] == [
            getattr(plain, f.name) for f in dataclasses.fields(AgentDefinition)]
        assert ours == plain and repr(ours) == repr(plain)
        with pytest.raises(dataclasses.FrozenInstanceError):
            ours.name = "x"  # type: ignore[misc]


def test_fields_setter_refuses_what_replace_refuses() -> None:
    import pytest

    from subagents.definition import AgentDefinition, fields_setter

    for names in (("nonsense",), ("name", "name")):
        with pytest.raises(TypeError):
            fields_setter(names)
    with pytest.raises(TypeError):
        fields_setter(("name", "model"))(AgentDefinition(name="a"), "b")
    from subagents._dataclass import unfrozen_twin
    from subagents.definition import _SETTER_OF, _by_setters, _compiled_setter

    kept = tuple(n for n in _SETTER_OF if n not in ("name", "model"))
    with pytest.raises(TypeError):
        _by_setters(AgentDefinition(name="a"), ("name", "model"), kept, ("b",))
    with pytest.raises(TypeError):
        _compiled_setter(("name", "model"), kept, unfrozen_twin(AgentDefinition))(
            AgentDefinition(name="a"), "b")



def test_bun_value_remembers_only_text_keys() -> None:
    """``bun_value`` remembers how a plain key resolves only when it is text; the keys (NaN,
    numbers, null, booleans that equal numbers, text) come out as the plain walk gives them,
    the first time and from what was remembered."""
    from subagents.claude_code import bun_yaml
    from subagents.formats.yamltree import parse_yaml_tree
    from test_claude_code_equivalence import _comparable, _reference_value

    text = (".nan: 1\n.NaN: 2\nname: a\n12: b\nnull: c\n'12': d\ntools: e\ntrue: f\n"
            "0x1: g\n1: h\nnaming: i\nname: j\n")
    for _ in range(2):  # (the second time through what was remembered)
        root = parse_yaml_tree(text).root
        assert _comparable(bun_yaml.bun_value(root)) == _comparable(_reference_value(root))
    assert {"name", "tools", "naming"} <= set(bun_yaml._TEXT_KEYS)
    assert all(type(v) is str for v in bun_yaml._TEXT_KEYS.values())
    assert not {"12", "null", ".nan", "true", "0x1"} & set(bun_yaml._TEXT_KEYS)
