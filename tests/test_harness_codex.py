"""Codex CLI 0.169.0 dialect: every measured fact about role files, layers and the writer."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_helpers import CORPUS, claude_corpus_definitions
from subagents.definition import AgentDefinition, McpServerSpec
from subagents.harnesses.base import Effect, Harness, Outcome
from subagents.harnesses.codex import HARNESS, CodexHarness, rust_trim

MINIMAL = '''name = "reviewer"
description = "Reviews the current diff for bugs and missing tests. Use after code changes."
developer_instructions = """
You are a code reviewer. Read the diff, report concrete findings with file:line, do not edit files.
"""
model = "gpt-5-mini"              # optional: omit to inherit
model_reasoning_effort = "high"   # optional
sandbox_mode = "read-only"        # optional; the parent's live sandbox overrides it
'''


def _role(extra: str = "", *, name: str = "a") -> str:
    return f'name = "{name}"\ndescription = "d"\ndeveloper_instructions = "x"\n{extra}\n'


def _one(text: str, path: Path | None = None, harness: CodexHarness = HARNESS):
    agents = harness.read_text(text, path)
    assert len(agents) == 1
    return agents[0]


def test_is_a_harness() -> None:
    assert isinstance(HARNESS, Harness)
    assert HARNESS.name == "codex" and HARNESS.code_prefix == "CX"


def test_minimal_example_loads() -> None:
    agent = _one(MINIMAL)
    assert agent.outcome is Outcome.LOADS
    assert agent.agent_id == "reviewer"
    assert agent.model == "gpt-5-mini"
    assert agent.prompt is not None and agent.prompt.startswith("You are a code reviewer.")
    assert agent.native_tools is None
    defn = agent.definition
    assert defn is not None and defn.effort == "high" and defn.tools is None
    assert defn.extra["x-codex"] == {"sandbox_mode": "read-only"}
    assert not [f for f in agent.findings if f.effect is Effect.SKIP]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('name = "a"\ndescription = "d: x\n', "TOML parse error at line 2"),
        ('name = "a"\ndescription = "d"\n', "must define `developer_instructions`"),
        ('description = "d"\ndeveloper_instructions = "x"\n', "must define a non-empty `name`"),
        ('name = "   "\ndescription = "d"\ndeveloper_instructions = "x"\n',
         "must define a non-empty `name`"),
        ('name = "nodesc"\ndeveloper_instructions = "x"\n',
         "agent role `nodesc` must define a description"),
        ('name = "a"\ndescription = "  "\ndeveloper_instructions = "x"\n',
         ".description cannot be blank"),
        ('name = "a"\ndescription = "d"\ndeveloper_instructions = "  "\n',
         ".developer_instructions cannot be blank"),
        (_role('color = "blue"'), "unknown field `color`"),
        (_role('permissionMode = "plan"'), "unknown field `permissionMode`"),
        (_role('tools = ["Read"]'), "unknown variant `Read`, expected `standalone` or "
         "`search_mcp`"),
        (_role('tools = "Read, Grep"'), 'invalid type: string "Read, Grep", expected struct '
         "ToolsToml"),
        (_role('sandbox_mode = "readonly"'), "unknown variant `readonly`, expected one of "
         "`read-only`, `workspace-write`, `danger-full-access`"),
        (_role('approval_policy = "bad"'), "unknown variant `bad`, expected one of "
         "`untrusted`, `on-failure`, `on-request`, `granular`, `never`"),
        (_role("model_reasoning_effort = 5"), "invalid type: integer `5`, expected a string"),
        (_role("model = 5"), "invalid type: integer `5`, expected a string"),
        (_role("nickname_candidates = []"), "must contain at least one name"),
        (_role('nickname_candidates = ["a!"]'), "may only contain ASCII letters"),
        (_role('nickname_candidates = ["a", "a "]'), "cannot contain duplicates"),
        (_role('nickname_candidates = [" "]'), "cannot contain blank names"),
        (_role('web_search = "bogus"'), "unknown variant `bogus`"),
        (_role("[mcp_servers.y]"), "invalid transport"),
        (_role('update_plan = true'), "unknown field `update_plan`"),
    ],
)
def test_bad_files_are_skipped_with_codex_reason(text: str, reason: str) -> None:
    agent = _one(text, Path("/p/.codex/agents/x.toml"), CodexHarness(trusted=True))
    assert agent.outcome is Outcome.SKIPPED
    assert agent.agent_id is None
    assert reason in agent.findings[0].message
    assert agent.findings[0].effect is Effect.SKIP
    assert "Codex CLI 0.169.0" in agent.findings[0].message


def test_type_error_is_reported_before_unknown_field() -> None:
    agent = _one(_role('model_reasoning_effort = 5\ncolor = "x"'))
    assert "integer `5`" in agent.findings[0].message
    assert any("unknown field `color`" in f.message for f in agent.findings[1:])


def test_parse_error_has_line_and_unknown_key_its_line() -> None:
    assert _one('name = "a"\ndescription = "d: x\n').findings[0].line == 2
    finding = _one(_role('color = "blue"')).findings[0]
    assert finding.line == 4 and finding.key == "color"


@pytest.mark.parametrize(
    "extra",
    ['model_reasoning_effort = "extreme"', 'tools = { web_search = true }',
     '[[skills.config]]\npath = "x"\nenabled = true', "features = { foo = true }",
     'oss_provider = "ollama"', "daybreak = true",
     '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]',
     'nickname_candidates = ["Athena", "Big Owl_2"]'],
)
def test_accepted_config_keys_load(extra: str) -> None:
    assert _one(_role(extra)).outcome is Outcome.LOADS


def test_weird_name_loads_and_names_are_trimmed() -> None:
    agent = _one(_role(name="Weird Name!"))
    assert agent.outcome is Outcome.LOADS and agent.agent_id == "Weird Name!"
    agent = _one('name = "  pad  "\ndescription = "  d  "\ndeveloper_instructions = " x "\n')
    assert (agent.agent_id, agent.description, agent.prompt) == ("pad", "d", " x ")


def test_bom_is_accepted() -> None:
    assert _one("\ufeff" + _role()).outcome is Outcome.LOADS


def test_markdown_file_is_not_read() -> None:
    agent = _one("---\nname: a\n---\nbody", Path("/p/.codex/agents/a.md"))
    assert agent.outcome is Outcome.NOT_READ
    assert not HARNESS.claims(Path("/p/.codex/agents/a.md"))
    assert HARNESS.claims(Path("/p/.codex/agents/sub/a.toml"))


def test_invalid_utf8_on_disk(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "agents" / "bad.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'name = "a"\ndescription = "\xff"\ndeveloper_instructions = "x"\n')
    [agent] = CodexHarness(trusted=True).read_path(path)
    assert agent.outcome is Outcome.SKIPPED
    assert "invalid utf-8 sequence of 1 bytes from index 26" in agent.findings[0].message


def test_builtin_role_replacement_is_info() -> None:
    agent = _one(_role(name="explorer"))
    assert agent.outcome is Outcome.LOADS
    assert any(f.code == "CX010" and f.effect is Effect.INFO for f in agent.findings)


def test_hostile_text_never_raises() -> None:
    for text in ["a = " + "[" * 5000 + "]" * 5000, "\x00\x01", "[[[", "x" * 100_000,
                 'name = """' + "'''" * 100, "= = =", "a.b.c = 1\na = 2",
                 _role("[mcp_servers.s]\ncommand = 1\nargs = 5\nenv = [1]")]:
        agent = _one(text)
        assert agent.outcome is Outcome.SKIPPED


# --------------------------------------------------------------------------- layers


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _by_id(agents):
    return {a.agent_id: a for a in agents if a.outcome is Outcome.LOADS}


def test_layers_nested_precedence_and_duplicates(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    user_dir, proj_dir = home / ".codex" / "agents", project / ".codex" / "agents"
    _write(user_dir / "reviewer.toml", _role(name="reviewer").replace('"d"', '"user one"'))
    _write(user_dir / "only-user.toml", _role(name="only-user"))
    _write(proj_dir / "reviewer.toml", _role(name="reviewer").replace('"d"', '"project one"'))
    _write(proj_dir / "sub" / "nested.toml", _role(name="nested"))
    _write(proj_dir / "a.toml", _role(name="dup"))
    _write(proj_dir / "b.toml", _role(name="dup").replace('"x"', '"second"'))
    _write(proj_dir / "notes.md", "---\nname: md\n---\n")
    harness = CodexHarness(trusted=True)
    agents = harness.load_all(project, home)
    loaded = _by_id(agents)
    assert set(loaded) == {"reviewer", "only-user", "nested", "dup"}
    assert loaded["reviewer"].description == "project one"
    assert loaded["dup"].prompt == "x"
    second = next(a for a in agents if a.path == proj_dir / "b.toml")
    assert second.outcome is Outcome.SKIPPED
    assert "duplicate agent role name `dup`" in second.findings[-1].message
    replaced = next(a for a in agents if a.path == user_dir / "reviewer.toml")
    assert replaced.outcome is Outcome.SKIPPED and replaced.findings[-1].code == "CX014"
    assert all(p.suffix == ".toml" for p in harness.discover(project, home))
    assert proj_dir / "sub" / "nested.toml" in harness.discover(project, home)


def test_description_comes_from_lower_layer(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    _write(home / ".codex" / "agents" / "r.toml", _role(name="r").replace('"d"', '"from user"'))
    _write(project / ".codex" / "agents" / "r.toml",
           'name = "r"\ndeveloper_instructions = "project prompt"\n')
    loaded = _by_id(CodexHarness(trusted=True).load_all(project, home))
    assert loaded["r"].description == "from user" and loaded["r"].prompt == "project prompt"


def test_untrusted_project_is_not_read(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    path = _write(project / ".codex" / "agents" / "p.toml", _role(name="p"))
    agents = HARNESS.load_all(project, home)  # no trust entry in the user's config.toml
    assert [a.outcome for a in agents] == [Outcome.NOT_READ]
    assert "not trusted" in agents[0].findings[0].message
    assert HARNESS.discover(project, home) == []
    assert _one(_role(), path, CodexHarness(trusted=False)).outcome is Outcome.NOT_READ
    _write(home / ".codex" / "config.toml",
           f'[projects."{project}"]\ntrust_level = "trusted"\n')
    assert HARNESS.project_trusted(project, home)
    assert [a.agent_id for a in HARNESS.load_all(project, home)] == ["p"]


def test_config_toml_roles(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(home / ".codex" / "roles" / "r2.toml", 'model = "gpt-5"\n')
    config = _write(home / ".codex" / "config.toml", f'''[agents]
max_threads = 4
[agents.r1]
description = "role one"
[agents.r2]
description = "role two"
config_file = "roles/r2.toml"
nickname_candidates = ["Ada"]
[agents.r4]
config_file = "{home}/missing.toml"
''')
    agents = HARNESS.read_text(config.read_text(), config)
    by_key = {a.agent_id: a for a in agents if a.outcome is Outcome.LOADS}
    assert set(by_key) == {"r1", "r2"}
    assert by_key["r2"].model == "gpt-5" and by_key["r2"].description == "role two"
    skipped = [a for a in agents if a.outcome is Outcome.SKIPPED]
    assert len(skipped) == 1
    assert "agents.r4.config_file must point to an existing file" in skipped[0].findings[0].message
    loaded = _by_id(HARNESS.load_all(tmp_path / "proj", home))
    assert set(loaded) == {"r1", "r2"}


def test_broken_config_toml_is_fatal(tmp_path: Path) -> None:
    config = _write(tmp_path / ".codex" / "config.toml", "[agents\n")
    [agent] = HARNESS.read_text(config.read_text(), config)
    assert agent.outcome is Outcome.FATAL


# --------------------------------------------------------------------------- writer


def _reread(defn: AgentDefinition):
    written = HARNESS.write(defn)
    assert written.relpath.startswith(".codex/agents/") and written.relpath.endswith(".toml")
    tomllib.loads(written.text)  # plain TOML
    agent = _one(written.text, Path("/p") / written.relpath, CodexHarness(trusted=True))
    assert agent.outcome is Outcome.LOADS, (written.text, agent.findings)
    return written, agent


def test_writer_round_trip_keeps_fields_and_x_codex() -> None:
    defn = AgentDefinition(
        name="reviewer", description="Reviews diffs.", system_prompt="Line 1\n\nLine 2",
        model="gpt-5-mini", effort="high",
        mcp_servers=(McpServerSpec(name="docs", command="npx", args=("-y", "d")),),
        extra={"x-codex": {"nickname_candidates": ["Athena"], "web_search": "disabled",
                           "features": {"x": True}, "color": "blue"}},
    )
    written, agent = _reread(defn)
    back = agent.definition
    assert back is not None
    assert (back.name, back.description, back.system_prompt, back.model, back.effort) == (
        defn.name, defn.description, defn.system_prompt, defn.model, defn.effort)
    assert back.extra["x-codex"] == {"nickname_candidates": ["Athena"],
                                     "web_search": "disabled", "features": {"x": True}}
    assert back.mcp_servers[0].command == "npx" and back.mcp_servers[0].args == ("-y", "d")
    assert "'''" in written.text  # the readable literal form


def test_writer_drops_claude_only_keys_and_maps_sandbox() -> None:
    defn = AgentDefinition(name="r", description="d", system_prompt="p", model="sonnet",
                           tools=("Read", "Grep"), color="blue", permission_mode="acceptEdits",
                           max_turns=3)
    written, _ = _reread(defn)
    data = tomllib.loads(written.text)
    assert set(data) == {"name", "description", "developer_instructions", "sandbox_mode"}
    assert data["sandbox_mode"] == "read-only"  # no write tool: stricter than acceptEdits
    assert any("live sandbox" in n for n in written.notes)
    assert any("trusted" in n for n in written.notes)
    bypass = tomllib.loads(HARNESS.write(AgentDefinition(
        name="b", description="d", system_prompt="p",
        permission_mode="bypassPermissions")).text)
    assert (bypass["sandbox_mode"], bypass["approval_policy"]) == ("danger-full-access", "never")


@pytest.mark.parametrize("body", ["a ''' b", 'a """ b', "back\\slash \\n", "ctl \x01\x7f",
                                  "crlf\r\nline", "ünïcødé 🎉", "ends with '", "'''", "\"",
                                  "\n\nlead", "tab\there"])
def test_writer_hostile_bodies(body: str) -> None:
    defn = AgentDefinition(name='we"ird\\ name', description='d "q" \\ \n x', system_prompt=body)
    written, agent = _reread(defn)
    assert agent.prompt == body
    assert agent.agent_id == 'we"ird\\ name'
    assert tomllib.loads(written.text)["description"] == 'd "q" \\ \n x'


def test_writer_blank_fields_still_load() -> None:
    _, agent = _reread(AgentDefinition(name=" ", description=" ", system_prompt=" \n"))
    assert agent.agent_id == "agent"


@settings(max_examples=150, deadline=None)
@given(name=st.text(min_size=1, max_size=30), description=st.text(max_size=80),
       body=st.text(max_size=300))
def test_writer_fuzz(name: str, description: str, body: str) -> None:
    defn = AgentDefinition(name=name, description=description, system_prompt=body)
    _, agent = _reread(defn)
    if rust_trim(name):
        assert agent.agent_id == rust_trim(name)
    if rust_trim(description):
        assert agent.description == rust_trim(description)
    if rust_trim(body):
        assert agent.prompt == body


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not on this machine")
def test_corpus_through_writer_loads() -> None:
    defs = claude_corpus_definitions()
    loads = sum(_reread(d)[1].outcome is Outcome.LOADS for d in defs)
    print(f"codex corpus: {loads}/{len(defs)} Claude-loadable files re-read as LOADS")
    assert defs and loads == len(defs)
