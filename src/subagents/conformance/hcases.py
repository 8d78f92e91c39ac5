"""The conformance cases for the other harnesses' CLIs, one list per harness.

Each case is a small project: files under the project root and under the temporary HOME
(paths relative to each, exact text), optionally the id of one agent the main agent is made to
delegate to (so the child's model, tools and prompt are recorded), and whether the recorder
writes the trust or acknowledgement settings the harness needs before it reads project agents
(Codex project trust in ``config.toml``; Gemini CLI's acknowledgement hashes).  The body of
every agent a case delegates to holds :data:`MARK`, which is how the child's request is found.

Design decision: one case per measured behaviour, named for it, so a re-recording that changes
shows exactly which behaviour moved.  Nothing here comes from the corpus.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["HARNESS_CASES", "MARK", "HCase", "harness_case"]

MARK = "CONFORMANCE-BODY-MARK"


@dataclass(frozen=True, slots=True)
class HCase:
    """One case of one harness: inputs only."""

    id: str
    about: str
    project: Mapping[str, str] = field(default_factory=dict)  # relative to the project root
    home: Mapping[str, str] = field(default_factory=dict)  # relative to HOME
    spawn: str | None = None
    trust: bool = True

    def all_files(self) -> dict[str, str]:
        """``project/<path>`` and ``home/<path>`` -> text."""
        out = {f"project/{k}": v for k, v in self.project.items()}
        out.update({f"home/{k}": v for k, v in self.home.items()})
        return out


def _md(front: str, body: str = f"{MARK} You are a careful reviewer.") -> str:
    return f"---\n{front.strip()}\n---\n{body}\n"


# ----------------------------------------------------------------------------- Gemini CLI

_G = ".gemini/agents/"
_G_MIN = _md("name: reviewer\ndescription: Reviews the current diff for bugs and missing tests."
             "\ntools:\n  - read_file\n  - grep_search\n  - glob\nmax_turns: 15")
GEMINI = [
    HCase("minimal-valid", "the documented minimal example loads; the child gets exactly its "
          "tools plus complete_task", {_G + "reviewer.md": _G_MIN}, spawn="reviewer"),
    HCase("unacknowledged", "a project agent not acknowledged in acknowledgments/agents.json is "
          "not offered", {_G + "reviewer.md": _G_MIN}, trust=False),
    HCase("user-agent", "~/.gemini/agents loads", home={_G + "helper.md": _md(
        "name: helper\ndescription: User level helper.")}),
    HCase("project-beats-user", "a project agent beats a user agent of the same name",
          {_G + "reviewer.md": _md("name: reviewer\ndescription: Project copy.")},
          {_G + "reviewer.md": _md("name: reviewer\ndescription: User copy.")}),
    HCase("tools-string", "tools as a comma string is rejected",
          {_G + "claudestyle.md": _md("name: claudestyle\ndescription: Claude style.\n"
                                      "tools: Read, Grep, Glob")}),
    HCase("unknown-key", "an unknown key (color) rejects the file",
          {_G + "colored.md": _md("name: colored\ndescription: Has a color.\ncolor: blue")}),
    HCase("mcpServers-camel", "mcpServers (camelCase, as the docs say) is rejected",
          {_G + "camel.md": _md("name: camel\ndescription: Camel case MCP.\nmcpServers:\n"
                                "  srv:\n    command: echo")}),
    HCase("mcp-servers-snake", "mcp_servers (snake_case) loads",
          {_G + "snake.md": _md("name: snake\ndescription: Snake case MCP.\nmcp_servers:\n"
                                "  srv:\n    command: echo")}),
    HCase("template-unknown-var", "${HOME} in the body fails the subagent when it is called",
          {_G + "dollar.md": _md("name: dollar\ndescription: Uses a shell variable.",
                                 f"{MARK} Run ls ${{HOME}} first.")}, spawn="dollar"),
    HCase("temperature-model", "temperature and model in the file, as the child is sent them",
          {_G + "warm.md": _md("name: warm\ndescription: Has a temperature.\n"
                               "temperature: 0.2\nmodel: gemini-2.5-pro")}, spawn="warm"),
    HCase("no-frontmatter", "a file without frontmatter is rejected",
          {_G + "plain.md": "Just a prompt, no frontmatter.\n"}),
    HCase("yaml-error", "frontmatter that is not YAML is rejected",
          {_G + "broken.md": _md("name: broken\ndescription: [unclosed")}),
    HCase("name-not-slug", "a name that is not a slug is rejected",
          {_G + "spaced.md": _md("name: Spaced Name\ndescription: Not a slug.")}),
    HCase("invalid-tool-name", "an unknown tool name rejects the file",
          {_G + "badtool.md": _md("name: badtool\ndescription: Bad tool.\ntools:\n  - Read")}),
    HCase("nested-folder", "a file in a subfolder of agents/ is not read",
          {_G + "sub/nested.md": _md("name: nested\ndescription: Nested.")}),
    HCase("underscore-file", "a file whose name starts with _ is not read",
          {_G + "_hidden.md": _md("name: hidden\ndescription: Underscore file.")}),
    HCase("crlf", "CRLF line endings load",
          {_G + "crlf.md": _md("name: crlf\ndescription: Windows line ends.").replace(
              "\n", "\r\n")}),
    HCase("no-tools-all", "no tools field: the child gets the parent's tools (no agent tools)",
          {_G + "alltools.md": _md("name: alltools\ndescription: Every tool.")},
          spawn="alltools"),
]

# ----------------------------------------------------------------------------- OpenCode

_O = ".opencode/agents/"
_O_MIN = _md("description: Reviews the current diff for bugs and missing tests.\n"
             "mode: subagent\npermission:\n  edit: deny\n  bash: deny\n  webfetch: deny")
OPENCODE = [
    HCase("minimal-valid", "the documented minimal example loads; the body starts the child's "
          "system prompt", {_O + "reviewer.md": _O_MIN}, spawn="reviewer"),
    HCase("tools-map", "the deprecated tools map (write/edit/bash false) limits the child",
          {_O + "nowrite.md": _md("description: No writing.\nmode: subagent\ntools:\n"
                                  "  write: false\n  edit: false\n  bash: false")},
          spawn="nowrite"),
    HCase("agent-and-agents", "both .opencode/agent/ and .opencode/agents/ and the global "
          "agent/ folder load",
          {".opencode/agent/singular.md": _md("description: Singular folder.\nmode: subagent"),
           _O + "plural.md": _md("description: Plural folder.\nmode: subagent")},
          {".config/opencode/agent/globalone.md": _md("description: Global agent.\n"
                                                      "mode: subagent")}),
    HCase("nested-id", "a nested file's id is its path relative to agents/",
          {_O + "sub/nested.md": _md("description: Nested file.\nmode: subagent")}),
    HCase("name-field-overrides", "a name field overrides the file-derived id",
          {_O + "filename.md": _md("name: renamed-by-field\ndescription: Renamed.\n"
                                   "mode: subagent")}),
    HCase("no-description", "an agent without a description is offered with a stock text",
          {_O + "nodesc.md": _md("mode: subagent")}),
    HCase("mode-primary", "a primary agent is not offered to the task tool",
          {_O + "primary.md": _md("description: A primary agent.\nmode: primary")}),
    HCase("hidden", "hidden: true still appears in the task tool",
          {_O + "hidden.md": _md("description: Hidden agent.\nmode: subagent\nhidden: true")}),
    HCase("disable", "disable: true removes the agent",
          {_O + "off.md": _md("description: Disabled agent.\nmode: subagent\ndisable: true")}),
    HCase("tools-string-fatal", "tools as a comma string stops OpenCode from starting",
          {_O + "claudestyle.md": _md("description: Claude style.\ntools: Read, Grep, Glob"),
           _O + "good.md": _md("description: A good one.\nmode: subagent")}),
    HCase("color-name-fatal", "color: blue stops OpenCode from starting",
          {_O + "blue.md": _md("description: Blue.\nmode: subagent\ncolor: blue")}),
    HCase("color-hex", "a #RRGGBB color loads",
          {_O + "hex.md": _md("description: Hex color.\nmode: subagent\ncolor: '#00ff00'")}),
    HCase("unquoted-colon", "an unquoted colon in the description still loads",
          {_O + "colon.md": _md("description: Use this agent: when broken\nmode: subagent")}),
    HCase("claude-folder-ignored", ".claude/agents is not read",
          {".claude/agents/claude.md": _md("name: claude\ndescription: Claude agent.")}),
    HCase("project-beats-global", "the project agent beats the global one of the same id",
          {_O + "reviewer.md": _md("description: Project copy.\nmode: subagent")},
          {".config/opencode/agents/reviewer.md": _md("description: Global copy.\n"
                                                      "mode: subagent")}),
    HCase("json-agent", "an agent under `agent` in opencode.json loads",
          {"opencode.json": '{"agent": {"json-agent": {"description": "From JSON.", '
                            '"mode": "subagent", "prompt": "Be brief."}}}\n'}),
    HCase("model-field", "model provider/model as the child is sent it",
          {_O + "pinned.md": _md("description: Pinned model.\nmode: subagent\n"
                                 "model: fake/fake-model\ntemperature: 0.3")}, spawn="pinned"),
]

# ----------------------------------------------------------------------------- Codex

_C = ".codex/agents/"


def _toml(name: str, description: str, extra: str = "",
          body: str = f"{MARK} You are a careful reviewer.") -> str:
    return (f'name = "{name}"\ndescription = "{description}"\n'
            f'developer_instructions = """\n{body}\n"""\n{extra}')


_C_MIN = _toml("reviewer", "Reviews the current diff for bugs and missing tests.",
               'model = "gpt-5-mini"\nmodel_reasoning_effort = "high"\n'
               'sandbox_mode = "read-only"\n')
CODEX = [
    HCase("minimal-valid", "the documented minimal example loads; model and effort are pinned",
          {_C + "reviewer.toml": _C_MIN}, spawn="reviewer"),
    HCase("untrusted-project", "an untrusted project's agents are ignored, with a warning",
          {_C + "reviewer.toml": _C_MIN}, trust=False),
    HCase("user-layer", "~/.codex/agents loads",
          home={_C + "helper.toml": _toml("helper", "User level helper.")}),
    HCase("project-beats-user", "the project role replaces the user role of the same name",
          {_C + "reviewer.toml": _toml("reviewer", "Project copy.")},
          {_C + "reviewer.toml": _toml("reviewer", "User copy.")}),
    HCase("recursive", "a file in a subfolder loads",
          {_C + "sub/nested.toml": _toml("nested", "Nested file.")}),
    HCase("markdown-ignored", "a .md file in .codex/agents is ignored",
          {_C + "mdagent.md": _md("name: mdagent\ndescription: Markdown agent.")}),
    HCase("weird-name", "a name with spaces and punctuation loads",
          {_C + "weird.toml": _toml("Weird Name!", "Weird name.")}),
    HCase("no-instructions", "a file without developer_instructions is skipped with a warning",
          {_C + "noinst.toml": 'name = "noinst"\ndescription = "No instructions."\n'}),
    HCase("no-name", "a file without name is skipped with a warning",
          {_C + "noname.toml": 'description = "No name."\ndeveloper_instructions = "x"\n'}),
    HCase("no-description", "a file without description is skipped with a warning",
          {_C + "nodesc.toml": 'name = "nodesc"\ndeveloper_instructions = "x"\n'}),
    HCase("unknown-field", "an unknown key (color) rejects the file",
          {_C + "colored.toml": _toml("colored", "Has a color.", 'color = "blue"\n')}),
    HCase("tools-key", "tools = [\"Read\"] rejects the file (tools means something else)",
          {_C + "tooled.toml": _toml("tooled", "Has tools.", 'tools = ["Read"]\n')}),
    HCase("bad-sandbox", "a wrong sandbox_mode rejects the file",
          {_C + "sandboxed.toml": _toml("sandboxed", "Bad sandbox.",
                                        'sandbox_mode = "readonly"\n')}),
    HCase("toml-error", "a TOML syntax error is skipped with a warning",
          {_C + "broken.toml": 'name = "broken\n'}),
    HCase("effort-unchecked", "model_reasoning_effort is not validated when loaded",
          {_C + "extreme.toml": _toml("extreme", "Extreme effort.",
                                      'model_reasoning_effort = "extreme"\n')}),
    HCase("effort-integer", "an integer model_reasoning_effort rejects the file",
          {_C + "numeric.toml": _toml("numeric", "Numeric effort.",
                                      "model_reasoning_effort = 5\n")}),
    HCase("replace-builtin", "a custom explorer replaces the built-in one",
          {_C + "explorer.toml": _toml("explorer", "My own explorer.")}),
    HCase("config-table", "an [agents.X] table in config.toml with a config_file declares a role",
          home={".codex/config.toml": '[agents.tabled]\ndescription = "From config.toml."\n'
                                      'config_file = "<HOME>/.codex/tabled-role.toml"\n',
                ".codex/tabled-role.toml": 'model = "gpt-5-mini"\n'}),
    HCase("duplicate-in-layer", "two files in one layer with the same name",
          {_C + "a.toml": _toml("twin", "First twin."),
           _C + "b.toml": _toml("twin", "Second twin.")}),
]

# ----------------------------------------------------------------------------- Copilot CLI

_P = ".github/agents/"
_P_MIN = _md('name: reviewer\ndescription: Reviews the current diff for bugs and missing tests.'
             '\ntools: ["read", "search"]')
COPILOT = [
    HCase("minimal-valid", "the documented minimal example loads; read and search expand",
          {_P + "reviewer.agent.md": _P_MIN}, spawn="reviewer"),
    HCase("plain-md", "a plain .md file in .github/agents loads",
          {_P + "plain.md": _md("description: Plain md file.")}),
    HCase("nested", "a nested file gets the id dir--stem",
          {_P + "sub/nested.agent.md": _md("description: Nested file.")}),
    HCase("claude-project", "project .claude/agents/*.md loads",
          {".claude/agents/claudeish.md": _md("name: claudeish\ndescription: Claude file.\n"
                                              "tools: Read, Grep\nmodel: haiku")}),
    HCase("copilot-user", "~/.copilot/agents loads",
          home={".copilot/agents/helper.agent.md": _md("description: User helper.")}),
    HCase("claude-user-ignored", "~/.claude/agents is not read",
          home={".claude/agents/userclaude.md": _md("name: userclaude\n"
                                                    "description: User Claude file.")}),
    HCase("user-beats-project", "the user copy beats both project copies",
          {_P + "reviewer.agent.md": _md("description: GitHub folder copy."),
           ".claude/agents/reviewer.md": _md("name: reviewer\ndescription: Claude folder copy.")},
          {".copilot/agents/reviewer.agent.md": _md("description: User copy.")}),
    HCase("github-beats-claude", ".github/agents beats .claude/agents",
          {_P + "reviewer.agent.md": _md("description: GitHub folder copy."),
           ".claude/agents/reviewer.md": _md("name: reviewer\ndescription: Claude folder copy.")}),
    HCase("name-is-id", "a name field becomes the id, spaces and all",
          {_P + "fancy.agent.md": _md("name: Fancy Display Name\ndescription: Fancy.")}),
    HCase("bad-files", "bad YAML, no description and no frontmatter are skipped (log only)",
          {_P + "bad-yaml.agent.md": _md("description: Use this agent: when broken"),
           _P + "nodesc.agent.md": _md("name: nodesc"),
           _P + "nofm.agent.md": "No frontmatter here.\n",
           _P + "good.agent.md": _md("description: Good one.")}),
    HCase("unknown-fields", "unknown fields are ignored with a log warning",
          {_P + "unknown.agent.md": _md("description: Unknown fields.\ncolor: blue\n"
                                        "permissionMode: plan\nmaxTurns: 3")}),
    HCase("invocation-flags", "disable-model-invocation and infer: false remove the agent; "
          "user-invocable: false does not",
          {_P + "manual.agent.md": _md("description: Manual only.\n"
                                       "disable-model-invocation: true"),
           _P + "noinfer.agent.md": _md("description: No infer.\ninfer: false"),
           _P + "hiddenuser.agent.md": _md("description: Not user invocable.\n"
                                           "user-invocable: false")}),
    HCase("tools-execute-edit", "execute and edit aliases expand in the child",
          {_P + "doer.agent.md": _md('description: Does things.\ntools: ["execute", "edit"]')},
          spawn="doer"),
    HCase("tools-claude-names", "Claude's Read, Grep as a string, and model: haiku",
          {_P + "claudetools.agent.md": _md("description: Claude tools.\ntools: Read, Grep\n"
                                            "model: haiku")}, spawn="claudetools"),
    HCase("tools-agent-web-todo", "agent, web and todo aliases and an unknown name",
          {_P + "many.agent.md": _md('description: Many aliases.\n'
                                     'tools: ["agent", "web", "todo", "nosuchtool"]')},
          spawn="many"),
]

# ----------------------------------------------------------------------------- Qwen Code

_Q = ".qwen/agents/"
_Q_MIN = _md("name: reviewer\ndescription: Reviews the current diff for bugs and missing tests."
             "\ntools:\n  - read_file\n  - grep_search\n  - glob")
QWEN = [
    HCase("minimal-valid", "a minimal agent with Qwen tool names loads",
          {_Q + "reviewer.md": _Q_MIN}, spawn="reviewer"),
    HCase("user-agent", "~/.qwen/agents loads",
          home={_Q + "helper.md": _md("name: helper\ndescription: User helper.")}),
    HCase("project-beats-user", "the project agent beats the user one",
          {_Q + "reviewer.md": _md("name: reviewer\ndescription: Project copy.")},
          {_Q + "reviewer.md": _md("name: reviewer\ndescription: User copy.")}),
    HCase("claude-folder-ignored", ".claude/agents is not read",
          {".claude/agents/claude.md": _md("name: claude\ndescription: Claude agent.")}),
    HCase("nested-skipped", "a nested file is not read",
          {_Q + "sub/nested.md": _md("name: nested\ndescription: Nested.")}),
    HCase("missing-fields", "no name or no description: skipped silently",
          {_Q + "noname.md": _md("description: No name."),
           _Q + "nodesc.md": _md("name: nodesc"),
           _Q + "good.md": _md("name: good\ndescription: Good one.")}),
    HCase("unquoted-colon", "an unquoted colon in the description: skipped silently",
          {_Q + "colon.md": _md("name: colon\ndescription: Use this agent: when broken")}),
    HCase("claude-tools", "tools: Read, Grep (Claude names) as the child gets them",
          {_Q + "claudetools.md": _md("name: claudetools\ndescription: Claude tools.\n"
                                      "tools: Read, Grep\nmodel: haiku")},
          spawn="claudetools"),
    HCase("disallowed-tools", "disallowedTools as the child gets it",
          {_Q + "noshell.md": _md("name: noshell\ndescription: No shell.\n"
                                  "disallowedTools: run_shell_command, write_file")},
          spawn="noshell"),
    HCase("bad-approval-mode", "a bad approvalMode rejects the file",
          {_Q + "badmode.md": _md("name: badmode\ndescription: Bad mode.\n"
                                  "approvalMode: sometimes")}),
    HCase("bad-color", "a color outside the allowlist still loads",
          {_Q + "colored.md": _md("name: colored\ndescription: Colored.\ncolor: magenta")}),
    HCase("permission-mode", "Claude's permissionMode is accepted",
          {_Q + "planner.md": _md("name: planner\ndescription: Plans.\npermissionMode: plan")}),
    HCase("name-differs", "the name field, not the file stem, is the id",
          {_Q + "filestem.md": _md("name: other-name\ndescription: Name differs.")}),
]

HARNESS_CASES: dict[str, list[HCase]] = {
    "codex": CODEX, "copilot": COPILOT, "gemini": GEMINI, "opencode": OPENCODE, "qwen": QWEN,
}


def harness_case(harness: str, case_id: str) -> HCase:
    """One case by id; KeyError naming the harness and the id otherwise."""
    for case in HARNESS_CASES[harness]:
        if case.id == case_id:
            return case
    raise KeyError(f"no case {case_id!r} for {harness}")
