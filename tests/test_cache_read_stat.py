"""A cold run records the reader's ``fstat`` of a walked file instead of ``lstat``-ing it.

A file the walk listed (not a link) with nothing stored is not stat'ed by the cache's
look-up: its entry records the ``fstat`` the reader took of the open file before reading it,
with the hash of the bytes read.  These tests hold the two things that makes safe: the stat
recorded is the one a later ``lstat`` gives (a warm run trusts it), and a write after that
``fstat`` -- before or after the bytes are read, keeping the size and putting the mtime
back, so that only the ctime tells -- is never answered from the cache with what the
earlier bytes said.  Every file is made to look long unchanged (the cache's clock a minute
ahead), so the racy window plays no part.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from subagents.harnesses import loader
from subagents.lint import cache as cache_mod
from subagents.lint import validate as validate_mod
from test_validate_cache import _entries, _Later, _no_reading, _project, _run


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(folder))
    return folder


class _CountingOs:
    """``os`` as the cache module sees it, counting ``lstat`` calls of the files under
    ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder)
        self.lstats: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def lstat(self, path: Any, *a: Any, **k: Any) -> os.stat_result:
        if os.fspath(path).startswith(self.folder):
            self.lstats.append(os.fspath(path))
        return os.lstat(path, *a, **k)


def test_a_cold_run_takes_no_lstat_and_records_the_readers_stat(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agents = _project(tmp_path)
    counting = _CountingOs(agents)
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "os", counting)
        m.setattr(cache_mod, "time", _Later())
        cold = _run(str(agents))
    assert counting.lstats == []
    entries = _entries(cache)
    assert len(entries) == 8
    for apath, entry in entries.items():
        assert entry[1] == cache_mod._stat(os.lstat(apath))
    with monkeypatch.context() as m:
        _no_reading(m)  # the recorded stat is trusted: nothing is read again
        warm = _run(str(agents))
    assert warm == cold == _run("--no-cache", str(agents))


def test_a_named_file_is_still_stated_by_the_look_up(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Named on the command line, a file may be a link: the look-up takes its ``lstat``."""
    agents = _project(tmp_path)
    named = [str(p) for p in sorted(agents.iterdir())]
    counting = _CountingOs(agents)
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "os", counting)
        _run(*named)
    assert sorted(counting.lstats) == sorted(os.path.abspath(p) for p in named)


def _edit_keeping_size_and_mtime(path: Path, before: os.stat_result) -> None:
    """Write the file (same size), put its mtime back, until its ctime differs from
    ``before``'s (timestamps move by clock ticks): only the ctime tells of the write."""
    text = path.read_text()
    changed = text.replace("Grep", "Grap")
    assert changed != text and len(changed) == len(text)
    for _ in range(1_000_000):
        path.write_text(changed)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        now = os.lstat(path)
        if now.st_ctime_ns != before.st_ctime_ns:
            break
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino)
    assert now.st_ctime_ns != before.st_ctime_ns


@pytest.mark.parametrize("when", ["before the read", "after the read"])
def test_a_write_after_the_readers_fstat_is_seen_next_run(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """Written after the reader's ``fstat``: before it read the bytes (they hold the write:
    the next run hashes, finds the same bytes, keeps the entry) or after (the outcome is of
    the old bytes: the next run hashes, finds others, validates the file again)."""
    agents = _project(tmp_path)
    target = agents / "writer.md"
    ino = os.lstat(target).st_ino
    real = loader._read_up_to

    def reading(fd: int, size: int, whole: int = -1) -> bytes:
        st = os.fstat(fd)
        if st.st_ino != ino:
            return real(fd, size, whole)
        if when == "before the read":
            _edit_keeping_size_and_mtime(target, st)
        data = real(fd, size, whole)
        if when == "after the read":
            _edit_keeping_size_and_mtime(target, st)
        return data

    with monkeypatch.context() as m:
        m.setattr(loader, "_read_up_to", reading)
        m.setattr(cache_mod, "time", _Later())
        _run(str(agents))
    assert os.path.abspath(target) in _entries(cache)
    validated: list[object] = []
    real_read_file = validate_mod._read_file

    def counting(t: Any, *a: Any, **k: Any) -> Any:
        validated.append(t.path)
        return real_read_file(t, *a, **k)

    with monkeypatch.context() as m:
        m.setattr(cache_mod, "time", _Later())
        m.setattr(validate_mod, "_read_file", counting)
        warm = _run(str(agents))
    assert validated == ([target] if when == "after the read" else [])
    assert warm == _run("--no-cache", str(agents))
    assert any("Grap" in d["message"] for d in warm["diagnostics"])  # type: ignore[union-attr,index]
