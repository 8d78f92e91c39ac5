"""Finding agents: precedence, the registry, built-ins, change events.

Which folders a project and a user have, and the careful folder walk, are a harness fact and live
in :mod:`subagents.harnesses.layout`. Here ``records`` holds the typed entries; ``core`` is
:class:`AgentRegistry` (loads, decides winners, reloads); ``watch`` turns file changes into
:class:`ChangeEvent` objects. Names resolve lazily so that importing one part does not import the
rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from subagents._lazy import lazy_exports

_EXPORTS = {
    "BUILTIN_AGENTS": "subagents.registry.core",
    "AgentEntry": "subagents.registry.core",
    "AgentRegistry": "subagents.registry.core",
    "ChangeEvent": "subagents.registry.watch",
    "Explanation": "subagents.registry.core",
    "FileRecord": "subagents.registry.core",
    "FolderState": "subagents.registry.core",
    "normalize_name": "subagents.registry.core",
}
__all__ = [
    "BUILTIN_AGENTS",
    "AgentEntry",
    "AgentRegistry",
    "ChangeEvent",
    "Explanation",
    "FileRecord",
    "FolderState",
    "normalize_name",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from subagents.registry.core import (
        BUILTIN_AGENTS,
        AgentEntry,
        AgentRegistry,
        Explanation,
        FileRecord,
        FolderState,
        normalize_name,
    )
    from subagents.registry.watch import ChangeEvent

