"""Gemini CLI 0.61.0: where it finds subagents, what it makes of a file, and how to write one.

Facts are from running ``@google/gemini-cli@0.61.0`` offline and from its source
(``google-gemini/gemini-cli`` at ``5411f113``: ``packages/core/src/agents/agentLoader.ts``,
``registry.ts``, ``acknowledgedAgents.ts``, ``utils.ts``, ``tools/tool-names.ts``).

Design notes
------------
* **Discovery** is one directory level: regular files (a symlink is not one for Node's
  ``Dirent.isFile``) named ``*.md`` and not starting with ``_``.  Registration is
  first-wins: the built-in agents, then project agents, then user agents; a later duplicate
  gets Gemini's own warning.  :meth:`GeminiHarness.load_all` (an addition to the
  :class:`~subagents.harnesses.base.Harness` protocol) models all of it, including the two
  gates on project agents: the folder must be trusted, and each agent must be *acknowledged*
  (its file's sha256 recorded in ``~/.gemini/acknowledgments/agents.json`` under the project
  path), so any edit unloads it until it is acknowledged again.
* **Reading** follows ``parseAgentMarkdown``: Gemini's frontmatter pattern at byte 0 (a BOM
  defeats it), YAML 1.2 (js-yaml 4; :mod:`._yaml12`), then the strict zod schema
  (:mod:`._gemini_schema`), whose lines are quoted exactly as Gemini prints them.  Python
  parses the YAML, so a YAML *syntax* error is worded by PyYAML, not js-yaml.
* **The body is a template.**  ``${word}`` is replaced at invocation from the inputs
  ``query``, ``cliVersion``, ``activeModel`` and ``today``; any other word fails the agent
  when it is called (a DIFFERS error here, quoting Gemini's message).
* **The canonical definition** speaks Claude: tools go back through the crosswalk,
  ``max_turns``/``mcp_servers`` map to their Claude fields, and ``kind``, ``display_name``,
  ``temperature``, ``timeout_mins`` (and a remote agent's card and auth) are parked in
  ``extra["x-gemini"]``.
* **Writing** produces a file this reader loads (checked by tests over the corpus and by
  fuzzing): a slug ``name``, ``tools`` as a YAML list of valid Gemini names (names with no
  Gemini equivalent are dropped, since one unknown name rejects the file; a Claude denylist
  becomes an allowlist of the rest), ``mcp_servers`` in snake_case from inline servers only,
  nothing outside the schema, and every ``${word}`` that is not one of the four inputs
  rewritten to ``$word``.  Strings that YAML 1.2 would read as something else are quoted.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from subagents.claude_code.reader import js_trim
from subagents.definition import MODEL_ALIASES, AgentDefinition, McpServerSpec
from subagents.harnesses import _yaml12
from subagents.harnesses._gemini_schema import (
    Result,
    is_valid_tool_name,
    validate_frontmatter,
)
from subagents.harnesses.base import (
    Effect,
    Finding,
    HarnessAgent,
    Location,
    Outcome,
    WrittenFile,
)
from subagents.harnesses.crosswalk import to_claude, to_native
from subagents.harnesses.folders import flat_locations, in_flat_folder, scan_flat
from subagents.harnesses.table import TableHarness, get_spec
from subagents.names import slugify as slug_name

__all__ = ["HARNESS", "GeminiHarness", "agent_hash", "slugify", "untemplate"]

SPEC = get_spec("gemini")
VERSION = str(SPEC.version)
LABEL = f"Gemini CLI {VERSION}"
FRONTMATTER = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?")
TEMPLATE = re.compile(r"\$\{([A-Za-z0-9_]+)\}")  # JavaScript's \w is ASCII
TEMPLATE_INPUTS: tuple[str, ...] = ("query", "cliVersion", "activeModel", "today")
BUILTIN_AGENTS: tuple[str, ...] = ("codebase_investigator", "cli_help", "generalist")
BROWSER_AGENT = "browser_agent"  # registered only when enabled in settings (off by default)
MAX_FILE_BYTES = 16 << 20  # our own limit; Gemini has none
_AGENT_TOOLS = frozenset({"invoke_agent"})
# What a Claude denylist is expanded against: the tools a Gemini subagent can be given.
_DENYLIST_BASE: tuple[str, ...] = (
    "read_file", "read_many_files", "write_file", "replace", "glob", "grep_search",
    "list_directory", "run_shell_command", "web_fetch", "google_web_search", "write_todos",
    "ask_user", "activate_skill",
)
_SERVER_KEYS = ("cwd", "http_url", "tcp", "timeout", "trust", "description", "include_tools",
                "exclude_tools", "auth")
_X = "x-gemini"


def slugify(name: str) -> str:
    """A ``name`` Gemini accepts (``^[a-z0-9-_]+$``): :func:`subagents.names.slugify`."""
    return slug_name(name, keep_underscore=True, limit=128)


def untemplate(body: str) -> str:
    """``body`` with every ``${word}`` Gemini could not fill rewritten to ``$word``."""
    for _ in range(len(body)):
        new = TEMPLATE.sub(
            lambda m: m.group(0) if m.group(1) in TEMPLATE_INPUTS else "$" + m.group(1), body
        )
        if new == body:
            break
        body = new
    return body


def agent_hash(text: str) -> str:
    """The acknowledgement key Gemini stores for a file: sha256 of its UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _key_lines(block: str, first_line: int) -> dict[str, int]:
    lines: dict[str, int] = {}
    for offset, line in enumerate(block.split("\n")):
        match = re.match(r"^([^\s:#][^:]*?)\s*:(?:\s|$)", line)
        if match:
            lines.setdefault(match.group(1).strip("'\""), first_line + offset)
    return lines


class GeminiHarness(TableHarness, dialect="gemini"):
    """Gemini CLI's subagent dialect (see the module docstring)."""


    def __init__(self, *, acknowledged: bool = False) -> None:
        #: load project agents Gemini CLI has not acknowledged (``--gemini-acknowledged``):
        #: for judging and running them with subagents before Gemini CLI has seen them
        self.acknowledged = acknowledged

    # ------------------------------------------------------------------ discovery

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        return flat_locations(project, home, ".gemini", first_rank=1)  # built-ins rank 0

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        return scan_flat(self.locations(project, home), lambda entry: (
            self._named(entry.name) and entry.is_file() and not entry.is_symlink()))

    @staticmethod
    def _named(name: str) -> bool:
        return name.endswith(".md") and not name.startswith("_")

    def claims(self, path: Path) -> bool:
        return self._named(path.name) and in_flat_folder(path, ".gemini")

    # ------------------------------------------------------------------ reading

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        display = str(path) if path is not None else "<text>"
        prefix = f"Agent loading error: Failed to load agent from {display}: "
        match = FRONTMATTER.match(text)
        if match is None:
            hint = (
                "remove the byte-order mark at the start of the file"
                if text.startswith("\ufeff")
                else "start the file with a `---` line, the YAML fields, and a closing `---`"
            )
            return (self._skipped(path, Finding(
                "GM001",
                prefix + "Invalid agent definition: Missing mandatory YAML frontmatter. Agent "
                "Markdown files MUST start with YAML frontmatter enclosed in triple-dashes "
                '"---" (e.g., ---\nname: my-agent\n---).',
                Effect.SKIP, line=1, hint=hint,
            )),)
        block = match.group(1)
        try:
            data = _yaml12.load(block)
        except _yaml12.TooDeep as exc:
            return (self._skipped(path, Finding(
                "GM002",
                f"{LABEL} would skip this file; subagents refused to parse its frontmatter: {exc}",
                Effect.SKIP, line=(exc.line or 1) + 1,
            )),)
        except _yaml12.YamlError as exc:
            return (self._skipped(path, Finding(
                "GM002", prefix + f"YAML frontmatter parsing failed: {exc}", Effect.SKIP,
                line=(exc.line or 1) + 1, hint="quote values that hold `: ` or start with "
                "a YAML indicator",
            )),)
        lines = _key_lines(block, 2)
        result = validate_frontmatter(data)
        if result.ok is None:
            return (self._invalid(path, prefix, result, lines, data),)
        body = match.group(2) or ""
        body_line = text.count("\n", 0, match.start(2)) + 1 if match.group(2) is not None else 0
        if result.ok == "remote":
            items = data if isinstance(data, list) else [data]
            return tuple(self._remote_agent(path, item, lines) for item in items)
        return (self._local_agent(path, data, body, body_line, lines, text, match.start(2)),)

    def _skipped(self, path: Path | None, finding: Finding,
                 native: Mapping[str, object] | None = None) -> HarnessAgent:
        return HarnessAgent(self.name, path, Outcome.SKIPPED, None, findings=(finding,),
                            native=dict(native or {}))

    def _invalid(self, path: Path | None, prefix: str, result: Result,
                 lines: Mapping[str, int], data: Any) -> HarnessAgent:
        full = prefix + "Validation failed: " + result.message()
        findings: list[Finding] = []
        unique = {issue.line(): issue for issue in reversed(result.issues)}
        for index, issue in enumerate(reversed(unique.values())):
            key = str(issue.path[0]) if issue.path and isinstance(issue.path[0], str) else None
            if key is None and issue.message.startswith("Unrecognized key(s)"):
                key = re.findall(r"'([^']*)'", issue.message)[0]
            code = "GM003" if issue.message.startswith("Unrecognized") else (
                "GM004" if key == "tools" else "GM005")
            findings.append(Finding(
                code,
                full if index == 0 else f"{LABEL} rejects this file: {issue.line()}",
                Effect.SKIP,
                line=lines.get(key) if key else None,
                key=key,
                hint=_HINTS.get(code if code != "GM005" else (key or ""), None),
            ))
        native = data if isinstance(data, dict) else {}
        return HarnessAgent(self.name, path, Outcome.SKIPPED, None, native=dict(native),
                            findings=tuple(findings))

    def _remote_agent(self, path: Path | None, item: Mapping[str, Any],
                      lines: Mapping[str, int]) -> HarnessAgent:
        parked = {k: item[k] for k in ("display_name", "agent_card_url", "agent_card_json",
                                        "auth") if k in item}
        parked["kind"] = "remote"
        description = item.get("description") or ""
        definition = AgentDefinition(
            name=item["name"], description=description, extra={_X: parked}, path=path,
        )
        note = Finding(
            "GM030",
            f"{LABEL} runs this agent remotely (A2A, from its agent card); it has no local "
            "prompt, model or tools",
            Effect.INFO, line=lines.get("kind"),
        )
        return HarnessAgent(self.name, path, Outcome.LOADS, item["name"], description, None,
                            None, None, dict(item), (note,), definition)

    def _local_agent(self, path: Path | None, data: Mapping[str, Any], body: str,
                     body_line: int, lines: Mapping[str, int], text: str,
                     body_start: int) -> HarnessAgent:
        prompt = js_trim(body)
        findings = list(self._template_findings(text, body_start, body_line))
        model_value = data.get("model")
        model = model_value if model_value and model_value != "inherit" else None
        tools = data.get("tools")
        native_tools = tuple(tools) if tools is not None else None
        temperature = data.get("temperature")
        if temperature is not None and temperature != 1:
            findings.append(Finding(
                "GM022",
                f"{LABEL} sent temperature 1 to the model although the file says "
                f"{_yaml12.js_string(temperature)} (measured)",
                Effect.DIFFERS, line=lines.get("temperature"), key="temperature",
                hint="do not rely on `temperature` in agent files",
            ))
        for name in native_tools or ():
            if name in _AGENT_TOOLS:
                findings.append(Finding(
                    "GM023",
                    f"{LABEL} never gives a subagent `{name}`, even when listed",
                    Effect.DIFFERS, line=lines.get("tools"), key="tools",
                ))
        definition = self._definition(path, data, prompt, model, native_tools)
        return HarnessAgent(self.name, path, Outcome.LOADS, data["name"], data["description"],
                            prompt, model, native_tools, dict(data), tuple(findings),
                            definition)

    @staticmethod
    def _template_findings(text: str, start: int, body_line: int) -> list[Finding]:
        if start < 0:
            return []
        findings: list[Finding] = []
        for match in TEMPLATE.finditer(text, start):
            word = match.group(1)
            line = body_line + text.count("\n", start, match.start())
            if word in TEMPLATE_INPUTS:
                findings.append(Finding(
                    "GM021",
                    f"{LABEL} replaces `${{{word}}}` in the prompt with its `{word}` input "
                    "when it runs the agent",
                    Effect.INFO, line=line,
                ))
                continue
            findings.append(Finding(
                "GM020",
                f"{LABEL} fails this agent whenever it is called: `${{{word}}}` is a template "
                "placeholder (Template validation failed: Missing required input parameters: "
                f"{word}. Available inputs: {', '.join(TEMPLATE_INPUTS)})",
                Effect.DIFFERS, line=line,
                hint=f"write `${word}` or `$ {{{word}}}`; Gemini has no escape for `${{`",
            ))
        return findings

    def _definition(self, path: Path | None, data: Mapping[str, Any], prompt: str,
                    model: str | None, native_tools: tuple[str, ...] | None) -> AgentDefinition:
        parked = {k: data[k] for k in ("kind", "display_name", "temperature", "timeout_mins")
                  if k in data}
        servers = tuple(
            _server_spec(str(name), spec) for name, spec in (data.get("mcp_servers") or {}).items()
        )
        return AgentDefinition(
            name=data["name"],
            description=data["description"],
            system_prompt=prompt,
            model=model,
            tools=to_claude("gemini", native_tools).names if native_tools is not None else None,
            max_turns=data.get("max_turns"),
            mcp_servers=servers,
            extra={_X: parked} if parked else {},
            path=path,
        )

    # ------------------------------------------------------------------ the whole folder

    def load_all(
        self,
        project: Path,
        home: Path,
        *,
        trusted: bool = True,
        browser_agent: bool = False,
    ) -> list[HarnessAgent]:
        """Every agent file Gemini CLI reads for ``project``, as it registers them.

        Built-ins are registered first; project agents load only in a trusted folder
        (``trusted``) and only when acknowledged; then user agents.  A later duplicate name is
        SKIPPED with Gemini's warning.  Returns the file agents in Gemini's order."""
        registered: dict[str, str] = dict.fromkeys(BUILTIN_AGENTS, "built-in")
        if browser_agent:
            registered[BROWSER_AGENT] = "built-in"
        acks = _acknowledgements(home)
        project_keys = {str(project), str(project.resolve())}
        out: list[HarnessAgent] = []
        for location in self.locations(project, home):
            for path in self.discover(project, home):
                if path.parent != location.path:
                    continue
                text = _read(path)
                agents = (
                    self.read_text(text, path)
                    if text is not None
                    else (self._skipped(path, Finding(
                        "GM006", f"subagents did not read {path}: unreadable or over "
                        f"{MAX_FILE_BYTES:,} bytes", Effect.SKIP)),)
                )
                for agent in agents:
                    if agent.outcome is not Outcome.LOADS or agent.agent_id is None:
                        out.append(agent)
                        continue
                    if location.scope == "project":
                        gate = self._project_gate(agent, text or "", acks, project_keys,
                                                  trusted)
                        if gate is not None:
                            out.append(gate)
                            continue
                    if agent.agent_id in registered:
                        out.append(_unloaded(agent, Finding(
                            "GM012",
                            f"{LABEL}: Duplicate agent name '{agent.agent_id}' detected. The "
                            "later definition will be ignored. Rename one of the agents to "
                            f"avoid this conflict. (the {registered[agent.agent_id]} agent "
                            "wins)",
                            Effect.SKIP, key="name")))
                        continue
                    registered[agent.agent_id] = f"{location.scope} ({path})"
                    out.append(agent)
        return out

    def _project_gate(self, agent: HarnessAgent, text: str, acks: Mapping[str, Any],
                      project_keys: set[str], trusted: bool) -> HarnessAgent | None:
        if not trusted:
            return _unloaded(agent, Finding(
                "GM011",
                f"{LABEL}: Skipping project agents due to untrusted folder. To enable, ensure "
                "that the project root is trusted.",
                Effect.SKIP, hint="trust the folder in Gemini CLI, or turn folder trust off",
            ))
        want = _ack_key(agent, text)
        for key in project_keys:
            entry = acks.get(key)
            if isinstance(entry, dict) and entry.get(agent.agent_id) == want:
                return None
        if self.acknowledged:
            return replace(agent, findings=(Finding(
                "GM013",
                f"{LABEL} has not acknowledged project agent '{agent.agent_id}' yet and would "
                "not load it; subagents loads it because you said it is acknowledged "
                "(--gemini-acknowledged, or gemini-acknowledged = true in the configuration)",
                Effect.INFO), *agent.findings))
        return _unloaded(agent, Finding(
            "GM010",
            f"{LABEL} does not load project agent '{agent.agent_id}': it is not acknowledged "
            "(its file's sha256 is not in ~/.gemini/acknowledgments/agents.json for this "
            "project), so it is only shown as a newly discovered agent",
            Effect.SKIP,
            hint="start Gemini CLI in this project and acknowledge the agent (every edit of "
            "the file changes its hash and needs a new acknowledgement); to show or run it "
            "with subagents anyway, pass --gemini-acknowledged",
        ))

    # ------------------------------------------------------------------ writing

    def write(self, definition: AgentDefinition) -> WrittenFile:
        parked_value = definition.extra.get(_X)
        parked: Mapping[str, Any] = parked_value if isinstance(parked_value, Mapping) else {}
        slug = slugify(definition.name)
        notes = [
            f"{LABEL} loads a project agent only after you acknowledge it in Gemini CLI, and "
            "again after every edit of the file (the acknowledgement is tied to its sha256); "
            "agents in ~/.gemini/agents/ need none",
        ]
        if slug != definition.name:
            notes.append(f"the name '{definition.name}' became '{slug}': {LABEL} accepts only "
                         "lowercase letters, digits, '-' and '_'")
        if parked.get("kind") == "remote":
            front = self._remote_front(definition, parked, slug)
            body = ""
        else:
            front = self._local_front(definition, parked, slug)
            body = untemplate(definition.system_prompt)
        text = "---\n" + _yaml12.dump(front) + "---\n" + body + ("\n" if body else "")
        return WrittenFile(SPEC.relpath(slug), text, tuple(notes))

    def _local_front(self, definition: AgentDefinition, parked: Mapping[str, Any],
                     slug: str) -> dict[str, Any]:
        front: dict[str, Any] = {"name": slug}
        front["description"] = definition.description or definition.name or slug
        display = parked.get("display_name")
        if isinstance(display, str):
            front["display_name"] = display
        elif slug != definition.name:
            front["display_name"] = definition.name
        tools = _gemini_tools(definition)
        if tools is not None:
            front["tools"] = tools
        servers = {
            spec.name: _server_data(spec) for spec in definition.mcp_servers if not spec.reference
        }
        servers = {k: v for k, v in servers.items() if validate_frontmatter(
            {"name": "x", "description": "x", "mcp_servers": {k: v}}).ok == "local"}
        if servers:
            front["mcp_servers"] = servers
        model = definition.model
        if model and model not in MODEL_ALIASES and not model.startswith("claude"):
            front["model"] = model
        temperature = parked.get("temperature")
        if _is_number(temperature):
            front["temperature"] = temperature
        if isinstance(definition.max_turns, int) and definition.max_turns > 0:
            front["max_turns"] = definition.max_turns
        timeout = parked.get("timeout_mins")
        if isinstance(timeout, int) and not isinstance(timeout, bool) and timeout > 0:
            front["timeout_mins"] = timeout
        return front

    @staticmethod
    def _remote_front(definition: AgentDefinition, parked: Mapping[str, Any],
                      slug: str) -> dict[str, Any]:
        front: dict[str, Any] = {"kind": "remote", "name": slug}
        if definition.description:
            front["description"] = definition.description
        for key in ("display_name", "auth", "agent_card_url", "agent_card_json"):
            if key in parked:
                front[key] = parked[key]
        if validate_frontmatter(front).ok != "remote":  # keep only what Gemini accepts
            front = {k: v for k, v in front.items() if k not in ("auth", "display_name")}
        return front


def _unloaded(agent: HarnessAgent, finding: Finding) -> HarnessAgent:
    return replace(agent, outcome=Outcome.SKIPPED, findings=(finding, *agent.findings))


def _ack_key(agent: HarnessAgent, text: str) -> str:
    native = agent.native
    if native.get("kind") == "remote" or "agent_card_url" in native or "agent_card_json" in native:
        url = native.get("agent_card_url")
        if isinstance(url, str):
            return url
        card = native.get("agent_card_json")
        if isinstance(card, str):
            return agent_hash(card)
    return agent_hash(text)


def _acknowledgements(home: Path) -> Mapping[str, Any]:
    path = home / ".gemini" / "acknowledgments" / "agents.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and not (isinstance(value, float) and math.isnan(value)))


def _gemini_tools(definition: AgentDefinition) -> list[str] | None:
    if definition.tools is None:
        if not definition.disallowed_tools:
            return None
        denied = set(to_native("gemini", definition.disallowed_tools).names)
        allowed = [name for name in _DENYLIST_BASE if name not in denied]
        if not any(name.startswith("mcp__") for name in definition.disallowed_tools):
            allowed.append("mcp_*")
        return allowed
    if any(name.strip() == "*" for name in definition.tools):
        return None
    translation = to_native("gemini", definition.tools)
    names = [n for n in translation.names if is_valid_tool_name(n)]
    names += [n for n in translation.unmapped if is_valid_tool_name(n) and n not in names]
    if definition.disallowed_tools:
        denied = set(to_native("gemini", definition.disallowed_tools).names)
        names = [n for n in names if n not in denied]
    return names


def _server_spec(name: str, spec: Mapping[str, Any]) -> McpServerSpec:
    extra = {k: spec[k] for k in _SERVER_KEYS if k in spec}
    return McpServerSpec(
        name=name,
        command=spec.get("command"),
        args=tuple(spec.get("args") or ()),
        env=dict(spec.get("env") or {}),
        url=spec.get("url") or spec.get("http_url"),
        type=spec.get("type") or ("http" if "http_url" in spec else None),
        headers=dict(spec.get("headers") or {}),
        extra=extra,
    )


def _server_data(spec: McpServerSpec) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if spec.command:
        data["command"] = spec.command
    if spec.args:
        data["args"] = list(spec.args)
    if spec.env:
        data["env"] = dict(spec.env)
    http_url = spec.extra.get("http_url")
    if spec.url and spec.url != http_url:
        data["url"] = spec.url
    if spec.type in ("sse", "http") and not (spec.type == "http" and http_url):
        data["type"] = spec.type
    if spec.headers:
        data["headers"] = dict(spec.headers)
    for key in _SERVER_KEYS:
        if key in spec.extra:
            data[key] = spec.extra[key]
    return data


_HINTS: Mapping[str, str] = {
    "GM003": "Gemini CLI rejects keys outside its schema; remove them (`subagents convert "
             "--to gemini` writes only what it accepts)",
    "GM004": "write `tools` as a YAML list of Gemini tool names (read_file, grep_search, ...)",
    "name": "use lowercase letters, digits, '-' and '_' only",
    "description": "give the agent a non-empty description",
}

HARNESS = GeminiHarness()
