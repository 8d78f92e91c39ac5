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

:mod:`subagents.testing.server` is a loopback HTTP server that speaks the Anthropic and OpenAI
wire formats, for tests that go through the real SDKs.  This package imports only the provider
interface (the layer test checks it), so a user's test suite pays for nothing else.
"""

from __future__ import annotations

from subagents.providers.queue import ScriptedModel, ScriptedReply, text, tool_call, tool_calls

__all__ = ["ScriptedModel", "ScriptedReply", "text", "tool_call", "tool_calls"]
