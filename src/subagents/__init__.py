"""subagents: read, judge, repair, find, convert and run AI subagent definitions.

The public namespace is curated: every name in ``__all__`` is importable from ``subagents``
and resolves lazily, so ``import subagents`` stays cheap (the CLI's ``validate`` must not pay
for the runtime, the providers or the MCP server).  ``tests/test_public_api.py`` guards it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AgentDefinition": "subagents.definition",
    "AgentDispatcher": "subagents.dispatch.dispatcher",
    "AgentEntry": "subagents.registry",
    "AgentFileNotFound": "subagents.errors",
    "AgentNotFoundError": "subagents.errors",
    "AgentRegistry": "subagents.registry",
    "AgentResult": "subagents.runtime.result",
    "AgentRunner": "subagents.runtime.runner",
    "AgentStore": "subagents.store",
    "ChangeEvent": "subagents.watching",
    "ConfigError": "subagents.errors",
    "DefinitionError": "subagents.errors",
    "Diagnostic": "subagents.diagnostics",
    "Dialect": "subagents.definition",
    "FixResult": "subagents.fix",
    "HookCommand": "subagents.definition",
    "HookMatcher": "subagents.definition",
    "LoadResult": "subagents.loader",
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
    "ValidationReport": "subagents.validate",
    "convert_definitions": "subagents.convert",
    "fix_file": "subagents.fix",
    "get_provider": "subagents.providers",
    "load_agent": "subagents.loader",
    "parse_agent_text": "subagents.loader",
    "read_agent_file": "subagents.loader",
    "run_main_thread": "subagents.runtime.orchestrator",
    "run_pipeline": "subagents.runtime.pipeline",
    "run_team": "subagents.runtime.teams",
    "validate_paths": "subagents.validate",
    "validate_text": "subagents.validate",
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


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'subagents' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from subagents.convert import convert_definitions
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
    from subagents.dispatch.router import Router
    from subagents.errors import (
        AgentFileNotFound,
        AgentNotFoundError,
        ConfigError,
        DefinitionError,
        ProviderError,
        SubagentError,
    )
    from subagents.fix import FixResult, fix_file
    from subagents.loader import LoadResult, load_agent, parse_agent_text, read_agent_file
    from subagents.providers import get_provider
    from subagents.providers.base import Message, Model, ModelRequest, ModelResponse
    from subagents.registry import AgentEntry, AgentRegistry
    from subagents.runtime.hooks import RunHooks
    from subagents.runtime.orchestrator import run_main_thread
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.pipeline import run_pipeline
    from subagents.runtime.result import AgentResult, RunInterrupted
    from subagents.runtime.runner import AgentRunner
    from subagents.runtime.teams import run_team
    from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput
    from subagents.store import AgentStore
    from subagents.validate import ValidationReport, validate_paths, validate_text
    from subagents.watching import ChangeEvent
