"""OpenCode 1.18.33: where it finds agents, what it makes of a file, and how to write one.

Measured with ``opencode agent list`` offline (1.18.33) and read in the JavaScript embedded in
its binary (the agent loader, gray-matter, the ``AgentConfig`` schema).

Reading
-------
* Markdown agents are ``{agent,agents}/**/*.md`` under each config dir (the project's
  ``.opencode/``, ``$XDG_CONFIG_HOME/opencode/`` and ``$OPENCODE_CONFIG_DIR``), recursive,
  dot-files included.  The id is the path below ``agent(s)/`` without ``.md``
  (``sub/nested``); a frontmatter ``name`` (any value, turned into text) replaces it.
* Legacy ``{mode,modes}/*.md`` files are forced to ``mode: primary``; a schema error there
  drops that file silently instead of stopping OpenCode.
* JSON agents are the ``agent`` map of ``opencode.json`` / ``opencode.jsonc`` (comments and
  trailing commas allowed); ``prompt`` is a field there.  A Markdown agent of the same id in the
  same scope wins (measured: the project Markdown ``reviewer`` beat the project JSON one).
* Frontmatter goes through :mod:`.graymatter` (gray-matter, js-yaml 3, OpenCode's sanitizer).
  YAML that fails twice: the file is skipped silently.  A failure the sanitizer cannot touch
  loads the agent with **no** frontmatter at all (gray-matter's cache), which we report.
* **A schema error in any agent makes OpenCode refuse to start** (``Configuration is invalid
  at PATH``): outcome ``FATAL`` with OpenCode's own lines (:mod:`.opencode_schema`).
* ``mode: primary`` agents load but are not offered to the ``task`` tool; ``disable: true``
  removes the agent (outcome ``SKIPPED``, an info finding).

Canonical form
--------------
Tools: an agent with neither ``permission`` nor ``tools`` inherits everything (``None``).
Otherwise its tool list is OpenCode's subagent set (``bash edit glob grep read skill webfetch
write``, as measured) minus every tool whose permission is a plain ``deny`` (``{"*": deny}``
too; ``write``/``edit``/``apply_patch`` share the ``edit`` permission), plus the tools a
permission or ``tools`` entry explicitly allows (``list``, ``task``, ``todowrite``,
``websearch``, ...).  Glob-level rules (``bash: {"git *": allow}``) keep the tool and are
parked.  Those names go back to Claude names through :mod:`.crosswalk`.  ``steps`` (or
``maxSteps``) is ``max_turns``; ``anthropic/<id>`` models lose the prefix; mode, temperature,
top_p, hidden, disable, variant, color, permission, the deprecated tools map and options are
parked in ``extra["x-opencode"]``.

Writing
-------
``.opencode/agents/<name>.md`` with ``mode: subagent`` (or the parked mode), the description,
and a ``permission`` map built from the Claude allowlist and denylist: every permission key
whose tools the allowlist lacks is ``deny``; a wanted tool outside the default set is
``allow``.  ``model`` is written only as ``provider/model``: a full ``claude-*`` id becomes
``anthropic/claude-*``; the aliases ``sonnet``/``opus``/``haiku`` are dropped (which Anthropic
id they mean changes over time, and OpenCode has no alias), as is any other bare id.  ``color``
only when it is ``#RRGGBB`` or a theme name; ``steps`` from ``max_turns``.  Nothing else is
written: OpenCode passes unknown keys to the model provider as options.  Every file is read back
before it is returned and must load (:class:`~subagents.errors.DefinitionError` otherwise).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from subagents.definition import AgentDefinition, Dialect
from subagents.errors import DefinitionError
from subagents.harnesses import yamlout
from subagents.harnesses.base import (
    Effect,
    Finding,
    HarnessAgent,
    Location,
    Outcome,
    WrittenFile,
)
from subagents.harnesses.crosswalk import to_claude, to_native
from subagents.harnesses.graymatter import (
    JsDate,
    Matter,
    ParseFailure,
    js_string,
    js_trim,
    opencode_parse,
)
from subagents.harnesses.jsonc import JsoncError
from subagents.harnesses.jsonc import loads as jsonc_loads
from subagents.harnesses.opencode_schema import (
    ACTIONS,
    COLOR_THEMES,
    SCHEMA_KEYS,
    is_hex_color,
    schema_issues,
)
from subagents.harnesses.table import TableHarness, get_spec

__all__ = ["HARNESS", "OpenCode"]

SPEC = get_spec("opencode")
NAME = SPEC.display_name
VERSION = str(SPEC.version)
WHO = f"{NAME} {VERSION}"

# The tools a subagent got with no restriction (measured: neither task nor todowrite).
SUBAGENT_TOOLS: tuple[str, ...] = (
    "bash", "edit", "glob", "grep", "read", "skill", "webfetch", "write",
)
# Tools outside that set that an explicit "allow" adds.
OPT_IN_TOOLS: tuple[str, ...] = (
    "list", "task", "todowrite", "websearch", "question", "lsp",
)
# tool -> the permission key that governs it
_PERMISSION_OF: Mapping[str, str] = {"write": "edit", "apply_patch": "edit", "patch": "edit"}
_MAX_BYTES = 10 * 1024 * 1024  # refuse to read more (a hostile file); OpenCode has no limit


def _permission_key(tool: str) -> str:
    return _PERMISSION_OF.get(tool, tool)


def _rule_action(rule: Any) -> str | None:
    """The action a rule gives the tool as a whole (None: pattern rules, tool kept)."""
    if isinstance(rule, str):
        return rule
    if isinstance(rule, Mapping) and set(rule) == {"*"} and isinstance(rule["*"], str):
        return str(rule["*"])
    return None


def effective_permission(config: Mapping[str, Any]) -> dict[str, Any]:
    """OpenCode's merge: the ``tools`` map (``true``→allow, ``false``→deny, write/edit/patch →
    ``edit``) under ``permission`` (a bare action means ``{"*": action}``)."""
    merged: dict[str, Any] = {}
    tools = config.get("tools")
    if isinstance(tools, Mapping):
        for name, flag in tools.items():
            merged[_permission_key(str(name))] = "allow" if flag else "deny"
    permission = config.get("permission")
    if isinstance(permission, str):
        permission = {"*": permission}
    if isinstance(permission, Mapping):
        merged.update({str(k): v for k, v in permission.items()})
    return merged


def agent_tools(config: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The subagent's tool names (None: no restriction written, every tool inherited)."""
    if "permission" not in config and "tools" not in config:
        return None
    perms = effective_permission(config)
    fallback = _rule_action(perms.get("*"))
    out: list[str] = []
    for tool in SUBAGENT_TOOLS + OPT_IN_TOOLS:
        key = _permission_key(tool)
        action = _rule_action(perms[key]) if key in perms else fallback
        if key in perms and action is None:
            action = "ask"  # pattern rules: the tool stays
        default_on = tool in SUBAGENT_TOOLS and action != "deny"
        opted_in = tool in OPT_IN_TOOLS and key in perms and action in ("allow", "ask")
        if default_on or opted_in:
            out.append(tool)
    return tuple(sorted(out))


class OpenCode(TableHarness, dialect="opencode"):
    """The OpenCode dialect (``HARNESS`` below)."""


    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env: Mapping[str, str] = env if env is not None else {}

    # ------------------------------------------------------------------ discovery

    def config_dirs(self, project: Path, home: Path) -> list[tuple[Path, str]]:
        """Config dirs, highest precedence first."""
        xdg = self.env.get("XDG_CONFIG_HOME")
        global_dir = (Path(xdg) if xdg else home / ".config") / "opencode"
        dirs = [(project / ".opencode", "project")]
        if self.env.get("OPENCODE_CONFIG_DIR"):
            dirs.append((Path(self.env["OPENCODE_CONFIG_DIR"]), "env"))
        dirs.append((global_dir, "user"))
        return dirs

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        out: list[Location] = []
        rank = 0
        for base, scope in self.config_dirs(project, home):
            json_dir = project if scope == "project" else base
            for sub in ("agent", "agents"):
                out.append(Location(base / sub, scope, True, (".md",), rank))
            for sub in ("mode", "modes"):
                out.append(Location(base / sub, scope, False, (".md",), rank))
            for fname in ("opencode.json", "opencode.jsonc"):
                out.append(Location(json_dir / fname, scope, False, (".json", ".jsonc"), rank + 1))
            rank += 2
        return out

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        found: list[Path] = []
        for loc in self.locations(project, home):
            if loc.path.is_file():
                found.append(loc.path)
            elif loc.path.is_dir():
                found.extend(_scan(loc.path, loc.recursive))
        return found

    def claims(self, path: Path) -> bool:
        if path.name in ("opencode.json", "opencode.jsonc"):
            return True
        if path.suffix != ".md":
            return False
        env_dir = self.env.get("OPENCODE_CONFIG_DIR")
        parts = path.parts
        for i in range(1, len(parts) - 1):
            config_dir = parts[i - 1] in (".opencode", "opencode") or (
                env_dir is not None and Path(*parts[:i]) == Path(env_dir))
            if not config_dir:
                continue
            if parts[i] in ("agent", "agents"):
                return True
            if parts[i] in ("mode", "modes") and i == len(parts) - 2:
                return True
        return False

    # ------------------------------------------------------------------ reading

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        try:
            if len(text) > _MAX_BYTES:
                return [self._agent(path, Outcome.SKIPPED, None, findings=(Finding(
                    "OC009", f"the file is over {_MAX_BYTES:,} characters; not read",
                    Effect.SKIP),))]
            if path is not None and path.suffix in (".json", ".jsonc"):
                return self._read_json(text, path)
            return [self._read_markdown(text, path)]
        except RecursionError:  # belt and braces: deep input is bounded before parsing
            return [self._agent(path, Outcome.SKIPPED, None, findings=(Finding(
                "OC009", "the file is nested too deeply to read", Effect.SKIP),))]

    def _agent(self, path: Path | None, outcome: Outcome, agent_id: str | None,
               **more: Any) -> HarnessAgent:
        return HarnessAgent(self.name, path, outcome, agent_id, **more)

    def _read_markdown(self, text: str, path: Path | None) -> HarnessAgent:
        legacy = path is not None and path.parent.name in ("mode", "modes")
        file_id = _file_id(path)
        parsed = opencode_parse(text)
        if isinstance(parsed, ParseFailure):
            return self._agent(path, Outcome.SKIPPED, None, findings=(Finding(
                "OC002",
                f"{WHO} skips this file without a word: its frontmatter is not YAML, even after "
                f"OpenCode's repair pass ({parsed.message})",
                Effect.SKIP, line=parsed.line,
                hint="quote the value (description: \"...\") or use a block scalar (|)"),))
        findings = list(_parse_findings(parsed))
        data = parsed.data
        config: dict[str, Any] = {}
        if isinstance(data, Mapping):
            config.update({js_string(k): v for k, v in data.items()})
        elif isinstance(data, (str, list)):  # spread into index keys, which become options
            config.update({str(i): v for i, v in enumerate(data)})
        agent_id = js_string(config["name"]) if "name" in config else file_id
        config["prompt"] = js_trim(parsed.content)
        issues = schema_issues(config)
        where = str(path) if path is not None else "<file>"
        if issues:
            if legacy:
                return self._agent(path, Outcome.SKIPPED, None, native=config, findings=(Finding(
                    "OC003", f"{WHO} drops this legacy mode file silently: " + "; ".join(issues),
                    Effect.SKIP),))
            return self._fatal(path, where, issues, config)
        if legacy:
            config["mode"] = "primary"
        return self._loaded(path, agent_id, config, findings)

    def _fatal(self, path: Path | None, where: str, issues: list[str],
               config: Mapping[str, Any], agent_id: str | None = None) -> HarnessAgent:
        message = f"Configuration is invalid at {where}\n" + "\n".join(f"↳ {i}" for i in issues)
        first_key = issues[0].rsplit(" ", 1)[-1].split(".")[0]
        return self._agent(path, Outcome.FATAL, agent_id, native=dict(config), findings=(Finding(
            "OC001",
            f"{WHO} refuses to start at all because of this file: {message}",
            Effect.FATAL, key=first_key,
            hint="fix the value or remove the key (OpenCode checks every agent file at start)"),))

    def _read_json(self, text: str, path: Path) -> list[HarnessAgent]:
        try:
            doc = jsonc_loads(text)
        except JsoncError as exc:
            return [self._agent(path, Outcome.FATAL, None, findings=(Finding(
                "OC004", f"{WHO} refuses to start: Config file at {path} is not valid "
                f"JSON(C): {exc}", Effect.FATAL, line=exc.line),))]
        agents = doc.get("agent") if isinstance(doc, dict) else None
        if agents is None:
            return []
        if not isinstance(agents, dict):
            return [self._fatal(path, str(path), [
                f"Expected object | undefined, got {yamlout.flow(agents)[:80]} agent"], {})]
        out: list[HarnessAgent] = []
        for agent_id, config in agents.items():
            if not isinstance(config, dict):
                out.append(self._fatal(path, str(path), [
                    f"Expected AgentConfig, got {yamlout.flow(config)[:80]} agent.{agent_id}"],
                    {}, agent_id))
                continue
            issues = schema_issues(config, prefix=f"agent.{agent_id}.")
            if issues:
                out.append(self._fatal(path, str(path), issues, config, agent_id))
            else:
                out.append(self._loaded(path, str(agent_id), dict(config), []))
        return out

    def _loaded(self, path: Path | None, agent_id: str, config: dict[str, Any],
                findings: list[Finding]) -> HarnessAgent:
        if config.get("disable") is True:
            findings.append(Finding("OC005", f"{WHO} does not load this agent: `disable: true`",
                                    Effect.INFO, key="disable"))
            return self._agent(path, Outcome.SKIPPED, None, native=config,
                               findings=tuple(findings))
        mode = config.get("mode", "all")
        if mode == "primary":
            findings.append(Finding(
                "OC006", f"{WHO} loads this agent as a primary agent: the task tool does not "
                "offer it to other agents", Effect.INFO, key="mode",
                hint="use `mode: subagent` (or `all`) to make it a subagent"))
        if not isinstance(config.get("description"), str):
            findings.append(Finding(
                "OC007", f"{WHO} lists this agent without a description (\"This subagent should "
                "only be called manually by the user.\")", Effect.INFO, key="description"))
        unknown = sorted(set(config) - set(SCHEMA_KEYS) - {"options"})
        if unknown:
            # the measured behaviour: they become provider options (that is how
            # `reasoningEffort` is meant to be given); a provider may reject the others
            listed = ", ".join(f"`{key}`" for key in unknown)
            findings.append(Finding(
                "OC008", f"{WHO} passes keys it does not know to the model provider as "
                f"options: {listed}", Effect.PORTABILITY, key=unknown[0],
                hint="keep metadata out of the frontmatter, or under `options` only what the "
                "provider understands"))
        tools = agent_tools(config)
        return self._agent(
            path, Outcome.LOADS, agent_id,
            description=config.get("description") if isinstance(config.get("description"), str)
            else None,
            prompt=config.get("prompt") if isinstance(config.get("prompt"), str) else None,
            model=config.get("model") if isinstance(config.get("model"), str) else None,
            native_tools=tools, native=config, findings=tuple(findings),
            definition=self._definition(agent_id, config, tools, path),
            delegable=mode != "primary",
        )

    def _definition(self, agent_id: str, config: Mapping[str, Any],
                    tools: tuple[str, ...] | None, path: Path | None) -> AgentDefinition:
        model = config.get("model")
        if isinstance(model, str) and model.startswith("anthropic/"):
            model = model[len("anthropic/"):]
        steps = config.get("steps", config.get("maxSteps"))
        parked = {k: config[k] for k in _PARKED if k in config}
        unknown = {k: v for k, v in config.items() if k not in SCHEMA_KEYS}
        if unknown:
            parked["options"] = {**dict(config.get("options") or {}), **unknown}
        return AgentDefinition(
            name=agent_id,
            description=config.get("description") or "",
            system_prompt=str(config.get("prompt") or ""),
            model=model if isinstance(model, str) else None,
            tools=to_claude(self.name, tools).names if tools is not None else None,
            max_turns=int(steps) if isinstance(steps, (int, float)) else None,
            extra={"x-opencode": _jsonable(parked)} if parked else {},
            dialect=Dialect.OPENCODE,
            path=path,
        )

    # ------------------------------------------------------------------ writing

    def write(self, definition: AgentDefinition) -> WrittenFile:
        from subagents.harnesses.opencode_writer import render

        stem = SPEC.stem(definition.name)
        text, notes = render(definition, stem)
        relpath = SPEC.relpath(definition.name)
        back = self.read_text(text, Path(relpath))
        if (len(back) != 1 or back[0].outcome is not Outcome.LOADS
                or back[0].agent_id != definition.name):
            why = "; ".join(f.message for a in back for f in a.findings) or "not loaded"
            raise DefinitionError(
                f"cannot write {definition.name!r} as an {NAME} agent: {why}")
        return WrittenFile(relpath, text, tuple(notes))


_PARKED = ("mode", "temperature", "top_p", "hidden", "disable", "variant", "color",
           "permission", "tools", "options")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, JsDate):
        return value.text
    return value




def _parse_findings(parsed: Matter) -> list[Finding]:
    if parsed.cached_unparsed:
        return [Finding(
            "OC010", f"{WHO} loads this agent with none of its frontmatter: the YAML does not "
            "parse and OpenCode's repair pass cannot change it, so the agent gets the defaults "
            "and the whole file (frontmatter included) as its prompt", Effect.DIFFERS,
            hint="fix the YAML (duplicate keys, bad indentation, an unclosed [ or {)")]
    if parsed.sanitized:
        return [Finding(
            "OC011", f"{WHO} reads this frontmatter only after its repair pass quoted the values "
            "that hold a colon; other tools may not", Effect.PORTABILITY,
            hint="quote the value")]
    if not parsed.has_block:
        return [Finding(
            "OC012", f"{WHO} loads this file with no frontmatter: defaults for every field and "
            "the whole text as the prompt", Effect.INFO)]
    return []


def _agent_rel(path: Path) -> str | None:
    """The part of ``path`` below its last ``agent/`` or ``agents/`` folder."""
    parts = path.parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in ("agent", "agents"):
            return "/".join(parts[i + 1:])
    return None


def _file_id(path: Path | None) -> str:
    if path is None:
        return "agent"
    rel = _agent_rel(path) if path.parent.name not in ("mode", "modes") else path.name
    rel = rel or path.name
    stem, dot, ext = rel.rpartition(".")
    return stem if dot and "/" not in ext and stem and not stem.endswith("/") else rel


def _scan(root: Path, recursive: bool) -> list[Path]:
    out: list[Path] = []
    seen: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        st = os.stat(dirpath)
        if (st.st_dev, st.st_ino) in seen:  # a symlink loop
            dirnames[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        dirnames.sort()
        out.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".md"))
        if not recursive:
            break
    return out


def is_writable_color(color: str | None) -> bool:
    return color is not None and (is_hex_color(color) or color in COLOR_THEMES)


__all__ += ["ACTIONS", "SUBAGENT_TOOLS", "agent_tools", "effective_permission", "to_native"]

HARNESS = OpenCode()
