"""Run the real Claude Code with our plugin, offline, and report what it did with the server.

    unshare -n python claude_plugin_probe.py CLAUDE PLUGIN_DIR WORK_DIR

Inside a network namespace with only loopback: a fake Anthropic API on 127.0.0.1 whose model
writes a bad agent file (``.claude/agents/probe.md``, an unknown tool ``Reed``) with the Write
tool, waits five seconds at a time (Bash ``sleep``) until a request carries the diagnostic, at
most a minute, and answers with text.  Claude Code runs with ``--plugin-dir PLUGIN_DIR``.  Prints JSON:
the exit code, whether a request sent to the model after the write carries our diagnostic
(``SA104``), and the debug-log lines about LSP servers.  Used by tests/test_claude_plugin.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from subagents.testing import text, tool_call
from subagents.testing.server import FakeLLMServer, RecordedRequest

#: how many five-second waits after the write, at most, for the diagnostic to arrive
_WAITS = 12

BAD = "---\nname: probe\ndescription: Probes the editor tooling.\ntools: Read, Reed\n---\nHi\n"


def main() -> None:
    claude, plugin, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    project, home = work / "proj", work / "home"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "agents").mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    target = project / ".claude" / "agents" / "probe.md"

    def reply(request: RecordedRequest) -> object:
        body = request.json if isinstance(request.json, dict) else {}
        dump = json.dumps(body.get("messages", []))
        tools = [t.get("name") for t in body.get("tools", []) if isinstance(t, dict)]
        if "PLUGIN-PROBE" not in dump or "Write" not in tools:
            return text("ok")
        results = dump.count('"tool_result"')
        if results == 0:
            return tool_call("Write", {"file_path": str(target), "content": BAD})
        if "SA104" not in dump and results <= _WAITS:
            # give the server time to answer before the next request (a loaded machine
            # starts it slowly): five seconds at a time until our diagnostic is there
            return tool_call("Bash", {"command": "sleep 5", "description": "wait"})
        return text("done")

    debug = work / "debug.log"
    with FakeLLMServer(default=reply) as server:
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "IS_SANDBOX": "1",
               "ANTHROPIC_BASE_URL": server.anthropic_base_url, "ANTHROPIC_API_KEY": "test-key",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
               "DISABLE_AUTOUPDATER": "1"}
        proc = subprocess.run(
            [claude, "-p", "PLUGIN-PROBE write the agent file", "--output-format", "stream-json",
             "--verbose", "--permission-mode", "bypassPermissions", "--plugin-dir", str(plugin),
             "--debug-file", str(debug)],
            cwd=project, env=env, capture_output=True, text=True, timeout=240, check=False)
        after_write = [json.dumps(r.json) for r in server.requests
                       if isinstance(r.json, dict) and "tool_result" in json.dumps(r.json)
                       and "PLUGIN-PROBE" in json.dumps(r.json)]
    log = debug.read_text(errors="replace") if debug.exists() else ""
    print(json.dumps({
        "exit_code": proc.returncode,
        "written": target.exists(),
        "diagnostic_seen": any("SA104" in body for body in after_write),
        "requests_after_write": len(after_write),
        "lsp_log": [line for line in log.splitlines() if "LSP" in line or "lsp" in line][:80],
        "stderr": proc.stderr[-2000:],
    }))


if __name__ == "__main__":
    main()
