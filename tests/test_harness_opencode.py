"""The OpenCode 1.18.33 dialect: each fact measured with `opencode agent list` or read in its
binary, the writer's round trips, fuzzing, hostile files and the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subagents.claude_code.definition import definition_from_view
from subagents.claude_code.reader import read_claude_code
from subagents.definition import AgentDefinition, McpServerSpec
from subagents.harnesses.base import Effect, Harness, Outcome
from subagents.harnesses.graymatter import opencode_parse, sanitize
from subagents.harnesses.jsonc import JsoncError, loads
from subagents.harnesses.opencode import HARNESS, OpenCode

AGENT = Path("/p/.opencode/agents/a.md")


def read1(text: str, path: Path = AGENT):  # type: ignore[no-untyped-def]
    agents = HARNESS.read_text(text, path)
    assert len(agents) == 1
    return agents[0]


def fatal_lines(text: str) -> list[str]:
    agent = read1(text)
    assert agent.outcome is Outcome.FATAL
    (finding,) = agent.findings
    assert finding.effect is Effect.FATAL
    assert f"Configuration is invalid at {AGENT}" in finding.message
    return [line[2:] for line in finding.message.splitlines() if line.startswith("↳ ")]


def test_is_a_harness() -> None:
    assert isinstance(HARNESS, Harness)
    assert (HARNESS.name, HARNESS.version, HARNESS.code_prefix) == ("opencode", "1.18.33", "OC")


# ----------------------------------------------------------------- fatal schema errors [run]


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        ("description: x\ntools: Read, Grep, Glob\ncolor: blue",
         ['Expected object | undefined, got "Read, Grep, Glob" tools',
          'Expected a string matching the RegExp ^#[0-9a-fA-F]{6}$, got "blue" color',
          'Expected "primary" | "secondary" | "accent" | "success" | "warning" | "error" | '
          '"info", got "blue" color']),
        ("description:\nmode: subagent", ["Expected string | undefined, got null description"]),
        ("description: x\nsteps: 0", ["Expected a value greater than 0, got 0 steps"]),
        ("description: x\nmaxSteps: 3\nsteps: 2.5", ["Expected an integer, got 2.5 steps"]),
        ("name: renamed\ndescription: x\ntemperature: hot",
         ['Expected number | undefined, got "hot" temperature']),
        ("description: yes\nhidden: yes", ['Expected boolean | undefined, got "yes" hidden']),
        ("description: x\ntools:\n  bash: yes", ['Expected boolean, got "yes" tools.bash']),
    ],
)
def test_schema_errors_stop_opencode(frontmatter: str, expected: list[str]) -> None:
    assert fatal_lines(f"---\n{frontmatter}\n---\nbody\n") == expected


def test_permission_errors_name_the_key() -> None:
    lines = fatal_lines('---\ndescription: x\npermission:\n  webfetch: {"*": deny}\n'
                        "  bash: nope\n---\nbody\n")
    assert set(lines) == {
        'Expected PermissionActionConfig | undefined, got {"*":"deny"} permission.webfetch',
        'Expected PermissionActionConfig, got "nope" permission.bash',
    }


def test_legacy_mode_file_with_a_schema_error_is_dropped_not_fatal() -> None:
    text = "---\ndescription: x\nmode: subagent\ncolor: blue\n---\nbody\n"
    agent = read1(text, Path("/p/.opencode/mode/m.md"))
    assert agent.outcome is Outcome.SKIPPED
    good = read1("---\ndescription: y\n---\nbody\n", Path("/p/.opencode/modes/n.md"))
    assert good.outcome is Outcome.LOADS and good.agent_id == "n"
    assert good.native["mode"] == "primary" and good.delegable is False


# ----------------------------------------------------------------- YAML, sanitizer, ids [run]


def test_unquoted_colon_loads_through_the_sanitizer() -> None:
    agent = read1("---\ndescription: Use this agent: when broken\nmode: subagent\n---\nbody\n")
    assert agent.outcome is Outcome.LOADS
    assert agent.description == "Use this agent: when broken"
    assert agent.native["mode"] == "subagent" and agent.prompt == "body"
    assert any(f.code == "OC011" for f in agent.findings)


def test_sanitizer_matches_opencode() -> None:
    text = "---\ndescription: a: b\nfoo-bar: c: d\n  indented: e: f\nquoted: 'x: y'\n---\nB"
    assert sanitize(text) == (
        "---\ndescription: |-\n  a: b\nfoo-bar: c: d\n  indented: e: f\nquoted: 'x: y'\n---\nB")


def test_yaml_the_sanitizer_cannot_fix_is_skipped_silently() -> None:
    agent = read1("---\ndescription: a: b\ndescription: c\nmode: subagent\n---\nbody\n")
    assert agent.outcome is Outcome.SKIPPED and agent.agent_id is None
    assert agent.findings[0].effect is Effect.SKIP


@pytest.mark.parametrize("text", [
    "---\ndescription: a\ndescription: b\nmode: subagent\n---\nbody\n",  # duplicate key
    "---\ndescription: [unclosed\nmode: subagent\n---\nbody\n",
    "--- foo\ndescription: x\nmode: subagent\n---\nbody\n",  # unknown gray-matter language
])
def test_yaml_the_sanitizer_leaves_alone_loads_with_no_frontmatter(text: str) -> None:
    agent = read1(text)
    assert agent.outcome is Outcome.LOADS and agent.agent_id == "a"
    assert agent.native.get("mode") is None and agent.delegable  # mode all
    assert agent.prompt == text.strip()
    assert any(f.code == "OC010" and f.effect is Effect.DIFFERS for f in agent.findings)


def test_no_frontmatter_and_scalar_frontmatter_load() -> None:
    assert read1("no frontmatter here\n").outcome is Outcome.LOADS
    scalar = read1("---\njust a string\n---\nbody\n")
    assert scalar.outcome is Outcome.LOADS and scalar.agent_id == "a" and scalar.prompt == "body"


def test_ids_nested_and_renamed() -> None:
    nested = read1("---\ndescription: n\nmode: subagent\n---\nb\n",
                   Path("/p/.opencode/agents/sub/nested.md"))
    assert nested.agent_id == "sub/nested"
    assert read1("---\nname: renamed-by-field\n---\nb", AGENT).agent_id == "renamed-by-field"
    assert read1("---\nname: 12\ndescription: x\n---\nb", AGENT).agent_id == "12"
    dot = read1("---\ndescription: x\n---\nb", Path("/p/.opencode/agent/.hidden.md"))
    assert dot.agent_id == ".hidden"


def test_description_optional_primary_and_disable() -> None:
    none = read1("---\nmode: subagent\n---\nb")
    assert none.outcome is Outcome.LOADS and none.description is None
    assert any(f.code == "OC007" for f in none.findings)
    primary = read1("---\ndescription: x\nmode: primary\n---\nb")
    assert primary.outcome is Outcome.LOADS and primary.delegable is False
    hidden = read1("---\ndescription: x\nhidden: true\nmode: subagent\n---\nb")
    assert hidden.delegable is True  # hidden only hides it from @ autocomplete
    off = read1("---\ndescription: x\ndisable: true\nmode: subagent\n---\nb")
    assert off.outcome is Outcome.SKIPPED and off.findings[-1].effect is Effect.INFO


def test_js_yaml_scalars() -> None:
    parsed = opencode_parse("---\na: yes\nb: 010\nc: 1e3\nd: 1:30\nf: .5\ng: 0x1F\nh: '1e3'\n---\n")
    assert not isinstance(parsed, type(None))
    assert parsed.data == {"a": "yes", "b": 8, "c": 1000.0, "d": 90,  # type: ignore[union-attr]
                           "f": 0.5, "g": 31, "h": "1e3"}


def test_unknown_keys_become_options() -> None:
    agent = read1("---\ndescription: x\nreasoningEffort: high\n---\nb")
    assert agent.outcome is Outcome.LOADS
    assert any(f.code == "OC008" and f.key == "reasoningEffort" for f in agent.findings)
    assert agent.definition is not None
    assert agent.definition.extra["x-opencode"]["options"] == {"reasoningEffort": "high"}


# ----------------------------------------------------------------- tools [run]


def test_tools_map_and_permission_give_the_measured_tool_lists() -> None:
    off = read1("---\ndescription: x\ntools:\n  write: false\n  edit: false\n  bash: false\n---\nb")
    assert off.native_tools == ("glob", "grep", "read", "skill", "webfetch")
    perm = read1('---\ndescription: x\npermission:\n  edit: deny\n  bash: {"git *": allow}\n---\nb')
    assert perm.native_tools == ("bash", "glob", "grep", "read", "skill", "webfetch")
    assert perm.definition is not None
    assert perm.definition.tools == ("Bash", "Glob", "Grep", "Read", "Skill", "WebFetch")
    assert read1("---\ndescription: x\n---\nb").native_tools is None


# ----------------------------------------------------------------- JSON agents


def test_json_agents(tmp_path: Path) -> None:
    text = ('{\n // c\n "agent": {"j": {"description": "json one", "mode": "subagent", '
            '"prompt": "hi",}, /* x */ "k": {"steps": 3},},\n}\n')
    agents = HARNESS.read_text(text, tmp_path / "opencode.jsonc")
    assert [(a.agent_id, a.outcome) for a in agents] == [("j", Outcome.LOADS), ("k", Outcome.LOADS)]
    assert agents[0].prompt == "hi" and agents[1].definition is not None
    assert agents[1].definition.max_turns == 3


def test_json_schema_and_syntax_errors_are_fatal(tmp_path: Path) -> None:
    bad = HARNESS.read_text('{"agent": {"j": {"tools": "a,b"}}}', tmp_path / "opencode.json")
    assert bad[0].outcome is Outcome.FATAL
    assert 'got "a,b" agent.j.tools' in bad[0].findings[0].message
    broken = HARNESS.read_text('{"agent": {"j": {"description": "x"}}', tmp_path / "opencode.json")
    assert broken[0].outcome is Outcome.FATAL and "JSON(C)" in broken[0].findings[0].message
    assert HARNESS.read_text('{"model": "x/y"}', tmp_path / "opencode.json") == []


@pytest.mark.parametrize("text", ["[1,]", '{"a": "//not a comment", }', '{"a": 1 /* c */ }',
                                  '// only\n{"a": [1, 2,],}'])
def test_jsonc_edge_cases(text: str) -> None:
    assert loads(text) is not None


@pytest.mark.parametrize("text", ['{"a": 1', "{,}", "[" * 500 + "]" * 500, '{"a": "x\n"}'])
def test_jsonc_errors_are_clean(text: str) -> None:
    with pytest.raises(JsoncError):
        loads(text)


# ----------------------------------------------------------------- discovery and precedence


def test_discovery_and_precedence(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    files = [
        project / ".opencode/agents/reviewer.md", project / ".opencode/agent/x.md",
        project / ".opencode/agents/sub/nested.md", project / ".opencode/agents/.dot.md",
        project / ".opencode/modes/legacy.md", project / "opencode.json",
        home / ".config/opencode/agent/reviewer.md", project / ".opencode/agents/no.txt",
        project / ".claude/agents/claude.md",
    ]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("---\ndescription: x\n---\nb\n")
    found = HARNESS.discover(project, home)
    assert project / ".claude/agents/claude.md" not in found  # not read [run]
    assert project / ".opencode/agents/no.txt" not in found
    for f in files[:7]:
        assert f in found
    assert found.index(files[0]) < found.index(files[6])  # project before global
    ranks = {loc.path: loc.rank for loc in HARNESS.locations(project, home)}
    assert ranks[project / ".opencode/agents"] < ranks[home / ".config/opencode/agent"]
    assert HARNESS.claims(files[2]) and HARNESS.claims(files[4]) and HARNESS.claims(files[5])
    assert not HARNESS.claims(files[8])
    env = OpenCode({"XDG_CONFIG_HOME": str(tmp_path / "x"), "OPENCODE_CONFIG_DIR": "/o"})
    paths = [loc.path for loc in env.locations(project, home)]
    assert tmp_path / "x/opencode/agents" in paths and Path("/o/agents") in paths


# ----------------------------------------------------------------- writer


def test_writer_minimal_example() -> None:
    out = HARNESS.write(AgentDefinition(
        name="reviewer", description="Reviews the current diff for bugs and missing tests.",
        system_prompt="You are a code reviewer.", tools=("Read", "Grep", "Glob")))
    assert out.relpath == ".opencode/agents/reviewer.md"
    assert "mode: subagent" in out.text and "  edit: deny" in out.text
    assert "  bash: deny" in out.text and "  webfetch: deny" in out.text
    back = read1(out.text, Path("/p") / out.relpath)
    assert back.outcome is Outcome.LOADS and back.native_tools == ("glob", "grep", "read")
    assert back.definition is not None and back.definition.tools == ("Glob", "Grep", "Read")


@pytest.mark.parametrize(("model", "written"), [
    ("sonnet", None), ("inherit", None), ("claude-opus-4-1", "anthropic/claude-opus-4-1"),
    ("openai/gpt-5", "openai/gpt-5"), ("gpt-5", None),
])
def test_writer_models(model: str, written: str | None) -> None:
    out = HARNESS.write(AgentDefinition(name="m", description="d", model=model))
    assert read1(out.text).model == written


def test_writer_round_trip_keeps_parked_fields() -> None:
    text = ('---\ndescription: x\nmode: all\ntemperature: 0.2\ntop_p: 0.9\nhidden: true\n'
            'variant: high\ncolor: "#FF5733"\nsteps: 7\nreasoningEffort: low\npermission:\n'
            '  edit: deny\n  bash: {"git *": allow, "*": ask}\n---\nPrompt.\n')
    first = read1(text)
    assert first.definition is not None
    again = read1(HARNESS.write(first.definition).text)
    assert again.outcome is Outcome.LOADS
    assert again.native_tools == first.native_tools and again.prompt == "Prompt."
    assert again.definition is not None
    assert again.definition.extra == first.definition.extra
    assert again.definition.max_turns == 7


def test_writer_color_denylist_and_nested_names() -> None:
    out = HARNESS.write(AgentDefinition(name="sub/n", description="d", color="blue",
                                        disallowed_tools=("Bash",)))
    assert out.relpath == ".opencode/agents/sub/n.md" and "color" not in out.text
    back = read1(out.text, Path("/p") / out.relpath)
    assert back.agent_id == "sub/n" and "bash" not in (back.native_tools or ())
    odd = HARNESS.write(AgentDefinition(name="Fancy Name: 2", description="d"))
    assert read1(odd.text, Path("/p") / odd.relpath).agent_id == "Fancy Name: 2"


def test_writer_drops_what_opencode_would_send_to_the_provider() -> None:
    out = HARNESS.write(AgentDefinition(
        name="x", description="d", permission_mode="plan", effort="high", skills=("s",),
        mcp_servers=(McpServerSpec(name="srv", command="c"),), extra={"foo": 1}))
    back = read1(out.text)
    assert not [f for f in back.findings if f.code == "OC008"]


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(description=_text, body=_text, name=st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
       tools=st.one_of(st.none(), st.lists(st.sampled_from(
           ["Read", "Write", "Edit", "Bash", "Grep", "Glob", "LS", "WebFetch", "WebSearch",
            "TodoWrite", "Task", "Skill", "mcp__s__t", "Bash(git diff:*)"]), max_size=6)),
       steps=st.one_of(st.none(), st.integers(1, 500)))
def test_fuzz_writer_output_always_loads(description: str, body: str, name: str,
                                         tools: list[str] | None, steps: int | None) -> None:
    defn = AgentDefinition(name=name, description=description, system_prompt=body,
                           tools=None if tools is None else tuple(tools), max_turns=steps)
    out = HARNESS.write(defn)
    back = read1(out.text, Path("/p") / out.relpath)
    assert back.outcome is Outcome.LOADS and back.agent_id == name
    assert (back.description or "") == description
    from subagents.harnesses.graymatter import js_trim
    assert back.prompt == js_trim(body)


# ----------------------------------------------------------------- hostile files


@pytest.mark.parametrize("text", [
    "\x00\x01\x02binary\xff",
    "---\n" + "a:\n" * 3 + "---\n",
    "---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n",
    "---\nx: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n---\n",
    "---\n- a\n- b\n---\nb",
    "---\n&a [*a]\n---\n",
    "---\na: &x [1,2]\nb: [*x, *x, *x]\n---\n",
    "---\n" + "description: " + "x" * 2_000_000 + "\n---\n",
    "---",
    "",
])
def test_hostile_markdown_never_raises(text: str) -> None:
    for agent in HARNESS.read_text(text, AGENT):
        assert agent.outcome in set(Outcome)


def test_hostile_json_never_raises(tmp_path: Path) -> None:
    for text in ["\x00", "[" * 10000, '{"agent": [1]}', '{"agent": {"a": 5}}', "null", "/*"]:
        for agent in HARNESS.read_text(text, tmp_path / "opencode.json"):
            assert agent.outcome in (Outcome.FATAL, Outcome.LOADS)


# ----------------------------------------------------------------- the shared corpus


def test_corpus_claude_files_in_opencode(corpus: Path) -> None:
    loaded = bricked = 0
    for path in sorted(corpus.rglob("*.md")):
        data = path.read_bytes()
        view = read_claude_code(data)
        if not view.loaded:
            continue
        loaded += 1
        text = data.decode("utf-8", errors="replace")
        if read1(text, Path("/p/.opencode/agents") / path.name).outcome is Outcome.FATAL:
            bricked += 1
        defn = definition_from_view(view, path=path)
        out = HARNESS.write(defn)
        back = read1(out.text, Path("/p") / out.relpath)
        assert back.outcome is Outcome.LOADS, path
        assert back.agent_id == defn.name
    print(f"\nOpenCode corpus: {loaded} Claude agents; {bricked} would stop OpenCode from starting")
    assert loaded > 400 and bricked > 0
