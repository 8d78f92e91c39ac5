"""`subagents validate|schema|rules` through click, and the light import path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from validate_helpers import DATA, GOOD_FRONT, agent, write


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_exit_codes(tmp_path: Path) -> None:
    good = write(tmp_path, "good.md", agent(GOOD_FRONT))
    bad = write(tmp_path, "bad.md", "no frontmatter")
    assert run("validate", str(good))[0] == 0
    code, out = run("validate", str(good), str(bad))
    assert code == 1 and f"{bad}:1:1: SA003 error" in out
    assert run("validate", "--no-such-flag", str(good))[0] == 2
    code, out = run("validate", str(tmp_path / "missing.md"))
    assert code == 2 and "missing.md" in out
    assert run("validate", "--format", "xml", str(good))[0] == 2
    assert run("validate", "--select", "SA9", str(good))[0] == 2


def test_strict_flag(tmp_path: Path) -> None:
    p = write(tmp_path, "a.md", agent("name: a\ndescription: short\nmaxTurns: 3"))
    assert run("validate", str(p))[0] == 0
    code, out = run("validate", "--strict", str(p))
    assert code == 1 and "SA201 error" in out and "(strict)" in out
    assert run("validate", str(DATA / "seed_compliant.md"), "--strict")[0] == 0


def test_json_and_sarif_output(tmp_path: Path) -> None:
    p = write(tmp_path, "a.md", agent("name: a:b\ndescription: Reviews diffs for problems"))
    code, out = run("validate", "--format", "json", str(p))
    data = json.loads(out)
    assert code == 1 and data["summary"]["errors"] == 1
    assert [d["rule"] for d in data["diagnostics"] if d["severity"] == "error"] == ["SA101"]
    code, out = run("validate", "--format", "sarif", str(p))
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1 and [r["ruleId"] for r in results if r["level"] == "error"] == ["SA101"]


def test_select_ignore_and_dialect(tmp_path: Path) -> None:
    p = write(tmp_path, "a.md", agent("name: Bad Name\ndescription: short", body="Hi\n"))
    _, out = run("validate", "--select", "SA2", "--ignore", "name-not-kebab-case", str(p))
    assert "SA201" in out and "SA206" not in out and "SA302" not in out
    code, out = run("validate", "--dialect", "codex-md", str(p))
    assert code == 1 and "SA501" in out


def test_config_error_exits_2(tmp_path: Path) -> None:
    write(tmp_path, ".subagents.toml", "select = [\n")
    p = write(tmp_path, "a.md", agent(GOOD_FRONT))
    code, out = run("validate", str(p))
    assert code == 2 and ".subagents.toml" in out


def test_schema_and_rules_commands() -> None:
    code, out = run("schema")
    schema = json.loads(out)
    assert code == 0 and schema["$schema"].endswith("2020-12/schema")
    assert schema["required"] == ["name", "description"]
    assert "PreToolUse" in schema["properties"]["hooks"]["propertyNames"]["enum"]
    code, out = run("rules")
    assert code == 0 and "SA404  hardcoded-credential" in out
    code, out = run("rules", "--format", "json")
    assert any(r["code"] == "SA201" and r["strict"] == "error" for r in json.loads(out))


def test_help_explains() -> None:
    code, out = run("validate", "--help")
    assert code == 0 and "Exit status" in out and "--strict" in out and "ignore[SA201]" in out


def test_validate_imports_nothing_heavy(tmp_path: Path) -> None:
    """`subagents validate one.md` must not load provider SDKs, mcp, rich, watchfiles, bm25s."""
    p = write(tmp_path, "one.md", agent(GOOD_FRONT))
    code = (
        "import sys\n"
        "from subagents.cli.main import main\n"
        "try:\n"
        f"    main(['validate', {str(p)!r}])\n"
        "except SystemExit as e:\n"
        "    rc = e.code\n"
        "else:\n"
        "    rc = 0\n"
        "heavy = ('anthropic', 'openai', 'mcp', 'rich', 'watchfiles', 'bm25s', 'httpx', 'dbos',"
        " 'sqlalchemy')\n"
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
        "print('RC', rc)\n"
    )
    env = {**os.environ, "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=60, check=False).stdout
    assert "LOADED []" in out, out
    assert "RC 0" in out or "RC None" in out, out


@pytest.mark.skipif(not (Path(__file__).parents[1] / ".pre-commit-hooks.yaml").exists(),
                    reason="hook file missing")
def test_pre_commit_hook_declares_validate() -> None:
    import yaml

    hooks = yaml.safe_load((Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "subagents-validate"]
    assert hook["entry"].startswith("subagents validate") and hook["language"] == "python"


def test_pre_commit_hooks_pick_agent_files_only() -> None:
    import re

    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load(
        (Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["subagents-fix"]["entry"] == "subagents fix"

    def picks(hook: dict[str, str], path: str) -> bool:  # as pre-commit does: re.search
        return bool(re.search(hook["files"], path)) and not re.search(hook["exclude"], path)

    val = hooks["subagents-validate"]
    for path in (".claude/agents/a.md", "pkg/.claude/agents/sub/b.md", ".codex/agents/c.md",
                 "agents.json", "conf/team.agents.json"):
        assert picks(val, path), path
    for path in ("README.md", ".claude/agents/README.md", "docs/agents.md", "package.json",
                 ".claude/commands/x.md"):
        assert not picks(val, path), path
    assert not picks(hooks["subagents-fix"], "agents.json")


def test_pre_commit_validate_hook_picks_every_harness_file() -> None:
    """The hook's pattern is the harness table's: Codex TOML and the other harnesses' agent
    files are checked too (it used to pick only Markdown under .claude and .codex)."""
    import re

    import yaml

    from subagents.harnesses.table import precommit_pattern

    hooks = {h["id"]: h for h in yaml.safe_load(
        (Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text())}
    val = hooks["subagents-validate"]
    assert val["files"] == precommit_pattern()
    assert "types_or" not in val and "types" not in val  # toml is not "markdown" or "json"
    for path in (".codex/agents/reviewer.toml", ".gemini/agents/a.md", ".qwen/agents/a.md",
                 ".github/agents/a.agent.md", ".opencode/agent/a.md", ".cursor/agents/a.md",
                 ".factory/droids/a.md", ".codex/config.toml", "opencode.json"):
        assert re.search(val["files"], path) and not re.search(val["exclude"], path), path
    assert not re.search(val["files"], "pyproject.toml")


def test_the_readme_pre_commit_snippet_works_as_written() -> None:
    """The README named `rev: v0.1.0`, a tag that does not exist, so the snippet failed as
    pasted.  A remote repo's rev must be a tag of this repository; a local hook must run
    what the shipped hook runs, on the same files."""
    import re
    import subprocess

    import yaml

    root = Path(__file__).parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "repos:" in b]
    assert blocks, "the README shows a .pre-commit-config.yaml"
    shipped = {h["id"]: h for h in yaml.safe_load(
        (root / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    tags = subprocess.run(["git", "-C", str(root), "tag", "--list"], capture_output=True,
                          text=True, check=False).stdout.split()
    for block in blocks:
        for repo in yaml.safe_load(block)["repos"]:
            if repo["repo"] != "local":
                assert repo["rev"] in tags, f"rev {repo['rev']!r} is not a tag of this repository"
                continue
            for hook in repo["hooks"]:
                ours = shipped[hook["id"]]
                assert hook["entry"] == ours["entry"], hook["id"]
                assert hook["files"] == ours["files"] and hook["exclude"] == ours["exclude"], (
                    f"README.md's {hook['id']} hook picks other files than "
                    ".pre-commit-hooks.yaml: copy its `files` and `exclude` into the README")
                assert hook["language"] == "system" and hook["name"]
