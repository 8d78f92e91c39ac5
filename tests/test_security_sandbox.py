"""Issue 12, item 1: Bash runs in a real sandbox (bubblewrap).

These tests need ``bwrap`` (the README's set-up and ``.ci/run`` install it).  Without it they
skip on a developer's machine with the reason, and fail under CI, where a skip would hide a
missing install step.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime_helpers import ctx_for
from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
from subagents.runtime.sandbox import SandboxSettings, scrubbed_environ, unavailable
from subagents.runtime.tools.shell import BashTool

REASON = unavailable()


@pytest.fixture
def sandboxed() -> BashTool:
    if REASON is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the sandbox tests, but {REASON}")
        pytest.skip(f"no sandbox on this machine: {REASON}")
    return BashTool(sandbox=SandboxSettings(), default_timeout_ms=60_000)


async def run(tool: BashTool, command: str, cwd: Path, **kw: object) -> tuple[bool, str]:
    out = await tool.run({"command": command}, ctx_for(cwd, **kw))
    return out.is_error, out.content


async def test_writes_only_in_the_working_folder_and_a_private_tmp(
        sandboxed: BashTool, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "outside.txt"
    err, _ = await run(sandboxed, "echo ok > inside.txt", work)
    assert not err and (work / "inside.txt").read_text() == "ok\n"
    # next to the working folder (under /tmp: the write lands in the private /tmp, if at all)
    await run(sandboxed, f"echo pwned > {outside}", work)
    assert not outside.exists()
    far = Path("/var/tmp") / f"subagents-sandbox-test-{os.getpid()}"
    err, out = await run(sandboxed, f"echo pwned > {far}", work)
    assert err and "Read-only file system" in out
    assert not far.exists()
    mine = f"/tmp/subagents-sandbox-private-{os.getpid()}"
    err, out = await run(sandboxed, f"echo t > {mine} && cat {mine}", work)
    assert not err and out.split() == ["t"]
    assert not Path(mine).exists()  # the command's /tmp was its own


async def test_protected_paths_are_read_only_inside(sandboxed: BashTool, tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".subagents.toml").write_text("")
    for command in ["git config core.fsmonitor 'touch /tmp/x'",
                    "echo '[core]\nfsmonitor = id' >> .git/config",
                    "echo hook > .git/hooks/pre-commit",
                    "echo x > .claude/agents/helper.md",
                    "echo 'allow-bypass-permissions = true' > .subagents.toml"]:
        err, _ = await run(sandboxed, command, tmp_path)
        assert err, command
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"
    assert not (tmp_path / ".claude" / "agents" / "helper.md").exists()
    assert (tmp_path / ".subagents.toml").read_text() == ""


async def test_a_missing_protected_path_created_inside_is_moved_aside(
        sandboxed: BashTool, tmp_path: Path) -> None:
    before = {p.name for p in tmp_path.iterdir()}
    err, out = await run(sandboxed, "echo 'allow = [\"Bash\"]' > .subagents.toml && "
                         "mkdir -p .claude/agents && echo x > .claude/agents/new.md && "
                         "git init -q . && echo ok", tmp_path)
    assert err and "ok" in out  # the command ran, and the result says what was undone
    for name in (".subagents.toml", ".claude", ".git"):
        assert not os.path.lexists(tmp_path / name), name
        assert f"{name} was created by the command, but it is protected" in out
    moved = {p.name for p in tmp_path.iterdir()} - before
    assert {n.split(".blocked-")[0] for n in moved} == {".subagents.toml", ".claude", ".git"}
    assert (next(tmp_path.glob(".claude.blocked-*")) / "agents" / "new.md").read_text() == "x\n"
    # the sandbox itself leaves nothing in the project (no mount points for missing paths)
    err, out = await run(sandboxed, "echo fine > notes.txt", tmp_path)
    assert not err and out == "(Bash completed with no output)"
    assert {p.name for p in tmp_path.iterdir()} - before == {*moved, "notes.txt"}


async def test_a_git_worktree_file_and_missing_git_parts_are_guarded(
        sandboxed: BashTool, tmp_path: Path) -> None:
    work = tmp_path / "wt"
    work.mkdir()
    (work / ".git").write_text("gitdir: /somewhere/else\n")  # a worktree's .git is a file
    err, _ = await run(sandboxed, "echo 'gitdir: evil' > .git", work)
    assert err and (work / ".git").read_text() == "gitdir: /somewhere/else\n"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)  # no hooks/ folder yet
    err, _ = await run(sandboxed, "mkdir .git/hooks && echo 'id' > .git/hooks/pre-commit",
                         repo)
    # the whole .git is read-only now (issue 20): the folder cannot even be created
    assert err and not (repo / ".git" / "hooks").exists()


async def test_no_credentials_inside(sandboxed: BashTool, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    monkeypatch.setenv("EDITOR", "visible")  # passed by name (the environment is allowlisted)
    _, out = await run(sandboxed, "env; cat /proc/$PPID/environ /proc/1/environ | tr '\\0' "
                                    "'\\n'; for p in /proc/[0-9]*; do cat $p/environ; done "
                                    "2>/dev/null | tr '\\0' '\\n'", tmp_path)
    assert "visible" in out
    for secret in ("sk-ant-secret", "tok-secret", "aws-secret"):
        assert secret not in out


async def test_credential_files_in_home_are_hidden(sandboxed: BashTool, tmp_path: Path,
                                                   home: Path) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / ".netrc").write_text("machine x password p")
    monkey_home = home
    tool = sandboxed
    _, out = await run(tool, f"cat {monkey_home}/.ssh/id_ed25519 {monkey_home}/.netrc; "
                               f"ls -a {monkey_home}/.ssh", tmp_path)
    assert "PRIVATE KEY" not in out and "password" not in out


def survivors(marker: str) -> list[str]:
    """Host pids whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmd and b"pytest" not in cmd:
                found.append(entry.name)
    return found


def gone(marker: str) -> bool:
    """Poll (the kernel tears a namespace down asynchronously): True once none is left.
    Up to 30 s: on a machine loaded twenty deep the teardown has taken longer than 10."""
    for _ in range(1500):
        if not survivors(marker):
            return True
        time.sleep(0.02)
    return not survivors(marker)


async def test_own_pid_namespace_and_no_survivors(sandboxed: BashTool, tmp_path: Path) -> None:
    marker = "31337042"
    err, out = await run(sandboxed, f"(setsid sleep {marker} &); nohup sleep {marker}1 & "
                                    "ls /proc | grep -c '^[0-9]'", tmp_path)
    assert not err
    assert int(out.split()[-1]) < 10  # only the command's own processes are visible
    assert gone(marker)


@pytest.mark.slow
def test_ctrl_c_ends_the_sandboxed_command_and_its_setsid_children(
        sandboxed: BashTool, tmp_path: Path) -> None:
    marker = "31337077"
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude" / "agents" / "w.md").write_text(
        "---\nname: w\ndescription: w\ntools: Bash\n---\nw\n")
    replies = [{"tool": "Bash", "input": {"command": f"(setsid sleep {marker} &); "
                                                     f"sleep {marker}1"}}, "never"]
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    proc = subprocess.Popen(
        [sys.executable, "-m", "subagents.cli.main", "run", "--agent", "w", "--yes",
         "--provider", "scripted", "--script", str(script), "--no-transcript", "go"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def sleeping() -> bool:  # both sleeps (the setsid one and the foreground one) run
            cmds = set()
            for pid in survivors(marker):
                with contextlib.suppress(OSError):
                    cmds.add(Path(f"/proc/{pid}/cmdline").read_bytes())
            return {f"sleep\0{marker}\0".encode(), f"sleep\0{marker}1\0".encode()} <= cmds

        for _ in range(3000):
            if sleeping() or proc.poll() is not None:
                break
            time.sleep(0.02)
        if not sleeping():
            proc.kill()
            out, err = proc.communicate(timeout=60)
            pytest.fail(f"the command never started ({proc.returncode}): {out}\n{err}")
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        assert proc.returncode == 130
        assert gone(marker)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.fixture
def loopback_server() -> Iterator[int]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(30)
    port = srv.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield port
    stop.set()
    srv.close()


async def test_no_network_unless_allowed(sandboxed: BashTool, tmp_path: Path,
                                         loopback_server: int) -> None:
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && echo connected"
    err, out = await run(sandboxed, probe, tmp_path)
    assert err and "connected" not in out
    with_net = BashTool(sandbox=SandboxSettings(network=True))
    err, out = await run(with_net, probe, tmp_path)
    assert not err and "connected" in out


async def test_timeout_still_ends_the_sandboxed_command(sandboxed: BashTool,
                                                        tmp_path: Path) -> None:
    out = await sandboxed.run({"command": "sleep 300", "timeout": 300}, ctx_for(tmp_path))
    assert out.is_error and "timed out" in out.content


async def test_without_a_sandbox_the_setting_decides(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import subagents.runtime.tools.shell as shell

    monkeypatch.setattr(shell, "unavailable", lambda: "bubblewrap (bwrap) is not installed")
    required = BashTool(sandbox=SandboxSettings(mode="required"))
    out = await required.run({"command": "echo ran"}, ctx_for(tmp_path))
    assert out.is_error and "sandbox" in out.content and "ran" not in out.content
    asked: list[PermissionRequest] = []

    async def blanket_yes(request: PermissionRequest) -> bool:  # what --yes does
        asked.append(request)
        return request.protected is None

    ask = BashTool(sandbox=SandboxSettings(mode="ask"))
    policy = PermissionPolicy(ask=blanket_yes)
    out = await ask.run({"command": "echo ran"}, ctx_for(tmp_path, policy=policy))
    assert out.is_error and "ran" not in out.content
    assert asked and "WITHOUT a sandbox" in (asked[0].protected or "")

    async def user_says_yes(request: PermissionRequest) -> bool:
        return True

    out = await ask.run({"command": "echo ran"},
                        ctx_for(tmp_path, policy=PermissionPolicy(ask=user_says_yes)))
    assert not out.is_error and "ran" in out.content
    off = BashTool(sandbox=SandboxSettings(mode="off"))
    assert "ran" in (await off.run({"command": "echo ran"}, ctx_for(tmp_path))).content


def test_scrubbed_environ_keeps_ordinary_variables() -> None:
    env = scrubbed_environ({"PATH": "/bin", "HOME": "/h", "LANG": "C", "OPENAI_API_KEY": "x",
                            "GITHUB_TOKEN": "x", "DB_PASSWORD": "x", "SSH_AUTH_SOCK": "x"})
    assert env == {"PATH": "/bin", "HOME": "/h", "LANG": "C"}
