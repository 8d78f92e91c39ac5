"""A file the walk listed as a plain file, swapped for a symbolic link before it is read.

The walk reports a link out of the agents folder and never follows it.  A link put in a
listed file's place *after* the listing (someone who can write the folder, while ``validate``
runs) must not be read through either: the reader opens a listed file with ``O_NOFOLLOW`` and
reports the swap (SA015).  A file named on the command line is opened as before (a named
link is judged by where it points, before reading).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from subagents.lint import judge as judge_mod
from subagents.lint.validate import validate_paths

pytestmark = pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW") or sys.platform == "win32",
                                reason="needs O_NOFOLLOW and symbolic links")

_OUTSIDE = "---\nname: outside-secret\ndescription: {marker}\n---\nThe outside file's body.\n"
_MARKER = "a description only the outside file holds"


def _tree(root: Path) -> tuple[Path, Path]:
    agents = root / "project" / ".claude" / "agents"
    agents.mkdir(parents=True)
    for name in ("first", "second"):
        (agents / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: Reviews {name} drafts\n---\nBody.\n")
    outside = root / "elsewhere" / "secret.md"
    outside.parent.mkdir()
    outside.write_text(_OUTSIDE.format(marker=_MARKER))
    return agents, outside


def _swapping(monkeypatch: pytest.MonkeyPatch, victim: Path, outside: Path) -> None:
    """The reader, but ``victim`` replaced by a link to ``outside`` just before it opens it."""
    real = judge_mod.read_agent_file

    def swap_then_read(path: Any, *a: Any, **k: Any) -> Any:
        if Path(path) == victim and not victim.is_symlink():
            victim.unlink()
            victim.symlink_to(outside)
        return real(path, *a, **k)

    monkeypatch.setattr(judge_mod, "read_agent_file", swap_then_read)


@pytest.mark.parametrize("cache", [False, True])
def test_a_listed_file_swapped_for_a_link_is_not_read_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: bool) -> None:
    agents, outside = _tree(tmp_path)
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(tmp_path / "cache"))
    victim = agents / "second.md"
    _swapping(monkeypatch, victim, outside)
    report = validate_paths([agents], cache=cache)
    mine = [d for d in report.diagnostics if Path(d.path).name == "second.md"]
    assert [d.rule for d in mine] == ["SA015"], mine
    assert "symbolic link" in mine[0].message
    everything = repr(report.to_dict())
    assert _MARKER not in everything and "outside-secret" not in everything
    assert report.agents == 1  # first.md only
    # the next run sees the link as the walk sees links (reported, never followed), and
    # nothing was cached for the swapped file
    monkeypatch.undo()
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(tmp_path / "cache"))
    again = validate_paths([agents], cache=cache)
    assert _MARKER not in repr(again.to_dict())


def test_without_a_swap_the_listed_files_read_as_before(tmp_path: Path) -> None:
    agents, _outside = _tree(tmp_path)
    report = validate_paths([agents], cache=False)
    assert report.agents == 2
    assert not [d for d in report.diagnostics if d.rule == "SA015"]


def test_a_named_file_is_still_opened_through_a_link_inside_the_folder(tmp_path: Path) -> None:
    agents, _outside = _tree(tmp_path)
    link = agents / "alias.md"
    link.symlink_to(agents / "first.md")
    report = validate_paths([link], cache=False)
    assert report.agents == 1
    assert not [d for d in report.diagnostics if d.rule == "SA015"]
