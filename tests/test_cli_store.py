"""`subagents define` / `remove` / `export` (and `serve-mcp --help`) through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from subagents.cli.main import cli, main
from subagents.errors import SubagentError


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def fails(*args: str) -> str:
    """Run a command expected to fail with a SubagentError; its text as the user sees it."""
    result = CliRunner().invoke(cli, list(args))
    assert isinstance(result.exception, SubagentError), result.output
    return str(result.exception)


def test_errors_reach_the_user_as_text_and_exit_code(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Through the console-script entry point: the message on stderr, exit 1, no traceback.
    with pytest.raises(SystemExit) as info:
        main(["define", "Bad/Name", "-d", "d", "-p", "p", *_opts(dirs)])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: agent 'Bad/Name' not written: ST001")
    assert "Traceback" not in err


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.delenv("SUBAGENTS_GROUP_DIR", raising=False)
    monkeypatch.delenv("SUBAGENTS_GLOBAL_DIR", raising=False)
    return tmp_path / "global", tmp_path / "group"


def _opts(dirs: tuple[Path, Path]) -> list[str]:
    return ["--global-dir", str(dirs[0]), "--group-dir", str(dirs[1])]


def test_define_and_remove(dirs: tuple[Path, Path]) -> None:
    result = run(
        "define",
        "fact-checker",
        "-d",
        "Verifies claims",
        "-p",
        "You check facts.",
        "--tools",
        "WebSearch, WebFetch, Bash(git diff:*)",
        "--model",
        "haiku",
        *_opts(dirs),
    )
    assert result.exit_code == 0, result.output
    assert "fact-checker: created" in result.output
    data = json.loads((dirs[1] / "agents.json").read_text(encoding="utf-8"))
    assert data["fact-checker"]["tools"] == ["WebSearch", "WebFetch", "Bash(git diff:*)"]

    result = run("remove", "fact-checker", *_opts(dirs), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["action"] == "removed"
    assert json.loads((dirs[1] / "agents.json").read_text(encoding="utf-8")) == {}


def test_define_global_and_env_dirs(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUBAGENTS_GLOBAL_DIR", str(dirs[0]))
    monkeypatch.setenv("SUBAGENTS_GROUP_DIR", str(dirs[1]))
    result = run("define", "g", "-d", "d", "-p", "p", "--scope", "global")
    assert result.exit_code == 0, result.output
    assert (dirs[0] / "agents.json").exists()
    assert not (dirs[1] / "agents.json").exists()


def test_prompt_from_stdin_and_empty_tools(dirs: tuple[Path, Path]) -> None:
    result = run(
        "define",
        "a",
        "-d",
        "d",
        "--prompt-file",
        "-",
        "--tools",
        "",
        *_opts(dirs),
        input="Long prompt\nfrom stdin\n",
    )
    assert result.exit_code == 0, result.output
    entry = json.loads((dirs[1] / "agents.json").read_text(encoding="utf-8"))["a"]
    assert entry == {"description": "d", "prompt": "Long prompt\nfrom stdin\n", "tools": []}


def test_prompt_and_prompt_file_are_exclusive(dirs: tuple[Path, Path]) -> None:
    result = run("define", "a", "-d", "d", *_opts(dirs))
    assert result.exit_code == 2
    assert "exactly one of --prompt and --prompt-file" in result.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["Bad/Name", "-d", "d", "-p", "p"], "ST001"),
        (["x" * 1000, "-d", "d", "-p", "p"], "ST002"),
        (["a", "-d", "", "-p", "p"], "ST003"),
        (["a", "-d", "d", "-p", "p", "--model", "sonet"], "did you mean 'sonnet'"),
        (["a", "-d", "d", "-p", "p", "--tools", "Read, Teleport"], "ST007"),
    ],
)
def test_refused_definitions_say_why(dirs: tuple[Path, Path], args: list[str], words: str) -> None:
    assert words in fails("define", *args, *_opts(dirs))
    assert not (dirs[1] / "agents.json").exists()


def test_remove_unknown_suggests(dirs: tuple[Path, Path]) -> None:
    run("define", "alpha", "-d", "d", "-p", "p", *_opts(dirs))
    text = fails("remove", "alpah", *_opts(dirs))
    assert "no agent named 'alpah" in text and "'alpha'" in text


def test_corrupt_store_refused_then_forced(dirs: tuple[Path, Path]) -> None:
    dirs[1].mkdir(parents=True)
    store = dirs[1] / "agents.json"
    store.write_text('{\n  "a": {"description": "d",\n', encoding="utf-8")
    text = fails("define", "b", "-d", "d", "-p", "p", *_opts(dirs))
    assert "agents.json:3:1" in text and "--force" in text
    assert store.read_text(encoding="utf-8") == '{\n  "a": {"description": "d",\n'

    result = run("define", "b", "-d", "d", "-p", "p", "--force", *_opts(dirs))
    assert result.exit_code == 0, result.output
    assert "backed up the corrupt store to" in result.output
    backups = list(dirs[1].glob("agents.json.bak-*"))
    assert len(backups) == 1
    assert backups[0].read_text(encoding="utf-8") == '{\n  "a": {"description": "d",\n'
    assert json.loads(store.read_text(encoding="utf-8")) == {
        "b": {"description": "d", "prompt": "p"}
    }


def _seed_stores(dirs: tuple[Path, Path]) -> None:
    dirs[0].mkdir(parents=True)
    dirs[1].mkdir(parents=True)
    (dirs[0] / "agents.json").write_text(
        json.dumps(
            {
                "researcher": {
                    "description": "global researcher",
                    "prompt": "g",
                    "model": "sonnet",
                },
                "coder": {
                    "description": "Writes code.",
                    "prompt": "You code.",
                    "tools": ["Read", "Write", "Edit", "Bash"],
                    "disallowedTools": ["WebFetch"],
                    "model": "opus",
                    "maxTurns": 12,
                    "permissionMode": "acceptEdits",
                    "skills": ["testing"],
                    "mcpServers": ["github"],
                    "initialPrompt": "Start by reading CLAUDE.md",
                    "memory": "project",
                    "background": False,
                    "effort": "high",
                    "x-owner": "ops",
                },
            }
        ),
        encoding="utf-8",
    )
    (dirs[1] / "agents.json").write_text(
        json.dumps(
            {
                "researcher": {
                    "description": "group researcher",
                    "prompt": "r",
                    "tools": ["WebSearch", "WebFetch", "Read"],
                },
                "fact-checker": {
                    "description": "Checks facts.",
                    "prompt": "You check.",
                    "model": "haiku",
                },
            }
        ),
        encoding="utf-8",
    )


def test_export_sdk_is_accepted_by_the_agent_sdk(dirs: tuple[Path, Path]) -> None:
    sdk = pytest.importorskip("claude_agent_sdk")
    pytest.importorskip("subagents.harnesses.loader")
    _seed_stores(dirs)
    result = CliRunner().invoke(cli, ["export", "--format", "sdk", *_opts(dirs)])
    assert result.exit_code == 0, result.output
    wire = json.loads(result.stdout)
    assert set(wire) == {"researcher", "coder", "fact-checker"}
    assert wire["researcher"]["description"] == "group researcher"  # group wins
    assert wire["coder"]["maxTurns"] == 12
    assert wire["coder"]["disallowedTools"] == ["WebFetch"]
    assert wire["coder"]["permissionMode"] == "acceptEdits"
    assert "x-owner" not in wire["coder"]
    for name, value in wire.items():
        assert None not in value.values(), name
        agent = sdk.AgentDefinition(**value)
        assert agent.description == value["description"]
        assert agent.prompt == value["prompt"]


def test_export_json_is_the_merged_store(dirs: tuple[Path, Path]) -> None:
    _seed_stores(dirs)
    result = run("export", "--format", "json", *_opts(dirs))
    assert result.exit_code == 0, result.output
    merged = json.loads(result.output)
    assert list(merged) == ["researcher", "coder", "fact-checker"]
    assert merged["researcher"]["description"] == "group researcher"
    assert merged["coder"]["x-owner"] == "ops"  # unknown keys kept


def test_export_skips_invalid_entries_with_a_note(dirs: tuple[Path, Path]) -> None:
    pytest.importorskip("subagents.harnesses.loader")
    dirs[1].mkdir(parents=True)
    (dirs[1] / "agents.json").write_text(
        '{\n  "ok": {"description": "d", "prompt": "p"},\n  "broken": 7\n}\n', encoding="utf-8"
    )
    result = CliRunner().invoke(cli, ["export", *_opts(dirs)])
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.stdout)) == {"ok"}
    assert "agents.json:3" in result.stderr


def test_export_of_corrupt_store_fails_with_line(dirs: tuple[Path, Path]) -> None:
    dirs[1].mkdir(parents=True)
    (dirs[1] / "agents.json").write_text("[]", encoding="utf-8")
    assert "agents.json:1:1" in fails("export", *_opts(dirs))


def test_help_texts() -> None:
    for command in ("define", "remove", "export", "serve-mcp"):
        result = run(command, "--help")
        assert result.exit_code == 0
        assert "--group-dir" in result.output
    assert "--main" in run("serve-mcp", "--help").output
    assert "Example" in run("define", "--help").output
