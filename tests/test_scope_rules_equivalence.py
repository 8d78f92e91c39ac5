"""The scope rules' shortcuts give what their plain forms give.

``rules.scope.similar_key`` hashes one joined string instead of updating the hash per member
(the result cache keeps SA602's pairs under that key: a different key would throw the cache
away), and the duplicate-name rule counts the names before grouping them.  These tests hold
both to the plain versions they replaced, on generated scopes with hostile names (blank,
spaces, NUL, lone surrogates, case variants) and mixed dialects.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import defaultdict
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic
from subagents.harnesses.table import same_name_rule
from subagents.lint.rules import scope
from subagents.lint.rules.catalog import rule
from subagents.lint.rules.scope import ScopedAgent, similar_key

_NAMES = ["a", "A", "b", "", " ", "a ", "x\x00y", "\ud800", "é", "reviewer"]
_TEXT = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(["\ud800", "\udfff", "\x00",
                                                                     "\x01"])), max_size=30)


@st.composite
def _members(draw: st.DrawFn) -> list[ScopedAgent]:
    out = []
    for i in range(draw(st.integers(0, 14))):
        name = draw(st.one_of(st.sampled_from(_NAMES), _TEXT))
        dialect = draw(st.sampled_from([Dialect.CLAUDE, Dialect.CLAUDE, Dialect.CODEX_MD,
                                        Dialect.GEMINI]))
        defn = AgentDefinition(name=name, description=draw(_TEXT), dialect=dialect)
        out.append(ScopedAgent(defn, f"/p/f{i}.md", 1 + i, 1, "s"))
    return out


def _plain_key(members: list[ScopedAgent]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in members:
        h.update(f"{a.definition.name}\x00{a.definition.description}\x01".encode(
            "utf-8", "surrogatepass"))
    return h.hexdigest()


def _plain_duplicates(members: list[ScopedAgent]) -> Iterator[Diagnostic]:
    """The rule as it was: every member grouped by name, then the groups of two or more."""
    by_name: dict[str, list[ScopedAgent]] = defaultdict(list)
    for a in members:
        if a.definition.name.strip():
            by_name[a.definition.name].append(a)
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        if all(same_name_rule(a.definition.dialect.value) == "last" for a in same):
            yield from scope._claude_code_duplicates(name, same)
            continue
        for i, a in enumerate(same):
            rest = (o for j, o in enumerate(same) if j != i)
            others = [f"{o.path}:{o.line}" for o in itertools.islice(rest, 3)]
            more = f" and {len(same) - 4} more" if len(same) > 4 else ""
            yield rule("SA601").templated(
                "clash", a.path, a.line, a.column,
                "rename one agent (the `name` field, not the file name) or delete one file",
                name=name, others=", ".join(others) + more)


@settings(max_examples=300, deadline=None)
@given(_members())
def test_similar_key_equals_a_hash_update_per_member(members: list[ScopedAgent]) -> None:
    assert similar_key(members) == _plain_key(members)


@settings(max_examples=300, deadline=None)
@given(_members())
def test_duplicates_equal_grouping_every_member(members: list[ScopedAgent]) -> None:
    ours = [d.to_dict() for d in scope._duplicates(members)]
    assert ours == [d.to_dict() for d in _plain_duplicates(members)]


def test_duplicates_are_found_at_all() -> None:
    """Not vacuous: a scope with a name three times and a blank name twice."""
    members = [ScopedAgent(AgentDefinition(name=n, dialect=Dialect.GEMINI), f"/p/{i}.md", 1, 1,
                           "s") for i, n in enumerate(["a", "b", "a", " ", " ", "a"])]
    found = list(scope._duplicates(members))
    assert [d.path for d in found] == ["/p/0.md", "/p/2.md", "/p/5.md"]
    assert [d.to_dict() for d in found] == [d.to_dict() for d in _plain_duplicates(members)]
