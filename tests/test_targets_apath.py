"""A walked file's absolute path is its folder's, worked out once, with its name joined.

``validate`` keys the result cache by ``os.path.abspath`` of every file, and finds a plugin's
agent by it; the walk works the folder's out once and joins each file name to it.  These
tests hold that shortcut to ``os.path.abspath`` of the file, however the folder was named
(relative, with ``.`` and ``..``, repeated or trailing slashes, through a linked folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from subagents.harnesses.plugins import plugin_of
from subagents.lint.targets import _targets

_AGENT = "---\nname: {name}\ndescription: x\n---\nbody\n"


def _tree(root: Path) -> None:
    agents = root / "proj" / ".claude" / "agents"
    (agents / "sub" / "deeper").mkdir(parents=True)
    for i, folder in enumerate((agents, agents / "sub", agents / "sub" / "deeper")):
        (folder / f"a{i}.md").write_text(_AGENT.format(name=f"a{i}"))
    (agents / "store.agents.json").write_text("{}")
    outside = root / "elsewhere"
    outside.mkdir()
    (outside / "out.md").write_text(_AGENT.format(name="out"))
    os.symlink(outside / "out.md", agents / "link-out.md")
    os.symlink(outside, agents / "linked-folder")
    plug = root / "proj" / "plug"
    (plug / ".claude-plugin").mkdir(parents=True)
    (plug / "agents").mkdir()
    (plug / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    (plug / "agents" / "pa.md").write_text("---\ndescription: x\n---\nbody\n")


@pytest.mark.parametrize("given", [
    "proj", "./proj", "proj/", "proj//.claude/agents", "proj/.claude/../.claude/agents/",
    "proj/plug/../plug", "ABS", "ABS/proj/./plug/agents", ".",
])
def test_a_walked_files_absolute_path_is_abspath_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    p = Path(given.replace("ABS", str(tmp_path)))
    targets = list(_targets([p], [None], None))
    assert targets
    for target in targets:
        assert target.apath == os.path.abspath(target.path), target
        assert plugin_of(target.path, target.apath) == plugin_of(target.path)
    if "plug" in given or given in (".", "ABS"):
        assert any(plugin_of(t.path, t.apath) == "p" for t in targets)


def test_a_named_files_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path / "proj" / "plug")
    for given in ("agents/pa.md", "./agents/../agents/pa.md", str(tmp_path / "proj/plug/x/../agents/pa.md")):
        (target,) = _targets([Path(given)], [given], None)
        assert target.apath == os.path.abspath(given)
        assert plugin_of(target.path, target.apath) == plugin_of(target.path) == "p"
