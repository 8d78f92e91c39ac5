"""An MCP stdio server that manages ``agents.json`` stores.

Tools: ``define_agent``, ``remove_agent``, ``list_agents`` as NanoClaw names them, plus
``validate_agent`` (the write-time checks and the reader's rules, without writing).  Started by
``subagents serve-mcp --global-dir DIR --group-dir DIR [--main]``.

Design decisions
----------------
* Built on the official ``mcp`` SDK 2.x (``mcp.server.mcpserver.MCPServer``), imported lazily
  so that the rest of the CLI never pays for it.  Each tool is a plain function; the SDK runs
  sync tools in a worker thread, so a write waiting for the store lock never blocks the
  event loop, and a client that disconnects mid-call cannot interrupt a write half-way (the
  write is atomic anyway: the store is either before or after it).
* Every expected failure (validation, scope refused, corrupt store, lock timeout, unknown
  name) becomes the SDK's ``ToolError``: the client receives ``isError: true`` and a message
  that says what, where and how to fix.  Anything else is a bug and the SDK reports it
  generically.
* Arguments the input schema refuses (``tools`` given as a string, a missing ``prompt``, an
  unknown ``scope``) are refused by the SDK before a tool runs, with pydantic's raw text
  (internal class names, documentation URLs).  A small ``MCPServer`` subclass rewrites those
  refusals only, into "tools must be a list of tool names such as [...], not str"; every
  other error passes through untouched.
* ``scope`` defaults to ``group`` for writes and ``all`` for ``list_agents``; ``global`` writes
  are refused unless the server was started with ``--main`` (as in NanoClaw: the global store is
  read-only for the other groups).  Reading global is always allowed.
* Results are JSON objects (structured content), so a model can read them and a program can
  rely on them: ``define_agent``/``remove_agent`` return what changed, the file, and the
  lock wait in milliseconds; ``list_agents`` returns each entry with its ``source``
  (``group``/``global``) and whether it ``overrides_global`` / is ``overridden_by_group``,
  plus a short human summary.
* A client that disconnects (stdin closed, stdout a broken pipe) ends the server with exit
  status 0: calls already running finish their atomic write first (the SDK's worker threads
  are not abandoned), so the store is never left half-written.
* ``force`` (back up a corrupt store and start afresh) is deliberately *not* offered over MCP:
  a model should not be able to discard a hand-written file it cannot read.  The error tells
  the user how to do it from the command line.
* Changes take effect on the next start of the agent runtime, and the results say
  so, so the model can tell the user.
* A request holding a lone surrogate escape (``"\\udc80"``) is valid JSON text that the SDK's
  parser refuses, and it then never answers that request: the client waits forever.  Such
  lines are re-encoded with U+FFFD in place of the lone surrogates before the SDK reads them
  (:func:`_mend_surrogates`, fed through a pipe in place of stdin), so every request is
  answered.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import SubagentError
from subagents.store.core import AgentStore, validate_entry

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["SERVER_NAME", "build_server", "serve_stdio"]

SERVER_NAME = "subagents"
_LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

# Argument types with the descriptions the client's model sees in the tool's input schema.
# (This module is imported only by `serve-mcp`, so pydantic, which mcp needs anyway, is cheap.)
NameArg = Annotated[str, Field(description="Agent name: a-z, 0-9, _ and - only, e.g. fact-checker")]
DescriptionArg = Annotated[str, Field(description="When the orchestrator should use this agent")]
PromptArg = Annotated[str, Field(description="The agent's system prompt")]
ToolsArg = Annotated[
    list[str] | None,
    Field(description='Allowed tools, e.g. ["WebSearch", "WebFetch"]; omit to inherit all'),
]
ModelArg = Annotated[
    str | None,
    Field(
        description="sonnet | opus | haiku | inherit, or a full Claude model id such as "
        "claude-sonnet-4-5; omit to inherit"
    ),
]
WriteScopeArg = Annotated[
    Literal["group", "global"],
    Field(description="group (this group only) or global (all groups; main group only)"),
]
ListScopeArg = Annotated[Literal["all", "group", "global"], Field(description="Which file(s)")]

_INSTRUCTIONS = (
    "Manage this group's subagent definitions (agents.json). define_agent adds or replaces one, "
    "remove_agent deletes one, list_agents shows what is defined and where, validate_agent "
    "checks a definition without writing. Changes take effect from the next session."
)


def _tool_error(exc: SubagentError) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(str(exc))


# What each argument should look like, for refusals of arguments the schema rejects.
_ARG_SHAPES = {
    "name": 'a string such as "fact-checker" (a-z, 0-9, _ and - only)',
    "description": "a non-empty string saying when the orchestrator should use the agent",
    "prompt": "a non-empty string: the agent's system prompt",
    "tools": 'a list of tool names such as ["WebSearch", "WebFetch"] (omit it to inherit all)',
    "model": "a string: sonnet, opus, haiku, inherit or a full model id (omit it to inherit)",
    "scope": None,  # the schema's own message lists the allowed values
}


def _argument_problems(tool: str, errors: list[Any]) -> str:
    """Pydantic's argument errors as one short paragraph a model can act on.

    The SDK's default text names pydantic's internal model class and ends every line with
    a documentation URL; this keeps the field, what was wrong and what is expected.
    """
    parts: list[str] = []
    for err in errors:
        field = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        top = field.split(".", 1)[0]
        kind = str(err.get("type", ""))
        if kind == "missing":
            what = "is required"
        elif kind == "literal_error" or top not in _ARG_SHAPES or _ARG_SHAPES[top] is None:
            what = f"is invalid: {err.get('msg', 'bad value')}"
        else:
            given = type(err.get("input")).__name__
            what = f"must be {_ARG_SHAPES[top]}, not {'null' if given == 'NoneType' else given}"
        line = f"{field} {what}"
        if line not in parts:
            parts.append(line)
    done = ", nothing was written" if tool in ("define_agent", "remove_agent") else ""
    return f"Error executing tool {tool}: bad arguments{done}: " + "; ".join(parts)


def _reader_diagnostics(name: str, entry: dict[str, Any], path: str) -> list[Diagnostic]:
    """The reader's and rules' view of one entry, when the loader is available."""
    try:
        from subagents.definition import Dialect
        from subagents.harnesses.loader import parse_agent_text
    except ImportError:  # pragma: no cover - the loader ships with the package
        return []
    result = parse_agent_text(json.dumps({name: entry}), path=path, dialect=Dialect.JSON)
    return list(result.diagnostics)


def _server_class() -> type[MCPServer]:
    """``MCPServer`` whose argument-validation refusals read well (see the module notes)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    class _Server(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                    raise
                # ``from cause``: the SDK logs only the field names of a ValidationError.
                raise ToolError(_argument_problems(name, list(cause.errors()))) from cause

    return _Server


def build_server(store: AgentStore, *, log_level: _LogLevel = "WARNING") -> MCPServer:
    """An ``MCPServer`` with the four tools bound to ``store``."""
    # WARNING: stderr is the host's log; a refused call is not worth a line in it.
    server = _server_class()(SERVER_NAME, instructions=_INSTRUCTIONS, log_level=log_level)

    @server.tool()
    def define_agent(
        name: NameArg,
        description: DescriptionArg,
        prompt: PromptArg,
        tools: ToolsArg = None,
        model: ModelArg = None,
        scope: WriteScopeArg = "group",
    ) -> dict[str, Any]:
        """Define (add or replace) a subagent in agents.json; it is available from the next session.

        name: lower-case letters, digits, _ and - only (e.g. "fact-checker").
        description: when the orchestrator should use this agent.
        prompt: the agent's system prompt.
        tools: allowed tool names, e.g. ["WebSearch", "WebFetch"]; omit to inherit all tools.
        model: sonnet | opus | haiku | inherit, or a full Claude model id; omit to inherit.
        scope: "group" (default, this group only) or "global" (every group; main group only).
        """
        try:
            result = store.define(name, description, prompt, tools=tools, model=model, scope=scope)
        except SubagentError as exc:
            raise _tool_error(exc) from None
        out = result.to_dict()
        out["message"] = (
            f"{name!r} {result.action} in the {scope} agents.json; available from the next session."
        )
        return out

    @server.tool()
    def remove_agent(name: NameArg, scope: WriteScopeArg = "group") -> dict[str, Any]:
        """Remove a subagent from agents.json.

        scope: "group" (default) or "global" (main group only).
        """
        try:
            result = store.remove(name, scope=scope)
        except SubagentError as exc:
            raise _tool_error(exc) from None
        out = result.to_dict()
        out["message"] = f"{name!r} removed from the {scope} agents.json."
        return out

    @server.tool()
    def list_agents(scope: ListScopeArg = "all") -> dict[str, Any]:
        """List subagent definitions with their source and whether the group overrides global.

        scope: "all" (default), "group" or "global".
        """
        try:
            listing = store.list(scope)
        except SubagentError as exc:
            raise _tool_error(exc) from None
        lines: list[str] = []
        for agent in listing.agents:
            note = ""
            if agent.overrides:
                note = " (overrides global)"
            elif agent.overridden:
                note = " (overridden by group)"
            if agent.problems:
                note += " [invalid: " + "; ".join(agent.problems) + "]"
            desc = agent.to_dict()["description"] or ""
            lines.append(f"- {agent.name} [{agent.scope}]{note}: {str(desc)[:120]}")
        lines.extend(f"! {e}" for e in listing.errors)
        out = listing.to_dict()
        out["scope"] = scope
        out["can_write_global"] = store.main  # so the model knows before it tries
        out["summary"] = "\n".join(lines) if lines else "no agents defined"
        return out

    @server.tool()
    def validate_agent(
        name: NameArg,
        description: DescriptionArg,
        prompt: PromptArg,
        tools: ToolsArg = None,
        model: ModelArg = None,
    ) -> dict[str, Any]:
        """Check a definition without writing it; returns every diagnostic (errors and warnings)."""
        path = "<define_agent>"
        diagnostics = validate_entry(name, description, prompt, tools, model, path=path)
        if not any(d.severity is Severity.ERROR for d in diagnostics):
            entry: dict[str, Any] = {"description": description, "prompt": prompt}
            if tools is not None:
                entry["tools"] = tools
            if model is not None:
                entry["model"] = model
            seen = {(d.rule, d.message) for d in diagnostics}
            diagnostics += [
                d for d in _reader_diagnostics(name, entry, path) if (d.rule, d.message) not in seen
            ]
        ok = not any(d.severity is Severity.ERROR for d in diagnostics)
        return {"ok": ok, "diagnostics": [d.to_dict() for d in diagnostics]}

    del define_agent, remove_agent, list_agents, validate_agent  # registered; keep no names
    return server


def serve_stdio(store: AgentStore, *, log_level: _LogLevel = "WARNING") -> None:
    """Serve ``store`` over stdin/stdout until the client disconnects."""
    import anyio

    # Pay the validators' imports before answering `initialize`, not in the first call.
    import subagents.lint.rules.fields  # noqa: F401

    server = build_server(store, log_level=log_level)
    _mend_stdin()
    try:
        anyio.run(server.run_stdio_async)
    except* (BrokenPipeError, ConnectionResetError):
        # The client went away while we were answering: a normal end for a stdio server.
        # Any write already running finished in its worker thread (atomic: the store is
        # before or after it).  Point stdout at /dev/null so the interpreter's final flush
        # does not raise again on the dead pipe.
        _silence_stdout()


def _mend_surrogates(line: bytes) -> bytes:
    """``line`` with every lone surrogate in its JSON strings replaced by U+FFFD (a line
    without a ``\\u`` escape, or one that is not JSON, is passed on as it is)."""
    if b"\\u" not in line and b"\\U" not in line:
        return line
    try:
        value = json.loads(line)
    except ValueError:
        return line

    def mend(v: Any) -> Any:
        if isinstance(v, str):
            return v.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        if isinstance(v, list):
            return [mend(x) for x in v]
        if isinstance(v, dict):
            return {mend(k): mend(x) for k, x in v.items()}
        return v

    return json.dumps(mend(value), ensure_ascii=False).encode("utf-8") + b"\n"


def _mend_stdin() -> None:
    """Put a pipe in place of fd 0, fed line by line from the real stdin through
    :func:`_mend_surrogates` by a daemon thread (EOF is passed on)."""
    import os
    import threading

    real = os.fdopen(os.dup(0), "rb", buffering=0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump() -> None:
        with open(write_end, "wb", buffering=0) as out:
            try:
                for line in iter(real.readline, b""):
                    out.write(_mend_surrogates(line))
            except OSError:  # the server stopped reading
                pass

    threading.Thread(target=pump, name="mcp-stdin", daemon=True).start()


def _silence_stdout() -> None:
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
