"""What one Claude Code version does, as data: limits, value sets, model ids, built-ins.

The behaviour rules in :mod:`subagents.claude_code.reader` are the same code for every version;
what changes between versions (a limit, a value set, the model an alias resolves to) lives here,
keyed by version. The numbers for 2.1.330 were read from its bundled source and confirmed by the
recorded conformance cases (``subagents.conformance``); a later version gets a profile of its own
beside this one, recorded the same way, and config ``claude_code = "X.Y.Z"`` chooses one. The
default is the newest profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from subagents.errors import UsageError

__all__ = ["DEFAULT_VERSION", "PROFILES", "ClaudeCodeProfile", "get_profile"]


@dataclass(frozen=True, slots=True)
class ClaudeCodeProfile:
    version: str
    max_file_bytes: int = 1_048_576
    max_name_length: int = 256
    # alias (lower case) -> the model id a subagent really gets
    model_ids: Mapping[str, str] = field(default_factory=dict)
    default_model: str = ""
    permission_modes: tuple[str, ...] = ()
    efforts: tuple[str, ...] = ("low", "medium", "high", "xhigh", "max")
    isolations: tuple[str, ...] = ("worktree", "remote")
    memories: tuple[str, ...] = ("user", "project", "local")
    colors: tuple[str, ...] = ()
    builtin_agents: tuple[str, ...] = ()
    # Frontmatter keys the agent loader reads; any other key gets Claude Code's
    # "does not recognize or apply" warning (the agent still loads).
    known_keys: frozenset[str] = frozenset()
    # Hook events; an entry under any other key is ignored.
    hook_events: tuple[str, ...] = ()
    # Events whose hooks guard tool use: a malformed entry makes the agent unloadable
    # instead of being ignored (an ignored guard would run the agent unguarded).
    guard_events: tuple[str, ...] = ("PreToolUse", "PermissionRequest")

    @property
    def label(self) -> str:
        return f"Claude Code {self.version}"

    def resolve_model(self, model: str | None, parent: str | None = None) -> str | None:
        """The model id a subagent gets: aliases case-insensitively, ``inherit``/None the
        parent's, anything else passed through unchanged (as 2.1.330 sends it to the API)."""
        if model is None or model.strip().lower() == "inherit":
            return parent
        value = model.strip()
        return self.model_ids.get(value.lower(), value)


def _v2_1_330() -> ClaudeCodeProfile:
    from subagents.definition import HOOK_EVENTS, PERMISSION_MODES

    return ClaudeCodeProfile(
        version="2.1.330",
        model_ids={
            "sonnet": "claude-sonnet-5-5",
            "opus": "claude-opus-5-5",
            "haiku": "claude-haiku-5-5",
        },
        default_model="claude-opus-5-5",
        permission_modes=PERMISSION_MODES,
        colors=("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"),
        builtin_agents=("claude", "Explore", "general-purpose", "Plan", "statusline-setup"),
        known_keys=frozenset(
            {
                "name",
                "description",
                "model",
                "tools",
                "disallowedTools",
                "color",
                "permissionMode",
                "maxTurns",
                "autoCompactWindow",
                "initialPrompt",
                "memory",
                "background",
                "omitClaudeMd",
                "isolation",
                "effort",
                "skills",
                "mcpServers",
                "hooks",
                "observer",
                "observerMessage",
                "observeSubagents",
                "observeToolResults",
            }
        ),
        hook_events=HOOK_EVENTS,
    )


PROFILES: Mapping[str, ClaudeCodeProfile] = {"2.1.330": _v2_1_330()}


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


DEFAULT_VERSION = max(PROFILES, key=_key)


def get_profile(version: str | None = None) -> ClaudeCodeProfile:
    """The profile of ``version`` (default: the newest recorded)."""
    if version is None:
        return PROFILES[DEFAULT_VERSION]
    try:
        return PROFILES[str(version)]
    except KeyError:
        known = ", ".join(sorted(PROFILES, key=_key))
        raise UsageError(
            f"no recorded behaviour for Claude Code {version}; recorded: {known}",
            hint="set `claude_code` in config to a recorded version, or record this one with "
            "`python -m subagents.conformance record --claude-code VERSION`",
        ) from None
