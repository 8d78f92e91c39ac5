"""The Task tool spec, name matching, input parsing and per-agent tools."""

from __future__ import annotations

import functools
import re
from types import SimpleNamespace

import pytest

from subagents.definition import AgentDefinition, Scope
from subagents.dispatch.explicit import parse_explicit
from subagents.dispatch.task_tool import (
    DELEGATION_BUILTINS,
    GENERAL_PURPOSE,
    TaskInputError,
    agent_listing,
    agent_tool_definitions,
    agent_tool_map,
    build_task_tool,
    normalize_agent_name,
    parse_task_input,
    resolve_agent,
    with_builtins,
)


def agent(name: str, description: str = "does things", **kw: object) -> AgentDefinition:
    return AgentDefinition(name=name, description=description, **kw)  # type: ignore[arg-type]


REVIEWER = agent("code-reviewer", "Reviews code for quality.", tools=("Read", "Grep"))
AUDITOR = agent("security-auditor", "Audits security.", disallowed_tools=("Write", "Edit"))


def listed(defs: list[AgentDefinition], **kw: object) -> SimpleNamespace:
    """The agent listing over ``defs`` and the built-ins, as ``.description``."""
    return SimpleNamespace(description=agent_listing(with_builtins(defs), **kw))  # type: ignore[arg-type]


def test_agent_tool_schema_and_the_listing_in_the_conversation() -> None:
    spec = build_task_tool([REVIEWER, AUDITOR])
    assert spec.name == "Agent"
    assert "code-reviewer" not in spec.description  # agents are listed in the conversation
    assert "system reminders" in spec.description and "SendMessage" in spec.description
    props = spec.input_schema["properties"]
    assert set(props) == {"description", "prompt", "subagent_type", "model", "effort",
                          "run_in_background", "isolation"}
    assert spec.input_schema["required"] == ["description", "prompt"]
    assert props["model"]["enum"][:4] == ["sonnet", "opus", "haiku", "fable"]
    assert props["run_in_background"]["type"] == "boolean"
    with_table = build_task_tool([], model_aliases=["sonnet", "local-coder", "default"])
    assert with_table.input_schema["properties"]["model"]["enum"][-1] == "local-coder"
    text = agent_listing(with_builtins([REVIEWER, AUDITOR, agent("doc-helper", "Docs.")],
                                       DELEGATION_BUILTINS))
    lines = text.splitlines()
    assert lines[0] == "Available agent types for the Agent tool:"
    names = [line[2:].split(":")[0] for line in lines[1:]]
    assert names == sorted(names, key=str.casefold)  # sorted ignoring case
    assert names == ["claude", "code-reviewer", "doc-helper", "Explore", "general-purpose",
                     "Plan", "security-auditor", "statusline-setup"]
    assert "- code-reviewer: Reviews code for quality. (Tools: Read, Grep)" in lines
    assert "- security-auditor: Audits security. (Tools: All tools except Write, Edit)" in lines
    assert "- doc-helper: Docs. (Tools: All tools)" in lines  # an agent of yours, no tools:
    assert any(x.startswith("- general-purpose: ") and x.endswith("(Tools: *)") for x in lines)
    assert any(x.startswith("- statusline-setup: ") and x.endswith("(Tools: Read, Edit)")
               for x in lines)
    # the older form, with the listing in the description, is still there for agent teams
    old = build_task_tool([REVIEWER], listing_in_description=True).description
    assert "- code-reviewer: Reviews code for quality. (Tools: Read, Grep)" in old


def test_parse_task_input_reads_run_in_background() -> None:
    assert parse_task_input({"prompt": "p"}).run_in_background is None
    assert parse_task_input({"prompt": "p", "run_in_background": False}).run_in_background is False
    assert parse_task_input({"prompt": "p", "run_in_background": "true"}).run_in_background
    with pytest.raises(TaskInputError, match="run_in_background"):
        parse_task_input({"prompt": "p", "run_in_background": 3})
    # Claude Code's other habitual inputs are accepted, not refused
    call = parse_task_input({"prompt": "p", "effort": "high", "isolation": "worktree"})
    assert call.subagent_type == "general-purpose"


def test_project_agent_overrides_builtin_general_purpose() -> None:
    mine = agent("General_Purpose", "My own general agent.", tools=("Read",))
    agents = with_builtins([mine])
    assert [a.name for a in agents] == ["General_Purpose", "Explore", "Plan"]
    assert agents[0] is mine
    assert GENERAL_PURPOSE in with_builtins([REVIEWER])
    assert GENERAL_PURPOSE.source is Scope.BUILTIN and GENERAL_PURPOSE.tools is None
    # Explore and Plan are read-only built-ins (REFERENCE.md), overridable the same way
    explore = next(a for a in with_builtins([]) if a.name == "Explore")
    assert "Write" in (explore.disallowed_tools or ()) and "Edit" in (explore.disallowed_tools or ())
    assert [a.name for a in with_builtins([agent("explore", "Mine.")])] == [
        "explore", "general-purpose", "Plan"]


@pytest.mark.parametrize("typed", ["code-reviewer", "Code Reviewer", "CODE_REVIEWER", "codereviewer"])
def test_names_match_ignoring_case_and_separators(typed: str) -> None:
    assert resolve_agent(typed, [AUDITOR, REVIEWER]) is REVIEWER


def test_unknown_name_resolves_to_nothing_and_plugin_names_work() -> None:
    assert resolve_agent("code-critic", [REVIEWER]) is None
    plug = agent("lint", plugin="tools")
    assert resolve_agent("tools:lint", [plug]) is plug
    assert normalize_agent_name(" A-b_c.d e ") == "abcde"


def test_budget_shortlists_by_request_and_says_so() -> None:
    many = [agent(f"lang-{i:03d}-expert", f"Expert in language number {i}. " + "x" * 200)
            for i in range(100)]
    many.append(agent("kafka-expert", "Kafka streams, partitions and consumer groups."))
    spec = listed(many, query="my kafka consumer group lags", budget_chars=3000)
    d = spec.description
    assert "- kafka-expert:" in d  # the relevant one made the shortlist
    assert "- general-purpose:" in d  # always listed
    m = re.search(r"Only (\d+) of (\d+) agents are listed", d)
    assert m and int(m.group(2)) == 104 and int(m.group(1)) < 104
    assert "most relevant to the current request" in d
    # Everything fits: no note.
    assert "Only" not in listed([REVIEWER]).description


def test_budget_keeps_pinned_agent() -> None:
    many = [agent(f"a{i:03d}", "y" * 250) for i in range(80)]
    spec = listed(many, query="anything", budget_chars=2000, pinned=["a079"])
    assert "- a079:" in spec.description


def test_parse_task_input_checks_prompt_and_defaults_type() -> None:
    call = parse_task_input({"description": "x", "prompt": "do it", "subagent_type": " Code Reviewer "})
    assert call.subagent_type == "Code Reviewer" and call.prompt == "do it"
    assert parse_task_input({"prompt": "p"}).subagent_type == "general-purpose"
    assert parse_task_input({"prompt": "p"}, default_agent="lint").subagent_type == "lint"
    for bad in ({"subagent_type": "x"}, {"prompt": "   "}, {"prompt": 3}):
        with pytest.raises(TaskInputError, match="missing 'prompt'"):
            parse_task_input(bad)
    with pytest.raises(TaskInputError, match="model"):
        parse_task_input({"prompt": "p", "model": 5})


def test_agent_tools_have_api_safe_unique_names() -> None:
    a = agent("tools:lint.py", "Lints.")
    b = agent("tools_lint_py", "Also lints.")
    long = agent("x" * 100, "Long.")
    specs = agent_tool_definitions([REVIEWER, a, b, long])
    names = [s.name for s in specs]
    assert names[0] == "agent__code-reviewer"
    assert len(set(names)) == 4
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in names)
    assert agent_tool_map([REVIEWER])["agent__code-reviewer"] is REVIEWER
    assert "Reviews code for quality." in specs[0].description
    assert specs[0].input_schema["required"] == ["prompt"]


AGENT_NAMES = ["code-reviewer", "security-auditor", "researcher"]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Use the code-reviewer agent to check this PR", "code-reviewer"),
        ("use the Code Reviewer subagent on my diff", "code-reviewer"),
        ("Please ask the security auditor agent about tokens", "security-auditor"),
        ("@researcher how does caching work?", "researcher"),
        ("@agent-code-reviewer look at main.py", "code-reviewer"),
        ("First use the trusty researcher agent, then fix it", "researcher"),
        ("have the researcher agent look, then use the code-reviewer agent", "researcher"),
    ],
)
def test_explicit_invocation_pins_known_agents(prompt: str, expected: str) -> None:
    hit = parse_explicit(prompt, AGENT_NAMES)
    assert hit is not None and hit.agent == expected


@pytest.mark.parametrize(
    "prompt",
    ["Review my code", "email bob@researcher.com", "use the new agent framework", "@nobody hi"],
)
def test_explicit_invocation_ignores_non_mentions(prompt: str) -> None:
    hit = parse_explicit(prompt, AGENT_NAMES)
    assert hit is None or hit.agent is None
    if prompt.startswith("use the new"):
        assert hit is None


def test_explicit_unknown_agent_is_reported_not_pinned() -> None:
    hit = parse_explicit("Use the code-critic agent to check this", AGENT_NAMES)
    assert hit is not None and hit.agent is None and hit.requested == "code-critic"


@pytest.mark.parametrize("budget", [4000, 12_000])
def test_description_stays_within_budget_on_a_real_collection(corpus: object, budget: int) -> None:
    from pathlib import Path

    defs = _furai(Path(str(corpus)) / "0xfurai__claude-code-subagents")
    assert len(defs) > 100
    d = listed(defs, query="my kafka consumer group keeps rebalancing",
                        budget_chars=budget).description
    assert len(d) <= budget
    assert "- kafka-expert:" in d and "- general-purpose:" in d
    assert re.search(r"Only \d+ of 140 agents are listed", d)
    full = listed(defs, budget_chars=10**6).description
    assert "Only" not in full
    assert sum(1 for line in full.splitlines() if line.endswith(")") and "(Tools: " in line) == 140


@functools.cache
def _furai(folder: object) -> list[AgentDefinition]:
    from pathlib import Path

    from subagents.harnesses.loader import read_agent_file

    return [d for p in sorted(Path(str(folder)).rglob("*.md"))
            if (d := read_agent_file(p).definition) is not None]


def test_long_and_clashing_agent_names_become_distinct_api_safe_tool_names() -> None:
    # Names that only differ after the 64th character, or only in characters the APIs
    # refuse, must still give distinct tool names that Anthropic and OpenAI both accept.
    stem_ = "very-long-agent-name-for-a-team-that-names-things-verbosely-"
    defs = [agent(stem_ + "frontend"), agent(stem_ + "backend"), agent(stem_ + "database"),
            agent("ünïcode agent"), agent("unicode_agent"), agent("plug:a.b")]
    tools = agent_tool_map(defs)
    assert len(tools) == len(defs)
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in tools)
    assert [d.name for d in tools.values()] == [d.name for d in defs]  # nothing lost


def test_general_purpose_is_listed_as_claude_code_lists_it() -> None:
    # REFERENCE.md: "- name: description (Tools: ...)"; Claude Code writes "*" for all tools.
    line = next(x for x in listed([REVIEWER]).description.splitlines()
                if x.startswith("- general-purpose: "))
    assert line.endswith("(Tools: *)")


def test_two_hundred_agents_stay_within_the_budget_and_name_the_rest() -> None:
    many = [agent(f"role-{i:03d}", f"Handles area {i}: " + "detail " * 30) for i in range(200)]
    d = listed(many, query="area 7 needs work").description
    assert len(d) <= 12_000
    shown = [x for x in d.splitlines() if x.startswith("- ") and "(Tools: " in x]
    assert 1 < len(shown) < 201 and any(x.startswith("- general-purpose: ") for x in shown)
    m = re.search(r"Only (\d+) of 203 agents are listed", d)
    assert m and int(m.group(1)) == len(shown)
