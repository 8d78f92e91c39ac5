"""Which tools an agent is offered, and whether a call may run: enforced by the runner.

Two layers, both plain immutable values:

:class:`ToolFilter` — *what the model is offered* (pydantic-ai style "filtered toolset"):
    a stack of :class:`ToolRules` layers, one per ``tools`` / ``disallowedTools`` pair.  In each
    layer ``disallowedTools`` applies first, then the ``tools`` allowlist (``None`` = every tool).
    A tool is offered only if *every* layer offers it.  Entries may be plain names (``Read``),
    MCP patterns (``mcp__server``, ``mcp__server__tool``, ``mcp__server__*``) or rules with a
    specifier: ``Bash(git diff:*)`` (prefix), ``Bash(npm test)`` (exact), ``Edit(src/**)``
    (path glob), ``WebFetch(domain:example.com)``, ``Task(a, b)`` / ``Agent(a, b)`` (agents it
    may spawn).  In an allowlist a specifier offers the tool but only for matching calls; in a
    denylist a plain name removes the tool and a specifier refuses matching calls.  ``Bash``
    specifiers are judged on bash's syntax tree (:mod:`subagents.runtime.shellparse`): an allow
    rule covers only plain literal commands (each part of a list or pipeline covered by some
    rule), a deny rule finds its program anywhere bash would run it and fails closed.
    ``Agent(x)`` compares names as the Task tool looks them up (case and separators ignored)
    and also judges the per-agent tools ``agent__x``.

:class:`PermissionPolicy` — *whether an offered call may run now*: the permission mode, the
    pre-approved ``allow_rules`` from config, extra writable folders, whether
    ``bypassPermissions`` is allowed at all, and the ``ask`` callback.  :meth:`decide` goes:
    read-only tool → allowed, unless it reads outside the working folder(s) (then a path
    rule, bypass or the user's answer); ``plan`` → every mutating tool refused; a write outside the
    working folder (symlinks resolved) → refused unless under ``writable_dirs``;
    ``bypassPermissions`` (only if ``allow_bypass``, else it counts as ``default`` and a warning
    is recorded) → allowed; a write to a protected path (:mod:`subagents.runtime.protected`:
    ``.claude/``, ``.git/``, ``.subagents.toml``...) → only a path rule or the user's answer
    (never ``acceptEdits``, a plain rule, or ``--yes``); ``acceptEdits`` + a file-editing
    tool → allowed; a matching ``allow_rules`` entry → allowed; ``dontAsk`` → refused;
    otherwise ``ask(request)`` decides, and without a callback the call is refused with a
    hint (``--yes`` or an allow rule).
    ``auto`` and ``manual`` count as ``default`` (we have no classifier).  The working-folder
    check covers the file tools (their ``write_paths``); a shell command can write anywhere its
    user can, which is why ``Bash`` always needs permission outside ``bypassPermissions``.

Delegation never escapes (Claude Code #78063) — the API the Task tool uses::

    child_policy = parent_policy.restrict(child_agent)            # AgentDefinition or policy
    result = await runner.run(child_agent, prompt, policy=child_policy, parent=ctx)

``restrict`` appends the child's layer to the parent's filter stack (so the child is offered
the *intersection*: the parent's denylist and allowlist keep applying), takes the *stricter*
permission mode of the two (order: bypassPermissions < acceptEdits < default < dontAsk < plan;
a child cannot loosen its parent, which differs on purpose from Claude Code where a parent in
``bypassPermissions`` forces it on the child), and keeps the parent's allow rules, writable
folders, ``allow_bypass`` and ``ask`` (a child cannot grant itself any of them).
:meth:`AgentRunner.run` does this itself when given a ``policy``: the agent's own frontmatter is
always intersected with the policy passed in.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from subagents.known_tools import (
    AGENT_TOOL,
    ToolEntry,
    canonical_tool_name,
    is_agent_tool,
    parse_tool_entry,
)
from subagents.runtime.protected import protected_reason

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition
    from subagents.runtime.tools.base import Tool, ToolContext

__all__ = [
    "Decision",
    "PermissionAsk",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionRequest",
    "ToolFilter",
    "ToolRules",
    "normalize_mode",
]


class PermissionMode(StrEnum):
    BYPASS = "bypassPermissions"
    ACCEPT_EDITS = "acceptEdits"
    DEFAULT = "default"
    DONT_ASK = "dontAsk"
    PLAN = "plan"


_STRICTNESS = {m: i for i, m in enumerate(PermissionMode)}
_MODE_ALIASES = {"manual": PermissionMode.DEFAULT, "auto": PermissionMode.DEFAULT}
_FILE_FIELDS = ("file_path", "path", "notebook_path")
#: Agents offered as tools of their own (``agent__deployer``) are the Agent tool for rules.
AGENT_TOOL_PREFIX = "agent__"


def normalize_mode(mode: str | None) -> PermissionMode:
    """``None``/``manual``/``auto``/unknown -> ``default``; otherwise the mode itself."""
    if mode is None:
        return PermissionMode.DEFAULT
    if mode in _MODE_ALIASES:
        return _MODE_ALIASES[mode]
    try:
        return PermissionMode(mode)
    except ValueError:
        return PermissionMode.DEFAULT


_canon = canonical_tool_name  # Task -> Agent, KillBash -> KillShell (known_tools)


def _name_matches(entry: ToolEntry, tool_name: str) -> bool:
    if entry.raw.strip() == "*":
        return True
    if entry.is_mcp:
        if not tool_name.startswith(f"mcp__{entry.mcp_server}__") and tool_name != entry.raw:
            return False
        if entry.mcp_tool in (None, "*"):
            return True
        return fnmatch.fnmatchcase(tool_name, entry.raw)
    if tool_name.startswith(AGENT_TOOL_PREFIX) and is_agent_tool(entry.name):
        return True  # each agent offered as its own tool is still the Agent tool
    return _canon(entry.name) == _canon(tool_name)


def _parse(entries: Iterable[str] | None) -> tuple[ToolEntry, ...] | None:
    if entries is None:
        return None
    out: list[ToolEntry] = []
    for raw in entries:
        if raw.strip() == "*":
            out.append(ToolEntry("*", "*"))
            continue
        entry = parse_tool_entry(raw)
        if entry is not None:
            out.append(entry)
    return tuple(out)


def _shell_parts(command: str) -> list[list[str]] | None:
    """The plain simple commands of a command line (:func:`shellparse.plain_commands`)."""
    from subagents.runtime.shellparse import plain_commands

    return plain_commands(command)


def _command_matches(spec: str, words: list[str]) -> bool:
    from subagents.runtime.shellparse import allow_matches

    return allow_matches(spec, words)


def _agent_keys(name: str) -> set[str]:
    """The keys an agent name may be looked up by: the Task tool's normalisation (case and
    separators ignored), with and without a ``plugin:`` part."""
    from subagents.names import normalize_agent_name

    key = normalize_agent_name(name)
    keys = {key, key.replace(":", "")}
    if ":" in key:
        keys.add(key.rsplit(":", 1)[1])
    return keys


def _requested_agent(tool_name: str | None, input: Mapping[str, Any]) -> str:
    if tool_name and tool_name.startswith(AGENT_TOOL_PREFIX):
        return tool_name[len(AGENT_TOOL_PREFIX):]
    wanted = input.get("subagent_type")
    return wanted if isinstance(wanted, str) and wanted.strip() else "general-purpose"


def _agent_matches(names: Sequence[str], tool_name: str | None, input: Mapping[str, Any],
                   *, deny: bool) -> bool:
    wanted = _requested_agent(tool_name, input)
    keys = _agent_keys(wanted)
    if deny and tool_name and tool_name.startswith(AGENT_TOOL_PREFIX):
        # agent__name_2 (a de-duplicated tool name) still names ``name``
        keys |= {k.rstrip("0123456789") for k in keys}
    exact = _agent_key(wanted)
    for n in names:
        if n.strip() == "*":
            return True
        if (keys & _agent_keys(n)) if deny else _agent_key(n) == exact:
            return True
    return False


def _agent_key(name: str) -> str:
    from subagents.names import normalize_agent_name

    return normalize_agent_name(name).replace(":", "")


def _path_matches(spec: str, input: Mapping[str, Any], cwd: Path) -> bool:
    raw = next((input[f] for f in _FILE_FIELDS if isinstance(input.get(f), str)), None)
    if raw is None:
        raw = "."
    p = Path(raw).expanduser()
    absolute = (p if p.is_absolute() else cwd / p).resolve()
    try:
        rel = absolute.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        rel = None
    pattern = spec.strip()
    if pattern.startswith("./"):
        pattern = pattern[2:]
    candidates = [absolute.as_posix()] + ([rel] if rel is not None else [])
    pats = {pattern, pattern.replace("**/", ""), pattern.rstrip("/") + "/**" if
            pattern.endswith("/") else pattern}
    return any(fnmatch.fnmatchcase(c, pat) for c in candidates for pat in pats)


def spec_matches(entry: ToolEntry, input: Mapping[str, Any], cwd: Path, *, deny: bool,
                 tool_name: str | None = None) -> bool:
    """Does this call fall under ``entry``'s specifier?  Deny rules fail closed (whatever
    cannot be resolved matches), allow rules fail open to "not covered"."""
    spec = entry.specifier or ""
    name = _canon(entry.name)
    if name == "Bash":
        from subagents.runtime.shellparse import deny_matches

        command = str(input.get("command", ""))
        if deny:
            return deny_matches(spec, command)
        parts = _shell_parts(command)
        return bool(parts) and all(_command_matches(spec, p) for p in parts or ())
    if name == AGENT_TOOL:
        return _agent_matches(entry.agent_allowlist or (), tool_name, input, deny=deny)
    if name == "WebFetch" and spec.startswith("domain:"):
        host = (urlparse(str(input.get("url", ""))).hostname or "").lower()
        domain = spec.split(":", 1)[1].strip().lower()
        return host == domain or host.endswith("." + domain)
    if name in ("Read", "Write", "Edit", "MultiEdit", "LS", "Glob", "Grep", "NotebookEdit"):
        return _path_matches(spec, input, cwd)
    return deny  # a specifier we cannot interpret: deny rules bite, allow rules do not


def allow_covers(entries: Sequence[ToolEntry], input: Mapping[str, Any], cwd: Path,
                 tool_name: str | None = None) -> bool:
    """Do these allow entries (same tool, with specifiers) together cover this call?

    For ``Bash`` each simple command of a compound line may be covered by a different entry
    (``Bash(git diff:*)`` + ``Bash(wc:*)`` cover ``git diff | wc -l``).
    """
    if any(e.specifier is None for e in entries):
        return True
    if entries and _canon(entries[0].name) == "Bash":
        command = str(input.get("command", ""))
        parts = _shell_parts(command)
        if not parts:
            return False
        return all(any(_command_matches(e.specifier or "", p) for e in entries) for p in parts)
    return any(spec_matches(e, input, cwd, deny=False, tool_name=tool_name) for e in entries)


@dataclass(frozen=True, slots=True)
class ToolRules:
    """One ``tools`` / ``disallowedTools`` pair (one agent, or one config level)."""

    allow: tuple[ToolEntry, ...] | None = None
    deny: tuple[ToolEntry, ...] = ()
    label: str = "this agent"

    @classmethod
    def from_lists(
        cls,
        tools: Iterable[str] | None,
        disallowed: Iterable[str] | None = None,
        *,
        label: str = "this agent",
    ) -> ToolRules:
        return cls(_parse(tools), _parse(disallowed) or (), label)

    def offers(self, name: str) -> bool:
        # disallowedTools first: a plain entry removes the tool outright.
        if any(e.specifier is None and _name_matches(e, name) for e in self.deny):
            return False
        if self.allow is None:
            return True
        return any(_name_matches(e, name) for e in self.allow)

    def refusal(self, name: str, input: Mapping[str, Any], cwd: Path) -> str | None:
        for e in self.deny:
            if e.specifier is not None and _name_matches(e, name) and spec_matches(
                e, input, cwd, deny=True, tool_name=name
            ):
                return f"{e.raw} is in the disallowed tools of {self.label}"
        if self.allow is None:
            return None
        entries = [e for e in self.allow if _name_matches(e, name)]
        if entries and not allow_covers(entries, input, cwd, name):
            allowed = ", ".join(e.raw for e in entries)
            return f"{self.label} may use {name} only as {allowed}"
        return None


@dataclass(frozen=True, slots=True)
class ToolFilter:
    """A stack of :class:`ToolRules`; a tool/call must pass every layer."""

    layers: tuple[ToolRules, ...] = ()

    @classmethod
    def for_agent(cls, agent: AgentDefinition) -> ToolFilter:
        return cls((ToolRules.from_lists(agent.tools, agent.disallowed_tools,
                                         label=f"agent {agent.name!r}"),))

    def offers(self, name: str) -> bool:
        return all(layer.offers(name) for layer in self.layers)

    def refusal(self, name: str, input: Mapping[str, Any], cwd: Path) -> str | None:
        """Why this call is outside the rules, or ``None`` if every layer covers it."""
        for layer in self.layers:
            if not layer.offers(name):
                return f"{name} is not among the tools of {layer.label}"
            reason = layer.refusal(name, input, cwd)
            if reason:
                return reason
        return None

    def restrict(self, other: ToolFilter | ToolRules) -> ToolFilter:
        extra = other.layers if isinstance(other, ToolFilter) else (other,)
        return ToolFilter(self.layers + extra)

    def apply(self, tools: Mapping[str, Tool]) -> dict[str, Tool]:
        """The tools to offer, in their original order."""
        return {n: t for n, t in tools.items() if self.offers(n)}


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What the ``ask`` callback is asked about."""

    tool: str
    input: Mapping[str, Any]
    agent: str
    mode: str
    cwd: Path
    #: why the call writes a protected path (:mod:`subagents.runtime.protected`): a blanket
    #: approval (``--yes``) must not cover it; ``None`` for ordinary calls.
    protected: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    reason: str = ""
    #: refused only because there was no one to ask (no ``ask`` callback): ``--yes`` or an
    #: allow rule would have let it run.  The CLI says so once after the run.
    unasked: bool = False


PermissionAsk = Callable[[PermissionRequest], Awaitable[bool]]


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionPolicy:
    """How mutating calls are decided; see the module docstring for the order of checks."""

    mode: str = "default"
    tools: ToolFilter = field(default_factory=ToolFilter)
    allow_rules: tuple[str, ...] = ()
    writable_dirs: tuple[Path, ...] = ()
    allow_bypass: bool = False
    ask: PermissionAsk | None = None

    @property
    def effective_mode(self) -> PermissionMode:
        mode = normalize_mode(self.mode)
        if mode is PermissionMode.BYPASS and not self.allow_bypass:
            return PermissionMode.DEFAULT
        return mode

    @property
    def warnings(self) -> tuple[str, ...]:
        out: list[str] = []
        if normalize_mode(self.mode) is PermissionMode.BYPASS and not self.allow_bypass:
            out.append("permissionMode bypassPermissions is not allowed by configuration; "
                       "running in default mode (set allow_bypass / allow-bypass-permissions)")
        if self.mode not in (*PermissionMode, *_MODE_ALIASES):
            out.append(f"unknown permissionMode {self.mode!r}; running in default mode")
        return tuple(out)

    def warnings_for(self, agent: AgentDefinition) -> tuple[str, ...]:
        """What a run of ``agent`` under this policy should be told about its own mode."""
        mode = agent.permission_mode
        if mode is None:
            return ()
        if normalize_mode(mode) is PermissionMode.BYPASS and not self.allow_bypass:
            return (f"agent {agent.name!r} asks for permissionMode bypassPermissions, which "
                    "configuration does not allow (allow-bypass-permissions = true in "
                    ".subagents.toml); it runs in default mode",)
        if mode not in (*PermissionMode, *_MODE_ALIASES):
            return (f"agent {agent.name!r} has an unknown permissionMode {mode!r}; it runs in "
                    "default mode",)
        return ()

    def restrict(self, child: PermissionPolicy | AgentDefinition) -> PermissionPolicy:
        """The policy of a run started from this one: never looser than either side."""
        if isinstance(child, PermissionPolicy):
            child_mode: str | None = child.mode
            child_tools = child.tools
        else:
            child_mode = child.permission_mode
            child_tools = ToolFilter.for_agent(child)
        mode = self.effective_mode
        if child_mode is not None:
            c = normalize_mode(child_mode)
            if c is PermissionMode.BYPASS and not self.allow_bypass:
                c = PermissionMode.DEFAULT
            mode = max(mode, c, key=_STRICTNESS.__getitem__)
        return replace(self, mode=mode.value, tools=self.tools.restrict(child_tools))

    def covers_url(self, url: str, cwd: Path) -> bool:
        """Would this policy let ``WebFetch`` reach ``url`` without asking (a redirect hop)?"""
        if self.effective_mode is PermissionMode.BYPASS:
            return True
        rules = [r for r in _parse(self.allow_rules) or () if _name_matches(r, "WebFetch")]
        return bool(rules) and allow_covers(rules, {"url": url}, cwd, "WebFetch")

    def _write_allowed(self, path: Path, cwd: Path) -> bool:
        return any(path.is_relative_to(root.resolve()) for root in (cwd, *self.writable_dirs))

    async def decide(self, tool: Tool, input: Mapping[str, Any], ctx: ToolContext) -> Decision:
        if tool.read_only:
            # the run's own saved tool output (a long Bash result) is the model's to read
            saved = ctx.extra.get("tool_results_dir")
            own = Path(saved).resolve() if saved else None
            outside = [str(p) for p in (ctx.resolve(r) for r in tool.read_paths(input))
                       if not self._write_allowed(p, ctx.cwd)
                       and not (own is not None and p.is_relative_to(own))]
            if not outside:
                return Decision(True, "read-only tool")
            return await self._decide_outside_read(tool, input, ctx, outside)
        mode = self.effective_mode
        if mode is PermissionMode.PLAN:
            return Decision(False, f"permission mode is plan: {tool.name} changes things and "
                                   "plan mode only reads; describe the change instead")
        protected: list[str] = []
        for raw in tool.write_paths(input):
            target = ctx.resolve(raw)
            if not self._write_allowed(target, ctx.cwd):
                return Decision(False, f"{target} is outside the working folder {ctx.cwd}; "
                                       "writes there are not allowed")
            why = protected_reason(target)
            if why:
                protected.append(f"{target} ({why})")
        if mode is PermissionMode.BYPASS:
            return Decision(True, "bypassPermissions")
        if protected:
            return await self._decide_protected(tool, input, ctx, mode, protected)
        if mode is PermissionMode.ACCEPT_EDITS and tool.edits_files:
            return Decision(True, "acceptEdits")
        rules = [r for r in _parse(self.allow_rules) or () if _name_matches(r, tool.name)]
        if rules and allow_covers(rules, input, ctx.cwd, tool.name):
            return Decision(True, f"allowed by rule {', '.join(r.raw for r in rules)}")
        if mode is PermissionMode.DONT_ASK:
            return Decision(False, f"{tool.name} needs permission and permission mode dontAsk "
                                   "never asks; add an allow rule in config")
        if self.ask is None:
            return Decision(False, f"{tool.name} needs permission and there is no one to ask; "
                                   "re-run with --yes, or add an allow rule (e.g. "
                                   f"{_rule_hint(tool.name, input)}) in config", unasked=True)
        allowed = await self.ask(PermissionRequest(tool.name, dict(input), ctx.agent_name,
                                                   mode.value, ctx.cwd))
        return Decision(allowed, "approved" if allowed else f"the user refused {tool.name}")


    async def _decide_outside_read(self, tool: Tool, input: Mapping[str, Any],
                                   ctx: ToolContext, outside: Sequence[str]) -> Decision:
        """A read outside the working folder(s) (``~/.ssh/id_ed25519``): as in Claude Code,
        it needs permission — a path rule, bypass mode, or the user's answer."""
        if self.effective_mode is PermissionMode.BYPASS:
            return Decision(True, "bypassPermissions")
        rules = [r for r in _parse(self.allow_rules) or ()
                 if _name_matches(r, tool.name) and r.specifier is not None]
        if rules and any(spec_matches(r, input, ctx.cwd, deny=False) for r in rules):
            return Decision(True, f"allowed by rule {', '.join(r.raw for r in rules)}")
        what = ", ".join(outside)
        if self.effective_mode is PermissionMode.DONT_ASK or self.ask is None:
            return Decision(False, f"{what} is outside the working folder {ctx.cwd}; reading "
                                   f"it needs permission (a rule such as {tool.name}({what}) "
                                   "in config, or approval when asked)",
                            unasked=self.ask is None)
        allowed = await self.ask(PermissionRequest(tool.name, dict(input), ctx.agent_name,
                                                   self.effective_mode.value, ctx.cwd))
        return Decision(allowed, "approved" if allowed else f"the user refused {tool.name}")

    async def _decide_protected(self, tool: Tool, input: Mapping[str, Any], ctx: ToolContext,
                                mode: PermissionMode, protected: Sequence[str]) -> Decision:
        """A write to a protected path: only a path rule or the user approve it (see
        :mod:`subagents.runtime.protected`); ``acceptEdits`` and plain rules do not."""
        rules = [r for r in _parse(self.allow_rules) or ()
                 if _name_matches(r, tool.name) and r.specifier is not None]
        if rules and any(spec_matches(r, input, ctx.cwd, deny=False) for r in rules):
            return Decision(True, f"allowed by rule {', '.join(r.raw for r in rules)}")
        what = "; ".join(protected)
        if mode is PermissionMode.DONT_ASK or self.ask is None:
            return Decision(False, f"{what} is protected: a change there can make commands run "
                                   "later, so it needs explicit permission (a path rule such as "
                                   f"{tool.name}(.claude/**) in config, or approval when asked)",
                            unasked=self.ask is None and mode is not PermissionMode.DONT_ASK)
        allowed = await self.ask(PermissionRequest(tool.name, dict(input), ctx.agent_name,
                                                   mode.value, ctx.cwd,
                                                   protected=f"it writes {what}"))
        return Decision(allowed, "approved" if allowed else
                        f"{what} is protected and the write was not approved")


def _rule_hint(name: str, input: Mapping[str, Any]) -> str:
    if name == "Bash" and isinstance(input.get("command"), str):
        command = input["command"]
        parts = _shell_parts(command)
        # A prefix rule never covers redirection or command substitution: suggesting one
        # that would not work is worse than suggesting the plain tool name.
        if not parts:
            return "Bash"
        rules = []
        for words in parts:
            rule = f"Bash({' '.join(words[:2])}:*)"
            if rule not in rules:
                rules.append(rule)
        return " and ".join(rules)
    return name


def allow_rules_from(entries: Sequence[str]) -> tuple[str, ...]:
    """Validate config allow rules; unknown shapes are dropped (the config rules report them)."""
    return tuple(e for e in entries if e.strip() == "*" or parse_tool_entry(e) is not None)
