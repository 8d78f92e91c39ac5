"""``subagents serve-mcp``: the agents.json MCP server over stdio.

stdout carries the MCP protocol, so this command prints nothing there itself; problems go to
stderr.  The ``mcp`` package is imported only when the server starts.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

__all__ = ["serve_mcp"]


@click.command("serve-mcp")
@click.option(
    "--group-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="SUBAGENTS_GROUP_DIR",
    required=True,
    help="Folder of this group's agents.json (read-write) [env: SUBAGENTS_GROUP_DIR].",
)
@click.option(
    "--global-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="SUBAGENTS_GLOBAL_DIR",
    default=None,
    help="Folder of the global agents.json (read-only unless --main) [env: SUBAGENTS_GLOBAL_DIR].",
)
@click.option(
    "--main",
    "is_main",
    is_flag=True,
    help="This is the main group: allow scope 'global' in define_agent / remove_agent.",
)
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0.0),
    default=10.0,
    show_default=True,
    help="Seconds a write waits for another writer's lock before failing.",
)
@click.option(
    "--log-level",
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"]),
    default="WARNING",
    show_default=True,
    help="Server log level (logs go to stderr).",
)
def serve_mcp(
    group_dir: Path,
    global_dir: Path | None,
    is_main: bool,
    lock_timeout: float,
    log_level: str,
) -> None:
    """Serve define_agent / remove_agent / list_agents / validate_agent over MCP stdio.

    \b
    Claude Code:  claude mcp add subagents -- subagents serve-mcp --group-dir /workspace/group \\
                      --global-dir /workspace/global
    Tools write agents.json atomically under a lock; changes take effect on the next session.
    """
    from subagents._deps import require

    require("mcp", "`subagents serve-mcp`")
    require("pydantic", "`subagents serve-mcp`")
    from subagents.store.core import AgentStore
    from subagents.store.mcp_server import serve_stdio

    store = AgentStore(global_dir, group_dir, main=is_main, lock_timeout=lock_timeout)
    # Ctrl-C from the host is a clean exit: the store is consistent after every call.
    with contextlib.suppress(KeyboardInterrupt):
        serve_stdio(store, log_level=log_level)  # type: ignore[arg-type]
