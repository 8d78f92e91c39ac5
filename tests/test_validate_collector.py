"""validate_paths pauses the cyclic garbage collector for a run, and only where that is safe."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from subagents.lint import judge, validate


@pytest.fixture
def project(tmp_path: Path) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    for i in range(3):
        (agents / f"a{i}.md").write_text(
            f"---\nname: a{i}\ndescription: Reviews Python code for bugs {i}\n---\nReview.\n")
    (agents / "broken.md").write_text("---\nname: [unclosed\n---\n")
    return tmp_path


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether the collector was on while each file was read."""
    states: list[bool] = []
    real = judge._read_file

    def spy(*args: object, **kwargs: object) -> object:
        states.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(validate, "_read_file", spy)
    was = gc.isenabled()
    yield states
    (gc.enable if was else gc.disable)()


def test_paused_while_judging_and_on_again_after(project: Path, seen: list[bool],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # a process with one thread (the test process may hold others, left by earlier tests)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    gc.enable()
    report = validate.validate_paths([project / ".claude" / "agents"], cache=False)
    assert seen and not any(seen)
    assert gc.isenabled()
    assert report.exit_code == 1  # the broken file's error is there as always


def test_on_again_after_a_run_that_raises(project: Path, seen: list[bool],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    gc.enable()

    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(validate, "check_scope", boom)
    with pytest.raises(RuntimeError):
        validate.validate_paths([project / ".claude" / "agents"], cache=False)
    assert seen and not any(seen)  # it was paused, and is on again
    assert gc.isenabled()


def test_left_off_when_it_was_off(project: Path, seen: list[bool]) -> None:
    gc.disable()
    validate.validate_paths([project / ".claude" / "agents"], cache=False)
    assert not gc.isenabled()


def test_left_on_when_other_threads_run(project: Path, seen: list[bool]) -> None:
    gc.enable()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        validate.validate_paths([project / ".claude" / "agents"], cache=False)
    finally:
        stop.set()
        other.join()
    assert seen and all(seen)
    assert gc.isenabled()
