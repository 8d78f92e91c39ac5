"""SA5xx: rules of one dialect - Codex and agents.json.

Design notes
------------
* Codex: ``name`` must match ``[a-z][a-z0-9_-]{2,63}``; empty strings and duplicates in
  ``tools`` and ``keywords`` are rejected.  Empty instructions are
  the common ``SA114``.
* agents.json: a name must match ``[a-z0-9_-]+``; description and prompt non-empty
  are the common ``SA103``/``SA114``; ``model`` outside ``sonnet|opus|haiku|inherit`` is a
  warning by default (the Agent SDK accepts full ids) and an error under ``--strict``.
"""

from __future__ import annotations

from collections.abc import Iterator

from subagents.definition import AgentDefinition
from subagents.definition import Dialect as D
from subagents.diagnostics import Diagnostic
from subagents.lint.rules.base import DefinitionRule, RuleContext, applies
from subagents.lint.rules.catalog import check
from subagents.lint.rules.fields import is_valid_model
from subagents.names import CODEX_NAME, JSON_NAME

__all__ = ["RULES"]

_SEED_MODELS = ("sonnet", "opus", "haiku", "inherit")


@applies(only=(D.CODEX_MD,))
@check("SA501", "SA502", "SA503")
def check_codex(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.dialect is not D.CODEX_MD:
        return
    if defn.name.strip() and not CODEX_NAME.matches(defn.name):
        yield ctx.diag(
            "SA501",
            ctx.value_pos(defn, "name"),
            f"`name` {defn.name!r} does not match `{CODEX_NAME.pattern}` (Codex)",
            f"use {CODEX_NAME.rule}",
        )
    for key in ("tools", "keywords"):
        entries = getattr(defn, key) or ()
        seen: set[str] = set()
        for i, entry in enumerate(entries):
            if not entry.strip():
                yield ctx.diag("SA502", ctx.item_pos(defn, key, i, entry),
                               f"`{key}` holds an empty string", "remove the empty entry")
            elif entry in seen:
                yield ctx.diag("SA503", ctx.item_pos(defn, key, i, entry),
                               f"`{key}` lists {entry!r} twice", "remove the duplicate")
            seen.add(entry)


@applies(only=(D.JSON,))
@check("SA504", "SA505")
def check_json(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.dialect is not D.JSON:
        return
    if not JSON_NAME.matches(defn.name):
        yield ctx.diag(
            "SA504",
            ctx.fallback_pos(defn),
            f"agent name {defn.name!r} does not match `{JSON_NAME.pattern}` (agents.json)",
            f"use {JSON_NAME.rule}",
        )
    # a model that is not even a valid alias or id is SA105's error; this warning is for a
    # valid full id that NanoClaw's agents.json does not allow
    if (defn.model is not None and defn.model not in _SEED_MODELS
            and is_valid_model(defn.model, ctx.config.model_aliases)):
        yield ctx.diag(
            "SA505",
            ctx.value_pos(defn, "model"),
            f"`model` {defn.model!r} is not one of {', '.join(_SEED_MODELS)} (agents.json)",
            "agents.json writers accept only the aliases",
        )


RULES: tuple[DefinitionRule, ...] = (check_codex, check_json)
