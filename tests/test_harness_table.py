"""The one harness table: every harness module reads its facts from it, and what is derived
from it (dialect of a path, file names, protected paths) agrees with the modules."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagents.definition import AgentDefinition
from subagents.harnesses import HARNESS_NAMES, get_harness
from subagents.harnesses.loader import detect_dialect
from subagents.harnesses.table import SPECS, get_spec, protected_paths, version_of


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_module_facts_come_from_the_table(spec) -> None:
    harness = get_harness(spec.name)
    assert (harness.name, harness.display_name, harness.code_prefix) == (
        spec.name, spec.display_name, spec.code_prefix)
    assert harness.version == version_of(spec)


def test_the_table_lists_every_harness_once() -> None:
    assert tuple(s.name for s in SPECS) == HARNESS_NAMES
    assert len(set(HARNESS_NAMES)) == len(HARNESS_NAMES)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_folder_of_the_table_is_that_dialect(spec, tmp_path: Path) -> None:
    for folder in (*spec.project_folders, *spec.user_folders):
        assert detect_dialect(tmp_path / folder / f"x{spec.suffixes[0]}") == spec.name, folder


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_writers_use_the_tables_file_rule(spec) -> None:
    definition = AgentDefinition(name="code-reviewer", description="Reviews code for bugs.",
                                 system_prompt="Review the code you are given carefully.")
    written = get_harness(spec.name).write(definition)
    assert written.relpath == spec.relpath("code-reviewer")
    assert written.relpath.startswith(spec.write_folder + "/")


def test_file_rules_differ_where_the_harnesses_do() -> None:
    assert get_spec("claude").relpath("C# Expert") == ".claude/agents/c-expert.md"
    assert get_spec("codex").relpath("C# Expert") == ".codex/agents/C-Expert.toml"
    assert get_spec("opencode").relpath("sub/x") == ".opencode/agents/sub/x.md"
    assert get_spec("copilot").relpath("a b") == ".github/agents/a-b.agent.md"


def test_protected_paths_cover_every_harness() -> None:
    paths = protected_paths()
    for spec in SPECS:
        assert spec.write_folder in paths
        for path in (*spec.config_files, *spec.hooks, *spec.mcp, *spec.settings):
            assert path in paths
    assert ".claude/settings.json" in paths and ".mcp.json" in paths
    assert ".codex/config.toml" in paths and ".gemini/settings.json" in paths
