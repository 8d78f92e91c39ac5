"""The ``Task`` tool (alias ``Agent``) and the per-agent tools, built from a set of agents.

The mechanism: the model learns which agents exist only from the Task tool's
description, one line per agent (``- name: description (Tools: ...)``, REFERENCE.md), and
delegates by calling it with ``{description, prompt, subagent_type}``.  The format
specification (``docs/spec.md``) adds the "agents are tools" view:
``agent_tool_definitions`` offers each agent as its own tool.

Design decisions
----------------
* **Built fresh per main-thread request** from whatever definitions the caller passes, so a
  registry that changed since the last request is reflected (the dispatcher re-reads it too).
* **Built-in ``general-purpose``** (all tools) is added unless an agent of that name exists
  (compared ignoring case and separators, like every name here): a project agent overrides a
  built-in, as in Claude Code.
* **Budget.**  A description listing 600 agents would cost tens of thousands of tokens on every
  request and confuse the model anyway.  Past ``budget_chars`` the listing
  is shortlisted by the router against the current request (general-purpose and any pinned
  agent always kept), each line capped, and the description *says so* and names the agents left
  out while that fits, so the model knows they exist and ``subagent_type`` still accepts them.
* **Names** match ignoring case and the separators ``-``, ``_``, ``.`` and spaces
  (``Code Reviewer`` → ``code-reviewer``).  An ambiguous normalised name resolves to the first
  definition given (the caller passes them in precedence order).
* **API-safe per-agent tool names**: Anthropic and OpenAI accept ``^[a-zA-Z0-9_-]{1,64}$``, so
  the specification's ``agent:{name}`` becomes ``agent__{name}`` with any other character
  replaced by ``_``, cut to 64 and de-duplicated with a numeric suffix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from subagents.definition import AgentDefinition
from subagents.errors import SubagentError
from subagents.harnesses.layout import BUILTIN_AGENTS
from subagents.known_tools import AGENT_TOOL_NAMES
from subagents.names import normalize_agent_name
from subagents.providers.base import ToolSpec

__all__ = [
    "AGENT_TOOL_PREFIX",
    "DEFAULT_BUDGET_CHARS",
    "GENERAL_PURPOSE",
    "TASK_TOOL_ALIASES",
    "TASK_TOOL_NAME",
    "TaskCall",
    "TaskInputError",
    "agent_tool_definitions",
    "agent_tool_map",
    "agent_tool_name",
    "build_task_tool",
    "describe_tools",
    "normalize_agent_name",
    "parse_task_input",
    "resolve_agent",
    "task_tool_description",
    "with_builtins",
]

TASK_TOOL_NAME = "Task"
# Claude Code renamed Task to Agent and still accepts Task (REFERENCE.md): accept both.
TASK_TOOL_ALIASES: frozenset[str] = AGENT_TOOL_NAMES
AGENT_TOOL_PREFIX = "agent__"
DEFAULT_BUDGET_CHARS = 12_000
# When over budget, one agent line is cut to this many characters of description.
_SHORT_DESCRIPTION = 300
_NOTE_RESERVE = 450  # room kept for the "only N of M agents are listed" sentence

# Claude Code's built-in agents (general-purpose, Explore, Plan; REFERENCE.md): one definition,
# in subagents.harnesses.layout, shared by the registry and the Task tool.
GENERAL_PURPOSE = BUILTIN_AGENTS[0]



def with_builtins(definitions: Iterable[AgentDefinition]) -> list[AgentDefinition]:
    """``definitions`` plus the built-in agents (general-purpose, Explore, Plan) that none of
    them overrides by name (REFERENCE.md: a user or project agent of the same name wins)."""
    out = list(definitions)
    names = {normalize_agent_name(d.name) for d in out}
    out.extend(b for b in BUILTIN_AGENTS if normalize_agent_name(b.name) not in names)
    return out


def resolve_agent(
    requested: str, definitions: Iterable[AgentDefinition]
) -> AgentDefinition | None:
    """The definition ``requested`` names (exact name first, then ignoring case/separators;
    plugin agents also by ``plugin:name``)."""
    defs = list(definitions)
    for d in defs:
        if requested in (d.name, d.qualified_name):
            return d
    key = normalize_agent_name(requested)
    for d in defs:
        if key in (normalize_agent_name(d.name), normalize_agent_name(d.qualified_name)):
            return d
    return None


def describe_tools(agent: AgentDefinition) -> str:
    """What goes in ``(Tools: ...)``, worded as Claude Code prints it: ``*`` for every tool
    (``- general-purpose: ... (Tools: *)``), ``All tools except X, Y`` when some are denied,
    else the list."""
    denied = list(agent.disallowed_tools or ())
    if agent.tools is None:
        return f"All tools except {', '.join(denied)}" if denied else "*"
    allowed = [t for t in agent.tools if t not in denied]
    return ", ".join(allowed) if allowed else "None"


def _agent_line(agent: AgentDefinition, max_description: int | None) -> str:
    desc = agent.description.strip() or "(no description)"
    if max_description is not None and len(desc) > max_description:
        desc = desc[: max_description - 1].rstrip() + "…"
    return f"- {agent.qualified_name}: {desc} (Tools: {describe_tools(agent)})"


_PREAMBLE = """\
Launch a new agent to handle a complex, multi-step task autonomously.

Each agent type is a specialist with its own instructions, model and tools. The agent starts \
with a fresh, empty context: it does not see this conversation, only the prompt you write, so \
the prompt must say everything it needs (goal, relevant files, constraints, and what to \
report back). The agent's final message is returned to you as this tool's result; the user \
does not see it, so summarise what matters.

When to use this tool:
- The request matches an agent's description below: delegate to it, naming it in \
subagent_type. If the user names an agent ("use the X agent"), use that one.
- A broad search or a multi-step job would fill this conversation with detail you do not \
need: give it to an agent and keep only its report.
- Independent pieces of work can go to several agents at once: put several Task calls in one \
message and they run in parallel.

When not to use it:
- A single file read, a known file to edit, or a question you can answer directly: do it \
yourself, an agent is slower.
- No agent fits and the work is small.

Available agent types and the tools they have access to:
"""


@dataclass(frozen=True, slots=True)
class _Listing:
    lines: list[str]
    shown: int
    total: int
    omitted: list[str]


def _listing(
    agents: Sequence[AgentDefinition],
    *,
    query: str | None,
    budget_chars: int,
    always: Iterable[str],
) -> _Listing:
    full = [_agent_line(a, None) for a in agents]
    if sum(len(x) + 1 for x in full) <= budget_chars:
        return _Listing(full, len(agents), len(agents), [])
    # Over budget: order by relevance to the request (the router), keep what fits.
    order = list(range(len(agents)))
    if query:
        from subagents.dispatch.router import Router

        ranked = Router(agents).route(query, top=len(agents), explain=False)
        pos = {id(m.agent): i for i, m in enumerate(ranked)}
        order.sort(key=lambda i: pos.get(id(agents[i]), len(agents) + i))
    pinned = {normalize_agent_name(n) for n in always}
    first = [i for i in order if normalize_agent_name(agents[i].name) in pinned]
    order = first + [i for i in order if i not in first]
    lines: list[str] = []
    chosen: set[int] = set()
    used = 0
    # Reserve room for the note about the agents left out.
    room = max(budget_chars - _NOTE_RESERVE, 0)
    for i in order:
        line = _agent_line(agents[i], _SHORT_DESCRIPTION)
        if used + len(line) + 1 > room and i not in first:
            continue
        lines.append(line)
        used += len(line) + 1
        chosen.add(i)
    omitted = [agents[i].qualified_name for i in range(len(agents)) if i not in chosen]
    return _Listing(lines, len(chosen), len(agents), omitted)


def task_tool_description(
    definitions: Sequence[AgentDefinition],
    *,
    query: str | None = None,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    pinned: Iterable[str] = (),
) -> str:
    """The Task tool's description: when to delegate, then one line per agent.

    The whole description stays within ``budget_chars`` (unless the pinned agents alone do
    not fit, which is the caller's choice); names of agents left out are added while they fit.
    """
    agents = list(definitions)
    listing = _listing(
        agents,
        query=query,
        budget_chars=max(budget_chars - len(_PREAMBLE), 0),
        always=[GENERAL_PURPOSE.name, *pinned],
    )
    text = _PREAMBLE + "\n".join(listing.lines)
    if listing.omitted:
        how = "most relevant to the current request" if query else "first by name"
        text += (
            f"\n\nOnly {listing.shown} of {listing.total} agents are listed above (the ones "
            f"{how}, descriptions shortened, to keep this description short). The others "
            "exist and can be named in subagent_type too"
        )
        names = ", ".join(listing.omitted)
        if len(text) + len(names) + 3 <= budget_chars:
            text += f": {names}."
        else:
            text += f" ({len(listing.omitted)} more)."
    return text


_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {
            "type": "string",
            "description": "A short (3-5 word) description of the task",
        },
        "prompt": {
            "type": "string",
            "description": "The task for the agent to perform: everything it needs to know, "
            "since it sees nothing of this conversation",
        },
        "subagent_type": {
            "type": "string",
            "description": "The type of specialized agent to use for this task (one of the "
            "agent names listed in this tool's description)",
        },
        "model": {
            "type": "string",
            "description": "Optional model for this agent (sonnet, opus, haiku or a full "
            "model id); defaults to the agent's own model",
        },
    },
    "required": ["description", "prompt", "subagent_type"],
    "additionalProperties": False,
}


def build_task_tool(
    definitions: Iterable[AgentDefinition],
    *,
    query: str | None = None,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    pinned: Iterable[str] = (),
    name: str = TASK_TOOL_NAME,
    include_builtins: bool = True,
) -> ToolSpec:
    """The Task tool over ``definitions`` (plus built-ins), for one main-thread request.

    ``query`` (the user's request) orders the shortlist when the listing is over budget;
    ``pinned`` names agents that must be listed whatever the budget.
    """
    agents = with_builtins(definitions) if include_builtins else list(definitions)
    description = task_tool_description(
        agents, query=query, budget_chars=budget_chars, pinned=pinned
    )
    return ToolSpec(name=name, description=description, input_schema=_TASK_SCHEMA)


# --------------------------------------------------------------------------- Task input


class TaskInputError(SubagentError):
    """A Task call whose input cannot be used; the message goes back to the model."""


@dataclass(frozen=True, slots=True)
class TaskCall:
    """A parsed Task (or ``agent__name``) call."""

    subagent_type: str
    prompt: str
    description: str = ""
    model: str | None = None


def parse_task_input(data: Mapping[str, Any], *, default_agent: str | None = None) -> TaskCall:
    """Check a Task call's input; raise :class:`TaskInputError` with a message for the model.

    ``subagent_type`` omitted means ``general-purpose`` (REFERENCE.md), or ``default_agent``
    for a per-agent tool.
    """
    if not isinstance(data, Mapping):
        raise TaskInputError("Task input must be an object with description, prompt and "
                             "subagent_type")
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TaskInputError(
            "Task call is missing 'prompt': write the full task for the agent in 'prompt' "
            "(it sees nothing else of this conversation)"
        )
    agent = data.get("subagent_type", default_agent)
    if agent is None or (isinstance(agent, str) and not agent.strip()):
        agent = default_agent or GENERAL_PURPOSE.name
    if not isinstance(agent, str):
        raise TaskInputError("'subagent_type' must be a string naming one of the agents")
    description = data.get("description", "")
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise TaskInputError("'model' must be a string (sonnet, opus, haiku or a model id)")
    return TaskCall(
        subagent_type=agent.strip(),
        prompt=prompt,
        description=description if isinstance(description, str) else str(description),
        model=model or None,
    )


# --------------------------------------------------------------------------- agents as tools


_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def agent_tool_name(agent_name: str) -> str:
    """``agent__{name}`` with only characters the Anthropic and OpenAI APIs accept."""
    return (AGENT_TOOL_PREFIX + _UNSAFE.sub("_", agent_name))[:64]


def agent_tool_map(definitions: Iterable[AgentDefinition]) -> dict[str, AgentDefinition]:
    """Tool name → agent, names made unique with a numeric suffix where two collide."""
    out: dict[str, AgentDefinition] = {}
    for d in definitions:
        base = agent_tool_name(d.qualified_name)
        tool = base
        n = 2
        while tool in out:
            suffix = f"_{n}"
            tool = base[: 64 - len(suffix)] + suffix
            n += 1
        out[tool] = d
    return out


_AGENT_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {
            "type": "string",
            "description": "The task for this agent: everything it needs to know, since it "
            "sees nothing of this conversation",
        },
        "description": {"type": "string", "description": "A short (3-5 word) summary"},
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


def agent_tool_definitions(
    definitions: Iterable[AgentDefinition], *, include_builtins: bool = False
) -> list[ToolSpec]:
    """Each agent as its own tool, description = the agent's description."""
    agents = with_builtins(definitions) if include_builtins else list(definitions)
    return [
        ToolSpec(
            name=tool,
            description=(
                f"Delegate a task to the {agent.qualified_name} agent "
                f"(Tools: {describe_tools(agent)}). {agent.description.strip()}"
            ).strip(),
            input_schema=_AGENT_TOOL_SCHEMA,
        )
        for tool, agent in agent_tool_map(agents).items()
    ]
