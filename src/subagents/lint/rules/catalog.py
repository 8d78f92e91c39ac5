"""The rule registry: every diagnostic code of ``subagents``, declared once.

Each :class:`Rule` carries its code, slug, one-line summary, severity per profile, where it is
emitted (a lint check, the reader, the registry, ``convert``, the store), its message templates
where the wording is fixed, and the ``subagents fix`` repair that handles it.  The long
documentation lives in ``explanations.toml`` (prose is data), keyed by code and checked against
this table when it is loaded: a rule without documentation or documentation without a rule is
an error (:mod:`subagents.lint.rules.explanations`).  Checks register themselves here by code
(:func:`check`); a check can only register a declared code, and the engine refuses a finding
whose code the running check did not register.

Design notes
------------
* Codes are stable and grouped by hundreds: ``SA0xx`` the reader (what Claude Code cannot
  read, or reads differently), ``SA1xx`` field values, ``SA2xx`` the subagent format
  specification (``docs/spec.md``; style and portability, mostly on only under ``--strict``),
  ``SA3xx`` anti-patterns, ``SA4xx`` security (errors in every profile), ``SA5xx``
  dialect-specific rules (Codex, agents.json), ``SA6xx`` rules about a whole scope; ``CV``
  codes are ``convert``'s, ``SY`` codes ``sync``'s, ``ST`` codes the store's and ``FX`` codes
  ``fix``'s.
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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from enum import StrEnum
from types import MappingProxyType

from subagents._dataclass import dataclass
from subagents.diagnostics import Diagnostic, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _Fn = TypeVar("_Fn", bound=Callable[..., Any])

__all__ = [
    "HARNESS_FAMILIES",
    "LINT_FAMILY",
    "RULES",
    "Category",
    "Emitter",
    "Message",
    "Profile",
    "Rule",
    "check",
    "checks_for",
    "codes_of",
    "get_rule",
    "harness_family",
    "is_valid_selector",
    "matches",
    "rule",
    "selector_problem",
    "severity_for",
]

#: The code family ``validate`` emits (and ``--select``/``--ignore`` pick from).
LINT_FAMILY = "SA"

# Findings of another harness's own reader (subagents.harnesses): code prefix -> (dialect,
# harness).  Each finding's message says what that harness does with the file and names the
# version measured; the severity follows the one rule (lint/harness_rules.py).  They are
# selectable like SA codes (`--select GM`, `--ignore OC008`); tests/test_harness_codes.py keeps
# this table equal to the harness modules' own prefixes.
HARNESS_FAMILIES: Mapping[str, tuple[str, str]] = MappingProxyType({
    "CX": ("codex", "OpenAI Codex CLI"),
    "GM": ("gemini", "Gemini CLI"),
    "OC": ("opencode", "OpenCode"),
    "CP": ("copilot", "GitHub Copilot"),
    "CU": ("cursor", "Cursor"),
    "QW": ("qwen", "Qwen Code"),
    "FD": ("factory", "Factory Droid"),
})


def harness_family(code: str) -> tuple[str, str] | None:
    """``(dialect, harness)`` when ``code`` (or a prefix such as ``GM0``) is a harness's own."""
    up = code.strip().upper()
    family = HARNESS_FAMILIES.get(up[:2])
    if family is None or not (len(up) == 2 or (up[2:].isdigit() and len(up) <= 5)):
        return None
    return family


class Category(StrEnum):
    READER = "reader"
    FIELDS = "fields"
    SPEC = "spec"
    ANTI_PATTERN = "anti-pattern"
    SECURITY = "security"
    DIALECT = "dialect"
    SCOPE = "scope"
    CONVERT = "convert"
    SYNC = "sync"
    STORE = "store"
    FIX = "fix"
    HARNESS = "harness"  # another harness's own reader (GM, OC, CX, ...)


class Profile(StrEnum):
    DEFAULT = "default"
    STRICT = "strict"


class Emitter(StrEnum):
    """Who emits a rule's findings: a registered lint check, or one fixed place."""

    CHECK = "check"  # a function registered with @check (lint/rules/*.py)
    ENGINE = "engine"  # the rule engine itself (SA000, a rule that crashed)
    READER = "reader"  # the file reader (formats/, harnesses/loader.py)
    DISCOVERY = "discovery"  # folders and the agent registry (harnesses/layout.py, registry/)
    CONVERT = "convert"  # subagents.repair.convert and `subagents convert`
    SYNC = "sync"  # subagents.repair.sync and `subagents sync`
    STORE = "store"  # subagents.store.core
    FIX = "fix"  # subagents.repair.fix and `subagents fix`
    HARNESS = "harness"  # another harness's reader (subagents.harnesses.<name>)


@dataclass(frozen=True, slots=True)
class Message:
    """A message template (``str.format`` fields) and, when one wording of a rule has its own
    severity (``convert``: a name Codex refuses is an error, one Claude Code skips a warning),
    that severity."""

    text: str
    severity: Severity | None = None


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
    emitter: Emitter = Emitter.CHECK
    #: Message templates by variant (``""`` is the rule's only or usual wording).
    messages: Mapping[str, Message] = field(
        default_factory=lambda: MappingProxyType({}), compare=False, hash=False)
    #: The ``subagents fix`` repair for it (a name :mod:`subagents.repair.fix` knows), if any.
    fix: str | None = None

    def severity(self, profile: Profile | str) -> Severity | None:
        return self.strict if Profile(profile) is Profile.STRICT else self.default

    @property
    def emitted_severity(self) -> Severity:
        """The severity a finding is built with (the profile re-maps it in ``validate``)."""
        return self.default or self.strict or Severity.WARNING

    def message(self, variant: str = "", /, **params: Any) -> str:
        """The message of ``variant`` with ``params`` filled in."""
        return self.messages[variant].text.format(**params)

    def diagnostic(
        self,
        path: str,
        line: int | None,
        column: int | None,
        message: str,
        hint: str | None = None,
        *,
        severity: Severity | None = None,
    ) -> Diagnostic:
        """A finding of this rule (the only way lint, convert and the store build one)."""
        return Diagnostic(path=path, line=line, column=column, rule=self.code,
                          severity=severity or self.emitted_severity, message=message, hint=hint)

    def templated(
        self,
        variant: str,
        path: str,
        line: int | None,
        column: int | None,
        hint: str | None = None,
        /,
        **params: Any,
    ) -> Diagnostic:
        """A finding whose wording is this rule's template ``variant``."""
        msg = self.messages[variant]
        return self.diagnostic(path, line, column, msg.text.format(**params), hint,
                               severity=msg.severity)


def _msgs(**variants: str | Message) -> Mapping[str, Message]:
    return MappingProxyType({
        ("" if k == "main" else k.replace("_", "-")): v if isinstance(v, Message) else Message(v)
        for k, v in variants.items()
    })


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO
_R, _F, _S = Category.READER, Category.FIELDS, Category.SPEC
_A, _X, _D, _O = Category.ANTI_PATTERN, Category.SECURITY, Category.DIALECT, Category.SCOPE
_C, _T, _FX, _Y = Category.CONVERT, Category.STORE, Category.FIX, Category.SYNC

_TABLE: tuple[Rule, ...] = (
    Rule("SA000", "internal-error", "A rule crashed on this file (a bug in subagents).",
         _R, _E, _E, silenceable=False, emitter=Emitter.ENGINE),
    # --- reader (loader.py / formats/) -------------------------------------------------------
    Rule("SA001", "not-utf8",
         "The file is not valid UTF-8 (Claude Code reads it with U+FFFD for each bad byte).",
         _R, _E, _E),
    Rule("SA002", "file-too-large", "The file is over 1 MiB; Claude Code skips it.",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA003", "no-frontmatter",
         "The file has no `---` frontmatter block; Claude Code skips it without a word.",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA004", "unclosed-frontmatter",
         "The frontmatter is never closed; Claude Code skips the file without a word.",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA005", "yaml-syntax",
         "The frontmatter is not YAML even for Claude Code's lenient second pass; it skips the "
         "file.", _R, _E, _E, emitter=Emitter.READER, fix="yaml"),
    Rule("SA006", "frontmatter-not-mapping", "The frontmatter is not a mapping of keys.",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA007", "duplicate-key",
         "A frontmatter key appears twice; Claude Code silently keeps the last value.",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA008", "yaml-alias",
         "YAML anchors and aliases: Claude Code resolves them, many tools refuse them; an alias "
         "bomb is refused.", _R, _W, _E, emitter=Emitter.READER),
    Rule("SA009", "yaml-custom-tag",
         "A YAML tag on a value; Claude Code silently drops it and reads the rest.",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA010", "lenient-yaml",
         "Only Claude Code's lenient YAML pass reads this; strict parsers reject it.",
         _R, _W, _E, fix="yaml"),
    Rule("SA011", "binary-content", "The file holds binary content (NUL bytes).", _R, _E, _E,
         emitter=Emitter.READER),
    Rule("SA012", "empty-file", "The file is empty.", _R, _E, _E, emitter=Emitter.READER),
    Rule("SA013", "tab-indentation", "The frontmatter is indented with tabs.", _R, _W, _E,
         emitter=Emitter.READER, fix="yaml"),
    Rule("SA014", "wrong-type", "A field has a value of the wrong type.", _R, _E, _E,
         emitter=Emitter.READER),
    Rule("SA015", "unreadable-file", "The file cannot be read (operating-system error).",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA016", "json-syntax", "The JSON is not valid or not an object of agents.",
         _R, _E, _E, emitter=Emitter.READER),
    Rule("SA017", "dialect-not-supported",
         "The Markdown reader was given another harness's file; its own reader judges it.",
         _R, _I, _I, emitter=Emitter.READER),
    Rule("SA018", "frontmatter-not-at-start",
         "Something comes before the opening `---`; Claude Code skips the file without a "
         "word.", _R, _E, _E, emitter=Emitter.READER, fix="frontmatter-start"),
    Rule("SA019", "frontmatter-cut-by-dashes",
         "A `---` inside a value ends Claude Code's frontmatter there; the rest becomes prompt.",
         _R, _E, _E),
    Rule("SA020", "tools-empty",
         "`tools` is present but empty; Claude Code lists \"All tools\" and runs with none.",
         _F, _E, _E),
    Rule("SA022", "description-cut",
         "Claude Code reads only the first line of `description`; the rest became keys.",
         _R, _E, _E, fix="yaml"),
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
         _S, None, _I, fix="tools-style"),
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
         "The prompt reads like a prompt injection, with high confidence.", _X, _E, _E,
         silenceable=False),
    Rule("SA406", "possible-prompt-injection",
         "The prompt may hold a prompt injection (one signal alone).", _X, _W, _E,
         silenceable=False),
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
         _O, _E, _E, messages=_msgs(
             ignored="agent name {name!r} is defined again in this {scope} folder by {winner}; "
                     "{harness} keeps only the last path in code-unit order ({winner}) and "
                     "ignores this file",
             clash="agent name {name!r} is also defined in {others}; neither is loaded")),
    Rule("SA602", "similar-descriptions",
         "Two agents have descriptions so alike that routing cannot tell them apart.",
         _O, _W, _W),
    # --- discovery (registry) -----------------------------------------------------------------
    Rule("SA603", "unreadable-folder", "A scope folder cannot be read; its agents are not loaded.",
         _O, _E, _E, emitter=Emitter.DISCOVERY),
    Rule("SA604", "symlink-loop",
         "A symlink in an agents folder leads back to itself; it is not followed.", _O, _W, _W,
         emitter=Emitter.DISCOVERY),
    Rule("SA605", "agents-path-not-folder", "An agents path is a file, not a folder.",
         _O, _E, _E, emitter=Emitter.DISCOVERY),
    Rule("SA606", "changed-while-read",
         "A file kept changing while it was read; it is read again on the next reload.",
         _O, _W, _W, emitter=Emitter.DISCOVERY),
    # --- convert (subagents convert): what a conversion lost or refused ----------------------
    Rule("CV001", "convert-field-dropped",
         "The target dialect cannot carry a field; the converted agent goes without it.",
         _C, _W, _W, emitter=Emitter.CONVERT, messages=_msgs(
             main="`{field}` cannot be carried by {target}: dropped",
             unknown_key="unknown key `{field}` cannot be carried by {target}: dropped")),
    Rule("CV002", "convert-field-changed",
         "A field reads back differently in the target dialect, or the output does not read.",
         _C, _W, _W, emitter=Emitter.CONVERT, messages=_msgs(
             main="`{field}` changed in {target}: {before} became {after}",
             unknown_key="unknown key `{field}` changed in {target}: {before} became {after}",
             unreadable=Message("the {target} output could not be read back", _E),
             renamed="`name` changed in {target}: {before!r} became {after!r} ({label} needs "
                     "that form)",
             not_loaded=Message("the {target} file written for this agent would not load in "
                                "{label}: {why}", _E))),
    Rule("CV003", "convert-invalid-name",
         "The agent's name is not valid in the target dialect (or not as a file name).",
         _C, _E, _E, emitter=Emitter.CONVERT, messages=_msgs(
             codex="name {name!r} is not a valid Codex agent name; not converted",
             claude_code=Message("name {name!r} is one Claude Code skips (`:` or a leading `-`)",
                                 _W),
             file_name="name {name!r} cannot be used as a file name; not converted")),
    Rule("CV004", "convert-duplicate-name",
         "Two agents given to one conversion have one name; the first is kept.",
         _C, _E, _E, emitter=Emitter.CONVERT, messages=_msgs(
             main="a second agent named {name!r}; the one from {first} is kept",
             same_file="would be written to {filename}, like the agent from {first}; "
                       "not converted")),
    Rule("CV005", "convert-unreadable-input",
         "An input file cannot be read as an agent, so it is not converted.",
         _C, _E, _E, emitter=Emitter.CONVERT, messages=_msgs(
             main="not converted: the file cannot be read as an agent",
             harness="not converted: {dialect} does not load an agent from this file")),
    Rule("CV006", "convert-output-exists",
         "An output file exists already and `--force` was not given; it is not replaced.",
         _C, _E, _E, emitter=Emitter.CONVERT, messages=_msgs(
             main="exists already; not replaced")),
    Rule("CV008", "convert-target-cannot-hold",
         "The target harness cannot hold this agent at all (say, a prompt over its limit).",
         _C, _E, _E, emitter=Emitter.CONVERT, messages=_msgs(
             main="not converted: {why}")),
    Rule("CV007", "convert-note",
         "A note for the target harness that no converted file can carry.",
         _C, _I, _I, emitter=Emitter.CONVERT, messages=_msgs(main="{note}")),
    # --- sync (subagents sync): generated harness files against their Claude sources -------
    Rule("SY001", "sync-hand-edited",
         "A file `subagents sync` generated was edited by hand since it was written.",
         _Y, _E, _E, emitter=Emitter.SYNC, messages=_msgs(
             main="generated from {source} but edited by hand since; edit the source instead",
             orphan="generated from {source} (gone) and edited by hand since; not removed")),
    Rule("SY002", "sync-out-of-date",
         "A generated file no longer matches what its source gives.",
         _Y, _E, _E, emitter=Emitter.SYNC, messages=_msgs(
             main="out of date: {source} gives different {harness} output now")),
    Rule("SY003", "sync-missing-output",
         "A source agent has no generated file for a harness the project syncs to.",
         _Y, _E, _E, emitter=Emitter.SYNC, messages=_msgs(
             main="no {harness} output: {output} is missing")),
    Rule("SY004", "sync-orphan",
         "A generated file whose source agent is gone (or no longer writes that file).",
         _Y, _E, _E, emitter=Emitter.SYNC, messages=_msgs(
             main="orphan: generated from {source}, which no longer exists",
             moved="orphan: generated from {source}, which now writes {now} instead")),
    Rule("SY005", "sync-conflict",
         "A file `subagents sync` did not write sits where a generated file goes.",
         _Y, _E, _E, emitter=Emitter.SYNC, messages=_msgs(
             main="not written by subagents sync; the {harness} output of {source} goes here")),
    Rule("SY006", "sync-source-unreadable",
         "A source agent cannot be read or written for a harness; it is skipped.",
         _Y, _E, _E, emitter=Emitter.SYNC, messages=_msgs(
             main="not synced: the file cannot be read as an agent",
             name="not synced: {output} would be written for {other} too",
             path="not synced: the path holds characters a generated-file marker cannot carry",
             marker="not synced: {harness} would read the marked file differently",
             harness="not synced to {harness}: {why}")),
    Rule("SY007", "sync-write-failed",
         "A generated file could not be written or removed; nothing was changed there.",
         _Y, _E, _E, emitter=Emitter.SYNC, messages=_msgs(
             main="cannot write: {why}",
             remove="cannot remove: {why}",
             folder="cannot write into {folder}: {why}; nothing was written")),
    # --- store (the MCP tools and `subagents store`): what a write refuses -----------------
    Rule("ST001", "store-invalid-name",
         "A stored agent's name is not a string of a-z, 0-9, `_` and `-`.", _T, _E, _E,
         emitter=Emitter.STORE, messages=_msgs(
             type="name must be a string, not {kind}",
             empty="name is empty",
             chars="name {name!r} may contain only a-z, 0-9, _ and - (found {found!r})")),
    Rule("ST002", "store-name-too-long", "A stored agent's name is too long.", _T, _E, _E,
         emitter=Emitter.STORE, messages=_msgs(
             main="name is {length:,} characters; the limit is {limit}")),
    Rule("ST003", "store-empty-description", "A stored agent's description is empty.",
         _T, _E, _E, emitter=Emitter.STORE, messages=_msgs(main="{field} is empty")),
    Rule("ST004", "store-empty-prompt", "A stored agent's prompt is empty.",
         _T, _E, _E, emitter=Emitter.STORE, messages=_msgs(main="{field} is empty")),
    Rule("ST005", "store-invalid-model",
         "A stored agent's model is neither an alias nor a full Claude model id.", _T, _E, _E,
         emitter=Emitter.STORE, messages=_msgs(
             main="model {model!r} is neither an alias ({aliases}) nor a full Claude model id")),
    Rule("ST006", "store-tools-not-list",
         "A stored agent's tools are not a list of strings.", _T, _E, _E,
         emitter=Emitter.STORE, messages=_msgs(
             main="tools must be a list of tool names, not {kind}",
             item="tools[{index}] must be a string, not {kind}")),
    Rule("ST007", "store-unknown-tool", "A stored agent lists a tool that does not exist.",
         _T, _E, _E, emitter=Emitter.STORE, messages=_msgs(
             main="unknown tool {tool!r} in tools[{index}]")),
    Rule("ST008", "store-too-large",
         "A stored agent's text is over its size limit (the store file must stay readable).",
         _T, _E, _E, emitter=Emitter.STORE, messages=_msgs(
             main="{field} is {size:,} bytes; the limit is {limit:,}")),
    Rule("ST010", "store-wrong-type", "A stored agent's field has a value of the wrong type.",
         _T, _E, _E, emitter=Emitter.STORE, messages=_msgs(
             model="model must be a string, not {kind}",
             text="{field} must be a non-empty string ({kind} given)")),
    Rule("ST011", "store-duplicate-tool", "A stored agent lists one tool twice.", _T, _W, _W,
         emitter=Emitter.STORE, messages=_msgs(main="tool {tool!r} is listed twice")),
    # --- fix (subagents fix): a file it leaves alone ----------------------------------------
    Rule("FX001", "fix-not-rewritten",
         "A file `subagents fix` does not rewrite (another harness's format, a symbolic link).",
         _FX, _W, _W, emitter=Emitter.FIX, messages=_msgs(
             dialect="{dialect} files are not rewritten by fix",
             symlink="is a symbolic link; run fix on its target")),
    Rule("FX002", "fix-cannot-repair",
         "The file cannot be repaired without a human decision; it is left untouched.",
         _FX, _E, _E, emitter=Emitter.FIX, messages=_msgs(main="{why}")),
)


def _harness_rules() -> tuple[Rule, ...]:
    from subagents.lint.rules.harness_catalog import HARNESS_RULES

    return tuple(Rule(code, slug, doc, Category.HARNESS, default, strict,
                      emitter=Emitter.HARNESS)
                 for code, slug, doc, default, strict in HARNESS_RULES)


_TABLE += _harness_rules()

RULES: Mapping[str, Rule] = MappingProxyType({r.code: r for r in _TABLE})
_BY_NAME: Mapping[str, Rule] = MappingProxyType({r.name: r for r in _TABLE})
if len(RULES) != len(_TABLE) or len(_BY_NAME) != len(_TABLE):  # pragma: no cover
    raise RuntimeError("the rule table declares a code or a name twice")


def rule(code: str) -> Rule:
    """The declared rule of ``code``; an undeclared code is a programming error (KeyError)."""
    try:
        return RULES[code]
    except KeyError:
        raise KeyError(f"{code!r} is not a declared rule code (lint/rules/catalog.py)") from None


# -- checks register themselves by code ---------------------------------------------------------
_CHECKS: dict[str, list[Callable[..., Any]]] = {}
_CODES_OF: dict[Callable[..., Any], frozenset[str]] = {}


def check(*codes: str) -> Callable[[_Fn], _Fn]:
    """Register the decorated function as the check of ``codes`` (each must be declared: an
    undeclared code fails at import).  The engine refuses a finding whose code its check did
    not register.  A code the reader emits may have a check too (Claude Code's reading)."""
    for code in codes:
        rule(code)

    def register(fn: _Fn) -> _Fn:
        _CODES_OF[fn] = frozenset(codes) | _CODES_OF.get(fn, frozenset())
        for code in codes:
            _CHECKS.setdefault(code, []).append(fn)
        return fn

    return register


def checks_for(code: str) -> tuple[Callable[..., Any], ...]:
    """The checks registered for ``code`` (after their modules were imported)."""
    return tuple(_CHECKS.get(code, ()))


def codes_of(fn: Callable[..., Any]) -> frozenset[str]:
    """The codes ``fn`` registered for (empty for a function that is not a check)."""
    return _CODES_OF.get(fn, frozenset())


def get_rule(code_or_name: str) -> Rule | None:
    """The rule for a code (``SA201``, ``CV001``) or slug (``description-length``)."""
    return RULES.get(code_or_name.upper()) or _BY_NAME.get(code_or_name.lower())


def _lint(rule_: Rule) -> bool:
    """Is it a code ``validate`` emits (and ``--select``/``--ignore`` pick from)?"""
    return rule_.code.startswith(LINT_FAMILY) or rule_.category is Category.HARNESS


def severity_for(code: str, profile: Profile | str, fallback: Severity) -> Severity | None:
    """The severity of ``code`` in ``profile``; unknown codes keep ``fallback``."""
    found = RULES.get(code)
    if found is None:
        return fallback
    return found.severity(profile)


def is_valid_selector(selector: str) -> bool:
    """``ALL``, a family (``SA``, ``GM``), a prefix or code of a declared rule that
    ``validate`` emits (``SA2``, ``GM004``), or such a rule's slug.  ``convert``, ``sync``,
    store and ``fix`` codes are not selectable, and neither is an undeclared code
    (``GM999``): :func:`selector_problem` says why and what was meant."""
    return selector_problem(selector) is None


def selector_problem(selector: str) -> str | None:
    """Why ``selector`` selects nothing (``None`` when it is valid), with the closest
    declared codes or slugs when there are any."""
    import difflib

    s = selector.strip()
    up = s.upper()
    if up in ("ALL", LINT_FAMILY) or up in HARNESS_FAMILIES:
        return None
    family = up[:2] == LINT_FAMILY or harness_family(up) is not None
    if family and up[2:].isdigit():
        if any(code.startswith(up) and _lint(r) for code, r in RULES.items()):
            return None
        same = [c for c, r in RULES.items() if _lint(r) and c[:2] == up[:2]]
        close = difflib.get_close_matches(up, same, n=3, cutoff=0.6) or sorted(
            same, key=lambda c: abs(int(c[2:]) - int(up[2:].ljust(3, "0")[:3])))[:3]
        what = "is declared" if len(up) == 5 else "starts with it"
        return (f"{s!r} is not a rule code, prefix or name: no rule code {what}"
                + (f"; did you mean {', '.join(close)}?" if close else ""))
    found = _BY_NAME.get(s.lower()) or RULES.get(up)
    if found is not None and _lint(found):
        return None
    if found is not None:  # CV001, SY002, ST003, FX001: another command's
        owner = "the agent store" if found.category is Category.STORE else (
            f"`subagents {found.category}`")
        return f"{s!r} is a code of {owner}, which validate does not emit"
    names = [r.name for r in RULES.values() if _lint(r)]
    close = difflib.get_close_matches(s.lower(), names, n=3, cutoff=0.6)
    return (f"{s!r} is not a rule code, prefix or name"
            + (f"; did you mean {', '.join(close)}?" if close else ""))


def matches(code: str, selectors: Iterable[str]) -> bool:
    """Does any selector (code, prefix, slug or ``ALL``) pick ``code``?"""
    found = RULES.get(code)
    for raw in selectors:
        s = raw.strip()
        up = s.upper()
        if up == "ALL" or (up.startswith(LINT_FAMILY) and code.startswith(up)):
            return True
        if harness_family(up) is not None and code.startswith(up):
            return True
        if found is not None and s.lower() == found.name:
            return True
    return False
