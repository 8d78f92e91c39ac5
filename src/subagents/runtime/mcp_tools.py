"""Agent-scoped MCP servers: started when the agent activates, stopped when it finishes.

An agent's ``mcpServers`` are started for that agent only
(never leaked to the parent), their tools offered as ``mcp__<server>__<tool>`` (Claude Code's
naming, so ``tools: mcp__github__*`` allowlists work), and the servers stopped when the run ends
— also when it fails or is interrupted, because :class:`McpServerPool` is an async context
manager wrapping one :class:`contextlib.AsyncExitStack`.

* ``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``env``, ``url`` and ``headers`` are
  substituted from the process environment at start time; an unset variable with no
  default is an error for that server, named in the warning — never the secret's value.
* stdio servers (``command``) start in the agent's working folder; http servers (``url``) are
  reached with the MCP SDK's Streamable HTTP client.
* A server that fails to start (or to list its tools within ``startup_timeout``) is skipped with
  a warning and the agent runs without its tools: one broken server must not kill the run.
* A server only *named* in the frontmatter (``mcpServers: [github]``) refers to configuration
  elsewhere (Claude Code's settings); ``configured`` maps such names to their specs.
* Tools are read-only (need no permission, may run in plan mode) only when configuration
  lists them (``read_only``, from ``mcp-read-only``): a server's ``readOnlyHint`` is its own
  claim, not a permission (a warning says it was not taken).

The ``mcp`` SDK is imported lazily: agents without MCP servers never pay for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from subagents.definition import McpServerSpec
from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput
from subagents.terminal import safe

__all__ = ["McpServerPool", "McpTool", "expand_env", "mcp_tool_name"]

_VAR_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_NAME_SAFE_RE = re.compile(r"[^A-Za-z0-9_-]")


class _UnsetVariable(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def expand_env(value: str, environ: Mapping[str, str]) -> str:
    """Substitute ``${VAR}`` / ``${VAR:-default}``; raise for an unset variable without default."""

    def repl(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise _UnsetVariable(name)

    return _VAR_RE.sub(repl, value)


def mcp_tool_name(server: str, tool: str) -> str:
    """``mcp__server__tool`` with characters the model APIs reject replaced by ``_``."""
    return f"mcp__{_NAME_SAFE_RE.sub('_', server)}__{_NAME_SAFE_RE.sub('_', tool)}"


class McpTool(Tool):
    """One tool of a running MCP server: an instance per tool, with its name and schema."""

    def __init__(self, *, name: str, description: str, input_schema: Mapping[str, Any],
                 read_only: bool, server_name: str, remote_name: str, client: Any) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema
        self.read_only = read_only
        self.server_name = server_name
        self.remote_name = remote_name
        self.client = client

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            result = await self.client.call_tool(self.remote_name, dict(input))
        except Exception as exc:  # any transport or server failure is a tool error, not a crash
            return ToolOutput.error(f"MCP server {self.server_name!r} failed: {exc}")
        return ToolOutput(_result_text(result), is_error=bool(getattr(result, "is_error", False)))


def _result_text(result: Any) -> str:
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            kind = getattr(block, "type", type(block).__name__)
            parts.append(f"[{kind} content]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        import json

        parts.append(json.dumps(structured, default=str))
    return "\n".join(parts)


class McpServerPool:
    """Start an agent's MCP servers; expose their tools; stop them on exit.

    ::

        async with McpServerPool(agent.mcp_servers, cwd=cwd) as pool:
            tools = pool.tools          # list[McpTool], named mcp__server__tool
            ...                          # run the agent
        # every server is stopped here, even after an error or Ctrl-C
    """

    def __init__(
        self,
        servers: Sequence[McpServerSpec],
        *,
        cwd: os.PathLike[str] | str | None = None,
        environ: Mapping[str, str] | None = None,
        configured: Mapping[str, McpServerSpec] | None = None,
        startup_timeout: float = 30.0,
        read_only: Iterable[str] = (),
    ) -> None:
        self.servers = tuple(servers)
        #: tools (``mcp__server__tool``, or ``mcp__server__*``) that configuration declares
        #: read-only; a server's own ``readOnlyHint`` is a claim, not a permission
        self.read_only = tuple(read_only)
        self.cwd = cwd
        self.environ = dict(os.environ if environ is None else environ)
        self.configured = dict(configured or {})
        self.startup_timeout = startup_timeout
        self.tools: list[McpTool] = []
        self.warnings: list[str] = []
        self.started: list[str] = []
        self._stack: contextlib.AsyncExitStack | None = None

    async def __aenter__(self) -> McpServerPool:
        self._stack = contextlib.AsyncExitStack()
        await self._stack.__aenter__()
        for declared in self.servers:
            spec = declared
            if declared.reference:
                if declared.name not in self.configured:
                    self.warnings.append(
                        f"MCP server {declared.name!r} is only named; no configuration for "
                        "it was given, so its tools are not available"
                    )
                    continue
                spec = self.configured[declared.name]
            try:
                # asyncio.timeout, not wait_for: the client must be entered in *this* task,
                # because anyio cancel scopes must be exited by the task that entered them.
                async with asyncio.timeout(self.startup_timeout):
                    await self._start(spec)
            except _UnsetVariable as exc:
                self.warnings.append(
                    f"MCP server {spec.name!r} not started: environment variable "
                    f"${{{exc.name}}} is not set"
                )
            except TimeoutError:
                self.warnings.append(
                    f"MCP server {spec.name!r} did not start within {self.startup_timeout:g}s"
                )
            except Exception as exc:  # a broken server must not stop the agent
                self.warnings.append(f"MCP server {spec.name!r} failed to start: {exc}")
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            with contextlib.suppress(Exception):
                await stack.__aexit__(*exc_info)

    async def _start(self, spec: McpServerSpec) -> None:
        try:
            from mcp import Client, StdioServerParameters  # lazy: the SDK is heavy
        except ImportError as exc:
            from subagents._deps import missing_dependency

            raise missing_dependency(exc, "an agent's mcpServers") from None

        assert self._stack is not None
        env = self.environ
        if spec.command:
            params = StdioServerParameters(
                command=expand_env(spec.command, env),
                args=[expand_env(a, env) for a in spec.args],
                env={k: expand_env(v, env) for k, v in spec.env.items()},
                cwd=str(self.cwd) if self.cwd is not None else None,
            )
            target: Any = params
        elif spec.url:
            target = expand_env(spec.url, env)
            if spec.headers:
                self.warnings.append(
                    f"MCP server {spec.name!r}: custom headers are not sent by this client yet"
                )
        else:
            self.warnings.append(f"MCP server {spec.name!r} has neither `command` nor `url`")
            return
        client = Client(target)
        # Enter in a child stack first so a failure during start-up closes what it opened.
        async with contextlib.AsyncExitStack() as attempt:
            await attempt.enter_async_context(client)
            listing = await client.list_tools()
            self._stack.push_async_exit(attempt.pop_all())
        self.started.append(spec.name)
        for remote in listing.tools:
            annotations = getattr(remote, "annotations", None)
            claimed = bool(getattr(annotations, "read_only_hint", False))
            full_name = mcp_tool_name(spec.name, remote.name)
            read_only = any(fnmatch.fnmatchcase(full_name, p) for p in self.read_only)
            if claimed and not read_only:
                self.warnings.append(
                    f"MCP tool {safe(full_name, one_line=True)} says it is read-only; it still "
                    "needs permission (list it in mcp-read-only in your config to treat it as "
                    "read-only)")
            tool = McpTool(
                name=full_name,
                # a server's words reach warnings, listings and the terminal: escaped once here
                description=safe(remote.description or f"{remote.name} (MCP: {spec.name})"),
                input_schema=dict(remote.input_schema or {"type": "object"}),
                read_only=read_only, server_name=spec.name, remote_name=remote.name,
                client=client,
            )
            self.tools.append(tool)
