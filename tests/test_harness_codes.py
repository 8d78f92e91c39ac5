"""Another harness's findings: their prefixes are the harness modules' own, and they can be
selected, ignored and explained like every rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.harnesses import get_harness
from subagents.lint.rules.catalog import HARNESS_FAMILIES, is_valid_selector, matches


def test_the_families_are_the_harness_modules_prefixes() -> None:
    for prefix, (dialect, _title) in HARNESS_FAMILIES.items():
        assert get_harness(dialect).code_prefix == prefix


def test_prefixes_and_codes_are_selectors() -> None:
    assert is_valid_selector("GM") and is_valid_selector("gm004") and is_valid_selector("OC0")
    assert not is_valid_selector("GMX") and not is_valid_selector("ZZ001")
    assert matches("GM004", ["GM"]) and matches("GM004", ["GM004"]) and matches("OC008", ["OC0"])
    assert not matches("GM004", ["OC"]) and not matches("SA101", ["GM"])


@pytest.fixture
def bricked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / ".opencode" / "agents"
    folder.mkdir(parents=True)
    (folder / "rev.md").write_text("---\ndescription: Reviews.\ncolor: blue\n---\nYou review.\n",
                                   encoding="utf-8")
    (folder / "meta.md").write_text("---\ndescription: Has metadata.\nowner: me\n---\nHi.\n",
                                    encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return folder / "rev.md"


def test_validate_selects_and_ignores_harness_codes(bricked: Path) -> None:
    runner = CliRunner()
    folder = str(bricked.parent)
    out = runner.invoke(cli, ["validate", folder])
    assert out.exit_code == 1 and "OC001" in out.output  # color: blue stops OpenCode
    assert "OC008" in out.output  # `owner` goes to the model provider
    ignored = runner.invoke(cli, ["validate", folder, "--ignore", "OC001"])
    assert "OC001" not in ignored.output and ignored.exit_code == 0
    only = runner.invoke(cli, ["validate", folder, "--select", "OC008"])
    assert "OC008" in only.output and "OC001" not in only.output
    family = runner.invoke(cli, ["validate", folder, "--ignore", "OC"])
    assert "OC0" not in family.output and family.exit_code == 0


def test_explain_a_harness_code() -> None:
    out = CliRunner().invoke(cli, ["explain", "OC001"])
    assert out.exit_code == 0 and "OpenCode 1.18.33" in out.output
    assert CliRunner().invoke(cli, ["explain", "OC"]).exit_code == 2  # a prefix, not a code
