"""``plugin_of`` inside one run (``plugins_pinned``) answers as it does outside: the folder
walk and the manifest reads are shared by the files of a folder, the answers are not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def test_what_the_reader_says_of_files_it_cannot_read(tmp_path: Path) -> None:
    """The reader opens each file once and reads it with plain ``os.read``: a folder, a FIFO,
    a file over the limit and an empty file keep their findings."""
    import os

    from subagents.harnesses.loader import read_agent_file

    folder = tmp_path / "dir.md"
    folder.mkdir()
    assert [(d.rule, d.message) for d in read_agent_file(folder).diagnostics] == [
        ("SA015", "is a folder, not a file")]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.md")
        assert [(d.rule, d.message) for d in read_agent_file(tmp_path / "pipe.md").diagnostics
                ] == [("SA015", "not a regular file")]
    big = tmp_path / "big.md"
    big.write_text("---\nname: big\ndescription: d\n---\n" + "x" * 200)
    assert [d.rule for d in read_agent_file(big, max_bytes=100).diagnostics] == ["SA002"]
    whole = read_agent_file(big, max_bytes=1000)
    assert whole.document is not None and whole.document.body == "x" * 200
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    assert [d.rule for d in read_agent_file(empty).diagnostics] == ["SA012"]
    assert [d.rule for d in read_agent_file(tmp_path / "gone.md").diagnostics] == ["SA015"]


def test_a_reading_attached_keeps_every_other_field() -> None:
    """``LoadResult.with_reading`` (what the Claude Code emulation returns for every file)
    carries every field but the two it changes: a field added later must be carried too."""
    import dataclasses

    from subagents.harnesses.loader import LoadResult

    given = {f.name: object() for f in dataclasses.fields(LoadResult)}
    result = LoadResult(**given)  # type: ignore[arg-type]
    diagnostics, view = object(), object()
    changed = result.with_reading(diagnostics, view)  # type: ignore[arg-type]
    assert {f.name: getattr(changed, f.name) for f in dataclasses.fields(LoadResult)} == {
        **given, "diagnostics": diagnostics, "claude_code": view}


def test_evolve_is_replace() -> None:
    """``AgentDefinition.evolve`` gives what ``dataclasses.replace`` gives."""
    import dataclasses

    from subagents.definition import AgentDefinition, SourceLocation

    d = AgentDefinition(name="a", description="d", tools=("Read",), extra={"x": 1},
                        locations={"name": SourceLocation(2, 1)}, body_line=5, max_turns=3)
    cases: list[dict[str, Any]] = [{}, {"name": "b"},
                                   {"tools": None, "body_line": 9, "extra": {}}]
    for changes in cases:
        new, ref = d.evolve(**changes), dataclasses.replace(d, **changes)
        assert new == ref and new.locations == ref.locations and new.body_line == ref.body_line
        assert all(getattr(new, f.name) is getattr(ref, f.name)
                   for f in dataclasses.fields(AgentDefinition))
