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
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence

from subagents._dataclass import dataclass
from subagents.definition import AgentDefinition
from subagents.diagnostics import Diagnostic
from subagents.harnesses.table import same_name_rule
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


#: pairs of similar agents of one scope, by :func:`similar_key` of its members: indices into
#: the members and the score (kept by the validate result cache between runs)
SimilarMemo = dict[str, list[list[float]]]


@check("SA601", "SA602")
def check_scope(agents: Iterable[ScopedAgent], *, similar: bool = True,
                memo: SimilarMemo | None = None) -> Iterator[Diagnostic]:
    """``memo``: earlier answers of the pairwise comparison, reused only for a scope whose
    members have exactly the same names and descriptions in the same order (and filled)."""
    by_scope: dict[str, list[ScopedAgent]] = defaultdict(list)
    for a in agents:
        by_scope[a.scope].append(a)
    for members in by_scope.values():
        yield from _duplicates(members)
        if similar and 1 < len(members) <= MAX_SIMILAR_SCOPE:
            yield from _similar(members, memo)


def similar_key(members: Sequence[ScopedAgent]) -> str:
    """Everything the similar-description comparison reads, hashed."""
    import hashlib

    # each member's text encoded on its own, the bytes joined and hashed once: the same
    # bytes, so the same key, as an update per member (UTF-8 encodes each code point on its
    # own, lone surrogates too); one text beyond Latin-1 no longer makes the whole scope's
    # joined text a wide string encoded by the slower wide encoder
    data = b"".join([f"{a.definition.name}\x00{a.definition.description}\x01".encode(
        "utf-8", "surrogatepass") for a in members])
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _duplicates(members: list[ScopedAgent]) -> Iterator[Diagnostic]:
    # names counted in C first: most scopes have no name twice, and then nothing more is done
    counts = Counter([a.definition.name for a in members])
    if len(counts) == len(members):
        return
    by_name: dict[str, list[ScopedAgent]] = {
        name: [] for name, n in counts.items() if n > 1 and name.strip()}
    for a in members:
        found = by_name.get(a.definition.name)
        if found is not None:
            found.append(a)
    for name, same in by_name.items():
        if all(same_name_rule(a.definition.dialect.value) == "last" for a in same):
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


def _similar_pairs(members: list[ScopedAgent]) -> list[tuple[int, int, float]] | None:
    finder = _similar_finder()
    if finder is None:
        return None
    index = {id(a.definition): i for i, a in enumerate(members)}
    try:
        pairs = finder([a.definition for a in members])
    except Exception:  # advisory rule: a router bug must not break validation
        return None
    out: list[tuple[int, int, float]] = []
    for left, right, score in pairs:
        i, j = index.get(id(left)), index.get(id(right))
        if i is not None and j is not None:
            out.append((i, j, score))
    return out


def _similar(members: list[ScopedAgent], memo: SimilarMemo | None = None) -> Iterator[Diagnostic]:
    key = similar_key(members) if memo is not None else ""
    known = memo.get(key) if memo is not None else None
    pairs: list[tuple[int, int, float]] | None = None
    if known is not None:
        try:
            pairs = [(int(i), int(j), float(score)) for i, j, score in known]
        except (TypeError, ValueError):
            pairs = None
        if pairs is not None and any(not (0 <= i < len(members) and 0 <= j < len(members))
                                     for i, j, _ in pairs):
            pairs = None
    if pairs is None:
        pairs = _similar_pairs(members)
        if pairs is None:
            return
        if memo is not None:
            memo[key] = [[i, j, score] for i, j, score in pairs]
    for i, j, score in pairs:
        a, b = members[i], members[j]
        for this, other in ((a, b), (b, a)):
            yield make_diagnostic(
                "SA602",
                this.path,
                (this.line, this.column),
                f"the description of {this.definition.name!r} is {score:.0%} like that of "
                f"{other.definition.name!r} ({other.path}); routing cannot tell them apart",
                "make each description say what only that agent does",
            )
