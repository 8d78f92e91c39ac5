"""The shared retry policy (no network: attempts are plain coroutines)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from subagents.errors import ProviderConnectionError, ProviderResponseError, UsageError
from subagents.providers.retry import (
    RetryableFailure,
    RetryPolicy,
    parse_retry_after,
    retry_async,
)


def flaky(failures: list[BaseException], result: str = "ok"):  # type: ignore[no-untyped-def]
    calls: list[int] = []

    async def attempt() -> str:
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return result

    return attempt, calls


async def test_succeeds_after_transient_failures() -> None:
    waits: list[float] = []
    attempt, calls = flaky([RetryableFailure(ProviderConnectionError("down"))] * 2)
    assert await retry_async(attempt, RetryPolicy.instant(4, record=waits)) == "ok"
    assert len(calls) == 3
    assert waits == [0.5, 1.0]  # rand()=0.5 means no jitter: base, then doubled


async def test_gives_up_with_the_wrapped_error_and_says_how_often() -> None:
    attempt, calls = flaky([RetryableFailure(ProviderConnectionError("down"))] * 5)
    with pytest.raises(ProviderConnectionError, match=r"down \(gave up after 3 attempts\)"):
        await retry_async(attempt, RetryPolicy.instant(3))
    assert len(calls) == 3


async def test_a_final_error_is_not_retried() -> None:
    attempt, calls = flaky([ProviderResponseError("bad request", status=400)])
    with pytest.raises(ProviderResponseError):
        await retry_async(attempt, RetryPolicy.instant(4))
    assert len(calls) == 1


async def test_one_attempt_means_no_retry_and_no_suffix() -> None:
    attempt, calls = flaky([RetryableFailure(ProviderConnectionError("down"))])
    with pytest.raises(ProviderConnectionError) as info:
        await retry_async(attempt, RetryPolicy.instant(1))
    assert str(info.value).startswith("down") and "gave up" not in str(info.value)
    assert len(calls) == 1


async def test_retry_after_wins_over_backoff_and_is_capped() -> None:
    waits: list[float] = []
    failures: list[BaseException] = [
        RetryableFailure(ProviderResponseError("slow down", status=429), retry_after=4.0),
        RetryableFailure(ProviderResponseError("slow down", status=429), retry_after=0.0),
    ]
    attempt, _ = flaky(failures)
    await retry_async(attempt, RetryPolicy.instant(4, record=waits))
    assert waits == [4.0, 0.0]

    long_wait = [RetryableFailure(ProviderResponseError("later", status=429), retry_after=61)]
    attempt, calls = flaky(long_wait)
    with pytest.raises(ProviderResponseError) as info:
        await retry_async(attempt, RetryPolicy.instant(4))
    assert len(calls) == 1 and "61s" in str(info.value.hint)


def test_backoff_grows_is_capped_and_jittered() -> None:
    low = RetryPolicy(base_delay=1, max_delay=5, jitter=0.2, rand=lambda: 0.0)
    high = RetryPolicy(base_delay=1, max_delay=5, jitter=0.2, rand=lambda: 1.0)
    assert [low.backoff(n) for n in (1, 2, 3)] == pytest.approx([0.8, 1.6, 3.2])
    assert [high.backoff(n) for n in (1, 2, 3)] == pytest.approx([1.2, 2.4, 4.8])
    assert high.backoff(10) == 5  # never above max_delay, jitter included
    assert low.backoff(10) == pytest.approx(4.0)


@pytest.mark.parametrize(
    "kwargs",
    [{"max_attempts": 0}, {"base_delay": -1}, {"jitter": 1.5}],
)
def test_invalid_policies_are_usage_errors(kwargs: dict[str, float]) -> None:
    with pytest.raises(UsageError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_policy_from_environment() -> None:
    policy = RetryPolicy.from_env({"SUBAGENTS_RETRY_ATTEMPTS": "2", "SUBAGENTS_RETRY_DELAY": "0"})
    assert policy.max_attempts == 2 and policy.base_delay == 0 and policy.backoff(3) == 0
    assert RetryPolicy.from_env({}) == RetryPolicy()
    with pytest.raises(UsageError, match="SUBAGENTS_RETRY_ATTEMPTS"):
        RetryPolicy.from_env({"SUBAGENTS_RETRY_ATTEMPTS": "many"})


def test_parse_retry_after() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "-4"}) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after(None) is None
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    seconds = parse_retry_after({"retry-after": when})
    assert seconds is not None and 25 <= seconds <= 31
    past = format_datetime(datetime.now(UTC) - timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": past}) == 0.0
