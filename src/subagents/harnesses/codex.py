"""OpenAI Codex CLI 0.169.0: TOML agent roles — discovery, a faithful reader, a writer.

Codex reads agents ("roles") per config layer, lowest precedence first: the user layer
(``$CODEX_HOME``, by default ``~/.codex``) and then the project layer (``<project>/.codex``,
only when the project is trusted).  In each layer it reads the ``[agents.<role>]`` tables of
``config.toml`` and every ``agents/**/*.toml`` file, sorted by path.  A file is a TOML table of
``name``, ``description``, ``nickname_candidates`` and any ``config.toml`` key, with unknown
keys denied (see :mod:`subagents.harnesses.codex_config` for the key list and where it came
from).  A bad file is skipped with ``warning: Ignoring malformed agent role definition:
<reason>``; everything else still loads.

Everything stated here was measured by running ``codex exec`` of ``@openai/codex@0.169.0``
offline (its startup warnings) or read in its source (``codex-rs/core/src/config/
agent_roles.rs``); the reasons in findings are Codex's own words.

Design notes
------------
* **Order of checks** is Codex's: TOML syntax; then serde (a bad type of ``name``,
  ``description`` or ``nickname_candidates``, then a bad value of a config key, then unknown
  keys); then a blank ``description``; then ``developer_instructions`` (missing or blank); then
  ``name`` (missing or blank after trimming); then the nickname rules.  Codex reports the first
  only; we report the first as the skip reason and the others too, so one pass fixes a file.
* **The description is required after the layer merge.**  A file without one is skipped by
  :meth:`CodexHarness.read_text` (it cannot know the other layer); :meth:`load_all` fills it
  from a lower layer's role of the same name, as Codex does.
* **Trust.**  ``CodexHarness(trusted=...)``: ``True``/``False`` say whether the project is
  trusted.  ``None`` (the default) means: in :meth:`discover` and :meth:`load_all`, read the
  user's ``config.toml`` (``[projects."<abs path>"] trust_level = "trusted"``) as Codex does;
  in :meth:`read_text`, which has no project, assume trusted and add an info finding.  An
  untrusted project's files come back ``NOT_READ`` with the reason.
* ``$CODEX_HOME`` is not read from the environment implicitly (tests must not depend on it):
  pass ``codex_home=`` to use it; the default is ``<home>/.codex``.
* **Canonical form.**  ``developer_instructions`` is the prompt (kept exactly; Codex does not
  trim it), ``name`` and ``description`` are trimmed as Codex trims them,
  ``model_reasoning_effort`` is the effort, ``[mcp_servers.<id>]`` become MCP servers, and every
  other key is parked in ``definition.extra["x-codex"]``.  ``tools`` is None: Codex has no
  per-agent tool list.
* **Writing** never emits a key Codex rejects: ``tools`` (a real config key with another
  meaning), ``color`` and Claude's other keys are dropped; ``x-codex`` keys are restored only
  when they pass the same checks as the reader.  The prompt is a literal ``'''`` string when
  that is exact, else an escaped basic ``\"\"\"`` string (:mod:`.tomlwrite`).
* TOML is parsed with :mod:`tomllib` (TOML 1.0).  Codex's Rust ``toml`` crate accepts the same
  documents except for a few TOML 1.1 extras; line numbers agree, columns may differ.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents.definition import AgentDefinition, McpServerSpec
from subagents.harnesses.base import (
    Effect,
    Finding,
    HarnessAgent,
    Location,
    Outcome,
    WrittenFile,
)
from subagents.harnesses.codex_config import (
    CONFIG_TOML_KEYS,
    ROLE_KEYS,
    check_config_value,
    check_role_value,
)
from subagents.harnesses.table import TableHarness, get_spec

__all__ = ["HARNESS", "CodexHarness"]

SPEC = get_spec("codex")
VERSION = str(SPEC.version)
WHO = f"Codex CLI {VERSION}"
BUILTIN_ROLES: tuple[str, ...] = ("default", "explorer", "worker")
MAX_FILE_BYTES = 4 * 1024 * 1024  # our own guard against hostile input; Codex has none

# Rust's str::trim removes Unicode White_Space, which is not Python's str.strip set.
_RUST_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")
_NICK_OK = re.compile(r"^[A-Za-z0-9 _-]+$")
_CANONICAL_KEYS = frozenset(("name", "description", "developer_instructions", "model",
                             "model_reasoning_effort", "mcp_servers"))


def rust_trim(text: str) -> str:
    return text.strip(_RUST_SPACE)


@dataclass(slots=True)
class _Role:
    """One role file as Codex parsed it (``error`` set when it is skipped)."""

    data: dict[str, Any] = field(default_factory=dict)
    role_name: str | None = None
    description: str | None = None
    instructions: str | None = None
    nicknames: list[str] | None = None
    error: Finding | None = None
    also: list[Finding] = field(default_factory=list)


def _key_line(text: str, key: str) -> int | None:
    """The 1-based line of a top-level ``key = ...`` or ``[key...]`` header, roughly."""
    pattern = re.compile(
        r"^[ \t]*(?:\[+[ \t]*)?(?:\"" + re.escape(key) + r"\"|'" + re.escape(key) + r"'|"
        + re.escape(key) + r")[ \t]*(?:=|\.|\])",
        re.M,
    )
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _skip(code: str, reason: str, *, line: int | None = None, key: str | None = None,
          hint: str | None = None) -> Finding:
    return Finding(code, f"{reason} ({WHO} ignores this agent with a warning)", Effect.SKIP,
                   line, key, hint)


def parse_role_text(text: str, label: str, hint_name: str | None = None) -> _Role:
    """Codex's ``parse_agent_role_file_contents``: one role file, checks in Codex's order."""
    role = _Role()
    if text.startswith("\ufeff"):
        text = text[1:]  # Codex 0.169.0 loaded a file with a BOM (measured)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        pos = _TOML_POS.search(str(exc))
        line, column = (int(pos.group(1)), int(pos.group(2))) if pos else (None, None)
        where = f" at line {line}, column {column}" if pos else ""
        reason = _TOML_POS.sub("", str(exc)).strip()
        role.error = _skip(
            "CX001", f"failed to parse agent role file at {label}: TOML parse error{where}: "
            f"{reason}", line=line, hint="fix the TOML syntax on that line")
        return role
    except RecursionError:
        role.error = _skip("CX001", f"failed to parse agent role file at {label}: the TOML "
                           "is nested too deeply")
        return role
    role.data = data
    problems: list[Finding] = []

    def serde(key: str, reason: str, hint: str | None = None) -> None:
        problems.append(_skip("CX002", f"failed to deserialize agent role file at {label}: "
                              f"{reason}", line=_key_line(text, key), key=key, hint=hint))

    for key in data:
        if key in ROLE_KEYS and (bad := check_role_value(key, data[key])):
            serde(key, bad)
    for key in data:
        if key in CONFIG_TOML_KEYS and (bad := check_config_value(key, data[key])):
            hint = None
            if key == "tools":
                hint = ("Codex has no per-agent tool list; `tools` is a Codex config table "
                        "with another meaning: remove it")
            serde(key, bad, hint)
    for key in data:
        if key not in ROLE_KEYS and key not in CONFIG_TOML_KEYS:
            serde(key, f"unknown field `{key}`",
                  f"remove `{key}`: every key must be name, description, "
                  "nickname_candidates or a Codex config.toml key")
    if not problems:
        _semantic_checks(role, data, text, label, hint_name, problems)
    if problems:
        role.error, role.also = problems[0], problems[1:]
    return role


def _semantic_checks(role: _Role, data: Mapping[str, Any], text: str, label: str,
                     hint_name: str | None, problems: list[Finding]) -> None:
    description = data.get("description")
    if isinstance(description, str):
        if not rust_trim(description):
            problems.append(_skip("CX003", f"agent role file {label}.description cannot be "
                                  "blank", line=_key_line(text, "description"),
                                  key="description"))
        role.description = rust_trim(description)
    instructions = data.get("developer_instructions")
    if instructions is None and hint_name is None:
        problems.append(_skip("CX004", f"agent role file at {label} must define "
                              "`developer_instructions`", key="developer_instructions",
                              hint="add `developer_instructions = '''...'''` with the prompt"))
    elif isinstance(instructions, str) and not rust_trim(instructions):
        problems.append(_skip("CX004", f"agent role file at {label}.developer_instructions "
                              "cannot be blank", line=_key_line(text, "developer_instructions"),
                              key="developer_instructions"))
    role.instructions = instructions if isinstance(instructions, str) else None
    name = data.get("name")
    trimmed = rust_trim(name) if isinstance(name, str) else ""
    role.role_name = trimmed or hint_name
    if not role.role_name:
        problems.append(_skip("CX005", f"agent role file at {label} must define a non-empty "
                              "`name`", line=_key_line(text, "name"), key="name",
                              hint="add `name = \"my-agent\"`: the file name plays no part"))
    nicknames = data.get("nickname_candidates")
    if isinstance(nicknames, list):
        what = f"agent role file {label}.nickname_candidates"
        bad = _nickname_problem(what, nicknames)
        if bad:
            problems.append(_skip("CX006", bad, line=_key_line(text, "nickname_candidates"),
                                  key="nickname_candidates"))
        role.nicknames = [n.strip(_RUST_SPACE) for n in nicknames]


def _nickname_problem(what: str, nicknames: Sequence[str]) -> str | None:
    if not nicknames:
        return f"{what} must contain at least one name"
    seen: set[str] = set()
    for nick in nicknames:
        trimmed = rust_trim(nick)
        if not trimmed:
            return f"{what} cannot contain blank names"
        if trimmed in seen:
            return f"{what} cannot contain duplicates"
        seen.add(trimmed)
        if not _NICK_OK.match(trimmed):
            return (f"{what} may only contain ASCII letters, digits, spaces, hyphens, and "
                    "underscores")
    return None


def _mcp_specs(servers: Any) -> tuple[McpServerSpec, ...]:
    if not isinstance(servers, Mapping):
        return ()
    specs = []
    for name, conf in servers.items():
        if not isinstance(conf, Mapping):
            continue
        known = {"command", "args", "env", "url", "http_headers"}
        args, env, headers = conf.get("args"), conf.get("env"), conf.get("http_headers")
        command, url = conf.get("command"), conf.get("url")
        specs.append(McpServerSpec(
            name=str(name),
            command=command if isinstance(command, str) else None,
            args=tuple(a for a in args if isinstance(a, str)) if isinstance(args, list) else (),
            env=_strings(env),
            url=url if isinstance(url, str) else None,
            type="http" if isinstance(url, str) else None,
            headers=_strings(headers),
            extra={k: v for k, v in conf.items() if k not in known},
        ))
    return tuple(specs)


def _strings(table: Any) -> dict[str, str]:
    if not isinstance(table, Mapping):
        return {}
    return {str(k): v for k, v in table.items() if isinstance(v, str)}


def _definition(role: _Role, path: Path | None) -> AgentDefinition:
    data = role.data
    extra = {k: v for k, v in data.items() if k not in _CANONICAL_KEYS}
    model = data.get("model")
    effort = data.get("model_reasoning_effort")
    return AgentDefinition(
        name=role.role_name or "",
        description=role.description or "",
        system_prompt=role.instructions or "",
        model=model if isinstance(model, str) else None,
        effort=effort if isinstance(effort, str) else None,
        tools=None,
        mcp_servers=_mcp_specs(data.get("mcp_servers")),
        extra={"x-codex": extra} if extra else {},
        path=path,
    )


def role_to_agent(role: _Role, path: Path | None, extra: Sequence[Finding] = (),
                  *, outcome: Outcome | None = None) -> HarnessAgent:
    """The HarnessAgent for a parsed role (loaded unless it has an error)."""
    findings = tuple(f for f in (role.error, *role.also) if f is not None) + tuple(extra)
    if outcome is None:
        outcome = Outcome.SKIPPED if role.error is not None else Outcome.LOADS
    loads = outcome is Outcome.LOADS
    model = role.data.get("model")
    return HarnessAgent(
        harness="codex",
        path=path,
        outcome=outcome,
        agent_id=role.role_name if loads else None,
        description=role.description,
        prompt=role.instructions,
        model=model if isinstance(model, str) else None,
        native_tools=None,
        native=dict(role.data),
        findings=findings,
        definition=_definition(role, path) if role.role_name else None,
    )


def _info(code: str, message: str, key: str | None = None) -> Finding:
    return Finding(code, message, Effect.INFO, None, key)


def _builtin_note(name: str | None) -> list[Finding]:
    if name in BUILTIN_ROLES:
        return [_info("CX010", f"`{name}` replaces {WHO}'s built-in `{name}` role", "name")]
    return []


def _missing_description(name: str) -> Finding:
    return _skip("CX007", f"agent role `{name}` must define a description", key="description",
                 hint="add `description = \"...\"`: the parent model picks agents by it")


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


def _under(path: Path, folder: Path) -> bool:
    try:
        _absolute(path).relative_to(_absolute(folder))
    except ValueError:
        return False
    return True


def _toml_files(folder: Path) -> list[Path]:
    """Codex's ``collect_agent_role_files``: regular ``*.toml`` files, recursive, sorted."""
    found: list[Path] = []

    def walk(directory: Path) -> None:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path))
            elif entry.is_file(follow_symlinks=False) and entry.name.endswith(".toml"):
                found.append(Path(entry.path))

    walk(folder)
    return sorted(found)


def read_bytes_text(path: Path) -> tuple[str | None, Finding | None]:
    """A file's text as Codex's ``read_to_string`` gets it, or why it cannot."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, _skip("CX008", f"cannot read {path}: {exc.strerror or exc}")
    if len(data) > MAX_FILE_BYTES:
        return None, _skip("CX008", f"{path} is over {MAX_FILE_BYTES:,} bytes; not read")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        width = exc.end - exc.start
        return None, _skip("CX008", f"invalid utf-8 sequence of {width} bytes from index "
                           f"{exc.start}", hint="save the file as UTF-8")


# --------------------------------------------------------------------------- config.toml roles

_AGENTS_SETTINGS = ("max_threads", "max_depth", "job_max_runtime_seconds")


@dataclass(slots=True)
class _Declared:
    """One ``[agents.<key>]`` table and the role Codex makes of it."""

    key: str
    role: _Role
    config_file: Path | None = None


def _declared_role(key: str, table: Mapping[str, Any], base: Path, label: str) -> _Declared:
    role = _Role(data={}, role_name=key)
    where = f"agents.{key}"
    config_file: Path | None = None
    raw_file = table.get("config_file")
    if raw_file is not None:
        if not isinstance(raw_file, str):
            role.error = _skip("CX011", f"invalid type: {type(raw_file).__name__}, expected a "
                               f"path in {where}.config_file", key="config_file")
            return _Declared(key, role)
        config_file = Path(raw_file) if os.path.isabs(raw_file) else base / raw_file
        if not config_file.exists():
            role.error = _skip("CX011", f"{where}.config_file must point to an existing file "
                               f"at {config_file}: No such file or directory (os error 2)",
                               key="config_file")
            return _Declared(key, role, config_file)
        if not config_file.is_file():
            role.error = _skip("CX011", f"{where}.config_file must point to a file: "
                               f"{config_file}", key="config_file")
            return _Declared(key, role, config_file)
    description = table.get("description")
    if isinstance(description, str):
        if not rust_trim(description):
            role.error = _skip("CX003", f"{where}.description cannot be blank",
                               key="description")
            return _Declared(key, role, config_file)
        role.description = rust_trim(description)
    nicknames = table.get("nickname_candidates")
    if isinstance(nicknames, list) and all(isinstance(n, str) for n in nicknames):
        bad = _nickname_problem(f"{where}.nickname_candidates", nicknames)
        if bad:
            role.error = _skip("CX006", bad, key="nickname_candidates")
            return _Declared(key, role, config_file)
        role.nicknames = [rust_trim(n) for n in nicknames]
    if config_file is not None:
        text, problem = read_bytes_text(config_file)
        if text is None:
            role.error = problem
            return _Declared(key, role, config_file)
        parsed = parse_role_text(text, str(config_file), hint_name=key)
        if parsed.error is not None:
            return _Declared(key, parsed, config_file)
        parsed.description = parsed.description or role.description
        parsed.nicknames = parsed.nicknames or role.nicknames
        role = parsed
    role.data = {**{k: v for k, v in table.items() if k != "config_file"}, **role.data}
    return _Declared(key, role, config_file)


def read_config_roles(text: str, path: Path | None) -> tuple[list[_Declared], Finding | None]:
    """The ``[agents.<role>]`` roles of one ``config.toml`` (or why Codex cannot start)."""
    label = str(path) if path is not None else "config.toml"
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        pos = _TOML_POS.search(str(exc))
        line = int(pos.group(1)) if pos else None
        return [], Finding("CX012", f"{label} is not valid TOML ({exc}); {WHO} does not "
                           "start with a broken config.toml", Effect.FATAL, line)
    agents = data.get("agents")
    if not isinstance(agents, Mapping):
        return [], None
    base = path.parent if path is not None else Path.cwd()
    out: list[_Declared] = []
    for key in sorted(k for k in agents if k not in _AGENTS_SETTINGS):
        table = agents[key]
        if not isinstance(table, Mapping):
            role = _Role(role_name=key)
            role.error = _skip("CX011", f"invalid type: {type(table).__name__}, expected "
                               f"struct AgentRoleToml at agents.{key} in {label} (every "
                               "role in this [agents] table is ignored)", key=key)
            return [_Declared(key, role)], None
        out.append(_declared_role(key, table, base, label))
    return out, None


def _declared_to_agents(declared: list[_Declared], path: Path | None) -> list[HarnessAgent]:
    agents: list[HarnessAgent] = []
    for item in declared:
        role = item.role
        if role.error is None and role.description is None:
            role.error = _missing_description(role.role_name or item.key)
        agents.append(role_to_agent(role, item.config_file or path,
                                    _builtin_note(role.role_name) if role.error is None else ()))
    return agents


# --------------------------------------------------------------------------- the harness

_TRUST_NOTE = (f"{WHO} reads project agents only when the project is trusted "
               "(`[projects.\"<path>\"] trust_level = \"trusted\"` in ~/.codex/config.toml, "
               "or `codex exec --trust`)")


def _untrusted(path: Path) -> HarnessAgent:
    finding = Finding(
        "CX009",
        f"not read: the project is not trusted. {WHO} prints \"Untrusted project-local "
        "configuration is disabled\" and ignores the project's .codex folder",
        Effect.INFO, None, None,
        "trust the project in Codex (or run `codex exec --trust`) to load its agents")
    return HarnessAgent("codex", path, Outcome.NOT_READ, None, findings=(finding,))


@dataclass(slots=True)
class _Entry:
    """One agent during the layer merge (mutable until the end)."""

    agent: HarnessAgent
    role: _Role | None = None
    extra: list[Finding] = field(default_factory=list)
    outcome: Outcome | None = None


class CodexHarness(TableHarness, dialect="codex"):
    """Codex CLI 0.169.0 (see the module docstring)."""


    def __init__(self, *, trusted: bool | None = None, codex_home: Path | None = None) -> None:
        self.trusted = trusted
        self.codex_home = codex_home

    # ------------------------------------------------------------------ places
    def _home_dir(self, home: Path) -> Path:
        return self.codex_home if self.codex_home is not None else home / ".codex"

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        return (
            Location(project / ".codex" / "agents", "project", True, (".toml",), 0),
            Location(project / ".codex" / "config.toml", "project", False, (".toml",), 0),
            Location(self._home_dir(home) / "agents", "user", True, (".toml",), 1),
            Location(self._home_dir(home) / "config.toml", "user", False, (".toml",), 1),
        )

    def project_trusted(self, project: Path, home: Path) -> bool:
        """Whether Codex trusts ``project`` (the setting, else the user's config.toml)."""
        if self.trusted is not None:
            return self.trusted
        config = self._home_dir(home) / "config.toml"
        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
            return False
        projects = data.get("projects")
        if not isinstance(projects, Mapping):
            return False
        entry = projects.get(str(_absolute(project)))
        return isinstance(entry, Mapping) and entry.get("trust_level") == "trusted"

    def _layers(self, project: Path, home: Path) -> list[tuple[str, Path]]:
        return [("user", self._home_dir(home)), ("project", project / ".codex")]

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        out: list[Path] = []
        for scope, folder in self._layers(project, home):
            if scope == "project" and not self.project_trusted(project, home):
                continue
            if (folder / "config.toml").is_file():
                out.append(folder / "config.toml")
            out.extend(_toml_files(folder / "agents"))
        return out

    def claims(self, path: Path) -> bool:
        parts = _absolute(path).parts
        if path.name == "config.toml":
            return (len(parts) >= 2 and parts[-2] == ".codex") or (
                self.codex_home is not None and _absolute(path.parent) == _absolute(
                    self.codex_home))
        if path.suffix != ".toml":
            return False
        if self.codex_home is not None and _under(path, self.codex_home / "agents"):
            return True
        return any(parts[i] == ".codex" and parts[i + 1] == "agents"
                   for i in range(len(parts) - 2))

    def _scope(self, path: Path | None) -> str | None:
        if path is None:
            return None
        home = self.codex_home if self.codex_home is not None else Path.home() / ".codex"
        if _under(path, home):
            return "user"
        return "project" if ".codex" in _absolute(path).parts else None

    # ------------------------------------------------------------------ reading
    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        scope = self._scope(path)
        if path is not None and path.name != "config.toml" and path.suffix != ".toml":
            return [HarnessAgent("codex", path, Outcome.NOT_READ, None, findings=(Finding(
                "CX013",
                f"not read: {WHO} reads only `.toml` files from .codex/agents/; a "
                f"`{path.suffix or path.name}` file there is ignored without a word",
                Effect.INFO, None, None,
                "convert it with `subagents convert --to codex` to get a .toml role file"),))]
        if scope == "project" and self.trusted is False:
            return [_untrusted(path)] if path is not None else []
        trust = [_info("CX009", _TRUST_NOTE)] if scope == "project" and self.trusted is None \
            else []
        if path is not None and path.name == "config.toml":
            declared, fatal = read_config_roles(text, path)
            if fatal is not None:
                return [HarnessAgent("codex", path, Outcome.FATAL, None, findings=(fatal,))]
            return _declared_to_agents(declared, path)
        role = parse_role_text(text, str(path) if path is not None else "<file>")
        extra = list(trust)
        if role.error is None and role.description is None:
            role.error = _missing_description(role.role_name or "?")
        if role.error is None:
            extra.extend(_builtin_note(role.role_name))
        return [role_to_agent(role, path, extra)]

    def read_path(self, path: Path) -> Sequence[HarnessAgent]:
        """Read one file from disk (bytes checked as Codex reads them) and judge it."""
        if path.suffix != ".toml":
            return self.read_text("", path)
        text, problem = read_bytes_text(path)
        if text is None:
            assert problem is not None
            return [HarnessAgent("codex", path, Outcome.SKIPPED, None, findings=(problem,))]
        return self.read_text(text, path)

    def load_all(self, project: Path, home: Path) -> list[HarnessAgent]:
        """Every agent file of both layers as Codex 0.169.0 ends up treating it: loaded,
        skipped (with why, including same-layer duplicates and roles a higher layer
        replaced), or not read (an untrusted project)."""
        entries: list[_Entry] = []
        winners: dict[str, _Entry] = {}
        for scope, folder in self._layers(project, home):
            if scope == "project" and not self.project_trusted(project, home):
                paths = ([folder / "config.toml"] if (folder / "config.toml").is_file() else [])
                entries.extend(_Entry(_untrusted(p)) for p in
                               [*paths, *_toml_files(folder / "agents")])
                continue
            layer = self._read_layer(folder, entries)
            for name in sorted(layer):
                entry = layer[name]
                assert entry.role is not None
                previous = winners.get(name)
                if previous is not None and previous.role is not None:
                    entry.role.description = entry.role.description or \
                        previous.role.description
                if entry.role.description is None:
                    entry.extra.append(_missing_description(name))
                    entry.outcome = Outcome.SKIPPED
                    continue
                if previous is not None:
                    previous.outcome = Outcome.SKIPPED
                    where = entry.agent.path or folder
                    previous.extra.append(_info(
                        "CX014", f"replaced by the {scope} layer's `{name}` ({where}): "
                        f"{WHO} uses the higher layer's agent"))
                winners[name] = entry
        for name, entry in winners.items():
            entry.extra.extend(_builtin_note(name))
        return [self._finish(e) for e in entries]

    def _finish(self, entry: _Entry) -> HarnessAgent:
        if entry.role is None:
            return entry.agent
        return role_to_agent(entry.role, entry.agent.path, entry.extra, outcome=entry.outcome)

    def _read_layer(self, folder: Path, entries: list[_Entry]) -> dict[str, _Entry]:
        layer: dict[str, _Entry] = {}
        declared_files: set[Path] = set()
        config = folder / "config.toml"
        if config.is_file():
            text, problem = read_bytes_text(config)
            declared, fatal = read_config_roles(text, config) if text is not None else (
                [], problem)
            if fatal is not None:
                entries.append(_Entry(HarnessAgent("codex", config, Outcome.FATAL, None,
                                                   findings=(fatal,))))
            for item in declared:
                entry = _Entry(HarnessAgent("codex", item.config_file or config,
                                            Outcome.SKIPPED, None), item.role)
                entries.append(entry)
                if item.config_file is not None:
                    declared_files.add(_absolute(item.config_file))
                name = item.role.role_name or item.key
                if item.role.error is None and name in layer:
                    entry.extra.append(_same_layer(name))
                    entry.outcome = Outcome.SKIPPED
                elif item.role.error is None:
                    layer[name] = entry
        in_dir: set[str] = set()
        agents_dir = folder / "agents"
        for path in _toml_files(agents_dir):
            if _absolute(path) in declared_files:
                continue
            text, problem = read_bytes_text(path)
            if text is None:
                assert problem is not None
                entries.append(_Entry(HarnessAgent("codex", path, Outcome.SKIPPED, None,
                                                   findings=(problem,))))
                continue
            role = parse_role_text(text, str(path))
            entry = _Entry(HarnessAgent("codex", path, Outcome.SKIPPED, None), role)
            entries.append(entry)
            if role.error is not None or role.role_name is None:
                continue
            if role.role_name in in_dir:
                entry.extra.append(_skip(
                    "CX015", f"duplicate agent role name `{role.role_name}` discovered in "
                    f"{agents_dir}", key="name", hint="give each agent its own `name`"))
                entry.outcome = Outcome.SKIPPED
            elif role.role_name in layer:
                entry.extra.append(_same_layer(role.role_name))
                entry.outcome = Outcome.SKIPPED
            else:
                in_dir.add(role.role_name)
                layer[role.role_name] = entry
        return layer

    # ------------------------------------------------------------------ writing
    def write(self, definition: AgentDefinition) -> WrittenFile:
        from subagents.harnesses.codex_write import write_codex

        return write_codex(definition)


def _same_layer(name: str) -> Finding:
    return _skip("CX015", f"duplicate agent role name `{name}` declared in the same config "
                 "layer", key="name", hint="give each agent its own `name`")


HARNESS = CodexHarness()
