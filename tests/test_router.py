"""Router: tokenising, keyword routing, BM25 ranking, explanations, similarity warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagents.definition import AgentDefinition
from subagents.dispatch.router import Router, find_similar_agents, stem, tokenize

CORPUS = Path("/work/shared/corpus/0xfurai__claude-code-subagents/files/agents")


def agent(name: str, description: str = "", body: str = "", keywords: tuple[str, ...] = ()) -> AgentDefinition:
    return AgentDefinition(name=name, description=description, system_prompt=body, keywords=keywords)


AGENTS = [
    agent("code-reviewer", "Reviews code changes for quality, readability and bugs."),
    agent("security-auditor", "Deep security analysis: OWASP checks, dependency audit, auth flows."),
    agent("researcher", "Researches the codebase to answer questions; read-only."),
    agent("react-native-expert", "Builds mobile apps with React Native."),
    agent("react-expert", "Builds web front ends with React hooks and components."),
    agent("deployer", "Ships releases.", keywords=("deploy", "release train")),
]


def test_stem_folds_inflections_consistently() -> None:
    assert stem("testing") == stem("tests") == stem("tester") == stem("test")
    assert stem("reviews") == stem("review") == stem("reviewing")
    assert stem("api") == "api"  # short words untouched


def test_tokenize_keeps_language_names_and_joined_forms() -> None:
    toks = tokenize("Port my C++ and C# code to Node.js on .NET")
    assert {"cpp", "csharp", "nodejs", "dotnet", "node"} <= set(toks)
    assert "my" not in toks and "and" not in toks


def test_route_ranks_by_name_and_description() -> None:
    r = Router(AGENTS)
    top = r.route("Please review my recent code changes", top=3)
    assert top[0].agent.name == "code-reviewer"
    assert top[0].score > (top[1].score if len(top) > 1 else 0)


def test_adjacent_words_join_to_find_compound_names() -> None:
    r = Router(AGENTS)
    names = [m.agent.name for m in r.route("make my react native app start faster", top=2)]
    assert names[0] == "react-native-expert"
    assert names[1] == "react-expert"


def test_keyword_phrase_is_a_hard_signal_and_is_explained() -> None:
    r = Router(AGENTS)
    top = r.route("get the release train moving", top=1)[0]
    assert top.agent.name == "deployer"
    assert any("keyword match 'release train'" in w for w in top.why)
    # A keyword's words out of order are not the phrase.
    m = r.explain("train the release", "deployer")
    assert m is not None and not any(w.startswith("keyword match") for w in m.why)


def test_result_unpacks_as_agent_score_why() -> None:
    agent_, score, why = Router(AGENTS).route("security audit of the auth flow", top=1)[0]
    assert agent_.name == "security-auditor" and score > 0 and why


def test_no_match_returns_nothing_and_empty_router_is_fine() -> None:
    assert Router(AGENTS).route("zzzz qqqq", top=3) == []
    assert Router([]).route("anything") == []


def test_why_names_fields_and_words() -> None:
    m = Router(AGENTS).route("security audit", top=1)[0]
    assert any(w.startswith("name: secur") for w in m.why)
    assert "audit" in m.terms


def test_similar_descriptions_are_flagged_and_distinct_ones_are_not() -> None:
    a = agent("py-tester", "Writes unit tests for Python code with pytest and fixtures.")
    b = agent("python-tester", "Writes unit tests for Python code using pytest fixtures.")
    c = agent("docs-writer", "Writes user documentation and tutorials in Markdown.")
    pairs = find_similar_agents([a, b, c], threshold=0.7)
    assert [(x.name, y.name) for x, y, _ in pairs] == [("py-tester", "python-tester")]
    assert 0.7 <= pairs[0][2] <= 1.0
    assert find_similar_agents([a, c], threshold=0.7) == []


def test_similarity_skips_empty_descriptions_and_same_names() -> None:
    a = agent("x-one", "Formats SQL.")
    assert find_similar_agents([a, a.evolve(path=Path("other.md")), agent("y", "")]) == []


@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not present")
def test_real_collection_routes_obvious_requests() -> None:
    import re

    import yaml

    defs = []
    for p in sorted(CORPUS.glob("*.md")):
        m = re.match(r"\s*---\s*\n(.*?)\n\s*---\s*\n(.*)", p.read_text(), re.S)
        assert m, p
        fm = yaml.safe_load(m.group(1))
        defs.append(agent(fm["name"], str(fm["description"]), m.group(2)))
    r = Router(defs)
    assert r.route("my kafka consumer group keeps rebalancing", top=1)[0].agent.name == "kafka-expert"
    assert r.route("write a multi-stage Dockerfile", top=1)[0].agent.name == "docker-expert"
    # No two of these narrowly-scoped agents are near-duplicates at a strict threshold.
    assert all(s < 0.95 for _, _, s in find_similar_agents(defs, threshold=0.9))


def test_single_letter_language_names_route() -> None:
    r = Router([agent("c-expert", "Systems programming in C."),
                agent("kotlin-expert", "Kotlin programs for the JVM.")])
    assert r.route("find the memory leak in my C program", top=1)[0].agent.name == "c-expert"


def test_keyword_route_picks_the_single_best_or_nothing() -> None:
    a = agent("deployer", keywords=("deploy", "release train"))
    b = agent("rollbacker", keywords=("rollback", "deploy"))
    r = Router([a, b])
    assert r.keyword_route("deploy the release train") is a
    assert r.keyword_route("deploy it") is None  # a tie: the model decides
    assert r.keyword_route("roll back the deploy via rollback") is b
    assert r.keyword_route("nothing relevant") is None


def test_derived_forms_share_a_stem_with_their_root() -> None:
    from subagents.dispatch.router import stem

    assert stem("implementer") == stem("implement") == stem("implements")
    assert stem("testers") == stem("testing") == stem("test")
    assert stem("reviewer") == stem("reviews")
