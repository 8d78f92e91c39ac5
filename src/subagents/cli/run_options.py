"""The options of ``subagents run``, one frozen dataclass per group.

``run`` takes more flags than any other command; here they are grouped by what they decide
(what runs, teams, which model, how to reach it, permissions, transcripts, tools, trust), and
each group reaches the command as one typed object through
:func:`subagents.cli.options.option_group`.  The flags, their help and defaults, and the order
``subagents run --help`` lists them in, are the command's contract: change them only on purpose
(the groups are declared on the command in that order).  ``--cwd``, ``--format``, ``--agents``
and the scope options (``ScopeOptions``) are shared with other commands and come from
:mod:`subagents.cli.options`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import click

__all__ = [
    "MODES",
    "ConnectionOptions",
    "ModelOptions",
    "PermissionOptions",
    "TargetOptions",
    "TeamOptions",
    "ToolOptions",
    "TranscriptOptions",
    "TrustOptions",
]

MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")

_AGENT = click.option(
    "--agent",
    "agent_name",
    metavar="NAME",
    default=None,
    help="Run this agent as the main thread. Without it, a main thread delegates to "
    "the agents this directory sees through the Agent tool.",
)
_PIPELINE = click.option(
    "--pipeline",
    "pipeline",
    metavar="A,B,C",
    default=None,
    help="Run these agents one after another, each getting the task and the previous "
    "stage's answer, e.g. --pipeline architect-review,implementer-tester. A SubagentStop "
    "hook may name the next stage (JSON {\"next\": NAME} or a READY_FOR_<NEXT> marker on "
    "its stdout), so --pipeline FIRST can start a pipeline declared in hooks.",
)
_HANDOFF_DIR = click.option(
    "--handoff-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --pipeline: also write each stage's answer to DIR/NN-agent.md.",
)
_REQUIRE_READY = click.option(
    "--require-ready",
    is_flag=True,
    help="With --pipeline: stop after a stage whose answer has no READY_FOR_* marker "
    "(exit 3).",
)


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """What runs: one agent as the main thread (--agent) or a pipeline of agents
    (--pipeline, --handoff-dir, --require-ready)."""

    param: ClassVar[str] = "target"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _AGENT, _PIPELINE, _HANDOFF_DIR, _REQUIRE_READY,
    )

    agent_name: str | None = None
    pipeline: str | None = None
    handoff_dir: Path | None = None
    require_ready: bool = False


_TEAMS = click.option(
    "--teams",
    is_flag=True,
    help="Agent teams: the main thread leads a team, starting teammates with Agent + name "
    "and coordinating through SendMessage and the task list (also on with "
    "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1, in the environment or a settings file's env, "
    "or teams = true in config).",
)
_TEAM_LAYOUT = click.option(
    "--team-layout",
    type=click.Choice(["project", "claude"]),
    default=None,
    help="Where team files go: project (.subagents/teams and .subagents/tasks, the default) "
    "or claude (~/.claude/teams and ~/.claude/tasks).",
)
_RESUME_TEAM = click.option(
    "--resume-team",
    metavar="TEAM",
    default=None,
    help="Resume an interrupted team (e.g. session-3d1e9a3a) from its files; PROMPT may be "
    "'-' with nothing on stdin, or a new instruction for the lead.",
)
_MAX_TEAMMATES = click.option(
    "--max-teammates",
    type=click.IntRange(min=1),
    default=None,
    help="At most N teammates at once (default 10, or max-teammates in config).",
)


@dataclass(frozen=True, slots=True)
class TeamOptions:
    """Agent teams: --teams, --team-layout, --resume-team, --max-teammates."""

    param: ClassVar[str] = "team"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _TEAMS, _TEAM_LAYOUT, _RESUME_TEAM, _MAX_TEAMMATES,
    )

    teams: bool = False
    team_layout: str | None = None
    resume_team: str | None = None
    max_teammates: int | None = None


_PROVIDER = click.option(
    "--provider",
    type=click.Choice(["anthropic", "openai", "scripted"]),
    default=None,
    envvar="SUBAGENTS_PROVIDER",
    show_envvar=True,
    help="Model provider (default: anthropic).",
)
_MODEL = click.option(
    "--model",
    "model_id",
    metavar="ID",
    default=None,
    help="Model id or alias (sonnet, opus, haiku, fable) of the main thread; subagents "
    "and pipeline stages use it only when they name no model of their own "
    "(CLAUDE_CODE_SUBAGENT_MODEL beats both for them, as in Claude Code).",
)
_MAX_TURNS = click.option(
    "--max-turns",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after N model turns (default: the agent's maxTurns, else 50); reaching the "
    "limit is an error (exit 1), as in Claude Code.",
)
_MAX_TURNS_SUMMARY = click.option(
    "--max-turns-summary",
    is_flag=True,
    help="At a turn limit, make one more request without tools asking for a summary, and "
    "hand that on (off by default: the run just stops there, as in Claude Code).",
)
_MAX_DEPTH = click.option(
    "--max-depth",
    type=click.IntRange(min=1),
    default=None,
    help="How deep agents may start agents (default 3: agents the main thread starts, and "
    "theirs, may delegate once more).",
)


_EFFORT = click.option(
    "--effort",
    type=click.Choice(["low", "medium", "high", "xhigh", "max"]),
    default=None,
    help="Effort level of the main thread's thinking (default: its model's own, e.g. medium "
    "for claude-opus-5-5, or effort in config). Subagents use their own effort frontmatter, "
    "else their model's default, as in Claude Code.",
)
_MAX_TOKENS = click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=None,
    help="Output limit of each model request (default: CLAUDE_CODE_MAX_OUTPUT_TOKENS, else "
    "max-tokens in config, else each model's own, e.g. 128000 for claude-opus-5-5).",
)


@dataclass(frozen=True, slots=True)
class ModelOptions:
    """Which model runs, how, and for how long: --provider, --model, --max-turns,
    --max-turns-summary, --max-depth, --effort, --max-tokens."""

    param: ClassVar[str] = "model"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _PROVIDER, _MODEL, _MAX_TURNS, _MAX_TURNS_SUMMARY, _MAX_DEPTH, _EFFORT, _MAX_TOKENS,
    )

    provider: str | None = None
    model_id: str | None = None
    max_turns: int | None = None
    max_turns_summary: bool = False
    max_depth: int | None = None
    effort: str | None = None
    max_tokens: int | None = None


_YES = click.option(
    "--yes",
    "-y",
    "assume_yes",
    is_flag=True,
    help="Approve every permission request (writes, edits, Bash). Plan mode, writes "
    "outside the working folder and writes to protected paths (.claude/, .git/, "
    ".subagents.toml...) are still refused.",
)
_ALLOW = click.option(
    "--allow",
    "allow_rules",
    metavar="RULE",
    multiple=True,
    help="Pre-approve calls matching RULE, e.g. 'Bash(git diff:*)', 'Edit'. "
    "Repeatable; adds to `allow` in config.",
)
_PERMISSION_MODE = click.option(
    "--permission-mode",
    type=click.Choice(MODES),
    default="default",
    show_default=True,
    help="Mode of the run; an agent's own permissionMode can only make it stricter.",
)


@dataclass(frozen=True, slots=True)
class PermissionOptions:
    """What the run may do without asking: --yes, --allow, --permission-mode."""

    param: ClassVar[str] = "permissions"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _YES, _ALLOW, _PERMISSION_MODE,
    )

    assume_yes: bool = False
    allow_rules: tuple[str, ...] = ()
    permission_mode: str = "default"


_TRANSCRIPT_DIR = click.option(
    "--transcript-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar="SUBAGENTS_TRANSCRIPT_DIR",
    show_envvar=True,
    help="Folder for the JSONL transcript the command writes for every run (default: "
    "~/.subagents/transcripts; --no-transcript writes none).",
)
_NO_TRANSCRIPT = click.option("--no-transcript", is_flag=True, help="Do not write a transcript.")


@dataclass(frozen=True, slots=True)
class TranscriptOptions:
    """Where the run's JSONL transcript goes: --transcript-dir, --no-transcript."""

    param: ClassVar[str] = "transcripts"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _TRANSCRIPT_DIR, _NO_TRANSCRIPT,
    )

    transcript_dir: Path | None = None
    no_transcript: bool = False


_SCRIPT = click.option(
    "--script",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="JSON list of replies for --provider scripted.",
)
_BASE_URL = click.option(
    "--base-url",
    default=None,
    metavar="URL",
    help="Provider base URL (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL).",
)
_STREAM = click.option(
    "--stream", is_flag=True, default=None, help="Use the provider's streaming API."
)


@dataclass(frozen=True, slots=True)
class ConnectionOptions:
    """How to reach the provider: --script (scripted replies), --base-url, --stream."""

    param: ClassVar[str] = "connection"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _SCRIPT, _BASE_URL, _STREAM,
    )

    script: Path | None = None
    base_url: str | None = None
    stream: bool | None = None


_WEB = click.option(
    "--web",
    is_flag=True,
    help="Offer WebFetch (off by default: no network access behind your back).",
)
_SANDBOX = click.option(
    "--sandbox",
    "sandbox_mode",
    type=click.Choice(["required", "ask", "off"]),
    default=None,
    envvar="SUBAGENTS_SANDBOX",
    show_envvar=True,
    help="Bash commands run in a bubblewrap sandbox (writes only in the working folder, no "
    "network, no credentials). Where none is available: required (the default) refuses the "
    "command, ask asks you each time, off runs commands without one. Also `sandbox = ...` in "
    "~/.subagents/config.toml.",
)
_SANDBOX_NETWORK = click.option(
    "--sandbox-network",
    is_flag=True,
    help="Let sandboxed Bash commands use the network.",
)
_EXTRA_TOOLS = click.option(
    "--extra-tools",
    is_flag=True,
    help="Also offer MultiEdit, LS and TodoWrite: tools of ours that Claude Code does not "
    "have (off by default, so agents see Claude Code's tool set).",
)


@dataclass(frozen=True, slots=True)
class ToolOptions:
    """What the built-in tools may reach: --web, --sandbox, --sandbox-network,
    --extra-tools."""

    param: ClassVar[str] = "tools"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _WEB, _SANDBOX, _SANDBOX_NETWORK, _EXTRA_TOOLS,
    )

    web: bool = False
    sandbox_mode: str | None = None
    sandbox_network: bool = False
    extra_tools: bool = False


_TRUST = click.option(
    "--trust",
    "trust_project",
    is_flag=True,
    help="Trust this project (remembered): its agents' hooks and mcpServers may run and its "
    ".subagents.toml applies. On a terminal you are asked once instead.",
)
_ALLOW_FLAGGED_PROMPT = click.option(
    "--allow-flagged-prompt",
    "allow_flagged",
    is_flag=True,
    help="Run an agent even if its prompt reads like a prompt injection (refused otherwise).",
)
_ALLOW_BYPASS_PERMISSIONS = click.option(
    "--allow-bypass-permissions",
    "allow_bypass",
    is_flag=True,
    help="Let permissionMode bypassPermissions take effect for this run (a project's own "
    "config cannot allow it; your ~/.subagents/config.toml can).",
)


@dataclass(frozen=True, slots=True)
class TrustOptions:
    """What the run trusts: --trust, --allow-flagged-prompt,
    --allow-bypass-permissions."""

    param: ClassVar[str] = "trust"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        _TRUST, _ALLOW_FLAGGED_PROMPT, _ALLOW_BYPASS_PERMISSIONS,
    )

    trust_project: bool = False
    allow_flagged: bool = False
    allow_bypass: bool = False
