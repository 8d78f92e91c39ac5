"""Qwen Code 0.24.4 dialect: each measured or bundle-read fact, the writer, hostile input, corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus_helpers import CORPUS
from subagents.claude_code.definition import definition_from_view
from subagents.claude_code.reader import read_claude_code
from subagents.definition import AgentDefinition, McpServerSpec
from subagents.harnesses.base import Effect, Harness, Outcome
from subagents.harnesses.qwen import HARNESS, parse_simple, resolve_tool

P = Path("/p/.qwen/agents/a.md")
BODY = "You review code carefully."


def read1(text: str):
    (agent,) = HARNESS.read_text(text, P)
    return agent


def md(front: str, body: str = BODY) -> str:
    return f"---\n{front}\n---\n{body}\n"


def codes(agent) -> list[str]:
    return [f.code for f in agent.findings]


def test_is_a_harness() -> None:
    assert isinstance(HARNESS, Harness)
    assert (HARNESS.name, HARNESS.version, HARNESS.code_prefix) == ("qwen", "0.24.4", "QW")


def test_claude_tools_read_grep_gives_only_grep_search() -> None:
    agent = read1(md("name: reviewer\ndescription: x\ntools: Read, Grep\nmodel: haiku"))
    assert agent.outcome is Outcome.LOADS
    assert agent.native_tools == ("grep_search",)
    assert agent.model == "haiku"  # passed through verbatim
    dropped = [f for f in agent.findings if f.code == "QW011"]
    assert len(dropped) == 1 and "`Read`" in dropped[0].message
    assert dropped[0].effect is Effect.DIFFERS and dropped[0].hint == "write `read_file`"


@pytest.mark.parametrize(
    ("entry", "native"),
    [("read_file", "read_file"), ("ReadFile", "read_file"), ("Shell", "run_shell_command"),
     ("WriteFile", "write_file"), ("ListFiles", "list_directory"), ("Edit", "edit"),
     ("Task", "agent"), ("TodoWrite", "todo_write"), ("mcp__gh__x", "mcp__gh__x"),
     ("Read", None), ("Bash", None), ("LS", None), ("Write", None), ("MultiEdit", None)],
)
def test_tool_resolution(entry: str, native: str | None) -> None:
    assert resolve_tool(entry) == native


@pytest.mark.parametrize(
    ("front", "message"),
    [
        ("description: x", 'Missing "name" in frontmatter'),
        ("name: ab", 'Missing "description" in frontmatter'),
        ("name: main\ndescription: x", '"main" is a reserved name'),
        ("name: a\ndescription: x", "Name must be at least 2 characters long"),
        ("name: -ab\ndescription: x", "Name cannot start with a hyphen or underscore"),
        ("name: a b\ndescription: x", "Name can only contain letters"),
        ("name: ab\ndescription: x\napprovalMode: banana", 'Invalid "approvalMode" value'),
        ("name: ab\ndescription: x\nmodel: 'openai:'", "must include a model ID"),
    ],
)
def test_bad_files_are_skipped_silently(front: str, message: str) -> None:
    agent = read1(md(front))
    assert agent.outcome is Outcome.SKIPPED
    assert "Qwen Code 0.24.4 skips this file without a word" in agent.findings[0].message
    assert message in agent.findings[0].message


def test_short_prompt_and_no_frontmatter() -> None:
    assert "at least 10 characters" in read1(md("name: ab\ndescription: x", "short")).findings[
        0].message
    assert read1("no frontmatter").findings[0].code == "QW001"
    # the closing --- must be followed by a line break
    assert read1("---\nname: ab\ndescription: x\n---").outcome is Outcome.SKIPPED
    assert read1("\ufeff---\r\nname: ab\r\ndescription: x\r\n---\r\n" + BODY).outcome is (
        Outcome.LOADS)


def test_unquoted_colon_falls_back_to_line_parser() -> None:
    agent = read1(md("name: ab\ndescription: Use this: when asked"))
    assert agent.outcome is Outcome.LOADS
    assert agent.description == "Use this: when asked"
    assert "QW018" in codes(agent)
    assert parse_simple("tools:\n  - a\n  - b\nn: 3\nq: \"x\"") == {
        "tools": ["a", "b"], "n": 3, "q": "x"}


def test_color_allowlist() -> None:
    assert read1(md("name: ab\ndescription: x\ncolor: cyan")).native["color"] == "cyan"
    agent = read1(md("name: ab\ndescription: x\ncolor: magenta"))
    assert agent.outcome is Outcome.LOADS and "QW010" in codes(agent)
    assert agent.definition is not None and agent.definition.color is None


@pytest.mark.parametrize(
    ("mode", "approval"),
    [("default", "default"), ("plan", "plan"), ("acceptEdits", "auto-edit"),
     ("auto", "auto-edit"), ("bypassPermissions", "yolo"), ("dontAsk", "default")],
)
def test_permission_mode_maps_to_approval_mode(mode: str, approval: str) -> None:
    agent = read1(md(f"name: ab\ndescription: x\npermissionMode: {mode}"))
    assert agent.native["approvalMode"] == approval
    assert agent.definition is not None and agent.definition.permission_mode == mode


def test_fields_dropped_or_ignored() -> None:
    agent = read1(md("name: ab\ndescription: x\npermissionMode: banana\nmaxTurns: 0\n"
                     "effort: high\nskills: [x]\nmcpServers: [github]\nbackground: maybe"))
    assert agent.outcome is Outcome.LOADS
    assert {"QW012", "QW013", "QW014", "QW015", "QW017"} <= set(codes(agent))
    assert all(f.effect is Effect.DIFFERS for f in agent.findings)
    good = read1(md("name: ab\ndescription: x\nmaxTurns: '5'\nbackground: true\n"
                    "disallowedTools: [Bash, Shell]"))
    assert good.definition is not None
    assert good.definition.max_turns == 5 and good.definition.background is True
    assert good.definition.disallowed_tools == ("Bash",)  # Shell resolved; Bash dropped


def _home_project(tmp_path: Path, files: dict[str, str], user: dict[str, str]):
    project, home = tmp_path / "proj", tmp_path / "home"
    for root, entries in ((project, files), (home, user)):
        folder = root / ".qwen" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in entries.items():
            (folder / name).write_text(text)
    return project, home


def test_discovery_precedence_and_home(tmp_path: Path) -> None:
    project, home = _home_project(
        tmp_path,
        {"reviewer.md": md("name: reviewer\ndescription: project"), "x.txt": "",
         "general.md": md("name: general-purpose\ndescription: mine")},
        {"reviewer.md": md("name: reviewer\ndescription: user")},
    )
    (project / ".qwen/agents/nested").mkdir()
    (project / ".qwen/agents/nested/n.md").write_text(md("name: nested\ndescription: x"))
    agents = HARNESS.load_all(project, home)
    loaded = [(a.agent_id, a.description) for a in agents if a.outcome is Outcome.LOADS]
    assert loaded == [("general-purpose", "mine"), ("reviewer", "project")]
    assert "QW021" in codes(agents[-1]) and "QW022" in codes(agents[0])
    assert HARNESS.claims(project / ".qwen/agents/a.md")
    assert not HARNESS.claims(project / ".claude/agents/a.md")
    # project root == home: the project folder is not read
    assert [loc.scope for loc in HARNESS.locations(home, home)] == ["user"]


def _roundtrip(definition: AgentDefinition):
    written = HARNESS.write(definition)
    agent = read1(written.text)
    assert agent.outcome is Outcome.LOADS, (written.text, agent.findings)
    return written, agent


def test_writer() -> None:
    definition = AgentDefinition(
        name="Code Reviewer", description="Reviews.", system_prompt=BODY,
        tools=("Read", "Grep", "Bash(git:*)", "LS"), disallowed_tools=("Write",),
        color="magenta", permission_mode="acceptEdits", max_turns=4, model="opus",
        background=True, effort="high",
        mcp_servers=(McpServerSpec(name="gh", command="npx"),
                     McpServerSpec(name="ref", reference=True)),
    )
    written, agent = _roundtrip(definition)
    assert written.relpath == ".qwen/agents/Code-Reviewer.md"
    assert agent.native_tools == ("read_file", "grep_search", "run_shell_command",
                                  "list_directory")
    assert not [f for f in agent.findings if f.effect is Effect.DIFFERS]
    assert "color" not in agent.native and agent.native["approvalMode"] == "auto-edit"
    assert agent.native["maxTurns"] == 4 and "model" not in agent.native
    assert list(agent.native["mcpServers"]) == ["gh"]  # type: ignore[call-overload]
    assert agent.definition is not None
    assert agent.definition.disallowed_tools == ("Write",)


def test_writer_no_tools_and_short_prompt() -> None:
    written, agent = _roundtrip(AgentDefinition(name="x", description="", tools=()))
    assert agent.native_tools == ("todo_write",) and written.notes
    assert agent.agent_id == "x-agent"


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=_text, description=_text, body=_text,
       tools=st.none() | st.lists(st.sampled_from(
           ["Read", "Write", "Bash", "Task", "Foo", "mcp__s__t", "*", "Grep"]), max_size=4),
       color=st.none() | st.sampled_from(["blue", "magenta", "auto"]))
def test_writer_fuzz_always_loads(name: str, description: str, body: str,
                                  tools: list[str] | None, color: str | None) -> None:
    _, agent = _roundtrip(AgentDefinition(
        name=name or "n", description=description, system_prompt=body, color=color,
        tools=tuple(tools) if tools is not None else None))
    assert not [f for f in agent.findings if f.code in ("QW010", "QW011")]


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01binary\xff" * 100,
        "---\nname: ab\ndescription: x\nk: " + "[" * 5000 + "\n---\n" + BODY,
        "---\n- 1\n- 2\n---\n" + BODY,
        "---\n42\n---\n" + BODY,
        "---\nname: ab\ndescription: x\n---\n" + "x" * 3_000_000,
    ],
)
def test_hostile_never_raises(text: str) -> None:
    agent = read1(text)
    assert agent.findings or agent.outcome is Outcome.LOADS


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not on this machine")
def test_corpus_converted_loads() -> None:
    total = as_is = 0
    for path in sorted(CORPUS.rglob("*.md")):
        view = read_claude_code(path.read_bytes())
        if not view.loaded or path.name == "README.md":
            continue
        total += 1
        as_is += read1(path.read_bytes().decode("utf-8", "replace")).outcome is Outcome.LOADS
        _roundtrip(definition_from_view(view, path=path))
    print(f"\nQwen Code would load {as_is} of {total} corpus agents as they are")
    assert total > 300
