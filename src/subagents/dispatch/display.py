"""A live tree of delegations and tool calls, drawn on stderr while a main thread runs.

::

    from subagents.dispatch.display import live_tree

    with live_tree() as on_event:            # None when stderr is not a terminal
        result = run_main_thread(prompt, registry=registry, runner=runner, on_event=on_event)

Events are the orchestrator's (see :mod:`subagents.dispatch.main_thread`): the runner's
``start``/``turn``/``tool``/``stop`` tagged with ``node``, and the dispatcher's ``delegate`` /
``delegate_done`` with ``node`` and ``parent_node``.

Design decisions: :class:`DelegationTree` is plain state fed by events, so it is tested without
a terminal; ``rich`` is imported only when drawing (it is heavy for ``validate``).  Only the
last few tool calls of each node are kept on screen (a long run would otherwise scroll the
tree away); the count of earlier ones is shown.  Nothing is drawn when stderr is not a TTY:
pipes and CI logs stay clean.  :func:`format_result_tree` draws a finished result as plain
text, for logs and ``--verbose``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any

from subagents.known_tools import is_agent_tool
from subagents.runtime.result import AgentResult

__all__ = ["DelegationTree", "format_result_tree", "live_tree"]

MAX_TOOLS_SHOWN = 5


@dataclass
class _Node:
    id: str
    agent: str
    description: str = ""
    model: str = ""
    status: str = "running"
    turn: int = 0
    detail: str = ""
    tools: list[str] = field(default_factory=list)
    hidden_tools: int = 0
    children: list[str] = field(default_factory=list)


def _short(value: Any, limit: int = 60) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_label(name: str, input: Mapping[str, Any]) -> str:
    for key in ("file_path", "path", "pattern", "command", "url", "query", "prompt"):
        if key in input:
            return f"{name} {_short(input[key])}"
    return name


class DelegationTree:
    """The state of a run's delegation tree, updated by events."""

    def __init__(self, root_agent: str = "main") -> None:
        self.nodes: dict[str, _Node] = {"main": _Node("main", root_agent)}

    def __call__(self, kind: str, data: Mapping[str, Any]) -> None:
        node_id = str(data.get("node") or "main")
        if kind == "delegate":
            parent = self.nodes.get(str(data.get("parent_node") or "main"), self.nodes["main"])
            self.nodes[node_id] = _Node(node_id, str(data.get("agent", "?")),
                                        description=str(data.get("description") or ""))
            parent.children.append(node_id)
            return
        node = self.nodes.get(node_id)
        if node is None:
            return
        if kind == "start":
            node.model = str(data.get("model") or "")
            if node_id == "main" and data.get("agent"):
                node.agent = str(data["agent"])
        elif kind == "turn":
            node.turn = int(data.get("turn") or 0)
        elif kind == "tool":
            name = str(data.get("name", "?"))
            if is_agent_tool(name) or name.startswith("agent__"):
                return  # shown as the delegation's own node
            node.tools.append(_tool_label(name, data.get("input") or {}))
            if len(node.tools) > MAX_TOOLS_SHOWN:
                node.tools.pop(0)
                node.hidden_tools += 1
        elif kind == "stop" and node_id == "main":
            node.status = "done" if data.get("stop_reason") in ("end_turn", "max_turns") \
                else str(data.get("stop_reason"))
        elif kind == "delegate_done":
            ok = bool(data.get("ok"))
            node.status = "done" if ok else "failed"
            tokens = int(data.get("input_tokens") or 0) + int(data.get("output_tokens") or 0)
            node.detail = f"{data.get('turns', 0)} turns, {tokens} tokens"
            if data.get("stop_reason") == "max_turns":
                node.detail += ", turn limit"
            if not ok and data.get("error"):
                node.detail = _short(data["error"], 80)

    def label(self, node: _Node) -> str:
        mark = {"running": "…", "done": "✓", "failed": "✗"}.get(node.status, "•")
        parts = [f"{mark} {node.agent}"]
        if node.description:
            parts.append(f"— {node.description}")
        if node.status == "running" and node.turn:
            parts.append(f"(turn {node.turn})")
        if node.detail:
            parts.append(f"[{node.detail}]")
        return " ".join(parts)

    def lines(self) -> list[str]:
        """The tree as indented plain-text lines."""
        out: list[str] = []

        def walk(node_id: str, depth: int) -> None:
            node = self.nodes[node_id]
            pad = "  " * depth
            out.append(pad + self.label(node))
            if node.hidden_tools:
                out.append(f"{pad}    … {node.hidden_tools} earlier tool call(s)")
            out.extend(f"{pad}    {t}" for t in node.tools)
            for child in node.children:
                walk(child, depth + 1)

        walk("main", 0)
        return out

    def renderable(self) -> Any:
        """A ``rich`` Tree of the current state."""
        from rich.markup import escape
        from rich.tree import Tree

        def build(node_id: str, tree: Any) -> None:
            node = self.nodes[node_id]
            if node.hidden_tools:
                tree.add(f"[dim]… {node.hidden_tools} earlier tool call(s)[/dim]")
            for t in node.tools:
                tree.add(f"[dim]{escape(t)}[/dim]")
            for child_id in node.children:
                child = self.nodes[child_id]
                style = {"done": "green", "failed": "red"}.get(child.status, "cyan")
                build(child_id, tree.add(f"[{style}]{escape(self.label(child))}[/{style}]"))

        root = Tree(f"[bold]{escape(self.label(self.nodes['main']))}[/bold]")
        build("main", root)
        return root


def _is_tty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextmanager
def live_tree(
    stream: IO[str] | None = None, *, force: bool = False, root_agent: str = "main"
) -> Iterator[Any]:
    """An event sink that redraws the tree on ``stream`` (stderr), or ``None`` if not a TTY."""
    out = stream if stream is not None else sys.stderr
    if not force and not _is_tty(out):
        yield None
        return
    try:
        from rich.console import Console
        from rich.live import Live
    except ImportError:  # rich is an optional extra: no live tree, plain progress instead
        yield None
        return

    tree = DelegationTree(root_agent)
    console = Console(file=out, force_terminal=force or None)
    with Live(tree.renderable(), console=console, refresh_per_second=8,
              transient=False) as live:

        def sink(kind: str, data: Mapping[str, Any]) -> None:
            tree(kind, data)
            live.update(tree.renderable())

        yield sink


def format_result_tree(result: AgentResult) -> str:
    """A finished result's delegation tree as plain text (agent, outcome, turns, tokens)."""
    lines: list[str] = []

    def walk(r: AgentResult, depth: int) -> None:
        mark = "✓" if r.ok else "✗"
        tokens = r.usage.input_tokens + r.usage.output_tokens
        extra = f": {_short(r.error, 80)}" if r.error else ""
        tools = [c.name for c in r.tool_calls if not is_agent_tool(c.name)]
        lines.append(f"{'  ' * depth}{mark} {r.agent} ({r.stop_reason}, {r.turns} turns, "
                     f"{tokens} tokens{', tools: ' + ', '.join(tools) if tools else ''}){extra}")
        for child in r.children:
            walk(child, depth + 1)

    walk(result, 0)
    return "\n".join(lines)
