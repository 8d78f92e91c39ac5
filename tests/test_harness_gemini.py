"""Gemini CLI 0.61.0 dialect: each measured or source-read fact, the writer, hostile input, corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus_helpers import CORPUS
from subagents.claude_code.definition import definition_from_view
from subagents.claude_code.reader import js_trim, read_claude_code
from subagents.definition import AgentDefinition, McpServerSpec
from subagents.harnesses.base import Effect, Harness, Outcome
from subagents.harnesses.gemini import HARNESS, agent_hash, slugify, untemplate

P = Path("/p/.gemini/agents/a.md")


def read1(text: str):
    agents = HARNESS.read_text(text, P)
    assert len(agents) == 1
    return agents[0]


def md(front: str, body: str = "You review code.") -> str:
    return f"---\n{front}\n---\n{body}\n"


def test_is_a_harness() -> None:
    assert isinstance(HARNESS, Harness)
    assert (HARNESS.name, HARNESS.version, HARNESS.code_prefix) == ("gemini", "0.61.0", "GM")


def test_minimal_valid_example_loads() -> None:
    agent = read1(md("name: reviewer\ndescription: Reviews the current diff.\ntools:\n"
                     "  - read_file\n  - grep_search\n  - glob\nmax_turns: 15",
                     "You are a code reviewer."))
    assert agent.outcome is Outcome.LOADS
    assert agent.agent_id == "reviewer"
    assert agent.native_tools == ("read_file", "grep_search", "glob")
    assert agent.prompt == "You are a code reviewer."
    assert agent.model is None
    assert agent.definition is not None
    assert agent.definition.tools == ("Read", "Grep", "Glob")
    assert agent.definition.max_turns == 15


def test_claude_style_file_prints_geminis_error() -> None:
    agent = read1(md("name: claudestyle\ndescription: x\ntools: Read, Grep\ncolor: blue"))
    assert agent.outcome is Outcome.SKIPPED
    assert agent.findings[0].message == (
        f"Agent loading error: Failed to load agent from {P}: Validation failed: "
        "Agent Definition:\n(Local Agent) tools: Expected array, received string\n"
        "(Local Agent) Unrecognized key(s) in object: 'color'"
    )
    assert all(f.effect is Effect.SKIP for f in agent.findings)
    assert {f.key for f in agent.findings} == {"tools", "color"}


@pytest.mark.parametrize("key", ["color", "mcpServers", "permissionMode"])
def test_unknown_keys_reject(key: str) -> None:
    agent = read1(md(f"name: a\ndescription: x\n{key}: blue"))
    assert agent.outcome is Outcome.SKIPPED
    assert f"Unrecognized key(s) in object: '{key}'" in agent.findings[0].message
    assert agent.findings[0].line == 4


def test_name_must_be_slug() -> None:
    agent = read1(md("name: Code Reviewer\ndescription: x"))
    assert agent.outcome is Outcome.SKIPPED
    assert agent.findings[0].message.endswith("name: Name must be a valid slug")


def test_description_required_and_nonempty() -> None:
    assert "description: Required" in read1(md("name: a")).findings[0].message
    empty = read1(md("name: a\ndescription: ''"))
    assert "String must contain at least 1 character(s)" in empty.findings[0].message


@pytest.mark.parametrize(
    ("tool", "ok"),
    [("read_file", True), ("search_file_content", True), ("discovered_tool_x", True),
     ("*", True), ("mcp_*", True), ("mcp_srv_*", True), ("mcp_srv_tool", True),
     ("mcp__tool", False), ("Read", False), ("mcp_srv", False), ("invoke_agent", True),
     ("update_topic", True)],
)
def test_tool_names(tool: str, ok: bool) -> None:
    agent = read1(md(f"name: a\ndescription: x\ntools: ['{tool}']"))
    assert (agent.outcome is Outcome.LOADS) is ok
    if not ok:
        assert "tools.0: Invalid tool name" in agent.findings[0].message


def test_invoke_agent_is_never_given() -> None:
    agent = read1(md("name: a\ndescription: x\ntools: [invoke_agent, read_file]"))
    assert any(f.code == "GM023" and f.effect is Effect.DIFFERS for f in agent.findings)


def test_mcp_servers_snake_case_loads() -> None:
    agent = read1(md("name: a\ndescription: x\nmcp_servers:\n  srv:\n    command: npx\n"
                     "    args: [-y, srv]\n    timeout: 30"))
    assert agent.outcome is Outcome.LOADS
    assert agent.definition is not None
    (server,) = agent.definition.mcp_servers
    assert (server.name, server.command, server.args) == ("srv", "npx", ("-y", "srv"))
    bad = read1(md("name: a\ndescription: x\nmcp_servers:\n  srv:\n    type: stdio"))
    assert "Invalid enum value. Expected 'sse' | 'http', received 'stdio'" in bad.findings[0].message


def test_numbers_checked_like_zod() -> None:
    assert "max_turns: Number must be greater than 0" in read1(
        md("name: a\ndescription: x\nmax_turns: 0")).findings[0].message
    assert "max_turns: Expected integer, received float" in read1(
        md("name: a\ndescription: x\nmax_turns: 1.5")).findings[0].message
    assert "timeout_mins: Expected number, received string" in read1(
        md("name: a\ndescription: x\ntimeout_mins: ten")).findings[0].message


def test_temperature_parked_and_reported() -> None:
    agent = read1(md("name: a\ndescription: x\ntemperature: 0.2\ntimeout_mins: 5\n"
                     "display_name: A"))
    assert agent.outcome is Outcome.LOADS
    assert agent.definition is not None
    assert agent.definition.extra["x-gemini"] == {"temperature": 0.2, "timeout_mins": 5,
                                                  "display_name": "A"}
    assert any(f.code == "GM022" and f.effect is Effect.DIFFERS for f in agent.findings)


def test_template_placeholders() -> None:
    agent = read1(md("name: a\ndescription: x", "Run `echo ${HOME}` for ${query} on ${today}."))
    assert agent.outcome is Outcome.LOADS
    errors = [f for f in agent.findings if f.code == "GM020"]
    assert len(errors) == 1 and errors[0].effect is Effect.DIFFERS
    assert "Template validation failed: Missing required input parameters: HOME" in (
        errors[0].message)
    assert errors[0].line == 5
    assert sum(f.code == "GM021" for f in agent.findings) == 2
    # not templates for Gemini: JavaScript's \w is ASCII, and `$HOME` has no braces
    assert not [f for f in read1(md("name: a\ndescription: x", "${a-b} $HOME ${é}")).findings
                if f.code == "GM020"]


def test_frontmatter_pattern() -> None:
    assert read1("---\r\nname: a\r\ndescription: x\r\n---\r\nbody").outcome is Outcome.LOADS
    assert read1("\ufeff" + md("name: a\ndescription: x")).findings[0].code == "GM001"
    assert read1("\n" + md("name: a\ndescription: x")).outcome is Outcome.SKIPPED
    assert "Missing mandatory YAML frontmatter" in read1("no frontmatter").findings[0].message
    # the block closes at the first line that *starts* with ---
    assert read1("---\nname: a\ndescription: x\n---- rest").prompt == ""


def test_yaml_12_not_11() -> None:
    agent = read1(md("name: on\ndescription: yes"))
    assert agent.outcome is Outcome.LOADS and agent.description == "yes"
    dup = read1(md("name: a\nname: b\ndescription: x"))
    assert dup.outcome is Outcome.SKIPPED and "YAML frontmatter parsing failed" in (
        dup.findings[0].message)
    date = read1(md("name: a\ndescription: 2024-01-01"))
    assert "description: Expected string, received date" in date.findings[0].message


def test_remote_agents() -> None:
    text = ("---\n- name: r1\n  agent_card_url: https://example.com/card\n"
            "- name: r2\n  agent_card_json: '{\"a\": 1}'\n---\n")
    agents = HARNESS.read_text(text, P)
    assert [a.agent_id for a in agents] == ["r1", "r2"]
    assert all(a.outcome is Outcome.LOADS for a in agents)
    single = read1(md("kind: remote\nname: r\nagent_card_url: https://x.example/card"))
    assert single.outcome is Outcome.LOADS and single.prompt is None
    bad = read1(md("kind: remote\nname: r\nagent_card_json: 'not json'"))
    assert "agent_card_json must be valid JSON" in bad.findings[0].message


def _project(tmp_path: Path, files: dict[str, str], user: dict[str, str] | None = None):
    project, home = tmp_path / "proj", tmp_path / "home"
    for scope_root, entries in ((project, files), (home, user or {})):
        folder = scope_root / ".gemini" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in entries.items():
            (folder / name).write_text(text, encoding="utf-8")
    return project, home


def _acknowledge(project: Path, home: Path, names: dict[str, str]) -> None:
    ack = home / ".gemini" / "acknowledgments" / "agents.json"
    ack.parent.mkdir(parents=True, exist_ok=True)
    ack.write_text(json.dumps({str(project): {n: agent_hash(t) for n, t in names.items()}}))


def test_discovery_is_one_level_md_not_underscore(tmp_path: Path) -> None:
    good = md("name: a\ndescription: x")
    project, home = _project(tmp_path, {"a.md": good, "_draft.md": good, "b.txt": good})
    (project / ".gemini" / "agents" / "sub").mkdir()
    (project / ".gemini" / "agents" / "sub" / "c.md").write_text(good)
    (project / ".gemini" / "agents" / "link.md").symlink_to(project / ".gemini/agents/a.md")
    assert [p.name for p in HARNESS.discover(project, home)] == ["a.md"]
    assert HARNESS.claims(project / ".gemini/agents/a.md")
    assert not HARNESS.claims(project / ".gemini/agents/_a.md")
    assert not HARNESS.claims(project / ".gemini/agents/sub/a.md")


def test_unacknowledged_project_agent_is_not_loaded(tmp_path: Path) -> None:
    text = md("name: reviewer\ndescription: x")
    project, home = _project(tmp_path, {"reviewer.md": text})
    (agent,) = HARNESS.load_all(project, home)
    assert agent.outcome is Outcome.SKIPPED
    assert agent.findings[0].code == "GM010" and agent.findings[0].hint
    _acknowledge(project, home, {"reviewer": text})
    assert HARNESS.load_all(project, home)[0].outcome is Outcome.LOADS
    # an edit changes the hash: not loaded again until acknowledged
    (project / ".gemini/agents/reviewer.md").write_text(text + "edit\n")
    assert HARNESS.load_all(project, home)[0].outcome is Outcome.SKIPPED
    untrusted = HARNESS.load_all(project, home, trusted=False)[0]
    assert untrusted.findings[0].code == "GM011"


def test_first_registered_wins(tmp_path: Path) -> None:
    proj_text = md("name: reviewer\ndescription: project")
    builtin_clash = md("name: generalist\ndescription: mine")
    project, home = _project(
        tmp_path, {"reviewer.md": proj_text},
        {"reviewer.md": md("name: reviewer\ndescription: user"), "g.md": builtin_clash,
         "b.md": md("name: browser_agent\ndescription: ok")},
    )
    _acknowledge(project, home, {"reviewer": proj_text})
    agents = HARNESS.load_all(project, home)
    loaded = [(a.agent_id, a.description) for a in agents if a.outcome is Outcome.LOADS]
    assert loaded == [("reviewer", "project"), ("browser_agent", "ok")]
    dups = [f for a in agents for f in a.findings if f.code == "GM012"]
    assert len(dups) == 2
    assert "Duplicate agent name 'reviewer' detected. The later definition will be ignored." in (
        dups[-1].message + dups[0].message)


# ---------------------------------------------------------------- writer


def _roundtrip(definition: AgentDefinition):
    written = HARNESS.write(definition)
    agents = HARNESS.read_text(written.text, Path("/p") / written.relpath)
    assert len(agents) == 1, written.text
    assert agents[0].outcome is Outcome.LOADS, (written.text, agents[0].findings)
    assert not [f for f in agents[0].findings if f.code == "GM020"], written.text
    return written, agents[0]


def test_writer_translates_and_strips() -> None:
    definition = AgentDefinition(
        name="Code Reviewer", description="Reviews.", system_prompt="Use ${HOME} and ${query}.",
        tools=("Read", "Grep", "Bash(git diff:*)", "NotebookEdit", "mcp__gh__search"),
        color="blue", permission_mode="plan", model="sonnet", max_turns=7,
        mcp_servers=(McpServerSpec(name="gh", command="npx"),
                     McpServerSpec(name="ref", reference=True)),
        extra={"x-gemini": {"temperature": 0.3, "timeout_mins": 4}},
    )
    written, agent = _roundtrip(definition)
    assert written.relpath == ".gemini/agents/code-reviewer.md"
    assert any("acknowledge" in note for note in written.notes)
    assert agent.native_tools == ("read_file", "read_many_files", "grep_search",
                                  "run_shell_command", "mcp_gh_search")
    assert agent.prompt == "Use $HOME and ${query}."
    assert "color" not in written.text and "permissionMode" not in written.text
    assert "model" not in agent.native  # a Claude alias means nothing to Gemini
    assert agent.native["max_turns"] == 7 and agent.native["temperature"] == 0.3
    assert list(agent.native["mcp_servers"]) == ["gh"]  # type: ignore[call-overload]
    assert agent.native["display_name"] == "Code Reviewer"


def test_writer_inherit_all_and_denylist() -> None:
    _, agent = _roundtrip(AgentDefinition(name="a", description="d"))
    assert agent.native_tools is None and "tools" not in agent.native
    _, denied = _roundtrip(AgentDefinition(name="a", description="d",
                                           disallowed_tools=("Bash", "Write")))
    assert denied.native_tools is not None
    assert "run_shell_command" not in denied.native_tools
    assert "write_file" not in denied.native_tools and "read_file" in denied.native_tools


def test_writer_remote_roundtrip() -> None:
    (agent,) = HARNESS.read_text(md("kind: remote\nname: r\nagent_card_url: https://x.example/c"))
    assert agent.definition is not None
    _, back = _roundtrip(agent.definition)
    assert back.native["agent_card_url"] == "https://x.example/c"


def test_untemplate() -> None:
    assert untemplate("${A}${query}${${B}}") == "$A${query}${$B}"
    assert slugify("Ünïcode Agent!") == "n-code-agent"
    assert slugify("C++ Expert") == "c-expert"  # never `---`: it would end a Claude frontmatter


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=_text.filter(lambda s: s.strip()), description=_text, body=_text,
       tools=st.none() | st.lists(st.sampled_from(
           ["Read", "Write", "Bash", "Task", "Foo", "mcp__s__t", "*", "WebFetch"]), max_size=4))
def test_writer_fuzz_always_loads(name: str, description: str, body: str,
                                  tools: list[str] | None) -> None:
    definition = AgentDefinition(name=name, description=description, system_prompt=body,
                                 tools=tuple(tools) if tools is not None else None)
    _, agent = _roundtrip(definition)
    assert agent.description == (description or name)
    assert agent.prompt == js_trim(untemplate(body))
    assert agent.definition is not None
    if tools is None or "*" in tools:
        assert agent.native_tools is None


@settings(max_examples=300, deadline=None)
@given(value=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_yaml_dump_reads_back_as_written(value: str) -> None:
    from subagents.harnesses import _yaml12

    assert _yaml12.load(_yaml12.dump({"k": value})) == {"k": value}
    assert _yaml12.load(_yaml12.dump({"k": value}), with_timestamps=False) == {"k": value}


# ---------------------------------------------------------------- hostile input


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01\x02binary\xff" * 100,
        "---\n" + "a: " * 1 + "[" * 5000 + "\n---\n",
        "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(300)) + "---\n",
        "---\n- 1\n- 2\n---\n",
        "---\n42\n---\n",
        "---\n&a [*a, *a]\n---\n",
        "---\nname: a\ndescription: x\n---\n" + "x" * 3_000_000,
    ],
)
def test_hostile_never_raises(text: str) -> None:
    agents = HARNESS.read_text(text, P)
    assert agents and all(a.findings or a.outcome is Outcome.LOADS for a in agents)


# ---------------------------------------------------------------- corpus


def _corpus_definitions() -> list[tuple[Path, AgentDefinition]]:
    out = []
    for path in sorted(CORPUS.rglob("*.md")):
        if path.name == "README.md":
            continue
        data = path.read_bytes()
        view = read_claude_code(data)
        if view.loaded:
            out.append((path, definition_from_view(view, path=path)))
    return out


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not on this machine")
def test_corpus_as_is_and_converted() -> None:
    defs = _corpus_definitions()
    assert len(defs) > 300
    loads_as_is = 0
    for path, definition in defs:
        text = path.read_bytes().decode("utf-8", "replace")
        as_is = HARNESS.read_text(text, path)
        loads_as_is += all(a.outcome is Outcome.LOADS for a in as_is)
        _roundtrip(definition)
    print(f"\nGemini CLI would load {loads_as_is} of {len(defs)} corpus agents as they are")
    assert loads_as_is < len(defs)  # Claude files carry tools strings and colours
