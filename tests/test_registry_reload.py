"""reload(): stat-only when nothing changed, precise events when something did (REQ-SUB-028)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import subagents.registry as registry_mod
from registry_helpers import layout, write_agent
from subagents.registry import AgentRegistry

__all__ = ["layout"]

PAST = 1_600_000_000


def _age(*paths: Path) -> None:
    """Move mtimes into the past so the racy-stamp guard trusts them."""
    for p in paths:
        os.utime(p, (PAST, PAST))


def _events(reg: AgentRegistry) -> list[tuple[str, str | None]]:
    return [(e.event, e.name) for e in reg.reload()]


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = registry_mod.read_agent_file

    def read(path: Any, **kw: Any) -> Any:
        calls.append(Path(path))
        return real(path, **kw)

    monkeypatch.setattr(registry_mod, "read_agent_file", read)
    return calls


def test_nothing_changed_reads_nothing(layout: dict[str, Path], counting: list[Path]) -> None:
    paths = [write_agent(layout["sub_agents"], f"a{i}") for i in range(5)]
    _age(*paths, layout["sub_agents"])
    reg = AgentRegistry().load_all()
    assert len(counting) == 5
    counting.clear()
    assert reg.reload() == []
    assert counting == []


def test_recent_files_are_not_trusted_until_they_settle(
    layout: dict[str, Path], counting: list[Path]
) -> None:
    write_agent(layout["sub_agents"], "fresh")  # mtime == now: a second write could hide
    reg = AgentRegistry().load_all()
    counting.clear()
    assert reg.reload() == []  # re-read, but identical: no event
    assert counting == [layout["sub_agents"] / "fresh.md"]


def test_only_the_changed_file_is_read_again(layout: dict[str, Path], counting: list[Path]) -> None:
    paths = [write_agent(layout["sub_agents"], f"a{i}") for i in range(3)]
    _age(*paths, layout["sub_agents"])
    reg = AgentRegistry().load_all()
    counting.clear()
    write_agent(layout["sub_agents"], "a1", description="changed and longer")
    assert _events(reg) == [("modified", "a1")]
    assert counting == [paths[1]]
    assert reg.entry("a1").description == "changed and longer"


def test_same_size_rewrite_with_new_inode_is_noticed(layout: dict[str, Path]) -> None:
    p = write_agent(layout["sub_agents"], "same", description="aaaa")
    _age(p)
    reg = AgentRegistry().load_all()
    tmp = p.with_suffix(".tmp")
    tmp.write_text(p.read_text().replace("aaaa", "bbbb"))
    _age(tmp)  # same size, same mtime: only the inode differs (atomic replace)
    os.replace(tmp, p)
    assert _events(reg) == [("modified", "same")]
    assert reg.entry("same").description == "bbbb"


def test_added_removed_renamed(layout: dict[str, Path]) -> None:
    keep = write_agent(layout["sub_agents"], "keep")
    gone = write_agent(layout["sub_agents"], "gone")
    reg = AgentRegistry().load_all()
    write_agent(layout["sub_agents"] / "new", "newcomer")
    gone.unlink()
    keep.write_text(keep.read_text().replace("name: keep", "name: kept"))
    events = _events(reg)
    assert ("added", "newcomer") in events
    assert ("removed", "gone") in events
    assert ("removed", "keep") in events and ("added", "kept") in events
    assert {e.name for e in reg.list(include_builtin=False)} == {"kept", "newcomer"}


def test_good_file_that_breaks_drops_its_agent_and_says_why(layout: dict[str, Path]) -> None:
    p = write_agent(layout["sub_agents"], "flaky")
    write_agent(layout["user_agents"], "flaky", body="user\n")
    reg = AgentRegistry().load_all()
    assert reg.entry("flaky").source.value == "project"
    p.write_text("---\nname: flaky\ndescription: broken: yaml\n---\nbody\n")
    events = reg.reload()
    kinds = [(e.event, e.name, e.path) for e in events]
    assert ("removed", "flaky", ".claude/agents/flaky.md") in kinds
    err = next(e for e in events if e.event == "error")
    assert err.path == ".claude/agents/flaky.md" and err.name == "flaky"
    assert err.diagnostics and err.diagnostics[0].rule == "SA010"
    # the last good definition is *not* kept: the user one is what the directory sees now
    assert reg.entry("flaky").source.value == "user"
    assert any(d.rule == "SA010" for d in reg.diagnostics())
    write_agent(layout["sub_agents"], "flaky", body="fixed\n")
    assert ("added", "flaky") in _events(reg)
    assert reg.get("flaky").system_prompt == "fixed\n"
    assert not reg.diagnostics()


def test_agents_folder_created_and_deleted_between_reloads(layout: dict[str, Path]) -> None:
    reg = AgentRegistry().load_all()
    assert reg.reload() == []
    write_agent(layout["sub_agents"], "late")
    assert _events(reg) == [("added", "late")]
    for p in layout["sub_agents"].iterdir():
        p.unlink()
    layout["sub_agents"].rmdir()
    assert _events(reg) == [("removed", "late")]


def test_reload_before_load_all_loads(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "x")
    reg = AgentRegistry()
    assert reg.reload() == []
    assert "x" in reg


def test_clash_appears_and_resolves_on_reload(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "dup", filename="one.md")
    reg = AgentRegistry().load_all()
    two = write_agent(layout["sub_agents"], "dup", filename="two.md")
    reg.reload()
    assert "dup" not in {e.name for e in reg.list()}
    assert any(d.rule == "SA601" for d in reg.diagnostics())
    two.unlink()
    reg.reload()
    assert "dup" in {e.name for e in reg.list()}
    assert not any(d.rule == "SA601" for d in reg.diagnostics())
