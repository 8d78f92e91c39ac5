"""The codes of the other harnesses' own readers (Codex, Gemini CLI, OpenCode, Copilot, Cursor,
Qwen Code, Factory Droid), declared in the one rule registry.

The harness modules (:mod:`subagents.harnesses`) emit these codes as plain strings (they sit
below ``lint`` and cannot import it); :mod:`subagents.lint.rules.catalog` merges this table
into ``RULES``, so ``rules`` lists them, ``explain`` documents each one
(``explanations.toml``), and ``--select``/``--ignore``/configuration refuse a code that is not
here.  ``tests/test_rule_registry.py`` scans every module of ``src/`` for code literals and
fails on one that is not declared.

Design notes
------------
* A harness finding carries an *effect* (what the harness does), and the one severity rule maps
  it (:mod:`subagents.lint.harness_rules`): skip, fatal and "does something else" are errors;
  portability and style are warnings (errors under ``--strict``); notes are information.  Each
  declaration below is made with the helper named after its effect, so the declared severity
  is the emitted one; the test compares them on real findings.  ``CP006`` is the one code with
  two effects (an unknown key that changes behaviour is an error, any other a warning); it is
  declared with the stronger one and :data:`MIXED` names it.
* Slugs start with the harness's name (``gemini-unknown-key``) so that they stay unique next to
  the ``SA`` slugs and read well in ``--ignore``.
"""

from __future__ import annotations

from subagents.diagnostics import Severity

__all__ = ["HARNESS_RULES", "MIXED"]

_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: (code, slug, summary, default severity, strict severity)
_Row = tuple[str, str, str, Severity, Severity]


def _error(code: str, slug: str, doc: str) -> _Row:
    """The harness skips the agent, refuses to start, or silently does something else."""
    return code, slug, doc, _E, _E


def _warn(code: str, slug: str, doc: str) -> _Row:
    """The harness reads it as meant; another harness or its documentation differs."""
    return code, slug, doc, _W, _E


def _note(code: str, slug: str, doc: str) -> _Row:
    return code, slug, doc, _I, _I


#: codes emitted with more than one effect (declared with the stronger)
MIXED = frozenset({"CP006"})

HARNESS_RULES: tuple[_Row, ...] = (
    # --- OpenAI Codex CLI -------------------------------------------------------------------
    _error("CX001", "codex-toml-syntax", "The role file is not valid TOML; Codex skips it."),
    _error("CX002", "codex-invalid-field",
           "A key of the role file is unknown or has a value of the wrong type; Codex skips it."),
    _error("CX003", "codex-blank-description", "`description` is blank; Codex skips the role."),
    _error("CX004", "codex-missing-instructions",
           "`developer_instructions` (the prompt) is missing or blank; Codex skips the role."),
    _error("CX005", "codex-missing-name", "The role has no `name`; Codex skips it."),
    _error("CX006", "codex-invalid-nicknames",
           "`nickname_candidates` is empty, has blanks, duplicates or odd characters."),
    _error("CX007", "codex-missing-description",
           "No layer gives the role a `description`; Codex skips it."),
    _error("CX008", "codex-unreadable-file",
           "The file cannot be read as UTF-8 text within the size limit; Codex skips it."),
    _note("CX009", "codex-untrusted-project",
          "Codex reads project agents only once the project is trusted."),
    _note("CX010", "codex-replaces-builtin", "The role replaces one of Codex's built-in roles."),
    _error("CX011", "codex-invalid-config-role",
           "An `[agents.<role>]` table of config.toml is not valid; Codex skips the role."),
    _error("CX012", "codex-config-not-toml",
           "config.toml is not valid TOML; Codex does not start at all."),
    _note("CX013", "codex-not-a-role-file",
          "A file in .codex/agents that is not `.toml`; Codex ignores it."),
    _note("CX014", "codex-replaced-by-layer",
          "A role of the same name in a higher config layer replaces this one."),
    _error("CX015", "codex-duplicate-role",
           "Two roles of one layer have one name; Codex keeps only one."),
    # --- Gemini CLI -------------------------------------------------------------------------
    _error("GM001", "gemini-no-frontmatter",
           "The file does not start with `---` frontmatter; Gemini CLI skips it."),
    _error("GM002", "gemini-yaml-syntax",
           "The frontmatter is not YAML; Gemini CLI skips the file."),
    _error("GM003", "gemini-unknown-key",
           "A frontmatter key is outside Gemini CLI's schema; it rejects the whole file."),
    _error("GM004", "gemini-invalid-tools",
           "`tools` is not a list of tool names; Gemini CLI rejects the file."),
    _error("GM005", "gemini-invalid-field",
           "A field fails Gemini CLI's schema (name, description, model...); it rejects the file."),
    _error("GM006", "gemini-unreadable-file",
           "The file cannot be read or is over the size limit; it is not loaded."),
    _error("GM010", "gemini-not-acknowledged",
           "A project agent Gemini CLI has not acknowledged yet; it is not loaded."),
    _error("GM011", "gemini-untrusted-folder",
           "The folder is not trusted; Gemini CLI skips every project agent."),
    _error("GM012", "gemini-duplicate-name",
           "Another agent has this name; Gemini CLI ignores the later one."),
    _note("GM013", "gemini-acknowledgement-assumed",
          "A project agent Gemini CLI has not acknowledged, loaded because you said it is."),
    _error("GM020", "gemini-template-placeholder",
           "`${word}` in the prompt is a template placeholder Gemini CLI cannot fill."),
    _note("GM021", "gemini-template-input",
          "`${query}`-style placeholders are filled with the agent's input when it runs."),
    _error("GM022", "gemini-temperature-ignored",
           "`temperature` other than 1: Gemini CLI sends 1 to the model anyway."),
    _error("GM023", "gemini-tool-withheld",
           "A listed tool Gemini CLI never gives a subagent (delegation tools)."),
    _note("GM030", "gemini-remote-agent",
          "A remote (A2A) agent: it runs elsewhere, with no local prompt, model or tools."),
    # --- OpenCode ---------------------------------------------------------------------------
    _error("OC001", "opencode-invalid-config",
           "A value fails OpenCode's config schema; OpenCode refuses to start at all."),
    _error("OC002", "opencode-yaml-syntax",
           "The frontmatter is not YAML even after OpenCode's repair; it skips the file."),
    _error("OC003", "opencode-invalid-legacy-mode",
           "A legacy `mode/` file fails the schema; OpenCode drops it silently."),
    _error("OC004", "opencode-json-syntax",
           "opencode.json(c) is not valid JSON; OpenCode refuses to start."),
    _note("OC005", "opencode-disabled", "`disable: true`: OpenCode does not load the agent."),
    _note("OC006", "opencode-primary-agent",
          "`mode: primary`: the agent is not offered as a subagent."),
    _note("OC007", "opencode-no-description",
          "No description: OpenCode lists the agent for manual use only."),
    _warn("OC008", "opencode-key-as-option",
          "Keys OpenCode does not know are passed to the model provider as options."),
    _error("OC009", "opencode-file-too-large",
           "The file is too large or too deeply nested to read; it is skipped."),
    _error("OC010", "opencode-frontmatter-ignored",
           "The YAML does not parse: OpenCode loads the agent with none of its frontmatter."),
    _warn("OC011", "opencode-repaired-yaml",
          "OpenCode reads the frontmatter only after quoting values that hold a colon."),
    _note("OC012", "opencode-no-frontmatter",
          "No frontmatter: OpenCode loads the whole text as the prompt, with defaults."),
    _error("OC013", "opencode-unreadable-file",
           "An OpenCode agent file cannot be read; it is not loaded."),
    # --- GitHub Copilot ---------------------------------------------------------------------
    _error("CP002", "copilot-no-frontmatter",
           "The frontmatter is missing or not a mapping; Copilot skips the file."),
    _error("CP003", "copilot-yaml-syntax", "The frontmatter is not YAML; Copilot skips the file."),
    _error("CP004", "copilot-invalid-description",
           "`description` is missing or not text; Copilot skips the file."),
    _error("CP005", "copilot-prompt-too-long",
           "The prompt is over the documented 30,000-character limit."),
    _error("CP006", "copilot-unknown-key",
           "A key Copilot ignores (an error when the key was meant to change behaviour)."),
    _error("CP007", "copilot-invalid-tools",
           "`tools` is neither a list nor a comma string; the agent gets no tools."),
    _warn("CP008", "copilot-unknown-tool",
          "Tool names Copilot does not know (often VS Code's own); they are ignored."),
    _error("CP009", "copilot-file-too-large",
           "The file is over Copilot's size limit; it is skipped."),
    _note("CP010", "copilot-manual-only",
          "The agent loads but is not offered to the task tool (manual use only)."),
    _error("CP011", "copilot-unreadable-file",
           "A Copilot agent file cannot be read; it is not loaded."),
    # --- Cursor (documented behaviour) -------------------------------------------------------
    _note("CU001", "cursor-not-read",
          "The file is not where Cursor reads agents (subfolder or not `.md`)."),
    _warn("CU002", "cursor-yaml-syntax",
          "The frontmatter cannot be read; Cursor presumably skips it."),
    _warn("CU003", "cursor-no-frontmatter",
          "No frontmatter: no description, so Cursor cannot pick the agent by itself."),
    _warn("CU004", "cursor-name-not-text", "`name` is not text; the file name is used instead."),
    _warn("CU005", "cursor-no-description",
          "No description: Cursor delegates by the description, so never automatically."),
    _warn("CU006", "cursor-model-not-text", "`model` is not text; Cursor ignores it."),
    _warn("CU007", "cursor-claude-model-alias",
          "`model` is a Claude Code alias (sonnet, opus, haiku) Cursor does not list."),
    _warn("CU008", "cursor-flag-not-boolean", "`readonly` or `is_background` is not true/false."),
    _error("CU009", "cursor-tools-not-applied",
           "`tools`/`disallowedTools` are not applied: Cursor gives every tool of the parent."),
    _warn("CU010", "cursor-unknown-key", "A key Cursor's documentation does not list."),
    _error("CU011", "cursor-unreadable-file",
           "A Cursor agent file cannot be read; it is not loaded."),
    # --- Qwen Code --------------------------------------------------------------------------
    _error("QW001", "qwen-no-frontmatter",
           "The file does not start with `---` frontmatter; Qwen Code skips it."),
    _error("QW002", "qwen-frontmatter-too-deep",
           "The frontmatter is nested too deeply for subagents to read safely."),
    _error("QW003", "qwen-missing-name-or-description",
           "`name` or `description` is missing or empty; Qwen Code skips the file."),
    _error("QW004", "qwen-invalid-approval-mode",
           "`approvalMode` is not one of Qwen Code's values; it skips the file."),
    _error("QW005", "qwen-validation-failed",
           "The name, prompt, tools, model or runConfig fail Qwen Code's validation."),
    _error("QW006", "qwen-unreadable-file", "The file cannot be read as text; it is not loaded."),
    _error("QW010", "qwen-color-dropped", "`color` is not one of Qwen Code's; it is dropped."),
    _error("QW011", "qwen-unknown-tool",
           "A `tools`/`disallowedTools` entry Qwen Code does not know; it is dropped."),
    _error("QW012", "qwen-permission-mode-dropped",
           "`permissionMode` has a value Qwen Code cannot map; it is dropped."),
    _error("QW013", "qwen-max-turns-dropped",
           "`maxTurns` is not a positive integer; Qwen Code runs without a limit."),
    _error("QW014", "qwen-claude-key-ignored",
           "A Claude Code key Qwen Code does not read in agent files."),
    _error("QW015", "qwen-mcp-servers-dropped",
           "`mcpServers` is not a mapping of server settings; Qwen Code drops it."),
    _error("QW016", "qwen-hooks-dropped", "`hooks` is not event -> list; Qwen Code drops them."),
    _error("QW017", "qwen-background-dropped", "`background` is not true/false; it is dropped."),
    _error("QW018", "qwen-fallback-parser",
           "The YAML does not parse; Qwen Code's line parser reads each line as written."),
    _error("QW021", "qwen-duplicate-name",
           "Another agent has this name; Qwen Code never offers this one."),
    _note("QW022", "qwen-replaces-builtin",
          "The agent replaces one of Qwen Code's built-in agents."),
    # --- Factory Droid (documented behaviour and its binary's strings) ----------------------
    _note("FD001", "factory-not-read",
          "The file is not where Factory Droid reads droids (top-level `.md` only)."),
    _warn("FD002", "factory-yaml-syntax",
          "The frontmatter cannot be read; Factory Droid presumably skips the droid."),
    _warn("FD003", "factory-invalid-name",
          "`name` is missing or not a lowercase slug; the droid is presumably skipped."),
    _warn("FD004", "factory-no-description",
          "No description: the Task tool lists droids by it; presumably skipped."),
    _warn("FD005", "factory-model-not-text", "`model` is not text; Factory Droid ignores it."),
    _warn("FD006", "factory-claude-model-alias",
          "`model` is a Claude Code alias Factory Droid does not list."),
    _warn("FD007", "factory-invalid-tools",
          "`tools` is neither a category nor a list of tool IDs."),
    _warn("FD008", "factory-unknown-tool",
          "A tool ID Factory Droid does not list, or one subagents cannot use."),
    _warn("FD009", "factory-unknown-key", "A key Factory Droid's documentation does not list."),
    _error("FD010", "factory-unreadable-file", "A droid file cannot be read; it is not loaded."),
)
