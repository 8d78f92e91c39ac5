"""Bash: output, exit codes, output cap, timeout and cancellation kill the process group."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from runtime_helpers import alive, ctx_for, wait_dead, wait_file
from subagents.runtime.tools.files import ReadTool
from subagents.runtime.tools.shell import BashTool


async def test_bash_runs_in_cwd_and_merges_streams(tmp_path: Path) -> None:
    out = await BashTool().run({"command": "pwd; echo err >&2"}, ctx_for(tmp_path))
    assert not out.is_error
    assert str(tmp_path.resolve()) in out.content
    assert "err" in out.content


async def test_exit_code_comes_first_and_newlines_are_stripped(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    out = await BashTool().run({"command": "echo out; echo err >&2; exit 3"}, ctx)
    assert out.is_error and out.content == "Exit code 3\nout\nerr"
    bare = await BashTool().run({"command": "exit 5"}, ctx)
    assert bare.is_error and bare.content == "Exit code 5"
    hi = await BashTool().run({"command": "printf 'hi\\n\\n\\n'"}, ctx)
    assert not hi.is_error and hi.content == "hi"
    quiet = await BashTool().run({"command": "true"}, ctx)
    assert not quiet.is_error and quiet.content == "(Bash completed with no output)"
    stderr_only = await BashTool().run({"command": "echo only-err >&2"}, ctx)
    assert not stderr_only.is_error and stderr_only.content == "only-err"


async def test_timeout_is_a_number_in_milliseconds(tmp_path: Path) -> None:
    out = await BashTool().run({"command": "sleep 30", "timeout": 300.5}, ctx_for(tmp_path))
    assert out.is_error
    assert out.content == "Exit code 143\nCommand timed out after 0.3005s"
    assert BashTool().validate({"command": "x", "timeout": 1500.5}) is None


async def test_stdin_is_closed(tmp_path: Path) -> None:
    out = await BashTool(default_timeout_ms=20_000).run({"command": "cat; echo done"},
                                                        ctx_for(tmp_path))
    assert out.content.strip() == "done"


async def test_long_output_is_saved_with_a_preview(tmp_path: Path) -> None:
    saved_in = tmp_path / "results"
    ctx = ctx_for(tmp_path / "proj", run_id="r1")
    (tmp_path / "proj").mkdir()
    bash = BashTool(results_dir=saved_in)
    exact = await bash.run({"command": "python3 -c \"print('x' * 30000, end='')\""}, ctx)
    assert exact.content == "x" * 30000  # the limit itself is still sent inline
    out = await bash.run({"command": "seq 1 7000"}, ctx)
    assert not out.is_error
    head, rest = out.content.split("\n", 1)
    assert head == "<persisted-output>"
    first = rest.split("\n", 1)[0]
    assert first.startswith("Output too large (33.1KB). Full output saved to: ")
    path = Path(first.rsplit(": ", 1)[1])
    assert path.is_relative_to(saved_in / "r1")
    assert path.read_text() == "\n".join(str(i) for i in range(1, 7001))  # newline stripped
    preview = out.content.split("Preview (first 2KB):\n", 1)[1]
    assert preview.endswith("\n...\n</persisted-output>")
    shown = preview.removesuffix("\n...\n</persisted-output>")
    assert len(shown) == 1999 and shown.endswith("\n527")  # cut back to a line end
    # the run's own saved output may be read back, although it is outside the project
    decision = await ctx.policy.decide(ReadTool(), {"file_path": str(path)}, ctx)  # type: ignore[union-attr]
    assert decision.allowed


async def test_an_output_flood_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subagents.runtime.tools.shell as shell

    monkeypatch.setattr(shell, "MAX_SAVED_BYTES", 100_000)
    ctx = ctx_for(tmp_path, run_id="flood")
    out = await BashTool(results_dir=tmp_path / "r").run(
        {"command": "head -c 3000000 /dev/zero | tr '\\0' 'a'; exit 4"}, ctx)
    assert out.is_error and out.content.startswith("Exit code 4\n<persisted-output>")
    saved = next((tmp_path / "r" / "flood").iterdir())
    assert saved.stat().st_size == 100_000
    assert "2,900,000 bytes more were not saved" in out.content
    assert len(out.content) < 3000


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    # A grandchild in the background plus a foreground sleep: both must die.
    cmd = "sleep 300 & echo $! > bg.pid; echo started; sleep 300"
    out = await BashTool().run({"command": cmd, "timeout": 300}, ctx)
    assert out.is_error
    assert out.content.startswith("Exit code 143\nstarted\nCommand timed out after")
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


async def test_a_subagents_calls_each_start_in_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    ctx = ctx_for(tmp_path, depth=1)
    assert (await BashTool().run({"command": "cd sub && pwd"}, ctx)).content.endswith("/sub")
    assert (await BashTool().run({"command": "pwd"}, ctx)).content == str(tmp_path.resolve())


async def test_the_main_threads_cd_carries_over(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    ctx = ctx_for(tmp_path)  # depth 0: the main thread
    bash = BashTool()
    assert (await bash.run({"command": "cd sub && pwd"}, ctx)).content == str(
        (tmp_path / "sub").resolve())
    assert (await bash.run({"command": "pwd"}, ctx)).content == str((tmp_path / "sub").resolve())
    # an exit code does not lose it
    failed = await bash.run({"command": "cd .. && exit 2"}, ctx)
    assert failed.content == "Exit code 2"
    assert (await bash.run({"command": "pwd"}, ctx)).content == str(tmp_path.resolve())


async def test_cd_out_of_the_project_is_reset(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    ctx = ctx_for(proj)
    out = await BashTool().run({"command": "cd / && pwd"}, ctx)
    assert out.content == f"/\nShell cwd was reset to {proj.resolve()}"
    assert (await BashTool().run({"command": "pwd"}, ctx)).content == str(proj.resolve())


async def test_a_deleted_shell_folder_is_recovered(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    bash = BashTool()
    await bash.run({"command": "mkdir gone && cd gone"}, ctx)
    (tmp_path / "gone").rmdir()
    out = await bash.run({"command": "echo should-not-run > ran.txt"}, ctx)
    assert out.is_error and "no longer exists" in out.content
    assert str(tmp_path.resolve()) in out.content
    assert not (tmp_path / "ran.txt").exists() and not (tmp_path / "gone").exists()
    assert (await bash.run({"command": "pwd"}, ctx)).content == str(tmp_path.resolve())


async def test_dangerously_disable_sandbox_is_accepted_and_ignored(tmp_path: Path) -> None:
    from subagents.runtime.sandbox import SandboxSettings, unavailable

    assert BashTool().validate({"command": "x", "dangerouslyDisableSandbox": True}) is None
    if unavailable() is not None:
        pytest.skip(f"no sandbox here: {unavailable()}")
    outside = tmp_path / "outside"
    outside.mkdir()
    proj = tmp_path / "proj"
    proj.mkdir()
    bash = BashTool(sandbox=SandboxSettings(mode="required"))
    out = await bash.run({"command": f"touch {outside}/x", "dangerouslyDisableSandbox": True},
                         ctx_for(proj))
    assert out.is_error and not (outside / "x").exists()  # the sandbox still held
    assert "dangerouslyDisableSandbox is ignored" in out.content


async def test_the_main_threads_cd_carries_over_in_the_sandbox(tmp_path: Path) -> None:
    from subagents.runtime.sandbox import SandboxSettings, unavailable

    if unavailable() is not None:
        pytest.skip(f"no sandbox here: {unavailable()}")
    (tmp_path / "sub").mkdir()
    ctx = ctx_for(tmp_path)
    bash = BashTool(sandbox=SandboxSettings(mode="required"))
    first = await bash.run({"command": "cd sub && pwd"}, ctx)
    assert first.content == str((tmp_path / "sub").resolve()), first.content
    again = await bash.run({"command": "pwd; touch ../top.txt"}, ctx)
    assert again.content == str((tmp_path / "sub").resolve())
    assert (tmp_path / "top.txt").exists()  # the whole project is still writable


async def test_shell_messages_keep_their_line_numbers_in_the_main_thread(tmp_path: Path) -> None:
    main = await BashTool().run({"command": "no-such-command-rt"}, ctx_for(tmp_path))
    child = await BashTool().run({"command": "no-such-command-rt"}, ctx_for(tmp_path, depth=1))
    assert main.content == child.content
    assert main.content.startswith("Exit code 127\n") and "line 1: no-such-command-rt" in (
        main.content)
    heredoc = await BashTool().run({"command": "cat <<EOF\nhello\nEOF\ncd /tmp"},
                                   ctx_for(tmp_path))
    assert heredoc.content.startswith("hello")
