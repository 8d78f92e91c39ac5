"""What Claude Code gives an agent when it launches it, beyond the file's own fields.

Measured on 2.1.332 (recorded cases ``mcp-*``, ``hooks-untrusted``, ``plugin-ignored-fields``,
``field-effort-values``):

* **MCP servers.** Only a ``mcpServers`` *list* starts servers.  An item is a server's name
  (looked up in ``~/.claude.json`` ``mcpServers``) or a one-key mapping ``name: {config}``
  whose config has a ``command`` or a ``url`` string; any other item is dropped.  Nothing starts
  for a plugin agent, nor for a project agent in a folder the user has not trusted.
* **Effort.** A valid effort (any case) is sent lower-cased as ``output_config.effort``; no
  effort sends ``medium``; a number sends no ``output_config`` at all.

Design decision: pure functions of the definition and the two folders, so ``subagents run``,
the conformance comparison and ``doctor`` can share them; nothing is started here.
"""

from __future__ import annotations

import json
from pathlib import Path

from subagents.claude_code.trust import folder_trusted
from subagents.definition import AgentDefinition, McpServerSpec, Scope

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFAULT_EFFORT", "effort_sent", "server_config", "servers_started"]

DEFAULT_EFFORT = "medium"


def server_config(item: Any) -> McpServerSpec | None:
    """One ``mcpServers`` list item as Claude Code takes it, or None when it drops it."""
    if isinstance(item, str):
        return McpServerSpec(name=item, reference=True) if item.strip() else None
    if not (isinstance(item, dict) and len(item) == 1):
        return None
    ((name, config),) = item.items()
    if not isinstance(config, dict):
        return None
    command, url = config.get("command"), config.get("url")
    if not (isinstance(command, str) or isinstance(url, str)):
        return None
    args = config.get("args")
    if args is not None and not (isinstance(args, list) and all(isinstance(a, str)
                                                                for a in args)):
        return None
    env = config.get("env")
    headers = config.get("headers")
    known = {"command", "args", "env", "url", "type", "headers"}
    return McpServerSpec(
        name=str(name),
        command=command if isinstance(command, str) else None,
        args=tuple(args or ()),
        env={str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {},
        url=url if isinstance(url, str) else None,
        type=config.get("type") if isinstance(config.get("type"), str) else None,
        headers={str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict)
        else {},
        extra={k: v for k, v in config.items() if k not in known},
    )


def _user_servers(home: Path) -> set[str]:
    try:
        data = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return {str(k) for k in servers} if isinstance(servers, dict) else set()


def servers_started(defn: AgentDefinition, *, cwd: Path, home: Path) -> tuple[str, ...]:
    """The names of the MCP servers Claude Code connects for this agent when it launches it."""
    if defn.plugin or not defn.mcp_servers:
        return ()
    if defn.source is Scope.PROJECT and not folder_trusted(cwd, home):
        return ()
    known = _user_servers(home)
    return tuple(s.name for s in defn.mcp_servers
                 if s.command or s.url or (s.reference and s.name in known))


def effort_sent(value: Any, efforts: tuple[str, ...]) -> str | None:
    """The ``output_config.effort`` a launch sends for the file's ``effort`` value (None: the
    request has no ``output_config``)."""
    if value is None:
        return DEFAULT_EFFORT
    if isinstance(value, bool):
        return DEFAULT_EFFORT
    if isinstance(value, int | float):
        return None
    if isinstance(value, str) and value.lower() in efforts:
        return value.lower()
    return DEFAULT_EFFORT
