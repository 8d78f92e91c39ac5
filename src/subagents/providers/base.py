"""The provider seam: one small interface every model backend implements.

One request in, one assistant message out.  Messages are provider-neutral and shaped like the
Anthropic Messages API (text, ``tool_use`` and ``tool_result`` blocks), because that is the wire
form the Task tool speaks; the OpenAI adapter translates to and from chat-completions tool calls.

A provider never executes tools and never loops: the runner (``subagents.runtime.runner``) owns
the loop.  Providers raise :class:`~subagents.errors.ProviderError` subclasses, with retries for
429/5xx/connection errors done inside the provider.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "FORCE_TOOL",
    "ContentBlock",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "StopReason",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
    "Usage",
    "forced_tool",
]

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "error"]


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """The model's reasoning, kept only to be sent back as it came: with thinking on, the
    Anthropic API wants an assistant message that called tools to go back with its thinking
    blocks (``signature`` and all).  ``redacted`` holds the opaque ``data`` of a
    ``redacted_thinking`` block.  Never shown as answer text; other providers drop it."""

    thinking: str
    signature: str = ""
    redacted: str | None = None
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    """A tool call.  ``input`` is the parsed arguments; when the provider received arguments
    that are not a JSON object, ``input`` is empty, ``raw_arguments`` keeps them verbatim (so
    the history goes back on the wire as it came) and ``arguments_error`` says why."""

    id: str
    name: str
    input: Mapping[str, Any]
    type: Literal["tool_use"] = "tool_use"
    raw_arguments: str | None = field(default=None, kw_only=True)
    arguments_error: str | None = field(default=None, kw_only=True)

    @classmethod
    def from_arguments(cls, id: str, name: str, raw: str | None) -> ToolUseBlock:
        """A call from arguments as sent on the wire (never raises): empty arguments mean no
        arguments; anything that is not a JSON object is kept verbatim with the reason."""
        if raw is None or not raw.strip():
            return cls(id, name, {})
        try:
            value = json.loads(raw)
        except ValueError as exc:
            return cls(id, name, {}, raw_arguments=raw, arguments_error=f"not valid JSON: {exc}")
        if not isinstance(value, dict):
            return cls(id, name, {}, raw_arguments=raw,
                       arguments_error=f"a JSON {type(value).__name__}, not an object")
        return cls(id, name, value)

    @property
    def wire_arguments(self) -> str:
        """The arguments as JSON text for the wire: verbatim when they could not be read."""
        if self.raw_arguments is not None:
            return self.raw_arguments
        return json.dumps(dict(self.input), ensure_ascii=False)

    @property
    def malformed(self) -> str | None:
        """Why the arguments could not be read (the ``is_error`` result for the model), or
        ``None`` when they could."""
        if self.arguments_error is None:
            return None
        raw = self.raw_arguments or ""
        shown = raw if len(raw) <= 200 else raw[:199] + "…"
        return (
            f"The tool arguments were {self.arguments_error}. Arguments received: {shown!r}. "
            "Call the tool again with a JSON object matching its input schema."
        )


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"


ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock


@dataclass(frozen=True, slots=True)
class Message:
    role: Literal["user", "assistant"]
    content: tuple[ContentBlock, ...]

    @staticmethod
    def user(text: str) -> Message:
        return Message("user", (TextBlock(text),))

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolUseBlock))


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as offered to the model (name, description, JSON Schema of its input)."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    model: str
    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    max_tokens: int = 8192
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: ``"adaptive"`` (the model decides how much to think), ``"budget"`` (up to
    #: ``thinking_budget`` tokens) or ``None`` (no thinking); see
    #: :mod:`subagents.providers.generation`.
    thinking: Literal["adaptive", "budget"] | None = None
    thinking_budget: int | None = None
    #: ``low`` .. ``max``: Anthropic ``output_config.effort``, OpenAI ``reasoning_effort``.
    effort: str | None = None
    #: Ask for the thinking text to be left out of the reply (subagents: nobody reads it).
    thinking_hidden: bool = False


#: ``ModelRequest.metadata`` key: the name of a tool the model must call in this request
#: (Anthropic ``tool_choice`` ``{"type": "tool"}``, OpenAI ``{"type": "function"}``).  Providers
#: that cannot force a call ignore it; the caller says what it wants in the prompt as well.
FORCE_TOOL = "force_tool"


def forced_tool(request: ModelRequest) -> str | None:
    """The tool ``request`` forces, when it is one of the request's tools."""
    name = request.metadata.get(FORCE_TOOL)
    if isinstance(name, str) and any(t.name == name for t in request.tools):
        return name
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    content: tuple[TextBlock | ThinkingBlock | ToolUseBlock, ...]
    stop_reason: StopReason = "end_turn"
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolUseBlock))

    def as_message(self) -> Message:
        return Message("assistant", tuple(self.content))


@runtime_checkable
class Model(Protocol):
    """A model backend.  ``name`` is the provider name (``anthropic``, ``openai``, ``scripted``)."""

    name: str

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request; return one assistant message.  Raise ProviderError on failure."""
        ...
