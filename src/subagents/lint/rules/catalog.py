"""The rule catalogue: every diagnostic code, its slug, its one-line doc and its severities.

Design notes
------------
* Codes are stable and grouped by hundreds: ``SA0xx`` the reader (what Claude Code cannot
  read, or reads differently), ``SA1xx`` field values, ``SA2xx`` the subagent format
  specification (``docs/spec.md``; style and portability, mostly on only under ``--strict``),
  ``SA3xx`` anti-patterns, ``SA4xx`` security (errors in every profile), ``SA5xx``
  dialect-specific rules (Codex, agents.json), ``SA6xx`` rules about a whole scope.
* The severity rule: **error** = Claude Code skips the file or silently does something other
  than what is written; **warning** = Claude Code reads it as meant but strict parsers or other
  harnesses do not, or style; ``--strict`` turns portability and the specification into errors.
* A rule has one severity per profile (``default`` and ``strict``); ``None`` means the rule is
  off in that profile.  Reader diagnostics arrive with whatever severity the reader chose;
  :func:`severity_for` re-maps every diagnostic through this table so that the profile, not
  the emitter, decides.
* Selectors (``select``/``ignore`` in configuration and on the command line) accept a code
  (``SA201``), a code prefix (``SA2``, ``SA``), a slug (``description-length``) or ``ALL``.
* This module imports nothing heavy: ``subagents validate`` and ``subagents rules`` load it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from subagents.diagnostics import Severity

__all__ = [
    "RULES",
    "Category",
    "Profile",
    "Rule",
    "get_rule",
    "is_valid_selector",
    "matches",
    "severity_for",
]


class Category(StrEnum):
    READER = "reader"
    FIELDS = "fields"
    SPEC = "spec"
    ANTI_PATTERN = "anti-pattern"
    SECURITY = "security"
    DIALECT = "dialect"
    SCOPE = "scope"


class Profile(StrEnum):
    DEFAULT = "default"
    STRICT = "strict"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: a stable code, a slug, a one-line doc and a severity per profile."""

    code: str
    name: str
    doc: str
    category: Category
    default: Severity | None
    strict: Severity | None
    #: May an in-file ``# subagents: ignore[...]`` comment silence it?  Security rules: no,
    #: otherwise a hostile file could switch off the detector that catches it.
    silenceable: bool = True

    def severity(self, profile: Profile | str) -> Severity | None:
        return self.strict if Profile(profile) is Profile.STRICT else self.default


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO
_R, _F, _S = Category.READER, Category.FIELDS, Category.SPEC
_A, _X, _D, _O = Category.ANTI_PATTERN, Category.SECURITY, Category.DIALECT, Category.SCOPE

_TABLE: tuple[Rule, ...] = (
    Rule("SA000", "internal-error", "A rule crashed on this file (a bug in subagents).",
         _R, _E, _E, silenceable=False),
    # --- reader (loader.py / formats/) -------------------------------------------------------
    Rule("SA001", "not-utf8",
         "The file is not valid UTF-8 (Claude Code reads it with U+FFFD for each bad byte).",
         _R, _E, _E),
    Rule("SA002", "file-too-large", "The file is over 1 MiB; Claude Code skips it.",
         _R, _E, _E),
    Rule("SA003", "no-frontmatter",
         "The file has no `---` frontmatter block; Claude Code skips it without a word.",
         _R, _E, _E),
    Rule("SA004", "unclosed-frontmatter",
         "The frontmatter is never closed; Claude Code skips the file without a word.",
         _R, _E, _E),
    Rule("SA005", "yaml-syntax",
         "The frontmatter is not YAML even for Claude Code's lenient second pass; it skips the "
         "file.", _R, _E, _E),
    Rule("SA006", "frontmatter-not-mapping", "The frontmatter is not a mapping of keys.",
         _R, _E, _E),
    Rule("SA007", "duplicate-key",
         "A frontmatter key appears twice; Claude Code silently keeps the last value.",
         _R, _E, _E),
    Rule("SA008", "yaml-alias",
         "YAML anchors and aliases: Claude Code resolves them, many tools refuse them; an alias "
         "bomb is refused.", _R, _W, _E),
    Rule("SA009", "yaml-custom-tag",
         "A YAML tag on a value; Claude Code silently drops it and reads the rest.",
         _R, _E, _E),
    Rule("SA010", "lenient-yaml",
         "Only Claude Code's lenient YAML pass reads this; strict parsers reject it.",
         _R, _W, _E),
    Rule("SA011", "binary-content", "The file holds binary content (NUL bytes).", _R, _E, _E),
    Rule("SA012", "empty-file", "The file is empty.", _R, _E, _E),
    Rule("SA013", "tab-indentation", "The frontmatter is indented with tabs.", _R, _W, _E),
    Rule("SA014", "wrong-type", "A field has a value of the wrong type.", _R, _E, _E),
    Rule("SA015", "unreadable-file", "The file cannot be read (operating-system error).",
         _R, _E, _E),
    Rule("SA016", "json-syntax", "The JSON is not valid or not an object of agents.",
         _R, _E, _E),
    Rule("SA017", "dialect-not-supported",
         "The file is in a dialect (OpenCode, Copilot) this version does not judge yet.",
         _R, _I, _I),
    Rule("SA018", "frontmatter-not-at-start",
         "Something comes before the opening `---`; Claude Code skips the file without a "
         "word.", _R, _E, _E),
    Rule("SA019", "frontmatter-cut-by-dashes",
         "A `---` inside a value ends Claude Code's frontmatter there; the rest becomes prompt.",
         _R, _E, _E),
    Rule("SA020", "tools-empty",
         "`tools` is present but empty; Claude Code lists \"All tools\" and runs with none.",
         _F, _E, _E),
    Rule("SA022", "description-cut",
         "Claude Code reads only the first line of `description`; the rest became keys.",
         _R, _E, _E),
    Rule("SA021", "ignored-by-claude-code",
         "A field value Claude Code ignores (the agent runs without it).", _F, _E, _E),
    # --- required fields and values ---------------------------------------------------------
    Rule("SA101", "invalid-name",
         "`name` starts with `-`, holds `:` (after NFKC folding) or is over 256 characters; "
         "Claude Code skips the file.", _F, _E, _E),
    Rule("SA102", "missing-name",
         "`name` is missing or empty; Claude Code skips the file without a word.", _F, _E, _E),
    Rule("SA103", "missing-description",
         "`description` is missing or empty; Claude Code skips the file.",
         _F, _E, _E),
    Rule("SA104", "unknown-tool",
         "A `tools` entry is not a tool; Claude Code lists it but drops it when spawning.",
         _F, _E, _E),
    Rule("SA105", "unknown-model",
         "`model` is not an alias or a model id; Claude Code sends it to the API as written.",
         _F, _E, _E),
    Rule("SA106", "invalid-permission-mode", "`permissionMode` is not one of its values.",
         _F, _E, _E),
    Rule("SA107", "tools-and-disallowed-tools",
         "`tools` and `disallowedTools` are both set (Claude Code subtracts; others differ).",
         _F, None, _W),
    Rule("SA108", "invalid-max-turns", "`maxTurns` is not a positive integer.", _F, _E, _E),
    Rule("SA109", "unknown-hook-event", "A `hooks` key is not a hook event.", _F, _E, _E),
    Rule("SA110", "malformed-hook", "A hook entry is not `{matcher?, hooks: [{type, command}]}`.",
         _F, _E, _E),
    Rule("SA111", "mcp-server-without-command",
         "An MCP server has neither `command` nor `url`.", _F, _E, _E),
    Rule("SA112", "invalid-version", "`version` is not MAJOR.MINOR.PATCH (format specification).",
         _F, None, _E),
    Rule("SA113", "invalid-tags", "`tags` is not a list of strings (format specification).",
         _F, None, _E),
    Rule("SA114", "empty-system-prompt",
         "The system prompt (body) is empty; the agent gets only Claude Code's fixed text.",
         _F, _W, _E),
    Rule("SA115", "invalid-effort", "`effort` is not one of low, medium, high, xhigh, max.",
         _F, _E, _E),
    Rule("SA116", "invalid-isolation", "`isolation` is not `worktree` or `remote`.", _F, _E, _E),
    # --- the format specification (docs/spec.md): style, on under --strict -----------------
    Rule("SA201", "description-length",
         "`description` is outside 10-200 characters (format specification).", _S, None, _E),
    Rule("SA202", "prompt-length",
         "The system prompt is outside 100-10,000 characters (format specification).", _S, None,
         _E),
    Rule("SA203", "missing-prompt-sections",
         "The prompt lacks Role/Capabilities/Methodology/Communication Style/Constraints "
         "sections (format specification).", _S, None, _E),
    Rule("SA204", "unknown-key", "A frontmatter key is not a known field (Claude ignores it).",
         _S, _W, _E),
    Rule("SA205", "unlisted-color", "`color` is not one of the documented colours.", _S, _W, _E),
    Rule("SA206", "name-not-kebab-case",
         "`name` is not kebab-case (`^[a-z][a-z0-9-]{0,49}$`); other harnesses refuse it.",
         _S, _W, _E),
    # Off by default: Claude Code 2.1.330 reads lists exactly like comma strings (measured).
    # Under --strict an info, for older versions that were reported to read a list as no tools.
    Rule("SA207", "tools-as-list",
         "`tools`/`disallowedTools` is a YAML list; the documented form is a comma string.",
         _S, None, _I),
    # --- anti-patterns ------------------------------------------------------------------------
    Rule("SA301", "read-only-role-with-write-tools",
         "A reviewer/auditor/researcher can write files or run commands.", _A, _W, _W),
    Rule("SA302", "missing-max-turns",
         "No `maxTurns`: a confused agent can loop without limit.", _A, None, _W),
    Rule("SA303", "too-many-skills", "More than 3 skills are loaded into the context.",
         _A, _W, _W),
    Rule("SA304", "vague-description",
         "The description is too generic to route on (\"development tasks\").", _A, _W, _W),
    # --- security (errors in every profile) --------------------------------------------------
    Rule("SA401", "world-writable", "The file is world-writable.", _X, _E, _E,
         silenceable=False),
    Rule("SA402", "path-escapes-agents-folder",
         "The file or a symlink leads outside the agents folder.", _X, _E, _E,
         silenceable=False),
    Rule("SA403", "name-path-traversal",
         "`name` or a skill holds a path separator or `..` and could traverse.",
         _X, _E, _E,
         silenceable=False),
    Rule("SA404", "hardcoded-credential",
         "A credential (token, key) is written in the file; use `${VAR}` instead.", _X, _E, _E,
         silenceable=False),
    Rule("SA405", "prompt-injection",
         "The prompt tries to override its instructions and send secrets or files elsewhere "
         "(prompt injection).", _X, _E, _E, silenceable=False),
    # --- dialects ----------------------------------------------------------------------------
    Rule("SA501", "codex-name-format", "Codex: `name` must match `[a-z][a-z0-9_-]{2,63}`.",
         _D, _E, _E),
    Rule("SA502", "codex-empty-entry", "Codex: an empty string in `tools` or `keywords`.",
         _D, _E, _E),
    Rule("SA503", "codex-duplicate-entry", "Codex: a duplicate entry in `tools` or `keywords`.",
         _D, _E, _E),
    Rule("SA504", "json-name-format", "agents.json: a name must match `[a-z0-9_-]+`.",
         _D, _E, _E),
    Rule("SA505", "json-model-not-alias",
         "agents.json: `model` is not one of sonnet, opus, haiku, inherit.",
         _D, _W, _E),
    # --- scope --------------------------------------------------------------------------------
    Rule("SA601", "duplicate-name",
         "Two files of one scope folder define one name; Claude Code keeps only the last path.",
         _O, _E, _E),
    Rule("SA602", "similar-descriptions",
         "Two agents have descriptions so alike that routing cannot tell them apart.",
         _O, _W, _W),
    # --- discovery (registry) -----------------------------------------------------------------
    Rule("SA603", "unreadable-folder", "A scope folder cannot be read; its agents are not loaded.",
         _O, _E, _E),
    Rule("SA604", "symlink-loop",
         "A symlink in an agents folder leads back to itself; it is not followed.", _O, _W, _W),
    Rule("SA605", "agents-path-not-folder", "An agents path is a file, not a folder.",
         _O, _E, _E),
    Rule("SA606", "changed-while-read",
         "A file kept changing while it was read; it is read again on the next reload.",
         _O, _W, _W),
)

RULES: Mapping[str, Rule] = {r.code: r for r in _TABLE}
_BY_NAME: Mapping[str, Rule] = {r.name: r for r in _TABLE}


def get_rule(code_or_name: str) -> Rule | None:
    """The rule for a code (``SA201``) or slug (``description-length``)."""
    return RULES.get(code_or_name.upper()) or _BY_NAME.get(code_or_name.lower())


def severity_for(code: str, profile: Profile | str, fallback: Severity) -> Severity | None:
    """The severity of ``code`` in ``profile``; unknown codes keep ``fallback``."""
    rule = RULES.get(code)
    if rule is None:
        return fallback
    return rule.severity(profile)


def is_valid_selector(selector: str) -> bool:
    """``ALL``, a code prefix of at least ``SA``, or a slug."""
    s = selector.strip()
    if s.upper() == "ALL":
        return True
    up = s.upper()
    if (up.startswith("SA") and up[2:].isdigit()) or up == "SA":
        return any(code.startswith(up) for code in RULES)
    return s.lower() in _BY_NAME


def matches(code: str, selectors: Iterable[str]) -> bool:
    """Does any selector (code, prefix, slug or ``ALL``) pick ``code``?"""
    rule = RULES.get(code)
    for raw in selectors:
        s = raw.strip()
        up = s.upper()
        if up == "ALL" or (up.startswith("SA") and code.startswith(up)):
            return True
        if rule is not None and s.lower() == rule.name:
            return True
    return False
