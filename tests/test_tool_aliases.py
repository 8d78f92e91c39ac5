"""Task and Agent are one tool (Agent is Task's new name): one table, the same answers everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagents.harnesses.crosswalk import to_native
from subagents.known_tools import (
    AGENT_TOOL_NAMES,
    canonical_tool_name,
    is_agent_tool,
    parse_tool_entry,
)
from subagents.runtime.permissions import ToolFilter, ToolRules


def test_the_alias_table() -> None:
    assert canonical_tool_name("Task") == "Agent"
    assert canonical_tool_name("KillBash") == "KillShell"
    assert canonical_tool_name("Read") == "Read"
    assert {"Task", "Agent"} == AGENT_TOOL_NAMES
    assert is_agent_tool("Task") and is_agent_tool("Agent")
    assert not is_agent_tool("TaskCreate") and not is_agent_tool("agent")


@pytest.mark.parametrize("spelling", ["Task", "Agent"])
def test_allowlist_entries_read_the_same(spelling: str) -> None:
    entry = parse_tool_entry(f"{spelling}(reviewer, tester)")
    assert entry is not None and entry.agent_allowlist == ("reviewer", "tester")


@pytest.mark.parametrize("rule", ["Task", "Agent"])
@pytest.mark.parametrize("call", ["Task", "Agent"])
def test_permission_rules_treat_both_names_alike_and_fail_closed(
    rule: str, call: str, tmp_path: Path
) -> None:
    allow = ToolFilter((ToolRules.from_lists([f"{rule}(reviewer)"]),))
    assert allow.refusal(call, {"subagent_type": "reviewer"}, tmp_path) is None
    assert allow.refusal(call, {"subagent_type": "deployer"}, tmp_path) is not None
    # no subagent_type is the general-purpose agent, which the allowlist does not name
    assert allow.refusal(call, {}, tmp_path) is not None
    deny = ToolFilter((ToolRules.from_lists(None, [f"{rule}(deployer)"]),))
    assert deny.refusal(call, {"subagent_type": "Deployer"}, tmp_path) is not None
    assert deny.refusal(call, {"subagent_type": "reviewer"}, tmp_path) is None
    deny_all = ToolFilter((ToolRules.from_lists(None, [rule]),))
    assert deny_all.refusal(call, {"subagent_type": "reviewer"}, tmp_path) is not None
    # an agent offered as a tool of its own is still the delegation tool
    assert deny.refusal("agent__deployer", {}, tmp_path) is not None


def test_other_harnesses_get_the_same_tool_for_both_names() -> None:
    for harness in ("opencode", "copilot", "qwen"):
        assert to_native(harness, ["Task"]).names == to_native(harness, ["Agent"]).names != ()
