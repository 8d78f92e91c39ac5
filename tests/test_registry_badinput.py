"""Bad input for the registry (issue 3): every case a test, every case a diagnostic."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import subagents.registry.core as registry_mod
from registry_helpers import layout, write_agent
from subagents.registry.core import AgentRegistry

__all__ = ["layout"]


def _names(reg: AgentRegistry) -> set[str]:
    return {e.name for e in reg.list(include_builtin=False)}


def _rules(reg: AgentRegistry) -> set[tuple[str, str]]:
    return {(d.path, d.rule) for d in reg.diagnostics()}


def test_unreadable_folder_chmod(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "fine")
    locked = layout["sub_agents"] / "locked"
    write_agent(locked, "hidden")
    os.chmod(locked, 0)
    try:
        reg = AgentRegistry().load_all()
        assert "fine" in _names(reg)
        if os.access(locked, os.R_OK | os.X_OK):
            pytest.skip(
                "running as root: chmod 000 does not stop root from reading the "
                "folder (the monkeypatched test below covers the code path)"
            )
        assert "hidden" not in _names(reg)
        assert (".claude/agents/locked", "SA603") in _rules(reg)
    finally:
        os.chmod(locked, 0o755)


def test_unreadable_folder_permission_error(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_agent(layout["sub_agents"], "fine")
    locked = layout["sub_agents"] / "locked"
    write_agent(locked, "hidden")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    reg = AgentRegistry().load_all()
    assert "fine" in _names(reg)
    assert "hidden" not in _names(reg)
    diag = next(d for d in reg.diagnostics() if d.rule == "SA603")
    assert diag.path == ".claude/agents/locked"
    assert "Permission denied" in diag.message and diag.severity.value == "error"


def test_symlink_loop_is_reported_once_not_followed_forever(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "fine")
    (layout["sub_agents"] / "nested").mkdir()
    os.symlink(layout["sub_agents"], layout["sub_agents"] / "nested" / "back")
    os.symlink("self.md", layout["sub_agents"] / "self.md")  # a link to itself: ELOOP
    reg = AgentRegistry().load_all()
    assert _names(reg) == {"fine"}
    rules = _rules(reg)
    assert (".claude/agents/nested/back", "SA604") in rules
    assert (".claude/agents/self.md", "SA015") in rules


def test_symlinked_agents_folder_is_followed(layout: dict[str, Path], tmp_path: Path) -> None:
    shared = tmp_path / "shared-agents"
    write_agent(shared, "shared-one")
    layout["sub_agents"].parent.mkdir(parents=True)
    os.symlink(shared, layout["sub_agents"])
    assert "shared-one" in _names(AgentRegistry().load_all())


def test_agents_path_that_is_a_file(layout: dict[str, Path]) -> None:
    layout["sub_agents"].parent.mkdir(parents=True)
    layout["sub_agents"].write_text("---\nname: oops\ndescription: d\n---\n")
    write_agent(layout["user_agents"], "still-here")
    reg = AgentRegistry().load_all()
    assert _names(reg) == {"still-here"}
    diag = next(d for d in reg.diagnostics() if d.rule == "SA605")
    assert diag.path == ".claude/agents" and "not a folder" in diag.message


def test_file_deleted_half_way_through_the_scan(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_agent(layout["sub_agents"], "stays")
    doomed = write_agent(layout["sub_agents"], "doomed")
    real = registry_mod.read_agent_file

    def read(path: Any, **kw: Any) -> Any:
        if Path(path) == doomed and doomed.exists():
            doomed.unlink()  # gone after the listing, before the read
        return real(path, **kw)

    monkeypatch.setattr(registry_mod, "read_agent_file", read)
    reg = AgentRegistry().load_all()
    assert _names(reg) == {"stays"}
    assert not reg.diagnostics()  # a file that is gone is not an error


def test_file_deleted_after_read_before_restat(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    doomed = write_agent(layout["sub_agents"], "doomed")
    real = registry_mod.read_agent_file

    def read(path: Any, **kw: Any) -> Any:
        result = real(path, **kw)
        if Path(path) == doomed:
            doomed.unlink()
        return result

    monkeypatch.setattr(registry_mod, "read_agent_file", read)
    assert _names(AgentRegistry().load_all()) == set()


def test_file_rewritten_half_way_is_read_again(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_agent(layout["sub_agents"], "moving", description="old")
    real = registry_mod.read_agent_file
    calls: list[Path] = []

    def read(p: Any, **kw: Any) -> Any:
        result = real(p, **kw)
        calls.append(Path(p))
        if len(calls) == 1:  # the writer finishes just after our read
            write_agent(layout["sub_agents"], "moving", description="the new description")
        return result

    monkeypatch.setattr(registry_mod, "read_agent_file", read)
    reg = AgentRegistry().load_all()
    assert calls == [path, path]
    assert reg.entry("moving").description == "the new description"


def test_file_that_never_stops_changing_gets_a_warning(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_agent(layout["sub_agents"], "busy")
    real = registry_mod.read_agent_file
    n = {"i": 0}

    def read(p: Any, **kw: Any) -> Any:
        result = real(p, **kw)
        n["i"] += 1
        write_agent(layout["sub_agents"], "busy", description="x" * (10 + n["i"]))
        return result

    monkeypatch.setattr(registry_mod, "read_agent_file", read)
    reg = AgentRegistry().load_all()
    assert (".claude/agents/busy.md", "SA606") in _rules(reg)
    assert "busy" in _names(reg)  # what was read still loads; it is re-read next time


@pytest.mark.slow
def test_ten_thousand_files_in_one_folder(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = layout["sub_agents"]
    folder.mkdir(parents=True)
    past = 1_600_000_000
    for i in range(10_000):
        p = folder / f"a{i:05d}.md"
        p.write_text(f"---\nname: agent-{i:05d}\ndescription: Agent number {i}.\n---\nbody {i}\n")
        os.utime(p, (past, past))
    os.utime(folder, (past, past))
    reg = AgentRegistry().load_all()
    assert len(reg.list(include_builtin=False)) == 10_000
    assert not reg.diagnostics()
    assert reg.get("agent-09999").system_prompt == "body 9999"
    # a reload with nothing changed reads no file
    calls = []
    real = registry_mod.read_agent_file
    monkeypatch.setattr(
        registry_mod, "read_agent_file", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    assert reg.reload() == []
    assert calls == []


def test_non_string_names(layout: dict[str, Path]) -> None:
    (layout["sub_agents"]).mkdir(parents=True)
    (layout["sub_agents"] / "listname.md").write_text("---\nname: [a, b]\ndescription: d\n---\nx\n")
    (layout["sub_agents"] / "intname.md").write_text("---\nname: 123\ndescription: d\n---\nx\n")
    cli = json.dumps({"j": {"name": 5, "description": "d", "prompt": "p"}})
    reg = AgentRegistry(cli_agents=cli).load_all()
    names = _names(reg)
    assert "a" not in names and "['a', 'b']" not in names
    rules = _rules(reg)
    assert (".claude/agents/listname.md", "SA014") in rules
    assert ("--agents", "SA014") in rules
    # the JSON key is the name: the entry still loads under "j"
    assert "j" in names


def test_empty_binary_and_huge_files(layout: dict[str, Path]) -> None:
    folder = layout["sub_agents"]
    folder.mkdir(parents=True)
    (folder / "empty.md").write_text("")
    (folder / "bin.md").write_bytes(b"\x00\x01\x02---")
    (folder / "huge.md").write_text("---\nname: huge\ndescription: d\n---\n" + "x" * (2 << 20))
    write_agent(folder, "ok")
    reg = AgentRegistry().load_all()
    assert _names(reg) == {"ok"}
    rules = {r for _p, r in _rules(reg)}
    assert {"SA012", "SA011", "SA002"} <= rules


def test_hidden_files_load_and_non_markdown_is_ignored(layout: dict[str, Path]) -> None:
    # Claude Code 2.1.330 scans with ripgrep --hidden --no-ignore --glob '*.md' (measured)
    folder = layout["sub_agents"]
    write_agent(folder, "visible")
    write_agent(folder, "hidden", filename=".#hidden.md")
    write_agent(folder / ".git", "in-git")
    (folder / "notes.txt").write_text("not an agent")
    (folder / "upper.MD").write_text("---\nname: upper\ndescription: d\n---\nx\n")
    reg = AgentRegistry().load_all()
    assert _names(reg) == {"visible", "hidden", "in-git"}
    assert not reg.diagnostics()
