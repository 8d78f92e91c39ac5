"""`subagents validate` with no path reads exactly the folders the registry reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagents.lint.validate import default_paths
from subagents.registry.core import AgentRegistry

AGENT = "---\nname: {name}\ndescription: An agent for checking scope agreement.\n---\nBody text.\n"


def put(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(AGENT.format(name=name))


@pytest.mark.parametrize("git", [True, False])
def test_default_paths_match_the_registry(tmp_path: Path, home: Path, git: bool) -> None:
    outer = tmp_path / "outer"
    repo = outer / "repo"
    sub = repo / "pkg"
    sub.mkdir(parents=True)
    if git:
        (repo / ".git").mkdir()
    put(outer / ".claude" / "agents", "outside-the-repo")
    put(repo / ".claude" / "agents", "at-the-root")
    put(sub / ".claude" / "agents", "in-the-subfolder")
    put(home / ".claude" / "agents", "from-home")
    folders = default_paths(sub, home)
    files = {p.stem for f in folders for p in f.glob("*.md")}
    registry = AgentRegistry(cwd=sub, home=home)
    registry.load_all()
    seen = {e.name for e in registry.list(include_builtin=False)}
    assert files == seen
    expected = {"in-the-subfolder", "from-home"} | ({"at-the-root"} if git else set())
    assert seen == expected


def test_validate_in_a_folder_without_agents_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from subagents.cli.main import cli

    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["validate"])
    assert r.exit_code == 0
    assert "0 files" in r.stdout and "no agent files found" in r.stderr
