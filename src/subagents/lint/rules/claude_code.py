"""Findings about what Claude Code does with a file, judged by one rule.

**Error**: Claude Code skips the file, or silently does something other than what is written
(drops a field or a tool, cuts the description, runs with no tools, keeps one of two
definitions). **Warning**: Claude Code reads it as meant, but strict YAML parsers and other
harnesses do not (portability), or a matter of style. Every message names the Claude Code
version whose behaviour it states (the profile chosen by config ``claude_code``).

The registry uses :func:`skip_diagnostic` and :func:`duplicate_diagnostic` (one finding per file
Claude Code does not load); ``validate`` adds :func:`claude_code_findings`, which compares Claude
Code's reading (:class:`~subagents.claude_code.reader.ClaudeCodeView`) with the strict reading,
through :func:`claude_code_reading`: the one place that says which of the strict reader's
findings still stand once Claude Code's reading is known (every command that judges a Claude
file -- ``validate``, ``validate_text``, ``convert`` and ``sync`` through them -- uses it).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from subagents.claude_code.reader import OPENING_NOT_ENDED, ClaudeCodeView, ParseMode, SkipKind
from subagents.definition import AgentDefinition
from subagents.diagnostics import Diagnostic
from subagents.formats.fields import TYPE_ERRORS
from subagents.harnesses.loader import LoadResult
from subagents.harnesses.plugins import plugin_of
from subagents.lint.rules.base import make_diagnostic
from subagents.lint.rules.catalog import check, rule

__all__ = [
    "claude_code_findings",
    "claude_code_reading",
    "duplicate_diagnostic",
    "key_line",
    "skip_diagnostic",
]


def key_line(text: str | None, key: str) -> int | None:
    """The 1-based line of the first column-0 ``key:`` in ``text`` (None if absent)."""
    return key_pos(text, key)[0]


def key_pos(text: str | None, key: str) -> tuple[int | None, int | None]:
    """(line, column of the value) of the first column-0 ``key:`` in ``text``."""
    if not text:
        return None, None
    m = re.search(rf"(?m)^{re.escape(key)}[ \t]*:[ \t]*", text)
    if m is None:
        return None, None
    line = text.count("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    rest = text[m.end() : end if end >= 0 else len(text)]
    column = m.end() - m.start() + 1 if rest.strip() else 1
    return line, column


def _skip_code(view: ClaudeCodeView, text: str | None) -> tuple[str, int | None]:
    skip = view.skip
    assert skip is not None
    kind = skip.kind
    if kind is SkipKind.TOO_LARGE:
        return "SA002", None
    if kind is SkipKind.NO_FRONTMATTER:
        stripped = (text or "").lstrip("\ufeff")
        if stripped.startswith("---"):
            return "SA004", 1
        if stripped.lstrip().startswith("---"):
            return "SA018", 1
        return "SA003", 1
    if kind is SkipKind.YAML:
        return "SA005", view.error_line or 1
    if kind is SkipKind.REFUSED:
        code = "SA008" if skip.alias else "SA005"
        return code, view.error_line or 1
    if kind is SkipKind.NO_NAME:
        not_mapping = view.frontmatter == {} and view.block_text.strip()
        if not_mapping and view.parse is not ParseMode.FAILED:
            return "SA006", 2
        line = key_line(text, "name")
        return ("SA014" if line is not None and view.frontmatter.get("name") else "SA102"), line
    if kind is SkipKind.BAD_NAME:
        return "SA101", key_line(text, "name")
    if kind is SkipKind.NO_DESCRIPTION:
        line = key_line(text, "description")
        wrong_type = line is not None and bool(view.frontmatter.get("description"))
        return ("SA014" if wrong_type else "SA103"), line
    return "SA110", key_line(text, "hooks")


def skip_diagnostic(view: ClaudeCodeView, path: str, text: str | None = None) -> Diagnostic:
    """One error saying why Claude Code skips this file, and whether it would say so."""
    assert view.skip is not None
    code, line = _skip_code(view, text)
    line = line or 1  # nothing to point at: the opening ---
    label = view.profile.label
    how = "skips this file" if view.skip.logged else "skips this file without a word"
    message = f"{label} {how}: {view.skip.message}"
    if view.skip.kind is SkipKind.REFUSED:
        # a deliberate difference: we refuse what Claude Code would try to parse
        message = (
            f"refused for safety and not loaded: {view.skip.message} (deeper nesting or "
            "expanding aliases can exhaust a parser; Claude Code would try)"
        )
    column: int | None = 1 if line else None
    key = _VALUE_KEYS.get(view.skip.kind)
    if key is not None and line is not None:
        found_line, found_col = key_pos(text, key)
        if found_line == line:
            column = found_col
    hint = _SKIP_HINTS.get(code)
    if view.skip.message == OPENING_NOT_ENDED:  # not a missing close: the first line
        hint = ("put a line feed right after the opening `---` (only spaces may stand between "
                "them); save the file with LF or CRLF line ends")
    return make_diagnostic(code, path, (line, column), message, hint)


_VALUE_KEYS = {
    SkipKind.NO_NAME: "name",
    SkipKind.BAD_NAME: "name",
    SkipKind.NO_DESCRIPTION: "description",
}


_SKIP_HINTS = {
    "SA002": "agent files are small text files; move reference material into skills",
    "SA003": "start the file with a `---` line, then `name:` and `description:`, then `---`",
    "SA004": "close the frontmatter with a `---` line after the last field",
    "SA018": "remove everything before the opening `---` (`subagents fix` does it)",
    "SA005": "`subagents fix` repairs unquoted values and broken continuations",
    "SA006": "the frontmatter must be `key: value` lines",
    "SA008": "write the value out in full; anchors and aliases can expand without bound",
    "SA014": "`name` and `description` must be text",
    "SA101": "use lowercase letters, digits and hyphens, e.g. `code-reviewer`",
    "SA102": "add `name: my-agent` to the frontmatter",
    "SA103": "say when to use the agent in `description`",
    "SA110": "hooks map an event name to a list of `{matcher, hooks: [...]}` entries",
}


def registry_diagnostics(result: LoadResult, display: str) -> tuple[Diagnostic, ...]:
    """What the registry (``list``, ``doctor``) says about one file, whatever its harness: the
    reader's findings; for a file read by Claude Code's emulation, nothing when it loads and
    one error saying why it skips the file when it does not (an empty or binary file: the
    strict reader's finding, which says more than "no frontmatter")."""
    view = result.claude_code
    if view is None:
        return result.diagnostics
    if view.loaded:
        return ()
    plain = tuple(d for d in result.diagnostics if d.rule in ("SA011", "SA012"))
    text = result.document.text if result.document is not None else None
    return plain or (skip_diagnostic(view, display, text),)


def duplicate_diagnostic(
    path: str, name: str, winner: str, scope: str, label: str, line: int | None
) -> Diagnostic:
    """The file Claude Code drops because a later path in the same folder defines ``name``."""
    return rule("SA601").templated(
        "ignored", path, line, 1 if line else None,
        "rename one agent (the `name` field, not the file name) or delete one file",
        name=name, scope=scope, winner=winner, harness=label)


_LENIENT = ParseMode.LENIENT


@check("SA001", "SA002", "SA003", "SA004", "SA005", "SA006", "SA008", "SA010", "SA014", "SA018",
       "SA019", "SA020", "SA021", "SA022", "SA101", "SA102", "SA103", "SA110")
def claude_code_findings(
    view: ClaudeCodeView, path: str, text: str | None
) -> Iterable[Diagnostic]:
    """What ``validate`` says about Claude Code's reading of one file it reads."""
    fm = view.frontmatter
    # Most files: loaded as written, and each finding below has its own reason in the view
    # (its flags, its notes, a key that must be there); nothing to say, and no generator
    # made to say it.  (tests/test_claude_code_findings_quiet.py turns on each reason.)
    if (view.loaded and view.parse is not _LENIENT and not view.block_cut_inline
            and not view.replaced_bytes and not view.notes
            and ("tools" not in fm or view.tools != ()) and "disallowedTools" not in fm
            and "memory" not in fm and "skills" not in fm):
        return ()
    return _findings(view, path, text)


def _findings(view: ClaudeCodeView, path: str, text: str | None) -> Iterator[Diagnostic]:
    """:func:`claude_code_findings` of a view that may have something to say."""
    label = view.profile.label
    if not view.loaded:
        yield skip_diagnostic(view, path, text)
        return

    def line_of(key: str) -> int | None:
        return key_line(text, key)

    if view.parse is ParseMode.LENIENT:
        quoted = ", ".join(f"`{k}`" for k in view.quoted_keys) or "a value"
        truncated = [k for k in view.unknown_keys if k in _CONTINUATION_KEYS]
        if truncated:
            yield make_diagnostic(
                "SA022",
                path,
                (line_of("description"), 1),
                f"{label} reads only the first line of `description`: its lenient second YAML "
                f"pass turns the continuation lines {', '.join(repr(k + ':') for k in truncated)} "
                "into keys of their own; PyYAML, js-yaml and other harnesses reject the file",
                "`subagents fix` makes the whole text one valid YAML value",
            )
        elif view.quoted_keys:  # (tabs alone: the reader's SA013 points at the line)
            first = view.quoted_keys[0]
            yield make_diagnostic(
                "SA010",
                path,
                (line_of(first), 1),
                f"{label} reads {quoted} only with its lenient second YAML pass; PyYAML, js-yaml "
                "and other harnesses reject this frontmatter",
                "`subagents fix` quotes the value without changing what Claude Code reads",
            )
    if view.block_cut_inline:
        yield make_diagnostic(
            "SA019",
            path,
            (_dash_line(text), 1),
            f"{label} ends the frontmatter at this `---` inside a value: the text after it, "
            "and every field below, becomes part of the system prompt",
            "remove the `---` from the value, or quote the value and avoid `---` in it",
        )
    fm = view.frontmatter
    if "tools" in fm and view.tools == ():
        yield make_diagnostic(
            "SA020",
            path,
            (line_of("tools"), 1),
            f"`tools` is {_empty_kind(fm['tools'])}: {label} lists the agent with \"All tools\" "
            "but runs it with no tools at all",
            "list the tools (`tools: Read, Grep`), or delete the `tools` line for all tools",
        )
    if view.replaced_bytes:
        yield make_diagnostic(
            "SA001",
            path,
            (None, None),
            f"the file is not valid UTF-8: {label} loads it with U+FFFD in place of each bad "
            "byte sequence",
            "re-save the file as UTF-8, e.g. `iconv -f latin1 -t utf-8 in.md > out.md`",
        )
    # (each says nothing without its keys: a deny list or `memory`; `skills`)
    if "disallowedTools" in fm or "memory" in fm:
        yield from _tool_changes(view, path, text, label)
    if "skills" in fm:
        yield from _missing_skills(view, path, text, label)
    for note in view.notes:
        if note.key == "hooks" and note.rule is None:
            continue  # the hooks rules (SA109/SA110) point at the entry itself
        code = note.rule or _NOTE_CODES.get(note.key, "SA021")
        line, column = key_pos(text, note.key)
        yield make_diagnostic(
            code,
            path,
            (line, column),
            f"{label} ignores {note.message}",
            note.hint or _NOTE_HINTS.get(code, "use a value Claude Code accepts, or remove the "
                                         "field"),
        )


def _tool_changes(view: ClaudeCodeView, path: str, text: str | None, label: str
                  ) -> Iterator[Diagnostic]:
    """Tools Claude Code gives other than written (measured on 2.1.332): a deny-all that
    denies nothing, a pattern in ``disallowedTools`` that removes the whole tool, and
    ``memory`` that adds Write and Edit to a tools list."""
    denied = view.frontmatter.get("disallowedTools")
    written = denied.split(",") if isinstance(denied, str) else (
        denied if isinstance(denied, list) else [])
    # the reader drops a `*` entry (Claude Code denies nothing by it), so look at the text
    if any(isinstance(e, str) and e.strip() == "*" for e in written):
        yield make_diagnostic(
            "SA021", path, key_pos(text, "disallowedTools"),
            f"{label} ignores `disallowedTools: *`: it denies nothing, and the agent keeps "
            "every tool it would have",
            "name the tools to deny (`disallowedTools: Write, Edit, Bash`), or give the "
            "agent only the tools it needs with `tools`")
    for raw in view.disallowed_tools or ():
        entry = raw.strip()
        if "(" in entry and entry.endswith(")") and entry.split("(", 1)[0].strip():
            tool = entry.split("(", 1)[0].strip()
            yield make_diagnostic(
                "SA021", path, key_pos(text, "disallowedTools"),
                f"`disallowedTools: {entry}`: {label} launches the agent without {tool} at "
                f"all, not only without the matching uses (its listing still shows {tool}); "
                "`subagents run` refuses only the matching uses",
                f"write `{tool}` to deny the whole tool, or remove the entry and limit its "
                "uses in the permission settings")
    fm = view.frontmatter
    listed = fm.get("tools")
    if view.tools and fm.get("memory") in view.profile.memories and listed is not None:
        from subagents.claude_code.reader import split_tools

        added = [t for t in ("Write", "Edit") if t not in (split_tools(listed) or ())]
        if added:
            yield make_diagnostic(
                "SA021", path, key_pos(text, "tools"),
                f"`memory: {fm['memory']}` with a `tools` list: {label} adds "
                f"{' and '.join(added)} to the agent's tools (to keep its memory)",
                f"list {' and '.join(added)} in `tools` so the file says what the agent gets, "
                "or remove `memory`")


def _missing_skills(view: ClaudeCodeView, path: str, text: str | None, label: str
                    ) -> Iterator[Diagnostic]:
    """A skill the agent names that no skills folder holds: Claude Code launches the agent
    without it (measured on 2.1.332; a warning in its debug log only).  Checked only for a file
    inside a ``.claude/agents`` folder of a project that has a ``.claude/skills`` folder (else
    the skills may be in a home folder this machine does not have); a plugin's skill
    (``plugin:skill``) is not looked for."""
    raw = view.frontmatter.get("skills")
    names = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else []
    wanted = [n.strip() for n in names if isinstance(n, str) and n.strip() and ":" not in n]
    if not wanted:
        return
    import os
    from pathlib import Path

    here = Path(os.path.abspath(path))
    if ".claude" not in here.parts:
        return
    roots = [p for p in here.parents if (p / ".claude").is_dir()]
    home = Path(os.environ.get("HOME") or Path.home())
    folders = [*(r / ".claude" / "skills" for r in roots), home / ".claude" / "skills"]
    if not any(f.is_dir() for f in folders[:-1]):
        # no project skills folder at all: the skills may live in a home folder we cannot see
        # (a CI machine, another user's checkout), so saying "missing" would be a guess
        return
    for name in wanted:
        if any((f / name / "SKILL.md").is_file() for f in folders):
            continue
        yield make_diagnostic(
            "SA021", path, key_pos(text, "skills"),
            f"`skills`: no skill {name!r} in .claude/skills or ~/.claude/skills: {label} "
            "launches the agent without it (its debug log says so, nothing else does)",
            f"create .claude/skills/{name}/SKILL.md, or remove {name!r} from `skills`")


# A field Claude Code ignores keeps the code of its own rule (so `ignore = ["SA108"]` in a
# config still covers it); the rest share SA021.
_NOTE_CODES = {
    "permissionMode": "SA106",
    "maxTurns": "SA108",
    "effort": "SA115",
    "isolation": "SA116",
    "model": "SA105",
    "color": "SA205",
    "hooks": "SA109",
    "background": "SA014",
}
_NOTE_HINTS = {
    "SA106": "set one of the modes listed, or remove the field (the default mode applies)",
    "SA108": "write a positive whole number, e.g. `maxTurns: 20`",
    "SA115": "use low, medium, high, xhigh or max",
    "SA116": "use `worktree` or `remote`",
    "SA105": "write one model: an alias (sonnet, opus, haiku, inherit) or a full model id",
    "SA205": "use red, blue, green, yellow, purple, orange, pink or cyan",
    "SA109": "hooks map event names (PreToolUse, PostToolUse, Stop, ...) to matcher lists",
}


_CONTINUATION_KEYS = frozenset({"user", "assistant", "Context", "Examples", "context", "Example"})


def _empty_kind(value: object) -> str:
    if value is None:
        return "empty"
    if value == "":
        return '""'
    if value == []:
        return "[]"
    if isinstance(value, dict):
        return "a mapping, not a list"
    return f"{value!r}, not a list of tool names"


def _dash_line(text: str | None) -> int | None:
    if not text:
        return None
    start = text.find("\n")
    pos = text.find("---", start + 1)
    return text.count("\n", 0, pos) + 1 if pos >= 0 else None


# Reader findings that say "this is not strict YAML / not readable" -- superseded, for a file
# Claude Code loads, by what Claude Code makes of it (rules/claude_code.py).
_SUPERSEDED_WHEN_LOADED = frozenset(
    {"SA001", "SA003", "SA004", "SA005", "SA006", "SA010", "SA012",
     "SA018", "SA101", "SA102", "SA103"}
)
# Fields whose value Claude Code itself judges: a wrong type there is reported as what Claude
# Code does with it (rules/claude_code.py), not as the strict reader's SA014.
_CLAUDE_CODE_JUDGES = frozenset(
    {"name", "description", "model", "tools", "disallowedTools", "maxTurns", "permissionMode",
     "background", "effort", "isolation", "memory", "color", "mcpServers"}
)


_PARSE_FINDINGS = frozenset({"SA003", "SA004", "SA005", "SA010", "SA013", "SA018"})
_UNREADABLE_SKIPS = frozenset({SkipKind.YAML, SkipKind.NO_FRONTMATTER, SkipKind.REFUSED})


def as_claude_code_loads(result: LoadResult, file_path: Path | None,
                         absolute: str | None = None) -> LoadResult:
    """``result`` with the reading Claude Code gives a plugin's agent when ``file_path`` is
    one (it loads without a name or description, some fields do not apply); else as is.
    ``absolute``: ``os.path.abspath(file_path)``, when the caller has it."""
    view = result.claude_code
    if view is None or file_path is None:
        return result
    # (imported with the module: a statement per file cost more)
    plugin = plugin_of(file_path, absolute)
    harness = result.harness
    if plugin is None or harness is None:
        return result
    # the harness says how a plugin's agent loads, as it does for the registry
    return harness.for_plugin(dataclasses.replace(result, file_path=file_path), plugin)


def claude_code_reading(
    result: LoadResult, display: str, file_path: Path | None, text: str | None
) -> tuple[list[Diagnostic], tuple[AgentDefinition, ...]]:
    """Reader findings and the definitions the rules judge, as Claude Code reads the file.

    For a Claude agent file the rules judge the definition Claude Code runs (its tools split,
    its model, the last of duplicate keys); the strict reader keeps the positions and its
    portability findings. A file Claude Code skips keeps the strict reader's findings and gets
    one error saying why Claude Code skips it.
    """
    view = result.claude_code
    if view is None:
        return list(result.diagnostics), result.definitions
    found = claude_code_findings(view, display, text)
    if view.loaded:
        # (most files: no reader finding, and nothing found; no list made to filter)
        kept = [
            d
            for d in result.diagnostics
            if d.rule not in _SUPERSEDED_WHEN_LOADED
            and not (d.rule in TYPE_ERRORS and d.key in _CLAUDE_CODE_JUDGES)
        ] if result.diagnostics else []
        kept.extend(found)
        (defn,) = result.loaded  # the definition Claude Code runs (the one reading's)
        return kept, (defn,)
    findings = list(found)
    # The skip finding replaces the strict reader's finding at the same place, and explains
    # what its parse errors would: one message, the same one `list` and `doctor` show.
    if any(d.rule in ("SA011", "SA012") for d in result.diagnostics):
        findings = []  # empty or binary: the reader's finding says more than "no frontmatter"
    for i, f in enumerate(findings):
        # an alias refused: the strict reader knows the exact column of the anchor
        same = next((d for d in result.diagnostics if d.rule == f.rule == "SA008"), None)
        if same is not None:
            findings[i] = dataclasses.replace(f, line=same.line, column=same.column)
    codes = {d.rule for d in findings if d.rule != "SA014"}
    places = {(d.rule, d.line) for d in findings}
    unreadable = view.skip is not None and view.skip.kind in _UNREADABLE_SKIPS
    kept = [
        d
        for d in result.diagnostics
        if (d.rule, d.line) not in places
        and d.rule not in codes
        and not (unreadable and d.rule in _PARSE_FINDINGS)
    ]
    return kept + findings, result.definitions
