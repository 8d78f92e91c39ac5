"""What Codex CLI 0.169.0 accepts in an agent role file, as data plus the checks serde makes.

An agent role file is deserialized as ``{name, description, nickname_candidates}`` plus every
key of Codex's ``config.toml`` (``ConfigToml``, flattened), with unknown fields denied.  So a
key is legal exactly when it is one of those three or a ``ConfigToml`` field.

Where the key list comes from
-----------------------------
``CONFIG_TOML_KEYS`` was read out of the ``codex`` binary of ``@openai/codex@0.169.0``
(linux-x64 musl build, ``codex --version`` = ``codex-cli 0.169.0``): serde's derive stores each
struct's field names as one ``&[&str]`` array; the array holding ``model_reasoning_effort`` has
exactly the 106 entries announced by the binary's own ``struct ConfigToml with 106 elements``
string, from ``model`` to ``oss_provider``.  Running that binary confirmed the edges: ``model``,
``daybreak`` and ``oss_provider`` are accepted, the neighbouring ``update_plan`` and ``version``
give ``unknown field``.

The value checks below are the ones measured with that binary (each message is the one it
printed); keys without a check here are accepted with any value, so a type error in a rarely
used config key is not detected (Codex would skip the file).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

__all__ = [
    "CONFIG_TOML_KEYS",
    "ROLE_KEYS",
    "check_config_value",
    "check_role_value",
    "unexpected",
]

ROLE_KEYS: tuple[str, ...] = ("name", "description", "nickname_candidates")

# ConfigToml's fields in codex-cli 0.169.0, in declaration order (see the module docstring).
CONFIG_TOML_KEYS: frozenset[str] = frozenset((
    "model", "daybreak", "review_model", "model_provider", "model_context_window",
    "model_auto_compact_token_limit", "model_auto_compact_token_limit_scope",
    "model_post_turn_compact_threshold_percent", "approval_policy", "approvals_reviewer",
    "auto_review", "browser_use", "computer_use", "shell_environment_policy",
    "allow_login_shell", "sandbox_mode", "allow_symlinked_codex_home",
    "sandbox_workspace_write", "default_permissions", "permissions", "notify", "instructions",
    "developer_instructions", "include_permissions_instructions", "include_apps_instructions",
    "include_collaboration_mode_instructions", "include_environment_context",
    "include_environment_context_time", "model_instructions_file", "compact_prompt",
    "forced_chatgpt_workspace_id", "forced_login_method", "cli_auth_credentials_store",
    "mcp_servers", "mcp_enterprise_managed_auth", "mcp_oauth_credentials_store",
    "mcp_oauth_callback_port", "mcp_oauth_callback_url", "mcp_optional_startup_grace_ms",
    "model_providers", "project_doc_max_bytes", "project_doc_fallback_filenames",
    "tool_output_token_limit", "background_terminal_max_timeout", "thread_unload_delay_secs",
    "js_repl_node_path", "js_repl_node_module_dirs", "profile", "profiles", "history",
    "sqlite_home", "log_dir", "file_opener", "tui", "hide_agent_reasoning",
    "show_raw_agent_reasoning", "model_reasoning_effort", "plan_mode_reasoning_effort",
    "model_reasoning_summary", "model_verbosity", "model_catalog_json", "personality",
    "service_tier", "chatgpt_base_url", "apps_mcp_product_sku", "responses_api_metadata",
    "orchestrator", "cloud", "openai_base_url", "audio", "experimental_realtime_ws_base_url",
    "experimental_realtime_webrtc_call_base_url", "experimental_realtime_ws_model", "realtime",
    "experimental_realtime_ws_backend_prompt", "experimental_realtime_ws_startup_context",
    "experimental_realtime_start_instructions", "experimental_thread_store_endpoint",
    "experimental_thread_store", "projects", "web_search", "tools", "tool_suggest", "agents",
    "goals", "memories", "skills", "hooks", "plugins", "marketplaces", "features",
    "suppress_unstable_features_warning", "ghost_snapshot", "project_root_markers",
    "check_for_update_on_startup", "disable_paste_burst", "analytics", "feedback", "apps",
    "desktop", "otel", "windows", "notice", "experimental_compact_prompt_file",
    "experimental_use_unified_exec_tool", "oss_provider",
))

SANDBOX_MODES: tuple[str, ...] = ("read-only", "workspace-write", "danger-full-access")
APPROVAL_POLICIES: tuple[str, ...] = ("untrusted", "on-failure", "on-request", "granular", "never")
WEB_SEARCH_MODES: tuple[str, ...] = ("disabled", "cached", "indexed", "live")
VERBOSITIES: tuple[str, ...] = ("low", "medium", "high")
TOOLS_VARIANTS: tuple[str, ...] = ("standalone", "search_mcp")

_STRING_KEYS = frozenset((
    "model", "review_model", "model_provider", "developer_instructions", "instructions",
    "compact_prompt", "model_reasoning_effort", "plan_mode_reasoning_effort", "profile",
    "chatgpt_base_url", "openai_base_url", "model_instructions_file",
    "experimental_compact_prompt_file",
))
_BOOL_KEYS = frozenset((
    "daybreak", "allow_login_shell", "allow_symlinked_codex_home",
    "include_permissions_instructions", "include_apps_instructions",
    "include_collaboration_mode_instructions", "include_environment_context",
    "include_environment_context_time", "hide_agent_reasoning", "show_raw_agent_reasoning",
    "suppress_unstable_features_warning", "check_for_update_on_startup", "disable_paste_burst",
    "experimental_use_unified_exec_tool",
))
_USIZE_KEYS = frozenset(("project_doc_max_bytes",))
_TABLE_KEYS = frozenset(("features", "skills", "agents", "profiles", "model_providers"))


def unexpected(value: Any) -> str:
    """serde's ``Unexpected`` wording for a TOML value, as in ``invalid type: <this>``."""
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return f'string "{value}"'
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return "map"  # a TOML datetime reaches serde as a one-field struct
    return "map"


def _expected_one_of(value: str, options: tuple[str, ...]) -> str:
    listed = ", ".join(f"`{o}`" for o in options)
    return f"unknown variant `{value}`, expected one of {listed}"


def check_role_value(key: str, value: Any) -> str | None:
    """serde's message for a bad ``name``/``description``/``nickname_candidates`` value."""
    if key in ("name", "description"):
        return None if isinstance(value, str) else f"invalid type: {unexpected(value)}, " \
            "expected a string"
    if key == "nickname_candidates":
        if not isinstance(value, list):
            return f"invalid type: {unexpected(value)}, expected a sequence"
        for item in value:
            if not isinstance(item, str):
                return f"invalid type: {unexpected(item)}, expected a string"
    return None


def _check_mcp_servers(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return f"invalid type: {unexpected(value)}, expected a map"
    for server in value.values():
        if not isinstance(server, Mapping):
            return f"invalid type: {unexpected(server)}, expected a map"
        if "command" not in server and "url" not in server:
            return "invalid transport"
        for field in ("command", "url", "cwd"):
            if field in server and not isinstance(server[field], str):
                return f"invalid type: {unexpected(server[field])}, expected a string"
        args = server.get("args", [])
        if not isinstance(args, list):
            return f"invalid type: {unexpected(args)}, expected a sequence"
        for arg in args:
            if not isinstance(arg, str):
                return f"invalid type: {unexpected(arg)}, expected a string"
        for table in ("env", "http_headers"):
            env = server.get(table, {})
            if not isinstance(env, Mapping):
                return f"invalid type: {unexpected(env)}, expected a map"
            for item in env.values():
                if not isinstance(item, str):
                    return f"invalid type: {unexpected(item)}, expected a string"
    return None


def _check_tools(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return None
    if isinstance(value, list):
        first = value[0] if value else None
        if isinstance(first, str) and first not in TOOLS_VARIANTS:
            return f"unknown variant `{first}`, expected `standalone` or `search_mcp`"
        return f"invalid length {len(value)}, expected struct ToolsToml with 4 elements"
    return f"invalid type: {unexpected(value)}, expected struct ToolsToml"


def check_config_value(key: str, value: Any) -> str | None:
    """serde's message when ``value`` does not fit ConfigToml's field ``key`` (None: fits,
    or we do not check that key)."""
    if key in _STRING_KEYS:
        return None if isinstance(value, str) else \
            f"invalid type: {unexpected(value)}, expected a string"
    if key in _BOOL_KEYS:
        return None if isinstance(value, bool) else \
            f"invalid type: {unexpected(value)}, expected a boolean"
    if key in _USIZE_KEYS:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        return None if ok else f"invalid type: {unexpected(value)}, expected usize"
    if key in _TABLE_KEYS:
        return None if isinstance(value, Mapping) else \
            f"invalid type: {unexpected(value)}, expected a map"
    if key == "sandbox_mode":
        if isinstance(value, Mapping):
            return None
        if not isinstance(value, str):
            return f"invalid type: {unexpected(value)}, expected string or map"
        return None if value in SANDBOX_MODES else _expected_one_of(value, SANDBOX_MODES)
    if key == "approval_policy":
        if isinstance(value, Mapping):
            return None
        if not isinstance(value, str):
            return f"invalid type: {unexpected(value)}, expected string or map"
        if value == "granular":
            return "invalid type: unit variant, expected newtype variant"
        return None if value in APPROVAL_POLICIES else _expected_one_of(value, APPROVAL_POLICIES)
    if key == "web_search":
        if not isinstance(value, str):
            return f"invalid type: {unexpected(value)}, expected a string"
        return None if value in WEB_SEARCH_MODES else _expected_one_of(value, WEB_SEARCH_MODES)
    if key == "model_verbosity":
        if not isinstance(value, str):
            return f"invalid type: {unexpected(value)}, expected a string"
        return None if value in VERBOSITIES else _expected_one_of(value, VERBOSITIES)
    if key == "mcp_servers":
        return _check_mcp_servers(value)
    if key == "tools":
        return _check_tools(value)
    return None
