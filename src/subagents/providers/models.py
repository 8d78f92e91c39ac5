"""Model aliases and Claude Code's model precedence chain.

Design decisions:

* **Aliases are a table, not code.**  ``sonnet``, ``opus``, ``haiku`` and ``fable`` map to
  current model ids through :data:`DEFAULT_ALIASES`; ``[tool.subagents] model-aliases`` in
  config overrides or extends it (``table=``), so a new model release, or an OpenAI-compatible
  server whose models have other names (``sonnet = "qwen2.5-coder:7b"``), needs no release of
  this package.  The defaults are the newest ids of each line that the installed ``anthropic``
  SDK knows.
* **Alias lookup ignores case and surrounding space**; anything that is not an alias is a full
  model id and passes through untouched (ids are case-sensitive on some servers).
* **``inherit`` (or no model at all) means the parent's model** — the caller's, for a subagent;
  the session's, for a main thread.  With no parent either, the ``default`` entry of the table
  is used (``opus`` unless config says otherwise): Claude Code 2.1.332's own default for a
  session (``claude-opus-5-5``, measured).
* **Precedence is REFERENCE.md's**: ``CLAUDE_CODE_SUBAGENT_MODEL`` env, then the per-call
  ``model`` parameter (the Task tool's ``model``, the CLI's ``--model``), then the frontmatter
  ``model``, then the parent's model.  A level that is empty or says ``inherit`` does not decide;
  the next one does.  :func:`choose_model` also says which level decided, so ``run --verbose``
  and diagnostics can explain a surprising model (a stale env var is the usual culprit).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from subagents.errors import ConfigError

__all__ = [
    "DEFAULT_ALIASES",
    "ENV_SUBAGENT_MODEL",
    "ModelChoice",
    "alias_table",
    "choose_model",
    "effective_model",
    "is_alias",
    "resolve_model",
]

ENV_SUBAGENT_MODEL = "CLAUDE_CODE_SUBAGENT_MODEL"

#: alias -> model id.  ``default`` names the alias (or id) used when nothing else decides.
DEFAULT_ALIASES: Mapping[str, str] = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
    "fable": "claude-fable-5-2",
    "default": "opus",
}

INHERIT = "inherit"

ModelSource = Literal["env", "call", "frontmatter", "parent", "default"]


def alias_table(overrides: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The default aliases updated by a config table (``[tool.subagents] model-aliases``).

    Raises :class:`~subagents.errors.ConfigError` for a non-string key or value, or for an
    attempt to redefine ``inherit``.
    """
    table = dict(DEFAULT_ALIASES)
    for key, value in (overrides or {}).items():
        if not isinstance(key, str) or not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f"[tool.subagents] model-aliases: {key!r} = {value!r} is not a text alias",
                hint='write entries like  sonnet = "claude-sonnet-5-5"',
            )
        name = key.strip().lower()
        if name == INHERIT:
            raise ConfigError(
                "[tool.subagents] model-aliases cannot redefine 'inherit'",
                hint="'inherit' always means the caller's model; remove that entry",
            )
        table[name] = value.strip()
    return table


def is_alias(name: str, *, table: Mapping[str, str] | None = None) -> bool:
    """True when ``name`` is an alias (or ``inherit``) rather than a full model id."""
    key = name.strip().lower()
    return key == INHERIT or key in alias_table(table)


def _lookup(name: str, table: Mapping[str, str]) -> str:
    # Follow alias chains (``default = "sonnet"``, ``fast = "haiku"``) a few steps, so config can
    # point one alias at another; a cycle stops at the last name seen instead of looping.
    seen: set[str] = set()
    current = name.strip()
    while current.lower() in table and current.lower() not in seen:
        seen.add(current.lower())
        current = table[current.lower()].strip()
    return current


def resolve_model(
    alias_or_id: str | None,
    *,
    table: Mapping[str, str] | None = None,
    parent: str | None = None,
) -> str:
    """The model id for an alias, a full id, ``inherit`` or nothing.

    >>> resolve_model("haiku", table={"haiku": "claude-haiku-5-5"})
    'claude-haiku-5-5'
    >>> resolve_model("inherit", parent="claude-opus-5-5")
    'claude-opus-5-5'
    >>> resolve_model("my-local-model")
    'my-local-model'
    """
    # ``table`` is config's overrides (or a full table): merged over the defaults either way,
    # so overriding one alias does not make the others unknown.
    aliases = alias_table(table)
    requested = (alias_or_id or "").strip()
    if not requested or requested.lower() == INHERIT:
        if parent and parent.strip() and parent.strip().lower() != INHERIT:
            return _lookup(parent, aliases)
        return _lookup(aliases.get("default", DEFAULT_ALIASES["default"]), aliases)
    return _lookup(requested, aliases)


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The model a run uses, which level decided it, and what that level asked for."""

    model: str
    source: ModelSource
    requested: str


def choose_model(
    *,
    call: str | None = None,
    frontmatter: str | None = None,
    parent: str | None = None,
    table: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ModelChoice:
    """Apply the precedence chain: env > per-call > frontmatter > parent > default.

    ``environ`` defaults to :data:`os.environ` (pass ``{}`` to ignore the environment).
    """
    env = os.environ if environ is None else environ
    levels: tuple[tuple[ModelSource, str | None], ...] = (
        ("env", env.get(ENV_SUBAGENT_MODEL)),
        ("call", call),
        ("frontmatter", frontmatter),
        ("parent", parent),
    )
    for source, value in levels:
        if value is not None and value.strip() and value.strip().lower() != INHERIT:
            return ModelChoice(resolve_model(value, table=table), source, value.strip())
    return ModelChoice(resolve_model(None, table=table), "default", "")


def effective_model(
    *,
    call: str | None = None,
    frontmatter: str | None = None,
    parent: str | None = None,
    table: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The model id :func:`choose_model` picks."""
    return choose_model(
        call=call, frontmatter=frontmatter, parent=parent, table=table, environ=environ
    ).model
