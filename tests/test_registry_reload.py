"""reload(): stat-only when nothing changed, precise events when something did (REQ-SUB-028)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

import subagents.registry.core as registry_mod
from registry_helpers import layout, write_agent
from subagents.registry.core import AgentRegistry
from subagents.registry.watch import ChangeEvent

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
    p.write_text("---\nname: flaky\ndescription: broken: yaml\n<example>\n---\nbody\n")
    events = reg.reload()
    # Events describe what the directory sees: the user definition takes over the name.
    mod = next(e for e in events if e.event != "error")
    assert mod.to_dict() == {
        "event": "modified",
        "name": "flaky",
        "path": "~/.claude/agents/flaky.md",
        "source": "user",
        "reason": "error",
        "previous_path": ".claude/agents/flaky.md",
        "previous_source": "project",
    }
    assert [e.event for e in events] == ["modified", "error"]
    err = next(e for e in events if e.event == "error")
    assert err.path == ".claude/agents/flaky.md" and err.name == "flaky"
    assert err.diagnostics and err.diagnostics[0].rule == "SA005"
    # the last good definition is *not* kept: the user one is what the directory sees now
    assert reg.entry("flaky").source.value == "user"
    assert any(d.rule == "SA005" for d in reg.diagnostics())
    write_agent(layout["sub_agents"], "flaky", body="fixed\n")
    assert _events(reg) == [("modified", "flaky")]  # the project file is back on top
    assert reg.get("flaky").system_prompt == "fixed"
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


def test_duplicate_appears_and_resolves_on_reload(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "dup", filename="one.md", body="one")
    reg = AgentRegistry().load_all()
    two = write_agent(layout["sub_agents"], "dup", filename="two.md", body="two")
    reg.reload()
    assert reg.get("dup").system_prompt == "two"  # the last path in code-unit order
    assert [d.path for d in reg.diagnostics() if d.rule == "SA601"] == [".claude/agents/one.md"]
    two.unlink()
    reg.reload()
    assert reg.get("dup").system_prompt == "one"
    assert not any(d.rule == "SA601" for d in reg.diagnostics())


def _visible(reg: AgentRegistry) -> dict[str, tuple[str | None, str]]:
    return {e.name: (e.display_path or e.origin.label, e.source.value) for e in reg.list(include_builtin=True)}


def _apply(state: dict[str, tuple[str | None, str]], events: list[ChangeEvent]) -> None:
    for e in events:
        assert e.name is not None or e.event == "error"
        if e.event in ("added", "modified"):
            assert e.name is not None and e.source is not None
            if e.event == "added":
                assert e.name not in state, f"added twice: {e}"
            else:
                assert e.name in state, f"modified before added: {e}"
            state[e.name] = (e.path, e.source)
        elif e.event == "removed":
            assert e.name in state, f"removed but never added: {e}"
            del state[e.name]


def test_shadowed_file_changes_are_not_agent_events(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "twin", filename="near.md")
    far = write_agent(layout["root_agents"], "twin", filename="far.md")
    reg = AgentRegistry().load_all()
    far.rename(far.with_name("far2.md"))
    write_agent(layout["root_agents"], "twin", filename="far2.md", description="Edited. Use it.")
    assert reg.reload() == []  # the visible twin never changed
    assert [s.path for s in reg.shadowed()] == [layout["root_agents"] / "far2.md"]


def test_winner_rename_and_takeover_are_modified_with_previous_path(
    layout: dict[str, Path],
) -> None:
    far = write_agent(layout["root_agents"], "twin", filename="far.md")
    reg = AgentRegistry().load_all()
    far.rename(far.with_name("moved.md"))
    (ev,) = reg.reload()
    assert (ev.event, ev.reason) == ("modified", "deleted")
    assert ev.previous_path is not None and ev.previous_path.endswith("far.md")
    assert ev.path is not None and ev.path.endswith("moved.md")
    write_agent(layout["sub_agents"], "twin", filename="near.md")
    (ev,) = reg.reload()
    assert ev.to_dict()["path"] == ".claude/agents/near.md"
    assert (ev.event, ev.reason, ev.previous_source) == ("modified", "overridden", "project")
    assert ev.format_text() == (
        f"~ modified  twin  (project .claude/agents/near.md)  "
        f"[overridden; was project {layout['root_agents'] / 'moved.md'}]"
    )
    # a project agent named like a built-in overrides it: `modified`, the built-in stays below
    write_agent(layout["user_agents"], "Explore")
    (ev,) = reg.reload()
    assert (ev.event, ev.name, ev.reason, ev.previous_source) == (
        "modified",
        "Explore",
        "overridden",
        "builtin",
    )


def test_new_duplicate_is_modified_plus_error_naming_the_ignored_file(
    layout: dict[str, Path],
) -> None:
    write_agent(layout["sub_agents"], "dup", filename="one.md")
    reg = AgentRegistry().load_all()
    write_agent(layout["sub_agents"], "dup", filename="two.md")
    events = reg.reload()
    assert [(e.event, e.name, e.reason) for e in events] == [
        ("modified", "dup", "overridden"),
        ("error", "dup", None),
    ]
    assert events[0].path == ".claude/agents/two.md"
    (diag,) = events[1].diagnostics
    assert (diag.path, diag.rule, diag.line) == (".claude/agents/one.md", "SA601", 2)
    assert "two.md" in diag.message


def test_random_changes_applied_as_events_always_equal_list(layout: dict[str, Path]) -> None:
    """Whatever happens on disk, applying the events to a map gives exactly ``list()``."""
    rng = random.Random(3)
    folders = [layout["sub_agents"], layout["root_agents"], layout["user_agents"]]
    names = ["alpha", "beta", "gamma", "Explore"]
    for folder in folders:
        folder.mkdir(parents=True)
    reg = AgentRegistry().load_all()
    state = _visible(reg)
    for round_ in range(60):
        for _ in range(rng.randrange(1, 5)):
            folder = rng.choice(folders)
            files = sorted(folder.rglob("*.md"))
            op = rng.randrange(5)
            if op == 0 or not files:
                sub = folder / "nested" if rng.random() < 0.3 else folder
                write_agent(sub, rng.choice(names), filename=f"f{rng.randrange(8)}.md")
            elif op == 1:
                rng.choice(files).unlink()
            elif op == 2:
                src = rng.choice(files)
                dst_folder = rng.choice(folders)
                dst_folder.mkdir(parents=True, exist_ok=True)
                src.rename(dst_folder / f"r{round_}-{src.name}")
            elif op == 3:
                rng.choice(files).write_text("---\nname: x\ndescription: broken: yes\n---\n")
            else:
                write_agent(
                    folder,
                    rng.choice(names),
                    filename=rng.choice(files).name,
                    description=f"Edition {round_}. Use it.",
                )
        _apply(state, reg.reload())
        assert state == _visible(reg), f"round {round_}"
    assert state == _visible(AgentRegistry().load_all())
