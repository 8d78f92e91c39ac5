"""Claude Code's own reading of agent files, emulated and versioned.

``read_claude_code`` says what one Claude Code version makes of one file (loaded or skipped and
why, with which name, description, tools and model); ``scan_agents_folder`` finds files the way
it does and ``resolve_scope`` keeps one definition per name as it does. The version's limits and
value sets are data (:mod:`.profile`); the recorded behaviour of the real CLI that these are
tested against lives in :mod:`subagents.conformance`.
"""

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
