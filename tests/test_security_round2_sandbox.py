"""Issue 20 (round two), the sandbox: it holds as root, all of ``.git`` is read-only, host
unix sockets are out of reach, no protected path can be swapped through a symlink, and the
environment reaches commands by allowlist.

Like ``test_security_sandbox.py`` these need ``bwrap``: skipped with the reason on a
developer's machine without it, failed under CI.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime_helpers import ctx_for
from subagents.runtime.sandbox import (
    SandboxSettings,
    bwrap_argv,
    scrubbed_environ,
    unavailable,
)
from subagents.runtime.tools.shell import BashTool

REASON = unavailable()


@pytest.fixture
def sandboxed() -> BashTool:
    if REASON is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the sandbox tests, but {REASON}")
        pytest.skip(f"no sandbox on this machine: {REASON}")
    return BashTool(sandbox=SandboxSettings(), default_timeout_ms=60_000)


async def run(tool: BashTool, command: str, cwd: Path) -> tuple[bool, str]:
    out = await tool.run({"command": command}, ctx_for(cwd))
    return out.is_error, out.content


def git_repo(root: Path) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")


def test_argv_drops_capabilities_new_session_and_dies_with_parent(tmp_path: Path) -> None:
    argv = bwrap_argv("true", cwd=tmp_path, settings=SandboxSettings())
    assert "--new-session" in argv and "--die-with-parent" in argv
    if os.geteuid() == 0:
        i = argv.index("--cap-drop")
        assert argv[i + 1] == "ALL"


async def test_no_capabilities_inside_even_as_root(sandboxed: BashTool, tmp_path: Path) -> None:
    git_repo(tmp_path)
    err, out = await run(sandboxed, "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status", tmp_path)
    assert not err, out
    for line in out.splitlines():
        assert line.split()[1] == "0000000000000000", out
    # the read-only bind over .git cannot be unmounted, / cannot be remounted writable
    err, _ = await run(sandboxed, f"umount {tmp_path}/.git || umount -l {tmp_path}/.git; "
                                  f"echo x >> {tmp_path}/.git/config", tmp_path)
    assert err
    await run(sandboxed, "mount -o remount,rw / ; echo pwned > /var/tmp/sa-remount-test", tmp_path)
    assert not Path("/var/tmp/sa-remount-test").exists()
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"


async def test_the_whole_git_folder_is_read_only_and_cannot_be_renamed(
        sandboxed: BashTool, tmp_path: Path) -> None:
    git_repo(tmp_path)
    for command in ["echo ../../evil > .git/commondir",
                    "echo x > .git/HEAD",
                    "mkdir .git/objects/zz",
                    "mv .git .git-old && mkdir .git && echo '[core]' > .git/config",
                    "rm -rf .git"]:
        err, out = await run(sandboxed, command, tmp_path)
        assert err, (command, out)
    assert not (tmp_path / ".git" / "commondir").exists()
    assert (tmp_path / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert not (tmp_path / ".git-old").exists()
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"


async def test_a_submodule_git_file_at_any_depth_is_protected(
        sandboxed: BashTool, tmp_path: Path) -> None:
    git_repo(tmp_path)
    sub = tmp_path / "libs" / "deep" / "sub"
    sub.mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../../../.git/modules/sub\n")
    nested = tmp_path / "vendor" / "other"
    (nested / ".git").mkdir(parents=True)
    (nested / ".git" / "config").write_text("[core]\n")
    for command in ["echo 'gitdir: /tmp/evil' > libs/deep/sub/.git",
                    "mv libs/deep/sub/.git libs/deep/sub/.git.x",
                    "echo '[core]\nfsmonitor = id' >> vendor/other/.git/config"]:
        err, out = await run(sandboxed, command, tmp_path)
        assert err, (command, out)
    assert (sub / ".git").read_text() == "gitdir: ../../../.git/modules/sub\n"
    assert (nested / ".git" / "config").read_text() == "[core]\n"


async def test_a_symlinked_protected_folder_cannot_be_replaced(
        sandboxed: BashTool, tmp_path: Path) -> None:
    git_repo(tmp_path)
    real = tmp_path / "dotfiles" / "claude"
    (real / "agents").mkdir(parents=True)
    (tmp_path / ".claude").symlink_to(real)
    err, out = await run(sandboxed, "rm .claude && mkdir -p .claude/agents && "
                                    "echo evil > .claude/agents/evil.md", tmp_path)
    assert (tmp_path / ".claude").is_symlink(), out
    assert os.readlink(tmp_path / ".claude") == str(real)
    assert not (real / "agents" / "evil.md").exists()
    assert err and "moved aside" in out


@pytest.fixture
def unix_server(tmp_path: Path) -> Iterator[Path]:
    """A unix socket listening in the working folder (as a docker or agent socket would be
    somewhere on the host): the sandbox must not be able to connect to it."""
    path = tmp_path / "work" / "host.sock"
    path.parent.mkdir()
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(4)
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except (TimeoutError, OSError):
                continue
            conn.sendall(b"HOST-SECRET\n")
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield path
    stop.set()
    t.join()
    srv.close()


async def test_host_unix_sockets_are_out_of_reach(sandboxed: BashTool,
                                                  unix_server: Path) -> None:
    import sys
    code = ("import socket,sys; s=socket.socket(socket.AF_UNIX); "
            f"s.connect({str(unix_server)!r}); print(s.recv(64).decode())")
    err, out = await run(sandboxed, f"{sys.executable} -c '{code}'", unix_server.parent)
    assert "HOST-SECRET" not in out
    assert err
    argv = bwrap_argv("true", cwd=unix_server.parent, settings=SandboxSettings())
    for private in ("/run", "/tmp"):
        i = argv.index(private)
        assert argv[i - 1] == "--tmpfs", private


def test_environment_passes_by_allowlist() -> None:
    env = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "TERM": "xterm",
           "DATABASE_URL": "postgres://u:p@h/db", "DB_PASS": "x", "MYSQL_PWD": "x",
           "BW_SESSION": "x", "OP_SESSION_my": "x", "SENTRY_DSN": "https://k@sentry",
           "REDIS_URL": "redis://:pw@h", "SOME_RANDOM_THING": "x", "LC_ALL": "C"}
    kept = scrubbed_environ(env)
    assert set(kept) == {"PATH", "HOME", "LANG", "TERM", "LC_ALL"}
