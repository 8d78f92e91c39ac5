"""SA6xx: rules about a whole scope (every agent of one folder / one harness scope).

Design notes
------------
* ``SA601`` duplicate names: Claude Code (2.1.330, measured) keeps the last path in code-unit
  order and says so only in its debug log; we report each file it ignores, naming the one it
  uses (the registry's message).  In other dialects both files are reported.  Names are
  compared exactly: the harness keeps two agents that differ in case.
* ``SA602`` similar descriptions: the router reads descriptions the same way
  (``subagents.lint.similarity.find_similar_agents``); the rule is advisory.
  The comparison is pairwise, so scopes of more than ``MAX_SIMILAR_SCOPE`` agents are not
  compared (no harness shows that many to a model).
* A duplicate names at most three other files, then "and N more": a folder of copies must
  not produce quadratic output.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic
from subagents.lint.rules.base import make_diagnostic
from subagents.lint.rules.catalog import check, rule

__all__ = ["MAX_SIMILAR_SCOPE", "ScopedAgent", "check_scope"]

MAX_SIMILAR_SCOPE = 200


@dataclass(frozen=True, slots=True)
class ScopedAgent:
    """A definition plus where it was found: ``scope`` groups agents that share one namespace."""

    definition: AgentDefinition
    path: str
    line: int
    column: int
    scope: str


SimilarFinder = Callable[
    [Sequence[AgentDefinition]], list[tuple[AgentDefinition, AgentDefinition, float]]
]


def _similar_finder() -> SimilarFinder | None:
    from subagents.lint.similarity import find_similar_agents

    finder: SimilarFinder = find_similar_agents
    return finder


@check("SA601", "SA602")
def check_scope(agents: Iterable[ScopedAgent], *, similar: bool = True) -> Iterator[Diagnostic]:
    by_scope: dict[str, list[ScopedAgent]] = defaultdict(list)
    for a in agents:
        by_scope[a.scope].append(a)
    for members in by_scope.values():
        yield from _duplicates(members)
        if similar and 1 < len(members) <= MAX_SIMILAR_SCOPE:
            yield from _similar(members)


def _duplicates(members: list[ScopedAgent]) -> Iterator[Diagnostic]:
    by_name: dict[str, list[ScopedAgent]] = defaultdict(list)
    for a in members:
        if a.definition.name.strip():
            by_name[a.definition.name].append(a)
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        if all(a.definition.dialect is Dialect.CLAUDE for a in same):
            yield from _claude_code_duplicates(name, same)
            continue
        for i, a in enumerate(same):
            rest = (o for j, o in enumerate(same) if j != i)
            others = [f"{o.path}:{o.line}" for o in itertools.islice(rest, 3)]
            more = f" and {len(same) - 4} more" if len(same) > 4 else ""
            yield rule("SA601").templated(
                "clash", a.path, a.line, a.column,
                "rename one agent (the `name` field, not the file name) or delete one file",
                name=name, others=", ".join(others) + more)


def _claude_code_duplicates(name: str, same: list[ScopedAgent]) -> Iterator[Diagnostic]:
    """Claude Code keeps the last path in code-unit order: the others are reported, with the
    message the registry gives (``list``, ``doctor``)."""
    from subagents.claude_code.profile import get_profile
    from subagents.claude_code.scan import code_unit_key
    from subagents.lint.rules.claude_code import duplicate_diagnostic

    ordered = sorted(
        same, key=lambda a: code_unit_key(str(a.definition.path or a.path))
    )
    winner = ordered[-1]
    scope = winner.definition.source.value if winner.definition.source else "project"
    for loser in ordered[:-1]:
        yield duplicate_diagnostic(
            loser.path, name, winner.path, scope, get_profile().label, loser.line
        )


def _similar(members: list[ScopedAgent]) -> Iterator[Diagnostic]:
    finder = _similar_finder()
    if finder is None:
        return
    index = {id(a.definition): a for a in members}
    try:
        pairs = finder([a.definition for a in members])
    except Exception:  # advisory rule: a router bug must not break validation
        return
    for left, right, score in pairs:
        a, b = index.get(id(left)), index.get(id(right))
        if a is None or b is None:
            continue
        for this, other in ((a, b), (b, a)):
            yield make_diagnostic(
                "SA602",
                this.path,
                (this.line, this.column),
                f"the description of {this.definition.name!r} is {score:.0%} like that of "
                f"{other.definition.name!r} ({other.path}); routing cannot tell them apart",
                "make each description say what only that agent does",
            )
