"""The ``anthropic`` provider: the Messages API through the official ``anthropic`` SDK.

Design decisions:

* **The SDK is imported lazily** (in the constructor), so importing this module, or
  :mod:`subagents.providers`, costs nothing until a run really uses Anthropic.
* **Credentials and URL are resolved here, then passed explicitly**: the ``api_key`` argument,
  else ``ANTHROPIC_API_KEY``, else ``ANTHROPIC_AUTH_TOKEN`` (sent as a bearer token); the
  ``base_url`` argument, else ``ANTHROPIC_BASE_URL``, else the public API.  Passing them
  explicitly keeps the SDK from consulting profile files we cannot explain in an error.  A
  missing key is a :class:`~subagents.errors.MissingCredentialsError` at construction, before
  any work starts.
* **The SDK's retries are off** (``max_retries=0``): :mod:`subagents.providers.retry` retries
  429/5xx/connection faults for every provider the same way.
* **Wire shapes.**  Messages map one to one (``text``, ``tool_use``, ``tool_result`` with
  ``is_error``).  The API rejects empty text blocks, so they are dropped; a message left with no
  content at all (the runner keeps an empty model reply in the history) is sent as
  ``"(no content)"`` rather than failing the whole run.
* **Streaming** (``stream=True``) uses the SDK's ``messages.stream`` helper and its assembled
  final message.  The helper parses tool input leniently (broken JSON becomes ``{}``), so the
  raw ``input_json_delta`` text is kept too: input that is not a JSON object is reported as
  malformed arguments, the same way the OpenAI adapter does.  The helper also returns whatever
  arrived when a connection closes early, so a stream without ``message_stop`` is treated as a
  dropped connection (retried), never as a complete answer.
* **Thinking and effort** (:mod:`subagents.providers.generation`): ``thinking`` becomes
  ``{"type": "adaptive"}`` or ``{"type": "enabled", "budget_tokens": n}`` (``display:
  "omitted"`` for subagents, as Claude Code asks), ``effort`` becomes ``output_config.effort``.
  Thinking blocks of a reply are kept in the history and sent back with their signature (the
  API wants them before a tool call's results); a request that forces a tool call, or has no
  thinking, sends neither the parameter nor the blocks (the API refuses both combinations).
* **Usage** counts cache reads and writes as input tokens: they are input the run paid for.
* **``default_model``** (the ``model`` option, else ``ANTHROPIC_MODEL`` as in Claude Code) is
  the session model the runner falls back to when an agent says ``inherit`` and no parent
  names a model; ``None`` leaves the choice to the alias table's default.
* **One client per event loop**: an ``httpx`` client must not outlive its loop, and callers
  like ``run_sync`` start a fresh loop per run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from subagents.errors import ProviderError, ProviderResponseError
from subagents.providers._shared import (
    MALFORMED,
    LoopClients,
    call_with_retries,
    classify_status,
    connection_failure,
    import_sdk,
    is_transport_error,
    malformed_reply,
    redact,
    require_key,
)
from subagents.providers.base import (
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    forced_tool,
)
from subagents.providers.retry import RetryableFailure, RetryPolicy

__all__ = ["DEFAULT_BASE_URL", "AnthropicModel", "to_anthropic_params"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
KEY_HELP = (
    "set ANTHROPIC_API_KEY (export ANTHROPIC_API_KEY=sk-ant-...; keys are at "
    "https://console.anthropic.com/settings/keys), or pass api_key= to the provider"
)
_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "end_turn",
    "model_context_window_exceeded": "max_tokens",
}


def _block_to_wire(
    block: TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock, *, thinking: bool = True
) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ThinkingBlock):
        if not thinking:  # a request without thinking must not carry thinking blocks
            return None
        if block.redacted is not None:
            return {"type": "redacted_thinking", "data": block.redacted}
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, ToolUseBlock):
        # arguments that were not an object cannot be sent back as such: the call goes back
        # with no input, and its error result quotes what was received (ToolUseBlock.malformed)
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
    return {
        "type": "tool_result",
        "tool_use_id": block.tool_use_id,
        "content": block.content,
        "is_error": block.is_error,
    }


def _message_to_wire(message: Message, *, thinking: bool = True) -> dict[str, Any]:
    # The API wants a user message's tool_result blocks before any text (a runner may add a
    # note after the results); the sort is stable, so each group keeps its order.
    ordered = sorted(message.content, key=lambda b: not isinstance(b, ToolResultBlock))
    blocks = [wire for b in ordered
              if (wire := _block_to_wire(b, thinking=thinking)) is not None]
    if not blocks:
        blocks = [{"type": "text", "text": "(no content)"}]
    return {"role": message.role, "content": blocks}


def to_anthropic_params(request: ModelRequest) -> dict[str, Any]:
    """The keyword arguments for ``messages.create`` for one request."""
    forced = forced_tool(request)
    # The API refuses thinking together with a forced tool call (tool_choice "tool"/"any").
    thinking = request.thinking is not None and forced is None
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": [_message_to_wire(m, thinking=thinking) for m in request.messages],
    }
    if thinking:
        if request.thinking == "budget":
            budget = request.thinking_budget or max(1024, request.max_tokens - 1)
            params["thinking"] = {"type": "enabled",
                                  "budget_tokens": min(budget, request.max_tokens - 1)}
        else:
            params["thinking"] = {"type": "adaptive"}
        if request.thinking_hidden:
            params["thinking"]["display"] = "omitted"
        if request.effort:
            params["output_config"] = {"effort": request.effort}
    if request.system:
        params["system"] = request.system
    if request.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
            for t in request.tools
        ]
    if forced is not None:
        params["tool_choice"] = {"type": "tool", "name": forced}
    user_id = request.metadata.get("user_id")
    if isinstance(user_id, str) and user_id:
        params["metadata"] = {"user_id": user_id}
    return params


def _from_message(message: Any, raw_inputs: Mapping[int, str]) -> ModelResponse:
    content: list[TextBlock | ThinkingBlock | ToolUseBlock] = []
    for index, block in enumerate(message.content or ()):
        kind = getattr(block, "type", None)
        if kind == "thinking":
            content.append(ThinkingBlock(str(getattr(block, "thinking", "") or ""),
                                         str(getattr(block, "signature", "") or "")))
        elif kind == "redacted_thinking":
            content.append(ThinkingBlock("", redacted=str(getattr(block, "data", "") or "")))
        elif kind == "text":
            if block.text:
                content.append(TextBlock(block.text))
        elif kind == "tool_use":
            tool_input: Any = block.input
            if index in raw_inputs:
                # streamed: judge the raw JSON text, not the SDK's lenient partial parse
                content.append(ToolUseBlock.from_arguments(block.id, block.name,
                                                           raw_inputs[index]))
            elif not isinstance(tool_input, dict):
                content.append(ToolUseBlock(block.id, block.name, {},
                                            raw_arguments=json.dumps(tool_input),
                                            arguments_error="not a JSON object"))
            else:
                content.append(ToolUseBlock(block.id, block.name, tool_input))
        # server tool blocks and the like carry nothing the runner acts on
    raw_stop = getattr(message, "stop_reason", None) or ""
    stop: StopReason = _STOP.get(raw_stop, "end_turn")
    if stop == "end_turn" and any(isinstance(b, ToolUseBlock) for b in content):
        stop = "tool_use"
    usage = getattr(message, "usage", None)
    input_tokens = 0
    output_tokens = 0
    if usage is not None:
        input_tokens = (
            (usage.input_tokens or 0)
            + (getattr(usage, "cache_creation_input_tokens", None) or 0)
            + (getattr(usage, "cache_read_input_tokens", None) or 0)
        )
        output_tokens = usage.output_tokens or 0
    return ModelResponse(
        content=tuple(content),
        stop_reason=stop,
        usage=Usage(input_tokens, output_tokens),
        model=str(getattr(message, "model", "") or ""),
    )


class AnthropicModel(LoopClients):
    """A :class:`~subagents.providers.base.Model` backed by Anthropic's Messages API."""

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        stream: bool = False,
        retry: RetryPolicy | None = None,
        timeout: float = 600.0,
        model: str | None = None,
    ) -> None:
        auth_token: str | None = None
        if api_key or os.environ.get("ANTHROPIC_API_KEY", "").strip():
            api_key = require_key(
                api_key, ("ANTHROPIC_API_KEY",), provider="anthropic", how=KEY_HELP
            )
        else:
            auth_token = require_key(
                None, ("ANTHROPIC_AUTH_TOKEN",), provider="anthropic", how=KEY_HELP
            )
        self._api_key = api_key
        self._auth_token = auth_token
        self.base_url = (
            base_url or os.environ.get("ANTHROPIC_BASE_URL", "").strip() or DEFAULT_BASE_URL
        ).rstrip("/")
        # the session model for ``inherit`` when no parent names one (the runner reads it)
        self.default_model: str | None = (
            model or os.environ.get("ANTHROPIC_MODEL", "").strip() or None
        )
        self.stream = stream
        self.retry = retry or RetryPolicy.from_env()
        self.timeout = timeout
        self._sdk = import_sdk("anthropic", "the Anthropic provider")  # lazy: see above
        # one client per event loop (weakly keyed: a finished loop takes its client with it)
        LoopClients.__init__(self)

    def __repr__(self) -> str:  # never show the key
        return f"AnthropicModel(base_url={redact(self.base_url)!r}, stream={self.stream})"

    @property
    def _secrets(self) -> tuple[str | None, ...]:
        return (self._api_key, self._auth_token)

    def _new_client(self) -> Any:
        return self._sdk.AsyncAnthropic(
            api_key=self._api_key,
            auth_token=self._auth_token,
            base_url=self.base_url,
            max_retries=0,
            timeout=self.timeout,
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        params = to_anthropic_params(request)

        async def once() -> ModelResponse:
            client = self._client_for_loop()
            if self.stream:
                return await self._streamed(client, params)
            return _from_message(await client.messages.create(**params), {})

        return await call_with_retries(once, self._translate, self.retry,
                                       what=f"anthropic request to {self.url}")

    @property
    def url(self) -> str:
        return redact(self.base_url + "/v1/messages")

    async def _streamed(self, client: Any, params: dict[str, Any]) -> ModelResponse:
        raw_inputs: dict[int, list[str]] = {}
        finished = False
        async with client.messages.stream(**params) as stream:
            async for event in stream:
                if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    raw_inputs.setdefault(event.index, []).append(event.delta.partial_json)
                elif event.type == "message_stop":
                    finished = True
            if not finished:
                # The SDK returns whatever arrived when a connection closes early; a cut-off
                # answer must not pass for a complete (possibly empty) one.
                raise connection_failure(
                    ConnectionError("the stream ended before message_stop"),
                    provider="anthropic",
                    url=self.url,
                    env_name="ANTHROPIC_BASE_URL",
                    secrets=self._secrets,
                )
            message = await stream.get_final_message()
        return _from_message(message, {i: "".join(parts) for i, parts in raw_inputs.items()})

    def _translate(self, exc: Exception) -> ProviderError | RetryableFailure:
        sdk = self._sdk
        url, secrets = self.url, self._secrets
        if isinstance(exc, sdk.APIStatusError):
            return classify_status(
                exc.status_code,
                exc.body,
                exc.response.headers,
                provider="anthropic",
                url=url,
                key_env="ANTHROPIC_API_KEY",
                secrets=secrets,
            )
        if isinstance(exc, (sdk.APIResponseValidationError, *MALFORMED)):
            return malformed_reply(exc, provider="anthropic", url=url, secrets=secrets)
        if isinstance(exc, sdk.APIConnectionError) or is_transport_error(exc):
            return connection_failure(
                exc, provider="anthropic", url=url, env_name="ANTHROPIC_BASE_URL", secrets=secrets
            )
        detail = redact(f"{type(exc).__name__}: {exc}", secrets)
        return ProviderResponseError(f"the anthropic request to {url} failed: {detail}")
