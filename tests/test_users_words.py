"""Users' words only: no "seed", "REQ-SUB", "§" or "DESIGN.md" in anything a user reads --
every command's --help, every template, every file `new` and `convert` write, every rule's
message and hint, `subagents rules`, `subagents explain` for every rule, docs/spec.md and
docs/rules.md -- and the templates make agents that pass `validate --strict` and refer to
nothing that does not exist.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from subagents.cli.main import COMMANDS, cli
from subagents.cli.registry_cmd import TEMPLATES
from subagents.harnesses.loader import read_agent_file
from subagents.lint.validate import validate_paths

FORBIDDEN = re.compile(r"\bseeds?\b|REQ-SUB|§|DESIGN\.md", re.IGNORECASE)


def _all_help() -> list[tuple[str, str]]:
    """(command line, --help text) for the group and every command and subcommand."""
    out = [("subagents", CliRunner().invoke(cli, ["--help"]).output)]
    ctx = click.Context(cli)

    def walk(path: list[str], cmd: click.Command) -> None:
        text = CliRunner().invoke(cli, [*path, "--help"]).output
        out.append((" ".join(["subagents", *path]), text))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    walk([*path, name], sub)

    for name in sorted(COMMANDS):
        command = cli.get_command(ctx, name)
        assert command is not None, name
        walk([name], command)
    return out


def test_no_internal_wording_in_any_help() -> None:
    helps = _all_help()
    assert len(helps) > len(COMMANDS)
    for where, text in helps:
        assert text.startswith("Usage:"), (where, text[:200])
        hits = [line.strip() for line in text.splitlines() if FORBIDDEN.search(line)]
        assert hits == [], (where, hits)


def _template_texts() -> list[tuple[str, str]]:
    folder = resources.files("subagents") / "templates"
    return [(p.name, p.read_text("utf-8")) for p in folder.iterdir() if p.name.endswith(".md")]


def test_no_internal_wording_in_templates() -> None:
    texts = _template_texts()
    assert sorted(name for name, _ in texts) == sorted(f"{t}.md" for t in TEMPLATES)
    for name, text in texts:
        hits = [line for line in text.splitlines() if FORBIDDEN.search(line)]
        assert hits == [], (name, hits)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("dialect", ["claude", "codex-md"])
def test_generated_agents_pass_strict_and_use_users_words(project: Path, dialect: str) -> None:
    for template in TEMPLATES:
        r = CliRunner().invoke(cli, ["new", f"my-{template}", "--template", template,
                                     "--dialect", dialect])
        assert r.exit_code == 0, r.output
        assert not FORBIDDEN.search(r.output), r.output
    folder = project / f".{dialect.removesuffix('-md')}" / "agents"
    files = sorted(folder.glob("*.md"))
    assert len(files) == len(TEMPLATES)
    report = validate_paths([folder], strict=True)
    assert report.diagnostics == [], [d.format_text() for d in report.diagnostics]
    for path in files:
        text = path.read_text()
        assert not FORBIDDEN.search(text), (path.name, FORBIDDEN.findall(text))


def test_templates_refer_to_nothing_that_does_not_exist(project: Path) -> None:
    """No skills, MCP servers, hooks or other agents a new project does not have, and no
    file or folder the agent is told to read that a new project does not have."""
    for name, _ in _template_texts():
        path = Path(str(resources.files("subagents") / "templates" / name))
        defn = read_agent_file(path).definition
        assert defn is not None, name
        assert defn.skills == (), (name, defn.skills)  # no skill ships with the templates
        assert defn.mcp_servers == (), name  # no server a project may not have
        assert not defn.hooks, name  # hook commands would name programs a project may lack
        text = defn.description + "\n" + defn.system_prompt
        others = [t for t in TEMPLATES if t != defn.name and t in text]
        assert others == [], (name, others)  # another agent the project may not have
        assert ".claude/" not in text, name  # a folder convention the project may not follow
        for tool in defn.tools or ():
            assert not tool.startswith("mcp__"), (name, tool)


@pytest.mark.parametrize("target", ["claude", "codex", "json", "sdk"])
def test_converted_templates_use_users_words(project: Path, target: str) -> None:
    src = Path(str(resources.files("subagents") / "templates"))
    r = CliRunner().invoke(cli, ["convert", str(src), "--to", target])
    assert r.exit_code == 0, r.output
    assert not FORBIDDEN.search(r.output), FORBIDDEN.findall(r.output)


DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_no_internal_wording_in_rules_and_explain() -> None:
    from subagents.lint.rules.catalog import RULES

    runner = CliRunner()
    texts = [("rules", runner.invoke(cli, ["rules"]).output),
             ("rules json", runner.invoke(cli, ["rules", "--format", "json"]).output)]
    for code in RULES:
        for fmt in ("text", "json"):
            r = runner.invoke(cli, ["explain", code, "--format", fmt])
            assert r.exit_code == 0, (code, r.output)
            texts.append((f"explain {code} {fmt}", r.output))
    for where, text in texts:
        hits = [line.strip() for line in text.splitlines() if FORBIDDEN.search(line)]
        assert hits == [], (where, hits)


def test_no_internal_wording_in_rule_messages(tmp_path: Path) -> None:
    """Every message and hint the documented examples produce, in both profiles (each rule a
    file can trigger has such an example: tests/test_rules_explain.py)."""
    from subagents.lint.rules.explanations import explanations

    seen: set[str] = set()
    for code, e in explanations().items():
        for n, (rel, text) in enumerate(e.bad_files.items()):
            path = tmp_path / code / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            for strict in (False, True):
                report = validate_paths([path], strict=strict)
                for d in report.diagnostics:
                    seen.add(d.rule)
                    for part in (d.message, d.hint or ""):
                        assert not FORBIDDEN.search(part), (code, n, d.rule, part)
    assert len(seen) > 40  # the examples really produced findings


@pytest.mark.parametrize("name", ["spec.md", "rules.md"])
def test_no_internal_wording_in_the_rule_docs(name: str) -> None:
    text = (DOCS / name).read_text(encoding="utf-8")
    hits = [line for line in text.splitlines() if FORBIDDEN.search(line)]
    assert hits == [], hits
