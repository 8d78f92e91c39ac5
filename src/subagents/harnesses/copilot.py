"""GitHub Copilot CLI 1.0.102: where it finds custom agents, what it makes of a file, how to write.

The facts are those measured by running the CLI offline (where GitHub's docs disagree, the run
wins); what was not measured is marked so below.

Reading
-------
* Places, highest precedence first (measured): user ``~/.copilot/agents/`` (it beat both
  project folders, against the docs), project ``.github/agents/`` (recursive; ``.agent.md``
  and ``.md``), project ``.claude/agents/*.md``.  ``~/.claude/agents/`` is not read.
  Recursion under ``~/.copilot/agents`` is assumed like ``.github/agents`` (not measured).
* Id: the frontmatter ``name`` when present (spaces and all), else the path below the agents
  folder without ``.agent.md``/``.md``, with ``/`` turned into ``--`` (``sub--nested``).
* Skipped files are reported **only in the CLI's log file**: missing frontmatter, YAML that does
  not parse (``failed to parse YAML frontmatter: ...``), no ``description`` (``description:
  Required``).  YAML is read with the 1.2 core schema on libyaml (the CLI's messages are
  libyaml's); a later duplicate key wins (not measured).
* Unknown fields are ignored with a log warning.  When the ignored field changes what the agent
  does (``permissionMode``, ``maxTurns``, ``disallowedTools``, ``hooks``, ...) that is an
  error (``differs``); cosmetic ones (``color``) are portability warnings.
* ``tools``: a list or a comma string, aliases case-insensitive.  ``[]`` is none, ``*`` all,
  unknown names are dropped.  :data:`ALIASES` is the measured expansion (``read`` → ``view``,
  ``search`` → ``grep`` + ``glob``, ...); Claude's ``Grep`` gives ``grep`` alone.  The CLI's own
  tool names (``view``, ``grep``, ...) are assumed to be accepted as themselves (not measured).
  ``native_tools`` holds the expanded CLI tool names, i.e. what the agent gets.
* ``disable-model-invocation: true`` or ``infer: false``: the agent loads but the ``task`` tool
  does not offer it (``delegable=False``, an info finding).
* A prompt over 30,000 characters: GitHub's documented limit; we report the file as skipped
  (not measured).

Canonical form: CLI tool names → Claude names (``view`` → Read, ``create`` → Write, ...; MCP
``srv/tool`` → ``mcp__srv__tool``); ``mcp-servers`` → ``mcp_servers``; ``target``,
``disable-model-invocation``, ``user-invocable``, ``infer``, ``metadata``, ``argument-hint``
and ``handoffs`` are parked in ``extra["x-copilot"]``.

Writing: ``.github/agents/<stem>.agent.md`` with ``name`` equal to the stem (a slug of the
agent's name), Copilot aliases in a ``tools`` list (``Grep`` or ``Glob`` alone stay Claude
spellings, since ``search`` would grant both), ``mcp-servers`` from inline servers (a named,
configured server becomes ``server/*`` in ``tools``), the parked fields restored.  A prompt over
30,000 characters is refused with :class:`~subagents.errors.DefinitionError` rather than cut:
a silently shortened prompt is a different agent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from subagents.claude_code import bun_yaml
from subagents.definition import AgentDefinition, Dialect, McpServerSpec
from subagents.errors import DefinitionError
from subagents.harnesses import yamlout
from subagents.harnesses.base import Effect, Finding, HarnessAgent, Location, Outcome, WrittenFile
from subagents.harnesses.crosswalk import to_claude, to_native
from subagents.harnesses.table import TableHarness, get_spec

__all__ = ["ALIASES", "HARNESS", "MAX_PROMPT", "Copilot"]

SPEC = get_spec("copilot")
NAME = SPEC.display_name
VERSION = str(SPEC.version)
WHO = f"{NAME} {VERSION}"
MAX_PROMPT = 30_000
_LOG_ONLY = "; the reason appears only in its log file"

_EXECUTE = ("bash", "read_bash", "stop_bash", "list_bash")
_AGENT = ("task", "read_agent", "list_agents", "write_agent")
# lower-cased name in `tools` -> the CLI tools the agent gets (measured for the aliases and
# Claude's Read/Grep; the rest of each alias group follows the docs)
ALIASES: Mapping[str, tuple[str, ...]] = {
    "read": ("view",), "notebookread": ("view",), "view": ("view",),
    "edit": ("create", "edit"), "multiedit": ("create", "edit"), "write": ("create", "edit"),
    "notebookedit": ("create", "edit"), "create": ("create",),
    "search": ("grep", "glob"), "grep": ("grep",), "glob": ("glob",),
    "execute": _EXECUTE, "shell": _EXECUTE, "bash": _EXECUTE, "powershell": _EXECUTE,
    "agent": _AGENT, "custom-agent": _AGENT, "task": _AGENT,
    "web": ("web_fetch",), "websearch": ("web_fetch",), "webfetch": ("web_fetch",),
    "web_fetch": ("web_fetch",),
    "todo": ("update_todo",), "todowrite": ("update_todo",), "update_todo": ("update_todo",),
}
# CLI tool -> Claude name
_TO_CLAUDE: Mapping[str, str] = {
    "view": "Read", "create": "Write", "edit": "Edit", "grep": "Grep", "glob": "Glob",
    "bash": "Bash", "read_bash": "Bash", "stop_bash": "Bash", "list_bash": "Bash",
    "task": "Task", "read_agent": "Task", "list_agents": "Task", "write_agent": "Task",
    "web_fetch": "WebFetch", "update_todo": "TodoWrite",
}
KNOWN_KEYS = frozenset({
    "name", "description", "target", "tools", "model", "disable-model-invocation",
    "user-invocable", "infer", "mcp-servers", "metadata", "argument-hint", "handoffs",
})
PARKED_KEYS = ("target", "disable-model-invocation", "user-invocable", "infer", "metadata",
               "argument-hint", "handoffs")
# Claude keys whose loss changes what the agent does (the rest are cosmetic)
_BEHAVIOUR_KEYS = frozenset({
    "permissionMode", "maxTurns", "disallowedTools", "hooks", "mcpServers", "skills",
    "background", "isolation", "effort", "memory", "initialPrompt", "permission_mode",
    "max_turns", "disallowed_tools", "mcp_servers", "initial_prompt",
})
_BLOCK = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_MAX_CHARS = 10 * 1024 * 1024


def expand_tools(entries: Sequence[str]) -> tuple[tuple[str, ...] | None, list[str]]:
    """(CLI tools the agent gets, None = all; names Copilot drops)."""
    out: list[str] = []
    dropped: list[str] = []
    for entry in entries:
        if entry == "*":
            return None, dropped
        if "/" in entry and not entry.startswith("/"):  # an MCP server's tool, or server/*
            out.append(entry)
            continue
        tools = ALIASES.get(entry.lower())
        if tools is None:
            dropped.append(entry)
            continue
        out.extend(t for t in tools if t not in out)
    return tuple(out), dropped


def _split_tools(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, (str, int, float))]
    return None


class Copilot(TableHarness, dialect="copilot"):
    """The Copilot CLI dialect (``HARNESS`` below)."""


    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        return (
            Location(home / ".copilot" / "agents", "user", True, (".agent.md", ".md"), 0),
            Location(project / ".github" / "agents", "project", True, (".agent.md", ".md"), 1),
            Location(project / ".claude" / "agents", "project", False, (".md",), 2),
        )

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        found: list[Path] = []
        for loc in self.locations(project, home):
            if not loc.path.is_dir():
                continue
            for dirpath, dirnames, filenames in os.walk(loc.path):
                dirnames.sort()
                found.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".md"))
                if not loc.recursive:
                    break
        return found

    def claims(self, path: Path) -> bool:
        if not path.name.endswith(".md"):
            return False
        parts = path.parts
        for i in range(len(parts) - 2):
            if parts[i + 1] == "agents" and parts[i] in (".github", ".copilot"):
                return True
        return len(parts) >= 3 and parts[-3] == ".claude" and parts[-2] == "agents"

    # ------------------------------------------------------------------ reading

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        return [self._read(text, path)]

    def _skip(self, path: Path | None, code: str, reason: str, **more: Any) -> HarnessAgent:
        return HarnessAgent(self.name, path, Outcome.SKIPPED, None, findings=(Finding(
            code, f"{WHO} skips this file{_LOG_ONLY}: custom agent markdown frontmatter is "
            f"malformed: {reason}", Effect.SKIP, **more),))

    def _read(self, text: str, path: Path | None) -> HarnessAgent:
        if len(text) > _MAX_CHARS:
            return self._skip(path, "CP009", f"the file is over {_MAX_CHARS:,} characters")
        if text.startswith("\ufeff"):
            text = text[1:]
        block = _BLOCK.match(text)
        if block is None:
            return self._skip(path, "CP002", "missing or malformed YAML frontmatter")
        try:
            data = bun_yaml.parse(block.group(1))
        except bun_yaml.BunYamlError as exc:
            where = f" at line {exc.line} column {exc.column}" if exc.line else ""
            return self._skip(path, "CP003", f"failed to parse YAML frontmatter: {exc}{where}",
                              line=exc.line + 1 if exc.line else None)
        except RecursionError:
            return self._skip(path, "CP003", "failed to parse YAML frontmatter: too deep")
        if not isinstance(data, dict):
            return self._skip(path, "CP002", "missing or malformed YAML frontmatter")
        fm = {str(k): v for k, v in data.items()}
        description = fm.get("description")
        if not isinstance(description, str):
            why = ("description: Required" if description is None and "description" not in fm
                   else f"description: Expected string, received {_js_type(description)}")
            return self._skip(path, "CP004", why, key="description")
        body = text[block.end():].strip()
        if len(body) > MAX_PROMPT:
            return HarnessAgent(self.name, path, Outcome.SKIPPED, None, findings=(Finding(
                "CP005", f"the prompt is {len(body):,} characters; GitHub documents a limit of "
                f"{MAX_PROMPT:,} for custom agents, so {WHO} is expected to skip it "
                "(not measured)", Effect.SKIP),))
        return self._loaded(path, fm, description, body)

    def _loaded(self, path: Path | None, fm: dict[str, Any], description: str,
                body: str) -> HarnessAgent:
        findings: list[Finding] = []
        name = fm.get("name")
        agent_id = name if isinstance(name, str) and name else _file_id(path)
        unknown = [k for k in fm if k not in KNOWN_KEYS]
        if unknown:
            message = f"{WHO} ignores these fields (log warning: unknown fields ignored: " \
                      f"{', '.join(unknown)})"
            behaviour = [k for k in unknown if k in _BEHAVIOUR_KEYS]
            for key in unknown:
                effect = Effect.DIFFERS if key in behaviour else Effect.PORTABILITY
                findings.append(Finding("CP006", f"{message}: `{key}` has no effect", effect,
                                        key=key))
        native_tools: tuple[str, ...] | None = None
        if "tools" in fm:
            entries = _split_tools(fm["tools"])
            if entries is None:
                entries = []
                findings.append(Finding("CP007", f"{WHO} gives this agent no tools: `tools` is "
                                        "neither a list nor a comma-separated string",
                                        Effect.DIFFERS, key="tools"))
            native_tools, dropped = expand_tools(entries)
            if dropped:
                # GitHub documents that unknown names are ignored, and many are VS Code's own
                # tools (`codebase`, `editFiles`) that work there: a portability warning, one
                # per file, not an error per name
                names = ", ".join(repr(entry) for entry in dropped)
                findings.append(Finding(
                    "CP008", f"{WHO} ignores tool names it does not know: {names} (names of "
                    "VS Code's own tools work only in VS Code)", Effect.PORTABILITY,
                    key="tools",
                    hint="use read, edit, search, execute, agent, web, todo or server/tool"))
        delegable = not (fm.get("disable-model-invocation") is True or fm.get("infer") is False)
        if not delegable:
            findings.append(Finding(
                "CP010", f"{WHO} loads this agent but does not offer it to the task tool "
                "(manual use only)", Effect.INFO,
                key="infer" if fm.get("infer") is False else "disable-model-invocation"))
        model = fm.get("model") if isinstance(fm.get("model"), str) else None
        return HarnessAgent(
            self.name, path, Outcome.LOADS, agent_id, description=description, prompt=body,
            model=model, native_tools=native_tools, native=fm, findings=tuple(findings),
            definition=self._definition(agent_id, fm, description, body, native_tools, path),
            delegable=delegable,
        )

    def _definition(self, agent_id: str, fm: Mapping[str, Any], description: str, body: str,
                    native_tools: tuple[str, ...] | None, path: Path | None) -> AgentDefinition:
        tools: tuple[str, ...] | None = None
        if native_tools is not None:
            names: list[str] = []
            for tool in native_tools:
                claude = _TO_CLAUDE.get(tool) or to_claude(self.name, (tool,)).names[0]
                if claude not in names:
                    names.append(claude)
            tools = tuple(names)
        parked = {k: fm[k] for k in PARKED_KEYS if k in fm}
        model = fm.get("model")
        return AgentDefinition(
            name=agent_id, description=description, system_prompt=body,
            model=model if isinstance(model, str) else None, tools=tools,
            mcp_servers=_servers(fm.get("mcp-servers")),
            extra={"x-copilot": parked} if parked else {},
            dialect=Dialect.COPILOT, path=path,
        )

    # ------------------------------------------------------------------ writing

    def write(self, definition: AgentDefinition) -> WrittenFile:
        body = definition.system_prompt.strip()
        if len(body) > MAX_PROMPT:
            raise DefinitionError(
                f"cannot write {definition.name!r} as a Copilot agent: its prompt is "
                f"{len(body):,} characters and GitHub allows {MAX_PROMPT:,}",
                hint="shorten the prompt (Copilot does not load a longer one)")
        stem = SPEC.stem(definition.name)
        notes: list[str] = []
        if stem != definition.name:
            notes.append(f"the agent is called {stem!r} in Copilot (its file name and `name` "
                         "must match)")
        lines = [yamlout.line("name", stem),
                 yamlout.line("description", definition.description or definition.name)]
        if not definition.description:
            notes.append("Copilot requires a description; the agent's name was used")
        if definition.model and definition.model != "inherit":
            lines.append(yamlout.line("model", definition.model))
        tools = _aliases(definition)
        if tools is not None:
            lines.append(yamlout.line("tools", list(tools)))
        servers = {s.name: _server_config(s) for s in definition.mcp_servers if not s.reference}
        if servers:
            lines.append(yamlout.line("mcp-servers", servers))
        parked = definition.extra.get("x-copilot")
        if isinstance(parked, Mapping):
            lines.extend(yamlout.line(k, parked[k]) for k in PARKED_KEYS if k in parked)
        text = "---\n" + "\n".join(lines) + "\n---\n" + body + ("\n" if body else "")
        relpath = SPEC.relpath(definition.name)
        back = self.read_text(text, Path(relpath))
        if back[0].outcome is not Outcome.LOADS:
            why = "; ".join(f.message for f in back[0].findings)
            raise DefinitionError(f"cannot write {definition.name!r} as a Copilot agent: {why}")
        return WrittenFile(relpath, text, tuple(notes))


def _aliases(defn: AgentDefinition) -> tuple[str, ...] | None:
    if defn.tools is None or "*" in defn.tools:
        refs = [f"{s.name}/*" for s in defn.mcp_servers if s.reference]
        return ("*", *refs) if refs and defn.tools is not None else None
    wanted = {t.split("(", 1)[0].strip() for t in defn.tools}
    names = list(defn.tools)
    single = {"Grep", "Glob"} & wanted
    if len(single) == 1:  # `search` would grant both
        names = [n for n in names if n.split("(", 1)[0].strip() not in single]
    else:
        single = set()
    out = list(to_native("copilot", names).names)
    out.extend(sorted(single))
    out.extend(f"{s.name}/*" for s in defn.mcp_servers if s.reference)
    return tuple(dict.fromkeys(out))


def _server_config(spec: McpServerSpec) -> dict[str, Any]:
    config: dict[str, Any] = dict(spec.extra)
    if spec.url:
        config.update(type=spec.type or "http", url=spec.url)
        if spec.headers:
            config["headers"] = dict(spec.headers)
    else:
        config.update(type="local" if spec.type in (None, "stdio") else spec.type)
        if spec.command:
            config["command"] = spec.command
        config["args"] = list(spec.args)
    if spec.env:
        config["env"] = dict(spec.env)
    config.setdefault("tools", ["*"])
    return config


def _servers(value: Any) -> tuple[McpServerSpec, ...]:
    if not isinstance(value, Mapping):
        return ()
    out: list[McpServerSpec] = []
    for name, config in value.items():
        if not isinstance(config, Mapping):
            continue
        args = config.get("args")
        env = config.get("env")
        headers = config.get("headers")
        rest = {k: v for k, v in config.items()
                if k not in ("command", "args", "env", "url", "type", "headers")}
        out.append(McpServerSpec(
            name=str(name),
            command=config.get("command") if isinstance(config.get("command"), str) else None,
            args=tuple(str(a) for a in args) if isinstance(args, list) else (),
            env={str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {},
            url=config.get("url") if isinstance(config.get("url"), str) else None,
            type=config.get("type") if isinstance(config.get("type"), str) else None,
            headers={str(k): str(v) for k, v in headers.items()}
            if isinstance(headers, Mapping) else {},
            extra=rest,
        ))
    return tuple(out)


def _js_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object"


def _file_id(path: Path | None) -> str:
    if path is None:
        return "agent"
    parts = path.parts
    rel: tuple[str, ...] = (path.name,)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "agents":
            rel = parts[i + 1:]
            break
    last = rel[-1]
    for suffix in (".agent.md", ".md"):
        if last.endswith(suffix):
            last = last[: -len(suffix)]
            break
    return "--".join((*rel[:-1], last))


HARNESS = Copilot()
