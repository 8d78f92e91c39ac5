"""Issue 12, item 4: trust, configuration scope, plan mode and credentials of hooks.

A cloned repository's agents must not run their hooks or MCP servers, and its configuration
must not apply, until the user trusts it; no ancestor folder's config, no config others can
write, and no bypass mode from a project; plan mode runs no command; hooks see no API key.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.definition import AgentDefinition, HookCommand, HookMatcher, McpServerSpec
from subagents.lint.trust import TrustPolicy, TrustStore, run_config, unsafe_file
from subagents.runtime.permissions import PermissionPolicy
from subagents.runtime.runner import AgentRunner
from subagents.runtime.settings_hooks import SettingsHooks
from subagents.testing import ScriptedModel, text, tool_call

ECHO_SERVER = Path(__file__).parent / "data" / "mcp_echo_server.py"


def hooked_agent(project: Path, marker: Path, command: str | None = None) -> AgentDefinition:
    hooks = {"PreToolUse": (HookMatcher(matcher="Glob", hooks=(
        HookCommand(command=command or f"touch {marker}"),)),)}
    return AgentDefinition(name="cloned", system_prompt="x", tools=("Glob",), hooks=hooks,
                           path=project / ".claude" / "agents" / "cloned.md")


async def run_ls(agent: AgentDefinition, cwd: Path, **kw: object) -> list[str]:
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}), text("done")])
    runner = AgentRunner(model, cwd=cwd, transcripts=False, **kw)  # type: ignore[arg-type]
    result = await runner.run(agent, "go")
    return list(result.warnings)


async def test_an_untrusted_projects_hooks_do_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    agent = hooked_agent(tmp_path, marker)
    warnings = await run_ls(agent, tmp_path, trust=TrustPolicy(untrusted=(tmp_path,)))
    assert not marker.exists()
    assert any("not trusted" in w and "hooks" in w for w in warnings)
    await run_ls(agent, tmp_path)  # trusted (no untrusted roots): the hook runs
    assert marker.exists()


async def test_plan_mode_runs_no_hook_and_no_mcp_server(tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    pidfile = tmp_path / "mcp.pid"
    agent = hooked_agent(tmp_path, marker).evolve(mcp_servers=(McpServerSpec(
        name="echo", command=sys.executable, args=(str(ECHO_SERVER), str(pidfile))),))
    warnings = await run_ls(agent, tmp_path, policy=PermissionPolicy(mode="plan"))
    assert not marker.exists()
    assert not pidfile.exists()  # the server was never started
    assert any("plan mode runs no command" in w for w in warnings)


async def test_hooks_get_no_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-hook-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-hook-secret")
    dump = tmp_path / "env.txt"
    await run_ls(hooked_agent(tmp_path, dump, f"env > {dump}"), tmp_path)
    seen = dump.read_text()
    assert "PATH=" in seen
    assert "sk-ant-hook-secret" not in seen and "ghp-hook-secret" not in seen


@pytest.mark.slow
async def test_a_claimed_read_only_hint_is_not_a_permission(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from subagents.runtime.mcp_tools import McpServerPool

    spec = McpServerSpec(name="echo", command=sys.executable, args=(str(ECHO_SERVER),))
    async with McpServerPool([spec], cwd=tmp_path) as pool:
        echo = next(t for t in pool.tools if t.name == "mcp__echo__echo")
        assert echo.read_only is False
        assert any("says it is read-only" in w for w in pool.warnings)


def _project(tmp_path: Path) -> Path:
    parent = tmp_path / "parent"
    project = parent / "proj"
    (project / ".git").mkdir(parents=True)
    return project


def test_no_config_from_folders_above_the_project_root(tmp_path: Path, home: Path) -> None:
    project = _project(tmp_path)
    (tmp_path / "parent" / ".subagents.toml").write_text('allow = ["Bash"]\n'
                                                        "allow-bypass-permissions = true\n")
    config, _ = run_config(project, trusted=True, home=home)
    assert config.allow_rules == () and not config.allow_bypass_permissions


def test_untrusted_project_config_does_not_apply(tmp_path: Path, home: Path) -> None:
    project = _project(tmp_path)
    (project / ".subagents.toml").write_text('allow = ["Write"]\n')
    config, notes = run_config(project, trusted=False, home=home)
    assert config.allow_rules == ()
    assert any("not trusted" in n for n in notes)
    config, _ = run_config(project, trusted=True, home=home)
    assert config.allow_rules == ("Write",)


def test_bypass_only_from_the_users_config(tmp_path: Path, home: Path) -> None:
    project = _project(tmp_path)
    (project / ".subagents.toml").write_text("allow-bypass-permissions = true\n")
    config, notes = run_config(project, trusted=True, home=home)
    assert not config.allow_bypass_permissions
    assert any("allow-bypass-permissions is ignored" in n for n in notes)
    (home / ".subagents").mkdir()
    (home / ".subagents" / "config.toml").write_text("allow-bypass-permissions = true\n"
                                                     'allow = ["Read"]\n')
    config, _ = run_config(project, trusted=True, home=home)
    assert config.allow_bypass_permissions


def test_config_others_can_write_is_ignored(tmp_path: Path, home: Path) -> None:
    project = _project(tmp_path)
    cfg = project / ".subagents.toml"
    cfg.write_text('allow = ["Bash"]\n')
    cfg.chmod(0o666)
    config, notes = run_config(project, trusted=True, home=home)
    assert config.allow_rules == ()
    assert any("other users can write it" in n for n in notes)
    cfg.chmod(0o644)
    link = tmp_path / "elsewhere.toml"
    link.write_text('allow = ["Bash"]\n')
    cfg.unlink()
    cfg.symlink_to(link)
    assert unsafe_file(cfg) == "it is a symbolic link"
    assert run_config(project, trusted=True, home=home)[0].allow_rules == ()


def test_trust_is_remembered_per_folder_and_the_store_is_private(tmp_path: Path,
                                                                 home: Path) -> None:
    store = TrustStore()
    a, b = _project(tmp_path), tmp_path / "other"
    b.mkdir()
    assert not store.is_trusted(a)
    store.trust(a)
    assert store.is_trusted(a) and not store.is_trusted(b)
    assert (store.path.stat().st_mode & 0o777) == 0o600
    # a planted, world-writable trust file counts for nothing
    store.path.chmod(0o666)
    assert not store.is_trusted(a)


def test_cli_untrusted_then_trusted(tmp_path: Path, home: Path) -> None:
    project = _project(tmp_path)
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    marker = project / "hook-ran"
    (agents / "cloned.md").write_text(
        "---\nname: cloned\ndescription: c\ntools: Glob\nhooks:\n  PreToolUse:\n"
        "    - matcher: Glob\n      hooks:\n        - type: command\n"
        f"          command: touch {marker}\n---\nx\n")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"tool": "Glob", "input": {"pattern": "*"}}, "done"]))
    args = ["run", "--agent", "cloned", "--provider", "scripted", "--script", str(script),
            "--no-transcript", "--cwd", str(project), "go"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert not marker.exists()
    assert "not trusted" in r.stderr
    r = CliRunner().invoke(cli, [*args[:-1], "--trust", "go"])
    assert marker.exists()
    marker.unlink()
    CliRunner().invoke(cli, args)  # remembered
    assert marker.exists()
    assert str(project.resolve()) in (home / ".subagents" / "trusted-folders.json").read_text()
    assert os.access(home / ".subagents" / "trusted-folders.json", os.R_OK)


def test_a_project_cannot_turn_the_sandbox_off(tmp_path: Path, home: Path) -> None:
    project = _project(tmp_path)
    (project / ".subagents.toml").write_text('sandbox = "off"\nsandbox-network = true\n')
    config, notes = run_config(project, trusted=True, home=home)
    assert config.sandbox is None and not config.sandbox_network
    assert any("sandbox settings are ignored" in n for n in notes)
    (home / ".subagents").mkdir()
    (home / ".subagents" / "config.toml").write_text('sandbox = "ask"\n')
    assert run_config(project, trusted=True, home=home)[0].sandbox == "ask"


def test_on_a_terminal_the_user_is_asked_once(tmp_path: Path, home: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from subagents.cli import run_cmd

    project = _project(tmp_path)
    (project / ".claude").mkdir()
    answers: list[str] = []

    def confirm(text: str, **kw: object) -> bool:
        answers.append(text)
        return True

    monkeypatch.setattr(run_cmd.sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(run_cmd, "_stderr_tty", lambda: True)
    monkeypatch.setattr(run_cmd.click, "confirm", confirm)
    assert run_cmd._trusted(project, False) == (True, project.resolve())
    assert answers == ["Trust this folder?"]
    assert run_cmd._trusted(project, False)[0]  # remembered: not asked again
    assert len(answers) == 1
    # off a terminal, nobody is asked and an unknown folder stays untrusted
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".subagents.toml").write_text("")
    monkeypatch.setattr(run_cmd, "_stderr_tty", lambda: False)
    assert run_cmd._trusted(other, False) == (False, other.resolve())
    assert len(answers) == 1


def test_an_untrusted_projects_settings_hooks_do_not_run(tmp_path: Path, home: Path) -> None:
    from subagents.cli.run_cmd import _settings_hooks

    project = _project(tmp_path)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SubagentStop": [
        {"hooks": [{"type": "command", "command": "touch pwned"}]}]}}))
    untrusted = _settings_hooks(project, trusted=False)
    assert not untrusted.hooks
    assert any("not trusted" in w for w in untrusted.warnings)
    assert _settings_hooks(project, trusted=True).hooks


def _stop_hooked(project: Path, marker: Path) -> AgentDefinition:
    hooks = {"Stop": (HookMatcher(hooks=(HookCommand(command=f"touch {marker}"),)),)}
    return AgentDefinition(name="stage", system_prompt="x", tools=("Glob",), hooks=hooks,
                           path=project / ".claude" / "agents" / "stage.md")


def _settings_hook(marker: Path) -> SettingsHooks:
    hooks = SettingsHooks()
    for event in ("SubagentStop", "SubagentStart", "TaskCreated", "TaskCompleted",
                  "TeammateIdle"):
        hooks.add({event: [{"hooks": [{"type": "command",
                                       "command": f"echo {event} >> {marker}"}]}]})
    return hooks


@pytest.mark.parametrize("agent_mode", [None, "plan"])
async def test_plan_mode_runs_no_settings_hook_in_a_pipeline(tmp_path: Path,
                                                             agent_mode: str | None) -> None:
    from subagents.dispatch.pipeline import run_pipeline

    own, settings = tmp_path / "own-hook-ran", tmp_path / "settings-hook-ran"
    agent = _stop_hooked(tmp_path, own).evolve(permission_mode=agent_mode)
    session = "default" if agent_mode else "plan"  # plan from the session, or from the stage
    runner = AgentRunner(ScriptedModel([text("planned")]), cwd=tmp_path, transcripts=False,
                         policy=PermissionPolicy(mode=session))
    result = await run_pipeline([agent], "go", runner=runner, hooks=_settings_hook(settings))
    assert result.stop_reason == "end_turn"
    assert not own.exists() and not settings.exists()
    assert any("plan mode runs no command" in w for w in result.warnings)


async def test_an_untrusted_stages_own_hooks_do_not_run_in_a_pipeline(tmp_path: Path) -> None:
    from subagents.dispatch.pipeline import run_pipeline

    own = tmp_path / "own-hook-ran"
    runner = AgentRunner(ScriptedModel([text("done")]), cwd=tmp_path, transcripts=False,
                         trust=TrustPolicy(untrusted=(tmp_path,)))
    await run_pipeline([_stop_hooked(tmp_path, own)], "go", runner=runner)
    assert not own.exists()


def test_the_cli_drops_settings_hooks_in_plan_mode(tmp_path: Path, home: Path) -> None:
    from subagents.cli.run_cmd import _settings_hooks

    project = _project(tmp_path)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({
        "env": {"X": "1"}, "hooks": {"SubagentStop": [
            {"hooks": [{"type": "command", "command": "touch pwned"}]}]}}))
    planned = _settings_hooks(project, trusted=True, plan=True)
    assert not planned.has("SubagentStop") and planned.env == {"X": "1"}
    assert any("plan mode" in w for w in planned.warnings)
    assert _settings_hooks(project, trusted=True).has("SubagentStop")


async def test_agents_from_a_file_in_an_untrusted_project_run_no_hooks(tmp_path: Path) -> None:
    """`--agents @FILE` with the file inside a project nobody trusted: that project's text,
    so its agents' hooks do not run (inline `--agents` JSON is the user's own words)."""
    from dataclasses import replace

    from subagents.definition import Scope

    project, marker = tmp_path / "cloned", tmp_path / "hook-ran"
    project.mkdir()
    agent = replace(hooked_agent(project, marker), path=None, source=Scope.CLI)
    inside = TrustPolicy(untrusted=(project.resolve(),),
                         cli_agents_file=project / "agents.json")
    warnings = await run_ls(agent, tmp_path, trust=inside)
    assert not marker.exists()
    assert any("not trusted" in w for w in warnings)
    typed = TrustPolicy(untrusted=(project.resolve(),))  # inline JSON: no file, the user's
    await run_ls(agent, tmp_path, trust=typed)
    assert marker.exists()


def test_the_agents_option_remembers_the_file_it_read(tmp_path: Path) -> None:
    import click

    from subagents.cli.options import agents_option

    seen: list[object] = []

    @click.command()
    @agents_option
    def show(agents: str | None) -> None:
        seen.append(getattr(agents, "source", None))

    source = tmp_path / "agents.json"
    source.write_text('{"a": {"description": "d", "prompt": "p"}}')
    assert CliRunner().invoke(show, ["--agents", f"@{source}"]).exit_code == 0
    assert CliRunner().invoke(show, ["--agents", source.read_text()]).exit_code == 0
    assert seen == [source.absolute(), None]
