"""Issue 12, item 3: an edit must not become execution.

Writes to ``.claude/``, ``.codex/``, ``.git/``, ``.subagents.toml``, ``pyproject.toml``, agent
stores, hook and skill files need explicit permission (a path rule or the user's yes) in every
mode but a configured bypass; agents written during a run are not loaded into that run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from dispatch_helpers import PerAgentModel
from runtime_helpers import ctx_for
from subagents.cli.main import cli
from subagents.dispatch.main_thread import run_main_thread
from subagents.registry.core import AgentRegistry
from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
from subagents.runtime.protected import protected_reason
from subagents.runtime.tools import builtin_tools
from subagents.testing import text, tool_call

WRITE = builtin_tools()["Write"]
EDIT = builtin_tools()["Edit"]

PROTECTED = [
    ".claude/agents/helper.md", ".claude/settings.json", ".claude/skills/x/SKILL.md",
    ".codex/config.toml", ".git/config", ".git/hooks/pre-commit", ".subagents.toml",
    "pyproject.toml", "agents.json", "agents.json.lock", "sub/.mcp.json", ".envrc",
    ".githooks/pre-push", "skills/x/SKILL.md", ".CLAUDE/agents/x.md", "a/../.git/config",
]


@pytest.mark.parametrize("path", PROTECTED)
async def test_accept_edits_does_not_cover_protected_paths(tmp_path: Path, path: str) -> None:
    policy = PermissionPolicy(mode="acceptEdits", allow_rules=("Write", "Edit"))
    d = await policy.decide(WRITE, {"file_path": path, "content": "x"}, ctx_for(tmp_path))
    assert not d.allowed, path
    assert "protected" in d.reason


@pytest.mark.parametrize("path", ["src/app.py", "README.md", "docs/claude.md", "gitconfig",
                                  "my.git.txt", "tests/agents_json.py"])
async def test_ordinary_paths_are_unchanged(tmp_path: Path, path: str) -> None:
    policy = PermissionPolicy(mode="acceptEdits")
    d = await policy.decide(WRITE, {"file_path": path, "content": "x"}, ctx_for(tmp_path))
    assert d.allowed, path


async def test_a_blanket_yes_is_not_explicit_permission(tmp_path: Path) -> None:
    asked: list[PermissionRequest] = []

    async def yes_to_ordinary(request: PermissionRequest) -> bool:  # what --yes does
        asked.append(request)
        return request.protected is None

    policy = PermissionPolicy(ask=yes_to_ordinary)
    ctx = ctx_for(tmp_path)
    assert (await policy.decide(WRITE, {"file_path": "ok.txt", "content": ""}, ctx)).allowed
    d = await policy.decide(WRITE, {"file_path": ".subagents.toml", "content": ""}, ctx)
    assert not d.allowed
    assert asked[-1].protected and ".subagents.toml" in asked[-1].protected


async def test_explicit_permission_lets_it_through(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    call = {"file_path": ".claude/agents/a.md", "content": "x"}
    rule = PermissionPolicy(mode="acceptEdits", allow_rules=("Write(.claude/**)",))
    assert (await rule.decide(WRITE, call, ctx)).allowed

    async def user_says_yes(request: PermissionRequest) -> bool:
        return True

    assert (await PermissionPolicy(ask=user_says_yes).decide(WRITE, call, ctx)).allowed
    bypass = PermissionPolicy(mode="bypassPermissions", allow_bypass=True)
    assert (await bypass.decide(WRITE, call, ctx)).allowed
    # bypass that configuration does not allow is default mode: still refused
    not_allowed = PermissionPolicy(mode="bypassPermissions")
    assert not (await not_allowed.decide(WRITE, call, ctx)).allowed
    dont_ask = PermissionPolicy(mode="dontAsk", ask=user_says_yes)
    assert not (await dont_ask.decide(WRITE, call, ctx)).allowed


async def test_a_symlink_into_git_is_seen_through(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    os.symlink(tmp_path / ".git", tmp_path / "innocent")
    policy = PermissionPolicy(mode="acceptEdits")
    d = await policy.decide(EDIT, {"file_path": "innocent/config", "old_string": "a",
                                   "new_string": "b"}, ctx_for(tmp_path))
    assert not d.allowed


def test_protected_reason_names_the_danger() -> None:
    assert "hooks" in (protected_reason(Path("/p/.git/config")) or "")
    assert protected_reason(Path("/p/src/main.py")) is None
    assert protected_reason(Path("/p/.agents.json.x1y2.tmp"))


def _agent_file(root: Path, name: str, hooks: str = "") -> None:
    d = root / ".claude" / "agents"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.md").write_text(f"---\nname: {name}\ndescription: {name} agent\n{hooks}---\n"
                                  f"You are {name}.\n")


def test_an_agent_written_during_the_run_is_not_loaded_into_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the project root
    _agent_file(tmp_path, "writer")
    marker = tmp_path / "hook-ran"
    hook = ("hooks:\n  PreToolUse:\n    - matcher: \"*\"\n      hooks:\n        - type: command\n"
            f"          command: touch {marker}\n")
    helper = (f"---\nname: helper\ndescription: helps\n{hook}---\nhelp\n")
    model = PerAgentModel({
        "main": [tool_call("Write", {"file_path": ".claude/agents/helper.md", "content": helper}),
                 tool_call("Task", {"prompt": "go", "subagent_type": "helper",
                                    "description": "x"}),
                 text("done")],
        "helper": [tool_call("Read", {"file_path": "x"}), text("helped")],
    })
    registry = AgentRegistry(cwd=tmp_path)
    # Even with the write approved (a configured bypass), the helper is not in this run.
    result = run_main_thread("go", registry=registry, model=model, cwd=tmp_path,
                             policy=PermissionPolicy(mode="bypassPermissions",
                                                     allow_bypass=True))
    assert (tmp_path / ".claude/agents/helper.md").exists()
    assert not marker.exists()
    assert "helper" not in model.requests
    assert [c.stop_reason for c in result.children] == ["error"]
    assert "not found" in (result.children[0].error or "")


def test_cli_yes_refuses_a_protected_write(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('[{"tool_calls": [{"name": "Write", "input": {"file_path": '
                      '".subagents.toml", "content": "allow = [\\"Bash\\"]"}}]}, '
                      '{"text": "done"}]')
    res = CliRunner().invoke(cli, ["run", "--provider", "scripted", "--script", str(script),
                                   "--yes", "--no-transcript", "--cwd", str(tmp_path),
                                   "--permission-mode", "acceptEdits", "hi"])
    assert not (tmp_path / ".subagents.toml").exists(), res.output
