"""Claude Code's own reading of agent files, emulated and versioned.

``read_claude_code`` says what one Claude Code version makes of one file (loaded or skipped and
why, with which name, description, tools and model); ``scan_agents_folder`` finds files the way
it does and ``resolve_scope`` keeps one definition per name as it does. The version's limits and
value sets are data (:mod:`.profile`); the recorded behaviour of the real CLI that these are
tested against lives in :mod:`subagents.conformance`.

Names resolve lazily (:mod:`subagents._lazy`): reading one file (``subagents validate one.md``)
imports the reader and the profile, not the folder scan.
"""

from __future__ import annotations

from subagents._lazy import lazy_exports

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "ClaudeCodeProfile": "subagents.claude_code.profile",
    "ClaudeCodeView": "subagents.claude_code.reader",
    "Note": "subagents.claude_code.reader",
    "ParseMode": "subagents.claude_code.reader",
    "Skip": "subagents.claude_code.reader",
    "SkipKind": "subagents.claude_code.reader",
    "code_unit_key": "subagents.claude_code.scan",
    "default_version": "subagents.claude_code.profile",
    "get_profile": "subagents.claude_code.profile",
    "listing_tools": "subagents.claude_code.reader",
    "read_agents_folder": "subagents.claude_code.scan",
    "read_claude_code": "subagents.claude_code.reader",
    "scan_agents_folder": "subagents.claude_code.scan",
    "split_tools": "subagents.claude_code.reader",
}

__all__ = [
    "ClaudeCodeProfile",
    "ClaudeCodeView",
    "Note",
    "ParseMode",
    "Skip",
    "SkipKind",
    "code_unit_key",
    "default_version",
    "get_profile",
    "listing_tools",
    "read_agents_folder",
    "read_claude_code",
    "scan_agents_folder",
    "split_tools",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subagents.claude_code.profile import ClaudeCodeProfile, default_version, get_profile
    from subagents.claude_code.reader import (
        ClaudeCodeView,
        Note,
        ParseMode,
        Skip,
        SkipKind,
        listing_tools,
        read_claude_code,
        split_tools,
    )
    from subagents.claude_code.scan import code_unit_key, read_agents_folder, scan_agents_folder
