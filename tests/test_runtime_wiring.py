"""The runner wires an agent's skills, command hooks and MCP servers (seed 000 §7.4 steps 4-10)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from runtime_helpers import alive
from subagents.definition import AgentDefinition, HookCommand, HookMatcher, McpServerSpec
from subagents.providers.base import ToolResultBlock
from subagents.runtime.permissions import PermissionPolicy, PermissionRequest
from subagents.runtime.runner import AgentRunner
from subagents.testing import ScriptedModel, text, tool_call

ECHO_SERVER = Path(__file__).parent / "data" / "mcp_echo_server.py"


async def _yes(req: PermissionRequest) -> bool:
    return True


def _runner(model: ScriptedModel, tmp_path: Path) -> AgentRunner:
    return AgentRunner(model, cwd=tmp_path, parent_model="m", transcripts=False,
                       policy=PermissionPolicy(ask=_yes))


async def test_skills_are_injected_and_missing_ones_warned(tmp_path: Path) -> None:
    skill = tmp_path / ".claude" / "skills" / "style" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: style\ndescription: House style\n---\nUse short sentences.\n")
    (tmp_path / ".git").mkdir()
    agent = AgentDefinition(name="s", system_prompt="Body.", skills=("style", "nope"))
    model = ScriptedModel([text("ok")])
    result = await _runner(model, tmp_path).run(agent, "go")
    system = model.requests[0].system
    assert system.startswith("Body.") and "# Skill: style" in system
    assert "Use short sentences." in system
    assert any("nope" in w for w in result.warnings)


async def test_agent_hooks_block_a_tool_only_during_its_run(tmp_path: Path) -> None:
    hooks = {"PreToolUse": (HookMatcher(matcher="Bash", hooks=(
        HookCommand(command="echo 'no shell for you' >&2; exit 2"),)),)}
    agent = AgentDefinition(name="h", system_prompt="x", tools=("Bash",), hooks=hooks)
    model = ScriptedModel([tool_call("Bash", {"command": "touch ran.txt"}), text("blocked")])
    r = _runner(model, tmp_path)
    await r.run(agent, "go")
    (block,) = [b for b in model.requests[1].messages[-1].content
                if isinstance(b, ToolResultBlock)]
    assert block.is_error and "no shell for you" in block.content
    assert not (tmp_path / "ran.txt").exists()
    # the same runner, an agent without hooks: nothing left registered
    plain = agent.evolve(name="plain", hooks={})
    model.add(tool_call("Bash", {"command": "touch ran.txt"}), text("ran"))
    await r.run(plain, "go")
    assert (tmp_path / "ran.txt").exists()


@pytest.mark.slow
async def test_agent_mcp_server_offered_and_stopped(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    if not ECHO_SERVER.is_file():
        pytest.skip("tests/data/mcp_echo_server.py is not present")
    pidfile = tmp_path / "pid"
    spec = McpServerSpec(name="echo", command=sys.executable,
                         args=(str(ECHO_SERVER), str(pidfile)))
    agent = AgentDefinition(name="m", system_prompt="x", tools=("mcp__echo__echo",),
                            mcp_servers=(spec,))
    model = ScriptedModel([tool_call("mcp__echo__echo", {"text": "hi"}), text("echoed")])
    result = await _runner(model, tmp_path).run(agent, "go")
    assert [t.name for t in model.requests[0].tools] == ["mcp__echo__echo"]
    assert result.tool_calls[0].output == "hi" and result.tool_calls[0].executed
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), "the agent's MCP server outlived its run"



async def test_hooks_passed_by_the_caller_are_not_doubled(tmp_path: Path) -> None:
    from subagents.runtime.command_hooks import CommandHooks

    log = tmp_path / "fired.log"
    hooks = {"PreToolUse": (HookMatcher(matcher="Glob", hooks=(
        HookCommand(command=f"echo fired >> {log}"),)),)}
    agent = AgentDefinition(name="h", system_prompt="x", tools=("Glob",), hooks=hooks)
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}), text("done")])
    await _runner(model, tmp_path).run(agent, "go", hooks=CommandHooks.for_agent(agent))
    assert log.read_text().splitlines() == ["fired"]


async def test_a_skipped_hook_type_is_warned_about_once(tmp_path: Path) -> None:
    hooks = {"PreToolUse": (HookMatcher(matcher="Glob", hooks=(
        HookCommand(type="prompt", command=None),)),)}
    agent = AgentDefinition(name="h", system_prompt="x", tools=("Glob",), hooks=hooks)
    model = ScriptedModel([tool_call("Glob", {"pattern": "*"}), tool_call("Glob", {"pattern": "*"}), text("done")])
    result = await _runner(model, tmp_path).run(agent, "go")
    skipped = [w for w in result.warnings if "skipped" in w]
    assert skipped == ["PreToolUse hook of type 'prompt' skipped"]
