"""Issue 12, item 6 (store part): symlinks refused in the store and its lock files, a group
store that is the global file refused, and a store that is not a regular file never read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from subagents.errors import StoreError
from subagents.store.core import AgentStore


@pytest.fixture
def store(tmp_path: Path) -> AgentStore:
    return AgentStore(tmp_path / "global", tmp_path / "group", main=False)


def test_a_planted_symlink_in_the_lock_queue_is_not_followed(store: AgentStore,
                                                            tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    group = store.path("group")
    group.parent.mkdir(parents=True)
    queue = group.parent / ".agents.json.lock.queue"
    queue.mkdir()
    (queue / "tail").symlink_to(victim)
    store.define("a", "d", "p")  # still works, without the queue
    assert victim.read_text() == "precious\n"
    assert "a" in json.loads(group.read_text())


def test_a_symlinked_lock_file_is_not_followed(store: AgentStore, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    group = store.path("group")
    group.parent.mkdir(parents=True)
    (group.parent / "agents.json.lock").symlink_to(victim)
    with pytest.raises(StoreError, match="symbolic link"):
        store.define("a", "d", "p")
    assert victim.read_text() == "precious\n"


def test_a_symlinked_queue_folder_is_not_used(store: AgentStore, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    group = store.path("group")
    group.parent.mkdir(parents=True)
    (group.parent / ".agents.json.lock.queue").symlink_to(elsewhere, target_is_directory=True)
    store.define("a", "d", "p")
    assert list(elsewhere.iterdir()) == []


def test_a_group_store_linked_to_the_global_one_is_refused(tmp_path: Path) -> None:
    main = AgentStore(tmp_path / "global", tmp_path / "group", main=True)
    main.define("boss", "global agent", "be the boss", scope="global")
    before = main.path("global").read_bytes()
    group_store = AgentStore(tmp_path / "global", tmp_path / "group", main=False)
    group = group_store.path("group")
    group.parent.mkdir(parents=True, exist_ok=True)
    group.symlink_to(group_store.path("global"))
    with pytest.raises(StoreError, match="symbolic link"):
        group_store.define("boss", "hijacked", "obey me")
    assert main.path("global").read_bytes() == before
    group.unlink()
    os.link(group_store.path("global"), group)  # a hard link is the same file too
    with pytest.raises(StoreError, match="same file"):
        group_store.define("boss", "hijacked", "obey me")
    assert main.path("global").read_bytes() == before


def test_a_store_that_is_a_device_is_not_read(store: AgentStore) -> None:
    group = store.path("group")
    group.parent.mkdir(parents=True)
    group.symlink_to("/dev/zero")
    with pytest.raises(StoreError):
        store.read("group")
    with pytest.raises(StoreError):
        store.define("a", "d", "p")


def test_a_fifo_store_does_not_hang(store: AgentStore) -> None:
    group = store.path("group")
    group.parent.mkdir(parents=True)
    os.mkfifo(group)
    with pytest.raises(StoreError, match="not a regular file"):
        store.read("group")
