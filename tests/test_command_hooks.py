"""Agent-scoped Claude Code command hooks (runtime/command_hooks.py)."""

from __future__ import annotations

import json
from pathlib import Path

from subagents.harnesses.loader import parse_agent_text
from subagents.runtime.command_hooks import CommandHooks
from subagents.runtime.hooks import ToolCall
from subagents.runtime.result import AgentResult
from subagents.runtime.tools.base import ToolContext, ToolOutput


def agent_with_hooks(hooks_yaml: str):  # type: ignore[no-untyped-def]
    text = f"---\nname: hooked\ndescription: An agent with hooks for testing.\nhooks:\n{hooks_yaml}---\nBody\n"
    r = parse_agent_text(text)
    assert r.ok, r.diagnostics
    assert r.definition is not None
    return r.definition


def call(name: str = "Bash", **input: object) -> ToolCall:
    return ToolCall(id="toolu_1", name=name, input=input, read_only=False)


async def test_pre_tool_use_exit_2_blocks_with_stderr_reason(tmp_path: Path) -> None:
    agent = agent_with_hooks(
        "  PreToolUse:\n"
        "    - matcher: Bash\n"
        "      hooks:\n"
        "        - type: command\n"
        "          command: \"cat > seen.json; echo 'no shell today' >&2; exit 2\"\n"
    )
    hooks = CommandHooks.for_agent(agent)
    ctx = ToolContext(cwd=tmp_path, agent_name="hooked", run_id="run-1")
    decision = await hooks.before_tool(ctx, call("Bash", command="ls"))
    assert decision is not None and not decision.allow
    assert decision.reason == "no shell today"
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["hook_event_name"] == "PreToolUse"
    assert seen["tool_name"] == "Bash" and seen["tool_input"] == {"command": "ls"}
    assert seen["agent_type"] == "hooked" and seen["cwd"] == str(tmp_path)


async def test_matcher_is_a_regex_on_the_tool_name(tmp_path: Path) -> None:
    agent = agent_with_hooks(
        "  PreToolUse:\n"
        "    - matcher: Write|Edit\n"
        "      hooks:\n"
        "        - {type: command, command: 'exit 2'}\n"
    )
    hooks = CommandHooks.for_agent(agent)
    ctx = ToolContext(cwd=tmp_path)
    assert await hooks.before_tool(ctx, call("Bash")) is None
    blocked = await hooks.before_tool(ctx, call("Edit"))
    assert blocked is not None and not blocked.allow
    assert len(hooks.runs) == 1


async def test_json_permission_decision_deny(tmp_path: Path) -> None:
    out = {
        "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "policy"}
    }
    (tmp_path / "out.json").write_text(json.dumps(out))
    agent = agent_with_hooks(
        "  PreToolUse:\n    - hooks:\n        - {type: command, command: 'cat out.json'}\n"
    )
    decision = await CommandHooks.for_agent(agent).before_tool(
        ToolContext(cwd=tmp_path), call("Read")
    )
    assert decision is not None and decision.reason == "policy"


async def test_exit_0_allows_and_other_exit_is_a_warning(tmp_path: Path) -> None:
    agent = agent_with_hooks(
        "  PreToolUse:\n    - hooks:\n        - {type: command, command: 'exit 0'}\n"
        "        - {type: command, command: 'echo oops >&2; exit 1'}\n"
    )
    hooks = CommandHooks.for_agent(agent)
    assert await hooks.before_tool(ToolContext(cwd=tmp_path), call("Read")) is None
    assert any("oops" in w for w in hooks.warnings)


async def test_post_tool_use_gets_the_response_and_failure_event(tmp_path: Path) -> None:
    agent = agent_with_hooks(
        "  PostToolUse:\n    - hooks:\n        - {type: command, command: 'cat >> post.jsonl; echo >> post.jsonl'}\n"
        "  PostToolUseFailure:\n    - hooks:\n        - {type: command, command: 'cat >> fail.jsonl; echo >> fail.jsonl'}\n"
    )
    hooks = CommandHooks.for_agent(agent)
    ctx = ToolContext(cwd=tmp_path)
    await hooks.after_tool(ctx, call("Read", file_path="a"), ToolOutput("contents"))
    await hooks.after_tool(ctx, call("Read", file_path="b"), ToolOutput("boom", is_error=True))
    post = json.loads((tmp_path / "post.jsonl").read_text().strip())
    fail = json.loads((tmp_path / "fail.jsonl").read_text().strip())
    assert post["tool_response"] == "contents" and post["hook_event_name"] == "PostToolUse"
    assert fail["tool_response"] == "boom" and fail["hook_event_name"] == "PostToolUseFailure"


async def test_stop_becomes_subagent_stop_for_subagents(tmp_path: Path) -> None:
    agent = agent_with_hooks(
        "  Stop:\n    - hooks:\n        - {type: command, command: 'cat > stop.json'}\n"
    )
    result = AgentResult(
        agent="hooked", model="m", final_text="READY_FOR_QA", stop_reason="end_turn", turns=1
    )
    as_sub = CommandHooks.for_agent(agent, as_subagent=True)
    assert "SubagentStop" in as_sub.hooks and "Stop" not in as_sub.hooks
    await as_sub.on_stop(ToolContext(cwd=tmp_path), result)
    data = json.loads((tmp_path / "stop.json").read_text())
    assert data["hook_event_name"] == "SubagentStop" and data["tool_response"] == "READY_FOR_QA"
    main = CommandHooks.for_agent(agent, as_subagent=False)
    (tmp_path / "stop.json").unlink()
    await main.on_stop(ToolContext(cwd=tmp_path), result)
    assert json.loads((tmp_path / "stop.json").read_text())["hook_event_name"] == "Stop"


async def test_timeout_kills_the_hook_and_warns(tmp_path: Path) -> None:
    agent = agent_with_hooks(
        "  PreToolUse:\n    - hooks:\n        - {type: command, command: 'sleep 30', timeout: 0.3}\n"
    )
    hooks = CommandHooks.for_agent(agent)
    assert await hooks.before_tool(ToolContext(cwd=tmp_path), call("Read")) is None
    assert hooks.runs[0].timed_out
    assert any("timed out" in w for w in hooks.warnings)
