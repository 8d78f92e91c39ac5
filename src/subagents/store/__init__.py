"""Managing agent definitions: the ``agents.json`` store, its lock, and the MCP server.

``core`` is :class:`AgentStore` (define, remove, list; every change validated, locked and
written atomically); ``file`` is the file format and the lock; ``mcp_server`` offers the store
as MCP tools (``define_agent``, ``remove_agent``, ``list_agents``).  Names resolve lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from subagents._lazy import lazy_exports

_EXPORTS = {
    "MAX_DESCRIPTION_BYTES": "subagents.store.core",
    "MAX_NAME_LENGTH": "subagents.store.core",
    "MAX_PROMPT_BYTES": "subagents.store.core",
    "MAX_STORE_BYTES": "subagents.store.core",
    "STORE_FILENAME": "subagents.store.core",
    "AgentStore": "subagents.store.core",
    "ChangeResult": "subagents.store.core",
    "StoreListing": "subagents.store.core",
    "StoreScope": "subagents.store.core",
    "StoreScopeError": "subagents.store.core",
    "StoredAgent": "subagents.store.core",
    "dump_store": "subagents.store.core",
    "parse_store_text": "subagents.store.core",
    "validate_entry": "subagents.store.core",
}
__all__ = [
    "MAX_DESCRIPTION_BYTES",
    "MAX_NAME_LENGTH",
    "MAX_PROMPT_BYTES",
    "MAX_STORE_BYTES",
    "STORE_FILENAME",
    "AgentStore",
    "ChangeResult",
    "StoreListing",
    "StoreScope",
    "StoreScopeError",
    "StoredAgent",
    "dump_store",
    "parse_store_text",
    "validate_entry",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from subagents.store.core import (
        MAX_DESCRIPTION_BYTES,
        MAX_NAME_LENGTH,
        MAX_PROMPT_BYTES,
        MAX_STORE_BYTES,
        STORE_FILENAME,
        AgentStore,
        ChangeResult,
        StoredAgent,
        StoreListing,
        StoreScope,
        StoreScopeError,
        dump_store,
        parse_store_text,
        validate_entry,
    )
