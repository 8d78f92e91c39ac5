"""One registry across harnesses: list/show/doctor/route/run with --dialect X and --dialect all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from subagents.cli.main import cli
from subagents.harnesses.gemini import agent_hash

GEM_HELPER = """---
name: gem-helper
description: Searches the codebase and explains where things are defined.
tools: [read_file, grep_search]
model: gemini-2.5-pro
---
You find things in code.
"""
GEM_NEW = """---
name: gem-new
description: A new agent nobody acknowledged yet.
---
You are new.
"""
OC_HELPER = """---
description: Writes release notes from the git log.
mode: subagent
---
You write release notes.
"""
OC_BROKEN = """---
description: Broken temperature.
temperature: hot
---
You are broken.
"""
CX_HELPER = """name = "cx-helper"
description = "Plans database migrations step by step."
developer_instructions = "You plan migrations."
"""
QW_DEPLOYER = """---
name: q-deployer
description: Deploys the release train to production. Use for deploy and release requests.
---
You deploy releases.
"""
CLAUDE_REVIEWER = """---
name: reviewer
description: Reviews code changes for bugs. Use after edits.
tools: Read, Grep
---
You review code.
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project with Claude, Gemini, OpenCode, Codex (TOML) and Qwen agents; HOME
    redirected, Gemini's acknowledgement of one project agent, the project trusted by Codex."""
    home, root = tmp_path / "home", tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("OPENCODE_CONFIG_DIR", raising=False)
    monkeypatch.chdir(root)
    _write(root / ".claude" / "agents" / "reviewer.md", CLAUDE_REVIEWER)
    _write(root / ".gemini" / "agents" / "gem-helper.md", GEM_HELPER)
    _write(root / ".gemini" / "agents" / "gem-new.md", GEM_NEW)
    _write(root / ".opencode" / "agents" / "oc-helper.md", OC_HELPER)
    _write(root / ".codex" / "agents" / "cx-helper.toml", CX_HELPER)
    _write(root / ".qwen" / "agents" / "q-deployer.md", QW_DEPLOYER)
    acks = {str(root): {"gem-helper": agent_hash(GEM_HELPER)}}
    _write(home / ".gemini" / "acknowledgments" / "agents.json", json.dumps(acks))
    _write(home / ".codex" / "config.toml", f'[projects."{root}"]\ntrust_level = "trusted"\n')
    return root


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _json(result: Result) -> dict[str, object]:
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_list_gemini_json_has_harness_path_model_and_claude_tools(project: Path) -> None:
    result = run("list", "--dialect", "gemini", "--format", "json")
    assert result.exit_code == 0, result.output
    data = _json(result)
    assert set(data) == {"agents", "shadowed", "diagnostics"}
    assert data["agents"] == [{
        "name": "gem-helper",
        "description": "Searches the codebase and explains where things are defined.",
        "source": "project",
        "path": ".gemini/agents/gem-helper.md",
        "model": "gemini-2.5-pro",
        "tools": ["Read", "Grep"],  # Gemini's names, in Claude's vocabulary
        "harness": "gemini",
    }]
    diags = data["diagnostics"]
    assert isinstance(diags, list)
    skipped = [d for d in diags if d["path"] == ".gemini/agents/gem-new.md"]
    assert [(d["rule"], d["severity"]) for d in skipped] == [("GM010", "error")]
    assert "Gemini CLI 0.61.0" in skipped[0]["message"]


def test_list_claude_keeps_its_contract_and_tags_claude(project: Path) -> None:
    data = _json(run("list", "--format", "json"))
    assert [(a["name"], a["harness"]) for a in data["agents"]] == [  # type: ignore[union-attr,index]
        ("reviewer", "claude")]


def test_list_all_tags_every_agent_with_its_harness_and_file(project: Path) -> None:
    result = run("list", "--dialect", "all", "--format", "json")
    assert result.exit_code == 0, result.output
    agents = _json(result)["agents"]
    assert isinstance(agents, list)
    assert {(a["harness"], a["name"], a["path"]) for a in agents} == {
        ("claude", "reviewer", ".claude/agents/reviewer.md"),
        ("codex", "cx-helper", ".codex/agents/cx-helper.toml"),
        ("gemini", "gem-helper", ".gemini/agents/gem-helper.md"),
        ("opencode", "oc-helper", ".opencode/agents/oc-helper.md"),
        ("qwen", "q-deployer", ".qwen/agents/q-deployer.md"),
    }
    text = run("list", "--dialect", "all")
    assert text.exit_code == 0, text.output
    assert "Gemini CLI 0.61.0 loads 1 agent from .gemini/agents" in text.output
    assert "skips .gemini/agents/gem-new.md:1: error GM010" in text.output
    assert "Codex CLI 0.169.0 loads 1 agent" in text.output
    # no Copilot, Cursor or Factory folders: those harnesses are not shown
    assert "Copilot" not in text.output and "Cursor" not in text.output


def test_show_a_codex_toml_agent(project: Path) -> None:
    result = run("show", "cx-helper", "--dialect", "codex", "--format", "json", "--prompt")
    assert result.exit_code == 0, result.output
    data = _json(result)
    assert data["harness"] == "codex" and data["path"] == ".codex/agents/cx-helper.toml"
    assert data["prompt"] == "You plan migrations."
    # not a Claude agent: the default dialect does not see it
    assert run("show", "cx-helper").exit_code == 1


def test_codex_untrusted_project_loads_no_project_agent(project: Path) -> None:
    (Path.home() / ".codex" / "config.toml").write_text("")
    data = _json(run("list", "--dialect", "codex", "--format", "json"))
    assert data["agents"] == []
    assert any(d["path"] == ".codex/agents/cx-helper.toml"  # type: ignore[index]
               for d in data["diagnostics"])  # type: ignore[union-attr]


def test_doctor_harness_section(project: Path) -> None:
    _write(project / ".opencode" / "agents" / "oc-broken.md", OC_BROKEN)
    result = run("doctor")
    assert result.exit_code == 1, result.output
    out = result.output
    section = out[out.index("Harnesses"):]
    assert "Claude Code" in section and "reviewer" in section
    assert "Gemini CLI 0.61.0 loads 1 agent from .gemini/agents: gem-helper" in section
    assert "skips .gemini/agents/gem-new.md:1: error GM010" in section
    assert "OpenCode 1.18.33 does not start" in section
    assert "stops OpenCode 1.18.33 from starting: .opencode/agents/oc-broken.md" in section
    data = _json(run("doctor", "--format", "json"))
    by = {h["harness"]: h for h in data["harnesses"]}  # type: ignore[union-attr,index]
    assert set(by) == {"claude", "codex", "gemini", "opencode", "qwen"}
    assert [s["path"] for s in by["gemini"]["skipped"]] == [".gemini/agents/gem-new.md"]
    assert [f["path"] for f in by["opencode"]["fatal"]] == [".opencode/agents/oc-broken.md"]
    assert by["opencode"]["fatal"][0]["diagnostics"][0]["rule"] == "OC001"
    assert [a["name"] for a in by["opencode"]["loads"]] == ["oc-helper"]
    assert data["summary"]["problems"] == 2  # type: ignore[index]


def test_doctor_without_other_harness_problems_exits_0(project: Path) -> None:
    (project / ".gemini" / "agents" / "gem-new.md").unlink()
    result = run("doctor")
    assert result.exit_code == 0, result.output
    assert "No problems" in result.output


def test_route_with_qwen_agents(project: Path) -> None:
    result = run("route", "deploy the release train to production", "--dialect", "qwen",
                 "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["agents_considered"] == 1
    assert [(a["name"], a["path"]) for a in data["agents"]] == [
        ("q-deployer", ".qwen/agents/q-deployer.md")]


def test_run_a_gemini_agent_with_the_scripted_provider(project: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Found it in main.py."]))
    result = run("run", "--agent", "gem-helper", "--dialect", "gemini", "--provider",
                 "scripted", "--script", str(script), "--format", "json", "where is main?")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["final_text"] == "Found it in main.py."
    assert data["agent"] == "gem-helper"
    # the unacknowledged agent is not loaded by Gemini CLI, so `run` does not find it either
    refused = run("run", "--agent", "gem-new", "--dialect", "gemini", "--provider", "scripted",
                  "--script", str(script), "hi")
    assert refused.exit_code != 0
    # (through `subagents` itself this is "error: ..." and exit 1; CliRunner keeps the error)
    error = refused.output + str(refused.exception) + str(
        getattr(refused.exception, "hint", ""))
    assert "no agent named 'gem-new'" in error and "GM010" in error


def test_an_unacknowledged_gemini_agent_can_be_shown_and_run_on_request(
    project: Path, tmp_path: Path
) -> None:
    """There was no way to judge or run a project agent before Gemini CLI acknowledged it:
    the refusal now says how, --gemini-acknowledged (or the configuration) loads it, and a
    note says Gemini CLI itself still will not."""
    refused = run("show", "gem-new", "--dialect", "gemini")
    assert refused.exit_code != 0
    said = refused.output + str(refused.exception) + str(getattr(refused.exception, "hint", ""))
    assert "--gemini-acknowledged" in said
    shown = run("show", "gem-new", "--dialect", "gemini", "--gemini-acknowledged")
    assert shown.exit_code == 0, shown.output
    assert "A new agent nobody acknowledged yet." in shown.output
    listed = _json(run("list", "--dialect", "gemini", "--gemini-acknowledged",
                       "--format", "json"))
    assert {a["name"] for a in listed["agents"]} == {"gem-helper", "gem-new"}
    assert any(d["rule"] == "GM013" for d in listed["diagnostics"])
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Hello."]))
    ran = run("run", "--agent", "gem-new", "--dialect", "gemini", "--gemini-acknowledged",
              "--provider", "scripted", "--script", str(script), "hi")
    assert ran.exit_code == 0, ran.output
    assert ran.stdout.strip() == "Hello."
    # the configuration says it too (the user's own for run, which trusts no project file)
    (project / ".subagents.toml").write_text("gemini-acknowledged = true\n")
    assert run("show", "gem-new", "--dialect", "gemini").exit_code == 0


@pytest.mark.parametrize("command", [["list"], ["show", "x"], ["doctor"], ["route", "hi"]])
def test_unknown_dialect_exits_2_with_did_you_mean(project: Path, command: list[str]) -> None:
    result = run(*command, "--dialect", "gemni")
    assert result.exit_code == 2
    assert "did you mean 'gemini'" in result.output


def test_all_is_only_for_list_and_doctor(project: Path) -> None:
    result = run("show", "gem-helper", "--dialect", "all")
    assert result.exit_code == 2 and "name one harness" in result.output


def test_agents_flag_with_a_harness_dialect_is_a_usage_error(project: Path) -> None:
    agents = json.dumps({"x": {"description": "d", "prompt": "p"}})
    result = run("list", "--dialect", "gemini", "--agents", agents)
    assert result.exit_code == 2 and "--agents" in result.output


def test_new_codex_writes_a_toml_agent_codex_loads(project: Path) -> None:
    result = run("new", "cx-review", "--dialect", "codex")
    assert result.exit_code == 0, result.output
    assert (project / ".codex" / "agents" / "cx-review.toml").is_file()
    assert "note: Codex CLI 0.169.0" in result.output
    data = _json(run("list", "--dialect", "codex", "--format", "json"))
    assert "cx-review" in {a["name"] for a in data["agents"]}  # type: ignore[union-attr,index]
    again = run("new", "cx-review", "--dialect", "codex")
    assert again.exit_code == 1 and "already exists" in again.output
    other = run("new", "gm-review", "--dialect", "gemini")
    assert other.exit_code == 2 and "convert" in other.output


def test_fix_refuses_codex_toml_and_points_at_codex_md(project: Path) -> None:
    result = run("fix", "--dialect", "codex")
    assert result.exit_code == 2 and "codex-md" in result.output


def test_validate_codex_without_paths_reads_the_toml_agents(project: Path) -> None:
    _write(project / ".codex" / "agents" / "bad.toml", 'name = "bad"\n')
    result = run("validate", "--dialect", "codex", "--format", "json")
    data = json.loads(result.stdout)
    paths = {d["path"] for d in data["diagnostics"]}
    assert any(p.endswith("bad.toml") for p in paths), data
    assert result.exit_code == 1
