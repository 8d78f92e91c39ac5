"""`subagents list | show | doctor | new | watch` (issue 3), through click and a real process."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from registry_helpers import layout, write_agent
from subagents.cli.main import cli
from subagents.cli.registry_cmd import TEMPLATES, render_template
from subagents.definition import Dialect
from subagents.harnesses.loader import read_agent_file
from subagents.registry.core import AgentRegistry

__all__ = ["layout"]


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --------------------------------------------------------------------------- list


def test_list_json_from_a_subfolder_shows_winners_shadowed_and_broken(
    layout: dict[str, Path], tmp_path: Path
) -> None:
    write_agent(layout["user_agents"], "reviewer", extra="model: haiku")
    write_agent(layout["root_agents"], "reviewer", extra="model: opus\ntools: Read, Grep")
    write_agent(layout["root_agents"], "only-root")
    write_agent(layout["user_agents"], "only-user")
    (layout["root_agents"] / "broken.md").write_text("---\nname: broken\ndescription: a: b\n<example>x\n---\n")
    data = _json(run("list", "--format", "json"))
    assert set(data) == {"agents", "shadowed", "diagnostics"}
    agents = {a["name"]: a for a in data["agents"]}
    assert set(agents) == {"reviewer", "only-root", "only-user"}
    rev = agents["reviewer"]
    assert rev == {
        "name": "reviewer",
        "description": "Does things. Use when things need doing.",
        "source": "project",
        "path": str(layout["root_agents"] / "reviewer.md"),  # outside the cwd: absolute
        "model": "opus",
        "tools": ["Read", "Grep"],
        "harness": "claude",
    }
    assert agents["only-user"]["source"] == "user"
    assert agents["only-user"]["tools"] is None and agents["only-user"]["model"] is None
    assert [(s["name"], s["source"], s["path"]) for s in data["shadowed"]] == [
        ("reviewer", "user", "~/.claude/agents/reviewer.md")  # home as ~
    ]
    diag = data["diagnostics"][0]
    assert set(diag) == {"path", "line", "column", "rule", "severity", "message", "hint"}
    # Claude Code's lenient second pass quotes line 3 but cannot read the `<example>` line
    assert (diag["path"], diag["rule"], diag["severity"], diag["line"]) == (
        str(layout["root_agents"] / "broken.md"),
        "SA005",
        "error",
        4,
    )
    assert "Claude Code 2.1.332 skips this file" in diag["message"]
    for a in data["agents"]:
        assert a["source"] in {"managed", "cli", "project", "user", "plugin"}


def test_list_paths_under_cwd_are_relative(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "here")
    data = _json(run("list", "--format", "json"))
    assert data["agents"][0]["path"] == os.path.join(".claude", "agents", "here.md")


def test_list_spells_paths_like_validate(layout: dict[str, Path]) -> None:
    """One file, one spelling: relative inside the cwd, ``~`` under home, else absolute."""
    pkg_agents = layout["sub"].parent / ".claude" / "agents"
    for folder in (layout["sub_agents"], pkg_agents, layout["root_agents"]):
        folder.mkdir(parents=True)
        (folder / "broken.md").write_text("---\nname: b\ndescription: x: y\n<example>x\n---\nb\n")
    listed = _json(run("list", "--format", "json"))["diagnostics"]
    validated = run("validate", "--format", "json")
    assert validated.exit_code == 1
    checked = json.loads(validated.stdout)["diagnostics"]
    paths = sorted({d["path"] for d in listed})
    assert paths == sorted(
        [
            os.path.join(".claude", "agents", "broken.md"),
            str(pkg_agents / "broken.md"),
            str(layout["root_agents"] / "broken.md"),
        ]
    )
    assert paths == sorted({d["path"] for d in checked})
    skipped = [d for d in listed if d["rule"] == "SA005"]
    assert len(skipped) == 3
    assert skipped == [d for d in checked if d["rule"] == "SA005"]


def test_list_with_agents_json_and_dialect(layout: dict[str, Path]) -> None:
    write_agent(layout["sub"] / ".codex" / "agents", "codexy", extra="keywords: [x]")
    agents = json.dumps({"from-cli": {"description": "d", "prompt": "p", "tools": ["Read"]}})
    data = _json(run("list", "--format", "json", "--agents", agents, "--dialect", "codex-md"))
    by = {a["name"]: a for a in data["agents"]}
    assert by["from-cli"]["source"] == "cli" and by["from-cli"]["path"] is None
    assert by["from-cli"]["tools"] == ["Read"]
    assert by["codexy"]["source"] == "project"
    assert "codexy" not in {a["name"] for a in _json(run("list", "--format", "json"))["agents"]}


def test_list_include_builtin(layout: dict[str, Path]) -> None:
    names = {
        a["name"] for a in _json(run("list", "--format", "json", "--include-builtin"))["agents"]
    }
    assert names == {"general-purpose", "Explore", "Plan"}


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('"text"', "must be a JSON object"),
        ('{"a": 5}', "must be a JSON object, got a number"),
        ('{"": {"description": "d"}}', "non-empty strings"),
        ('{"a": {"name": 5}}', "field 'name' must be a string"),
        ('{"a": {"description": ["x"]}}', "field 'description' must be a string"),
    ],
)
def test_bad_agents_value_is_exit_2(layout: dict[str, Path], value: str, fragment: str) -> None:
    for command in REGISTRY_COMMANDS:
        result = CliRunner().invoke(cli, [*command, "--agents", value])
        assert result.exit_code == 2, (command, result.output)
        assert fragment in result.output
        assert "Traceback" not in result.output


# Every command that reads the registry, with the arguments it needs.
REGISTRY_COMMANDS = (
    ("list",),
    ("show", "x"),
    ("doctor",),
    ("watch", "--timeout", "0.1"),
    ("route", "review my code"),
    ("test",),
    ("run", "hello"),
)


def test_every_registry_command_sees_agents_from_the_agents_option(
    layout: dict[str, Path], tmp_path: Path
) -> None:
    value = json.dumps(
        {"cli-only": {"description": "Reviews invoices for fraud.", "prompt": "Say done."}}
    )
    seen = {
        "list": run("list", "--agents", value).output,
        "show": run("show", "cli-only", "--agents", value).output,
        "doctor": run("doctor", "cli-only", "--agents", value).output,
        "route": run("route", "review invoices for fraud", "--agents", value).output,
        "test": run("test", "--agents", value).output,
    }
    for command, output in seen.items():
        assert "cli-only" in output, (command, output)
    script = tmp_path / "script.json"
    script.write_text('["done."]')
    ran = CliRunner().invoke(
        cli,
        [
            "run",
            "--agent",
            "cli-only",
            "--provider",
            "scripted",
            "--script",
            str(script),
            "--no-transcript",
            "--agents",
            value,
            "hi",
        ],
    )
    assert ran.exit_code == 0, ran.output
    assert ran.output.strip() == "done."


def test_agents_json_group_and_global_dirs_and_env(
    layout: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    group, glob = tmp_path / "group", tmp_path / "global"
    group.mkdir()
    glob.mkdir()
    (group / "agents.json").write_text(
        json.dumps({"shared": {"description": "group wins", "prompt": "p"}})
    )
    (glob / "agents.json").write_text(
        json.dumps(
            {
                "shared": {"description": "global", "prompt": "p"},
                "only-global": {"description": "g", "prompt": "p"},
            }
        )
    )
    data = _json(
        run("list", "--format", "json", "--group-dir", str(group), "--global-dir", str(glob))
    )
    got = {a["name"]: (a["description"], a["source"], a["path"]) for a in data["agents"]}
    assert got == {
        "shared": ("group wins", "cli", str(group / "agents.json")),
        "only-global": ("g", "cli", str(glob / "agents.json")),
    }
    assert [(s["name"], s["path"]) for s in data["shadowed"]] == [
        ("shared", str(glob / "agents.json"))
    ]
    # the same variables as `subagents define/remove/export`
    monkeypatch.setenv("SUBAGENTS_GROUP_DIR", str(group))
    assert [a["name"] for a in _json(run("list", "--format", "json"))["agents"]] == ["shared"]
    assert "group wins" in run("show", "shared").output
    assert "shared" in run("route", "group wins").output


def test_plugin_dirs_and_managed_dir_from_the_environment(
    layout: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p1, p2, managed = tmp_path / "p1", tmp_path / "p2", tmp_path / "managed"
    write_agent(p1 / "agents", "one")
    write_agent(p2 / "agents" / "sub", "two")
    write_agent(managed, "boss")
    monkeypatch.setenv("SUBAGENTS_PLUGIN_DIRS", os.pathsep.join([str(p1), str(p2)]))
    monkeypatch.setenv("SUBAGENTS_MANAGED_DIR", str(managed))
    data = _json(run("list", "--format", "json"))
    assert [(a["name"], a["source"]) for a in data["agents"]] == [
        ("boss", "managed"),
        ("p1:one", "plugin"),
        ("p2:sub:two", "plugin"),
    ]
    # the library's configured_registry() reads the same environment, so a program sees the
    # agents the command line sees; build_registry() is the CLI's door to it
    from subagents.cli.options import build_registry
    from subagents.registry.configured import configured_registry

    names = [e.name for e in build_registry().load_all().list(include_builtin=False)]
    assert names == ["boss", "p1:one", "p2:sub:two"]
    library = [e.name for e in configured_registry().load_all().list(include_builtin=False)]
    assert library == names


def test_scope_options_reach_the_registry(
    layout: dict[str, Path], tmp_path: Path
) -> None:
    """What `subagents run` gets by adding one decorator (it keeps its own --agents/--cwd)."""
    import click

    from subagents.cli.options import ScopeOptions, option_group

    @click.command()
    @option_group(ScopeOptions)
    def probe(scope: ScopeOptions) -> None:
        reg = scope.build_registry().load_all()
        click.echo(reg.dialect.value)
        click.echo(" ".join(e.name for e in reg.list(include_builtin=False)))

    write_agent(tmp_path / "plug" / "agents", "helper")
    write_agent(tmp_path / "boss", "chief")
    (tmp_path / "grp").mkdir()
    (tmp_path / "grp" / "agents.json").write_text('{"j": {"description": "d", "prompt": "p"}}')
    write_agent(layout["sub"] / ".codex" / "agents", "codexer")
    out = CliRunner().invoke(
        probe,
        [
            "--plugin-dir",
            str(tmp_path / "plug"),
            "--managed-dir",
            str(tmp_path / "boss"),
            "--group-dir",
            str(tmp_path / "grp"),
            "--dialect",
            "codex-md",
        ],
    )
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == ["codex-md", "chief j codexer plug:helper"]


def test_agents_from_file(layout: dict[str, Path], tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text(json.dumps({"filed": {"description": "d", "prompt": "p"}}))
    data = _json(run("list", "--format", "json", "--agents", f"@{f}"))
    assert [a["name"] for a in data["agents"]] == ["filed"]


def test_list_text_table(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "alpha", extra="model: sonnet\ntools: Read, Grep")
    write_agent(layout["user_agents"], "alpha")
    result = run("list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "SOURCE", "MODEL", "TOOLS", "PATH"]
    assert lines[1].split() == [
        "alpha",
        "project",
        "sonnet",
        "Read,",
        "Grep",
        os.path.join(".claude", "agents", "alpha.md"),
    ]
    assert "shadowed (1):" in result.output
    assert "\x1b[" not in result.output  # no colour codes when not a terminal


# --------------------------------------------------------------------------- show


def test_show_prints_fields_origin_shadowed_and_examples(layout: dict[str, Path]) -> None:
    body = (
        "You review.\n\n## Usage Examples\n\n**Example 1: one**\nUser: review my diff\n\n"
        "**Example 2: two**\nUser: check the PR\n\n## Other\nnot an example\n"
    )
    write_agent(layout["sub_agents"], "rev", body=body, extra="maxTurns: 7")
    write_agent(layout["user_agents"], "rev")
    result = run("show", "REV")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("rev  (project .claude/agents/rev.md)")
    assert "maxTurns:" in out and "7" in out
    assert "shadows:\n  user " in out
    assert "1. review my diff" in out and "2. check the PR" in out
    assert "not an example" not in out
    data = _json(run("show", "rev", "--format", "json"))
    assert data["examples"] == ["review my diff", "check the PR"]
    assert data["maxTurns"] == 7 and data["source"] == "project"  # typed as in the file
    assert data["shadowed"][0]["source"] == "user"


def test_show_examples_from_description_example_blocks(layout: dict[str, Path]) -> None:
    desc = ('"Use it. <example>Context: x\\nuser: do it now</example> '
            '<example>user: and this one\\nassistant: ok</example>"')
    write_agent(layout["sub_agents"], "ex", description=desc)
    data = _json(run("show", "ex", "--format", "json"))
    assert data["examples"] == ["do it now", "and this one"]


def test_show_unknown_name_exit_1_with_suggestions_and_fallback(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "code-reviewer")
    result = CliRunner().invoke(cli, ["show", "code-reveiwer"])
    assert result.exit_code == 1
    assert "no agent named 'code-reveiwer'" in result.output
    assert "did you mean: code-reviewer" in result.output
    # REQ-SUB-029: say so, and offer the main agent instead
    assert "instead: the built-in general-purpose agent can do the task" in result.output
    assert "`subagents run PROMPT` without --agent" in result.output


def test_show_a_name_whose_file_failed_says_why_not_just_unknown(
    layout: dict[str, Path],
) -> None:
    (layout["sub_agents"]).mkdir(parents=True)
    (layout["sub_agents"] / "rev.md").write_text("---\nname: rev\ndescription: a: b\n<example>x\n---\nx\n")
    result = CliRunner().invoke(cli, ["show", "rev"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "error: agent 'rev' is not loaded:"
    assert lines[1].startswith("  .claude/agents/rev.md:4: SA005 Claude Code 2.1.332 skips")
    assert lines[2].startswith("    fix: ")
    assert "general-purpose" in lines[3]
    # the library says it too (what `run --agent rev` prints)
    from subagents.errors import AgentNotFoundError

    with pytest.raises(AgentNotFoundError) as info:
        AgentRegistry().entry("rev")
    assert (
        info.value.hint is not None and ".claude/agents/rev.md would define it" in info.value.hint
    )
    assert "SA005 at line 4" in info.value.hint


def test_show_a_name_defined_twice_uses_the_last_path(layout: dict[str, Path]) -> None:
    # Claude Code 2.1.330 keeps the last path in code-unit order (measured)
    write_agent(layout["sub_agents"], "twin", filename="a.md")
    write_agent(layout["sub_agents"], "twin", filename="b.md", extra="model: haiku")
    result = CliRunner().invoke(cli, ["show", "twin"])
    assert result.exit_code == 0
    assert "b.md" in result.output and "haiku" in result.output
    doctor = CliRunner().invoke(cli, ["doctor", "twin"])
    assert "a.md" in doctor.output


# --------------------------------------------------------------------------- doctor


def test_doctor_explains_everything_on_one_screen(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "ok")
    write_agent(layout["user_agents"], "ok")
    (layout["sub_agents"] / "bad.md").write_text(
        "---\nname: bad\ndescription: x: y\n<example>x\n---\nb\n"
    )
    write_agent(layout["sub_agents"], "twin", filename="t1.md")
    write_agent(layout["sub_agents"] / "deep", "twin", filename="t2.md")
    write_agent(layout["root_agents"], "skipped", extra="name: again")  # SA007 duplicate key
    result = CliRunner().invoke(cli, ["doctor"], env={"COLUMNS": "100"})
    assert result.exit_code == 1
    lines = result.output.splitlines()
    root = str(layout["root_agents"])
    pkg = str(layout["sub"].parent / ".claude" / "agents")  # outside the cwd: absolute
    width = max(len(root), len(pkg))
    assert lines[2:8] == [
        "Scope folders, highest precedence first:",
        "  managed  (none: --managed-dir or SUBAGENTS_MANAGED_DIR)",
        f"  project  {'.claude/agents':<{width}}  4 files",
        f"  project  {pkg:<{width}}  missing",
        f"  project  {root:<{width}}  1 file  (git root)",
        f"  user     {'~/.claude/agents':<{width}}  1 file",
    ]
    out = result.output
    # Claude Code 2.1.330 loads `skipped` as `again` (the last of two `name` keys wins) and
    # keeps t1.md of the two `twin` files (the last path in code-unit order)
    assert "Loaded: 3 agents (3 project); built-in: Explore, general-purpose, Plan" in out
    i = lines.index("Not loaded (1 file):")
    assert lines[i + 1] == "  .claude/agents/  (project)"
    assert lines[i + 2] == "    bad.md:4"
    assert lines[i + 3].startswith("      SA005 Claude Code 2.1.332 skips this file")
    assert any(ln.startswith("      fix: `subagents fix`") for ln in lines[i + 3 : i + 8])
    assert (
        "Defined twice in one folder (Claude Code 2.1.332 keeps the last path, ignores the rest):"
        in lines
    )
    assert "  twin: .claude/agents/ uses t1.md; ignores deep/t2.md" in lines
    j = lines.index("Shadowed (the first scope that defines a name wins):")
    assert lines[j + 1 : j + 3] == [
        "  ok  uses project .claude/agents/ok.md",
        "      hides user ~/.claude/agents/ok.md",
    ]
    assert lines[-1] == "2 problems keep agents from loading."
    assert len(lines) < 40
    # (the scope table is as wide as the longest folder path; the rest fits 100 columns)
    assert max(len(ln) for ln in lines[8:] if str(layout["project"]) not in ln) <= 100


def test_doctor_json_has_the_list_and_validate_shapes(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "ok")
    write_agent(layout["user_agents"], "ok")
    (layout["sub_agents"] / "bad.md").write_text(
        "---\nname: bad\ndescription: x: y\n<example>x\n---\nb\n"
    )
    write_agent(layout["sub_agents"], "twin", filename="t1.md")
    write_agent(layout["sub_agents"], "twin", filename="t2.md")
    result = CliRunner().invoke(cli, ["doctor", "--format", "json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    listed = json.loads(CliRunner().invoke(cli, ["list", "--format", "json"]).output)
    assert data["agents"] == listed["agents"]
    assert data["shadowed"] == listed["shadowed"]
    assert data["diagnostics"] == listed["diagnostics"]
    assert data["summary"] == {
        "agents": 2,
        "not_loaded": 1,
        "clashes": 0,
        "duplicates": 1,
        "shadowed": 2,
        "problems": 2,
        "errors": 2,
        "warnings": 0,
    }
    assert data["clashes"] == []
    assert data["duplicates"] == [
        {
            "name": "twin",
            "source": "project",
            "used": ".claude/agents/t2.md",
            "ignored": [".claude/agents/t1.md"],
        }
    ]
    (bad,) = data["not_loaded"]
    assert (bad["path"], bad["name"], bad["source"]) == (".claude/agents/bad.md", "bad", "project")
    assert [d["rule"] for d in bad["diagnostics"]] == ["SA005"]
    assert [(s["scope"], s["path"], s["state"], s["files"]) for s in data["scopes"]] == [
        ("project", ".claude/agents", "ok", 4),
        ("project", str(layout["sub"].parent / ".claude" / "agents"), "missing", 0),
        ("project", str(layout["root_agents"]), "missing", 0),
        ("user", "~/.claude/agents", "ok", 1),
    ]
    for d in data["diagnostics"]:
        assert list(d) == ["path", "line", "column", "rule", "severity", "message", "hint"]
    one = json.loads(CliRunner().invoke(cli, ["doctor", "bad", "--format", "json"]).output)
    assert one["loaded"] is False and one["not_loaded"][0]["path"] == ".claude/agents/bad.md"
    ok = CliRunner().invoke(cli, ["doctor", "ok", "--format", "json"])
    assert ok.exit_code == 0 and json.loads(ok.output)["winner"]["source"] == "project"


def test_doctor_clean_directory_exit_0(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "fine")
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "No problems: every agent file in scope is loaded."
    assert " empty" not in result.output
    layout["user_agents"].mkdir(parents=True)
    assert "~/.claude/agents" in CliRunner().invoke(cli, ["doctor"]).output
    assert "  empty" in CliRunner().invoke(cli, ["doctor"]).output
    clean = CliRunner().invoke(cli, ["doctor", "--format", "json"])
    assert clean.exit_code == 0 and json.loads(clean.output)["summary"]["problems"] == 0


# --------------------------------------------------------------------------- new


@pytest.mark.parametrize("template", TEMPLATES)
def test_new_writes_a_valid_file_from_each_template(layout: dict[str, Path], template: str) -> None:
    result = run("new", f"my-{template}", "--template", template)
    assert result.exit_code == 0, result.output
    path = layout["root_agents"] / f"my-{template}.md"  # at the git root, not the cwd
    result_load = read_agent_file(path)
    assert result_load.ok, result_load.diagnostics
    assert not result_load.diagnostics
    defn = result_load.definition
    assert defn is not None and defn.name == f"my-{template}" and defn.max_turns
    # created folders are 755, the file 644
    for folder in (layout["root_agents"], layout["root_agents"].parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in layout["root_agents"].iterdir()] == [path.name]  # no temp left
    from subagents.lint.validate import validate_paths

    report = validate_paths([path], strict=True)
    assert [d for d in report.diagnostics if d.severity.value == "error"] == []


def test_new_refuses_to_overwrite(layout: dict[str, Path]) -> None:
    assert run("new", "keeper").exit_code == 0
    path = layout["root_agents"] / "keeper.md"
    path.write_text("mine")
    result = CliRunner().invoke(cli, ["new", "keeper", "--template", "researcher"])
    assert result.exit_code == 1
    assert "already exists" in result.output
    assert path.read_text() == "mine"


def test_new_refuses_a_name_already_defined_in_that_folder(layout: dict[str, Path]) -> None:
    write_agent(layout["root_agents"], "taken", filename="other-file.md")
    result = CliRunner().invoke(cli, ["new", "taken"])
    assert result.exit_code == 1 and "would clash" in result.output
    assert not (layout["root_agents"] / "taken.md").exists()


def test_new_user_scope_and_codex_dialect(layout: dict[str, Path]) -> None:
    assert run("new", "mine", "--scope", "user", "--template", "researcher").exit_code == 0
    assert AgentRegistry().load_all().entry("mine").source.value == "user"
    assert run("new", "cx-review", "--dialect", "codex-md").exit_code == 0
    path = layout["project"] / ".codex" / "agents" / "cx-review.md"
    loaded = read_agent_file(path, dialect=Dialect.CODEX_MD)
    assert loaded.ok and loaded.definition is not None
    assert loaded.definition.keywords == ("review", "diff", "lint")
    assert loaded.definition.model is None
    reg = AgentRegistry(dialect=Dialect.CODEX_MD).load_all()
    assert reg.get("cx-review").system_prompt.lstrip().startswith("## Role")


@pytest.mark.parametrize("dialect", ["claude", "codex-md"])
@pytest.mark.parametrize("scope", ["project", "user"])
def test_new_every_template_scope_and_dialect_from_a_subfolder(
    layout: dict[str, Path], scope: str, dialect: str
) -> None:
    old_umask = os.umask(0o077)  # 755 folders and a 644 file whatever the umask (REQ-SUB-017)
    try:
        for template in TEMPLATES:
            name = f"n-{template}"
            args = ["new", name, "--template", template, "--scope", scope, "--dialect", dialect]
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 0, result.output
            again = CliRunner().invoke(cli, args)
            assert again.exit_code == 1 and "already exists" in again.output
    finally:
        os.umask(old_umask)
    base = layout["home"] if scope == "user" else layout["project"]  # the git root, not cwd
    folder = base / f".{dialect.removesuffix('-md')}" / "agents"
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"n-{t}.md" for t in TEMPLATES)
    for d in (folder, folder.parent):
        assert stat.S_IMODE(d.stat().st_mode) == 0o755
    for p in folder.iterdir():
        assert stat.S_IMODE(p.stat().st_mode) == 0o644
    from subagents.lint.validate import validate_paths

    report = validate_paths([folder])
    assert [d for d in report.diagnostics if d.severity.value == "error"] == []
    reg = AgentRegistry(dialect=Dialect(dialect)).load_all()
    for template in TEMPLATES:
        entry = reg.entry(f"n-{template}")
        assert entry.source.value == scope
        assert entry.definition.system_prompt.strip()  # the body loads too


def test_new_without_hard_links_still_refuses_to_overwrite(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    def no_links(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    assert run("new", "linkless").exit_code == 0
    path = layout["root_agents"] / "linkless.md"
    assert read_agent_file(path).ok
    assert [p.name for p in layout["root_agents"].iterdir()] == ["linkless.md"]  # no temp
    path.write_text("mine")
    from subagents.cli.registry_cmd import write_new_file

    with pytest.raises(FileExistsError):
        write_new_file(path, "theirs")
    assert path.read_text() == "mine"
    assert [p.name for p in layout["root_agents"].iterdir()] == ["linkless.md"]


def test_new_unwritable_folder_is_a_message_not_a_traceback(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import subagents.cli.registry_cmd as cmd

    def denied(folder: Path) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(folder))

    monkeypatch.setattr(cmd, "_make_dirs", denied)
    result = CliRunner().invoke(cli, ["new", "nope"])
    assert result.exit_code == 1
    assert "error: cannot write" in result.output and "Permission denied" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("bad", ["Bad", "-x", "a:b", "has space", "x" * 51, "../up"])
def test_new_rejects_invalid_names_exit_2(layout: dict[str, Path], bad: str) -> None:
    result = CliRunner().invoke(cli, ["new", "--", bad])
    assert result.exit_code == 2, result.output
    assert "not a valid agent name" in result.output


def test_render_template_substitutes_only_the_name() -> None:
    text = render_template("code-reviewer", "zzz")
    assert "name: zzz\n" in text and "name: code-reviewer" not in text
    assert "# A code reviewer, written by `subagents new`" in text  # the template's comments are kept


# --------------------------------------------------------------------------- watch


def _readline(proc: subprocess.Popen[str], bound: float = 20.0) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], bound)
    assert ready, "watch printed nothing (hung?)"
    return proc.stdout.readline()


@pytest.mark.slow
def test_watch_process_json_lines_and_ctrl_c(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "before")
    env = {**os.environ, "HOME": str(layout["home"])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "subagents.cli.main", "watch", "--format", "json"],
        cwd=layout["sub"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert json.loads(_readline(proc)) == {"event": "ready", "agents": 1}
        t0 = time.monotonic()
        path = write_agent(layout["sub_agents"], "fresh")
        added = json.loads(_readline(proc))
        assert added == {
            "event": "added",
            "name": "fresh",
            "path": os.path.join(".claude", "agents", "fresh.md"),
            "source": "project",
        }
        write_agent(layout["sub_agents"], "fresh", description="changed it")
        assert json.loads(_readline(proc))["event"] == "modified"
        path.unlink()
        assert json.loads(_readline(proc))["event"] == "removed"
        elapsed = time.monotonic() - t0
        # Overriding a built-in: `list` (no --include-builtin) gains an agent, so `added`.
        explore = write_agent(layout["sub_agents"], "Explore")
        shown = os.path.join(".claude", "agents", "Explore.md")
        assert json.loads(_readline(proc)) == {
            "event": "added",
            "name": "Explore",
            "path": shown,
            "source": "project",
        }
        explore.unlink()
        assert json.loads(_readline(proc)) == {
            "event": "removed",
            "name": "Explore",
            "path": shown,
            "source": "project",
            "reason": "deleted",
        }
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    print(f"added+modified+removed seen in {elapsed:.2f}s")


@pytest.mark.slow
def test_watch_text_form_and_timeout(layout: dict[str, Path]) -> None:
    env = {**os.environ, "HOME": str(layout["home"])}
    proc = subprocess.run(
        [sys.executable, "-m", "subagents.cli.main", "watch", "--timeout", "0.5"],
        cwd=layout["sub"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("watching: 0 agents loaded")
    (layout["sub_agents"]).mkdir(parents=True)
    (layout["sub_agents"] / "bad.md").write_text("no frontmatter")
    proc = subprocess.run(
        [sys.executable, "-m", "subagents.cli.main", "watch", "--timeout", "0.5"],
        cwd=layout["sub"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.stdout.splitlines()[1] == "! 1 file not loaded; `subagents doctor` says why"


def test_doctor_name_explains_one_agent(layout: dict[str, Path]) -> None:
    write_agent(layout["sub_agents"], "rev")
    write_agent(layout["user_agents"], "rev")
    (layout["sub_agents"] / "gone.md").write_text("---\nname: gone\ndescription: a: b\n<example>x\n---\n")
    ok = CliRunner().invoke(cli, ["doctor", "rev"])
    assert ok.exit_code == 0
    assert ok.output.splitlines() == [
        "rev: loaded from project " + os.path.join(".claude", "agents", "rev.md"),
        "  shadowed: user ~/.claude/agents/rev.md",
    ]
    bad = CliRunner().invoke(cli, ["doctor", "gone"])
    assert bad.exit_code == 1
    assert "gone: not loaded" in bad.output and "gone.md: SA005" in bad.output
    missing = CliRunner().invoke(cli, ["doctor", "re"])
    assert missing.exit_code == 1 and "closest names: rev" in missing.output


def test_doctor_reports_an_agents_value_claude_code_refuses(layout: dict[str, Path]) -> None:
    """Claude Code 2.1.332 does not start at all when one --agents entry has no description
    (recorded case cli-agents-no-description): the whole value is refused, not one entry."""
    value = json.dumps({"good": {"description": "d", "prompt": "p"}, "bad": {"prompt": "p"}})
    result = CliRunner().invoke(cli, ["doctor", "--agents", value])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    i = lines.index("Not loaded (1 file):")
    assert lines[i + 1 : i + 3] == ["  --agents  (cli)", "    --agents:1"]
    assert lines[i + 3].startswith("      SA103 Claude Code refuses to start with this --agents")
    assert re.search(r"  cli +--agents +0 agents", result.output), result.output
    listed = CliRunner().invoke(cli, ["list", "--agents", value])
    assert listed.exit_code == 2 and "refuses to start" in listed.output
