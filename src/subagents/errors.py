"""Exceptions raised by the library.

Every exception the library raises on purpose derives from :class:`SubagentError`; the CLI
catches that root once, prints the message (never a traceback) and exits with
``error.exit_code``.  Bad *input files* are not exceptions: the loader turns them into
:class:`~subagents.diagnostics.Diagnostic` objects and carries on with the next file.

Control-flow signals (a run that stopped at ``maxTurns``, a permission that was refused) are
not failures and are reported in results, not raised.

::

    SubagentError                      exit 1 unless stated
    ├── UsageError                     exit 2: a bad flag value, a missing path, bad --agents JSON
    ├── ConfigError                    a broken [tool.subagents] / .subagents.toml
    ├── DefinitionError                an agent definition that cannot be used (carries diagnostics)
    │   └── AgentFileNotFound          no file at that path (also a FileNotFoundError)
    ├── AgentNotFoundError             unknown agent name (carries close matches)
    ├── StoreError                     agents.json store problems
    │   ├── StoreCorruptError          the file on disk is not valid; writes refuse
    │   └── StoreLockTimeout           another writer held the lock too long
    ├── ProviderError                  a model provider failed
    │   ├── MissingCredentialsError    no API key configured (says how to set one)
    │   ├── ProviderConnectionError    server unreachable after retries
    │   └── ProviderResponseError      the server answered with an error or garbage
    └── RunError                       a run could not start or was interrupted
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subagents.diagnostics import Diagnostic

__all__ = [
    "AgentFileNotFound",
    "AgentNotFoundError",
    "ConfigError",
    "DefinitionError",
    "MissingCredentialsError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderResponseError",
    "RunError",
    "StoreCorruptError",
    "StoreError",
    "StoreLockTimeout",
    "SubagentError",
    "UsageError",
]


class SubagentError(Exception):
    """Root of every error this library raises on purpose."""

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  hint: {self.hint}"
        return self.message


class UsageError(SubagentError):
    """The caller asked for something malformed (bad option value, missing path)."""

    exit_code = 2


class ConfigError(SubagentError):
    """A configuration file (`pyproject.toml` `[tool.subagents]`, `.subagents.toml`) is broken."""

    exit_code = 2


class DefinitionError(SubagentError):
    """An agent definition cannot be used; ``diagnostics`` says why and where."""

    def __init__(
        self,
        message: str,
        diagnostics: Sequence[Diagnostic] = (),
        *,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.diagnostics = tuple(diagnostics)


class AgentFileNotFound(DefinitionError, FileNotFoundError):
    """``load_agent`` was given a path with no file: catch it as ``FileNotFoundError`` (as for
    ``open``) or as :class:`DefinitionError`; ``filename`` and ``errno`` are set as ``open``
    sets them."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        shown = os.fspath(path)
        super().__init__(
            f"no agent file at {shown}",
            hint="check the path; `subagents list` shows the agents this directory sees",
        )
        self.errno = errno.ENOENT
        self.strerror = os.strerror(errno.ENOENT)
        self.filename = shown


class AgentNotFoundError(SubagentError):
    """No agent of that name; ``suggestions`` holds the closest names."""

    def __init__(self, name: str, suggestions: Sequence[str] = (), *, hint: str | None = None):
        message = f"no agent named {name!r}"
        if suggestions:
            message += "; did you mean " + ", ".join(repr(s) for s in suggestions) + "?"
        super().__init__(
            message,
            hint=hint
            or "run without --agent to let the general-purpose main thread handle it, "
            "or `subagents list` to see what this directory has",
        )
        self.name = name
        self.suggestions = tuple(suggestions)


class StoreError(SubagentError):
    """A problem with an ``agents.json`` store."""


class StoreCorruptError(StoreError):
    """The store file is not valid; writes are refused until it is fixed."""


class StoreLockTimeout(StoreError):
    """Another writer held the store lock for too long."""


class ProviderError(SubagentError):
    """A model provider failed."""


class MissingCredentialsError(ProviderError):
    """The provider needs an API key that is not set."""


class ProviderConnectionError(ProviderError):
    """The provider's server could not be reached (after retries)."""


class ProviderResponseError(ProviderError):
    """The provider answered with an error status or a reply that cannot be understood."""

    def __init__(self, message: str, *, status: int | None = None, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.status = status


class RunError(SubagentError):
    """A run could not start or was interrupted."""
