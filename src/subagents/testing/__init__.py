"""Offline testing helpers for users and for our own tests.

:class:`ScriptedModel` is a :class:`~subagents.providers.base.Model` that replies from a queue,
so an agent loop can be driven without a network or an API key::

    from subagents.testing import ScriptedModel, text, tool_call

    model = ScriptedModel([
        tool_call("Read", {"file_path": "README.md"}),
        text("The README says hello."),
    ])
    result = AgentRunner(model=model).run_sync(agent, "Summarise the README")
    model.assert_complete()              # every scripted reply was used

``FakeLLMServer`` (:mod:`subagents.testing.server`, imported on first use) is a loopback
HTTP server that speaks the Anthropic and OpenAI wire formats, for tests that go through the
real SDKs.  This package imports only the provider interface (the layer test checks it), so a
user's test suite pays for nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from subagents.providers.queue import ScriptedModel, ScriptedReply, text, tool_call, tool_calls

if TYPE_CHECKING:
    from subagents.testing.server import FakeLLMServer, Fault, raw_tool_call

__all__ = ["FakeLLMServer", "Fault", "ScriptedModel", "ScriptedReply", "raw_tool_call", "text",
           "tool_call", "tool_calls"]

_SERVER = frozenset({"FakeLLMServer", "Fault", "raw_tool_call"})


def __getattr__(name: str) -> Any:
    """The loopback server's names, imported on first use (it pulls in the HTTP stack)."""
    if name in _SERVER:
        from subagents.testing import server

        return getattr(server, name)
    raise AttributeError(f"module 'subagents.testing' has no attribute {name!r}")
