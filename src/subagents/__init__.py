"""subagents: read, judge, repair, find, convert and run AI subagent definitions.

The public namespace is curated (httpx's way): every name a user needs is in ``__all__`` and
importable from ``subagents`` (offline testing helpers from ``subagents.testing``); the
subpackages behind them (``subagents.lint``, ``subagents.runtime``, ...) are the implementation
and may change between 0.x releases without notice.  Names resolve lazily, so ``import
subagents`` stays cheap (the CLI's ``validate`` must not pay for the runtime, the providers or
the MCP server).  ``tests/test_public_api.py`` guards it: the exact list of public names, and
that the README and docs import only from the public namespaces.

The modules that ``subagents validate FILE`` loads do not import :mod:`typing` (about 4% of
that command): they write ``TYPE_CHECKING = False`` (mypy and ruff treat the name as true)
and import what only annotations use under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

__version__ = "0.1.0"

from subagents._lazy import lazy_exports
from subagents._yaml_start import seed as _seed_yaml

_seed_yaml()  # PyYAML's one slow pattern, compiled the cheap way (see the module)

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
    "FixStatus": "subagents.repair.fix",
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
    "TeamLayout": "subagents.dispatch.teams",
    "TeamLimits": "subagents.dispatch.teams",
    "TeamOutcome": "subagents.dispatch.teams",
    "Tool": "subagents.runtime.tools.base",
    "ToolContext": "subagents.runtime.tools.base",
    "ToolOutput": "subagents.runtime.tools.base",
    "ValidationReport": "subagents.lint.validate",
    "apply_sync": "subagents.repair.sync",
    "convert_definitions": "subagents.repair.convert",
    "fix_file": "subagents.repair.fix",
    "fix_text": "subagents.repair.fix",
    "get_provider": "subagents.providers",
    "load_agent": "subagents.harnesses.loader",
    "parse_agent_text": "subagents.harnesses.loader",
    "plan_sync": "subagents.repair.sync",
    "read_agent_file": "subagents.harnesses.loader",
    "resolve_targets": "subagents.repair.sync",
    "run_main_thread": "subagents.dispatch.main_thread",
    "run_pipeline": "subagents.dispatch.pipeline",
    "run_team": "subagents.dispatch.teams",
    "to_sdk_agent_definitions": "subagents.formats.sdkwire",
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
    "FixStatus",
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
    "TeamLayout",
    "TeamLimits",
    "TeamOutcome",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ValidationReport",
    "apply_sync",
    "convert_definitions",
    "fix_file",
    "fix_text",
    "get_provider",
    "load_agent",
    "parse_agent_text",
    "plan_sync",
    "read_agent_file",
    "resolve_targets",
    "run_main_thread",
    "run_pipeline",
    "run_team",
    "to_sdk_agent_definitions",
    "validate_paths",
    "validate_text",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


TYPE_CHECKING = False
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
    from subagents.dispatch.teams import TeamLayout, TeamLimits, TeamOutcome, run_team
    from subagents.errors import (
        AgentFileNotFound,
        AgentNotFoundError,
        ConfigError,
        DefinitionError,
        ProviderError,
        SubagentError,
    )
    from subagents.formats.sdkwire import to_sdk_agent_definitions
    from subagents.harnesses.loader import LoadResult, load_agent, parse_agent_text, read_agent_file
    from subagents.lint.validate import ValidationReport, validate_paths, validate_text
    from subagents.providers import get_provider
    from subagents.providers.base import Message, Model, ModelRequest, ModelResponse
    from subagents.registry.core import AgentEntry, AgentRegistry
    from subagents.registry.watch import ChangeEvent
    from subagents.repair.convert import convert_definitions
    from subagents.repair.fix import FixResult, FixStatus, fix_file, fix_text
    from subagents.repair.sync import apply_sync, plan_sync, resolve_targets
    from subagents.runtime.hooks import RunHooks
    from subagents.runtime.permissions import PermissionPolicy
    from subagents.runtime.result import AgentResult, RunInterrupted
    from subagents.runtime.runner import AgentRunner
    from subagents.runtime.tools.base import Tool, ToolContext, ToolOutput
    from subagents.store.core import AgentStore
