"""Test doubles for the dispatch tests: a model scripted per agent, and agent factories."""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from subagents.definition import AgentDefinition
from subagents.providers.base import ModelRequest, ModelResponse
from subagents.runtime.runner import AgentRunner

Reply = ModelResponse | Callable[[ModelRequest], ModelResponse] | BaseException


class PerAgentModel:
    """Replies from one queue per agent (``request.metadata["agent"]``), so parallel runs of
    different agents are deterministic.  A ``"*"`` queue serves agents without their own."""

    name = "scripted"
    default_model = "scripted-model"

    def __init__(self, scripts: Mapping[str, Iterable[Reply]], *, delay: float = 0.0,
                 delays: Mapping[str, float] | None = None) -> None:
        self.scripts = {k: deque(v) for k, v in scripts.items()}
        self.requests: dict[str, list[ModelRequest]] = defaultdict(list)
        self.delay = delay
        self.delays = dict(delays or {})
        self.in_flight = 0
        self.peak = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        agent = str(request.metadata.get("agent", ""))
        self.requests[agent].append(request)
        queue = self.scripts.get(agent) or self.scripts.get("*")
        if not queue:
            raise AssertionError(f"no scripted reply left for agent {agent!r}")
        reply = queue.popleft() if agent in self.scripts else queue[0]
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            wait = self.delays.get(agent, self.delay)
            if wait:
                await asyncio.sleep(wait)
            if isinstance(reply, BaseException):
                raise reply
            if callable(reply):
                reply = reply(request)
            return reply
        finally:
            self.in_flight -= 1


def agent(name: str, description: str = "", body: str = "", **kw: Any) -> AgentDefinition:
    return AgentDefinition(name=name, description=description or f"The {name} agent.",
                           system_prompt=body or f"You are {name}.", **kw)


def runner(model: Any, tmp_path: Any, **kw: Any) -> AgentRunner:
    return AgentRunner(model, cwd=tmp_path, transcripts=False, **kw)
