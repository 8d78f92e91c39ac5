"""Scopes, precedence, clashes and lookups of AgentRegistry (issue 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from registry_helpers import layout, write_agent
from subagents.definition import AgentDefinition, Dialect, Scope
from subagents.errors import AgentNotFoundError, DefinitionError, UsageError
from subagents.registry.core import AgentRegistry

__all__ = ["layout"]


def _names(reg: AgentRegistry) -> dict[str, str]:
    return {e.name: e.source.value for e in reg.list(include_builtin=True)}


def test_closest_project_folder_wins_and_farther_is_shadowed(layout: dict[str, Path]) -> None:
    write_agent(layout["user_agents"], "reviewer", body="user\n")
    write_agent(layout["root_agents"], "reviewer", body="root\n")
    write_agent(layout["sub_agents"], "reviewer", body="closest\n")
    reg = AgentRegistry().load_all()
    assert reg.get("reviewer").system_prompt == "closest"
    winner = reg.entry("reviewer")
    shadowed = reg.shadowed()
    assert [(e.source, e.path) for e in shadowed] == [
        (Scope.PROJECT, layout["root_agents"] / "reviewer.md"),
        (Scope.USER, layout["user_agents"] / "reviewer.md"),
    ]
    assert all(e.shadowed_by is winner for e in shadowed)
    # farther project folder: shadowed, not a duplicate error
    assert not [d for d in reg.diagnostics() if d.rule == "SA601"]


def test_project_walk_stops_at_git_root(layout: dict[str, Path]) -> None:
    outside = layout["project"].parent / ".claude" / "agents"
    write_agent(outside, "above-root")
    write_agent(layout["root_agents"], "at-root")
    names = _names(AgentRegistry().load_all())
    assert "at-root" in names
    assert "above-root" not in names


def test_without_git_only_cwd_is_a_project_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_agent(tmp_path / "a" / ".claude" / "agents", "parent-agent")
    write_agent(tmp_path / "a" / "b" / ".claude" / "agents", "cwd-agent")
    reg = AgentRegistry(tmp_path / "a" / "b", home=home).load_all()
    assert "cwd-agent" in _names(reg)
    assert "parent-agent" not in _names(reg)


def test_full_precedence_chain(layout: dict[str, Path], tmp_path: Path) -> None:
    managed = tmp_path / "managed"
    plugin = tmp_path / "plugins" / "toolkit"
    for folder, label in [
        (managed, "managed"),
        (layout["sub_agents"], "project"),
        (layout["user_agents"], "user"),
    ]:
        write_agent(folder, "shared", body=f"{label}\n")
        write_agent(folder, f"only-{label}")
    write_agent(plugin / "agents", "shared", body="plugin\n")
    cli = json.dumps(
        {
            "shared": {"description": "cli one", "prompt": "cli\n"},
            "only-cli": {"description": "d", "prompt": "p"},
        }
    )
    reg = AgentRegistry(cli_agents=cli, managed_dir=managed, plugin_dirs=[plugin]).load_all()
    assert reg.get("shared").system_prompt == "managed"
    assert reg.entry("shared").source is Scope.MANAGED
    assert [e.source for e in reg.shadowed() if e.name == "shared"] == [
        Scope.CLI,
        Scope.PROJECT,
        Scope.USER,
    ]
    names = _names(reg)
    assert names["only-managed"] == "managed"
    assert names["only-cli"] == "cli"
    assert names["only-project"] == "project"
    assert names["only-user"] == "user"
    assert names["toolkit:shared"] == "plugin"  # plugin ids are namespaced: no clash
    assert names["general-purpose"] == "builtin"


def test_cli_beats_project_and_user_beats_plugin(layout: dict[str, Path], tmp_path: Path) -> None:
    write_agent(layout["sub_agents"], "a", body="project\n")
    reg = AgentRegistry(cli_agents={"a": {"description": "d", "prompt": "cli"}}).load_all()
    assert reg.get("a").system_prompt == "cli"
    assert reg.get("a").source is Scope.CLI


def test_plugin_ids_and_subfolder_segments(layout: dict[str, Path], tmp_path: Path) -> None:
    plugin = tmp_path / "my-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "acme"}')
    write_agent(plugin / "agents", "lint")
    write_agent(plugin / "agents" / "review" / "deep", "security", filename="x.md")
    reg = AgentRegistry(plugin_dirs=[plugin]).load_all()
    names = _names(reg)
    assert names["acme:lint"] == "plugin"
    assert names["acme:review:deep:security"] == "plugin"
    # a unique plugin agent is also found by its bare name, like the Task tool does
    assert reg.get("lint").qualified_name == "acme:lint"
    assert reg.get("acme:lint").plugin == "acme"


def test_plugin_dirs_from_config(layout: dict[str, Path], tmp_path: Path) -> None:
    plugin = tmp_path / "cfgplug"
    write_agent(plugin / "agents", "x")
    reg = AgentRegistry(config={"plugin_dirs": [str(plugin)]}).load_all()
    assert "cfgplug:x" in _names(reg)


def test_id_is_name_field_not_filename_and_scan_is_recursive(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"] / "nested" / "deeper", "real-name", filename="file-stem.md")
    names = _names(AgentRegistry().load_all())
    assert "real-name" in names
    assert "file-stem" not in names


def test_duplicate_in_one_folder_the_last_path_wins_and_the_other_is_reported(
    layout: dict[str, Path],
) -> None:
    # Claude Code 2.1.330 sorts paths by code unit and keeps the last definition (measured)
    a = write_agent(layout["sub_agents"], "twin", filename="one.md", body="one\n")
    b = write_agent(layout["sub_agents"] / "sub", "twin", filename="two.md", body="two\n")
    write_agent(layout["user_agents"], "twin", body="user\n")
    reg = AgentRegistry().load_all()
    dups = [d for d in reg.diagnostics() if d.rule == "SA601"]
    assert [d.path for d in dups] == [".claude/agents/one.md"]
    (dup,) = dups
    assert "sub/two.md" in dup.message and "Claude Code 2.1.332" in dup.message
    assert dup.severity.value == "error" and dup.line == 2
    assert reg.get("twin").system_prompt == "two"
    assert reg.entry("twin").path == b
    assert reg.duplicates()["twin"][1].path == a
    assert sorted(e.source for e in reg.shadowed() if e.name == "twin") == [
        Scope.PROJECT,
        Scope.USER,
    ]
    assert reg.clashes() == {}


def test_codex_dialect_uses_codex_folders(layout: dict[str, Path]) -> None:
    codex_proj = layout["sub"] / ".codex" / "agents"
    write_agent(codex_proj, "reviewer", body="codex project\n", extra="keywords: [review]")
    write_agent(layout["home"] / ".codex" / "agents", "reviewer", body="codex user\n")
    write_agent(layout["sub_agents"], "reviewer", body="claude\n")
    write_agent(layout["sub_agents"], "claude-only")
    reg = AgentRegistry(dialect=Dialect.CODEX_MD).load_all()
    assert reg.get("reviewer").system_prompt == "codex project\n"
    assert reg.get("reviewer").keywords == ("review",)
    assert "claude-only" not in _names(reg)
    # both trees defining the same agent is normal, not a clash, in either dialect
    assert not [d for d in reg.diagnostics() if d.rule == "SA601"]
    claude = AgentRegistry(dialect=Dialect.CLAUDE).load_all()
    assert claude.get("reviewer").system_prompt == "claude"
    assert not [d for d in claude.diagnostics() if d.rule == "SA601"]


def test_agents_json_group_wins_over_global(layout: dict[str, Path], tmp_path: Path) -> None:
    glob = tmp_path / "global" / "agents.json"
    group = tmp_path / "group" / "agents.json"
    glob.parent.mkdir()
    group.parent.mkdir()
    glob.write_text(
        json.dumps(
            {
                "researcher": {"description": "global researcher", "prompt": "global"},
                "only-global": {"description": "d", "prompt": "g"},
            }
        )
    )
    group.write_text(json.dumps({"researcher": {"description": "group", "prompt": "group"}}))
    reg = AgentRegistry(agents_json=(glob, group)).load_all()
    assert reg.get("researcher").system_prompt == "group"
    assert reg.get("only-global").system_prompt == "g"
    assert [e.path for e in reg.shadowed() if e.name == "researcher"] == [glob]
    assert not [d for d in reg.diagnostics() if d.rule == "SA601"]


def test_agents_json_missing_or_broken(layout: dict[str, Path], tmp_path: Path) -> None:
    glob = tmp_path / "agents.json"
    glob.write_text("{not json")
    reg = AgentRegistry(agents_json=(glob, tmp_path / "missing.json")).load_all()
    assert [d.rule for d in reg.diagnostics()] == ["SA016"]
    assert "general-purpose" in _names(reg)


def test_builtins_exist_and_can_be_overridden(layout: dict[str, Path]) -> None:
    reg = AgentRegistry().load_all()
    assert {"general-purpose", "Explore", "Plan"} <= set(_names(reg))
    assert reg.get("explore").name == "Explore"  # case-insensitive
    write_agent(layout["user_agents"], "Explore", body="mine\n")
    reg = AgentRegistry().load_all()
    assert reg.get("Explore").system_prompt == "mine"
    assert [e.source for e in reg.shadowed(include_builtin=True) if e.name == "Explore"] == [
        Scope.BUILTIN]
    assert "Explore" not in [e.name for e in reg.shadowed()]  # built-ins only when asked


def test_list_and_the_list_command_agree(layout: dict[str, Path]) -> None:
    """`AgentRegistry.list()` and `subagents list` show the same agents; built-ins only
    behind one explicit flag on both (include_builtin= / --include-builtin)."""
    import json

    from click.testing import CliRunner

    from subagents.cli.main import cli

    write_agent(layout["user_agents"], "reviewer", body="user\n")
    reg = AgentRegistry().load_all()
    for flag, include in (([], False), (["--include-builtin"], True)):
        out = CliRunner().invoke(cli, ["list", "--format", "json", *flag]).stdout
        cli_names = [a["name"] for a in json.loads(out)["agents"]]
        assert cli_names == [e.name for e in reg.list(include_builtin=include)]
        assert ("general-purpose" in cli_names) is include


def test_get_ignores_case_and_separators(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "code-reviewer")
    reg = AgentRegistry().load_all()
    for spelled in ("code-reviewer", "Code Reviewer", "code_reviewer", "CODEREVIEWER",
                    "code.reviewer", " code\treviewer "):
        assert reg.get(spelled).name == "code-reviewer"
    assert "code reviewer" in reg


def test_unknown_name_suggests_close_matches(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "code-reviewer")
    reg = AgentRegistry().load_all()
    with pytest.raises(AgentNotFoundError) as info:
        reg.get("code-reveiwer")
    assert info.value.suggestions[0] == "code-reviewer"
    assert "general-purpose" in str(info.value)
    assert reg.find("nothing-like-it") is None


def test_bodies_are_loaded_lazily(layout: dict[str, Path]) -> None:
    path = write_agent(layout["sub_agents"], "lazy", body="the body\n")
    reg = AgentRegistry().load_all()
    entry = reg.entry("lazy")
    assert not entry.body_loaded
    assert entry.header.system_prompt == ""
    assert entry.description.startswith("Does things")
    assert reg.get("lazy").system_prompt == "the body"
    assert entry.body_loaded
    assert reg.get("lazy").path == path


def test_body_load_after_file_broke_raises_clearly(layout: dict[str, Path]) -> None:
    path = write_agent(layout["sub_agents"], "fragile")
    reg = AgentRegistry().load_all()
    # not YAML even for Claude Code's lenient pass: the agent is gone
    path.write_text("---\nname: fragile\ndescription: a: b\n<example>\n---\nx\n")
    with pytest.raises(DefinitionError, match="no longer defines"):
        reg.get("fragile")


def test_broken_file_stays_out_and_others_work(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "good")
    bad = layout["sub_agents"] / "bad.md"
    bad.write_text("---\nname: bad\ndescription: x: y\n<example>\n---\nbody\n")
    (layout["sub_agents"] / "noname.md").write_text("---\ndescription: d\n---\nb\n")
    (layout["sub_agents"] / "colon.md").write_text("---\nname: a:b\ndescription: d\n---\nb\n")
    (layout["sub_agents"] / "nodesc.md").write_text("---\nname: nodesc\n---\nb\n")
    reg = AgentRegistry().load_all()
    names = _names(reg)
    assert "good" in names and "bad" not in names and "nodesc" not in names
    rules = {(d.path, d.rule) for d in reg.diagnostics()}
    assert (".claude/agents/bad.md", "SA005") in rules
    assert (".claude/agents/noname.md", "SA102") in rules
    assert (".claude/agents/colon.md", "SA101") in rules
    assert (".claude/agents/nodesc.md", "SA103") in rules
    expl = reg.explain("bad")
    assert expl.winner is None
    assert expl.failed_files and expl.failed_files[0][0] == ".claude/agents/bad.md"


def test_register_adds_at_cli_scope(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "dyn", body="file\n")
    reg = AgentRegistry().load_all()
    reg.register(AgentDefinition(name="dyn", description="registered", system_prompt="reg"))
    assert reg.get("dyn").system_prompt == "reg"
    assert reg.get("dyn").source is Scope.CLI
    reg.register(AgentDefinition(name="dyn", description="again", system_prompt="second"))
    assert reg.get("dyn").system_prompt == "second"  # a later register replaces, no clash
    with pytest.raises(UsageError):
        reg.register(AgentDefinition(name="  "))
    with pytest.raises(DefinitionError):
        reg.register(AgentDefinition(name="x", description=""))


def test_cli_agents_mapping_with_non_string_names_is_a_usage_error(layout: dict[str, Path]) -> None:
    with pytest.raises(UsageError, match="non-empty strings"):
        AgentRegistry(cli_agents={1: {"description": "d", "prompt": "p"}})  # type: ignore[dict-item]
    with pytest.raises(UsageError):
        AgentRegistry(cli_agents=["not", "a", "mapping"])  # type: ignore[arg-type]


def test_cli_agents_entry_errors_are_diagnostics(layout: dict[str, Path]) -> None:
    # one bad entry and Claude Code 2.1.332 starts nothing (recorded cases cli-agents-*): the
    # whole value is refused, with the first problem as the error
    text = json.dumps(
        {"ok": {"description": "d", "prompt": "p"}, "bad": 5, "nodesc": {"prompt": "p"}}
    )
    reg = AgentRegistry(cli_agents=text).load_all()
    assert "ok" not in _names(reg)
    assert "bad" not in _names(reg) and "nodesc" not in _names(reg)
    (refusal,) = [d for d in reg.diagnostics() if d.path == "--agents"]
    assert refusal.rule == "SA014" and "refuses to start" in refusal.message
    fine = AgentRegistry(cli_agents=json.dumps(
        {"ok": {"description": "d", "prompt": "p"}, "ns:x": {"description": "d", "prompt": "p"}}
    )).load_all()
    assert {"ok", "ns:x"} <= set(_names(fine))


def test_user_folder_that_is_also_a_project_folder_is_read_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    write_agent(home / ".claude" / "agents", "mine")
    reg = AgentRegistry(home, home=home).load_all()
    assert reg.entry("mine").source is Scope.USER
    assert not reg.shadowed(include_builtin=False)


def test_config_object_with_attributes(layout: dict[str, Path], tmp_path: Path) -> None:
    class Cfg:
        managed_dir = tmp_path / "managed"
        plugin_dirs = ()
        agents_json = None

    write_agent(tmp_path / "managed", "org-agent")
    reg = AgentRegistry(config=Cfg()).load_all()
    assert reg.entry("org-agent").source is Scope.MANAGED


def test_codex_rejections_follow_seed_002(layout: dict[str, Path]) -> None:
    folder = layout["sub"] / ".codex" / "agents"
    write_agent(folder, "Bad Name", filename="bad.md")
    write_agent(folder, "dup-tools", extra="tools: [apply_patch, apply_patch]")
    write_agent(folder, "empty-kw", extra='keywords: [review, ""]')
    write_agent(folder, "no-body", body="   \n")
    write_agent(folder, "no-desc", description="")  # description is optional in Codex
    reg = AgentRegistry(dialect=Dialect.CODEX_MD).load_all()
    names = {e.name for e in reg.list(include_builtin=False)}
    assert names == {"no-body", "no-desc"}
    rules = {d.rule for d in reg.diagnostics()}
    assert {"SA501", "SA502", "SA503"} <= rules
    with pytest.raises(DefinitionError, match="no instructions"):
        reg.get("no-body")
    assert reg.get("no-desc").description == ""


def test_plugin_agents_load_on_claude_codes_plugin_terms(tmp_path: Path) -> None:
    """Claude Code 2.1.332 (measured briefly): a plugin agent whose YAML fails, or that has no
    description, still loads, named after its file, described "Agent from <plugin> plugin";
    a `:` in a plugin agent's name is allowed.  A project agent of the same kind is skipped."""
    plugin = tmp_path / "p"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "acme"}')
    agents = plugin / "agents"
    agents.mkdir()
    (agents / "broken.md").write_text("---\nname: b\ndescription: a: b\n<example>\n---\nBody.\n")
    (agents / "nodesc.md").write_text("---\nname: quiet\n---\nBody.\n")
    (agents / "colon.md").write_text('---\nname: "ns:tool"\ndescription: Has a colon.\n---\nB.\n')
    reg = AgentRegistry(tmp_path, home=tmp_path / "home", plugin_dirs=[plugin]).load_all()
    got = {e.name: e.description for e in reg.list(include_builtin=False)}
    assert got == {
        "acme:broken": "Agent from acme plugin",
        "acme:quiet": "Agent from acme plugin",
        "acme:ns:tool": "Has a colon.",
    }
    assert reg.get("acme:broken").system_prompt == "Body."
    project = tmp_path / ".claude" / "agents"
    project.mkdir(parents=True)
    (project / "broken.md").write_text((agents / "broken.md").read_text())
    reg = AgentRegistry(tmp_path, home=tmp_path / "home").load_all()
    assert reg.list(include_builtin=False) == []


def test_registry_and_task_tool_find_the_same_agent_for_every_spelling(
        layout: dict[str, Path]) -> None:
    """One matching key: what a model's Task call finds, ``run --agent`` finds too."""
    from subagents.dispatch.task_tool import resolve_agent

    write_agent(layout["sub_agents"], "code-reviewer")
    reg = AgentRegistry().load_all()
    definitions = [entry.definition for entry in reg.list()]
    for spelled in ("code.reviewer", "Code Reviewer", "code_reviewer", "CODE-REVIEWER"):
        assert reg.get(spelled).name == "code-reviewer"
        assert resolve_agent(spelled, definitions).name == "code-reviewer"
