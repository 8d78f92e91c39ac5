"""Hot reload through a real file watcher (REQ-SUB-026).

The waits below are bounds for a hung watcher, not timing assertions: a test passes as soon as
the expected events arrive.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from registry_helpers import layout, write_agent
from subagents.registry.core import AgentRegistry
from subagents.registry.watch import ChangeEvent

__all__ = ["layout"]

pytestmark = pytest.mark.slow

BOUND = 20.0  # seconds before we call the watcher hung


async def _until(
    stream: AsyncIterator[ChangeEvent],
    done: Callable[[list[ChangeEvent]], bool],
) -> list[ChangeEvent]:
    got: list[ChangeEvent] = []

    async def run() -> None:
        while not done(got):
            got.append(await stream.__anext__())

    await asyncio.wait_for(run(), BOUND)
    return got


def _has(kind: str, name: str) -> Callable[[list[ChangeEvent]], bool]:
    return lambda evs: any(e.event == kind and e.name == name for e in evs)


async def test_ready_then_added_modified_removed(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "existing")
    reg = AgentRegistry()
    stream = reg.watch()
    try:
        first = await asyncio.wait_for(stream.__anext__(), BOUND)
        assert first.to_dict() == {"event": "ready", "agents": 4}  # existing + 3 built-ins
        path = write_agent(layout["sub_agents"], "fresh")
        got = await _until(stream, _has("added", "fresh"))
        assert got[-1].path == ".claude/agents/fresh.md" and got[-1].source == "project"
        write_agent(layout["sub_agents"], "fresh", description="A new description.")
        await _until(stream, _has("modified", "fresh"))
        assert reg.entry("fresh").description == "A new description."
        path.unlink()
        await _until(stream, _has("removed", "fresh"))
        assert "fresh" not in reg
    finally:
        await stream.aclose()


async def test_agents_folder_created_after_watch_started(layout: dict[str, Path]) -> None:
    assert not (layout["sub"] / ".claude").exists()
    assert not (layout["home"] / ".claude").exists()
    reg = AgentRegistry()
    stream = reg.watch()
    try:
        await asyncio.wait_for(stream.__anext__(), BOUND)
        write_agent(layout["sub_agents"], "late-project")  # creates .claude/agents too
        await _until(stream, _has("added", "late-project"))
        write_agent(layout["user_agents"], "late-user")
        await _until(stream, _has("added", "late-user"))
        # and the new folder is now watched recursively: a nested change is seen too
        write_agent(layout["sub_agents"] / "deep" / "er", "nested")
        await _until(stream, _has("added", "nested"))
        shutil.rmtree(layout["sub"] / ".claude")
        await _until(
            stream,
            lambda evs: _has("removed", "late-project")(evs) and _has("removed", "nested")(evs),
        )
        write_agent(layout["sub_agents"], "again")
        await _until(stream, _has("added", "again"))
    finally:
        await stream.aclose()


async def test_broken_file_reports_error_and_removal(layout: dict[str, Path]) -> None:
    path = write_agent(layout["sub_agents"], "fragile")
    reg = AgentRegistry()
    stream = reg.watch()
    try:
        await asyncio.wait_for(stream.__anext__(), BOUND)
        path.write_text("---\nname: fragile\ndescription: a: b\n<example>x\n---\nx\n")
        got = await _until(stream, _has("error", "fragile"))
        assert any(e.event == "removed" and e.name == "fragile" for e in got)
        err = next(e for e in got if e.event == "error")
        assert err.to_dict()["diagnostics"][0]["rule"] == "SA005"
    finally:
        await stream.aclose()


async def test_rename_storm_loses_nothing(layout: dict[str, Path]) -> None:
    """300 renames across two project scopes while watching: the events, applied to a
    ``name -> (path, source)`` map, end exactly at what a fresh ``list()`` sees."""
    near, far = layout["sub_agents"], layout["root_agents"]
    for i in range(20):
        write_agent(near, f"agent-{i}", filename=f"f{i}.md")
    for i in range(0, 20, 2):  # every other name also defined farther up: shadowed
        write_agent(far, f"agent-{i}", filename=f"far{i}.md")
    reg = AgentRegistry()
    stream = reg.watch()
    rng = random.Random(7)

    def visible(r: AgentRegistry) -> dict[str, tuple[str | None, str]]:
        return {e.name: (e.display_path, e.source.value) for e in r.list(include_builtin=False)}

    try:
        ready = await asyncio.wait_for(stream.__anext__(), BOUND)
        assert ready.agents == 23
        state = visible(reg)

        def storm() -> None:
            (near / "sub").mkdir()
            files = [near / f"f{i}.md" for i in range(20)] + [
                far / f"far{i}.md" for i in range(0, 20, 2)
            ]
            for step in range(300):
                i = rng.randrange(len(files))
                # a rename (same agent, new path): now and then into a subfolder or the other
                # scope folder, which changes which definition of a name wins
                folder = rng.choice((near, near, near / "sub", far))
                dst = folder / f"r{step}.md"
                os.rename(files[i], dst)
                files[i] = dst
                if step % 10 == 0:  # and now and then a rename of the agent itself
                    text = dst.read_text()
                    dst.write_text(text.replace("name: agent-", "name: renamed-", 1))

        await asyncio.to_thread(storm)
        expected = visible(AgentRegistry().load_all())

        def applied(evs: list[ChangeEvent]) -> bool:
            for e in evs[len(applied.seen) :]:  # type: ignore[attr-defined]
                assert e.name is not None
                if e.event in ("added", "modified"):
                    assert e.source is not None
                    state[e.name] = (e.path, e.source)
                elif e.event == "removed":
                    del state[e.name]  # KeyError: removed an agent never added
            applied.seen = list(evs)  # type: ignore[attr-defined]
            return state == expected

        applied.seen = []  # type: ignore[attr-defined]
        await _until(stream, applied)
        assert visible(reg) == expected
    finally:
        await stream.aclose()


async def test_watch_targets_missing_folder_uses_nearest_parent(layout: dict[str, Path]) -> None:
    reg = AgentRegistry().load_all()
    recursive, flat = reg.watch_targets()
    assert layout["sub"] in flat  # .claude/agents does not exist yet
    assert layout["home"] in flat
    assert not recursive
    write_agent(layout["sub_agents"], "x")
    recursive, flat = reg.watch_targets()
    assert layout["sub_agents"] in recursive


async def test_agents_json_changes_are_watched(layout: dict[str, Path], tmp_path: Path) -> None:
    group = tmp_path / "group" / "agents.json"
    reg = AgentRegistry(agents_json=(None, group))
    stream = reg.watch()
    try:
        await asyncio.wait_for(stream.__anext__(), BOUND)
        group.parent.mkdir()
        group.write_text('{"helper": {"description": "d", "prompt": "p"}}')
        got = await _until(stream, _has("added", "helper"))
        assert got[-1].source == "cli"
        group.write_text('{"helper": {"description": "changed", "prompt": "p"}}')
        await _until(stream, _has("modified", "helper"))
        assert reg.entry("helper").description == "changed"
    finally:
        await stream.aclose()


def test_watch_says_when_an_agents_folder_is_a_file(tmp_path: Path) -> None:
    """Like every command that reads the project, `watch` reports a `.claude/agents` file."""
    import subprocess
    import sys

    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "agents").write_text("not a folder\n")
    home = tmp_path / "home"
    home.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "subagents", "watch", "--format", "json", "--timeout", "1"],
        cwd=project, env={**os.environ, "HOME": str(home)}, capture_output=True, text=True,
        timeout=60, check=False,
    )
    assert result.stdout.splitlines()[0] == '{"event": "ready", "agents": 0}'
    assert "SA605" in result.stderr and "is a file, not a folder" in result.stderr
