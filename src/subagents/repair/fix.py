"""Repair agent files without changing what they mean (``subagents fix``).

What is repaired
----------------
* **A frontmatter strict YAML rejects** (PyYAML, or the strict reader with a YAML syntax error, a
  tab indentation or a duplicate key): :mod:`subagents.repair.fix_yaml` cuts it into the fields the
  author wrote (``user:``/``assistant:``/``Context:`` lines are text, every other ``key:`` at column
  0 a field), and re-writes each field that does not parse on its own as a literal block scalar (a
  double-quoted string when a block cannot hold the text).  The text is what Claude Code reads when
  it reads the field whole, and the whole text written up to the next field when Claude Code cuts it
  to its first line or skips the file.  A block indented with tabs gets two spaces per tab instead.
  A line that looks like a mangled field (``tools:`` indented, ``tools Read``) is never absorbed
  into a text: the file is refused.
* **Safe normalisations**: a UTF-8 BOM is removed; blank lines before the opening ``---`` are
  removed and a uniformly indented frontmatter (and body, when the whole file is indented: one
  corpus file does that) is un-indented; trailing whitespace after the ``---`` delimiters is
  removed.  ``--tools-style comma|list`` rewrites ``tools``/``disallowedTools`` in one style
  (both styles are valid, so nothing changes without the flag).

What is deliberately *not* touched: line endings (CRLF stays CRLF; every emitted line takes the
ending of the line it replaces), a ``Stop`` hook (Claude Code maps it to ``SubagentStop``
itself), unknown keys, comments, and every byte outside the repaired lines.

Safety
------
Every repair is verified before anything is written (:func:`subagents.repair.fix_yaml.verify`): the
new frontmatter parses with PyYAML and with Claude Code's first YAML pass, both see exactly the
fields written (none absorbed, none dropped), Claude Code reads each field as decided, PyYAML and
Claude Code agree on ``name``, ``description``, ``tools`` and ``model``, and the body is
unchanged; then the strict reader must find no error left.  On a file Claude Code loads whole,
what it reads (name, description, tools, model, body) must be identical after all the changes.
If any check fails, or a reader error remains that we cannot repair (anchors, an unclosed
frontmatter...), the file is left untouched and reported as unrepairable, with the reason.  A
value of the wrong type (``SA014``, ``maxTurns: ten``) does not block a repair: the file parses,
and the value is ``validate``'s to report, like an unknown tool name.  A frontmatter nested too
deeply is refused before any YAML parser sees it.  Writes are atomic: a temporary file in the
same folder, ``fsync``, the original file mode copied, then ``os.replace`` (and the folder is
fsynced).  Symbolic links are not written through: the link target may live outside the project.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import yaml

from subagents.claude_code import ClaudeCodeProfile, bun_yaml, get_profile, read_claude_code
from subagents.definition import Dialect
from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import SubagentError
from subagents.formats.fields import TYPE_ERRORS
from subagents.formats.frontmatter import FrontmatterDocument
from subagents.formats.yamltree import YScalar, YSeq
from subagents.fs import (
    LeavesProject,
    NotRegular,
    TooLarge,
    atomic_write,
    find_git_root,
    read_regular,
)
from subagents.harnesses.loader import LoadResult, detect_dialect, parse_agent_text
from subagents.lint.rules.catalog import rule
from subagents.repair.fix_yaml import (
    Unfixable,
    content,
    emit_quoted,
    ending,
    is_blank,
    needs_repair,
    repair_frontmatter,
    verify,
)

__all__ = [
    "REPAIRS",
    "Change",
    "FixResult",
    "FixRun",
    "FixStatus",
    "ToolsStyle",
    "fix_file",
    "fix_files",
    "fix_targets",
    "fix_text",
    "write_atomic",
]

ToolsStyle = Literal["comma", "list"]

#: The repairs of ``fix``, by the name a rule of the registry attaches to itself
#: (``Rule.fix`` in :mod:`subagents.lint.rules.catalog`; a test keeps the two in step and runs
#: each repair on the documented example of each rule it is attached to).
REPAIRS: dict[str, str] = {
    "yaml": "re-writes a frontmatter strict YAML rejects (syntax, tabs, duplicate keys, a "
            "description Claude Code cuts) as fields every parser reads alike",
    "frontmatter-start": "removes what comes before the opening `---` (a BOM, blank lines, "
                         "a uniform indentation)",
    "tools-style": "rewrites `tools`/`disallowedTools` in one style (`--tools-style`)",
}

_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_DELIM_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<delim>---|\.\.\.)(?P<trail>[ \t]*)$")
_KEY_PREFIX_RE = re.compile(r"^(?P<key>[^\s:#][^:]*?)[ \t]*:")
_TOOL_FIELDS = ("tools", "disallowedTools", "disallowed_tools")
_MARKDOWN_DIALECTS = (Dialect.CLAUDE, Dialect.CODEX_MD)
# Reader errors about a *value* (``maxTurns: ten``): the file parses, the value needs a person.
# Like the rules' errors they are `validate`'s to report; they do not block a repair.
_VALUE_ERRORS = TYPE_ERRORS


class FixStatus(StrEnum):
    UNCHANGED = "unchanged"  # nothing to repair
    FIXED = "fixed"  # repaired (written, or would be with --diff/--check)
    UNFIXABLE = "unfixable"  # reader errors remain that fix cannot repair; left untouched
    SKIPPED = "skipped"  # not a Markdown agent file (JSON, OpenCode, Copilot) or a symlink


@dataclass(frozen=True, slots=True)
class Change:
    """One repair: the 1-based line in the *original* file it concerns, a code, a message."""

    line: int | None
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class FixResult:
    path: str
    status: FixStatus
    original: bytes
    fixed: bytes  # == original unless status is FIXED
    changes: tuple[Change, ...] = ()
    problems: tuple[Diagnostic, ...] = ()  # why a file is unfixable / skipped
    notes: tuple[str, ...] = ()  # normalisations that were considered and not done
    why: str | None = None  # why an unfixable file cannot be repaired, when fix itself refused

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self) -> str:
        """A unified diff (``a/path`` → ``b/path``), empty when nothing changes."""
        if not self.changed:
            return ""
        old = _decode_for_diff(self.original)
        new = _decode_for_diff(self.fixed)
        name = self.path.lstrip("/")
        lines = difflib.unified_diff(
            _diff_lines(old),
            _diff_lines(new),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
        out: list[str] = []
        for line in lines:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": str(self.status),
            "changes": [c.to_dict() for c in self.changes],
            "problems": [p.to_dict() for p in self.problems],
            # the JSON keeps the refusal as the last note (its shape predates ``why``)
            "notes": [*self.notes, *((f"cannot repair: {self.why}",) if self.why else ())],
        }


def _diff_lines(text: str) -> list[str]:
    """Lines as the readers count them (ends kept): only a line feed ends one, so a form feed
    or U+2028 inside a line does not split it (``str.splitlines`` would)."""
    return _DIFF_LINE_RE.findall(text)


_DIFF_LINE_RE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def _decode_for_diff(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


_Unfixable = Unfixable
_content = content
_ending = ending
_is_blank = is_blank


def _split_lines(text: str) -> list[str]:
    """Lines with their own endings; splits exactly where the reader does (\\r\\n, \\r, \\n)."""
    return _LINE_RE.findall(text)


def _plain_or_quoted(item: str) -> str:
    """A list item as a plain scalar when YAML reads it back as the same string."""
    if item and item == item.strip() and "\n" not in item:
        try:
            if yaml.safe_load(f"- {item}") == [item]:
                return item
        except yaml.YAMLError:
            pass
    return emit_quoted("x", item, "")[0][len("x: ") :]


# --------------------------------------------------------------------------- the fixer


@dataclass
class _State:
    lines: list[str]
    dialect: Dialect
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # maps a current line index to the line number in the original file (for reporting)
    origin: list[int] = field(default_factory=list)

    def text(self) -> str:
        return "".join(self.lines)

    def orig_line(self, index: int) -> int:
        return self.origin[index] if 0 <= index < len(self.origin) else index + 1

    def replace(self, start: int, stop: int, new: list[str]) -> None:
        """Replace lines[start:stop] (0-based) by ``new``."""
        first = self.orig_line(start)
        self.lines[start:stop] = new
        self.origin[start:stop] = [first] * len(new)

    def read(self, path: str) -> LoadResult:
        return parse_agent_text(self.text(), path=path, dialect=self.dialect)


def fix_text(
    data: bytes | str,
    *,
    path: str = "<string>",
    dialect: Dialect = Dialect.CLAUDE,
    tools_style: ToolsStyle | None = None,
    claude_code: ClaudeCodeProfile | None = None,
) -> FixResult:
    """Repair one agent file's content in memory.  Never raises for bad input.

    ``claude_code``: the Claude Code version whose reading judges the repairs (default: the
    newest recorded, :func:`subagents.claude_code.get_profile`)."""
    original = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")

    def unchanged(status: FixStatus, problems: tuple[Diagnostic, ...] = ()) -> FixResult:
        return FixResult(path, status, original, original, problems=problems)

    if dialect not in _MARKDOWN_DIALECTS:
        return unchanged(
            FixStatus.SKIPPED,
            (rule("FX001").templated("dialect", path, None, None, dialect=dialect),),
        )
    too_deep = _too_deep(original)
    if too_deep is not None:
        return unchanged(FixStatus.UNFIXABLE, (_cannot_repair(path, too_deep, _TOO_DEEP),))
    first_read = parse_agent_text(original, path=path, dialect=dialect)
    try:
        text = original.decode("utf-8")
    except UnicodeDecodeError:
        return unchanged(FixStatus.UNFIXABLE, _errors(first_read))
    state = _State(_split_lines(text), dialect)
    state.origin = list(range(1, len(state.lines) + 1))
    try:
        _strip_bom(state)
        _unindent_opening(state)
        _trim_delimiters(state)
        before = state.read(path)
        if before.document is None:
            raise _Unfixable("no usable frontmatter")
        changes_meaning = _repair_yaml(state, before, claude_code)
        if tools_style is not None:
            _restyle_tools(state, path, tools_style, claude_code)
        if not changes_meaning:
            _same_for_claude_code(original, state.text(), claude_code)
        after = state.read(path)
        remaining = tuple(d for d in _errors(after) if d.rule not in _VALUE_ERRORS)
        if remaining:
            return FixResult(
                path,
                FixStatus.UNFIXABLE,
                original,
                original,
                problems=remaining,
                notes=tuple(state.notes),
            )
    except _Unfixable as exc:
        problems = _errors(first_read) or (_cannot_repair(path, exc.line, exc.message),)
        return FixResult(
            path,
            FixStatus.UNFIXABLE,
            original,
            original,
            problems=problems,
            notes=tuple(state.notes),
            why=exc.message,
        )
    fixed = state.text().encode("utf-8", "surrogatepass")
    if fixed == original:
        return FixResult(path, FixStatus.UNCHANGED, original, original, notes=tuple(state.notes))
    return FixResult(
        path, FixStatus.FIXED, original, fixed, tuple(state.changes), notes=tuple(state.notes)
    )


_TOO_DEEP = (
    f"the frontmatter is nested more than {bun_yaml.MAX_DEPTH} levels deep; refused before any "
    "YAML parser sees it"
)


def _too_deep(data: bytes) -> int | None:
    """The line of the opening ``---`` when the frontmatter is nested too deeply to parse.

    Checked before any reader runs: a deeply nested document can crash libyaml's C parser."""
    lines = _split_lines(data.decode("utf-8", "replace"))
    first = 0
    while first < len(lines) and _is_blank(lines[first]):
        first += 1
    if first >= len(lines) or _content(lines[first]).strip().lstrip("\ufeff") != "---":
        return None
    close = _find_close(lines, first)
    stop = close if close is not None else len(lines)
    block = "".join(_content(line) + "\n" for line in lines[first + 1 : stop])
    if bun_yaml.nesting_depth(block) > bun_yaml.MAX_DEPTH:
        return first + 1
    return None


def _cannot_repair(path: str, line: int | None, why: str) -> Diagnostic:
    return rule("FX002").templated("", path, line, None, why=why)


def _errors(result: LoadResult) -> tuple[Diagnostic, ...]:
    return tuple(d for d in result.diagnostics if d.severity is Severity.ERROR)


def _strip_bom(state: _State) -> None:
    if state.lines and state.lines[0].startswith("\ufeff"):
        state.lines[0] = state.lines[0][1:]
        state.changes.append(Change(1, "bom", "removed the UTF-8 byte order mark"))


def _find_close(lines: list[str], start: int) -> int | None:
    for i in range(start + 1, len(lines)):
        m = _DELIM_RE.match(_content(lines[i]))
        if m and (m.group("delim") == "---" or not m.group("indent")):
            return i
    return None


def _unindent_opening(state: _State) -> None:
    lines = state.lines
    first = 0
    while first < len(lines) and _is_blank(lines[first]):
        first += 1
    if first >= len(lines):
        return
    m = _DELIM_RE.match(_content(lines[first]))
    if not m or m.group("delim") != "---":
        return
    indent = m.group("indent")
    if first == 0 and not indent:
        return
    if "\t" in indent:
        raise _Unfixable("the opening `---` is indented with a tab", first + 1)
    width = len(indent)
    close = _find_close(lines, first) if width else None
    if width:
        if close is None:
            raise _Unfixable("the indented frontmatter is never closed", first + 1)
        region = range(first, close + 1)
        if not all(_is_blank(lines[i]) or lines[i].startswith(indent) for i in region):
            raise _Unfixable(
                "the frontmatter is indented unevenly; un-indent it by hand", first + 1
            )
        body = range(close + 1, len(lines))
        whole = all(_is_blank(lines[i]) or lines[i].startswith(indent) for i in body)
        targets = range(first, len(lines)) if whole else region
        for i in targets:
            lines[i] = _dedent(lines[i], width)
        where = "the whole file" if whole else "the frontmatter"
        state.changes.append(
            Change(
                state.orig_line(first),
                "indent",
                f"removed the {width}-space indentation of {where} (an indented `---` "
                "is not a frontmatter to Claude Code)",
            )
        )
    if first:
        del lines[:first]
        removed = state.origin[:first]
        del state.origin[:first]
        state.changes.append(
            Change(
                removed[0],
                "leading-blank",
                f"removed {first} blank line(s) before the opening `---`",
            )
        )


def _dedent(line: str, width: int) -> str:
    content = _content(line)
    ending = line[len(content) :]
    lead = len(content) - len(content.lstrip(" "))
    return content[min(lead, width) :] + ending


def _trim_delimiters(state: _State) -> None:
    lines = state.lines
    if not lines:
        return
    m = _DELIM_RE.match(_content(lines[0]))
    if not m or m.group("delim") != "---" or m.group("indent"):
        return
    close = _find_close(lines, 0)
    for index in (0, close):
        if index is None:
            continue
        content = _content(lines[index])
        if content != content.rstrip(" \t"):
            lines[index] = content.rstrip(" \t") + lines[index][len(content) :]
            state.changes.append(
                Change(
                    state.orig_line(index),
                    "delimiter",
                    "removed trailing whitespace after the `---` delimiter",
                )
            )


def _field_regions(doc: FrontmatterDocument, *, trim_comments: bool) -> dict[str, tuple[int, int]]:
    """key -> (first, stop) 0-based line indexes of each top-level field.

    Trailing blank lines are excluded (they stay where they are).  Trailing comment lines are
    excluded only for valid YAML: in a recovered frontmatter the reader counted them as part of
    the broken value, so they are part of its text.
    """
    ordered = sorted(doc.fields.values(), key=lambda f: f.key_line)
    lines = doc.text.split("\n")
    regions: dict[str, tuple[int, int]] = {}
    for i, f in enumerate(ordered):
        start = f.key_line - 1
        stop = ordered[i + 1].key_line - 1 if i + 1 < len(ordered) else doc.end_line - 1
        while stop > start + 1 and (
            not lines[stop - 1].strip() or (trim_comments and lines[stop - 1].startswith("#"))
        ):
            stop -= 1
        regions[f.key] = (start, stop)
    return regions


def _key_as_written(line: str, key: str) -> str:
    m = _KEY_PREFIX_RE.match(_content(line))
    return m.group("key") if m else key


_SYNTAX_ERRORS = frozenset({"SA005", "SA007", "SA010", "SA013"})


def _repair_yaml(state: _State, before: LoadResult, profile: ClaudeCodeProfile | None) -> bool:
    """Make a frontmatter strict YAML rejects strict YAML (:mod:`subagents.repair.fix_yaml`).

    Returns True when a repair deliberately changes what Claude Code reads (it cut a value, or
    skipped the file)."""
    lines = state.lines
    close = _find_close(lines, 0) if lines and _content(lines[0]) == "---" else None
    if close is None:
        return False
    block = "".join(_content(line).rstrip("\r") + "\n" for line in lines[1:close])
    doc = before.document
    flagged = (doc is not None and doc.recovered) or any(
        d.rule in _SYNTAX_ERRORS for d in before.diagnostics
    )
    if not flagged and not needs_repair(block):
        return False
    before_text = state.text()
    edits, expected = repair_frontmatter(lines, close, profile)
    changes: list[Change] = []
    for edit in sorted(edits, key=lambda e: -e.start):
        if edit.blank_after:
            # Whitespace-only lines right after a block scalar would be text of it (spaces
            # beyond its indentation are content): they become empty lines.
            after = edit.stop
            while after < len(lines) and _is_blank(lines[after]):
                text = _content(lines[after])
                if text:
                    lines[after] = lines[after][len(text) :]
                after += 1
        changes.append(Change(state.orig_line(edit.start), edit.code, edit.message))
        close += len(edit.new) - (edit.stop - edit.start)
        state.replace(edit.start, edit.stop, list(edit.new))
    closing = _content(lines[close])
    if closing != closing.lstrip(" \t"):
        # An indented closing `---` (Claude Code and the strict reader both end the block
        # there) would now look like a line of the block scalar above it: move it to column 0.
        lines[close] = closing.lstrip(" \t") + lines[close][len(closing) :]
        changes.insert(
            0,
            Change(state.orig_line(close), "delimiter", "moved the closing `---` to column 0"),
        )
    verify(before_text, lines, close, expected, profile)
    state.changes.extend(reversed(changes))
    return any(e.changes_meaning for e in edits)


def _same_for_claude_code(original: bytes, fixed: str, profile: ClaudeCodeProfile | None) -> None:
    """A file Claude Code loads whole must read exactly the same after every change."""
    before = read_claude_code(original, profile=profile)
    if not before.loaded:
        return
    after = read_claude_code(fixed, profile=profile)
    if before.essentials() != after.essentials():
        raise _Unfixable("the changes would alter what Claude Code reads; nothing was written")


def _restyle_tools(
    state: _State, path: str, style: ToolsStyle, profile: ClaudeCodeProfile | None
) -> None:
    result = state.read(path)
    doc = result.document
    if doc is None or doc.recovered or result.definition is None:
        return
    regions = _field_regions(doc, trim_comments=True)
    for f in sorted(doc.fields.values(), key=lambda f: -f.key_line):
        if f.key not in _TOOL_FIELDS:
            continue
        node = f.node
        if style == "comma" and not isinstance(node, YSeq):
            continue
        if style == "list" and not (isinstance(node, YScalar) and node.is_plain and node.value):
            continue
        start, stop = regions[f.key]
        chunk = state.lines[start:stop]
        if any("#" in _content(line) for line in chunk):
            state.notes.append(f"`{f.key}` on line {f.key_line} has a comment; style left as is")
            continue
        values = node.to_python()
        items: list[str] = (
            [str(v) for v in values] if isinstance(values, list) else _split(str(values))
        )
        key = _key_as_written(state.lines[start], f.key)
        nl = _ending(state.lines[start], "\n")
        if style == "comma":
            if any(not isinstance(v, str) or ("," in v and "(" not in v) for v in values or []):
                state.notes.append(f"`{f.key}` has entries a comma list cannot hold; left as is")
                continue
            new = [f"{key}: {', '.join(items)}{nl}"] if items else [f"{key}: []{nl}"]
        else:
            new = [f"{key}:{nl}"] + [f"  - {_plain_or_quoted(i)}{nl}" for i in items]
        saved_lines, saved_origin = list(state.lines), list(state.origin)
        cc_before = read_claude_code(state.text(), profile=profile)
        state.replace(start, stop, new)
        check = state.read(path)
        cc_after = read_claude_code(state.text(), profile=profile)
        old_def, new_def = result.definition, check.definition
        if (
            new_def is None
            or _errors(check)
            or (check.document is not None and check.document.recovered)
            or new_def.tools != old_def.tools
            or new_def.disallowed_tools != old_def.disallowed_tools
            or (cc_before.tools, cc_before.disallowed_tools)
            != (cc_after.tools, cc_after.disallowed_tools)
        ):
            state.lines, state.origin = saved_lines, saved_origin
            state.notes.append(f"`{f.key}` could not be restyled without changing it; left as is")
            continue
        state.changes.append(
            Change(
                state.orig_line(start),
                "tools-style",
                f"wrote `{f.key}` as a "
                + ("comma-separated string" if style == "comma" else "YAML list"),
            )
        )


def _split(text: str) -> list[str]:
    from subagents.known_tools import split_tool_list

    return split_tool_list(text)


# --------------------------------------------------------------------------- files


def fix_file(
    path: str | os.PathLike[str],
    *,
    write: bool = True,
    tools_style: ToolsStyle | None = None,
    dialect: Dialect | None = None,
    display_path: str | None = None,
    max_bytes: int = 1 << 20,
    claude_code: ClaudeCodeProfile | None = None,
) -> FixResult:
    """Repair one file in place (atomically) unless ``write`` is false."""
    p = Path(path)
    display = display_path if display_path is not None else str(path)
    chosen = dialect or detect_dialect(p) or Dialect.CLAUDE
    def unfixable(problem: Diagnostic) -> FixResult:
        return FixResult(display, FixStatus.UNFIXABLE, b"", b"", problems=(problem,))

    try:
        if p.is_symlink():  # never write through a link; say so instead of guessing
            return FixResult(
                display,
                FixStatus.SKIPPED,
                b"",
                b"",
                problems=(rule("FX001").templated("symlink", display, None, None),),
            )
        # the one hostile-safe read (no FIFO hang, bounded even if the file grows meanwhile)
        data = read_regular(p, max_bytes, follow_links=False)
        if len(data) > max_bytes:
            raise TooLarge(len(data))
    except NotRegular:
        return unfixable(rule("SA015").diagnostic(display, None, None, "not a regular file"))
    except TooLarge as exc:
        return unfixable(rule("SA002").diagnostic(
            display, 1, None, f"file is {exc.size:,} bytes; the limit is {max_bytes:,}"))
    except OSError as exc:
        return unfixable(rule("SA015").diagnostic(display, None, None,
                                                  f"cannot read: {exc.strerror or exc}"))
    result = fix_text(
        data, path=display, dialect=chosen, tools_style=tools_style, claude_code=claude_code
    )
    if write and result.status is FixStatus.FIXED:
        write_atomic(p, result.fixed)
    return result


_NOT_AGENT_CODES = frozenset({"SA003", "SA012"})


def fix_targets(targets: Iterable[Path]) -> list[tuple[Path, bool]]:
    """``(file, named explicitly)`` for paths given to ``fix``, each file once: a folder is
    searched exactly as ``validate`` searches it (README/SKILL.md and ``skills/`` folders are
    not agents), so both count the same files."""
    from subagents.lint.validate import iter_agent_files

    seen: set[Path] = set()
    out: list[tuple[Path, bool]] = []
    for target in targets:
        explicit = target.is_file() or (target.is_symlink() and not target.is_dir())
        files = ([target] if explicit
                 else [path for path, _shown, _link in iter_agent_files(target, str(target))])
        for f in files:
            key = f.absolute()
            if key not in seen:
                seen.add(key)
                out.append((f, explicit))
    return out


@dataclass
class FixRun:
    """``fix`` over many files: a result per file, and for the files it leaves as they are,
    the errors ``validate`` still finds that are not fix's to repair (an unknown tool, a bad
    permission mode...): such a file is not "already fine"."""

    results: list[FixResult] = field(default_factory=list)
    remaining: dict[str, list[Diagnostic]] = field(default_factory=dict)


def fix_files(
    targets: Iterable[tuple[Path, bool]],
    *,
    write: bool = True,
    tools_style: ToolsStyle | None = None,
    dialect: Dialect | None = None,
    display: Callable[[Path], str] = str,
    claude_code: Callable[[Path], str | None] = lambda _path: None,
) -> FixRun:
    """:func:`fix_file` on each ``(file, named explicitly)``; ``claude_code`` chooses the
    Claude Code version for a file (the configuration nearest it; None: the newest).  A file
    found in a folder with no frontmatter (notes, an empty file) is not an agent file fix can
    repair: it is reported as skipped, with the reason, as ``validate`` counts it (SA003 /
    SA012); named explicitly, it stays an error."""
    run = FixRun()
    profiles: dict[str | None, ClaudeCodeProfile] = {}
    for path, explicit in targets:
        version = claude_code(path)
        if version not in profiles:
            profiles[version] = get_profile(version)
        result = fix_file(path, write=write, tools_style=tools_style, dialect=dialect,
                          display_path=display(path), claude_code=profiles[version])
        result = _not_an_agent(result, explicit)
        if result.status is FixStatus.UNCHANGED:
            errors = _remaining_errors(path, dialect)
            if errors:
                run.remaining[result.path] = errors
        run.results.append(result)
    return run


def _remaining_errors(path: Path, dialect: Dialect | None) -> list[Diagnostic]:
    from subagents.lint.validate import validate_paths

    try:
        report = validate_paths([path], dialect=dialect)
    except SubagentError:
        return []
    return [d for d in report.diagnostics if d.severity is Severity.ERROR]


def _not_an_agent(result: FixResult, explicit: bool) -> FixResult:
    if explicit or result.status is not FixStatus.UNFIXABLE or not result.problems or not all(
            p.rule in _NOT_AGENT_CODES for p in result.problems):
        return result
    return dataclasses.replace(
        result, status=FixStatus.SKIPPED,
        why=("the file is empty" if result.problems[0].rule == "SA012" else "no frontmatter")
        + ", so not an agent file fix can repair (`subagents validate` reports it as "
        f"{result.problems[0].rule})")


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (:func:`subagents.fs.atomic_write`), never
    through a symbolic link out of the project around the working folder.

    Raises :class:`SubagentError` (with the path) when the folder is not writable, or leads
    out of the project.
    """
    cwd = Path(os.getcwd())
    try:
        atomic_write(path, data, within=find_git_root(cwd) or cwd)
    except LeavesProject as exc:
        raise SubagentError(
            f"cannot write {Path(path)}: {exc.strerror}",
            hint="write the file where the link points yourself, if that is what you mean",
        ) from exc
    except OSError as exc:
        raise SubagentError(
            f"cannot write {Path(path)}: {exc.strerror or exc}",
            hint="check that the folder exists and is writable",
        ) from exc
