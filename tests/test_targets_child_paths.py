"""A walked file's path object, made from its folder's (``targets._child``), is the one
``Path(os.path.join(folder, name))`` makes: equal, the same text, the same parts; and a
folder's text joined once (``targets._joined``) and a name appended is ``os.path.join``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagents.lint import targets
from subagents.lint.targets import _child, _child_text_at, _joined, _targets

_FOLDERS = [".", "./a", "a/./b", "a//b", "a/b/", "/", "//x", "/tmp/x/../y", "..", "../a",
            "a b/c", "é/ü", ".claude/agents", "x/.hidden", "a\\b"]
_NAMES = ["a.md", "README.md", ".hidden.md", "x y.md", "é.md", "a\\b.md", "agents.json",
          "...md", "-.md", "a.agent.md"]


def _same(folder: str, name: str, text_at: bool = False) -> None:
    full = os.path.join(folder, name)
    assert _joined(folder) + name == full
    given = _child_text_at(Path(folder)) if text_at else None
    made, parsed = _child(Path(folder), name, full, given), Path(full)
    assert made == parsed
    assert str(made) == str(parsed) and made.parts == parsed.parts
    assert os.fspath(made) == os.fspath(parsed) and made.name == parsed.name
    assert made.parent == parsed.parent and made.suffix == parsed.suffix
    assert made.absolute() == parsed.absolute() and hash(made) == hash(parsed)


@pytest.mark.parametrize("folder", _FOLDERS)
@pytest.mark.parametrize("name", _NAMES)
@pytest.mark.parametrize("text_at", [False, True])
def test_a_child_is_the_parsed_path(folder: str, name: str, text_at: bool) -> None:
    _same(folder, name, text_at)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", ".", "..", "", "b c", "é", ".claude", "agents"]),
                max_size=5),
       st.booleans(),
       st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
               min_size=1, max_size=12).filter(lambda n: n not in (".", "..")))
def test_generated_folders_and_names(parts: list[str], rooted: bool, name: str) -> None:
    _same(("/" if rooted else "") + "/".join(parts) or ".", name)
    _same(("/" if rooted else "") + "/".join(parts) or ".", name, text_at=True)
    _same("/".join(parts), name)  # (an empty folder: join adds no separator)


def test_without_the_shortcut_the_path_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(targets, "_make_child", None)
    _same("a/b", "c.md")

    def broken(folder: Path, name: str) -> Path:
        raise TypeError("another pathlib")

    monkeypatch.setattr(targets, "_make_child", broken)
    _same("a/b", "c.md")


def test_walked_targets_have_the_parsed_paths(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    agents = tmp_path / "p" / ".claude" / "agents"
    (agents / "sub").mkdir(parents=True)
    for rel in ("a.md", "sub/b.md", "sub/.c.md"):
        (agents / rel).write_text("---\nname: a\ndescription: b\n---\nc\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for given_path in (agents, Path("p/.claude/agents"), Path("./p//.claude/agents/")):
        found = list(_targets([given_path], [None], None))
        assert len(found) == 3
        for t in found:
            assert t.path == Path(os.fspath(t.path)) and t.path.parts == Path(str(t.path)).parts
            assert t.apath == os.path.abspath(t.path)
            # the text the walk gives the path (and the display path) is what joining and
            # parsing the folder's and the file's names gives
            rel = os.path.relpath(os.path.abspath(t.path), os.path.abspath(given_path))
            assert str(t.path) == str(Path(os.path.join(given_path, rel)))
            shown = targets._display(given_path, None)
            assert t.display == os.path.normpath(os.path.join(shown, rel))
