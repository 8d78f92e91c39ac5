"""The Agent SDK wire form (formats/sdkwire.py)."""

from __future__ import annotations

import dataclasses

import pytest

from subagents.definition import AgentDefinition, McpServerSpec
from subagents.formats.sdkwire import (
    SDK_KEYS,
    to_sdk_agent_definitions,
    to_sdk_dict,
    to_sdk_mapping,
)


def _full() -> AgentDefinition:
    return AgentDefinition(
        name="researcher",
        description="Researches things",
        system_prompt="You research.",
        model="sonnet",
        tools=("WebSearch", "Read"),
        disallowed_tools=("Bash",),
        permission_mode="acceptEdits",
        color="blue",
        max_turns=7,
        skills=("pdf",),
        mcp_servers=(
            McpServerSpec(name="github", reference=True),
            McpServerSpec(name="local", command="srv", args=("--x",), env={"K": "${K}"}),
        ),
        memory="project",
        background=True,
        effort="high",
        initial_prompt="start",
    )


def test_full_definition_uses_camel_case_and_sdk_order() -> None:
    wire = to_sdk_dict(_full())
    assert list(wire) == list(SDK_KEYS)
    assert wire["disallowedTools"] == ["Bash"]
    assert wire["maxTurns"] == 7
    assert wire["initialPrompt"] == "start"
    assert wire["permissionMode"] == "acceptEdits"
    assert wire["mcpServers"] == [
        "github",
        {"local": {"command": "srv", "args": ["--x"], "env": {"K": "${K}"}}},
    ]
    assert "name" not in wire and "color" not in wire and "hooks" not in wire


def test_none_dropped_and_empty_tools_kept() -> None:
    minimal = AgentDefinition(name="a", description="d", system_prompt="p")
    assert to_sdk_dict(minimal) == {"description": "d", "prompt": "p"}
    no_tools = minimal.evolve(tools=())
    assert to_sdk_dict(no_tools) == {"description": "d", "prompt": "p", "tools": []}


def test_manual_permission_mode_and_numeric_effort() -> None:
    d = AgentDefinition(
        name="a", description="d", system_prompt="p", permission_mode="manual", effort="12"
    )
    wire = to_sdk_dict(d)
    assert wire["permissionMode"] == "default"
    assert wire["effort"] == 12


def test_sdk_accepts_every_field() -> None:
    sdk = pytest.importorskip("claude_agent_sdk")
    out = to_sdk_agent_definitions([_full()])
    agent = out["researcher"]
    assert isinstance(agent, sdk.AgentDefinition)
    assert dataclasses.asdict(agent)["maxTurns"] == 7
    # The SDK's own field set is a superset of ours: a rename there would break the wire form.
    sdk_fields = {f.name for f in dataclasses.fields(sdk.AgentDefinition)}
    assert set(SDK_KEYS) <= sdk_fields


def test_mapping_input_and_mapping_helper() -> None:
    pytest.importorskip("claude_agent_sdk")
    d = _full()
    assert set(to_sdk_agent_definitions({"researcher": d})) == {"researcher"}
    assert to_sdk_mapping([d, d.evolve(name="b")]).keys() == {"researcher", "b"}


def test_missing_sdk_gives_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from subagents.errors import SubagentError

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "claude_agent_sdk":
            raise ImportError("no module")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(SubagentError, match="claude-agent-sdk"):
        to_sdk_agent_definitions([_full()])
