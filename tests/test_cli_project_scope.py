"""One definition of the project: `validate`, `fix`, `list` and `doctor` with no path read
exactly the same folders, and each reports an agents folder that is a file (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli

# An unknown tool: every command that reads the file names it (validate: SA104 on the file;
# fix: "errors remain"; list/doctor: the agent is listed with its path).
AGENT = "---\nname: {name}\ndescription: Checks scope agreement for {name}.\ntools: Serach\n---\nBody.\n"


def put(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(AGENT.format(name=name))


def invoke(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    if r.exception and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def layout(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with agents at its root, in a subfolder, outside it, at home, in a managed
    folder and in a plugin; the working directory is the subfolder."""
    outer = tmp_path / "outer"
    repo = outer / "repo"
    sub = repo / "pkg"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    put(outer / ".claude" / "agents", "outside-the-repo")
    put(repo / ".claude" / "agents", "at-the-root")
    put(sub / ".claude" / "agents", "in-the-subfolder")
    put(sub / ".codex" / "agents", "codex-one")  # another dialect: not read by default
    put(home / ".claude" / "agents", "from-home")
    managed = tmp_path / "managed"
    put(managed, "managed-one")
    plugin = tmp_path / "plug"
    put(plugin / "agents", "plugin-one")
    monkeypatch.setenv("SUBAGENTS_MANAGED_DIR", str(managed))
    monkeypatch.setenv("SUBAGENTS_PLUGIN_DIRS", str(plugin))
    monkeypatch.chdir(sub)
    return sub


def _stems(paths: list[str]) -> set[str]:
    return {Path(p).stem for p in paths if p}


def test_the_four_commands_read_the_same_files(layout: Path) -> None:
    _, out, _ = invoke("validate", "--format", "json")
    validated = _stems([d["path"] for d in json.loads(out)["diagnostics"] if d["rule"] == "SA104"])
    _, out, _ = invoke("fix", "--check", "--format", "json")
    fixed = _stems([f["path"] for f in json.loads(out)["files"]])
    _, out, _ = invoke("list", "--format", "json")
    listed = _stems([a["path"] for a in json.loads(out)["agents"]])
    _, out, _ = invoke("doctor", "--format", "json")
    doctored = _stems([a["path"] for a in json.loads(out)["agents"]])
    expected = {"at-the-root", "in-the-subfolder", "from-home", "managed-one", "plugin-one"}
    assert validated == expected
    assert fixed == expected
    assert listed == expected
    assert doctored == expected


def test_the_paths_are_spelled_the_same(layout: Path) -> None:
    _, out, _ = invoke("validate", "--format", "json")
    validated = {d["path"] for d in json.loads(out)["diagnostics"] if d["rule"] == "SA104"}
    _, out, _ = invoke("list", "--format", "json")
    listed = {a["path"] for a in json.loads(out)["agents"]}
    assert validated == listed


def test_codex_dialect_reads_codex_folders_everywhere(layout: Path) -> None:
    _, out, _ = invoke("validate", "--dialect", "codex-md", "--format", "json")
    assert json.loads(out)["summary"]["files"] >= 1
    _, out, _ = invoke("fix", "--dialect", "codex-md", "--check", "--format", "json")
    fixed = _stems([f["path"] for f in json.loads(out)["files"]])
    _, out, _ = invoke("list", "--dialect", "codex-md", "--format", "json")
    listed = _stems([a["path"] for a in json.loads(out)["agents"]])
    assert "codex-one" in fixed and "codex-one" in listed
    assert "in-the-subfolder" not in fixed | listed


@pytest.mark.parametrize(
    "args",
    [
        ["validate"],
        ["validate", "--format", "json"],
        ["fix"],
        ["fix", "--check", "--format", "json"],
        ["list"],
        ["list", "--format", "json"],
        ["doctor"],
        ["doctor", "--format", "json"],
    ],
)
def test_an_agents_folder_that_is_a_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "agents").write_text("not a folder\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke(*args)
    assert code == 1, (out, err)
    assert "SA605" in out + err
    assert "is a file, not a folder" in out + err
    assert (tmp_path / ".claude" / "agents").read_text() == "not a folder\n"  # never touched


def test_fix_counts_files_with_errors_it_cannot_repair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    put(tmp_path / ".claude" / "agents", "typo-tool")
    good = tmp_path / ".claude" / "agents" / "fine.md"
    good.write_text("---\nname: fine\ndescription: A fine agent for tests.\n---\nBody.\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = invoke("fix")
    assert code == 0
    assert "nothing to repair, but errors remain: .claude/agents/typo-tool.md (SA104" in out
    assert "2 file(s): 0 fixed, 0 cannot be repaired, 1 with errors fix does not repair, " \
        "1 already fine" in out
    code, out, _ = invoke("fix", "--format", "json")
    data = json.loads(out)
    assert data["summary"]["unchanged"] == 2
    assert data["summary"]["unchanged_with_errors"] == 1
    (typo,) = [f for f in data["files"] if f["path"].endswith("typo-tool.md")]
    assert typo["errors"][0]["rule"] == "SA104"


def test_commands_that_go_on_still_say_the_agents_folder_is_a_file(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """show fails like list; route and run go on with the agents they can read, but say so."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "agents").write_text("not a folder\n")
    put(home / ".claude" / "agents", "from-home")
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke("show", "from-home")
    assert code == 1 and "from-home" in out and "SA605" in err
    code, out, err = invoke("route", "scope agreement", "--format", "json")
    assert code == 0 and "from-home" in out and "SA605" in err
    script = tmp_path / "replies.json"
    script.write_text('["done"]')
    r = CliRunner().invoke(cli, ["run", "--agent", "from-home", "--provider", "scripted",
                                 "--script", str(script), "--no-transcript", "go"])
    assert r.exit_code == 0 and r.stdout.strip() == "done" and "SA605" in r.stderr
