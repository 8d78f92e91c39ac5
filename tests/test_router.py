"""Router: tokenising, keyword routing, BM25 ranking, explanations, similarity warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_helpers import FURAI, VOLT, needs_corpus
from subagents.definition import AgentDefinition
from subagents.dispatch.router import Router, find_similar_agents, stem, tokenize

FURAI_AGENTS = FURAI / "files" / "agents"


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


@needs_corpus
def test_real_collection_routes_obvious_requests() -> None:
    import re

    import yaml

    defs = []
    for p in sorted(FURAI_AGENTS.glob("*.md")):
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


def test_ation_ate_ating_ator_forms_share_a_stem() -> None:
    # "compiling takes 25 minutes" must meet an agent about "compilation times".
    assert stem("compilation") == stem("compile") == stem("compiling")
    assert stem("automation") == stem("automate") == stem("automated") == stem("automating")
    assert stem("generator") == stem("generate") == stem("generation")
    assert stem("validation") == stem("validates")


def test_a_generic_word_in_a_name_earns_less_name_bonus() -> None:
    # "manage" is in most descriptions here, so "context-manager" must not win a request
    # about sensors just because its name contains the word.
    topics = ["invoices", "tickets", "builds", "logs", "users", "queues", "caches", "backups"]
    agents = [agent(f"{t}-helper", f"Manage and tidy {t}; manage their lifecycle.")
              for t in topics]
    agents += [
        agent("context-manager", "Keeps shared context files for workflows in order."),
        agent("iot-engineer", "Runs sensor fleets: sensors in the field, firmware over the air."),
    ]
    r = Router(agents)
    assert r.route("manage ten thousand sensors", top=1)[0].agent.name == "iot-engineer"
    # A word the descriptions rarely use still counts fully in a name.
    assert r.route("tidy the shared context", top=1)[0].agent.name == "context-manager"


def test_a_bare_number_does_not_pick_a_versioned_agent() -> None:
    agents = [
        agent("dotnet-framework-4.8-expert", "Legacy .NET Framework 4.8 applications."),
        agent("performance-engineer", "Finds why pages load slowly and fixes bottlenecks.",
              body="Measure load time, latency and slow requests."),
    ]
    r = Router(agents)
    assert r.route("the page takes 8 seconds to load, it is slow", top=1)[0].agent.name == (
        "performance-engineer")
    # With the technology word, the version still helps.
    assert r.route("migrate our .NET Framework 4.8 app", top=1)[0].agent.name == (
        "dotnet-framework-4.8-expert")


def test_why_terms_add_up_to_the_score() -> None:
    r = Router(AGENTS)
    for text in ("security audit of the auth flow", "deploy the release train on 3 servers",
                 "review my react native code"):
        for m in r.route(text, top=3):
            assert sum(m.terms.values()) == pytest.approx(m.score, rel=1e-6, abs=1e-9), text


@needs_corpus
def test_similarity_threshold_flags_real_overlaps_not_the_demo_project() -> None:
    from subagents.dispatch.router import SIMILAR_THRESHOLD
    from subagents.harnesses.loader import read_agent_file

    defs = [d for p in sorted(VOLT.rglob("*.md"))
            if (d := read_agent_file(p).definition) is not None]
    pairs = {frozenset((a.name, b.name)) for a, b, _ in find_similar_agents(defs)}
    assert frozenset(("mobile-developer", "mobile-app-developer")) in pairs
    assert frozenset(("deployment-engineer", "devops-engineer")) in pairs
    assert 0 < len(pairs) <= 12  # a warning, not noise over 158 agents
    demo = Path(__file__).resolve().parents[1] / "examples" / "demo-project" / ".claude" / "agents"
    demo_defs = [d for p in sorted(demo.glob("*.md"))
                 if (d := read_agent_file(p).definition) is not None]
    assert len(demo_defs) == 9  # release-notes.md is not YAML: no parser reads it
    assert find_similar_agents(demo_defs) == []
    assert max(s for *_, s in find_similar_agents(demo_defs, threshold=0.0)) < SIMILAR_THRESHOLD


def test_why_names_the_users_words_not_their_stems() -> None:
    r = Router([agent("code-reviewer", "Reviews pull requests before they are merged."),
                agent("docs-writer", "Writes documentation.")])
    m = r.route("please review before merging", top=1)[0]
    text = "; ".join(m.why)
    assert "merging" in text and "review" in text
    assert "merg " not in text and "merg (" not in text
    assert set(m.terms) >= {"merging", "review"}
