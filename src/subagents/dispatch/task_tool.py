"""The ``Agent`` tool (old name ``Task``) and the per-agent tools, built from a set of agents.

The mechanism, as Claude Code 2.1.332 does it (RUNTIME-2.1.332.md rows 10 and 11): the tool
is called ``Agent`` (a call or a ``tools:`` entry naming ``Task`` still means it), its input is
``{description, prompt, subagent_type?, model?, run_in_background?, ...}``, and the model
learns which agents exist from a *listing* that reaches it in the conversation, not in the
tool's description: a header line, then one line per agent (``- name: description (Tools:
...)``), sorted by name ignoring case (:func:`agent_listing`).  The format specification
(``docs/spec.md``) adds the "agents are tools" view: ``agent_tool_definitions`` offers each
agent as its own tool.

Design decisions
----------------
* **Built fresh per main-thread request** from whatever definitions the caller passes, so a
  registry that changed since the last request is reflected (the dispatcher re-reads it too).
* **Built-in agents**: the ones Claude Code lists (``claude``, ``Explore``,
  ``general-purpose``, ``Plan``, ``statusline-setup``; :data:`DELEGATION_BUILTINS`, our own
  descriptions and prompts) are added unless an agent of that name exists (compared
  ignoring case and separators, like every name here): a project agent overrides a
  built-in, as in Claude Code.  ``subagent_type`` omitted means ``general-purpose``.
* **``(Tools: ...)``** is worded as Claude Code prints it: ``*`` for a built-in with every
  tool, ``All tools`` for an agent of yours without ``tools:``, ``All tools except X, Y``
  with a denylist, else the list.
* **Budget.**  A listing of 600 agents would cost tens of thousands of tokens on every
  request and confuse the model anyway.  Past ``budget_chars`` the listing is shortlisted by
  the router against the current request (general-purpose and any pinned agent always kept),
  each line capped, and the listing *says so* and names the agents left out while that fits,
  so the model knows they exist and ``subagent_type`` still accepts them.
* **Names** match ignoring case and the separators ``-``, ``_``, ``.`` and spaces
  (``Code Reviewer`` → ``code-reviewer``).  An ambiguous normalised name resolves to the first
  definition given (the caller passes them in precedence order).
* **Lenient input**: Claude Code's habitual fields (``effort``, ``isolation``, ``name``,
  ``mode``...) are accepted; the ones we do not act on are ignored, never refused.
* **API-safe per-agent tool names**: Anthropic and OpenAI accept ``^[a-zA-Z0-9_-]{1,64}$``, so
  the specification's ``agent:{name}`` becomes ``agent__{name}`` with any other character
  replaced by ``_``, cut to 64 and de-duplicated with a numeric suffix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from subagents.definition import AgentDefinition, Scope
from subagents.errors import SubagentError
from subagents.harnesses.layout import BUILTIN_AGENTS
from subagents.known_tools import AGENT_TOOL_NAMES
from subagents.names import normalize_agent_name
from subagents.providers.base import ToolSpec

__all__ = [
    "AGENT_TOOL_DESCRIPTION",
    "AGENT_TOOL_NAME",
    "AGENT_TOOL_PREFIX",
    "DEFAULT_BUDGET_CHARS",
    "DELEGATION_BUILTINS",
    "GENERAL_PURPOSE",
    "LISTING_HEADER",
    "TASK_TOOL_ALIASES",
    "TASK_TOOL_NAME",
    "TaskCall",
    "TaskInputError",
    "agent_listing",
    "agent_tool_definitions",
    "agent_tool_map",
    "agent_tool_name",
    "agent_tool_schema",
    "build_task_tool",
    "describe_tools",
    "normalize_agent_name",
    "parse_task_input",
    "resolve_agent",
    "task_tool_description",
    "with_builtins",
]

AGENT_TOOL_NAME = "Agent"
#: The former name of this constant (the tool itself was called ``Task`` then).
TASK_TOOL_NAME = AGENT_TOOL_NAME
# Claude Code renamed Task to Agent and still accepts Task (REFERENCE.md): accept both.
TASK_TOOL_ALIASES: frozenset[str] = AGENT_TOOL_NAMES
#: The first line of the agent listing (a label the model finds the listing by).
LISTING_HEADER = "Available agent types for the Agent tool:"
AGENT_TOOL_PREFIX = "agent__"
DEFAULT_BUDGET_CHARS = 12_000
# When over budget, one agent line is cut to this many characters of description.
_SHORT_DESCRIPTION = 300
_NOTE_RESERVE = 450  # room kept for the "only N of M agents are listed" sentence

# Claude Code's built-in agents (general-purpose, Explore, Plan; REFERENCE.md): one definition,
# in subagents.harnesses.layout, shared by the registry and the Task tool.
GENERAL_PURPOSE = BUILTIN_AGENTS[0]

# The two more built-ins Claude Code 2.1.332 lists to the main thread (RUNTIME-2.1.332.md
# row 10); descriptions and prompts are ours.
_CLAUDE = AgentDefinition(
    name="claude",
    description="The default agent for any task that no more specific agent fits; it has "
    "every tool.",
    system_prompt="You are an agent working on a task another agent handed you. Do the whole "
    "task with the tools you have, then reply with a short report of what you did and found: "
    "that reply is all the caller sees.",
    source=Scope.BUILTIN,
)
_STATUSLINE = AgentDefinition(
    name="statusline-setup",
    description="Sets up the user's Claude Code status line (the statusLine setting in "
    "~/.claude/settings.json).",
    system_prompt="You configure the status line of Claude Code: read the user's "
    "~/.claude/settings.json, add or change its statusLine entry as asked (a command whose "
    "output becomes the status line), keep every other setting as it was, and report the "
    "change you made.",
    tools=("Read", "Edit"),
    source=Scope.BUILTIN,
)
#: Every built-in agent the Agent tool accepts, in Claude Code's set.
DELEGATION_BUILTINS: tuple[AgentDefinition, ...] = (_CLAUDE, *BUILTIN_AGENTS, _STATUSLINE)


def with_builtins(
    definitions: Iterable[AgentDefinition],
    builtins: Iterable[AgentDefinition] = BUILTIN_AGENTS,
) -> list[AgentDefinition]:
    """``definitions`` plus the ``builtins`` (default: general-purpose, Explore, Plan; the
    dispatcher passes :data:`DELEGATION_BUILTINS`) that none of them overrides by name
    (REFERENCE.md: a user or project agent of the same name wins)."""
    out = list(definitions)
    names = {normalize_agent_name(d.name) for d in out}
    out.extend(b for b in builtins if normalize_agent_name(b.name) not in names)
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
    """What goes in ``(Tools: ...)``, worded as Claude Code prints it: ``*`` for a built-in
    with every tool (``- general-purpose: ... (Tools: *)``), ``All tools`` for another agent
    without ``tools:``, ``All tools except X, Y`` when some are denied, else the list."""
    denied = list(agent.disallowed_tools or ())
    if agent.tools is None:
        if denied:
            return f"All tools except {', '.join(denied)}"
        return "*" if agent.source is Scope.BUILTIN else "All tools"
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
- Independent pieces of work can go to several agents at once: put several Agent calls in one \
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


def agent_listing(
    definitions: Sequence[AgentDefinition],
    *,
    query: str | None = None,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    pinned: Iterable[str] = (),
) -> str:
    """The agent listing the model reads in the conversation: :data:`LISTING_HEADER`, then one
    line per agent sorted by name ignoring case; over ``budget_chars`` a shortlist that says
    which agents it leaves out (see the module docstring)."""
    agents = list(definitions)
    listing = _listing(
        agents,
        query=query,
        budget_chars=max(budget_chars - len(LISTING_HEADER) - 1, 0),
        always=[GENERAL_PURPOSE.name, *pinned],
    )
    lines = sorted(listing.lines, key=lambda line: line[2:].split(": ", 1)[0].casefold())
    text = LISTING_HEADER + "\n" + "\n".join(lines)
    if listing.omitted:
        how = "most relevant to the current request" if query else "first by name"
        text += (
            f"\n\nOnly {listing.shown} of {listing.total} agents are listed above (the ones "
            f"{how}, descriptions shortened, to keep this list short). The others exist and "
            "can be named in subagent_type too"
        )
        names = ", ".join(listing.omitted)
        text += f": {names}." if len(text) + len(names) + 3 <= budget_chars else (
            f" ({len(listing.omitted)} more).")
    return text


#: The Agent tool's description.  The agents themselves are listed in the conversation.
AGENT_TOOL_DESCRIPTION = """\
Start an agent on a self-contained piece of work: a specialist with its own instructions, \
model and tools, running in a fresh context.

The agent types you can choose from are listed in system reminders in the conversation; name \
one in subagent_type (leave it out for general-purpose).

The agent sees nothing of this conversation: the prompt is all it gets, so give it the goal, \
what you already know or ruled out, the files that matter and what its report should \
contain. Its report comes back to you, not to the user; pass on what matters.

Use it for independent work that can run while you do something else, for a broad search or \
a long job whose details you do not need to keep, or when the user asks for an agent. Do \
small things yourself: a file you know, a single search, a quick check. Once you have \
delegated something, do not do it yourself too.

Agents run in the background by default: the call returns at once with the agent's id, and \
its report arrives later as a task notification in the conversation. Never guess or invent \
a report that has not arrived. Set run_in_background to false only when your next step \
needs the result. Several agents started in one message run at the same time.

To give an agent that has stopped more work with its context intact, send it a message \
with SendMessage to its agent id; a new Agent call always starts from nothing."""

_MODEL_ALIASES = ("sonnet", "opus", "haiku", "fable")


def agent_tool_schema(model_aliases: Iterable[str] = ()) -> dict[str, Any]:
    """The Agent tool's input schema; ``model`` offers Claude Code's aliases plus the
    ``model_aliases`` of the config's model table."""
    extra = sorted(set(model_aliases) - {*_MODEL_ALIASES, "default", "inherit"})
    schema = dict(_AGENT_SCHEMA)
    props = dict(schema["properties"])
    props["model"] = {**props["model"], "enum": [*_MODEL_ALIASES, *extra]}
    schema["properties"] = props
    return schema


_AGENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {
            "type": "string",
            "description": "A short (3-5 word) description of the task",
        },
        "prompt": {
            "type": "string",
            "description": "The task for the agent: everything it needs to know, since it "
            "sees nothing of this conversation",
        },
        "subagent_type": {
            "type": "string",
            "description": "Which agent type to start (one of those listed in the "
            "conversation); general-purpose when left out",
        },
        "model": {
            "type": "string",
            "enum": list(_MODEL_ALIASES),
            "description": "Optional model for this agent; overrides the model its "
            "definition names",
        },
        "effort": {
            "type": "string",
            "enum": ["low", "medium", "high", "xhigh", "max"],
            "description": "Reasoning effort for this agent; only when the user or the "
            "project's instructions ask for one",
        },
        "run_in_background": {
            "type": "boolean",
            "description": "Agents run in the background by default and you are notified "
            "when one finishes; false waits for the report here, for when your very next "
            "step depends on it",
        },
        "isolation": {
            "type": "string",
            "enum": ["worktree", "remote"],
            "description": "Accepted for compatibility; the agent works in the same folder",
        },
    },
    "required": ["description", "prompt"],
    "additionalProperties": False,
}

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
    name: str = AGENT_TOOL_NAME,
    include_builtins: bool = True,
    listing_in_description: bool = False,
    model_aliases: Iterable[str] = (),
) -> ToolSpec:
    """The Agent tool over ``definitions`` (plus built-ins), for one main-thread request.

    The description says where the agents are listed (:func:`agent_listing`, which the
    caller puts in the conversation).  ``listing_in_description`` instead puts the listing
    in the description, as before Claude Code moved it (agent teams' lead still reads it
    there); ``query`` (the user's request) orders the shortlist when the listing is over
    budget; ``pinned`` names agents that must be listed whatever the budget.
    """
    schema = agent_tool_schema(model_aliases)
    if not listing_in_description:
        return ToolSpec(name=name, description=AGENT_TOOL_DESCRIPTION, input_schema=schema)
    agents = with_builtins(definitions) if include_builtins else list(definitions)
    description = task_tool_description(
        agents, query=query, budget_chars=budget_chars, pinned=pinned
    )
    return ToolSpec(name=name, description=description, input_schema=schema)


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
    #: ``None``: the caller's default (background where the run can be notified)
    run_in_background: bool | None = None


def parse_task_input(data: Mapping[str, Any], *, default_agent: str | None = None) -> TaskCall:
    """Check a Task call's input; raise :class:`TaskInputError` with a message for the model.

    ``subagent_type`` omitted means ``general-purpose`` (REFERENCE.md), or ``default_agent``
    for a per-agent tool.
    """
    if not isinstance(data, Mapping):
        raise TaskInputError("Agent input must be an object with description, prompt and "
                             "optionally subagent_type")
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TaskInputError(
            "Agent call is missing 'prompt': write the full task for the agent in 'prompt' "
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
    background = data.get("run_in_background")
    if isinstance(background, str) and background.strip().lower() in ("true", "false"):
        background = background.strip().lower() == "true"  # a common slip of weaker models
    if background is not None and not isinstance(background, bool):
        raise TaskInputError("'run_in_background' must be true or false")
    return TaskCall(
        subagent_type=agent.strip(),
        prompt=prompt,
        description=description if isinstance(description, str) else str(description),
        model=model or None,
        run_in_background=background,
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
        "run_in_background": {"type": "boolean", "description": "false to wait for the "
                              "report here; by default the agent runs in the background and "
                              "you are notified when it finishes"},
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
