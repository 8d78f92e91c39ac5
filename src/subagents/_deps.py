"""Third-party packages some commands need, and a clean error when one is missing.

Design notes
------------
* ``pip install subagents`` installs every package a documented command needs (the model
  SDKs, ``mcp``, ``watchfiles``, ``bm25s``, ``rich``); each is still imported lazily, only by
  the code that uses it, so ``subagents validate`` never pays for them.
* A package can still be missing (a hand-made environment, a broken install, a distribution
  that split the package).  Then the user gets one line naming the package and the command
  to install it -- never a ``ModuleNotFoundError`` traceback.  Two layers do that:
  :func:`require` / :func:`missing_dependency` at the places that import a heavy package, and
  a last-resort handler in ``subagents.cli.main`` for any import of these names that slips
  through (:func:`dependency_of`).
* The Claude Agent SDK (``claude-agent-sdk``) is not a default dependency: only library users
  who want its wire objects need it (``pip install 'subagents[sdk]'``).
"""

from __future__ import annotations

import importlib.util

from subagents.errors import SubagentError

__all__ = ["PACKAGES", "MissingDependencyError", "dependency_of", "missing_dependency", "require"]

#: import name -> the distribution that provides it
PACKAGES: dict[str, str] = {
    "anthropic": "anthropic",
    "openai": "openai",
    "mcp": "mcp",
    "watchfiles": "watchfiles",
    "bm25s": "bm25s",
    "rich": "rich",
    "pydantic": "pydantic",
    "claude_agent_sdk": "claude-agent-sdk",
    "dbos": "dbos",
    "sqlalchemy": "sqlalchemy",
}


class MissingDependencyError(SubagentError):
    """A package this feature needs is not installed (exit 1, with the install command)."""

    def __init__(self, module: str, purpose: str) -> None:
        dist = PACKAGES.get(module, module)
        again = "'subagents[sdk]'" if dist == "claude-agent-sdk" else "--force-reinstall subagents"
        super().__init__(
            f"{purpose} needs the Python package `{dist}`, which is not installed here",
            hint=f"pip install {dist}  (or: pip install {again})",
        )
        self.module = module


def dependency_of(exc: BaseException) -> str | None:
    """The top-level module name if ``exc`` is an import of one of :data:`PACKAGES`."""
    if not isinstance(exc, ImportError):
        return None
    name = (exc.name or "").split(".", 1)[0]
    return name if name in PACKAGES else None


def missing_dependency(exc: ImportError, purpose: str) -> BaseException:
    """The error to raise for a failed import: ours for a known package, else ``exc`` itself."""
    module = dependency_of(exc)
    return MissingDependencyError(module, purpose) if module is not None else exc


def require(module: str, purpose: str) -> None:
    """Fail early (before any work starts) when ``module`` cannot be imported."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise MissingDependencyError(module, purpose)
