"""Agent-scoped MCP servers: started for the agent, tools offered as mcp__server__tool, stopped after."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from subagents.definition import McpServerSpec
from subagents.runtime.mcp_tools import McpServerPool, expand_env, mcp_tool_name
from subagents.runtime.tools.base import ToolContext

SERVER = str(Path(__file__).parent / "data" / "mcp_echo_server.py")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); look at its state
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_expand_env() -> None:
    env = {"TOKEN": "abc"}
    assert expand_env("${TOKEN}", env) == "abc"
    assert expand_env("x-${MISSING:-dflt}-${TOKEN}", env) == "x-dflt-abc"
    with pytest.raises(Exception, match="MISSING"):
        expand_env("${MISSING}", env)
    assert mcp_tool_name("git hub", "create.pr") == "mcp__git_hub__create_pr"


@pytest.mark.slow
async def test_server_started_tools_listed_called_and_stopped(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    spec = McpServerSpec(
        name="echo",
        command=sys.executable,
        args=(SERVER, str(pidfile)),
        env={"ECHO_PREFIX": "${PREFIX_FROM_ENV}"},
    )
    environ = dict(os.environ, PREFIX_FROM_ENV=">> ")
    # read-only because configuration says so (a server's readOnlyHint alone is not enough:
    # tests/test_security_trust.py)
    async with McpServerPool([spec], cwd=tmp_path, environ=environ,
                             read_only=("mcp__echo__echo",)) as pool:
        assert pool.warnings == []
        names = {t.name: t for t in pool.tools}
        assert set(names) == {"mcp__echo__echo", "mcp__echo__write_note"}
        assert names["mcp__echo__echo"].read_only is True
        assert names["mcp__echo__write_note"].read_only is False
        ctx = ToolContext(cwd=tmp_path)
        out = await names["mcp__echo__echo"].run({"text": "hi"}, ctx)
        assert (out.content, out.is_error) == (">> hi", False)
        out = await names["mcp__echo__write_note"].run({"name": "n.txt", "body": "B"}, ctx)
        assert not out.is_error and (tmp_path / "n.txt").read_text() == "B"
        bad = await names["mcp__echo__echo"].run({"wrong": 1}, ctx)
        assert bad.is_error
        pid = int(pidfile.read_text())
        assert alive(pid)
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), "the agent's MCP server outlived the agent"


async def test_broken_servers_are_warnings_not_failures(tmp_path: Path) -> None:
    specs = [
        McpServerSpec(name="missing-var", command="${NOT_SET_ANYWHERE_XYZ}"),
        McpServerSpec(name="no-such-binary", command=str(tmp_path / "nope")),
        McpServerSpec(name="named-only", reference=True),
        McpServerSpec(name="empty"),
    ]
    async with McpServerPool(specs, cwd=tmp_path, environ={}, startup_timeout=10) as pool:
        assert pool.tools == []
    text = "\n".join(pool.warnings)
    assert "NOT_SET_ANYWHERE_XYZ" in text and "is not set" in text
    assert "no-such-binary" in text and "failed to start" in text
    assert "named-only" in text and "empty" in text
