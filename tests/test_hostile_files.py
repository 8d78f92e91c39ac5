"""Files that must not hurt the reader: deep nesting, FIFOs, huge lines -- in a real process.

Each case runs the real command in a subprocess with a time limit, so a crash in a C parser
(a segfault kills the process, not a test) or a hang on a FIFO fails the test instead of the
test run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DEEP_FLOW = "---\nname: d\ndescription: x\ntools: " + "[" * 30_000 + "]" * 30_000 + "\n---\nb\n"
DEEP_BROKEN = "---\nname: e\ndescription: a: b\n<example>\nx: " + "[" * 50_000 + "\n---\nb\n"
DEEP_BLOCK = "---\nname: f\ndescription: d\nx:\n" + "".join(
    " " * i + "-\n" for i in range(1, 900)
) + "---\nb\n"


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(cwd / "home"), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "subagents", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "home").mkdir()
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "ok.md").write_text("---\nname: ok\ndescription: A fine agent.\n---\nYou help.\n")
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("text", [DEEP_FLOW, DEEP_BROKEN, DEEP_BLOCK], ids=["flow", "broken", "block"])
@pytest.mark.parametrize("command", [["validate"], ["list"], ["doctor"], ["fix", "--diff"]])
def test_deep_nesting_is_refused_before_any_parser(
    project: Path, text: str, command: list[str]
) -> None:
    (project / ".claude" / "agents" / "deep.md").write_text(text)
    result = _run(project, *command)
    assert result.returncode in (0, 1), (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    if command == ["validate"]:
        assert "deep.md" in result.stdout and "nested more than 64 levels" in result.stdout
    if command == ["list"]:
        assert "ok" in result.stdout


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("command", [["validate"], ["list"], ["doctor"], ["fix", "--diff"]])
def test_a_fifo_named_md_never_hangs_a_command(project: Path, command: list[str]) -> None:
    os.mkfifo(project / ".claude" / "agents" / "pipe.md")
    result = _run(project, *command)  # a hang would hit the 60 s limit and fail
    assert result.returncode in (0, 1), result.stderr[-2000:]
    assert "Traceback" not in result.stderr
