"""Read one run's raw output: the active agents, the listing, the debug lines, the spawns.

Three sources, as measured for Claude Code 2.1.330:

1. the ``initialize`` control response lists every active agent as {name, description, model};
2. the main thread's first API request carries the listing the model sees, after
   ``Available agent types for the Agent tool:`` (older builds put it in the Agent tool's
   description after ``Available agent types and the tools they have access to:``), one
   ``- NAME: DESCRIPTION (Tools: TOOLS)`` entry per agent; a description may span lines, so the
   known names from (1) mark where entries start;
3. the ``--debug-file`` log: lines that name a file under an agents folder, ``[agents]`` lines
   (duplicates) and ``Agent '...'`` lines.

Each launched subagent's own request (its first user message holds ``SPAWN-SUB name=NAME``)
gives the model id, the tool names and the system prompt; a refused launch shows up as the
tool result of the main thread's ``Agent`` call.

Paths are made relative: ``<project>/.claude/agents/REL`` -> ``project/REL``,
``<home>/.claude/agents/REL`` -> ``user/REL``, then any other project or home path ->
``<project>`` / ``~`` (so a nested folder's file is ``<project>/sub/.claude/agents/REL``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from subagents.conformance.harness import RunOutput
from subagents.conformance.model import BuiltinAgent, LoadedAgent, SpawnResult
from subagents.testing.server import SPAWN_MAIN_MARKER, SPAWN_SUB_MARKER

__all__ = ["ListingEntry", "RunFacts", "extract", "parse_listing", "subagent_body"]

LISTING_HEADERS = ("Available agent types for the Agent tool:",
                   "Available agent types and the tools they have access to:")
_LISTING_END = "\n\nWhen you launch multiple agents"
_LOG_PREFIX = re.compile(r"^\S+ \[(\w+)\] ")
_AGENT_LINE = re.compile(r"\[agents\]|^Agent '|^Agent file |agent file", re.I)
# plugin agents, frontmatter MCP servers and hooks, skills (first recorded on 2.1.332); lines
# with timings ("connected in 134ms") are left out so a recording stays the same run to run
_SCOPE_LINE = re.compile(
    r"agents from plugin|plugin agents loaded: [1-9]|ignored for plugin|is not auto-loaded|"
    r"^\[Agent: [^\]]*\] Connected to MCP server|Skipping frontmatter|"
    r"specified in frontmatter|frontmatter MCP|mcpServers", re.I)
_MCP_NAME = re.compile(r"mcp__[A-Za-z0-9_-]+")
_NOISE = ("Failed to stat directory",)
_BODY_END = "Messages from the agent that launched you"


@dataclass(frozen=True, slots=True)
class ListingEntry:
    description: str | None
    tools: str | None
    line: str


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What one run showed, before built-ins are taken out and files are matched."""

    version: str | None
    agents: tuple[LoadedAgent, ...]  # every active agent (source still None)
    debug: tuple[str, ...]
    spawned: tuple[SpawnResult, ...]
    parent_model: str | None
    errors: tuple[str, ...]
    startup_error: str | None = None  # Claude Code refused to start (its stderr)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict):
            if isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block.get("type") == "tool_result":
                parts.append(_text(block.get("content")))
    return "\n".join(parts)


def _body(request: Mapping[str, Any]) -> dict[str, Any]:
    body = request.get("json")
    return body if isinstance(body, dict) else {}


def _texts(body: Mapping[str, Any]) -> Iterable[str]:
    yield _text(body.get("system"))
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and isinstance(tool.get("description"), str):
            yield tool["description"]
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            yield _text(message.get("content"))


def parse_listing(text: str, names: Iterable[str]) -> dict[str, ListingEntry]:
    """Split the listing in ``text`` into entries, using the known names to find their starts."""
    for header in LISTING_HEADERS:
        if header in text:
            text = text[text.index(header) + len(header):]
            break
    else:
        return {}
    end = text.find(_LISTING_END)
    text = (text[:end] if end >= 0 else text).strip("\n")
    known = sorted({n for n in names if n}, key=len, reverse=True)
    if not known:
        return {}
    alt = "|".join(re.escape(n) for n in known)
    starts = [m.start() for m in re.finditer(rf"(?m)^- (?:{alt}): ", text)]
    entries: dict[str, ListingEntry] = {}
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(text)
        chunk = text[start:stop].rstrip("\n")
        whole = re.match(rf"- ({alt}): (.*) \(Tools: (.*)\)$", chunk, re.S)
        if whole:
            entries.setdefault(whole.group(1), ListingEntry(whole.group(2), whole.group(3), chunk))
            continue
        head = re.match(rf"- ({alt}): ", chunk)
        if head:
            entries.setdefault(head.group(1), ListingEntry(None, None, chunk))
    return entries


def subagent_body(system: Any) -> str:
    """The agent file's body as it sits in a subagent's system prompt.

    The system prompt is a list of text blocks: a billing header, the SDK intro line, then the
    body followed by ``\n\nMessages from the agent that launched you...``.  Nothing else is
    stripped, so whether Claude Code trimmed the body shows in the data.
    """
    blocks = [system] if isinstance(system, str) else [
        str(b.get("text", "")) for b in system or [] if isinstance(b, dict)]
    lines = "\n".join(blocks).split("\n")
    i = 0
    while i < len(lines) and (lines[i].startswith("x-anthropic-billing-header")
                              or lines[i].startswith("You are a Claude agent")):
        i += 1
    rest = "\n".join(lines[i:])
    end = rest.find(_BODY_END)
    body = rest[:end] if end >= 0 else rest
    body = body.removesuffix("\n\n")
    return "" if not body.strip("\n") else body


class Relativiser:
    """Replaces the run's temporary paths (see module docstring)."""

    def __init__(self, run: RunOutput) -> None:
        pairs = [(f"{run.project}/.claude/agents/", "project/"),
                 (f"{run.home}/.claude/agents/", "user/"),
                 (str(run.project), "<project>"), (str(run.home), "~"),
                 (str(run.project.parent), "<work>")]
        self.pairs = sorted(pairs, key=lambda p: len(p[0]), reverse=True)

    def __call__(self, text: str) -> str:
        for old, new in self.pairs:
            text = text.replace(old, new)
        return text


def debug_lines(run: RunOutput, relative: Relativiser) -> tuple[str, ...]:
    """The agent-related debug lines as ``LEVEL message``, relative, first occurrence only."""
    roots = (str(run.project), str(run.home))
    seen: dict[str, None] = {}
    for line in run.debug_log.splitlines():
        match = _LOG_PREFIX.match(line)
        level, message = (match.group(1), line[match.end():]) if match else ("", line)
        if any(noise in message for noise in _NOISE):
            continue
        in_agents = "/.claude/agents/" in message and any(r in message for r in roots)
        if in_agents or _AGENT_LINE.search(message) or _SCOPE_LINE.search(message):
            seen.setdefault(f"{level} {relative(message)}".strip(), None)
    return tuple(seen)


def _spawns(run: RunOutput, spawn: tuple[str, ...], relative: Relativiser,
            request_params: tuple[str, ...] = ()) -> tuple[SpawnResult, ...]:
    got: dict[str, SpawnResult] = {}
    calls: dict[str, str] = {}  # tool_use id -> subagent name
    results: dict[str, tuple[str, bool]] = {}
    for request in run.requests:
        body = _body(request)
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        first_user = next((_text(m.get("content")) for m in messages
                           if m.get("role") == "user"), "")
        marker = re.search(rf"{SPAWN_SUB_MARKER} name=(.+)", first_user)
        if marker and SPAWN_MAIN_MARKER not in first_user:
            name = marker.group(1).strip()
            tools = sorted(str(t.get("name")) for t in body.get("tools") or []
                           if isinstance(t, dict))
            mentioned = _MCP_NAME.findall(json.dumps(body, ensure_ascii=False))
            params = tuple(
                (key, json.dumps(body[key], sort_keys=True, separators=(",", ":"))
                 if key in body else "(absent)") for key in sorted(request_params))
            got.setdefault(name, SpawnResult(
                name, model=str(body.get("model")) if body.get("model") else None,
                tools=tuple(tools), body=relative(subagent_body(body.get("system"))),
                mcp=tuple(sorted(set(mentioned))), params=params,
            ))
            continue
        for message in messages:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
                    calls.setdefault(str(block.get("id")),
                                     str(block["input"].get("subagent_type")))
                elif block.get("type") == "tool_result":
                    results.setdefault(str(block.get("tool_use_id")),
                                       (_text(block.get("content")), bool(block.get("is_error"))))
    out: list[SpawnResult] = []
    for name in spawn:
        if name in got:
            out.append(got[name])
            continue
        texts = [results[i] for i, n in calls.items() if n == name and i in results]
        if texts:
            text, is_error = texts[0]
            prefix = "" if is_error else "(not an error) "
            out.append(SpawnResult(name, error=prefix + relative(text.strip())[:600]))
        else:
            out.append(SpawnResult(name, error="no subagent request and no tool result"))
    return tuple(out)


def extract(run: RunOutput, spawn: tuple[str, ...] = (),
            request_params: tuple[str, ...] = ()) -> RunFacts:
    """Everything one run showed (see module docstring)."""
    relative = Relativiser(run)
    errors: list[str] = []
    init = next((e for e in run.events if e.get("type") == "control_response"), None)
    init_agents: list[dict[str, Any]] = []
    version: str | None = None
    startup_error = None
    if init is None and run.returncode not in (0, None) and "Error:" in run.claude_stderr:
        # Claude Code refused to start (a bad --agents value): what it said is the record
        startup_error = relative(run.claude_stderr.strip())[:1000]
    elif init is None:
        errors.append("no initialize control response")
    else:
        reply: Any = init.get("response", {})
        if isinstance(reply, dict) and isinstance(reply.get("response"), dict):
            reply = reply["response"]
        if isinstance(reply, dict):
            init_agents = [a for a in reply.get("agents") or [] if isinstance(a, dict)]
            version = reply.get("claude_version") if isinstance(
                reply.get("claude_version"), str) else None
    system_init = next((e for e in run.events
                        if e.get("type") == "system" and e.get("subtype") == "init"), {})
    if version is None and isinstance(system_init.get("claude_code_version"), str):
        version = str(system_init["claude_code_version"])
    result = next((e for e in run.events if e.get("type") == "result"), None)
    if result is None and startup_error is None:
        errors.append("no result event (Claude Code did not finish)")
    elif result is not None and result.get("is_error"):
        errors.append("result is an error: " + relative(str(result.get("result")))[:300])

    messages_requests = [r for r in run.requests
                         if str(r.get("path", "")).split("?")[0].endswith("/v1/messages")]
    names = [str(a.get("name")) for a in init_agents if a.get("name")]
    listing: dict[str, ListingEntry] = {}
    parent_model: str | None = None
    for request in messages_requests:
        body = _body(request)
        for text in _texts(body):
            if any(h in text for h in LISTING_HEADERS):
                listing = parse_listing(text, names)
                parent_model = str(body.get("model")) if body.get("model") else None
                break
        if listing:
            break
    if init_agents and not listing:
        errors.append("no agent listing in the requests")

    agents = []
    for a in init_agents:
        name = str(a.get("name"))
        entry = listing.get(name)
        model = a.get("model")
        agents.append(LoadedAgent(
            name=name, description=str(a.get("description", "")),
            model=model if isinstance(model, str) else None,
            tools=entry.tools if entry else None,
            listing_line=entry.line if entry else None, source=None,
        ))
    spawned = (_spawns(run, spawn, relative, request_params) if startup_error is None
               else ())
    return RunFacts(version, tuple(agents), debug_lines(run, relative),
                    spawned, parent_model, tuple(errors), startup_error)


def is_builtin(agent: LoadedAgent, builtins: Mapping[str, BuiltinAgent]) -> bool:
    """Whether ``agent`` is exactly a built-in agent (not replaced by a file)."""
    b = builtins.get(agent.name)
    return b is not None and (b.description, b.model, b.tools) == (
        agent.description, agent.model, agent.tools)
