"""The :class:`~subagents.definition.AgentDefinition` Claude Code would run from one file.

The registry (and with it ``list``, ``show``, ``run``, ``route`` and the Task tool) builds its
Claude agents here, from :class:`~subagents.claude_code.reader.ClaudeCodeView`, so every value is
the one Claude Code uses: the last of two duplicate keys, the description with ``\\n`` turned into
newlines, ``tools`` split as Claude Code splits them (``()`` when it runs the agent with no tools
at all), the model trimmed, and every field Claude Code ignores left out (a ``maxTurns: ten`` is
no limit, a ``permissionMode: banana`` is the default mode, a ``mcpServers`` mapping is no
server). Positions come from the strict reader when it could read the file, so diagnostics
still point at lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from subagents.claude_code.launch import server_config
from subagents.claude_code.reader import ClaudeCodeView, _positive_int
from subagents.definition import (
    AgentDefinition,
    Dialect,
    McpServerSpec,
    SourceLocation,
    fields_setter,
)
from subagents.formats.fields import RawField, build_definition

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["definition_from_view"]


def definition_from_view(
    view: ClaudeCodeView,
    *,
    path: Path | None,
    locations: Mapping[str, SourceLocation] | None = None,
    body_line: int | None = None,
    include_body: bool = True,
    strict: AgentDefinition | None = None,
) -> AgentDefinition:
    """The definition Claude Code runs; ``view`` must be ``loaded``.

    ``strict``: the strict reader's definition of the same file.  When the view shares its
    parse (``view.shared_parse``), the fields Claude Code does not judge are taken from it
    instead of being built a second time; every field it judges is set from the view below.
    """
    if not view.loaded or view.name is None or view.description is None:
        raise ValueError("definition_from_view() needs a view of a file Claude Code loads")
    fm = view.frontmatter
    profile = view.profile
    if strict is not None:  # positions from the strict reading of the same file
        if view.shared_parse and locations is None:
            # the strict definition's own mapping of positions, not a copy: a definition is
            # not changed once built (the two share ``extra`` too)
            return _judged(view, strict, strict.locations,
                           view.body if include_body else "", strict.extra)
        locations = strict.locations if locations is None else locations
        body_line = strict.body_line if body_line is None else body_line
    locs = dict(locations or {})
    if strict is not None and view.shared_parse:
        return _judged(view, strict, locs, view.body if include_body else "", strict.extra)
    raw = [
        RawField(key, value, locs.get(key))
        for key, value in fm.items()
        if (key in profile.known_keys or key in _OUR_METADATA) and key not in _TAKEN_FROM_VIEW
    ]
    extra = {
        key: value
        for key, value in fm.items()
        if key not in profile.known_keys and key not in _OUR_METADATA
    }
    defn, _issues = build_definition(
        raw,
        dialect=Dialect.CLAUDE,
        path=path,
        system_prompt=view.body if include_body else "",
        body_line=body_line,
    )
    return _judged(view, defn, locs, defn.system_prompt, extra)


#: The fields :func:`_judged` sets, in the order it gives their values.
_set_judged = fields_setter((
    "name", "description", "model", "tools", "disallowed_tools", "max_turns", "permission_mode",
    "background", "memory", "isolation", "effort", "color", "hooks", "mcp_servers", "skills",
    "initial_prompt", "locations", "system_prompt", "extra"))
#: The frontmatter keys :func:`_judged` reads (beyond what the view says): without any of
#: them, each of their fields is unset (None, or empty).
_READ_BY_JUDGED = frozenset({
    "maxTurns", "permissionMode", "background", "memory", "isolation", "effort", "color",
    "hooks", "mcpServers", "skills", "initialPrompt"})


def _judged(
    view: ClaudeCodeView,
    defn: AgentDefinition,
    locs: Mapping[str, SourceLocation],
    system_prompt: str,
    extra: Mapping[str, Any],
) -> AgentDefinition:
    """Every field Claude Code judges, set to what it makes of the frontmatter, and the
    prompt and unknown keys given."""
    fm = view.frontmatter
    profile = view.profile
    assert view.name is not None and view.description is not None
    judged: tuple[Any, ...]
    if _READ_BY_JUDGED.isdisjoint(fm):  # (most files: name, description, model, tools)
        # every field those keys set, unset (a new empty hooks mapping for each definition)
        judged = (None, None, None, None, None, None, None, {}, (), (), None)
    else:
        # (a plugin's agent has no hooks even when the strict reading found some)
        hooks = {k: v for k, v in defn.hooks.items() if k in profile.hook_events} if (
            "hooks" in fm) else {}
        # a list only, item by item: an item that is not a server is dropped (2.1.332)
        listed = fm.get("mcpServers")
        servers = tuple(s for s in map(_listed_server, listed) if s is not None) if (
            isinstance(listed, list)) else ()
        prompt = fm.get("initialPrompt")
        judged = (
            _positive_int(fm.get("maxTurns")),
            _valid(fm.get("permissionMode"), profile.permission_modes),
            True if fm.get("background") in (True, "true") else None,
            _valid(fm.get("memory"), profile.memories),
            _valid(fm.get("isolation"), profile.isolations),
            _effort(fm.get("effort"), profile.efforts),
            _valid(fm.get("color"), profile.colors),
            hooks,
            servers,
            defn.skills if "skills" in fm else (),
            prompt if isinstance(prompt, str) and prompt.strip() else None,
        )
    return _set_judged(defn, view.name, view.description, view.model, view.tools,
                       view.disallowed_tools, *judged, locs or defn.locations, system_prompt,
                       extra)


# Fields whose value comes from the view (Claude Code's own reading), not from build_definition.
_TAKEN_FROM_VIEW = frozenset(
    {
        "name",
        "description",
        "model",
        "tools",
        "disallowedTools",
        "maxTurns",
        "permissionMode",
        "background",
        "memory",
        "isolation",
        "effort",
        "color",
    }
)


# Keys Claude Code ignores but subagents uses (routing keywords, catalogue metadata); reading
# them changes nothing Claude Code does.
_OUR_METADATA = frozenset({"keywords", "version", "author", "tags", "created", "modified"})


def _listed_server(item: Any) -> McpServerSpec | None:
    """A ``mcpServers`` item; a ``name: {config}`` item that cannot start (no ``command`` or
    ``url`` string) is kept without either, so SA111 can point at it; nothing starts it."""
    spec = server_config(item)
    if spec is None and isinstance(item, dict) and len(item) == 1:
        ((name, config),) = item.items()
        if isinstance(config, dict):
            return McpServerSpec(name=str(name), extra=dict(config))
    return spec


def _valid(value: Any, allowed: tuple[str, ...]) -> str | None:
    return value if isinstance(value, str) and value in allowed else None


def _effort(value: Any, allowed: tuple[str, ...]) -> str | None:
    if isinstance(value, str) and value.lower() in allowed:
        return value.lower()
    return None
