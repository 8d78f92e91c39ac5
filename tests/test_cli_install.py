"""One install: every command's dependencies come with `pip install subagents`, the heavy ones
are imported only by the commands that use them, and a missing one is a clean message."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("anthropic", "openai", "mcp", "rich", "watchfiles", "bm25s", "httpx", "pydantic",
         "dbos", "sqlalchemy")

AGENT = """---
name: code-reviewer
description: Reviews code changes for bugs and style. Use after editing code.
tools: Read, Grep
---
You review code and report problems with file and line.
"""


def _run_main(args: list[str], cwd: Path, *, block: str | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a fresh interpreter; ``block`` makes that package unimportable."""
    code = (
        "import sys\n"
        + (f"sys.modules[{block!r}] = None\n" if block else "")
        + "from subagents.cli.main import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit as e:\n"
        "    rc = e.code or 0\n"
        "else:\n"
        "    rc = 0\n"
        f"heavy = {HEAVY!r}\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules "
        "if m.split('.')[0] in heavy and sys.modules[m] is not None}))\n"
        "print('RC', rc)\n"
    )
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, cwd=cwd, timeout=60, check=False)


def test_default_dependencies_cover_every_command() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower()
             for d in meta["dependencies"]}
    for needed in ("watchfiles", "bm25s", "anthropic", "openai", "mcp", "rich", "click", "pyyaml",
                   "dbos"):
        assert needed in names, needed
    # no empty extras (0.x: the compatibility ones were removed): each brings packages
    extras = meta["optional-dependencies"]
    assert sorted(extras) == ["dev", "sdk"]
    assert all(extras.values())


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [["validate", "one.md"], ["run", "--help"], ["--help"], ["list"], ["fix", "--check"]],
)
def test_light_commands_do_not_import_the_sdks(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "one.md").write_text(AGENT)
    out = _run_main(args, tmp_path)
    assert "LOADED []" in out.stdout, out.stdout + out.stderr
    assert "RC 0" in out.stdout, out.stdout + out.stderr


def _project(tmp_path: Path) -> Path:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "code-reviewer.md").write_text(AGENT)
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("block", "args", "env"),
    [
        ("anthropic", ["run", "--agent", "code-reviewer", "review it"],
         {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}),
        ("openai", ["run", "--provider", "openai", "--agent", "code-reviewer", "review it"],
         {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9"}),
        ("watchfiles", ["watch", "--timeout", "5"], {}),
        ("bm25s", ["route", "review my code"], {}),
        ("mcp", ["serve-mcp", "--group-dir", "."], {}),
    ],
)
def test_a_missing_package_is_a_clean_message(
    tmp_path: Path, block: str, args: list[str], env: dict[str, str]
) -> None:
    out = _run_main(args, _project(tmp_path), block=block, env=env)
    assert "Traceback" not in out.stderr, out.stderr
    assert f"needs the Python package `{block}`" in out.stderr, out.stderr
    assert f"pip install {block}" in out.stderr
    assert "RC 1" in out.stdout, out.stdout + out.stderr


@pytest.mark.slow
def test_an_unexpected_import_error_of_a_known_package_is_caught(tmp_path: Path) -> None:
    """The last-resort handler in main(): an import that bypassed the helpers."""
    code = (
        "import sys, click\n"
        "from subagents.cli import main as m\n"
        "@click.command('boom')\n"
        "def boom():\n"
        "    import rich_missing_for_test\n"
        "import subagents._deps as d\n"
        "d.PACKAGES['rich_missing_for_test'] = 'rich-missing-for-test'\n"
        "m.cli.add_command(boom)\n"
        "m.main(['boom'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60, check=False)
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert "needs the Python package `rich-missing-for-test`" in out.stderr
