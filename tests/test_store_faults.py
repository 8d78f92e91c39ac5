"""AgentStore under bad files and failing disks: never lose or corrupt a definition."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from filelock import FileLock

from subagents.errors import StoreCorruptError, StoreError, StoreLockTimeout
from subagents.store.core import AgentStore


@pytest.fixture
def store(tmp_path: Path) -> AgentStore:
    return AgentStore(tmp_path / "global", tmp_path / "group", main=True)


def _write_raw(store: AgentStore, data: bytes, scope: str = "group") -> Path:
    path = store.path(scope)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


GOOD = b'{\n  "keep": {\n    "description": "d",\n    "prompt": "p"\n  }\n}\n'

CORRUPT = [
    # (bytes, expected "line:col" in the message, words in the message)
    (b'{\n  "keep": {\n    "description": "d",\n    "prompt": "p"\n', ":5:1:", "truncated"),
    (b'{\n  "keep": {\n    "description": "d",\n    "pro', ":4:5:", "Unterminated"),
    (b"[\n  1, 2\n]\n", ":1:1:", "not list"),
    (b'"just a string"', ":1:1:", "not str"),
    (b"null", ":1:1:", "not null"),
    (b'{\n  "a": {"description": "d", "prompt": "p"},\n  "a": {}\n}', ":3:3:", "duplicate"),
    (b'{\n  "a": {"description": "d", "description": "e"}\n}', ":2:8:", "duplicate"),
    (b'{"a": NaN}', ":1:7:", "NaN"),
    (b'{"a": {}}\n{"b": {}}', ":2:1:", "extra data"),
    (b'{\n  "a": "caf\xe9"\n}', ":2:12:", "UTF-8"),
]


@pytest.mark.parametrize(("data", "where", "words"), CORRUPT)
def test_corrupt_file_reported_with_line_and_writes_refused(
    store: AgentStore, data: bytes, where: str, words: str
) -> None:
    path = _write_raw(store, data)
    with pytest.raises(StoreCorruptError) as info:
        store.define("new", "d", "p")
    message = str(info.value)
    assert where in message and words in message
    assert "--force" in message
    with pytest.raises(StoreCorruptError):
        store.remove("keep")
    assert path.read_bytes() == data  # never overwritten
    # Listing still works and says where the file breaks.
    listing = store.list()
    assert listing.agents == ()
    assert len(listing.errors) == 1 and where in listing.errors[0]


def test_force_backs_up_then_writes(store: AgentStore) -> None:
    data = CORRUPT[0][0]
    path = _write_raw(store, data)
    result = store.define("new", "d", "p", force=True)
    assert result.backup is not None
    assert result.backup.name.startswith("agents.json.bak-")
    assert result.backup.read_bytes() == data
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "new": {"description": "d", "prompt": "p"}
    }
    # A good store is not backed up by force.
    assert store.define("other", "d", "p", force=True).backup is None


def test_corrupt_global_does_not_block_group_writes(store: AgentStore) -> None:
    _write_raw(store, b"{", scope="global")
    store.define("a", "d", "p")
    listing = store.list()
    assert [a.name for a in listing.agents] == ["a"]
    assert "global" in listing.errors[0]


def test_bom_and_whitespace_only_files_are_readable(store: AgentStore) -> None:
    _write_raw(store, b"\xef\xbb\xbf" + GOOD)
    assert list(store.read("group")) == ["keep"]
    _write_raw(store, b"  \n")
    store.define("a", "d", "p")
    assert list(store.read("group")) == ["a"]


def _no_temp_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_disk_full_during_write_keeps_old_file(
    store: AgentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write_raw(store, GOOD)
    real_write = os.write
    calls = {"n": 0}

    def full_disk(fd: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, bytes(data)[:10])  # a short write first, then ENOSPC
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(StoreError) as info:
        store.define("new", "d", "p")
    monkeypatch.undo()
    assert "disk is full" in str(info.value)
    assert "old file is unchanged" in str(info.value)
    assert path.read_bytes() == GOOD
    assert _no_temp_files(path.parent)


def test_read_only_file_system_at_rename_keeps_old_file(
    store: AgentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write_raw(store, GOOD)

    def read_only(src: str, dst: str) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", read_only)
    with pytest.raises(StoreError, match="read-only"):
        store.remove("keep")
    monkeypatch.undo()
    assert path.read_bytes() == GOOD
    assert _no_temp_files(path.parent)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder_for_real(store: AgentStore) -> None:
    path = _write_raw(store, GOOD)
    os.chmod(path.parent, 0o555)
    try:
        with pytest.raises(StoreError, match="permission"):
            store.define("new", "d", "p")
    finally:
        os.chmod(path.parent, 0o755)
    assert path.read_bytes() == GOOD


CRASHER = textwrap.dedent(
    """
    import os, sys
    from subagents.store.core import AgentStore

    def crash(src, dst):
        os._exit(137)  # the process dies between the temp write and the rename

    os.replace = crash
    AgentStore(None, sys.argv[1]).define("new", "d", "p")
    """
)


def test_crash_between_temp_write_and_rename(store: AgentStore) -> None:
    path = _write_raw(store, GOOD)
    proc = subprocess.run([sys.executable, "-c", CRASHER, str(path.parent)], check=False)
    assert proc.returncode == 137
    assert path.read_bytes() == GOOD  # old file intact
    strays = [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert len(strays) == 1 and "new" in strays[0].read_text(encoding="utf-8")
    # Readers ignore the stray; the next writer removes it.
    assert list(store.read("group")) == ["keep"]
    store.define("after", "d", "p")
    assert list(store.read("group")) == ["keep", "after"]
    assert _no_temp_files(path.parent)


def test_lock_wait_is_bounded(tmp_path: Path) -> None:
    store = AgentStore(None, tmp_path / "group", lock_timeout=0.2)
    store.define("a", "d", "p")
    before = store.path("group").read_bytes()
    with FileLock(str(store.path("group")) + ".lock"), pytest.raises(StoreLockTimeout) as info:
        store.define("b", "d", "p")
    assert "0.2 s" in str(info.value)
    assert store.path("group").read_bytes() == before
    assert store.define("b", "d", "p").action == "created"  # the lock is free again


WRITER = textwrap.dedent(
    """
    import sys
    from subagents.store.core import AgentStore

    store = AgentStore(None, sys.argv[1])
    for i in range(int(sys.argv[3])):
        store.define(f"w{sys.argv[2]}-{i}", "d", "p" * 1000)
    """
)


@pytest.mark.slow
def test_concurrent_processes_lose_nothing(tmp_path: Path) -> None:
    group = tmp_path / "group"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(group), str(w), "25"]) for w in range(4)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    data = json.loads((group / "agents.json").read_text(encoding="utf-8"))
    assert set(data) == {f"w{w}-{i}" for w in range(4) for i in range(25)}


HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.readline()  # hold until the test says so
    """
)


@pytest.mark.slow
def test_lock_held_by_another_process_times_out_then_recovers(tmp_path: Path) -> None:
    store = AgentStore(None, tmp_path / "group", lock_timeout=0.3)
    store.define("a", "d", "p")
    lock_path = str(store.path("group")) + ".lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, lock_path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreLockTimeout, match=r"more than 0\.3 s"):
            store.define("b", "d", "p")
        with pytest.raises(StoreLockTimeout):
            store.remove("a")
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    # The timed-out waiters' helper threads drop the lock as soon as they get it, so a
    # patient writer gets it next.
    patient = AgentStore(None, tmp_path / "group", lock_timeout=30)
    result = patient.define("b", "d", "p")
    assert result.action == "created"
    assert list(patient.read("group")) == ["a", "b"]
