"""subagents: read, judge, repair, find, convert and run AI subagent definitions.

The public namespace is curated: every name in ``__all__`` is importable from ``subagents``
and resolves lazily, so ``import subagents`` stays cheap (the CLI's ``validate`` must not pay
for the runtime, the providers or the MCP server).  ``tests/test_public_api.py`` guards it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

from subagents import _moved
from subagents._lazy import lazy_exports

_moved.install()

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AgentDefinition": "subagents.definition",
    "AgentDispatcher": "subagents.dispatch.dispatcher",
    "AgentEntry": "subagents.registry.core",
    "AgentFileNotFound": "subagents.errors",
    "AgentNotFoundError": "subagents.errors",
    "AgentRegistry": "subagents.registry.core",
    "AgentResult": "subagents.runtime.result",
    "AgentRunner": "subagents.runtime.runner",
    "AgentStore": "subagents.store.core",
    "ChangeEvent": "subagents.registry.watch",
    "ConfigError": "subagents.errors",
    "DefinitionError": "subagents.errors",
    "Diagnostic": "subagents.diagnostics",
    "Dialect": "subagents.definition",
    "FixResult": "subagents.repair.fix",
    "HookCommand": "subagents.definition",
    "HookMatcher": "subagents.definition",
    "LoadResult": "subagents.harnesses.loader",
    "McpServerSpec": "subagents.definition",
    "Message": "subagents.providers.base",
    "Model": "subagents.providers.base",
    "ModelRequest": "subagents.providers.base",
    "ModelResponse": "subagents.providers.base",
    "PermissionPolicy": "subagents.runtime.permissions",
    "ProviderError": "subagents.errors",
    "Router": "subagents.dispatch.router",
    "RunHooks": "subagents.runtime.hooks",
    "RunInterrupted": "subagents.runtime.result",
    "Scope": "subagents.definition",
    "Severity": "subagents.diagnostics",
    "SubagentError": "subagents.errors",
    "Tool": "subagents.runtime.tools.base",
    "ToolContext": "subagents.runtime.tools.base",
    "ToolOutput": "subagents.runtime.tools.base",
    "ValidationReport": "subagents.lint.validate",
    "convert_definitions": "subagents.repair.convert",
    "fix_file": "subagents.repair.fix",
    "get_provider": "subagents.providers",
    "load_agent": "subagents.harnesses.loader",
    "parse_agent_text": "subagents.harnesses.loader",
    "read_agent_file": "subagents.harnesses.loader",
    "run_main_thread": "subagents.dispatch.main_thread",
    "run_pipeline": "subagents.dispatch.pipeline",
    "run_team": "subagents.dispatch.teams",
    "validate_paths": "subagents.lint.validate",
    "validate_text": "subagents.lint.validate",
}

__all__ = [
    "AgentDefinition",
    "AgentDispatcher",
    "AgentEntry",
    "AgentFileNotFound",
    "AgentNotFoundError",
    "AgentRegistry",
    "AgentResult",
    "AgentRunner",
    "AgentStore",
    "ChangeEvent",
    "ConfigError",
    "DefinitionError",
    "Diagnostic",
    "Dialect",
    "FixResult",
    "HookCommand",
    "HookMatcher",
    "LoadResult",
    "McpServerSpec",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "PermissionPolicy",
    "ProviderError",
    "Router",
    "RunHooks",
    "RunInterrupted",
    "Scope",
    "Severity",
    "SubagentError",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ValidationReport",
    "convert_definitions",
    "fix_file",
    "get_provider",
    "load_agent",
    "parse_agent_text",
    "read_agent_file",
    "run_main_thread",
    "run_pipeline",
    "run_team",
    "validate_paths",
    "validate_text",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:
    from subagents.definition import (
        AgentDefinition,
        Dialect,
        HookCommand,
        HookMatcher,
        McpServerSpec,
        Scope,
    )
    from subagents.diagnostics import Diagnostic, Severity
    from subagents.dispatch.dispatcher import AgentDispatcher
    from subagents.dispatch.main_thread import run_main_thread
    from subagents.dispatch.pipeline import run_pipeline
    from subagents.dispatch.router import Router
    from subagents.dispatch.teams import run_team
    from subagents.errors import (
        AgentFileNotFound,
        AgentNotFoundError,
        ConfigError,
        DefinitionError,
        ProviderError,
        SubagentError,
    )
    from subagents.harnesses.loader import LoadResult, load_agent, parse_agent_text, read_agent_file
    from subagents.lint.validate import ValidationReport, validate_paths, validate_text
    from subagents.providers import get_provider
    from subagents.providers.base import Message, Model, ModelRequest, ModelResponse
    from subagents.registry.core import AgentEntry, AgentRegistry
    from subagents.registry.watch import ChangeEvent
    from subagents.repair.convert import convert_definitions
    from subagents.repair.fix import FixResult, fix_file
    from subagents.runtime.hooks import RunHooks
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.result import AgentResult, RunInterrupted
    from subagents.runtime.runner import AgentRunner
    from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput
    from subagents.store.core import AgentStore
