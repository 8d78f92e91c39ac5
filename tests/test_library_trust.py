"""The library applies trust as the command line does: through ``run_team`` an untrusted
project's settings hooks and its agents' own hooks never run; once the user trusted the
project (remembered, or ``trusted=True``), they do."""

from __future__ import annotations

import json
from pathlib import Path

from subagents.definition import AgentDefinition, HookCommand, HookMatcher, Scope
from subagents.dispatch.teams import run_team
from subagents.lint.trust import TrustStore, project_trust
from subagents.runtime.settings_hooks import SettingsHooks
from subagents.testing import ScriptedModel, text, tool_call


def _project(tmp_path: Path) -> tuple[Path, Path, Path, AgentDefinition]:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".claude").mkdir()
    settings_marker = tmp_path / "settings-hook-ran"
    agent_marker = tmp_path / "agent-hook-ran"
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"TaskCreated": [
        {"hooks": [{"type": "command", "command": f"touch {settings_marker}"}]}]}}))
    lead = AgentDefinition(
        name="lead", description="Leads.", system_prompt="You lead.",
        hooks={"Stop": (HookMatcher(hooks=(HookCommand(command=f"touch {agent_marker}"),)),)},
        path=root / ".claude" / "agents" / "lead.md", source=Scope.PROJECT)
    return root, settings_marker, agent_marker, lead


def _model() -> ScriptedModel:
    return ScriptedModel([tool_call("TaskCreate", {"subject": "a", "description": "b"}),
                          text("done")])


def test_an_untrusted_projects_hooks_never_run_through_run_team(tmp_path: Path) -> None:
    root, settings_marker, agent_marker, lead = _project(tmp_path)
    outcome = run_team("go", model=_model(), agents=[], cwd=root, lead_agent=lead)
    assert outcome.result.final_text == "done"
    assert not settings_marker.exists() and not agent_marker.exists()
    warnings = " ".join(outcome.result.warnings)
    assert "settings.json" in warnings and "not trusted" in warnings
    assert "hooks did not run" in warnings


def test_a_trusted_projects_hooks_run_through_run_team(tmp_path: Path) -> None:
    root, settings_marker, agent_marker, lead = _project(tmp_path)
    TrustStore().trust(root)  # the user said yes once (HOME is the test's own)
    assert project_trust(root).trusted
    outcome = run_team("go", model=_model(), agents=[], cwd=root, lead_agent=lead)
    assert outcome.result.final_text == "done"
    assert settings_marker.exists() and agent_marker.exists()


def test_the_caller_can_decide_trust(tmp_path: Path) -> None:
    root, settings_marker, agent_marker, lead = _project(tmp_path)
    run_team("go", model=_model(), agents=[], cwd=root, lead_agent=lead, trusted=True)
    assert settings_marker.exists() and agent_marker.exists()


def test_settings_hooks_for_a_project_follow_its_trust(tmp_path: Path) -> None:
    root, *_ = _project(tmp_path)
    untrusted = SettingsHooks.for_project(root, trusted=False)
    assert untrusted.hooks == {} and "not trusted" in untrusted.warnings[0]
    trusted = SettingsHooks.for_project(root, trusted=True)
    assert "TaskCreated" in trusted.hooks
    planned = SettingsHooks.for_project(root, trusted=True, plan=True)
    assert not any(m.hooks for ms in planned.hooks.values() for m in ms)
