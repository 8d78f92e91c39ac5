"""`subagents convert` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from fix_helpers import frontmatter
from subagents.cli.main import cli
from subagents.harnesses.loader import read_agent_file

REVIEWER = """---
name: code-reviewer
description: Reviews diffs for bugs and style problems before a merge.
tools: Read, Grep, Glob
model: sonnet
color: purple
maxTurns: 30
hooks:
  Stop:
    - hooks:
        - type: command
          command: echo done
---

You are a careful code reviewer.
"""

RESEARCHER = """---
name: researcher
description: Answers questions about how the codebase works; never edits files.
tools:
  - Read
  - Grep
model: haiku
---

You explore and explain.
"""


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "code-reviewer.md").write_text(REVIEWER)
    (folder / "researcher.md").write_text(RESEARCHER)
    (folder / "README.md").write_text("# notes, not an agent\n")
    monkeypatch.chdir(tmp_path)
    return folder


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["convert", *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_claude_folder_to_agents_json(agents: Path, tmp_path: Path) -> None:
    code, out, err = run(".claude/agents", "--to", "json", "--out", "build")
    assert code == 0, err
    data = json.loads((tmp_path / "build" / "agents.json").read_text())
    assert set(data) == {"code-reviewer", "researcher"}
    assert data["code-reviewer"]["prompt"] == "You are a careful code reviewer."
    assert data["code-reviewer"]["tools"] == ["Read", "Grep", "Glob"]
    assert data["code-reviewer"]["hooks"]["Stop"][0]["hooks"][0]["command"] == "echo done"
    assert data["researcher"]["model"] == "haiku"
    assert "wrote build/agents.json" in err
    assert "2 agent(s) converted to json" in err
    assert out == ""


def test_json_back_to_claude_files(agents: Path, tmp_path: Path) -> None:
    run(".claude/agents", "--to", "json", "--out", "build")
    code, _, err = run("build/agents.json", "--to", "claude", "--out", "out")
    assert code == 0, err
    for name in ("code-reviewer", "researcher"):
        original = read_agent_file(agents / f"{name}.md").definition
        back = read_agent_file(tmp_path / "out" / f"{name}.md").definition
        assert original is not None and back is not None
        assert back.evolve(path=None, dialect=original.dialect) == original.evolve(path=None)


def test_to_codex_md_on_stdout_warns_about_dropped_fields(agents: Path) -> None:
    code, out, err = run(".claude/agents/code-reviewer.md", "--to", "codex-md")
    assert code == 0
    assert yaml.safe_load(frontmatter(out)) == {
        "name": "code-reviewer",
        "description": "Reviews diffs for bugs and style problems before a merge.",
        "model": "sonnet",
        "tools": ["Read", "Grep", "Glob"],
    }
    assert "CV001 warning: `hooks` cannot be carried by codex-md: dropped" in err
    assert "CV001 warning: `color` cannot be carried by codex-md: dropped" in err
    assert "CV001 warning: `maxTurns` cannot be carried by codex-md: dropped" in err
    assert ".claude/agents/code-reviewer.md:8:1:" in err  # the hooks line in the source


def test_to_codex_writes_the_official_toml(agents: Path) -> None:
    import tomllib

    code, out, err = run(".claude/agents/code-reviewer.md", "--to", "codex")
    assert code == 0, err
    data = tomllib.loads(out)
    assert data["name"] == "code-reviewer"
    assert data["description"] == "Reviews diffs for bugs and style problems before a merge."
    assert data["developer_instructions"].strip()
    assert data["sandbox_mode"] == "read-only"  # Read, Grep, Glob: nothing that writes
    assert "tools" not in data and "color" not in data and "model" not in data  # an alias
    assert "CV001 warning: `tools` cannot be carried by codex: dropped" in err
    assert "CV001 warning: `hooks` cannot be carried by codex: dropped" in err
    assert "CV001 warning: `model` cannot be carried by codex: dropped" in err
    assert "CV007 info:" in err and "trusted project" in err


def test_strict_fails_on_any_loss(agents: Path) -> None:
    code, _, _ = run(".claude/agents/code-reviewer.md", "--to", "sdk", "--strict")
    assert code == 1
    code, out, _ = run(".claude/agents/researcher.md", "--to", "sdk", "--strict")
    assert code == 0
    assert json.loads(out) == {
        "researcher": {
            "description": "Answers questions about how the codebase works; never edits files.",
            # the prompt Claude Code runs (and the registry lists): the body trimmed
            "prompt": "You explore and explain.",
            "tools": ["Read", "Grep"],
            "model": "haiku",
        }
    }


def test_several_markdown_agents_on_stdout_have_headers(agents: Path) -> None:
    code, out, _ = run(".claude/agents", "--to", "claude")
    assert code == 0
    assert "==> code-reviewer.md <==\n---\nname: code-reviewer\n" in out
    assert "==> researcher.md <==\n" in out


def test_existing_output_is_not_replaced_without_force(agents: Path, tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "agents.json").write_text("{}")
    code, _, err = run(".claude/agents", "--to", "json", "--out", "build")
    assert code == 1 and "CV006" in err
    assert (tmp_path / "build" / "agents.json").read_text() == "{}"
    code, _, _ = run(".claude/agents", "--to", "json", "--out", "build", "--force")
    assert code == 0
    assert "researcher" in json.loads((tmp_path / "build" / "agents.json").read_text())


def test_input_claude_code_loads_is_converted_with_validates_warning(agents: Path) -> None:
    """Strict YAML refuses `description: Use when: x`; Claude Code reads it (its lenient second
    pass), so convert reads it as Claude Code does and warns as validate does (issue: convert
    used to refuse 42 of 249 real files, 27 of which Claude Code loads)."""
    (agents / "broken.md").write_text("---\nname: broken\ndescription: Use when: x\n---\nB\n")
    code, out, err = run(".claude/agents", "--to", "json")
    assert code == 0, err
    assert "SA010 warning" in err
    assert json.loads(out)["broken"]["description"] == "Use when: x"


def test_input_claude_code_skips_is_not_converted(agents: Path) -> None:
    (agents / "broken.md").write_text("---\nname: broken\n---\nB\n")
    code, out, err = run(".claude/agents", "--to", "json")
    assert code == 1
    assert "SA103" in err and "CV005" in err
    assert set(json.loads(out)) == {"code-reviewer", "researcher"}  # the others still convert


def test_invalid_codex_name_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agents.json").write_text(
        json.dumps({"Fact Checker": {"description": "Checks facts.", "prompt": "Check."}})
    )
    code, out, err = run("agents.json", "--to", "codex-md")
    assert code == 1 and out == ""
    assert "CV003" in err and "fact-checker" in err


def test_usage_errors(agents: Path) -> None:
    assert run(".claude/agents")[0] == 2  # --to is required
    assert run(".claude/agents", "--to", "yaml")[0] == 2
    assert run("missing.md", "--to", "json")[0] == 2
    assert run(".claude/agents", "--to", "json", "--out", "x", "--stdout")[0] == 2


def test_docs_show_the_real_convert_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root / "examples" / "demo-project")
    result = CliRunner().invoke(
        cli, ["convert", ".claude/agents/code-reviewer.md", "--to", "codex"]
    )
    assert result.exit_code == 0
    doc = (root / "docs" / "fixing.md").read_text()
    block = doc.split("--to codex > code-reviewer.toml\n", 1)[1].split("```", 1)[0]
    assert result.stderr == block
