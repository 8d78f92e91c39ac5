"""Bash: output, exit codes, output cap, timeout and cancellation kill the process group."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from runtime_helpers import alive, ctx_for, wait_dead, wait_file
from subagents.runtime.tools.shell import BashTool


async def test_bash_runs_in_cwd_and_merges_streams(tmp_path: Path) -> None:
    out = await BashTool().run({"command": "pwd; echo err >&2"}, ctx_for(tmp_path))
    assert not out.is_error
    assert str(tmp_path.resolve()) in out.content
    assert "err" in out.content


async def test_nonzero_exit_is_an_error_result(tmp_path: Path) -> None:
    out = await BashTool().run({"command": "echo nope; exit 3"}, ctx_for(tmp_path))
    assert out.is_error
    assert "nope" in out.content and "[exit code 3]" in out.content


async def test_stdin_is_closed(tmp_path: Path) -> None:
    out = await BashTool(default_timeout_ms=20_000).run({"command": "cat; echo done"},
                                                        ctx_for(tmp_path))
    assert out.content.strip() == "done"


async def test_output_is_capped(tmp_path: Path) -> None:
    out = await BashTool(max_output_chars=1000).run(
        {"command": "head -c 200000 /dev/zero | tr '\\0' 'a'"}, ctx_for(tmp_path))
    assert not out.is_error
    assert out.content.startswith("a" * 1000)
    assert "output truncated" in out.content
    assert len(out.content) < 1200


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    # A grandchild in the background plus a foreground sleep: both must die.
    cmd = "sleep 300 & echo $! > bg.pid; echo started; sleep 300"
    out = await BashTool().run({"command": cmd, "timeout": 300}, ctx)
    assert out.is_error
    assert "timed out" in out.content and "started" in out.content
    bg = int((tmp_path / "bg.pid").read_text())
    assert wait_dead(bg), "the background grandchild outlived the timeout"
    assert not ctx.processes.active


async def test_background_processes_do_not_outlive_a_normal_exit(tmp_path: Path) -> None:
    out = await BashTool().run({"command": "sleep 300 >/dev/null 2>&1 & echo $! > bg.pid"},
                               ctx_for(tmp_path))
    assert not out.is_error
    assert wait_dead(int((tmp_path / "bg.pid").read_text()))


async def test_cancellation_kills_the_process_group(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    task = asyncio.create_task(BashTool().run({"command": "echo $$ > sh.pid; sleep 300"}, ctx))
    pid = int(await asyncio.to_thread(wait_file, tmp_path / "sh.pid"))
    assert alive(pid)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:  # pragma: no cover - the task must not swallow the cancellation
        raise AssertionError("Bash swallowed the cancellation")
    assert wait_dead(pid)
    assert not ctx.processes.active


async def test_background_flag_is_refused(tmp_path: Path) -> None:
    out = await BashTool().run({"command": "sleep 1", "run_in_background": True},
                               ctx_for(tmp_path))
    assert out.is_error and "not supported" in out.content


async def test_provider_keys_are_not_in_the_commands_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret-value")
    monkeypatch.setenv("SUBAGENTS_TEST_PLAIN", "visible")
    out = await BashTool().run({"command": "env"}, ctx_for(tmp_path))
    assert not out.is_error
    assert "secret-value" not in out.content
    assert "SUBAGENTS_TEST_PLAIN=visible" in out.content  # the rest of the environment stays
    kept = await BashTool(scrub_env=()).run({"command": "echo $OPENAI_API_KEY"},
                                            ctx_for(tmp_path))
    assert kept.content.strip() == "sk-openai-secret-value"


async def test_each_call_starts_in_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    ctx = ctx_for(tmp_path)
    assert (await BashTool().run({"command": "cd sub && pwd"}, ctx)).content.strip().endswith(
        "/sub")
    assert (await BashTool().run({"command": "pwd"}, ctx)).content.strip() == str(
        tmp_path.resolve())
