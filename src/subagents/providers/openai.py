"""The ``openai`` provider: chat completions through the official ``openai`` SDK.

Works with OpenAI and with any OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp):
point ``OPENAI_BASE_URL`` (or ``base_url=``) at it.

Design decisions:

* **Lazy SDK import, explicit credentials, SDK retries off** — as for the Anthropic adapter.
  Local servers ignore the key, but the SDK insists on one, so the missing-key message says
  that any non-empty value works there.
* **Translation** from the neutral (Anthropic-shaped) messages:
  the system prompt becomes the first ``system`` message; a user message's ``tool_result``
  blocks become ``role: tool`` messages (emitted first: they must follow the assistant message
  that called the tools), its text a ``user`` message; an assistant message's ``tool_use``
  blocks become ``tool_calls`` with JSON-string arguments.  Chat completions have no
  ``is_error``, so an error result's content is prefixed with ``Error:``.
* **Broken arguments never crash a run**: arguments that are not a JSON object become a
  ``ToolUseBlock`` carrying the raw text (:meth:`ToolUseBlock.from_arguments
  <subagents.providers.base.ToolUseBlock.from_arguments>`),
  and are sent back verbatim in the history so the model sees what it said.
* **Stop reasons**: ``tool_calls`` -> ``tool_use``, ``length`` -> ``max_tokens``,
  ``content_filter`` -> ``refusal``, else ``end_turn``; any reply that carries tool calls is
  ``tool_use`` whatever the server said (some local servers say ``stop``).
* **``max_tokens`` vs ``max_completion_tokens``**: OpenAI's own API wants the latter (newer
  models refuse the former); compatible servers know the former.  The default follows the
  base URL; ``max_tokens_param=`` overrides it.
* **Thinking and effort** (:mod:`subagents.providers.generation`): chat completions have no
  thinking block, so ``thinking`` is not sent and thinking blocks in the history are dropped.
  ``effort`` becomes ``reasoning_effort`` where the server has it: OpenAI's own reasoning
  models (``o1``/``o3``/``o4``, ``gpt-5``, ``gpt-oss``), any server when the effort was chosen
  by the user (``--effort``, config, an agent's ``effort``; the request says so in
  ``metadata``), or always/never with ``reasoning_effort=True``/``False``.  A server that
  refuses it is asked again without it by the runner, which says so in a warning.
* **``default_model``** (the ``model`` option, else ``OPENAI_MODEL``) is what ``inherit``
  falls back to without a parent model — handy for a local server whose models are not Claude
  ids (``OPENAI_MODEL=qwen2.5-coder:7b``).
* **Streaming** (``stream=True``) uses ``create(stream=True)`` and assembles the chunks here
  (content, ``tool_calls`` deltas by index, finish reason, the usage chunk) rather than the
  SDK's ``stream()`` helper, which would try to parse arguments itself.  A stream that ends
  without a ``finish_reason`` was cut off: it is retried like a dropped connection, never
  passed off as a complete answer.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Sequence
from typing import Any

from subagents.errors import ProviderError, ProviderResponseError, UsageError
from subagents.providers._shared import (
    MALFORMED,
    LoopClients,
    ReplyShapeError,
    call_with_retries,
    classify_status,
    classify_stream_error,
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
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    forced_tool,
)
from subagents.providers.generation import EFFORT_EXPLICIT
from subagents.providers.retry import RetryableFailure, RetryPolicy

__all__ = ["DEFAULT_BASE_URL", "OpenAIModel", "to_openai_params"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_HELP = (
    "set OPENAI_API_KEY (export OPENAI_API_KEY=sk-...), or pass api_key= to the provider; "
    "for a local OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp) any non-empty "
    "value works, e.g. OPENAI_API_KEY=local with OPENAI_BASE_URL=http://localhost:11434/v1"
)
_FINISH: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_call_ids = itertools.count(1)


def _user_to_wire(message: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    texts: list[str] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            content = block.content
            if block.is_error and not content.lower().startswith("error"):
                content = f"Error: {content}"
            out.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": content})
        elif isinstance(block, TextBlock) and block.text:
            texts.append(block.text)
    if texts or not out:
        out.append({"role": "user", "content": "\n\n".join(texts)})
    return out


def _assistant_to_wire(message: Message) -> dict[str, Any]:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    calls = [
        {
            "id": b.id,
            "type": "function",
            "function": {"name": b.name, "arguments": b.wire_arguments},
        }
        for b in message.content
        if isinstance(b, ToolUseBlock)
    ]
    wire: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        wire["tool_calls"] = calls
    elif not text:
        wire["content"] = ""  # an empty reply stays in the history as an empty message
    return wire


_REASONING_MODEL = re.compile(r"^(?:o\d|gpt-5|gpt-oss)", re.IGNORECASE)


def sends_reasoning_effort(request: ModelRequest, setting: bool | None, official: bool) -> bool:
    """Whether ``reasoning_effort`` goes on the wire (see the module's design notes)."""
    if not request.effort or setting is False:
        return False
    if setting is True or request.metadata.get(EFFORT_EXPLICIT):
        return True
    return official and bool(_REASONING_MODEL.match(request.model))


def to_openai_params(
    request: ModelRequest, *, max_tokens_param: str, reasoning_effort: bool = False
) -> dict[str, Any]:
    """The keyword arguments for ``chat.completions.create`` for one request."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        if message.role == "assistant":
            messages.append(_assistant_to_wire(message))
        else:
            messages.extend(_user_to_wire(message))
    params: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        max_tokens_param: request.max_tokens,
    }
    if reasoning_effort and request.effort:
        params["reasoning_effort"] = request.effort
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.input_schema),
                },
            }
            for t in request.tools
        ]
        forced = forced_tool(request)
        if forced is not None:
            params["tool_choice"] = {"type": "function", "function": {"name": forced}}
    return params


def _response(
    text: str,
    calls: Sequence[tuple[str | None, str, str | None]],
    finish: str | None,
    usage: Any,
    model: str,
) -> ModelResponse:
    content: list[TextBlock | ToolUseBlock] = [TextBlock(text)] if text else []
    for given_id, name, arguments in calls:
        call_id = given_id or f"call_{next(_call_ids)}"  # some local servers send no id
        content.append(ToolUseBlock.from_arguments(call_id, name, arguments))
    stop: StopReason = "tool_use" if calls else _FINISH.get(finish or "stop", "end_turn")
    if stop == "tool_use" and not calls:
        stop = "end_turn"  # "tool_calls" with no calls: nothing for the runner to run
    tokens = Usage(
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
    )
    return ModelResponse(content=tuple(content), stop_reason=stop, usage=tokens, model=model)


def _from_completion(completion: Any) -> ModelResponse:
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ReplyShapeError("the reply has no choices")
    choice = choices[0]
    message = choice.message
    calls = [
        (call.id, call.function.name, call.function.arguments)
        for call in (message.tool_calls or ())
        if getattr(call, "function", None) is not None
    ]
    return _response(
        message.content or "",
        calls,
        choice.finish_reason,
        completion.usage,
        str(completion.model or ""),
    )


class OpenAIModel(LoopClients):
    """A :class:`~subagents.providers.base.Model` for OpenAI-compatible chat completions."""

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        stream: bool = False,
        retry: RetryPolicy | None = None,
        timeout: float = 600.0,
        model: str | None = None,
        max_tokens_param: str | None = None,
        reasoning_effort: bool | None = None,
    ) -> None:
        self._api_key = require_key(api_key, ("OPENAI_API_KEY",), provider="openai", how=KEY_HELP)
        self.base_url = (
            base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or DEFAULT_BASE_URL
        ).rstrip("/")
        official = "api.openai.com" in self.base_url
        self.official = official
        #: send ``reasoning_effort``: True always, False never, None where the server has it
        self.reasoning_effort = reasoning_effort
        if max_tokens_param is None:
            max_tokens_param = "max_completion_tokens" if official else "max_tokens"
        if max_tokens_param not in {"max_tokens", "max_completion_tokens"}:
            raise UsageError(
                f"max_tokens_param must be 'max_tokens' or 'max_completion_tokens', "
                f"not {max_tokens_param!r}"
            )
        self.max_tokens_param = max_tokens_param
        # the session model for ``inherit`` when no parent names one (the runner reads it)
        self.default_model: str | None = model or os.environ.get("OPENAI_MODEL", "").strip() or None
        self.stream = stream
        self.retry = retry or RetryPolicy.from_env()
        self.timeout = timeout
        self._sdk = import_sdk("openai", "the OpenAI-compatible provider")  # lazy: see above
        # one client per event loop (weakly keyed: a finished loop takes its client with it)
        LoopClients.__init__(self)

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIModel(base_url={redact(self.base_url)!r}, stream={self.stream})"

    @property
    def url(self) -> str:
        return redact(self.base_url + "/chat/completions")

    def _new_client(self) -> Any:
        return self._sdk.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self.base_url,
            max_retries=0,
            timeout=self.timeout,
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        params = to_openai_params(
            request, max_tokens_param=self.max_tokens_param,
            reasoning_effort=sends_reasoning_effort(request, self.reasoning_effort,
                                                    self.official))

        async def once() -> ModelResponse:
            client = self._client_for_loop()
            if self.stream:
                return await self._streamed(client, params)
            return _from_completion(await client.chat.completions.create(**params))

        return await call_with_retries(once, self._translate, self.retry,
                                       what=f"openai request to {self.url}")

    async def _streamed(self, client: Any, params: dict[str, Any]) -> ModelResponse:
        stream = await client.chat.completions.create(
            **params, stream=True, stream_options={"include_usage": True}
        )
        text: list[str] = []
        calls: dict[int, list[Any]] = {}  # index -> [id, name, [argument pieces]]
        finish: str | None = None
        usage: Any = None
        model = ""
        async for chunk in stream:
            model = model or str(getattr(chunk, "model", "") or "")
            if getattr(chunk, "usage", None) is not None:
                usage = chunk.usage
            for choice in chunk.choices or ():
                if choice.finish_reason:
                    finish = choice.finish_reason
                delta = choice.delta
                if delta is None:
                    continue
                if delta.content:
                    text.append(delta.content)
                for call in delta.tool_calls or ():
                    slot = calls.setdefault(call.index, [None, "", []])
                    if call.id:
                        slot[0] = call.id
                    if call.function is not None:
                        if call.function.name:
                            slot[1] += call.function.name
                        if call.function.arguments:
                            slot[2].append(call.function.arguments)
        if finish is None:
            # The SDK ends quietly when the connection closes early; every compatible server
            # sends a finish_reason last, so without one the answer was cut off.
            raise connection_failure(
                ConnectionError("the stream ended before a finish_reason"),
                provider="openai",
                url=self.url,
                env_name="OPENAI_BASE_URL",
                secrets=(self._api_key,),
            )
        assembled = [(s[0], s[1], "".join(s[2])) for _, s in sorted(calls.items())]
        return _response("".join(text), assembled, finish, usage, model)

    def _translate(self, exc: Exception) -> ProviderError | RetryableFailure:
        sdk = self._sdk
        url, secrets = self.url, (self._api_key,)
        if isinstance(exc, sdk.APIStatusError):
            return classify_status(
                exc.status_code,
                exc.body,
                exc.response.headers,
                provider="openai",
                url=url,
                key_env="OPENAI_API_KEY",
                secrets=secrets,
            )
        if isinstance(exc, sdk.APIConnectionError) or is_transport_error(exc):
            return connection_failure(
                exc, provider="openai", url=url, env_name="OPENAI_BASE_URL", secrets=secrets
            )
        if isinstance(exc, (sdk.APIResponseValidationError, AttributeError, *MALFORMED)):
            return malformed_reply(exc, provider="openai", url=url, secrets=secrets)
        if isinstance(exc, sdk.APIError):
            # an error event inside a stream (no status): the server's own message
            body = exc.body if exc.body is not None else str(exc)
            return classify_stream_error(body, provider="openai", url=url, secrets=secrets)
        detail = redact(f"{type(exc).__name__}: {exc}", secrets)
        return ProviderResponseError(f"the openai request to {url} failed: {detail}")
