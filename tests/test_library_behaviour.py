"""The library behaves like a library: no files unless asked, a missing file is a
FileNotFoundError, the registry lists what `subagents list` lists."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from subagents import AgentFileNotFound, AgentRunner, DefinitionError, load_agent
from subagents.definition import AgentDefinition
from subagents.testing import ScriptedModel, text


def test_load_agent_on_a_missing_file_is_a_file_not_found_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.md"
    with pytest.raises(FileNotFoundError) as info:
        load_agent(missing)
    exc = info.value
    assert isinstance(exc, AgentFileNotFound) and isinstance(exc, DefinitionError)
    assert exc.errno == errno.ENOENT and exc.filename == str(missing)
    assert str(missing) in str(exc)
    # a dangling symlink is missing too, as for open()
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "gone.md")
    with pytest.raises(FileNotFoundError):
        load_agent(link)


def test_a_broken_file_is_still_a_definition_error_not_file_not_found(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_text("no frontmatter here\n")
    with pytest.raises(DefinitionError) as info:
        load_agent(bad)
    assert not isinstance(info.value, FileNotFoundError)


AGENT = AgentDefinition(name="quiet", description="Says hello.", system_prompt="Say hello.")


def test_a_library_run_writes_no_transcript_unless_asked(tmp_path: Path, home: Path) -> None:
    runner = AgentRunner(ScriptedModel([text("hello")]), cwd=tmp_path)
    result = runner.run_sync(AGENT, "hi")
    assert result.final_text == "hello" and result.transcript_path is None
    assert not (home / ".subagents").exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("how", ["flag", "folder"])
def test_a_transcript_when_asked(tmp_path: Path, home: Path, how: str,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "t"
    if how == "flag":
        monkeypatch.setenv("SUBAGENTS_TRANSCRIPT_DIR", str(folder))
        runner = AgentRunner(ScriptedModel([text("hello")]), cwd=tmp_path, transcripts=True)
    else:
        runner = AgentRunner(ScriptedModel([text("hello")]), cwd=tmp_path, transcript_dir=folder)
    result = runner.run_sync(AGENT, "hi")
    assert result.transcript_path is not None and result.transcript_path.parent == folder
    assert result.transcript_path.is_file()
