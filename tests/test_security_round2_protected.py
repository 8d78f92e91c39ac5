"""Issue 20 (round two): one protected list, derived from the harness table, for Write/Edit
and the Bash sandbox alike: every folder or file a supported harness reads agents, hooks,
MCP servers or settings from."""

from __future__ import annotations

import os
from pathlib import Path, PurePath

import pytest

from runtime_helpers import ctx_for
from subagents.runtime.permissions import PermissionMode, PermissionPolicy
from subagents.runtime.protected import protected_reason
from subagents.runtime.sandbox import SandboxSettings, unavailable
from subagents.runtime.tools.files import WriteTool
from subagents.runtime.tools.shell import BashTool

HARNESS_FILES = [".qwen/agents/helper.md", ".qwen/settings.json", ".gemini/agents/a.md",
                 ".gemini/settings.json", ".opencode/agents/a.md", ".opencode/agent/a.md",
                 "opencode.json", "opencode.jsonc", ".github/agents/a.agent.md",
                 ".cursor/agents/a.md", ".cursor/hooks.json", ".cursor/mcp.json",
                 ".factory/droids/a.md", ".factory/mcp.json", ".codex/config.toml",
                 "sub/project/.qwen/agents/x.md", ".GitHub/Agents/x.md"]


@pytest.mark.parametrize("rel", HARNESS_FILES)
def test_every_harness_folder_and_settings_file_is_protected(rel: str) -> None:
    assert protected_reason(PurePath("/p") / rel), rel


def test_the_harness_tables_list_is_protected_in_full() -> None:
    table = pytest.importorskip("subagents.harnesses.table")
    if not hasattr(table, "protected_paths"):
        pytest.skip("this checkout's harness table has no protected_paths() yet")
    for rel in table.protected_paths():
        assert protected_reason(PurePath("/p") / rel / "x.md"), rel
        assert protected_reason(PurePath("/p") / rel), rel


def test_a_github_workflow_is_not_a_harness_file() -> None:
    assert protected_reason(PurePath("/p/.github/workflows/ci.yml")) is None
    assert protected_reason(PurePath("/p/src/agents/a.md")) is None


@pytest.mark.parametrize("rel", [".qwen/agents/helper.md", ".github/agents/a.agent.md",
                                 ".gemini/settings.json", "opencode.json"])
async def test_accept_edits_cannot_write_a_harness_file(tmp_path: Path, rel: str) -> None:
    policy = PermissionPolicy(mode=PermissionMode.ACCEPT_EDITS, allow_rules=("Write", "Edit"))
    d = await policy.decide(WriteTool(), {"file_path": rel, "content": "x"}, ctx_for(tmp_path))
    assert not d.allowed, rel
    assert "protected" in d.reason


@pytest.mark.parametrize("rel", [".qwen/agents/helper.md", ".github/agents/a.agent.md",
                                 ".cursor/mcp.json", "opencode.json"])
async def test_the_sandbox_protects_harness_files(tmp_path: Path, rel: str) -> None:
    reason = unavailable()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the sandbox tests, but {reason}")
        pytest.skip(reason)
    target = tmp_path / rel
    if "/" in rel:
        target.parent.mkdir(parents=True)
    tool = BashTool(sandbox=SandboxSettings(), default_timeout_ms=60_000)
    out = await tool.run({"command": f"mkdir -p $(dirname {rel}); echo hook > {rel}"},
                         ctx_for(tmp_path))
    assert out.is_error
    assert not target.exists() or target.read_text() != "hook\n"


def test_a_projects_writable_dirs_stay_inside_it(tmp_path: Path) -> None:
    from subagents.lint.trust import run_config

    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".subagents.toml").write_text('writable-dirs = ["/", "..", "build"]\n')
    config, notes = run_config(project, trusted=True, home=home)
    assert [d.resolve() for d in config.writable_dirs] == [(project / "build").resolve()]
    assert sum("outside the project and is ignored" in n for n in notes) == 2
    (home / ".subagents").mkdir()
    (home / ".subagents" / "config.toml").write_text(f'writable-dirs = ["{tmp_path / "x"}"]\n')
    config, _ = run_config(project, trusted=True, home=home)
    assert tmp_path / "x" in config.writable_dirs  # the user's own word counts


async def test_grep_and_glob_never_follow_a_link_out_of_the_project(tmp_path: Path) -> None:
    from subagents.runtime.tools.search import GlobTool, GrepTool

    secret = tmp_path / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- SECRETKEY\n")
    project = tmp_path / "project"
    (project / "notes").mkdir(parents=True)
    (project / "notes" / "key.txt").symlink_to(secret)
    (project / "notes" / "mine.txt").write_text("SECRETKEY is a word here\n")
    (project / "notes" / "alias.txt").symlink_to(project / "notes" / "mine.txt")
    policy = PermissionPolicy(mode=PermissionMode.PLAN)
    ctx = ctx_for(project, policy=policy)
    out = await GrepTool().run({"pattern": "SECRETKEY", "output_mode": "content"}, ctx)
    assert "BEGIN OPENSSH" not in out.content and "key.txt" not in out.content
    assert "mine.txt" in out.content and "alias.txt" in out.content  # a link inside: fine
    out = await GlobTool().run({"pattern": "**/*.txt"}, ctx)
    assert "key.txt" not in out.content and "mine.txt" in out.content
