"""Hooks and ``env`` from Claude Code settings files, for events no agent file declares.

Agent teams (``TeammateIdle``, ``TaskCreated``, ``TaskCompleted``) and hook-driven pipelines
(``SubagentStop``) are configured in settings, as in Claude Code::

    .claude/settings.json, .claude/settings.local.json (project), ~/.claude/settings.json (user)
    {"env": {"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"},
     "hooks": {"TaskCompleted": [{"matcher": "",
                                  "hooks": [{"type": "command", "command": "..."}]}]}}

Design decisions
----------------
* Every file's hooks run (user, then project, then local), as Claude Code merges them; ``env``
  is merged with the more specific file winning.  A file that is not valid JSON is reported
  (``warnings``, with the path and line) and skipped; nothing else breaks.
* A command gets the event as JSON on stdin and runs like an agent's hook
  (:mod:`subagents.runtime.command_hooks`: its own process group, a timeout, killed on
  Ctrl-C).  Exit 2 *blocks*: the stderr of each blocking command becomes Claude Code's
  feedback text ``<Event> hook feedback:\\n[<command>]: <stderr>\\n``.  Exit 0 with a JSON
  object on stdout is kept in :attr:`HookOutcome.outputs` (a ``SubagentStop`` hook names the
  next pipeline stage that way).
* Trust: a project's own settings files apply only once the project is trusted
  (:meth:`SettingsHooks.for_project`, :mod:`subagents.lint.trust`); :meth:`SettingsHooks.load`
  reads every file and is for callers that decided trust themselves.
* Plan mode runs no command: :meth:`SettingsHooks.fire` with ``plan=True`` (the run the event
  belongs to is in plan mode) runs nothing and notes it once per event in ``warnings``;
  :meth:`SettingsHooks.without_commands` drops every command up front (``subagents run
  --permission-mode plan``).  ``env`` is data, not a command, and stays.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents.definition import HookCommand, HookMatcher
from subagents.runtime.command_hooks import HookRun, _matches, _run_command
from subagents.runtime.tools.base import ToolContext

__all__ = ["HookOutcome", "SettingsHooks", "merged", "settings_files"]

DEFAULT_TIMEOUT = 60.0


def settings_files(cwd: str | os.PathLike[str], home: str | os.PathLike[str] | None = None,
                   ) -> list[Path]:
    """The settings files Claude Code reads, least specific first."""
    root = Path(cwd)
    user = (Path(home) if home is not None else Path.home()) / ".claude" / "settings.json"
    return [user, root / ".claude" / "settings.json", root / ".claude" / "settings.local.json"]


@dataclass(slots=True)
class HookOutcome:
    """What the commands of one event did."""

    event: str
    runs: list[HookRun] = field(default_factory=list)
    feedback: str = ""  # Claude Code's feedback text of the blocking commands
    outputs: list[dict[str, Any]] = field(default_factory=list)  # JSON objects on stdout

    @property
    def blocked(self) -> bool:
        return any(r.blocked for r in self.runs)

    @property
    def stopped(self) -> bool:
        """A command answered ``{"continue": false}``."""
        return any(o.get("continue") is False for o in self.outputs)


@dataclass(slots=True)
class SettingsHooks:
    """Hook commands by event, and the merged ``env``, from settings files."""

    hooks: dict[str, list[HookMatcher]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def load(cls, cwd: str | os.PathLike[str], home: str | os.PathLike[str] | None = None,
             ) -> SettingsHooks:
        out = cls()
        for path in settings_files(cwd, home):
            out.add_file(path)
        return out

    @classmethod
    def for_project(cls, cwd: str | os.PathLike[str], *, trusted: bool, plan: bool = False,
                    home: str | os.PathLike[str] | None = None) -> SettingsHooks:
        """The hooks a run in ``cwd`` may use: the user's settings always; the project's own
        (``.claude/settings.json``, ``settings.local.json``) only when the project is trusted,
        with a warning naming the files left out otherwise.  In plan mode no hook command
        runs (``env`` still applies).  ``run_team`` and ``subagents run`` both use this."""
        if plan:
            return cls.for_project(cwd, trusted=trusted, home=home).without_commands(
                "plan mode runs no command")
        if trusted:
            return cls.load(cwd, home)
        out = cls()
        user, *project = settings_files(cwd, home)
        out.add_file(user)
        skipped = [str(p) for p in project if p.exists()]
        if skipped:
            out.warnings.append(f"{', '.join(skipped)}: its hooks and env do not apply: this "
                                "project is not trusted yet (--trust, or yes when asked)")
        return out

    def add_file(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            self.warnings.append(f"{path}: cannot be read ({exc}); its hooks are ignored")
            return
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self.warnings.append(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON "
                                 f"({exc.msg}); its hooks and env are ignored")
            return
        if not isinstance(data, dict):
            self.warnings.append(f"{path}: not a JSON object; ignored")
            return
        self.add(data.get("hooks"), source=str(path))
        env = data.get("env")
        if isinstance(env, dict):
            self.env.update({str(k): str(v) for k, v in env.items() if v is not None})

    def add(self, hooks: Any, *, source: str = "settings") -> None:
        """Add a ``hooks`` mapping in Claude Code's settings shape."""
        if hooks is None:
            return
        if not isinstance(hooks, dict):
            self.warnings.append(f"{source}: 'hooks' is not an object; ignored")
            return
        for event, groups in hooks.items():
            if not isinstance(groups, list):
                self.warnings.append(f"{source}: hooks.{event} is not a list; ignored")
                continue
            for group in groups:
                if not isinstance(group, dict):
                    continue
                commands = tuple(
                    HookCommand(type=str(h.get("type", "command")),
                                command=h["command"] if isinstance(h.get("command"), str)
                                else None,
                                timeout=float(h["timeout"]) if isinstance(h.get("timeout"),
                                                                          (int, float))
                                and not isinstance(h.get("timeout"), bool) else None)
                    for h in group.get("hooks") or () if isinstance(h, dict))
                matcher = group.get("matcher")
                self.hooks.setdefault(str(event), []).append(HookMatcher(
                    matcher=matcher if isinstance(matcher, str) else None, hooks=commands))

    def has(self, event: str) -> bool:
        return any(m.hooks for m in self.hooks.get(event, ()))

    def commands(self, event: str, target: str | None = None) -> list[tuple[str, float]]:
        out: list[tuple[str, float]] = []
        for matcher in self.hooks.get(event, ()):
            if target is not None and not _matches(matcher.matcher, target):
                continue
            for hook in matcher.hooks:
                if hook.type == "command" and hook.command:
                    out.append((hook.command, hook.timeout or self.timeout))
        return out

    def without_commands(self, why: str) -> SettingsHooks:
        """These settings with no hook command (``env`` kept), and a warning saying ``why``."""
        out = SettingsHooks(env=dict(self.env), warnings=list(self.warnings),
                            timeout=self.timeout)
        events = sorted(e for e in self.hooks if self.has(e))
        if events:
            out.warnings.append(f"settings hooks ({', '.join(events)}) do not run: {why}")
        return out

    async def fire(self, event: str, payload: Mapping[str, Any], cwd: Path,
                   target: str | None = None, *, plan: bool = False) -> HookOutcome:
        """Run ``event``'s commands (those whose matcher matches ``target``) in order;
        none when ``plan`` (the run the event belongs to is in plan mode)."""
        outcome = HookOutcome(event)
        commands = self.commands(event, target)
        if not commands:
            return outcome
        if plan:
            note = f"{event} hooks in settings did not run: plan mode runs no command"
            if note not in self.warnings:
                self.warnings.append(note)
            return outcome
        ctx = ToolContext(cwd=cwd)
        data = {"cwd": str(cwd), "hook_event_name": event, **payload}
        pieces: list[str] = []
        for command, timeout in commands:
            run = await _run_command(command, data, ctx, None, timeout, event)
            outcome.runs.append(run)
            if run.timed_out:
                self.warnings.append(f"{event} hook timed out after {timeout:g}s: {command}")
            elif run.exit_code == 2:
                pieces.append(f"[{command}]: {run.stderr.strip()}\n")
            elif run.exit_code != 0:
                self.warnings.append(f"{event} hook failed (exit {run.exit_code}): "
                                     f"{run.stderr.strip()[:200]}")
            elif run.stdout.lstrip().startswith("{"):
                try:
                    parsed = json.loads(run.stdout)
                except json.JSONDecodeError:
                    parsed = None
                if isinstance(parsed, dict):
                    outcome.outputs.append(parsed)
        if pieces:
            outcome.feedback = f"{event} hook feedback:\n" + "".join(pieces)
        return outcome


def merged(*hooks: SettingsHooks | None) -> SettingsHooks:
    out = SettingsHooks()
    for h in hooks:
        if h is None:
            continue
        for event, matchers in h.hooks.items():
            out.hooks.setdefault(event, []).extend(matchers)
        out.env.update(h.env)
        out.warnings.extend(h.warnings)
    return out

