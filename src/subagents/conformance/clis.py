"""Each recordable harness CLI as data: package, version, settings, command, and how to read a run.

A :class:`CliSpec` holds everything the generic recorder needs to know about one harness:

- the npm package, the pinned version and the binary name;
- where agent files go (a project folder and a user folder under the temporary HOME);
- ``setup(project, home, url)``: writes the settings that point the CLI at the fake model API
  and returns the headless command and the extra environment (placeholder keys only);
- the delegation tool and the arguments of a scripted call to it;
- ``offered(request, known)``: the agents the main agent's first request offers to the
  delegation tool, as ``{id: description}``, read from that tool's schema or the system prompt;
  a description may span lines and hold blank lines, and when ``known`` ids are given only
  those start an entry (so a description line like ``- Context: ...`` stays in its entry).

The settings are the ones measured to work offline (see docs/conformance.md): Codex through a
``model_providers.fake`` entry using the Responses API, Gemini CLI through
``GOOGLE_GEMINI_BASE_URL`` with API-key auth, OpenCode through an ``@ai-sdk/openai-compatible``
provider in its global config, Copilot CLI through its bring-your-own-key variables, Qwen Code
through its OpenAI variables.  Trust and acknowledgement settings that a harness demands before
it reads project agents are written by the recorder per case (see
:mod:`subagents.conformance.hcases`).

Design decision: the parsers are small regular expressions over the text each CLI was seen to
send; a parser that finds no listing returns an empty mapping, and the recorder reports that as
a run problem rather than guessing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subagents.conformance.fakeapi import offered_tool_names

__all__ = ["CLIS", "CliSpec", "cli_spec", "request_model", "request_system"]

Setup = Callable[[str, Path, Path, str], tuple[list[str], dict[str, str]]]
# the ids that may start a listing entry (None: any); a description line such as
# "- Context: ..." is then not taken for an entry of its own
Known = frozenset[str] | None
PROMPT = "Say hello."


@dataclass(frozen=True, slots=True)
class CliSpec:
    """One harness CLI (see module docstring)."""

    name: str  # the harness name used on the command line and in data file names
    title: str  # how messages name it ("Gemini CLI")
    package: str
    version: str
    binary: str
    project_agents: str  # relative to the project root
    user_agents: str  # relative to HOME
    delegation_tool: str
    setup: Setup
    offered: Callable[[Mapping[str, Any], Known], dict[str, str]]
    toolcall_args: Callable[[str], dict[str, Any]]
    namespace: str = ""
    delay_after_tool: float = 0.0
    log_dir: str = ""  # a folder under HOME holding the CLI's own log files
    suffix: str = ".md"
    listed_builtins: tuple[str, ...] = ()  # built-ins listed only beside custom agents

    def toolcall(self, agent_id: str) -> dict[str, Any]:
        call: dict[str, Any] = {"name": self.delegation_tool,
                                "arguments": self.toolcall_args(agent_id)}
        if self.namespace:
            call["namespace"] = self.namespace
        return call


# ----------------------------------------------------------------------------- reading requests


def _walk_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _walk_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk_strings(item)


def request_system(body: Mapping[str, Any]) -> str:
    """The system / developer text of a request in any of the dialects."""
    parts: list[str] = []
    if isinstance(body.get("instructions"), str):
        parts.append(body["instructions"])
    system = body.get("systemInstruction") or body.get("system_instruction")
    if system is not None:
        parts.extend(_walk_strings(system.get("parts") if isinstance(system, dict) else system))
    for key in ("messages", "input"):
        for item in body.get(key) or []:
            if isinstance(item, dict) and item.get("role") in ("system", "developer"):
                parts.extend(_walk_strings(item.get("content")))
    return "\n".join(parts)


def request_model(path: str, body: Mapping[str, Any]) -> str | None:
    """The model a request asks for (Gemini puts it in the path)."""
    if isinstance(body.get("model"), str):
        return str(body["model"])
    match = re.search(r"/models/([^/:?]+):", path)
    return match.group(1) if match else None


def tool_description(body: Mapping[str, Any], name: str, namespace: str = "", *,
                     whole: bool = False) -> str:
    """The description of one offered tool (with ``whole``: every string of its schema)."""
    def text(decl: Mapping[str, Any]) -> str:
        if whole:
            return "\n".join(_walk_strings(decl))
        value = decl.get("description")
        return value if isinstance(value, str) else ""

    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if namespace and tool.get("name") == namespace:
            for sub in tool.get("tools") or []:
                if isinstance(sub, dict) and sub.get("name") == name:
                    return text(sub)
        function = tool.get("function")
        if isinstance(function, dict) and function.get("name") == name:
            return text(function)
        if tool.get("name") == name:
            return text(tool)
        for decl in tool.get("functionDeclarations") or []:
            if isinstance(decl, dict) and decl.get("name") == name:
                return text(decl)
    return ""


def _listing(text: str, header: str, entry: re.Pattern[str], end: str = "",
             known: Known = None) -> dict[str, str]:
    """``{id: description}`` of a listing: each entry runs to the next one (a description
    may hold blank lines); the last one to ``end`` when given and present (``end="$"``: to the
    end of the text), else to the first blank line."""
    start = text.find(header)
    if start < 0:
        return {}
    block = text[start + len(header):]
    stop = len(block) if end == "$" else block.find(end) if end else -1
    if stop >= 0:
        block = block[:stop]
    matches = [m for m in entry.finditer(block) if known is None or m.group(1) in known]
    out: dict[str, str] = {}
    for i, match in enumerate(matches):
        last = i + 1 == len(matches)
        rest = match.group(2) + block[match.end():matches[i + 1].start() if not last else None]
        if last and stop < 0:
            rest = rest.split("\n\n", 1)[0]
        out[match.group(1)] = rest.strip()
    return out


# ----------------------------------------------------------------------------- Codex


def _toml_str(value: str) -> str:
    return json.dumps(value)


def _codex_setup(binary: str, project: Path, home: Path, url: str
                 ) -> tuple[list[str], dict[str, str]]:
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    config = codex_home / "config.toml"
    existing = config.read_text("utf-8") if config.exists() else ""
    top = 'model = "gpt-5"\nmodel_provider = "fake"\n'
    provider = (
        "\n[model_providers.fake]\n"
        'name = "fake"\n'
        f"base_url = {_toml_str(url + '/v1')}\n"
        'wire_api = "responses"\n'
        'env_key = "OPENAI_API_KEY"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n"
    )
    existing = existing.replace("<PROJECT>", str(project)).replace("<HOME>", str(home))
    config.write_text(top + existing + provider, "utf-8")
    argv = [binary, "exec", "--skip-git-repo-check", PROMPT]
    return argv, {"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "placeholder-key"}


_CODEX_ROLE = re.compile(r"^([^\n{}]+): \{\n(.*?)\n\}", re.S | re.M)


def _codex_offered(body: Mapping[str, Any], known: Known = None) -> dict[str, str]:
    text = tool_description(body, "spawn_agent", "multi_agent_v1", whole=True)
    start = text.find("Available roles:")
    if start < 0:
        return {}
    out: dict[str, str] = {}
    for match in _CODEX_ROLE.finditer(text[start + len("Available roles:"):]):
        lines = [ln for ln in match.group(2).split("\n") if not ln.startswith("- This role's")]
        out[match.group(1).strip()] = "\n".join(lines).strip()
    return out


# ----------------------------------------------------------------------------- Gemini CLI


def _gemini_setup(binary: str, project: Path, home: Path, url: str
                 ) -> tuple[list[str], dict[str, str]]:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {}
    if settings.exists():
        data = json.loads(settings.read_text("utf-8"))
    data.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    data.setdefault("privacy", {})["usageStatisticsEnabled"] = False
    data.setdefault("general", {})["disableAutoUpdate"] = True
    settings.write_text(json.dumps(data), "utf-8")
    acks = home / ".gemini" / "acknowledgments" / "agents.json"
    if acks.exists():  # written with a placeholder for the project's path
        acks.write_text(acks.read_text("utf-8").replace("<PROJECT>", str(project)), "utf-8")
    argv = [binary, "-p", PROMPT, "-m", "gemini-2.5-flash"]
    return argv, {"GEMINI_API_KEY": "placeholder-key", "GOOGLE_GEMINI_BASE_URL": url,
                  "GEMINI_CLI_NO_RELAUNCH": "true",
                  "GEMINI_CLI_TRUST_WORKSPACE": "true"}


_GEMINI_ENTRY = re.compile(r"^- (\S+) -> ?(.*)$", re.M)
_GEMINI_XML = re.compile(
    r"<subagent>\s*<name>(.*?)</name>\s*<description>(.*?)</description>\s*</subagent>", re.S)


def _gemini_offered(body: Mapping[str, Any], known: Known = None) -> dict[str, str]:
    system = request_system(body)
    found = _listing(system, "The following sub-agents are available:\n\n", _GEMINI_ENTRY,
                     "\n\nRemember that the closest relevant sub-agent", known)
    return found or {m.group(1).strip(): m.group(2).strip()
                     for m in _GEMINI_XML.finditer(system)}


# ----------------------------------------------------------------------------- OpenCode


def _opencode_setup(binary: str, project: Path, home: Path, url: str
                 ) -> tuple[list[str], dict[str, str]]:
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {}
    if config.exists():
        data = json.loads(config.read_text("utf-8"))
    data.update({
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/fake-model",
        "autoupdate": False,
        "share": "disabled",
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                              "options": {"baseURL": url + "/v1", "apiKey": "placeholder-key"},
                              "models": {"fake-model": {"name": "fake-model"}}}},
    })
    config.write_text(json.dumps(data), "utf-8")
    return [binary, "run", PROMPT], {
        "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    }


_OPENCODE_ENTRY = re.compile(r"^- ([^:\n]+): ?(.*)$", re.M)


def _opencode_offered(body: Mapping[str, Any], known: Known = None) -> dict[str, str]:
    return _listing(tool_description(body, "task"),
                    "Available agent types and the tools they have access to:", _OPENCODE_ENTRY,
                    "$", known)


# ----------------------------------------------------------------------------- Copilot CLI


def _copilot_setup(binary: str, project: Path, home: Path, url: str
                 ) -> tuple[list[str], dict[str, str]]:
    argv = [binary, "-p", PROMPT, "--allow-all-tools", "--log-dir",
            str(home / "copilot-logs"), "--log-level", "all", "--no-auto-update"]
    return argv, {"COPILOT_PROVIDER_BASE_URL": url + "/v1", "COPILOT_MODEL": "gpt-4.1",
                  "COPILOT_PROVIDER_API_KEY": "placeholder-key",
                  "COPILOT_ALLOW_ALL": "1"}


_BOLD_ENTRY = re.compile(r"^- \*\*(.+?)\*\*: ?(.*)$", re.M)


def _copilot_offered(body: Mapping[str, Any], known: Known = None) -> dict[str, str]:
    return _listing(tool_description(body, "task"), "User-provided custom agents:", _BOLD_ENTRY,
                    "$", known)


# ----------------------------------------------------------------------------- Qwen Code


def _qwen_setup(binary: str, project: Path, home: Path, url: str
                 ) -> tuple[list[str], dict[str, str]]:
    argv = [binary, "-p", PROMPT, "--auth-type", "openai", "--yolo"]
    return argv, {"OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "placeholder-key",
                  "OPENAI_MODEL": "gpt-4.1"}


def _qwen_offered(body: Mapping[str, Any], known: Known = None) -> dict[str, str]:
    return _listing(tool_description(body, "agent"),
                    "Available agent types and the tools they have access to:", _BOLD_ENTRY,
                    "\n\nWhen using the Agent tool", known)


# ----------------------------------------------------------------------------- the table

CLIS: dict[str, CliSpec] = {
    spec.name: spec for spec in (
        CliSpec("codex", "Codex CLI", "@openai/codex", "0.169.0", "codex",
                ".codex/agents", ".codex/agents", "spawn_agent", _codex_setup, _codex_offered,
                lambda agent: {"agent_type": agent, "message": "Do the task."},
                namespace="multi_agent_v1", delay_after_tool=6.0, suffix=".toml",
                listed_builtins=("default", "explorer", "worker")),
        CliSpec("gemini", "Gemini CLI", "@google/gemini-cli", "0.61.0", "gemini",
                ".gemini/agents", ".gemini/agents", "invoke_agent", _gemini_setup,
                _gemini_offered, lambda agent: {"agent_name": agent, "prompt": "Do the task."}),
        CliSpec("opencode", "OpenCode", "opencode-ai", "1.18.33", "opencode",
                ".opencode/agents", ".config/opencode/agents", "task", _opencode_setup,
                _opencode_offered,
                lambda agent: {"subagent_type": agent, "prompt": "Do the task.",
                               "description": "a task"}),
        CliSpec("copilot", "Copilot CLI", "@github/copilot", "1.0.102", "copilot",
                ".github/agents", ".copilot/agents", "task", _copilot_setup, _copilot_offered,
                lambda agent: {"agent_type": agent, "prompt": "Do the task.",
                               "description": "a task", "name": "t1", "mode": "sync"},
                log_dir="copilot-logs", suffix=".agent.md"),
        CliSpec("qwen", "Qwen Code", "@qwen-code/qwen-code", "0.24.4", "qwen",
                ".qwen/agents", ".qwen/agents", "agent", _qwen_setup, _qwen_offered,
                lambda agent: {"subagent_type": agent, "prompt": "Do the task.",
                               "description": "a task"}),
    )
}


def cli_spec(name: str) -> CliSpec:
    """The spec of harness ``name``; KeyError with the known names otherwise."""
    try:
        return CLIS[name]
    except KeyError:
        raise KeyError(f"unknown harness {name!r} (known: claude-code, "
                       + ", ".join(sorted(CLIS)) + ")") from None


def first_main_request(spec: CliSpec, requests: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first logged request offering the delegation tool (the main agent's first turn)."""
    wanted = spec.namespace or spec.delegation_tool
    for request in requests:
        body = request.get("body")
        if isinstance(body, dict) and wanted in offered_tool_names(body):
            return request
    return None
