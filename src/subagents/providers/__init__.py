"""Model providers: ``get_provider(name, **options)`` builds one by name.

``anthropic`` (official ``anthropic`` SDK, Messages API), ``openai`` (official ``openai`` SDK,
chat completions; any OpenAI-compatible server) and ``scripted`` (a JSON script of replies, for
offline runs).  See ``docs/providers.md``.

Design decisions: importing this package imports neither SDK — each adapter module imports
its SDK when a provider is built, so ``subagents validate`` never pays for them.  Options are
checked against what each provider accepts, so a typo is a :class:`~subagents.errors.UsageError`
that lists the valid options instead of a ``TypeError`` traceback.
"""

from __future__ import annotations

import importlib
from typing import Any

from subagents.errors import UsageError
from subagents.providers.base import Model
from subagents.providers.models import (
    DEFAULT_ALIASES,
    ModelChoice,
    alias_table,
    choose_model,
    effective_model,
    resolve_model,
)
from subagents.providers.retry import RetryPolicy

__all__ = [
    "DEFAULT_ALIASES",
    "PROVIDERS",
    "ModelChoice",
    "RetryPolicy",
    "alias_table",
    "choose_model",
    "effective_model",
    "get_provider",
    "resolve_model",
]

_NETWORK_OPTIONS = frozenset({"api_key", "base_url", "stream", "retry", "timeout", "model"})

#: provider name -> ("module:factory", accepted options)
PROVIDERS: dict[str, tuple[str, frozenset[str]]] = {
    "anthropic": ("subagents.providers.anthropic:AnthropicModel", _NETWORK_OPTIONS),
    "openai": (
        "subagents.providers.openai:OpenAIModel",
        _NETWORK_OPTIONS | {"max_tokens_param", "reasoning_effort"},
    ),
    "scripted": (
        "subagents.providers.scripted:scripted_provider",
        frozenset({"script", "replies", "delay"}),
    ),
}


def get_provider(name: str, **options: Any) -> Model:
    """Build the provider called ``name`` with ``options``.

    Options whose value is ``None`` are dropped, so a CLI can pass its flags straight through
    (``get_provider(provider, base_url=opts.base_url, stream=opts.stream)``).

    Raises :class:`~subagents.errors.UsageError` for an unknown provider or option, and
    :class:`~subagents.errors.MissingCredentialsError` when the provider's key is not set.
    """
    key = (name or "").strip().lower()
    if key not in PROVIDERS:
        raise UsageError(
            f"unknown provider {name!r}",
            hint="choose one of: " + ", ".join(sorted(PROVIDERS)),
        )
    target, accepted = PROVIDERS[key]
    given = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(given) - accepted)
    if unknown:
        raise UsageError(
            f"the {key} provider does not take option(s) {', '.join(unknown)}",
            hint="it takes: " + ", ".join(sorted(accepted)),
        )
    module_name, attr = target.split(":")
    factory = getattr(importlib.import_module(module_name), attr)
    model: Model = factory(**given)
    return model
