"""The result cache trusts an unchanged stat only for a file that last changed well before it
was hashed (git's "racily clean" rule): then a warm run reads no file; any write since (even
one that keeps the size and puts the mtime back) changes the ctime and is read again."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from subagents.lint import cache as cache_mod
from test_validate_cache import _Later, _no_reading, _project, _run


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(folder))
    return folder


def _no_open(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    real_open = open

    def fail(path: Any, *a: Any, **k: Any) -> Any:
        if Path(path).parent == cache:  # the cache file itself is read, of course
            return real_open(path, *a, **k)
        raise AssertionError(f"the cache read {path}, whose stat it could trust")

    monkeypatch.setattr(cache_mod, "open", fail, raising=False)


def test_an_old_unchanged_file_is_not_read_again(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agents = _project(tmp_path)
    fresh = _run("--no-cache", str(agents))
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "time", _Later())
        cold = _run(str(agents))
    with monkeypatch.context() as m:
        _no_reading(m)
        _no_open(m, cache)
        warm = _run(str(agents))
    assert fresh == cold == warm


def test_a_fresh_file_is_hashed_every_run(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hashed within the window of its last change: the stat alone is not trusted."""
    agents = _project(tmp_path)
    cold = _run(str(agents))
    opened: list[object] = []
    real_open = open

    def counting(*a: Any, **k: Any) -> Any:
        opened.append(a[0])
        return real_open(*a, **k)

    with monkeypatch.context() as m:
        _no_reading(m)
        m.setattr(cache_mod, "open", counting, raising=False)
        m.setattr(cache_mod, "_RACY_NS", 10**18)  # every file counts as just changed
        warm = _run(str(agents))
    assert warm == cold
    assert len(opened) >= 6  # each agent file read and hashed (the cache file too)


def test_a_write_that_keeps_size_and_mtime_is_still_seen(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agents = _project(tmp_path)
    target = agents / "writer.md"
    before = os.stat(target)
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "time", _Later())
        _run(str(agents))
    text = target.read_text()
    edited = text.replace("Grep", "Grap")  # same size, same inode
    assert len(edited) == len(text)
    for _ in range(200):  # until the clock ticks: the write must land on another ctime
        target.write_text(edited)
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(target).st_ctime_ns != before.st_ctime_ns:
            break
        time.sleep(0.01)
    after = os.stat(target)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (
        before.st_mtime_ns, before.st_size, before.st_ino)
    assert after.st_ctime_ns != before.st_ctime_ns
    warm = _run(str(agents))
    assert warm == _run("--no-cache", str(agents))
    assert any("Grap" in d["message"] for d in warm["diagnostics"])  # type: ignore[union-attr,index]


def test_a_mode_change_is_seen_without_reading(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod changes the mode (a security rule reads it) and the ctime: never trusted."""
    agents = _project(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "time", _Later())
        _run(str(agents))
    os.chmod(agents / "writer.md", 0o666)
    warm = _run(str(agents))
    assert warm == _run("--no-cache", str(agents))
