"""The Copilot CLI 1.0.102 dialect: each fact measured by running the CLI, the writer's round
trips, fuzzing, hostile files and the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subagents.claude_code.definition import definition_from_view
from subagents.claude_code.reader import read_claude_code
from subagents.definition import AgentDefinition, McpServerSpec
from subagents.errors import DefinitionError
from subagents.harnesses.base import Effect, Harness, HarnessAgent, Outcome
from subagents.harnesses.copilot import HARNESS, MAX_PROMPT

AGENT = Path("/p/.github/agents/a.agent.md")


def read1(text: str, path: Path = AGENT) -> HarnessAgent:
    agents = HARNESS.read_text(text, path)
    assert len(agents) == 1
    return agents[0]


def test_is_a_harness() -> None:
    assert isinstance(HARNESS, Harness)
    assert (HARNESS.name, HARNESS.version, HARNESS.code_prefix) == ("copilot", "1.0.102", "CP")


# ----------------------------------------------------------------- skipped files (log only) [run]


@pytest.mark.parametrize(("text", "reason"), [
    ("---\ndescription: Use this agent: when broken\n---\nb\n",
     "failed to parse YAML frontmatter: mapping values are not allowed in this context at "
     "line 1 column 28"),
    ("---\nname: x\n---\nb\n", "description: Required"),
    ("no frontmatter\n", "missing or malformed YAML frontmatter"),
    ("---\n- a\n---\nb", "missing or malformed YAML frontmatter"),
])
def test_bad_files_are_skipped_with_the_log_line(text: str, reason: str) -> None:
    agent = read1(text)
    assert agent.outcome is Outcome.SKIPPED and agent.agent_id is None
    (finding,) = agent.findings
    assert finding.effect is Effect.SKIP
    assert finding.message == ("Copilot CLI 1.0.102 skips this file; the reason appears only in "
                               "its log file: custom agent markdown frontmatter is malformed: "
                               + reason)


def test_unknown_fields_warn_and_behaviour_fields_are_errors() -> None:
    agent = read1("---\ndescription: d\ncolor: blue\npermissionMode: plan\nmaxTurns: 3\n---\nb")
    assert agent.outcome is Outcome.LOADS
    effects = {f.key: f.effect for f in agent.findings}
    assert effects == {"color": Effect.PORTABILITY, "permissionMode": Effect.DIFFERS,
                       "maxTurns": Effect.DIFFERS}
    assert "unknown fields ignored: color, permissionMode, maxTurns" in agent.findings[0].message


# ----------------------------------------------------------------- ids [run]


def test_ids() -> None:
    text = "---\ndescription: d\n---\nb"
    assert read1(text, Path("/p/.github/agents/sub/nested.agent.md")).agent_id == "sub--nested"
    assert read1(text, Path("/p/.github/agents/plain.md")).agent_id == "plain"
    named = read1("---\nname: Fancy Display Name\ndescription: d\n---\nb")
    assert named.agent_id == "Fancy Display Name"
    other = read1("---\nname: other-name\ndescription: d\n---\nb",
                  Path("/p/.claude/agents/namediff.md"))
    assert other.agent_id == "other-name"


def test_claude_file_loads_with_its_fields_judged() -> None:
    agent = read1("---\nname: rev\ndescription: d\ntools: Read, Grep\nmodel: haiku\n---\nBody.\n",
                  Path("/p/.claude/agents/rev.md"))
    assert agent.outcome is Outcome.LOADS
    assert agent.native_tools == ("view", "grep")  # no glob [run]
    assert agent.model == "haiku" and agent.prompt == "Body."
    assert agent.definition is not None and agent.definition.tools == ("Read", "Grep")


# ----------------------------------------------------------------- tools [run]


@pytest.mark.parametrize(("tools", "expected"), [
    ("[read]", ("view",)),
    ("[edit]", ("create", "edit")),
    ("[search]", ("grep", "glob")),
    ("[execute]", ("bash", "read_bash", "stop_bash", "list_bash")),
    ("[agent]", ("task", "read_agent", "list_agents", "write_agent")),
    ("[web]", ("web_fetch",)),
    ("[todo]", ("update_todo",)),
    ("[READ, Search]", ("view", "grep", "glob")),
    ("read, nosuchtool", ("view",)),
    ("[]", ()),
    ('["*"]', None),
    ("[github/*, read]", ("github/*", "view")),
])
def test_tool_aliases_expand_as_measured(tools: str, expected: tuple[str, ...] | None) -> None:
    agent = read1(f"---\ndescription: d\ntools: {tools}\n---\nb")
    assert agent.outcome is Outcome.LOADS
    assert agent.native_tools == expected
    dropped = [f for f in agent.findings if f.code == "CP008"]
    assert bool(dropped) == ("nosuchtool" in tools)


def test_manual_only_agents_load_but_are_not_offered() -> None:
    for field in ("disable-model-invocation: true", "infer: false"):
        agent = read1(f"---\ndescription: d\n{field}\n---\nb")
        assert agent.outcome is Outcome.LOADS and agent.delegable is False
        assert agent.findings[-1].effect is Effect.INFO
    still = read1("---\ndescription: d\nuser-invocable: false\n---\nb")
    assert still.delegable is True


def test_prompt_over_the_limit() -> None:
    agent = read1("---\ndescription: d\n---\n" + "x" * (MAX_PROMPT + 1))
    assert agent.outcome is Outcome.SKIPPED
    assert read1("---\ndescription: d\n---\n" + "x" * MAX_PROMPT).outcome is Outcome.LOADS


# ----------------------------------------------------------------- discovery and precedence [run]


def test_discovery_and_precedence(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    files = [
        home / ".copilot/agents/reviewer.agent.md",
        project / ".github/agents/reviewer.agent.md",
        project / ".github/agents/sub/nested.agent.md",
        project / ".github/agents/plain.md",
        project / ".claude/agents/reviewer.md",
        home / ".claude/agents/user-claude.md",
        project / ".claude/agents/deeper/no.md",
    ]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("---\ndescription: d\n---\nb\n")
    found = list(HARNESS.discover(project, home))
    assert set(found) == set(files[:5])
    # the user copy first, then .github/agents, then .claude/agents
    assert found.index(files[0]) < found.index(files[1]) < found.index(files[4])
    assert files[5] not in found and files[6] not in found
    ranks = [loc.rank for loc in HARNESS.locations(project, home)]
    assert ranks == sorted(ranks)
    assert all(HARNESS.claims(f) for f in files[:5])
    assert not HARNESS.claims(project / "docs/agents.md")


# ----------------------------------------------------------------- writer


def test_writer_minimal_example() -> None:
    out = HARNESS.write(AgentDefinition(
        name="reviewer", description="Reviews the current diff.", system_prompt="You review.",
        tools=("Read", "Grep", "Glob")))
    assert out.relpath == ".github/agents/reviewer.agent.md"
    assert "name: reviewer" in out.text and "tools: [read, search]" in out.text
    back = read1(out.text, Path("/p") / out.relpath)
    assert back.agent_id == "reviewer" and back.native_tools == ("view", "grep", "glob")


def test_writer_keeps_a_single_search_tool_precise() -> None:
    out = HARNESS.write(AgentDefinition(name="r", description="d", tools=("Read", "Grep")))
    back = read1(out.text, Path("/p") / out.relpath)
    assert back.definition is not None and back.definition.tools == ("Read", "Grep")


def test_writer_round_trip_parked_and_mcp() -> None:
    text = ("---\nname: r\ndescription: d\ntarget: vscode\ndisable-model-invocation: true\n"
            "metadata: {team: x}\nmcp-servers:\n  gh:\n    type: local\n    command: gh-mcp\n"
            "    args: [serve]\n    tools: ['*']\ntools: [read, gh/*]\n---\nBody\n")
    first = read1(text, Path("/p/.github/agents/r.agent.md"))
    assert first.definition is not None
    assert first.definition.mcp_servers[0].command == "gh-mcp"
    out = HARNESS.write(first.definition)
    again = read1(out.text, Path("/p") / out.relpath)
    assert again.native == first.native or again.native["mcp-servers"] == first.native["mcp-servers"]
    assert again.delegable is False and again.native_tools == first.native_tools
    assert again.definition is not None and again.definition.extra == first.definition.extra


def test_writer_names_and_limits() -> None:
    out = HARNESS.write(AgentDefinition(name="Fancy Name", description=""))
    back = read1(out.text, Path("/p") / out.relpath)
    assert back.agent_id == "Fancy-Name" and out.relpath.endswith("/Fancy-Name.agent.md")
    assert out.notes
    with pytest.raises(DefinitionError, match="30,000"):
        HARNESS.write(AgentDefinition(name="x", description="d",
                                      system_prompt="y" * (MAX_PROMPT + 1)))
    ref = HARNESS.write(AgentDefinition(name="x", description="d", tools=("Read",),
                                        mcp_servers=(McpServerSpec(name="srv", reference=True),)))
    assert read1(ref.text).native_tools == ("view", "srv/*")


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(description=_text.filter(lambda s: s.strip() != ""), body=_text,
       name=st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
       model=st.one_of(st.none(), _text),
       tools=st.one_of(st.none(), st.lists(st.sampled_from(
           ["Read", "Write", "Edit", "Bash", "Grep", "Glob", "WebFetch", "TodoWrite", "Task",
            "mcp__s__t", "Bash(git diff:*)", "Unknown"]), max_size=6)))
def test_fuzz_writer_output_always_loads(description: str, body: str, name: str,
                                         model: str | None, tools: list[str] | None) -> None:
    defn = AgentDefinition(name=name, description=description, system_prompt=body, model=model,
                           tools=None if tools is None else tuple(tools))
    out = HARNESS.write(defn)
    back = read1(out.text, Path("/p") / out.relpath)
    assert back.outcome is Outcome.LOADS and back.agent_id == name
    assert back.description == description and back.prompt == body.strip()
    assert back.model == (model if model and model != "inherit" else None)


# ----------------------------------------------------------------- hostile files


@pytest.mark.parametrize("text", [
    "\x00\x01binary\xff", "---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n",
    "---\na: &a [*a]\n---\n", "---\ndescription: 5\n---\n", "---\ndescription: [1]\n---\n",
    "---\ndescription: d\ntools: 5\n---\n", "---\ndescription: d\nmcp-servers: [1]\n---\n",
    "---", "", "---\n---\n", "x" * 11_000_000,
])
def test_hostile_files_never_raise(text: str) -> None:
    agent = read1(text)
    assert agent.outcome in (Outcome.LOADS, Outcome.SKIPPED)


# ----------------------------------------------------------------- the shared corpus


def test_corpus_claude_agents_convert_to_copilot(corpus: Path) -> None:
    converted = too_long = as_is = 0
    for path in sorted(corpus.rglob("*.md")):
        data = path.read_bytes()
        view = read_claude_code(data)
        if not view.loaded:
            continue
        copied = read1(data.decode("utf-8", errors="replace"), Path("/p/.claude/agents") / path.name)
        as_is += copied.outcome is Outcome.LOADS
        defn = definition_from_view(view, path=path)
        if len(defn.system_prompt.strip()) > MAX_PROMPT:
            with pytest.raises(DefinitionError):
                HARNESS.write(defn)
            too_long += 1
            continue
        out = HARNESS.write(defn)
        back = read1(out.text, Path("/p") / out.relpath)
        assert back.outcome is Outcome.LOADS, path
        converted += 1
    print(f"\nCopilot corpus: {converted} converted and loaded; {too_long} prompts over "
          f"{MAX_PROMPT:,} characters; {as_is} load as they are from .claude/agents")
    assert converted > 400
