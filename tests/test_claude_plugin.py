"""The Claude Code plugin in plugins/claude-code registers ``subagents lsp`` as Claude Code
2.1.332 expects.

Measured on the installed Claude Code 2.1.332 (its bundled plugin-manifest schema, and runs):

* ``lspServers`` in ``.claude-plugin/plugin.json`` is a path to a ``.lsp.json``, a mapping of
  server name to server, or a list of either.  A server has ``command`` (non-empty; no spaces
  unless it is an absolute path: arguments go in ``args``), ``args`` (strings),
  ``extensionToLanguage`` (at least one entry; every extension starts with a dot and is at
  least two characters), and optional ``transport`` (``stdio`` or ``socket``, default stdio),
  ``env``, ``initializationOptions``, ``settings``, ``workspaceFolder``, ``startupTimeout``,
  ``shutdownTimeout``, ``requestTimeout``, ``restartOnCrash``, ``maxRestarts``,
  ``diagnostics``.
* ``claude plugin validate`` checks servers written in ``plugin.json`` against that schema (it
  refuses a command with a space or an extension without a dot) but does not check a
  ``.lsp.json`` file's content -- so ours are written in ``plugin.json``.
* With ``--plugin-dir``, Claude Code starts the server when a file with a listed extension is
  written, sends ``initialize``, ``didOpen`` and ``didSave``, and hands the diagnostics the
  server publishes to the model with a later request (the probe below sees our ``SA104`` in
  it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "plugins" / "claude-code"
MANIFEST = PLUGIN / ".claude-plugin" / "plugin.json"
CLAUDE = Path(os.environ.get("SUBAGENTS_CLAUDE_BIN", "/work/cc/node_modules/.bin/claude"))

SERVER_KEYS = {"command", "args", "extensionToLanguage", "transport", "env",
               "initializationOptions", "settings", "workspaceFolder", "startupTimeout",
               "shutdownTimeout", "requestTimeout", "restartOnCrash", "maxRestarts",
               "diagnostics"}


def _servers() -> dict:
    manifest = json.loads(MANIFEST.read_text())
    servers = manifest["lspServers"]
    assert isinstance(servers, dict) and servers
    return servers


def test_manifest_fits_the_measured_schema() -> None:
    manifest = json.loads(MANIFEST.read_text())
    assert manifest["name"] == "subagents"
    for name, server in _servers().items():
        assert name and set(server) <= SERVER_KEYS, set(server) - SERVER_KEYS
        command = server["command"]
        assert command and (" " not in command or command.startswith("/"))
        assert all(isinstance(a, str) for a in server.get("args", []))
        mapping = server["extensionToLanguage"]
        assert mapping and all(ext.startswith(".") and len(ext) >= 2 for ext in mapping)
        assert all(isinstance(lang, str) and lang for lang in mapping.values())
        assert server.get("transport", "stdio") == "stdio"


def test_manifest_starts_our_server() -> None:
    """The command is the console script pyproject installs, and its arguments start the
    language server (not another command)."""
    import tomllib

    from subagents.cli.main import COMMANDS

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    (server,) = _servers().values()
    assert server["command"] in scripts
    assert server["args"][0] in COMMANDS and COMMANDS[server["args"][0]][0].startswith(
        "subagents.cli.lsp_cmd:")
    # every file kind the server checks is routed to it
    assert {".md", ".toml", ".json"} <= set(server["extensionToLanguage"])


def _validate(folder: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLAUDE), "plugin", "validate", str(folder)],
                          env={"PATH": os.environ["PATH"], "HOME": str(home)},
                          capture_output=True, text=True, timeout=120, check=False)


needs_claude = pytest.mark.skipif(not CLAUDE.exists(),
                                  reason=f"Claude Code is not installed at {CLAUDE}")


@pytest.mark.slow
@needs_claude
def test_claude_plugin_validate_accepts_ours_and_refuses_a_broken_copy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    ours = _validate(PLUGIN, home)
    assert ours.returncode == 0, ours.stdout + ours.stderr
    assert 'lspServers: subagents subagents ["lsp"]' in ours.stdout
    broken = tmp_path / "broken"
    shutil.copytree(PLUGIN, broken)
    manifest = json.loads(MANIFEST.read_text())
    manifest["lspServers"]["subagents"]["command"] = "subagents lsp"
    (broken / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    refused = _validate(broken, home)
    assert refused.returncode != 0
    assert "lspServers" in refused.stdout + refused.stderr


@pytest.mark.slow
@needs_claude
@pytest.mark.skipif(shutil.which("unshare") is None or os.geteuid() != 0,
                    reason="needs root and unshare to run Claude Code without a network")
def test_claude_code_gives_the_model_our_diagnostics(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(
        ["unshare", "-n", sys.executable, str(Path(__file__).with_name("claude_plugin_probe.py")),
         str(CLAUDE), str(PLUGIN), str(tmp_path / "w")],
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["exit_code"] == 0, result["stderr"]
    assert result["written"]
    assert any("Loaded 1 LSP server(s) from plugin: subagents" in line
               for line in result["lsp_log"])
    assert result["diagnostic_seen"], "\n".join(result["lsp_log"])
