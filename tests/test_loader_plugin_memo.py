"""``plugin_of`` inside one run (``plugins_pinned``) answers as it does outside: the folder
walk and the manifest reads are shared by the files of a folder, the answers are not."""

from __future__ import annotations

import json
from pathlib import Path

from subagents.harnesses.layout import plugin_of, plugins_pinned


def _plugin(root: Path, name: str | None, agents: object = None) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    manifest: dict[str, object] = {} if name is None else {"name": name}
    if agents is not None:
        manifest["agents"] = agents
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    return root


def _md(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nname: x\ndescription: y\n---\nb\n")
    return path


def test_plugin_of_is_the_same_with_and_without_the_run_memo(tmp_path: Path) -> None:
    plain = _plugin(tmp_path / "plain", "plain")
    listed = _plugin(tmp_path / "listed", "listed", ["./special", "one.md"])
    nameless = _plugin(tmp_path / "nameless-dir", None)
    outer = _plugin(tmp_path / "outer", "outer")
    inner = _plugin(outer / "agents" / "inner", "inner")
    files = {
        _md(plain / "agents" / "a.md"): "plain",
        _md(plain / "agents" / "deep" / "b.md"): "plain",
        _md(plain / "agents" / "c.md"): "plain",  # a second file of a remembered folder
        _md(plain / "other" / "d.md"): None,  # in the plugin, outside its agents
        _md(listed / "special" / "e.md"): "listed",
        _md(listed / "one.md"): "listed",  # a listed file
        _md(listed / "two.md"): None,  # same folder, not listed
        _md(listed / "agents" / "f.md"): None,  # the manifest replaces agents/
        _md(nameless / "agents" / "g.md"): "nameless-dir",
        _md(inner / "agents" / "h.md"): "inner",  # the nearest plugin decides
        _md(outer / "agents" / "i.md"): "outer",
        _md(tmp_path / "loose" / ".claude" / "agents" / "j.md"): None,
    }
    outside = {p: plugin_of(p) for p in files}
    assert outside == files
    with plugins_pinned():
        for _ in range(2):  # the second pass answers from the memo
            assert {p: plugin_of(p) for p in files} == files
        with plugins_pinned():  # nested: the outer run's memo stands
            assert {p: plugin_of(p) for p in files} == files


def test_the_memo_lasts_one_run(tmp_path: Path) -> None:
    agent = _md(tmp_path / "later" / "agents" / "a.md")
    with plugins_pinned():
        assert plugin_of(agent) is None
    _plugin(tmp_path / "later", "later")  # a plugin made between two runs is seen
    with plugins_pinned():
        assert plugin_of(agent) == "later"
