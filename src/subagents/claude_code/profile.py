"""What one Claude Code version does, as data: limits, value sets, model ids, built-ins, tools.

The behaviour rules in :mod:`subagents.claude_code.reader` are the same code for every version;
what changes between versions (a limit, a value set, the model an alias resolves to, which tools
a launched agent gets) is data: ``claude-code-VERSION-profile.json`` beside the recorded cases in
``subagents/conformance/data``.  The recorder (``python -m subagents.conformance record`` or
``track``) writes that file, so following a new release needs no code edit.

Design decisions:

* The folder is found by path, not by importing :mod:`subagents.conformance` (a higher layer);
  ``SUBAGENTS_CLAUDE_CODE_DATA`` names another folder (tests add a made-up version that way).
* The default is the newest recorded version.  A version nobody recorded is not an error: the
  nearest recorded one is used, with a warning that names it (:func:`resolve_version`).
* A profile file that does not read is a :class:`UsageError` naming the file, never a traceback.
* Finding the profile lists the data folder and stats the file (a new recording is seen at
  once).  ``validate`` asks for it several times per file, so it reads it once per run:
  inside :func:`pinned` each version (and environment) is looked up once, and the run sees
  one set of recordings from start to end.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import field
from pathlib import Path

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile
from subagents.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CHOSEN_ENV",
    "DATA_ENV",
    "PROFILES",
    "ClaudeCodeProfile",
    "data_dir",
    "default_version",
    "get_profile",
    "nearest_version",
    "pinned",
    "profile_from_json",
    "profile_path",
    "profile_to_json",
    "recorded_versions",
    "resolve_version",
    "version_key",
    "warn_once",
]

#: Environment variable naming another data folder (profiles and recordings).
DATA_ENV = "SUBAGENTS_CLAUDE_CODE_DATA"
#: Environment variable holding the version chosen with ``--claude-code`` (wins over config).
CHOSEN_ENV = "SUBAGENTS_CLAUDE_CODE_VERSION"

_PROFILE = lazy_compile(r"^claude-code-(\d+(?:\.\d+)*)-profile\.json$")
_VERSION = lazy_compile(r"^\d+(?:\.\d+){0,3}$")

#: How a launched subagent gets a tool it names (measured per version).
TOOL_KINDS = ("direct", "deferred", "main-thread")


@dataclass(frozen=True, slots=True)
class ClaudeCodeProfile:
    """What one Claude Code version does with agent files (measured, see the module notes)."""

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
    # tool name -> "direct" | "deferred" | "main-thread": what a launched subagent that names
    # the tool really gets (measured); empty when the version's launches were not measured
    tool_kinds: Mapping[str, str] = field(default_factory=dict)
    # the names the release's published typings give (tools, agent definition fields)
    published_tools: tuple[str, ...] = ()
    agent_fields: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"Claude Code {self.version}"

    def resolve_model(self, model: str | None, parent: str | None = None) -> str | None:
        """The model id a subagent gets: aliases case-insensitively, ``inherit``/None the
        parent's, anything else passed through unchanged (as Claude Code sends it to the API)."""
        if model is None or model.strip().lower() == "inherit":
            return parent
        value = model.strip()
        return self.model_ids.get(value.lower(), value)

    def tool_kind(self, name: str) -> str | None:
        """``direct``, ``deferred``, ``main-thread``, ``published`` (in the typings, launch not
        measured) or None (this version does not know the tool)."""
        kind = self.tool_kinds.get(name)
        if kind is not None:
            return kind
        return "published" if name in self.published_tools else None


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


def data_dir() -> Path:
    """The folder holding the recorded versions (``SUBAGENTS_CLAUDE_CODE_DATA`` overrides)."""
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override)
    return _own_data_dir()


@functools.cache
def _own_data_dir() -> Path:
    # where this file is does not change while the process runs (resolving it costs a stat
    # per folder of the path)
    return Path(__file__).resolve().parent.parent / "conformance" / "data"


def profile_path(version: str, folder: Path | None = None) -> Path:
    return (folder or data_dir()) / f"claude-code-{version}-profile.json"


def recorded_versions(folder: Path | None = None) -> list[str]:
    """Versions with a profile file, oldest first."""
    where = folder or data_dir()
    try:
        names = [p.name for p in where.iterdir()]
    except OSError:
        return []
    return sorted((m.group(1) for n in names if (m := _PROFILE.match(n))), key=version_key)


def default_version() -> str:
    """The newest recorded version."""
    versions = recorded_versions()
    if not versions:
        raise UsageError(f"no recorded Claude Code version in {data_dir()}",
                         hint=f"record one with `python -m subagents.conformance track`, or "
                              f"unset {DATA_ENV}")
    return versions[-1]


def nearest_version(version: str, versions: list[str] | None = None) -> str:
    """The recorded version closest to ``version``: the newest not newer than it, else the
    oldest recorded."""
    known = versions if versions is not None else recorded_versions()
    if not known:
        return default_version()
    key = version_key(version)
    older = [v for v in known if version_key(v) <= key]
    return older[-1] if older else known[0]


def resolve_version(version: str | None) -> tuple[str, str | None]:
    """The recorded version to use for ``version`` and a warning when it is not that one.

    None -> the newest recorded.  A well-formed version nobody recorded -> the nearest recorded
    one, with a warning naming it.  Not a version at all -> :class:`UsageError`.
    """
    if version is None:
        version = os.environ.get(CHOSEN_ENV) or None
        if version is None:
            return default_version(), None
    text = str(version).strip()
    if not _VERSION.match(text):
        raise UsageError(f"{version!r} is not a Claude Code version (write it like 2.1.332)")
    known = recorded_versions()
    if text in known:
        return text, None
    near = nearest_version(text, known)
    return near, (f"no recorded behaviour for Claude Code {text}; using the nearest recorded "
                  f"version, {near} (recorded: {', '.join(known)})")


def _strs(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: `{key}` must be a list of strings")
    return tuple(value)


def profile_from_json(data: object, where: str) -> ClaudeCodeProfile:
    """Read a profile file's JSON (``where`` names it in errors)."""
    if not isinstance(data, dict) or not isinstance(data.get("version"), str):
        raise UsageError(f"{where}: not a Claude Code profile (no `version`)")
    models = data.get("model_ids", {})
    if not isinstance(models, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in models.items()):
        raise UsageError(f"{where}: `model_ids` must map aliases to model ids")
    kinds: dict[str, str] = {}
    tools = data.get("tools", {})
    if not isinstance(tools, dict):
        raise UsageError(f"{where}: `tools` must be a mapping")
    for kind in TOOL_KINDS:
        for name in _strs(tools, kind, where):
            kinds[name] = kind
    numbers = {}
    for key in ("max_file_bytes", "max_name_length"):
        value = data.get(key, ClaudeCodeProfile.__dataclass_fields__[key].default)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise UsageError(f"{where}: `{key}` must be a positive whole number")
        numbers[key] = value
    default_model = data.get("default_model", "")
    if not isinstance(default_model, str):
        raise UsageError(f"{where}: `default_model` must be a model id")
    typings = data.get("typings", {})
    if not isinstance(typings, dict):
        raise UsageError(f"{where}: `typings` must be a mapping")
    return ClaudeCodeProfile(
        version=data["version"],
        max_file_bytes=numbers["max_file_bytes"],
        max_name_length=numbers["max_name_length"],
        model_ids=dict(models),
        default_model=default_model,
        permission_modes=_strs(data, "permission_modes", where),
        efforts=_strs(data, "efforts", where),
        isolations=_strs(data, "isolations", where),
        memories=_strs(data, "memories", where),
        colors=_strs(data, "colors", where),
        builtin_agents=_strs(data, "builtin_agents", where),
        known_keys=frozenset(_strs(data, "known_keys", where)),
        hook_events=_strs(data, "hook_events", where),
        guard_events=_strs(data, "guard_events", where),
        tool_kinds=kinds,
        published_tools=_strs(typings, "tools", where),
        agent_fields=_strs(typings, "agent_fields", where),
    )


def profile_to_json(profile: ClaudeCodeProfile,
                    typings_hook_events: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The profile as the JSON its file holds (sorted where order carries no meaning)."""
    tools = {kind: sorted(n for n, k in profile.tool_kinds.items() if k == kind)
             for kind in TOOL_KINDS}
    return {
        "version": profile.version,
        "max_file_bytes": profile.max_file_bytes,
        "max_name_length": profile.max_name_length,
        "model_ids": dict(sorted(profile.model_ids.items())),
        "default_model": profile.default_model,
        "permission_modes": list(profile.permission_modes),
        "efforts": list(profile.efforts),
        "isolations": list(profile.isolations),
        "memories": list(profile.memories),
        "colors": list(profile.colors),
        "builtin_agents": list(profile.builtin_agents),
        "known_keys": sorted(profile.known_keys),
        "hook_events": list(profile.hook_events),
        "guard_events": list(profile.guard_events),
        "tools": tools,
        "typings": {"tools": list(profile.published_tools),
                    "agent_fields": list(profile.agent_fields),
                    "hook_events": list(typings_hook_events or ())},
    }


@functools.lru_cache(maxsize=32)
def _load(path: Path, mtime_ns: int) -> ClaudeCodeProfile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: the Claude Code profile does not read: {exc}") from None
    profile = profile_from_json(data, str(path))
    expected = _PROFILE.match(path.name)
    if expected and expected.group(1) != profile.version:
        raise UsageError(f"{path}: holds version {profile.version}, not {expected.group(1)}")
    return profile


def _load_version(version: str) -> ClaudeCodeProfile:
    path = profile_path(version)
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        raise UsageError(f"no recorded behaviour for Claude Code {version} ({path})") from None
    return _load(path, mtime)


_PINNED: contextvars.ContextVar[dict[str | None, ClaudeCodeProfile] | None] = (
    contextvars.ContextVar("subagents_pinned_profiles", default=None))


@contextlib.contextmanager
def pinned() -> Iterator[None]:
    """Within the block, :func:`get_profile` reads each version's profile once (a run over
    many files sees one set of recordings, and does not list the folder for every file), as
    the environment (``SUBAGENTS_CLAUDE_CODE_VERSION``, ``SUBAGENTS_CLAUDE_CODE_DATA``) chose
    it when the version was first asked for."""
    if _PINNED.get() is not None:  # nested: the outer run's answers stand
        yield
        return
    token = _PINNED.set({})
    try:
        yield
    finally:
        _PINNED.reset(token)


def get_profile(version: str | None = None) -> ClaudeCodeProfile:
    """The profile of ``version`` (default: the newest recorded; an unrecorded version: the
    nearest recorded one -- :func:`resolve_version` says so)."""
    memo = _PINNED.get()
    if memo is not None:
        # (every file of a run asks: not even the environment is read again)
        known = memo.get(version)
        if known is not None:
            return known
    chosen, warning = resolve_version(version)
    if warning:
        warn_once(warning)
    profile = _load_version(chosen)
    if memo is not None:
        memo[version] = profile
    return profile


_WARNED: set[str] = set()


def warn_once(text: str) -> None:
    """Say ``text`` on standard error once per process (every command reads the profile)."""
    if text not in _WARNED:
        _WARNED.add(text)
        print(f"warning: {text}", file=sys.stderr, flush=True)


class _Profiles(Mapping[str, ClaudeCodeProfile]):
    """Every recorded profile by version, read from the data folder when asked."""

    def __getitem__(self, version: str) -> ClaudeCodeProfile:
        if version not in recorded_versions():
            raise KeyError(version)
        return _load_version(version)

    def __iter__(self) -> Iterator[str]:
        return iter(recorded_versions())

    def __len__(self) -> int:
        return len(recorded_versions())


PROFILES: Mapping[str, ClaudeCodeProfile] = _Profiles()

