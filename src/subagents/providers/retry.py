"""Retries with exponential backoff, shared by every network provider.

Design decisions:

* **One policy for every provider.**  The SDKs' own retry loops are turned off
  (``max_retries=0``) and this module retries instead, so the Anthropic and OpenAI adapters
  behave the same way, log the same way and can be made instant in tests.
* **The adapter classifies, this module waits.**  An adapter's single attempt raises
  :class:`RetryableFailure` (wrapping the :class:`~subagents.errors.ProviderError` to raise if
  the attempts run out) for a 429, a 5xx, a timeout or a dropped connection, and raises a
  ``ProviderError`` directly for anything a retry would not fix (401, 400, malformed reply).
* **``retry-after`` is honoured, within bounds.**  A server that names a wait gets exactly that
  wait (no jitter: it told us when).  A wait longer than ``max_retry_after`` is not worth
  sleeping through inside an agent loop, so the error is raised at once and its hint says how
  long the server asked for.
* **Jitter** spreads computed backoffs by ±``jitter`` (a fraction), so parallel subagents that
  failed together do not retry together.
* **Testable.**  ``sleep`` and ``rand`` are injectable; :meth:`RetryPolicy.instant` makes a
  policy that records its waits instead of sleeping.  ``SUBAGENTS_RETRY_ATTEMPTS`` and
  ``SUBAGENTS_RETRY_DELAY`` (seconds) let a CLI user or a CLI test tune the default policy.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from email.utils import parsedate_to_datetime
from typing import TypeVar

from subagents.errors import ProviderError, UsageError

__all__ = [
    "RetryPolicy",
    "RetryableFailure",
    "parse_retry_after",
    "retry_async",
]

T = TypeVar("T")

logger = logging.getLogger("subagents.providers")

ENV_ATTEMPTS = "SUBAGENTS_RETRY_ATTEMPTS"
ENV_DELAY = "SUBAGENTS_RETRY_DELAY"


class RetryableFailure(Exception):
    """One attempt failed in a way a later attempt may not (429, 5xx, connection).

    ``error`` is what the caller sees when no attempt is left; ``retry_after`` is the wait the
    server asked for (seconds), if it named one.
    """

    def __init__(self, error: ProviderError, *, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many attempts, and how long to wait between them.

    ``max_attempts`` counts the first try (1 = never retry).  The n-th retry waits
    ``min(max_delay, base_delay * 2**(n-1))`` spread by ±``jitter``, or the server's
    ``retry-after`` when it gave one (up to ``max_retry_after``).
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 60.0
    jitter: float = 0.25
    sleep: Callable[[float], Awaitable[None]] = field(default=_sleep, compare=False)
    rand: Callable[[], float] = field(default=random.random, compare=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise UsageError(f"retry max_attempts must be at least 1, got {self.max_attempts}")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise UsageError("retry delays must not be negative")
        if not 0 <= self.jitter <= 1:
            raise UsageError(f"retry jitter must be between 0 and 1, got {self.jitter}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RetryPolicy:
        """The default policy, tuned by ``SUBAGENTS_RETRY_ATTEMPTS``/``SUBAGENTS_RETRY_DELAY``."""
        env = os.environ if environ is None else environ
        policy = cls()
        raw_attempts = env.get(ENV_ATTEMPTS, "").strip()
        raw_delay = env.get(ENV_DELAY, "").strip()
        try:
            if raw_attempts:
                policy = replace(policy, max_attempts=int(raw_attempts))
            if raw_delay:
                delay = float(raw_delay)
                policy = replace(policy, base_delay=delay, max_delay=max(delay, delay * 8))
        except ValueError:
            raise UsageError(
                f"{ENV_ATTEMPTS} must be a whole number and {ENV_DELAY} a number of seconds",
                hint=f"got {ENV_ATTEMPTS}={raw_attempts!r}, {ENV_DELAY}={raw_delay!r}",
            ) from None
        return policy

    @classmethod
    def instant(cls, max_attempts: int = 4, *, record: list[float] | None = None) -> RetryPolicy:
        """A policy that never really sleeps (for tests); waits are appended to ``record``."""
        waits = record if record is not None else []

        async def fake_sleep(seconds: float) -> None:
            waits.append(seconds)

        return cls(max_attempts=max_attempts, sleep=fake_sleep, rand=lambda: 0.5)

    def backoff(self, retry: int) -> float:
        """The computed wait before retry number ``retry`` (1-based), jitter included."""
        base = min(self.max_delay, self.base_delay * (2.0 ** (retry - 1)))
        spread = base * self.jitter * (2 * self.rand() - 1)
        return max(0.0, min(self.max_delay, base + spread))


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date), else None."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    import datetime as _dt

    now = _dt.datetime.now(when.tzinfo or _dt.UTC)
    return max(0.0, (when - now).total_seconds())


async def retry_async(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    what: str = "request",
) -> T:
    """Run ``attempt`` until it returns, raises a non-retryable error, or attempts run out.

    ``attempt`` raises :class:`RetryableFailure` for transient faults; when the last attempt
    fails that way, the wrapped :class:`~subagents.errors.ProviderError` is raised.
    """
    for number in range(1, policy.max_attempts + 1):
        try:
            return await attempt()
        except RetryableFailure as failure:
            if number >= policy.max_attempts:
                error = failure.error
                if policy.max_attempts > 1:
                    error.message += f" (gave up after {number} attempts)"
                    error.args = (error.message,)
                raise error from None
            if failure.retry_after is not None:
                if failure.retry_after > policy.max_retry_after:
                    error = failure.error
                    error.hint = (
                        f"the server asked to retry after {failure.retry_after:g}s, longer than "
                        f"the {policy.max_retry_after:g}s this client waits; try again later"
                    )
                    raise error from None
                wait = failure.retry_after
            else:
                wait = policy.backoff(number)
            # The message is already free of secrets (adapters redact before wrapping).
            logger.warning(
                "%s failed (%s); retry %d of %d in %.2fs",
                what,
                failure.error.message,
                number,
                policy.max_attempts - 1,
                wait,
            )
            await policy.sleep(wait)
    raise AssertionError("unreachable: max_attempts >= 1")  # pragma: no cover
