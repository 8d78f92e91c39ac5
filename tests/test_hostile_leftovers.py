"""Hostile input left over from the first security round: a file name that is not UTF-8 in
SARIF output, and an integer too long for Python's int() in the frontmatter."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli

GOOD = "---\nname: {name}\ndescription: Reviews Python diffs for bugs before a merge\n---\nBody.\n"


def _project(tmp_path: Path) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    return agents


def test_sarif_names_a_file_whose_name_is_not_utf8(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    agents = _project(tmp_path)
    raw = os.fsencode(agents) + b"/bad\xff.md"
    with open(raw, "wb") as f:
        f.write(b"---\nname: bad\n---\nno description\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--no-cache", "--format", "sarif", "."])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    log = json.loads(result.output)
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
            for run in log["runs"] for r in run["results"] for loc in r["locations"]]
    assert any(u.endswith("bad%FF.md") for u in uris), uris


def test_an_integer_of_five_thousand_digits_is_judged_not_an_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agents = _project(tmp_path)
    (agents / "big.md").write_text(
        GOOD.format(name="big").replace("---\nBody", f"maxTurns: {'9' * 5000}\n---\nBody"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--no-cache", "--format", "json", "."])
    codes = [d["rule"] for d in json.loads(result.output)["diagnostics"]]
    assert "SA000" not in codes and "SA108" in codes, codes  # judged: not a usable turn limit
