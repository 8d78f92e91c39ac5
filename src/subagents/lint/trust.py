"""Trust: a cloned repository does not get to run commands until the user says so, once.

A project folder (the git root above the working folder, else the working folder) is
*untrusted* until the user trusts it: answering yes on a terminal, or ``subagents run --trust``.
The answer is remembered per folder in ``~/.subagents/trusted-folders.json`` (the user's own,
private file: written atomically with mode 0600, ignored if it is a symlink, not a regular file,
not the user's, or writable by others).

Until then, for agents defined inside that project (:class:`TrustPolicy.restrict`):

* their ``hooks`` do not run and their ``mcpServers`` are not started (a warning says so);
* the project's configuration (``.subagents.toml``, ``[tool.subagents]``) does not apply
  (:func:`run_config`): no pre-approved rules, writable folders or transcript folder from it.

Whatever the trust, configuration is read only from the user's folder
(``~/.subagents/config.toml``) and from the project up to its root — never from folders above
the project root (an ancestor's ``.subagents.toml`` is someone else's) — and never from a file
that another user can write.  ``allow-bypass-permissions`` counts only from the user's config or
the command line: a repository cannot switch bypass mode on for itself.

Plan mode runs no hook or MCP command at all (:meth:`TrustPolicy.restrict` with
``plan=True``): planning must not execute anything.  Hooks get an environment without
credentials (:func:`subagents.runtime.sandbox.scrubbed_environ`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from subagents._dataclass import dataclass
from subagents.definition import Scope
from subagents.errors import ConfigError

if TYPE_CHECKING:
    from subagents.definition import AgentDefinition
    from subagents.lint.config import Config

__all__ = [
    "ProjectTrust",
    "TrustPolicy",
    "TrustStore",
    "project_root",
    "project_trust",
    "run_config",
    "unsafe_file",
]

_MAX_TRUST_FILE = 1 << 20


def project_root(cwd: Path) -> Path:
    """The git root at or above ``cwd``, else ``cwd`` itself (resolved)."""
    here = cwd.resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def unsafe_file(path: Path) -> str | None:
    """Why ``path`` must not be trusted as configuration (``None``: it may be read).

    Not a symlink, a regular file, owned by this user (or root), not writable by group or
    others — the rules ssh applies to its config."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be examined ({exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if hasattr(os, "getuid") and st.st_uid not in (os.getuid(), 0):
        return "it belongs to another user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "other users can write it"
    return None


class TrustStore:
    """The folders the user trusts, remembered in their own config folder."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or Path(os.path.expanduser("~")) / ".subagents" / "trusted-folders.json"

    def folders(self) -> set[str]:
        if unsafe_file(self.path) is not None or not self.path.exists():
            return set()
        try:
            with open(self.path, "rb") as fh:
                data = json.loads(fh.read(_MAX_TRUST_FILE))
        except (OSError, ValueError):
            return set()
        listed = data.get("trusted") if isinstance(data, dict) else None
        return {f for f in listed if isinstance(f, str)} if isinstance(listed, list) else set()

    def is_trusted(self, folder: Path) -> bool:
        return str(folder.resolve()) in self.folders()

    def trust(self, folder: Path) -> None:
        """Remember ``folder`` as trusted (atomic write, mode 0600)."""
        problem = unsafe_file(self.path)
        if problem:
            raise ConfigError(f"{self.path}: not updated because {problem}",
                              hint="remove it; it is re-created on the next --trust")
        folders = sorted(self.folders() | {str(folder.resolve())})
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        import tempfile  # only a write pays for it

        fd, tmp = tempfile.mkstemp(prefix=".trusted-folders.", suffix=".tmp",
                                   dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"trusted": folders}, fh, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    """Which agents may run their own commands (hooks, MCP servers) in this run."""

    #: project roots that are not trusted: agents defined below them lose hooks/mcpServers
    untrusted: tuple[Path, ...] = ()
    #: the file ``--agents @FILE`` was read from: its agents have no path of their own, and
    #: a file inside an untrusted project is that project's text, not the user's
    cli_agents_file: Path | None = None

    def untrusted_agent(self, agent: AgentDefinition) -> bool:
        if not self.untrusted:
            return False
        if agent.path is None and agent.source is Scope.CLI and self.cli_agents_file:
            return self._below_untrusted(self.cli_agents_file)
        if agent.path is None:
            return False
        return self._below_untrusted(Path(agent.path))

    def _below_untrusted(self, path: Path) -> bool:
        try:
            where = path.resolve()
        except OSError:
            return True
        return any(where.is_relative_to(root) for root in self.untrusted)

    def restrict(self, agent: AgentDefinition, *, plan: bool = False
                 ) -> tuple[AgentDefinition, list[str]]:
        """``agent`` without the commands it may not run here, and why."""
        if not (agent.hooks or agent.mcp_servers):
            return agent, []
        if plan:
            why = "plan mode runs no command"
        elif self.untrusted_agent(agent):
            why = ("its project is not trusted yet (run with --trust, or answer yes when "
                   "asked, to trust it once)")
        else:
            return agent, []
        dropped = [w for w, on in (("hooks", agent.hooks), ("mcpServers", agent.mcp_servers))
                   if on]
        return (dataclasses.replace(agent, hooks={}, mcp_servers=()),
                [f"agent {agent.name!r}: its {' and '.join(dropped)} did not run: {why}"])


@dataclass(frozen=True, slots=True)
class ProjectTrust:
    """Whether the project of a working folder is trusted, and the policy that follows.

    The one place the library decides it, so that ``run``, ``run_team`` and the command line
    apply the same gate: :func:`project_trust` reads the user's remembered answer (it never
    asks; the command line asks on a terminal and then passes ``trusted=``)."""

    root: Path
    trusted: bool

    @property
    def policy(self) -> TrustPolicy:
        return TrustPolicy(untrusted=() if self.trusted else (self.root,))

    def restrict(self, policy: TrustPolicy) -> TrustPolicy:
        """``policy`` with this project added to its untrusted roots when it is untrusted."""
        if self.trusted or self.root in policy.untrusted:
            return policy
        return TrustPolicy(untrusted=(*policy.untrusted, self.root))


def project_trust(workdir: Path, *, trusted: bool | None = None,
                  store: TrustStore | None = None) -> ProjectTrust:
    """The trust of ``workdir``'s project: ``trusted`` when the caller decided (``--trust``,
    an answer on a terminal), else what the user's :class:`TrustStore` remembers."""
    root = project_root(workdir)
    if trusted is None:
        trusted = (store or TrustStore()).is_trusted(root)
    return ProjectTrust(root, trusted)


def _read_config(path: Path, notes: list[str]) -> Config | None:
    from subagents.lint.config import load_config

    problem = unsafe_file(path)
    if problem:
        notes.append(f"{path} is ignored because {problem}")
        return None
    return load_config(path)


def _project_config_file(workdir: Path, root: Path) -> Path | None:
    """The nearest ``.subagents.toml`` / ``pyproject.toml`` with ``[tool.subagents]`` from
    ``workdir`` up to ``root`` (never above it)."""
    from subagents.lint.config import _has_tool_table

    here = workdir.resolve()
    for folder in (here, *here.parents):
        dot = folder / ".subagents.toml"
        if dot.is_file() or dot.is_symlink():
            return dot
        py = folder / "pyproject.toml"
        if py.is_file() and _has_tool_table(py):
            return py
        if folder == root:
            break
    return None


def run_config(workdir: Path, *, trusted: bool, home: Path | None = None
               ) -> tuple[Config, list[str]]:
    """The configuration of a run, and notes for the user (see the module docstring).

    The user's ``~/.subagents/config.toml`` comes first; the project's file (if trusted)
    overrides its keys, except ``allow-bypass-permissions`` which only the user's file sets.
    ``allow`` rules and ``writable-dirs`` of both add up."""
    from subagents.lint.config import Config

    notes: list[str] = []
    user_file = (home or Path(os.path.expanduser("~"))) / ".subagents" / "config.toml"
    user = _read_config(user_file, notes) if user_file.exists() or user_file.is_symlink() \
        else None
    root = project_root(workdir)
    found = _project_config_file(workdir, root)
    project: Config | None = None
    if found is not None:
        if not trusted:
            notes.append(f"{found} does not apply: this project is not trusted yet")
        else:
            project = _read_config(found, notes)
            if project is not None and project.allow_bypass_permissions:
                notes.append(f"{found}: allow-bypass-permissions is ignored; only your own "
                             f"{user_file} or the command line can allow bypass mode")
            if project is not None and (project.sandbox is not None
                                        or project.sandbox_network):
                notes.append(f"{found}: sandbox settings are ignored; only your own "
                             f"{user_file} or the command line can change the sandbox")
    base = user or Config()
    if project is None:
        return base, notes
    # A project's writable-dirs stay inside the project: a trusted repository's
    # writable-dirs = ["/"] must not make the machine writable without a word.
    inside: list[Path] = []
    real_root = root.resolve()
    for d in project.writable_dirs:
        if d.resolve().is_relative_to(real_root):
            inside.append(d)
        else:
            notes.append(f"{found}: writable-dirs entry {d} is outside the project and is "
                         f"ignored; only your own {user_file} can add folders outside it")
    merged = dataclasses.replace(
        project,
        allow_rules=(*base.allow_rules, *project.allow_rules),
        writable_dirs=_unique((*base.writable_dirs, *inside)),
        allow_bypass_permissions=base.allow_bypass_permissions,
        sandbox=base.sandbox,
        sandbox_network=base.sandbox_network,
        transcript_dir=project.transcript_dir or base.transcript_dir,
        model_aliases={**base.model_aliases, **project.model_aliases},
        # the project's [batch] when it has one, else the user's
        batch=project.batch if project.batch != type(project.batch)() else base.batch,
    )
    return merged, notes


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))
