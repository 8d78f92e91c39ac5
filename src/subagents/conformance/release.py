"""Following a Claude Code release: its profile, the diff between two versions, ``track``.

``record`` writes, beside the recorded cases, ``claude-code-VERSION-profile.json``: everything
the product reads per version (:mod:`subagents.claude_code.profile`).  What a recording or the
release's typings measure is taken from them (built-in agents, the main thread's model, tool
names, hook events, agent fields); what they cannot measure (limits, value sets, which tools a
launched agent gets directly or deferred) is carried over from the nearest older profile, so a
new release is data with no code edit, and a maintainer edits the JSON only where a
measurement says otherwise.

``diff --against VERSION`` compares two recordings and their profiles; ``track`` asks npm for
the newest release, installs it (and the Agent SDK of the same release, for its typings) into
the cache, records it and writes the diff against the previous newest as its report.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from subagents.claude_code.profile import (
    ClaudeCodeProfile,
    nearest_version,
    profile_from_json,
    profile_path,
    profile_to_json,
    recorded_versions,
)
from subagents.conformance.harness import HarnessError, cache_root
from subagents.conformance.model import DataFileError, Recording, dump_json, write_atomic
from subagents.conformance.typings import Typings, read_typings
from subagents.errors import UsageError

__all__ = ["build_profile", "check_version", "diff_report", "load_profile", "newest_release",
           "package_dirs", "write_profile"]

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk"


def check_version(version: str) -> str:
    if not _VERSION.match(version):
        raise HarnessError(f"{version!r} is not a Claude Code version (write it like 2.1.332)")
    return version


def load_profile(version: str) -> ClaudeCodeProfile:
    path = profile_path(version)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return profile_from_json(data, str(path))
    except (OSError, ValueError) as exc:
        raise DataFileError(f"{path}: {exc}") from None
    except UsageError as exc:
        raise DataFileError(str(exc)) from None


def package_dirs(claude: Path) -> tuple[Path | None, Path | None]:
    """The claude-code package folder and the Agent SDK folder beside an installed binary."""
    modules = claude.parent.parent  # node_modules/.bin/claude
    package = modules / "@anthropic-ai" / "claude-code"
    sdk = modules / "@anthropic-ai" / "claude-agent-sdk"
    return (package if package.is_dir() else None, sdk if (sdk / "sdk.d.ts").exists() else None)


def sdk_matches(sdk: Path, version: str) -> bool:
    try:
        meta = json.loads((sdk / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("claudeCodeVersion") == version


def build_profile(version: str, recording: Recording | None, typings: Typings,
                  base: ClaudeCodeProfile | None) -> ClaudeCodeProfile:
    """The profile of ``version``: measured values over the nearest older profile's."""
    profile = replace(base, version=version) if base else ClaudeCodeProfile(version=version)
    if recording is not None:
        if recording.builtin_agents:
            profile = replace(profile, builtin_agents=tuple(
                sorted((b.name for b in recording.builtin_agents), key=str.lower)))
        if recording.parent_model:
            profile = replace(profile, default_model=recording.parent_model)
    if typings.hook_events:
        profile = replace(profile, hook_events=typings.hook_events)
    if typings.tools:
        profile = replace(profile, published_tools=typings.tools)
    if typings.agent_fields:
        profile = replace(profile, agent_fields=typings.agent_fields)
    return profile


def write_profile(version: str, recording: Recording | None, claude: Path | None,
                  sdk: Path | None = None, out: Path | None = None) -> Path:
    """Build and write ``claude-code-VERSION-profile.json``; the path written."""
    package, beside = package_dirs(claude) if claude is not None else (None, None)
    sdk_dir = sdk or beside
    if sdk_dir is not None and not sdk_matches(sdk_dir, version):
        sdk_dir = None
    typings = read_typings(package, sdk_dir)
    # re-recording keeps the version's own profile (values measured by hand stay); a new
    # version starts from the nearest recorded one
    kept_events: tuple[str, ...] = ()
    if profile_path(version).exists():
        own = load_profile(version)
        base: ClaudeCodeProfile | None = own
        if sdk_dir is None and own.published_tools:
            # without the Agent SDK the typings say less than the profile already holds
            typings = Typings()
            kept_events = _typed_events(profile_path(version))
    else:
        others = [v for v in recorded_versions() if v != version]
        base = load_profile(nearest_version(version, others)) if others else None
    profile = build_profile(version, recording, typings, base)
    path = out or profile_path(version)
    write_atomic(path, json.dumps(profile_to_json(profile, typings.hook_events or kept_events),
                                  indent=2, ensure_ascii=False) + "\n")
    return path


def _typed_events(path: Path) -> tuple[str, ...]:
    """The hook events a profile file says the typings gave."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        events = data["typings"]["hook_events"]
    except (OSError, ValueError, KeyError, TypeError):
        return ()
    return tuple(e for e in events if isinstance(e, str)) if isinstance(events, list) else ()


def _names(title: str, old: Sequence[str], new: Sequence[str]) -> list[str]:
    added = sorted(set(new) - set(old))
    dropped = sorted(set(old) - set(new))
    if not added and not dropped:
        return [f"- {title}: unchanged ({len(new)})"]
    lines = [f"- {title}: {len(old)} -> {len(new)}"]
    if added:
        lines.append("  - added: " + ", ".join(added))
    if dropped:
        lines.append("  - dropped: " + ", ".join(dropped))
    return lines


def diff_report(old: Recording, new: Recording, old_profile: ClaudeCodeProfile | None,
                new_profile: ClaudeCodeProfile | None) -> tuple[str, bool]:
    """A Markdown report of what changed from ``old`` to ``new``; and whether anything did."""
    before = {c.id: c.to_json() for c in old.cases}
    after = {c.id: c.to_json() for c in new.cases}
    changed = sorted(i for i in before.keys() & after.keys() if before[i] != after[i])
    added = sorted(after.keys() - before.keys())
    removed = sorted(before.keys() - after.keys())
    same = len(before.keys() & after.keys()) - len(changed)
    lines = [f"# Claude Code {old.version} -> {new.version}", "",
             f"Recorded cases: {len(old.cases)} -> {len(new.cases)}; identical: {same}; "
             f"changed: {len(changed)}; new: {len(added)}; gone: {len(removed)}.", ""]
    for title, ids in (("changed", changed), ("new", added), ("gone", removed)):
        if ids:
            lines.append(f"Cases {title}: " + ", ".join(ids))
    builtins = ([b.name for b in old.builtin_agents], [b.name for b in new.builtin_agents])
    lines += ["", "## Release", ""]
    lines += _names("built-in agents", *builtins)
    if old.parent_model != new.parent_model:
        lines.append(f"- main thread's model: {old.parent_model} -> {new.parent_model}")
    differs = bool(changed or added or removed or set(builtins[0]) ^ set(builtins[1])
                   or old.parent_model != new.parent_model)
    if old_profile is not None and new_profile is not None:
        for title, a, b in (
                ("published tools (typings)", old_profile.published_tools,
                 new_profile.published_tools),
                ("hook events", old_profile.hook_events, new_profile.hook_events),
                ("agent fields (typings)", old_profile.agent_fields, new_profile.agent_fields),
                ("frontmatter keys read", sorted(old_profile.known_keys),
                 sorted(new_profile.known_keys))):
            section = _names(title, a, b)
            differs = differs or "unchanged" not in section[0]
            lines += section
    return "\n".join(lines) + "\n", differs


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise HarnessError("npm is not installed; install Node.js (npm) to track releases")
    return npm


def newest_release() -> str:
    """The newest ``@anthropic-ai/claude-code`` version npm knows."""
    done = subprocess.run([_npm(), "view", "@anthropic-ai/claude-code", "version"],
                          capture_output=True, text=True, check=False, timeout=120)
    version = done.stdout.strip()
    if done.returncode != 0 or not _VERSION.match(version):
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise HarnessError("npm could not say the newest Claude Code: " + " | ".join(tail))
    return version


def install_sdk(version: str, say: Callable[[str], None]) -> Path | None:
    """Install the Agent SDK of this release (for its typings) into the cache; None when npm
    has no SDK for exactly this Claude Code version."""
    target = cache_root().parent / "claude-agent-sdk" / version
    sdk = target / "node_modules" / "@anthropic-ai" / "claude-agent-sdk"
    if sdk_matches(sdk, version):
        return sdk
    npm = _npm()
    view = subprocess.run([npm, "view", SDK_PACKAGE, "version", "claudeCodeVersion", "--json"],
                          capture_output=True, text=True, check=False, timeout=120)
    try:
        meta = json.loads(view.stdout)
    except ValueError:
        meta = None
    if not isinstance(meta, dict) or meta.get("claudeCodeVersion") != version:
        say(f"note: npm's newest {SDK_PACKAGE} is not for Claude Code {version}; reading "
            "only sdk-tools.d.ts")
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
    try:
        (staging / "package.json").write_text('{"name": "sdk-pin", "private": true}\n')
        say(f"installing {SDK_PACKAGE}@{meta.get('version')} into {target}")
        done = subprocess.run([npm, "install", "--ignore-scripts", "--no-audit", "--no-fund",
                               f"{SDK_PACKAGE}@{meta.get('version')}"], cwd=staging,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            say("note: the Agent SDK did not install; reading only sdk-tools.d.ts")
            return None
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sdk if sdk_matches(sdk, version) else None


def write_recording(path: Path, recording: Recording) -> None:
    write_atomic(path, dump_json(recording.to_json()))
