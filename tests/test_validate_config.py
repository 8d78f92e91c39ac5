"""Configuration: discovery, keys, types, selectors, and errors that name the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from subagents.errors import ConfigError
from subagents.lint.config import Config, find_config, inline_ignores, load_config
from validate_helpers import write


def test_defaults_without_a_file(tmp_path: Path) -> None:
    assert load_config(start=tmp_path) == Config()
    assert find_config(tmp_path) is None


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the project root: the walk goes up to it
    write(tmp_path, ".subagents.toml", 'ignore = ["SA2"]\n')
    write(tmp_path, "sub/pyproject.toml", '[project]\nname = "x"\n')
    assert find_config(tmp_path / "sub" / "a.md") == tmp_path / ".subagents.toml"


def test_all_keys(tmp_path: Path) -> None:
    p = write(tmp_path, "pyproject.toml", (
        "[tool.subagents]\n"
        'select = ["SA1", "SA4"]\nignore = "unknown-tool"\nextra-tools = ["Deploy"]\n'
        "max-file-size = 2048\nstrict = true\n"
        "[tool.subagents.model-aliases]\nfast = \"claude-haiku-4-5\"\n"
        "[tool.subagents.per-file-ignores]\n\"legacy/*.md\" = [\"SA2\"]\n"
    ))
    cfg = load_config(p)
    assert cfg.select == ("SA1", "SA4") and cfg.ignore == ("unknown-tool",)
    assert cfg.extra_tools == {"Deploy"} and cfg.max_file_size == 2048 and cfg.strict
    assert cfg.model_aliases == {"fast": "claude-haiku-4-5"}
    assert cfg.ignores_for(tmp_path / "legacy" / "x.md") == ("SA2",)
    assert cfg.ignores_for(tmp_path / "other" / "x.md") == ()


@pytest.mark.parametrize(("text", "needle"), [
    ("selct = []\n", "unknown key"),
    ('ignore = ["SA9"]\n', "not a rule code"),
    ('ignore = ["no-such-rule"]\n', "not a rule code"),
    ("max-file-size = -1\n", "max-file-size"),
    ('max-file-size = "big"\n', "max-file-size"),
    ("extra-tools = [1]\n", "extra-tools"),
    ('model-aliases = ["fast"]\n', "model-aliases"),
    ('strict = "yes"\n', "strict"),
    ("ignore = [\n", "line 2"),
    ('ignore = ["SA2"\nselect = 3\n', "line 2"),
])
def test_broken_config_names_file_and_problem(tmp_path: Path, text: str, needle: str) -> None:
    p = write(tmp_path, ".subagents.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(p)
    assert str(p) in str(info.value) and needle in str(info.value)
    assert info.value.exit_code == 2


def test_inline_ignores() -> None:
    text = "---\nname: a # subagents: ignore[SA201, missing-max-turns]\n---\n# subagents: " \
           "ignore[SA203]\n<!-- subagents: ignore[SA202, bogus] -->\n"
    assert inline_ignores(text, frontmatter_end=3) == ("SA201", "missing-max-turns", "SA202")
    assert inline_ignores("---\n# subagents: ignore\n---\n", frontmatter_end=3) == ("ALL",)
    assert inline_ignores("<!-- subagents: ignore -->\n") == ("ALL",)
    assert inline_ignores("---\n# subagents: ignored things\n---\n") == ()


def test_no_config_from_folders_above_the_project_root(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    write(tmp_path, ".subagents.toml", 'ignore = ["ALL"]\n')  # someone else's folder above
    project = tmp_path / "parent" / "proj"
    write(project, ".claude/agents/a.md", "x")
    (project / ".git").mkdir()
    assert find_config(project / ".claude" / "agents" / "a.md") is None
    assert load_config(start=project) == Config()
    write(project, "pyproject.toml", '[tool.subagents]\nignore = ["SA2"]\n')
    assert find_config(project / ".claude" / "agents" / "a.md") == project / "pyproject.toml"
    # without a git root, outside the working folder: the folder holding `.claude` is the root
    loose = tmp_path / "loose"  # (tmp_path's own .subagents.toml is above it too)
    write(loose, "proj/.claude/agents/a.md", "x")
    assert find_config(loose / "proj" / ".claude" / "agents" / "a.md") is None
    write(loose, "proj/.subagents.toml", 'ignore = ["SA2"]\n')
    assert find_config(loose / "proj/.claude/agents/a.md") == loose / "proj/.subagents.toml"


def test_config_others_can_write_is_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    dot = write(tmp_path, ".subagents.toml", 'ignore = ["ALL"]\n')
    py = write(tmp_path, "pyproject.toml", '[tool.subagents]\nignore = ["SA2"]\n')
    assert find_config(tmp_path / "a.md") == dot  # .subagents.toml wins in the same folder
    dot.chmod(0o666)
    notes: list[str] = []
    assert find_config(tmp_path / "a.md", notes) == py
    assert notes == [f"{dot} is ignored because other users can write it"]
    py.chmod(0o664)
    notes.clear()
    assert load_config(start=tmp_path, notes=notes) == Config()
    assert len(notes) == 2 and "pyproject.toml" in notes[1]
    dot.unlink()
    py.unlink()
    real = write(tmp_path, "elsewhere.toml", 'ignore = ["ALL"]\n')
    dot.symlink_to(real)
    notes.clear()
    assert find_config(tmp_path, notes) is None and "symbolic link" in notes[0]


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="giving a file to another user needs root")
def test_config_of_another_user_is_skipped(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    dot = write(tmp_path, ".subagents.toml", 'ignore = ["ALL"]\n')
    os.chown(dot, 4242, 4242)
    notes: list[str] = []
    assert find_config(tmp_path, notes) is None
    assert "belongs to another user" in notes[0]
