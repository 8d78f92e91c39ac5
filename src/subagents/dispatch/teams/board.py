"""A live board of a team on a terminal: members and their state, tasks by status.

``subagents run --teams`` draws it on stderr when stderr is a terminal (and nobody is being
asked for permission, whose prompt a redraw would overwrite); pipes and CI get plain progress
lines instead.  It listens to the team's events (``member``, ``task``, ``message``) and reads
the task list from the files, so what it shows is what another process would see.  ``rich``
is imported only when a board is drawn.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["TeamBoard", "live_board"]

_STATE_STYLE = {"working": "bold green", "waiting": "yellow", "idle": "dim", "stopped": "dim",
                "failed": "bold red", "shut down": "dim"}


class TeamBoard:
    """The board's state, updated from team events; :meth:`render` draws it with rich."""

    def __init__(self) -> None:
        self.team = ""
        self.members: dict[str, dict[str, Any]] = {}
        self.tasks: dict[str, dict[str, Any]] = {}
        self.messages = 0

    def __call__(self, kind: str, data: Mapping[str, Any]) -> None:
        self.team = str(data.get("team", self.team))
        if kind == "member":
            entry = self.members.setdefault(str(data["name"]), {})
            entry.update({k: v for k, v in data.items() if k not in ("team",)})
        elif kind == "task":
            tid = str(data["id"])
            if data.get("status") == "deleted":
                self.tasks.pop(tid, None)
            else:
                self.tasks.setdefault(tid, {}).update(
                    {k: v for k, v in data.items() if v is not None and k != "team"})
        elif kind == "message":
            self.messages += 1

    def render(self) -> Any:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        members = Table(title=f"team {self.team}", title_justify="left", expand=False)
        for col in ("member", "type", "state"):
            members.add_column(col)
        for name, m in self.members.items():
            state = str(m.get("state", ""))
            reason = f" ({m['reason']})" if m.get("reason") else ""
            members.add_row(Text(name, style=str(m.get("color") or "")),
                            str(m.get("agent_type") or ""),
                            Text(state + reason, style=_STATE_STYLE.get(state, "")))
        counts = {"pending": 0, "in_progress": 0, "completed": 0}
        for t in self.tasks.values():
            counts[str(t.get("status", "pending"))] = counts.get(str(t.get("status")), 0) + 1
        summary = Text(f"tasks: {counts['pending']} pending · {counts['in_progress']} in "
                       f"progress · {counts['completed']} completed · {self.messages} messages",
                       no_wrap=True, overflow="ellipsis")
        tasks = Table()
        for col in ("#", "status", "owner", "subject"):
            tasks.add_column(col)
        shown = sorted(self.tasks.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0)
        for tid, t in shown[-12:]:
            tasks.add_row(tid, str(t.get("status", "")), str(t.get("owner") or ""),
                          str(t.get("subject", ""))[:60])
        return Group(members, summary, tasks)


@contextlib.contextmanager
def live_board(then: Callable[[str, Mapping[str, Any]], None] | None = None,
               ) -> Iterator[Callable[[str, Mapping[str, Any]], None]]:
    """A team event sink drawing the board live on stderr while the block runs."""
    from rich.console import Console
    from rich.live import Live

    board = TeamBoard()
    console = Console(stderr=True)
    with Live(board.render(), console=console, refresh_per_second=8,
              transient=False) as live:

        def sink(kind: str, data: Mapping[str, Any]) -> None:
            board(kind, data)
            if then is not None:
                then(kind, data)
            live.update(board.render())

        yield sink
