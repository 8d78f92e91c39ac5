"""Configuration: discovery, keys, types, selectors, and errors that name the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagents.config import Config, find_config, inline_ignores, load_config
from subagents.errors import ConfigError
from validate_helpers import write


def test_defaults_without_a_file(tmp_path: Path) -> None:
    assert load_config(start=tmp_path) == Config()
    assert find_config(tmp_path) is None


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
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
