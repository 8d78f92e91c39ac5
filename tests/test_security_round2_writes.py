"""Issue 20 (round two): ``sync``, ``convert``, ``new`` and ``fix`` never write through a
symbolic link out of the project (a repository's ``.qwen/agents`` linked to the user's
``~/.claude/agents`` must not plant a user-scope agent)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.fs import LeavesProject, atomic_write, link_escape

AGENT = """---
name: helper
description: Answers questions about the build.
---
You help with the build.
"""


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A project and, beside it, the user's agents folder (all inside tmp_path)."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "helper.md").write_text(AGENT, encoding="utf-8")
    user = tmp_path / "home" / ".claude" / "agents"
    user.mkdir(parents=True)
    return project, user


def _in(folder: Path, *args: str) -> tuple[int, str]:
    with contextlib.chdir(folder):
        r = CliRunner().invoke(cli, list(args))
    # a SubagentError reaches the entry point (which prints it) as the exception
    return r.exit_code, r.output + (str(r.exception) if r.exception else "")


def test_link_escape_judges_the_folders_not_the_leaf(layout: tuple[Path, Path]) -> None:
    project, user = layout
    (project / ".qwen").mkdir()
    (project / ".qwen" / "agents").symlink_to(user)
    assert link_escape(project / ".qwen" / "agents" / "x.md", project)
    assert link_escape(project / ".qwen" / "agents" / "new" / "x.md", project)
    assert link_escape(project / "src" / "x.md", project) is None
    assert link_escape(user / "x.md", project) is None  # the user named it: theirs
    with pytest.raises(LeavesProject):
        atomic_write(project / ".qwen" / "agents" / "x.md", "x", within=project)
    assert list(user.iterdir()) == []


def test_sync_does_not_write_through_a_linked_harness_folder(layout: tuple[Path, Path]) -> None:
    project, user = layout
    (project / ".qwen").mkdir()
    (project / ".qwen" / "agents").symlink_to(user)
    code, out = _in(project, "sync", "--to", "qwen")
    assert code != 0, out
    assert "symbolic link" in out
    assert list(user.iterdir()) == []


def test_sync_does_not_remove_through_a_linked_harness_folder(
        layout: tuple[Path, Path]) -> None:
    project, user = layout
    code, out = _in(project, "sync", "--to", "qwen")
    assert code == 0, out
    generated = (project / ".qwen" / "agents" / "helper.md").read_text(encoding="utf-8")
    (user / "helper.md").write_text(generated, encoding="utf-8")  # the user's own copy
    (project / ".claude" / "agents" / "helper.md").unlink()  # its source is gone
    (project / ".qwen" / "agents" / "helper.md").unlink()
    (project / ".qwen" / "agents").rmdir()
    (project / ".qwen" / "agents").symlink_to(user)
    _in(project, "sync", "--to", "qwen")
    assert (user / "helper.md").exists()


def test_new_does_not_write_through_a_linked_agents_folder(layout: tuple[Path, Path]) -> None:
    project, user = layout
    (project / ".claude" / "agents" / "helper.md").unlink()
    (project / ".claude" / "agents").rmdir()
    (project / ".claude" / "agents").symlink_to(user)
    code, out = _in(project, "new", "planted")
    assert code != 0, out
    assert "symbolic link" in out
    assert list(user.iterdir()) == []


def test_convert_out_does_not_write_through_a_link(layout: tuple[Path, Path]) -> None:
    project, user = layout
    (project / "out").symlink_to(user)
    code, out = _in(project, "convert", ".claude/agents/helper.md", "--to", "qwen",
                    "--out", "out")
    assert code != 0, out
    assert "symbolic link" in out
    assert list(user.iterdir()) == []


def test_fix_does_not_write_through_a_linked_folder(layout: tuple[Path, Path]) -> None:
    project, user = layout
    # a description with ": " inside breaks YAML; fix would quote it
    (user / "broken.md").write_text("---\nname: rev\ndescription: Use when: the user asks\n"
                                    "tools: Read\n---\nBody\n", encoding="utf-8")
    before = (user / "broken.md").read_text(encoding="utf-8")
    (project / "linked").symlink_to(user)
    code, out = _in(project, "fix", "linked/broken.md")
    assert (user / "broken.md").read_text(encoding="utf-8") == before, out
    assert code != 0 and "symbolic link" in out
    code, out = _in(user, "fix", "broken.md")  # where it really is: the user's to fix
    assert code == 0 and (user / "broken.md").read_text(encoding="utf-8") != before, out


def test_write_nofollow_never_follows_a_swapped_folder(tmp_path: Path) -> None:
    from subagents.fs import write_nofollow

    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    target = (project / "docs" / "a.md").resolve()  # judged with links resolved
    (project / "docs").rmdir()
    (project / "docs").symlink_to(outside)  # swapped after the judgement
    with pytest.raises(OSError):
        write_nofollow(target, "x")
    assert list(outside.iterdir()) == []
    (project / "docs").unlink()
    (project / "docs").mkdir()
    (project / "docs" / "a.md").symlink_to(outside / "b.md")  # a link at the name itself
    write_nofollow(target, "mine")
    assert not (project / "docs" / "a.md").is_symlink()
    assert (project / "docs" / "a.md").read_text() == "mine"
    assert not (outside / "b.md").exists()


async def test_an_approved_write_refused_when_a_link_swaps_while_asking(tmp_path: Path) -> None:
    from subagents.providers.base import ToolUseBlock
    from subagents.runtime.hooks import RunHooks
    from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
    from subagents.runtime.tool_step import ToolStep
    from subagents.runtime.tools.base import ToolContext
    from subagents.runtime.tools.files import WriteTool
    from subagents.runtime.transcript import Transcript

    project = tmp_path / "project"
    (project / "notes").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()

    async def swap_then_yes(request: PermissionRequest) -> bool:
        (project / "notes").rmdir()  # what a parallel Bash call could do meanwhile
        (project / "notes").symlink_to(outside)
        return True

    policy = PermissionPolicy(ask=swap_then_yes)
    ctx = ToolContext(cwd=project, agent_name="t", policy=policy)
    write = WriteTool()
    step = ToolStep(ctx=ctx, hooks=RunHooks(), offered={"Write": write},
                    everything={"Write": write}, policy=policy,
                    transcript=Transcript(None, "t"), calls=[], warnings=[],
                    emit=lambda kind, data: None)
    msg = await step.run([ToolUseBlock("1", "Write", {"file_path": "notes/a.md",
                                                      "content": "x"})], 1)
    assert list(outside.iterdir()) == []
    assert "symbolic link changed" in str(msg.content)
