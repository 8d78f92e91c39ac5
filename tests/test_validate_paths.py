"""validate_paths: folder walking, dialects by location, default paths, config, silencers."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagents.diagnostics import Severity
from subagents.errors import ConfigError, UsageError
from subagents.lint.config import Config
from subagents.lint.validate import default_paths, validate_paths
from validate_helpers import DATA, GOOD_FRONT, agent, codes, only, write


def test_seed_compliant_example_passes_strict() -> None:
    report = validate_paths([DATA / "seed_compliant.md"], strict=True)
    assert report.errors == 0 and report.exit_code == 0 and report.agents == 1


def test_dialects_by_location(tmp_path: Path) -> None:
    write(tmp_path, ".claude/agents/a.md", agent(GOOD_FRONT))
    write(tmp_path, ".codex/agents/r.md", agent("name: Bad Codex", body="Do it.\n"))
    write(tmp_path, ".opencode/agent/o.md", "---\ndescription: x\ntools:\n  write: true\n---\nb")
    write(tmp_path, ".opencode/agents/o2.md", "no frontmatter at all")
    write(tmp_path, ".github/agents/g.md", "---\nname: Free Name!\n---\n")
    write(tmp_path, "docs/x.agent.md", "---\ntools: ['edit/editFiles']\n---\n")
    write(tmp_path, "agents.json", '{"helper": {"description": "Helps", "prompt": ""}}')
    write(tmp_path, "package.json", '{"name": "not-an-agent"}')
    write(tmp_path, "README.md", "# not an agent")
    report = validate_paths([tmp_path])
    by_file: dict[str, list[str]] = {}
    for d in report.diagnostics:
        by_file.setdefault(Path(d.path).name, []).append(d.rule)
    assert report.files == 7
    # each file is judged by its own harness's reader, never by Claude's rules
    assert "o.md" not in by_file  # a valid OpenCode agent
    assert by_file["o2.md"] == ["OC007", "OC012"]  # OpenCode loads it, with notes
    assert by_file["g.md"] == ["CP004"] and by_file["x.agent.md"] == ["CP004"]  # no description
    assert "SA501" in by_file["r.md"]
    assert "SA114" in by_file["agents.json"]
    assert "package.json" not in by_file and "README.md" not in by_file


def test_forced_dialect(tmp_path: Path) -> None:
    p = write(tmp_path, "x.md", agent("name: Reviewer", body="Review.\n"))
    assert only(validate_paths([p], dialect="codex-md"), "SA501")
    assert only(validate_paths([p]), "SA206")


def test_display_paths_are_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "proj/.claude/agents/sub/a.md", agent("name: a\ndescription: b"))
    monkeypatch.chdir(tmp_path / "proj")
    report = validate_paths([".claude/agents"])
    assert {d.path for d in report.diagnostics} == {".claude/agents/sub/a.md"}


def test_a_file_named_twice_counts_once(tmp_path: Path) -> None:
    p = write(tmp_path, "agents/a.md", agent(GOOD_FRONT))
    report = validate_paths([p, tmp_path / "agents", p])
    assert report.files == 1 and only(report, "SA601") == []


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        validate_paths([tmp_path / "nope.md"])
    assert info.value.exit_code == 2 and "nope.md" in str(info.value)


def test_no_paths_means_project_and_user_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, ".claude/agents/top.md", agent(GOOD_FRONT))
    write(repo, "pkg/.claude/agents/inner.md", agent(GOOD_FRONT.replace("code-reviewer", "in")))
    write(tmp_path, ".claude/agents/above-git-root.md", agent("name: no"))
    write(home, ".claude/agents/mine.md", agent(GOOD_FRONT.replace("code-reviewer", "mine")))
    monkeypatch.chdir(repo / "pkg")
    found = default_paths()
    assert found == [repo / "pkg/.claude/agents", repo / ".claude/agents", home / ".claude/agents"]
    report = validate_paths()
    assert report.files == 3 and report.agents == 3
    write(repo, ".codex/agents/cx.md", agent("name: cx-agent", body="Review diffs.\n"))
    codex = validate_paths(dialect="codex-md")
    assert codex.files == 1 and codex.diagnostics == []


def test_select_and_ignore(tmp_path: Path) -> None:
    p = write(tmp_path, "a.md", agent("name: Bad_Name\ndescription: short\ntools: Nope"))
    full = codes(validate_paths([p], strict=True))
    assert {"SA104", "SA201", "SA206", "SA302"} <= set(full)
    assert {"SA201", "SA302"}.isdisjoint(codes(validate_paths([p])))  # style: --strict only
    assert set(codes(validate_paths([p], select=["SA2"]))) == {"SA201", "SA206"}
    ignored = codes(validate_paths([p], ignore=["SA2", "missing-max-turns"], strict=True))
    assert "SA201" not in ignored and "SA302" not in ignored and "SA104" in ignored


def test_config_file_found_by_walking_up(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # up to the project root (never above it)
    write(tmp_path, "pyproject.toml",
          '[project]\nname = "x"\n\n[tool.subagents]\nignore = ["SA302"]\n'
          'extra-tools = ["Nope"]\nmodel-aliases = { fast = "claude-haiku-4-5" }\n'
          'per-file-ignores = { "*/legacy/*.md" = ["SA2"] }\n')
    write(tmp_path, "agents/legacy/old.md", agent("name: Old\ndescription: x\nmodel: fast"))
    p = write(tmp_path, "agents/a.md", agent("name: a\ndescription: short\ntools: Nope\n"
                                             "model: fast"))
    got = codes(validate_paths([tmp_path / "agents"], strict=True))
    assert "SA302" not in got and "SA104" not in got and "SA105" not in got
    assert got["SA201"] == 1  # only a.md: legacy/ ignores SA2
    assert only(validate_paths([p], strict=True), "SA201")[0].path == str(p)


def test_subagents_toml_wins_and_strict_from_config(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", '[tool.subagents]\nignore = ["SA201"]\n')
    write(tmp_path, ".subagents.toml", "strict = true\n")
    p = write(tmp_path, "a.md", agent("name: a\ndescription: short\nmaxTurns: 3"))
    report = validate_paths([p])
    (d,) = only(report, "SA201")
    assert d.severity is Severity.ERROR and report.strict


def test_broken_config_raises_with_path_and_line(tmp_path: Path) -> None:
    write(tmp_path, ".subagents.toml", 'ignore = ["SA2"\nselect = 3\n')
    p = write(tmp_path, "a.md", agent(GOOD_FRONT))
    with pytest.raises(ConfigError) as info:
        validate_paths([p])
    assert ".subagents.toml" in str(info.value) and "line 2" in str(info.value)


def test_in_file_silencers(tmp_path: Path) -> None:
    front = "name: a\ndescription: short\n# subagents: ignore[SA201, missing-max-turns]"
    p = write(tmp_path, "a.md", agent(front, body="<!-- subagents: ignore[SA203] -->\nHi.\n"))
    got = codes(validate_paths([p], strict=True))
    assert not {"SA201", "SA302", "SA203"} & set(got) and "SA202" in got
    # a `#` heading in the body is not a YAML comment
    q = write(tmp_path, "b.md", agent("name: b\ndescription: short",
                                      body="# subagents: ignore[SA201]\n"))
    assert only(validate_paths([q], strict=True), "SA201")


def test_explicit_config_object_overrides_files(tmp_path: Path) -> None:
    write(tmp_path, ".subagents.toml", 'ignore = ["SA201"]\n')
    p = write(tmp_path, "a.md", agent("name: a\ndescription: short\nmaxTurns: 3"))
    assert not only(validate_paths([p], strict=True), "SA201")
    assert only(validate_paths([p], config=Config(), strict=True), "SA201")


def test_other_files_in_harness_folders_are_not_agents(tmp_path: Path) -> None:
    """`.github/workflows`, `.cursor/rules`, `.gemini/commands` hold Markdown that is not an
    agent: walking a project judges only what each harness reads as an agent."""
    write(tmp_path, ".github/pull_request_template.md", "# Describe the change\n")
    write(tmp_path, ".cursor/rules/style.md", "Use tabs.\n")
    write(tmp_path, ".gemini/commands/notes.md", "just notes\n")
    write(tmp_path, ".gemini/agents/ok.md",
          "---\nname: ok\ndescription: Reviews diffs.\n---\nYou review diffs.\n")
    report = validate_paths([tmp_path])
    assert report.files == 1 and report.errors == 0, report.diagnostics
