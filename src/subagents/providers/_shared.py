"""What the network providers share: credentials, redaction, and error classification.

Design decisions:

* **Secrets never leave in text.**  Every message built from a server reply or an SDK exception
  goes through :func:`redact`, which removes the API key (a server may echo the key it
  rejected) and the userinfo part of URLs.  Only redacted text is logged.
* **One classification for both SDKs**: 408/409/429/5xx and connection faults are retried;
  other 4xx are final :class:`~subagents.errors.ProviderResponseError` with the status and the
  server's own message; a body that is not JSON is a final ``ProviderResponseError``
  (a retry would get the same garbage from a broken proxy or server).
* **Malformed tool arguments are data, not an error.**  A server that sends arguments that are
  not a JSON object yields a ``ToolUseBlock`` with empty ``input``, the text verbatim in
  ``raw_arguments`` and the reason in ``arguments_error``
  (:meth:`~subagents.providers.base.ToolUseBlock.from_arguments`); the runner answers it with an
  ``is_error`` tool result, so the model can correct itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import ModuleType
from typing import Any, TypeVar

from subagents.errors import (
    MissingCredentialsError,
    ProviderConnectionError,
    ProviderError,
    ProviderResponseError,
)
from subagents.providers.retry import (
    RetryableFailure,
    RetryPolicy,
    parse_retry_after,
    retry_async,
)

__all__ = [
    "MALFORMED",
    "ReplyShapeError",
    "call_with_retries",
    "classify_status",
    "classify_stream_error",
    "connection_failure",
    "import_sdk",
    "is_transport_error",
    "malformed_reply",
    "redact",
    "require_key",
    "server_message",
]

RETRYABLE_STATUS = frozenset({408, 409, 429})


class ReplyShapeError(ValueError):
    """A reply that parsed as JSON but lacks what the API promises (e.g. no choices)."""


#: exceptions that mean "the server sent something we cannot read" (beside the SDKs' own)
MALFORMED = (json.JSONDecodeError, ReplyShapeError)
_URL_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")
_MAX_SERVER_MESSAGE = 500


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with each secret (of 4+ characters) and any ``user:pass@`` in URLs masked."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return _URL_USERINFO.sub("***@", text)


def require_key(
    explicit: str | None,
    env_names: tuple[str, ...],
    *,
    provider: str,
    how: str,
) -> str:
    """The explicit key, else the first non-empty env var; else MissingCredentialsError."""
    if explicit:
        return explicit
    for name in env_names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    raise MissingCredentialsError(f"no API key for the {provider} provider", hint=how)


def server_message(body: object, fallback: str = "") -> str:
    """The human message in an error body (Anthropic's or OpenAI's shape), shortened."""
    message: object = None
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            message = inner.get("message")
        elif isinstance(inner, str):
            message = inner
        if message is None:
            message = body.get("message") or body.get("detail")
    elif isinstance(body, (str, bytes)):
        message = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = str(message).strip() if message else fallback
    if len(text) > _MAX_SERVER_MESSAGE:
        text = text[: _MAX_SERVER_MESSAGE - 1] + "…"
    return text


def classify_status(
    status: int,
    body: object,
    headers: Mapping[str, str] | None,
    *,
    provider: str,
    url: str,
    key_env: str,
    secrets: Iterable[str | None],
) -> ProviderError | RetryableFailure:
    """The error for an HTTP error status: retryable (429, 5xx, ...) or final (other 4xx)."""
    secrets = tuple(secrets)
    if status < 400:  # an error event inside a stream that started with 200
        return classify_stream_error(body, provider=provider, url=url, secrets=secrets)
    said = redact(server_message(body, fallback="(no message)"), secrets)
    where = redact(url, secrets)
    message = f"the {provider} API at {where} answered {status}: {said}"
    hint: str | None = None
    if status in (401, 403):
        hint = f"check {key_env}: the server refused the key (it is not shown here)"
    elif status == 404:
        hint = (
            "check the model id (--model, the agent's `model`, or [tool.subagents] "
            "model-aliases) and the base URL"
        )
    elif status == 429:
        hint = "the server is rate limiting; wait, or lower the number of parallel agents"
    error = ProviderResponseError(message, status=status, hint=hint)
    if status in RETRYABLE_STATUS or status >= 500:
        return RetryableFailure(error, retry_after=parse_retry_after(headers))
    return error


_TRANSIENT_ERROR_TYPES = frozenset(
    {
        "overloaded_error",
        "api_error",
        "rate_limit_error",
        "server_error",
        "internal_error",
        "internal_server_error",
        "timeout_error",
        "service_unavailable",
    }
)


def classify_stream_error(
    body: object, *, provider: str, url: str, secrets: Iterable[str | None]
) -> ProviderError | RetryableFailure:
    """An error event inside a 200 stream: retryable when its type says the server is busy."""
    secrets = tuple(secrets)
    said = redact(server_message(body, fallback="(no message)"), secrets)
    kind: object = None
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        kind = inner.get("type") if isinstance(inner, Mapping) else None
    error = ProviderResponseError(
        f"the {provider} API at {redact(url, secrets)} reported an error mid-stream: {said}"
    )
    if isinstance(kind, str) and kind.lower() in _TRANSIENT_ERROR_TYPES:
        return RetryableFailure(error)
    return error


def connection_failure(
    cause: BaseException, *, provider: str, url: str, env_name: str, secrets: Iterable[str | None]
) -> RetryableFailure:
    """A retryable failure for an unreachable server, a timeout or a dropped connection."""
    secrets = tuple(secrets)
    detail = redact(str(cause) or type(cause).__name__, secrets)
    inner = cause.__cause__ or cause.__context__
    if inner is not None and str(inner) and str(inner) not in detail:
        detail += f" ({redact(str(inner), secrets)})"
    error = ProviderConnectionError(
        f"cannot reach the {provider} API at {redact(url, secrets)}: {detail}",
        hint=f"check that the server is running and that {env_name} (or --base-url) is right",
    )
    return RetryableFailure(error)


def malformed_reply(
    cause: BaseException, *, provider: str, url: str, secrets: Iterable[str | None]
) -> ProviderResponseError:
    secrets = tuple(secrets)
    detail = redact(str(cause) or type(cause).__name__, secrets)
    return ProviderResponseError(
        f"the {provider} API at {redact(url, secrets)} sent a reply that cannot be understood "
        f"(malformed JSON or an unexpected shape): {detail}",
        hint="check that the base URL points at a compatible API, not a web page or a proxy",
    )


def import_sdk(module: str, provider: str) -> ModuleType:
    """The provider's SDK, imported when a provider is built (never at package import); a
    missing SDK is the error that says which extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        from subagents._deps import missing_dependency

        raise missing_dependency(exc, provider) from None


_T = TypeVar("_T")


async def call_with_retries(
    once: Callable[[], Awaitable[_T]],
    translate: Callable[[Exception], ProviderError | RetryableFailure],
    policy: RetryPolicy,
    *,
    what: str,
) -> _T:
    """``once()`` under the retry ``policy``: an SDK's exception is ``translate``d into a
    final :class:`~subagents.errors.ProviderError` or a retryable failure; ours pass through."""

    async def attempt() -> _T:
        try:
            return await once()
        except (ProviderError, RetryableFailure):
            raise
        except Exception as exc:
            raise translate(exc) from None

    return await retry_async(attempt, policy, what=what)


def is_transport_error(exc: BaseException) -> bool:
    """A connection dropped while a stream was being read (the SDKs do not wrap these).

    Matched by name so that neither ``httpx`` nor ``httpx2`` (whichever the SDK uses) has to be
    imported here.
    """
    return any(
        cls.__name__ in {"TransportError", "StreamError"} and cls.__module__.startswith("httpx")
        for cls in type(exc).__mro__
    )


class LoopClients:
    """One SDK client per event loop (a client's connection pool belongs to the loop that made
    it; ``asyncio.run`` in the CLI and pytest's per-test loops would otherwise share a dead one).

    Subclasses implement :meth:`_new_client`; clients are dropped with their loop (weak keys).
    """

    def __init__(self) -> None:
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    def _new_client(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _client_for_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._new_client()
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close this loop's HTTP client (optional; it is also dropped with its loop)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()
