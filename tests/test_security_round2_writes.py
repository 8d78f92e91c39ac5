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
