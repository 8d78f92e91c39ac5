"""SA1xx: required fields and values - an error wherever Claude Code would skip the file or a
field has a value outside its definition.

Design notes
------------
* Type errors (``maxTurns: ten``, ``tags: a, b``) are found by the reader (``SA014``) and
  carry the field's code here (``validate._recode``: SA108, SA113, ...); these rules judge
  *values* of the right type (``maxTurns: 0``, a tag that is an empty string).
* ``name``: Claude Code skips a file whose name contains ``:`` or starts with ``-``
  (REFERENCE.md); the specification's stricter lowercase-hyphen format is ``SA206`` (spec).
  Codex and JSON have their own name rules (``SA501``/``SA504``).
* Tools: the specification's list plus today's Claude Code tools (``known_tools``), ``mcp__`` forms,
  ``Agent(a, b)`` allowlists, ``Bash(git diff:*)`` rules and configured ``extra-tools``.
  Codex tool identifiers are its own (``apply_patch``) and are not judged against Claude's.
* Models: an alias (``sonnet``, ``opus``, ``haiku``, ``fable``, ``inherit``, optionally with
  Claude Code's ``[1m]`` suffix), a configured ``model-aliases`` key, or a well-formed full id
  (``claude-...``, Bedrock ``...anthropic.claude-...``, a Bedrock ARN).  Codex models are free
  text ("handled at orchestration time").
* Hooks are judged on the raw YAML node when there is one (the reader keeps only well-formed
  groups), so a malformed entry is pointed at exactly.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from subagents._lazy_re import lazy_compile
from subagents.claude_code.profile import get_profile
from subagents.definition import HOOK_EVENTS, MODEL_ALIASES, PERMISSION_MODES, AgentDefinition
from subagents.definition import Dialect as D
from subagents.diagnostics import Diagnostic
from subagents.formats.yamltree import YMap, YNode, YScalar, YSeq
from subagents.known_tools import BUILTIN_TOOLS, is_known_tool, parse_tool_entry
from subagents.lint.rules.base import DefinitionRule, RuleContext, applies, quiet_when
from subagents.lint.rules.catalog import check

__all__ = ["RULES", "is_valid_model"]

_SEMVER_RE = lazy_compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)
_MODEL_ID_RE = lazy_compile(
    r"^(?:claude-[a-z0-9][a-z0-9.-]*[a-z0-9](?:@\d{8})?"  # first-party / Vertex
    r"|(?:[a-z]{2,4}\.)?anthropic\.claude-[a-z0-9.-]+(?::\d+)?"  # Bedrock model id
    r"|arn:aws:bedrock:[a-z0-9-]+:\d*:[a-z-]+/[A-Za-z0-9.:/_-]+)"  # Bedrock ARN
    r"(?:\[1m\])?$"
)
_EFFORTS = ("low", "medium", "high", "xhigh", "max")
# Claude Code 2.1.330 accepts both (measured: `remote` loads and is applied)
_ISOLATIONS = ("worktree", "remote")
_HOOK_TYPES = ("command", "prompt", "agent", "http")
_PERMISSION_HINT = ", ".join(PERMISSION_MODES)


def is_valid_model(model: str, aliases: Collection[str] = frozenset()) -> bool:
    m = model.strip()
    base = m.removesuffix("[1m]")
    # Claude Code matches aliases case-insensitively (`model: Sonnet` runs on Sonnet).
    return base.lower() in MODEL_ALIASES or m in aliases or _MODEL_ID_RE.match(m) is not None


def _md(defn: AgentDefinition) -> bool:
    return defn.dialect in (D.CLAUDE, D.CODEX_MD)


def _has_field(defn: AgentDefinition, ctx: RuleContext, key: str) -> bool:
    if ctx.document is not None:
        return ctx.node(defn, key) is not None
    return defn.location_of(key) is not None


@applies(only=(D.CLAUDE, D.CODEX_MD), on_claude_code=False)
@check("SA101", "SA102")
def check_name(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.dialect is D.CLAUDE and ctx.claude_code:
        return  # Claude Code's own name rules decide (rules/claude_code.py)
    if ctx.type_error_at(defn, "name"):
        return  # the reader's SA014 says it is not a string
    if not defn.name.strip():
        if defn.dialect is D.CODEX_MD or defn.dialect is D.CLAUDE:
            present = _has_field(defn, ctx, "name")
            yield ctx.diag(
                "SA102",
                ctx.key_pos(defn, "name"),
                "`name` is empty" if present else "`name` is missing; Claude Code skips this file",
                "add `name: my-agent` (lowercase letters, digits and hyphens) to the frontmatter",
            )
        return
    if defn.dialect is not D.CLAUDE:
        return
    name = defn.name
    if ":" in name or name.startswith("-"):
        why = "contains `:`" if ":" in name else "starts with `-`"
        yield ctx.diag(
            "SA101",
            ctx.value_pos(defn, "name"),
            f"`name` {name!r} {why}; Claude Code skips this file",
            "use lowercase letters, digits and hyphens, e.g. `name: code-reviewer`",
        )


@applies(never=(D.CODEX_MD,), on_claude_code=False)
@check("SA103")
def check_description(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.dialect is D.CLAUDE and ctx.claude_code:
        return  # Claude Code's own description rule decides (rules/claude_code.py)
    if defn.dialect is D.CODEX_MD or ctx.type_error_at(defn, "description"):
        return  # optional in Codex; a wrong type is the reader's SA014
    if not defn.description.strip():
        present = _has_field(defn, ctx, "description")
        skip = "; Claude Code skips this file" if defn.dialect is D.CLAUDE else ""
        yield ctx.diag(
            "SA103",
            ctx.key_pos(defn, "description"),
            ("`description` is empty" if present else "`description` is missing") + skip,
            "describe when to use the agent: `description: Reviews diffs for security issues`",
        )


_MAX_SUGGESTIONS = 20


@quiet_when(tools=None, disallowed_tools=None)
@applies(never=(D.CODEX_MD,))
@check("SA104")
def check_tools(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.dialect is D.CODEX_MD:
        return
    extra = ctx.config.extra_tools
    unknown = 0
    profile = None
    if defn.dialect is D.CLAUDE:
        profile = get_profile(ctx.config.claude_code)  # (imported with the module: once)
    # Most files of a tree give one of a few lists, every entry known: a pair of lists found
    # quiet once for this profile and these extra tools is answered by one look-up.
    lists: tuple[object, object] | None = (defn.tools, defn.disallowed_tools)
    memo = _QUIET_TOOLS[0]
    if memo[0] is not profile or memo[1] is not extra or len(memo[2]) >= _QUIET_MAX:
        memo = _QUIET_TOOLS[0] = (profile, extra, set())
    known = memo[2]  # (this memo's set, even if another thread replaces the memo)
    try:
        if lists in known:
            return
    except TypeError:  # (lists not given as tuples of strings: not remembered)
        lists = None
    said = False
    for key in ("tools", "disallowed_tools"):
        entries = getattr(defn, key)
        if not entries:
            continue
        spelled = "tools" if key == "tools" else "disallowedTools"
        for i, raw in enumerate(entries):
            kind = profile.tool_kind(raw.strip()) if profile is not None else None
            if kind == "main-thread" and key == "tools" and profile is not None:
                said = True
                yield ctx.diag(
                    "SA104", ctx.item_pos(defn, key, i, raw),
                    f"`tools`: {raw.strip()!r} is a main-thread tool in {profile.label}; "
                    "a subagent never gets it", "remove it from the agent's tools")
                continue
            # exact names first: most entries are plain built-ins, and an `extra-tools` name
            # is taken as written (`computer-use` is not shaped like a tool identifier, but the
            # user said it exists); a tool the chosen Claude Code gives (directly, deferred
            # through ToolSearch, or named in its typings) is known
            if kind is not None or raw in BUILTIN_TOOLS or raw.strip() in extra \
                    or is_known_tool(raw, extra):
                continue
            entry = parse_tool_entry(raw)
            if entry is None and not raw.strip():
                what = "an empty entry"
            elif entry is None:
                what = f"unknown tool {raw!r}"
            elif entry.specifier is not None:
                what = f"{entry.name!r} in {raw!r} is not a known tool"
            else:
                what = f"unknown tool {raw!r}"
            if any(c in raw for c in "/:."):
                hint = "MCP tools are written `mcp__server__tool` (or `mcp__server` for all)"
            elif re.fullmatch(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+", raw.strip()):
                n = raw.strip()
                hint = (f"if {n!r} is an agent, allow spawning it with `Agent({n})`; if it is "
                        f"an MCP server, write `mcp__{n}`")
            else:
                # a suggestion costs a fuzzy match against every tool name: the first few
                # unknown entries get one, a list of thousands does not make validate crawl
                suggest = unknown < _MAX_SUGGESTIONS
                unknown += 1
                close = _close_tool(entry.name if entry is not None else raw.strip(),
                                    extra) if suggest else None
                hint = (f"did you mean {close!r}? " if close else "") + (
                    "`subagents rules` lists the known tools; `extra-tools` in "
                    "[tool.subagents] adds your own")
            if profile is not None:
                label = profile.label
                what += (
                    f"; {label} lists it but drops it when spawning the agent"
                    if key == "tools"
                    else f"; {label} disallows nothing by it"
                )
            said = True
            yield ctx.diag("SA104", ctx.item_pos(defn, key, i, raw), f"`{spelled}`: {what}", hint)
    if not said and lists is not None:
        known.add(lists)


# [(profile, extra tools, the pairs (tools, disallowed tools) in which check_tools found
# nothing for them)]: one profile and one set of extra tools at a time, at most _QUIET_MAX
# pairs; what the check says of a pair depends on nothing else
_QUIET_TOOLS: list[tuple[object, object, set[tuple[object, object]]]] = [(None, None, set())]
_QUIET_MAX = 1024


def _close_tool(name: str, extra: frozenset[str]) -> str | None:
    import difflib  # only when a tool is unknown

    from subagents.known_tools import BUILTIN_TOOLS

    # Words people write for a tool (other harnesses' names, plain English) count as
    # candidates too, so `Serach` suggests Grep rather than the merely similar WebSearch.
    by_lower = {**_TOOL_WORDS, **{t.lower(): t for t in sorted(BUILTIN_TOOLS | extra)}}
    found = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[found[0]] if found else None


_TOOL_WORDS = {
    "search": "Grep",
    "find": "Glob",
    "shell": "Bash",
    "terminal": "Bash",
    "execute": "Bash",
    "fetch": "WebFetch",
    "browse": "WebFetch",
    "todo": "TodoWrite",
    "list": "LS",
    "view": "Read",
    "create": "Write",
}


@quiet_when(model=None)
@applies(never=(D.CODEX_MD,))
@check("SA105")
def check_model(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    model = defn.model
    if model is None or defn.dialect is D.CODEX_MD:
        return
    # (the configured aliases asked as they are: `in` of the mapping reads its keys)
    aliases = ctx.config.model_aliases
    if not aliases:  # (most runs: a model found valid once is valid; a few recur in a tree)
        if model in _VALID_MODELS:
            return
        if is_valid_model(model):
            if len(_VALID_MODELS) < _QUIET_MAX:
                _VALID_MODELS.add(model)
            return
    elif is_valid_model(model, aliases):
        return
    label = get_profile(ctx.config.claude_code).label
    yield ctx.diag(
        "SA105",
        ctx.value_pos(defn, "model"),
        f"`model` {defn.model!r} is neither a known alias nor a well-formed model id"
        + (
            f"; {label} sends it to the API as written, which refuses unknown models"
            if defn.dialect is D.CLAUDE
            else ""
        ),
        "use sonnet, opus, haiku, fable or inherit, a full id such as "
        "`claude-sonnet-4-5`, or define the alias under [tool.subagents.model-aliases]",
    )


#: Models :func:`is_valid_model` accepted with no configured alias (at most _QUIET_MAX).
_VALID_MODELS: set[str] = set()


@quiet_when(permission_mode=None, effort=None, isolation=None)
@check("SA106", "SA115", "SA116")
def check_enums(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    pm = defn.permission_mode
    if pm is not None and pm not in PERMISSION_MODES:
        yield ctx.diag(
            "SA106",
            ctx.value_pos(defn, "permission_mode"),
            f"`permissionMode` {pm!r} is not a permission mode",
            f"use one of: {_PERMISSION_HINT}",
        )
    if defn.effort is not None and defn.effort not in _EFFORTS:
        yield ctx.diag(
            "SA115",
            ctx.value_pos(defn, "effort"),
            f"`effort` {defn.effort!r} is not an effort level",
            "use one of: " + ", ".join(_EFFORTS),
        )
    if defn.isolation is not None and defn.isolation not in _ISOLATIONS:
        yield ctx.diag(
            "SA116",
            ctx.value_pos(defn, "isolation"),
            f"`isolation` {defn.isolation!r} is not an isolation mode",
            "use `isolation: worktree` or `isolation: remote`",
        )


@quiet_when(tools=None)
@check("SA107")
def check_tool_conflict(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.tools is not None and defn.disallowed_tools is not None:
        yield ctx.diag(
            "SA107",
            ctx.key_pos(defn, "disallowed_tools"),
            "`tools` and `disallowedTools` are both set",
            "Claude Code subtracts one from the other, other harnesses may not: list only the "
            "allowed tools in `tools`, or drop `tools` and keep `disallowedTools`",
        )


@quiet_when(max_turns=None)
@check("SA108")
def check_max_turns(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.max_turns is not None and defn.max_turns <= 0:
        yield ctx.diag(
            "SA108",
            ctx.value_pos(defn, "max_turns"),
            f"`maxTurns` is {defn.max_turns}; it must be a positive whole number",
            "write e.g. `maxTurns: 30`, or remove the field for no limit",
        )


@quiet_when(version=None, tags=None)
@check("SA112", "SA113")
def check_metadata(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.version is not None and not _SEMVER_RE.match(defn.version.strip()):
        yield ctx.diag(
            "SA112",
            ctx.value_pos(defn, "version"),
            f"`version` {defn.version!r} is not semantic versioning (MAJOR.MINOR.PATCH)",
            'write e.g. `version: "1.0.0"`',
        )
    if defn.tags is not None:
        for i, tag in enumerate(defn.tags):
            if not tag.strip():
                yield ctx.diag(
                    "SA113",
                    ctx.item_pos(defn, "tags", i, tag),
                    "`tags` holds an empty string",
                    "remove the empty entry",
                )


@check("SA114")
def check_prompt(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    prompt = defn.system_prompt
    if prompt and not prompt.isspace():  # (`prompt.strip()`, without copying the prompt)
        return
    if defn.dialect is D.JSON:
        pos = ctx.key_pos(defn, "system_prompt")
        hint = 'add `"prompt": "You are ..."` to the agent'
    else:
        pos = ctx.body_pos(defn)
        hint = "write the agent's instructions below the closing `---`"
    yield ctx.diag("SA114", pos, "the system prompt is empty", hint)


@quiet_when(mcp_servers=())
@check("SA111")
def check_mcp_servers(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    for server in defn.mcp_servers:
        if server.reference or server.command or server.url:
            continue
        yield ctx.diag(
            "SA111",
            ctx.map_key_pos(defn, "mcp_servers", server.name),
            f"MCP server {server.name!r} has neither `command` nor `url`",
            "give `command:` (and `args:`) for a local server or `url:` for a remote one",
        )


@check("SA109", "SA110")
def check_hooks(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    document = ctx.document
    # (most files: no hooks, and no `hooks:` key the reader could have dropped as malformed;
    # `hooks` is the field's only spelling, tests/test_engine_quiet.py holds it)
    if not defn.hooks and (document is None or "hooks" not in document.fields):
        return
    node = ctx.node(defn, "hooks")
    if isinstance(node, YMap):
        yield from _hooks_node(defn, ctx, node)
        return
    if node is not None or not defn.hooks:
        return  # wrong type: the reader's SA014; or no hooks at all
    events = _hook_events(defn, ctx)
    for event, groups in defn.hooks.items():
        pos = ctx.key_pos(defn, "hooks")
        if event not in events:
            yield _unknown_event(ctx, pos, event, events)
        for group in groups:
            for cmd in group.hooks:
                problem = _command_problem(cmd.type, cmd.command, cmd.prompt, cmd.extra)
                if problem:
                    yield ctx.diag("SA110", pos, f"hook for {event}: {problem}", _HOOK_HINT)


_HOOK_HINT = (
    "a hook is `EVENT: [{matcher: \"Bash\", hooks: [{type: command, command: \"...\"}]}]`"
)


def _hook_events(defn: AgentDefinition, ctx: RuleContext) -> tuple[str, ...]:
    """The hook events of the chosen Claude Code version (its published list) for a Claude
    agent; the newest list for the other dialects."""
    if defn.dialect is D.CLAUDE:
        return get_profile(ctx.config.claude_code).hook_events or HOOK_EVENTS
    return HOOK_EVENTS


def _unknown_event(ctx: RuleContext, pos: tuple[int, int], event: str,
                   events: tuple[str, ...] = HOOK_EVENTS) -> Diagnostic:
    close = [e for e in events if e.lower() == event.lower().replace("_", "")]
    hint = f"did you mean {close[0]}?" if close else "events include PreToolUse, PostToolUse, " \
        "Stop, SubagentStop, UserPromptSubmit, Notification, SessionStart"
    return ctx.diag("SA109", pos, f"`hooks`: {event!r} is not a hook event", hint)


def _command_problem(
    kind: str, command: object, prompt: object, extra: object
) -> str | None:
    if kind not in _HOOK_TYPES:
        return f"type {kind!r} is not one of {', '.join(_HOOK_TYPES)}"
    if kind == "command" and not (isinstance(command, str) and command.strip()):
        return "a `command` hook needs a non-empty `command`"
    if kind in ("prompt", "agent") and not (isinstance(prompt, str) and prompt.strip()):
        return f"a `{kind}` hook needs a non-empty `prompt`"
    if kind == "http" and not (isinstance(extra, dict) and isinstance(extra.get("url"), str)):
        return "an `http` hook needs a `url`"
    return None


def _hooks_node(defn: AgentDefinition, ctx: RuleContext, node: YMap) -> Iterator[Diagnostic]:
    events = _hook_events(defn, ctx)
    for key, groups in node.pairs:
        event = key.value
        if event not in events:
            yield _unknown_event(ctx, (key.line, key.column), event, events)
        if not isinstance(groups, YSeq):
            yield ctx.diag("SA110", (groups.line, groups.column),
                           f"hooks for {event} must be a list of matcher groups", _HOOK_HINT)
            continue
        for group in groups.items:
            yield from _group_node(ctx, event, group)


def _group_node(ctx: RuleContext, event: str, group: YNode) -> Iterator[Diagnostic]:
    if not isinstance(group, YMap):
        yield ctx.diag("SA110", (group.line, group.column),
                       f"a {event} entry must be a mapping with `hooks:`", _HOOK_HINT)
        return
    for k, v in group.pairs:
        if k.value not in ("matcher", "hooks"):
            yield ctx.diag("SA110", (k.line, k.column),
                           f"unexpected key {k.value!r} in a {event} matcher group", _HOOK_HINT)
        elif k.value == "matcher" and not isinstance(v, YScalar):
            yield ctx.diag("SA110", (v.line, v.column), "`matcher` must be a string", _HOOK_HINT)
    hooks = group.get("hooks")
    if not isinstance(hooks, YSeq) or not hooks.items:
        where = hooks if hooks is not None else group
        yield ctx.diag("SA110", (where.line, where.column),
                       f"a {event} matcher group needs a non-empty `hooks:` list", _HOOK_HINT)
        return
    for h in hooks.items:
        if not isinstance(h, YMap):
            yield ctx.diag("SA110", (h.line, h.column),
                           "each hook must be a mapping like `{type: command, command: ...}`",
                           _HOOK_HINT)
            continue
        py = h.to_python()
        kind = py.get("type", "command")
        problem = _command_problem(
            str(kind), py.get("command"), py.get("prompt"), py
        )
        timeout = py.get("timeout")
        if problem is None and timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0
        ):
            problem = "`timeout` must be a positive number of seconds"
        if problem:
            yield ctx.diag("SA110", (h.line, h.column), f"hook for {event}: {problem}",
                           _HOOK_HINT)


RULES: tuple[DefinitionRule, ...] = (
    check_name,
    check_description,
    check_tools,
    check_model,
    check_enums,
    check_tool_conflict,
    check_max_turns,
    check_metadata,
    check_prompt,
    check_mcp_servers,
    check_hooks,
)
