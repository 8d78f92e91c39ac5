"""Cases about where agents come from beyond the two agents folders, first measured on 2.1.332:
plugins (``--plugin-dir``), the ``--agents`` value, a folder the user trusted (``~/.claude.json``),
a live MCP server, user-scope precedence, and a YAML alias bomb.

Design decisions: the MCP server is a few lines of our own (:data:`PROBE`, written into the
case's project and started by Claude Code as ``python3 PROBE TOOL``), so a recording shows
whether the server really started: its one tool's ``mcp__SERVER__TOOL`` name is then in the
launched agent's request.  Trust is written the way Claude Code keeps it: ``~/.claude.json``
``projects[<folder>].hasTrustDialogAccepted``.
"""

from __future__ import annotations

import json

from subagents.conformance.casekit import Case, agent, md

__all__ = ["PROBE", "SCOPE_CASES"]

# A stdio MCP server with one tool named after argv[1]: enough for Claude Code to connect.
PROBE = b'''import json, sys
TOOL = sys.argv[1] if len(sys.argv) > 1 else "ping"
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or msg.get("id") is None:
        continue
    method = msg.get("method")
    if method == "initialize":
        res = {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2024-11-05"),
               "capabilities": {"tools": {}}, "serverInfo": {"name": "probe", "version": "1"}}
    elif method == "tools/list":
        res = {"tools": [{"name": TOOL, "description": "Probe tool.",
                          "inputSchema": {"type": "object", "properties": {}}}]}
    elif method == "tools/call":
        res = {"content": [{"type": "text", "text": "pong"}]}
    else:
        res = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": res}) + "\\n")
    sys.stdout.flush()
'''

_PROBE_FILE = "mcp/probe.py"


def _trust(**extra: object) -> dict[str, bytes]:
    """``~/.claude.json`` trusting the case's project folder (plus top-level ``extra``)."""
    data = {"projects": {"{PROJECT}": {"hasTrustDialogAccepted": True}}, **extra}
    return {".claude.json": (json.dumps(data, indent=2) + "\n").encode()}


def _server(tool: str) -> str:
    return f'command: python3\n      args: ["{{PROJECT}}/{_PROBE_FILE}", "{tool}"]\n'


def _manifest(name: str, **extra: object) -> bytes:
    return (json.dumps({"name": name, **extra}, indent=2) + "\n").encode()


def _cli(entries: dict[str, object] | str) -> str:
    return entries if isinstance(entries, str) else json.dumps(entries)


_MCP_LIST = ("name: mcp-list\ndescription: MCP list case.\nmcpServers:\n  - probelist:\n      "
             + _server("zaplist"))

SCOPE_CASES: tuple[Case, ...] = (
    # --- plugins ---------------------------------------------------------------------------------
    Case("plugin-ids", "plugin agents are PLUGIN:NAME, each subfolder adds a segment; no name: "
         "the file stem; no description: the stock text; ':' in a name is allowed",
         {}, project_files={
             "plugins/acme/.claude-plugin/plugin.json": _manifest("acme"),
             "plugins/acme/agents/reviewer.md": agent("reviewer", "Reviews plugin code."),
             "plugins/acme/agents/team/deep/lead.md": agent("lead", "Leads the team."),
             "plugins/acme/agents/nameless-helper.md": md("description: Has no name.\n"),
             "plugins/acme/agents/quiet.md": md("name: quiet\n"),
             "plugins/acme/agents/inner.md": agent("ns:inner", "A colon in the name."),
         }, plugin_dirs=("plugins/acme",), spawn=("acme:reviewer",)),
    Case("plugin-names", "the manifest name wins over the folder; a folder without a manifest "
         "is named after the folder",
         {}, project_files={
             "plugins/tools-folder/.claude-plugin/plugin.json": _manifest("acme-tools"),
             "plugins/tools-folder/agents/fmt.md": agent("fmt", "Formats code."),
             "plugins/loose/agents/helper.md": agent("helper", "Helps loosely."),
         }, plugin_dirs=("plugins/tools-folder", "plugins/loose")),
    Case("plugin-manifest-agents", "a manifest agents list replaces the agents/ folder",
         {}, project_files={
             "plugins/acme/.claude-plugin/plugin.json": _manifest(
                 "acme", agents=["./custom/listed.md"]),
             "plugins/acme/custom/listed.md": agent("listed", "Named by the manifest."),
             "plugins/acme/agents/unlisted.md": agent("unlisted", "In agents/ only."),
         }, plugin_dirs=("plugins/acme",)),
    Case("plugin-bad-yaml", "YAML even the second pass rejects: loads under the file name, "
         "stock description, all tools (its tools line is lost); YAML the second pass reads "
         "loads as read",
         {}, project_files={
             "plugins/acme/.claude-plugin/plugin.json": _manifest("acme"),
             "plugins/acme/agents/broken.md": md(
                 "name: broken-inside\ndescription: Broken.\ntools: Read\n- stray item\n"),
             "plugins/acme/agents/lenient.md": md(
                 "name: lenient\ndescription: [unclosed\ntools: Read\n"),
         }, plugin_dirs=("plugins/acme",), spawn=("acme:broken", "acme:lenient")),
    Case("plugin-ignored-fields", "permissionMode, hooks and mcpServers of a plugin agent are "
         "ignored (one WARN each); its MCP server never starts",
         {}, project_files={
             "plugins/acme/.claude-plugin/plugin.json": _manifest("acme"),
             "plugins/acme/agents/guarded.md": md(
                 "name: guarded\ndescription: Plugin agent with fields.\npermissionMode: plan\n"
                 "hooks:\n  Stop:\n    - hooks:\n        - type: command\n"
                 "          command: echo stop\n"
                 "mcpServers:\n  - plugprobe:\n      " + _server("zapplug")),
             _PROBE_FILE: PROBE,
         }, plugin_dirs=("plugins/acme",), home_files=_trust(), spawn=("acme:guarded",)),
    Case("plugin-broken-hooks", "hooks a project agent could not load with (a string, a "
         "PreToolUse hook of an unknown type) in a plugin's agent",
         {}, project_files={
             "plugins/acme/.claude-plugin/plugin.json": _manifest("acme"),
             "plugins/acme/agents/hooks-string.md": md(
                 "name: hooks-string\ndescription: Plugin hooks string.\nhooks: \"echo hi\"\n"),
             "plugins/acme/agents/hooks-guard.md": md(
                 "name: hooks-guard\ndescription: Plugin guard hook.\nhooks:\n  PreToolUse:\n"
                 "    - matcher: Bash\n      hooks:\n        - type: teleport\n"
                 "          command: echo hi\n"),
         }, plugin_dirs=("plugins/acme",)),
    Case("plugin-precedence", "a project agent and a plugin agent of the same name stay apart",
         {"shared.md": agent("shared", "Project shared.")}, project_files={
             "plugins/acme/.claude-plugin/plugin.json": _manifest("acme"),
             "plugins/acme/agents/shared.md": agent("shared", "Plugin shared."),
         }, plugin_dirs=("plugins/acme",)),
    # --- --agents --------------------------------------------------------------------------------
    Case("cli-agents-valid", "--agents entries load and beat project and user agents; tools, "
         "model, disallowedTools and effort apply; a key with ':' loads",
         {"over.md": agent("cli-over", "Project version.")},
         user_files={"over.md": agent("cli-over", "User version.")},
         cli_agents=_cli({
             "cli-over": {"description": "From --agents.", "prompt": "You are cli-over.",
                          "tools": ["Read", "Grep", "Bash"], "disallowedTools": ["Bash"],
                          "model": "haiku", "effort": "high"},
             "cli:colon": {"description": "A colon key.", "prompt": "You are cli colon."},
         }), spawn=("cli-over",), request_params=("output_config",)),
    Case("cli-agents-no-description", "an --agents entry without description: nothing starts",
         {"present.md": agent("cli-present")},
         cli_agents=_cli({"cli-ok": {"description": "Fine.", "prompt": "p"},
                          "cli-nodesc": {"prompt": "p"}})),
    Case("cli-agents-tools-string", "--agents tools given as a string: nothing starts",
         {"present.md": agent("cli-present")},
         cli_agents=_cli({"cli-str": {"description": "Tools string.", "prompt": "p",
                                      "tools": "Read"}})),
    Case("cli-agents-dash-key", "an --agents key starting with '-': nothing starts",
         {"present.md": agent("cli-present")},
         cli_agents=_cli({"-cli-dash": {"description": "Dash key.", "prompt": "p"}})),
    Case("cli-agents-tools-null", "--agents tools: null",
         {"present.md": agent("cli-present")},
         cli_agents=_cli({"cli-null": {"description": "Tools null.", "prompt": "p",
                                       "tools": None}})),
    Case("cli-agents-no-prompt", "an --agents entry without a prompt",
         {"present.md": agent("cli-present")},
         cli_agents=_cli({"cli-noprompt": {"description": "No prompt."}})),
    Case("cli-agents-bad-json", "an --agents value that is not JSON: nothing starts",
         {"present.md": agent("cli-present")},
         cli_agents='{"cli-broken": {"description": "x", "prompt": "p"'),
    # --- user scope ------------------------------------------------------------------------------
    Case("user-scope-precedence", "a user Explore replaces the built-in; Helper (user) and "
         "helper (project) are two agents",
         {"helper.md": agent("helper", "Project helper.")},
         user_files={"helper.md": agent("Helper", "User helper."),
                     "explore.md": agent("Explore", "User explorer.", "tools: Read\n")},
         spawn=("Explore",)),
    # --- trust and live MCP servers --------------------------------------------------------------
    Case("mcp-list-trusted", "an mcpServers list in a trusted folder: the server starts and the "
         "agent's request names its tool",
         {"mcp.md": md(_MCP_LIST)}, project_files={_PROBE_FILE: PROBE},
         home_files=_trust(), spawn=("mcp-list",)),
    Case("mcp-list-untrusted", "the same in a folder the user has not trusted: the servers are "
         "skipped",
         {"mcp.md": md(_MCP_LIST)}, project_files={_PROBE_FILE: PROBE},
         spawn=("mcp-list",)),
    Case("mcp-map-trusted", "mcpServers as a mapping in a trusted folder: no server starts",
         {"mcp.md": md("name: mcp-map\ndescription: MCP map case.\nmcpServers:\n  probemap:\n"
                       "    " + _server("zapmap").replace("\n      ", "\n    "))},
         project_files={_PROBE_FILE: PROBE}, home_files=_trust(), spawn=("mcp-map",)),
    Case("mcp-named-server", "a list naming a server of ~/.claude.json: it is connected",
         {"mcp.md": md("name: mcp-named\ndescription: MCP named case.\n"
                       "mcpServers:\n  - homeprobe\n")},
         project_files={_PROBE_FILE: PROBE},
         home_files=_trust(mcpServers={"homeprobe": {
             "type": "stdio", "command": "python3",
             "args": ["{PROJECT}/" + _PROBE_FILE, "zaphome"]}}),
         spawn=("mcp-named",)),
    Case("mcp-bad-items", "mcpServers items that are not servers are dropped; the rest start",
         {"mcp.md": md("name: mcp-bad\ndescription: MCP bad items.\nmcpServers:\n  - 42\n"
                       "  - broken:\n      command: 7\n  - goodprobe:\n      "
                       + _server("zapgood"))},
         project_files={_PROBE_FILE: PROBE}, home_files=_trust(), spawn=("mcp-bad",)),
    Case("hooks-untrusted", "a valid Stop hook in a folder the user has not trusted: the agent "
         "loads, its hooks are skipped",
         {"h.md": md("name: hooks-untrusted\ndescription: Hooks case.\nhooks:\n  Stop:\n"
                     "    - hooks:\n        - type: command\n          command: echo stop\n")},
         spawn=("hooks-untrusted",)),
    # --- hostile YAML ----------------------------------------------------------------------------
    Case("yaml-alias-bomb", "anchors that would expand a billion times: read as literal text",
         {"bomb.md": md(
             "name: yaml-bomb\ndescription: Alias bomb.\n"
             'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
             "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
             "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
             "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
             "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
             "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
             "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
             "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
             "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
             "tools: *i\n")},
         spawn=("yaml-bomb",)),
)
