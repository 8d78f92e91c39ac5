"""Fixtures for the provider tests (imported explicitly by tests/test_providers_*.py).

Fixtures are defined as ``*_fixture`` functions with ``name=`` so that importing them does not
shadow the parameter names tests use.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from subagents.providers.base import (
    Message,
    ModelRequest,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from subagents.testing.server import FakeLLMServer

SECRET = "sk-test-SECRET-abc123-never-shown"

_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_MODEL",
    "OPENAI_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
    "SUBAGENTS_RETRY_ATTEMPTS",
    "SUBAGENTS_RETRY_DELAY",
)


@pytest.fixture(name="clean_env")
def clean_env_fixture(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No provider settings leak in from the machine running the tests."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))


@pytest.fixture(name="server")
def server_fixture(clean_env: None) -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


READ_TOOL = ToolSpec(
    "Read",
    "Read a file from the working folder.",
    {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
    },
)


def simple_request(text: str = "hello", **kwargs: object) -> ModelRequest:
    return ModelRequest(
        model="claude-test", system="You are terse.", messages=[Message.user(text)], **kwargs
    )  # type: ignore[arg-type]


def tool_round_trip_request() -> ModelRequest:
    """A request whose history holds a tool call and an error tool result."""
    return ModelRequest(
        model="claude-test",
        system="You read files.",
        tools=[READ_TOOL],
        max_tokens=321,
        messages=[
            Message.user("read a.txt"),
            Message(
                "assistant",
                (
                    TextBlock("Reading."),
                    ToolUseBlock("toolu_1", "Read", {"file_path": "a.txt"}),
                ),
            ),
            Message(
                "user",
                (ToolResultBlock("toolu_1", "file not found: a.txt", is_error=True),),
            ),
        ],
    )
